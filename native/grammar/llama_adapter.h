// Glue between the engine and llama.cpp: the vocabulary read from a llama_vocab (built once per
// model and shared), `<text>` token references resolved with llama's tokenizer, and the
// engine wrapped as a llama_sampler (apply masks the candidates, accept advances) so it drops
// into a sampler chain where llama_sampler_init_grammar would go.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "grammar.h"
#include "llama.h"
#include "trigger.h"
#include "vocab.h"

namespace toolwright::grammar {

// The engine's view of a llama vocabulary; cached until forget_llama_vocab, so every grammar on
// the same model shares one prefix tree, request after request (building it takes ~130 ms on a
// 152k vocabulary). Thread-safe.
std::shared_ptr<const Vocab> vocab_from_llama(const llama_vocab* vocab);

// When `smpl` is one of ours and its grammar is active: fills its mask of allowed tokens and
// returns it (one bit per token id, n_words() words), else nullptr (another engine, or a lazy
// grammar still waiting for its trigger: nothing is masked).
const uint64_t* active_mask(llama_sampler* smpl);

// When `smpl` is one of ours: waits for its engine's warm-up (engine_pool.h) to finish and says
// whether it had one. For tests and benches (a prompt decoded for longer than the warm-up takes).
bool await_warmup(llama_sampler* smpl);
// When `smpl` is one of ours: the masks its engine served from its cache so far, else 0.
uint64_t mask_cache_hits(llama_sampler* smpl);
// The matcher of `smpl` when it is one of ours and its grammar is active, else nullptr (fast-forward
// reads the text it forces).
class Matcher;
Matcher* active_matcher(llama_sampler* smpl);

// Drops the cached view of `vocab` and its compiled grammars (grammar_cache.h) (its model is
// being freed); grammars still running keep theirs.
void forget_llama_vocab(const llama_vocab* vocab);

// Resolves "<text>" to its single token with llama's tokenizer (special tokens parsed).
TokenResolver llama_token_resolver(const llama_vocab* vocab);

struct SamplerSpec {
  std::string gbnf;
  std::string root = "root";
  LazyOptions lazy;
};

// A llama_sampler running our engine, or nullptr with *error set (grammar error with line,
// column and rule; or a malformed trigger pattern). The compiled grammar and warm engines come
// from GrammarCache::global() when the same spec was compiled for this vocabulary before. The sampler's
// accept throws std::runtime_error for a token the grammar cannot take, as llama.cpp's grammar sampler does.
llama_sampler* make_llama_sampler(const llama_vocab* vocab, const SamplerSpec& spec, std::string* error);

}  // namespace toolwright::grammar
