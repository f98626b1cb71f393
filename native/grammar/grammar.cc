#include "grammar.h"

#include <algorithm>
#include <optional>

#include "flat_map.h"
#include "grammar_checks.h"
#include "repetition_horizon.h"

namespace toolwright::grammar {

uint32_t CharClass::partial_low(uint32_t value, int n_remain) {
  // Invalid sequence, or a 7-bit char spread over two bytes (overlong): nothing matches.
  if (n_remain < 0 || (n_remain == 1 && value < 2)) return UINT32_MAX;
  const uint32_t low = value << (n_remain * 6);
  if (low == 0 && n_remain == 2) return 1u << 11;
  if (low == 0 && n_remain == 3) return 1u << 16;
  return low;
}

bool CharClass::matches_partial(uint32_t value, int n_remain) const {
  const uint32_t low = partial_low(value, n_remain);
  if (low == UINT32_MAX) return false;
  const uint32_t high = (value << (n_remain * 6)) | ((1u << (n_remain * 6)) - 1);
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
    c.span += static_cast<uint64_t>(hi) - lo + 1;
  }
  bool ascii_items = true;
  for (const auto& [lo, hi] : c.items) ascii_items = ascii_items && lo < 0x80 && hi < 0x80;
  if (any || (negated && ascii_items))
    c.partial_kind = CharClass::PartialKind::Always;
  else if (!negated && ascii_items)
    c.partial_kind = CharClass::PartialKind::Never;
  else
    c.partial_kind = CharClass::PartialKind::Depends;
  if (!any && !negated) {
    uint64_t next = 0x80;  // the first code point not yet covered
    for (const auto& [lo, hi] : c.accepts) {
      if (lo <= next && hi >= next) next = static_cast<uint64_t>(hi) + 1;
    }
    c.covers_non_ascii = next > 0x10FFFF;
  }
  return c;
}

constexpr size_t kMaxReusedParseBytes = 16u << 20;

std::string cycle_text(const std::vector<uint32_t>& cycle, const SymbolTable& names) {
  std::string s;
  for (size_t i = 0; i < cycle.size(); i++) {
    if (i) s += " -> ";
    s += names.name(cycle[i]);
  }
  return s;
}

// Grammar::lone_ref: one `rule End` pair per rule that matches no empty text (a nullable rule's lone
// reference could finish at once, and a position cut there would leave every token to the context); and
// Grammar::rest_nullable.
void add_cut_tables(Grammar& g, std::vector<uint8_t> nullable) {
  // The loops add_repetition_loops() appended each have an empty alternative.
  for (auto r = static_cast<uint32_t>(nullable.size()); r < g.rule_start.size(); r++) {
    bool empty_alt = false;
    for (const uint32_t a : g.alt_starts[r]) empty_alt = empty_alt || g.is_end_of_alt(a);
    nullable.push_back(empty_alt ? 1 : 0);
  }
  g.lone_ref_begin = static_cast<uint32_t>(g.elems.size());
  g.lone_ref.assign(g.rule_start.size(), Grammar::kNoPos);
  for (uint32_t r = 0; r < g.rule_start.size(); r++) {
    if (nullable[r]) continue;
    g.lone_ref[r] = static_cast<uint32_t>(g.elems.size());
    g.elems.push_back({ElemType::RuleRef, r});
    g.elems.push_back({ElemType::End, 0});
  }
  // Backwards through each alternative: the rest is nullable while every reference in it is.
  g.rest_nullable.assign(g.elems.size(), 0);
  uint8_t rest = 1;
  for (size_t p = g.elems.size(); p-- > 0;) {
    const Elem& e = g.elems[p];
    if (g.is_end_of_alt(static_cast<uint32_t>(p))) {
      rest = 1;
    } else if (e.type == ElemType::RuleRef) {
      rest = rest && e.value < nullable.size() && nullable[e.value];
    } else {
      rest = 0;  // a class (each of its elements) or a token takes input
    }
    g.rest_nullable[p] = rest;
  }
}

// Character classes of the grammar, each stored once: a hash of (negated, any, items) finds
// an equal class already made (open addressing over class ids).
class ClassInterner {
 public:
  explicit ClassInterner(std::vector<CharClass>& classes) : classes_(classes), slots_(64, kEmpty) {
    std::fill(std::begin(ascii_char_), std::end(ascii_char_), kEmpty);
  }

