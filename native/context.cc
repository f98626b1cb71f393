#include "context.h"

#include <algorithm>
#include <cstring>

#include "addon_data.h"
#include "log_capture.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "sampler.h"
#include "vocab_ops.h"

namespace toolwright {
namespace {

const napi_type_tag kContextStateTag = {0x3f6b1c9e8d2a4705ULL, 0xb4e2917c5d0f3a68ULL};
constexpr const char* kContextFull = "TOOLWRIGHT_CONTEXT_FULL";
constexpr const char* kDecodeFailed = "TOOLWRIGHT_DECODE_FAILED";
constexpr const char* kSampleFailed = "TOOLWRIGHT_SAMPLE_FAILED";

struct ContextOptions {
  uint32_t context_size = 4096;  // 0: the model's training context
  uint32_t batch_size = 512;
  uint32_t ubatch_size = 512;
  int32_t threads = 4;
  int32_t threads_batch = 4;
};

bool AbortRequested(void* data) { return static_cast<ContextState*>(data)->abort.load(std::memory_order_relaxed); }

ggml_threadpool* NewThreadPool(int32_t threads) {
  // Default polling (workers spin briefly between decodes, then sleep), as llama-cli uses.
  ggml_threadpool_params params = ggml_threadpool_params_default(threads);
  return ggml_threadpool_new(&params);
}

bool AttachThreadPools(ContextState& state, const ContextOptions& options) {
  state.pool = NewThreadPool(options.threads);
  if (state.pool == nullptr) return false;
  state.pool_batch = options.threads_batch == options.threads ? state.pool : NewThreadPool(options.threads_batch);
  if (state.pool_batch == nullptr) return false;
  llama_attach_threadpool(state.ctx, state.pool, state.pool_batch);
  return true;
}

class CreateContextWorker : public PromiseWorker {
 public:
  CreateContextWorker(Napi::Env env, Napi::Object owner, ModelPtr model, ContextOptions options)
      : PromiseWorker(env, "toolwright.createContext", owner), model_(std::move(model)), options_(options) {}

 protected:
  void Run() override {
    llama_context_params params = llama_context_default_params();
    params.n_ctx = options_.context_size;
    params.n_batch = options_.batch_size;
    params.n_ubatch = std::min(options_.ubatch_size, options_.batch_size);
    params.n_seq_max = 1;
    params.n_threads = options_.threads;
    params.n_threads_batch = options_.threads_batch;
    params.no_perf = true;

    auto state = std::make_shared<ContextState>();
    state->model = model_;
    ScopedLogCapture capture;
    state->ctx = llama_init_from_model(model_->model, params);
    if (state->ctx == nullptr) {
      std::string reason = capture.Reason();
      Fail("TOOLWRIGHT_CONTEXT_FAILED", "Cannot create a context for \"" + model_->path + "\": " +
                                            (reason.empty() ? "llama.cpp gave no reason" : reason) +
                                            " (llama_init_from_model failed)");
      return;
    }
    state->n_ctx = llama_n_ctx(state->ctx);
    state->n_batch = llama_n_batch(state->ctx);
    state->batch_capacity = static_cast<int32_t>(state->n_batch);
    state->batch = llama_batch_init(state->batch_capacity, 0, 1);
    llama_set_abort_callback(state->ctx, &AbortRequested, state.get());
    if (!AttachThreadPools(*state, options_)) {
      Fail("TOOLWRIGHT_CONTEXT_FAILED", "Cannot create a context for \"" + model_->path +
                                            "\": could not start its CPU threads (ggml_threadpool_new failed)");
      return;
    }
    state_ = std::move(state);
  }
  Napi::Value Result(Napi::Env env) override { return Context::NewInstance(env, std::move(state_)); }

 private:
  ModelPtr model_;
  ContextOptions options_;
  ContextPtr state_;
};

// Common to decode and step: the context is marked busy from queueing to settling.
class ContextWorker : public PromiseWorker {
 public:
  ContextWorker(Napi::Env env, const char* name, Napi::Object owner, ContextPtr state,
                std::vector<llama_token> input)
      : PromiseWorker(env, name, owner), state_(std::move(state)), input_(std::move(input)) {}

