#include "batch_scheduler.h"

#include <algorithm>
#include <tuple>
#include <utility>

#include "batch_add.h"
#include "context.h"
#include "error_codes.h"
#include "log_capture.h"
#include "vocab_ops.h"

namespace toolwright {

// ---- BatchScheduler ---------------------------------------------------------------------------

BatchScheduler::BatchScheduler(int32_t sequences) : slots_(static_cast<size_t>(std::max(1, sequences))) {
  for (size_t i = 0; i < slots_.size(); i++) slots_[i].seq = static_cast<llama_seq_id>(i);
}

BatchScheduler::~BatchScheduler() {
  FailAll(codes::kAbort, "the context was disposed");
  for (const std::shared_ptr<EventSink>& sink : ended_) sink->Close();
}

void BatchScheduler::Submit(const ContextPtr& state, RequestPtr request) {
  request->sampler->busy.store(true);
  bool post = false;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inflight_.push_back(request);
    waiting_.push_back(std::move(request));
    post = !round_posted_;
    round_posted_ = true;
  }
  if (post) {
    state->thread->Post([keep = state]() mutable { RunRound(std::move(keep)); });
  }
}

void BatchScheduler::PostLocked(const ContextPtr& state) {
  if (round_posted_) return;
  round_posted_ = true;
  state->thread->Post([keep = state]() mutable { RunRound(std::move(keep)); });
}

void BatchScheduler::Cancel(const ContextPtr& state, uint64_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const RequestPtr& r : inflight_) {
    if (r->id == id) {
      r->cancelled.store(true);
      PostLocked(state);  // a paused request ends too
    }
  }
}

void BatchScheduler::CancelAll(const ContextPtr& state) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const RequestPtr& r : inflight_) r->cancelled.store(true);
  if (!inflight_.empty()) PostLocked(state);
}

void BatchScheduler::Consumed(const ContextPtr& state, uint64_t id, int64_t tokens) {
  RequestPtr request;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (const RequestPtr& r : inflight_) {
      if (r->id == id) request = r;
    }
    if (!request) return;
    const bool was_full = request->window->Full();
    request->window->consumed.store(tokens);
    if (was_full) PostLocked(state);
  }
  request->events->SetReferenced(true);
}

size_t BatchScheduler::Pending() {
  std::lock_guard<std::mutex> lock(mutex_);
  return inflight_.size();
}

size_t BatchScheduler::Paused() {
  std::lock_guard<std::mutex> lock(mutex_);
  return static_cast<size_t>(std::count_if(inflight_.begin(), inflight_.end(),
                                           [](const RequestPtr& r) { return r->paused.load(); }));
}

bool BatchScheduler::WaitsForReader(const Slot& slot) {
  return slot.request && slot.pending.empty() && slot.next != LLAMA_TOKEN_NULL &&
         slot.request->window->Full();
}

bool BatchScheduler::RunnableLocked() const {
  bool free = false;
  for (const Slot& slot : slots_) {
    if (!slot.request) {
      free = true;
    } else if (slot.request->cancelled.load() || !WaitsForReader(slot)) {
      return true;
    }
  }
  for (const RequestPtr& r : waiting_) {
    if (free || r->cancelled.load()) return true;
  }
  return false;
}

void BatchScheduler::RunRound(ContextPtr state) {
  BatchScheduler& self = *state->scheduler;
  self.Round(*state);
  std::vector<std::shared_ptr<EventSink>> ended;
  {
    // Another round while one can do anything; else the next Submit, Consumed or Cancel posts it
    // (the check and those share mutex_, so none is missed). Each queued job holds the context,
    // so a dispose() meanwhile only aborts it.
    std::lock_guard<std::mutex> lock(self.mutex_);
    self.round_posted_ = false;
    if (state->abort.load() ? !self.inflight_.empty() : self.RunnableLocked()) self.PostLocked(state);
    ended.swap(self.ended_);
  }
  // The round lets go of the context before its requests' readers learn they ended: a dispose()
  // right after frees the context (and its model) at once, not later on this thread.
  state.reset();
  for (const std::shared_ptr<EventSink>& sink : ended) sink->Close();
}

