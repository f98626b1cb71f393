// The grammar's pushdown automaton, run as a lazily built DFA over code points.
//
// A stack is a node in a shared tree (top element + parent), interned so equal stacks are one
// id. A parser state is the sorted set of stacks llama.cpp would hold (each positioned on a
// terminal, or empty when the grammar is complete), also interned. Transitions are memoised:
// each state keeps a partition of the code-point space into intervals on which the same
// stacks match, and the successor state per interval. So after warm-up a character step is a
// table lookup, and repeated grammar positions share everything.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "flat_map.h"
#include "grammar.h"
#include "repetition_horizon.h"
#include "utf8.h"

namespace toolwright::grammar {

class Npda {
 public:
  static constexpr uint32_t kDead = UINT32_MAX;       // "no stack survives"
  static constexpr uint32_t kEmptyStack = 0;          // the stack of a completed grammar
  static constexpr uint32_t kUnset = UINT32_MAX - 1;  // successor not computed yet

  explicit Npda(std::shared_ptr<const Grammar> grammar);

  const Grammar& grammar() const { return *grammar_; }

  // State before any input.
  uint32_t initial();
  // State after code point `cp` (kDead if no stack accepts it). Stacks topped by a token
  // element or empty do not take characters.
  uint32_t step(uint32_t state, uint32_t cp) {
    if (state == kDead) return kDead;
    Partition& p = partition(state);
    return successor_in(p, state, cp < 128 ? p.ascii[cp] : segment_of(p, cp));
  }

  // A run of words in the automaton's arena (one allocation serves thousands of partitions).
  struct Words {
    uint32_t* data = nullptr;
    uint32_t n = 0;
    size_t size() const { return n; }
    uint32_t& operator[](size_t i) const { return data[i]; }
    uint32_t* begin() const { return data; }
    uint32_t* end() const { return data + n; }
  };
  // The code-point partition of a state: segment j = [breaks[j], breaks[j+1]) (the last one
  // runs to UINT32_MAX); every code point of a segment leads to the same successor.
  struct Partition {
    Words breaks;
    Words succ;          // per segment: successor state, kDead, or kUnset
    uint8_t ascii[128];  // code point < 128 -> segment (fits: at most 128 segments start below 128)
    uint32_t seg_end(uint32_t j) const { return j + 1 < breaks.size() ? breaks[j + 1] - 1 : UINT32_MAX; }
  };
  // Stable reference (partitions are never moved).
  Partition& partition(uint32_t state) {
    if (states_[state].partition == kNone) build_partition(state);
    return partitions_[states_[state].partition];
  }
  uint32_t successor_in(Partition& p, uint32_t state, uint32_t seg) {
    uint32_t next = p.succ[seg];
    if (next == kUnset) next = p.succ[seg] = compute_step(state, seg);
    return next;
  }
  static uint32_t segment_of(const Partition& p, uint32_t cp);

  // Stacks topped by <[id]>/!<[id]> that accept `token`, advanced past it.
  uint32_t step_token(uint32_t state, int32_t token);
  // The state restricted to stacks topped by a character class (kDead if none).
  uint32_t char_tops_only(uint32_t state);
  // A one-stack state made of `stack`'s top `frames` frames over a bottom that matches nothing:
  // what those frames do without their context.
  uint32_t truncated(uint32_t stack, int frames);
  // Every stack of the state so cut (the empty stack kept), each down to its first frame that
  // has more left than its next element, at most `max_frames` deep: the same stacks under
  // different contexts (an object's keys after 1, 2, ... properties) cut to one state.
  uint32_t truncated_state(uint32_t state, int max_frames);
  // Does the state hold a stack whose top is that bottom (the frames above it have finished),
  // or is it built over such a bottom?
  bool exposed(uint32_t state) const { return state != kDead && states_[state].exposed; }
  // The state with the exposed stacks of `state` left out (kDead if only those), `state` when none is.
  uint32_t unexposed(uint32_t state);
  // The state's position: its stacks cut at the nearest frame they all stand on (at most
  // kMaxTruncatedFrames below each top), over a bottom that matches nothing, so the same frames under any
  // context are one state; kDead when there is no such frame. `context` is set to that frame's stack node:
  // where the position's exposed stacks continue in this state (context_state()).
  uint32_t position(uint32_t state, uint32_t& context);
  // The state a stack node continues in once the frames above it have finished.
  uint32_t context_state(uint32_t context);
  bool is_truncated(uint32_t state) const { return state != kDead && states_[state].truncated; }
  // Is it built over a position's shared frame (position(), not truncated_state())?
  bool shared_cut(uint32_t state) const { return state != kDead && states_[state].shared_cut; }
  // The state holding exactly these stacks (sorted and deduplicated in place); kDead if none.
  uint32_t state_of(std::vector<uint32_t>& stacks) { return intern(stacks); }
  // The state with every stack frame moved by `horizon` (a frame deep in a repetition stands in its item's
  // loop, or in the rule at the horizon's depth); `state` itself when no frame moves. Only for masks: it
  // accepts other texts.
  uint32_t within_horizon(uint32_t state, const RepetitionHorizon& horizon);
  // Union of two states (either may be kDead).
  uint32_t merge(uint32_t a, uint32_t b);

