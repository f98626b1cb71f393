// Context: a llama_context (KV cache + compute buffers) on one model, exposed to JS.
//
// Every generation runs in the context's BatchScheduler (batch_scheduler.h), one per sequence: a
// context of one sequence is its single-slot case. Its llama work runs on the context's own
// thread (serial_thread.h), so no libuv pool thread waits while a generation runs; tokens reach JS
// through a thread-safe function while the next one is decoded. decode() (the single-sequence
// API's prefill) is an AsyncWorker whose job runs on that thread too (context_workers.cc). A
// ContextState is shared with its workers and jobs, so dispose() during a round frees it only
// when the round is done.
#pragma once

#include <napi.h>

#include "external_memory.h"

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ggml-cpu.h"
#include "llama.h"
#include "lora.h"
#include "model.h"
#include "reference_kernels.h"
#include "serial_thread.h"
#include "speculative.h"

namespace toolwright {

class BatchScheduler;  // batch_scheduler.h

struct ContextState {
  ModelPtr model;  // declared first: released after the context is freed
  llama_context* ctx = nullptr;
  // Persistent CPU thread pools (generation, batch): without them ggml starts and joins its
  // threads on every decode, and on a busy machine a late-started thread stalls the others at
  // every barrier. Freed after ctx.
  ggml_threadpool* pool = nullptr;
  ggml_threadpool* pool_batch = nullptr;
  // Batches of generated tokens decode with ggml's reference CPU kernels (reference_kernels.h).
  ReferenceKernels reference_kernels;
  llama_batch batch = {};
  int32_t batch_capacity = 0;
  uint32_t n_ctx = 0;
  uint32_t n_batch = 0;
  // Tokens in the KV cache, all sequences: read by size/stats on the main thread while a round
  // may be writing them.
  std::atomic<size_t> n_tokens{0};
  std::atomic<uint64_t> evaluated_tokens{0};
  std::atomic<uint64_t> sampled_tokens{0};
  std::atomic<uint64_t> forced_tokens{0};          // appended without sampling (fast_forward.h)
  std::atomic<uint64_t> drafted_tokens{0};         // drafted and decoded for checking (speculative.h)
  std::atomic<uint64_t> accepted_draft_tokens{0};  // of those, the ones the model's picks agreed with
  // How many OS threads have run a decode of this context (1: the context's own thread).
  std::atomic<uint32_t> decode_threads{0};
  // dispose() or the environment stopping: the running decode stops, every request ends.
  std::atomic<bool> abort{false};
  // A decode() worker runs.
  std::atomic<bool> busy{false};
  // Sequences (slots); 1: the single-sequence API (decode, clear, truncate, tokens) works too.
  int32_t n_seq = 1;
  // Speculative decoding (speculative.h): how drafts are made; the draft model's context, or null.
  SpeculativeOptions speculative;
  std::unique_ptr<DraftModel> draft;
  // Runs every generation on this context's thread; made with the context, never null.
  std::unique_ptr<BatchScheduler> scheduler;
  // Runs every decode and round of this context, in order. Every job holds a ContextPtr, so the
  // thread is idle when the state is destroyed; the destructor stops it before freeing ctx. When
  // the last reference goes in a job on this thread (dispose() during a round), the state
  // is freed there and the thread ends after that job: the registry, which shares the thread,
  // joins it, so no thread of a disposed context outlives its environment or the process.
  std::shared_ptr<SerialThread> thread;
  // The LoRA adapters applied (llama_set_adapters_lora), kept alive while applied; context's thread only.
  std::vector<LoraPtr> loras;
  std::vector<float> lora_scales;
  // For a model with layers on RPC servers: the listener that ends the requests when one is lost.
  uint64_t rpc_listener = 0;

  ~ContextState();
};
using ContextPtr = std::shared_ptr<ContextState>;

// The contexts of one environment (main thread or worker_thread) and their threads. When the
// environment is torn down, or the process exits (the JS layer calls stopContexts() on the
// process's "exit" event, since process.exit() runs no cleanup hook), each context is aborted and
// every thread joined: also the thread of a context already disposed that is still freeing it.
// Otherwise such a thread would run llama.cpp code while the process runs its exit handlers and
// static destructors, or after a worker_thread unloaded the addon's code. Environment's thread only.
struct ContextRegistry {
  struct Entry {
    std::weak_ptr<ContextState> state;
    std::shared_ptr<SerialThread> thread;
  };
  std::vector<Entry> entries;
  // Registers a new context; joins (at once) the threads of freed contexts that have ended.
  void Add(const ContextPtr& state);
  // Aborts every live context and joins every thread. Idempotent.
  void StopAll();
};

class Context : public Napi::ObjectWrap<Context> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  static Napi::Object NewInstance(Napi::Env env, ContextPtr state);

  explicit Context(const Napi::CallbackInfo& info);

 private:
  static Napi::Value Create(const Napi::CallbackInfo& info);
  const ContextPtr& Live(Napi::Env env, const char* method) const;
  // Live, and not running a worker.
  const ContextPtr& Idle(Napi::Env env, const char* method) const;
  // Idle, single-sequence and running no generation (the methods of the one-sequence API).
  const ContextPtr& Single(Napi::Env env, const char* method) const;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Decode(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Clear(const Napi::CallbackInfo& info);
  Napi::Value Truncate(const Napi::CallbackInfo& info);
  Napi::Value Tokens(const Napi::CallbackInfo& info);
  Napi::Value Size(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Submit(const Napi::CallbackInfo& info);
  Napi::Value CancelRequest(const Napi::CallbackInfo& info);
  Napi::Value TrimUntaken(const Napi::CallbackInfo& info);
  Napi::Value Consumed(const Napi::CallbackInfo& info);
  // In context_state.cc: adapters and saved sequence states, each a job on the context's thread.
  Napi::Value SetLoras(const Napi::CallbackInfo& info);
  Napi::Value SaveSequence(const Napi::CallbackInfo& info);
  Napi::Value RestoreSequence(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  ContextPtr state_;
  ExternalMemory external_;
  uint64_t next_request_id_ = 0;
};

}  // namespace toolwright
