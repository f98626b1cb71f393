// One generation's grammar state: masks, token acceptance, rollback and lazy activation.
// Behaves like llama.cpp's grammar sampler for the same grammar and vocabulary (same masks,
// same accepted sequences), only faster. Not thread-safe; use one matcher per sequence.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "engine_pool.h"
#include "grammar.h"
#include "mask.h"
#include "npda.h"
#include "trigger.h"
#include "vocab.h"

namespace toolwright::grammar {

class Matcher {
 public:
  // Throws std::regex_error if a trigger pattern is malformed. Without `warm_up` no first masks are computed
  // off this thread (tools that count what each mask walks, the same on a busy machine as on a quiet one).
  Matcher(std::shared_ptr<const Grammar> grammar, std::shared_ptr<const Vocab> vocab, LazyOptions lazy = {},
          bool warm_up = true);
  // Takes its automaton and mask cache from `pool` (warm when an earlier matcher of the same
  // grammar gave them back) and gives them back when destroyed. `watcher` is built from `lazy`.
  Matcher(std::shared_ptr<EnginePool> pool, LazyOptions lazy, const TriggerWatcher& watcher);
  Matcher(const Matcher& other);  // independent copy (same grammar/vocab, same position)
  Matcher& operator=(const Matcher&) = delete;
  ~Matcher();

  const Vocab& vocab() const { return *vocab_; }
  size_t mask_words() const { return vocab_->n_words(); }

  // Fills `bits` (mask_words() words): bit `id` set when token `id` may be sampled next.
  // Before a lazy grammar is triggered every token is allowed.
  void fill_mask(uint64_t* bits);
  // Advances past `token`. Returns false (state unchanged) when the grammar cannot continue
  // with it; an end-of-generation token is accepted only when the grammar can end.
  bool accept(int32_t token);
  // Advances past raw text (UTF-8 may be split across calls). Token references in the
  // grammar never match text. Returns false (state unchanged) when the text does not fit.
  bool accept_bytes(std::string_view bytes);
  // Undoes the last `n` successful accept()/accept_bytes() calls; false if fewer were made.
  bool rollback(size_t n);
  // May generation end here? (True before a lazy grammar is triggered.)
  bool is_accepting() const;
  // False while a lazy grammar waits for its trigger.
  bool is_active() const { return !awaiting_; }
  // Back to the start (and, for a lazy grammar, waiting for the trigger again).
  void reset();
  size_t n_accepted() const { return history_.size(); }

  // Waits for the engine's warm-up to finish (tests and benches: a prompt decoded for longer than
  // the warm-up takes); false when there was none (a warm engine from the pool).
  bool await_warmup() const;
  // The text the grammar forces from here, at most `max_bytes` (whole code points): each next
  // character is the only one it allows, and it cannot end there. Empty while a lazy grammar waits
  // for its trigger or inside a character. Does not advance. In forced.cc.
  std::string forced_text(size_t max_bytes);

  // Exact single-token check (slow path, for tests).
  bool token_allowed(int32_t token);
  // Counts since the engine was built (a pooled engine's include its earlier matchers').
  const MaskEngine::Stats& stats() const { return masks().stats(); }
  // Stacks the parser holds at the current position (for profiling).
  uint32_t live_stacks() const { return state_ == Npda::kDead ? 0 : npda().n_stacks(state_); }
  // Parser states and stack nodes built so far (for profiling: a first visit builds them).
  size_t built_states() const { return npda().n_states(); }
  size_t built_stack_nodes() const { return npda().n_nodes(); }
  // The parser state and the cut position masks use for it (ids, for tests: states under different contexts
  // that mask alike share one position). cut_position() may build states: count them before it.
  uint32_t state_id() const { return state_; }
  uint32_t cut_position() { return state_ == Npda::kDead ? Npda::kDead : masks().cut_position(state_); }

 private:
  struct Snapshot {
    uint32_t state;
    PartialUtf8 partial;
    bool awaiting;
    size_t buffer_len, positions_len;
  };
  struct BufferedToken {
    int32_t token;
    size_t begin, end;
  };

  std::shared_ptr<const Grammar> grammar_;
  std::shared_ptr<const Vocab> vocab_;
  LazyOptions lazy_;
  TriggerWatcher watcher_;
  std::shared_ptr<EnginePool> pool_;  // where the engine goes back to, or null
  std::unique_ptr<Npda> npda_;
  std::unique_ptr<MaskEngine> masks_;
  // The engine's warm-up, until the engine is first used (settle()).
  mutable std::shared_ptr<Warmup> warming_;
  uint32_t state_;
  PartialUtf8 partial_;
  bool awaiting_;
  std::string buffer_;  // text generated while waiting for the trigger
  std::vector<BufferedToken> positions_;
  std::vector<Snapshot> history_;
  std::vector<uint32_t> cps_;

  Snapshot snapshot() const {
    return Snapshot{state_, partial_, awaiting_, buffer_.size(), positions_.size()};
  }
  void restore(const Snapshot& s);
  // Stops the engine's warm-up (its masks so far stay cached) and waits for it to let go.
  void settle() const;
  // The engine, once no warm-up works on it.
  Npda& npda() const {
    settle();
    return *npda_;
  }
  MaskEngine& masks() const {
    settle();
    return *masks_;
  }
  // llama.cpp's per-token advance on (state, partial); false if nothing survives.
  bool advance(uint32_t& state, PartialUtf8& partial, int32_t token, std::string_view piece);
  bool accept_waiting(int32_t token);
  void maybe_compact();
};

}  // namespace toolwright::grammar
