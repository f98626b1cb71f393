// llama.cpp's own grammar sampler behind the same small interface as our matcher, so the
// differential test and the bench drive both engines identically.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"

namespace toolwright::grammar::tool {

class LlamaReference {
 public:
  // Non-lazy unless trigger patterns or tokens are given (then llama's lazy sampler).
  LlamaReference(const llama_vocab* vocab, const std::string& gbnf, const std::string& root,
                 const std::vector<std::string>& trigger_patterns = {},
                 const std::vector<llama_token>& trigger_tokens = {});
  ~LlamaReference();
  LlamaReference(const LlamaReference&) = delete;
  LlamaReference& operator=(const LlamaReference&) = delete;

  bool ok() const { return smpl_ != nullptr; }
  // llama_sampler_apply on the full vocabulary; bit set = logit left finite.
  void mask(std::vector<uint64_t>& bits);
  // The candidate array apply() will mask (rebuilt untimed by callers that time apply_only).
  void prepare();
  void apply_only();
  void read_mask(std::vector<uint64_t>& bits) const;
  // llama_sampler_accept; false if it threw (grammar cannot continue).
  bool accept(llama_token token, std::string* error = nullptr);
  void reset();

 private:
  llama_sampler* smpl_ = nullptr;
  int32_t n_vocab_ = 0;
  std::vector<llama_token_data> cur_;
  llama_token_data_array arr_{};
};

}  // namespace toolwright::grammar::tool
