// The scheduler's side of speculative decoding (speculative.h) and of checked fast-forward: a slot's
// run (its sampled token, then forced and drafted tokens) is decoded in one pass, and each token to
// check is kept only where the pick sampled from the row before it agrees.
#include <algorithm>
#include <memory>

#include "batch_add.h"
#include "batch_scheduler.h"
#include "context.h"
#include "speculative.h"
#include "vocab_ops.h"

namespace toolwright {

void BatchScheduler::AddRun(llama_batch& batch, Slot& slot) {
  std::vector<llama_token> ahead = slot.forced;
  ahead.insert(ahead.end(), slot.drafted.begin(), slot.drafted.end());
  // The first token of `ahead` that is checked: unchecked forced ones need no row of their own.
  const size_t checked_from = slot.forced_checked ? 0 : slot.forced.size();
  slot.checking_rows.clear();
  const size_t base = slot.tokens.size();
  slot.row = BatchAdd(batch, slot.next, base, slot.seq, ahead.empty() || checked_from == 0);
  for (size_t i = 0; i < ahead.size(); i++) {
    if (i >= checked_from) slot.checking_rows.push_back(slot.row);
    const bool rows = i + 1 == ahead.size() || i + 1 >= checked_from;
    slot.row = BatchAdd(batch, ahead[i], base + 1 + i, slot.seq, rows);
  }
}

KernelChoice BatchScheduler::KernelsFor(const std::vector<bool>& decodes,
                                        const std::vector<size_t>& chunk) const {
  if (std::any_of(chunk.begin(), chunk.end(), [](size_t n) { return n > 0; })) return KernelChoice::kFast;
  for (size_t k = 0; k < slots_.size(); k++) {
    const Slot& slot = slots_[k];
    if (decodes[k] && ((slot.forced_checked && !slot.forced.empty()) || !slot.drafted.empty())) {
      return KernelChoice::kExact;
    }
  }
  return KernelChoice::kReference;
}

void BatchScheduler::TookRun(ContextState& state, Slot& slot) {
  slot.tokens.push_back(slot.next);
  slot.tokens.insert(slot.tokens.end(), slot.forced.begin(), slot.forced.end());
  slot.tokens.insert(slot.tokens.end(), slot.drafted.begin(), slot.drafted.end());
  slot.next = LLAMA_TOKEN_NULL;
  slot.checking.clear();
  slot.checking_forced = 0;
  if (slot.forced_checked) {
    slot.checking.swap(slot.forced);
    slot.checking_forced = slot.checking.size();
  }
  slot.checking.insert(slot.checking.end(), slot.drafted.begin(), slot.drafted.end());
  slot.request->drafted += slot.drafted.size();
  state.drafted_tokens += slot.drafted.size();
  slot.forced.clear();
  slot.drafted.clear();
}

void BatchScheduler::DraftAll(ContextState& state) {
  const SpeculativeOptions& spec = state.speculative;
  const llama_model* model = state.model->model;
  // A rejected draft leaves the cache: not a recurrent state.
  const bool drafts = spec.Enabled() && !llama_model_is_recurrent(model) && !llama_model_is_hybrid(model);
  std::vector<std::unique_ptr<DraftGuard>> guards;  // each rolls its grammar back once the drafts are made
  std::vector<DraftJob> jobs;
  std::vector<Slot*> owners;
  for (Slot& slot : slots_) {
    if (!slot.wants_draft) continue;
    slot.wants_draft = false;
    if (!drafts || !slot.request || slot.next == LLAMA_TOKEN_NULL) continue;
    if (slot.draft_budget == 0) slot.draft_budget = static_cast<size_t>(spec.max_draft);
    const size_t room = std::min(RoomAhead(state, slot, slot.forced.size(), true), slot.draft_budget);
    if (room == 0) continue;
    std::vector<llama_token> history = slot.tokens;
    history.push_back(slot.next);
    history.insert(history.end(), slot.forced.begin(), slot.forced.end());
    // The grammar has accepted the sampled token and unchecked forced ones; checked ones come first.
    guards.push_back(std::make_unique<DraftGuard>(slot.request->sampler->grammar));
    DraftGuard& guard = *guards.back();
    bool allowed = true;
    for (size_t i = 0; slot.forced_checked && allowed && i < slot.forced.size(); i++)
      allowed = guard.Allow(slot.forced[i]);
    if (!allowed) continue;
    if (spec.lookup) {
      std::vector<llama_token> draft = LookupDraft(history, room, static_cast<size_t>(spec.lookup_min),
                                                   static_cast<size_t>(spec.lookup_max));
      // Kept up to an image (its placeholder is no token), what the grammar refuses, or the end of
      // generation.
      size_t n = 0;
      while (n < draft.size() && !IsPlaceholder(draft[n]) && guard.Allow(draft[n])) {
        if (llama_vocab_is_eog(state.model->vocab, draft[n++])) break;
      }
      draft.resize(n);
      slot.drafted = std::move(draft);
      if (!slot.drafted.empty()) continue;
    }
    // The draft model reads text only: a prompt with images gets lookup drafts alone.
    if (state.draft && std::none_of(history.begin(), history.end(), IsPlaceholder)) {
      DraftJob job;
      job.seq = slot.seq;
      job.history = std::move(history);
      job.max_tokens = room;
      job.guard = &guard;
      jobs.push_back(std::move(job));
      owners.push_back(&slot);
    }
  }
  if (jobs.empty()) return;
  state.draft->Draft(jobs, spec.min_probability);
  for (size_t i = 0; i < jobs.size(); i++) owners[i]->drafted = std::move(jobs[i].out);
}

void BatchScheduler::DropFrom(ContextState& state, Slot& slot, size_t keep) {
  llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, static_cast<llama_pos>(keep), -1);
  slot.tokens.resize(keep);
  CountTokens(state);
}

