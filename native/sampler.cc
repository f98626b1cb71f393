#include "sampler.h"
#include "error_codes.h"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>

#include "addon_data.h"
#include "grammar_slot.h"
#include "grammar_toolwright.h"
#include "napi_args.h"

namespace toolwright {
namespace {

constexpr const char* kNew = "new Sampler";

// The index of the first highest of `n` logits, as std::max_element gives it, in two passes: the
// highest value over 16 independent lanes (no index carried from one element to the next, so the
// comparisons overlap), then its first occurrence. About twice as fast over a 150k vocabulary; it
// runs on the context's thread while the CPU threads wait, once per sequence per round.
size_t FirstMaxIndex(const float* x, size_t n) {
  constexpr size_t kLanes = 16;
  float lane[kLanes];
  std::fill(lane, lane + kLanes, -std::numeric_limits<float>::infinity());
  size_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (size_t j = 0; j < kLanes; j++) lane[j] = x[i + j] > lane[j] ? x[i + j] : lane[j];
  }
  float highest = lane[0];
  for (size_t j = 1; j < kLanes; j++) highest = lane[j] > highest ? lane[j] : highest;
  for (; i < n; i++) highest = x[i] > highest ? x[i] : highest;
  for (size_t k = 0; k < n; k++) {
    if (x[k] == highest) return k;
  }
  return static_cast<size_t>(std::max_element(x, x + n) - x);  // NaN logits only
}

struct ChainOptions {
  double temperature = 0.8;
  int64_t top_k = 40;
  double top_p = 0.95;
  double min_p = 0.05;
  double repeat_penalty = 1.0;
  double presence_penalty = 0.0;
  double frequency_penalty = 0.0;
  int64_t penalty_last_n = 64;
  int64_t seed = LLAMA_DEFAULT_SEED;
  bool greedy = false;
};

ChainOptions ReadChainOptions(const Napi::Object& o, int32_t n_vocab) {
  ChainOptions c;
  c.temperature = args::OptNumber(o, "temperature", c.temperature, 0.0, 1e6, kNew);
  c.top_k = args::OptInt(o, "topK", c.top_k, 0, n_vocab, kNew);
  c.top_p = args::OptNumber(o, "topP", c.top_p, 0.0, 1.0, kNew);
  c.min_p = args::OptNumber(o, "minP", c.min_p, 0.0, 1.0, kNew);
  c.repeat_penalty = args::OptNumber(o, "repeatPenalty", c.repeat_penalty, 1e-6, 1e6, kNew);
  c.presence_penalty = args::OptNumber(o, "presencePenalty", c.presence_penalty, -1e6, 1e6, kNew);
  c.frequency_penalty = args::OptNumber(o, "frequencyPenalty", c.frequency_penalty, -1e6, 1e6, kNew);
  c.penalty_last_n = args::OptInt(o, "penaltyLastN", c.penalty_last_n, 0, 1 << 20, kNew);
  c.seed = args::OptInt(o, "seed", c.seed, 0, 0xFFFFFFFFLL, kNew);
  c.greedy = args::OptBool(o, "greedy", c.greedy, kNew);
  return c;
}

// Same order as llama.cpp's common sampler: penalties, truncation, temperature, draw.
llama_sampler* BuildChain(const ChainOptions& c, int32_t n_vocab) {
  llama_sampler_chain_params params = llama_sampler_chain_default_params();
  params.no_perf = true;
  llama_sampler* chain = llama_sampler_chain_init(params);
  const bool penalties = c.penalty_last_n > 0 &&
                         (c.repeat_penalty != 1.0 || c.presence_penalty != 0.0 || c.frequency_penalty != 0.0);
  if (penalties) {
    llama_sampler_chain_add(
        chain, llama_sampler_init_penalties(
                   n_vocab, static_cast<int32_t>(c.penalty_last_n), static_cast<float>(c.repeat_penalty),
                   static_cast<float>(c.frequency_penalty), static_cast<float>(c.presence_penalty)));
  }
  if (c.greedy || c.temperature <= 0.0) {
    llama_sampler_chain_add(chain, llama_sampler_init_greedy());
    return chain;
  }
  if (c.top_k > 0 && c.top_k < n_vocab)
    llama_sampler_chain_add(chain, llama_sampler_init_top_k(static_cast<int32_t>(c.top_k)));
  if (c.top_p < 1.0) llama_sampler_chain_add(chain, llama_sampler_init_top_p(static_cast<float>(c.top_p), 1));
  if (c.min_p > 0.0) llama_sampler_chain_add(chain, llama_sampler_init_min_p(static_cast<float>(c.min_p), 1));
  llama_sampler_chain_add(chain, llama_sampler_init_temp(static_cast<float>(c.temperature)));
  llama_sampler_chain_add(chain, llama_sampler_init_dist(static_cast<uint32_t>(c.seed)));
  return chain;
}

// Whether a GBNF text has token references (`<[id]>`, `<text>`, `!<...>`): a '<' outside string
// literals, character classes and comments. Chat grammars write "<tool_call>" in literals only.
bool HasTokenReferences(const std::string& gbnf) {
  for (size_t i = 0; i < gbnf.size(); i++) {
    const char c = gbnf[i];
    if (c == '<') return true;
    if (c == '"' || c == '[') {
      const char close = c == '"' ? '"' : ']';
      for (i++; i < gbnf.size() && gbnf[i] != close; i++) {
        if (gbnf[i] == '\\') i++;
      }
    } else if (c == '#') {
      while (i < gbnf.size() && gbnf[i] != '\n') i++;
    }
  }
  return false;
}

// fastForward: "checked" (default: the output is exactly that of sampling each token), true, or false.
void ReadFastForward(const Napi::Object& o, SamplerState& state) {
  const Napi::Value value = o.Has("fastForward") ? o.Get("fastForward") : o.Env().Undefined();
  if (value.IsUndefined() || (value.IsString() && value.As<Napi::String>().Utf8Value() == "checked")) {
    state.fast_forward = true;
    state.fast_forward_checked = true;
    return;
  }
  state.fast_forward = args::OptBool(o, "fastForward", true, kNew);
  state.fast_forward_checked = false;
}

GrammarSpec ReadGrammarSpec(const Napi::Object& o, const ModelPtr& model) {
  constexpr const char* kMethod = "Sampler.setGrammar";
  GrammarSpec spec;
  spec.engine = args::OptString(o, "engine", spec.engine, kMethod);
  if (!o.Has("gbnf") || !o.Get("gbnf").IsString()) {
    args::ThrowType(o.Env(), kMethod, "option gbnf must be a string",
                    o.Has("gbnf") ? o.Get("gbnf") : o.Env().Undefined());
  }
  spec.gbnf = o.Get("gbnf").As<Napi::String>().Utf8Value();
  spec.root = args::OptString(o, "root", spec.root, kMethod);
  spec.lazy = args::OptBool(o, "lazy", false, kMethod);
  spec.trigger_patterns = args::OptStringArray(o, "triggerPatterns", kMethod);
  if (o.Has("triggerTokens") && !o.Get("triggerTokens").IsUndefined()) {
    spec.trigger_tokens =
        args::Tokens(o.Env(), o.Get("triggerTokens"), model->n_vocab, kMethod, "triggerTokens");
  }
  if (!spec.lazy && (!spec.trigger_patterns.empty() || !spec.trigger_tokens.empty())) {
    args::ThrowRange(o.Env(), kMethod, "triggerPatterns/triggerTokens need lazy: true");
  }
  if (spec.lazy && spec.trigger_patterns.empty() && spec.trigger_tokens.empty()) {
    args::ThrowRange(o.Env(), kMethod, "a lazy grammar needs at least one trigger pattern or trigger token");
  }
  return spec;
}

}  // namespace

