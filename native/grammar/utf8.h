// Decoding of token text into code points, with a UTF-8 sequence that may be split across
// tokens. Reproduces llama.cpp's grammar decoder exactly, leniency included: inside one token a
// multi-byte sequence takes the next bytes without checking they are continuation bytes, while
// a sequence continued from the previous token must see real continuation bytes.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace toolwright::grammar {

struct PartialUtf8 {
  uint32_t value = 0;  // bits decoded so far
  int n_remain = 0;    // continuation bytes still missing; -1 marks an invalid sequence

  bool pending() const { return n_remain > 0; }
  bool operator==(const PartialUtf8 & o) const { return value == o.value && n_remain == o.n_remain; }
};

// Decodes `text` (up to its first NUL) continuing from `start`. Complete code points are
// appended to `out` (cleared first). An invalid sequence clears `out` and returns {0, -1}.
inline PartialUtf8 decode_utf8(std::string_view text, PartialUtf8 start, std::vector<uint32_t> & out) {
  static const int kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 2, 2, 3, 4};
  out.clear();
  size_t i = 0;
  const size_t n = text.size();
  auto at_end = [&] { return i >= n || text[i] == '\0'; };
  uint32_t value = start.value;
  int n_remain = start.n_remain;
  while (!at_end() && n_remain > 0) {
    const auto b = static_cast<uint8_t>(text[i]);
    if ((b >> 6) != 2) {
      out.clear();
      return {0, -1};
    }
    value = (value << 6) + (b & 0x3F);
    i++;
    n_remain--;
  }
  if (start.n_remain > 0 && n_remain == 0) out.push_back(value);
  while (!at_end()) {
    const auto first = static_cast<uint8_t>(text[i]);
    n_remain = kLen[first >> 4] - 1;
    if (n_remain < 0) {
      out.clear();
      return {0, -1};
    }
    value = first & ((1u << (7 - n_remain)) - 1);
    i++;
    while (!at_end() && n_remain > 0) {
      value = (value << 6) + (static_cast<uint8_t>(text[i]) & 0x3F);
      i++;
      n_remain--;
    }
    if (n_remain == 0) out.push_back(value);
  }
  return {value, n_remain};
}

}  // namespace toolwright::grammar
