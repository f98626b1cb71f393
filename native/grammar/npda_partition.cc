// The NPDA's character steps: each state's partition of the code points into intervals on which
// the same stacks match (built once per set of character classes, shared by the states that have
// it), the step over one interval, and the partial-UTF-8 check.
#include <algorithm>

#include "npda.h"

namespace toolwright::grammar {

bool Npda::any_class_matches(uint32_t state, uint32_t cp) const {
  const Grammar& g = *grammar_;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node == kEmptyStack) continue;
    const uint32_t cls = g.class_at[node_pos_[node]];
    if (cls != Grammar::kNoClass && g.classes[cls].matches(cp)) return true;
  }
  return false;
}

bool Npda::matches_partial_slow(uint32_t state, PartialUtf8 partial) const {
  const Grammar& g = *grammar_;
  // The stacks of a state often share a few classes (an object's keys under many contexts): each
  // class is tested once (the first few remembered), and ASCII-only ones not at all.
  constexpr size_t kRemembered = 8;
  uint32_t tested[kRemembered];
  size_t n_tested = 0;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node == kEmptyStack) continue;
    const uint32_t cls = g.class_at[node_pos_[node]];
    if (cls == Grammar::kNoClass || g.classes[cls].partial_kind == CharClass::PartialKind::Never) continue;
    if (std::find(tested, tested + n_tested, cls) != tested + n_tested) continue;
    if (n_tested < kRemembered) tested[n_tested++] = cls;
    if (g.classes[cls].matches_partial(partial.value, partial.n_remain)) return true;
  }
  return false;
}

void Npda::build_partition(uint32_t state) {
  const Grammar& g = *grammar_;
  // Many stacks often share a class (one per way to continue after a string): take each once.
  if (class_mark_.size() < g.classes.size()) class_mark_.resize(g.classes.size(), 0u);
  if (++class_epoch_ == 0) {
    std::fill(class_mark_.begin(), class_mark_.end(), 0u);
    class_epoch_ = 1;
  }
  std::vector<uint32_t>& classes = class_buf_;
  classes.clear();
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node == kEmptyStack) continue;
    const uint32_t cls = g.class_at[node_pos_[node]];
    if (cls == Grammar::kNoClass || class_mark_[cls] == class_epoch_) continue;
    class_mark_[cls] = class_epoch_;
    classes.push_back(cls);
  }
  std::sort(classes.begin(), classes.end());
  const uint64_t h = hash_list(classes.data(), classes.size());
  const uint32_t known = class_set_index_.find(h);
  if (known != FlatMap64::kMissing) {
    const ClassSet& cs = class_sets_[known];
    if (cs.len == classes.size() &&
        std::equal(classes.begin(), classes.end(), class_set_pool_.begin() + cs.off)) {
      states_[state].partition = static_cast<uint32_t>(partitions_.size());
      states_[state].class_set = known;
      partitions_.add_like(partitions_[cs.partition]);
      return;
    }
  }
  std::vector<uint32_t>& breaks = break_buf_;
  breaks.assign(1, 0u);
  for (const uint32_t cls : classes) {
    for (const auto& [lo, hi] : g.classes[cls].accepts) {
      breaks.push_back(lo);
      if (hi != UINT32_MAX) breaks.push_back(hi + 1);
    }
  }
  std::sort(breaks.begin(), breaks.end());
  breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
  const auto partition = static_cast<uint32_t>(partitions_.size());
  states_[state].partition = partition;
  partitions_.add(breaks.data(), static_cast<uint32_t>(breaks.size()));
  if (known == FlatMap64::kMissing) {
    const uint64_t span = live_segments_span(state);
    states_[state].class_set = static_cast<uint32_t>(class_sets_.size());
    class_set_index_.insert(h, states_[state].class_set);
    class_sets_.push_back(ClassSet{static_cast<uint32_t>(class_set_pool_.size()),
                                   static_cast<uint32_t>(classes.size()), partition, span});
    class_set_pool_.insert(class_set_pool_.end(), classes.begin(), classes.end());
  }
}