  uint32_t intern_ascii_char(uint32_t cp) {
    if (ascii_char_[cp] == kEmpty) {
      one_item_.assign(1, {cp, cp});
      ascii_char_[cp] = intern_hashed(false, false, one_item_);
    }
    return ascii_char_[cp];
  }

  uint32_t intern(bool negated, bool any, const std::vector<std::pair<uint32_t, uint32_t>>& items) {
    // Most classes are one ASCII character of a string literal: looked up directly.
    const bool ascii_char =
        !negated && !any && items.size() == 1 && items[0].first == items[0].second && items[0].first < 128;
    if (ascii_char && ascii_char_[items[0].first] != kEmpty) return ascii_char_[items[0].first];
    const uint32_t id = intern_hashed(negated, any, items);
    if (ascii_char) ascii_char_[items[0].first] = id;
    return id;
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  std::vector<CharClass>& classes_;
  std::vector<uint32_t> slots_;
  std::vector<uint64_t> hashes_;  // class id -> hash
  uint32_t ascii_char_[128];      // code point -> id of the class of just that character
  std::vector<std::pair<uint32_t, uint32_t>> one_item_;

  uint32_t intern_hashed(bool negated, bool any, const std::vector<std::pair<uint32_t, uint32_t>>& items) {
    uint64_t h = FlatMap64::mix((negated ? 1u : 0u) | (any ? 2u : 0u) | (items.size() << 2));
    for (const auto& [lo, hi] : items) h = FlatMap64::mix(h ^ ((static_cast<uint64_t>(lo) << 32) | hi));
    size_t i = h & (slots_.size() - 1);
    while (slots_[i] != kEmpty) {
      const uint32_t id = slots_[i];
      const CharClass& c = classes_[id];
      if (hashes_[id] == h && c.negated == negated && c.any == any && c.items == items) return id;
      i = (i + 1) & (slots_.size() - 1);
    }
    const auto id = static_cast<uint32_t>(classes_.size());
    classes_.push_back(make_class(negated, any, items));
    hashes_.push_back(h);
    slots_[i] = id;
    if (hashes_.size() * 2 > slots_.size()) rehash();
    return id;
  }

  void rehash() {
    slots_.assign(slots_.size() * 2, kEmpty);
    for (uint32_t id = 0; id < hashes_.size(); id++) {
      size_t i = hashes_[id] & (slots_.size() - 1);
      while (slots_[i] != kEmpty) i = (i + 1) & (slots_.size() - 1);
      slots_[i] = id;
    }
  }
};

}  // namespace

