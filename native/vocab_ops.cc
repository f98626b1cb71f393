#include "vocab_ops.h"

#include <climits>
#include <exception>
#include <stdexcept>

namespace toolwright {

namespace {

// llama.cpp's tokenizer looks tokens up with std::map::at and friends: a vocabulary that lacks
// what it needs throws out of it (std::out_of_range), which must become an error, not terminate.
template <typename F>
bool Guarded(const char* what, std::string* error, F&& f) {
  try {
    return f();
  } catch (const std::out_of_range& e) {
    *error = std::string(what) + ": the vocabulary lacks a token the tokenizer needs (" + e.what() + ")";
  } catch (const std::exception& e) {
    *error = std::string(what) + " failed inside llama.cpp: " + e.what();
  } catch (...) {
    *error = std::string(what) + " failed inside llama.cpp (unknown C++ exception)";
  }
  return false;
}

bool TokenizeUnguarded(const llama_vocab* vocab, const std::string& text, bool add_special,
                       bool parse_special, std::vector<llama_token>* out, std::string* error) {
  if (text.size() >= static_cast<size_t>(INT32_MAX)) {
    *error = "text is too long to tokenize (" + std::to_string(text.size()) + " bytes)";
    return false;
  }
  // A token covers at least one byte, plus room for BOS/EOS.
  out->resize(text.size() + 4);
  int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), out->data(),
                             static_cast<int32_t>(out->size()), add_special, parse_special);
  if (n < 0 && n != INT32_MIN) {
    out->resize(static_cast<size_t>(-static_cast<int64_t>(n)));
    n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), out->data(),
                       static_cast<int32_t>(out->size()), add_special, parse_special);
  }
  if (n < 0) {
    *error = "llama_tokenize failed (returned " + std::to_string(n) + ")";
    out->clear();
    return false;
  }
  out->resize(static_cast<size_t>(n));
  // Some tokenizers (RWKV's on a vocabulary not made for it) emit LLAMA_TOKEN_NULL for text they
  // cannot encode: an id no context can decode.
  const int32_t n_vocab = llama_vocab_n_tokens(vocab);
  for (size_t i = 0; i < out->size(); i++) {
    const llama_token t = (*out)[i];
    if (t < 0 || t >= n_vocab) {
      *error = "the vocabulary cannot encode this text (the tokenizer produced token id " +
               std::to_string(t) + " at position " + std::to_string(i) + ", outside [0, " +
               std::to_string(n_vocab) + "))";
      out->clear();
      return false;
    }
  }
  return true;
}

bool DetokenizeUnguarded(const llama_vocab* vocab, const std::vector<llama_token>& tokens,
                         bool remove_special, bool unparse_special, std::string* out, std::string* error) {
  if (tokens.size() >= static_cast<size_t>(INT32_MAX)) {
    *error = "too many tokens to detokenize";
    return false;
  }
  const int32_t n_tokens = static_cast<int32_t>(tokens.size());
  out->resize(tokens.size() * 8 + 16);
  int32_t n = llama_detokenize(vocab, tokens.data(), n_tokens, out->data(), static_cast<int32_t>(out->size()),
                               remove_special, unparse_special);
  if (n < 0 && n != INT32_MIN) {
    out->resize(static_cast<size_t>(-static_cast<int64_t>(n)));
    n = llama_detokenize(vocab, tokens.data(), n_tokens, out->data(), static_cast<int32_t>(out->size()),
                         remove_special, unparse_special);
  }
  if (n < 0) {
    *error = "llama_detokenize failed (returned " + std::to_string(n) + ")";
    out->clear();
    return false;
  }
  out->resize(static_cast<size_t>(n));
  return true;
}

}  // namespace

bool TokenizeText(const llama_vocab* vocab, const std::string& text, bool add_special, bool parse_special,
                  std::vector<llama_token>* out, std::string* error) {
  const bool ok = Guarded("tokenize", error, [&] {
    return TokenizeUnguarded(vocab, text, add_special, parse_special, out, error);
  });
  if (!ok) out->clear();
  return ok;
}

bool DetokenizeTokens(const llama_vocab* vocab, const std::vector<llama_token>& tokens, bool remove_special,
                      bool unparse_special, std::string* out, std::string* error) {
  const bool ok = Guarded("detokenize", error, [&] {
    return DetokenizeUnguarded(vocab, tokens, remove_special, unparse_special, out, error);
  });
  if (!ok) out->clear();
  return ok;
}

std::string TokenPiece(const llama_vocab* vocab, llama_token token) {
  char small[64];
  int32_t n = llama_token_to_piece(vocab, token, small, sizeof(small), 0, true);
  if (n >= 0) return std::string(small, static_cast<size_t>(n));
  std::string piece(static_cast<size_t>(-static_cast<int64_t>(n)), '\0');
  n = llama_token_to_piece(vocab, token, piece.data(), static_cast<int32_t>(piece.size()), 0, true);
  piece.resize(n < 0 ? 0 : static_cast<size_t>(n));
  return piece;
}

}  // namespace toolwright
