#include "serial_thread.h"

#include <stdexcept>
#include <utility>

#ifdef _WIN32
#include <thread>
#else
#include <pthread.h>
#endif

namespace toolwright {

#ifdef _WIN32
struct SerialThread::Native {
  std::thread thread;
  bool started = false;
  void Start(std::shared_ptr<Queue> queue) {
    thread = std::thread([queue] { Loop(queue); });  // 1 MiB like libuv's pool threads there
    started = true;
  }
  bool IsSelf() const { return thread.get_id() == std::this_thread::get_id(); }
  void Join() { thread.join(); }
  void Detach() { thread.detach(); }
};
#else
struct SerialThread::Native {
  pthread_t thread{};
  bool started = false;
  void Start(std::shared_ptr<Queue> queue) {
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) throw std::runtime_error("pthread_attr_init failed");
    pthread_attr_setstacksize(&attr, size_t{8} << 20);  // keeps the default if refused
    auto* arg = new std::shared_ptr<Queue>(std::move(queue));
    const int rc = pthread_create(
        &thread, &attr,
        [](void* p) -> void* {
          std::shared_ptr<Queue> q = std::move(*static_cast<std::shared_ptr<Queue>*>(p));
          delete static_cast<std::shared_ptr<Queue>*>(p);
          Loop(q);
          return nullptr;
        },
        arg);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
      delete arg;
      throw std::runtime_error("could not start the context's thread (pthread_create failed)");
    }
    started = true;
  }
  bool IsSelf() const { return pthread_equal(thread, pthread_self()) != 0; }
  void Join() { pthread_join(thread, nullptr); }
  void Detach() { pthread_detach(thread); }
};
#endif

SerialThread::SerialThread() : queue_(std::make_shared<Queue>()), thread_(std::make_unique<Native>()) {
  thread_->Start(queue_);
}

SerialThread::~SerialThread() {
  Stop();
  std::lock_guard<std::mutex> lock(join_mutex_);
  // Only when the last owner was a job on this very thread: nothing else can join it now.
  if (thread_->started && !joined_) thread_->Detach();
  joined_ = true;
}

void SerialThread::Stop() {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->wake.notify_one();
  if (!thread_->started || thread_->IsSelf()) return;  // joining itself would deadlock
  std::lock_guard<std::mutex> lock(join_mutex_);
  if (joined_) return;
  thread_->Join();
  joined_ = true;
}

bool SerialThread::Finished() const {
  std::lock_guard<std::mutex> lock(queue_->mutex);
  return queue_->finished;
}

void SerialThread::Abandon() {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->wake.notify_one();
  std::lock_guard<std::mutex> lock(join_mutex_);
  if (!thread_->started || joined_) return;
  thread_->Detach();
  joined_ = true;  // nothing joins it later (Stop, the destructor)
}

void SerialThread::Post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    if (!queue_->stopping) {
      queue_->jobs.push_back(std::move(job));
      job = nullptr;
    }
  }
  queue_->wake.notify_one();
  // A refused job is destroyed here, unlocked (it may hold the last reference to the owner).
}

void SerialThread::Loop(const std::shared_ptr<Queue>& queue) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(queue->mutex);
      queue->wake.wait(lock, [&] { return queue->stopping || !queue->jobs.empty(); });
      if (queue->jobs.empty()) {  // stopping, and nothing left to run
        queue->finished = true;
        return;
      }
      job = std::move(queue->jobs.front());
      queue->jobs.pop_front();
    }
    try {
      job();
    } catch (...) {
    }
    // `job` (and what it holds, possibly the owner of this thread) is destroyed here, unlocked.
  }
}

}  // namespace toolwright
