#include "repetition_horizon.h"

#include <algorithm>

namespace toolwright::grammar {
namespace {

constexpr uint32_t kNotChain = 0;

// A rule of the form `A... | ε` (two alternatives, the second empty): the end of its first alternative
// (its Alt element), else 0.
uint32_t optional_alt_end(const Grammar& g, uint32_t rule) {
  const auto alts = g.alt_starts[rule];
  if (alts.size() != 2 || g.elems[alts[1]].type != ElemType::End) return 0;
  const uint32_t alt_end = alts[1] - 1;
  return alt_end > alts[0] ? alt_end : 0;
}

bool same_elems(const Grammar& g, uint32_t a, uint32_t b, uint32_t n) {
  for (uint32_t i = 0; i < n; i++) {
    if (g.elems[a + i].type != g.elems[b + i].type || g.elems[a + i].value != g.elems[b + i].value)
      return false;
  }
  return true;
}

// For every rule, how many copies of its chain it allows (kNotChain if it is no chain rule), and the rule of
// one copy less (next[r]; none for a chain's last rule). Rk ::= A R(k-1) | ε is a chain rule of depth k when
// R(k-1) is one whose first alternative starts with the same A; R1 ::= A | ε is the last.
void chain_depths(const Grammar& g, std::vector<uint32_t>& depth, std::vector<uint32_t>& next) {
  const auto n_rules = static_cast<uint32_t>(g.rule_start.size());
  depth.assign(n_rules, kNotChain);
  next.assign(n_rules, UINT32_MAX);
  std::vector<uint8_t> visited(n_rules, 0);
  std::vector<uint32_t> path;
  for (uint32_t r = 0; r < n_rules; r++) {
    // Follow the references down to a rule of known depth, then number the path back up.
    path.clear();
    uint32_t cur = r;
    while (cur < n_rules && !visited[cur]) {
      visited[cur] = 1;
      path.push_back(cur);
      const uint32_t end = optional_alt_end(g, cur);
      const uint32_t last = end > 0 ? end - 1 : 0;
      if (end == 0 || g.elems[last].type != ElemType::RuleRef) break;
      const uint32_t ref = g.elems[last].value;
      const uint32_t prefix = last - g.rule_start[cur];
      const uint32_t ref_end = ref < n_rules && ref != cur ? optional_alt_end(g, ref) : 0;
      if (ref_end == 0) break;
      // R(k-1)'s first alternative: A then (for k > 2) a reference; R1's is A alone.
      const uint32_t ref_len = ref_end - g.rule_start[ref];
      const bool shaped =
          ref_len == prefix || (ref_len == prefix + 1 && g.elems[ref_end - 1].type == ElemType::RuleRef);
      if (!shaped || !same_elems(g, g.rule_start[cur], g.rule_start[ref], prefix)) break;
      next[cur] = ref;
      cur = ref;
    }
    for (auto it = path.rbegin(); it != path.rend(); ++it) {
      const uint32_t rule = *it;
      if (optional_alt_end(g, rule) == 0) continue;
      const uint32_t below = next[rule];
      if (below == UINT32_MAX) {
        depth[rule] = 1;
      } else if (depth[below] != kNotChain) {
        depth[rule] = depth[below] + 1;
      } else {
        next[rule] = UINT32_MAX;  // its reference is on this path (a cycle: unbounded), so it ends a chain
        depth[rule] = 1;
      }
    }
  }
}

// The item a rule `A R | ε` repeats (A: its first alternative without the final reference); length 0 when
// the rule has another shape.
struct Item {
  uint32_t start = 0, len = 0;
};
Item repeated_item(const Grammar& g, uint32_t rule) {
  const uint32_t end = optional_alt_end(g, rule);
  if (end == 0 || g.elems[end - 1].type != ElemType::RuleRef) return {};
  return {g.rule_start[rule], end - 1 - g.rule_start[rule]};
}

// The loops (rules `A L | ε` referring to themselves) of `g`, and a search among them by item.
class Loops {
 public:
  explicit Loops(const Grammar& g) : g_(g) {
    for (uint32_t r = 0; r < g.rule_start.size(); r++) {
      const Item item = repeated_item(g, r);
      if (item.len > 0 && g.elems[item.start + item.len].value == r) rules_.push_back(r);
    }
  }
  // The loop repeating `item`, or UINT32_MAX.
  uint32_t find(Item item) const {
    for (uint32_t r : rules_) {
      const Item own = repeated_item(g_, r);
      if (own.len == item.len && same_elems(g_, own.start, item.start, item.len)) return r;
    }
    return UINT32_MAX;
  }
  void add(uint32_t rule) { rules_.push_back(rule); }

