#include "gbnf_parser.h"

#include <algorithm>
#include <climits>
#include <stdexcept>

namespace toolwright::grammar {

namespace {

// llama.cpp caps repetition rewriting at this many rules so a grammar cannot explode.
constexpr uint64_t kMaxRepetition = 2000;
constexpr uint64_t kNoMax = UINT64_MAX;
// Groups nested inside one another: the parser (ours and llama.cpp's) recurses once per level,
// so a hostile grammar of 100,000 '(' would overflow the stack. Real grammars nest a few dozen.
constexpr int kMaxNesting = 500;

struct ParseFailure {
  size_t offset;
  std::string message;
};

bool is_digit(char c) { return c >= '0' && c <= '9'; }
bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' || is_digit(c); }

class Parser {
 public:
  std::string current_rule;

  Parser(const char* base, const TokenResolver& resolve, ParsedGrammar& out)
      : base_(base), resolve_(resolve), out_(out) {
    scratch_.reserve(256);
  }

  void parse_all() {
    const char* pos = skip_space(base_, true);
    while (*pos) pos = parse_rule(pos);
  }

 private:
  const char* base_;
  int nesting_ = 0;
  const TokenResolver& resolve_;
  ParsedGrammar& out_;
  // The rules being parsed, outermost first: a group's rule is written after its parent's
  // elements so far and moved into out_.rules when it ends (one buffer, reused).
  std::vector<Elem> scratch_;
  std::vector<Elem> repeated_;        // the item a repetition operator copies
  SymbolTable::NameRef current_ref_;  // current_rule, as stored in the symbol table

  [[noreturn]] void fail(const char* at, std::string msg) {
    throw ParseFailure{static_cast<size_t>(at - base_), std::move(msg)};
  }

  static std::string excerpt(const char* at) {
    std::string s;
    for (int i = 0; i < 24 && at[i] && at[i] != '\n' && at[i] != '\r'; i++) s += at[i];
    return s.empty() ? std::string("end of input") : "'" + s + "'";
  }

  // Keeps the per-id arrays at least as long as the symbol table's ids (grown geometrically;
  // parse_gbnf trims them).
  uint32_t track(uint32_t id) {
    if (out_.first_ref_offset.size() <= id) {
      const size_t n = std::max<size_t>(id + 1, out_.first_ref_offset.size() * 2);
      out_.first_ref_offset.resize(n, UINT32_MAX);
      out_.first_ref_rule.resize(n);
    }
    return id;
  }

  // Named symbol: existing id or a fresh one.
  uint32_t symbol_id(const char* src, size_t len) {
    return track(out_.symbols.intern(std::string_view(src, len)));
  }

  // Synthesized symbol for a group or repetition in the current rule: "<rule>_<id>".
  uint32_t synth_symbol() { return track(out_.symbols.add_synthesized(current_ref_)); }

  // Rule `id` := scratch_ from `start` on, which is then dropped from scratch_.
  void finish_rule(uint32_t id, size_t start) {
    out_.rules.set(id, scratch_.data() + start, scratch_.data() + scratch_.size());
    scratch_.resize(start);
  }

  static const char* skip_space(const char* p, bool newline_ok) {
    while (*p == ' ' || *p == '\t' || *p == '#' || (newline_ok && (*p == '\r' || *p == '\n'))) {
      if (*p == '#') {
        while (*p && *p != '\r' && *p != '\n') p++;
      } else {
        p++;
      }
    }
    return p;
  }

  const char* parse_name(const char* src) {
    const char* p = src;
    while (is_word(*p)) p++;
    if (p == src) fail(src, "expected a rule name at " + excerpt(src));
    return p;
  }

  const char* parse_int(const char* src) {
    const char* p = src;
    while (is_digit(*p)) p++;
    if (p == src) fail(src, "expected an integer at " + excerpt(src));
    return p;
  }

  uint64_t to_u64(const char* begin, const char* end) {
    uint64_t v = 0;
    for (const char* p = begin; p < end; p++) {
      const uint64_t d = static_cast<uint64_t>(*p - '0');
      if (v > (UINT64_MAX - d) / 10) fail(begin, "integer out of range: " + std::string(begin, end));
      v = v * 10 + d;
    }
    return v;
  }

