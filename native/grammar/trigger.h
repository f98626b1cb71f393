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
  // Where the grammar's input starts in `text` (everything generated so far), or nullopt.
  std::optional<size_t> find(const std::string& text) const;

 private:
  struct Pattern {
    std::string source;
    std::regex regex;
  };
  std::vector<int32_t> tokens_;
  std::vector<Pattern> patterns_;
  std::string reasoning_end_;
};

}  // namespace toolwright::grammar
