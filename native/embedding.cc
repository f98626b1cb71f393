#include "embedding.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "addon_data.h"
#include "log_capture.h"
#include "memory_usage.h"
#include "model_worker.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "vocab_ops.h"

namespace toolwright {
namespace {

const napi_type_tag kEmbeddingStateTag = {0x51c3a0e97b2d4f18ULL, 0x8e6f1d4c2a9b7305ULL};

bool AbortRequested(void* data) {
  return static_cast<EmbeddingState*>(data)->abort.load(std::memory_order_relaxed);
}

const char* PoolingName(enum llama_pooling_type pooling) {
  switch (pooling) {
    case LLAMA_POOLING_TYPE_NONE:
      return "none";
    case LLAMA_POOLING_TYPE_MEAN:
      return "mean";
    case LLAMA_POOLING_TYPE_CLS:
      return "cls";
    case LLAMA_POOLING_TYPE_LAST:
      return "last";
    case LLAMA_POOLING_TYPE_RANK:
      return "rank";
    default:
      return "unspecified";
  }
}

struct EmbeddingCreateOptions {
  uint32_t context_size = 512;
  uint32_t sequences = 64;
  int32_t threads = 4;
  enum llama_pooling_type pooling = LLAMA_POOLING_TYPE_UNSPECIFIED;
};

class CreateEmbeddingWorker : public ModelWorker<EmbeddingCreateOptions> {
 public:
  CreateEmbeddingWorker(Napi::Env env, Napi::Object owner, ModelPtr model, EmbeddingCreateOptions options)
      : ModelWorker(env, "toolwright.createEmbeddingContext", owner, std::move(model), options) {}

 protected:
  void Run() override {
    llama_context_params params = llama_context_default_params();
    // One batch is one ubatch: a pooled vector is computed per ubatch, so a text split over two
    // would be pooled wrongly, and non-causal models need the whole text in one ubatch anyway.
    params.n_ctx = options_.context_size;
    params.n_batch = options_.context_size;
    params.n_ubatch = options_.context_size;
    params.n_seq_max = options_.sequences;
    SetEmbeddingParams(&params, options_.pooling);
    params.n_threads = options_.threads;
    params.n_threads_batch = options_.threads;
    params.no_perf = true;

    auto state = std::make_shared<EmbeddingState>();
    state->model = model_;
    std::string reason;
    state->ctx = InitContext(model_->model, params, &reason);
    if (state->ctx == nullptr) {
      Fail(codes::kContextFailed, "Cannot create an embedding context for \"" + model_->path +
                                      "\": " + reason + " (llama_init_from_model failed)");
      return;
    }
    state->n_ctx = llama_n_ctx(state->ctx);
    state->n_seq_max = llama_n_seq_max(state->ctx);
    state->pooling = llama_pooling_type(state->ctx);
    // A rank head outputs n_cls_out scores per sequence instead of a vector of n_embd floats.
    state->n_embd = state->pooling == LLAMA_POOLING_TYPE_RANK
                        ? static_cast<int32_t>(llama_model_n_cls_out(model_->model))
                        : llama_model_n_embd_out(model_->model);
    if (state->pooling == LLAMA_POOLING_TYPE_RANK && options_.pooling != LLAMA_POOLING_TYPE_RANK) {
      Fail(codes::kContextFailed, "Cannot create an embedding context for \"" + model_->path +
                                      "\": the model is a reranker (pooling \"rank\"); pass another pooling");
      return;
    }
    llama_set_abort_callback(state->ctx, &AbortRequested, state.get());
    state_ = std::move(state);
  }
  Napi::Value Result(Napi::Env env) override { return EmbeddingContext::NewInstance(env, std::move(state_)); }

