// MaskEngine, part 4: masks through positions. A state's top frames decide most tokens alone (an object's
// keys, a value, whatever encloses them), so a mask cached for its position serves every context it appears
// in; only the tokens that reach past the cut frames (the exits) are the context's to take.
#include <algorithm>
#include <cstring>

#include "mask.h"

namespace toolwright::grammar {

bool MaskEngine::keep_truncated(size_t from, uint64_t work) {
  work = std::max(work, work_floor_);
  exit_all_.assign(exits_.begin() + static_cast<std::ptrdiff_t>(from), exits_.end());
  std::sort(exit_all_.begin(), exit_all_.end());
  exit_all_.erase(std::unique(exit_all_.begin(), exit_all_.end()), exit_all_.end());
  exits_walkable_ = false;
  if (work < kMinTruncatedWalk || (!exit_all_.empty() && exit_all_[0] == 0)) return false;
  // Prefix-tree nodes are in preorder: a node's subtree is [node, end), so one below an exit follows it.
  const auto& nodes = vocab_->nodes();
  uint32_t covered_end = 0;
  uint64_t below = 0;
  for (const uint32_t n : exit_all_) {
    if (n < covered_end) continue;
    covered_end = nodes[n].end;
    below += nodes[n].end - n;
  }
  exits_walkable_ = below * kExitShare <= work;
  return true;
}

bool MaskEngine::fill_via_position(uint32_t state, uint64_t* out) {
  if (state == Npda::kDead || npda_.is_truncated(state)) return false;
  uint32_t context = Npda::kDead;
  const uint32_t t = npda_.position(state, context);
  const Cached* hit = t == Npda::kDead ? nullptr : cached(within_horizon(t));
  const uint32_t after =
      hit != nullptr && hit->suffixes != kNoSuffixes ? npda_.context_state(context) : Npda::kDead;
  if (after != Npda::kDead && !npda_.has_token_tops(after)) {
    copy_cached(*hit, out);
    if (!walk_suffixes(suffixes_[hit->suffixes], after, out)) return false;
    stats_.suffix_hits++;
  } else {
    // The stacks cut a few frames down each, over contexts of their own: the real state walks below the
    // exits.
    const uint32_t cut = cut_position(state);
    if (cut == Npda::kDead || cut == state) return false;
    hit = cached(within_horizon(cut));
    if (hit == nullptr) hit = mask_on_return(cut, out);
    if (hit == nullptr || !hit->walk_exits) return false;
    copy_cached(*hit, out);
    // Walks store no mask: the pool stays as it is.
    if (hit->exit_len > 0) walk_exits(state, exit_pool_.data() + hit->exit_begin, hit->exit_len, out);
  }
  stats_.truncated_hits++;
  tokens_apart(state, out);  // what the position could not say of them
  return true;
}

// A cut position the warm-up did not mask is masked when a second real state meets it (the nth key of an
// object whose keys each add a frame of their own comes back n times; one met once is not worth its mask).
const MaskEngine::Cached* MaskEngine::mask_on_return(uint32_t cut, uint64_t* scratch) {
  if (part_depth_ > 0) return nullptr;  // a part's walk lists its exits for the whole: leave them be
  if (position_returns_.size() <= cut) position_returns_.resize(static_cast<size_t>(cut) * 2 + 64, 0);
  uint8_t& met = position_returns_[cut];
  if (met++ != 1) {
    met = std::min<uint8_t>(met, 2);
    return nullptr;
  }
  // Worth keeping even if cheap for itself: the real states around it build states of their own.
  work_floor_ = kReturnedWork;
  fill(cut, PartialUtf8{}, scratch);
  work_floor_ = 0;
  stats_.returned_positions++;
  return cached(within_horizon(cut));
}

void MaskEngine::note_exits(const Cached& c) {
  exits_.insert(exits_.end(), exit_pool_.begin() + c.exit_begin,
                exit_pool_.begin() + c.exit_begin + c.exit_len);
}

// The real state is stepped along each outermost exit's path and walked below it, into a buffer of its own: a
// slice there may take back bits it set itself (a cut child), which must not touch the position's.
void MaskEngine::walk_exits(uint32_t state, const uint32_t* exits, uint32_t n_exits, uint64_t* out) {
  const Vocab& v = *vocab_;
  const size_t words = v.n_words();
  exit_bits_.assign(words, 0);
  const auto& nodes = v.nodes();
  const auto& parents = v.node_parents();
  token_tops_seen_ = false;
  uint32_t covered_end = 0;
  for (uint32_t e = 0; e < n_exits; e++) {
    const uint32_t node = exits[e];
    if (node < covered_end) continue;  // the walk below the exit above it takes it
    covered_end = nodes[node].end;
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
  // position was met before is not followed (the same position under another context), but where that
  // position finishes is (the rest of an object after a value met elsewhere).
  std::vector<uint32_t> queue{npda_.initial()};
  // Per state explored: its shared and its cut position (kDead where not new, or not worth a mask).
  std::vector<std::pair<uint32_t, uint32_t>> positions;
  std::vector<uint8_t> seen;  // state -> met (as a position, or as a state without one)
  auto first_time = [&seen](uint32_t s) {
    if (seen.size() <= s) seen.resize(static_cast<size_t>(s) * 2 + 64, 0);
    if (seen[s]) return false;
    seen[s] = 1;
    return true;
  };
  auto worth = [this](uint32_t t) {
    return t != Npda::kDead && !npda_.exposed(t) && npda_.n_stacks(t) >= kWarmMinStacks;
  };
  // Where known positions finish under contexts of their own: explored once the queue is done (a grammar
  // whose positions exceed the budget keeps the breadth-first ones).
  std::vector<uint32_t> later;
  size_t explored = 0;
  for (size_t qi = 0; explored < kWarmPositions && !stopped(); qi++) {
    if (qi == queue.size()) {
      if (later.empty()) break;
      queue.insert(queue.end(), later.begin(), later.end());
      later.clear();
    }
    const uint32_t s = queue[qi];
    uint32_t context = Npda::kDead;
    const uint32_t shared = npda_.position(s, context), cut = cut_position(s);
    const bool new_shared = shared != Npda::kDead && first_time(shared);
    const bool new_cut = cut != Npda::kDead && first_time(cut);
    // A state with no position at all is followed once.
    const bool no_position = shared == Npda::kDead && cut == Npda::kDead;
    if (!new_shared && !new_cut && !(no_position && first_time(s))) {
      // Its position is known, not what follows it here: go on where the position's frames finish (after a
      // value, the rest of its object), once per such state.
      const uint32_t after = npda_.context_state(context);
      if (after != Npda::kDead && !npda_.has_token_tops(after) && first_time(after)) later.push_back(after);
      continue;
    }
    explored++;
    positions.emplace_back(new_shared && worth(shared) ? shared : Npda::kDead,
                           new_cut && worth(cut) ? cut : Npda::kDead);
    Npda::Partition& p = npda_.partition(s);
    for (uint32_t j = 0; j < p.breaks.size(); j++) {
      const uint32_t n = npda_.successor_in(p, s, j);
      if (n != Npda::kDead && !npda_.has_token_tops(n)) queue.push_back(n);
    }
  }
  // Shared positions first (their real states take a few suffixes); a cut position only for a state whose
  // shared one cannot serve.
  std::vector<uint64_t> out(vocab_->n_words());
  for (const auto& [shared, cut] : positions) {
    if (stopped()) break;
    if (shared == Npda::kDead) continue;
    fill(shared, PartialUtf8{}, out.data());
    truncated_masks_ = true;
  }
  for (const auto& [shared, cut] : positions) {
    if (stopped()) break;
    const Cached* c = shared == Npda::kDead ? nullptr : cached(within_horizon(shared));
    if (cut == Npda::kDead || (c != nullptr && c->suffixes != kNoSuffixes)) continue;
    fill(cut, PartialUtf8{}, out.data());
    truncated_masks_ = true;
  }
  // The tables now hold thousands of states: their next growth (a copy, a rehash) happens here, unless the
  // engine's user is waiting.
  if (stopped()) return;
  reserve_growth();
}

void MaskEngine::reserve_growth() {
  npda_.reserve_growth();
  uniform_of_.reserve(uniform_of_.size() * 2);
  const size_t states = npda_.n_states() * 2, nodes = npda_.n_nodes() * 2;
  if (stand_in_of_.size() < states) stand_in_of_.resize(states, Npda::kUnset);
  if (frames_move_.size() < nodes) frames_move_.resize(nodes, 0);
  if (cache_slot_.size() < states) cache_slot_.resize(states, -1);
  if (position_returns_.size() < states) position_returns_.resize(states, 0);
  if (broad_memo_.size() < states) broad_memo_.resize(states, 0);
  if (group_mark_.size() < states) group_mark_.resize(states, 0u);
  if (group_level_.size() < states) group_level_.resize(states, 0u);
  for (DenseMap32* memo : {&plan_of_, &group_of_, &split_of_, &self_loop_of_}) memo->grow_to(states);
}

}  // namespace toolwright::grammar
