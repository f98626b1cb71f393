// Work done for a grammar off the thread that compiled it: one background thread per process
// runs warm-ups (a pooled engine's first masks, engine_pool.cc) in the order they were asked
// for. A generation compiles its grammar, then decodes its prompt; the warm-up runs meanwhile,
// so compiling stays cheap and the first masks are cached by the time they are needed.
//
// The engine a warm-up works on is not shared: whoever uses it first calls settle(), which
// stops the warm-up between two masks (what it computed stays cached) and waits until it has
// let go. A warm-up not started yet is skipped (settle() never waits for the ones queued before it).
// The work may point into the engine: once settle() has returned it never runs again.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>

namespace toolwright::grammar {

class Warmup {
 public:
  // The work, called on the background thread with a flag it checks between steps (it stops
  // early when the flag is set).
  using Work = std::function<void(const std::atomic<bool>& stop)>;

  // Queues `work` on the process's background thread (started on first use).
  static std::shared_ptr<Warmup> start(Work work);

  // Stops the work (if still running) and waits until it has returned or been skipped.
  // Safe to call from several threads and more than once.
  void settle();
  // Waits until the work has returned or been skipped, without stopping it (tests and benches:
  // a prompt decoded for longer than the warm-up takes).
  void wait();
  // Whether the work has returned or been skipped.
  bool done() const;

 private:
  Work work_;
  std::atomic<bool> stop_{false};
  mutable std::mutex mu_;
  std::condition_variable cv_;
  enum class Phase { Queued, Running, Done } phase_ = Phase::Queued;
  friend class WarmupThread;
  void run();
};

}  // namespace toolwright::grammar
