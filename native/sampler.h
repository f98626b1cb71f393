// Sampler: a llama.cpp sampler chain (penalties, top-k, top-p, min-p, temperature, then a
// seeded draw or greedy) plus a grammar slot that holds any grammar llama_sampler.
//
// Sampling happens on the Context's worker thread inside Context.step(); the JS object only
// configures. A SamplerState is shared with the worker that uses it, and marked busy while
// it does, so one sampler is never used by two steps at once.
#pragma once

#include <napi.h>

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "llama.h"
#include "model.h"

namespace toolwright {

struct SamplerState {
  ModelPtr model;
  llama_sampler* chain = nullptr;    // owned
  llama_sampler* grammar = nullptr;  // owned; nullptr when no grammar is set
  std::vector<llama_token_data> candidates;
  std::atomic<bool> busy{false};
  // The grammar has token references: both engines' masks may then allow a token that their
  // accept refuses (a token reference reached in the middle of a token, as llama.cpp does), so
  // each pick is accepted on a copy first and refused picks are sampled again without them.
  bool verify_accept = false;
  // The chain is the greedy pick alone: without a grammar, Sample() takes the argmax directly.
  bool greedy_only = false;
  // Tokens the grammar forces are appended without sampling (fast_forward.h); option fastForward.
  bool fast_forward = true;
  // fastForward "checked": each forced token is kept only where the model's own pick agrees.
  bool fast_forward_checked = false;

  ~SamplerState();

  // Picks the next token from the context's logits of batch row `idx` (-1: the last row) and
  // accepts it into the chain and the grammar. Returns LLAMA_TOKEN_NULL and sets *error on
  // failure. Worker thread.
  llama_token Sample(llama_context* ctx, std::string* error, int32_t idx = -1);

  // Feeds a token to the grammar and the chain (e.g. a forced token). Worker thread.
  void Accept(llama_token token);

 private:
  bool FillCandidates(llama_context* ctx, int32_t idx, std::string* error);
  bool AcceptsOnCopy(llama_token token) const;
  llama_token ResampleAcceptable(llama_context* ctx, int32_t idx, std::string* error);
};
using SamplerPtr = std::shared_ptr<SamplerState>;

class Sampler : public Napi::ObjectWrap<Sampler> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // The live state of a JS Sampler, or throws a TypeError naming `what`.
  static SamplerPtr FromValue(Napi::Env env, const Napi::Value& value, const char* method, const char* what);

  explicit Sampler(const Napi::CallbackInfo& info);

  // C++ entry point for other engines: replaces the grammar slot (takes ownership; nullptr
  // clears it). Main thread, while the sampler is not in use.
  void SetGrammarSampler(Napi::Env env, llama_sampler* grammar);

 private:
  const SamplerPtr& Live(Napi::Env env, const char* method) const;

  Napi::Value SetGrammar(const Napi::CallbackInfo& info);
  Napi::Value Reset(const Napi::CallbackInfo& info);
  Napi::Value Accept(const Napi::CallbackInfo& info);
  Napi::Value Describe(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  SamplerPtr state_;
};

}  // namespace toolwright