void BatchScheduler::Round(ContextState& state) {
  std::lock_guard<std::mutex> slots_lock(slots_mutex_);
  if (state.abort.load()) {  // dispose() or the environment stopping
    FailAll(codes::kAbort, "the context was disposed");
    return;
  }
  for (Slot& slot : slots_) {
    if (slot.request && slot.request->cancelled.load()) {
      TrimToReader(state, slot);
      Finish(slot, "abort");
    }
  }
  TakeWaiting(state);
  DecodeMedia(state);
  if (Decode(state)) {
    SampleRows(state);
    DraftAll(state);
  }
  for (const Slot& slot : slots_) {
    if (slot.request) slot.request->paused.store(WaitsForReader(slot));
  }
}

void BatchScheduler::TakeWaiting(ContextState& state) {
  // Cancelled requests leave the queue at once, wherever they wait in it.
  std::vector<RequestPtr> cancelled;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto it = waiting_.begin(); it != waiting_.end();) {
      if ((*it)->cancelled.load()) {
        cancelled.push_back(std::move(*it));
        it = waiting_.erase(it);
      } else {
        ++it;
      }
    }
  }
  for (const RequestPtr& gone : cancelled) End(gone, "abort");  // End() takes the lock
  for (;;) {
    RequestPtr request;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (waiting_.empty()) return;
      const bool free = std::any_of(slots_.begin(), slots_.end(), [](const Slot& s) { return !s.request; });
      if (!free) return;
      request = std::move(waiting_.front());
      waiting_.pop_front();
    }
    Slot& slot = ChooseSlot(state, *request);
    Assign(state, slot, std::move(request));
  }
}

namespace {

// Prompt tokens before the first image placeholder of `pending`.
size_t TextAhead(const std::vector<llama_token>& pending) {
  return static_cast<size_t>(std::find_if(pending.begin(), pending.end(), IsPlaceholder) - pending.begin());
}

}  // namespace

int BatchScheduler::AddedRuns(size_t k) const {
  const bool left = k > 0 && slots_[k - 1].request;
  const bool right = k + 1 < slots_.size() && slots_[k + 1].request;
  return 1 - (left ? 1 : 0) - (right ? 1 : 0);
}

BatchScheduler::Slot& BatchScheduler::ChooseSlot(const ContextState& state, const SequenceRequest& request) {
  const std::vector<llama_token>& prompt = request.prompt;
  // A prompt that drops a span of a slot's cache keeps what a shift keeps there.
  const bool shift = request.reuse_prefix && request.shift && CanShift(state);
  // A prefix left on another slot is copied over (CopyPrefix) where the model allows it, so
  // packing comes first; a recurrent model's state cannot be copied, so its prefix comes first.
  const llama_model* model = state.model->model;
  const bool copyable = !llama_model_is_recurrent(model) && !llama_model_is_hybrid(model);
  // Greater is better.
  using Rank = std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, uint64_t>;
  Slot* best = nullptr;
  Rank best_rank;
  for (size_t k = 0; k < slots_.size(); k++) {
    Slot& slot = slots_[k];
    if (slot.request) continue;
    size_t common = 0;
    const size_t limit = std::min(slot.tokens.size(), prompt.size());
    while (common < limit && slot.tokens[common] == prompt[common]) common++;
    if (shift) common += PlanShift(slot.tokens, request, common).length;
    // A prompt that goes on from everything the slot holds (a conversation's next turn) takes it. An
    // empty slot comes next: it holds no one's cache, and a prefix held elsewhere is copied over. Then a
    // slot whose last prompt shares at least half with this one (its answer is not counted: another
    // request rarely starts with it), the longest such prefix first. A prefix of over a tenth of the
    // prompt breaks the remaining ties before recency, as llama-server's most-similar slot does: where
    // every slot holds the same system prompt, the one that also holds the start of the message is
    // taken, and otherwise the least recently used.
    const bool counts = request.reuse_prefix && common * 10 > prompt.size();
    const int64_t longer = counts ? static_cast<int64_t>(common) : 0;
    const bool continues = counts && common >= slot.tokens.size();
    const size_t held = std::min(slot.prompt_end, slot.tokens.size());
    const int64_t prefix = common * 2 < held ? 0 : longer;
    const int64_t packing = -AddedRuns(k);
    const bool empty = slot.tokens.empty();
    const uint64_t unused_for = ~slot.last_used;  // the least recently used ranks highest
    const Rank rank = copyable ? Rank(packing, continues, empty, prefix, longer, unused_for)
                               : Rank(continues, prefix, packing, empty, longer, unused_for);
    if (best == nullptr || rank > best_rank) {
      best = &slot;
      best_rank = rank;
    }
  }
  return *best;
}

