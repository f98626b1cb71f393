// Differential test: both engines walk the same token sequences; at every step their masks
// must be identical, bit for bit, over the whole vocabulary, once llama.cpp's mask is cleared of
// the tokens that would make the text ill-formed UTF-8 (our decoder refuses those; see utf8.h).
#include "diff.h"

#include <cmath>
#include <cstdio>
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

uint64_t name_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

std::vector<int32_t> allowed_ids(const std::vector<uint64_t>& bits, size_t n) {
  std::vector<int32_t> ids;
  for (size_t w = 0; w < bits.size(); w++) {
    for (uint64_t x = bits[w]; x; x &= x - 1) {
      const size_t id = w * 64 + static_cast<size_t>(__builtin_ctzll(x));
      if (id < n) ids.push_back(static_cast<int32_t>(id));
    }
  }
  return ids;
}

// Mostly uniform over allowed tokens; sometimes a one-byte token or the end of generation, so
// walks also close structures and finish.
int32_t pick(const std::vector<int32_t>& ids, const Vocab& v, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(0, 1);
  const double r = u(rng);
  if (r < 0.15) {
    for (int32_t id : ids) {
      if (v.is_eog(id)) return id;
    }
  }
  if (r < 0.45) {
    std::vector<int32_t> small;
    for (int32_t id : ids) {
      if (!v.is_eog(id) && v.piece(id).size() == 1) small.push_back(id);
    }
    if (!small.empty()) return small[rng() % small.size()];
  }
  std::vector<int32_t> non_eog;
  for (int32_t id : ids) {
    if (!v.is_eog(id)) non_eog.push_back(id);
  }
  if (non_eog.empty()) return ids[rng() % ids.size()];
  return non_eog[rng() % non_eog.size()];
}

struct CaseResult {
  size_t steps = 0;
  bool diverged = false;
  std::string detail;  // JSON object describing the divergence
};

std::string describe_divergence(const std::string& name, int walk, size_t step,
                                const std::vector<uint64_t>& ours, const std::vector<uint64_t>& ref,
                                const Vocab& v, const std::string& prefix) {
  std::string tokens = "[";
  int shown = 0;
  for (size_t id = 0; id < v.size() && shown < 8; id++) {
    const bool a = (ours[id >> 6] >> (id & 63)) & 1, b = (ref[id >> 6] >> (id & 63)) & 1;
    if (a == b) continue;
    if (shown++) tokens += ",";
    tokens += "{\"id\":" + std::to_string(id) + ",\"bytes\":" + json_str(v.piece(static_cast<int32_t>(id))) +
              ",\"allowed_by\":\"" + (a ? "ours" : "llama") + "\"}";
    fprintf(stderr, "DIVERGENCE %s walk %d step %zu: token %zu %s allowed only by %s (text so far %s)\n",
            name.c_str(), walk, step, id, json_str(v.piece(static_cast<int32_t>(id))).c_str(),
            a ? "ours" : "llama", json_str(prefix).c_str());
  }
  tokens += "]";
  return "{\"grammar\":" + json_str(name) + ",\"walk\":" + std::to_string(walk) +
         ",\"step\":" + std::to_string(step) + ",\"prefix\":" + json_str(prefix) + ",\"tokens\":" + tokens +
         "}";
}

}  // namespace

