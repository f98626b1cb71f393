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
  event.drafted = slot.request->drafted;
  event.accepted = slot.request->accepted;
  event.dropped_forced = slot.request->dropped_forced;
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
  size_t room = RoomAhead(state, slot, 0, checked);
  if (checked) room = std::min(room, ForcedRunCap(slot));
  if (room == 0) return;
  std::vector<llama_token> forced = ForcedTokens(sampler.grammar, state.model->vocab, room);
  if (forced.empty()) return;
  slot.forced_checked = checked;
  if (checked) {
    slot.forced = std::move(forced);  // reported once checked (CheckAhead)
    return;
  }
  for (llama_token token : forced) {
    sampler.Accept(token);
    SendToken(state, slot, token, true);
  }
  state.forced_tokens += forced.size();
  slot.forced = std::move(forced);
  // The last token was reached: like a sampled one at maxTokens, it is not decoded.
  const int64_t max_tokens = slot.request->max_tokens;
  if (max_tokens >= 0 && slot.generated >= max_tokens) Finish(slot, "maxTokens");
}

size_t BatchScheduler::RoomAhead(const ContextState& state, const Slot& slot, size_t ahead,
                                 bool checked) const {
  // In one batch with the sampled token and the `ahead` ones, and in the context after them.
  const size_t cached = slot.tokens.size() + 1 + ahead;
  const auto capacity = static_cast<size_t>(std::max<int32_t>(0, state.batch_capacity - 1));
  size_t room = capacity > ahead ? capacity - ahead : 0;
  room = std::min<size_t>(room, state.n_ctx > cached ? state.n_ctx - cached : 0);
  // Within maxTokens: tokens decoded ahead count as generated ones (checked ones once reported), and a
  // checked run leaves room for the pick from its last row.
  const int64_t max_tokens = slot.request->max_tokens;
  if (max_tokens < 0) return room;
  const auto unreported = static_cast<int64_t>(slot.forced_checked ? ahead : 0);
  const int64_t left = max_tokens - slot.generated - unreported - (checked ? 1 : 0);
  return std::min<size_t>(room, static_cast<size_t>(std::max<int64_t>(0, left)));
}

}  // namespace toolwright
