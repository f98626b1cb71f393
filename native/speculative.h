// Speculative decoding: cheap guesses at a request's next tokens (drafts), decoded after its sampled
// token in the same batch and kept as far as the target model's own picks agree (the scheduler's side
// is in batch_draft.cc, which checks them like checked fast-forward does).
//
// Drafts come from prompt lookup (the continuation of the latest earlier occurrence of the history's
// last n-gram: pays off where the output copies the prompt, as tool arguments often do) and from a
// draft model with the target's vocabulary (greedy, in its own context with one sequence per slot).
// Each draft is cut where the request's grammar refuses it, so no pass verifies a token that could
// never be picked.
//
// The picks are sampled from the target's logits as without drafts, one per kept token: the output is
// the same at temperature 0 and, with a seeded sampler, the same draw for draw. For a draft that is a
// single token per position (both sources here), this is rejection sampling's acceptance rule: a
// drafted token x is kept with the target's probability p(x), otherwise the pick comes from p
// without x.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ggml-cpu.h"
#include "llama.h"
#include "model.h"

namespace toolwright {

// A context's speculative settings (Context.create's `speculative`).
struct SpeculativeOptions {
  bool lookup = false;            // prompt lookup
  ModelPtr draft;                 // draft model, or null
  int32_t max_draft = 8;          // most tokens drafted for one pass
  float min_probability = 0.75f;  // a draft model's draft stops at a token it gives less than this
  int32_t lookup_min = 2;         // shortest n-gram matched by prompt lookup
  int32_t lookup_max = 4;         // longest n-gram matched by prompt lookup
  bool Enabled() const { return lookup || draft != nullptr; }
};

// The continuation of the latest earlier occurrence of the last n tokens of `history` (n from
// `max_n` down to `min_n`, the longest match first), at most `max_tokens` tokens; empty when none.
std::vector<llama_token> LookupDraft(const std::vector<llama_token>& history, size_t max_tokens, size_t min_n,
                                     size_t max_n);

// Whether the draft model's tokens mean the same as the target's (same vocabulary type and size,
// same special tokens, same text for every token); else the reason.
bool SameVocabulary(const llama_model* target, const llama_model* draft, std::string* reason);

// Tells whether a drafted token may follow what the grammar has accepted (and what was drafted
// before it): built on a request's grammar sampler, it advances that grammar's matcher as tokens are
// allowed and rolls it back when destroyed. Allows every token where there is no matcher to ask
// (llama.cpp's engine, a lazy grammar not triggered yet).
class DraftGuard {
 public:
  explicit DraftGuard(llama_sampler* grammar);
  ~DraftGuard();
  DraftGuard(const DraftGuard&) = delete;
  DraftGuard& operator=(const DraftGuard&) = delete;
  // Advances past `token` when the grammar allows it; false (nothing changed) when it does not.
  bool Allow(llama_token token);
  // Whether tokens are checked at all.
  bool Checks() const { return matcher_ != nullptr; }
  // The tokens the grammar allows next, one bit per token id (Checks() only).
  void FillMask(std::vector<uint64_t>* bits);

 private:
  void* matcher_ = nullptr;  // grammar::Matcher, or null
  size_t accepted_ = 0;
};

// One sequence's draft by the draft model: what it continues, how far, and what its grammar allows.
struct DraftJob {
  llama_seq_id seq = 0;
  std::vector<llama_token> history;
  size_t max_tokens = 0;
  DraftGuard* guard = nullptr;
  std::vector<llama_token> out;  // the draft
};

// A draft model's context, one sequence per slot of the target's context; context's thread only.
class DraftModel {
 public:
  // Null with `*error` when the context cannot be made.
  static std::unique_ptr<DraftModel> Create(ModelPtr model, uint32_t n_ctx_per_seq, int32_t sequences,
                                            uint32_t n_batch, std::string* error);
  ~DraftModel();
  DraftModel(const DraftModel&) = delete;
  DraftModel& operator=(const DraftModel&) = delete;

  // Runs on the target's CPU thread pools (used by one context at a time: the owner's thread).
  void AttachThreadPools(ggml_threadpool* pool, ggml_threadpool* pool_batch);
  // The draft context's warm-up decode (warm_up.h); llama_decode's status.
  int32_t WarmUp();
  // Each job's draft: the draft model's greedy continuation of its history on its sequence, at most its
  // `max_tokens`, each the most likely of the top candidates that its guard allows; it stops at an
  // end-of-generation token or where the draft model gives its pick less than `min_probability`. The jobs'
  // sequences are decoded together, one batch per drafted position. A failed decode ends the drafts there
  // (drafts are only guesses: the requests go on without them).
  void Draft(std::vector<DraftJob>& jobs, float min_probability);

 private:
  DraftModel() = default;
  // Empties sequence `seq`'s cache (after a failed decode, its content is unknown).
  void Forget(llama_seq_id seq);
  // Draft for `count` jobs, at most a batch's capacity.
  void DraftGroup(DraftJob* jobs, size_t count, float min_probability);
  // Makes sequence `job.seq`'s cache hold all of `job.history` but its last token (decoded in batches); false
  // on failure.
  bool CatchUp(const DraftJob& job);
  // Of row `row`'s candidates, the most likely that `guard` allows, when the draft model gives it at least
  // `min_probability`; LLAMA_TOKEN_NULL when none.
  llama_token Pick(int32_t row, DraftGuard& guard, float min_probability);

  ModelPtr model_;
  llama_context* ctx_ = nullptr;
  llama_batch batch_ = {};
  int32_t capacity_ = 0;
  uint32_t n_ctx_ = 0;
  std::vector<std::vector<llama_token>> cached_;  // each sequence's tokens in the draft cache
  std::vector<int32_t> order_;                    // scratch for Pick
  std::vector<uint64_t> mask_;                    // scratch for Pick
};

}  // namespace toolwright
