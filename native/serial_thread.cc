#include "serial_thread.h"

#include <utility>

namespace toolwright {

SerialThread::SerialThread() : queue_(std::make_shared<Queue>()), thread_(&SerialThread::Loop, queue_) {}

SerialThread::~SerialThread() {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->stopping = true;
  }
  queue_->wake.notify_one();
  if (thread_.get_id() == std::this_thread::get_id()) {
    thread_.detach();  // joining itself would deadlock; the loop sees `stopping` after this job
  } else if (thread_.joinable()) {
    thread_.join();
  }
}

void SerialThread::Post(std::function<void()> job) {
  {
    std::lock_guard<std::mutex> lock(queue_->mutex);
    queue_->jobs.push_back(std::move(job));
  }
  queue_->wake.notify_one();
}

void SerialThread::Loop(std::shared_ptr<Queue> queue) {
  for (;;) {
    std::function<void()> job;
    {
      std::unique_lock<std::mutex> lock(queue->mutex);
      queue->wake.wait(lock, [&] { return queue->stopping || !queue->jobs.empty(); });
      if (queue->jobs.empty()) return;  // stopping, and nothing left to run
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
