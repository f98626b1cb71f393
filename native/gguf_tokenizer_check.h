// Pre-load checks of a GGUF's tokenizer keys (tokenizer.ggml.*).
//
// llama.cpp accepts some tokenizer metadata at load that later aborts the process (a model with
// tokenizer.ggml.model "none" loads, then its first tokenize() hits an assert) or that it reads as
// garbage without a word (a token type outside the enum, a byte token whose text is no byte, a merge
// without its two pieces). These checks refuse such files first, naming the key and the value.
#pragma once

#include <string>
#include <string_view>

#include "gguf.h"

namespace toolwright {

// Returns false and sets *reason when a tokenizer key holds what llama.cpp cannot tokenize with.
// A key that is absent or of the wrong GGUF type passes: llama.cpp's load reports those itself.
bool CheckTokenizerKeys(const gguf_context* ctx, std::string* reason);

// `text` quoted for an error message: its first 40 bytes, control bytes, quotes and backslashes as \xHH.
std::string QuotedText(std::string_view text);

}  // namespace toolwright
