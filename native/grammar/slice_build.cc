// SliceRegistry, part 2: constructing a slice. Three ways give the same slice: excluding the
// subtrees of the few edges outside the class (found in the vocabulary's edge index), one
// forward scan of the subtree, and the reference descent child by child (kept for the self-check).
#include <algorithm>
#include <chrono>

#include "slice.h"
#include "vocab.h"

namespace toolwright::grammar {

// Calls f(lo, hi) for each interval of code points (up to the vocabulary's largest) outside `set`.
template <typename F>
void SliceRegistry::for_each_gap(const CodeSet& set, F&& f) const {
  const uint32_t top = vocab_.max_code_point();
  uint64_t next = 0;
  for (const auto& [lo, hi] : set.intervals) {
    if (lo > next) f(static_cast<uint32_t>(next), std::min(lo - 1, top));
    next = static_cast<uint64_t>(hi) + 1;
    if (next > top) return;
  }
  if (next <= top) f(static_cast<uint32_t>(next), top);
}

std::shared_ptr<const Slice> SliceRegistry::build(const CodeSet& first, const CodeSet& rest, uint32_t root) {
  // A narrow class (a few dozen ASCII code points, nothing else) has a small region: scan it.
  // Otherwise exclude; but non-ASCII edges outside a class that takes some non-ASCII code points
  // are looked up one by one (counted over the whole vocabulary: an upper bound for this
  // subtree), and when they are many, scan instead.
  const bool non_ascii = !rest.intervals.empty() && rest.intervals.back().second >= 0x80;
  uint32_t ascii = 0;
  for (uint32_t c = 0; c < 128; c++) ascii += rest.contains(c) ? 1 : 0;
  if (!non_ascii && ascii < kNarrowAscii) return build_by_scan(first, rest, root);
  const uint32_t size = vocab_.nodes()[root].end - root;
  return non_ascii_outside(rest) * 4 < size ? build_by_exclusion(first, rest, root)
                                            : build_by_scan(first, rest, root);
}

// Nodes with a non-ASCII edge outside `set`, when `set` holds some non-ASCII code points (else 0:
// one bitset covers them all).
uint64_t SliceRegistry::non_ascii_outside(const CodeSet& set) const {
  const auto& cps = vocab_.edge_cps();
  const auto& off = vocab_.edge_offsets();
  if (set.intervals.empty() || set.intervals.back().second < 0x80) return 0;
  uint64_t outside = 0;
  for_each_gap(set, [&](uint32_t lo, uint32_t hi) {
    if (hi < 0x80) return;
    const auto b = std::lower_bound(cps.begin(), cps.end(), std::max(lo, 0x80u)) - cps.begin();
    const auto e = std::upper_bound(cps.begin(), cps.end(), hi) - cps.begin();
    outside += off[e] - off[b];
  });
  return outside;
}

// The class region below `root` is the subtree minus the subtrees of (a) children whose edge is
// not in `first` and (b) deeper nodes whose edge is not in `rest` (the exits). The nodes of (b)
// come as one bitset, the union of per-code-point edge bitsets; a sweep in preorder takes the
// first one not inside an excluded subtree and jumps past its subtree, so the region is a few
// runs of consecutive nodes, whose tokens are consecutive too.
std::shared_ptr<const Slice> SliceRegistry::build_by_exclusion(const CodeSet& first, const CodeSet& rest,
                                                               uint32_t root) {
  const auto& nodes = vocab_.nodes();
  const auto& toks = vocab_.tokens();
  const auto& parts = vocab_.partials();
  const uint32_t* depth = vocab_.node_depths().data();
  const uint32_t* parent = vocab_.node_parents().data();
  const uint32_t base = depth[root];
  const uint32_t stop = nodes[root].end;
  if (root + 1 >= stop) return finish(Parts{});
  // Edges outside `rest`, over the words of the subtree.
  const size_t words = vocab_.node_words();
  const size_t w0 = (root + 1) >> 6, w1 = (stop - 1) >> 6;
  if (outside_.size() < words) outside_.assign(words, 0);
  uint64_t* out = outside_.data();
  std::fill(out + w0, out + w1 + 1, 0);
  // Union of the edge bitsets of the ASCII code points outside `rest`, or the complement of
  // those inside it, whichever are fewer.
  uint32_t inside = 0;
  for (uint32_t c = 0; c < 128; c++) inside += rest.contains(c) ? 1 : 0;
  const bool any_non_ascii = !rest.intervals.empty() && rest.intervals.back().second >= 0x80;
  const bool by_complement = inside < 64;
  // Whole blocks (digits, letters, controls) first, one bitset each.
  bool in_block[128] = {};
  for (uint32_t b = 0; b < Vocab::kAsciiBlocks; b++) {
    const uint32_t lo = Vocab::kAsciiBlockRange[b][0], hi = Vocab::kAsciiBlockRange[b][1];
    bool whole = true;
    for (uint32_t c = lo; c <= hi && whole; c++) whole = rest.contains(c) == by_complement;
    if (!whole) continue;
    const uint64_t* e = vocab_.ascii_block_bits(b);
    for (size_t w = w0; w <= w1; w++) out[w] |= e[w];
    for (uint32_t c = lo; c <= hi; c++) in_block[c] = true;
  }
  for (uint32_t c = 0; c < 128; c++) {
    if (in_block[c] || rest.contains(c) != by_complement) continue;
    const uint64_t* e = vocab_.ascii_edge_bits(c);
    for (size_t w = w0; w <= w1; w++) out[w] |= e[w];
  }
  if (any_non_ascii == by_complement) {
    const uint64_t* e = vocab_.non_ascii_edge_bits();
    for (size_t w = w0; w <= w1; w++) out[w] |= e[w];
  }
  if (by_complement) {
    for (size_t w = w0; w <= w1; w++) out[w] = ~out[w];
  }
  if (any_non_ascii) {
    // The non-ASCII code points outside `rest`, one by one from the edge index.
    const auto& cps = vocab_.edge_cps();
    const auto& off = vocab_.edge_offsets();
    const auto& by_edge = vocab_.edge_nodes();
    for_each_gap(rest, [&](uint32_t lo, uint32_t hi) {
      if (hi < 0x80) return;
      const auto b = std::lower_bound(cps.begin(), cps.end(), std::max(lo, 0x80u)) - cps.begin();
      const auto e = std::upper_bound(cps.begin(), cps.end(), hi) - cps.begin();
      for (auto k = b; k < e; k++) {
        const uint32_t* from = by_edge.data() + off[k];
        const uint32_t* to = by_edge.data() + off[k + 1];
        for (const uint32_t* it = std::lower_bound(from, to, root + 1); it != to && *it < stop; ++it)
          out[*it >> 6] |= 1ull << (*it & 63);
      }
    });
  }
  auto next_outside = [&](uint32_t from) {
    if (from >= stop) return stop;
    size_t w = from >> 6;
    uint64_t x = out[w] & (~0ull << (from & 63));
    while (x == 0) {
      if (++w > w1) return stop;
      x = out[w];
    }
    const auto b = static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
    return b < stop ? b : stop;
  };
  // Children outside `first` are cut without being exits (the mask walks them by range);
  // children are judged by `first` alone.
  // (A wide node's children are listed in one array: no hop from subtree to subtree.)
  std::vector<uint32_t> cut_children;
  if (nodes[root].wide != Vocab::kNotWide) {
    const Vocab::WideNode& wn = vocab_.wide_nodes()[nodes[root].wide];
    const uint32_t* kid = vocab_.wide_child_nodes().data();
    const uint32_t* kid_cp = vocab_.wide_child_cps().data();
    for (uint32_t i = wn.begin; i < wn.end; i++) {
      if (!first.contains(kid_cp[i])) cut_children.push_back(kid[i]);
    }
  } else {
    for (uint32_t c = root + 1; c < stop; c = nodes[c].end) {
      if (!first.contains(nodes[c].cp)) cut_children.push_back(c);
    }
  }
  // Tokens straight into a bitset (the slice's lists are made on first use), unless the subtree
  // has too few tokens for a bitset slice: then straight into the lists.
  Parts p;
  p.direct = (vocab_.tok_range_end(stop) - nodes[root + 1].tok_begin) * 64 >= vocab_.size();
  p.base_depth = base;
  if (p.direct) p.bits.assign(vocab_.n_words(), 0);
  const uint32_t* tok_cps = vocab_.tokens_cps().data();
  std::vector<uint32_t> skel;
  start_marks();
  auto need = [&](uint32_t x) { mark_path(x, root, parent, skel); };
  auto take_run = [&](uint32_t a, uint32_t b) {
    if (a >= b) return;
    const uint32_t t_begin = nodes[a].tok_begin, t_end = vocab_.tok_range_end(b);
    if (p.direct) {
      uint32_t deepest = base + p.bits_max_depth;
      for (uint32_t i = t_begin; i < t_end; i++) {
        const int32_t t = toks[i];
        p.bits[t >> 6] |= 1ull << (t & 63);
        deepest = std::max(deepest, tok_cps[i]);
      }
      p.bits_max_depth = deepest - base;
      p.n_bits += t_end - t_begin;
    } else {
      for (uint32_t i = t_begin; i < t_end; i++) p.tokens.emplace_back(tok_cps[i] - base, toks[i]);
    }
    for (uint32_t i = nodes[a].part_begin, e = vocab_.part_range_end(b); i < e; i++) {
      const uint32_t x = vocab_.token_node(parts[i].token);
      p.partials.push_back(
          Slice::Partial{depth[x] - base, parts[i].token, parts[i].partial, static_cast<int32_t>(x)});
      need(x);
    }
  };
  uint32_t run = root + 1;
  size_t ci = 0;
  for (;;) {
    // The next exit before the next cut child (searching no further: between cut children lie
    // runs of leaf children, in the set when their edge is outside `rest`, and searching past
    // them at every child was quadratic).
    const uint32_t child = ci < cut_children.size() ? cut_children[ci] : stop;
    uint32_t exit = next_outside(run);
    while (exit < child && depth[exit] - base == 1) exit = next_outside(exit + 1);
    const uint32_t c = std::min(exit, child);
    if (c >= stop) break;
    take_run(run, c);
    if (c == child) {
      ci++;
    } else {
      p.exits.push_back(Exit3{nodes[c].cp, depth[c] - base - 1, c});
      need(parent[c]);
    }
    run = nodes[c].end;
  }
  take_run(run, stop);
  return finish_skeleton(std::move(p), std::move(skel), root);
}

std::shared_ptr<const Slice> SliceRegistry::build_by_scan(const CodeSet& first, const CodeSet& rest,
                                                          uint32_t root) {
  const auto& nodes = vocab_.nodes();
  const auto& toks = vocab_.tokens();
  const auto& parts = vocab_.partials();
  const uint32_t* depth = vocab_.node_depths().data();
  const uint32_t* parent = vocab_.node_parents().data();
  const uint32_t base = depth[root];
  const uint32_t stop = nodes[root].end;
  Parts p;
  p.tokens.reserve(vocab_.tok_range_end(stop) - nodes[root].tok_begin);
  std::vector<uint32_t> skel;  // class-path nodes on the way to an exit or a partial token
  start_marks();
  auto need = [&](uint32_t x) { mark_path(x, root, parent, skel); };
  for (uint32_t c = root + 1; c < stop;) {
    const Vocab::Node& n = nodes[c];
    const uint32_t d = depth[c] - base;  // code points below `root`, this edge included
    if (!(d == 1 ? first : rest).contains(n.cp)) {
      // Exits right below the slice's node are walked by range instead (see MaskEngine).
      if (d > 1) {
        p.exits.push_back(Exit3{n.cp, d - 1, c});
        need(parent[c]);
      }
      c = n.end;
      continue;
    }
    for (uint32_t i = n.tok_begin; i < n.tok_own_end; i++) p.tokens.emplace_back(d, toks[i]);
    if (n.part_begin != n.part_own_end) {
      for (uint32_t i = n.part_begin; i < n.part_own_end; i++)
        p.partials.push_back(Slice::Partial{d, parts[i].token, parts[i].partial, static_cast<int32_t>(c)});
      need(c);
    }
    c++;
  }
  return finish_skeleton(std::move(p), std::move(skel), root);
}

void SliceRegistry::start_marks() {
  const size_t n = vocab_.nodes().size();
  if (mark_.size() < n) {
    mark_.assign(n, 0u);
    skel_index_.assign(n, -1);
  }
  if (++mark_epoch_ == 0) {
    std::fill(mark_.begin(), mark_.end(), 0u);
    mark_epoch_ = 1;
  }
}

// Adds `x` and its ancestors below `root` to the skeleton (stopping at one already in it).
void SliceRegistry::mark_path(uint32_t x, uint32_t root, const uint32_t* parent,
                              std::vector<uint32_t>& skel) {
  for (; x != root && mark_[x] != mark_epoch_; x = parent[x]) {
    mark_[x] = mark_epoch_;
    skel.push_back(x);
  }
}

// Numbers the skeleton (preorder puts parents first) and points partial tokens (whose `skel`
// holds their node) and exits at it.
std::shared_ptr<const Slice> SliceRegistry::finish_skeleton(Parts p, std::vector<uint32_t> skel,
                                                            uint32_t root) {
  const auto& nodes = vocab_.nodes();
  const uint32_t* parent = vocab_.node_parents().data();
  std::sort(skel.begin(), skel.end());
  for (size_t i = 0; i < skel.size(); i++) {
    const uint32_t x = skel[i];
    skel_index_[x] = static_cast<int32_t>(i);
    p.skel_node.push_back(x);
    p.skel_cp.push_back(nodes[x].cp);
    p.skel_parent.push_back(parent[x] == root ? -1 : skel_index_[parent[x]]);
  }
  for (Slice::Partial& sp : p.partials) sp.skel = skel_index_[sp.skel];
  for (const Exit3& e : p.exits)
    p.skel_exits.push_back(Slice::SkelExit{skel_index_[parent[e.child]], e.cp, e.child});
  return finish(std::move(p));
}

// The reference construction: a descent child by child, recording every class-path node
// (kept for the self-check that build() matches it).
std::shared_ptr<const Slice> SliceRegistry::build_by_walk(const CodeSet& first, const CodeSet& rest,
                                                          uint32_t root) const {
  const auto& nodes = vocab_.nodes();
  const auto& toks = vocab_.tokens();
  const auto& parts = vocab_.partials();
  Parts p;
  // Every class-path node gets a provisional index (parents first); those leading to an exit
  // or a partial token become the skeleton.
  std::vector<uint32_t> t_node, t_cp;
  std::vector<int32_t> t_parent;
  std::vector<uint8_t> needed;
  std::vector<Slice::SkelExit> t_exits;
  // Walk the class edges below `root`: the first edge in `first`, the others in `rest`.
  struct Todo {
    uint32_t node, depth;
    int32_t tmp;
  };
  std::vector<Todo> todo{{root, 0, -1}};
  while (!todo.empty()) {
    const Todo t = todo.back();
    todo.pop_back();
    const CodeSet& set = t.depth == 0 ? first : rest;
    for (uint32_t c = t.node + 1; c < nodes[t.node].end; c = nodes[c].end) {
      const uint32_t cp = nodes[c].cp;
      if (!set.contains(cp)) {
        // Exits right below the slice's node are walked by range instead (see MaskEngine).
        if (t.depth > 0) {
          p.exits.push_back(Exit3{cp, t.depth, c});
          t_exits.push_back(Slice::SkelExit{t.tmp, cp, c});
          needed[t.tmp] = 1;
        }
        continue;
      }
      const uint32_t d = t.depth + 1;
      const auto tmp = static_cast<int32_t>(t_node.size());
      t_node.push_back(c);
      t_cp.push_back(cp);
      t_parent.push_back(t.tmp);
      needed.push_back(0);
      for (uint32_t i = nodes[c].tok_begin; i < nodes[c].tok_own_end; i++) p.tokens.emplace_back(d, toks[i]);
      for (uint32_t i = nodes[c].part_begin; i < nodes[c].part_own_end; i++) {
        p.partials.push_back(Slice::Partial{d, parts[i].token, parts[i].partial, tmp});
        needed[tmp] = 1;
      }
      if (c + 1 < nodes[c].end) todo.push_back(Todo{c, d, tmp});
    }
  }
  for (size_t i = t_node.size(); i-- > 0;) {
    if (needed[i] && t_parent[i] >= 0) needed[t_parent[i]] = 1;
  }
  std::vector<int32_t> remap(t_node.size(), -1);
  for (size_t i = 0; i < t_node.size(); i++) {
    if (!needed[i]) continue;
    remap[i] = static_cast<int32_t>(p.skel_node.size());
    p.skel_node.push_back(t_node[i]);
    p.skel_cp.push_back(t_cp[i]);
    p.skel_parent.push_back(t_parent[i] < 0 ? -1 : remap[t_parent[i]]);
  }
  for (Slice::Partial& sp : p.partials) sp.skel = remap[sp.skel];
  for (Slice::SkelExit& e : t_exits) p.skel_exits.push_back(Slice::SkelExit{remap[e.skel], e.cp, e.child});
  return finish(std::move(p));
}

std::shared_ptr<const Slice> SliceRegistry::derive(const Slice& base, const CodeSet& first,
                                                   const CodeSet& rest, uint32_t root) const {
  // Subtrees of the children reached by a `rest` character that is not in `first`.
  const auto& nodes = vocab_.nodes();
  std::vector<std::pair<uint32_t, uint32_t>> cut;
  for (uint32_t c = root + 1; c < nodes[root].end; c = nodes[c].end) {
    if (rest.contains(nodes[c].cp) && !first.contains(nodes[c].cp)) cut.emplace_back(c, nodes[c].end);
  }
  auto is_cut = [&](uint32_t node) {
    auto it = std::upper_bound(cut.begin(), cut.end(), std::make_pair(node, UINT32_MAX));
    return it != cut.begin() && node < std::prev(it)->second;
  };
  Parts p;
  for (uint32_t d = 1; d <= base.max_depth; d++) {
    for (uint32_t i = base.depth_end()[d - 1]; i < base.depth_end()[d]; i++) {
      if (!is_cut(vocab_.token_node(base.tokens()[i]))) p.tokens.emplace_back(d, base.tokens()[i]);
    }
  }
  // Cut subtrees are whole: a kept skeleton node keeps its parent.
  std::vector<int32_t> remap(base.skel_node.size(), -1);
  for (size_t i = 0; i < base.skel_node.size(); i++) {
    if (is_cut(base.skel_node[i])) continue;
    remap[i] = static_cast<int32_t>(p.skel_node.size());
    p.skel_node.push_back(base.skel_node[i]);
    p.skel_cp.push_back(base.skel_cp[i]);
    p.skel_parent.push_back(base.skel_parent[i] < 0 ? -1 : remap[base.skel_parent[i]]);
  }
  for (const Slice::Partial& sp : base.partials) {
    if (!is_cut(vocab_.token_node(sp.token)))
      p.partials.push_back(Slice::Partial{sp.depth, sp.token, sp.partial, remap[sp.skel]});
  }
  for (const Slice::ExitGroup& g : base.groups) {
    for (uint32_t r = g.run_begin; r < g.run_end; r++) {
      for (uint32_t i = base.runs[r].begin; i < base.runs[r].end; i++) {
        if (!is_cut(base.exit_children[i]))
          p.exits.push_back(Exit3{g.cp, base.runs[r].depth, base.exit_children[i]});
      }
    }
  }
  for (const Slice::SkelExit& e : base.skel_exits) {
    if (!is_cut(e.child)) p.skel_exits.push_back(Slice::SkelExit{remap[e.skel], e.cp, e.child});
  }
  return finish(std::move(p));
}

}  // namespace toolwright::grammar

