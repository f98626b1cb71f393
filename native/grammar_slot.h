// Grammar engines for the Sampler's grammar slot.
//
// The slot holds any llama_sampler that masks tokens a grammar forbids and advances on accept.
// Engines are looked up by name: "llama" is llama.cpp's own GBNF sampler (the reference);
// our GBNF engine (native/grammar) registers itself as another engine, implemented as a
// custom llama_sampler, and plugs in without changes to Sampler or Context.
#pragma once

#include <string>
#include <vector>

#include "llama.h"

namespace toolwright {

struct GrammarSpec {
  // Empty: the default engine ("toolwright" when our engine is built in, else "llama").
  std::string engine;
  std::string gbnf;
  std::string root = "root";
  // Lazy grammars stay inactive until a trigger appears in the output.
  bool lazy = false;
  std::vector<std::string> trigger_patterns;
  std::vector<llama_token> trigger_tokens;
};

// Creates the grammar sampler, or returns nullptr and sets *error (the engine's reason).
using GrammarEngineFactory = llama_sampler* (*)(const llama_vocab* vocab, const GrammarSpec& spec,
                                                std::string* error);

// Registers (or replaces) an engine. Call during addon initialisation.
void RegisterGrammarEngine(const std::string& name, GrammarEngineFactory factory);

// Names of the registered engines, for error messages and feature detection.
std::vector<std::string> GrammarEngineNames();

llama_sampler* CreateGrammarSampler(const llama_vocab* vocab, const GrammarSpec& spec, std::string* error);

}  // namespace toolwright
