// BatchScheduler's images: a prompt's image is encoded by the projector (mtmd) and its embeddings
// decoded into the slot's sequence at the image's positions, in a decode of its own (a llama_batch
// carries tokens or embeddings, not both). The slot's cache then holds the image's placeholders,
// so a later prompt with the same image at the same place reuses it.
#include <mutex>
#include <string>

#include "batch_scheduler.h"
#include "context.h"
#include "error_codes.h"
#include "log_capture.h"
#include "mtmd-helper.h"

namespace toolwright {

void BatchScheduler::DecodeMedia(ContextState& state) {
  for (Slot& slot : slots_) {
    while (slot.request && !slot.pending.empty() && IsPlaceholder(slot.pending.front())) {
      if (!DecodeImage(state, slot)) break;
    }
  }
  CountTokens(state);
}

bool BatchScheduler::DecodeImage(ContextState& state, Slot& slot) {
  const RequestPtr request = slot.request;
  const size_t offset = request->prompt.size() - slot.pending.size();
  const MediaSpan* span = request->media ? request->media->At(offset) : nullptr;
  if (span == nullptr || span->length > slot.pending.size()) {
    Finish(slot, "", codes::kInternal,
           "an image placeholder at prompt position " + std::to_string(offset) +
               " belongs to no image of the prompt");
    return false;
  }
  ProjectorState& projector = *request->media->projector;
  const auto pos = static_cast<llama_pos>(slot.tokens.size());
  std::lock_guard<std::mutex> lock(projector.encode_mutex);
  ScopedLogCapture capture;
  if (mtmd_encode_chunk(projector.ctx, span->chunk.get()) != 0) {
    const std::string reason = capture.Reason();
    Finish(slot, "", codes::kMediaInvalid,
           "the projector could not encode image " + span->id + (reason.empty() ? "" : ": " + reason) +
               " (mtmd_encode_chunk failed)");
    return false;
  }
  NoteDecodeThread(state);
  state.reference_kernels.Use(KernelChoice::kFast);  // a prompt (reference_kernels.h)
  batch_requests_.assign(1, request.get());
  llama_pos next = pos;
  const int32_t status = mtmd_helper_decode_image_chunk(projector.ctx, state.ctx, span->chunk.get(),
                                                        mtmd_get_output_embd(projector.ctx), pos, slot.seq,
                                                        state.batch_capacity, &next, nullptr, nullptr);
  batch_requests_.clear();
  if (status != 0) {
    llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, pos, -1);
    if (status == 2) {
      TrimToReader(state, slot);
      Finish(slot, "abort");
    } else if (status == 1) {
      Finish(slot, "contextFull");
    } else {
      const std::string reason = capture.Reason();
      Finish(slot, "", codes::kDecodeFailed,
             "llama_decode failed on an image (returned " + std::to_string(status) + ")" +
                 (reason.empty() ? "" : ": " + reason));
    }
    return false;
  }
  ShiftsApplied();
  const auto length = static_cast<std::ptrdiff_t>(span->length);
  slot.tokens.insert(slot.tokens.end(), slot.pending.begin(), slot.pending.begin() + length);
  slot.pending.erase(slot.pending.begin(), slot.pending.begin() + length);
  state.evaluated_tokens += span->length;
  return true;
}

}  // namespace toolwright