  bool accepting(uint32_t state) const { return state != kDead && states_[state].accepting; }
  bool has_token_tops(uint32_t state) const { return state != kDead && states_[state].token_tops; }
  // Does some class-topped stack accept a character that starts with this partial sequence?
  // False when no class-topped stack can take any code point from 0x80 up.
  bool may_match_partial(uint32_t state) const {
    return state != kDead && states_[state].partial != PartialMode::Never;
  }
  // Does any class-topped stack match this code point? (No successor is computed.)
  bool any_class_matches(uint32_t state, uint32_t cp) const;
  // How many code points some class-topped stack matches (no successor is computed; known per set of classes,
  // so states that differ only below their tops answer at once).
  uint64_t accepted_span(uint32_t state);
  bool matches_partial(uint32_t state, PartialUtf8 partial) const {
    if (state == kDead || partial.n_remain <= 0) return false;
    switch (states_[state].partial) {
      case PartialMode::Never:
        return false;
      case PartialMode::Always:
        return !(partial.n_remain == 1 && partial.value < 2);
      case PartialMode::Depends:
        break;
    }
    if (states_[state].partial_covers && CharClass::partial_low(partial.value, partial.n_remain) <= 0x10FFFF)
      return true;
    return matches_partial_slow(state, partial);
  }

  const uint32_t* stacks(uint32_t state) const { return &pool_[states_[state].off]; }
  uint32_t n_stacks(uint32_t state) const { return states_[state].len; }
  uint32_t stack_top(uint32_t stack) const { return node_pos_[stack]; }
  uint32_t stack_parent(uint32_t stack) const { return node_parent_[stack]; }

  size_t n_states() const { return states_.size(); }
  size_t n_nodes() const { return node_pos_.size(); }
  size_t memory_bytes() const;
  // Makes room in every table for as many states and stack nodes again as it holds: after a warm-up built
  // thousands off the calling thread, the next growth (a copy or rehash of tables that big) is not the
  // caller's.
  void reserve_growth();

  // Drops every state and node except those reachable from `live` (whose ids are rewritten in
  // place); all memoised transitions are forgotten. Bounds memory in long generations.
  void compact(std::vector<uint32_t*> live);

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  enum class PartialMode : uint8_t { Never, Always, Depends };
  struct State {
    uint32_t off, len;
    uint32_t hash_next;  // next state with the same hash
    uint32_t partition;  // index into partitions_, or kNone
    uint32_t class_set;  // index into class_sets_ once the partition is built (kNone: a set not recorded)
    bool accepting, token_tops, char_tops;
    bool exposed, truncated, shared_cut;  // see exposed() / is_truncated() / shared_cut()
    PartialMode partial;                  // what its class-topped stacks say to partial UTF-8 tests
    bool partial_covers;                  // a class-topped stack takes every code point from 0x80 to U+10FFFF
  };

