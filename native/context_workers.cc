#include "context_workers.h"

#include <algorithm>
#include <exception>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "batch_scheduler.h"
#include "context_job.h"
#include "log_capture.h"
#include "model_worker.h"
#include "promise_worker.h"
#include "rpc.h"
#include "rpc_keepalive.h"
#include "vocab_ops.h"
#include "warm_up.h"

namespace toolwright {
namespace {

// llama.cpp's abort callback: the context is disposed, or every request in the batch was cancelled.
bool AbortRequested(void* data) {
  const auto* state = static_cast<const ContextState*>(data);
  return state->abort.load(std::memory_order_relaxed) || state->scheduler->AbortBatch();
}

ggml_threadpool* NewThreadPool(int32_t threads, int32_t poll) {
  // poll 50 (ggml's default, as llama-cli uses): idle workers spin briefly for the next decode, then sleep.
  // 0: they sleep at once, which keeps threads of several contexts from spinning against each other.
  ggml_threadpool_params params = ggml_threadpool_params_default(threads);
  params.poll = static_cast<uint32_t>(poll);
  return ggml_threadpool_new(&params);
}

bool AttachThreadPools(ContextState& state, const ContextOptions& options) {
  state.pool = NewThreadPool(options.threads, options.poll);
  if (state.pool == nullptr) return false;
  state.pool_batch = options.threads_batch == options.threads
                         ? state.pool
                         : NewThreadPool(options.threads_batch, options.poll);
  if (state.pool_batch == nullptr) return false;
  llama_attach_threadpool(state.ctx, state.pool, state.pool_batch);
  return true;
}

class CreateContextWorker : public ModelWorker<ContextOptions> {
 public:
  CreateContextWorker(Napi::Env env, Napi::Object owner, ModelPtr model, ContextOptions options)
      : ModelWorker(env, "toolwright.createContext", owner, std::move(model), options) {}

 protected:
  void Run() override {
    llama_context_params params = llama_context_default_params();
    params.n_ctx = options_.context_size;
    if (options_.sequences > 1) {
      // Each sequence gets its own cache of context_size cells (not a share of one): its cells
      // then lie in order whatever the others do, so a generation gives the same tokens alone
      // or batched, and each can use the whole context size.
      const uint32_t per_sequence = options_.context_size != 0
                                        ? options_.context_size
                                        : static_cast<uint32_t>(llama_model_n_ctx_train(model_->model));
      params.n_ctx = per_sequence * static_cast<uint32_t>(options_.sequences);
    }
    params.n_batch = options_.batch_size;
    params.n_ubatch = std::min(options_.ubatch_size, options_.batch_size);
    params.n_seq_max = static_cast<uint32_t>(options_.sequences);
    params.kv_unified = options_.sequences == 1;
    params.n_threads = options_.threads;
    params.n_threads_batch = options_.threads_batch;
    params.no_perf = true;
    params.flash_attn_type = options_.flash_attention;

    if (ModelRpcLost(*model_)) {
      Fail(codes::kRpcLost, "Cannot create a context for \"" + model_->path + "\": " + RpcLostMessage());
      return;
    }
    auto state = std::make_shared<ContextState>();
    state->model = model_;
    std::string reason;
    state->ctx = InitContext(model_->model, params, &reason);
    if (state->ctx == nullptr) {
      Fail(codes::kContextFailed, "Cannot create a context for \"" + model_->path + "\": " + reason +
                                      " (llama_init_from_model failed)");
      return;
    }
    state->n_ctx = llama_n_ctx_seq(state->ctx);  // per sequence
    state->n_batch = llama_n_batch(state->ctx);
    state->batch_capacity = static_cast<int32_t>(state->n_batch);
    state->batch = llama_batch_init(state->batch_capacity, 0, 1);
    state->n_seq = options_.sequences;
    state->scheduler = std::make_unique<BatchScheduler>(options_.sequences);
    llama_set_abort_callback(state->ctx, &AbortRequested, state.get());
    if (!AttachThreadPools(*state, options_)) {
      Fail(codes::kContextFailed, "Cannot create a context for \"" + model_->path +
                                      "\": could not start its CPU threads (ggml_threadpool_new failed)");
      return;
    }
    state->reference_kernels.Attach(state->ctx, state->pool, state->pool_batch);
    if (!AttachDraft(*state) || !WarmedUp(*state)) return;
    state->thread = std::make_shared<SerialThread>();
    if (UsesRpc(*model_)) {
      // A context may open its own connection to a server that holds none of the weights.
      KeepRpcConnectionsAlive(RpcEndpoints(*model_));
      // The round stuck on a lost server never ends its requests: the loss does (rpc.h).
      std::weak_ptr<ContextState> weak = state;
      state->rpc_listener = ListenForRpcLoss([weak](const std::string& message) {
        if (ContextPtr s = weak.lock()) s->scheduler->FailLost(message);
      });
    }
    state_ = std::move(state);
  }
  Napi::Value Result(Napi::Env env) override { return Context::NewInstance(env, std::move(state_)); }