  // Lenient UTF-8 read of one character from the grammar text (no continuation-byte checks,
  // stops at NUL), as llama.cpp reads grammar literals.
  static std::pair<uint32_t, const char*> read_utf8(const char* src) {
    static const int kLen[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 3, 4};
    const auto first = static_cast<uint8_t>(*src);
    const int len = kLen[first >> 4];
    uint32_t value = first & ((1u << (8 - len)) - 1);
    const char* end = src + len;
    const char* p = src + 1;
    for (; p < end && *p; p++) value = (value << 6) + (static_cast<uint8_t>(*p) & 0x3F);
    return {value, p};
  }

  std::pair<uint32_t, const char*> parse_hex(const char* src, int digits) {
    uint32_t value = 0;
    const char* p = src;
    for (; p < src + digits && *p; p++) {
      const char c = *p;
      uint32_t d;
      if (c >= '0' && c <= '9')
        d = c - '0';
      else if (c >= 'a' && c <= 'f')
        d = c - 'a' + 10;
      else if (c >= 'A' && c <= 'F')
        d = c - 'A' + 10;
      else
        break;
      value = (value << 4) + d;
    }
    if (p != src + digits) fail(src, "expected " + std::to_string(digits) + " hex digits at " + excerpt(src));
    return {value, p};
  }

  std::pair<uint32_t, const char*> parse_char(const char* src) {
    if (*src == '\\') {
      switch (src[1]) {
        case 'x':
          return parse_hex(src + 2, 2);
        case 'u':
          return parse_hex(src + 2, 4);
        case 'U':
          return parse_hex(src + 2, 8);
        case 't':
          return {'\t', src + 2};
        case 'r':
          return {'\r', src + 2};
        case 'n':
          return {'\n', src + 2};
        case '\\':
        case '"':
        case '[':
        case ']':
        case '-':
          return {static_cast<uint8_t>(src[1]), src + 2};
        default:
          fail(src, "unknown escape " + excerpt(src));
      }
    }
    if (*src) return read_utf8(src);
    fail(src, "unexpected end of input");
  }

  std::pair<uint32_t, const char*> parse_token(const char* src) {
    const char* p = src;
    if (*p != '<') fail(p, "expected '<' at " + excerpt(p));
    p++;
    if (*p == '[') {
      p++;
      const char* int_end = parse_int(p);
      const uint64_t id = to_u64(p, int_end);
      p = int_end;
      if (*p != ']') fail(p, "expected ']' at " + excerpt(p));
      p++;
      if (*p != '>') fail(p, "expected '>' at " + excerpt(p));
      p++;
      return {static_cast<uint32_t>(id), p};
    }
    if (!resolve_) fail(src, "token reference " + excerpt(src) + " needs a vocabulary");
    while (*p && *p != '>') p++;
    if (*p != '>') fail(p, "expected '>' at " + excerpt(p));
    p++;
    const std::string text(src, p - src);
    const auto id = resolve_(text);
    if (!id) fail(src, "'" + text + "' is not exactly one token in this vocabulary");
    return {static_cast<uint32_t>(*id), p};
  }

  const char* parse_alternates(const char* src, uint32_t id, bool nested) {
    const size_t start = scratch_.size();
    const char* p = parse_sequence(src, nested);
    while (*p == '|') {
      scratch_.push_back({ElemType::Alt, 0});
      p = skip_space(p + 1, true);
      p = parse_sequence(p, nested);
    }
    scratch_.push_back({ElemType::End, 0});
    finish_rule(id, start);
    return p;
  }

