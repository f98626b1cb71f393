#include "cache.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <random>
#include <thread>

#include "grammar_cache.h"
#include "llama_adapter.h"

namespace toolwright::grammar::tool {

namespace {

struct Run {
  bool ok = false;
  bool first_active = false, first_cached = false;  // the first mask: computed, and a cache hit
  double compile_us = 0, first_mask_us = 0, masks_us = 0;
  size_t masks = 0;
  std::vector<uint64_t> hashes;  // one per step: mask hash, or 0 when no mask is active
};

uint64_t hash_bits(const uint64_t* bits, size_t words) {
  uint64_t h = 1469598103934665603ull;
  for (size_t w = 0; w < words; w++) h = (h ^ bits[w]) * 1099511628211ull;
  return h | 1;  // never 0
}

// Creates a sampler for `c` and steps through `seq` (or, when empty and `walk` is set, a random
// walk it records into `seq`), hashing every mask.
Run run_once(const LoadedVocab& lv, const GrammarCase& c, const CacheOptions& opt,
             std::vector<llama_token>& seq, bool walk, bool await = false) {
  Run r;
  SamplerSpec spec;
  spec.gbnf = c.gbnf;
  spec.root = opt.root;
  if (c.has_lazy) {
    spec.lazy.lazy = true;
    spec.lazy.trigger_patterns = c.trigger_patterns;
    spec.lazy.trigger_tokens = c.trigger_tokens;
  }
  std::string error;
  double t0 = now_us();
  llama_sampler* s = make_llama_sampler(lv.vocab, spec, &error);
  r.compile_us = now_us() - t0;
  if (s == nullptr) return r;
  if (await) await_warmup(s);
  const Vocab& v = *lv.engine_vocab;
  std::mt19937_64 rng(opt.seed);
  const size_t n = walk ? static_cast<size_t>(opt.walk_steps) : seq.size();
  for (size_t step = 0; step <= n; step++) {
    const uint64_t hits = mask_cache_hits(s);
    t0 = now_us();
    const uint64_t* bits = active_mask(s);
    const double us = now_us() - t0;
    if (step == 0) {
      r.first_mask_us = us;
      r.first_active = bits != nullptr;
      r.first_cached = mask_cache_hits(s) > hits;
    }
    r.masks_us += us;
    r.masks++;
    r.hashes.push_back(bits ? hash_bits(bits, v.n_words()) : 0);
    if (step == n) break;
    llama_token tok;
    if (walk) {
      std::vector<int32_t> ids;
      for (size_t w = 0; bits && w < v.n_words(); w++) {
        for (uint64_t x = bits[w]; x; x &= x - 1) {
          const auto id = static_cast<int32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
          if (!v.is_eog(id)) ids.push_back(id);
        }
      }
      if (ids.empty()) break;
      tok = ids[rng() % ids.size()];
      seq.push_back(tok);
    } else {
      tok = seq[step];
    }
    try {
      llama_sampler_accept(s, tok);
    } catch (const std::exception&) {
      if (walk) seq.pop_back();
      break;
    }
  }
  llama_sampler_free(s);  // its engine goes back to the cache's pool
  r.ok = true;
  return r;
}

std::string summary_json(std::vector<double> v) { return json_summary(summarize(std::move(v))); }

}  // namespace

int run_cache(const LoadedVocab& lv, const std::vector<GrammarCase>& cases, const CacheOptions& opt) {
  GrammarCache& cache = GrammarCache::global();
  if (opt.max_bytes >= 0) cache.set_max_bytes(static_cast<size_t>(opt.max_bytes));
  const GrammarCache::Stats start = cache.stats();
  std::vector<double> cold_compile, warm_compile, cold_first, warm_first, cold_mask, warm_mask;
  size_t n_cases = 0, n_skipped = 0, n_mismatch = 0, n_thread_mismatch = 0, n_first_active = 0,
         n_first_cached = 0;
  std::vector<double> entry_bytes;
  std::vector<std::pair<double, std::string>> slowest;  // cold compile, grammar
  for (const GrammarCase& c : cases) {
    cache.clear();  // a grammar met earlier (the same text in two files) must still start cold
    std::vector<llama_token> seq;
    const bool walk = c.texts.empty();
    if (!walk) seq = tokenize(lv.vocab, c.texts[0]);
    const Run cold = run_once(lv, c, opt, seq, walk, opt.await_warmup);
    if (!cold.ok) {
      n_skipped++;
      continue;
    }
    n_cases++;
    n_first_active += cold.first_active ? 1 : 0;
    n_first_cached += cold.first_cached ? 1 : 0;
    std::vector<llama_token> replay = seq;
    const Run warm = run_once(lv, c, opt, replay, false);
    entry_bytes.push_back(static_cast<double>(cache.stats().bytes));
    slowest.emplace_back(cold.compile_us, c.name);
    if (!warm.ok || warm.hashes != cold.hashes) n_mismatch++;
    cold_compile.push_back(cold.compile_us);
    warm_compile.push_back(warm.compile_us);
    cold_first.push_back(cold.first_mask_us);
    warm_first.push_back(warm.first_mask_us);
    if (cold.masks) cold_mask.push_back(cold.masks_us / static_cast<double>(cold.masks));
    if (warm.masks) warm_mask.push_back(warm.masks_us / static_cast<double>(warm.masks));
    if (opt.threads > 0) {
      // Each thread replays the grammar (a hit) and its own copy with a comment added (a new
      // entry, compiled while the others hit, give engines back and, under a small budget, evict):
      // the same grammar, so the same masks.
      std::vector<Run> runs(static_cast<size_t>(opt.threads) * 2);
      std::vector<std::thread> threads;
      for (int t = 0; t < opt.threads; t++) {
        threads.emplace_back([&, t] {
          std::vector<llama_token> mine = seq;
          runs[2 * static_cast<size_t>(t)] = run_once(lv, c, opt, mine, false);
          GrammarCase variant = c;
          variant.gbnf += "\n# thread " + std::to_string(t) + "\n";
          mine = seq;
          runs[2 * static_cast<size_t>(t) + 1] = run_once(lv, variant, opt, mine, false);
        });
      }
      for (std::thread& th : threads) th.join();
      for (const Run& r : runs) {
        if (!r.ok || r.hashes != cold.hashes) n_thread_mismatch++;
      }
    }
  }
  const GrammarCache::Stats end = cache.stats();
  std::sort(slowest.begin(), slowest.end(), std::greater<>());
  std::string slow = "[";
  for (size_t i = 0; i < slowest.size() && i < 5; i++) {
    char buf[64];
    snprintf(buf, sizeof buf, "{\"us\":%.1f,\"grammar\":", slowest[i].first);
    slow += (i ? "," : "") + std::string(buf) + json_str(slowest[i].second) + "}";
  }
  slow += "]";
  auto count = [](const char* name, uint64_t v) {
    return "\"" + std::string(name) + "\":" + std::to_string(v) + ",";
  };
  auto field = [](const char* name, const std::string& json) {
    return "\"" + std::string(name) + "\":" + json;
  };
  std::string out = "{";
  out += count("cases", n_cases) + count("skipped", n_skipped) + count("mismatches", n_mismatch);
  out += count("thread_mismatches", n_thread_mismatch) + count("hits", end.hits - start.hits);
  out += count("misses", end.misses - start.misses) +
         count("warm_engines", end.warm_engines - start.warm_engines);
  out += count("evictions", end.evictions - start.evictions);
  out += count("first_masks_active", n_first_active) + count("first_masks_cached", n_first_cached);
  out += field("entry_bytes", summary_json(entry_bytes)) + "," + field("slowest_cold", slow) + ",";
  out += field("compile_cold_us", summary_json(cold_compile)) + ",";
  out += field("compile_warm_us", summary_json(warm_compile)) + ",";
  out += field("first_mask_cold_us", summary_json(cold_first)) + ",";
  out += field("first_mask_warm_us", summary_json(warm_first)) + ",";
  out += field("mask_cold_us", summary_json(cold_mask)) + "," +
         field("mask_warm_us", summary_json(warm_mask)) + "}";
  printf("%s\n", out.c_str());
  return n_mismatch == 0 && n_thread_mismatch == 0 ? 0 : 1;
}

}  // namespace toolwright::grammar::tool
