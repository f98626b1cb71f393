// GBNF text -> rule tables. The language and its edge cases follow llama.cpp's parser (same
// symbol numbering, same repetition rewriting, same limits), so a grammar means exactly what
// it means to llama.cpp. Written from its documented behaviour, not from its code.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace toolwright::grammar {

enum class ElemType : uint8_t {
  End,           // end of a rule
  Alt,           // start of another alternative
  RuleRef,       // value = rule id
  Char,          // value = code point; first item of a positive class or literal char
  CharNot,       // value = code point; first item of a negated class
  CharRngUpper,  // value = upper bound of a range started by the previous item
  CharAlt,       // value = code point; another item of the current class
  CharAny,       // '.'
  Token,         // value = token id (<[id]> or <text>)
  TokenNot,      // value = token id (!<[id]>)
};

struct Elem {
  ElemType type;
  uint32_t value;
};

using Rule = std::vector<Elem>;

// Where a compile error is, and in which rule.
struct GrammarError {
  std::string message;
  std::string rule;  // rule being parsed, or the rule the error is about; may be empty
  int line = 0;      // 1-based; 0 when the error has no single location
  int column = 0;    // 1-based byte column
  std::string to_string() const;
};

// Maps the text of a `<...>` token reference (brackets included, e.g. "<think>") to the one
// token it must tokenize to; nullopt when it is not exactly one token.
using TokenResolver = std::function<std::optional<int32_t>(std::string_view text)>;

struct ParsedGrammar {
  std::vector<Rule> rules;                     // by rule id; an empty rule is undefined
  std::map<std::string, uint32_t> symbol_ids;  // name -> id (synthesized names included)
  std::vector<std::string> names;              // id -> name
  std::vector<uint32_t> first_ref_offset;      // id -> byte offset of its first use, or UINT32_MAX
  std::vector<std::string> first_ref_rule;     // id -> rule that first used it
};

// Parses `src` (read as a NUL-terminated string, like llama.cpp does). Returns false and fills
// `err` on a syntax error. Undefined rules, left recursion and the root check are left to
// compile_grammar().
bool parse_gbnf(std::string_view src, const TokenResolver& resolve_token, ParsedGrammar& out,
                GrammarError& err);

// 1-based line and column of a byte offset in `src`.
void offset_to_line_col(std::string_view src, size_t offset, int& line, int& column);

}  // namespace toolwright::grammar
