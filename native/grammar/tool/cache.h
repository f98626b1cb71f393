#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common.h"

namespace toolwright::grammar::tool {

struct CacheOptions {
  std::string root = "root";
  int walk_steps = 32;  // random-walk length for grammars that come without texts
  uint64_t seed = 1;
  int threads = 0;         // also replay every sequence on this many threads at once, from the cache
                           // (and a copy of the grammar with a comment added: a new entry per thread)
  int64_t max_bytes = -1;  // the cache's budget for this run (-1: leave it); small ones evict mid-run
  // A cold sampler waits for its engine's warm-up before its first mask (as a generation's first
  // mask comes after its prompt is decoded); counts the first masks the warm-up had cached.
  bool await_warmup = false;
};

// Compiled-grammar cache (grammar_cache.h) through make_llama_sampler: per grammar, a cold
// sampler (cache cleared first), then a warm one (cache hit, warm engine) over the same token
// sequence, and optionally many at once on threads. Masks must be identical at every step.
// Prints one JSON object (compile and first-mask times cold and warm, cache counters, bytes of
// one entry with its warm engine, the slowest cold compiles, mask mismatches, cold first masks
// active and served from the warm-up's cache); returns 0 unless
// masks differed.
int run_cache(const LoadedVocab& vocab, const std::vector<GrammarCase>& cases, const CacheOptions& options);

}  // namespace toolwright::grammar::tool
