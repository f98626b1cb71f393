#include "context.h"

#include <algorithm>
#include <cstring>

#include "addon_data.h"
#include "batch_scheduler.h"
#include "context_workers.h"
#include "log_capture.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "rpc.h"
#include "sampler.h"

namespace toolwright {
namespace {

// llama.cpp's own limit on sequences in one context (LLAMA_MAX_SEQ, internal to it).
constexpr int64_t kMaxSequences = 256;

const napi_type_tag kContextStateTag = {0x3f6b1c9e8d2a4705ULL, 0xb4e2917c5d0f3a68ULL};

// A new decode or step clears an old cancel(), but not after a step that decodes ahead: a
// cancel() between such a step and the next one is meant for the generation they belong to, so
// the next operation rejects with ABORT_ERR (and a running decode-ahead stops at once).
void ResetAbortUnlessAhead(ContextState& state) {
  if (!state.AheadPending()) state.abort.store(false);
}

ContextOptions ReadContextOptions(const Napi::Object& o, const ModelPtr& model) {
  constexpr const char* kMethod = "Context.create";
  ContextOptions c;
  const int64_t train = std::max<int64_t>(1, llama_model_n_ctx_train(model->model));
  c.context_size = static_cast<uint32_t>(
      args::OptInt(o, "contextSize", std::min<int64_t>(4096, train), 0, 1 << 24, kMethod));
  c.batch_size = static_cast<uint32_t>(args::OptInt(o, "batchSize", 512, 1, 1 << 20, kMethod));
  c.ubatch_size = static_cast<uint32_t>(args::OptInt(o, "ubatchSize", 512, 1, 1 << 20, kMethod));
  c.threads = static_cast<int32_t>(args::OptInt(o, "threads", 4, 1, 1024, kMethod));
  c.threads_batch = static_cast<int32_t>(args::OptInt(o, "threadsBatch", c.threads, 1, 1024, kMethod));
  c.sequences = static_cast<int32_t>(args::OptInt(o, "sequences", 1, 1, kMaxSequences, kMethod));
  return c;
}

// What a context holds natively: its KV cache (K and V in F16 for every layer and cell), the
// logits of a batch, and llama.cpp's compute buffers (about one batch of activations).
int64_t EstimateNativeBytes(const ContextState& s) {
  const llama_model* model = s.model->model;
  const int64_t layers = std::max<int32_t>(1, llama_model_n_layer(model));
  const int64_t embd = std::max<int32_t>(1, llama_model_n_embd(model));
  const int64_t vocab = std::max<int32_t>(1, s.model->n_vocab);
  const int64_t kv = static_cast<int64_t>(s.n_ctx) * s.n_seq * layers * embd * 2 * 2;  // n_ctx: per sequence
  const int64_t logits = vocab * 4 * static_cast<int64_t>(s.n_batch);
  return kv + logits + static_cast<int64_t>(s.n_batch) * embd * 4 * 8;
}

}  // namespace

ContextState::~ContextState() {
  // Idle (see the member): joins it, or, on the thread itself, lets it end after this job.
  if (thread) thread->Stop();
  scheduler.reset();  // ends any request still in it (the thread is stopped: nothing runs them)
  if (batch_capacity > 0) llama_batch_free(batch);
  if (ctx != nullptr && !(model && ModelRpcLost(*model))) llama_free(ctx);  // else leaked (rpc.h)
  if (pool_batch != nullptr && pool_batch != pool) ggml_threadpool_free(pool_batch);
  if (pool != nullptr) ggml_threadpool_free(pool);
}

void ContextState::BeginAhead() {
  std::lock_guard<std::mutex> lock(ahead_mutex_);
  ahead_running_ = true;
  ahead_pending_ = true;
  ahead_code_.clear();
  ahead_error_.clear();
}

void ContextState::EndAhead(std::string code, std::string error) {
  {
    std::lock_guard<std::mutex> lock(ahead_mutex_);
    ahead_running_ = false;
    ahead_code_ = std::move(code);
    ahead_error_ = std::move(error);
  }
  ahead_done_.notify_all();
}

bool ContextState::AwaitAhead(std::string* code, std::string* error, bool consume) {
  std::unique_lock<std::mutex> lock(ahead_mutex_);
  ahead_done_.wait(lock, [this] { return !ahead_running_; });
  const bool ok = ahead_code_.empty();
  if (!ok) {
    *code = ahead_code_;
    *error = ahead_error_;
  }
  if (consume) {
    ahead_pending_ = false;
    ahead_code_.clear();
    ahead_error_.clear();
  }
  return ok;
}

bool ContextState::AheadRunning() {
  std::lock_guard<std::mutex> lock(ahead_mutex_);
  return ahead_running_;
}

bool ContextState::AheadPending() {
  std::lock_guard<std::mutex> lock(ahead_mutex_);
  return ahead_pending_;
}

void ContextState::CancelAhead() {
  std::unique_lock<std::mutex> lock(ahead_mutex_);
  if (ahead_running_) {
    abort.store(true);
    ahead_done_.wait(lock, [this] { return !ahead_running_; });
    abort.store(false);
  }
  ahead_pending_ = false;
  ahead_code_.clear();
  ahead_error_.clear();
}

bool ContextState::Decode(const std::vector<llama_token>& input, std::string* code, std::string* error) {
  if (input.empty()) return true;
  const std::thread::id self = std::this_thread::get_id();
  if (std::find(decode_thread_ids_.begin(), decode_thread_ids_.end(), self) == decode_thread_ids_.end()) {
    decode_thread_ids_.push_back(self);
    decode_threads.store(static_cast<uint32_t>(decode_thread_ids_.size()));
  }
  if (tokens.size() + input.size() > n_ctx) {
    *code = codes::kContextFull;
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
        *code = codes::kContextFull;
        *error = "no room in the KV cache for the batch (llama_decode returned 1)";
      } else {
        *code = codes::kDecodeFailed;
        *error = "llama_decode failed (returned " + std::to_string(status) + ")" +
                 (reason.empty() ? "" : ": " + reason);
      }
      return false;
    }
    tokens.insert(tokens.end(), input.begin() + static_cast<std::ptrdiff_t>(start),
                  input.begin() + static_cast<std::ptrdiff_t>(start + n));
    n_tokens.store(tokens.size());
    evaluated_tokens += n;
  }
  has_logits = true;
  return true;
}

