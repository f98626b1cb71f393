// Shared pieces of toolwright-grammar-tool: grammar cases on disk, the loaded vocabulary,
// printing helpers.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "llama.h"
#include "vocab.h"

namespace toolwright::grammar::tool {

// One grammar under test: X.gbnf, plus optional valid texts from X.txt (one per file; or a
// file of several texts separated by a line holding only "\x1e", the record separator).
struct GrammarCase {
  std::string name;  // file path
  std::string gbnf;
  std::vector<std::string> texts;
};

// Reads .gbnf files and directories (non-recursive) in the given order.
std::vector<GrammarCase> load_cases(const std::vector<std::string> & paths, std::string * error);

struct LoadedVocab {
  llama_model * model = nullptr;
  const llama_vocab * vocab = nullptr;
  std::shared_ptr<const Vocab> engine_vocab;
  double build_ms = 0;  // time to preprocess the vocabulary for our engine
};
bool load_vocab(const std::string & path, LoadedVocab & out, std::string * error);

std::vector<llama_token> tokenize(const llama_vocab * vocab, const std::string & text);

// JSON string literal (bytes that are not valid UTF-8 become \u00XX escapes of the byte).
std::string json_str(const std::string & s);

struct Summary {
  double mean = 0, p50 = 0, p99 = 0, max = 0;
  size_t n = 0;
};
Summary summarize(std::vector<double> v);
std::string json_summary(const Summary & s);

double now_us();

}  // namespace toolwright::grammar::tool
