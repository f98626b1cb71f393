// MaskEngine, part 3: applying a class slice below a prefix-tree node.
#include <algorithm>

#include "mask.h"

namespace toolwright::grammar {

namespace {

inline void clear_bit(uint64_t* bits, int32_t id) { bits[id >> 6] &= ~(1ull << (id & 63)); }

}  // namespace

bool MaskEngine::try_slice(uint32_t node, uint32_t state, uint64_t* out) {
  const Plan pl = plan(state);  // copy: plans_ may grow below
  if (!pl.usable) return false;
  // Cutting bits back out is only safe while no token element has set bits in this walk.
  const bool cutting = pl.cut_len > 0 && !token_tops_seen_;
  SliceRegistry& reg = vocab_->slices();
  const std::shared_ptr<const Slice> slice =
      cutting ? reg.get(pl.rest_set, pl.rest_set, node) : reg.get(pl.first_set, pl.rest_set, node);
  if (!slice) return false;
  stats_.slices_used++;
  const Slice& s = *slice;
  // Children of `node` whose first character is cut out: their subtrees are skipped here and
  // walked by expand() below with their real successor.
  std::vector<std::pair<uint32_t, uint32_t>> cut;  // local: nested slices run inside this one
  if (cutting) {
    const auto& nodes = vocab_->nodes();
    for (uint32_t i = 0; i < pl.cut_len; i++) {
      const uint32_t c = child_with(node, cut_pool_[pl.cut_begin + i]);
      if (c != 0) cut.emplace_back(c, nodes[c].end);
    }
    std::sort(cut.begin(), cut.end());
  }
  if (pl.group) return apply_group(pl, s, node, state, out, cut);
  // The chain as deep as this slice's tokens and exits go (copied: nested slices may add chains).
  const uint32_t idx = plan_of_.find(state);
  const uint32_t deepest = std::max(s.max_depth, s.max_exit_depth);
  if (!extend_chain(idx, std::min(deepest, static_cast<uint32_t>(vocab_->max_token_cps())))) return false;
  const Plan& now = plans_[idx];  // read before the walks below, which may add plans
  const std::vector<uint32_t> chain = chains_[now.chain];
  const uint32_t class_successor = now.first_next;
  const uint32_t k = now.chain_done ? now.max_chars : kUnbounded;
  auto chain_at = [&](uint32_t d) { return chain[std::min<size_t>(d, chain.size() - 1)]; };
  // A truncated state's chain may finish the cut frames: the tokens past that point are its exits, found by
  // walking (enter()).
  if (npda_.is_truncated(state)) {
    for (const uint32_t st : chain) {
      if (npda_.exposed(st)) return false;
    }
  }
  auto is_cut = [&](uint32_t n) {
    for (const auto& [b, e] : cut) {
      if (b <= n && n < e) return true;
    }
    return false;
  };
  // Tokens made only of the class, at most k characters long.
  const size_t words = vocab_->n_words();
  if (!s.all_bits.empty()) {
    if (k >= s.max_depth) {
      for (size_t w = 0; w < words; w++) out[w] |= s.all_bits[w];
    } else {
      // A token k characters below the node is k longer than the node's depth.
      vocab_->or_up_to_length(s.all_bits.data(), vocab_->node_depths()[node] + k, out);
    }
  } else {
    const uint32_t end = s.depth_end()[std::min(k, s.max_depth)];
    for (uint32_t i = 0; i < end; i++) set_bit(out, s.tokens()[i]);
  }
  clear_cut(s, cut, out);
  // Tokens that end inside a character after class characters.
  uint32_t last_state = Npda::kDead;
  PartialUtf8 last_partial{0, -2};
  bool last_ok = false;
  for (const Slice::Partial& sp : s.partials) {
    if (sp.depth > k || (!cut.empty() && is_cut(vocab_->token_node(sp.token)))) continue;
    const uint32_t st = chain_at(sp.depth);
    if (st != last_state || !(sp.partial == last_partial)) {
      last_state = st;
      last_partial = sp.partial;
      last_ok = npda_.matches_partial(st, sp.partial);
    }
    if (last_ok) set_bit(out, sp.token);
  }
  // Exits: one step per (code point, depth) run, then the usual walk below each exit child.
  for (const Slice::ExitGroup& g : s.groups) {
    uint32_t from = Npda::kDead, next = Npda::kDead;
    for (uint32_t r = g.run_begin; r < g.run_end; r++) {
      const Slice::ExitRun& run = s.runs[r];
      if (run.depth > k) break;
      const uint32_t st = chain_at(run.depth);
      if (st != from) {
        from = st;
        next = npda_.step(st, g.cp);
      }
      stats_.nodes_visited++;
      if (next == Npda::kDead) continue;
      for (uint32_t i = run.begin; i < run.end; i++) {
        if (cut.empty() || !is_cut(s.exit_children[i])) enter(s.exit_children[i], next, out);
      }
    }
  }
  // Children of the node itself outside the class: the code points that do not lead to the
  // class successor (those that do are exactly the class, covered above). The real successor: the chain
  // holds its stand-in where it lies deep in a bounded repetition.
  expand(node, state, out, class_successor);
  return true;
}

// The code points that lead from the state back to itself, as a slice set (kNoLoop if none).
uint32_t MaskEngine::self_loop_set(uint32_t state) {
  const uint32_t memo = self_loop_of_.find(state);
  if (memo != FlatMap64::kMissing) return memo;
  uint32_t result = kNoLoop;
  if (!npda_.has_token_tops(state)) {
    Npda::Partition& p = npda_.partition(state);
    if (p.breaks.size() <= kLoopMaxSegments) {
      std::vector<std::pair<uint32_t, uint32_t>> set;
      for (uint32_t j = 0; j < p.breaks.size(); j++) {
        if (npda_.successor_in(p, state, j) != state) continue;
        if (!set.empty() && set.back().second != UINT32_MAX && set.back().second + 1 == p.breaks[j]) {
          set.back().second = p.seg_end(j);
        } else {
          set.emplace_back(p.breaks[j], p.seg_end(j));
        }
      }
      if (!set.empty()) result = vocab_->slices().intern(set);
    }
  }
  self_loop_of_.insert(state, result);
  return result;
}

// Below `node`, reached in a state that loops on its class: every token of class characters
// stays in the state (allowed); exits and partial tokens are checked against the state, and the
// node's children outside the class (those not leading back to the state) are walked.
bool MaskEngine::try_self_loop(uint32_t node, uint32_t state, uint64_t* out) {
  // Only below digits (numbers: the classes too narrow for a plan, with subtrees of a thousand
  // tokens in a 128k vocabulary), and after a cheap test on a step the walk takes anyway: does the
  // first child keep the state? Finding the whole set steps every code-point segment of the state,
  // which in a many-stack state (a string under many contexts) builds states the walk never needs.
  const uint32_t first_cp = vocab_->nodes()[node + 1].cp;
  if (first_cp < '0' || first_cp > '9') return false;
  if (self_loop_of_.find(state) == FlatMap64::kMissing && npda_.step(state, first_cp) != state) return false;
  const uint32_t set_id = self_loop_set(state);
  if (set_id == kNoLoop) return false;
  const std::shared_ptr<const Slice> slice = vocab_->slices().get(set_id, set_id, node);
  if (!slice) return false;
  stats_.slices_used++;
  const Slice& s = *slice;
  if (!s.all_bits.empty()) {
    const size_t words = vocab_->n_words();
    for (size_t w = 0; w < words; w++) out[w] |= s.all_bits[w];
  } else {
    for (int32_t t : s.tokens()) set_bit(out, t);
  }
  Plan pl;
  pl.loop_state = state;
  apply_loop(pl, s, out, {});
  expand(node, state, out, state);
  return true;
}

// Nothing else can have set bits below a cut child yet (the walk reaches them only through it):
// take back the bits the shared slice set there, i.e. its tokens in the cut child's subtree (one
// contiguous range of the prefix tree's tokens; no slice is built below the child).
void MaskEngine::clear_cut(const Slice& s, const std::vector<std::pair<uint32_t, uint32_t>>& cut,
                           uint64_t* out) {
  const Vocab& v = *vocab_;
  for (const auto& [c, e] : cut) {
    const uint32_t t_begin = v.nodes()[c].tok_begin, t_end = v.tok_range_end(e);
    if (!s.all_bits.empty()) {
      for (uint32_t i = t_begin; i < t_end; i++) {
        const int32_t t = v.tokens()[i];
        out[t >> 6] &= ~(s.all_bits[t >> 6] & (1ull << (t & 63)));
      }
    } else {
      for (const int32_t t : s.tokens()) {
        const uint32_t n = v.token_node(t);
        if (n >= c && n < e) clear_bit(out, t);
      }
    }
  }
}

// Group mode: every token of the slice is allowed; the grammar is stepped along the skeleton to
// check partial tokens and exits exactly.
bool MaskEngine::apply_group(const Plan& pl, const Slice& s, uint32_t node, uint32_t state, uint64_t* out,
                             const std::vector<std::pair<uint32_t, uint32_t>>& cut) {
  const size_t words = vocab_->n_words();
  if (!s.all_bits.empty()) {
    for (size_t w = 0; w < words; w++) out[w] |= s.all_bits[w];
  } else {
    for (int32_t t : s.tokens()) set_bit(out, t);
  }
  clear_cut(s, cut, out);
  if (pl.loop_state != Npda::kDead) {
    apply_loop(pl, s, out, cut);
  } else {
    apply_skeleton(pl, s, state, out, cut);
  }
  const std::pair<uint32_t, uint32_t>* ranges = ranges_pool_.data() + pl.range_begin;
  const std::vector<std::pair<uint32_t, uint32_t>> own(ranges, ranges + pl.range_len);  // pool may grow
  expand_ranges(node, state, out, own.data(), pl.range_len);
  return true;
}

// Every path of the slice stays in one state: partial tokens are tested against it and each
// exit code point is stepped once for all its exits. Paths through a cut child (a first
// character walked by range) are left out.
void MaskEngine::apply_loop(const Plan& pl, const Slice& s, uint64_t* out,
                            const std::vector<std::pair<uint32_t, uint32_t>>& cut) {
  const uint32_t at = pl.loop_state;
  auto is_cut = [&](uint32_t n) {
    auto it = std::upper_bound(cut.begin(), cut.end(), std::make_pair(n, UINT32_MAX));
    return it != cut.begin() && n < std::prev(it)->second;
  };
  PartialUtf8 last_partial{0, -2};
  bool last_ok = false;
  for (const Slice::Partial& sp : s.partials) {
    if (!cut.empty() && is_cut(vocab_->token_node(sp.token))) continue;
    if (!(sp.partial == last_partial)) {
      last_partial = sp.partial;
      last_ok = npda_.matches_partial(at, sp.partial);
    }
    if (last_ok) set_bit(out, sp.token);
  }
  for (const Slice::ExitGroup& g : s.groups) {
    stats_.nodes_visited++;
    const uint32_t next = npda_.step(at, g.cp);
    if (next == Npda::kDead) continue;
    for (uint32_t r = g.run_begin; r < g.run_end; r++) {
      for (uint32_t i = s.runs[r].begin; i < s.runs[r].end; i++) {
        if (cut.empty() || !is_cut(s.exit_children[i])) enter(s.exit_children[i], next, out);
      }
    }
  }
}

// The grammar stepped along the skeleton, to test partial tokens and exits exactly.
void MaskEngine::apply_skeleton(const Plan& pl, const Slice& s, uint32_t state, uint64_t* out,
                                const std::vector<std::pair<uint32_t, uint32_t>>& cut) {
  // Cut first characters are walked by range (or dead): their skeleton is skipped.
  const CodeSet* first = cut.empty() ? nullptr : &vocab_->slices().set(pl.first_set);
  std::vector<uint32_t> st(s.skel_parent.size());  // local: nested slices run inside this one
  // Below its first edges the skeleton follows rest-set characters. Past a key's known prefixes they usually
  // reach a state that every rest-set character keeps (the string body): nodes below it take it without a
  // step.
  uint32_t keeper = Npda::kDead, asked = Npda::kDead;
  for (size_t i = 0; i < st.size(); i++) {
    if (s.skel_parent[i] < 0) {
      st[i] = first && !first->contains(s.skel_cp[i]) ? Npda::kDead : npda_.step(state, s.skel_cp[i]);
      continue;
    }
    const uint32_t from = st[s.skel_parent[i]];
    if (from == keeper) {
      st[i] = from;
      continue;
    }
    st[i] = npda_.step(from, s.skel_cp[i]);
    // A state that kept one character is asked once whether it keeps them all.
    if (st[i] == from && from != asked && from != Npda::kDead) {
      asked = from;
      if (uniform_successor(from, pl.rest_set) == from) keeper = from;
    }
  }
  uint32_t last_state = Npda::kDead;
  PartialUtf8 last_partial{0, -2};
  bool last_ok = false;
  for (const Slice::Partial& sp : s.partials) {
    const uint32_t at = st[sp.skel];
    if (at == Npda::kDead) continue;
    if (at != last_state || !(sp.partial == last_partial)) {
      last_state = at;
      last_partial = sp.partial;
      last_ok = npda_.matches_partial(at, sp.partial);
    }
    if (last_ok) set_bit(out, sp.token);
  }
  // Exits leave from a few states on a few code points: the last steps are remembered.
  constexpr size_t kExitMemo = 8;
  struct ExitStep {
    uint32_t from = Npda::kDead, cp = 0, next = Npda::kDead;
  } memo[kExitMemo];
  for (const Slice::SkelExit& e : s.skel_exits) {
    const uint32_t from = st[e.skel];
    if (from == Npda::kDead) continue;
    stats_.nodes_visited++;
    ExitStep& m = memo[(e.cp ^ from) & (kExitMemo - 1)];
    if (m.from != from || m.cp != e.cp) m = ExitStep{from, e.cp, npda_.step(from, e.cp)};
    if (m.next != Npda::kDead) enter(e.child, m.next, out);
  }
}

// Like expand(), restricted to children whose code point lies in the given sorted ranges.
void MaskEngine::expand_ranges(uint32_t node, uint32_t state, uint64_t* out,
                               const std::pair<uint32_t, uint32_t>* ranges, uint32_t n_ranges) {
  const Vocab& v = *vocab_;
  const auto& nodes = v.nodes();
  Npda::Partition& p = npda_.partition(state);
  const Vocab::Node& n = nodes[node];
  for (uint32_t r = 0; r < n_ranges; r++) {
    const auto [lo, hi] = ranges[r];
    if (n.wide != Vocab::kNotWide) {
      const Vocab::WideNode& w = v.wide_nodes()[n.wide];
      const uint32_t* cps = v.wide_child_cps().data();
      for (const uint32_t* it = std::lower_bound(cps + w.begin, cps + w.end, lo);
           it != cps + w.end && *it <= hi; ++it) {
        stats_.nodes_visited++;
        const uint32_t next =
            npda_.successor_in(p, state, *it < 128 ? p.ascii[*it] : Npda::segment_of(p, *it));
        if (next != Npda::kDead) enter(v.wide_child_nodes()[it - cps], next, out);
      }
    } else {
      for (uint32_t c = node + 1; c < n.end; c = nodes[c].end) {
        const uint32_t cp = nodes[c].cp;
        if (cp < lo || cp > hi) continue;
        stats_.nodes_visited++;
        const uint32_t next = npda_.successor_in(p, state, cp < 128 ? p.ascii[cp] : Npda::segment_of(p, cp));
        if (next != Npda::kDead) enter(c, next, out);
      }
    }
  }
}

}  // namespace toolwright::grammar
