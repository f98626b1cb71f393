// The BatchScheduler's saved-state jobs: one sequence's KV state out of and into the context, with
// the token history that prompt-prefix reuse compares new prompts with.
#include <algorithm>
#include <cstdint>
#include <string>

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

}  // namespace toolwright
