// Compile bench: the cold-compile distribution over many grammars, without masks, so that all
// of MaskBench's dev schemas fit in a minute. "Compile" is what bench times: parse, compile and
// the matcher's construction (everything before the first mask).
#include "compile_bench.h"

#include <algorithm>
#include <cstdio>
#include <ctime>

#include "llama.h"
#include "llama_adapter.h"
#include "matcher.h"

namespace toolwright::grammar::tool {

namespace {

struct Timed {
  double wall_us;
  double cpu_us;
  const GrammarCase* c;
};

void quiet_log(ggml_log_level, const char*, void*) {}

int usage(const std::string& why) {
  fprintf(stderr,
          "toolwright-grammar-tool: %s\nusage: toolwright-grammar-tool compile --vocab V.gguf [--runs N] "
          "[--root NAME] PATH...\n",
          why.c_str());
  return 2;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int run_compile_bench(const LoadedVocab& lv, const std::vector<GrammarCase>& cases,
                      const CompileBenchOptions& opt) {
  const double t_start = now_us();
  CompileOptions copts;
  copts.resolve_token = llama_token_resolver(lv.vocab);
  std::vector<Timed> timed;
  size_t n_failed = 0;
  const int runs = std::max(1, opt.runs);
  for (const GrammarCase& c : cases) {
    std::vector<double> wall, cpu;
    bool ok = true;
    for (int r = 0; r < runs && ok; r++) {
      const double w0 = now_us(), c0 = thread_cpu_us();
      GrammarError err;
      auto grammar = Grammar::compile(c.gbnf, opt.root, copts, err);
      std::unique_ptr<Matcher> m;
      if (grammar) m = std::make_unique<Matcher>(grammar, lv.engine_vocab);
      wall.push_back(now_us() - w0);
      cpu.push_back(thread_cpu_us() - c0);
      ok = grammar != nullptr;
    }
    if (!ok) {
      n_failed++;
      continue;
    }
    timed.push_back(Timed{median(wall), median(cpu), &c});
  }
  std::vector<double> wall, cpu;
  for (const Timed& t : timed) {
    wall.push_back(t.wall_us);
    cpu.push_back(t.cpu_us);
  }
  std::sort(timed.begin(), timed.end(), [](const Timed& a, const Timed& b) { return a.cpu_us > b.cpu_us; });
  std::string slowest = "[";
  for (size_t i = 0; i < timed.size() && i < 8; i++) {
    char buf[96];
    snprintf(buf, sizeof buf, "{\"us\":%.1f,\"cpu_us\":%.1f,\"bytes\":%zu,\"grammar\":", timed[i].wall_us,
             timed[i].cpu_us, timed[i].c->gbnf.size());
    slowest += (i ? "," : "") + std::string(buf) + json_str(timed[i].c->name) + "}";
  }
  slowest += "]";
  printf(
      "{\"mode\":\"compile\",\"cases\":%zu,\"failed\":%zu,\"runs\":%d,\"compile_us\":%s,\"compile_cpu_us\":%"
      "s,"
      "\"slowest\":%s,\"seconds\":%.2f}\n",
      timed.size(), n_failed, runs, json_summary(summarize(wall)).c_str(),
      json_summary(summarize(cpu)).c_str(), slowest.c_str(), (now_us() - t_start) / 1e6);
  return 0;
}

int compile_main(int argc, char** argv) {
  CompileBenchOptions opt;
  std::string vocab_path;
  std::vector<std::string> paths;
  for (int i = 2; i < argc; i++) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--vocab" && has_value)
      vocab_path = argv[++i];
    else if (a == "--runs" && has_value)
      opt.runs = atoi(argv[++i]);
    else if (a == "--root" && has_value)
      opt.root = argv[++i];
    else if (!a.empty() && a[0] == '-')
      return usage("unknown option or missing value: " + a);
    else
      paths.push_back(a);
  }
  if (paths.empty()) return usage("no grammar files given");
  if (vocab_path.empty()) return usage("--vocab is required");
  llama_log_set(quiet_log, nullptr);
  llama_backend_init();
  std::string error;
  const auto cases = load_cases(paths, &error);
  if (!error.empty()) return usage(error);
  LoadedVocab lv;
  if (!load_vocab(vocab_path, lv, &error)) return usage(error);
  const int rc = run_compile_bench(lv, cases, opt);
  llama_model_free(lv.model);
  llama_backend_free();
  return rc;
}

}  // namespace toolwright::grammar::tool
