#include "trigger.h"

#include <algorithm>
#include <cctype>
#include <string_view>

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

constexpr std::string_view kAnyPrefix = "^[\\s\\S]*?";
constexpr std::string_view kAnyLazy = "[\\s\\S]*?";
constexpr std::string_view kAnySuffix = "[\\s\\S]*";

// The text an escaped literal stands for, or nullopt when `regex` is not a plain (escaped) literal. A
// backslash before any ASCII character but a letter or digit stands for that character (ECMAScript's identity
// escape): the chat layer escapes "/" and "-" too, so its `<\/think>` guard is a literal.
std::optional<std::string> unescape_literal(std::string_view regex) {
  static const std::string kSpecial = ".^$|()*+?[]{}\\";
  std::string out;
  for (size_t i = 0; i < regex.size(); i++) {
    const char c = regex[i];
    if (c == '\\') {
      const unsigned char next = i + 1 < regex.size() ? static_cast<unsigned char>(regex[i + 1]) : 0;
      if (next == 0 || next >= 0x80 || std::isalnum(next)) return std::nullopt;
      out += regex[++i];
    } else if (kSpecial.find(c) != std::string::npos) {
      return std::nullopt;
    } else {
      out += c;
    }
  }
  return out;
}

bool has_anchor(std::string_view regex) {
  for (size_t i = 0; i < regex.size(); i++) {
    if (regex[i] == '\\') {
      i++;
    } else if (regex[i] == '^' || regex[i] == '$') {
      return true;
    }
  }
  return false;
}

}  // namespace

TriggerWatcher::Pattern TriggerWatcher::Compile(const std::string& source) {
  Pattern p;
  p.source = source;
  p.regex = std::regex(source);
  std::string_view middle(source);
  // With or without `^`: a search finds the leftmost match either way.
  if (middle.substr(0, kAnyPrefix.size()) == kAnyPrefix) {
    middle.remove_prefix(kAnyPrefix.size());
  } else if (middle.substr(0, kAnyLazy.size()) == kAnyLazy) {
    middle.remove_prefix(kAnyLazy.size());
  } else {
    return p;
  }
  if (!middle.empty() && middle.back() == '$' && (middle.size() < 2 || middle[middle.size() - 2] != '\\'))
    middle.remove_suffix(1);
  if (middle.size() < kAnySuffix.size() || middle.substr(middle.size() - kAnySuffix.size()) != kAnySuffix)
    return p;
  middle.remove_suffix(kAnySuffix.size());
  // A literal guard: `GUARD[\s\S]*?REST`; the first GUARD in the text is the one to search after.
  const size_t lazy = middle.find(kAnyLazy);
  if (lazy != std::string_view::npos && lazy > 0) {
    if (auto guard = unescape_literal(middle.substr(0, lazy))) {
      p.guard = *guard;
      middle.remove_prefix(lazy + kAnyLazy.size());
    }
  }
  if (middle.empty() || has_anchor(middle)) {
    p.guard.clear();  // not an anywhere pattern: the whole regex is searched
    return p;
  }
  if (middle.size() >= 2 && middle.front() == '(' && middle.back() == ')' && middle[1] != '?')
    p.literal = unescape_literal(middle.substr(1, middle.size() - 2));
  p.core = std::regex(std::string(middle));
  p.anywhere = true;
  return p;
}

std::optional<size_t> TriggerWatcher::FindAnywhere(const Pattern& p, const std::string& text,
                                                   size_t appended_at) {
  size_t from = 0;
  if (!p.guard.empty()) {
    const size_t at = text.find(p.guard);
    if (at == std::string::npos) return std::nullopt;
    from = at + p.guard.size();
  }
  // A match that ended in earlier text was found then: only one that ends in the new text is left to find.
  const size_t reach = p.literal ? (p.literal->empty() ? 0 : p.literal->size() - 1) : kMaxTriggerMatch;
  from = std::max(from, appended_at > reach ? appended_at - reach : 0);
  if (p.literal) {
    const size_t at = text.find(*p.literal, from);
    if (at == std::string::npos) return std::nullopt;
    return at;
  }
  std::smatch m;
  const auto flags = from > 0 ? std::regex_constants::match_prev_avail : std::regex_constants::match_default;
  if (!std::regex_search(text.begin() + static_cast<std::ptrdiff_t>(from), text.end(), m, p.core, flags))
    return std::nullopt;
  return from + feed_start(m);
}

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
    patterns_.push_back(Compile(p));
  }
  for (const std::string& p : options.trigger_patterns) patterns_.push_back(Compile(p));
}

bool TriggerWatcher::is_trigger_token(int32_t token) const {
  return std::find(tokens_.begin(), tokens_.end(), token) != tokens_.end();
}

std::optional<size_t> TriggerWatcher::find(const std::string& text, size_t appended_at) const {
  if (!reasoning_end_.empty()) {
    const size_t at = text.find(reasoning_end_);
    if (at != std::string::npos) return at + reasoning_end_.size();
  }
  for (const Pattern& p : patterns_) {
    if (p.anywhere) {
      if (const auto start = FindAnywhere(p, text, appended_at)) return start;
      continue;
    }
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