int run_diff(const LoadedVocab& lv, const std::vector<GrammarCase>& cases, const DiffOptions& opt) {
  const Vocab& v = *lv.engine_vocab;
  const double t_start = now_us();
  size_t n_grammars = 0, n_walks = 0, n_steps = 0, n_invalid_both = 0;
  // Ours: masks made from a warmed-up position's (MaskEngine::fill_via_position), and of those, through the
  // suffix tree of its exits.
  uint64_t n_truncated_masks = 0, n_suffix_masks = 0, n_returned_positions = 0;
  std::vector<std::string> divergences, validity, notes;
  std::vector<uint64_t> ours_bits(v.n_words()), ref_bits;
  CompileOptions copts;
  copts.resolve_token = llama_token_resolver(lv.vocab);
  for (const GrammarCase& c : cases) {
    if (opt.max_seconds > 0 && (now_us() - t_start) / 1e6 > opt.max_seconds) {
      notes.push_back("time budget reached before " + c.name);
      break;
    }
    // A case's own triggers (X.lazy) win over the command line's.
    const std::vector<std::string>& patterns = c.has_lazy ? c.trigger_patterns : opt.trigger_patterns;
    const std::vector<int32_t>& trigger_tokens = c.has_lazy ? c.trigger_tokens : opt.trigger_tokens;
    bool tokens_in_vocab = true;
    for (int32_t id : trigger_tokens)
      tokens_in_vocab = tokens_in_vocab && id >= 0 && static_cast<size_t>(id) < v.size();
    if (!tokens_in_vocab) {
      validity.push_back("{\"grammar\":" + json_str(c.name) +
                         ",\"detail\":\"trigger token outside the vocabulary\"}");
      continue;
    }
    GrammarError err;
    auto grammar = Grammar::compile(c.gbnf, opt.root, copts, err);
    const std::vector<llama_token> ref_tokens(trigger_tokens.begin(), trigger_tokens.end());
    LlamaReference ref(lv.vocab, c.gbnf, opt.root, patterns, ref_tokens);
    if (!grammar || !ref.ok()) {
      if (!grammar && !ref.ok()) {
        n_invalid_both++;
      } else {
        const std::string why =
            grammar ? "llama rejected it, ours compiled it" : "ours rejected it: " + err.to_string();
        validity.push_back("{\"grammar\":" + json_str(c.name) + ",\"detail\":" + json_str(why) + "}");
        fprintf(stderr, "VALIDITY %s: %s\n", c.name.c_str(), why.c_str());
      }
      continue;
    }
    n_grammars++;
    LazyOptions lazy;
    lazy.lazy = !patterns.empty() || !trigger_tokens.empty();
    lazy.trigger_patterns = patterns;
    lazy.trigger_tokens = trigger_tokens;
    Matcher m(grammar, lv.engine_vocab, lazy);
    if (opt.await_warmup) m.await_warmup();
    // The same engine behind llama's sampler interface, as the addon plugs it in.
    SamplerSpec spec;
    spec.gbnf = c.gbnf;
    spec.root = opt.root;
    spec.lazy = lazy;
    std::string adapter_error;
    llama_sampler* adapter = make_llama_sampler(lv.vocab, spec, &adapter_error);
    if (!adapter) {
      divergences.push_back("{\"grammar\":" + json_str(c.name) +
                            ",\"detail\":" + json_str("sampler adapter failed: " + adapter_error) + "}");
    }
    std::vector<llama_token_data> cur(v.size());
    std::mt19937_64 rng(opt.seed ^ name_hash(c.name));
    const int n_text = static_cast<int>(c.texts.size());
    const int n_branch = n_text * opt.branch_walks;
    bool diverged = false;
    // Walks: each text in full, then branch walks (a random prefix of a text, then random
    // tokens), then random walks from the start.
    for (int w = 0; w < n_text + n_branch + opt.walks && !diverged; w++) {
      m.reset();
      ref.reset();
      if (adapter) llama_sampler_reset(adapter);
      n_walks++;
      const bool full_text = w < n_text;
      std::vector<llama_token> script;
      if (w < n_text + n_branch)
        script = tokenize(lv.vocab, c.texts[w < n_text ? w : (w - n_text) % n_text], opt.special_texts);
      const size_t follow = full_text ? script.size() : script.empty() ? 0 : rng() % (script.size() + 1);
      std::string prefix;
      std::vector<uint64_t> hashes;
      std::vector<int32_t> taken;
      const size_t max_steps = follow + (full_text ? 1 : static_cast<size_t>(opt.max_steps));
      for (size_t step = 0; step < max_steps; step++) {
        m.fill_mask(ours_bits.data());
        ref.mask(ref_bits);
        n_steps++;
        // Once active, our engine also refuses the tokens that would make the text ill-formed
        // UTF-8, which llama.cpp lets through; on every other token the masks must be identical.
        if (m.is_active()) clear_ill_formed(ref_bits, v, pending_utf8(prefix));
        if (ours_bits != ref_bits) {
          divergences.push_back(describe_divergence(c.name, w, step, ours_bits, ref_bits, v, prefix));
          diverged = true;
          break;
        }
        hashes.push_back(mask_hash(ours_bits));
        if (adapter) {
          for (size_t i = 0; i < cur.size(); i++)
            cur[i] = llama_token_data{static_cast<llama_token>(i), 0.0f, 0.0f};
          llama_token_data_array arr{cur.data(), cur.size(), -1, false};
          llama_sampler_apply(adapter, &arr);
          for (size_t i = 0; i < cur.size(); i++) {
            const bool allowed = cur[i].logit != -INFINITY;
            if (allowed != (((ours_bits[i >> 6] >> (i & 63)) & 1) != 0)) {
              divergences.push_back("{\"grammar\":" + json_str(c.name) + ",\"walk\":" + std::to_string(w) +
                                    ",\"step\":" + std::to_string(step) +
                                    ",\"detail\":\"sampler adapter mask differs\"}");
              diverged = true;
              break;
            }
          }
          if (diverged) break;
        }
        const auto ids = allowed_ids(ours_bits, v.size());
        if (ids.empty()) break;
        int32_t tok;
        if (step < follow || full_text) {
          if (step >= script.size()) break;
          tok = script[step];
          if (!((ours_bits[tok >> 6] >> (tok & 63)) & 1)) {
            notes.push_back(c.name + ": text " + std::to_string(w) + " rejected by both at step " +
                            std::to_string(step));
            break;
          }
        } else {
          tok = pick(ids, v, rng);
        }
        if (v.is_eog(tok)) break;
        std::string ref_err;
        const bool a = m.accept(tok), b = ref.accept(tok, &ref_err);
        if (a != b) {
          const std::string d = "{\"grammar\":" + json_str(c.name) + ",\"walk\":" + std::to_string(w) +
                                ",\"step\":" + std::to_string(step) +
                                ",\"accept_token\":" + std::to_string(tok) + ",\"accepted_by\":\"" +
                                (a ? "ours" : "llama") + "\"}";
          fprintf(stderr, "DIVERGENCE %s walk %d step %zu: accept(%d) differs\n", c.name.c_str(), w, step,
                  tok);
          divergences.push_back(d);
          diverged = true;
          break;
        }
        if (!a) break;
        if (adapter) {
          try {
            llama_sampler_accept(adapter, tok);
          } catch (const std::exception& e) {
            divergences.push_back("{\"grammar\":" + json_str(c.name) + ",\"detail\":" +
                                  json_str(std::string("sampler adapter accept threw: ") + e.what()) + "}");
            diverged = true;
            break;
          }
        }
        prefix += v.piece(tok);
        taken.push_back(tok);
      }
      // Undo a random number of tokens: the mask must be the one seen at that step.
      for (int r = 0; r < opt.rollbacks && !diverged && !taken.empty(); r++) {
        const size_t n = 1 + rng() % taken.size();
        const size_t at = taken.size() - n;
        if (!m.rollback(n)) {
          divergences.push_back("{\"grammar\":" + json_str(c.name) + ",\"rollback\":" + std::to_string(n) +
                                ",\"detail\":\"rollback refused\"}");
          diverged = true;
          break;
        }
        m.fill_mask(ours_bits.data());
        if (mask_hash(ours_bits) != hashes[at]) {
          fprintf(stderr, "DIVERGENCE %s walk %d: mask after rollback to step %zu differs\n", c.name.c_str(),
                  w, at);
          divergences.push_back("{\"grammar\":" + json_str(c.name) + ",\"walk\":" + std::to_string(w) +
                                ",\"rollback_to_step\":" + std::to_string(at) + "}");
          diverged = true;
          break;
        }
        for (size_t i = at; i < taken.size(); i++) m.accept(taken[i]);
      }
    }
    if (adapter) llama_sampler_free(adapter);
    n_truncated_masks += m.stats().truncated_hits;
    n_suffix_masks += m.stats().suffix_hits;
    n_returned_positions += m.stats().returned_positions;
    if (opt.verbose) fprintf(stderr, "ok %s\n", c.name.c_str());
  }
  auto join = [](const std::vector<std::string>& xs, bool quote) {
    std::string s = "[";
    for (size_t i = 0; i < xs.size(); i++) s += (i ? "," : "") + (quote ? json_str(xs[i]) : xs[i]);
    return s + "]";
  };
  printf(
      "{\"mode\":\"diff\",\"vocab_tokens\":%zu,\"grammars\":%zu,\"invalid_both\":%zu,\"walks\":%zu,\"steps\":"
      "%zu,\"truncated_masks\":%llu,\"suffix_masks\":%llu,\"returned_positions\":%llu,"
      "\"seconds\":%.2f,\"divergences\":%s,\"validity_mismatches\":%s,\"notes\":%s}\n",
      v.size(), n_grammars, n_invalid_both, n_walks, n_steps,
      static_cast<unsigned long long>(n_truncated_masks), static_cast<unsigned long long>(n_suffix_masks),
      static_cast<unsigned long long>(n_returned_positions), (now_us() - t_start) / 1e6,
      join(divergences, false).c_str(), join(validity, false).c_str(), join(notes, true).c_str());
  return divergences.empty() && validity.empty() ? 0 : 1;
}

}  // namespace toolwright::grammar::tool
