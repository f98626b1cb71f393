// MaskEngine's cache of masks per NPDA state: a mask is stored as token ids while few, else as the
// bitset, in an arena of uninitialised blocks; past the budget the whole cache is dropped and rebuilt.
#include <algorithm>
#include <cstring>

#include "mask.h"

namespace toolwright::grammar {

namespace {

// Masks kept per matcher before the cache is dropped and rebuilt.
#ifdef TOOLWRIGHT_GRAMMAR_MASK_CACHE_BUDGET
constexpr size_t kCacheBudgetBytes = TOOLWRIGHT_GRAMMAR_MASK_CACHE_BUDGET;  // tests force eviction
#else
constexpr size_t kCacheBudgetBytes = 64u << 20;
#endif

}  // namespace

void MaskEngine::copy_cached(const Cached& c, uint64_t* out) const {
  const size_t words = vocab_->n_words();
  if (c.dense) {
    std::memcpy(out, c.data, words * 8);
  } else {
    std::memset(out, 0, words * 8);
    const auto* ids = reinterpret_cast<const int32_t*>(c.data);
    for (uint32_t i = 0; i < c.n; i++) set_bit(out, ids[i]);
  }
}

void MaskEngine::store(uint32_t state, const uint64_t* bits, const std::vector<uint32_t>* exits,
                       uint32_t suffixes, bool walkable) {
  const size_t words = vocab_->n_words();
  // Ids while few (found without counting the bits first), else the bitset.
  const size_t max_ids = words / kBitsetWordsPerId;
  id_buf_.resize(max_ids + 1);
  size_t n = 0;
  constexpr size_t kBlock = 8;  // sparse masks are mostly zero words: skip them a block at a time
  for (size_t w = 0; w < words && n <= max_ids; w++) {
    if (w % kBlock == 0 && w + kBlock <= words) {
      uint64_t any = 0;
      for (size_t k = 0; k < kBlock; k++) any |= bits[w + k];
      if (any == 0) {
        w += kBlock - 1;
        continue;
      }
    }
    for (uint64_t x = bits[w]; x && n <= max_ids; x &= x - 1) {
      id_buf_[n++] = static_cast<int32_t>(w * 64 + __builtin_ctzll(x));
    }
  }
  const bool dense = n > max_ids;
  const size_t stored_words = dense ? words : (n + 1) / 2;
  if (cache_bytes_ + stored_words * 8 > kCacheBudgetBytes) drop_masks();
  uint64_t* at = arena_alloc(stored_words);
  if (dense) {
    std::memcpy(at, bits, words * 8);
  } else {
    std::memcpy(at, id_buf_.data(), n * 4);
  }
  cache_bytes_ += stored_words * 8 + sizeof(Cached);
  if (cache_slot_.size() <= state) cache_slot_.resize(state + 1, -1);
  cache_slot_[state] = static_cast<int32_t>(cache_.size());
  const auto exit_begin = static_cast<uint32_t>(exit_pool_.size());
  if (exits != nullptr) exit_pool_.insert(exit_pool_.end(), exits->begin(), exits->end());
  cache_.push_back(Cached{at, dense ? 0u : static_cast<uint32_t>(n), dense, exits != nullptr, exit_begin,
                          static_cast<uint32_t>(exit_pool_.size() - exit_begin), suffixes, walkable});
}

uint64_t* MaskEngine::arena_alloc(size_t words) {
  if (words > arena_left_) {
    // A few masks a block: small enough for malloc to serve from its free lists (fresh pages
    // would fault in on every block), uninitialised.
    const size_t block = std::max(words, vocab_->n_words() * kArenaBlockMasks);
    arena_.push_back(std::unique_ptr<uint64_t[]>(new uint64_t[block]));
    arena_free_ = arena_.back().get();
    arena_left_ = block;
  }
  uint64_t* at = arena_free_;
  arena_free_ += words;
  arena_left_ -= words;
  return at;
}

void MaskEngine::drop_masks() {
  cache_slot_.clear();
  position_returns_.clear();
  cache_.clear();
  exit_pool_.clear();
  suffixes_.clear();
  suffix_nodes_.clear();
  suffix_tokens_.clear();
  suffix_partials_.clear();
  suffix_exits_.clear();
  suffix_index_.clear();
  truncated_masks_ = false;
  cache_bytes_ = 0;
  arena_.clear();
  arena_free_ = nullptr;
  arena_left_ = 0;
}

bool MaskEngine::or_cached(uint32_t state, uint64_t* out) {
  const Cached* hit = cached(state);
  if (hit == nullptr) return false;
  stats_.masks++;
  stats_.cache_hits++;
  const Cached& c = *hit;
  note_exits(c);
  if (c.dense) {
    for (size_t w = 0, words = vocab_->n_words(); w < words; w++) out[w] |= c.data[w];
  } else {
    const auto* ids = reinterpret_cast<const int32_t*>(c.data);
    for (uint32_t i = 0; i < c.n; i++) set_bit(out, ids[i]);
  }
  return true;
}

}  // namespace toolwright::grammar
