// MaskEngine, part 4: masks through truncated states. A state's top frames decide most tokens alone (an
// object's keys, whatever encloses the object), so a mask cached for its truncated state serves every context
// it appears in; only the tokens that reach past the cut frames (the exits) are walked with the real state.
#include <algorithm>
#include <cstring>

#include "mask.h"

namespace toolwright::grammar {

bool MaskEngine::keep_truncated(size_t from, uint64_t walked) {
  exit_norm_.assign(exits_.begin() + static_cast<std::ptrdiff_t>(from), exits_.end());
  std::sort(exit_norm_.begin(), exit_norm_.end());
  exit_norm_.erase(std::unique(exit_norm_.begin(), exit_norm_.end()), exit_norm_.end());
  if (!exit_norm_.empty() && exit_norm_[0] == 0) return false;
  // Prefix-tree nodes are in preorder: a node's subtree is [node, end), so one below an exit follows it.
  const auto& nodes = vocab_->nodes();
  uint32_t covered_end = 0;
  uint64_t below = 0;
  size_t kept = 0;
  for (const uint32_t n : exit_norm_) {
    if (n < covered_end) continue;
    exit_norm_[kept++] = n;
    covered_end = nodes[n].end;
    below += nodes[n].end - n;
  }
  exit_norm_.resize(kept);
  return walked >= kMinTruncatedWalk && below * kExitShare <= walked;
}

bool MaskEngine::fill_via_truncated(uint32_t state, uint64_t* out) {
  if (state == Npda::kDead || npda_.is_truncated(state)) return false;
  const uint32_t t = npda_.truncated_state(state, kMaxCutFrames);
  if (t == Npda::kDead || t == state) return false;
  const Cached* hit = cached(within_horizon(t));
  if (hit == nullptr || !hit->truncated) return false;
  copy_cached(*hit, out);
  stats_.truncated_hits++;
  // Walks store no mask: the pool stays as it is.
  if (hit->exit_len > 0) walk_exits(state, exit_pool_.data() + hit->exit_begin, hit->exit_len, out);
  tokens_apart(state, out);  // what the truncated state could not say of them
  return true;
}

void MaskEngine::note_exits(const Cached& c) {
  exits_.insert(exits_.end(), exit_pool_.begin() + c.exit_begin,
                exit_pool_.begin() + c.exit_begin + c.exit_len);
}

// The real state is stepped along each exit's path and walked below it, into a buffer of its own: a slice
// there may take back bits it set itself (a cut child), which must not touch the truncated state's.
void MaskEngine::walk_exits(uint32_t state, const uint32_t* exits, uint32_t n_exits, uint64_t* out) {
  const Vocab& v = *vocab_;
  const size_t words = v.n_words();
  exit_bits_.assign(words, 0);
  const auto& nodes = v.nodes();
  const auto& parents = v.node_parents();
  token_tops_seen_ = false;
  for (uint32_t e = 0; e < n_exits; e++) {
    const uint32_t node = exits[e];
    exit_path_.clear();
    for (uint32_t n = node; n != 0; n = parents[n]) exit_path_.push_back(nodes[n].cp);
    uint32_t at = state;
    for (auto it = exit_path_.rbegin(); it != exit_path_.rend() && at != Npda::kDead; ++it)
      at = npda_.step(at, *it);
    if (at == Npda::kDead) continue;
    work_.clear();
    enter(node, at, exit_bits_.data());
    drain_work(exit_bits_.data());
  }
  for (size_t w = 0; w < words; w++) out[w] |= exit_bits_[w];
}

void MaskEngine::warm_positions(const std::atomic<bool>* stop) {
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_acquire); };
  // Breadth first from the initial state, so that a warm-up cut short has the first positions; a state whose
  // truncated state was met before is not followed (the same position under another context).
  std::vector<uint32_t> queue{npda_.initial()}, positions;
  std::vector<uint8_t> seen;
  size_t explored = 0;
  for (size_t qi = 0; qi < queue.size() && explored < kWarmPositions && !stopped(); qi++) {
    const uint32_t s = queue[qi];
    const uint32_t t = npda_.truncated_state(s, kMaxCutFrames);
    if (t == Npda::kDead) continue;
    if (seen.size() <= t) seen.resize(static_cast<size_t>(t) * 2 + 64, 0);
    if (seen[t]) continue;
    seen[t] = 1;
    explored++;
    if (!npda_.exposed(t) && npda_.n_stacks(t) >= kWarmMinStacks) positions.push_back(t);
    Npda::Partition& p = npda_.partition(s);
    for (uint32_t j = 0; j < p.breaks.size(); j++) {
      const uint32_t n = npda_.successor_in(p, s, j);
      if (n != Npda::kDead && !npda_.has_token_tops(n)) queue.push_back(n);
    }
  }
  std::vector<uint64_t> out(vocab_->n_words());
  for (const uint32_t t : positions) {
    if (stopped()) break;
    fill(t, PartialUtf8{}, out.data());
    truncated_masks_ = true;
  }
  // The tables now hold thousands of states: their next growth (a copy, a rehash) happens here, unless the
  // engine's user is waiting.
  if (stopped()) return;
  npda_.reserve_growth();
  uniform_of_.reserve(uniform_of_.size() * 2);
}

}  // namespace toolwright::grammar