void BatchScheduler::Assign(ContextState& state, Slot& slot, RequestPtr request) {
  const std::vector<llama_token>& prompt = request->prompt;
  size_t keep = 0;
  size_t shifted = 0;
  if (request->reuse_prefix) {
    keep = SharedPrefix(slot.tokens, prompt);
    const bool shift = request->shift && CanShift(state);
    // Another sequence holds more of the prompt (a system prompt shared by requests that landed
    // on other sequences, or a conversation a shift keeps): start from a copy of its cache instead
    // of evaluating that again.
    if (shift && CopyToShift(state, slot, *request, keep)) {
      keep = SharedPrefix(slot.tokens, prompt);
    } else if (CopyPrefix(state, slot, prompt, keep)) {
      keep = slot.tokens.size();
    }
    keep = std::min(keep, slot.tokens.size());  // a copy that failed left the slot empty
    // An image is in the cache whole or not at all: a match that ends inside one starts before it.
    if (request->media) keep = request->media->SpanStart(keep);
    // The prompt drops a span of the cache (a chat that left its oldest turns out): shift the rest.
    if (shift) {
      const ShiftPlan plan = PlanShift(slot.tokens, *request, keep);
      if (plan.length > 0) {
        shifted = plan.length;
        keep = Shift(state, slot, plan);
        if (keep == 0) shifted = 0;
      }
    }
  }
  llama_memory_t memory = llama_get_memory(state.ctx);
  if (keep < slot.tokens.size()) {
    if (!llama_memory_seq_rm(memory, slot.seq, static_cast<llama_pos>(keep), -1)) {
      llama_memory_seq_rm(memory, slot.seq, -1, -1);  // recurrent models cannot drop a partial sequence
      keep = 0;
    }
    slot.tokens.resize(keep);
  }
  slot.pending.assign(prompt.begin() + static_cast<std::ptrdiff_t>(keep), prompt.end());
  slot.prompt_end = prompt.size();
  slot.next = LLAMA_TOKEN_NULL;
  slot.forced.clear();
  slot.drafted.clear();
  slot.checking.clear();
  slot.draft_budget = 0;
  slot.forced_budget = kFirstForcedRun;
  slot.forced_debt = 0;
  slot.forced_pause = 0;
  slot.generated = 0;
  slot.row = -1;
  slot.last_used = ++assigned_;
  SequenceEvent start;
  start.kind = SequenceEvent::kStart;
  start.sequence = slot.seq;
  start.reused = keep;
  start.shifted = shifted;
  start.evaluated = slot.pending.size();
  request->events->Send(std::move(start));
  slot.request = std::move(request);
}

