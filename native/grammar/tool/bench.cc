// Bench: the same grammars and token sequences through both engines, timing every mask.
#include "bench.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <random>

#include "llama_adapter.h"
#include "llama_reference.h"
#include "matcher.h"

namespace toolwright::grammar::tool {

namespace {

uint64_t mask_hash(const std::vector<uint64_t>& bits) {
  uint64_t h = 0x243F6A8885A308D3ULL;
  for (uint64_t w : bits) h = (h ^ w) * 0x100000001B3ULL + (h >> 29);
  return h;
}

// One mask of ours and what it cost: the stacks the parser held, prefix-tree nodes walked,
// class slices used and built (slices are built lazily, once per vocabulary), and whether the
// mask came from the per-state cache.
struct Slow {
  double us, cpu_us;
  std::string name;
  size_t step;
  uint32_t stacks = 0;
  uint64_t nodes = 0, slices = 0, built = 0;
  bool cached = false;
};

// Where the mask time goes: per-step distributions and the share of time in steps that built
// slices or computed a state's mask for the first time.
std::string json_profile(const std::vector<Slow>& steps) {
  std::vector<double> stacks, nodes;
  double total = 0, in_builds = 0, in_fresh = 0;
  size_t n_builds = 0, n_fresh = 0;
  for (const Slow& s : steps) {
    stacks.push_back(s.stacks);
    nodes.push_back(static_cast<double>(s.nodes));
    total += s.us;
    if (s.built > 0) {
      n_builds++;
      in_builds += s.us;
    }
    if (!s.cached) {
      n_fresh++;
      in_fresh += s.us;
    }
  }
  char buf[256];
  snprintf(buf, sizeof buf,
           "{\"steps_building_slices\":%zu,\"time_share_building_slices\":%.4f,\"steps_fresh\":%zu,"
           "\"time_share_fresh\":%.4f,\"stacks\":",
           n_builds, total > 0 ? in_builds / total : 0.0, n_fresh, total > 0 ? in_fresh / total : 0.0);
  return std::string(buf) + json_summary(summarize(stacks)) + ",\"nodes\":" + json_summary(summarize(nodes)) +
         "}";
}

// A walk of up to `steps` tokens chosen by our engine (uniform over allowed, non-final tokens).
std::vector<llama_token> random_walk(Matcher& m, const Vocab& v, int steps, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<uint64_t> bits(v.n_words());
  std::vector<llama_token> out;
  m.reset();
  for (int i = 0; i < steps; i++) {
    m.fill_mask(bits.data());
    std::vector<int32_t> ids;
    for (size_t w = 0; w < bits.size(); w++) {
      for (uint64_t x = bits[w]; x; x &= x - 1) {
        const auto id = static_cast<int32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(x)));
        if (!v.is_eog(id)) ids.push_back(id);
      }
    }
    if (ids.empty()) break;
    const int32_t tok = ids[rng() % ids.size()];
    if (!m.accept(tok)) break;
    out.push_back(tok);
  }
  m.reset();
  return out;
}

}  // namespace

