#include "npda.h"

#include <algorithm>

namespace toolwright::grammar {

Npda::Npda(std::shared_ptr<const Grammar> grammar) : grammar_(std::move(grammar)) {
  node_pos_.push_back(kNone);  // node 0: the empty stack
  node_parent_.push_back(kNone);
  node_cut_depth_.push_back(kNoCut);
  node_shared_cut_.push_back(0);
  closure_of_.push_back(kUnset);
  succ_of_.push_back(kUnset);
}

uint32_t Npda::push(uint32_t parent, uint32_t pos) {
  const uint64_t key = (static_cast<uint64_t>(pos) << 32) | parent;
  const auto id = static_cast<uint32_t>(node_pos_.size());
  const uint32_t got = node_index_.insert(key, id);
  if (got == id) {
    node_pos_.push_back(pos);
    node_parent_.push_back(parent);
    const uint8_t below = node_cut_depth_[parent];
    node_cut_depth_.push_back(pos == grammar_->never_pos    ? 0
                              : below < kMaxTruncatedFrames ? below + 1
                                                            : kNoCut);
    // The bottom of a position cut at a shared frame is a second never-matching node over the first.
    node_shared_cut_.push_back(pos == grammar_->never_pos    ? parent != kEmptyStack
                               : below < kMaxTruncatedFrames ? node_shared_cut_[parent]
                                                             : 0);
    closure_of_.push_back(kUnset);
    succ_of_.push_back(kUnset);
  }
  return got;
}

uint32_t Npda::intern(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  if (v.empty()) return kDead;
  const uint64_t h = hash_list(v.data(), v.size());
  const uint32_t head = state_index_.find(h);
  for (uint32_t s = head; s != FlatMap64::kMissing; s = states_[s].hash_next) {
    const State& st = states_[s];
    if (st.len == v.size() && std::equal(v.begin(), v.end(), pool_.begin() + st.off)) return s;
  }
  State st{};
  st.off = static_cast<uint32_t>(pool_.size());
  st.len = static_cast<uint32_t>(v.size());
  st.hash_next = head;
  st.partition = kNone;
  st.class_set = kNone;
  const Grammar& g = *grammar_;
  bool any_always = false, any_depends = false;
  for (uint32_t node : v) {
    // Truncated stacks carry the never-matching bottom a few frames down.
    if (node_cut_depth_[node] <= kMaxTruncatedFrames) {
      st.truncated = true;
      if (node_cut_depth_[node] == 0) st.exposed = true;
      if (node_shared_cut_[node]) st.shared_cut = true;
    }
    if (node == kEmptyStack) {
      st.accepting = true;
    } else if (g.is_token_elem(node_pos_[node])) {
      st.token_tops = true;
    } else {
      st.char_tops = true;
      const CharClass& cls = g.classes[g.class_at[node_pos_[node]]];
      const auto kind = cls.partial_kind;
      st.partial_covers = st.partial_covers || cls.covers_non_ascii;
      any_always = any_always || kind == CharClass::PartialKind::Always;
      any_depends = any_depends || kind == CharClass::PartialKind::Depends;
    }
  }
  st.partial = any_always ? PartialMode::Always : any_depends ? PartialMode::Depends : PartialMode::Never;
  pool_.insert(pool_.end(), v.begin(), v.end());
  const auto id = static_cast<uint32_t>(states_.size());
  states_.push_back(st);
  state_index_.assign(h, id);
  return id;
}

// Expands rule references on top of `node` until every stack is topped by a terminal (or is
// empty): one stack per way the grammar can continue.
uint32_t Npda::closure(uint32_t node) {
  if (closure_of_[node] != kUnset) return closure_of_[node];
  const Grammar& g = *grammar_;
  todo_.clear();
  out_.clear();
  if (++epoch_ == 0) {
    std::fill(seen_epoch_.begin(), seen_epoch_.end(), 0u);
    epoch_ = 1;
  }
  todo_.push_back(node);
  while (!todo_.empty()) {
    const uint32_t n = todo_.back();
    todo_.pop_back();
    if (n >= seen_epoch_.size()) seen_epoch_.resize(node_pos_.size() + 64, 0u);
    if (seen_epoch_[n] == epoch_) continue;
    seen_epoch_[n] = epoch_;
    if (n == kEmptyStack) {
      out_.push_back(n);
      continue;
    }
    // A continuation met before (the value after a run of whitespace, at every run length):
    // its stacks are known.
    if (n != node && closure_of_[n] != kUnset) {
      const uint32_t known = closure_of_[n];
      out_.insert(out_.end(), list_nodes(known), list_nodes(known) + list_len(known));
      continue;
    }
    const uint32_t pos = node_pos_[n];
    if (g.elems[pos].type != ElemType::RuleRef) {
      out_.push_back(n);
      continue;
    }
    const uint32_t parent = node_parent_[n];
    const uint32_t cont = g.is_end_of_alt(pos + 1) ? parent : push(parent, pos + 1);
    for (uint32_t alt : g.alt_starts[g.elems[pos].value]) {
      todo_.push_back(g.is_end_of_alt(alt) ? cont : push(cont, alt));
    }
  }
  const uint32_t list = store_list(out_);
  closure_of_[node] = list;
  return list;
}

uint32_t Npda::store_list(std::vector<uint32_t>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
  const auto id = static_cast<uint32_t>(list_pool_.size());
  list_pool_.push_back(static_cast<uint32_t>(v.size()));
  list_pool_.push_back(kUnset);
  list_pool_.insert(list_pool_.end(), v.begin(), v.end());
  return id;
}

uint32_t Npda::list_state(uint32_t list) {
  if (list_pool_[list + 1] != kUnset) return list_pool_[list + 1];
  list_buf_.assign(list_nodes(list), list_nodes(list) + list_len(list));
  const uint32_t s = intern(list_buf_);
  list_pool_[list + 1] = s;
  return s;
}

uint32_t Npda::successor(uint32_t node) {
  if (succ_of_[node] != kUnset) return succ_of_[node];
  const Grammar& g = *grammar_;
  const uint32_t pos = node_pos_[node];
  const uint32_t next = g.is_token_elem(pos) ? pos + 1 : g.after_class[pos];
  const uint32_t parent = node_parent_[node];
  const uint32_t list = closure(g.is_end_of_alt(next) ? parent : push(parent, next));
  succ_of_[node] = list;
  return list;
}

uint32_t Npda::truncated_node(uint32_t stack, int frames, bool shared, bool lone_bottom) {
  uint32_t pos[kMaxTruncatedFrames];
  int n_pos = 0;
  frames = std::min(frames, kMaxTruncatedFrames);
  for (uint32_t n = stack; n != kEmptyStack && n_pos < frames; n = node_parent_[n]) {
    pos[n_pos++] = node_pos_[n];
  }
  if (lone_bottom && n_pos > 0) {
    const uint32_t lone = grammar_->lone_ref_at(pos[n_pos - 1]);
    if (lone != Grammar::kNoPos) pos[n_pos - 1] = lone;
  }
  uint32_t n = push(kEmptyStack, grammar_->never_pos);
  if (shared) n = push(n, grammar_->never_pos);
  for (int i = n_pos; i-- > 0;) n = push(n, pos[i]);
  return n;
}

uint32_t Npda::truncated(uint32_t stack, int frames) {
  std::vector<uint32_t> one{truncated_node(stack, frames)};
  return intern(one);
}

// Memoised per stack node: a stack sits in many states (those a walk steps through).
uint32_t Npda::cut_node(uint32_t stack, int max_frames) {
  if (cut_memo_frames_ != max_frames) {
    cut_memo_.clear();
    cut_memo_frames_ = max_frames;
  }
  if (cut_memo_.size() <= stack) cut_memo_.resize(node_pos_.size() + 64, kUnset);
  if (cut_memo_[stack] != kUnset) return cut_memo_[stack];
  // Down to the first frame that cannot end right after its next element (a frame about to end, or that may
  // end at once, hands over to its parent: whitespace after a newline).
  const Grammar& g = *grammar_;
  int frames = 1;
  for (uint32_t n = stack; frames < max_frames && n != kEmptyStack; n = node_parent_[n], frames++) {
    const uint32_t pos = node_pos_[n];
    const uint32_t next = g.class_at[pos] != Grammar::kNoClass ? g.after_class[pos] : pos + 1;
    if (!g.rest_nullable[next]) break;
  }
  // The deepest frame kept calls a rule and goes on after it: cut below that rule (Grammar::lone_ref), as
  // what comes after it differs between contexts that mask alike (an object's next key after 1, 2, ...
  // required ones, each count a rule of its own).
  const uint32_t cut =
      truncated_node(stack, frames, false, true);  // may push nodes; cut_memo_ covers `stack`
  cut_memo_[stack] = cut;
  return cut;
}

uint32_t Npda::position(uint32_t state, uint32_t& context) {
  context = kDead;
  if (state == kDead) return kDead;
  const uint32_t* st = stacks(state);
  const uint32_t n = n_stacks(state);
  uint32_t first = kNone;
  for (uint32_t i = 0; i < n && first == kNone; i++) {
    if (st[i] != kEmptyStack) first = st[i];
  }
  if (first == kNone) return kDead;
  // The nearest frame below the first stack's top that every other stack also stands on, within
  // kMaxTruncatedFrames frames of each top.
  auto depth_to = [&](uint32_t stack, uint32_t below) {
    int d = 1;
    for (uint32_t a = node_parent_[stack]; d <= kMaxTruncatedFrames; a = node_parent_[a], d++) {
      if (a == below) return d;
      if (a == kEmptyStack) break;
    }
    return 0;
  };
  uint32_t below = node_parent_[first];
  for (int d = 1; d <= kMaxTruncatedFrames; d++) {
    bool shared = true;
    for (uint32_t i = 0; i < n && shared; i++) {
      if (st[i] != kEmptyStack && depth_to(st[i], below) == 0) shared = false;
    }
    if (shared) break;
    if (below == kEmptyStack || d == kMaxTruncatedFrames) return kDead;
    below = node_parent_[below];
  }
  std::vector<uint32_t> cut;
  cut.reserve(n);
  for (uint32_t i = 0; i < n; i++) {
    cut.push_back(st[i] == kEmptyStack ? kEmptyStack : truncated_node(st[i], depth_to(st[i], below), true));
  }
  context = below;
  return intern(cut);
}

uint32_t Npda::context_state(uint32_t context) {
  return context == kDead ? kDead : list_state(closure(context));
}

uint32_t Npda::unexposed(uint32_t state) {
  if (!exposed(state)) return state;
  if (unexposed_of_.size() <= state) unexposed_of_.resize(states_.size() + 64, kUnset);
  if (unexposed_of_[state] != kUnset) return unexposed_of_[state];
  std::vector<uint32_t> kept;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t s = stacks(state)[i];
    if (node_cut_depth_[s] != 0) kept.push_back(s);
  }
  const uint32_t result = intern(kept);
  unexposed_of_[state] = result;
  return result;
}