SamplerState::~SamplerState() {
  if (grammar != nullptr) llama_sampler_free(grammar);
  if (chain != nullptr) llama_sampler_free(chain);
}

bool SamplerState::FillCandidates(llama_context* ctx, int32_t idx, std::string* error) {
  const float* logits = llama_get_logits_ith(ctx, idx);
  if (logits == nullptr) {
    *error = "no logits to sample from (llama_get_logits_ith failed)";
    return false;
  }
  const int32_t n = model->n_vocab;
  candidates.resize(static_cast<size_t>(n));
  for (llama_token id = 0; id < n; id++) candidates[id] = llama_token_data{id, logits[id], 0.0f};
  return true;
}

llama_token SamplerState::Sample(llama_context* ctx, std::string* error, int32_t idx) {
  if (grammar == nullptr) {
    const float* logits = llama_get_logits_ith(ctx, idx);
    if (logits == nullptr) {
      *error = "no logits to sample from (llama_get_logits_ith failed)";
      return LLAMA_TOKEN_NULL;
    }
    // Greedy alone: the first highest logit (as llama.cpp's greedy sampler picks), read straight
    // off the logits instead of copying the whole vocabulary into candidates first; a batch of
    // many sequences samples each row on the context's thread while the CPU threads wait.
    if (greedy_only)
      return static_cast<llama_token>(FirstMaxIndex(logits, static_cast<size_t>(model->n_vocab)));
    return llama_sampler_sample(chain, ctx, idx);
  }
  // Grammar: sample freely first and only mask the whole vocabulary when the grammar rejects
  // the pick, which saves the full mask on most steps (what llama.cpp's own loop does).
  if (!FillCandidates(ctx, idx, error)) return LLAMA_TOKEN_NULL;
  llama_token_data_array cur = {candidates.data(), candidates.size(), -1, false};
  llama_sampler_apply(chain, &cur);
  if (cur.selected < 0 || static_cast<size_t>(cur.selected) >= cur.size) {
    *error = "the sampler chain selected no token";
    return LLAMA_TOKEN_NULL;
  }
  llama_token id = cur.data[cur.selected].id;

  llama_token_data single = {id, 1.0f, 0.0f};
  llama_token_data_array one = {&single, 1, -1, false};
  llama_sampler_apply(grammar, &one);
  if (std::isinf(single.logit) && single.logit < 0) {
    // Resample among the allowed tokens only, in id order, so the chain runs over those (often a
    // few dozen) instead of the whole vocabulary again. Masked tokens would have probability 0 in
    // the chain anyway, so the pick is the same either way (and the same for both engines).
    size_t kept = 0;
    if (const uint64_t* bits = ToolwrightGrammarMask(grammar)) {
      // Our engine hands over its bitset: the candidates are read straight off it.
      const float* logits = llama_get_logits_ith(ctx, idx);
      if (logits == nullptr) {
        *error = "no logits to sample from (llama_get_logits_ith failed)";
        return LLAMA_TOKEN_NULL;
      }
      const size_t n = static_cast<size_t>(model->n_vocab);
      candidates.resize(n);
      for (size_t w = 0; w * 64 < n; w++) {
        for (uint64_t x = bits[w]; x != 0; x &= x - 1) {
          const size_t id = w * 64 + static_cast<size_t>(__builtin_ctzll(x));
          if (id < n) candidates[kept++] = llama_token_data{static_cast<llama_token>(id), logits[id], 0.0f};
        }
      }
    } else {
      if (!FillCandidates(ctx, idx, error)) return LLAMA_TOKEN_NULL;
      llama_token_data_array all = {candidates.data(), candidates.size(), -1, false};
      llama_sampler_apply(grammar, &all);
      for (size_t i = 0; i < all.size; i++) {
        if (!(std::isinf(all.data[i].logit) && all.data[i].logit < 0)) candidates[kept++] = all.data[i];
      }
    }
    cur = {candidates.data(), candidates.size(), -1, false};
    if (kept == 0) {
      *error = "the grammar allows no token at this point";
      return LLAMA_TOKEN_NULL;
    }
    cur.size = kept;
    cur.selected = -1;
    cur.sorted = false;
    llama_sampler_apply(chain, &cur);
    if (cur.selected < 0 || static_cast<size_t>(cur.selected) >= cur.size) {
      *error = "the sampler chain selected no token";
      return LLAMA_TOKEN_NULL;
    }
    id = cur.data[cur.selected].id;
  }
  if (verify_accept && !AcceptsOnCopy(id)) {
    id = ResampleAcceptable(ctx, idx, error);
    if (id == LLAMA_TOKEN_NULL) return LLAMA_TOKEN_NULL;
  }
  Accept(id);
  return id;
}