  std::shared_ptr<const Grammar> grammar_;
  std::vector<uint32_t> node_pos_, node_parent_;
  // node -> frames above the never_pos bottom of a truncated stack (0: the bottom itself), kNoCut
  // when none (capped: stacks grow deep).
  std::vector<uint8_t> node_cut_depth_;
  // node -> built over position()'s bottom (within kMaxTruncatedFrames of it)
  std::vector<uint8_t> node_shared_cut_;
  static constexpr uint8_t kNoCut = 255;
  // Memoised stack lists (a closure, a successor): most are only ever merged into the state the
  // walk steps to, so they are kept as plain sorted lists, not interned as states. A list is
  // list_pool_[id] = length, [id + 1] = its state once interned (or kUnset), then the nodes.
  std::vector<uint32_t> list_pool_;
  std::vector<uint32_t> closure_of_;  // node -> list of its closure, or kUnset
  std::vector<uint32_t> succ_of_;     // class-topped node -> list after matching, or kUnset
  const uint32_t* list_nodes(uint32_t list) const { return &list_pool_[list + 2]; }
  uint32_t list_len(uint32_t list) const { return list_pool_[list]; }
  uint32_t store_list(std::vector<uint32_t>& v);  // sorts + dedups in place
  uint32_t list_state(uint32_t list);             // the list as a state (kDead if empty)
  FlatMap64 node_index_;
  std::vector<State> states_;
  std::vector<uint32_t> pool_;
  FlatMap64 state_index_;
  // Partitions and the arena holding their words; a copy copies the words into its own arena.
  class PartitionStore {
   public:
    PartitionStore() = default;
    PartitionStore(const PartitionStore& other);
    PartitionStore& operator=(const PartitionStore&) = delete;
    PartitionStore(PartitionStore&&) = default;
    PartitionStore& operator=(PartitionStore&&) = default;
    Partition& operator[](size_t i) { return chunks_[i >> kChunkBits][i & (kChunk - 1)]; }
    size_t size() const { return size_; }
    // A partition with these breaks, every successor unset.
    Partition& add(const uint32_t* breaks, uint32_t n);
    // A partition with `model`'s breaks (shared, not copied), every successor unset.
    Partition& add_like(const Partition& model);
    size_t memory_bytes() const { return chunks_.size() * kChunk * sizeof(Partition) + words_ * 4; }

   private:
    // Blocks double from the first size up to the last (a small grammar keeps a small arena).
    static constexpr size_t kFirstBlockWords = 512, kMaxBlockWords = 16384;
    // Partitions in fixed chunks: never moved, and one allocation per kChunk of them (a deque
    // of these 160-byte records allocates one block per partition, a malloc per new state).
    static constexpr size_t kChunkBits = 5, kChunk = size_t{1} << kChunkBits;
    std::vector<std::unique_ptr<Partition[]>> chunks_;
    size_t size_ = 0;
    std::vector<std::unique_ptr<uint32_t[]>> blocks_;
    uint32_t* free_ = nullptr;
    size_t left_ = 0, words_ = 0, next_block_ = kFirstBlockWords;
    uint32_t* alloc(size_t n);
  };
  PartitionStore partitions_;
  uint32_t initial_ = kUnset;
  // scratch
  std::vector<uint32_t> todo_, out_, merge_buf_, step_buf_, break_buf_, list_buf_;
  // closure(): node -> epoch it was last seen in (a linear "seen" list is quadratic on the
  // hundreds of stacks an ambiguous rule expands to).
  std::vector<uint32_t> seen_epoch_;
  uint32_t epoch_ = 0;
  std::vector<uint32_t> class_mark_;  // build_partition(): class -> epoch it was taken in
  uint32_t class_epoch_ = 0;
  // build_partition(): states with the same classes on top share their breaks (an object's keys under every
  // context). Hash of the sorted class ids -> index into class_sets_ (the first set with that hash).
  struct ClassSet {
    uint32_t off, len, partition;  // ids at class_set_pool_[off, +len); a partition built from them
    uint64_t span;                 // code points the classes accept together
  };
  FlatMap64 class_set_index_;
  std::vector<ClassSet> class_sets_;
  std::vector<uint32_t> class_set_pool_, class_buf_;
  uint64_t live_segments_span(uint32_t state);  // accepted_span() counted over the state's segments

  uint32_t push(uint32_t parent, uint32_t pos);
  // The node of `stack`'s top `frames` frames (at most kMaxTruncatedFrames) over never_pos (`shared`: over a
  // second never_pos node, position()'s; `lone_bottom`: the deepest frame cut below the rule it calls next).
  uint32_t truncated_node(uint32_t stack, int frames, bool shared = false, bool lone_bottom = false);
  // truncated_state(): a stack's cut node at most `max_frames` deep (memo: stack node -> cut node, or kUnset,
  // for cut_memo_frames_).
  uint32_t cut_node(uint32_t stack, int max_frames);
  std::vector<uint32_t> cut_memo_;
  std::vector<uint32_t> unexposed_of_;  // state -> unexposed(state), or kUnset
  int cut_memo_frames_ = 0;
  static constexpr int kMaxTruncatedFrames = 5;  // deeper cuts count as not truncated
  uint32_t closure(uint32_t node);
  uint32_t successor(uint32_t node);
  uint32_t intern(std::vector<uint32_t>& stacks);  // sorts + dedups in place
  bool matches_partial_slow(uint32_t state, PartialUtf8 partial) const;
  void build_partition(uint32_t state);
  uint32_t compute_step(uint32_t state, uint32_t seg);
};

}  // namespace toolwright::grammar
