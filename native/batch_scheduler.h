// BatchScheduler: every generation of a context runs here, one per sequence, with continuous
// batching; a context of one sequence is the case of a single slot.
//
// Each generation (a request: prompt, its own sampler with its grammar, max tokens) takes one of
// the context's sequences (a slot). On the context's thread, each round builds ONE llama_batch of
// every active slot's next token plus prompt chunks of the slots still evaluating their prompt,
// decodes it, and samples each slot from its own logits row. A request submitted while others run
// joins at the next round; a finished one leaves its slot free for a waiting request. A new
// request takes a free slot next to the running ones (ChooseSlot: the running sequences stay on
// consecutive ids, which llama.cpp decodes in one micro-batch), then one whose cache its prompt
// continues, an empty one, the one sharing the longest prefix, the least recently used. A free slot keeps its
// tokens in the cache (prefix reuse per slot); when another slot holds a longer prefix (an earlier turn left
// apart, a system prompt shared by requests on other slots), the new request's slot starts from a copy of it.
// A request that allows it keeps a cached tail past a dropped span by shifting it (a context shift,
// batch_shift.cc).
//
// Results go back through each request's thread-safe function, called from the context's thread
// without blocking: no libuv pool thread waits for a generation, so the number of concurrent
// generations is not capped by UV_THREADPOOL_SIZE, and the next token is decoded while JS handles
// this one.
//
// A cancelled request whose tokens are all in the batch being decoded stops that decode at the
// next graph node (AbortBatch, llama.cpp's abort callback). A request's end event is sent once the
// round has let go of the context, so a dispose() when it arrives frees the context at once. When it ends,
// its sequence keeps the prompt and the tokens its reader took: what was generated ahead of the reader is
// dropped.
//
// Backpressure: a request runs at most `read_ahead` tokens ahead of what its reader has taken
// (JS reports each token it takes with Consumed()). A reader that stops reading pauses its
// sequence (left out of the batches, its slot kept) instead of generating to maxTokens unread; a
// paused request's thread-safe function is unreferenced, so it keeps no process alive. Reading
// again resumes it. A round is posted only while some request can run.
#pragma once

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "llama.h"
#include "projector.h"
#include "reference_kernels.h"
#include "sampler.h"
#include "sequence_events.h"

namespace toolwright {

struct ContextState;
using ContextPtr = std::shared_ptr<ContextState>;

// One generation on a context. Built on the main thread; then the context's thread owns it.
struct SequenceRequest {
  uint64_t id = 0;
  SamplerPtr sampler;  // marked busy while the request runs
  std::vector<llama_token> prompt;
  // The images of `prompt` (its placeholder tokens), or null for a text prompt.
  MediaPromptPtr media;
  int64_t max_tokens = -1;  // -1: until the sequence's room runs out
  bool reuse_prefix = true;
  // Whether a prompt that is the cache with a span removed may keep the cached tail by shifting it.
  bool shift = false;
  std::shared_ptr<EventSink> events;  // closed after the kEnd event
  std::shared_ptr<ReadWindow> window = std::make_shared<ReadWindow>();
  uint64_t passes = 0;          // decode passes it took part in (context's thread)
  uint64_t drafted = 0;         // drafted tokens decoded for it (context's thread)
  uint64_t accepted = 0;        // of those, the ones its picks agreed with (context's thread)
  uint64_t dropped_forced = 0;  // checked forced tokens its picks did not agree with (context's thread)
  std::atomic<bool> cancelled{false};
  std::atomic<bool> paused{false};  // waiting for its reader after the last round
  std::atomic<bool> ended{false};   // its end was decided (by the round, or by FailLost)
};
using RequestPtr = std::shared_ptr<SequenceRequest>;

// One sequence's KV state as llama.cpp serializes it, and the tokens it holds (saved sessions).
struct SequenceState {
  llama_seq_id seq = 0;
  std::vector<llama_token> tokens;
  std::vector<uint8_t> data;
};

class BatchScheduler {
 public:
  explicit BatchScheduler(int32_t sequences);
  // Ends every request still here (abort), so no thread-safe function stays referenced.
  ~BatchScheduler();
  BatchScheduler(const BatchScheduler&) = delete;
  BatchScheduler& operator=(const BatchScheduler&) = delete;