 protected:
  void Settle() override { state_->busy.store(false); }

  bool DecodeInput() {
    std::string code;
    std::string error;
    if (!state_->Decode(input_, &code, &error)) {
      Fail(code, error);
      return false;
    }
    return true;
  }

  ContextPtr state_;
  std::vector<llama_token> input_;
};

class DecodeWorker : public ContextWorker {
 public:
  using ContextWorker::ContextWorker;

 protected:
  void Run() override { DecodeInput(); }
  Napi::Value Result(Napi::Env env) override { return Napi::Number::New(env, static_cast<double>(state_->tokens.size())); }
};

// One generation step: decode the pending tokens, then sample, apply the grammar and accept.
class StepWorker : public ContextWorker {
 public:
  StepWorker(Napi::Env env, Napi::Object owner, ContextPtr state, std::vector<llama_token> input,
             SamplerPtr sampler)
      : ContextWorker(env, "toolwright.step", owner, std::move(state), std::move(input)),
        sampler_(std::move(sampler)) {}

 protected:
  void Run() override {
    if (!DecodeInput()) return;
    if (!state_->has_logits) {
      Fail(kSampleFailed, "Context.step: nothing to sample from: decode a prompt first");
      return;
    }
    std::string error;
    ScopedLogCapture capture;
    token_ = sampler_->Sample(state_->ctx, &error);
    if (token_ == LLAMA_TOKEN_NULL) {
      const std::string reason = capture.Reason();
      Fail(kSampleFailed, "Context.step: " + error + (reason.empty() ? "" : ": " + reason));
      return;
    }
    state_->sampled_tokens++;
    piece_ = TokenPiece(state_->model->vocab, token_);
    eog_ = llama_vocab_is_eog(state_->model->vocab, token_);
  }
  void Settle() override {
    sampler_->busy.store(false);
    ContextWorker::Settle();
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = Napi::Object::New(env);
    out.Set("token", Napi::Number::New(env, token_));
    out.Set("bytes", Napi::Buffer<char>::Copy(env, piece_.data(), piece_.size()));
    out.Set("eog", Napi::Boolean::New(env, eog_));
    return out;
  }

