// toolwright-llama-loop: the reference for `npm run bench:runtime`.
//
// The plainest C++ generation loop on llama.h: load a model, evaluate a prompt in batches, then
// sample and decode N tokens one at a time with a llama_sampler chain. It prints one JSON line
// with prompt-eval and generation throughput (steady clock), so the Node runtime can be compared
// with llama.cpp driven directly, on the same file, threads and sampling.
// prompt_tps = prompt tokens / (prompt decode + first sample); gen_tps = (n_gen - 1) / (time from
// the first to the last sampled token), i.e. per decode+sample step.
//
//   toolwright-llama-loop --model m.gguf --prompt-tokens 128 --n-gen 64 --threads 2 --batch 512
//                         [--prompt TEXT] [--temp 0.8 --seed 42 [--top-k 40] [--top-p 0.95]]
//                         [--ctx N] [--reps N] [--gpu-layers N] [--stop-at-eog] [--print-text] [--verbose]

#include "ggml-cpu.h"
#include "llama.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

struct Options {
  std::string model;
  std::string prompt;  // text prompt; empty = synthetic prompt of prompt_tokens tokens
  int prompt_tokens = 128;
  int n_gen = 64;
  int threads = 2;
  int batch = 512;
  int ctx = 0;  // 0 = prompt + n_gen rounded up
  int reps = 1;
  int gpu_layers = 0;
  bool greedy = true;
  float temp = 0.8f;
  int top_k = 0;       // 0 = off
  float top_p = 1.0f;  // 1 = off
  uint32_t seed = 42;
  bool stop_at_eog = false;
  bool print_text = false;
  bool verbose = false;
  bool threadpool = true;     // a persistent CPU thread pool, as llama-cli attaches
  std::string tokenize_test;  // llama.cpp vocab test file (.inp, with its .out beside it)
};

const char* kUsage =
    "usage: toolwright-llama-loop --model PATH [options]\n"
    "  --prompt TEXT        prompt text (tokenized with the model's vocabulary)\n"
    "  --prompt-tokens N    without --prompt: a synthetic prompt of exactly N tokens (default 128)\n"
    "  --n-gen N            tokens to generate (default 64)\n"
    "  --threads N          CPU threads for prompt and generation (default 2)\n"
    "  --batch N            prompt batch size, n_batch = n_ubatch (default 512)\n"
    "  --ctx N              context size (default: prompt + n-gen, rounded up to 256)\n"
    "  --temp T             sample with temperature T (default: greedy)\n"
    "  --seed S             sampling seed (default 42)\n"
    "  --top-k K, --top-p P optional truncation before temperature sampling\n"
    "  --greedy             greedy sampling (the default)\n"
    "  --reps N             repeat the measurement N times, report the median (default 1)\n"
    "  --gpu-layers N       layers to offload to a GPU backend (default 0)\n"
    "  --stop-at-eog        stop at an end-of-generation token (default: always generate n-gen)\n"
    "  --print-text         include prompt ids, generated ids and text in the JSON\n"
    "  --verbose            show llama.cpp's log\n"
    "  --no-threadpool      let ggml start threads per decode instead of attaching a persistent\n"
    "                       pool (llama-cli and llama-server attach one; so does toolwright)\n"
    "  --tokenize-test INP  instead of benchmarking, tokenize the cases of a llama.cpp vocab test file\n"
    "                       (models/ggml-vocab-*.gguf.inp) and compare with the ids in its .out file\n";

bool g_verbose = false;

void log_callback(ggml_log_level level, const char* text, void*) {
  if (g_verbose || level == GGML_LOG_LEVEL_ERROR) fputs(text, stderr);
}

int to_int(const char* flag, const char* value) {
  char* end = nullptr;
  long v = strtol(value, &end, 10);
  if (*value == '\0' || *end != '\0' || v < 0 || v > 1000000000L) {
    throw std::runtime_error(std::string(flag) + " needs a non-negative integer, got '" + value + "'");
  }
  return static_cast<int>(v);
}

