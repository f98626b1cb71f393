#include "trigger.h"

#include <algorithm>

namespace toolwright::grammar {

namespace {

std::string escape_regex(const std::string& word) {
  static const std::string kSpecial = ".^$|()*+?[]{}\\";
  std::string out;
  for (char c : word) {
    if (kSpecial.find(c) != std::string::npos) out += '\\';
    out += c;
  }
  return out;
}

// The grammar is fed from the first capture group that matched something, else from the start
// of the whole match (llama.cpp's rule).
size_t feed_start(const std::smatch& m) {
  for (size_t i = 1; i < m.size(); i++) {
    if (m.length(i) > 0) return static_cast<size_t>(m.position(i));
  }
  return static_cast<size_t>(m.position(0));
}

}  // namespace

TriggerWatcher::TriggerWatcher(const LazyOptions& options)
    : tokens_(options.trigger_tokens), reasoning_end_(options.reasoning_end) {
  if (!options.trigger_words.empty()) {
    // Same single pattern llama.cpp builds from trigger words.
    std::string p = "[\\s\\S]*?(";
    for (size_t i = 0; i < options.trigger_words.size(); i++) {
      if (i) p += "|";
      p += escape_regex(options.trigger_words[i]);
    }
    p += ")[\\s\\S]*";
    patterns_.push_back(Pattern{p, std::regex(p)});
  }
  for (const std::string& p : options.trigger_patterns) patterns_.push_back(Pattern{p, std::regex(p)});
}

bool TriggerWatcher::is_trigger_token(int32_t token) const {
  return std::find(tokens_.begin(), tokens_.end(), token) != tokens_.end();
}

std::optional<size_t> TriggerWatcher::find(const std::string& text) const {
  if (!reasoning_end_.empty()) {
    const size_t at = text.find(reasoning_end_);
    if (at != std::string::npos) return at + reasoning_end_.size();
  }
  for (const Pattern& p : patterns_) {
    std::smatch m;
    // A pattern anchored at both ends must match the whole text; otherwise (or if that
    // fails) it may match anywhere.
    if (!p.source.empty() && p.source.front() == '^' && p.source.back() == '$' &&
        std::regex_match(text, m, p.regex)) {
      return feed_start(m);
    }
    if (std::regex_search(text, m, p.regex)) return feed_start(m);
  }
  return std::nullopt;
}

}  // namespace toolwright::grammar
