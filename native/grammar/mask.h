// Token masks for a parser state: which tokens llama.cpp's grammar sampler would leave
// unmasked, bit for bit.
//
// The mask is a walk of the vocabulary's prefix tree with the NPDA: a prefix no stack accepts
// prunes every token below it, and a node with many children is visited by code-point range
// (only the ranges the state accepts). Where the state loops on a broad character class (a
// JSON string body, `[^\n]*`, or a bounded repetition of one), the walk below that node is
// replaced by a precomputed class slice: every token made only of that class and short enough
// is taken in one bitset OR, and only the slice's exits are checked. Masks are cached per
// state, so a grammar position seen again costs one copy.
//
// The first mask of a state pays for its plan, so plans are kept cheap: a group is found once
// per stack's top frames and memoised apart from chain plans; a chain (a bounded repetition) is
// followed only as deep as the slice it serves; a group explored through states that only
// count up is abandoned early; a group that is one looping state applies its slice without
// stepping the skeleton.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "flat_map.h"
#include "npda.h"
#include "repetition_horizon.h"
#include "slice.h"
#include "vocab.h"

namespace toolwright::grammar {

// Sets token `id`'s bit in a mask.
inline void set_bit(uint64_t* bits, int32_t id) { bits[id >> 6] |= 1ull << (id & 63); }

class MaskEngine {
 public:
  MaskEngine(Npda& npda, std::shared_ptr<const Vocab> vocab);

  // Writes the mask (vocab.n_words() words, bit set = allowed) for `state` with `partial`
  // pending from the previous token.
  void fill(uint32_t state, PartialUtf8 partial, uint64_t* out);

  // The same decision for one token, computed directly (slow path; also the reference the
  // prefix-tree walk is tested against).
  bool token_allowed(uint32_t state, PartialUtf8 partial, int32_t token);

  // Forget everything keyed by state ids (they are about to change).
  void clear_cache();

  // The cut position standing for `state` in masks: its stacks cut a few frames down each (kDead if none).
  uint32_t cut_position(uint32_t state) { return npda_.truncated_state(state, kMaxCutFrames); }

  // Computes and caches the masks of the first few states a generation meets (those up to
  // kPreheatDepth code points from the initial state, at most kPreheatStates), so that their
  // plan work (group search over many stacks, e.g. an object's first key) is paid when the
  // grammar is compiled rather than in the first masks. Stats are left as they were. With
  // `stop`, it returns early once the flag is set (checked between two masks).
  // Then explores the grammar's positions (every state reached from the initial one, once per truncated
  // state: the same frames under another context are one position) and caches the mask of each position's
  // truncated state, so that a state met later under a new context is masked from it (fill_via_position()).
  void preheat(const std::atomic<bool>* stop = nullptr);
  static constexpr int kPreheatDepth = 2;
  static constexpr size_t kPreheatStates = 8;
  // Positions explored by preheat() at most.
  static constexpr size_t kWarmPositions = 3000;

  struct Stats {
    uint64_t masks = 0, cache_hits = 0, nodes_visited = 0, slices_used = 0;
    uint64_t truncated_hits = 0;      // masks made from a position's (fill_via_position())
    uint64_t suffix_hits = 0;         // ... of which through the suffix tree of its exits
    uint64_t returned_positions = 0;  // cut positions masked when met again (mask_on_return())
  };
  const Stats& stats() const { return stats_; }
  // Heap bytes of the cached masks (those preheat() stored included).
  size_t memory_bytes() const {
    return cache_bytes_ + exit_pool_.capacity() * sizeof(uint32_t) +
           suffix_nodes_.capacity() * sizeof(SuffixNode) + suffix_tokens_.capacity() * sizeof(int32_t) +
           suffix_partials_.capacity() * sizeof(Vocab::PartialTail) +
           suffix_exits_.capacity() * sizeof(uint32_t) + suffix_index_.memory_bytes();
  }