float to_float(const char* flag, const char* value) {
  char* end = nullptr;
  float v = strtof(value, &end);
  if (*value == '\0' || *end != '\0' || !(v >= 0.0f)) {
    throw std::runtime_error(std::string(flag) + " needs a non-negative number, got '" + value + "'");
  }
  return v;
}

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      fputs(kUsage, stdout);
      exit(0);
    } else if (a == "--model" || a == "-m")
      o.model = next();
    else if (a == "--prompt" || a == "-p")
      o.prompt = next();
    else if (a == "--prompt-tokens")
      o.prompt_tokens = to_int("--prompt-tokens", next());
    else if (a == "--n-gen" || a == "-n")
      o.n_gen = to_int("--n-gen", next());
    else if (a == "--threads" || a == "-t")
      o.threads = to_int("--threads", next());
    else if (a == "--batch" || a == "-b")
      o.batch = to_int("--batch", next());
    else if (a == "--ctx" || a == "-c")
      o.ctx = to_int("--ctx", next());
    else if (a == "--reps")
      o.reps = to_int("--reps", next());
    else if (a == "--gpu-layers" || a == "-ngl")
      o.gpu_layers = to_int("--gpu-layers", next());
    else if (a == "--temp") {
      o.temp = to_float("--temp", next());
      o.greedy = o.temp == 0.0f;
    } else if (a == "--seed")
      o.seed = static_cast<uint32_t>(to_int("--seed", next()));
    else if (a == "--top-k")
      o.top_k = to_int("--top-k", next());
    else if (a == "--top-p")
      o.top_p = to_float("--top-p", next());
    else if (a == "--greedy")
      o.greedy = true;
    else if (a == "--stop-at-eog")
      o.stop_at_eog = true;
    else if (a == "--print-text")
      o.print_text = true;
    else if (a == "--verbose")
      o.verbose = true;
    else if (a == "--no-threadpool")
      o.threadpool = false;
    else if (a == "--tokenize-test")
      o.tokenize_test = next();
    else
      throw std::runtime_error("unknown argument '" + a + "' (see --help)");
  }
  if (o.model.empty()) throw std::runtime_error("--model is required (see --help)");
  if (o.threads < 1 || o.batch < 1 || o.reps < 1)
    throw std::runtime_error("--threads, --batch and --reps must be at least 1");
  if (o.prompt.empty() && o.prompt_tokens < 1) throw std::runtime_error("--prompt-tokens must be at least 1");
  return o;
}

std::string json_escape(const std::string& s) {
  std::string out;
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (c < 0x20) {
          char buf[8];
          snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else
          out += static_cast<char>(c);
    }
  }
  return out;
}

std::vector<llama_token> tokenize(const llama_vocab* vocab, const std::string& text, bool add_special) {
  int n =
      -llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), nullptr, 0, add_special, true);
  if (n <= 0) return {};
  std::vector<llama_token> tokens(n);
  int got = llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), tokens.data(), n,
                           add_special, true);
  if (got < 0) throw std::runtime_error("llama_tokenize failed");
  tokens.resize(got);
  return tokens;
}

// A prompt of exactly n tokens: ordinary English text tokenized and repeated/truncated, so prompt
// evaluation sees realistic (non-special) tokens whatever the vocabulary.
std::vector<llama_token> synthetic_prompt(const llama_vocab* vocab, int n) {
  const std::string text =
      "The committee met on Tuesday to review the quarterly report. Revenue grew in every region, "
      "while costs stayed flat. Several members asked how the new tooling would change the schedule. ";
  std::vector<llama_token> unit = tokenize(vocab, text, false);
  if (unit.empty()) throw std::runtime_error("the vocabulary tokenized the synthetic prompt to nothing");
  std::vector<llama_token> out;
  if (llama_vocab_get_add_bos(vocab) && llama_vocab_bos(vocab) != LLAMA_TOKEN_NULL)
    out.push_back(llama_vocab_bos(vocab));
  while (static_cast<int>(out.size()) < n) out.insert(out.end(), unit.begin(), unit.end());
  out.resize(n);
  return out;
}