bool SamplerState::AcceptsOnCopy(llama_token token) const {
  llama_sampler* copy = llama_sampler_clone(grammar);
  if (copy == nullptr) return true;
  bool ok = true;
  try {
    llama_sampler_accept(copy, token);
  } catch (const std::exception&) {
    ok = false;
  }
  llama_sampler_free(copy);
  return ok;
}

// The chain's pick among the tokens the grammar's mask allows and its accept takes (each
// checked on a copy): the slow path, only after a pick the mask allowed was refused.
llama_token SamplerState::ResampleAcceptable(llama_context* ctx, int32_t idx, std::string* error) {
  if (!FillCandidates(ctx, idx, error)) return LLAMA_TOKEN_NULL;
  llama_token_data_array all = {candidates.data(), candidates.size(), -1, false};
  llama_sampler_apply(grammar, &all);
  size_t kept = 0;
  for (size_t i = 0; i < all.size; i++) {
    const bool masked = std::isinf(all.data[i].logit) && all.data[i].logit < 0;
    if (!masked && AcceptsOnCopy(all.data[i].id)) candidates[kept++] = all.data[i];
  }
  if (kept == 0) {
    *error = "the grammar allows no token at this point";
    return LLAMA_TOKEN_NULL;
  }
  llama_token_data_array cur = {candidates.data(), kept, -1, false};
  llama_sampler_apply(chain, &cur);
  if (cur.selected < 0 || static_cast<size_t>(cur.selected) >= cur.size) {
    *error = "the sampler chain selected no token";
    return LLAMA_TOKEN_NULL;
  }
  return cur.data[cur.selected].id;
}