// One batch: every generating slot's sampled token (one each), and prompt chunks in the room left,
// in sequence order. Returns false when nothing was decoded (every request in it ended).
bool BatchScheduler::Decode(ContextState& state) {
  llama_batch& batch = state.batch;
  const int32_t capacity = state.batch_capacity;
  batch.n_tokens = 0;

  // What goes in: every generating slot's token first, then prompt chunks in the room left.
  std::vector<size_t> chunk(slots_.size(), 0);  // prompt tokens of each slot in this batch
  std::vector<bool> decodes(slots_.size(), false);
  int32_t used = 0;
  for (size_t k = 0; k < slots_.size(); k++) {
    Slot& slot = slots_[k];
    const int32_t sure = 1 + static_cast<int32_t>(slot.forced.size());
    // Drafts are only guesses: cut to the room left rather than keep the slot out of this batch.
    if (capacity - used - sure < static_cast<int32_t>(slot.drafted.size()))
      slot.drafted.resize(static_cast<size_t>(std::max(0, capacity - used - sure)));
    const int32_t n = sure + static_cast<int32_t>(slot.drafted.size());
    if (slot.request && slot.next != LLAMA_TOKEN_NULL && !WaitsForReader(slot) && used + n <= capacity) {
      decodes[k] = true;
      used += n;
    }
  }
  for (size_t k = 0; k < slots_.size(); k++) {
    const Slot& slot = slots_[k];
    if (!slot.request || slot.pending.empty()) continue;
    chunk[k] = std::min(TextAhead(slot.pending), static_cast<size_t>(capacity - used));
    if (chunk[k] == 0 && IsPlaceholder(slot.pending.front())) continue;  // an image: DecodeMedia's
    if (chunk[k] == 0) break;
    used += static_cast<int32_t>(chunk[k]);
  }
  // Then in sequence order: llama.cpp splits a batch over per-sequence caches into micro-batches of
  // consecutive sequence ids taken in batch order, so a prompt that fills a gap between generating
  // sequences joins their micro-batch only where it lies between them in the batch too.
  for (size_t k = 0; k < slots_.size(); k++) {
    Slot& slot = slots_[k];
    slot.row = -1;
    if (decodes[k]) AddRun(batch, slot);
    for (size_t i = 0; i < chunk[k]; i++) {
      const bool last = i + 1 == chunk[k] && chunk[k] == slot.pending.size() && slot.request->max_tokens != 0;
      const int32_t row = BatchAdd(batch, slot.pending[i], slot.tokens.size() + i, slot.seq, last);
      if (last) slot.row = row;
    }
  }
  if (batch.n_tokens == 0) return false;

  NoteDecodeThread(state);
  state.reference_kernels.Use(KernelsFor(decodes, chunk));
  batch_requests_.clear();
  for (size_t k = 0; k < slots_.size(); k++) {
    if (decodes[k] || chunk[k] > 0) batch_requests_.push_back(slots_[k].request.get());
  }
  ScopedLogCapture capture;
  const int32_t status = llama_decode(state.ctx, batch);
  batch_requests_.clear();
  llama_memory_t memory = llama_get_memory(state.ctx);
  if (status != 0) {
    // Drop what part of this batch made it into the cache, so each slot's tokens stay the truth.
    for (Slot& slot : slots_) {
      if (slot.request) llama_memory_seq_rm(memory, slot.seq, static_cast<llama_pos>(slot.tokens.size()), -1);
    }
    if (status == 2 && state.abort.load()) {
      FailAll(codes::kAbort, "the context was disposed");
    } else if (status == 2) {
      // Every request of the batch was cancelled (AbortBatch): they end, the others go on.
      for (Slot& slot : slots_) {
        if (slot.request && slot.request->cancelled.load()) {
          TrimToReader(state, slot);
          Finish(slot, "abort");
        }
      }
    } else if (status == 1) {
      // No room left in the shared cache: the longest running sequence ends, the others go on.
      Slot* longest = nullptr;
      for (Slot& slot : slots_) {
        if (slot.request && (longest == nullptr || slot.tokens.size() > longest->tokens.size()))
          longest = &slot;
      }
      if (longest != nullptr) Finish(*longest, "contextFull");
    } else {
      const std::string reason = capture.Reason();
      FailAll(codes::kDecodeFailed, "llama_decode failed (returned " + std::to_string(status) + ")" +
                                        (reason.empty() ? "" : ": " + reason));
    }
    return false;
  }
  for (size_t k = 0; k < slots_.size(); k++) {
    Slot& slot = slots_[k];
    if (!slot.request) continue;
    if (decodes[k] || chunk[k] > 0) slot.request->passes++;
    if (slot.next != LLAMA_TOKEN_NULL && slot.row >= 0 && chunk[k] == 0) {
      TookRun(state, slot);
    }
    if (chunk[k] > 0) {
      slot.tokens.insert(slot.tokens.end(), slot.pending.begin(),
                         slot.pending.begin() + static_cast<std::ptrdiff_t>(chunk[k]));
      slot.pending.erase(slot.pending.begin(), slot.pending.begin() + static_cast<std::ptrdiff_t>(chunk[k]));
      if (slot.pending.empty() && slot.request->max_tokens == 0) Finish(slot, "maxTokens");  // prefill only
    }
  }
  ShiftsApplied();
  CountTokens(state);
  state.evaluated_tokens += static_cast<uint64_t>(batch.n_tokens);
  return true;
}