std::shared_ptr<const Grammar> Grammar::compile(std::string_view gbnf, std::string_view root,
                                                const CompileOptions& options, GrammarError& err) {
  // The parse tables are scratch: one set per thread, reused, so that a cold compile does not
  // fault in fresh pages for them each time (a large grammar's tables are megabytes).
  thread_local ParsedGrammar reused;
  thread_local bool reused_busy = false;
  std::optional<ParsedGrammar> own;  // a nested compile (from a token resolver) gets its own
  ParsedGrammar& parsed = reused_busy ? own.emplace() : reused;
  struct Release {
    ParsedGrammar& parsed;
    bool owner;
    ~Release() {
      if (!owner) return;
      reused_busy = false;
      // Keep at most this much between compiles; a rare huge grammar gives its tables back.
      if (parsed.memory_bytes() > kMaxReusedParseBytes) parsed = ParsedGrammar();
    }
  } release{parsed, !reused_busy};
  reused_busy = true;
  if (!parse_gbnf(gbnf, options.resolve_token, parsed, err)) return nullptr;
  auto fail = [&](std::string message, std::string_view rule, size_t offset) {
    err = GrammarError{};
    err.message = std::move(message);
    err.rule = std::string(rule);
    // Offsets count in the text up to its first NUL, as the parser read it.
    if (offset != UINT32_MAX)
      offset_to_line_col(gbnf.substr(0, gbnf.find('\0')), offset, err.line, err.column);
    return nullptr;
  };

  auto& rules = parsed.rules;
  if (rules.empty()) return fail("grammar has no rules", "", UINT32_MAX);
  const size_t n_symbols = parsed.n_symbols();
  if (rules.size() < n_symbols) rules.resize(n_symbols);
  for (size_t id = 0; id < n_symbols; id++) {
    if (rules[id].empty()) {
      return fail("undefined rule '" + std::string(parsed.name(static_cast<uint32_t>(id))) + "'",
                  parsed.symbols.view(parsed.first_ref_rule[id]), parsed.first_ref_offset[id]);
    }
  }
  const uint32_t root_id = parsed.symbols.find(root);
  if (root_id == SymbolTable::kNone) {
    return fail("grammar has no rule named '" + std::string(root) + "'", root, UINT32_MAX);
  }

  // llama.cpp rejects left recursion found with its notion of "empty" on every rule; a left
  // cycle through rules that only derive empty, and that grows the stack, would make it loop
  // forever, so reachable ones are rejected too.
  std::vector<uint32_t> cycle;
  const std::vector<uint8_t> nullable = derives_empty(rules);
  if (find_left_cycle(rules, literally_empty(rules), std::vector<uint8_t>(rules.size(), 1), cycle) ||
      find_growing_left_cycle(rules, nullable, reachable_from(rules, root_id), cycle)) {
    return fail("left recursion: " + cycle_text(cycle, parsed.symbols), parsed.name(cycle[0]), UINT32_MAX);
  }

  auto g = std::make_shared<Grammar>();
  g->root_rule = root_id;
  size_t total = 3;
  for (size_t r = 0; r < rules.size(); r++) total += rules[r].size();
  g->elems.reserve(total);
  g->rule_start.reserve(rules.size());
  size_t n_alts = 0;
  for (size_t r = 0; r < rules.size(); r++) {
    const ElemSpan rule = rules[r];
    g->rule_start.push_back(static_cast<uint32_t>(g->elems.size()));
    g->elems.insert(g->elems.end(), rule.begin(), rule.end());
    for (const Elem& e : rule) n_alts += e.type == ElemType::Alt;
  }
  // A class that matches nothing, outside every rule: the engine puts it under a stack's top
  // frames to ask what those frames do on their own (see MaskEngine::plan).
  g->never_pos = static_cast<uint32_t>(g->elems.size());
  g->elems.push_back({ElemType::CharNot, 0});
  g->elems.push_back({ElemType::CharRngUpper, UINT32_MAX});
  g->elems.push_back({ElemType::End, 0});
  g->alt_starts.reserve(rules.size(), n_alts + rules.size());
  for (size_t r = 0; r < rules.size(); r++) {
    uint32_t p = g->rule_start[r];
    g->alt_starts.add(p);
    for (; g->elems[p].type != ElemType::End; p++) {
      if (g->elems[p].type == ElemType::Alt) g->alt_starts.add(p + 1);
    }
    g->alt_starts.end_rule();
  }
  g->symbols = std::move(parsed.symbols);
  add_repetition_loops(*g);
  add_cut_tables(*g, nullable);

  const size_t n = g->elems.size();
  g->class_at.assign(n, kNoClass);
  g->after_class.assign(n, 0);
  ClassInterner classes(g->classes);
  std::vector<std::pair<uint32_t, uint32_t>> items;
  for (uint32_t p = 0; p < n; p++) {
    const ElemType t = g->elems[p].type;
    if (t != ElemType::Char && t != ElemType::CharNot && t != ElemType::CharAny) continue;
    // A literal's ASCII character (most classes): no item list to build.
    const ElemType after = g->elems[p + 1].type;
    if (t == ElemType::Char && g->elems[p].value < 128 && after != ElemType::CharRngUpper &&
        after != ElemType::CharAlt) {
      g->after_class[p] = p + 1;
      g->class_at[p] = classes.intern_ascii_char(g->elems[p].value);
      continue;
    }
    items.clear();
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
    g->class_at[p] = classes.intern(t == ElemType::CharNot, any, items);
  }
  return g;
}

size_t Grammar::memory_bytes() const {
  size_t b = sizeof(Grammar) + elems.capacity() * sizeof(Elem) + rule_start.capacity() * 4 +
             lone_ref.capacity() * 4 + rest_nullable.capacity() + class_at.capacity() * 4 +
             after_class.capacity() * 4;
  b += alt_starts.memory_bytes() + symbols.memory_bytes();
  for (const CharClass& c : classes) {
    b += sizeof(CharClass) +
         (c.items.capacity() + c.accepts.capacity()) * sizeof(std::pair<uint32_t, uint32_t>);
  }
  return b;
}

}  // namespace toolwright::grammar