uint64_t Npda::accepted_span(uint32_t state) {
  partition(state);  // records the state's class set
  const uint32_t cs = states_[state].class_set;
  return cs != kNone ? class_sets_[cs].span : live_segments_span(state);
}

uint64_t Npda::live_segments_span(uint32_t state) {
  const Partition& p = partition(state);
  uint64_t span = 0;
  for (uint32_t j = 0; j < p.breaks.size(); j++) {
    if (any_class_matches(state, p.breaks[j])) span += uint64_t{p.seg_end(j)} - p.breaks[j] + 1;
  }
  return span;
}

Npda::Partition& Npda::PartitionStore::add_like(const Partition& model) {
  Partition p;
  p.breaks = model.breaks;
  p.succ = Words{alloc(model.succ.n), model.succ.n};
  std::fill(p.succ.begin(), p.succ.end(), kUnset);
  std::copy(std::begin(model.ascii), std::end(model.ascii), std::begin(p.ascii));
  if ((size_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Partition[]>(kChunk));
  Partition& at = (*this)[size_++];
  at = p;
  return at;
}

Npda::Partition& Npda::PartitionStore::add(const uint32_t* breaks, uint32_t n) {
  Partition p;
  p.breaks = Words{alloc(n), n};
  p.succ = Words{alloc(n), n};
  std::copy(breaks, breaks + n, p.breaks.data);
  std::fill(p.succ.begin(), p.succ.end(), kUnset);
  // Segment j covers [breaks[j], breaks[j + 1]): fill the ASCII table run by run.
  for (uint32_t seg = 0; seg < n && breaks[seg] < 128; seg++) {
    const uint32_t end = seg + 1 < n ? std::min<uint32_t>(breaks[seg + 1], 128) : 128;
    std::fill(p.ascii + breaks[seg], p.ascii + end, static_cast<uint8_t>(seg));
  }
  if ((size_ & (kChunk - 1)) == 0) chunks_.push_back(std::make_unique<Partition[]>(kChunk));
  Partition& at = (*this)[size_++];
  at = p;
  return at;
}

uint32_t* Npda::PartitionStore::alloc(size_t n) {
  if (n > left_) {
    const size_t words = std::max(n, next_block_);
    next_block_ = std::min(2 * next_block_, kMaxBlockWords);
    blocks_.push_back(std::make_unique<uint32_t[]>(words));
    free_ = blocks_.back().get();
    left_ = words;
    words_ += words;
  }
  uint32_t* at = free_;
  free_ += n;
  left_ -= n;
  return at;
}

Npda::PartitionStore::PartitionStore(const PartitionStore& other) {
  for (size_t i = 0; i < other.size_; i++) {
    const Partition& p = other.chunks_[i >> kChunkBits][i & (kChunk - 1)];
    Partition& q = add(p.breaks.data, p.breaks.n);
    std::copy(p.succ.begin(), p.succ.end(), q.succ.data);
  }
}

uint32_t Npda::segment_of(const Partition& p, uint32_t cp) {
  return static_cast<uint32_t>(std::upper_bound(p.breaks.begin(), p.breaks.end(), cp) - p.breaks.begin()) - 1;
}

uint32_t Npda::compute_step(uint32_t state, uint32_t seg) {
  const Grammar& g = *grammar_;
  const uint32_t rep = partitions_[states_[state].partition].breaks[seg];
  uint32_t single = kNone;                 // the one successor list so far
  std::vector<uint32_t>& all = step_buf_;  // no re-entry: successor() builds its list in out_
  bool many = false;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node == kEmptyStack) continue;
    const uint32_t cls = g.class_at[node_pos_[node]];
    if (cls == Grammar::kNoClass || !g.classes[cls].matches(rep)) continue;
    const uint32_t list = successor(node);
    if (single == kNone) {
      single = list;
    } else if (list != single) {
      if (!many) {
        all.assign(list_nodes(single), list_nodes(single) + list_len(single));
        many = true;
      }
      all.insert(all.end(), list_nodes(list), list_nodes(list) + list_len(list));
    }
  }
  if (many) return intern(all);
  return single == kNone ? kDead : list_state(single);
}

}  // namespace toolwright::grammar
