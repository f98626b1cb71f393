#pragma once

#include <vector>

#include "common.h"

namespace toolwright::grammar::tool {

struct CompileBenchOptions {
  std::string root = "root";
  int runs = 1;  // cold compiles per grammar; the median is kept (damps a loaded machine's noise)
};

// The cold-compile distribution alone (no masks): every grammar parsed, compiled and given a
// matcher, as bench times it, wall and thread CPU time. Prints one JSON object; returns 0.
int run_compile_bench(const LoadedVocab& vocab, const std::vector<GrammarCase>& cases,
                      const CompileBenchOptions& options);

// The tool's `compile` mode: compile --vocab V.gguf [--runs N] [--root NAME] PATH...
int compile_main(int argc, char** argv);

}  // namespace toolwright::grammar::tool
