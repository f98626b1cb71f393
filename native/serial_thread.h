// SerialThread: one OS thread that runs posted jobs one after another, in the order posted.
//
// Why a context has one: llama.cpp's CPU compute for consecutive tokens runs measurably faster
// when it stays on one thread (bench:runtime, 1 CPU thread: generation about 7% faster than with
// each step on whichever libuv pool thread was free). The context's workers still are N-API
// AsyncWorkers; their Execute() posts the llama work here and waits for its outcome.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>

namespace toolwright {

class SerialThread {
 public:
  // Starts the thread, with a stack as large as libuv gives its pool threads (8 MiB), since the
  // llama work used to run there.
  SerialThread();
  // Stop(). Never the last owner on the thread itself (see Stop); if it is, the thread detaches.
  ~SerialThread();

  SerialThread(const SerialThread&) = delete;
  SerialThread& operator=(const SerialThread&) = delete;

  // Queues `job`. After Stop() the job is dropped unrun (destroyed, so a promise it holds breaks
  // instead of leaving its waiter hanging). A job must not throw (it would be swallowed).
  void Post(std::function<void()> job);

  // Lets the queued jobs run, then ends the thread and joins it. Called on the thread itself (a
  // job dropped the last reference to the owner) it only asks the thread to end after that job:
  // another thread must join it later (ContextRegistry does), since a thread left running
  // detached would still be inside the addon while the process exits or the addon is unloaded.
  // Safe to call from several threads; idempotent.
  void Stop();

  // Stop() without waiting: the thread is detached and ends after its current job, if that ever
  // ends (a job stuck on a lost RPC server does not; rpc.h).
  void Abandon();
  // The thread's loop has returned (it runs no job and never will); Stop() then joins at once.
  bool Finished() const;

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> jobs;
    bool stopping = false;
    bool finished = false;  // the loop returned
  };
  static void Loop(const std::shared_ptr<Queue>& queue);

  struct Native;                  // the platform's thread handle
  std::shared_ptr<Queue> queue_;  // shared with the thread, which may outlive this object
  std::unique_ptr<Native> thread_;
  std::mutex join_mutex_;  // Stop() may run on two threads at once (an owner and the registry)
  bool joined_ = false;    // guarded by join_mutex_
};

}  // namespace toolwright
