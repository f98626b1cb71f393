#include "vocab.h"

#include <algorithm>
#include <numeric>

namespace toolwright::grammar {

namespace {
// The mask engine takes a slice only below nodes with this many descendants (kSliceMinNodes).
constexpr uint32_t kStringSliceMinNodes = 256;
}  // namespace

std::shared_ptr<const Vocab> Vocab::build(std::vector<std::string> pieces, const std::vector<int32_t>& eog) {
  auto v = std::make_shared<Vocab>();
  v->slices_ = std::make_unique<SliceRegistry>(*v);
  const size_t n = pieces.size();
  v->pieces_ = std::move(pieces);
  v->kinds_.assign(n, Kind::Regular);
  v->cp_off_.assign(n, 0);
  v->cp_len_.assign(n, 0);
  v->tails_.assign(n, PartialUtf8{});
  for (int32_t id : eog) {
    if (id >= 0 && static_cast<size_t>(id) < n) v->kinds_[id] = Kind::Eog;
  }
  std::vector<uint32_t> cps;
  for (size_t id = 0; id < n; id++) {
    const std::string& p = v->pieces_[id];
    if (!p.empty() && (static_cast<uint8_t>(p[0]) >> 6) == 2)
      v->continuation_.push_back(static_cast<int32_t>(id));
    if (v->kinds_[id] == Kind::Eog) {
      v->eog_.push_back(static_cast<int32_t>(id));
      continue;
    }
    if (p.empty() || p[0] == '\0') {
      v->kinds_[id] = Kind::Never;
      continue;
    }
    const PartialUtf8 tail = decode_utf8(p, PartialUtf8{}, cps);
    if (tail.n_remain < 0) {
      v->kinds_[id] = Kind::Never;
      continue;
    }
    // llama.cpp stops reading a token's code points at a NUL code point (from an overlong
    // encoding); such tokens are rare and are checked one by one.
    const auto nul = std::find(cps.begin(), cps.end(), 0u);
    if (nul != cps.end()) {
      v->kinds_[id] = Kind::Irregular;
      v->irregular_.push_back(static_cast<int32_t>(id));
      cps.erase(nul, cps.end());
    }
    v->cp_off_[id] = static_cast<uint32_t>(v->cp_pool_.size());
    v->cp_len_[id] = static_cast<uint32_t>(cps.size());
    v->tails_[id] = tail;
    v->cp_pool_.insert(v->cp_pool_.end(), cps.begin(), cps.end());
    v->max_cps_ = std::max(v->max_cps_, cps.size());
  }
  v->cp_pool_.push_back(0);  // so cps() of an empty token is a valid pointer
  for (size_t id = 0; id < n; id++) {
    if (v->kinds_[id] != Kind::Regular) continue;
    for (uint32_t i = 0; i < v->cp_len_[id]; i++)
      v->max_cp_ = std::max(v->max_cp_, v->cps(static_cast<int32_t>(id))[i]);
  }

  // Prefix tree over code points; a token ending in a partial sequence hangs off the node of
  // its complete code points.
  v->token_node_.assign(n, 0);
  std::vector<int32_t> order;
  for (size_t id = 0; id < n; id++) {
    if (v->kinds_[id] == Kind::Regular) order.push_back(static_cast<int32_t>(id));
  }
  auto less = [&](int32_t a, int32_t b) {
    const uint32_t* pa = v->cps(a);
    const uint32_t* pb = v->cps(b);
    const uint32_t la = v->cp_len_[a], lb = v->cp_len_[b];
    if (std::lexicographical_compare(pa, pa + la, pb, pb + lb)) return true;
    if (std::lexicographical_compare(pb, pb + lb, pa, pa + la)) return false;
    // Complete tokens first, then partial tails grouped by their pending sequence.
    const PartialUtf8 pa_ = v->tails_[a], pb_ = v->tails_[b];
    const bool ta = pa_.n_remain > 0, tb = pb_.n_remain > 0;
    if (ta != tb) return !ta;
    if (pa_.n_remain != pb_.n_remain) return pa_.n_remain < pb_.n_remain;
    if (pa_.value != pb_.value) return pa_.value < pb_.value;
    return a < b;
  };
  std::sort(order.begin(), order.end(), less);

  auto& nodes = v->nodes_;
  nodes.push_back(Node{0, 0, 0, 0, 0, 0, kNotWide});
  v->node_parent_.push_back(0);
  v->node_depth_.push_back(0);
  std::vector<uint32_t> path{0};
  std::vector<uint32_t> path_cps;
  auto close_top = [&] {
    nodes[path.back()].end = static_cast<uint32_t>(nodes.size());
    path.pop_back();
    path_cps.pop_back();
  };
  for (int32_t id : order) {
    const uint32_t* c = v->cps(id);
    const uint32_t len = v->cp_len_[id];
    size_t common = 0;
    while (common < path_cps.size() && common < len && path_cps[common] == c[common]) common++;
    while (path_cps.size() > common) close_top();
    for (size_t i = common; i < len; i++) {
      const auto t = static_cast<uint32_t>(v->tokens_.size());
      const auto pt = static_cast<uint32_t>(v->partials_.size());
      nodes.push_back(Node{c[i], 0, t, t, pt, pt, kNotWide});
      v->node_parent_.push_back(path.back());
      v->node_depth_.push_back(static_cast<uint32_t>(path.size()));
      path.push_back(static_cast<uint32_t>(nodes.size() - 1));
      path_cps.push_back(c[i]);
    }
    v->token_node_[id] = path.back();
    Node& node = nodes[path.back()];
    if (v->tails_[id].n_remain > 0) {
      v->partials_.push_back(PartialTail{id, v->tails_[id]});
      node.part_own_end = static_cast<uint32_t>(v->partials_.size());
    } else {
      v->tokens_.push_back(id);
      v->tokens_cps_.push_back(len);
      node.tok_own_end = static_cast<uint32_t>(v->tokens_.size());
    }
  }
  while (!path_cps.empty()) close_top();
  nodes[0].end = static_cast<uint32_t>(nodes.size());

  // Wide nodes: iterated by code-point range instead of child by child.
  constexpr size_t kWideChildren = 24;
  std::vector<uint32_t> kids;
  for (uint32_t n = 0; n < nodes.size(); n++) {
    kids.clear();
    for (uint32_t c = n + 1; c < nodes[n].end; c = nodes[c].end) kids.push_back(c);
    if (kids.size() < kWideChildren) continue;
    nodes[n].wide = static_cast<uint32_t>(v->wide_nodes_.size());
    v->wide_nodes_.push_back(WideNode{static_cast<uint32_t>(v->wide_child_nodes_.size()), 0});
    for (uint32_t c : kids) {
      v->wide_child_nodes_.push_back(c);
      v->wide_child_cps_.push_back(nodes[c].cp);
    }
    v->wide_nodes_.back().end = static_cast<uint32_t>(v->wide_child_nodes_.size());
  }

  // Nodes by edge code point: a slice for a class missing a few code points finds the edges
  // that leave it here instead of scanning the tree.
  {
    std::vector<uint64_t> keys;
    keys.reserve(nodes.size());
    for (uint32_t n = 1; n < nodes.size(); n++)
      keys.push_back((static_cast<uint64_t>(nodes[n].cp) << 32) | n);
    std::sort(keys.begin(), keys.end());
    v->edge_nodes_.reserve(keys.size());
    for (const uint64_t k : keys) {
      const auto cp = static_cast<uint32_t>(k >> 32);
      if (v->edge_cps_.empty() || v->edge_cps_.back() != cp) {
        v->edge_cps_.push_back(cp);
        v->edge_off_.push_back(static_cast<uint32_t>(v->edge_nodes_.size()));
      }
      v->edge_nodes_.push_back(static_cast<uint32_t>(k));
    }
    v->edge_off_.push_back(static_cast<uint32_t>(v->edge_nodes_.size()));
    const size_t words = v->node_words();
    v->edge_bits_.assign((129 + kAsciiBlocks) * words, 0);
    for (uint32_t n = 1; n < nodes.size(); n++) {
      const uint32_t row = nodes[n].cp < 128 ? nodes[n].cp : 128;
      v->edge_bits_[row * words + (n >> 6)] |= 1ull << (n & 63);
    }
    for (uint32_t b = 0; b < kAsciiBlocks; b++) {
      uint64_t* block = &v->edge_bits_[(129 + b) * words];
      for (uint32_t c = kAsciiBlockRange[b][0]; c <= kAsciiBlockRange[b][1]; c++) {
        const uint64_t* e = &v->edge_bits_[c * words];
        for (size_t w = 0; w < words; w++) block[w] |= e[w];
      }
    }
  }

  v->below_root_bits_.assign(v->n_words(), 0);
  for (int32_t id : order) {
    if (v->cp_len_[id] > 0) v->below_root_bits_[id >> 6] |= 1ull << (id & 63);
  }
  {
    const size_t words = v->n_words();
    v->length_rows_.assign((kLengthRows + 1) * words, 0);
    for (int32_t id : order) {
      const uint32_t len = v->cp_len_[id];
      if (len == 0) continue;
      if (len <= kLengthRows) {
        v->length_rows_[len * words + (id >> 6)] |= 1ull << (id & 63);
      } else {
        v->long_tokens_.push_back(id);
      }
    }
    for (uint32_t len = 1; len <= kLengthRows; len++) {
      for (size_t w = 0; w < words; w++)
        v->length_rows_[len * words + w] |= v->length_rows_[(len - 1) * words + w];
    }
    std::stable_sort(v->long_tokens_.begin(), v->long_tokens_.end(),
                     [&](int32_t a, int32_t b) { return v->cp_len_[a] < v->cp_len_[b]; });
  }
  // The slices every JSON grammar needs (string bodies), built now rather than on a first mask:
  // below the root, and below the big nodes one or two characters down (where a mask meets them
  // when the string opens, or a key's first characters are fixed, within the token).
  for (const auto& set : {SliceRegistry::json_string_chars(), SliceRegistry::json_string_chars_with_del()}) {
    const uint32_t id = v->slices_->intern(set);
    v->slices_->get(id, id, 0);
    for (uint32_t c = 1; c < nodes.size(); c = nodes[c].end) {
      if (nodes[c].end - c < kStringSliceMinNodes) continue;
      v->slices_->get(id, id, c);
      for (uint32_t g = c + 1; g < nodes[c].end; g = nodes[g].end) {
        if (nodes[g].end - g >= kStringSliceMinNodes) v->slices_->get(id, id, g);
      }
    }
  }
  return v;
}

void Vocab::or_up_to_length(const uint64_t* bits, uint32_t max_cps, uint64_t* out) const {
  const size_t words = n_words();
  const uint64_t* row = &length_rows_[std::min(max_cps, kLengthRows) * words];
  for (size_t w = 0; w < words; w++) out[w] |= bits[w] & row[w];
  for (const int32_t id : long_tokens_) {
    if (cp_len_[id] > max_cps) break;
    out[id >> 6] |= bits[id >> 6] & (1ull << (id & 63));
  }
}

size_t Vocab::memory_bytes() const {
  size_t b = nodes_.capacity() * sizeof(Node) + tokens_.capacity() * 4 + tokens_cps_.capacity() * 4 +
             partials_.capacity() * sizeof(PartialTail) + cp_pool_.capacity() * 4 + cp_off_.capacity() * 8 +
             tails_.capacity() * sizeof(PartialUtf8) + below_root_bits_.capacity() * 8 +
             length_rows_.capacity() * 8 + long_tokens_.capacity() * 4 + wide_child_nodes_.capacity() * 8 +
             wide_nodes_.capacity() * 8 + token_node_.capacity() * 4 + node_depth_.capacity() * 4 +
             node_parent_.capacity() * 4 + edge_cps_.capacity() * 4 + edge_off_.capacity() * 4 +
             edge_nodes_.capacity() * 4 + kinds_.capacity();
  for (const std::string& p : pieces_) b += p.capacity();
  return b;
}

}  // namespace toolwright::grammar
