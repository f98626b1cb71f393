#include "context.h"

#include <algorithm>
#include <cstring>

#include "addon_data.h"
#include "batch_scheduler.h"
#include "context_workers.h"
#include "log_capture.h"
#include "napi_args.h"
#include "projector.h"
#include "promise_worker.h"
#include "rpc.h"
#include "sampler.h"

namespace toolwright {
namespace {

// llama.cpp's own limit on sequences in one context (LLAMA_MAX_SEQ, internal to it).
constexpr int64_t kMaxSequences = 256;
// The most token events handed to JS in one call (Context.submit's groupTokens).
constexpr int64_t kMaxTokenGroup = 64;

const napi_type_tag kContextStateTag = {0x3f6b1c9e8d2a4705ULL, 0xb4e2917c5d0f3a68ULL};

// speculative: {lookup?: boolean, draft?: Model, maxDraft?: 1..64, minProbability?: 0..1}
SpeculativeOptions ReadSpeculativeOptions(const Napi::Object& options) {
  constexpr const char* kMethod = "Context.create: options.speculative";
  Napi::Env env = options.Env();
  SpeculativeOptions spec;
  const Napi::Value value = options.Get("speculative");
  if (value.IsUndefined()) return spec;
  if (!value.IsObject())
    args::ThrowType(env, "Context.create", "options.speculative must be an object", value);
  const Napi::Object o = value.As<Napi::Object>();
  spec.lookup = args::OptBool(o, "lookup", false, kMethod);
  spec.max_draft = static_cast<int32_t>(args::OptInt(o, "maxDraft", 8, 1, 64, kMethod));
  spec.min_probability = static_cast<float>(args::OptNumber(o, "minProbability", 0.75, 0, 1, kMethod));
  const Napi::Value draft = o.Get("draft");
  if (!draft.IsUndefined()) {
    spec.draft = Model::FromValue(env, draft, kMethod, "draft");
    if (spec.draft->vocab_only)
      args::ThrowRange(env, kMethod, "the draft model was loaded with vocabOnly: it has no weights to run");
  }
  return spec;
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
  c.poll = static_cast<int32_t>(args::OptInt(o, "poll", 50, 0, 100, kMethod));
  c.sequences = static_cast<int32_t>(args::OptInt(o, "sequences", 1, 1, kMaxSequences, kMethod));
  c.speculative = ReadSpeculativeOptions(o);
  const Napi::Value flash = o.Get("flashAttention");
  if (!flash.IsUndefined()) {
    if (!flash.IsBoolean())
      args::ThrowType(o.Env(), kMethod, "options.flashAttention must be a boolean (absent: auto)", flash);
    c.flash_attention =
        flash.As<Napi::Boolean>().Value() ? LLAMA_FLASH_ATTN_TYPE_ENABLED : LLAMA_FLASH_ATTN_TYPE_DISABLED;
  }
  c.warm_up = args::OptBool(o, "warmUp", false, kMethod);
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
  if (rpc_listener != 0) StopListeningForRpcLoss(rpc_listener);
  // Idle (see the member): joins it, or, on the thread itself, lets it end after this job.
  if (thread) thread->Stop();
  scheduler.reset();           // ends any request still in it (the thread is stopped: nothing runs them)
  draft.reset();               // on the thread pools freed below
  reference_kernels.Detach();  // before the pools it marked are freed (and their addresses reused)
  if (batch_capacity > 0) llama_batch_free(batch);
  if (ctx != nullptr && !(model && ModelRpcLost(*model))) llama_free(ctx);  // else leaked (rpc.h)
  if (pool_batch != nullptr && pool_batch != pool) ggml_threadpool_free(pool_batch);
  if (pool != nullptr) ggml_threadpool_free(pool);
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
                                        InstanceMethod<&Context::Cancel>("cancel"),
                                        InstanceMethod<&Context::Clear>("clear"),
                                        InstanceMethod<&Context::Truncate>("truncate"),
                                        InstanceMethod<&Context::Tokens>("tokens"),
                                        InstanceAccessor<&Context::Size>("size"),
                                        InstanceMethod<&Context::Stats>("stats"),
                                        InstanceMethod<&Context::Submit>("submit"),
                                        InstanceMethod<&Context::CancelRequest>("cancelRequest"),
                                        InstanceMethod<&Context::TrimUntaken>("trimUntaken"),
                                        InstanceMethod<&Context::Consumed>("consumed"),
                                        InstanceMethod<&Context::SetLoras>("setLoras"),
                                        InstanceMethod<&Context::SaveSequence>("saveSequence"),
                                        InstanceMethod<&Context::RestoreSequence>("restoreSequence"),
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

// create(model, {contextSize, batchSize, ubatchSize, threads, threadsBatch, poll, sequences, flashAttention,
//   warmUp})
// -> Promise<Context>
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
  if (state->n_seq > 1) {
    throw Napi::TypeError::New(env, std::string(method) + ": this context runs " +
                                        std::to_string(state->n_seq) +
                                        " parallel sequences; the method is for a context of one");
  }
  if (state->scheduler->Pending() > 0) {
    Napi::Error e =
        Napi::Error::New(env, std::string(method) + ": the context is busy (a generation is running on it)");
    e.Set("code", Napi::String::New(env, codes::kContextBusy));
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
  out.Set("sequences", s->n_seq);
  out.Set("speculative", s->speculative.Enabled());
  return out;
}

// decode(tokens) -> Promise<number of tokens in the cache>
Napi::Value Context::Decode(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.decode");
  std::vector<llama_token> input = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(),
                                                s->model->n_vocab, "Context.decode", "tokens");
  s->busy.store(true);
  return QueueDecode(env, info.This().As<Napi::Object>(), s, std::move(input));
}

// cancel(): every generation on the context ends with "abort" (the context stays usable).
Napi::Value Context::Cancel(const Napi::CallbackInfo& info) {
  if (state_) state_->scheduler->CancelAll(state_);  // the abort flag means dispose
  return info.Env().Undefined();
}

Napi::Value Context::Clear(const Napi::CallbackInfo& info) {
  const ContextPtr& s = Single(info.Env(), "Context.clear");
  s->scheduler->Clear(*s);
  return info.Env().Undefined();
}

// truncate(keep): drops every cached token from position `keep` on. Returns false when the
// model's memory cannot drop a partial sequence (recurrent models); then nothing changed.
Napi::Value Context::Truncate(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.truncate");
  const auto keep = static_cast<size_t>(args::Integer(info, 0, "Context.truncate", "keep", 0, INT32_MAX));
  return Napi::Boolean::New(env, s->scheduler->Truncate(*s, keep));
}

Napi::Value Context::Tokens(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const ContextPtr& s = Single(env, "Context.tokens");
  const std::vector<llama_token> tokens = s->scheduler->Tokens();
  Napi::Int32Array out = Napi::Int32Array::New(env, tokens.size());
  if (!tokens.empty()) std::memcpy(out.Data(), tokens.data(), tokens.size() * sizeof(llama_token));
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
  out.Set("forcedTokens", static_cast<double>(s->forced_tokens.load()));
  out.Set("draftedTokens", static_cast<double>(s->drafted_tokens.load()));
  out.Set("acceptedDraftTokens", static_cast<double>(s->accepted_draft_tokens.load()));
  out.Set("decodeThreads", static_cast<double>(s->decode_threads.load()));
  out.Set("requestsRunning", static_cast<double>(s->scheduler->Pending()));
  out.Set("requestsPaused", static_cast<double>(s->scheduler->Paused()));
  return out;
}

namespace {

// The tokens of a prompt with images: text token ids, and the placeholders of `media`'s images at
// the places `media` has them (the prompt goes on past `media`'s tokens with text only).
std::vector<llama_token> MediaTokens(Napi::Env env, const Napi::Value& value, const MediaPrompt& media,
                                     int32_t n_vocab, const char* method) {
  if (!value.IsTypedArray() || value.As<Napi::TypedArray>().TypedArrayType() != napi_int32_array)
    args::ThrowType(env, method, "tokens must be an Int32Array when options.media is given", value);
  Napi::Int32Array array = value.As<Napi::Int32Array>();
  std::vector<llama_token> tokens(array.Data(), array.Data() + array.ElementLength());
  for (size_t i = 0; i < tokens.size(); i++) {
    const bool placed = i < media.tokens.size() && media.tokens[i] == tokens[i];
    if (IsPlaceholder(tokens[i]) ? !placed : tokens[i] >= n_vocab)
      args::ThrowRange(env, method,
                       "tokens[" + std::to_string(i) + "] (" + std::to_string(tokens[i]) +
                           ") is neither a token id nor the media prompt's image at that place");
  }
  for (const MediaSpan& span : media.media) {
    if (span.offset + span.length > tokens.size() || !IsPlaceholder(tokens[span.offset]))
      args::ThrowRange(env, method, "tokens must start with the media prompt's tokens, images included");
  }
  // The logits that pick the first token come from the prompt's last text token.
  if (!tokens.empty() && IsPlaceholder(tokens.back()))
    args::ThrowRange(env, method, "a prompt with images must end with text, not with an image");
  return tokens;
}

}  // namespace

// submit(sampler, tokens, {maxTokens?, media?, reusePrefix?, shift?, readAhead?, groupTokens?}, onEvent) ->
// request id. A generation on a free sequence (or queued until one is free): onEvent gets {type: "start",
// sequence, reused, shifted, evaluated}, then each token as arguments (token, piece, eog, passes, ...), then
// {type: "end", reason} or {type: "end", code, message}, called from the context's thread through a
// thread-safe function (see batch_scheduler.h); after the first token, `groupTokens` tokens at a time
// (sequence_events.h).
Napi::Value Context::Submit(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.submit";
  const ContextPtr& s = Live(env, kMethod);
  if (ModelRpcLost(*s->model)) {
    Napi::Error e = Napi::Error::New(env, std::string(kMethod) + ": " + RpcLostMessage());
    e.Set("code", Napi::String::New(env, codes::kRpcLost));
    throw e;
  }
  if (s->busy.load()) {
    Napi::Error e =
        Napi::Error::New(env, "Context.submit: the context is busy (a decode is running; await it first)");
    e.Set("code", Napi::String::New(env, codes::kContextBusy));
    throw e;
  }
  SamplerPtr sampler =
      Sampler::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "sampler");
  if (sampler->model->model != s->model->model)
    args::ThrowRange(env, kMethod, "the sampler was created for a different model");
  auto request = std::make_shared<SequenceRequest>();
  const Napi::Value tokens = info.Length() > 1 ? info[1] : env.Undefined();
  Napi::Object options = args::OptionalObject(info, 2, kMethod, "options");
  request->media = options.Has("media") ? MediaPromptObject::FromValue(options.Get("media")) : nullptr;
  if (options.Has("media") && !options.Get("media").IsUndefined() && !request->media)
    args::ThrowType(env, kMethod, "options.media must be a MediaPrompt", options.Get("media"));
  if (request->media && request->media->projector->model->model != s->model->model)
    args::ThrowRange(env, kMethod, "options.media was made by the projector of a different model");
  request->prompt = request->media ? MediaTokens(env, tokens, *request->media, s->model->n_vocab, kMethod)
                                   : args::Tokens(env, tokens, s->model->n_vocab, kMethod, "tokens");
  if (request->prompt.empty()) args::ThrowRange(env, kMethod, "tokens must not be empty");
  if (request->prompt.size() > s->n_ctx) {
    args::ThrowRange(env, kMethod,
                     "the prompt has " + std::to_string(request->prompt.size()) +
                         " tokens, more than the context size " + std::to_string(s->n_ctx));
  }
  request->max_tokens = args::OptInt(options, "maxTokens", -1, -1, INT32_MAX, kMethod);
  request->reuse_prefix = args::OptBool(options, "reusePrefix", true, kMethod);
  request->shift = args::OptBool(options, "shift", false, kMethod);
  request->window->read_ahead =
      args::OptInt(options, "readAhead", request->window->read_ahead, 0, INT32_MAX, kMethod);
  const int64_t group = args::OptInt(options, "groupTokens", 1, 1, kMaxTokenGroup, kMethod);
  // A group larger than the read-ahead would pause the request for tokens still waiting in it.
  if (request->window->read_ahead > 0 && group > request->window->read_ahead) {
    args::ThrowRange(env, kMethod,
                     "options.groupTokens (" + std::to_string(group) +
                         ") must not exceed options.readAhead (" +
                         std::to_string(request->window->read_ahead) + ")");
  }
  if (info.Length() < 4 || !info[3].IsFunction())
    args::ThrowType(env, kMethod, "onEvent must be a function",
                    info.Length() > 3 ? info[3] : env.Undefined());
  request->events =
      EventSink::Create(env, info[3].As<Napi::Function>(), request->window, static_cast<size_t>(group));
  request->id = ++next_request_id_;
  request->sampler = std::move(sampler);
  const double id = static_cast<double>(request->id);
  s->scheduler->Submit(s, std::move(request));
  return Napi::Number::New(env, id);
}

// cancelRequest(id): that request ends with reason "abort" at the next round; the others go on.
Napi::Value Context::CancelRequest(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (state_) {
    const auto id =
        static_cast<uint64_t>(args::Integer(info, 0, "Context.cancelRequest", "id", 0, INT64_C(1) << 52));
    state_->scheduler->Cancel(state_, id);
  }
  return env.Undefined();
}

// trimUntaken(id, taken): request `id` ended before its reader, which took `taken` of its tokens, cancelled
// it: its sequence drops the rest. Returns whether it did (false: the sequence was used since, or cannot be
// cut).
Napi::Value Context::TrimUntaken(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.trimUntaken";
  const auto id = static_cast<uint64_t>(args::Integer(info, 0, kMethod, "id", 0, INT64_C(1) << 52));
  const int64_t taken = args::Integer(info, 1, kMethod, "taken", 0, INT64_C(1) << 52);
  if (!state_) return Napi::Boolean::New(env, false);
  return Napi::Boolean::New(env, state_->scheduler->TrimUntaken(*state_, id, taken));
}

// consumed(id, tokens): the reader of request `id` has taken `tokens` token events so far; a
// request paused because its reader fell `readAhead` tokens behind runs again.
Napi::Value Context::Consumed(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "Context.consumed";
  const auto id = static_cast<uint64_t>(args::Integer(info, 0, kMethod, "id", 0, INT64_C(1) << 52));
  const int64_t tokens = args::Integer(info, 1, kMethod, "tokens", 0, INT64_C(1) << 52);
  if (state_) state_->scheduler->Consumed(state_, id, tokens);
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