 private:
  Npda& npda_;
  std::shared_ptr<const Vocab> vocab_;
  // Frames deep in a bounded repetition stand in its item's loop (or at the horizon's depth), so a long
  // bounded string's states share a mask (repetition_horizon.h). A state reached inside a walk may stand in
  // too: the rest of the token is shorter still. stand_in_of_: state -> the state masks and walks use for it
  // (kUnset: not asked yet); frames_move_: stack node -> whether some frame of that stack moves (0: not asked
  // yet).
  RepetitionHorizon horizon_;
  std::vector<uint32_t> stand_in_of_;
  std::vector<uint8_t> frames_move_;
  std::vector<uint32_t> path_buf_;
  uint32_t within_horizon(uint32_t state) {
    if (horizon_.empty() || state == Npda::kDead) return state;
    return state < stand_in_of_.size() && stand_in_of_[state] != Npda::kUnset ? stand_in_of_[state]
                                                                              : find_stand_in(state);
  }
  uint32_t find_stand_in(uint32_t state);
  bool frames_move(uint32_t stack);
  Stats stats_;
  std::vector<uint32_t> decode_buf_;

  struct Item {
    uint32_t node, state;
  };
  std::vector<Item> work_;

  // How a state walks its broadest class: the chain of states after 0, 1, 2, ... characters
  // of the class (the last one repeats when the chain loops), and how many characters it can
  // take (kUnbounded when it loops).
  struct Plan {
    bool usable = false;
    uint32_t first_set = 0, rest_set = 0;  // code point sets of the first and later characters
    uint32_t max_chars = 0;                // once chain_done
    uint32_t chain = 0;                    // into chains_
    bool chain_done = false;
    uint32_t first_next = 0;              // the state after one first-set character
    uint32_t cut_begin = 0, cut_len = 0;  // into cut_pool_: rest-set code points not in the first set
    // Group mode: every character of the set leads, from the state and from each state it
    // reaches, to another such state; then every token made of the set is allowed, and the
    // grammar is stepped only along the slice's skeleton. Code points the state accepts
    // outside the set are walked by range: ranges_pool_[range_begin, +range_len).
    bool group = false;
    uint32_t range_begin = 0, range_len = 0;
    bool context_free = true;  // group found without the frames ever finishing (truncated states)
    // Some state explored had finished the frames (truncated states). Without that, the real
    // state explores the same states over its own context, so a truncated state's answer,
    // group or none, is the real one's.
    bool saw_exposed = false;
    // Group mode: the one state every first character leads to and every class character keeps
    // (a string body), or kDead. Then every skeleton node is at it, and the skeleton is not stepped.
    uint32_t loop_state = Npda::kDead;
  };
  static constexpr uint32_t kUnbounded = UINT32_MAX;
  // A class slice replaces the walk only below nodes with at least this many descendants,
  static constexpr uint32_t kSliceMinNodes = 256;
  // ... and only for classes of at least this many code points.
  static constexpr uint64_t kSliceMinSpan = 16;
  // A narrower first class is handled by cutting up to this many code points out of a common slice.
  static constexpr size_t kMaxCutChars = 16;
  // A state looping as a whole on fewer code points than this may still be split into stacks.
  static constexpr uint64_t kNarrowGroupSpan = 256;
  // A group that narrow is explored again keeping only members that accept at least this many
  // code points (a `%XX` escape's hex state joins a URL path's loop and narrows it to hex).
  static constexpr uint64_t kBroadMemberSpan = 48;
  // A class looped on through several states: at most this many states.
  static constexpr size_t kMaxGroupStates = 256;
  // ... reached within this many characters (tries of excluded keys are a few dozen deep; a
  // bounded repetition is a chain as long as its bound).
  static constexpr uint32_t kMaxGroupLevels = 48;
  static constexpr uint32_t kChainLevels = 8;
  DenseMap32 plan_of_;  // state -> index into plans_
  // group_plan(): state -> epoch it joined the group being explored (groups reach hundreds).
  std::vector<uint32_t> group_mark_;
  std::vector<uint32_t> group_level_;  // ... and how many characters from the state it joined at
  uint32_t group_epoch_ = 0;
  std::vector<Plan> plans_;
  std::vector<std::vector<uint32_t>> chains_;
  std::vector<uint32_t> cut_pool_;
  std::vector<std::pair<uint32_t, uint32_t>> ranges_pool_;
  bool token_tops_seen_ = false;  // a token element set bits during this walk
  FlatMap64 uniform_of_;          // (state, set) -> successor on the whole set, or kNotUniform
  static constexpr uint32_t kNotUniform = UINT32_MAX - 2;