void BatchScheduler::SampleRows(ContextState& state) {
  for (Slot& slot : slots_) {
    if (!slot.request || slot.row < 0) continue;
    if (!slot.checking.empty() && !CheckAhead(state, slot)) continue;
    const llama_token token = SampleRow(state, slot, slot.row);
    if (token != LLAMA_TOKEN_NULL) TakeSampled(state, slot, token, false);
  }
}

llama_token BatchScheduler::SampleRow(ContextState& state, Slot& slot, int32_t row) {
  std::string error;
  ScopedLogCapture capture;
  const llama_token token = slot.request->sampler->Sample(state.ctx, &error, row);
  if (token == LLAMA_TOKEN_NULL) {
    const std::string reason = capture.Reason();
    Finish(slot, "", codes::kSampleFailed, error + (reason.empty() ? "" : ": " + reason));
    return LLAMA_TOKEN_NULL;
  }
  state.sampled_tokens++;
  return token;
}

void BatchScheduler::TakeSampled(ContextState& state, Slot& slot, llama_token token, bool forced) {
  SendToken(state, slot, token, forced);
  if (llama_vocab_is_eog(state.model->vocab, token)) {
    Finish(slot, "eog");
  } else if (slot.request->max_tokens >= 0 && slot.generated >= slot.request->max_tokens) {
    Finish(slot, "maxTokens");
  } else if (slot.tokens.size() + 1 > state.n_ctx) {
    Finish(slot, "contextFull");  // no room to decode this token for the next one
  } else {
    slot.next = token;
    ForceAhead(state, slot);
    slot.wants_draft = slot.request != nullptr;
  }
}

bool BatchScheduler::AbortBatch() const {
  if (batch_requests_.empty()) return false;
  return std::all_of(batch_requests_.begin(), batch_requests_.end(),
                     [](const SequenceRequest* r) { return r->cancelled.load(std::memory_order_relaxed); });
}

void BatchScheduler::NoteDecodeThread(ContextState& state) {
  const std::thread::id self = std::this_thread::get_id();
  if (std::find(decode_thread_ids_.begin(), decode_thread_ids_.end(), self) != decode_thread_ids_.end())
    return;
  decode_thread_ids_.push_back(self);
  state.decode_threads.store(static_cast<uint32_t>(decode_thread_ids_.size()));
}

void BatchScheduler::CountTokens(ContextState& state) const {
  size_t cached = 0;
  for (const Slot& slot : slots_) cached += slot.tokens.size();
  state.n_tokens.store(cached);
}

void BatchScheduler::TrimToReader(ContextState& state, Slot& slot) {
  const SequenceRequest& request = *slot.request;
  const size_t keep =
      request.prompt.size() + static_cast<size_t>(std::max<int64_t>(0, request.window->consumed));
  if (!slot.pending.empty() || slot.tokens.size() <= keep) return;
  // A model that cannot drop part of a sequence keeps the tokens: they are in its cache.
  if (!llama_memory_seq_rm(llama_get_memory(state.ctx), slot.seq, static_cast<llama_pos>(keep), -1)) return;
  slot.tokens.resize(keep);
  CountTokens(state);
}

}  // namespace toolwright