 private:
  EmbeddingPtr state_;
};

// A llama_batch freed when it goes out of scope.
class OwnedBatch {
 public:
  explicit OwnedBatch(int32_t capacity) : batch_(llama_batch_init(capacity, 0, 1)) {}
  ~OwnedBatch() { llama_batch_free(batch_); }
  OwnedBatch(const OwnedBatch&) = delete;
  OwnedBatch& operator=(const OwnedBatch&) = delete;
  llama_batch& get() { return batch_; }

 private:
  llama_batch batch_;
};

void NormalizeRows(float* data, size_t rows, size_t width) {
  for (size_t r = 0; r < rows; r++) {
    float* row = data + r * width;
    double sum = 0;
    for (size_t i = 0; i < width; i++) sum += static_cast<double>(row[i]) * row[i];
    if (sum <= 0) continue;  // an all-zero vector has no direction; it stays zero
    const float scale = static_cast<float>(1.0 / std::sqrt(sum));
    for (size_t i = 0; i < width; i++) row[i] *= scale;
  }
}

class EmbedWorker : public PromiseWorker {
 public:
  EmbedWorker(Napi::Env env, Napi::Object owner, EmbeddingPtr state, EmbedInputs inputs, bool normalize,
              uint32_t batch_tokens)
      : PromiseWorker(env, "toolwright.embed", owner),
        state_(std::move(state)),
        inputs_(std::move(inputs)),
        normalize_(normalize),
        batch_tokens_(batch_tokens) {}

 protected:
  void Run() override {
    EmbeddingState& s = *state_;
    std::vector<std::vector<llama_token>>& tokens = inputs_.tokens;
    const std::string& label = inputs_.label;
    if (!inputs_.texts.empty()) {
      tokens.assign(inputs_.texts.size(), {});
      for (size_t i = 0; i < inputs_.texts.size(); i++) {
        std::string error;
        if (!TokenizeText(s.model->vocab, inputs_.texts[i], true, true, &tokens[i], &error)) {
          return Fail(codes::kTokenizeFailed, "embed: " + label + "[" + std::to_string(i) + "]: " + error);
        }
      }
    }
    for (size_t i = 0; i < tokens.size(); i++) {
      if (tokens[i].empty()) {
        return Fail(codes::kTokenizeFailed,
                    "embed: " + label + "[" + std::to_string(i) + "] gives no tokens");
      }
      if (tokens[i].size() > s.n_ctx) {
        return Fail(codes::kContextOverflow,
                    "embed: " + label + "[" + std::to_string(i) + "] has " +
                        std::to_string(tokens[i].size()) +
                        " tokens, more than the embedding context holds (contextSize " +
                        std::to_string(s.n_ctx) + "); pass a larger contextSize");
      }
    }
    const size_t count = tokens.size();
    const bool pooled = s.pooling != LLAMA_POOLING_TYPE_NONE;
    const size_t width = static_cast<size_t>(s.n_embd);
    outputs_.resize(count);
    for (size_t i = 0; i < count; i++) outputs_[i].resize(width * (pooled ? 1 : tokens[i].size()));

    OwnedBatch owned(static_cast<int32_t>(s.n_ctx));
    llama_batch& batch = owned.get();
    const uint32_t target = std::max<uint32_t>(1, std::min(batch_tokens_, s.n_ctx));
    size_t next = 0;
    while (next < count) {
      // Whole texts, as separate sequences, up to `target` tokens (a longer text goes alone, up
      // to the context size) and n_seq_max texts.
      const size_t first = next;
      batch.n_tokens = 0;
      while (next < count && next - first < s.n_seq_max) {
        const size_t n = tokens[next].size();
        if (next > first && static_cast<size_t>(batch.n_tokens) + n > target) break;
        const auto seq = static_cast<llama_seq_id>(next - first);
        for (size_t t = 0; t < n; t++) {
          const int32_t at = batch.n_tokens++;
          batch.token[at] = tokens[next][t];
          batch.pos[at] = static_cast<llama_pos>(t);
          batch.n_seq_id[at] = 1;
          batch.seq_id[at][0] = seq;
          batch.logits[at] = 1;
        }
        next++;
      }
      if (!DecodeBatch(batch)) return;
      size_t row = 0;
      for (size_t i = first; i < next; i++) {
        float* out = outputs_[i].data();
        if (pooled) {
          const float* v = llama_get_embeddings_seq(s.ctx, static_cast<llama_seq_id>(i - first));
          if (v == nullptr) return Fail(codes::kDecodeFailed, "embed: llama.cpp gave no pooled embedding");
          std::memcpy(out, v, width * sizeof(float));
        } else {
          for (size_t t = 0; t < tokens[i].size(); t++, row++) {
            const float* v = llama_get_embeddings_ith(s.ctx, static_cast<int32_t>(row));
            if (v == nullptr) return Fail(codes::kDecodeFailed, "embed: llama.cpp gave no token embedding");
            std::memcpy(out + t * width, v, width * sizeof(float));
          }
        }
        if (normalize_) NormalizeRows(out, outputs_[i].size() / width, width);
      }
    }
    token_counts_.reserve(tokens.size());
    for (const auto& t : tokens) token_counts_.push_back(static_cast<uint32_t>(t.size()));
  }

  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    Napi::Array vectors = Napi::Array::New(env, outputs_.size());
    Napi::Array counts = Napi::Array::New(env, token_counts_.size());
    for (uint32_t i = 0; i < outputs_.size(); i++) {
      Napi::Float32Array v = Napi::Float32Array::New(env, outputs_[i].size());
      if (!outputs_[i].empty()) std::memcpy(v.Data(), outputs_[i].data(), outputs_[i].size() * sizeof(float));
      vectors.Set(i, v);
      counts.Set(i, token_counts_[i]);
    }
    out.Set("vectors", vectors);
    out.Set("tokenCounts", counts);
    return out;
  }