std::string piece(const llama_vocab* vocab, llama_token t) {
  char buf[256];
  int n = llama_token_to_piece(vocab, t, buf, sizeof buf, 0, true);
  return n > 0 ? std::string(buf, n) : std::string();
}

llama_sampler* make_sampler(const Options& o) {
  llama_sampler* chain = llama_sampler_chain_init(llama_sampler_chain_default_params());
  if (o.greedy) {
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
  } else {
    if (o.top_k > 0) llama_sampler_chain_add(chain, llama_sampler_init_top_k(o.top_k));
    if (o.top_p < 1.0f) llama_sampler_chain_add(chain, llama_sampler_init_top_p(o.top_p, 1));
    llama_sampler_chain_add(chain, llama_sampler_init_temp(o.temp));
    llama_sampler_chain_add(chain, llama_sampler_init_dist(o.seed));
  }
  return chain;
}

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

struct RunResult {
  double prompt_ms = 0;
  double gen_ms = 0;
  int generated = 0;
  std::vector<llama_token> tokens;
};

void decode_or_throw(llama_context* ctx, llama_batch batch, const char* what) {
  int rc = llama_decode(ctx, batch);
  if (rc != 0)
    throw std::runtime_error(std::string("llama_decode failed (") + what + "): code " + std::to_string(rc));
}

RunResult run_once(llama_context* ctx, const llama_vocab* vocab, const std::vector<llama_token>& prompt,
                   const Options& o) {
  RunResult r;
  llama_memory_clear(llama_get_memory(ctx), true);
  llama_sampler* smpl = make_sampler(o);
  llama_batch batch = llama_batch_init(o.batch, 0, 1);
  try {
    const int n_prompt = static_cast<int>(prompt.size());
    auto t0 = Clock::now();
    for (int start = 0; start < n_prompt; start += o.batch) {
      const int n = std::min(o.batch, n_prompt - start);
      batch.n_tokens = n;
      for (int i = 0; i < n; i++) {
        batch.token[i] = prompt[start + i];
        batch.pos[i] = start + i;
        batch.n_seq_id[i] = 1;
        batch.seq_id[i][0] = 0;
        batch.logits[i] = start + i == n_prompt - 1;  // logits for the last prompt token only
      }
      decode_or_throw(ctx, batch, "prompt");
    }
    // Prompt time runs to the first sampled token (time to first token), generation time from
    // there to the last sampled token: n_gen - 1 decode+sample steps. An embedding runtime sees
    // exactly these two intervals, so both engines are timed on the same work.
    int pos = n_prompt;
    llama_token t = llama_sampler_sample(smpl, ctx, -1);
    r.prompt_ms = ms_since(t0);
    t0 = Clock::now();
    while (o.n_gen > 0) {
      r.tokens.push_back(t);
      r.generated++;
      if (r.generated == o.n_gen || (o.stop_at_eog && llama_vocab_is_eog(vocab, t))) break;
      batch.n_tokens = 1;
      batch.token[0] = t;
      batch.pos[0] = pos++;
      batch.n_seq_id[0] = 1;
      batch.seq_id[0][0] = 0;
      batch.logits[0] = true;
      decode_or_throw(ctx, batch, "generation");
      t = llama_sampler_sample(smpl, ctx, -1);
    }
    r.gen_ms = ms_since(t0);
  } catch (...) {
    llama_batch_free(batch);
    llama_sampler_free(smpl);
    throw;
  }
  llama_batch_free(batch);
  llama_sampler_free(smpl);
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

std::string read_file(const std::string& path) {
  FILE* f = fopen(path.c_str(), "rb");
  if (!f) throw std::runtime_error("cannot open " + path);
  std::string data;
  char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) data.append(buf, n);
  fclose(f);
  return data;
}

