// Warm engines for one grammar on one vocabulary: the automaton (Npda) and mask cache
// (MaskEngine) a finished matcher leaves behind, handed to the next matcher of the same grammar
// so it starts with the states and masks already computed. An engine is used by one matcher at
// a time (checked out, given back when the matcher is destroyed); only the pool's list is
// shared, under a mutex. The pool's first engine computes its first masks on the background
// thread (warmup.h) while the generation that compiled the grammar decodes its prompt. Masks
// stay exact: they are keyed by automaton state, and a state means the same stacks whatever
// generation built it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "grammar.h"
#include "mask.h"
#include "npda.h"
#include "vocab.h"
#include "warmup.h"

namespace toolwright::grammar {

// Starts an engine's warm-up on the background thread (warmup.h): the slices the grammar's
// repeated classes loop on (shared by the vocabulary's grammars), then the first positions'
// masks (MaskEngine::preheat). The engine and whatever holds the grammar and vocabulary must
// settle() the result before they are freed; until then only npda.initial() may be read.
std::shared_ptr<Warmup> start_warmup(const Grammar& grammar, const Vocab& vocab, Npda& npda,
                                     MaskEngine& masks);

struct Engine {
  std::unique_ptr<Npda> npda;
  std::unique_ptr<MaskEngine> masks;  // refers to *npda: they travel together
  // The background warm-up still working on npda and masks, or null; settled before they are
  // used (or freed).
  std::shared_ptr<Warmup> warming;
  // Approximate heap bytes (automaton plus the masks it has cached). Not while warming up.
  size_t memory_bytes() const;

  Engine() = default;
  Engine(Engine&&) noexcept = default;
  Engine& operator=(Engine&& o) noexcept;
  ~Engine();
};

class EnginePool {
 public:
  // Idle engines kept at most (one per sequence of a 4-sequence context).
  static constexpr size_t kMaxIdle = 4;

  EnginePool(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const Vocab> vocab);

  const std::shared_ptr<const Grammar>& grammar() const { return grammar_; }
  const std::shared_ptr<const Vocab>& vocab() const { return vocab_; }

  // A warm engine when one is idle, else a fresh one.
  Engine checkout();
  // Keeps `engine` for the next checkout, unless the pool is retired, full, or the engine is
  // larger than `max_engine_bytes`. Calls the growth hook (outside the pool's lock) when kept.
  void give_back(Engine engine);

  // Drops the idle engines; later give_back()s drop theirs (the cache forgot this grammar).
  void retire();
  // Bytes held by idle engines.
  size_t idle_bytes() const;

  std::atomic<size_t> max_engine_bytes{SIZE_MAX};  // changed by the cache's owner at any time
  std::function<void()> on_grow;                   // set before the pool is shared

  // Checkouts, in this process, that got a warm engine (all pools; for stats and tests).
  static uint64_t warm_checkouts_total();

 private:
  // An automaton and mask engine for this grammar, with nothing computed yet.
  Engine fresh_engine() const;
  std::shared_ptr<const Grammar> grammar_;
  std::shared_ptr<const Vocab> vocab_;
  mutable std::mutex mu_;
  std::vector<Engine> idle_;
  std::vector<size_t> idle_sizes_;
  size_t idle_bytes_ = 0;
  bool retired_ = false;
};

}  // namespace toolwright::grammar
