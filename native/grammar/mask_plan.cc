// MaskEngine, part 2: how a state walks its broad character classes (the plans that decide
// whether, and how, a class slice can replace walking the prefix tree).
#include <algorithm>

#include "mask.h"

namespace toolwright::grammar {

// The state's broadest class: the code points that all lead to one successor, picked by how
// many code points they cover. Returns the successor (kDead when under kSliceMinSpan).
uint32_t MaskEngine::broadest_class(uint32_t state, std::vector<std::pair<uint32_t, uint32_t>>& set) {
  set.clear();
  // Cheap test first: are enough code points accepted at all? (No successors computed.)
  if (npda_.accepted_span(state) < kSliceMinSpan) return Npda::kDead;
  Npda::Partition& p = npda_.partition(state);
  spans_.clear();  // successor -> code points
  for (uint32_t j = 0; j < p.breaks.size(); j++) {
    const uint32_t s = npda_.successor_in(p, state, j);
    if (s == Npda::kDead) continue;
    const uint64_t span = static_cast<uint64_t>(p.seg_end(j)) - p.breaks[j] + 1;
    auto it = std::find_if(spans_.begin(), spans_.end(), [s](const auto& x) { return x.first == s; });
    if (it == spans_.end())
      spans_.emplace_back(s, span);
    else
      it->second += span;
  }
  uint32_t best = Npda::kDead;
  uint64_t best_span = 0;
  for (const auto& [s, span] : spans_) {
    if (span > best_span) {
      best = s;
      best_span = span;
    }
  }
  if (best_span < kSliceMinSpan) return Npda::kDead;
  for (uint32_t j = 0; j < p.breaks.size(); j++) {
    if (p.succ[j] != best) continue;
    if (!set.empty() && set.back().second != UINT32_MAX && set.back().second + 1 == p.breaks[j]) {
      set.back().second = p.seg_end(j);
    } else {
      set.emplace_back(p.breaks[j], p.seg_end(j));
    }
  }
  return best;
}

namespace {

using Intervals = std::vector<std::pair<uint32_t, uint32_t>>;

uint64_t span_of(const Intervals& v) {
  uint64_t n = 0;
  for (const auto& [lo, hi] : v) n += static_cast<uint64_t>(hi) - lo + 1;
  return n;
}

// Appends [lo, hi] to sorted disjoint intervals, merged with the last one where they touch (the canonical
// form sets are interned in).
void append(Intervals& out, uint64_t lo, uint64_t hi) {
  if (!out.empty() && uint64_t{out.back().second} + 1 == lo) {
    out.back().second = static_cast<uint32_t>(hi);
  } else {
    out.emplace_back(static_cast<uint32_t>(lo), static_cast<uint32_t>(hi));
  }
}

// out = a minus b (sorted disjoint intervals): one pass over both.
void difference(const Intervals& a, const Intervals& b, Intervals& out) {
  out.clear();
  size_t j = 0;
  for (const auto& [lo, hi] : a) {
    uint64_t cur = lo;
    while (j < b.size() && b[j].second < cur) j++;
    for (size_t k = j; cur <= hi; k++) {
      if (k == b.size() || b[k].first > hi) {
        append(out, cur, hi);
        break;
      }
      if (b[k].first > cur) append(out, cur, b[k].first - 1);
      cur = uint64_t{b[k].second} + 1;
    }
  }
}

// out = a and b (sorted disjoint intervals).
void intersection(const Intervals& a, const Intervals& b, Intervals& out) {
  out.clear();
  for (size_t i = 0, j = 0; i < a.size() && j < b.size();) {
    const uint32_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (lo <= hi) append(out, lo, hi);
    if (a[i].second < b[j].second) {
      i++;
    } else {
      j++;
    }
  }
}

}  // namespace

// Code points the state accepts (with a live successor or not: no successor is computed); callers only ask
// whether a slice could pay off (at least kSliceMinSpan), which a memoised state answers at once.
uint64_t MaskEngine::live_span(uint32_t state) {
  // Memoised: group exploration asks about the same dead-end states once per group member.
  if (state < broad_memo_.size() && (broad_memo_[state] & kSpanKnown))
    return (broad_memo_[state] & kSpanBroad) ? kSliceMinSpan : 0;
  const uint64_t live = npda_.accepted_span(state);
  if (broad_memo_.size() <= state) broad_memo_.resize(static_cast<size_t>(state) * 2 + 64, 0);
  broad_memo_[state] |= kSpanKnown | (live >= kSliceMinSpan ? kSpanBroad : 0);
  return live;
}

// Is `s` a state a class can loop through? Dead, waiting on a token, narrow (an escape, after
// a closing quote), or finished with the frames a truncated state knows (its real successor
// depends on the context) are not: those characters are handled exactly instead.
bool MaskEngine::loopable(uint32_t s, Plan& pl, bool looping, uint64_t min_member_span) {
  // Finishing the frames on the first character (a closing quote) is normal; inside the loop
  // it means the truncated state's answer may differ from the real one's.
  if (npda_.exposed(s)) {
    pl.saw_exposed = true;
    if (looping) pl.context_free = false;
  }
  return s != Npda::kDead && !npda_.has_token_tops(s) && !npda_.exposed(s) && live_span(s) >= kSliceMinSpan &&
         (min_member_span <= kSliceMinSpan || live_span_upto(s, min_member_span) >= min_member_span);
}

// Code points the state accepts, counted up to `cap`.
uint64_t MaskEngine::live_span_upto(uint32_t state, uint64_t cap) {
  return std::min(npda_.accepted_span(state), cap);
}

uint64_t MaskEngine::set_span(uint32_t set_id) {
  uint64_t n = 0;
  for (const auto& [lo, hi] : vocab_->slices().set(set_id).intervals) n += static_cast<uint64_t>(hi) - lo + 1;
  return n;
}

// First characters S0 (those leading from the state to a loopable state) and a set U such that
// every character of U takes every state of the group G (the states reached so) to a state of
// G: then every token of one S0 character followed by U characters is allowed.
bool MaskEngine::group_plan(uint32_t state, Plan& pl, uint64_t min_member_span) {
  // A state met inside a group that outgrew kMaxGroupStates would grow the same way (a bounded
  // repetition `x{1,1024}` is a chain of a thousand states, one per count): give up at once
  // rather than explore hundreds of states again at every position of the chain.
  if (state < broad_memo_.size() && (broad_memo_[state] & kTooBig)) return false;
  Intervals first;
  // Explored breadth first (`group` is the queue); level[i] = characters from the state to group[i].
  std::vector<uint32_t> group, level;
  uint32_t joined_level = 1;
  if (++group_epoch_ == 0) {
    std::fill(group_mark_.begin(), group_mark_.end(), 0u);
    group_epoch_ = 1;
  }
  // Membership by epoch mark: groups reach hundreds of states.
  auto in_group = [&](uint32_t s) { return s < group_mark_.size() && group_mark_[s] == group_epoch_; };
  auto join = [&](uint32_t s) {
    if (s >= group_mark_.size()) {
      group_mark_.resize(static_cast<size_t>(s) * 2 + 64, 0u);
      group_level_.resize(group_mark_.size(), 0u);
    }
    group_mark_[s] = group_epoch_;
    group_level_[s] = joined_level;
    group.push_back(s);
    level.push_back(joined_level);
  };
  {
    Npda::Partition& p = npda_.partition(state);
    for (uint32_t j = 0; j < p.breaks.size(); j++) {
      const uint32_t s = npda_.successor_in(p, state, j);
      if (!loopable(s, pl, false, min_member_span)) continue;
      if (!first.empty() && first.back().second != UINT32_MAX && first.back().second + 1 == p.breaks[j]) {
        first.back().second = p.seg_end(j);
      } else {
        first.emplace_back(p.breaks[j], p.seg_end(j));
      }
      if (!in_group(s)) join(s);
    }
  }
  if (span_of(first) < kSliceMinSpan) return false;
  Intervals set{{0, UINT32_MAX}};
  Intervals drop, kept;
  uint32_t max_level = 1;
  bool looped = false;  // some character led back into the group
  for (size_t qi = 0; qi < group.size(); qi++) {
    const uint32_t x = group[qi];
    joined_level = level[qi] + 1;
    Npda::Partition& p = npda_.partition(x);
    drop.clear();
    for (const auto& [lo, hi] : set) {
      for (uint32_t j = Npda::segment_of(p, lo); j < p.breaks.size() && p.breaks[j] <= hi; j++) {
        const uint32_t s = npda_.successor_in(p, x, j);
        if (in_group(s)) {
          // Back to an earlier level (or itself): a loop, not a step forward.
          looped = looped || s == x || group_level_[s] < level[qi];
          continue;
        }
        if (!loopable(s, pl, true, min_member_span)) {
          drop.emplace_back(std::max(lo, p.breaks[j]), std::min(hi, p.seg_end(j)));
          continue;
        }
        max_level = std::max(max_level, joined_level);
        // A group that has only grown, never looped back, for kChainLevels characters is
        // a chain (a bounded repetition counting up): it would grow to its bound.
        if (group.size() >= kMaxGroupStates || joined_level > kMaxGroupLevels ||
            (!looped && joined_level > kChainLevels)) {
          for (const uint32_t g : group) {
            if (broad_memo_.size() <= g) broad_memo_.resize(static_cast<size_t>(g) * 2 + 64, 0);
            broad_memo_[g] |= kTooBig;
          }
          return false;
        }
        join(s);
      }
    }
    if (!drop.empty()) {
      difference(set, drop, kept);
      set.swap(kept);
    }
    if (span_of(set) < kSliceMinSpan) return false;
  }
  return group_ranges(state, first, set, pl);
}

// Completes a group plan: the accepted first characters outside `first` are walked by range at
// the slice's node; rest characters that are not first characters are cut from a shared slice
// when few.
bool MaskEngine::group_ranges(uint32_t state, const std::vector<std::pair<uint32_t, uint32_t>>& first_all,
                              const std::vector<std::pair<uint32_t, uint32_t>>& set, Plan& pl) {
  // First characters outside the loop set are walked by range (so the slice's first set lies
  // inside its rest set, and a shared slice can serve it).
  Intervals first_in;
  intersection(first_all, set, first_in);
  if (span_of(first_in) < kSliceMinSpan) return false;
  const Intervals& first = first_in;
  pl.usable = pl.group = true;
  pl.first_set = vocab_->slices().intern(first);
  pl.rest_set = vocab_->slices().intern(set);
  pl.max_chars = kUnbounded;
  Intervals live, rest;
  Npda::Partition& p = npda_.partition(state);
  for (uint32_t j = 0; j < p.breaks.size(); j++) {
    if (npda_.successor_in(p, state, j) == Npda::kDead) continue;
    live.emplace_back(p.breaks[j], p.seg_end(j));
  }
  difference(live, first, rest);
  pl.range_begin = static_cast<uint32_t>(ranges_pool_.size());
  pl.range_len = static_cast<uint32_t>(rest.size());
  ranges_pool_.insert(ranges_pool_.end(), rest.begin(), rest.end());
  std::vector<uint32_t> cut, outside;
  if (pl.first_set != pl.rest_set && difference_small(first, set, outside) && outside.empty() &&
      difference_small(set, first, cut) && !cut.empty()) {
    pl.cut_begin = static_cast<uint32_t>(cut_pool_.size());
    pl.cut_len = static_cast<uint32_t>(cut.size());
    cut_pool_.insert(cut_pool_.end(), cut.begin(), cut.end());
  }
  const uint32_t loop = uniform_successor(state, pl.first_set);
  if (loop != kNotUniform && loop != Npda::kDead && uniform_successor(loop, pl.rest_set) == loop)
    pl.loop_state = loop;
  return true;
}

// Does the state loop on a class through a group of states? Only this part of a plan is asked
// where no slice is applied (split(), the truncated frames below), so it is memoised apart: a
// chain plan follows up to a token's length of states, which a bounded repetition
// (`x{1,1024}`) makes all new.
const MaskEngine::Plan& MaskEngine::group_only(uint32_t state) {
  const uint32_t memo = group_of_.find(state);
  if (memo != FlatMap64::kMissing) return plans_[memo];
  Plan pl;
  if (live_span(state) >= kSliceMinSpan && !find_group(state, pl)) {
    Plan none;
    none.saw_exposed = pl.saw_exposed;
    pl = none;
  }
  const auto idx = static_cast<uint32_t>(plans_.size());
  plans_.push_back(pl);
  group_of_.insert(state, idx);
  return plans_.back();
}

bool MaskEngine::find_group(uint32_t state, Plan& pl) {
  const uint32_t n = npda_.n_stacks(state);
  if (!npda_.is_truncated(state) && !(n == 1 && npda_.stacks(state)[0] == Npda::kEmptyStack)) {
    // The top frames usually decide alone (a string body does not look at what encloses the
    // string), and then the group found for them serves every context. One stack: its top 1,
    // 2 or 3 frames. Several (the keys an object may take next, each under another count of
    // properties seen): each stack's frames down to one that does more than end, so that the
    // same keys cut the same way wherever the object is.
    const int tries = n == 1 ? 3 : 1;
    for (int frames = 1; frames <= tries; frames++) {
      const uint32_t t = n == 1 ? npda_.truncated(npda_.stacks(state)[0], frames) : cut_position(state);
      const Plan tp = group_only(t);
      // Only if the frames never finished: then the real state loops the same way.
      if (tp.group && tp.context_free) {
        // Interned sets are never moved or changed (group_ranges() may intern more).
        const auto& first = vocab_->slices().set(tp.first_set).intervals;
        const auto& set = vocab_->slices().set(tp.rest_set).intervals;
        if (group_ranges(state, first, set, pl)) return true;
      }
      // No group, found without the frames ever finishing: none over any context either.
      if (!tp.group && !tp.saw_exposed) return false;
    }
  }
  if (!group_plan(state, pl)) return false;
  if (set_span(pl.rest_set) < kNarrowGroupSpan) {
    Plan wide;
    const bool widened =
        group_plan(state, wide, kBroadMemberSpan) && set_span(wide.rest_set) > set_span(pl.rest_set);
    wide.saw_exposed = wide.saw_exposed || pl.saw_exposed;
    if (widened) pl = wide;
    pl.saw_exposed = wide.saw_exposed;
  }
  return true;
}

const MaskEngine::Plan& MaskEngine::plan(uint32_t state) {
  const uint32_t memo = plan_of_.find(state);
  if (memo != FlatMap64::kMissing) return plans_[memo];
  Plan pl;
  if (live_span(state) < kSliceMinSpan) {
    // Too few characters for any slice (group or chain): skip exploring successors, which
    // would build states and partitions the walk may never need.
    const auto idx = static_cast<uint32_t>(plans_.size());
    plans_.push_back(pl);
    plan_of_.insert(state, idx);
    return plans_.back();
  }
  if (group_only(state).group) {
    plan_of_.insert(state, group_of_.find(state));
    return plans_[group_of_.find(state)];
  }
  pl = Plan{};
  std::vector<std::pair<uint32_t, uint32_t>> set;
  const uint32_t best = broadest_class(state, set);
  if (best != Npda::kDead) {
    pl.first_set = pl.rest_set = vocab_->slices().intern(set);
    // After the first character the class may widen (e.g. a key that must not start like a
    // listed property, then any string body): follow the next state's own broadest class.
    const auto first = set;
    if (best != state && !npda_.has_token_tops(best) && broadest_class(best, set) != Npda::kDead) {
      pl.rest_set = vocab_->slices().intern(set);
      // rest minus first, when it is a handful of code points: then the common slice of the
      // rest set is used with those first characters cut out at mask time.
      // (Only when the first set lies inside the rest set: the common slice then covers it.)
      std::vector<uint32_t> cut, outside;
      if (!difference_small(first, set, outside) || !outside.empty() || !difference_small(set, first, cut)) {
        cut.assign(kMaxCutChars + 1, 0);
      }
      if (cut.size() <= kMaxCutChars && !cut.empty()) {
        pl.cut_begin = static_cast<uint32_t>(cut_pool_.size());
        pl.cut_len = static_cast<uint32_t>(cut.size());
        cut_pool_.insert(cut_pool_.end(), cut.begin(), cut.end());
      }
    }
    // Follow the class: the state after 1, 2, ... characters of it must be the same whichever
    // character was taken, and must not wait on a token element. Followed a few characters
    // now, further only as deep as a slice it serves needs (see extend_chain()).
    pl.usable = true;
    pl.first_next = best;
    pl.chain = static_cast<uint32_t>(chains_.size());
    chains_.push_back({state});
  }
  const auto idx = static_cast<uint32_t>(plans_.size());
  plans_.push_back(pl);
  plan_of_.insert(state, idx);
  if (pl.usable) extend_chain(idx, kEagerChain);
  return plans_[idx];
}

// Follows plan `idx`'s chain until it holds the states after 0..`upto` characters, or ends
// (dead, looping, a token's length). False if the class stops leading to one state (then the
// plan is unusable from here on; masks made so far looked only as deep as it was followed).
bool MaskEngine::extend_chain(uint32_t idx, uint32_t upto) {
  const auto cap = static_cast<uint32_t>(vocab_->max_token_cps());
  while (plans_[idx].usable && !plans_[idx].chain_done && chains_[plans_[idx].chain].size() <= upto) {
    Plan& pl = plans_[idx];
    std::vector<uint32_t>& chain = chains_[pl.chain];
    const auto d = static_cast<uint32_t>(chain.size() - 1);
    const uint32_t cur = chain.back();
    uint32_t next = d == 0 ? pl.first_next : uniform_successor(cur, pl.rest_set);
    // Deep in a bounded repetition, the state after one more character stands in its item's loop (as enter()
    // does for every state a walk reaches): a `char{1,255}` body is then a loop after its first character,
    // not a chain of a state per character up to the longest token.
    if (next != kNotUniform) next = within_horizon(next);
    if (next == kNotUniform || (next != Npda::kDead && npda_.has_token_tops(next))) {
      pl.usable = false;
      break;
    }
    pl.chain_done = true;
    if (next == Npda::kDead) {
      pl.max_chars = d;
      break;
    }
    if (next == cur && d > 0) {
      pl.max_chars = kUnbounded;
      break;
    }
    if (next == cur) {
      // Loops from the start: only valid if the first set is the looping set.
      if (pl.first_set != pl.rest_set) pl.rest_set = pl.first_set;
      pl.max_chars = kUnbounded;
      break;
    }
    chain.push_back(next);
    if (d + 1 >= cap) {
      pl.max_chars = d + 1;
      break;
    }
    pl.chain_done = false;
  }
  return plans_[idx].usable;
}
uint32_t MaskEngine::uniform_successor(uint32_t state, uint32_t set_id) {
  const uint64_t key = (static_cast<uint64_t>(state) << 32) | set_id;
  const uint32_t memo = uniform_of_.find(key);
  if (memo != FlatMap64::kMissing) return memo;
  const CodeSet& set = vocab_->slices().set(set_id);
  Npda::Partition& p = npda_.partition(state);
  uint32_t result = Npda::kUnset;
  for (const auto& [lo, hi] : set.intervals) {
    for (uint32_t j = Npda::segment_of(p, lo); j < p.breaks.size() && p.breaks[j] <= hi; j++) {
      const uint32_t s = npda_.successor_in(p, state, j);
      if (result == Npda::kUnset) {
        result = s;
      } else if (result != s) {
        result = kNotUniform;
        break;
      }
    }
    if (result == kNotUniform) break;
  }
  if (result == Npda::kUnset) result = Npda::kDead;
  uniform_of_.insert(key, result);
  return result;
}

// Code points of `a` not in `b` (both sorted disjoint intervals), if at most kMaxCutChars.
bool MaskEngine::difference_small(const std::vector<std::pair<uint32_t, uint32_t>>& a,
                                  const std::vector<std::pair<uint32_t, uint32_t>>& b,
                                  std::vector<uint32_t>& out) {
  out.clear();
  size_t j = 0;
  for (const auto& [lo, hi] : a) {
    uint64_t cur = lo;
    while (cur <= hi) {
      while (j < b.size() && b[j].second < cur) j++;
      // [cur, gap_end] is outside b
      const uint64_t gap_end =
          j < b.size() ? std::min<uint64_t>(hi, static_cast<uint64_t>(b[j].first) - 1) : hi;
      if (j < b.size() && b[j].first <= cur) {
        cur = static_cast<uint64_t>(b[j].second) + 1;
        continue;
      }
      if (gap_end - cur + 1 + out.size() > kMaxCutChars) return false;
      for (uint64_t cp = cur; cp <= gap_end; cp++) out.push_back(static_cast<uint32_t>(cp));
      cur = gap_end + 1;
    }
  }
  return true;
}

// The child of `node` on edge `cp`, or 0.
uint32_t MaskEngine::child_with(uint32_t node, uint32_t cp) const {
  const Vocab& v = *vocab_;
  const auto& nodes = v.nodes();
  const Vocab::Node& n = nodes[node];
  if (n.wide != Vocab::kNotWide) {
    const Vocab::WideNode& w = v.wide_nodes()[n.wide];
    const uint32_t* cps = v.wide_child_cps().data();
    const uint32_t* at = std::lower_bound(cps + w.begin, cps + w.end, cp);
    return at != cps + w.end && *at == cp ? v.wide_child_nodes()[at - cps] : 0;
  }
  for (uint32_t c = node + 1; c < n.end; c = nodes[c].end) {
    if (nodes[c].cp == cp) return c;
  }
  return 0;
}

}  // namespace toolwright::grammar