// The .inp file holds cases separated by "\n__ggml_vocab_test__\n"; line i of the .out file holds the
// expected ids of case i, space separated (tokenized without BOS/EOS, special text not parsed).
int tokenize_test(const Options& o, const llama_vocab* vocab) {
  std::string inp = read_file(o.tokenize_test);
  std::string out_path = o.tokenize_test;
  if (out_path.size() > 4 && out_path.compare(out_path.size() - 4, 4, ".inp") == 0)
    out_path.replace(out_path.size() - 4, 4, ".out");
  else
    out_path += ".out";
  std::string out = read_file(out_path);

  const std::string sep = "\n__ggml_vocab_test__\n";
  std::vector<std::string> cases;
  for (size_t pos = 0; pos < inp.size();) {
    size_t next = inp.find(sep, pos);
    if (next == std::string::npos) {
      cases.push_back(inp.substr(pos));
      break;
    }
    cases.push_back(inp.substr(pos, next - pos));
    pos = next + sep.size();
  }
  std::vector<std::vector<llama_token>> expected;
  for (size_t pos = 0; pos <= out.size();) {
    size_t eol = out.find('\n', pos);
    if (eol == std::string::npos) eol = out.size();
    std::vector<llama_token> ids;
    const char* p = out.c_str() + pos;
    const char* end = out.c_str() + eol;
    while (p < end) {
      char* q = nullptr;
      long v = strtol(p, &q, 10);
      if (q == p) {
        p++;
        continue;
      }
      ids.push_back(static_cast<llama_token>(v));
      p = q;
    }
    expected.push_back(ids);
    if (eol == out.size()) break;
    pos = eol + 1;
  }
  if (expected.size() > cases.size() && expected.back().empty()) expected.pop_back();
  if (expected.size() != cases.size()) {
    throw std::runtime_error(o.tokenize_test + " has " + std::to_string(cases.size()) + " cases but " +
                             out_path + " has " + std::to_string(expected.size()) + " lines");
  }
  int failures = 0;
  std::string first_failure;
  for (size_t i = 0; i < cases.size(); i++) {
    std::vector<llama_token> got;
    // Unlike tokenize() above, the vocab tests do not parse special-token text.
    int n = -llama_tokenize(vocab, cases[i].data(), static_cast<int32_t>(cases[i].size()), nullptr, 0, false,
                            false);
    got.assign(std::max(n, 0), 0);
    if (n > 0)
      llama_tokenize(vocab, cases[i].data(), static_cast<int32_t>(cases[i].size()), got.data(), n, false,
                     false);
    if (got != expected[i]) {
      if (failures == 0) first_failure = cases[i];
      failures++;
    }
  }
  printf(
      "{\"engine\":\"llama.cpp\",\"model\":\"%s\",\"tokenize_cases\":%zu,\"tokenize_failures\":%d,\"first_"
      "failure\":\"%s\"}\n",
      json_escape(o.model).c_str(), cases.size(), failures, json_escape(first_failure).c_str());
  return failures == 0 ? 0 : 2;
}

