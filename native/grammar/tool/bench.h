#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace toolwright::grammar::tool {

struct BenchOptions {
  std::string root = "root";
  int walk_steps = 32;     // random-walk length for grammars that come without texts
  int texts_per_case = 1;  // valid texts used per grammar
  uint64_t seed = 1;
  bool reference = true;   // also time llama.cpp's sampler
  double max_seconds = 0;  // stop starting new grammars after this long (0: no limit)
  // Wait for the matcher's warm-up (its first masks, computed off the compiling thread) before its
  // first mask, as a generation's first mask comes after its prompt is decoded; timed apart.
  bool await_warmup = true;
};

// Times masks, accepts and compiles for both engines over the same token sequences; prints one
// JSON object. Returns 0 unless masks differed.
int run_bench(const LoadedVocab& vocab, const std::string& vocab_name, const std::vector<GrammarCase>& cases,
              const BenchOptions& options);

}  // namespace toolwright::grammar::tool