 private:
  // The draft model's context for speculative decoding, on the context's thread pools; false when failed.
  bool AttachDraft(ContextState& state) {
    state.speculative = options_.speculative;
    const ModelPtr& draft = options_.speculative.draft;
    if (draft == nullptr) return true;
    std::string reason;
    if (!SameVocabulary(model_->model, draft->model, &reason)) {
      Fail(codes::kDraftMismatch,
           "The draft model \"" + draft->path + "\" cannot draft for \"" + model_->path + "\": " + reason);
      return false;
    }
    state.draft = DraftModel::Create(draft, state.n_ctx, state.n_seq, state.n_batch, &reason);
    if (state.draft == nullptr) {
      Fail(reason.rfind("a recurrent", 0) == 0 ? codes::kDraftMismatch : codes::kContextFailed,
           "The draft model \"" + draft->path + "\" cannot draft: " + reason);
      return false;
    }
    state.draft->AttachThreadPools(state.pool, state.pool_batch);
    return true;
  }

  // The warm-up decodes (warm_up.h) of the context and its draft model, where asked; false when one failed.
  bool WarmedUp(ContextState& state) {
    if (!options_.warm_up) return true;
    int32_t status = WarmUp(state.ctx);
    const char* which = "its";
    if (status == 0 && state.draft != nullptr) {
      status = state.draft->WarmUp();
      which = "its draft model's";
    }
    if (status == 0) return true;
    Fail(codes::kContextFailed, "Cannot create a context for \"" + model_->path + "\": " + which +
                                    " warm-up decode failed (llama_decode returned " +
                                    std::to_string(status) + ")");
    return false;
  }

  ContextPtr state_;
};

class DecodeWorker : public PromiseWorker {
 public:
  DecodeWorker(Napi::Env env, Napi::Object owner, ContextPtr state, std::vector<llama_token> input)
      : PromiseWorker(env, "toolwright.decode", owner), state_(std::move(state)), input_(std::move(input)) {}

 protected:
  void Run() override {
    JobStatus status =
        RunOnContextThread<JobStatus>(state_, [input = std::move(input_)](Delivery<JobStatus>& delivery) {
          ContextState& s = delivery.state();
          JobStatus st;
          if (CheckNotCancelled(s, "Context.decode", &st)) s.scheduler->Append(s, input, &st.code, &st.error);
          delivery.Final(std::move(st));
        });
    if (!status.code.empty()) Fail(status.code, status.error);
  }
  void Settle() override { state_->busy.store(false); }
  Napi::Value Result(Napi::Env env) override {
    return Napi::Number::New(env, static_cast<double>(state_->n_tokens.load()));
  }

 private:
  ContextPtr state_;
  std::vector<llama_token> input_;
};

}  // namespace

Napi::Promise QueueCreateContext(Napi::Env env, Napi::Object owner, ModelPtr model,
                                 const ContextOptions& options) {
  return (new CreateContextWorker(env, owner, std::move(model), options))->Start();
}

Napi::Promise QueueDecode(Napi::Env env, Napi::Object owner, ContextPtr state,
                          std::vector<llama_token> input) {
  return (new DecodeWorker(env, owner, std::move(state), std::move(input)))->Start();
}

}  // namespace toolwright
