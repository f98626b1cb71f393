// Glue between the engine and llama.cpp: the vocabulary read from a llama_vocab (built once per
// model and shared), `<text>` token references resolved with llama's tokenizer, and the
// engine wrapped as a llama_sampler (apply masks the candidates, accept advances) so it drops
// into a sampler chain where llama_sampler_init_grammar would go.
#pragma once

#include <memory>
#include <string>

#include "grammar.h"
#include "llama.h"
#include "trigger.h"
#include "vocab.h"

namespace toolwright::grammar {

// The engine's view of a llama vocabulary; cached, so every grammar on the same model shares
// one prefix tree. Thread-safe.
std::shared_ptr<const Vocab> vocab_from_llama(const llama_vocab * vocab);

// Resolves "<text>" to its single token with llama's tokenizer (special tokens parsed).
TokenResolver llama_token_resolver(const llama_vocab * vocab);

struct SamplerSpec {
  std::string gbnf;
  std::string root = "root";
  LazyOptions lazy;
};

// A llama_sampler running our engine, or nullptr with *error set (grammar error with line,
// column and rule; or a malformed trigger pattern). The sampler's accept throws
// std::runtime_error for a token the grammar cannot take, as llama.cpp's grammar sampler does.
llama_sampler * make_llama_sampler(const llama_vocab * vocab, const SamplerSpec & spec, std::string * error);

}  // namespace toolwright::grammar
