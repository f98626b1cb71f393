// toolwright-grammar-tool: differential test, bench and inspection of our GBNF engine.
//
//   diff  --vocab V.gguf [--walks N] [--steps N] [--seed S] [--max-seconds S] [--root NAME]
//         [--rollbacks N] [--branch-walks N] [--special-texts] [--trigger-pattern REGEX]... [--trigger-token
//         ID]... [--await-warmup] [-v] PATH...
//       Both engines walk the same token sequences; masks must match at every step. --await-warmup: ours
//       waits for its engine's warm-up first (its masks then come from the positions it cached).
//   bench --vocab V.gguf [--no-reference] [--no-await-warmup] [--walk-steps N] [--texts N] [--max-seconds S]
//         PATH...
//       Per-mask, per-accept and compile times of both engines.
//   compile --vocab V.gguf [--runs N] [--root NAME] PATH...
//       Cold-compile distribution only (no masks): wall and CPU time, median of N runs each.
//   check [--vocab V.gguf] [--root NAME] PATH...
//       Compile only; report errors with line, column and rule.
//   trace --vocab V.gguf (--text TEXT | --hex BYTES) [--bytes] [--rollback N] [--lazy] [--trigger-pattern
//   P]...
//         [--trigger-token ID]... [--trigger-word W]... [--reasoning-end S] GRAMMAR
//       Step one text through a matcher and report every decision.
//   cache --vocab V.gguf [--walk-steps N] [--seed S] [--threads N] [--cache-bytes N] [--await-warmup]
//         [--root NAME] PATH...
//       Compiled-grammar cache: cold vs warm compile and first mask, identical masks (also from
//       N threads at once); --await-warmup: a cold sampler waits for its engine's warm-up first.
//   slices --vocab V.gguf
//       Class slices built by every construction for a table of classes must agree.
//   tokenize --vocab V.gguf TEXT...
//       Token ids of each text, special tokens parsed (as the runtime resolves trigger tokens).
//
// PATH is a .gbnf file or a directory of them; X.gbnf may come with X.txt holding valid texts
// (separated by a line with only the byte 0x1E) and X.lazy with its own triggers (lines
// "pattern REGEX" / "token ID"). Output: JSON on stdout.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "bench.h"
#include "cache.h"
#include "common.h"
#include "compile_bench.h"
#include "diff.h"
#include "inspect.h"
#include "slices.h"
#include "llama.h"

using namespace toolwright::grammar::tool;

