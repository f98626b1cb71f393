#include "grammar_checks.h"

#include <algorithm>

namespace toolwright::grammar {

namespace {

bool ends_alt(ElemType t) { return t == ElemType::End || t == ElemType::Alt; }

// The "can start with" graph as one edge array: edges of rule r are to[first[r] .. first[r+1]),
// in the order the references appear; grows[i]: more elements follow that reference.
struct StartGraph {
  std::vector<uint32_t> first;
  std::vector<uint32_t> to;
  std::vector<uint8_t> grows;
};

StartGraph start_graph(const RuleTable& rules, const std::vector<uint8_t>& nullable,
                       const std::vector<uint8_t>& include) {
  const size_t n = rules.size();
  StartGraph g;
  g.first.assign(n + 1, 0);
  for (size_t r = 0; r < n; r++) {
    g.first[r] = static_cast<uint32_t>(g.to.size());
    if (!include[r]) continue;
    const ElemSpan rule = rules[r];
    bool at_start = true;
    for (size_t i = 0; i < rule.size(); i++) {
      const Elem& e = rule[i];
      if (ends_alt(e.type)) {
        at_start = true;
      } else if (!at_start) {
        continue;
      } else if (e.type == ElemType::RuleRef) {
        g.to.push_back(e.value);
        g.grows.push_back(!ends_alt(rule[i + 1].type));
        if (!nullable[e.value]) at_start = false;
      } else {
        at_start = false;
      }
    }
  }
  g.first[n] = static_cast<uint32_t>(g.to.size());
  return g;
}

}  // namespace

std::vector<uint8_t> literally_empty(const RuleTable& rules) {
  std::vector<uint8_t> out(rules.size(), 0);
  for (size_t r = 0; r < rules.size(); r++) {
    bool at_start = true;
    for (const Elem& e : rules[r]) {
      if (ends_alt(e.type)) {
        if (at_start) out[r] = 1;
        at_start = true;
      } else {
        at_start = false;
      }
    }
  }
  return out;
}

std::vector<uint8_t> derives_empty(const RuleTable& rules) {
  const size_t n = rules.size();
  std::vector<uint8_t> out(n, 0);
  std::vector<uint32_t> done;  // rules found empty, not yet propagated
  // An alternative of only rule references derives empty once all of them do: count down the
  // references still unknown; each referenced rule lists the alternatives waiting on it.
  std::vector<uint32_t> alt_rule, pending;
  std::vector<std::pair<uint32_t, uint32_t>> waits;  // (referenced rule, alternative)
  for (size_t r = 0; r < n; r++) {
    size_t refs = 0;
    bool terminal = false;
    for (const Elem& e : rules[r]) {
      if (!ends_alt(e.type)) {
        if (e.type == ElemType::RuleRef) {
          waits.emplace_back(e.value, static_cast<uint32_t>(alt_rule.size()));
          refs++;
        } else {
          terminal = true;
        }
        continue;
      }
      if (terminal) {
        waits.resize(waits.size() - refs);  // this alternative never derives empty
      } else if (refs == 0) {
        if (!out[r]) done.push_back(static_cast<uint32_t>(r));
        out[r] = 1;
      } else {
        alt_rule.push_back(static_cast<uint32_t>(r));
        pending.push_back(static_cast<uint32_t>(refs));
      }
      refs = 0;
      terminal = false;
    }
  }
  // Group the waiting alternatives by referenced rule (counting sort).
  std::vector<uint32_t> first(n + 1, 0), waiting(waits.size());
  for (const auto& w : waits) first[w.first + 1]++;
  for (size_t r = 0; r < n; r++) first[r + 1] += first[r];
  std::vector<uint32_t> fill(first.begin(), first.end() - 1);
  for (const auto& w : waits) waiting[fill[w.first]++] = w.second;
  while (!done.empty()) {
    const uint32_t r = done.back();
    done.pop_back();
    for (uint32_t i = first[r]; i < first[r + 1]; i++) {
      const uint32_t alt = waiting[i];
      if (--pending[alt] == 0 && !out[alt_rule[alt]]) {
        out[alt_rule[alt]] = 1;
        done.push_back(alt_rule[alt]);
      }
    }
  }
  return out;
}

std::vector<uint8_t> reachable_from(const RuleTable& rules, uint32_t root) {
  std::vector<uint8_t> seen(rules.size(), 0);
  std::vector<uint32_t> todo{root};
  seen[root] = 1;
  while (!todo.empty()) {
    const uint32_t r = todo.back();
    todo.pop_back();
    for (const Elem& e : rules[r]) {
      if (e.type == ElemType::RuleRef && !seen[e.value]) {
        seen[e.value] = 1;
        todo.push_back(e.value);
      }
    }
  }
  return seen;
}

bool find_left_cycle(const RuleTable& rules, const std::vector<uint8_t>& nullable,
                     const std::vector<uint8_t>& include, std::vector<uint32_t>& cycle) {
  const size_t n = rules.size();
  const StartGraph g = start_graph(rules, nullable, include);
  std::vector<uint8_t> color(n, 0);                 // 0 new, 1 on the DFS path, 2 done
  std::vector<std::pair<uint32_t, uint32_t>> path;  // (rule, next edge)
  for (size_t start = 0; start < n; start++) {
    if (!include[start] || color[start]) continue;
    path.push_back({static_cast<uint32_t>(start), g.first[start]});
    color[start] = 1;
    while (!path.empty()) {
      auto& [node, next] = path.back();
      if (next == g.first[node + 1]) {
        color[node] = 2;
        path.pop_back();
        continue;
      }
      const uint32_t to = g.to[next++];
      if (color[to] == 1) {
        size_t i = 0;
        while (path[i].first != to) i++;
        for (; i < path.size(); i++) cycle.push_back(path[i].first);
        cycle.push_back(to);
        return true;
      }
      if (color[to] == 0) {
        color[to] = 1;
        path.push_back({to, g.first[to]});
      }
    }
  }
  return false;
}

bool find_growing_left_cycle(const RuleTable& rules, const std::vector<uint8_t>& nullable,
                             const std::vector<uint8_t>& include, std::vector<uint32_t>& cycle) {
  const size_t n = rules.size();
  const StartGraph g = start_graph(rules, nullable, include);
  // Strongly connected components (iterative Tarjan).
  struct Node {
    int index = -1;
    int low = 0;
    bool on_stack = false;
  };
  std::vector<Node> node(n);
  std::vector<int> comp(n, -1);
  std::vector<uint32_t> stack;
  std::vector<std::pair<uint32_t, uint32_t>> work;  // (rule, next edge)
  int counter = 0, n_comp = 0;
  for (size_t start = 0; start < n; start++) {
    if (!include[start] || node[start].index >= 0) continue;
    work.push_back({static_cast<uint32_t>(start), g.first[start]});
    node[start].index = node[start].low = counter++;
    stack.push_back(static_cast<uint32_t>(start));
    node[start].on_stack = true;
    while (!work.empty()) {
      const uint32_t v = work.back().first;
      const uint32_t i = work.back().second;
      if (i < g.first[v + 1]) {
        work.back().second++;
        const uint32_t w = g.to[i];
        if (node[w].index < 0) {
          node[w].index = node[w].low = counter++;
          stack.push_back(w);
          node[w].on_stack = true;
          work.push_back({w, g.first[w]});
        } else if (node[w].on_stack) {
          node[v].low = std::min(node[v].low, node[w].index);
        }
        continue;
      }
      if (node[v].low == node[v].index) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          node[w].on_stack = false;
          comp[w] = n_comp;
        } while (w != v);
        n_comp++;
      }
      work.pop_back();
      if (!work.empty()) {
        Node& parent = node[work.back().first];
        parent.low = std::min(parent.low, node[v].low);
      }
    }
  }
  for (size_t u = 0; u < n; u++) {
    for (uint32_t k = g.first[u]; k < g.first[u + 1]; k++) {
      const uint32_t to = g.to[k];
      if (!g.grows[k] || comp[u] < 0 || comp[u] != comp[to]) continue;
      // Path to -> ... -> u inside the component (breadth-first), then back to `to`.
      std::vector<int> prev(n, -1);
      std::vector<uint32_t> queue{to};
      prev[to] = static_cast<int>(to);
      for (size_t q = 0; q < queue.size() && prev[u] < 0; q++) {
        const uint32_t x = queue[q];
        for (uint32_t f = g.first[x]; f < g.first[x + 1]; f++) {
          if (comp[g.to[f]] == comp[u] && prev[g.to[f]] < 0) {
            prev[g.to[f]] = static_cast<int>(x);
            queue.push_back(g.to[f]);
          }
        }
      }
      std::vector<uint32_t> path{static_cast<uint32_t>(u)};
      for (uint32_t x = static_cast<uint32_t>(u); x != to; x = static_cast<uint32_t>(prev[x]))
        path.push_back(prev[x]);
      std::reverse(path.begin(), path.end());
      cycle = path;
      cycle.push_back(to);
      return true;
    }
  }
  return false;
}

}  // namespace toolwright::grammar
