// Shared pieces of toolwright-grammar-tool: grammar cases on disk, the loaded vocabulary,
// printing helpers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "llama.h"
#include "vocab.h"

namespace toolwright::grammar::tool {

// One grammar under test: X.gbnf, plus optional valid texts from X.txt (one per file; or a
// file of several texts separated by a line holding only "\x1e", the record separator), plus
// optional lazy triggers from X.lazy (one per line: "pattern REGEX" or "token ID"), which make
// the grammar lazy in both engines whatever the command line says.
struct GrammarCase {
  std::string name;  // file path
  std::string gbnf;
  std::vector<std::string> texts;
  bool has_lazy = false;
  std::vector<std::string> trigger_patterns;
  std::vector<int32_t> trigger_tokens;
};

// Reads .gbnf files and directories (non-recursive) in the given order.
std::vector<GrammarCase> load_cases(const std::vector<std::string>& paths, std::string* error);

struct LoadedVocab {
  llama_model* model = nullptr;
  const llama_vocab* vocab = nullptr;
  std::shared_ptr<const Vocab> engine_vocab;
  double build_ms = 0;  // time to preprocess the vocabulary for our engine
};
bool load_vocab(const std::string& path, LoadedVocab& out, std::string* error);

// parse_special: text like "<|im_end|>" becomes the special token, as in a model's output.
std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text,
                                  bool parse_special = false);

// JSON string literal (bytes that are not valid UTF-8 become \u00XX escapes of the byte).
std::string json_str(const std::string& s);

struct Summary {
  double mean = 0, p50 = 0, p99 = 0, p999 = 0, max = 0;
  size_t n = 0;
};
Summary summarize(std::vector<double> v);
std::string json_summary(const Summary& s);

double now_us();
// CPU time of the calling thread, in µs (what a mask costs, without time the thread was preempted).
double thread_cpu_us();

// Whether `bytes` (up to a NUL, where the engines stop reading a token) is a prefix of
// well-formed UTF-8, by Unicode's table of well-formed byte sequences (section 3.9, table 3-7).
// Written apart from the engine's decoder, so that the tools check that decoder against it.
bool well_formed_utf8_prefix(std::string_view bytes);

// The incomplete UTF-8 sequence `text` ends with ("" when it ends on a whole character).
std::string pending_utf8(const std::string& text);

// Clears in `bits` every token that, following `pending`, would not be well-formed UTF-8: the
// tokens our engine refuses where llama.cpp's lenient decoder lets them through.
void clear_ill_formed(std::vector<uint64_t>& bits, const Vocab& v, const std::string& pending);

}  // namespace toolwright::grammar::tool