namespace {

void quiet_log(ggml_log_level, const char*, void*) {}

int usage(const std::string& why) {
  fprintf(stderr,
          "toolwright-grammar-tool: %s\nusage: toolwright-grammar-tool "
          "diff|bench|cache|check|trace|slices|tokenize [options] "
          "PATH...\n",
          why.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string(argv[1]) == "compile") return compile_main(argc, argv);  // compile_bench.cc
  if (argc < 2) return usage("missing mode");
  const std::string mode = argv[1];
  if (mode != "diff" && mode != "bench" && mode != "check" && mode != "trace" && mode != "tokenize" &&
      mode != "cache" && mode != "slices") {
    return usage("unknown mode '" + mode + "'");
  }
  std::string vocab_path, root = "root";
  std::vector<std::string> paths;
  DiffOptions d;
  BenchOptions b;
  TraceOptions t;
  CacheOptions k;
  for (int i = 2; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        usage(a + " needs a value");
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--vocab")
      vocab_path = value();
    else if (a == "--walks")
      d.walks = atoi(value().c_str());
    else if (a == "--steps")
      d.max_steps = atoi(value().c_str());
    else if (a == "--seed")
      d.seed = b.seed = k.seed = strtoull(value().c_str(), nullptr, 10);
    else if (a == "--max-seconds")
      d.max_seconds = b.max_seconds = atof(value().c_str());
    else if (a == "--root")
      root = value();
    else if (a == "--rollbacks")
      d.rollbacks = atoi(value().c_str());
    else if (a == "--branch-walks")
      d.branch_walks = atoi(value().c_str());
    else if (a == "--special-texts")
      d.special_texts = true;
    else if (a == "--trigger-pattern") {
      const std::string p = value();
      d.trigger_patterns.push_back(p);
      t.lazy.trigger_patterns.push_back(p);
    } else if (a == "--trigger-token") {
      const int id = atoi(value().c_str());
      d.trigger_tokens.push_back(id);
      t.lazy.trigger_tokens.push_back(id);
    } else if (a == "--trigger-word")
      t.lazy.trigger_words.push_back(value());
    else if (a == "--reasoning-end")
      t.lazy.reasoning_end = value();
    else if (a == "--lazy")
      t.lazy.lazy = true;
    else if (a == "--text")
      t.text = value();
    else if (a == "--hex") {
      t.text = value();
      t.hex = true;
    } else if (a == "--bytes")
      t.bytes = true;
    else if (a == "--rollback")
      t.rollback = atoi(value().c_str());
    else if (a == "--walk-steps")
      b.walk_steps = k.walk_steps = atoi(value().c_str());
    else if (a == "--threads")
      k.threads = atoi(value().c_str());
    else if (a == "--cache-bytes")
      k.max_bytes = strtoll(value().c_str(), nullptr, 10);
    else if (a == "--await-warmup")
      k.await_warmup = d.await_warmup = true;
    else if (a == "--texts")
      b.texts_per_case = atoi(value().c_str());
    else if (a == "--no-await-warmup")
      b.await_warmup = false;
    else if (a == "--no-reference")
      b.reference = false;
    else if (a == "-v")
      d.verbose = true;
    else if (!a.empty() && a[0] == '-')
      return usage("unknown option " + a);
    else
      paths.push_back(a);
  }
  d.root = b.root = t.root = k.root = root;
  // Any trigger makes the traced grammar lazy.
  t.lazy.lazy = t.lazy.lazy || !t.lazy.trigger_patterns.empty() || !t.lazy.trigger_tokens.empty() ||
                !t.lazy.trigger_words.empty() || !t.lazy.reasoning_end.empty();
  if (paths.empty() && mode != "slices") return usage("no grammar files given");
  if (vocab_path.empty() && mode != "check") return usage("--vocab is required");

  llama_log_set(quiet_log, nullptr);
  llama_backend_init();
  std::string error;
  if (mode == "tokenize") {
    LoadedVocab lv;
    if (!load_vocab(vocab_path, lv, &error)) return usage(error);
    std::string out = "[";
    for (size_t i = 0; i < paths.size(); i++) {
      const auto ids = tokenize(lv.vocab, paths[i], /*parse_special=*/true);
      out += i ? ",[" : "[";
      for (size_t j = 0; j < ids.size(); j++) out += (j ? "," : "") + std::to_string(ids[j]);
      out += "]";
    }
    printf("%s]\n", out.c_str());
    llama_model_free(lv.model);
    llama_backend_free();
    return 0;
  }
  if (mode == "slices") {
    LoadedVocab lv;
    if (!load_vocab(vocab_path, lv, &error)) return usage(error);
    const int rc = run_slices(lv);
    llama_model_free(lv.model);
    llama_backend_free();
    return rc;
  }
  const auto cases = load_cases(paths, &error);
  if (!error.empty()) return usage(error);
  LoadedVocab lv;
  if (!vocab_path.empty() && !load_vocab(vocab_path, lv, &error)) return usage(error);
  int rc = 0;
  if (mode == "diff") {
    rc = run_diff(lv, cases, d);
  } else if (mode == "bench") {
    rc = run_bench(lv, vocab_path.substr(vocab_path.find_last_of('/') + 1), cases, b);
  } else if (mode == "cache") {
    rc = run_cache(lv, cases, k);
  } else if (mode == "check") {
    rc = run_check(lv.vocab, cases, root);
  } else {
    if (cases.size() != 1) return usage("trace takes exactly one grammar");
    rc = run_trace(lv, cases[0], t);
  }
  if (lv.model) llama_model_free(lv.model);
  llama_backend_free();
  return rc;
}