  // cache: state -> mask, stored sparse (ids) or dense (bitset) in an arena of word blocks
  // (one allocation per few masks, all dropped together when over budget).
  struct Cached {
    const uint64_t* data;  // bitset of n_words() words, or n int32 ids
    uint32_t n;
    bool dense;
    bool truncated;  // a position's mask, with its exits: exit_pool_[exit_begin, +exit_len)
    uint32_t exit_begin, exit_len;
    uint32_t suffixes;  // a whole position's: index into suffixes_ of its exits' suffix tree, or kNoSuffixes
    bool walk_exits;    // ... and whether a real state may walk below the exits instead
  };
  static constexpr uint32_t kNoSuffixes = UINT32_MAX;
  std::vector<int32_t> cache_slot_;  // state -> index into cache_, or -1
  std::vector<Cached> cache_;
  size_t cache_bytes_ = 0;
  std::vector<std::unique_ptr<uint64_t[]>> arena_;
  uint64_t* arena_free_ = nullptr;
  size_t arena_left_ = 0;
  uint64_t* arena_alloc(size_t words);
  static constexpr size_t kArenaBlockMasks = 4;
  void drop_masks();
  // Masks with at most one token per this many bitset words are kept as ids: extracting and
  // setting more ids costs more than copying the bitset.
  static constexpr size_t kBitsetWordsPerId = 4;
  std::vector<int32_t> id_buf_;  // store(): the ids found so far
  const Cached* cached(uint32_t state) const {
    return state < cache_slot_.size() && cache_slot_[state] >= 0 ? &cache_[cache_slot_[state]] : nullptr;
  }
  void copy_cached(const Cached& c, uint64_t* out) const;  // writes the mask into `out`
  // ORs the cached mask of `state` into `out`; false when none is cached.
  bool or_cached(uint32_t state, uint64_t* out);

  void compute_fresh(uint32_t state, uint64_t* out);
  void drain_work(uint64_t* out);                    // expands the queued walk items
  void tokens_apart(uint32_t state, uint64_t* out);  // end-of-text and irregular tokens

  // Masks through positions: a state's stacks cut at the nearest frame they all stand on (Npda::position()),
  // or each cut a few frames down (Npda::truncated_state()). A position's mask decides every token whose walk
  // never finishes the cut frames, and every token that ends where they finish. The prefix-tree nodes where a
  // walk of a position finished them (an exposed state: the rest of the token belongs to the context) are its
  // exits; the walk goes on below them with the stacks that did not finish. A real state's mask is then its
  // position's mask and the tokens the context takes past an exit: those whose rest its one context accepts,
  // found in the exits' suffix tree (mask_suffix.cc), or, for stacks cut over contexts of their own, a walk
  // of the real state below each outermost exit (mask_context.cc). Node 0: exposed before any character.
  std::vector<uint32_t> exits_;      // the exits met by the walks in progress (a part's are its whole's too)
  std::vector<uint32_t> exit_pool_;  // cached masks' exits
  std::vector<uint64_t> exit_bits_;  // walk_exits(): the walks below the exits
  std::vector<uint32_t> exit_path_;
  bool truncated_masks_ = false;     // preheat() cached positions' masks
  void note_exits(const Cached& c);  // lists a cached part's exits as its whole's
  // Masks `state` from a position's cached mask; false when none serves.
  bool fill_via_position(uint32_t state, uint64_t* out);
  const Cached* mask_on_return(uint32_t cut, uint64_t* scratch);
  std::vector<uint8_t> position_returns_;  // cut position -> real states that missed it (capped at 2)
  uint64_t work_floor_ = 0;  // keep_truncated()'s work at least (kReturnedWork in mask_on_return())
  static constexpr uint64_t kReturnedWork = 1024;
  void walk_exits(uint32_t state, const uint32_t* exits, uint32_t n_exits, uint64_t* out);
  // preheat(), second part.
  void warm_positions(const std::atomic<bool>* stop);
  // After a warm-up built thousands of states off the calling thread: room in every table and memo for as
  // many again, so that their next growth (a copy, a rehash, fresh pages) is not in a mask.
  void reserve_growth();
  // For a position's mask, just computed: exits_[from, end) sorted into exit_all_; whether it is worth
  // keeping (no exit before any character, and work of at least kMinTruncatedWalk: a cheaper mask is as
  // cheap for the real state, not worth its memory); and whether real states may walk below the exits
  // (exits_walkable_: the nodes below the outermost ones are at most 1/kExitShare of the work; every token
  // after a finished value, numbers and literals, costs a real state more than its own walk). The work is
  // the prefix-tree nodes walked, and kStateWork per parser state built meanwhile: an object's next key
  // under 37 stacks walks 123 nodes but builds 60 states, ten times the cost of its walk.
  bool keep_truncated(size_t from, uint64_t work);
  std::vector<uint32_t> exit_all_;
  bool exits_walkable_ = false;
  static constexpr uint64_t kMinTruncatedWalk = 128, kExitShare = 8, kStateWork = 8;

