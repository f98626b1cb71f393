#include "grammar_toolwright.h"

#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE

#include <algorithm>
#include <exception>
#include <vector>

#include "gbnf_parser.h"
#include "grammar.h"
#include "grammar_cache.h"
#include "llama_adapter.h"

namespace toolwright {

namespace {

// The grammar budget (documented in docs and grammar_toolwright.h).
constexpr size_t kMaxTriggerPatternBytes = 4096;  // std::regex compiles recursively per term
constexpr size_t kMaxLlamaAlternatives = 50000;
constexpr size_t kMaxLlamaClassItems = 4096;
constexpr size_t kMaxLlamaStartChain = 2000;

using grammar::ElemType;
using grammar::ParsedGrammar;

// Which rules can match the empty string (fixpoint; token and char elements never do).
std::vector<bool> NullableRules(const ParsedGrammar& g) {
  std::vector<bool> nullable(g.rules.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t r = 0; r < g.rules.size(); r++) {
      if (nullable[r] || g.rules[r].empty()) continue;
      bool alt_ok = true;
      for (const grammar::Elem& e : g.rules[r]) {
        if (e.type == ElemType::Alt || e.type == ElemType::End) {
          if (alt_ok) {
            nullable[r] = true;
            changed = true;
            break;
          }
          alt_ok = true;
          continue;
        }
        if (e.type == ElemType::RuleRef) {
          alt_ok = alt_ok && e.value < nullable.size() && nullable[e.value];
        } else if (e.type != ElemType::CharRngUpper && e.type != ElemType::CharAlt) {
          alt_ok = false;
        }
      }
    }
  }
  return nullable;
}

// The longest chain of rules each referenced at the start of the previous one (after nullable
// elements): llama.cpp's engine recurses once per link when it advances its stacks. Iterative.
size_t LongestStartChain(const ParsedGrammar& g, uint32_t* deepest_rule) {
  const std::vector<bool> nullable = NullableRules(g);
  const size_t n = g.rules.size();
  std::vector<std::vector<uint32_t>> starts(n);
  for (size_t r = 0; r < n; r++) {
    bool at_start = true;
    for (const grammar::Elem& e : g.rules[r]) {
      if (e.type == ElemType::Alt || e.type == ElemType::End) {
        at_start = true;
      } else if (at_start && e.type == ElemType::RuleRef) {
        if (e.value < n) starts[r].push_back(e.value);
        at_start = e.value < n && nullable[e.value];
      } else if (e.type != ElemType::CharRngUpper && e.type != ElemType::CharAlt) {
        at_start = false;
      }
    }
  }
  // depth[r]: 0 unknown; computed post-order with an explicit stack (cycles count once).
  std::vector<size_t> depth(n, 0);
  std::vector<uint8_t> state(n, 0);  // 0 new, 1 on stack, 2 done
  size_t best = 0;
  for (size_t root = 0; root < n; root++) {
    if (state[root] != 0) continue;
    std::vector<std::pair<uint32_t, size_t>> stack{{static_cast<uint32_t>(root), 0}};
    state[root] = 1;
    while (!stack.empty()) {
      auto& [r, next] = stack.back();
      if (next < starts[r].size()) {
        const uint32_t c = starts[r][next++];
        if (state[c] == 0) {
          state[c] = 1;
          stack.push_back({c, 0});
        }
        continue;
      }
      size_t d = 1;
      for (uint32_t c : starts[r]) {
        if (state[c] == 2) d = std::max(d, depth[c] + 1);
      }
      depth[r] = d;
      state[r] = 2;
      if (d > best) {
        best = d;
        *deepest_rule = r;
      }
      stack.pop_back();
    }
  }
  return best;
}

std::string RuleName(const ParsedGrammar& g, uint32_t id) {
  return id < g.n_symbols() ? std::string(g.name(id)) : std::to_string(id);
}

}  // namespace

