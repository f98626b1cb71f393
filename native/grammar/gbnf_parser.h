// GBNF text -> rule tables. The language and its edge cases follow llama.cpp's parser (same
// symbol numbering, same repetition rewriting, same limits), so a grammar means exactly what
// it means to llama.cpp. Written from its documented behaviour, not from its code.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rule_table.h"
#include "symbol_table.h"

namespace toolwright::grammar {

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
  RuleTable rules;                                   // by rule id; an empty rule is undefined
  SymbolTable symbols;                               // name <-> id (synthesized names included)
  std::vector<uint32_t> first_ref_offset;            // id -> byte offset of its first use, or UINT32_MAX
  std::vector<SymbolTable::NameRef> first_ref_rule;  // id -> rule that first used it

  // Empties it for another parse, keeping the buffers that parse_gbnf reuses.
  void clear() {
    rules.clear();
    symbols = SymbolTable();
    first_ref_offset.clear();
    first_ref_rule.clear();
  }
  size_t memory_bytes() const {
    return rules.memory_bytes() + symbols.memory_bytes() + first_ref_offset.capacity() * sizeof(uint32_t) +
           first_ref_rule.capacity() * sizeof(SymbolTable::NameRef);
  }

  // Number of ids (every id below it has a name).
  size_t n_symbols() const { return symbols.id_count(); }
  std::string name(uint32_t id) const { return symbols.name(id); }
};

// Parses `src` (read as a NUL-terminated string, like llama.cpp does) into `out` (cleared
// first; its buffers are reused). Returns false and fills `err` on a syntax error. Undefined rules, left
// recursion and the root check are left to compile_grammar().
bool parse_gbnf(std::string_view src, const TokenResolver& resolve_token, ParsedGrammar& out,
                GrammarError& err);

// 1-based line and column of a byte offset in `src`.
void offset_to_line_col(std::string_view src, size_t offset, int& line, int& column);

}  // namespace toolwright::grammar
