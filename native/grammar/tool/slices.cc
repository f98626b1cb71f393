// Self-check of the slice constructions: every class of the table, below the root and a sample
// of nodes, built three ways; they must give the same slice.
#include "slices.h"

#include <cstdio>
#include <string>
#include <vector>

#include "grammar.h"
#include "slice.h"
#include "vocab.h"

namespace toolwright::grammar::tool {

namespace {

using Intervals = std::vector<std::pair<uint32_t, uint32_t>>;

// a minus the single code points in `cut`.
Intervals minus(Intervals a, const std::vector<uint32_t>& cut) {
  for (const uint32_t c : cut) {
    Intervals out;
    for (const auto& [lo, hi] : a) {
      if (c < lo || c > hi) {
        out.emplace_back(lo, hi);
        continue;
      }
      if (lo < c) out.emplace_back(lo, c - 1);
      if (c < hi) out.emplace_back(c + 1, hi);
    }
    a.swap(out);
  }
  return a;
}

struct ClassCase {
  const char* name;
  Intervals first, rest;
};

std::vector<ClassCase> class_table() {
  const Intervals str = SliceRegistry::json_string_chars();
  const Intervals str_del = SliceRegistry::json_string_chars_with_del();
  const Intervals ident{{'-', '-'}, {'0', '9'}, {'A', 'Z'}, {'_', '_'}, {'a', 'z'}};
  const Intervals letters{{'A', 'Z'}, {'a', 'z'}};
  return {
      {"json string", str, str},
      {"json string with DEL", str_del, str_del},
      {"string without U+2028/2029", minus(str_del, {0x2028, 0x2029}), minus(str_del, {0x2028, 0x2029})},
      {"non-space (\\S)", minus(str_del, {' ', 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x200A, 0x2028, 0x3000}),
       minus(str_del, {' ', 0xA0, 0x1680, 0x2000, 0x2001, 0x2002, 0x200A, 0x2028, 0x3000})},
      {"string minus one letter", minus(str, {'e'}), minus(str, {'e'})},
      {"key start then string", minus(str, {'a', 'n', 't'}), str},
      {"identifier", ident, ident},
      {"letter then identifier", letters, ident},
      {"hex digits", {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}, {{'0', '9'}, {'A', 'F'}, {'a', 'f'}}},
      {"digits", {{'0', '9'}}, {{'0', '9'}}},
      {"printable ASCII", {{0x20, 0x7E}}, {{0x20, 0x7E}}},
      {"non-ASCII only", {{0x80, 0x10FFFF}}, {{0x80, 0x10FFFF}}},
      {"CJK", {{0x4E00, 0x9FFF}}, {{0x4E00, 0x9FFF}}},
      {"everything", {{0, 0x10FFFF}}, {{0, 0x10FFFF}}},
      {"not a newline", {{0, 9}, {11, 0x10FFFF}}, {{0, 9}, {11, 0x10FFFF}}},
      {"string first, letters after", str, letters},
  };
}

// Grammars and how many root slices compiling them builds ahead of masks: one per class the
// grammar repeats and the mask engine would take a slice for (16 code points or more).
struct PrebuildCase {
  const char* name;
  const char* gbnf;
  size_t slices;
};

std::vector<PrebuildCase> prebuild_table() {
  return {
      {"class+", "root ::= [a-z0-9-]+", 1},
      {"class{2,8}", "root ::= \"x\" [a-y0-9_]{2,8}", 1},
      {"class{3}", "root ::= [b-z]{3}", 1},
      {"rule of class repeated", "root ::= \"\\\"\" c* \"\\\"\"\nc ::= [^\"\\\\\\n] | \"\\\\\" [nt]", 1},
      {"two classes repeated", "root ::= [A-Z_]+ \"=\" [0-9a-f:]*", 2},
      {"broad class once", "root ::= [c-z0-9_] \"!\"", 0},
      {"narrow class repeated", "root ::= [0-9]+", 0},
      {"different class after", "root ::= [d-z]+ | [e-z] [0-9]", 1},
  };
}

// Each case compiled twice: the first builds its slices, the second finds them built. Appends
// to `failures` where a count differs from the table.
std::string check_prebuild(SliceRegistry& reg, std::string& failures) {
  std::string out;
  for (const PrebuildCase& c : prebuild_table()) {
    GrammarError err;
    auto g = Grammar::compile(c.gbnf, "root", CompileOptions{}, err);
    const size_t built = g ? reg.prebuild_for(*g) : SIZE_MAX;
    const size_t again = g ? reg.prebuild_for(*g) : SIZE_MAX;
    char buf[200];
    snprintf(buf, sizeof buf, "%s{\"grammar\":%s,\"built\":%zu,\"again\":%zu,\"expected\":%zu}",
             out.empty() ? "" : ",", json_str(c.name).c_str(), built, again, c.slices);
    out += buf;
    if (built != c.slices || again != 0) {
      if (!failures.empty()) failures += ",";
      failures += "{\"class\":" + json_str(std::string("prebuild: ") + c.name) + ",\"node\":0,\"why\":" +
                  json_str("built " + std::to_string(built) + " then " + std::to_string(again) +
                           ", expected " + std::to_string(c.slices) + " then 0") +
                  "}";
    }
  }
  return out;
}

}  // namespace

int run_slices(const LoadedVocab& lv) {
  const Vocab& v = *lv.engine_vocab;
  SliceRegistry& reg = v.slices();
  const auto& nodes = v.nodes();
  // The root, then every 64th node with a large subtree, then a few small ones.
  std::vector<uint32_t> sample{0};
  size_t big = 0;
  for (uint32_t n = 1; n < nodes.size(); n++) {
    if (nodes[n].end - n >= 256 && big++ % 64 == 0) sample.push_back(n);
  }
  for (uint32_t n = 1; n < nodes.size(); n += static_cast<uint32_t>(nodes.size() / 16)) sample.push_back(n);
  size_t checks = 0;
  std::string failures, per_class;
  double walk_us = 0, scan_us = 0, exclusion_us = 0, root_walk_us = 0, root_scan_us = 0,
         root_exclusion_us = 0;
  for (const ClassCase& c : class_table()) {
    const uint32_t first = reg.intern(c.first), rest = reg.intern(c.rest);
    for (const uint32_t n : sample) {
      SliceRegistry::SelfCheckTimes t{};
      const std::string why = reg.self_check(first, rest, n, &t);
      checks++;
      walk_us += t.walk_us;
      scan_us += t.scan_us;
      exclusion_us += t.exclusion_us;
      if (n == 0) {
        char buf[160];
        snprintf(buf, sizeof buf, "%s{\"class\":%s,\"walk\":%.0f,\"scan\":%.0f,\"exclusion\":%.0f}",
                 per_class.empty() ? "" : ",", json_str(c.name).c_str(), t.walk_us, t.scan_us,
                 t.exclusion_us);
        per_class += buf;
        root_walk_us += t.walk_us;
        root_scan_us += t.scan_us;
        root_exclusion_us += t.exclusion_us;
      }
      if (!why.empty()) {
        if (!failures.empty()) failures += ",";
        failures += "{\"class\":" + json_str(c.name) + ",\"node\":" + std::to_string(n) +
                    ",\"why\":" + json_str(why) + "}";
      }
    }
  }
  const std::string prebuild = check_prebuild(reg, failures);
  printf(
      "{\"mode\":\"slices\",\"vocab_tokens\":%zu,\"classes\":%zu,\"nodes\":%zu,\"checks\":%zu,\"failures\":[%"
      "s],"
      "\"us\":{\"walk\":%.0f,\"scan\":%.0f,\"exclusion\":%.0f},\"root_us\":{\"walk\":%.0f,\"scan\":%.0f,"
      "\"exclusion\":%.0f},\"root_by_class\":[%s],\"prebuild\":[%s]}\n",
      v.size(), class_table().size(), sample.size(), checks, failures.c_str(), walk_us, scan_us, exclusion_us,
      root_walk_us, root_scan_us, root_exclusion_us, per_class.c_str(), prebuild.c_str());
  return failures.empty() ? 0 : 1;
}

}  // namespace toolwright::grammar::tool