uint32_t Npda::truncated_state(uint32_t state, int max_frames) {
  std::vector<uint32_t> all;
  all.reserve(n_stacks(state));
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t s = stacks(state)[i];
    if (s == kEmptyStack) {
      all.push_back(kEmptyStack);
      continue;
    }
    all.push_back(cut_node(s, max_frames));
  }
  return intern(all);
}

uint32_t Npda::within_horizon(uint32_t state, const RepetitionHorizon& horizon) {
  if (state == kDead || horizon.empty()) return state;
  std::vector<uint32_t> moved, frames;
  moved.reserve(n_stacks(state));
  bool any = false;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t s = stacks(state)[i];
    // Frames from the top down to the deepest one that moves are pushed again; below, the stack is kept.
    frames.clear();
    uint32_t deepest_moved = kEmptyStack;
    for (uint32_t n = s; n != kEmptyStack; n = node_parent_[n]) {
      frames.push_back(n);
      if (horizon.map(node_pos_[n]) != node_pos_[n]) deepest_moved = n;
    }
    if (deepest_moved == kEmptyStack) {
      moved.push_back(s);
      continue;
    }
    any = true;
    size_t k = frames.size();
    while (frames[k - 1] != deepest_moved) k--;
    uint32_t node = node_parent_[deepest_moved];
    for (size_t j = k; j-- > 0;) node = push(node, horizon.map(node_pos_[frames[j]]));
    moved.push_back(node);
  }
  return any ? intern(moved) : state;
}

