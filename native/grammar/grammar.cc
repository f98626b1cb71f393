#include "grammar.h"

#include <algorithm>
#include <map>

namespace toolwright::grammar {

bool CharClass::matches_partial(uint32_t value, int n_remain) const {
  // Invalid sequence, or a 7-bit char spread over two bytes (overlong): nothing matches.
  if (n_remain < 0 || (n_remain == 1 && value < 2)) return false;
  uint32_t low = value << (n_remain * 6);
  const uint32_t high = low | ((1u << (n_remain * 6)) - 1);
  if (low == 0) {
    if (n_remain == 2)
      low = 1u << 11;
    else if (n_remain == 3)
      low = 1u << 16;
  }
  if (any) return true;
  for (const auto& [lo, hi] : items) {
    if (lo <= high && low <= hi) return !negated;
  }
  return negated;
}

namespace {

std::vector<std::pair<uint32_t, uint32_t>> merge_intervals(std::vector<std::pair<uint32_t, uint32_t>> v) {
  std::sort(v.begin(), v.end());
  std::vector<std::pair<uint32_t, uint32_t>> out;
  for (const auto& iv : v) {
    if (!out.empty() && (out.back().second == UINT32_MAX || iv.first <= out.back().second + 1)) {
      out.back().second = std::max(out.back().second, iv.second);
    } else {
      out.push_back(iv);
    }
  }
  return out;
}

std::vector<std::pair<uint32_t, uint32_t>> complement(const std::vector<std::pair<uint32_t, uint32_t>>& v) {
  std::vector<std::pair<uint32_t, uint32_t>> out;
  uint64_t next = 0;
  for (const auto& [lo, hi] : v) {
    if (lo > next) out.emplace_back(static_cast<uint32_t>(next), lo - 1);
    next = static_cast<uint64_t>(hi) + 1;
  }
  if (next <= UINT32_MAX) out.emplace_back(static_cast<uint32_t>(next), UINT32_MAX);
  return out;
}

CharClass make_class(bool negated, bool any, std::vector<std::pair<uint32_t, uint32_t>> items) {
  CharClass c;
  c.negated = negated;
  c.any = any;
  c.items = std::move(items);
  if (any) {
    c.accepts = {{0, UINT32_MAX}};
  } else {
    std::vector<std::pair<uint32_t, uint32_t>> valid;
    for (const auto& iv : c.items) {
      if (iv.first <= iv.second) valid.push_back(iv);
    }
    c.accepts = merge_intervals(std::move(valid));
    if (negated) c.accepts = complement(c.accepts);
  }
  for (const auto& [lo, hi] : c.accepts) {
    for (uint64_t cp = lo; cp <= hi && cp < 128; cp++) c.ascii[cp >> 6] |= 1ull << (cp & 63);
  }
  bool ascii_items = true;
  for (const auto& [lo, hi] : c.items) ascii_items = ascii_items && lo < 0x80 && hi < 0x80;
  if (any || (negated && ascii_items))
    c.partial_kind = CharClass::PartialKind::Always;
  else if (!negated && ascii_items)
    c.partial_kind = CharClass::PartialKind::Never;
  else
    c.partial_kind = CharClass::PartialKind::Depends;
  return c;
}

// Finds a cycle in the "can start with" graph restricted to `include`: rule A -> rule B when
// B can be reached at the start of one of A's alternatives, skipping only nullable rules.
bool find_left_cycle(const std::vector<Rule>& rules, const std::vector<bool>& nullable,
                     const std::vector<bool>& include, std::vector<uint32_t>& cycle) {
  const size_t n = rules.size();
  std::vector<std::vector<uint32_t>> edges(n);
  for (size_t r = 0; r < n; r++) {
    if (!include[r]) continue;
    bool at_start = true;
    for (const Elem& e : rules[r]) {
      if (e.type == ElemType::End || e.type == ElemType::Alt) {
        at_start = true;
      } else if (!at_start) {
        continue;
      } else if (e.type == ElemType::RuleRef) {
        edges[r].push_back(e.value);
        if (!nullable[e.value]) at_start = false;
      } else {
        at_start = false;
      }
    }
  }
  std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the DFS path, 2 done
  std::vector<std::pair<uint32_t, size_t>> path;
  for (size_t start = 0; start < n; start++) {
    if (!include[start] || color[start]) continue;
    path.push_back({static_cast<uint32_t>(start), 0});
    color[start] = 1;
    while (!path.empty()) {
      auto& [node, next] = path.back();
      if (next == edges[node].size()) {
        color[node] = 2;
        path.pop_back();
        continue;
      }
      const uint32_t to = edges[node][next++];
      if (color[to] == 1) {
        size_t i = 0;
        while (path[i].first != to) i++;
        for (; i < path.size(); i++) cycle.push_back(path[i].first);
        cycle.push_back(to);
        return true;
      }
      if (color[to] == 0) {
        color[to] = 1;
        path.push_back({to, 0});
      }
    }
  }
  return false;
}

// A left cycle that makes the stack grow: some reference on it is followed by more elements
// (so expanding it pushes a frame each time round). A cycle of tail references only revisits
// the same stacks, which llama.cpp (and this engine) stop on, so it is allowed.
bool find_growing_left_cycle(const std::vector<Rule>& rules, const std::vector<bool>& nullable,
                             const std::vector<bool>& include, std::vector<uint32_t>& cycle) {
  const size_t n = rules.size();
  struct Edge {
    uint32_t to;
    bool grows;
  };
  std::vector<std::vector<Edge>> edges(n);
  for (size_t r = 0; r < n; r++) {
    if (!include[r]) continue;
    bool at_start = true;
    const Rule& rule = rules[r];
    for (size_t i = 0; i < rule.size(); i++) {
      const Elem& e = rule[i];
      if (e.type == ElemType::End || e.type == ElemType::Alt) {
        at_start = true;
      } else if (!at_start) {
        continue;
      } else if (e.type == ElemType::RuleRef) {
        const ElemType next = rule[i + 1].type;
        edges[r].push_back(Edge{e.value, next != ElemType::End && next != ElemType::Alt});
        if (!nullable[e.value]) at_start = false;
      } else {
        at_start = false;
      }
    }
  }
  // Strongly connected components (iterative Tarjan).
  std::vector<int> index(n, -1), low(n, 0), comp(n, -1);
  std::vector<bool> on_stack(n, false);
  std::vector<uint32_t> stack;
  int counter = 0, n_comp = 0;
  for (size_t start = 0; start < n; start++) {
    if (!include[start] || index[start] >= 0) continue;
    std::vector<std::pair<uint32_t, size_t>> work{{static_cast<uint32_t>(start), 0}};
    index[start] = low[start] = counter++;
    stack.push_back(static_cast<uint32_t>(start));
    on_stack[start] = true;
    while (!work.empty()) {
      const uint32_t v = work.back().first;
      const size_t i = work.back().second;
      if (i < edges[v].size()) {
        work.back().second++;
        const uint32_t w = edges[v][i].to;
        if (index[w] < 0) {
          index[w] = low[w] = counter++;
          stack.push_back(w);
          on_stack[w] = true;
          work.push_back({w, 0});
        } else if (on_stack[w]) {
          low[v] = std::min(low[v], index[w]);
        }
        continue;
      }
      if (low[v] == index[v]) {
        uint32_t w;
        do {
          w = stack.back();
          stack.pop_back();
          on_stack[w] = false;
          comp[w] = n_comp;
        } while (w != v);
        n_comp++;
      }
      work.pop_back();
      if (!work.empty()) low[work.back().first] = std::min(low[work.back().first], low[v]);
    }
  }
  for (size_t u = 0; u < n; u++) {
    for (const Edge& e : edges[u]) {
      if (!e.grows || comp[u] < 0 || comp[u] != comp[e.to]) continue;
      // Path e.to -> ... -> u inside the component, then back to e.to.
      std::vector<int> prev(n, -1);
      std::vector<uint32_t> queue{e.to};
      prev[e.to] = static_cast<int>(e.to);
      for (size_t q = 0; q < queue.size() && prev[u] < 0; q++) {
        for (const Edge& f : edges[queue[q]]) {
          if (comp[f.to] == comp[u] && prev[f.to] < 0) {
            prev[f.to] = static_cast<int>(queue[q]);
            queue.push_back(f.to);
          }
        }
      }
      std::vector<uint32_t> path{static_cast<uint32_t>(u)};
      for (uint32_t x = static_cast<uint32_t>(u); x != e.to; x = static_cast<uint32_t>(prev[x]))
        path.push_back(prev[x]);
      std::reverse(path.begin(), path.end());
      cycle = path;
      cycle.push_back(e.to);
      return true;
    }
  }
  return false;
}

// llama.cpp counts a rule as possibly empty only when one alternative is literally empty.
std::vector<bool> literally_empty(const std::vector<Rule>& rules) {
  std::vector<bool> out(rules.size(), false);
  for (size_t r = 0; r < rules.size(); r++) {
    bool at_start = true;
    for (const Elem& e : rules[r]) {
      if (e.type == ElemType::End || e.type == ElemType::Alt) {
        if (at_start) out[r] = true;
        at_start = true;
      } else {
        at_start = false;
      }
    }
  }
  return out;
}

// Rules that can derive the empty string.
std::vector<bool> derives_empty(const std::vector<Rule>& rules) {
  std::vector<bool> out(rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < rules.size(); r++) {
      if (out[r]) continue;
      bool alt_ok = true;
      for (const Elem& e : rules[r]) {
        if (e.type == ElemType::End || e.type == ElemType::Alt) {
          if (alt_ok) {
            out[r] = true;
            changed = true;
            break;
          }
          alt_ok = true;
        } else if (e.type != ElemType::RuleRef || !out[e.value]) {
          alt_ok = false;
        }
      }
    }
  }
  return out;
}

std::vector<bool> reachable_from(const std::vector<Rule>& rules, uint32_t root) {
  std::vector<bool> seen(rules.size(), false);
  std::vector<uint32_t> todo{root};
  seen[root] = true;
  while (!todo.empty()) {
    const uint32_t r = todo.back();
    todo.pop_back();
    for (const Elem& e : rules[r]) {
      if (e.type == ElemType::RuleRef && !seen[e.value]) {
        seen[e.value] = true;
        todo.push_back(e.value);
      }
    }
  }
  return seen;
}

std::string cycle_text(const std::vector<uint32_t>& cycle, const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < cycle.size(); i++) s += (i ? " -> " : "") + names[cycle[i]];
  return s;
}

}  // namespace

