// toolwright's GBNF engine: the public surface, in one include.
//
// Same language and same masks as llama.cpp's grammar sampler (a differential test checks them
// bit for bit), computed from a prefix tree of the vocabulary with cached class slices.
//
//   #include "toolwright_grammar.h"
//   using namespace toolwright::grammar;
//
//   // Once per model (cached per llama_vocab, shared by every grammar on it):
//   std::shared_ptr<const Vocab> vocab = vocab_from_llama(llama_vocab_ptr);
//
//   // Once per grammar (immutable, shareable):
//   CompileOptions opts;
//   opts.resolve_token = llama_token_resolver(llama_vocab_ptr);  // for <think>-style tokens
//   GrammarError err;
//   auto grammar = Grammar::compile(gbnf_text, "root", opts, err);
//   if (!grammar) fprintf(stderr, "%s\n", err.to_string().c_str());  // "line 3, column 7: ..."
//
//   // Once per generation (not thread-safe):
//   Matcher m(grammar, vocab);                      // or Matcher(grammar, vocab, LazyOptions{...})
//   std::vector<uint64_t> mask(m.mask_words());
//   m.fill_mask(mask.data());                       // bit id set = token id allowed
//   m.accept(token);                                // false: the grammar cannot take it
//   m.rollback(n);  m.is_accepting();  m.reset();
//
//   // Or as a llama_sampler for a sampler chain (compiled grammars and warm engines are reused
//   // across calls with the same spec and vocabulary: grammar_cache.h):
//   SamplerSpec spec{gbnf_text, "root", LazyOptions{}};
//   std::string why;
//   llama_sampler * s = make_llama_sampler(llama_vocab_ptr, spec, &why);
#pragma once

#include "grammar.h"        // Grammar, CompileOptions, GrammarError (gbnf_parser.h: TokenResolver)
#include "grammar_cache.h"  // GrammarCache (what make_llama_sampler reuses), EnginePool
#include "llama_adapter.h"  // vocab_from_llama, llama_token_resolver, SamplerSpec, make_llama_sampler
#include "matcher.h"        // Matcher
#include "trigger.h"        // LazyOptions
#include "vocab.h"          // Vocab