uint32_t Npda::initial() {
  if (initial_ != kUnset) return initial_;
  const Grammar& g = *grammar_;
  std::vector<uint32_t> all;
  for (uint32_t alt : g.alt_starts[g.root_rule]) {
    const uint32_t list = closure(g.is_end_of_alt(alt) ? kEmptyStack : push(kEmptyStack, alt));
    all.insert(all.end(), list_nodes(list), list_nodes(list) + list_len(list));
  }
  initial_ = intern(all);
  return initial_;
}

uint32_t Npda::merge(uint32_t a, uint32_t b) {
  if (a == kDead) return b;
  if (b == kDead || a == b) return a;
  merge_buf_.assign(stacks(a), stacks(a) + n_stacks(a));
  merge_buf_.insert(merge_buf_.end(), stacks(b), stacks(b) + n_stacks(b));
  return intern(merge_buf_);
}

uint32_t Npda::step_token(uint32_t state, int32_t token) {
  if (!has_token_tops(state)) return kDead;
  const Grammar& g = *grammar_;
  std::vector<uint32_t> all;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node == kEmptyStack || !g.is_token_elem(node_pos_[node])) continue;
    if (!g.token_elem_matches(node_pos_[node], token)) continue;
    const uint32_t list = successor(node);
    all.insert(all.end(), list_nodes(list), list_nodes(list) + list_len(list));
  }
  return intern(all);
}