void BatchScheduler::AdaptDraftBudget(const ContextState& state, Slot& slot, size_t drafted, size_t kept) {
  if (drafted == 0) return;
  // Every guess kept: the next draft may be longer. One rejected: the next is at most one longer than what
  // was kept, so a run of wrong guesses costs one checked token a pass, not maxDraft.
  const auto most = static_cast<size_t>(state.speculative.max_draft);
  slot.draft_budget = kept == drafted ? std::min(most, std::max<size_t>(1, slot.draft_budget) * 2) : kept + 1;
}

void BatchScheduler::AdaptForcedBudget(Slot& slot, size_t forced, size_t kept) {
  if (forced == 0) return;
  // Rows decoded for nothing (the model wrote the forced text its own way from there) are a debt that
  // kept tokens (each a pass saved) pay back. While in debt, the next checked run waits that many picks
  // (at most kMaxForcedPause): a model that rarely agrees costs few rows, one that agrees never waits.
  const size_t dropped = forced - kept;
  slot.forced_debt = slot.forced_debt + dropped > kept ? slot.forced_debt + dropped - kept : 0;
  if (dropped > 0) slot.forced_pause = std::min(kMaxForcedPause, slot.forced_debt);
  // A run cut short: the next is at most one longer than what was kept. A run kept whole: the next may
  // be twice as long, and past kUncappedForcedRun it is not cut (a model that agrees keeps whole markers
  // and keys in one pass).
  if (kept < forced) {
    slot.forced_budget = kept + 1;
  } else if (slot.forced_budget != kAnyForcedRun) {
    slot.forced_budget =
        slot.forced_budget * 2 >= kUncappedForcedRun ? kAnyForcedRun : slot.forced_budget * 2;
  }
}

size_t BatchScheduler::ForcedRunCap(Slot& slot) {
  if (slot.forced_pause > 0) {
    slot.forced_pause--;
    return 0;
  }
  return slot.forced_budget;
}

bool BatchScheduler::CheckAhead(ContextState& state, Slot& slot) {
  std::vector<llama_token> ahead;
  ahead.swap(slot.checking);
  const size_t forced = slot.checking_forced;
  const size_t drafted = ahead.size() - forced;
  const size_t base = slot.tokens.size() - ahead.size();  // where the run's checked tokens start in the cache
  for (size_t i = 0; i < ahead.size(); i++) {
    const llama_token pick = SampleRow(state, slot, slot.checking_rows[i]);
    if (pick == LLAMA_TOKEN_NULL) return false;
    if (pick != ahead[i]) {
      // The model writes another token here: the rest of the run leaves the cache, its pick goes on.
      if (i < forced) slot.request->dropped_forced += forced - i;
      AdaptForcedBudget(slot, forced, std::min(i, forced));
      AdaptDraftBudget(state, slot, drafted, i > forced ? i - forced : 0);
      DropFrom(state, slot, base + i);
      TakeSampled(state, slot, pick, false);
      return false;
    }
    if (i < forced) {
      state.forced_tokens++;
    } else {
      state.accepted_draft_tokens++;
      slot.request->accepted++;
    }
    const bool eog = llama_vocab_is_eog(state.model->vocab, pick);
    if (eog && i + 1 < forced) slot.request->dropped_forced += forced - i - 1;  // in the event below
    SendToken(state, slot, pick, i < forced);  // room was left for the run and the token after it
    if (eog) {
      DropFrom(state, slot, base + i);  // as a sampled end of generation, it is not in the cache
      Finish(slot, "eog");
      return false;
    }
  }
  AdaptForcedBudget(slot, forced, forced);
  AdaptDraftBudget(state, slot, drafted, drafted);
  return true;
}

}  // namespace toolwright