 private:
  const Grammar& g_;
  std::vector<uint32_t> rules_;
};

}  // namespace

void add_repetition_loops(Grammar& g) {
  std::vector<uint32_t> depth, next;
  chain_depths(g, depth, next);
  Loops loops(g);
  std::vector<Elem> rule;
  const auto n_rules = static_cast<uint32_t>(depth.size());
  for (uint32_t r = 0; r < n_rules; r++) {
    // One rule of each chain deeper than the minimum has this depth.
    if (depth[r] != kMinLoopDepth + 1) continue;
    const Item item = repeated_item(g, r);
    if (item.len == 0 || loops.find(item) != UINT32_MAX) continue;
    const auto id = static_cast<uint32_t>(g.rule_start.size());
    if (g.symbols.id_count() != id) return;  // rule and symbol ids out of step: leave the chains be
    g.symbols.add_synthesized(g.symbols.base_name(r));
    rule.assign(g.elems.begin() + item.start, g.elems.begin() + item.start + item.len);
    rule.push_back({ElemType::RuleRef, id});
    rule.push_back({ElemType::Alt, 0});
    rule.push_back({ElemType::End, 0});
    const auto start = static_cast<uint32_t>(g.elems.size());
    g.elems.insert(g.elems.end(), rule.begin(), rule.end());
    g.rule_start.push_back(start);
    g.alt_starts.add(start);
    g.alt_starts.add(start + item.len + 2);  // the empty alternative: the End element
    g.alt_starts.end_rule();
    loops.add(id);
  }
}

RepetitionHorizon::RepetitionHorizon(const Grammar& g, uint32_t horizon) : cap_(horizon + 2) {
  std::vector<uint32_t> depth, next;
  chain_depths(g, depth, next);
  const Loops loops(g);
  const auto n_rules = static_cast<uint32_t>(depth.size());
  // Rules by depth, so each deep rule's stand-in (its item's loop, else the rule of depth cap_ in its chain)
  // is its next one's.
  std::vector<uint32_t> order;
  for (uint32_t r = 0; r < n_rules; r++) {
    if (depth[r] > cap_) order.push_back(r);
  }
  if (order.empty()) return;
  std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return depth[a] < depth[b]; });
  std::vector<uint32_t> stand_in(n_rules, UINT32_MAX);
  map_.resize(g.elems.size());
  for (uint32_t p = 0; p < map_.size(); p++) map_[p] = p;
  for (uint32_t r : order) {
    const uint32_t below = next[r];
    if (depth[r] == cap_ + 1) {
      const uint32_t loop = loops.find(repeated_item(g, r));
      stand_in[r] = loop != UINT32_MAX ? loop : below;
    } else {
      stand_in[r] = stand_in[below];
    }
    // All have the layout A, a reference, Alt, End: a frame keeps its offset.
    const uint32_t from = g.rule_start[r], to = g.rule_start[stand_in[r]];
    for (uint32_t off = 0; g.elems[from + off].type != ElemType::End; off++) map_[from + off] = to + off;
  }
}

}  // namespace toolwright::grammar