uint32_t Npda::char_tops_only(uint32_t state) {
  if (state == kDead || !states_[state].char_tops) return kDead;
  if (!states_[state].accepting && !states_[state].token_tops) return state;
  const Grammar& g = *grammar_;
  std::vector<uint32_t> keep;
  for (uint32_t i = 0; i < n_stacks(state); i++) {
    const uint32_t node = stacks(state)[i];
    if (node != kEmptyStack && !g.is_token_elem(node_pos_[node])) keep.push_back(node);
  }
  return intern(keep);
}

size_t Npda::memory_bytes() const {
  size_t b = node_pos_.capacity() * 18 + node_index_.memory_bytes() + states_.capacity() * sizeof(State) +
             pool_.capacity() * 4 + state_index_.memory_bytes() + list_pool_.capacity() * 4;
  b += (cut_memo_.capacity() + unexposed_of_.capacity()) * 4 + class_set_index_.memory_bytes() +
       class_sets_.capacity() * sizeof(ClassSet) + class_set_pool_.capacity() * 4;
  return b + partitions_.memory_bytes();
}

void Npda::reserve_growth() {
  const size_t nodes = node_pos_.size() * 2, states = states_.size() * 2;
  node_pos_.reserve(nodes);
  node_parent_.reserve(nodes);
  node_cut_depth_.reserve(nodes);
  node_shared_cut_.reserve(nodes);
  closure_of_.reserve(nodes);
  succ_of_.reserve(nodes);
  node_index_.reserve(nodes);
  states_.reserve(states);
  state_index_.reserve(states);
  pool_.reserve(pool_.size() * 2);
  list_pool_.reserve(list_pool_.size() * 2);
  // Memos indexed by node or state grow by resizing: done here, their pages are touched off the caller too.
  if (seen_epoch_.size() < nodes) seen_epoch_.resize(nodes, 0u);
  if (cut_memo_.size() < nodes) cut_memo_.resize(nodes, kUnset);
  if (unexposed_of_.size() < states) unexposed_of_.resize(states, kUnset);
}

void Npda::compact(std::vector<uint32_t*> live) {
  // Copy out the live states as explicit stacks (bottom-first element lists).
  std::vector<std::vector<std::vector<uint32_t>>> saved;
  for (uint32_t* s : live) {
    std::vector<std::vector<uint32_t>> st;
    if (*s != kDead) {
      for (uint32_t i = 0; i < n_stacks(*s); i++) {
        std::vector<uint32_t> elems;
        for (uint32_t n = stacks(*s)[i]; n != kEmptyStack; n = node_parent_[n]) elems.push_back(node_pos_[n]);
        std::reverse(elems.begin(), elems.end());
        st.push_back(std::move(elems));
      }
    }
    saved.push_back(std::move(st));
  }
  Npda fresh(grammar_);
  for (size_t k = 0; k < live.size(); k++) {
    if (*live[k] == kDead) continue;
    std::vector<uint32_t> nodes;
    for (const auto& elems : saved[k]) {
      uint32_t n = kEmptyStack;
      for (uint32_t pos : elems) n = fresh.push(n, pos);
      nodes.push_back(n);
    }
    *live[k] = fresh.intern(nodes);
  }
  *this = std::move(fresh);
}

}  // namespace toolwright::grammar
