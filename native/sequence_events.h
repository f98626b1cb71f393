// What a request of the batch scheduler reports to JS: its events, built on the context's thread and
// delivered on the main thread through a guarded thread-safe function, and the read window that pauses a
// request whose reader falls behind.
#pragma once

#include <napi.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "llama.h"

namespace toolwright {

// What a request reports to JS (built on the context's thread, turned into a JS object on the main thread).
struct SequenceEvent {
  enum Kind { kStart, kToken, kEnd } kind = kToken;
  llama_token token = LLAMA_TOKEN_NULL;
  std::string piece;
  bool eog = false;
  bool forced = false;          // kToken: appended without sampling (fast_forward.h)
  uint64_t passes = 0;          // kToken: decode passes the request has taken part in so far
  uint64_t drafted = 0;         // kToken: drafted tokens decoded for the request so far (speculative.h)
  uint64_t accepted = 0;        // kToken: of those, the ones its picks agreed with
  uint64_t dropped_forced = 0;  // kToken: checked forced tokens decoded, then dropped (batch_draft.cc)
  llama_seq_id sequence = 0;    // kStart: the slot's sequence
  size_t reused = 0;            // kStart: prompt tokens found in the slot's cache (shifted ones included)
  size_t shifted = 0;           // kStart: of those, tokens kept by a context shift (batch_shift.cc)
  size_t evaluated = 0;         // kStart: prompt tokens to evaluate
  std::string reason;           // kEnd: the stop reason, empty on failure
  std::string code;             // kEnd: failure code
  std::string error;            // kEnd: failure message
};

// How far a request's generation is ahead of its reader: shared by the request (context's thread)
// and its event sink (main thread).
struct ReadWindow {
  std::atomic<int64_t> sent{0};      // token events sent
  std::atomic<int64_t> consumed{0};  // token events the reader has taken
  int64_t read_ahead = 16;           // tokens it may run ahead; <= 0: no limit
  bool Full() const { return read_ahead > 0 && sent.load() - consumed.load() >= read_ahead; }
};

// A request's thread-safe function, guarded: the environment may finalize it (teardown) while the
// context's thread still wants to report, and a finalized one must not be called.
class EventSink {
 public:
  // Main thread. Calls `callback` with each event: a token as arguments (id, piece, eog, passes, forced,
  // drafted, accepted, dropped forced), start and end as objects. After the first token, tokens are handed
  // over `group` at a time (the main thread wakes once per group; at most the window's read-ahead, or the
  // request would pause for tokens its reader has not been given). Throws a Napi::Error on failure.
  static std::shared_ptr<EventSink> Create(Napi::Env env, Napi::Function callback,
                                           std::shared_ptr<ReadWindow> window, size_t group = 1);
  // Any thread: queues the event without blocking (dropped once closed); a token may wait for its group.
  void Send(SequenceEvent event);
  // Any thread: keeps `event` to send as the last one, when Close() is called.
  void Hold(SequenceEvent event);
  // Any thread: sends the held event, if any, and releases the thread-safe function. Idempotent.
  void Close();
  // Main thread: whether the thread-safe function keeps the event loop alive (it does while the
  // reader may be waiting; not while the request is paused for an idle reader).
  void SetReferenced(bool referenced);

 private:
  // Events handed over in one call of the thread-safe function.
  using Batch = std::vector<SequenceEvent>;
  // Hands over the events waiting in pending_ (mutex_ held, open_ true).
  void SendPendingLocked();
  static void CallJs(napi_env env, napi_value callback, void* context, void* data);
  void Deliver(napi_env env, napi_value callback, const SequenceEvent& event);
  // A token's piece for JS: a string where it is ASCII and no bytes of an unfinished character come before
  // it (most tokens: no buffer to allocate, nothing for the reader's decoder to do), else its bytes.
  napi_value PieceValue(Napi::Env env, const std::string& piece);
  static void Finalize(napi_env env, void* data, void* hint);
  std::mutex mutex_;
  bool open_ = false;       // guarded by mutex_
  bool referenced_ = true;  // main thread only
  napi_env env_ = nullptr;
  napi_threadsafe_function tsfn_ = nullptr;
  std::shared_ptr<ReadWindow> window_;
  std::unique_ptr<SequenceEvent> last_;  // guarded by mutex_
  Batch pending_;                        // guarded by mutex_: tokens waiting for their group
  size_t group_ = 1;
  bool first_token_sent_ = false;  // guarded by mutex_
  bool after_high_byte_ = false;   // main thread only: the last piece ended in a byte >= 0x80
};

}  // namespace toolwright
