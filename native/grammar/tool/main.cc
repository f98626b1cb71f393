// toolwright-grammar-tool: differential test and bench of our GBNF engine against llama.cpp's.
//
//   toolwright-grammar-tool diff  --vocab V.gguf [--walks N] [--steps N] [--seed S]
//                                 [--max-seconds S] [--root NAME] [-v] PATH...
//   toolwright-grammar-tool bench --vocab V.gguf [--no-reference] [--walk-steps N]
//                                 [--texts N] [--max-seconds S] PATH...
//
// PATH is a .gbnf file or a directory of them; X.gbnf may come with X.txt holding valid texts
// (separated by a line with only the byte 0x1E). Output: one JSON object on stdout.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "bench.h"
#include "common.h"
#include "diff.h"
#include "llama.h"

using namespace toolwright::grammar::tool;

namespace {

void quiet_log(ggml_log_level, const char *, void *) {}

int usage(const char * why) {
  fprintf(stderr, "toolwright-grammar-tool: %s\nusage: toolwright-grammar-tool diff|bench --vocab FILE.gguf [options] PATH...\n", why);
  return 2;
}

}  // namespace

int main(int argc, char ** argv) {
  if (argc < 2) return usage("missing mode");
  const std::string mode = argv[1];
  if (mode != "diff" && mode != "bench") return usage(("unknown mode '" + mode + "'").c_str());
  std::string vocab_path;
  std::vector<std::string> paths;
  DiffOptions d;
  BenchOptions b;
  for (int i = 2; i < argc; i++) {
    const std::string a = argv[i];
    auto value = [&](const char * name) -> const char * {
      if (i + 1 >= argc) {
        usage((std::string(name) + " needs a value").c_str());
        exit(2);
      }
      return argv[++i];
    };
    if (a == "--vocab") vocab_path = value("--vocab");
    else if (a == "--walks") d.walks = atoi(value("--walks"));
    else if (a == "--steps") d.max_steps = atoi(value("--steps"));
    else if (a == "--seed") d.seed = b.seed = strtoull(value("--seed"), nullptr, 10);
    else if (a == "--max-seconds") d.max_seconds = b.max_seconds = atof(value("--max-seconds"));
    else if (a == "--root") d.root = b.root = value("--root");
    else if (a == "--walk-steps") b.walk_steps = atoi(value("--walk-steps"));
    else if (a == "--texts") b.texts_per_case = atoi(value("--texts"));
    else if (a == "--no-reference") b.reference = false;
    else if (a == "-v") d.verbose = true;
    else if (!a.empty() && a[0] == '-') return usage(("unknown option " + a).c_str());
    else paths.push_back(a);
  }
  if (vocab_path.empty()) return usage("--vocab is required");
  if (paths.empty()) return usage("no grammar files given");

  llama_log_set(quiet_log, nullptr);
  llama_backend_init();
  std::string error;
  const auto cases = load_cases(paths, &error);
  if (!error.empty()) return usage(error.c_str());
  LoadedVocab lv;
  if (!load_vocab(vocab_path, lv, &error)) return usage(error.c_str());
  std::string name = vocab_path.substr(vocab_path.find_last_of('/') + 1);
  const int rc = mode == "diff" ? run_diff(lv, cases, d) : run_bench(lv, name, cases, b);
  llama_model_free(lv.model);
  llama_backend_free();
  return rc;
}