  // S{m,n} -> S repeated m times, then a chain of optional rules for the n-m optional copies
  // (or one right-recursive rule when unbounded). Same rewriting (and numbering) as llama.cpp.
  void repeat_last(size_t last_start, uint64_t& n_prev_rules, uint64_t min_times, uint64_t max_times,
                   const char* at) {
    std::vector<Elem>& rule = scratch_;
    const bool no_max = max_times == kNoMax;
    if (last_start == rule.size()) fail(at, "repetition operator without a preceding item");
    if (!no_max && max_times < min_times) {
      fail(at, "repetition maximum " + std::to_string(max_times) + " is below its minimum " +
                   std::to_string(min_times));
    }
    std::vector<Elem>& prev = repeated_;
    prev.assign(rule.begin() + static_cast<ptrdiff_t>(last_start), rule.end());
    uint64_t total = 1;
    if (!no_max && max_times > 0)
      total = max_times;
    else if (min_times > 0)
      total = min_times;
    if (n_prev_rules * total > kMaxRepetition) {
      fail(at, "repetition would create more than " + std::to_string(kMaxRepetition) +
                   " rules; reduce the count or nesting");
    }
    if (min_times == 0) {
      rule.resize(last_start);
    } else {
      for (uint64_t i = 1; i < min_times; i++) rule.insert(rule.end(), prev.begin(), prev.end());
    }
    const uint64_t n_opt = no_max ? 1 : max_times - min_times;
    uint32_t last_rec = 0;
    for (uint64_t i = 0; i < n_opt; i++) {
      const size_t rec_start = rule.size();
      rule.insert(rule.end(), prev.begin(), prev.end());
      const uint32_t rec_id = synth_symbol();
      if (i > 0 || no_max) rule.push_back({ElemType::RuleRef, no_max ? rec_id : last_rec});
      rule.push_back({ElemType::Alt, 0});
      rule.push_back({ElemType::End, 0});
      finish_rule(rec_id, rec_start);
      last_rec = rec_id;
    }
    if (n_opt > 0) rule.push_back({ElemType::RuleRef, last_rec});
    n_prev_rules *= total;
  }

  // Appends one alternative to scratch_.
  const char* parse_sequence(const char* src, bool nested) {
    std::vector<Elem>& rule = scratch_;
    size_t last_start = rule.size();
    uint64_t n_prev_rules = 1;
    const char* p = src;
    while (*p) {
      const char* at = p;
      if (*p == '"') {
        p++;
        last_start = rule.size();
        n_prev_rules = 1;
        while (*p != '"') {
          if (!*p) fail(at, "unterminated string literal");
          auto [cp, next] = parse_char(p);
          p = next;
          rule.push_back({ElemType::Char, cp});
        }
        p = skip_space(p + 1, nested);
      } else if (*p == '[') {
        p++;
        ElemType first = ElemType::Char;
        if (*p == '^') {
          p++;
          first = ElemType::CharNot;
        }
        last_start = rule.size();
        n_prev_rules = 1;
        while (*p != ']') {
          if (!*p) fail(at, "unterminated character class");
          auto [cp, next] = parse_char(p);
          p = next;
          rule.push_back({last_start < rule.size() ? ElemType::CharAlt : first, cp});
          if (p[0] == '-' && p[1] != ']') {
            if (!p[1]) fail(at, "unterminated character class");
            auto [hi, after] = parse_char(p + 1);
            p = after;
            rule.push_back({ElemType::CharRngUpper, hi});
          }
        }
        p = skip_space(p + 1, nested);
      } else if (*p == '<' || *p == '!') {
        ElemType type = ElemType::Token;
        if (*p == '!') {
          type = ElemType::TokenNot;
          p++;
        }
        auto [id, end] = parse_token(p);
        last_start = rule.size();
        n_prev_rules = 1;
        rule.push_back({type, id});
        p = skip_space(end, nested);
      } else if (is_word(*p)) {
        const char* name_end = parse_name(p);
        const uint32_t ref = symbol_id(p, name_end - p);
        if (out_.first_ref_offset[ref] == UINT32_MAX) {
          out_.first_ref_offset[ref] = static_cast<uint32_t>(p - base_);
          out_.first_ref_rule[ref] = current_ref_;
        }
        p = skip_space(name_end, nested);
        last_start = rule.size();
        n_prev_rules = 1;
        rule.push_back({ElemType::RuleRef, ref});
      } else if (*p == '(') {
        if (nesting_ >= kMaxNesting) {
          fail(p, "groups nested more than " + std::to_string(kMaxNesting) + " deep (the grammar budget)");
        }
        nesting_++;
        p = skip_space(p + 1, true);
        const uint32_t n_before = out_.symbols.distinct_names();
        const uint32_t sub = synth_symbol();
        p = parse_alternates(p, sub, true);
        n_prev_rules = std::max<uint64_t>(1, out_.symbols.distinct_names() - n_before);
        last_start = rule.size();
        rule.push_back({ElemType::RuleRef, sub});
        if (*p != ')') fail(p, "expected ')' at " + excerpt(p));
        nesting_--;
        p = skip_space(p + 1, nested);
      } else if (*p == '.') {
        last_start = rule.size();
        n_prev_rules = 1;
        rule.push_back({ElemType::CharAny, 0});
        p = skip_space(p + 1, nested);
      } else if (*p == '*') {
        p = skip_space(p + 1, nested);
        repeat_last(last_start, n_prev_rules, 0, kNoMax, at);
      } else if (*p == '+') {
        p = skip_space(p + 1, nested);
        repeat_last(last_start, n_prev_rules, 1, kNoMax, at);
      } else if (*p == '?') {
        p = skip_space(p + 1, nested);
        repeat_last(last_start, n_prev_rules, 0, 1, at);
      } else if (*p == '{') {
        p = skip_space(p + 1, nested);
        if (!is_digit(*p)) fail(p, "expected an integer at " + excerpt(p));
        const char* int_end = parse_int(p);
        const uint64_t min_times = to_u64(p, int_end);
        p = skip_space(int_end, nested);
        uint64_t max_times = kNoMax;
        if (*p == '}') {
          max_times = min_times;
          p = skip_space(p + 1, nested);
        } else if (*p == ',') {
          p = skip_space(p + 1, nested);
          if (is_digit(*p)) {
            const char* max_end = parse_int(p);
            max_times = to_u64(p, max_end);
            p = skip_space(max_end, nested);
          }
          if (*p != '}') fail(p, "expected '}' at " + excerpt(p));
          p = skip_space(p + 1, nested);
        } else {
          fail(p, "expected ',' or '}' at " + excerpt(p));
        }
        if (min_times > kMaxRepetition) {
          fail(at, "repetition minimum " + std::to_string(min_times) + " exceeds " +
                       std::to_string(kMaxRepetition));
        }
        // Like llama.cpp: a maximum above the cap means "no maximum".
        if (max_times != kNoMax && max_times > kMaxRepetition) max_times = kNoMax;
        repeat_last(last_start, n_prev_rules, min_times, max_times, at);
      } else {
        break;
      }
    }
    return p;
  }

