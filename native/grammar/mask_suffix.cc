// MaskEngine, part 5: the exits' suffix tree. Below a truncated state's exits, what a token still needs is
// the context's: after a number, `,` or `}`; after a string, the same. The rests of the tokens below every
// exit are few distinct texts, so they are kept in a prefix tree of their own, and a real state whose context
// is known walks that tree instead of the vocabulary's below each exit.
#include <algorithm>
#include <cstring>

#include "mask.h"

namespace toolwright::grammar {

namespace {

// A token's rest after an exit: code points at rest_pool[begin, +len), and its partial tail if any.
struct Rest {
  uint32_t begin, len;
  int32_t token;
  bool partial;
  PartialUtf8 tail;
};

}  // namespace

uint32_t MaskEngine::build_suffixes() {
  if (exit_all_.empty()) return kNoSuffixes;
  // Positions of one grammar share their exits often (every value's numbers, strings and literals): one tree
  // serves them all.
  uint64_t hash = 0x9E3779B97F4A7C15ULL ^ exit_all_.size();
  for (const uint32_t e : exit_all_) hash = FlatMap64::mix(hash ^ e);
  const uint32_t known = suffix_index_.find(hash);
  if (known != FlatMap64::kMissing) {
    const SuffixTree& t = suffixes_[known];
    if (std::equal(exit_all_.begin(), exit_all_.end(), suffix_exits_.begin() + t.exits_begin,
                   suffix_exits_.begin() + t.exits_begin + t.exits_len)) {
      return known;
    }
  }
  const Vocab& v = *vocab_;
  const auto& nodes = v.nodes();
  const auto& parents = v.node_parents();
  // Counted first from the token ranges (a subtree's tokens are contiguous): an exit near the root has a
  // hundred thousand nodes below it.
  size_t entries = 0;
  for (const uint32_t exit : exit_all_) {
    const uint32_t end = nodes[exit].end;
    entries +=
        (v.tok_range_end(end) - nodes[exit].tok_own_end) + (v.part_range_end(end) - nodes[exit].part_begin);
    if (entries > kMaxSuffixEntries) return kNoSuffixes;
  }
  std::vector<Rest> rests;
  rests.reserve(entries);
  std::vector<uint32_t> pool, path;
  for (const uint32_t exit : exit_all_) {
    for (uint32_t m = exit; m < nodes[exit].end; m++) {
      const Vocab::Node& n = nodes[m];
      // A token ending at the exit is in the truncated state's mask already; one in a partial character
      // there is the context's to take.
      const uint32_t own = m == exit ? 0 : n.tok_own_end - n.tok_begin;
      const uint32_t parts = n.part_own_end - n.part_begin;
      if (own + parts == 0) continue;
      path.clear();
      for (uint32_t k = m; k != exit; k = parents[k]) path.push_back(nodes[k].cp);
      const auto begin = static_cast<uint32_t>(pool.size());
      pool.insert(pool.end(), path.rbegin(), path.rend());
      const auto len = static_cast<uint32_t>(path.size());
      for (uint32_t i = n.tok_begin; i < n.tok_begin + own; i++)
        rests.push_back({begin, len, v.tokens()[i], false, {}});
      for (uint32_t i = n.part_begin; i < n.part_own_end; i++) {
        rests.push_back({begin, len, v.partials()[i].token, true, v.partials()[i].partial});
      }
    }
  }
  if (rests.empty()) return kNoSuffixes;
  // Sorted by rest: the first three code points packed in a key (most rests are that short), then the others.
  auto key = [&](const Rest& r) {
    uint64_t k = 0;
    for (uint32_t i = 0; i < 3; i++) k = (k << 21) | (i < r.len ? pool[r.begin + i] + 1 : 0);
    return k;
  };
  std::vector<std::pair<uint64_t, uint32_t>> order(rests.size());
  for (uint32_t i = 0; i < rests.size(); i++) order[i] = {key(rests[i]), i};
  std::sort(order.begin(), order.end(), [&](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    const Rest &ra = rests[a.second], &rb = rests[b.second];
    if (ra.len <= 3 || rb.len <= 3) return ra.len < rb.len;
    return std::lexicographical_compare(pool.begin() + ra.begin + 3, pool.begin() + ra.begin + ra.len,
                                        pool.begin() + rb.begin + 3, pool.begin() + rb.begin + rb.len);
  });
  // Preorder: a rest sorts before the rests it is a prefix of, so the open nodes are the previous rest's
  // path.
  const auto begin = static_cast<uint32_t>(suffix_nodes_.size());
  auto open_node = [&](uint32_t cp) {
    const auto at = static_cast<uint32_t>(suffix_tokens_.size()),
               part_at = static_cast<uint32_t>(suffix_partials_.size());
    suffix_nodes_.push_back(SuffixNode{cp, 0, at, at, part_at, part_at});
  };
  open_node(0);
  std::vector<uint32_t> open{begin};  // open[d]: the node of the current path's first d code points
  const uint32_t* prev = nullptr;
  uint32_t prev_len = 0;
  for (const auto& [unused, index] : order) {
    const Rest& r = rests[index];
    const uint32_t* cps = pool.data() + r.begin;
    uint32_t common = 0;
    while (common < r.len && common < prev_len && cps[common] == prev[common]) common++;
    for (size_t d = open.size() - 1; d > common; d--)
      suffix_nodes_[open[d]].end = static_cast<uint32_t>(suffix_nodes_.size());
    open.resize(common + 1);
    for (uint32_t d = common; d < r.len; d++) {
      open.push_back(static_cast<uint32_t>(suffix_nodes_.size()));
      open_node(cps[d]);
    }
    prev = cps;
    prev_len = r.len;
    // Only the newest node takes entries, so each node's lists stay contiguous.
    SuffixNode& at = suffix_nodes_[open.back()];
    if (r.partial) {
      suffix_partials_.push_back(Vocab::PartialTail{r.token, r.tail});
      at.part_end = static_cast<uint32_t>(suffix_partials_.size());
    } else {
      suffix_tokens_.push_back(r.token);
      at.tok_end = static_cast<uint32_t>(suffix_tokens_.size());
    }
  }
  for (const uint32_t n : open) suffix_nodes_[n].end = static_cast<uint32_t>(suffix_nodes_.size());
  const auto exits_begin = static_cast<uint32_t>(suffix_exits_.size());
  suffix_exits_.insert(suffix_exits_.end(), exit_all_.begin(), exit_all_.end());
  suffixes_.push_back(SuffixTree{begin, static_cast<uint32_t>(suffix_nodes_.size()) - begin, exits_begin,
                                 static_cast<uint32_t>(exit_all_.size())});
  const auto index = static_cast<uint32_t>(suffixes_.size() - 1);
  if (known == FlatMap64::kMissing) suffix_index_.insert(hash, index);
  return index;
}

bool MaskEngine::walk_suffixes(const SuffixTree& tree, uint32_t context, uint64_t* out) {
  const SuffixNode* nodes = suffix_nodes_.data() + tree.begin;
  auto take = [&](const SuffixNode& n, uint32_t state) {
    for (uint32_t i = n.tok_begin; i < n.tok_end; i++) set_bit(out, suffix_tokens_[i]);
    for (uint32_t i = n.part_begin; i < n.part_end; i++) {
      if (npda_.matches_partial(state, suffix_partials_[i].partial)) set_bit(out, suffix_partials_[i].token);
    }
  };
  take(nodes[0], context);
  work_.clear();  // the walk's queue, its nodes here the suffix tree's
  work_.push_back(Item{0, context});
  while (!work_.empty()) {
    const Item it = work_.back();
    work_.pop_back();
    const uint32_t end = nodes[it.node].end - tree.begin;
    for (uint32_t c = it.node + 1; c < end; c = nodes[c].end - tree.begin) {
      stats_.nodes_visited++;
      const uint32_t next = npda_.step(it.state, nodes[c].cp);
      if (next == Npda::kDead) continue;
      if (npda_.has_token_tops(next)) return false;
      take(nodes[c], next);
      if (nodes[c].end - tree.begin > c + 1) work_.push_back(Item{c, next});  // it has children
    }
  }
  return true;
}

}  // namespace toolwright::grammar
