// Our own GBNF engine (native/grammar) as an engine of the Sampler's grammar slot.
#pragma once

#include <string>

#include "grammar_slot.h"
#include "llama.h"

namespace toolwright {

// Grammar-slot factory for engine "toolwright": compiles the GBNF with our engine and wraps it
// as a llama_sampler. Returns nullptr with *error set (line, column, rule) on a bad grammar.
llama_sampler* CreateToolwrightGrammar(const llama_vocab* vocab, const GrammarSpec& spec, std::string* error);

}  // namespace toolwright
