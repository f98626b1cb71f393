// libFuzzer target: our grammar engine (native/grammar/: automaton, masks, slices, matcher, lazy
// triggers) on a small synthetic vocabulary. The input is a GBNF grammar, a NUL, then bytes that
// drive a matcher: fill masks, accept tokens and raw text, roll back, reset, copy. Besides crashes,
// a finding is any broken invariant of the engine's contract:
//  - the fast mask and the exact per-token check (token_allowed) agree on every token;
//  - a token the mask of an active matcher allows is accepted; a refused one leaves the state unchanged;
//  - the end-of-generation token is allowed exactly when the matcher may end (is_accepting);
//  - a copied matcher gives the same mask.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "grammar.h"
#include "matcher.h"
#include "vocab.h"

namespace tg = toolwright::grammar;

namespace {

constexpr int32_t kEog = 0;
constexpr size_t kMaxOps = 200;

// Pieces as a model's vocabulary holds them: words, JSON punctuation, markers, multi-byte UTF-8
// characters and their fragments, invalid bytes, texts with a NUL, and every printable ASCII char.
std::vector<std::string> Pieces() {
  std::vector<std::string> p = {"</s>",
                                "ab",
                                "abc",
                                "true",
                                "false",
                                "null",
                                "\\u",
                                "<think>",
                                "</think>",
                                "<tool>",
                                "\xC3\xA9",
                                "\xE6\x97\xA5\xE6\x9C\xAC",
                                "\xF0\x9F\x98\x80",
                                "\xC3",
                                "\xA9",
                                "\xF0\x9F",
                                "\x98\x80",
                                "\xE2\x80",
                                "\x9C",
                                "\x80",
                                "\xFF",
                                "",
                                std::string("\0a", 2),
                                std::string("a\0b", 3),
                                "  ",
                                "\n\n",
                                "abcdefgh",
                                "::=",
                                "\xC0\xAF",
                                "\xED\xA0\x80",
                                "\xF4\x90\x80\x80"};
  for (char c = 0x20; c < 0x7F; c++) p.emplace_back(1, c);
  p.emplace_back("\n");
  p.emplace_back("\t");
  return p;
}

const std::shared_ptr<const tg::Vocab>& TheVocab() {
  static const std::shared_ptr<const tg::Vocab> vocab = tg::Vocab::build(Pieces(), {kEog});
  return vocab;
}

std::optional<int32_t> ResolveToken(std::string_view text) {
  if (text == "<think>") return 7;
  if (text == "</think>") return 8;
  if (text == "<tool>") return 9;
  return std::nullopt;
}

[[noreturn]] void Broken(const char* what, int32_t token) {
  std::fprintf(stderr, "grammar engine invariant broken: %s (token %d)\n", what, token);
  std::abort();
}

bool Bit(const std::vector<uint64_t>& mask, int32_t id) { return (mask[id / 64] >> (id % 64)) & 1; }

// Reads the driver bytes one at a time (0 once they run out).
struct Bytes {
  const uint8_t* p;
  size_t n;
  size_t i = 0;
  bool more() const { return i < n; }
  uint8_t next() { return i < n ? p[i++] : 0; }
};

// Fills the mask and checks it against the exact per-token check and is_accepting().
std::vector<uint64_t> CheckedMask(tg::Matcher& m) {
  std::vector<uint64_t> mask(m.mask_words());
  m.fill_mask(mask.data());
  const int32_t n = static_cast<int32_t>(m.vocab().size());
  for (int32_t id = 0; id < n; id++) {
    if (Bit(mask, id) != m.token_allowed(id)) Broken("mask and token_allowed disagree", id);
  }
  if (m.is_active() && Bit(mask, kEog) != m.is_accepting()) Broken("EOG bit differs from is_accepting", kEog);
  return mask;
}

void Drive(tg::Matcher& m, Bytes& in) {
  const int32_t n = static_cast<int32_t>(m.vocab().size());
  for (size_t op = 0; op < kMaxOps && in.more(); op++) {
    switch (in.next() % 7) {
      case 0: {  // take an allowed token: it must be accepted
        const std::vector<uint64_t> mask = CheckedMask(m);
        std::vector<int32_t> allowed;
        for (int32_t id = 0; id < n; id++)
          if (Bit(mask, id)) allowed.push_back(id);
        if (allowed.empty()) break;
        const int32_t t = allowed[in.next() % allowed.size()];
        if (t == kEog) break;  // generation would end here
        // Before its trigger a lazy grammar masks nothing (as llama.cpp's), so the trigger text
        // it then feeds may be refused; once active, the mask is exact.
        const bool active = m.is_active();
        if (!m.accept(t) && active) Broken("an allowed token was refused", t);
        break;
      }
      case 1: {  // any token: a refused one leaves the mask as it was
        const int32_t t = in.next() % n;
        const std::vector<uint64_t> before = CheckedMask(m);
        if (!m.accept(t)) {
          std::vector<uint64_t> after(m.mask_words());
          m.fill_mask(after.data());
          if (after != before) Broken("a refused token changed the state", t);
        }
        break;
      }
      case 2:
        m.rollback(in.next() % 4);
        break;
      case 3: {  // raw text from the input
        const size_t len = in.next() % 8;
        std::string text;
        for (size_t k = 0; k < len && in.more(); k++) text.push_back(static_cast<char>(in.next()));
        m.accept_bytes(text);
        break;
      }
      case 4:
        if (in.next() % 8 == 0) m.reset();
        break;
      case 5: {
        tg::Matcher copy(m);
        std::vector<uint64_t> a(m.mask_words()), b(m.mask_words());
        m.fill_mask(a.data());
        copy.fill_mask(b.data());
        if (a != b) Broken("a copied matcher masks differently", -1);
        break;
      }
      default:
        CheckedMask(m);
        break;
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const uint8_t* nul = static_cast<const uint8_t*>(std::memchr(data, 0, size));
  const size_t gbnf_len = nul ? static_cast<size_t>(nul - data) : size;
  tg::CompileOptions options;
  options.resolve_token = ResolveToken;
  tg::GrammarError err;
  auto grammar = tg::Grammar::compile(std::string_view(reinterpret_cast<const char*>(data), gbnf_len), "root",
                                      options, err);
  if (!grammar) return 0;
  Bytes in{data + gbnf_len + (nul ? 1 : 0), nul ? size - gbnf_len - 1 : 0};
  tg::LazyOptions lazy;
  if (in.next() % 4 == 1) {
    lazy.lazy = true;
    lazy.trigger_words = {"<tool>"};
    lazy.trigger_tokens = {9};
    lazy.reasoning_end = "</think>";
  }
  tg::Matcher m(grammar, TheVocab(), lazy);
  CheckedMask(m);
  Drive(m, in);
  return 0;
}
