// Tokenizer operations on a llama_vocab, free of N-API so that both the main thread (short
// inputs) and workers (long inputs) use the same code. Callers validate token ids first.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "llama.h"

namespace toolwright {

// Returns false and sets *error when llama_tokenize fails.
bool TokenizeText(const llama_vocab* vocab, const std::string& text, bool add_special, bool parse_special,
                  std::vector<llama_token>* out, std::string* error);

// Returns false and sets *error when llama_detokenize fails.
bool DetokenizeTokens(const llama_vocab* vocab, const std::vector<llama_token>& tokens, bool remove_special,
                      bool unparse_special, std::string* out, std::string* error);

// The bytes a token stands for (special tokens rendered as their text).
std::string TokenPiece(const llama_vocab* vocab, llama_token token);

}  // namespace toolwright
