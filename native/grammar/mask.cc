#include "mask.h"

#include <algorithm>
#include <cstring>

namespace toolwright::grammar {

namespace {

// Masks kept per matcher before the cache is dropped and rebuilt.
constexpr size_t kCacheBudgetBytes = 64u << 20;

inline void set_bit(uint64_t * bits, int32_t id) { bits[id >> 6] |= 1ull << (id & 63); }

}  // namespace

MaskEngine::MaskEngine(Npda & npda, std::shared_ptr<const Vocab> vocab) : npda_(npda), vocab_(std::move(vocab)) {}

void MaskEngine::clear_cache() {
  cache_slot_.clear();
  cache_.clear();
  cache_bytes_ = 0;
}

bool MaskEngine::token_allowed(uint32_t state, PartialUtf8 partial, int32_t token) {
  const Vocab & v = *vocab_;
  if (token < 0 || static_cast<size_t>(token) >= v.size() || state == Npda::kDead) return false;
  if (v.is_eog(token)) return npda_.accepting(state);
  const std::string & piece = v.piece(token);
  if (piece.empty() || piece[0] == '\0') return false;
  const PartialUtf8 tail = decode_utf8(piece, partial, decode_buf_);
  if (tail.n_remain < 0) return false;
  const auto nul = std::find(decode_buf_.begin(), decode_buf_.end(), 0u);
  const size_t len = static_cast<size_t>(nul - decode_buf_.begin());
  uint32_t cur = state;
  for (size_t i = 0; i < len; i++) {
    // A stack topped by a token element decides by id alone while characters remain.
    if (npda_.has_token_tops(cur)) {
      const Grammar & g = npda_.grammar();
      for (uint32_t k = 0; k < npda_.n_stacks(cur); k++) {
        const uint32_t node = npda_.stacks(cur)[k];
        if (node != Npda::kEmptyStack && g.is_token_elem(npda_.stack_top(node)) &&
            g.token_elem_matches(npda_.stack_top(node), token)) {
          return true;
        }
      }
    }
    cur = npda_.step(cur, decode_buf_[i]);
    if (cur == Npda::kDead) return false;
  }
  if (tail.n_remain == 0) return true;
  return npda_.matches_partial(cur, tail);
}

void MaskEngine::fill(uint32_t state, PartialUtf8 partial, uint64_t * out) {
  const Vocab & v = *vocab_;
  const size_t words = v.n_words();
  stats_.masks++;
  if (partial.pending()) {
    std::memset(out, 0, words * 8);
    if (npda_.accepting(state)) {
      for (int32_t id : v.eog_tokens()) set_bit(out, id);
    }
    for (int32_t id : v.continuation_tokens()) {
      if (!v.is_eog(id) && token_allowed(state, partial, id)) set_bit(out, id);
    }
    return;
  }
  if (state < cache_slot_.size() && cache_slot_[state] >= 0) {
    stats_.cache_hits++;
    const Cached & c = cache_[cache_slot_[state]];
    if (c.dense) {
      std::memcpy(out, c.bits.data(), words * 8);
    } else {
      std::memset(out, 0, words * 8);
      for (int32_t id : c.ids) set_bit(out, id);
    }
    return;
  }
  compute_fresh(state, out);
  store(state, out);
}

void MaskEngine::store(uint32_t state, const uint64_t * bits) {
  const size_t words = vocab_->n_words();
  size_t count = 0;
  for (size_t w = 0; w < words; w++) count += static_cast<size_t>(__builtin_popcountll(bits[w]));
  Cached c;
  c.dense = count * 32 >= vocab_->size();
  if (c.dense) {
    c.bits.assign(bits, bits + words);
  } else {
    c.ids.reserve(count);
    for (size_t w = 0; w < words; w++) {
      for (uint64_t x = bits[w]; x; x &= x - 1) c.ids.push_back(static_cast<int32_t>(w * 64 + __builtin_ctzll(x)));
    }
  }
  const size_t bytes = c.dense ? words * 8 : count * 4;
  if (cache_bytes_ + bytes > kCacheBudgetBytes) clear_cache();
  if (cache_slot_.size() <= state) cache_slot_.resize(state + 1, -1);
  cache_slot_[state] = static_cast<int32_t>(cache_.size());
  cache_.push_back(std::move(c));
  cache_bytes_ += bytes + 64;
}

// Stacks topped by a token element accept (by id alone) every token that still has code points
// left at `node`, i.e. the tokens strictly below it.
void MaskEngine::token_tops_below(uint32_t state, uint32_t node, uint64_t * out) {
  const Vocab & v = *vocab_;
  const Grammar & g = npda_.grammar();
  int32_t only_not = -1;  // the single id excluded by every negated top, if exactly one
  bool not_any = false, all = false;
  std::vector<int32_t> wanted;
  for (uint32_t k = 0; k < npda_.n_stacks(state); k++) {
    const uint32_t s = npda_.stacks(state)[k];
    if (s == Npda::kEmptyStack) continue;
    const uint32_t pos = npda_.stack_top(s);
    if (!g.is_token_elem(pos)) continue;
    const auto id = static_cast<int32_t>(g.elems[pos].value);
    if (g.elems[pos].type == ElemType::Token) {
      wanted.push_back(id);
    } else if (!not_any) {
      not_any = true;
      only_not = id;
    } else if (id != only_not) {
      all = true;
    }
  }
  const auto & nodes = v.nodes();
  const uint32_t end = nodes[node].end;
  auto below = [&](int32_t id) {
    if (id < 0 || static_cast<size_t>(id) >= v.size() || v.kind(id) != Vocab::Kind::Regular) return false;
    const uint32_t n = v.token_node(id);
    return n > node && n < end;
  };
  for (int32_t id : wanted) {
    if (below(id)) set_bit(out, id);
  }
  if (!not_any) return;
  bool exclude = !all && below(only_not) && std::find(wanted.begin(), wanted.end(), only_not) == wanted.end();
  if (node == 0) {
    const auto & b = v.below_root_bits();
    for (size_t w = 0; w < b.size(); w++) out[w] |= b[w];
    // Runs before the walk, so nothing else has set this bit yet.
    if (exclude) out[only_not >> 6] &= ~(1ull << (only_not & 63));
    return;
  }
  const uint32_t t_end = v.tok_range_end(end);
  for (uint32_t i = nodes[node].tok_own_end; i < t_end; i++) {
    const int32_t id = v.tokens()[i];
    if (!(exclude && id == only_not)) set_bit(out, id);
  }
  const uint32_t p_end = v.part_range_end(end);
  for (uint32_t i = nodes[node].part_own_end; i < p_end; i++) {
    const int32_t id = v.partials()[i].token;
    if (!(exclude && id == only_not)) set_bit(out, id);
  }
}

void MaskEngine::compute_fresh(uint32_t state, uint64_t * out) {
  const Vocab & v = *vocab_;
  std::memset(out, 0, v.n_words() * 8);
  if (state == Npda::kDead) return;
  if (npda_.accepting(state)) {
    for (int32_t id : v.eog_tokens()) set_bit(out, id);
  }
  const auto & nodes = v.nodes();
  const auto & toks = v.tokens();
  const auto & parts = v.partials();
  // Tokens with no complete code point (a lone lead byte) hang off the root.
  for (uint32_t i = nodes[0].part_begin; i < nodes[0].part_own_end; i++) {
    if (npda_.matches_partial(state, parts[i].partial)) set_bit(out, parts[i].token);
  }
  if (npda_.has_token_tops(state)) token_tops_below(state, 0, out);
  frames_.clear();
  frames_.push_back(Frame{0, state, 1});
  uint64_t visited = 0;
  while (!frames_.empty()) {
    Frame & f = frames_.back();
    if (f.child >= nodes[f.node].end) {
      frames_.pop_back();
      continue;
    }
    const uint32_t c = f.child;
    const Vocab::Node & cn = nodes[c];
    f.child = cn.end;
    const uint32_t next = npda_.step(f.state, cn.cp);
    visited++;
    if (next == Npda::kDead) continue;
    for (uint32_t i = cn.tok_begin; i < cn.tok_own_end; i++) set_bit(out, toks[i]);
    for (uint32_t i = cn.part_begin; i < cn.part_own_end; i++) {
      if (npda_.matches_partial(next, parts[i].partial)) set_bit(out, parts[i].token);
    }
    if (npda_.has_token_tops(next)) token_tops_below(next, c, out);
    if (c + 1 < cn.end) frames_.push_back(Frame{c, next, c + 1});  // may reallocate: f is dead
  }
  stats_.nodes_visited += visited;
  for (int32_t id : v.irregular_tokens()) {
    if (token_allowed(state, PartialUtf8{}, id)) set_bit(out, id);
  }
}

}  // namespace toolwright::grammar
