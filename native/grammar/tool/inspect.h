#pragma once

#include <string>
#include <vector>

#include "common.h"
#include "trigger.h"

namespace toolwright::grammar::tool {

// Compiles each grammar (resolving <text> tokens when a vocabulary is given); prints a JSON
// array of {file, ok, error: {message, rule, line, column, text}}.
int run_check(const llama_vocab* vocab, const std::vector<GrammarCase>& cases, const std::string& root);

struct TraceOptions {
  std::string root = "root";
  std::string text;
  bool hex = false;  // `text` is hex bytes, each fed as a one-byte token (byte-fallback vocabularies)
  LazyOptions lazy;
  bool bytes = false;  // feed each token's text with accept_bytes instead of accept
  int rollback = 0;    // after the text, undo this many steps and report the state
};

// Steps `text` (tokenized, special tokens parsed) through a matcher; prints one JSON object.
int run_trace(const LoadedVocab& vocab, const GrammarCase& c, const TraceOptions& options);

}  // namespace toolwright::grammar::tool
