// The scheduler's side of fast-forward (fast_forward.h): a slot's forced tokens are reported as
// tokens at once and decoded in the next batch right after its sampled token, so a run of text the
// grammar dictates costs one forward pass instead of one per token.
#include <algorithm>

#include "batch_scheduler.h"
#include "context.h"
#include "fast_forward.h"
#include "vocab_ops.h"

namespace toolwright {

void BatchScheduler::SendToken(ContextState& state, Slot& slot, llama_token token, bool forced) {
  const llama_vocab* vocab = state.model->vocab;
  slot.generated++;
  SequenceEvent event;
  event.kind = SequenceEvent::kToken;
  event.token = token;
  event.piece = TokenPiece(vocab, token);
  event.eog = llama_vocab_is_eog(vocab, token);
  event.forced = forced;
  event.passes = slot.request->passes;
  slot.request->window->sent++;  // counted before the reader can see it
  slot.request->events->Send(std::move(event));
}

void BatchScheduler::ForceAhead(ContextState& state, Slot& slot) {
  SamplerState& sampler = *slot.request->sampler;
  if (!sampler.fast_forward || sampler.grammar == nullptr) return;
  // Checking drops the tokens the model would not write from the cache: not from a recurrent state.
  const llama_model* model = state.model->model;
  const bool checked = sampler.fast_forward_checked;
  if (checked && (llama_model_is_recurrent(model) || llama_model_is_hybrid(model))) return;
  // Room for them: in one batch with the sampled token, in the context, and within maxTokens
  // (forced tokens count as generated ones).
  const size_t cached = slot.tokens.size() + 1;
  size_t room = static_cast<size_t>(std::max<int32_t>(0, state.batch_capacity - 1));
  room = std::min<size_t>(room, state.n_ctx > cached ? state.n_ctx - cached : 0);
  const int64_t max_tokens = slot.request->max_tokens;
  // Checked, the token after the run is sampled from its last row: room for it too.
  const int64_t left = max_tokens - slot.generated - (checked ? 1 : 0);
  if (max_tokens >= 0) room = std::min<size_t>(room, static_cast<size_t>(std::max<int64_t>(0, left)));
  std::vector<llama_token> forced = ForcedTokens(sampler.grammar, state.model->vocab, room);
  if (forced.empty()) return;
  slot.forced_checked = checked;
  if (checked) {
    slot.forced = std::move(forced);  // reported once checked (CheckForced)
    return;
  }
  for (llama_token token : forced) {
    sampler.Accept(token);
    SendToken(state, slot, token, true);
  }
  state.forced_tokens += forced.size();
  slot.forced = std::move(forced);
  // The last token was reached: like a sampled one at maxTokens, it is not decoded.
  if (max_tokens >= 0 && slot.generated >= max_tokens) Finish(slot, "maxTokens");
}

bool BatchScheduler::CheckForced(ContextState& state, Slot& slot) {
  std::vector<llama_token> forced;
  forced.swap(slot.checking);
  const size_t base = slot.tokens.size() - forced.size();  // where the run starts in the cache
  for (size_t i = 0; i < forced.size(); i++) {
    const llama_token pick = SampleRow(state, slot, slot.checking_rows[i]);
    if (pick == LLAMA_TOKEN_NULL) return false;
    if (pick == forced[i]) {
      state.forced_tokens++;
      SendToken(state, slot, pick, true);  // room was left for the run and the token after it
      continue;
    }
    // The model writes another token here: the rest of the run leaves the cache, its pick goes on.
    llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, static_cast<llama_pos>(base + i), -1);
    slot.tokens.resize(base + i);
    CountTokens(state);
    TakeSampled(state, slot, pick, false);
    return false;
  }
  return true;
}

}  // namespace toolwright