 private:
  SamplerPtr sampler_;
  llama_token token_ = LLAMA_TOKEN_NULL;
  std::string piece_;
  bool eog_ = false;
};

ContextOptions ReadContextOptions(const Napi::Object& o, const ModelPtr& model) {
  constexpr const char* kMethod = "Context.create";
  ContextOptions c;
  const int64_t train = std::max<int64_t>(1, llama_model_n_ctx_train(model->model));
  c.context_size = static_cast<uint32_t>(args::OptInt(o, "contextSize", std::min<int64_t>(4096, train), 0, 1 << 24, kMethod));
  c.batch_size = static_cast<uint32_t>(args::OptInt(o, "batchSize", 512, 1, 1 << 20, kMethod));
  c.ubatch_size = static_cast<uint32_t>(args::OptInt(o, "ubatchSize", 512, 1, 1 << 20, kMethod));
  c.threads = static_cast<int32_t>(args::OptInt(o, "threads", 4, 1, 1024, kMethod));
  c.threads_batch = static_cast<int32_t>(args::OptInt(o, "threadsBatch", c.threads, 1, 1024, kMethod));
  return c;
}

}  // namespace

ContextState::~ContextState() {
  if (batch_capacity > 0) llama_batch_free(batch);
  if (ctx != nullptr) llama_free(ctx);
  if (pool_batch != nullptr && pool_batch != pool) ggml_threadpool_free(pool_batch);
  if (pool != nullptr) ggml_threadpool_free(pool);
}

bool ContextState::Decode(const std::vector<llama_token>& input, std::string* code, std::string* error) {
  if (input.empty()) return true;
  if (tokens.size() + input.size() > n_ctx) {
    *code = kContextFull;
    *error = "the context is full: " + std::to_string(tokens.size()) + " tokens in it + " +
             std::to_string(input.size()) + " new > contextSize " + std::to_string(n_ctx);
    return false;
  }
  llama_memory_t memory = llama_get_memory(ctx);
  for (size_t start = 0; start < input.size(); start += static_cast<size_t>(batch_capacity)) {
    const size_t n = std::min(input.size() - start, static_cast<size_t>(batch_capacity));
    const size_t base = tokens.size();
    batch.n_tokens = static_cast<int32_t>(n);
    for (size_t i = 0; i < n; i++) {
      batch.token[i] = input[start + i];
      batch.pos[i] = static_cast<llama_pos>(base + i);
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = 0;
      batch.logits[i] = start + i + 1 == input.size() ? 1 : 0;
    }
    has_logits = false;
    ScopedLogCapture capture;
    const int32_t status = llama_decode(ctx, batch);
    if (status != 0) {
      // Drop whatever part of this batch made it into the cache, so `tokens` stays the truth.
      llama_memory_seq_rm(memory, 0, static_cast<llama_pos>(base), -1);
      const std::string reason = capture.Reason();
      if (status == 2) {
        *code = codes::kAbort;
        *error = "decoding was aborted";
      } else if (status == 1) {
        *code = kContextFull;
        *error = "no room in the KV cache for the batch (llama_decode returned 1)";
      } else {
        *code = kDecodeFailed;
        *error = "llama_decode failed (returned " + std::to_string(status) + ")" + (reason.empty() ? "" : ": " + reason);
      }
      return false;
    }
    tokens.insert(tokens.end(), input.begin() + static_cast<std::ptrdiff_t>(start),
                  input.begin() + static_cast<std::ptrdiff_t>(start + n));
    evaluated_tokens += n;
  }
  has_logits = true;
  return true;
}

void Context::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(
      env, "Context",
      {
          StaticMethod<&Context::Create>("create"),
          InstanceMethod<&Context::Info>("info"),
          InstanceMethod<&Context::Decode>("decode"),
          InstanceMethod<&Context::Step>("step"),
          InstanceMethod<&Context::Cancel>("cancel"),
          InstanceMethod<&Context::Clear>("clear"),
          InstanceMethod<&Context::Truncate>("truncate"),
          InstanceMethod<&Context::Tokens>("tokens"),
          InstanceAccessor<&Context::Size>("size"),
          InstanceMethod<&Context::Stats>("stats"),
          InstanceMethod<&Context::Dispose>("dispose"),
          InstanceAccessor<&Context::IsDisposed>("disposed"),
      });
  GetAddonData(env).context_constructor = Napi::Persistent(ctor);
  exports.Set("Context", ctor);
}

Napi::Object Context::NewInstance(Napi::Env env, ContextPtr state) {
  auto* boxed = new ContextPtr(std::move(state));
  Napi::External<ContextPtr> external = Napi::External<ContextPtr>::New(
      env, boxed, [](Napi::Env, ContextPtr* p) { delete p; });
  external.TypeTag(&kContextStateTag);
  return GetAddonData(env).context_constructor.New({external});
}

Context::Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<ContextPtr>>().CheckTypeTag(&kContextStateTag)) {
    throw Napi::TypeError::New(info.Env(), "Context: not constructible from JS; use Context.create(model, options)");
  }
  state_ = *info[0].As<Napi::External<ContextPtr>>().Data();
}

// create(model, {contextSize, batchSize, ubatchSize, threads, threadsBatch}) -> Promise<Context>
Napi::Value Context::Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), "Context.create", "model");
  if (model->vocab_only) args::ThrowRange(env, "Context.create", "the model was loaded with vocabOnly: it has no weights to run");
  const ContextOptions options = ReadContextOptions(args::OptionalObject(info, 1, "Context.create", "options"), model);
  auto* worker = new CreateContextWorker(env, info[0].As<Napi::Object>(), std::move(model), options);
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

const ContextPtr& Context::Live(Napi::Env env, const char* method) const {
  if (!state_) throw Napi::Error::New(env, std::string(method) + ": the context is disposed");
  return state_;
}

const ContextPtr& Context::Idle(Napi::Env env, const char* method) const {
  const ContextPtr& state = Live(env, method);
  if (state->busy.load()) {
    Napi::Error e = Napi::Error::New(env, std::string(method) + ": the context is busy (a decode or step is running; await it first)");
    e.Set("code", Napi::String::New(env, "TOOLWRIGHT_CONTEXT_BUSY"));
    throw e;
  }
  return state;
}