void ContextRegistry::Add(const ContextPtr& state) {
  // A thread whose context is gone and whose loop returned joins at once; others stay listed.
  entries.erase(std::remove_if(entries.begin(), entries.end(),
                               [](const Entry& e) {
                                 if (!e.state.expired() || !e.thread->Finished()) return false;
                                 e.thread->Stop();
                                 return true;
                               }),
                entries.end());
  entries.push_back({state, state->thread});
}

void ContextRegistry::StopAll() {
  // A context whose model lost its RPC server may wait on it forever (rpc.h): its thread is
  // abandoned, not joined.
  std::vector<bool> abandoned(entries.size(), false);
  for (size_t i = 0; i < entries.size(); i++) {
    if (ContextPtr state = entries[i].state.lock()) {
      if (ModelRpcLost(*state->model)) {
        entries[i].thread->Abandon();
        abandoned[i] = true;
        continue;
      }
      state->abort.store(true);  // stops at the next graph node
    }
  }
  // Runs what is queued (aborted at once), then joins; a disposed context's thread finishes
  // freeing it first.
  for (size_t i = 0; i < entries.size(); i++) {
    if (!abandoned[i]) entries[i].thread->Stop();
  }
  entries.clear();
}

void Context::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Context",
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
                                        InstanceMethod<&Context::Submit>("submit"),
                                        InstanceMethod<&Context::CancelRequest>("cancelRequest"),
                                        InstanceMethod<&Context::Consumed>("consumed"),
                                        InstanceMethod<&Context::Dispose>("dispose"),
                                        InstanceAccessor<&Context::IsDisposed>("disposed"),
                                    });
  AddonData& data = GetAddonData(env);
  data.context_constructor = Napi::Persistent(ctor);
  data.contexts = std::make_shared<ContextRegistry>();
  env.AddCleanupHook([registry = data.contexts]() { registry->StopAll(); });
  exports.Set("Context", ctor);
  // stopContexts(): what the cleanup hook does, for the process's "exit" event (process.exit()
  // runs no cleanup hook on the main thread). Contexts stay usable objects; new work on a stopped
  // context rejects.
  exports.Set("stopContexts", Napi::Function::New(
                                  env,
                                  [](const Napi::CallbackInfo& info) {
                                    GetAddonData(info.Env()).contexts->StopAll();
                                    return info.Env().Undefined();
                                  },
                                  "stopContexts"));
}