bool PreflightGrammar(const llama_vocab* vocab, const GrammarSpec& spec, const std::string& engine,
                      std::string* error) {
  for (size_t i = 0; i < spec.trigger_patterns.size(); i++) {
    if (spec.trigger_patterns[i].size() > kMaxTriggerPatternBytes) {
      *error = "trigger pattern " + std::to_string(i) + " is " +
               std::to_string(spec.trigger_patterns[i].size()) + " bytes, more than the " +
               std::to_string(kMaxTriggerPatternBytes) +
               " the grammar budget allows (the regex compiler recurses per term)";
      return false;
    }
  }
  try {
    grammar::GrammarError err;
    if (engine == "llama") {
      // Ours rejects what llama.cpp's loops forever on (max below min, left recursion), with
      // line and column; it also checks the syntax without recursing without bound.
      grammar::CompileOptions opts;
      opts.resolve_token = grammar::llama_token_resolver(vocab);
      if (!grammar::Grammar::compile(spec.gbnf, spec.root, opts, err)) {
        *error = err.to_string();
        return false;
      }
      ParsedGrammar parsed;
      if (!grammar::parse_gbnf(spec.gbnf, opts.resolve_token, parsed, err)) {
        *error = err.to_string();
        return false;
      }
      size_t alternatives = 0;
      for (size_t r = 0; r < parsed.rules.size(); r++) {
        size_t class_items = 0;
        const size_t alts = static_cast<size_t>(
            std::count_if(parsed.rules[r].begin(), parsed.rules[r].end(),
                          [](const grammar::Elem& e) { return e.type == ElemType::Alt; }));
        if (alts > 0) alternatives += alts + 1;
        for (const grammar::Elem& e : parsed.rules[r]) {
          if (e.type == ElemType::CharAlt) {
            if (++class_items > kMaxLlamaClassItems) {
              *error = "a character class in rule '" + RuleName(parsed, static_cast<uint32_t>(r)) +
                       "' has more than " + std::to_string(kMaxLlamaClassItems) +
                       " items, more than the grammar budget of llama.cpp's engine allows (use ranges, or "
                       "engine \"toolwright\")";
              return false;
            }
          } else if (e.type != ElemType::CharRngUpper) {
            class_items = 0;
          }
        }
      }
      if (alternatives > kMaxLlamaAlternatives) {
        *error = "the grammar has " + std::to_string(alternatives) + " alternatives, more than the " +
                 std::to_string(kMaxLlamaAlternatives) +
                 " the grammar budget of llama.cpp's engine allows (use engine \"toolwright\")";
        return false;
      }
      uint32_t deepest = 0;
      const size_t chain = LongestStartChain(parsed, &deepest);
      if (chain > kMaxLlamaStartChain) {
        *error = "rule '" + RuleName(parsed, deepest) + "' starts a chain of " + std::to_string(chain) +
                 " rules each referenced at the start of the previous one, more than the " +
                 std::to_string(kMaxLlamaStartChain) +
                 " the grammar budget of llama.cpp's engine allows (its recursion would overflow the stack)";
        return false;
      }
    }
  } catch (const std::exception& e) {
    *error = e.what();
    return false;
  }
  return true;
}

llama_sampler* CreateToolwrightGrammar(const llama_vocab* vocab, const GrammarSpec& spec,
                                       std::string* error) {
  grammar::SamplerSpec engine_spec;
  engine_spec.gbnf = spec.gbnf;
  engine_spec.root = spec.root;
  engine_spec.lazy.lazy = spec.lazy;
  engine_spec.lazy.trigger_patterns = spec.trigger_patterns;
  engine_spec.lazy.trigger_tokens.assign(spec.trigger_tokens.begin(), spec.trigger_tokens.end());
  try {
    return grammar::make_llama_sampler(vocab, engine_spec, error);
  } catch (const std::exception& e) {
    // The factory runs inside a worker: nothing may escape it.
    if (error != nullptr) *error = e.what();
    return nullptr;
  }
}

void ForgetToolwrightGrammarVocab(const llama_vocab* vocab) { grammar::forget_llama_vocab(vocab); }

const uint64_t* ToolwrightGrammarMask(llama_sampler* grammar) { return grammar::active_mask(grammar); }

ToolwrightGrammarCacheStats GetToolwrightGrammarCacheStats() {
  const auto s = grammar::GrammarCache::global().stats();
  ToolwrightGrammarCacheStats out;
  out.hits = s.hits;
  out.misses = s.misses;
  out.evictions = s.evictions;
  out.warm_engines = s.warm_engines;
  out.entries = s.entries;
  out.bytes = s.bytes;
  out.max_bytes = s.max_bytes;
  return out;
}

void ClearToolwrightGrammarCache() { grammar::GrammarCache::global().clear(); }

void SetToolwrightGrammarCacheLimit(uint64_t max_bytes) {
  grammar::GrammarCache::global().set_max_bytes(static_cast<size_t>(max_bytes));
}

}  // namespace toolwright

#else

namespace toolwright {
bool PreflightGrammar(const llama_vocab*, const GrammarSpec&, const std::string&, std::string*) {
  return true;
}
void ForgetToolwrightGrammarVocab(const llama_vocab*) {}
const uint64_t* ToolwrightGrammarMask(llama_sampler*) { return nullptr; }
ToolwrightGrammarCacheStats GetToolwrightGrammarCacheStats() { return {}; }
void ClearToolwrightGrammarCache() {}
void SetToolwrightGrammarCacheLimit(uint64_t) {}
}  // namespace toolwright

#endif  // TOOLWRIGHT_HAS_GRAMMAR_ENGINE
