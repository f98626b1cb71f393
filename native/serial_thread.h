// SerialThread: one OS thread that runs posted jobs one after another, in the order posted.
//
// Why a context has one: llama.cpp's CPU compute for consecutive tokens runs measurably faster
// when it stays on one thread. With each step on whichever libuv pool thread was free, generation
// at 1 CPU thread ran about 13% slower than on a single pool thread (bench:runtime's model, same
// tokens). The context's workers still are N-API AsyncWorkers; their Execute() posts the llama
// work here and waits for its outcome.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

namespace toolwright {

class SerialThread {
 public:
  SerialThread();
  // Lets queued jobs run, then joins; when the last job itself destroys the owner (it held the
  // last reference), the thread is detached instead and ends after that job.
  ~SerialThread();

  SerialThread(const SerialThread&) = delete;
  SerialThread& operator=(const SerialThread&) = delete;

  // Queues `job`. A job must not throw (an exception is swallowed so the thread lives on).
  void Post(std::function<void()> job);

 private:
  struct Queue {
    std::mutex mutex;
    std::condition_variable wake;
    std::deque<std::function<void()>> jobs;
    bool stopping = false;
  };
  static void Loop(std::shared_ptr<Queue> queue);

  std::shared_ptr<Queue> queue_;  // shared with the thread, which may outlive this object
  std::thread thread_;
};

}  // namespace toolwright
