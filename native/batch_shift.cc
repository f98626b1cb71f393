// BatchScheduler's context shift: a prompt that is a slot's cached tokens with one span removed
// (a chat that dropped its oldest turns: the head kept, then the turns after the dropped ones) keeps
// the cached tail by removing the span from the KV cache and moving the tail's positions down, so
// only what follows the tail is evaluated. Only for requests that ask for it (the K cache of the
// kept tail was computed with the dropped span in attention, as after llama.cpp's context shift), on
// models whose cache can move positions (not recurrent or hybrid: their state cannot lose a middle
// span; not M-RoPE or a sliding window cache smaller than the context: llama_memory_can_shift).
#include <algorithm>
#include <vector>

#include "batch_scheduler.h"
#include "context.h"

namespace toolwright {

namespace {

// Tail tokens a shift must keep to be worth moving positions (fewer: the prefix path evaluates them).
constexpr size_t kMinShiftedTokens = 16;

// For each start b in `text`, how many tokens from b equal `pattern`'s first tokens (the Z-function of
// pattern + text, capped at the pattern's length): linear, whatever the tokens repeat.
std::vector<size_t> MatchLengths(const std::vector<llama_token>& pattern,
                                 const std::vector<llama_token>& text) {
  const size_t np = pattern.size();
  const size_t n = np + text.size();
  auto at = [&](size_t i) { return i < np ? pattern[i] : text[i - np]; };
  std::vector<size_t> z(n, 0);
  size_t left = 0;
  size_t right = 0;
  for (size_t i = 1; i < n; i++) {
    if (i < right) z[i] = std::min(right - i, z[i - left]);
    while (i + z[i] < n && at(z[i]) == at(i + z[i])) z[i]++;
    if (i + z[i] > right) {
      left = i;
      right = i + z[i];
    }
  }
  std::vector<size_t> out(text.size());
  for (size_t b = 0; b < text.size(); b++) out[b] = std::min(z[np + b], np);
  return out;
}

}  // namespace

bool BatchScheduler::CanShift(const ContextState& state) {
  const llama_model* model = state.model->model;
  if (llama_model_is_recurrent(model) || llama_model_is_hybrid(model)) return false;
  return llama_memory_can_shift(llama_get_memory(state.ctx));
}

BatchScheduler::ShiftPlan BatchScheduler::PlanShift(const std::vector<llama_token>& cached,
                                                    const SequenceRequest& request, size_t keep) {
  const std::vector<llama_token>& prompt = request.prompt;
  ShiftPlan plan;
  // An image is kept whole or not at all: a head ending inside one ends before it.
  if (request.media) keep = request.media->SpanStart(keep);
  // The prompt's last token is always evaluated (its logits give the first token).
  if (keep + 1 >= prompt.size() || keep + 1 >= cached.size()) return plan;
  // The prompt after the kept head, against the cache after it: the tail starts past the dropped span.
  const std::vector<llama_token> rest(prompt.begin() + static_cast<std::ptrdiff_t>(keep), prompt.end() - 1);
  const std::vector<llama_token> after(cached.begin() + static_cast<std::ptrdiff_t>(keep + 1), cached.end());
  const std::vector<size_t> lengths = MatchLengths(rest, after);
  size_t best = 0;
  size_t start = 0;
  for (size_t i = 0; i < lengths.size(); i++) {
    if (lengths[i] > best) {
      best = lengths[i];
      start = keep + 1 + i;
    }
  }
  // Likewise a tail ending inside an image ends before it. (The tail starts where the head ends, off
  // any image; a placeholder's id says its image and its place in it, so the cache's image starts
  // there too.)
  if (request.media) best = std::max(request.media->SpanStart(keep + best), keep) - keep;
  if (best < kMinShiftedTokens) return plan;
  plan.from = keep;
  plan.to = start;
  plan.length = best;
  return plan;
}

bool BatchScheduler::CopyToShift(ContextState& state, Slot& slot, const SequenceRequest& request,
                                 size_t keep) {
  const size_t own = keep + PlanShift(slot.tokens, request, keep).length;
  const Slot* donor = nullptr;
  size_t best = own;
  for (const Slot& other : slots_) {
    if (&other == &slot || other.shift_pending) continue;
    const size_t shared = SharedPrefix(other.tokens, request.prompt);
    const size_t length = PlanShift(other.tokens, request, shared).length;
    if (length > 0 && shared + length > best) {
      donor = &other;
      best = shared + length;
    }
  }
  if (donor == nullptr || !CopyPays(state, donor->tokens.size(), best - own)) return false;
  return CopyCache(state, *donor, slot, donor->tokens.size());
}

size_t BatchScheduler::Shift(ContextState& state, Slot& slot, const ShiftPlan& plan) {
  llama_memory_t memory = llama_get_memory(state.ctx);
  const auto from = static_cast<llama_pos>(plan.from);
  const auto to = static_cast<llama_pos>(plan.to);
  const auto end = static_cast<llama_pos>(plan.to + plan.length);
  // What follows the kept tail, then the dropped span; the tail moves down to close the gap.
  if (!llama_memory_seq_rm(memory, slot.seq, end, -1) || !llama_memory_seq_rm(memory, slot.seq, from, to)) {
    llama_memory_seq_rm(memory, slot.seq, -1, -1);
    slot.tokens.clear();
    return 0;
  }
  llama_memory_seq_add(memory, slot.seq, to, end, from - to);
  slot.shift_pending = true;
  slot.tokens.erase(slot.tokens.begin() + end, slot.tokens.end());
  slot.tokens.erase(slot.tokens.begin() + from, slot.tokens.begin() + to);
  CountTokens(state);
  return slot.tokens.size();
}

}  // namespace toolwright
