// Context: a llama_context (KV cache + compute buffers) on one model, exposed to JS.
//
// Everything heavy runs off the main thread: creation, decode, and step (decode pending tokens,
// then sample + grammar + accept natively, returning only the token id and its bytes; logits
// never leave native memory). Decode and step are AsyncWorkers whose llama work runs on the
// context's own thread (serial_thread.h), in the order queued; the workers are in
// context_workers.cc. A context runs one worker at a time (busy flag); a ContextState is shared
// with its workers and jobs, so dispose() during a step frees it only when the step is done.
//
// Decode-ahead: a step asked to may resolve as soon as its token is sampled; the context's
// thread then decodes that token into the cache, so JS handles the token while the next logits
// are computed. The busy flag is already clear then; `ahead_running` says a decode-ahead is still
// going. The next job (queued behind it) reports its failure; the main-thread methods that read
// or change the cache wait for it (clear/truncate cancel it first).
#pragma once

#include <napi.h>

#include "external_memory.h"

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ggml-cpu.h"
#include "llama.h"
#include "model.h"
#include "serial_thread.h"

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
  llama_batch batch = {};
  int32_t batch_capacity = 0;
  uint32_t n_ctx = 0;
  uint32_t n_batch = 0;
  // Tokens in the KV cache (sequence 0), in order: what prefix reuse compares against.
  std::vector<llama_token> tokens;
  // Whether the logits of the last decoded token are available for sampling.
  bool has_logits = false;
  // Read by size/stats on the main thread while a decode-ahead may be writing them.
  std::atomic<size_t> n_tokens{0};
  std::atomic<uint64_t> evaluated_tokens{0};
  std::atomic<uint64_t> sampled_tokens{0};
  // Steps whose promise settled while their token was still being decoded ahead (the overlap).
  std::atomic<uint64_t> settled_early{0};
  // How many OS threads have run a decode of this context (1: the context's own thread).
  std::atomic<uint32_t> decode_threads{0};
  std::atomic<bool> abort{false};
  std::atomic<bool> busy{false};
  // Sequences (slots) of a parallel context; 1: the single-sequence API (decode, step).
  int32_t n_seq = 1;
  // Runs the sequences of a parallel context (n_seq > 1) on this context's thread; else null.
  std::unique_ptr<BatchScheduler> scheduler;
  // Runs every decode and step of this context, in order. Every job holds a ContextPtr, so the
  // thread is idle when the state is destroyed; the destructor stops it before freeing ctx. When
  // the last reference goes in a job on this thread (dispose() during a decode-ahead), the state
  // is freed there and the thread ends after that job: the registry, which shares the thread,
  // joins it, so no thread of a disposed context outlives its environment or the process.
  std::shared_ptr<SerialThread> thread;

  ~ContextState();

  // Decode-ahead bookkeeping (see the top of this file). Begin/End on the context's thread.
  void BeginAhead();
  void EndAhead(std::string code, std::string error);
  // Waits until no decode-ahead runs. Returns false with its failure's code and message when the
  // last one failed; `consume` marks it seen (the caller reports its failure). On the context's
  // thread it never waits: the decode-ahead before a job is over when the job starts.
  bool AwaitAhead(std::string* code, std::string* error, bool consume);
  // A decode-ahead runs now.
  bool AheadRunning();
  // A decode-ahead runs, or ran and no worker has waited for it yet.
  bool AheadPending();
  // Main thread, before clear/truncate: cancels a running decode-ahead, waits, forgets its failure.
  void CancelAhead();

  // Evaluates `input` after `tokens` in batches; keeps the logits of the last one.
  // On failure the cache is left exactly as the successfully decoded batches made it.
  // Context's thread. Returns false with an error code and message.
  bool Decode(const std::vector<llama_token>& input, std::string* code, std::string* error);

 private:
  std::mutex ahead_mutex_;
  std::condition_variable ahead_done_;
  bool ahead_running_ = false;  // guarded by ahead_mutex_
  bool ahead_pending_ = false;  // running or not yet consumed; guarded by ahead_mutex_
  std::string ahead_code_;      // failure of the last decode-ahead; guarded by ahead_mutex_
  std::string ahead_error_;
  std::vector<std::thread::id> decode_thread_ids_;  // only Decode() touches it
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
  // Live and single-sequence (the methods of the one-sequence API).
  const ContextPtr& Single(Napi::Env env, const char* method) const;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Decode(const Napi::CallbackInfo& info);
  Napi::Value Step(const Napi::CallbackInfo& info);
  Napi::Value Cancel(const Napi::CallbackInfo& info);
  Napi::Value Clear(const Napi::CallbackInfo& info);
  Napi::Value Truncate(const Napi::CallbackInfo& info);
  Napi::Value Tokens(const Napi::CallbackInfo& info);
  Napi::Value Size(const Napi::CallbackInfo& info);
  Napi::Value Stats(const Napi::CallbackInfo& info);
  Napi::Value Submit(const Napi::CallbackInfo& info);
  Napi::Value CancelRequest(const Napi::CallbackInfo& info);
  Napi::Value Consumed(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  ContextPtr state_;
  ExternalMemory external_;
  uint64_t next_request_id_ = 0;
};

}  // namespace toolwright
