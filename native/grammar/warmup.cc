#include "warmup.h"

#include <deque>
#include <thread>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace toolwright::grammar {

// The process's one background thread and its queue. Never destroyed (like the grammar cache):
// the thread is detached and may still hold a job while the process exits.
class WarmupThread {
 public:
  static WarmupThread& global() {
    static WarmupThread* t = new WarmupThread();  // leaked on purpose
    return *t;
  }

  void push(std::shared_ptr<Warmup> w) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      queue_.push_back(std::move(w));
      if (!started_) {
        started_ = true;
        std::thread([this] { loop(); }).detach();
      }
    }
    cv_.notify_one();
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<Warmup>> queue_;
  bool started_ = false;

  void loop() {
#ifdef __linux__
    // Woken by a compile, the thread would otherwise preempt it (it has slept, so the scheduler
    // favours it): a batch thread waits for its turn, and the compiling thread finishes first.
    const sched_param none{};
    pthread_setschedparam(pthread_self(), SCHED_BATCH, &none);
    // And a lower priority (per thread on Linux): a warm-up explores the grammar's positions for several ms
    // while every core may be decoding the prompt, whose threads wait for each other; it takes what they
    // leave.
    setpriority(PRIO_PROCESS, static_cast<id_t>(syscall(SYS_gettid)), 10);
#endif
    for (;;) {
      std::shared_ptr<Warmup> w;
      {
        std::unique_lock<std::mutex> lock(mu_);
        cv_.wait(lock, [this] { return !queue_.empty(); });
        w = std::move(queue_.front());
        queue_.pop_front();
      }
      w->run();
    }
  }
};

std::shared_ptr<Warmup> Warmup::start(Work work) {
  auto w = std::make_shared<Warmup>();
  w->work_ = std::move(work);
  WarmupThread::global().push(w);
  return w;
}

void Warmup::run() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (phase_ != Phase::Queued) return;  // settled before it started: skipped
    phase_ = Phase::Running;
  }
  try {
    work_(stop_);
  } catch (...) {
    // Nothing may escape the thread: a work that throws is simply done (start_warmup's own
    // work forgets its masks first).
  }
  {
    std::lock_guard<std::mutex> lock(mu_);
    phase_ = Phase::Done;
  }
  cv_.notify_all();
}

void Warmup::settle() {
  stop_.store(true, std::memory_order_release);
  std::unique_lock<std::mutex> lock(mu_);
  if (phase_ == Phase::Queued) phase_ = Phase::Done;  // never waits for the jobs queued before it
  cv_.wait(lock, [this] { return phase_ == Phase::Done; });
}

void Warmup::wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return phase_ == Phase::Done; });
}

bool Warmup::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return phase_ == Phase::Done;
}

}  // namespace toolwright::grammar
