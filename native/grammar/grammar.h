// A compiled GBNF grammar: the rules flattened into one element array, every character
// class precompiled for fast code-point tests, and the checks llama.cpp makes (undefined
// rules, left recursion, root present). Immutable once built; share it between matchers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gbnf_parser.h"

namespace toolwright::grammar {

// One terminal character class (a literal char is a one-item class).
struct CharClass {
  bool negated = false;
  bool any = false;  // '.'
  // Items as written ([lo, hi], lo may exceed hi): used for partial UTF-8 tests, which
  // llama.cpp evaluates item by item.
  std::vector<std::pair<uint32_t, uint32_t>> items;
  // Sorted, disjoint, inclusive intervals of code points the class accepts (negation applied).
  std::vector<std::pair<uint32_t, uint32_t>> accepts;
  uint64_t ascii[2] = {0, 0};  // accepts, for code points < 128
  uint64_t span = 0;           // how many code points it accepts

  bool matches(uint32_t cp) const {
    if (cp < 128) return (ascii[cp >> 6] >> (cp & 63)) & 1;
    size_t lo = 0, hi = accepts.size();
    while (lo < hi) {
      const size_t mid = (lo + hi) / 2;
      if (accepts[mid].second < cp)
        lo = mid + 1;
      else
        hi = mid;
    }
    return lo < accepts.size() && accepts[lo].first <= cp;
  }

  // How the class answers partial-UTF-8 tests (a pending sequence always means a code point
  // of at least 0x80): never (positive, ASCII items only), always (any, or negated with ASCII
  // items only: then only the overlong check can fail), or it depends.
  enum class PartialKind : uint8_t { Never, Always, Depends };
  PartialKind partial_kind = PartialKind::Depends;
  // Positive items covering every code point from 0x80 to U+10FFFF (a string body written as ranges): then a
  // partial test is true for every well-formed sequence that can end at or below U+10FFFF.
  bool covers_non_ascii = false;

  // Could a character whose UTF-8 encoding is still missing `n_remain` continuation bytes
  // (bits so far: `value`) satisfy this class? Same answer as llama.cpp's partial test.
  bool matches_partial(uint32_t value, int n_remain) const;
  // The lowest code point such a sequence stands for, as the partial test computes it (UINT32_MAX when the
  // test fails whatever the items: an invalid or overlong sequence).
  static uint32_t partial_low(uint32_t value, int n_remain);
};

// Rule id -> the first element of each of its alternatives, all rules in one array.
class AltStarts {
 public:
  class Span {
   public:
    Span(const uint32_t* b, const uint32_t* e) : b_(b), e_(e) {}
    const uint32_t* begin() const { return b_; }
    const uint32_t* end() const { return e_; }
    size_t size() const { return static_cast<size_t>(e_ - b_); }
    uint32_t operator[](size_t i) const { return b_[i]; }

   private:
    const uint32_t* b_;
    const uint32_t* e_;
  };
  Span operator[](size_t rule) const {
    return Span(starts_.data() + first_[rule], starts_.data() + first_[rule + 1]);
  }
  size_t size() const { return first_.size() - 1; }
  size_t memory_bytes() const { return (starts_.capacity() + first_.capacity()) * sizeof(uint32_t); }

  void reserve(size_t rules, size_t alts) {
    first_.reserve(rules + 1);
    starts_.reserve(alts);
  }
  void add(uint32_t start) { starts_.push_back(start); }
  // Ends the current rule's list (call once per rule, in id order).
  void end_rule() { first_.push_back(static_cast<uint32_t>(starts_.size())); }

 private:
  std::vector<uint32_t> starts_;
  std::vector<uint32_t> first_{0};
};

struct CompileOptions {
  TokenResolver resolve_token;  // for `<text>` token references; may be empty
};

class Grammar {
 public:
  // Parses and checks `gbnf`; `root` names the start rule. Returns nullptr and fills `err`
  // (message, line, column, rule) when the grammar is invalid.
  static std::shared_ptr<const Grammar> compile(std::string_view gbnf, std::string_view root,
                                                const CompileOptions& options, GrammarError& err);

  std::vector<Elem> elems;           // all rules, each ending with End
  std::vector<uint32_t> rule_start;  // rule id -> first element
  AltStarts alt_starts;              // rule id -> first element of each alternative
  SymbolTable symbols;               // rule names
  std::string rule_name(uint32_t id) const { return symbols.name(id); }
  std::vector<uint32_t> class_at;     // element -> class id, for Char/CharNot/CharAny starts
  std::vector<uint32_t> after_class;  // element -> element after its class
  std::vector<CharClass> classes;
  uint32_t root_rule = 0;
  uint32_t never_pos = 0;  // a terminal no code point matches, in no rule
  // Rule id -> a reference to that rule alone (`rule` then End), in no rule; kNoPos for a rule that matches
  // the empty text. A frame cut below the rule it calls next stands there (Npda::cut_node), so frames that
  // differ only in what follows that rule (the nth of an object's properties) cut to one position.
  std::vector<uint32_t> lone_ref;
  uint32_t lone_ref_begin = 0;  // the first of those positions
  // Element -> whether the rest of its alternative from there (End included) can match the empty text.
  std::vector<uint8_t> rest_nullable;
  static constexpr uint32_t kNoPos = UINT32_MAX;

  static constexpr uint32_t kNoClass = UINT32_MAX;

  // Approximate heap bytes (for the grammar cache's budget).
  size_t memory_bytes() const;

  bool is_end_of_alt(uint32_t pos) const {
    const ElemType t = elems[pos].type;
    return t == ElemType::End || t == ElemType::Alt;
  }
  // The lone reference standing for a frame at `pos` cut below the rule it calls there (kNoPos when `pos`
  // calls no rule, is its alternative's last element, or calls a rule that matches the empty text).
  uint32_t lone_ref_at(uint32_t pos) const {
    if (elems[pos].type != ElemType::RuleRef || is_end_of_alt(pos + 1)) return kNoPos;
    return elems[pos].value < lone_ref.size() ? lone_ref[elems[pos].value] : kNoPos;
  }
  bool is_token_elem(uint32_t pos) const {
    const ElemType t = elems[pos].type;
    return t == ElemType::Token || t == ElemType::TokenNot;
  }
  bool token_elem_matches(uint32_t pos, int32_t token) const {
    const bool eq = elems[pos].value == static_cast<uint32_t>(token);
    return elems[pos].type == ElemType::Token ? eq : !eq;
  }
};

}  // namespace toolwright::grammar
