#include "slice.h"

#include <algorithm>

#include "vocab.h"

namespace toolwright::grammar {

namespace {
constexpr size_t kRegistryBudgetBytes = 256u << 20;
}  // namespace

size_t Slice::bytes() const {
  return sizeof(Slice) + n_tokens * 4 + (max_depth + 1) * 4 + all_bits.capacity() * 8 +
         partials.capacity() * sizeof(Partial) + groups.capacity() * sizeof(ExitGroup) +
         runs.capacity() * sizeof(ExitRun) + exit_children.capacity() * 4 + skel_parent.capacity() * 4 +
         skel_cp.capacity() * 8 + skel_exits.capacity() * sizeof(SkelExit);
}

uint32_t SliceRegistry::intern(const std::vector<std::pair<uint32_t, uint32_t>>& given) {
  // Code points above the vocabulary's largest never label an edge: sets that differ only
  // there (e.g. up to U+10FFFF or up to 0xFFFFFFFF) give the same slice.
  const uint32_t top = vocab_.max_code_point();
  std::vector<std::pair<uint32_t, uint32_t>> intervals;
  for (const auto& [lo, hi] : given) {
    if (lo <= top) intervals.emplace_back(lo, std::min(hi, top));
  }
  std::lock_guard<std::mutex> lock(mu_);
  auto it = set_ids_.find(intervals);
  if (it != set_ids_.end()) return it->second;
  auto s = std::make_unique<CodeSet>();
  s->intervals = intervals;
  for (const auto& [lo, hi] : intervals) {
    for (uint64_t cp = lo; cp <= hi && cp < 128; cp++) s->ascii[cp >> 6] |= 1ull << (cp & 63);
  }
  const auto id = static_cast<uint32_t>(sets_.size());
  sets_.push_back(std::move(s));
  set_ids_.emplace(intervals, id);
  return id;
}

const CodeSet& SliceRegistry::set(uint32_t id) {
  std::lock_guard<std::mutex> lock(mu_);
  return *sets_[id];
}

std::shared_ptr<const Slice> SliceRegistry::get(uint32_t first_set, uint32_t rest_set, uint32_t node) {
  std::lock_guard<std::mutex> lock(mu_);
  return get_locked(first_set, rest_set, node);
}

std::shared_ptr<const Slice> SliceRegistry::get_locked(uint32_t first_set, uint32_t rest_set, uint32_t node) {
  const auto key = std::make_tuple(first_set, rest_set, node);
  auto it = slices_.find(key);
  if (it != slices_.end()) return it->second;
  if (bytes_ > kRegistryBudgetBytes) return nullptr;
  std::shared_ptr<const Slice> slice;
  const CodeSet& first = *sets_[first_set];
  const CodeSet& rest = *sets_[rest_set];
  if (first_set != rest_set && is_subset(first, rest)) {
    // Usually the first set is the common one minus a few characters (a key that must not
    // start like a listed property): filter the common slice instead of walking again.
    auto base = get_locked(rest_set, rest_set, node);
    if (!base) return nullptr;
    slice = derive(*base, first, rest, node);
  } else {
    slice = build(first, rest, node);
  }
  bytes_ += slice->bytes();
  builds_++;
  slices_.emplace(key, slice);
  return slice;
}

bool SliceRegistry::is_subset(const CodeSet& a, const CodeSet& b) {
  size_t j = 0;
  for (const auto& [lo, hi] : a.intervals) {
    while (j < b.intervals.size() && b.intervals[j].second < lo) j++;
    if (j == b.intervals.size() || b.intervals[j].first > lo || b.intervals[j].second < hi) return false;
  }
  return true;
}

std::vector<std::pair<uint32_t, uint32_t>> SliceRegistry::json_string_chars() {
  return {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, 0x7E}, {0x80, UINT32_MAX}};
}

std::vector<std::pair<uint32_t, uint32_t>> SliceRegistry::json_string_chars_with_del() {
  return {{0x20, 0x21}, {0x23, 0x5B}, {0x5D, UINT32_MAX}};
}

