#include "fast_forward.h"

#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE

#include <algorithm>
#include <string>

#include "forced.h"
#include "llama_adapter.h"
#include "matcher.h"

namespace toolwright {

namespace {
// Enough for a call's markers, a tool's name and a key; the rest is found after the next token.
constexpr size_t kMaxForcedBytes = 256;

std::vector<llama_token> Tokenize(const llama_vocab* vocab, const std::string& text, bool special) {
  std::vector<llama_token> tokens(text.size() + 2);
  const int32_t n = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(),
                                   static_cast<int32_t>(tokens.size()), false, special);
  tokens.resize(static_cast<size_t>(std::max(0, n)));
  return tokens;
}

std::string Spell(const grammar::Vocab& v, const std::vector<llama_token>& tokens, size_t from = 0) {
  std::string out;
  for (size_t i = from; i < tokens.size(); i++) out += v.piece(tokens[i]);
  return out;
}

// Text in the middle of an output, tokenized as the tokenizer would go on with it: a tokenizer that
// puts a space before raw text (SentencePiece's space prefix, also after each special token) gets it
// after a newline it cannot merge with, and the tokens spelling that prefix are dropped.
bool TokenizeRaw(const llama_vocab* vocab, const grammar::Vocab& v, const std::string& text,
                 std::vector<llama_token>* out) {
  std::vector<llama_token> tokens = Tokenize(vocab, text, false);
  if (Spell(v, tokens) == text) {
    out->insert(out->end(), tokens.begin(), tokens.end());
    return true;
  }
  tokens = Tokenize(vocab, "\n" + text, false);
  std::string prefix;
  for (size_t k = 0; k < tokens.size() && prefix.size() <= 2; k++) {
    prefix += v.piece(tokens[k]);
    if (prefix.size() >= 1 && prefix.back() == '\n' && Spell(v, tokens, k + 1) == text) {
      out->insert(out->end(), tokens.begin() + static_cast<std::ptrdiff_t>(k + 1), tokens.end());
      return true;
    }
  }
  return false;
}

// The canonical tokens of `text`, special tokens parsed, spelling it exactly; false when they cannot.
bool CanonicalTokens(const llama_vocab* vocab, const grammar::Vocab& v, const std::string& text,
                     std::vector<llama_token>* out) {
  const std::vector<llama_token> tokens = Tokenize(vocab, text, true);
  if (tokens.empty()) return false;
  if (Spell(v, tokens) == text) {
    *out = tokens;
    return true;
  }
  // Raw text between special tokens, each piece tokenized apart.
  size_t at = 0;
  for (llama_token t : tokens) {
    if ((llama_vocab_get_attr(vocab, t) & (LLAMA_TOKEN_ATTR_CONTROL | LLAMA_TOKEN_ATTR_USER_DEFINED)) == 0)
      continue;
    const std::string& piece = v.piece(t);
    const size_t found = text.find(piece, at);
    if (piece.empty() || found == std::string::npos) return false;
    if (found > at && !TokenizeRaw(vocab, v, text.substr(at, found - at), out)) return false;
    out->push_back(t);
    at = found + piece.size();
  }
  return at == text.size() || TokenizeRaw(vocab, v, text.substr(at), out);
}
}  // namespace

std::vector<llama_token> ForcedTokens(llama_sampler* grammar, const llama_vocab* vocab, size_t max_tokens) {
  grammar::Matcher* matcher = grammar::active_matcher(grammar);
  if (matcher == nullptr || max_tokens == 0) return {};
  const std::string text = matcher->forced_text(kMaxForcedBytes);
  if (text.empty()) return {};
  std::vector<llama_token> tokens;
  if (!CanonicalTokens(vocab, matcher->vocab(), text, &tokens)) return {};
  const size_t safe = std::min(grammar::safe_forced_tokens(matcher->vocab(), tokens), max_tokens);
  size_t accepted = 0;
  while (accepted < safe && matcher->accept(tokens[accepted])) accepted++;
  matcher->rollback(accepted);
  tokens.resize(accepted);
  return tokens;
}

}  // namespace toolwright

#else

namespace toolwright {
std::vector<llama_token> ForcedTokens(llama_sampler*, const llama_vocab*, size_t) { return {}; }
}  // namespace toolwright

#endif  // TOOLWRIGHT_HAS_GRAMMAR_ENGINE
