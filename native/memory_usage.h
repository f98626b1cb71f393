// What llama.cpp actually allocated for a context: the model's weights, the context's memory
// (KV cache or recurrent state) and the compute buffers, summed over every device. It reads
// llama.cpp's memory breakdown, so tests can hold toolwright's estimate (src/runtime/memory-estimate.ts)
// against the real allocation.
#pragma once

#include <napi.h>

#include <cstddef>

#include "llama.h"

namespace toolwright {

struct MemoryUsage {
  size_t model = 0;
  size_t context = 0;
  size_t compute = 0;
};

// Any thread; the context must stay alive during the call.
MemoryUsage ContextMemoryUsage(const llama_context* ctx);

// A JS object {model, context, compute} in bytes.
Napi::Object MemoryUsageToJs(Napi::Env env, const MemoryUsage& usage);

// measureContextMemory(model, {contextSize, batchSize, ubatchSize, sequences, embeddings, pooling, swaFull})
// -> Promise<{model, context, compute}>: creates a context with those settings on a worker, reads
// what it allocated, and frees it.
Napi::Value MeasureContextMemory(const Napi::CallbackInfo& info);

}  // namespace toolwright