void SamplerState::Accept(llama_token token) {
  if (grammar != nullptr) llama_sampler_accept(grammar, token);
  llama_sampler_accept(chain, token);
}

void Sampler::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "Sampler",
                                    {
                                        InstanceMethod<&Sampler::SetGrammar>("setGrammar"),
                                        InstanceMethod<&Sampler::Reset>("reset"),
                                        InstanceMethod<&Sampler::Accept>("accept"),
                                        InstanceMethod<&Sampler::Describe>("describe"),
                                        InstanceMethod<&Sampler::Dispose>("dispose"),
                                        InstanceAccessor<&Sampler::IsDisposed>("disposed"),
                                    });
  GetAddonData(env).sampler_constructor = Napi::Persistent(ctor);
  exports.Set("Sampler", ctor);
}

// new Sampler(model, {temperature, topK, topP, minP, repeatPenalty, presencePenalty,
//                     frequencyPenalty, penaltyLastN, seed, greedy, fastForward})
Sampler::Sampler(const Napi::CallbackInfo& info) : Napi::ObjectWrap<Sampler>(info) {
  Napi::Env env = info.Env();
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kNew, "model");
  if (model->vocab_only)
    args::ThrowRange(env, kNew, "the model was loaded with vocabOnly: it cannot generate");
  const ChainOptions options =
      ReadChainOptions(args::OptionalObject(info, 1, kNew, "options"), model->n_vocab);
  state_ = std::make_shared<SamplerState>();
  state_->model = std::move(model);
  state_->chain = BuildChain(options, state_->model->n_vocab);
  ReadFastForward(args::OptionalObject(info, 1, kNew, "options"), *state_);
  // A chain of the greedy pick alone (no penalties): it keeps no state to accept tokens into.
  state_->greedy_only =
      llama_sampler_chain_n(state_->chain) == 1 && (options.greedy || options.temperature <= 0.0);
}

