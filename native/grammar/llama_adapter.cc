#include "llama_adapter.h"

#include <cmath>
#include <map>
#include <mutex>
#include <regex>
#include <stdexcept>

#include "grammar_cache.h"
#include "matcher.h"

namespace toolwright::grammar {

namespace {

std::string token_piece(const llama_vocab* vocab, llama_token id) {
  std::string piece(16, '\0');
  int32_t n = llama_token_to_piece(vocab, id, piece.data(), static_cast<int32_t>(piece.size()), 0, true);
  if (n < 0) {
    piece.resize(static_cast<size_t>(-n));
    n = llama_token_to_piece(vocab, id, piece.data(), static_cast<int32_t>(piece.size()), 0, true);
  }
  piece.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return piece;
}

// A vocab pointer can be reused by a later model; the fingerprint tells them apart.
std::string fingerprint(const llama_vocab* vocab) {
  const int32_t n = llama_vocab_n_tokens(vocab);
  std::string fp = std::to_string(n);
  for (int32_t i = 0; i < 16 && n > 0; i++) fp += "\x1f" + token_piece(vocab, (n - 1) * i / 15);
  return fp;
}

struct CachedVocab {
  std::string fingerprint;
  std::shared_ptr<const Vocab> vocab;
};

std::mutex& vocab_cache_mutex() {
  static std::mutex mu;
  return mu;
}

std::map<const llama_vocab*, CachedVocab>& vocab_cache() {
  static std::map<const llama_vocab*, CachedVocab> cache;
  return cache;
}

struct SamplerCtx {
  Matcher matcher;
  std::vector<uint64_t> bits;
};

const char* sampler_name(const llama_sampler*) { return "toolwright-grammar"; }

void sampler_accept(llama_sampler* smpl, llama_token token) {
  auto* ctx = static_cast<SamplerCtx*>(smpl->ctx);
  if (!ctx->matcher.accept(token)) {
    throw std::runtime_error("grammar cannot accept token " + std::to_string(token) + " ('" +
                             ctx->matcher.vocab().piece(token) + "')");
  }
}

void sampler_apply(llama_sampler* smpl, llama_token_data_array* cur_p) {
  auto* ctx = static_cast<SamplerCtx*>(smpl->ctx);
  if (!ctx->matcher.is_active()) return;
  ctx->matcher.fill_mask(ctx->bits.data());
  const uint64_t* bits = ctx->bits.data();
  const auto n_vocab = static_cast<llama_token>(ctx->matcher.vocab().size());
  for (size_t i = 0; i < cur_p->size; i++) {
    const llama_token id = cur_p->data[i].id;
    if (id < 0 || id >= n_vocab || !((bits[id >> 6] >> (id & 63)) & 1)) cur_p->data[i].logit = -INFINITY;
  }
}

void sampler_reset(llama_sampler* smpl) { static_cast<SamplerCtx*>(smpl->ctx)->matcher.reset(); }

void sampler_free(llama_sampler* smpl) { delete static_cast<SamplerCtx*>(smpl->ctx); }

llama_sampler* sampler_clone(const llama_sampler* smpl);

llama_sampler_i make_iface() {
  llama_sampler_i i{};
  i.name = sampler_name;
  i.accept = sampler_accept;
  i.apply = sampler_apply;
  i.reset = sampler_reset;
  i.clone = sampler_clone;
  i.free = sampler_free;
  return i;
}

llama_sampler_i g_iface = make_iface();

llama_sampler* sampler_clone(const llama_sampler* smpl) {
  const auto* ctx = static_cast<const SamplerCtx*>(smpl->ctx);
  return llama_sampler_init(&g_iface, new SamplerCtx{ctx->matcher, ctx->bits});
}

}  // namespace

std::shared_ptr<const Vocab> vocab_from_llama(const llama_vocab* vocab) {
  const std::string fp = fingerprint(vocab);
  std::lock_guard<std::mutex> lock(vocab_cache_mutex());
  auto& cache = vocab_cache();
  auto it = cache.find(vocab);
  if (it != cache.end() && it->second.fingerprint == fp) return it->second.vocab;
  // A later model at the same address: the earlier one's grammars can never be asked for again.
  if (it != cache.end()) GrammarCache::global().forget_vocab(it->second.vocab.get());
  const int32_t n = llama_vocab_n_tokens(vocab);
  std::vector<std::string> pieces(static_cast<size_t>(n));
  std::vector<int32_t> eog;
  for (int32_t id = 0; id < n; id++) {
    pieces[id] = token_piece(vocab, id);
    if (llama_vocab_is_eog(vocab, id)) eog.push_back(id);
  }
  auto built = Vocab::build(std::move(pieces), eog);
  cache[vocab] = CachedVocab{fp, built};
  return built;
}

const uint64_t* active_mask(llama_sampler* smpl) {
  if (smpl == nullptr || smpl->iface != &g_iface) return nullptr;
  auto* ctx = static_cast<SamplerCtx*>(smpl->ctx);
  if (!ctx->matcher.is_active()) return nullptr;
  ctx->matcher.fill_mask(ctx->bits.data());
  return ctx->bits.data();
}

bool await_warmup(llama_sampler* smpl) {
  if (smpl == nullptr || smpl->iface != &g_iface) return false;
  return static_cast<SamplerCtx*>(smpl->ctx)->matcher.await_warmup();
}

uint64_t mask_cache_hits(llama_sampler* smpl) {
  if (smpl == nullptr || smpl->iface != &g_iface) return 0;
  return static_cast<SamplerCtx*>(smpl->ctx)->matcher.stats().cache_hits;
}

Matcher* active_matcher(llama_sampler* smpl) {
  if (smpl == nullptr || smpl->iface != &g_iface) return nullptr;
  auto* ctx = static_cast<SamplerCtx*>(smpl->ctx);
  return ctx->matcher.is_active() ? &ctx->matcher : nullptr;
}

void forget_llama_vocab(const llama_vocab* vocab) {
  std::shared_ptr<const Vocab> dropped;
  {
    std::lock_guard<std::mutex> lock(vocab_cache_mutex());
    auto it = vocab_cache().find(vocab);
    if (it == vocab_cache().end()) return;
    dropped = std::move(it->second.vocab);
    vocab_cache().erase(it);
  }
  GrammarCache::global().forget_vocab(dropped.get());
}

TokenResolver llama_token_resolver(const llama_vocab* vocab) {
  return [vocab](std::string_view text) -> std::optional<int32_t> {
    llama_token toks[2];
    const int32_t n =
        llama_tokenize(vocab, text.data(), static_cast<int32_t>(text.size()), toks, 2, false, true);
    if (n != 1) return std::nullopt;
    return toks[0];
  };
}

llama_sampler* make_llama_sampler(const llama_vocab* vocab, const SamplerSpec& spec, std::string* error) {
  if (vocab == nullptr) {
    if (error) *error = "no vocabulary";
    return nullptr;
  }
  try {
    auto v = vocab_from_llama(vocab);
    auto compile = [&](std::string* why) -> std::shared_ptr<const Grammar> {
      CompileOptions opts;
      opts.resolve_token = llama_token_resolver(vocab);
      GrammarError err;
      auto grammar = Grammar::compile(spec.gbnf, spec.root, opts, err);
      if (!grammar && why) *why = err.to_string();
      return grammar;
    };
    auto compiled = GrammarCache::global().get(v, spec.gbnf, spec.root, spec.lazy, compile, error);
    if (!compiled) return nullptr;
    auto* ctx = new SamplerCtx{Matcher(compiled->pool, compiled->lazy, compiled->watcher),
                               std::vector<uint64_t>(v->n_words())};
    return llama_sampler_init(&g_iface, ctx);
  } catch (const std::regex_error& e) {
    if (error) *error = std::string("invalid trigger pattern: ") + e.what();
  } catch (const std::exception& e) {
    if (error) *error = e.what();
  }
  return nullptr;
}

}  // namespace toolwright::grammar