  // Main thread: queues a request and makes sure a round is scheduled on the context's thread.
  void Submit(const ContextPtr& state, RequestPtr request);
  // Main thread: the request ends (stop reason "abort") at the next round. Unknown ids are ignored.
  void Cancel(const ContextPtr& state, uint64_t id);
  // Main thread: every request queued or running ends with "abort".
  void CancelAll(const ContextPtr& state);
  // Main thread: the reader of request `id` has taken `tokens` token events; a request paused
  // for it runs again. Unknown ids are ignored.
  void Consumed(const ContextPtr& state, uint64_t id, int64_t tokens);
  // Requests queued or running (any thread).
  size_t Pending();
  // Running requests paused because their reader is behind (any thread).
  size_t Paused();
  // Any thread, once an RPC server of the model was lost (rpc.h): every request queued or running
  // ends with TOOLWRIGHT_RPC_LOST now, since the round waiting on that server never returns.
  void FailLost(const std::string& message);
  // llama.cpp's abort callback (any thread of the decode): every request in the batch being
  // decoded is cancelled. Never true between batches.
  bool AbortBatch() const;

  // The single-sequence API (sequence 0; batch_scheduler_state.cc), while no request runs; JS and Context
  // refuse these while one does. Context's thread: appends `input` to the cache in batches; on failure the
  // cache is left as the successfully decoded batches made it. Returns false with a code and message.
  bool Append(ContextState& state, const std::vector<llama_token>& input, std::string* code,
              std::string* error);
  // Main thread (they wait for a round's tail): empties sequence 0; keeps its first `keep` tokens
  // (false, and nothing changed, when the model cannot drop part of a sequence); its tokens.
  void Clear(ContextState& state);
  bool Truncate(ContextState& state, size_t keep);
  // Main thread: request `id` ended on its own (eog, maxTokens, a full context) before its reader, which took
  // `taken` of its tokens and then stopped (a stop string, a break), cancelled it; its sequence drops the
  // tokens the reader never took, unless another request has used it since. Waits for a round's tail, as
  // Truncate does; only a reader that fell behind to the very end gets here.
  bool TrimUntaken(ContextState& state, uint64_t id, int64_t taken);
  std::vector<llama_token> Tokens();

  // Context's thread, between rounds (the jobs of setLoras and of saved states). Whether no
  // request runs or waits: a job posted now runs before any round a later Submit posts.
  bool Idle();
  // The state of sequence `seq` (< 0: the one that ran the latest request) with its tokens; fails
  // (false, code and message) while a request runs on it. In batch_scheduler_state.cc.
  bool SaveSequence(ContextState& state, llama_seq_id seq, SequenceState* out, std::string* code,
                    std::string* error);
  // Replaces sequence `in.seq` (< 0: the free one least recently used; set to the one taken) with
  // a saved state: its tokens become the sequence's history, so the next prompt starting with them
  // reuses them. On failure the sequence is left empty.
  bool RestoreSequence(ContextState& state, SequenceState* in, std::string* code, std::string* error);

 private:
  struct Slot {
    llama_seq_id seq = 0;
    std::vector<llama_token> tokens;      // this sequence's tokens in the cache, in order
    size_t prompt_end = 0;                // of those, how many its last request's prompt had (ChooseSlot)
    RequestPtr request;                   // null: free
    std::vector<llama_token> pending;     // prompt tokens still to decode
    llama_token next = LLAMA_TOKEN_NULL;  // sampled, to decode in the next round
    std::vector<llama_token> forced;      // forced tokens after `next`, decoded with it (batch_forced.cc)
    bool forced_checked = false;          // `forced` are reported once the model's own picks agree
    std::vector<llama_token> drafted;     // drafted tokens after `forced`, decoded with them (batch_draft.cc)
    std::vector<llama_token> checking;  // decoded tokens to check against the model's picks: forced, drafted
    size_t checking_forced = 0;         // how many of `checking` are forced tokens (the first ones)
    bool wants_draft = false;           // took a pick this round: DraftAll drafts after it
    size_t draft_budget = 0;  // most tokens the next draft may have (0: not set yet; batch_draft.cc)
    size_t forced_budget = kFirstForcedRun;  // most checked forced tokens in the next run (batch_draft.cc)
    size_t forced_debt = 0;   // checked forced tokens dropped, less those kept since (batch_draft.cc)
    size_t forced_pause = 0;  // picks left before the next checked run
    std::vector<int32_t> checking_rows;  // the logits row before each of them
    int64_t generated = 0;
    int32_t row = -1;        // this round's logits row, -1: none
    uint64_t last_used = 0;  // when it last took a request: ties go to the least recently used
    // Shifted positions its keys take at the next decode: until then its cache is no donor (CopyCache).
    bool shift_pending = false;
    // The request that last ended here on its own, the cache's length then, and how many of its token events
    // were decoded into it (all but the last, sampled and not decoded): TrimUntaken.
    uint64_t ended_id = 0;
    size_t ended_len = 0;
    int64_t ended_decoded = 0;
  };

