// The BatchScheduler's jobs on the cache between rounds: one sequence's KV state out of and into the context,
// with the token history that prompt-prefix reuse compares new prompts with, and a single-sequence context's
// append, clear and truncate.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "batch_scheduler.h"
#include "context.h"
#include "error_codes.h"
#include "log_capture.h"

namespace toolwright {
namespace {

bool Refuse(std::string* code, std::string* error, const char* c, const std::string& message) {
  *code = c;
  *error = message;
  return false;
}

}  // namespace

bool BatchScheduler::Idle() {
  std::lock_guard<std::mutex> lock(mutex_);
  return inflight_.empty();
}

bool BatchScheduler::SaveSequence(ContextState& state, llama_seq_id seq, SequenceState* out,
                                  std::string* code, std::string* error) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  if (seq < 0) {
    seq = std::max_element(slots_.begin(), slots_.end(), [](const Slot& a, const Slot& b) {
            return a.last_used < b.last_used;
          })->seq;
  }
  if (seq >= static_cast<llama_seq_id>(slots_.size()))
    return Refuse(code, error, "", "sequence " + std::to_string(seq) + " does not exist");
  const Slot& slot = slots_[static_cast<size_t>(seq)];
  if (slot.request) {
    return Refuse(code, error, codes::kContextBusy,
                  "a generation is running on sequence " + std::to_string(seq) + "; save it when it ends");
  }
  out->seq = seq;
  out->tokens = slot.tokens;
  ScopedLogCapture capture;
  const size_t size = llama_state_seq_get_size(state.ctx, seq);
  out->data.resize(size);
  const size_t written = size == 0 ? 0 : llama_state_seq_get_data(state.ctx, out->data.data(), size, seq);
  if (written == 0 || written > size) {
    const std::string reason = capture.Reason();
    return Refuse(code, error, codes::kInternal,
                  "llama_state_seq_get_data failed" + (reason.empty() ? std::string() : ": " + reason));
  }
  out->data.resize(written);
  return true;
}

bool BatchScheduler::RestoreSequence(ContextState& state, SequenceState* in, std::string* code,
                                     std::string* error) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  if (in->seq < 0) {
    const Slot* oldest = nullptr;
    for (const Slot& slot : slots_) {
      if (!slot.request && (oldest == nullptr || slot.last_used < oldest->last_used)) oldest = &slot;
    }
    if (oldest == nullptr)
      return Refuse(code, error, codes::kContextBusy, "every sequence is running a generation");
    in->seq = oldest->seq;
  }
  if (in->seq >= static_cast<llama_seq_id>(slots_.size()))
    return Refuse(code, error, "", "sequence " + std::to_string(in->seq) + " does not exist");
  Slot& slot = slots_[static_cast<size_t>(in->seq)];
  if (slot.request) {
    return Refuse(
        code, error, codes::kContextBusy,
        "a generation is running on sequence " + std::to_string(in->seq) + "; load it when it ends");
  }
  if (in->tokens.size() > state.n_ctx) {
    return Refuse(code, error, codes::kStateMismatch,
                  "the state holds " + std::to_string(in->tokens.size()) +
                      " tokens, more than the context size " + std::to_string(state.n_ctx));
  }
  llama_memory_t memory = llama_get_memory(state.ctx);
  llama_memory_seq_rm(memory, slot.seq, -1, -1);
  slot.tokens.clear();
  CountTokens(state);
  ScopedLogCapture capture;
  const size_t read = llama_state_seq_set_data(state.ctx, in->data.data(), in->data.size(), slot.seq);
  // The state's cells must be exactly the positions of its tokens, or prefix reuse would trust
  // a cache that does not hold what the history says.
  const llama_pos last = llama_memory_seq_pos_max(memory, slot.seq);
  if (read == 0 || read != in->data.size() ||
      static_cast<int64_t>(last) + 1 != static_cast<int64_t>(in->tokens.size())) {
    llama_memory_seq_rm(memory, slot.seq, -1, -1);
    const std::string reason = capture.Reason();
    std::string what = read == 0
                           ? "llama_state_seq_set_data refused it"
                           : "its KV cells do not match its " + std::to_string(in->tokens.size()) + " tokens";
    return Refuse(code, error, codes::kStateInvalid, what + (reason.empty() ? "" : ": " + reason));
  }
  slot.tokens = in->tokens;
  slot.prompt_end = slot.tokens.size();  // all of it counts as prompt (ChooseSlot)
  slot.last_used = ++assigned_;
  CountTokens(state);
  return true;
}