std::shared_ptr<const Grammar> Grammar::compile(std::string_view gbnf, std::string_view root,
                                                const CompileOptions& options, GrammarError& err) {
  ParsedGrammar parsed;
  if (!parse_gbnf(gbnf, options.resolve_token, parsed, err)) return nullptr;
  const std::string text(gbnf.data(), std::min(gbnf.size(), gbnf.find('\0')));
  auto fail = [&](std::string message, std::string rule, size_t offset) {
    err = GrammarError{};
    err.message = std::move(message);
    err.rule = std::move(rule);
    if (offset != UINT32_MAX) offset_to_line_col(text, offset, err.line, err.column);
    return nullptr;
  };

  auto& rules = parsed.rules;
  if (rules.empty()) return fail("grammar has no rules", "", UINT32_MAX);
  const size_t n_symbols = parsed.names.size();
  if (rules.size() < n_symbols) rules.resize(n_symbols);
  for (size_t id = 0; id < n_symbols; id++) {
    if (rules[id].empty()) {
      return fail("undefined rule '" + parsed.names[id] + "'", parsed.first_ref_rule[id],
                  parsed.first_ref_offset[id]);
    }
  }
  const auto root_it = parsed.symbol_ids.find(std::string(root));
  if (root_it == parsed.symbol_ids.end()) {
    return fail("grammar has no rule named '" + std::string(root) + "'", std::string(root), UINT32_MAX);
  }
  const uint32_t root_id = root_it->second;

  // llama.cpp rejects left recursion found with its notion of "empty" on every rule; a left
  // cycle through rules that only derive empty, and that grows the stack, would make it loop
  // forever, so reachable ones are rejected too.
  std::vector<uint32_t> cycle;
  if (find_left_cycle(rules, literally_empty(rules), std::vector<bool>(rules.size(), true), cycle) ||
      find_growing_left_cycle(rules, derives_empty(rules), reachable_from(rules, root_id), cycle)) {
    return fail("left recursion: " + cycle_text(cycle, parsed.names), parsed.names[cycle[0]], UINT32_MAX);
  }

  auto g = std::make_shared<Grammar>();
  g->root_rule = root_id;
  g->rule_names = std::move(parsed.names);  // no failure below needs them
  size_t total = 3;
  for (const Rule& r : rules) total += r.size();
  g->elems.reserve(total);
  g->rule_start.reserve(rules.size());
  for (const Rule& r : rules) {
    g->rule_start.push_back(static_cast<uint32_t>(g->elems.size()));
    g->elems.insert(g->elems.end(), r.begin(), r.end());
  }
  // A class that matches nothing, outside every rule: the engine puts it under a stack's top
  // frames to ask what those frames do on their own (see MaskEngine::plan).
  g->never_pos = static_cast<uint32_t>(g->elems.size());
  g->elems.push_back({ElemType::CharNot, 0});
  g->elems.push_back({ElemType::CharRngUpper, UINT32_MAX});
  g->elems.push_back({ElemType::End, 0});
  g->alt_starts.resize(rules.size());
  for (size_t r = 0; r < rules.size(); r++) {
    uint32_t p = g->rule_start[r];
    g->alt_starts[r].push_back(p);
    for (; g->elems[p].type != ElemType::End; p++) {
      if (g->elems[p].type == ElemType::Alt) g->alt_starts[r].push_back(p + 1);
    }
  }

  const size_t n = g->elems.size();
  g->class_at.assign(n, kNoClass);
  g->after_class.assign(n, 0);
  std::map<std::tuple<bool, bool, std::vector<std::pair<uint32_t, uint32_t>>>, uint32_t> class_ids;
  for (uint32_t p = 0; p < n; p++) {
    const ElemType t = g->elems[p].type;
    if (t != ElemType::Char && t != ElemType::CharNot && t != ElemType::CharAny) continue;
    std::vector<std::pair<uint32_t, uint32_t>> items;
    bool any = false;
    uint32_t q = p;
    do {
      if (g->elems[q + 1].type == ElemType::CharRngUpper) {
        items.emplace_back(g->elems[q].value, g->elems[q + 1].value);
        q += 2;
      } else if (g->elems[q].type == ElemType::CharAny) {
        any = true;
        q += 1;
      } else {
        items.emplace_back(g->elems[q].value, g->elems[q].value);
        q += 1;
      }
    } while (g->elems[q].type == ElemType::CharAlt);
    g->after_class[p] = q;
    const bool negated = t == ElemType::CharNot;
    auto key = std::make_tuple(negated, any, items);
    auto it = class_ids.find(key);
    if (it == class_ids.end()) {
      it = class_ids.emplace(std::move(key), static_cast<uint32_t>(g->classes.size())).first;
      g->classes.push_back(make_class(negated, any, std::move(items)));
    }
    g->class_at[p] = it->second;
  }
  return g;
}

size_t Grammar::memory_bytes() const {
  size_t b = sizeof(Grammar) + elems.capacity() * sizeof(Elem) + rule_start.capacity() * 4 +
             class_at.capacity() * 4 + after_class.capacity() * 4;
  for (const auto& alts : alt_starts) b += sizeof(alts) + alts.capacity() * 4;
  for (const std::string& name : rule_names) b += sizeof(name) + name.capacity();
  for (const CharClass& c : classes) {
    b += sizeof(CharClass) +
         (c.items.capacity() + c.accepts.capacity()) * sizeof(std::pair<uint32_t, uint32_t>);
  }
  return b;
}

}  // namespace toolwright::grammar