  // Context's thread: one round, then another is posted while any request can run.
  static void RunRound(ContextPtr state);
  // Context's thread: one round (a batch of every request that can run).
  void Round(ContextState& state);
  // Context's thread, under mutex_: whether a round would do anything.
  bool RunnableLocked() const;
  // Main thread, under mutex_: makes sure a round is posted.
  void PostLocked(const ContextPtr& state);
  // Whether a slot's request waits for its reader (its prompt is evaluated, its window full).
  static bool WaitsForReader(const Slot& slot);
  void TakeWaiting(ContextState& state);
  // Runs of consecutive sequence ids that slot `k` taking a request adds to a batch (-1, 0 or 1).
  // llama.cpp decodes a batch over separate per-sequence caches in one micro-batch per run of
  // consecutive sequence ids, each a full pass over the weights: a request next to running ones
  // costs no extra pass, one placed apart costs a pass per round for as long as it runs.
  int AddedRuns(size_t k) const;
  // The free slot for a request (one is free): the one adding the fewest runs, then the one whose
  // cache shares the longest prefix with `prompt` (first, on a recurrent model, whose state cannot
  // be copied to another slot), then the least recently used (another conversation's cache
  // survives longest). A request that may shift counts what a shift would keep as its prefix.
  Slot& ChooseSlot(const ContextState& state, const SequenceRequest& request);
  void Assign(ContextState& state, Slot& slot, RequestPtr request);
  // Prompt tokens `cached` holds from the start, leaving the prompt's last one (its logits give the first
  // pick).
  static size_t SharedPrefix(const std::vector<llama_token>& cached, const std::vector<llama_token>& prompt);
  // Context's thread (batch_copy.cc): when another slot's cache holds more of `prompt` than the `keep`
  // tokens of `slot`'s, and copying it pays, makes `slot` a copy of that prefix. Returns whether it did.
  bool CopyPrefix(ContextState& state, Slot& slot, const std::vector<llama_token>& prompt, size_t keep);
  // Whether copying a cache of `tokens` costs less than evaluating the `saved` prompt tokens it spares.
  static bool CopyPays(const ContextState& state, size_t tokens, size_t saved);
  // Makes `slot`'s cache the first `keep` tokens of `donor`'s; false (and `slot` emptied) on failure.
  bool CopyCache(ContextState& state, const Slot& donor, Slot& slot, size_t keep);
  // After a decode: every pending shift has been applied.
  void ShiftsApplied();
  // A context shift (batch_shift.cc): the cache's span [from, to) is dropped and its next `length`
  // tokens (equal to the prompt's from `from`) move down to `from`. length 0: none.
  struct ShiftPlan {
    size_t from = 0;
    size_t to = 0;
    size_t length = 0;
  };
  // Whether the context's cache can drop a middle span and move what follows (not recurrent or hybrid).
  static bool CanShift(const ContextState& state);
  // The shift that keeps the most of `cached` after its first `keep` tokens (the prompt's too), or none.
  static ShiftPlan PlanShift(const std::vector<llama_token>& cached, const SequenceRequest& request,
                             size_t keep);
  // Context's thread (a request that may shift): when another slot's cache keeps more of the prompt,
  // by its prefix and a shift, than `slot`'s (`keep` tokens and a shift), and copying it pays, makes
  // `slot` a whole copy of it, to shift next. Returns whether it did.
  bool CopyToShift(ContextState& state, Slot& slot, const SequenceRequest& request, size_t keep);
  // Context's thread: carries out `plan` on `slot`; returns the tokens its cache keeps (0: emptied on
  // failure).
  size_t Shift(ContextState& state, Slot& slot, const ShiftPlan& plan);
  bool Decode(ContextState& state);
  // Context's thread (batch_draft.cc): adds a generating slot's run to the batch (its sampled token, then
  // its forced and drafted ones), with logits where a pick is sampled or a token checked; after the decode,
  // TookRun puts the run in the slot's cache and the tokens to check in `checking`.
  void AddRun(llama_batch& batch, Slot& slot);
  // The CPU kernels for a batch (reference_kernels.h): fast with prompt rows, else the reference ones, and
  // exact where a run of tokens is checked, so each gets the logits it would get alone.
  KernelChoice KernelsFor(const std::vector<bool>& decodes, const std::vector<size_t>& chunk) const;
  void TookRun(ContextState& state, Slot& slot);
  // Context's thread (batch_media.cc): each slot whose prompt goes on with an image has it encoded by
  // the projector and its embeddings decoded at the image's positions, one slot at a time.
  void DecodeMedia(ContextState& state);
  // DecodeMedia for one slot: false when its request ended.
  bool DecodeImage(ContextState& state, Slot& slot);
  void SampleRows(ContextState& state);
  // Context's thread (batch_forced.cc): after a slot's sampled token, appends the tokens its grammar
  // forces next (fast_forward.h) to decode with it, each reported as a token; may end the request.
  void ForceAhead(ContextState& state, Slot& slot);
  // Context's thread (batch_draft.cc), after the round's picks: for each slot that took a pick, the tokens
  // speculative decoding drafts to decode after its sampled and forced ones (speculative.h), checked by
  // CheckAhead; the draft model drafts for all of them together.
  void DraftAll(ContextState& state);
  // Tokens a slot may decode after its sampled one in one pass (`ahead` of them taken already): room in
  // the batch, the context and maxTokens, leaving room for the pick after the run when it is checked.
  size_t RoomAhead(const ContextState& state, const Slot& slot, size_t ahead, bool checked) const;
  // Context's thread (batch_draft.cc), checked fast-forward and drafts: samples the row before each
  // decoded token to check; where the pick differs, the rest of the run leaves the cache and the pick is
  // taken instead. True when every token was the pick (the slot's last row is sampled next).
  bool CheckAhead(ContextState& state, Slot& slot);
  // After a check of `drafted` guesses of which the first `kept` were the picks: how long the slot's next
  // draft may be.
  static void AdaptDraftBudget(const ContextState& state, Slot& slot, size_t drafted, size_t kept);
  // The same for checked forced tokens: a model that splits forced text into other tokens than the
  // tokenizer's (random weights do) gets short runs, so its rejected tokens cost little compute.
  static void AdaptForcedBudget(Slot& slot, size_t forced, size_t kept);
  // How many checked forced tokens the slot's next run may have (0 while it pauses; counts the pause down).
  static size_t ForcedRunCap(Slot& slot);
  static constexpr size_t kFirstForcedRun = 4;       // a request's first checked run
  static constexpr size_t kUncappedForcedRun = 64;   // runs kept whole grow to this, then are not cut
  static constexpr size_t kAnyForcedRun = SIZE_MAX;  // forced_budget: not cut
  static constexpr size_t kMaxForcedPause = 16;      // most picks a pause lasts
  // Drops `slot`'s cached tokens from `keep` on (what a check found the model would not write).
  void DropFrom(ContextState& state, Slot& slot, size_t keep);
  // The slot's pick from logits row `row`, or LLAMA_TOKEN_NULL once the request ended in failure.
  llama_token SampleRow(ContextState& state, Slot& slot, int32_t row);
  // A token the slot's sampler picked (or that fast-forward appended): reported, then the end of the
  // request, or the next token to decode.
  void TakeSampled(ContextState& state, Slot& slot, llama_token token, bool forced);
  // A token event for `token` of `slot`'s request (counted in its read window first).
  void SendToken(ContextState& state, Slot& slot, llama_token token, bool forced);
  // Ends a request: `reason` is a stop reason, or empty with an error code and message.
  void End(const RequestPtr& request, const std::string& reason, const std::string& code = "",
           const std::string& error = "");
  void Finish(Slot& slot, const std::string& reason, const std::string& code = "",
              const std::string& error = "");
  void FailAll(const std::string& code, const std::string& error);
  // Context's thread: counts the OS threads that have decoded for the context (state.decode_threads).
  void NoteDecodeThread(ContextState& state);
  // Ends a cancelled request's slot at what its reader took (see the top of this file).
  void TrimToReader(ContextState& state, Slot& slot);
  // Sets state.n_tokens to the tokens of every slot.
  void CountTokens(ContextState& state) const;

  std::mutex mutex_;
  // Held by a round and by Append on the context's thread, and by Clear/Truncate/Tokens on the
  // main thread: slots_ is the context thread's, but those read or change it between rounds.
  std::mutex slots_mutex_;
  // The requests of the batch being decoded (read by AbortBatch during llama_decode).
  std::vector<const SequenceRequest*> batch_requests_;
  std::vector<std::thread::id> decode_thread_ids_;  // context's thread only
  std::deque<RequestPtr> waiting_;                  // guarded by mutex_
  std::vector<RequestPtr> inflight_;                // every request not finished yet; guarded by mutex_
  bool round_posted_ = false;                       // guarded by mutex_
  // Sinks of requests that ended in this round, their end event held; guarded by mutex_.
  std::vector<std::shared_ptr<EventSink>> ended_;
  std::vector<Slot> slots_;  // context's thread only
  uint64_t assigned_ = 0;    // requests assigned so far; context's thread only
};

}  // namespace toolwright