bool BatchScheduler::Append(ContextState& state, const std::vector<llama_token>& input, std::string* code,
                            std::string* error) {
  if (input.empty()) return true;
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  Slot& slot = slots_[0];
  if (slot.tokens.size() + input.size() > state.n_ctx) {
    *code = codes::kContextFull;
    *error = "the context is full: " + std::to_string(slot.tokens.size()) + " tokens in it + " +
             std::to_string(input.size()) + " new > contextSize " + std::to_string(state.n_ctx);
    return false;
  }
  NoteDecodeThread(state);
  state.reference_kernels.Use(KernelChoice::kFast);  // a prompt (reference_kernels.h)
  llama_batch& batch = state.batch;
  llama_memory_t memory = llama_get_memory(state.ctx);
  const size_t capacity = static_cast<size_t>(state.batch_capacity);
  for (size_t start = 0; start < input.size(); start += capacity) {
    const size_t n = std::min(input.size() - start, capacity);
    const size_t base = slot.tokens.size();
    batch.n_tokens = static_cast<int32_t>(n);
    for (size_t i = 0; i < n; i++) {
      batch.token[i] = input[start + i];
      batch.pos[i] = static_cast<llama_pos>(base + i);
      batch.n_seq_id[i] = 1;
      batch.seq_id[i][0] = slot.seq;
      batch.logits[i] = 0;  // nothing samples from them: a generation decodes its last prompt token itself
    }
    ScopedLogCapture capture;
    const int32_t status = llama_decode(state.ctx, batch);
    if (status != 0) {
      llama_memory_seq_rm(memory, slot.seq, static_cast<llama_pos>(base), -1);
      const std::string reason = capture.Reason();
      if (status == 2) {
        *code = codes::kAbort;
        *error = "decoding was aborted";
      } else if (status == 1) {
        *code = codes::kContextFull;
        *error = "no room in the KV cache for the batch (llama_decode returned 1)";
      } else {
        *code = codes::kDecodeFailed;
        *error = "llama_decode failed (returned " + std::to_string(status) + ")" +
                 (reason.empty() ? "" : ": " + reason);
      }
      return false;
    }
    ShiftsApplied();
    slot.tokens.insert(slot.tokens.end(), input.begin() + static_cast<std::ptrdiff_t>(start),
                       input.begin() + static_cast<std::ptrdiff_t>(start + n));
    slot.prompt_end = slot.tokens.size();  // appended text counts as prompt (ChooseSlot)
    CountTokens(state);
    state.evaluated_tokens += n;
  }
  return true;
}

void BatchScheduler::Clear(ContextState& state) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  llama_memory_clear(llama_get_memory(state.ctx), false);  // metadata only: zeroing a large cache costs ms
  for (Slot& slot : slots_) slot.tokens.clear();
  state.n_tokens.store(0);
}

bool BatchScheduler::Truncate(ContextState& state, size_t keep) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  Slot& slot = slots_[0];
  if (keep >= slot.tokens.size()) return true;
  if (!llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, static_cast<llama_pos>(keep), -1))
    return false;
  slot.tokens.resize(keep);
  CountTokens(state);
  return true;
}

bool BatchScheduler::TrimUntaken(ContextState& state, uint64_t id, int64_t taken) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  for (Slot& slot : slots_) {
    if (slot.request || id == 0 || slot.ended_id != id || slot.tokens.size() != slot.ended_len) continue;
    slot.ended_id = 0;
    const int64_t drop = slot.ended_decoded - std::min(std::max<int64_t>(0, taken), slot.ended_decoded);
    if (drop <= 0 || static_cast<size_t>(drop) > slot.tokens.size()) return true;
    const size_t keep = slot.tokens.size() - static_cast<size_t>(drop);
    if (!llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, static_cast<llama_pos>(keep), -1))
      return false;
    slot.tokens.resize(keep);
    CountTokens(state);
    return true;
  }
  return false;
}

std::vector<llama_token> BatchScheduler::Tokens() {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  return slots_[0].tokens;
}

}  // namespace toolwright
