// Lazy activation: a grammar that waits for a trigger before it constrains anything, the way
// llama.cpp's lazy grammar sampler does (trigger tokens, trigger words, trigger patterns), plus
// activation at the end of a reasoning block.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

namespace toolwright::grammar {

struct LazyOptions {
  bool lazy = false;                          // wait for a trigger before masking
  std::vector<int32_t> trigger_tokens;        // activates on this token; the token is fed
  std::vector<std::string> trigger_words;     // activates on this text; the text is fed
  std::vector<std::string> trigger_patterns;  // ECMAScript regex over all text so far; fed
                                              // from the first non-empty capture group
  std::string reasoning_end;                  // activates after this text (e.g. "</think>");
                                              // only what follows it is fed
};

// Watches generated text for a trigger.
class TriggerWatcher {
 public:
  // Throws std::regex_error for a malformed pattern.
  explicit TriggerWatcher(const LazyOptions& options);

  bool is_trigger_token(int32_t token) const;
  // Where the grammar's input starts in `text` (everything generated so far), or nullopt. `appended_at`:
  // where the text added since the last call begins (0: all of it is new). An "anywhere" pattern then
  // searches only where a match can end in the new text, allowing matches up to kMaxTriggerMatch bytes long.
  std::optional<size_t> find(const std::string& text, size_t appended_at = 0) const;

  // The longest trigger match (of a regex that is not one literal) found across calls.
  static constexpr size_t kMaxTriggerMatch = 4096;

 private:
  // A pattern of the "anywhere" shape `^[\s\S]*?CORE[\s\S]*`, which every lazy chat grammar uses, is not
  // matched as written: libstdc++'s regex recurses once per character of `[\s\S]*`, so a long output
  // overflowed the stack (a crash at ~60k characters), and each token cost time linear in all the text so
  // far. Its first match is where CORE first matches, found by searching for CORE alone (after `guard`, when
  // CORE starts with a literal followed by `[\s\S]*?`), or by a substring search when CORE is one literal
  // group.
  struct Pattern {
    std::string source;
    std::regex regex;
    bool anywhere = false;
    std::string guard;                   // literal that must come first (anywhere patterns)
    std::optional<std::string> literal;  // CORE is `(literal)`
    std::regex core;
  };
  static Pattern Compile(const std::string& source);
  static std::optional<size_t> FindAnywhere(const Pattern& p, const std::string& text, size_t appended_at);
  std::vector<int32_t> tokens_;
  std::vector<Pattern> patterns_;
  std::string reasoning_end_;
};

}  // namespace toolwright::grammar
