#include "slice.h"

#include <algorithm>

#include "vocab.h"

namespace toolwright::grammar {

namespace {
constexpr size_t kRegistryBudgetBytes = 256u << 20;
constexpr uint32_t kMaxCumRows = 17;  // bitsets for depth <= 0..16; longer tokens are few
}  // namespace

size_t Slice::bytes() const {
  return sizeof(Slice) + tokens.capacity() * 4 + depth_end.capacity() * 4 + cum_bits.capacity() * 8 +
         all_bits.capacity() * 8 + partials.capacity() * sizeof(Partial) + groups.capacity() * sizeof(ExitGroup) +
         runs.capacity() * sizeof(ExitRun) + exit_children.capacity() * 4;
}

uint32_t SliceRegistry::intern(const std::vector<std::pair<uint32_t, uint32_t>> & intervals) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = set_ids_.find(intervals);
  if (it != set_ids_.end()) return it->second;
  auto s = std::make_unique<CodeSet>();
  s->intervals = intervals;
  for (const auto & [lo, hi] : intervals) {
    for (uint64_t cp = lo; cp <= hi && cp < 128; cp++) s->ascii[cp >> 6] |= 1ull << (cp & 63);
  }
  const auto id = static_cast<uint32_t>(sets_.size());
  sets_.push_back(std::move(s));
  set_ids_.emplace(intervals, id);
  return id;
}

const CodeSet & SliceRegistry::set(uint32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return *sets_[id];
}

std::shared_ptr<const Slice> SliceRegistry::get(uint32_t set_id, uint32_t node) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = slices_.find({set_id, node});
  if (it != slices_.end()) return it->second;
  if (bytes_ > kRegistryBudgetBytes) return nullptr;
  auto slice = build(*sets_[set_id], node);
  bytes_ += slice->bytes();
  slices_.emplace(std::make_pair(set_id, node), slice);
  return slice;
}

std::vector<std::pair<uint32_t, uint32_t>> SliceRegistry::json_string_chars() {
  return {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x7E}, {0x80, UINT32_MAX}};
}

std::shared_ptr<const Slice> SliceRegistry::build(const CodeSet & set, uint32_t root) const {
  const auto & nodes = vocab_.nodes();
  const auto & toks = vocab_.tokens();
  const auto & parts = vocab_.partials();
  auto s = std::make_shared<Slice>();
  std::vector<std::pair<uint32_t, int32_t>> by_depth;  // (depth, token)
  struct Exit3 {
    uint32_t cp, depth, child;
  };
  std::vector<Exit3> exits;
  // Walk the L-edges below `root`: (node, depth) pairs whose path from root is all in L.
  std::vector<std::pair<uint32_t, uint32_t>> todo{{root, 0}};
  while (!todo.empty()) {
    const auto [n, depth] = todo.back();
    todo.pop_back();
    for (uint32_t c = n + 1; c < nodes[n].end; c = nodes[c].end) {
      const uint32_t cp = nodes[c].cp;
      if (!set.contains(cp)) {
        // Exits right below the slice's node are walked by range instead (see MaskEngine).
        if (depth > 0) exits.push_back(Exit3{cp, depth, c});
        continue;
      }
      const uint32_t d = depth + 1;
      s->max_depth = std::max(s->max_depth, d);
      for (uint32_t i = nodes[c].tok_begin; i < nodes[c].tok_own_end; i++) by_depth.emplace_back(d, toks[i]);
      for (uint32_t i = nodes[c].part_begin; i < nodes[c].part_own_end; i++) {
        s->partials.push_back(Slice::Partial{d, parts[i].token, parts[i].partial});
      }
      if (c + 1 < nodes[c].end) todo.emplace_back(c, d);
    }
  }
  // Counting sort by depth.
  s->depth_end.assign(s->max_depth + 1, 0);
  for (const auto & [d, t] : by_depth) s->depth_end[d]++;
  for (uint32_t d = 1; d <= s->max_depth; d++) s->depth_end[d] += s->depth_end[d - 1];
  s->tokens.resize(by_depth.size());
  {
    std::vector<uint32_t> fill(s->depth_end.begin(), s->depth_end.end());
    for (uint32_t d = s->max_depth; d >= 1; d--) fill[d] = fill[d - 1];
    for (const auto & [d, t] : by_depth) s->tokens[fill[d]++] = t;
  }
  std::sort(s->partials.begin(), s->partials.end(), [](const Slice::Partial & a, const Slice::Partial & b) {
    if (a.partial.n_remain != b.partial.n_remain) return a.partial.n_remain < b.partial.n_remain;
    if (a.partial.value != b.partial.value) return a.partial.value < b.partial.value;
    return a.depth < b.depth;
  });
  std::sort(exits.begin(), exits.end(), [](const Exit3 & a, const Exit3 & b) {
    return a.cp != b.cp ? a.cp < b.cp : a.depth < b.depth;
  });
  for (const Exit3 & e : exits) {
    if (s->groups.empty() || s->groups.back().cp != e.cp) {
      const auto r = static_cast<uint32_t>(s->runs.size());
      s->groups.push_back(Slice::ExitGroup{e.cp, r, r});
    }
    Slice::ExitGroup & g = s->groups.back();
    if (g.run_end == g.run_begin || s->runs.back().depth != e.depth) {
      const auto at = static_cast<uint32_t>(s->exit_children.size());
      s->runs.push_back(Slice::ExitRun{e.depth, at, at});
      g.run_end = static_cast<uint32_t>(s->runs.size());
    }
    s->exit_children.push_back(e.child);
    s->runs.back().end = static_cast<uint32_t>(s->exit_children.size());
  }
  // Bitsets pay off only when many tokens are in the slice.
  const size_t words = vocab_.n_words();
  if (s->tokens.size() * 64 >= vocab_.size()) {
    s->cum_rows = std::min(kMaxCumRows, s->max_depth + 1);
    s->cum_bits.assign(static_cast<size_t>(s->cum_rows) * words, 0);
    s->all_bits.assign(words, 0);
    for (uint32_t d = 1; d <= s->max_depth; d++) {
      for (uint32_t i = s->depth_end[d - 1]; i < s->depth_end[d]; i++) {
        const int32_t t = s->tokens[i];
        s->all_bits[t >> 6] |= 1ull << (t & 63);
        if (d < s->cum_rows) s->cum_bits[d * words + (t >> 6)] |= 1ull << (t & 63);
      }
    }
    for (uint32_t d = 1; d < s->cum_rows; d++) {
      for (size_t w = 0; w < words; w++) s->cum_bits[d * words + w] |= s->cum_bits[(d - 1) * words + w];
    }
  }
  return s;
}

}  // namespace toolwright::grammar