Napi::Object Context::NewInstance(Napi::Env env, ContextPtr state) {
  GetAddonData(env).contexts->Add(state);
  auto* boxed = new ContextPtr(std::move(state));
  Napi::External<ContextPtr> external =
      Napi::External<ContextPtr>::New(env, boxed, [](Napi::Env, ContextPtr* p) { delete p; });
  external.TypeTag(&kContextStateTag);
  return GetAddonData(env).context_constructor.New({external});
}

Context::Context(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Context>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<ContextPtr>>().CheckTypeTag(&kContextStateTag)) {
    throw Napi::TypeError::New(info.Env(),
                               "Context: not constructible from JS; use Context.create(model, options)");
  }
  // Take the reference out of the box: the External lives until GC, and dispose() must free now.
  state_ = std::move(*info[0].As<Napi::External<ContextPtr>>().Data());
  if (state_) external_.Set(info.Env(), EstimateNativeBytes(*state_));
}

// create(model, {contextSize, batchSize, ubatchSize, threads, threadsBatch}) -> Promise<Context>
Napi::Value Context::Create(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  ModelPtr model =
      Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), "Context.create", "model");
  if (model->vocab_only)
    args::ThrowRange(env, "Context.create", "the model was loaded with vocabOnly: it has no weights to run");
  const ContextOptions options =
      ReadContextOptions(args::OptionalObject(info, 1, "Context.create", "options"), model);
  return QueueCreateContext(env, info[0].As<Napi::Object>(), std::move(model), options);
}

const ContextPtr& Context::Live(Napi::Env env, const char* method) const {
  if (!state_) throw Napi::Error::New(env, std::string(method) + ": the context is disposed");
  return state_;
}

const ContextPtr& Context::Idle(Napi::Env env, const char* method) const {
  const ContextPtr& state = Live(env, method);
  if (ModelRpcLost(*state->model)) {
    Napi::Error e = Napi::Error::New(env, std::string(method) + ": " + RpcLostMessage());
    e.Set("code", Napi::String::New(env, codes::kRpcLost));
    throw e;
  }
  if (state->busy.load()) {
    Napi::Error e = Napi::Error::New(
        env, std::string(method) + ": the context is busy (a decode or step is running; await it first)");
    e.Set("code", Napi::String::New(env, codes::kContextBusy));
    throw e;
  }
  return state;
}

const ContextPtr& Context::Single(Napi::Env env, const char* method) const {
  const ContextPtr& state = Idle(env, method);
  if (state->scheduler) {
    throw Napi::TypeError::New(env, std::string(method) + ": this context runs " +
                                        std::to_string(state->n_seq) +
                                        " parallel sequences; generate with submit()");
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
  out.Set("sequences", s->n_seq);
  return out;
}

// decode(tokens) -> Promise<number of tokens in the cache>
Napi::Value Context::Decode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.decode");
  std::vector<llama_token> input = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(),
                                                s->model->n_vocab, "Context.decode", "tokens");
  s->busy.store(true);
  ResetAbortUnlessAhead(*s);
  return QueueDecode(env, info.This().As<Napi::Object>(), s, std::move(input));
}

