// Decoding of token text into code points, with a UTF-8 sequence that may be split across
// tokens. Follows llama.cpp's grammar decoder (same partial state, same stop at a NUL byte) but
// accepts only well-formed UTF-8: every byte after a lead byte must be a continuation byte, and a
// sequence is refused at the first byte that makes it overlong, a surrogate or above U+10FFFF.
// llama.cpp's decoder lets such sequences through (inside one token it does not even check the
// continuation bytes), so a string limited to 3 characters could take "\xF0\x80\x80\x80" as
// one, and the text the grammar accepted would not decode. Where llama.cpp accepts well-formed
// text, so does this decoder; the differential tool checks the two agree on every such token.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace toolwright::grammar {

struct PartialUtf8 {
  uint32_t value = 0;  // bits decoded so far
  int n_remain = 0;    // continuation bytes still missing; -1 marks an invalid sequence

  bool pending() const { return n_remain > 0; }
  bool operator==(const PartialUtf8& o) const { return value == o.value && n_remain == o.n_remain; }
};

// Whether a sequence of `len` bytes, `n_remain` of them still to come, whose bytes so far carry
// `value`, can still end as a well-formed code point (not overlong, not a surrogate, at most
// U+10FFFF): the code points it may still become, [lo, hi], must meet the ones valid for `len`.
inline bool utf8_prefix_ok(uint32_t value, int n_remain, int len) {
  static const uint32_t kMin[5] = {0, 0, 0x80, 0x800, 0x10000};
  static const uint32_t kMax[5] = {0, 0x7F, 0x7FF, 0xFFFF, 0x10FFFF};
  const int shift = 6 * n_remain;
  if (value > (0x10FFFFu >> shift)) return false;
  const uint32_t lo = value << shift;
  const uint32_t hi = lo | ((1u << shift) - 1);
  if (hi < kMin[len] || lo > kMax[len]) return false;
  return !(lo >= 0xD800 && hi <= 0xDFFF);
}

// The length of the sequence a pending partial state belongs to. Only well-formed prefixes are
// ever kept, so the value tells: a 4-byte sequence's first two bytes carry at least 0x10 (F0 90),
// its first three at least 0x400; a 3-byte one's first two at least 0x20 (E0 A0).
inline int utf8_pending_length(uint32_t value, int n_remain) {
  if (n_remain >= 3) return 4;
  if (n_remain == 2) return value >= 0x10 ? 4 : 3;
  return value >= 0x400 ? 4 : value >= 0x20 ? 3 : 2;
}

// Decodes `text` (up to its first NUL) continuing from `start`. Complete code points are
// appended to `out` (cleared first). An invalid sequence clears `out` and returns {0, -1}.
inline PartialUtf8 decode_utf8(std::string_view text, PartialUtf8 start, std::vector<uint32_t>& out) {
  static const int kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4};
  out.clear();
  size_t i = 0;
  const size_t n = text.size();
  auto at_end = [&] { return i >= n || text[i] == '\0'; };
  uint32_t value = start.value;
  int n_remain = start.n_remain;
  const int pending_len = n_remain > 0 ? utf8_pending_length(value, n_remain) : 0;
  while (!at_end() && n_remain > 0) {
    const auto b = static_cast<uint8_t>(text[i]);
    value = (value << 6) + (b & 0x3F);
    i++;
    n_remain--;
    if ((b >> 6) != 2 || !utf8_prefix_ok(value, n_remain, pending_len)) {
      out.clear();
      return {0, -1};
    }
  }
  if (start.n_remain > 0 && n_remain == 0) out.push_back(value);
  while (!at_end()) {
    const auto first = static_cast<uint8_t>(text[i]);
    n_remain = kLen[first >> 4] - 1;
    const int len = n_remain + 1;
    value = n_remain < 0 ? 0 : first & ((1u << (7 - n_remain)) - 1);
    if (n_remain < 0 || !utf8_prefix_ok(value, n_remain, len)) {
      out.clear();
      return {0, -1};
    }
    i++;
    while (!at_end() && n_remain > 0) {
      const auto b = static_cast<uint8_t>(text[i]);
      value = (value << 6) + (b & 0x3F);
      i++;
      n_remain--;
      if ((b >> 6) != 2 || !utf8_prefix_ok(value, n_remain, len)) {
        out.clear();
        return {0, -1};
      }
    }
    if (n_remain == 0) out.push_back(value);
  }
  return {value, n_remain};
}

}  // namespace toolwright::grammar