  const char* parse_rule(const char* src) {
    const char* name_end = parse_name(src);
    const char* p = skip_space(name_end, false);
    current_rule.assign(src, name_end - src);
    const uint32_t id = symbol_id(src, name_end - src);
    current_ref_ = out_.symbols.stored_name(current_rule);
    if (!(p[0] == ':' && p[1] == ':' && p[2] == '=')) fail(p, "expected '::=' at " + excerpt(p));
    p = skip_space(p + 3, true);
    p = parse_alternates(p, id, false);
    if (*p == '\r') {
      p += p[1] == '\n' ? 2 : 1;
    } else if (*p == '\n') {
      p++;
    } else if (*p) {
      fail(p, "expected end of line at " + excerpt(p));
    }
    return skip_space(p, true);
  }
};

}  // namespace

std::string GrammarError::to_string() const {
  std::string s;
  if (line > 0) s += "line " + std::to_string(line) + ", column " + std::to_string(column) + ": ";
  s += message;
  if (!rule.empty()) s += " (in rule '" + rule + "')";
  return s;
}

void offset_to_line_col(std::string_view src, size_t offset, int& line, int& column) {
  line = 1;
  column = 1;
  for (size_t i = 0; i < offset && i < src.size(); i++) {
    if (src[i] == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
}

bool parse_gbnf(std::string_view src, const TokenResolver& resolve_token, ParsedGrammar& out,
                GrammarError& err) {
  // llama.cpp reads the grammar as a C string: anything after a NUL is ignored.
  const std::string text(src.data(), std::min(src.size(), src.find('\0')));
  out.clear();
  // Converter grammars have a distinct name per 8 to 130 bytes of text: start at the sparse end
  // (an oversized table costs cache misses on every lookup).
  out.symbols.reserve(std::min<size_t>(text.size() / 64, 1u << 16));
  Parser parser(text.c_str(), resolve_token, out);
  try {
    parser.parse_all();
    out.first_ref_offset.resize(out.n_symbols());
    out.first_ref_rule.resize(out.n_symbols());
  } catch (const ParseFailure& f) {
    err = GrammarError{};
    err.message = f.message;
    err.rule = parser.current_rule;
    offset_to_line_col(text, f.offset, err.line, err.column);
    return false;
  } catch (const std::exception& e) {
    err = GrammarError{};
    err.message = e.what();
    err.rule = parser.current_rule;
    return false;
  }
  return true;
}

}  // namespace toolwright::grammar