  void Settle() override { state_->busy.store(false); }

 private:
  bool DecodeBatch(llama_batch& batch) {
    EmbeddingState& s = *state_;
    if (s.abort.load()) {
      Fail(codes::kAbort, "embedding was aborted");
      return false;
    }
    // Each batch starts from empty memory: its sequences are numbered from 0 again.
    llama_memory_clear(llama_get_memory(s.ctx), false);
    ScopedLogCapture capture;
    const int32_t status = llama_decode(s.ctx, batch);
    if (status == 2 || s.abort.load()) {
      Fail(codes::kAbort, "embedding was aborted");
      return false;
    }
    if (status != 0) {
      const std::string reason = capture.Reason();
      Fail(codes::kDecodeFailed, "embed: llama_decode failed (returned " + std::to_string(status) + ")" +
                                     (reason.empty() ? "" : ": " + reason));
      return false;
    }
    return true;
  }

  EmbeddingPtr state_;
  EmbedInputs inputs_;
  bool normalize_;
  uint32_t batch_tokens_;
  std::vector<std::vector<float>> outputs_;
  std::vector<uint32_t> token_counts_;
};

// What the context holds natively, for V8's GC accounting: its memory and compute buffers as
// llama.cpp reports them (the weights belong to the model).
int64_t NativeBytes(const EmbeddingState& s) {
  const MemoryUsage usage = ContextMemoryUsage(s.ctx);
  return static_cast<int64_t>(usage.context + usage.compute);
}

}  // namespace

void SetEmbeddingParams(llama_context_params* params, enum llama_pooling_type pooling) {
  params->embeddings = true;
  params->pooling_type = pooling;
  // Unified: every sequence may use the whole context (a batch holds one long text or many
  // short ones); the memory is cleared before each batch.
  params->kv_unified = true;
}