// step(sampler, pending?, {decodeAhead}?) -> Promise<{token, bytes, eog}>; pending: token id(s)
// to decode first; decodeAhead: settle once sampled, then decode the token (unless it ends
// generation) before the next operation on this context runs.
Napi::Value Context::Step(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.step");
  SamplerPtr sampler =
      Sampler::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), "Context.step", "sampler");
  if (sampler->model->model != s->model->model) {
    args::ThrowRange(env, "Context.step", "the sampler was created for a different model");
  }
  std::vector<llama_token> input;
  if (info.Length() > 1 && !info[1].IsUndefined() && !info[1].IsNull()) {
    input = args::Tokens(env, info[1], s->model->n_vocab, "Context.step", "pending");
  }
  const bool decode_ahead = args::OptBool(args::OptionalObject(info, 2, "Context.step", "options"),
                                          "decodeAhead", false, "Context.step");
  s->busy.store(true);
  sampler->busy.store(true);
  ResetAbortUnlessAhead(*s);
  return QueueStep(env, info.This().As<Napi::Object>(), s, std::move(sampler), std::move(input),
                   decode_ahead);
}

// cancel(): makes the running decode stop at the next graph node (rejects with ABORT_ERR); a
// running decode-ahead stops too, and the next step or decode rejects with ABORT_ERR.
Napi::Value Context::Cancel(const Napi::CallbackInfo& info) {
  if (state_ && state_->scheduler) {
    state_->scheduler->CancelAll(state_);  // a parallel context's abort flag means dispose
  } else if (state_) {
    state_->abort.store(true);
  }
  return info.Env().Undefined();
}

Napi::Value Context::Clear(const Napi::CallbackInfo& info) {
  const ContextPtr& s = Single(info.Env(), "Context.clear");
  s->CancelAhead();
  llama_memory_clear(llama_get_memory(s->ctx), false);  // metadata only: zeroing a large cache costs ms
  s->tokens.clear();
  s->n_tokens.store(0);
  s->has_logits = false;
  return info.Env().Undefined();
}

// truncate(keep): drops every cached token from position `keep` on. Returns false when the
// model's memory cannot drop a partial sequence (recurrent models); then nothing changed.
Napi::Value Context::Truncate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.truncate");
  const auto keep = static_cast<size_t>(args::Integer(info, 0, "Context.truncate", "keep", 0, INT32_MAX));
  s->CancelAhead();
  if (keep >= s->tokens.size()) return Napi::Boolean::New(env, true);
  if (!llama_memory_seq_rm(llama_get_memory(s->ctx), 0, static_cast<llama_pos>(keep), -1)) {
    return Napi::Boolean::New(env, false);
  }
  s->tokens.resize(keep);
  s->n_tokens.store(keep);
  s->has_logits = false;
  return Napi::Boolean::New(env, true);
}

Napi::Value Context::Tokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.tokens");
  // The cache is the truth only once a decode-ahead is done (generate() waits for it natively
  // before it returns, so this does not block in practice).
  std::string code;
  std::string error;
  s->AwaitAhead(&code, &error, false);
  Napi::Int32Array out = Napi::Int32Array::New(env, s->tokens.size());
  if (!s->tokens.empty()) std::memcpy(out.Data(), s->tokens.data(), s->tokens.size() * sizeof(llama_token));
  return out;
}

Napi::Value Context::Size(const Napi::CallbackInfo& info) {
  const ContextPtr& s = Live(info.Env(), "Context.size");
  return Napi::Number::New(info.Env(), static_cast<double>(s->n_tokens.load()));
}

Napi::Value Context::Stats(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Live(env, "Context.stats");
  Napi::Object out = Napi::Object::New(env);
  out.Set("evaluatedTokens", static_cast<double>(s->evaluated_tokens.load()));
  out.Set("sampledTokens", static_cast<double>(s->sampled_tokens.load()));
  out.Set("stepsSettledEarly", static_cast<double>(s->settled_early.load()));
  out.Set("decodeThreads", static_cast<double>(s->decode_threads.load()));
  out.Set("requestsRunning", static_cast<double>(s->scheduler ? s->scheduler->Pending() : 0));
  out.Set("requestsPaused", static_cast<double>(s->scheduler ? s->scheduler->Paused() : 0));
  return out;
}