  // The exits' suffix tree: the rest of every token below an exit, after the exit's code points, in a
  // prefix tree of its own (the same rest after many exits, a number's `,` or a string's `",`, is one node).
  // The real state's context takes the rests it accepts: a walk of a few nodes, where walking below every
  // exit (a thousand number tokens) costs more than the mask.
  struct SuffixNode {
    uint32_t cp, end;               // the code point into this node; one past its subtree (preorder)
    uint32_t tok_begin, tok_end;    // suffix_tokens_: tokens whose rest ends here
    uint32_t part_begin, part_end;  // suffix_partials_: ... ends here in a partial character
  };
  struct SuffixTree {
    uint32_t begin, len;              // suffix_nodes_[begin, +len), the root first
    uint32_t exits_begin, exits_len;  // the exits it was built for: suffix_exits_[exits_begin, +exits_len)
  };
  FlatMap64 suffix_index_;  // hash of a tree's exits -> index into suffixes_
  std::vector<uint32_t> suffix_exits_;
  std::vector<SuffixTree> suffixes_;
  std::vector<SuffixNode> suffix_nodes_;
  std::vector<int32_t> suffix_tokens_;
  std::vector<Vocab::PartialTail> suffix_partials_;
  // A suffix tree of more entries than this is not built (an exit near the root has most of the vocabulary
  // below it: the real state is better masked by its own walk).
  static constexpr size_t kMaxSuffixEntries = 4096;
  // Builds the tree of exit_all_; kNoSuffixes when too big.
  uint32_t build_suffixes();
  // ORs the tokens whose rest `context` accepts; false (with `out` partly set) when a state with token tops
  // is met (token elements are matched by id, not by a rest).
  bool walk_suffixes(const SuffixTree& tree, uint32_t context, uint64_t* out);
  // preheat() masks positions of at least this many stacks (one stack, a string's body or a number's digits,
  // is masked cheaply by slices anyway).
  static constexpr uint32_t kWarmMinStacks = 2;
  // A mask is the union of its stacks' masks: a state mixing stacks that each loop on a broad
  // class with many others is split so each part can use its own slice (and cache).
  bool decompose(uint32_t state, uint64_t* out);
  uint32_t split(uint32_t state);
  std::vector<std::vector<uint64_t>> part_bufs_;  // decompose(): a mask buffer per nesting level
  uint32_t part_depth_ = 0;
  bool has_broad_top(uint32_t state) const;
  DenseMap32 split_of_;  // state -> index into splits_ (begin of its parts), or kNoSplit
  std::vector<uint32_t> split_pool_;
  static constexpr uint32_t kNoSplit = UINT32_MAX - 3;
  void enter(uint32_t node, uint32_t state, uint64_t* out);
  void partials_at(const Vocab::Node& n, uint32_t state, uint64_t* out);
  // Steps over the children of `node`; children whose successor is `skip` are left out.
  void expand(uint32_t node, uint32_t state, uint64_t* out, uint32_t skip = Npda::kDead);
  bool try_slice(uint32_t node, uint32_t state, uint64_t* out);
  // A state that loops on a narrow class (a number's digits: too few code points for a plan)
  // takes a slice of that class below smaller nodes than a plan's, where the node's first child is
  // a digit: every token made of the class keeps the state, so they are allowed at once and only
  // the slice's exits are stepped.
  bool try_self_loop(uint32_t node, uint32_t state, uint64_t* out);
  uint32_t self_loop_set(uint32_t state);
  DenseMap32 self_loop_of_;  // state -> set id of the code points it loops on, or kNoLoop
  static constexpr uint32_t kNoLoop = UINT32_MAX - 4;
  // Self-loop slices are taken below nodes with at least this many descendants (a digit's
  // subtree of two- and three-digit tokens is 111 nodes in a 128k vocabulary) ...
  static constexpr uint32_t kLoopSliceMinNodes = 32;
  // ... for states with at most this many code-point segments (larger ones are planned instead).
  static constexpr uint32_t kLoopMaxSegments = 32;
  const Plan& plan(uint32_t state);
  const Plan& group_only(uint32_t state);
  bool extend_chain(uint32_t idx, uint32_t upto);
  // Chain states followed when a plan is made; deeper ones as slices need them.
  static constexpr uint32_t kEagerChain = 16;
  bool find_group(uint32_t state, Plan& pl);
  // find_group() on several stacks: each cut at most this many frames deep.
  static constexpr int kMaxCutFrames = 4;
  DenseMap32 group_of_;  // state -> index into plans_ of its group plan (see group_only())
  uint32_t broadest_class(uint32_t state, std::vector<std::pair<uint32_t, uint32_t>>& set);
  bool group_plan(uint32_t state, Plan& pl, uint64_t min_member_span = kSliceMinSpan);
  bool group_ranges(uint32_t state, const std::vector<std::pair<uint32_t, uint32_t>>& first,
                    const std::vector<std::pair<uint32_t, uint32_t>>& set, Plan& pl);
  bool loopable(uint32_t s, Plan& pl, bool looping, uint64_t min_member_span);
  uint64_t live_span_upto(uint32_t state, uint64_t cap);
  uint64_t set_span(uint32_t set_id);
  uint64_t live_span(uint32_t state);
  // Per state: live_span() known / at least kSliceMinSpan, and met in a group that grew too big.
  std::vector<uint8_t> broad_memo_;
  static constexpr uint8_t kSpanKnown = 1, kSpanBroad = 2, kTooBig = 4;
  bool apply_group(const Plan& pl, const Slice& s, uint32_t node, uint32_t state, uint64_t* out,
                   const std::vector<std::pair<uint32_t, uint32_t>>& cut);
  void apply_loop(const Plan& pl, const Slice& s, uint64_t* out,
                  const std::vector<std::pair<uint32_t, uint32_t>>& cut);
  void apply_skeleton(const Plan& pl, const Slice& s, uint32_t state, uint64_t* out,
                      const std::vector<std::pair<uint32_t, uint32_t>>& cut);
  void clear_cut(const Slice& s, const std::vector<std::pair<uint32_t, uint32_t>>& cut, uint64_t* out);
  void expand_ranges(uint32_t node, uint32_t state, uint64_t* out,
                     const std::pair<uint32_t, uint32_t>* ranges, uint32_t n_ranges);
  std::vector<std::pair<uint32_t, uint64_t>> spans_;
  uint32_t uniform_successor(uint32_t state, uint32_t set_id);
  uint32_t child_with(uint32_t node, uint32_t cp) const;
  static bool difference_small(const std::vector<std::pair<uint32_t, uint32_t>>& a,
                               const std::vector<std::pair<uint32_t, uint32_t>>& b,
                               std::vector<uint32_t>& out);
  void token_tops_below(uint32_t state, uint32_t node, uint64_t* out);
  // `exits`: a position's (every one met, sorted), else null; `suffixes` their tree's index, `walkable`
  // whether real states may walk below them.
  void store(uint32_t state, const uint64_t* bits, const std::vector<uint32_t>* exits = nullptr,
             uint32_t suffixes = kNoSuffixes, bool walkable = false);
};

}  // namespace toolwright::grammar
