#pragma once

#include <string>
#include <vector>

#include "common.h"

namespace toolwright::grammar::tool {

struct DiffOptions {
  int walks = 4;       // random walks per grammar (after its texts)
  int max_steps = 48;  // tokens per random walk
  uint64_t seed = 1;
  double max_seconds = 0;  // stop starting new grammars after this long (0: no limit)
  std::string root = "root";
  bool verbose = false;
  bool await_warmup = false;  // ours waits for its engine's warm-up before the first mask
  int branch_walks = 0;       // per text: walks that follow it for a random number of tokens, then go random
  int rollbacks = 2;
  bool special_texts = false;  // tokenize texts with special tokens parsed (a model's real output)  // per
                               // walk: undo a random number of tokens and re-check the mask
  // Both engines lazy, with these triggers (llama: llama_sampler_init_grammar_lazy_patterns).
  std::vector<std::string> trigger_patterns;
  std::vector<int32_t> trigger_tokens;
};

// Prints one JSON summary line; returns 0 when every mask matched.
int run_diff(const LoadedVocab& vocab, const std::vector<GrammarCase>& cases, const DiffOptions& options);

}  // namespace toolwright::grammar::tool
