// Token masks for a parser state: which tokens llama.cpp's grammar sampler would leave
// unmasked. Computed by walking the vocabulary's prefix tree with the NPDA (a prefix that no
// stack accepts prunes every token below it), and cached per state so a grammar position seen
// again costs one copy.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "npda.h"
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

  // Forget cached masks (state ids are about to change).
  void clear_cache();
  size_t cache_bytes() const { return cache_bytes_; }

  struct Stats {
    uint64_t masks = 0, cache_hits = 0, nodes_visited = 0;
  };
  const Stats & stats() const { return stats_; }

 private:
  Npda & npda_;
  std::shared_ptr<const Vocab> vocab_;
  std::vector<uint32_t> decode_buf_;
  struct Frame {
    uint32_t node, state, child;
  };
  std::vector<Frame> frames_;

  // cache: state -> mask, stored sparse (ids) or dense (bitset)
  struct Cached {
    bool dense;
    std::vector<uint64_t> bits;
    std::vector<int32_t> ids;
  };
  std::vector<int32_t> cache_slot_;  // state -> index into cache_, or -1
  std::vector<Cached> cache_;
  size_t cache_bytes_ = 0;
  Stats stats_;

  void compute_fresh(uint32_t state, uint64_t * out);
  void token_tops_below(uint32_t state, uint32_t node, uint64_t * out);
  void store(uint32_t state, const uint64_t * bits);
};

}  // namespace toolwright::grammar