SamplerPtr Sampler::FromValue(Napi::Env env, const Napi::Value& value, const char* method, const char* what) {
  Napi::FunctionReference& ctor = GetAddonData(env).sampler_constructor;
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctor.Value())) {
    args::ThrowType(env, method, std::string(what) + " must be a native Sampler", value);
  }
  return Napi::ObjectWrap<Sampler>::Unwrap(value.As<Napi::Object>())->Live(env, method);
}

const SamplerPtr& Sampler::Live(Napi::Env env, const char* method) const {
  if (!state_) throw Napi::Error::New(env, std::string(method) + ": the sampler is disposed");
  if (state_->busy.load())
    throw Napi::Error::New(env, std::string(method) + ": the sampler is in use by a running step");
  return state_;
}

void Sampler::SetGrammarSampler(Napi::Env env, llama_sampler* grammar) {
  const SamplerPtr& state = Live(env, "Sampler.setGrammar");
  if (state->grammar != nullptr) llama_sampler_free(state->grammar);
  state->grammar = grammar;
}

// setGrammar({engine?, gbnf, root?, lazy?, triggerPatterns?, triggerTokens?} | null)
Napi::Value Sampler::SetGrammar(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const SamplerPtr& state = Live(env, "Sampler.setGrammar");
  if (info.Length() == 0 || info[0].IsNull() || info[0].IsUndefined()) {
    SetGrammarSampler(env, nullptr);
    return env.Undefined();
  }
  const GrammarSpec spec =
      ReadGrammarSpec(args::Object(info, 0, "Sampler.setGrammar", "grammar"), state->model);
  std::string error;
  llama_sampler* grammar = CreateGrammarSampler(state->model->vocab, spec, &error);
  if (grammar == nullptr) {
    Napi::Error e = Napi::Error::New(env, "Sampler.setGrammar: invalid grammar: " + error);
    e.Set("code", Napi::String::New(env, codes::kInvalidGrammar));
    throw e;
  }
  SetGrammarSampler(env, grammar);
  state->verify_accept = HasTokenReferences(spec.gbnf);
  return env.Undefined();
}

Napi::Value Sampler::Reset(const Napi::CallbackInfo& info) {
  const SamplerPtr& state = Live(info.Env(), "Sampler.reset");
  llama_sampler_reset(state->chain);
  if (state->grammar != nullptr) llama_sampler_reset(state->grammar);
  return info.Env().Undefined();
}

// accept(tokens): advances the chain (penalty history) and grammar as if these were sampled.
Napi::Value Sampler::Accept(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const SamplerPtr& state = Live(env, "Sampler.accept");
  const std::vector<llama_token> tokens = args::Tokens(env, info.Length() > 0 ? info[0] : env.Undefined(),
                                                       state->model->n_vocab, "Sampler.accept", "tokens");
  try {
    for (llama_token t : tokens) state->Accept(t);
  } catch (const std::exception& e) {
    throw Napi::Error::New(env, std::string("Sampler.accept: ") + e.what());
  }
  return env.Undefined();
}

// describe() -> names of the chain's stages, and the grammar engine's sampler if any.
Napi::Value Sampler::Describe(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const SamplerPtr& state = Live(env, "Sampler.describe");
  Napi::Object out = Napi::Object::New(env);
  Napi::Array stages = Napi::Array::New(env);
  const int32_t n = llama_sampler_chain_n(state->chain);
  for (int32_t i = 0; i < n; i++) {
    stages.Set(static_cast<uint32_t>(i),
               Napi::String::New(env, llama_sampler_name(llama_sampler_chain_get(state->chain, i))));
  }
  out.Set("chain", stages);
  out.Set("grammar", state->grammar == nullptr
                         ? env.Null()
                         : Napi::String::New(env, llama_sampler_name(state->grammar)).As<Napi::Value>());
  return out;
}

Napi::Value Sampler::Dispose(const Napi::CallbackInfo& info) {
  // A step in flight holds its own reference and frees the state when it finishes.
  state_.reset();
  return info.Env().Undefined();
}

Napi::Value Sampler::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !state_);
}

}  // namespace toolwright
