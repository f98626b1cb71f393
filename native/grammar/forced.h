// Fast-forward support: the text a grammar forces next, and how much of its canonical tokens can be
// appended without sampling while staying what the model itself would most likely have written.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "vocab.h"

namespace toolwright::grammar {

// How many of `tokens` (the canonical tokenization of a forced text) to force. A token boundary is unsafe
// when some vocabulary token starts there and runs past the end of `text`: the model could write that token
// instead, crossing the forced text's end, so the run stops before the first unsafe boundary (the rest is
// sampled normally).
size_t safe_forced_tokens(const Vocab& vocab, const std::vector<int32_t>& tokens);

}  // namespace toolwright::grammar
