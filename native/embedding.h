// EmbeddingContext: a llama_context created with embeddings on and one pooling type, exposed to JS.
//
// Why a context of its own: llama.cpp fixes the pooling type (and the attention's batch shape)
// when the context is created, and a chat context never outputs embeddings. Each embed() call
// runs on a libuv worker (an AsyncWorker that copied the texts): it tokenizes, packs whole texts
// into batches as separate sequences, decodes each batch after clearing the memory, and copies
// the pooled (or per-token) vectors out. One call runs at a time (busy flag); cancel() makes the
// running decode stop at its next graph node.
#pragma once

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "external_memory.h"
#include "llama.h"
#include "model.h"

namespace toolwright {

struct EmbeddingState {
  ModelPtr model;  // declared first: released after the context is freed
  llama_context* ctx = nullptr;
  uint32_t n_ctx = 0;      // most tokens of one text (and of one batch)
  uint32_t n_seq_max = 0;  // most texts in one batch
  int32_t n_embd = 0;      // floats per vector
  enum llama_pooling_type pooling = LLAMA_POOLING_TYPE_NONE;
  std::atomic<bool> abort{false};
  std::atomic<bool> busy{false};

  EmbeddingState() = default;
  EmbeddingState(const EmbeddingState&) = delete;
  EmbeddingState& operator=(const EmbeddingState&) = delete;
  ~EmbeddingState();
};
using EmbeddingPtr = std::shared_ptr<EmbeddingState>;

// What an embed call decodes: texts to tokenize on the worker, or token lists given as they are
// (a rank call formats each query/document pair itself). `label` names the inputs in errors.
struct EmbedInputs {
  std::vector<std::string> texts;
  std::vector<std::vector<llama_token>> tokens;
  std::string label = "texts";
};

// "model" (the model's own pooling, from its metadata), "none", "mean", "cls", "last" or "rank" (a
// reranker's classification head: a score per sequence).
// Returns false for any other name.
bool ParsePooling(const std::string& name, enum llama_pooling_type* out);

// Turns embeddings on in `params` with `pooling`, over one cache all sequences share: the settings
// an EmbeddingContext is created with (measureContextMemory measures with them too).
void SetEmbeddingParams(llama_context_params* params, enum llama_pooling_type pooling);

class EmbeddingContext : public Napi::ObjectWrap<EmbeddingContext> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, EmbeddingPtr state);

  explicit EmbeddingContext(const Napi::CallbackInfo& info);

 private:
  static Napi::Value Create(const Napi::CallbackInfo& info);
  const EmbeddingPtr& Live(Napi::Env env, const char* method) const;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Embed(const Napi::CallbackInfo& info);
  Napi::Value EmbedTokens(const Napi::CallbackInfo& info);
  Napi::Value StartEmbed(const Napi::CallbackInfo& info, const char* method, EmbedInputs inputs);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  EmbeddingPtr state_;
  ExternalMemory external_;
};

}  // namespace toolwright