bool ParsePooling(const std::string& name, enum llama_pooling_type* out) {
  if (name == "model")
    *out = LLAMA_POOLING_TYPE_UNSPECIFIED;
  else if (name == "none")
    *out = LLAMA_POOLING_TYPE_NONE;
  else if (name == "mean")
    *out = LLAMA_POOLING_TYPE_MEAN;
  else if (name == "cls")
    *out = LLAMA_POOLING_TYPE_CLS;
  else if (name == "last")
    *out = LLAMA_POOLING_TYPE_LAST;
  else if (name == "rank")
    *out = LLAMA_POOLING_TYPE_RANK;
  else
    return false;
  return true;
}

EmbeddingState::~EmbeddingState() {
  if (ctx != nullptr) llama_free(ctx);
}

void EmbeddingContext::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "EmbeddingContext",
                                    {
                                        StaticMethod<&EmbeddingContext::Create>("create"),
                                        InstanceMethod<&EmbeddingContext::Info>("info"),
                                        InstanceMethod<&EmbeddingContext::Embed>("embed"),
                                        InstanceMethod<&EmbeddingContext::EmbedTokens>("embedTokens"),
                                        InstanceMethod<&EmbeddingContext::Cancel>("cancel"),
                                        InstanceMethod<&EmbeddingContext::Dispose>("dispose"),
                                        InstanceAccessor<&EmbeddingContext::IsDisposed>("disposed"),
                                    });
  GetAddonData(env).embedding_constructor = Napi::Persistent(ctor);
  exports.Set("EmbeddingContext", ctor);
}

Napi::Object EmbeddingContext::NewInstance(Napi::Env env, EmbeddingPtr state) {
  auto* boxed = new EmbeddingPtr(std::move(state));
  Napi::External<EmbeddingPtr> external =
      Napi::External<EmbeddingPtr>::New(env, boxed, [](Napi::Env, EmbeddingPtr* p) { delete p; });
  external.TypeTag(&kEmbeddingStateTag);
  return GetAddonData(env).embedding_constructor.New({external});
}

EmbeddingContext::EmbeddingContext(const Napi::CallbackInfo& info)
    : Napi::ObjectWrap<EmbeddingContext>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<EmbeddingPtr>>().CheckTypeTag(&kEmbeddingStateTag)) {
    throw Napi::TypeError::New(
        info.Env(),
        "EmbeddingContext: not constructible from JS; use EmbeddingContext.create(model, options)");
  }
  state_ = std::move(*info[0].As<Napi::External<EmbeddingPtr>>().Data());
  if (state_) external_.Set(info.Env(), NativeBytes(*state_));
}

// create(model, {contextSize, sequences, threads, pooling}) -> Promise<EmbeddingContext>
Napi::Value EmbeddingContext::Create(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "EmbeddingContext.create";
  Napi::Env env = info.Env();
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "model");
  if (model->vocab_only)
    args::ThrowRange(env, kMethod, "the model was loaded with vocabOnly: it has no weights to run");
  Napi::Object o = args::OptionalObject(info, 1, kMethod, "options");
  EmbeddingCreateOptions options;
  options.context_size = static_cast<uint32_t>(args::OptInt(o, "contextSize", 512, 1, 1 << 20, kMethod));
  options.sequences = static_cast<uint32_t>(
      args::OptInt(o, "sequences", 64, 1, static_cast<int64_t>(llama_max_parallel_sequences()), kMethod));
  options.threads = static_cast<int32_t>(args::OptInt(o, "threads", 4, 1, 1024, kMethod));
  const std::string pooling = args::OptString(o, "pooling", "model", kMethod);
  if (!ParsePooling(pooling, &options.pooling)) {
    args::ThrowRange(
        env, kMethod,
        "option pooling must be \"model\", \"none\", \"mean\", \"cls\", \"last\" or \"rank\", got \"" +
            pooling + "\"");
  }
  return (new CreateEmbeddingWorker(env, info[0].As<Napi::Object>(), std::move(model), options))->Start();
}

const EmbeddingPtr& EmbeddingContext::Live(Napi::Env env, const char* method) const {
  if (!state_) throw Napi::Error::New(env, std::string(method) + ": the embedding context is disposed");
  return state_;
}

