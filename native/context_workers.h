// The Context's AsyncWorkers: create, decode and step. Each copies its inputs, and decode and
// step run their llama work as a job on the context's own thread (ContextState::thread) while
// the worker waits for the outcome, so Execute() never touches N-API and consecutive decodes
// stay on one OS thread.
#pragma once

#include <napi.h>

#include <cstdint>
#include <vector>

#include "context.h"
#include "llama.h"
#include "model.h"
#include "sampler.h"

namespace toolwright {

struct ContextOptions {
  uint32_t context_size = 4096;  // 0: the model's training context
  uint32_t batch_size = 512;
  uint32_t ubatch_size = 512;
  int32_t threads = 4;
  int32_t threads_batch = 4;
  int32_t sequences = 1;  // > 1: a parallel context (batch_scheduler.h)
};

// Creates a llama_context, its CPU thread pools and its thread; resolves with a JS Context.
Napi::Promise QueueCreateContext(Napi::Env env, Napi::Object owner, ModelPtr model,
                                 const ContextOptions& options);

// Decodes `input` after the cached tokens; resolves with the number of tokens in the cache.
// The caller has marked the context busy; the worker clears it when it settles.
Napi::Promise QueueDecode(Napi::Env env, Napi::Object owner, ContextPtr state,
                          std::vector<llama_token> input);

// Decodes `pending`, then samples with `sampler`; resolves with {token, bytes, eog}. With
// `decode_ahead` it resolves once the token is sampled and the context's thread goes on to
// decode that token (unless it ends generation). The caller has marked both busy.
Napi::Promise QueueStep(Napi::Env env, Napi::Object owner, ContextPtr state, SamplerPtr sampler,
                        std::vector<llama_token> pending, bool decode_ahead);

}  // namespace toolwright