// submit(sampler, tokens, {maxTokens?, reusePrefix?, readAhead?}, onEvent) -> request id. A parallel
// context's generation: onEvent gets {type: "start", sequence, reused, evaluated}, then {type: "token",
// token, bytes, eog} per token, then {type: "end", reason} or {type: "end", code, message}, called
// from the context's thread through a thread-safe function (see batch_scheduler.h).
Napi::Value Context::Submit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.submit";
  const ContextPtr& s = Live(env, kMethod);
  if (!s->scheduler) {
    throw Napi::TypeError::New(env,
                               "Context.submit: this context has one sequence; create it with sequences > 1");
  }
  SamplerPtr sampler =
      Sampler::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "sampler");
  if (sampler->model->model != s->model->model)
    args::ThrowRange(env, kMethod, "the sampler was created for a different model");
  auto request = std::make_shared<SequenceRequest>();
  request->prompt =
      args::Tokens(env, info.Length() > 1 ? info[1] : env.Undefined(), s->model->n_vocab, kMethod, "tokens");
  if (request->prompt.empty()) args::ThrowRange(env, kMethod, "tokens must not be empty");
  if (request->prompt.size() > s->n_ctx) {
    args::ThrowRange(env, kMethod,
                     "the prompt has " + std::to_string(request->prompt.size()) +
                         " tokens, more than the context size " + std::to_string(s->n_ctx));
  }
  Napi::Object options = args::OptionalObject(info, 2, kMethod, "options");
  request->max_tokens = args::OptInt(options, "maxTokens", -1, -1, INT32_MAX, kMethod);
  request->reuse_prefix = args::OptBool(options, "reusePrefix", true, kMethod);
  request->window->read_ahead =
      args::OptInt(options, "readAhead", request->window->read_ahead, 0, INT32_MAX, kMethod);
  if (info.Length() < 4 || !info[3].IsFunction())
    args::ThrowType(env, kMethod, "onEvent must be a function",
                    info.Length() > 3 ? info[3] : env.Undefined());
  request->events = EventSink::Create(env, info[3].As<Napi::Function>(), request->window);
  request->id = ++next_request_id_;
  request->sampler = std::move(sampler);
  const double id = static_cast<double>(request->id);
  s->scheduler->Submit(s, std::move(request));
  return Napi::Number::New(env, id);
}

// cancelRequest(id): that request ends with reason "abort" at the next round; the others go on.
Napi::Value Context::CancelRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (state_ && state_->scheduler) {
    const auto id =
        static_cast<uint64_t>(args::Integer(info, 0, "Context.cancelRequest", "id", 0, INT64_C(1) << 52));
    state_->scheduler->Cancel(state_, id);
  }
  return env.Undefined();
}

// consumed(id, tokens): the reader of request `id` has taken `tokens` token events so far; a
// request paused because its reader fell `readAhead` tokens behind runs again.
Napi::Value Context::Consumed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.consumed";
  const auto id = static_cast<uint64_t>(args::Integer(info, 0, kMethod, "id", 0, INT64_C(1) << 52));
  const int64_t tokens = args::Integer(info, 1, kMethod, "tokens", 0, INT64_C(1) << 52);
  if (state_ && state_->scheduler) state_->scheduler->Consumed(state_, id, tokens);
  return env.Undefined();
}

Napi::Value Context::Dispose(const Napi::CallbackInfo& info) {
  if (state_) {
    // A running worker keeps its own reference; make it stop early, then it frees the state.
    state_->abort.store(true);
    state_.reset();
  }
  external_.Release();
  return info.Env().Undefined();
}

Napi::Value Context::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !state_);
}

}  // namespace toolwright