int run(const Options& o) {
  g_verbose = o.verbose;
  llama_log_set(log_callback, nullptr);
  llama_backend_init();

  auto t_load = Clock::now();
  llama_model_params mp = llama_model_default_params();
  mp.n_gpu_layers = o.gpu_layers;
  llama_model* model = llama_model_load_from_file(o.model.c_str(), mp);
  if (!model) throw std::runtime_error("llama_model_load_from_file failed for " + o.model);
  const llama_vocab* vocab = llama_model_get_vocab(model);
  if (!o.tokenize_test.empty()) {
    int rc;
    try {
      rc = tokenize_test(o, vocab);
    } catch (...) {
      llama_model_free(model);
      throw;
    }
    llama_model_free(model);
    return rc;
  }

  std::vector<llama_token> prompt =
      o.prompt.empty() ? synthetic_prompt(vocab, o.prompt_tokens) : tokenize(vocab, o.prompt, true);
  if (prompt.empty()) {
    llama_model_free(model);
    throw std::runtime_error("the prompt tokenized to nothing");
  }

  llama_context_params cp = llama_context_default_params();
  const int needed = static_cast<int>(prompt.size()) + o.n_gen + 1;
  cp.n_ctx = o.ctx > 0 ? o.ctx : ((needed + 255) / 256) * 256;
  cp.n_batch = o.batch;
  cp.n_ubatch = o.batch;
  cp.n_threads = o.threads;
  cp.n_threads_batch = o.threads;
  cp.no_perf = true;
  if (static_cast<int>(cp.n_ctx) < needed) {
    llama_model_free(model);
    throw std::runtime_error("--ctx " + std::to_string(cp.n_ctx) +
                             " is smaller than prompt + n-gen = " + std::to_string(needed));
  }
  llama_context* ctx = llama_init_from_model(model, cp);
  if (!ctx) {
    llama_model_free(model);
    throw std::runtime_error("llama_init_from_model failed");
  }
  ggml_threadpool* pool = nullptr;
  if (o.threadpool) {
    ggml_threadpool_params tpp = ggml_threadpool_params_default(o.threads);
    pool = ggml_threadpool_new(&tpp);
    if (!pool) {
      llama_free(ctx);
      llama_model_free(model);
      throw std::runtime_error("ggml_threadpool_new failed");
    }
    llama_attach_threadpool(ctx, pool, pool);
  }
  const double load_ms = ms_since(t_load);

  std::vector<double> prompt_ms, gen_ms;
  RunResult last;
  try {
    // Warm-up: one short decode so first-touch page faults and thread start-up are not timed.
    Options warm = o;
    warm.n_gen = 1;
    run_once(ctx, vocab,
             std::vector<llama_token>(prompt.begin(), prompt.begin() + std::min<size_t>(prompt.size(), 8)),
             warm);
    for (int rep = 0; rep < o.reps; rep++) {
      last = run_once(ctx, vocab, prompt, o);
      prompt_ms.push_back(last.prompt_ms);
      gen_ms.push_back(last.gen_ms);
    }
  } catch (...) {
    llama_free(ctx);
    if (pool) ggml_threadpool_free(pool);
    llama_model_free(model);
    throw;
  }

  char desc[256];
  llama_model_desc(model, desc, sizeof desc);
  const double p_ms = median(prompt_ms), g_ms = median(gen_ms);
  std::string text;
  if (o.print_text)
    for (llama_token t : last.tokens) text += piece(vocab, t);

  printf(
      "{\"engine\":\"llama.cpp\",\"model\":\"%s\",\"desc\":\"%s\",\"n_params\":%llu,\"n_vocab\":%d,"
      "\"threads\":%d,\"batch\":%d,\"n_ctx\":%u,\"sampling\":\"%s\",\"reps\":%d,\"load_ms\":%.1f,"
      "\"prompt_tokens\":%zu,\"prompt_ms\":%.3f,\"prompt_tps\":%.2f,"
      "\"gen_tokens\":%d,\"gen_ms\":%.3f,\"gen_tps\":%.2f",
      json_escape(o.model).c_str(), json_escape(desc).c_str(),
      static_cast<unsigned long long>(llama_model_n_params(model)), llama_vocab_n_tokens(vocab), o.threads,
      o.batch, llama_n_ctx(ctx), o.greedy ? "greedy" : "temp", o.reps, load_ms, prompt.size(), p_ms,
      prompt.size() * 1000.0 / p_ms, last.generated, g_ms,
      last.generated > 1 ? (last.generated - 1) * 1000.0 / g_ms : 0.0);
  if (o.print_text) {
    printf(",\"prompt_ids\":[");
    for (size_t i = 0; i < prompt.size(); i++) printf("%s%d", i ? "," : "", prompt[i]);
    printf("],\"tokens\":[");
    for (size_t i = 0; i < last.tokens.size(); i++) printf("%s%d", i ? "," : "", last.tokens[i]);
    printf("],\"text\":\"%s\"", json_escape(text).c_str());
  }
  printf(",\"threadpool\":%s}\n", o.threadpool ? "true" : "false");

  llama_free(ctx);
  if (pool) ggml_threadpool_free(pool);
  llama_model_free(model);
  llama_backend_free();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse_args(argc, argv));
  } catch (const std::exception& e) {
    printf("{\"engine\":\"llama.cpp\",\"error\":\"%s\"}\n", json_escape(e.what()).c_str());
    fprintf(stderr, "toolwright-llama-loop: %s\n", e.what());
    return 1;
  }
}