std::shared_ptr<const Slice> SliceRegistry::finish(Parts p) const {
  auto s = std::make_shared<Slice>();
  if (p.direct) {
    if (p.n_bits * 64 >= vocab_.size()) {
      // A bitset slice: the lists wait for a use that needs them.
      s->all_bits = std::move(p.bits);
      s->n_tokens = p.n_bits;
      s->max_depth = p.bits_max_depth;
      s->tokens_lazy_ = true;
      s->vocab_ = &vocab_;
      s->base_depth_ = p.base_depth;
    } else {
      for (size_t w = 0; w < p.bits.size(); w++) {
        for (uint64_t x = p.bits[w]; x; x &= x - 1) {
          const auto t = static_cast<int32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
          p.tokens.emplace_back(vocab_.n_cps(t) - p.base_depth, t);
        }
      }
      p.direct = false;
    }
  }
  for (const auto& [d, t] : p.tokens) s->max_depth = std::max(s->max_depth, d);
  for (const Slice::Partial& sp : p.partials) s->max_depth = std::max(s->max_depth, sp.depth);
  if (!p.direct) {
    // Counting sort by depth.
    s->depth_end_.assign(s->max_depth + 1, 0);
    for (const auto& [d, t] : p.tokens) s->depth_end_[d]++;
    for (uint32_t d = 1; d <= s->max_depth; d++) s->depth_end_[d] += s->depth_end_[d - 1];
    s->tokens_.resize(p.tokens.size());
    std::vector<uint32_t> fill(s->depth_end_.begin(), s->depth_end_.end());
    for (uint32_t d = s->max_depth; d >= 1; d--) fill[d] = fill[d - 1];
    for (const auto& [d, t] : p.tokens) s->tokens_[fill[d]++] = t;
    s->n_tokens = p.tokens.size();
  }
  s->partials = std::move(p.partials);
  s->skel_parent = std::move(p.skel_parent);
  s->skel_cp = std::move(p.skel_cp);
  s->skel_node = std::move(p.skel_node);
  s->skel_exits = std::move(p.skel_exits);
  std::stable_sort(s->skel_exits.begin(), s->skel_exits.end(),
                   [](const Slice::SkelExit& a, const Slice::SkelExit& b) { return a.skel < b.skel; });
  std::sort(s->partials.begin(), s->partials.end(), [](const Slice::Partial& a, const Slice::Partial& b) {
    if (a.partial.n_remain != b.partial.n_remain) return a.partial.n_remain < b.partial.n_remain;
    if (a.partial.value != b.partial.value) return a.partial.value < b.partial.value;
    return a.depth < b.depth;
  });
  std::sort(p.exits.begin(), p.exits.end(),
            [](const Exit3& a, const Exit3& b) { return a.cp != b.cp ? a.cp < b.cp : a.depth < b.depth; });
  for (const Exit3& e : p.exits) {
    s->max_exit_depth = std::max(s->max_exit_depth, e.depth);
    if (s->groups.empty() || s->groups.back().cp != e.cp) {
      const auto r = static_cast<uint32_t>(s->runs.size());
      s->groups.push_back(Slice::ExitGroup{e.cp, r, r});
    }
    Slice::ExitGroup& g = s->groups.back();
    if (g.run_end == g.run_begin || s->runs.back().depth != e.depth) {
      const auto at = static_cast<uint32_t>(s->exit_children.size());
      s->runs.push_back(Slice::ExitRun{e.depth, at, at});
      g.run_end = static_cast<uint32_t>(s->runs.size());
    }
    s->exit_children.push_back(e.child);
    s->runs.back().end = static_cast<uint32_t>(s->exit_children.size());
  }
  // Bitsets pay off only when many tokens are in the slice.
  if (s->n_tokens * 64 >= vocab_.size()) {
    if (!p.direct) {
      s->all_bits.assign(vocab_.n_words(), 0);
      for (const int32_t t : s->tokens_) s->all_bits[t >> 6] |= 1ull << (t & 63);
    }
  }
  return s;
}

void Slice::build_tokens() const {
  depth_end_.assign(max_depth + 1, 0);
  for (size_t w = 0; w < all_bits.size(); w++) {
    for (uint64_t x = all_bits[w]; x; x &= x - 1) {
      const auto t = static_cast<int32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
      depth_end_[vocab_->n_cps(t) - base_depth_]++;
    }
  }
  for (uint32_t d = 1; d <= max_depth; d++) depth_end_[d] += depth_end_[d - 1];
  tokens_.resize(depth_end_[max_depth]);
  std::vector<uint32_t> fill(depth_end_.begin(), depth_end_.end());
  for (uint32_t d = max_depth; d >= 1; d--) fill[d] = fill[d - 1];
  for (size_t w = 0; w < all_bits.size(); w++) {
    for (uint64_t x = all_bits[w]; x; x &= x - 1) {
      const auto t = static_cast<int32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
      tokens_[fill[vocab_->n_cps(t) - base_depth_]++] = t;
    }
  }
}

}  // namespace toolwright::grammar
