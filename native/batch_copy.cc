// A request that lands on one sequence while another sequence's cache holds more of its prompt (a system
// prompt shared by requests on different sequences) starts from a copy of that prefix instead of evaluating
// it.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "batch_scheduler.h"
#include "context.h"
#include "log_capture.h"

namespace toolwright {

size_t BatchScheduler::SharedPrefix(const std::vector<llama_token>& cached,
                                    const std::vector<llama_token>& prompt) {
  const size_t limit = std::min(cached.size(), prompt.size() - 1);
  size_t n = 0;
  while (n < limit && cached[n] == prompt[n]) n++;
  return n;
}

namespace {

// The sequence-state API writes a sliding-window cache's cells within the window of the sequence's last
// position only: a copy cut back to a prefix would miss the cells before that.
bool StateHoldsEveryCell(const ContextState& state, size_t tokens) {
  const int32_t window = llama_model_n_swa(state.model->model);
  return window <= 0 || tokens < static_cast<size_t>(window);
}

// Sequence `from`'s cells into the empty sequence `to`, through the sequence-state API; false when refused.
bool CopyCells(llama_context* ctx, llama_seq_id from, llama_seq_id to) {
  ScopedLogCapture capture;  // a refusal is logged: keep it out of the app's log
  std::vector<uint8_t> cells(llama_state_seq_get_size(ctx, from));
  const size_t written = cells.empty() ? 0 : llama_state_seq_get_data(ctx, cells.data(), cells.size(), from);
  llama_memory_t memory = llama_get_memory(ctx);
  return written > 0 && written <= cells.size() &&
         llama_state_seq_set_data(ctx, cells.data(), written, to) == written &&
         llama_memory_seq_pos_max(memory, to) == llama_memory_seq_pos_max(memory, from);
}

}  // namespace

// The copy through the sequence-state API moves the donor's cells out and into the slot (twice its cache's
// bytes); llama_memory_seq_cp copies every cell of the slot's stream, and the decode after it reserves the
// worst-case graph again, which costs as much as a few prompt tokens. Evaluating a prompt token costs 2 FLOPs
// per parameter, and a CPU moves about 5 bytes in the time of a FLOP of evaluation. Recurrent and hybrid
// models keep a state, not a stream of cells, and are never copied.
bool BatchScheduler::CopyPays(const ContextState& state, size_t tokens, size_t saved) {
  const llama_model* model = state.model->model;
  if (llama_model_is_recurrent(model) || llama_model_is_hybrid(model)) return false;
  const double heads = std::max(1, llama_model_n_head(model));
  const double kv_per_token = 2.0 * 2.0 * llama_model_n_layer(model) * llama_model_n_embd(model) *
                              (llama_model_n_head_kv(model) / heads);  // K and V, F16
  const bool by_state = StateHoldsEveryCell(state, tokens);
  const double moved_bytes =
      by_state ? 2.0 * kv_per_token * static_cast<double>(tokens) : kv_per_token * state.n_ctx;
  const size_t least = by_state ? 1 : 8;
  return saved >= least && moved_bytes * 5.0 < static_cast<double>(saved) * llama_model_n_params(model);
}

bool BatchScheduler::CopyPrefix(ContextState& state, Slot& slot, const std::vector<llama_token>& prompt,
                                size_t keep) {
  const Slot* donor = nullptr;
  size_t best = keep;
  for (const Slot& other : slots_) {
    if (&other == &slot || other.shift_pending) continue;
    const size_t common = SharedPrefix(other.tokens, prompt);
    if (common > best) {
      donor = &other;
      best = common;
    }
  }
  if (donor == nullptr || !CopyPays(state, donor->tokens.size(), best - keep)) return false;
  return CopyCache(state, *donor, slot, best);
}

// Through the sequence-state API, which moves the donor's cells alone. llama_memory_seq_cp, between the
// per-sequence streams of a parallel context, copies the whole stream (every cell of the context size) and
// makes the next decode reserve its worst-case graph again: only where the state would leave cells out (its
// data then moves at the next decode, before that batch's tokens and a shift's positions go in).
bool BatchScheduler::CopyCache(ContextState& state, const Slot& donor, Slot& slot, size_t keep) {
  llama_memory_t memory = llama_get_memory(state.ctx);
  llama_memory_seq_rm(memory, slot.seq, -1, -1);
  slot.tokens.clear();
  bool copied = true;
  if (StateHoldsEveryCell(state, donor.tokens.size())) {
    copied = CopyCells(state.ctx, donor.seq, slot.seq);
  } else {
    llama_memory_seq_cp(memory, donor.seq, slot.seq, -1, -1);
  }
  if (!copied || !llama_memory_seq_rm(memory, slot.seq, static_cast<llama_pos>(keep), -1)) {
    llama_memory_seq_rm(memory, slot.seq, -1, -1);  // the slot evaluates its whole prompt instead
    CountTokens(state);
    return false;
  }
  slot.tokens.assign(donor.tokens.begin(), donor.tokens.begin() + static_cast<std::ptrdiff_t>(keep));
  CountTokens(state);
  return true;
}

void BatchScheduler::ShiftsApplied() {
  for (Slot& slot : slots_) slot.shift_pending = false;
}

}  // namespace toolwright