Napi::Value Context::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Live(env, "Context.info");
  Napi::Object out = Napi::Object::New(env);
  out.Set("contextSize", s->n_ctx);
  out.Set("batchSize", s->n_batch);
  out.Set("ubatchSize", llama_n_ubatch(s->ctx));
  out.Set("threads", llama_n_threads(s->ctx));
  out.Set("threadsBatch", llama_n_threads_batch(s->ctx));
  return out;
}

// decode(tokens) -> Promise<number of tokens in the cache>
Napi::Value Context::Decode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Idle(env, "Context.decode");
  std::vector<llama_token> input = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(), s->model->n_vocab, "Context.decode", "tokens");
  s->busy.store(true);
  s->abort.store(false);
  auto* worker = new DecodeWorker(env, "toolwright.decode", info.This().As<Napi::Object>(), s, std::move(input));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// step(sampler, pending?) -> Promise<{token, bytes, eog}>; pending: token id(s) to decode first
Napi::Value Context::Step(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Idle(env, "Context.step");
  SamplerPtr sampler = Sampler::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), "Context.step", "sampler");
  if (sampler->model->model != s->model->model) {
    args::ThrowRange(env, "Context.step", "the sampler was created for a different model");
  }
  std::vector<llama_token> input;
  if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull()) {
    input = args::Tokens(env, info[1], s->model->n_vocab, "Context.step", "pending");
  }
  s->busy.store(true);
  sampler->busy.store(true);
  s->abort.store(false);
  auto* worker = new StepWorker(env, info.This().As<Napi::Object>(), s, std::move(input), std::move(sampler));
  Napi::Promise promise = worker->Promise();
  worker->Queue();
  return promise;
}

// cancel(): makes the running decode stop at the next graph node (rejects with ABORT_ERR).
Napi::Value Context::Cancel(const Napi::CallbackInfo& info) {
  if (state_) state_->abort.store(true);
  return info.Env().Undefined();
}

Napi::Value Context::Clear(const Napi::CallbackInfo& info) {
  const ContextPtr& s = Idle(info.Env(), "Context.clear");
  llama_memory_clear(llama_get_memory(s->ctx), false);  // metadata only: zeroing a large cache costs ms
  s->tokens.clear();
  s->has_logits = false;
  return info.Env().Undefined();
}

// truncate(keep): drops every cached token from position `keep` on. Returns false when the
// model's memory cannot drop a partial sequence (recurrent models); then nothing changed.
Napi::Value Context::Truncate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Idle(env, "Context.truncate");
  const auto keep = static_cast<size_t>(args::Integer(info, 0, "Context.truncate", "keep", 0, INT32_MAX));
  if (keep >= s->tokens.size()) return Napi::Boolean::New(env, true);
  if (!llama_memory_seq_rm(llama_get_memory(s->ctx), 0, static_cast<llama_pos>(keep), -1)) {
    return Napi::Boolean::New(env, false);
  }
  s->tokens.resize(keep);
  s->has_logits = false;
  return Napi::Boolean::New(env, true);
}

Napi::Value Context::Tokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Idle(env, "Context.tokens");
  Napi::Int32Array out = Napi::Int32Array::New(env, s->tokens.size());
  if (!s->tokens.empty()) std::memcpy(out.Data(), s->tokens.data(), s->tokens.size() * sizeof(llama_token));
  return out;
}

Napi::Value Context::Size(const Napi::CallbackInfo& info) {
  const ContextPtr& s = Live(info.Env(), "Context.size");
  return Napi::Number::New(info.Env(), static_cast<double>(s->tokens.size()));
}

Napi::Value Context::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Live(env, "Context.stats");
  Napi::Object out = Napi::Object::New(env);
  out.Set("evaluatedTokens", static_cast<double>(s->evaluated_tokens));
  out.Set("sampledTokens", static_cast<double>(s->sampled_tokens));
  return out;
}

Napi::Value Context::Dispose(const Napi::CallbackInfo& info) {
  if (state_) {
    // A running worker keeps its own reference; make it stop early, then it frees the state.
    state_->abort.store(true);
    state_.reset();
  }
  return info.Env().Undefined();
}

Napi::Value Context::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !state_);
}

}  // namespace toolwright
