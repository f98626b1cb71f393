// The Context's AsyncWorkers: create and decode. Each copies its inputs, and decode runs its
// llama work as a job on the context's own thread (ContextState::thread) while the worker waits
// for the outcome, so Execute() never touches N-API and every decode of a context stays on one OS
// thread. Generations need no worker: they run in the context's BatchScheduler.
#pragma once

#include <napi.h>

#include <cstdint>
#include <vector>

#include "context.h"
#include "llama.h"
#include "model.h"
#include "speculative.h"

namespace toolwright {

struct ContextOptions {
  uint32_t context_size = 4096;  // 0: the model's training context
  uint32_t batch_size = 512;
  uint32_t ubatch_size = 512;
  int32_t threads = 4;
  int32_t threads_batch = 4;
  int32_t poll = 50;      // ggml's busy-wait level of idle pool threads, 0 (sleep at once) to 100
  int32_t sequences = 1;  // sequences of the BatchScheduler; > 1: separate caches, not unified
  SpeculativeOptions speculative;
  llama_flash_attn_type flash_attention = LLAMA_FLASH_ATTN_TYPE_AUTO;
  bool warm_up = false;  // one token through the model at creation (context_workers.cc, WarmUp)
};

// Creates a llama_context, its CPU thread pools and its thread; resolves with a JS Context.
Napi::Promise QueueCreateContext(Napi::Env env, Napi::Object owner, ModelPtr model,
                                 const ContextOptions& options);

// Decodes `input` after the cached tokens; resolves with the number of tokens in the cache.
// The caller has marked the context busy; the worker clears it when it settles.
Napi::Promise QueueDecode(Napi::Env env, Napi::Object owner, ContextPtr state,
                          std::vector<llama_token> input);

}  // namespace toolwright