int run_bench(const LoadedVocab& lv, const std::string& vocab_name, const std::vector<GrammarCase>& cases,
              const BenchOptions& opt) {
  const Vocab& v = *lv.engine_vocab;
  const double t_start = now_us();
  std::vector<double> ours_mask, ours_mask_cpu, ours_accept, ours_compile, ours_warmup, ref_mask,
      ref_mask_cpu, ref_compile;
  std::vector<Slow> slow;
  size_t n_cases = 0, n_skipped = 0, n_mismatch = 0, n_rejected_texts = 0;
  std::vector<uint64_t> bits(v.n_words()), ref_bits;
  CompileOptions copts;
  copts.resolve_token = llama_token_resolver(lv.vocab);
  // TOOLWRIGHT_GRAMMAR_STEP_LOG=1: every mask of ours on stderr (time, live stacks, prefix-tree
  // nodes visited, slices used and built, cache hit, the text's last 40 bytes before the mask: which grammar
  // position it was), for profiling slow steps.
  const char* step_log_env = getenv("TOOLWRIGHT_GRAMMAR_STEP_LOG");
  const bool step_log = step_log_env && *step_log_env && *step_log_env != '0';
  for (const GrammarCase& c : cases) {
    if (opt.max_seconds > 0 && (now_us() - t_start) / 1e6 > opt.max_seconds) break;
    double t0 = now_us();
    GrammarError err;
    auto grammar = Grammar::compile(c.gbnf, opt.root, copts, err);
    std::unique_ptr<Matcher> m;
    if (grammar) m = std::make_unique<Matcher>(grammar, lv.engine_vocab);
    const double compile_us = now_us() - t0;
    // The warm-up ran on the background thread meanwhile: how long after the compile it was done.
    double warmup_us = 0;
    if (m && opt.await_warmup) {
      t0 = now_us();
      m->await_warmup();
      warmup_us = now_us() - t0;
    }
    std::unique_ptr<LlamaReference> ref;
    double ref_compile_us = 0;
    if (opt.reference) {
      t0 = now_us();
      ref = std::make_unique<LlamaReference>(lv.vocab, c.gbnf, opt.root);
      ref_compile_us = now_us() - t0;
    }
    if (!grammar || (ref && !ref->ok())) {
      n_skipped++;
      continue;
    }
    n_cases++;
    ours_compile.push_back(compile_us);
    if (opt.await_warmup) ours_warmup.push_back(warmup_us);
    if (ref) ref_compile.push_back(ref_compile_us);

    std::vector<std::vector<llama_token>> seqs;
    for (size_t i = 0; i < c.texts.size() && static_cast<int>(i) < opt.texts_per_case; i++) {
      seqs.push_back(tokenize(lv.vocab, c.texts[i]));
    }
    if (seqs.empty()) seqs.push_back(random_walk(*m, v, opt.walk_steps, opt.seed));

    for (const auto& seq : seqs) {
      // Each engine runs the sequence in its own pass (llama.cpp's pass streams through the
      // whole candidate array, which would otherwise evict our tables between our masks);
      // masks are compared through hashes.
      std::vector<uint64_t> hashes;
      size_t steps = 0;
      std::string seen;  // the text accepted so far (for the step log)
      m->reset();
      for (size_t step = 0; step <= seq.size(); step++) {
        const MaskEngine::Stats before = m->stats();
        const uint64_t built_before = v.slices().builds();
        const uint32_t stacks = m->live_stacks();
        const size_t states_before = step_log ? m->built_states() : 0;
        const size_t nodes_before = step_log ? m->built_stack_nodes() : 0;
        const double c0 = thread_cpu_us();
        t0 = now_us();
        m->fill_mask(bits.data());
        const double dt = now_us() - t0;
        const double dt_cpu = thread_cpu_us() - c0;
        ours_mask.push_back(dt);
        ours_mask_cpu.push_back(dt_cpu);
        const MaskEngine::Stats& after_stats = m->stats();
        Slow rec{dt, dt_cpu, c.name, step};
        rec.stacks = stacks;
        rec.nodes = after_stats.nodes_visited - before.nodes_visited;
        rec.slices = after_stats.slices_used - before.slices_used;
        rec.built = v.slices().builds() - built_before;
        rec.cached = after_stats.cache_hits > before.cache_hits;
        if (step_log) {
          fprintf(stderr,
                  "STEP %s %zu %.1f us cpu=%.1f stacks=%u nodes=%llu slices=%llu built=%llu cached=%d "
                  "via_position=%d "
                  "new_states=%zu new_stack_nodes=%zu hash=%016llx after=%s\n",
                  c.name.c_str(), step, dt, dt_cpu, rec.stacks, static_cast<unsigned long long>(rec.nodes),
                  static_cast<unsigned long long>(rec.slices), static_cast<unsigned long long>(rec.built),
                  rec.cached ? 1 : 0, after_stats.truncated_hits > before.truncated_hits ? 1 : 0,
                  m->built_states() - states_before, m->built_stack_nodes() - nodes_before,
                  static_cast<unsigned long long>(mask_hash(bits)),
                  json_str(seen.substr(seen.size() > 40 ? seen.size() - 40 : 0)).c_str());
        }
        slow.push_back(std::move(rec));
        hashes.push_back(mask_hash(bits));
        steps = step + 1;
        if (step == seq.size()) break;
        const llama_token tok = seq[step];
        if (!((bits[tok >> 6] >> (tok & 63)) & 1)) {
          n_rejected_texts++;
          break;
        }
        t0 = now_us();
        const bool ok = m->accept(tok);
        ours_accept.push_back(now_us() - t0);
        if (step_log) seen += v.piece(tok);
        if (!ok) break;
      }
      if (!ref) continue;
      ref->reset();
      std::string text;
      for (size_t step = 0; step < steps; step++) {
        ref->prepare();
        const double c0 = thread_cpu_us();
        t0 = now_us();
        ref->apply_only();
        ref_mask.push_back(now_us() - t0);
        ref_mask_cpu.push_back(thread_cpu_us() - c0);
        ref->read_mask(ref_bits);
        // Ours also refuses tokens that would make the text ill-formed UTF-8 (see utf8.h).
        clear_ill_formed(ref_bits, v, pending_utf8(text));
        if (mask_hash(ref_bits) != hashes[step]) n_mismatch++;
        if (step == seq.size() || step + 1 == steps) break;
        if (!ref->accept(seq[step])) break;
        text += v.piece(seq[step]);
      }
    }
  }
  const std::string profile = json_profile(slow);
  // Slowest by CPU time: on a shared machine wall time also counts preemption.
  std::sort(slow.begin(), slow.end(), [](const Slow& a, const Slow& b) { return a.cpu_us > b.cpu_us; });
  std::string slowest = "[";
  for (size_t i = 0; i < slow.size() && i < 8; i++) {
    char buf[256];
    snprintf(buf, sizeof buf,
             "{\"us\":%.1f,\"cpu_us\":%.1f,\"step\":%zu,\"stacks\":%u,\"nodes\":%llu,\"slices\":%llu,"
             "\"built\":%llu,\"cached\":%s,"
             "\"grammar\":",
             slow[i].us, slow[i].cpu_us, slow[i].step, slow[i].stacks,
             static_cast<unsigned long long>(slow[i].nodes), static_cast<unsigned long long>(slow[i].slices),
             static_cast<unsigned long long>(slow[i].built), slow[i].cached ? "true" : "false");
    slowest += (i ? "," : "") + std::string(buf) + json_str(slow[i].name) + "}";
  }
  slowest += "]";
  printf(
      "{\"mode\":\"bench\",\"vocab\":%s,\"vocab_tokens\":%zu,\"vocab_build_ms\":%.1f,\"cases\":%zu,"
      "\"skipped\":%zu,\"rejected_texts\":%zu,\"mismatched_masks\":%zu,"
      "\"ours\":{\"mask_us\":%s,\"mask_cpu_us\":%s,\"accept_us\":%s,\"compile_us\":%s,\"warmup_us\":%s,"
      "\"slowest\":%s,"
      "\"profile\":%s}",
      json_str(vocab_name).c_str(), v.size(), lv.build_ms, n_cases, n_skipped, n_rejected_texts, n_mismatch,
      json_summary(summarize(ours_mask)).c_str(), json_summary(summarize(ours_mask_cpu)).c_str(),
      json_summary(summarize(ours_accept)).c_str(), json_summary(summarize(ours_compile)).c_str(),
      json_summary(summarize(ours_warmup)).c_str(), slowest.c_str(), profile.c_str());
  if (opt.reference) {
    printf(",\"llama\":{\"mask_us\":%s,\"mask_cpu_us\":%s,\"compile_us\":%s}",
           json_summary(summarize(ref_mask)).c_str(), json_summary(summarize(ref_mask_cpu)).c_str(),
           json_summary(summarize(ref_compile)).c_str());
  }
  printf(",\"seconds\":%.2f}\n", (now_us() - t_start) / 1e6);
  return n_mismatch == 0 ? 0 : 1;
}

}  // namespace toolwright::grammar::tool
