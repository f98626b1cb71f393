// Our own GBNF engine (native/grammar) as an engine of the Sampler's grammar slot.
#pragma once

#include <cstdint>
#include <string>

#include "grammar_slot.h"
#include "llama.h"

namespace toolwright {

// Grammar-slot factory for engine "toolwright": compiles the GBNF with our engine and wraps it
// as a llama_sampler. Returns nullptr with *error set (line, column, rule) on a bad grammar.
llama_sampler* CreateToolwrightGrammar(const llama_vocab* vocab, const GrammarSpec& spec, std::string* error);

// Checks a grammar before any engine compiles it (both engines; see docs in grammar_slot.h):
// the trigger patterns' size, then, with our engine's parser and checker, the syntax (groups
// nested at most 500 deep), and for llama.cpp's engine also what it cannot survive or finish:
// repetitions with max below min and left recursion (it loops forever), chains of rules
// referenced at the start of one another deeper than 2,000 (its recursion overflows the stack),
// more than 50,000 alternatives or 4,096 items in one character class (minutes to compile or to
// sample). Returns false with *error set (line, column, rule, and the bound) when it fails.
bool PreflightGrammar(const llama_vocab* vocab, const GrammarSpec& spec, const std::string& engine,
                      std::string* error);

// The allowed-token bitset of an active grammar of ours (see grammar::active_mask), else nullptr
// (llama.cpp's engine, a lazy grammar not triggered yet, or the engine not built in).
const uint64_t* ToolwrightGrammarMask(llama_sampler* grammar);

// The engine keeps its view of a model's vocabulary for the model's lifetime: call this before
// the model is freed. A no-op when the engine is not built in.
void ForgetToolwrightGrammarVocab(const llama_vocab* vocab);

// The engine's cache of compiled grammars (native/grammar/grammar_cache.h): counts, clearing, and
// its byte budget (0 turns it off). Zeros and no-ops when the engine is not built in.
struct ToolwrightGrammarCacheStats {
  uint64_t hits = 0, misses = 0, evictions = 0, warm_engines = 0;
  uint64_t entries = 0, bytes = 0, max_bytes = 0;
};
ToolwrightGrammarCacheStats GetToolwrightGrammarCacheStats();
void ClearToolwrightGrammarCache();
void SetToolwrightGrammarCacheLimit(uint64_t max_bytes);

}  // namespace toolwright
