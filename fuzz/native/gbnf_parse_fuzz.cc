// libFuzzer target: our GBNF parser and the compile checks (native/grammar/gbnf_parser.*,
// grammar_checks.*, grammar.*). The input is grammar text; a rejected grammar must come back as a
// GrammarError with a message, never as a crash, a hang or a blow-up.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string_view>

#include "grammar.h"

using toolwright::grammar::CompileOptions;
using toolwright::grammar::Grammar;
using toolwright::grammar::GrammarError;

namespace {

// `<...>` token references resolve for a few texts, as a model's special tokens would.
std::optional<int32_t> ResolveToken(std::string_view text) {
  if (text == "<think>") return 7;
  if (text == "</think>") return 8;
  if (text == "<|eot|>") return 9;
  return std::nullopt;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view gbnf(reinterpret_cast<const char*>(data), size);
  CompileOptions options;
  options.resolve_token = ResolveToken;
  GrammarError err;
  auto grammar = Grammar::compile(gbnf, "root", options, err);
  if (!grammar && err.message.empty()) {
    std::fprintf(stderr, "rejected grammar without a message\n");
    std::abort();
  }
  if (grammar && grammar->rule_start.size() <= grammar->root_rule) {
    std::fprintf(stderr, "root rule %u out of range\n", grammar->root_rule);
    std::abort();
  }
  return 0;
}
