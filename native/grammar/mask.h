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
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "flat_map.h"
#include "npda.h"
#include "slice.h"
#include "vocab.h"

namespace toolwright::grammar {

class MaskEngine {
 public:
  MaskEngine(Npda & npda, std::shared_ptr<const Vocab> vocab);

  // Writes the mask (vocab.n_words() words, bit set = allowed) for `state` with `partial`
  // pending from the previous token.
  void fill(uint32_t state, PartialUtf8 partial, uint64_t * out);

  // The same decision for one token, computed directly (slow path; also the reference the
  // prefix-tree walk is tested against).
  bool token_allowed(uint32_t state, PartialUtf8 partial, int32_t token);

  // Forget everything keyed by state ids (they are about to change).
  void clear_cache();

  struct Stats {
    uint64_t masks = 0, cache_hits = 0, nodes_visited = 0, slices_used = 0;
  };
  const Stats & stats() const { return stats_; }

 private:
  Npda & npda_;
  std::shared_ptr<const Vocab> vocab_;
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
    uint32_t set_id = 0;
    uint32_t max_chars = 0;
    uint32_t chain_begin = 0, chain_len = 0;  // into chain_pool_
  };
  static constexpr uint32_t kUnbounded = UINT32_MAX;
  FlatMap64 plan_of_;  // state -> index into plans_
  std::vector<Plan> plans_;
  std::vector<uint32_t> chain_pool_;
  FlatMap64 uniform_of_;  // (state, set) -> successor on the whole set, or kNotUniform
  static constexpr uint32_t kNotUniform = UINT32_MAX - 2;

  // cache: state -> mask, stored sparse (ids) or dense (bitset)
  struct Cached {
    bool dense;
    std::vector<uint64_t> bits;
    std::vector<int32_t> ids;
  };
  std::vector<int32_t> cache_slot_;  // state -> index into cache_, or -1
  std::vector<Cached> cache_;
  size_t cache_bytes_ = 0;

  void compute_fresh(uint32_t state, uint64_t * out);
  void enter(uint32_t node, uint32_t state, uint64_t * out);
  void partials_at(const Vocab::Node & n, uint32_t state, uint64_t * out);
  // Steps over the children of `node`; children whose successor is `skip` are left out.
  void expand(uint32_t node, uint32_t state, uint64_t * out, uint32_t skip = Npda::kDead);
  bool try_slice(uint32_t node, uint32_t state, uint64_t * out);
  const Plan & plan(uint32_t state);
  uint32_t uniform_successor(uint32_t state, uint32_t set_id);
  void token_tops_below(uint32_t state, uint32_t node, uint64_t * out);
  void store(uint32_t state, const uint64_t * bits);
};

}  // namespace toolwright::grammar