Napi::Value EmbeddingContext::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const EmbeddingPtr& s = Live(env, "EmbeddingContext.info");
  Napi::Object out = Napi::Object::New(env);
  out.Set("contextSize", s->n_ctx);
  out.Set("sequences", s->n_seq_max);
  out.Set("dimensions", s->n_embd);
  out.Set("pooling", PoolingName(s->pooling));
  return out;
}

// embed(texts, {normalize, batchTokens}) -> Promise<{vectors: Float32Array[], tokenCounts: number[]}>
Napi::Value EmbeddingContext::Embed(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "EmbeddingContext.embed";
  Napi::Env env = info.Env();
  Live(env, kMethod);
  Napi::Value list = info.Length() > 0 ? info[0] : env.Undefined();
  if (!list.IsArray()) args::ThrowType(env, kMethod, "texts must be an array of strings", list);
  Napi::Array array = list.As<Napi::Array>();
  EmbedInputs inputs;
  inputs.texts.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); i++) {
    Napi::Value v = array.Get(i);
    if (!v.IsString()) args::ThrowType(env, kMethod, "texts[" + std::to_string(i) + "] must be a string", v);
    inputs.texts.push_back(v.As<Napi::String>().Utf8Value());
  }
  return StartEmbed(info, kMethod, std::move(inputs));
}

// embedTokens(tokenLists: token id arrays, {normalize, batchTokens}) -> the same as embed(): each list is
// decoded as given (no special tokens added). Used by rank(), which formats query/document pairs.
Napi::Value EmbeddingContext::EmbedTokens(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "EmbeddingContext.embedTokens";
  Napi::Env env = info.Env();
  const EmbeddingPtr& s = Live(env, kMethod);
  Napi::Value list = info.Length() > 0 ? info[0] : env.Undefined();
  if (!list.IsArray()) args::ThrowType(env, kMethod, "tokenLists must be an array of token id arrays", list);
  Napi::Array array = list.As<Napi::Array>();
  EmbedInputs inputs;
  inputs.label = "inputs";
  inputs.tokens.reserve(array.Length());
  for (uint32_t i = 0; i < array.Length(); i++) {
    const std::string name = "tokenLists[" + std::to_string(i) + "]";
    inputs.tokens.push_back(args::Tokens(env, array.Get(i), s->model->n_vocab, kMethod, name.c_str()));
  }
  return StartEmbed(info, kMethod, std::move(inputs));
}

Napi::Value EmbeddingContext::StartEmbed(const Napi::CallbackInfo& info, const char* method,
                                         EmbedInputs inputs) {
  Napi::Env env = info.Env();
  const EmbeddingPtr& s = Live(env, method);
  Napi::Object o = args::OptionalObject(info, 1, method, "options");
  const bool normalize = args::OptBool(o, "normalize", false, method);
  const auto batch_tokens =
      static_cast<uint32_t>(args::OptInt(o, "batchTokens", s->n_ctx, 1, 1 << 24, method));
  if (s->busy.load()) {
    Napi::Error e =
        Napi::Error::New(env, std::string(method) + ": another embed() is running on this context");
    e.Set("code", Napi::String::New(env, codes::kContextBusy));
    throw e;
  }
  s->busy.store(true);
  s->abort.store(false);
  return (new EmbedWorker(env, info.This().As<Napi::Object>(), s, std::move(inputs), normalize, batch_tokens))
      ->Start();
}

Napi::Value EmbeddingContext::Cancel(const Napi::CallbackInfo& info) {
  if (state_) state_->abort.store(true);
  return info.Env().Undefined();
}

Napi::Value EmbeddingContext::Dispose(const Napi::CallbackInfo& info) {
  if (state_) {
    state_->abort.store(true);  // a running embed() keeps its own reference and stops early
    state_.reset();
  }
  external_.Release();
  return info.Env().Undefined();
}

Napi::Value EmbeddingContext::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !state_);
}

}  // namespace toolwright
