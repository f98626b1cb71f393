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

// The allowed-token bitset of an active grammar of ours (see grammar::active_mask), else nullptr
// (llama.cpp's engine, a lazy grammar not triggered yet, or the engine not built in).
const uint64_t* ToolwrightGrammarMask(llama_sampler* grammar);

// The engine keeps its view of a model's vocabulary for the model's lifetime: call this before
// the model is freed. A no-op when the engine is not built in.
void ForgetToolwrightGrammarVocab(const llama_vocab* vocab);

}  // namespace toolwright
