#include "forced.h"

#include <algorithm>

#include "matcher.h"

namespace toolwright::grammar {

namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

constexpr uint32_t kNoNode = UINT32_MAX;

// The prefix-tree child of `node` along code point `cp`, or kNoNode.
uint32_t child_of(const Vocab& v, uint32_t node, uint32_t cp) {
  const std::vector<Vocab::Node>& nodes = v.nodes();
  if (nodes[node].wide != Vocab::kNotWide) {
    const Vocab::WideNode& w = v.wide_nodes()[nodes[node].wide];
    const uint32_t* first = v.wide_child_cps().data() + w.begin;
    const uint32_t* last = v.wide_child_cps().data() + w.end;
    const uint32_t* at = std::lower_bound(first, last, cp);
    return at != last && *at == cp ? v.wide_child_nodes()[at - v.wide_child_cps().data()] : kNoNode;
  }
  for (uint32_t c = node + 1; c < nodes[node].end; c = nodes[c].end) {
    if (nodes[c].cp == cp) return c;
  }
  return kNoNode;
}

// Whether some token's text is `cps` followed by more (a whole code point, or part of one).
bool token_extends(const Vocab& v, const std::vector<uint32_t>& cps, size_t from) {
  uint32_t node = 0;
  for (size_t i = from; i < cps.size(); i++) {
    node = child_of(v, node, cps[i]);
    if (node == kNoNode) return false;
  }
  const Vocab::Node& n = v.nodes()[node];
  return v.tok_range_end(n.end) > n.tok_own_end || v.part_range_end(n.end) > n.part_begin;
}

}  // namespace

std::string Matcher::forced_text(size_t max_bytes) {
  std::string out;
  if (awaiting_ || partial_.n_remain > 0) return out;
  Npda& n = npda();  // settles the warm-up first (warmup.h)
  uint32_t state = state_;
  while (out.size() < max_bytes) {
    // Ending is a choice too (end of generation), and so is a token reference.
    if (n.accepting(state) || n.has_token_tops(state)) break;
    Npda::Partition& p = n.partition(state);
    uint32_t only = UINT32_MAX, next = Npda::kDead;
    bool several = false;
    for (uint32_t seg = 0; seg < p.breaks.size() && !several; seg++) {
      const uint32_t succ = n.successor_in(p, state, seg);
      if (succ == Npda::kDead) continue;
      several = only != UINT32_MAX || p.breaks[seg] != p.seg_end(seg);
      only = seg;
      next = succ;
    }
    if (several || only == UINT32_MAX || p.breaks[only] == 0) break;
    append_utf8(out, p.breaks[only]);
    state = next;
  }
  return out;
}

size_t safe_forced_tokens(const Vocab& vocab, const std::vector<int32_t>& tokens) {
  // Code points of the text and, per token, the index of its first code point.
  std::vector<uint32_t> cps;
  std::vector<size_t> starts;
  PartialUtf8 partial{};
  std::vector<uint32_t> piece_cps;
  for (int32_t t : tokens) {
    starts.push_back(cps.size());
    partial = decode_utf8(vocab.piece(t), partial, piece_cps);
    if (partial.n_remain != 0) return starts.size() - 1;  // a token ending mid-character: stop before it
    cps.insert(cps.end(), piece_cps.begin(), piece_cps.end());
  }
  for (size_t k = 0; k < tokens.size(); k++) {
    if (token_extends(vocab, cps, starts[k])) return k;
  }
  return tokens.size();
}

}  // namespace toolwright::grammar
