// `check` (compile grammars, report errors) and `trace` (step one text through a matcher and
// report every decision): plain views of the engine for tests.
#include "inspect.h"

#include <cstdio>

#include "llama_adapter.h"
#include "matcher.h"

namespace toolwright::grammar::tool {

int run_check(const llama_vocab* vocab, const std::vector<GrammarCase>& cases, const std::string& root) {
  CompileOptions opts;
  if (vocab) opts.resolve_token = llama_token_resolver(vocab);
  std::string out = "[";
  for (size_t i = 0; i < cases.size(); i++) {
    GrammarError err;
    const auto g = Grammar::compile(cases[i].gbnf, root, opts, err);
    out += i ? "," : "";
    out += "{\"file\":" + json_str(cases[i].name) + ",\"ok\":" + (g ? "true" : "false");
    if (!g) {
      out += ",\"error\":{\"message\":" + json_str(err.message) + ",\"rule\":" + json_str(err.rule) +
             ",\"line\":" + std::to_string(err.line) + ",\"column\":" + std::to_string(err.column) +
             ",\"text\":" + json_str(err.to_string()) + "}";
    }
    out += "}";
  }
  printf("%s]\n", out.c_str());
  return 0;
}

int run_trace(const LoadedVocab& lv, const GrammarCase& c, const TraceOptions& opt) {
  CompileOptions copts;
  copts.resolve_token = llama_token_resolver(lv.vocab);
  GrammarError err;
  const auto g = Grammar::compile(c.gbnf, opt.root, copts, err);
  if (!g) {
    printf("{\"ok\":false,\"error\":%s}\n", json_str(err.to_string()).c_str());
    return 1;
  }
  // No warm-up: it races the first masks on its own thread, and the trace counts what each mask builds.
  Matcher m(g, lv.engine_vocab, opt.lazy, false);
  const Vocab& v = *lv.engine_vocab;
  std::vector<uint64_t> bits(v.n_words());
  std::vector<llama_token> toks;
  if (opt.hex) {
    // Byte by byte, through the tokens whose text is that one byte: any byte sequence, well-formed
    // UTF-8 or not, as a model with byte-fallback tokens can write it.
    for (size_t i = 0; i + 1 < opt.text.size(); i += 2) {
      const auto byte = static_cast<char>(std::stoi(opt.text.substr(i, 2), nullptr, 16));
      int32_t found = -1;
      for (size_t id = 0; id < v.size() && found < 0; id++) {
        if (v.piece(static_cast<int32_t>(id)) == std::string(1, byte)) found = static_cast<int32_t>(id);
      }
      if (found < 0) {
        printf("{\"ok\":false,\"error\":\"no one-byte token for byte %s\"}\n", opt.text.substr(i, 2).c_str());
        return 1;
      }
      toks.push_back(found);
    }
  } else {
    // Special tokens in the text (e.g. "<|eot_id|>") become single tokens.
    toks.resize(opt.text.size() + 8);
    const int32_t n = llama_tokenize(lv.vocab, opt.text.data(), static_cast<int32_t>(opt.text.size()),
                                     toks.data(), static_cast<int32_t>(toks.size()), false, true);
    toks.resize(n > 0 ? static_cast<size_t>(n) : 0);
  }
  std::string steps = "[";
  for (size_t i = 0; i < toks.size(); i++) {
    const uint64_t hits_before = m.stats().cache_hits, nodes_before = m.stats().nodes_visited;
    const size_t states_before = m.built_states();
    m.fill_mask(bits.data());
    const bool cached = m.stats().cache_hits > hits_before;
    const size_t new_states = m.built_states() - states_before;
    const uint64_t nodes = m.stats().nodes_visited - nodes_before;
    const uint32_t state = m.state_id(), cut = m.cut_position();
    size_t n_allowed = 0;
    for (uint64_t w : bits) n_allowed += static_cast<size_t>(__builtin_popcountll(w));
    const llama_token t = toks[i];
    const bool allowed = (bits[t >> 6] >> (t & 63)) & 1;
    const bool accepted = opt.bytes ? m.accept_bytes(v.piece(t)) : m.accept(t);
    steps += i ? "," : "";
    steps += "{\"token\":" + std::to_string(t) + ",\"piece\":" + json_str(v.piece(t)) +
             ",\"n_allowed\":" + std::to_string(n_allowed) + ",\"allowed\":" + (allowed ? "true" : "false") +
             ",\"accepted\":" + (accepted ? "true" : "false") + ",\"cached\":" + (cached ? "true" : "false") +
             ",\"new_states\":" + std::to_string(new_states) + ",\"nodes\":" + std::to_string(nodes) +
             ",\"state\":" + std::to_string(state) +
             ",\"cut\":" + (cut == Npda::kDead ? std::string("null") : std::to_string(cut)) +
             ",\"active\":" + (m.is_active() ? "true" : "false") +
             ",\"accepting\":" + (m.is_accepting() ? "true" : "false") + "}";
  }
  steps += "]";
  m.fill_mask(bits.data());
  bool eog_allowed = false;
  for (int32_t id : v.eog_tokens()) eog_allowed = eog_allowed || ((bits[id >> 6] >> (id & 63)) & 1);
  std::string rollback = "null";
  if (opt.rollback > 0) {
    const bool ok = m.rollback(static_cast<size_t>(opt.rollback));
    rollback = std::string("{\"ok\":") + (ok ? "true" : "false") +
               ",\"n_accepted\":" + std::to_string(m.n_accepted()) +
               ",\"active\":" + (m.is_active() ? "true" : "false") +
               ",\"accepting\":" + (m.is_accepting() ? "true" : "false") + "}";
  }
  printf(
      "{\"ok\":true,\"n_vocab\":%zu,\"steps\":%s,\"final\":{\"accepting\":%s,\"eog_allowed\":%s,\"n_"
      "accepted\":%zu},"
      "\"rollback\":%s}\n",
      v.size(), steps.c_str(), m.is_accepting() ? "true" : "false", eog_allowed ? "true" : "false",
      m.n_accepted(), rollback.c_str());
  return 0;
}

}  // namespace toolwright::grammar::tool