namespace toolwright::grammar {

namespace {

// A slice as sets keyed by prefix-tree nodes (skeleton indices differ between constructions).
struct Canon {
  std::vector<std::pair<uint32_t, int32_t>> tokens;
  std::vector<std::tuple<uint32_t, int32_t, int, uint32_t, uint32_t>> partials;  // + skeleton node
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> exits;                   // cp, depth, child
  std::vector<std::pair<uint32_t, int64_t>> skeleton;                            // node, parent node
  std::vector<std::tuple<uint32_t, uint32_t, uint32_t>> skel_exits;              // node, cp, child
  bool operator==(const Canon& o) const {
    return tokens == o.tokens && partials == o.partials && exits == o.exits && skeleton == o.skeleton &&
           skel_exits == o.skel_exits;
  }
};

Canon canon(const Slice& s) {
  Canon c;
  for (uint32_t d = 1; d <= s.max_depth; d++) {
    for (uint32_t i = s.depth_end()[d - 1]; i < s.depth_end()[d]; i++)
      c.tokens.emplace_back(d, s.tokens()[i]);
  }
  for (const Slice::Partial& p : s.partials)
    c.partials.emplace_back(p.depth, p.token, p.partial.n_remain, p.partial.value, s.skel_node[p.skel]);
  for (const Slice::ExitGroup& g : s.groups) {
    for (uint32_t r = g.run_begin; r < g.run_end; r++) {
      for (uint32_t i = s.runs[r].begin; i < s.runs[r].end; i++)
        c.exits.emplace_back(g.cp, s.runs[r].depth, s.exit_children[i]);
    }
  }
  for (size_t i = 0; i < s.skel_node.size(); i++)
    c.skeleton.emplace_back(s.skel_node[i],
                            s.skel_parent[i] < 0 ? -1 : int64_t{s.skel_node[s.skel_parent[i]]});
  for (const Slice::SkelExit& e : s.skel_exits) c.skel_exits.emplace_back(s.skel_node[e.skel], e.cp, e.child);
  std::sort(c.tokens.begin(), c.tokens.end());
  std::sort(c.partials.begin(), c.partials.end());
  std::sort(c.exits.begin(), c.exits.end());
  std::sort(c.skel_exits.begin(), c.skel_exits.end());
  std::sort(c.skeleton.begin(), c.skeleton.end());
  return c;
}

std::string differs(const Canon& a, const Canon& b, const char* what) {
  std::string why = what;
  if (a.tokens != b.tokens) why += " tokens";
  if (a.partials != b.partials) why += " partials";
  if (a.exits != b.exits) why += " exits";
  if (a.skeleton != b.skeleton) why += " skeleton";
  if (a.skel_exits != b.skel_exits) why += " skeleton-exits";
  return why;
}

}  // namespace

std::string SliceRegistry::self_check(uint32_t first_set, uint32_t rest_set, uint32_t node,
                                      SelfCheckTimes* times) {
  std::lock_guard<std::mutex> lock(mu_);
  const CodeSet& first = *sets_[first_set];
  const CodeSet& rest = *sets_[rest_set];
  using Clock = std::chrono::steady_clock;
  auto us = [](Clock::time_point a) {
    return std::chrono::duration<double, std::micro>(Clock::now() - a).count();
  };
  auto t = Clock::now();
  const auto reference = build_by_walk(first, rest, node);
  const double walk_us = us(t);
  t = Clock::now();
  const auto scanned = build_by_scan(first, rest, node);
  const double scan_us = us(t);
  t = Clock::now();
  const auto excluded = build_by_exclusion(first, rest, node);
  const double exclusion_us = us(t);
  if (times) *times = SelfCheckTimes{walk_us, scan_us, exclusion_us};
  const Canon r = canon(*reference), s = canon(*scanned), e = canon(*excluded);
  if (!(r == s)) return differs(r, s, "scan:");
  if (!(r == e)) return differs(r, e, "exclusion:");
  if (scanned->all_bits != reference->all_bits || excluded->all_bits != reference->all_bits) return "bitsets";
  // The bitset cut at depth d (by token length) holds the tokens of depth <= d, and no other.
  if (!reference->all_bits.empty()) {
    const size_t words = reference->all_bits.size();
    std::vector<uint64_t> expect(words, 0), got(words);
    for (uint32_t d = 0; d <= reference->max_depth; d++) {
      if (d >= 1) {
        for (uint32_t i = reference->depth_end()[d - 1]; i < reference->depth_end()[d]; i++)
          expect[reference->tokens()[i] >> 6] |= 1ull << (reference->tokens()[i] & 63);
      }
      std::fill(got.begin(), got.end(), 0);
      vocab_.or_up_to_length(excluded->all_bits.data(), vocab_.node_depths()[node] + d, got.data());
      if (got != expect) return "depth bitsets";
    }
  }
  return "";
}

}  // namespace toolwright::grammar
