#include "llama_reference.h"

#include <cmath>
#include <exception>

namespace toolwright::grammar::tool {

LlamaReference::LlamaReference(const llama_vocab* vocab, const std::string& gbnf, const std::string& root,
                               const std::vector<std::string>& trigger_patterns,
                               const std::vector<llama_token>& trigger_tokens)
    : n_vocab_(llama_vocab_n_tokens(vocab)) {
  try {
    if (trigger_patterns.empty() && trigger_tokens.empty()) {
      smpl_ = llama_sampler_init_grammar(vocab, gbnf.c_str(), root.c_str());
    } else {
      std::vector<const char*> pats;
      for (const std::string& p : trigger_patterns) pats.push_back(p.c_str());
      smpl_ =
          llama_sampler_init_grammar_lazy_patterns(vocab, gbnf.c_str(), root.c_str(), pats.data(),
                                                   pats.size(), trigger_tokens.data(), trigger_tokens.size());
    }
  } catch (const std::exception&) {
    smpl_ = nullptr;
  }
  cur_.resize(static_cast<size_t>(n_vocab_));
}

LlamaReference::~LlamaReference() {
  if (smpl_) llama_sampler_free(smpl_);
}

void LlamaReference::prepare() {
  for (int32_t i = 0; i < n_vocab_; i++) cur_[i] = llama_token_data{i, 0.0f, 0.0f};
  arr_ = llama_token_data_array{cur_.data(), cur_.size(), -1, false};
}

void LlamaReference::apply_only() { llama_sampler_apply(smpl_, &arr_); }

void LlamaReference::read_mask(std::vector<uint64_t>& bits) const {
  bits.assign((static_cast<size_t>(n_vocab_) + 63) / 64, 0);
  for (size_t i = 0; i < arr_.size; i++) {
    const llama_token id = arr_.data[i].id;
    if (std::isfinite(arr_.data[i].logit)) bits[id >> 6] |= 1ull << (id & 63);
  }
}

void LlamaReference::mask(std::vector<uint64_t>& bits) {
  prepare();
  apply_only();
  read_mask(bits);
}

bool LlamaReference::accept(llama_token token, std::string* error) {
  try {
    llama_sampler_accept(smpl_, token);
    return true;
  } catch (const std::exception& e) {
    if (error) *error = e.what();
    return false;
  }
}

void LlamaReference::reset() { llama_sampler_reset(smpl_); }

}  // namespace toolwright::grammar::tool
