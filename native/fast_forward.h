// Fast-forward of forced text: where the grammar admits one continuation only, its tokens are appended
// without sampling and decoded together in one batch (as SGLang's jump-forward and LLGuidance's
// fast-forward tokens do). The scheduler's side is in batch_forced.cc.
#pragma once

#include <cstddef>
#include <vector>

#include "llama.h"

namespace toolwright {

// The tokens to append without sampling after what `grammar` has accepted so far, at most
// `max_tokens`: the tokenizer's canonical tokens of the text the grammar forces, cut before the
// first token boundary where a vocabulary token could run past the forced text's end (the model
// might write it instead), each one checked against the grammar. Empty for llama.cpp's engine, a
// lazy grammar not triggered yet, or no forced text. The grammar is left where it was.
std::vector<llama_token> ForcedTokens(llama_sampler* grammar, const llama_vocab* vocab, size_t max_tokens);

}  // namespace toolwright
