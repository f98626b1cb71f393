#include "memory_usage.h"

#include <algorithm>
#include <string>
#include <utility>

#include "embedding.h"
#include "llama-ext.h"  // llama_get_memory_breakdown (llama.cpp's staging API, in its src/)
#include "log_capture.h"
#include "model.h"
#include "model_worker.h"
#include "napi_args.h"
#include "promise_worker.h"

namespace toolwright {
namespace {

struct MeasureOptions {
  uint32_t context_size = 4096;
  uint32_t batch_size = 512;
  uint32_t ubatch_size = 512;
  uint32_t sequences = 1;
  bool embeddings = false;
  bool swa_full = true;  // llama.cpp's default, which contexts keep
  enum llama_pooling_type pooling = LLAMA_POOLING_TYPE_UNSPECIFIED;
};

class MeasureWorker : public ModelWorker<MeasureOptions> {
 public:
  MeasureWorker(Napi::Env env, Napi::Object owner, ModelPtr model, MeasureOptions options)
      : ModelWorker(env, "toolwright.measureContextMemory", owner, std::move(model), options) {}

 protected:
  void Run() override {
    // The same settings a Context or an EmbeddingContext is created with (context_workers.cc,
    // embedding.cc): llama.cpp's defaults but for these.
    llama_context_params params = llama_context_default_params();
    params.n_ctx = options_.context_size;
    params.n_batch = options_.batch_size;
    params.n_ubatch = std::min(options_.ubatch_size, options_.batch_size);
    params.n_seq_max = options_.sequences;
    params.n_threads = 1;
    params.n_threads_batch = 1;
    params.no_perf = true;
    params.swa_full = options_.swa_full;
    if (options_.embeddings) SetEmbeddingParams(&params, options_.pooling);
    std::string reason;
    llama_context* ctx = InitContext(model_->model, params, &reason);
    if (ctx == nullptr) {
      Fail(codes::kContextFailed, "measureContextMemory: cannot create the context: " + reason);
      return;
    }
    usage_ = ContextMemoryUsage(ctx);
    context_size_ = llama_n_ctx(ctx);
    llama_free(ctx);
  }
  Napi::Value Result(Napi::Env env) override {
    Napi::Object out = MemoryUsageToJs(env, usage_);
    out.Set("contextSize", context_size_);
    return out;
  }

 private:
  MemoryUsage usage_;
  uint32_t context_size_ = 0;
};

}  // namespace

MemoryUsage ContextMemoryUsage(const llama_context* ctx) {
  MemoryUsage usage;
  for (const auto& entry : llama_get_memory_breakdown(ctx)) {
    usage.model += entry.second.model;
    usage.context += entry.second.context;
    usage.compute += entry.second.compute;
  }
  return usage;
}

Napi::Object MemoryUsageToJs(Napi::Env env, const MemoryUsage& usage) {
  Napi::Object out = Napi::Object::New(env);
  out.Set("model", static_cast<double>(usage.model));
  out.Set("context", static_cast<double>(usage.context));
  out.Set("compute", static_cast<double>(usage.compute));
  return out;
}

Napi::Value MeasureContextMemory(const Napi::CallbackInfo& info) {
  constexpr const char* kMethod = "measureContextMemory";
  Napi::Env env = info.Env();
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "model");
  if (model->vocab_only)
    args::ThrowRange(env, kMethod, "the model was loaded with vocabOnly: it has no weights");
  Napi::Object o = args::OptionalObject(info, 1, kMethod, "options");
  MeasureOptions options;
  options.context_size = static_cast<uint32_t>(args::OptInt(o, "contextSize", 4096, 1, 1 << 24, kMethod));
  options.batch_size = static_cast<uint32_t>(args::OptInt(o, "batchSize", 512, 1, 1 << 24, kMethod));
  options.ubatch_size = static_cast<uint32_t>(args::OptInt(o, "ubatchSize", 512, 1, 1 << 24, kMethod));
  options.sequences = static_cast<uint32_t>(
      args::OptInt(o, "sequences", 1, 1, static_cast<int64_t>(llama_max_parallel_sequences()), kMethod));
  options.embeddings = args::OptBool(o, "embeddings", false, kMethod);
  options.swa_full = args::OptBool(o, "swaFull", true, kMethod);
  const std::string pooling = args::OptString(o, "pooling", "model", kMethod);
  if (!ParsePooling(pooling, &options.pooling)) {
    args::ThrowRange(
        env, kMethod,
        "option pooling must be \"model\", \"none\", \"mean\", \"cls\" or \"last\", got \"" + pooling + "\"");
  }
  return (new MeasureWorker(env, info[0].As<Napi::Object>(), std::move(model), options))->Start();
}

}  // namespace toolwright
