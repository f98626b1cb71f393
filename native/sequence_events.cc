#include "sequence_events.h"

#include <algorithm>
#include <array>
#include <iterator>
#include <utility>

#include "addon_data.h"
#include "error_codes.h"

namespace toolwright {

// The names an event object is built from, as strings made once per environment: a name given as a C
// string is looked up in the engine's string table on every use, and a request reports each token. Kept
// in an array (this Node-API version references objects only).
struct SequenceEventNames {
  enum Name {
    kType,
    kStart,
    kEnd,
    kSequence,
    kReused,
    kShifted,
    kEvaluated,
    kCode,
    kMessage,
    kReason,
    kCount
  };
  Napi::ObjectReference texts;

  static const SequenceEventNames& Of(Napi::Env env) {
    AddonData& data = GetAddonData(env);
    if (!data.event_names) {
      static constexpr std::array<const char*, kCount> kTexts = {
          "type", "start", "end", "sequence", "reused", "shifted", "evaluated", "code", "message", "reason"};
      Napi::Array texts = Napi::Array::New(env, kCount);
      for (uint32_t i = 0; i < kCount; i++) texts.Set(i, Napi::String::New(env, kTexts[i]));
      auto names = std::make_shared<SequenceEventNames>();
      names->texts = Napi::Persistent(texts.As<Napi::Object>());
      data.event_names = std::move(names);
    }
    return *data.event_names;
  }
};

std::shared_ptr<EventSink> EventSink::Create(Napi::Env env, Napi::Function callback,
                                             std::shared_ptr<ReadWindow> window, size_t group) {
  auto sink = std::make_shared<EventSink>();
  sink->env_ = env;
  sink->window_ = std::move(window);
  sink->group_ = std::max<size_t>(group, 1);
  // The finalizer owns one reference, so the sink outlives the thread-safe function.
  auto* keep = new std::shared_ptr<EventSink>(sink);
  napi_value name = Napi::String::New(env, "toolwright.sequence");
  const napi_status status =
      napi_create_threadsafe_function(env, callback, nullptr, name, 0, 1, keep, &EventSink::Finalize,
                                      sink.get(), &EventSink::CallJs, &sink->tsfn_);
  if (status != napi_ok) {
    delete keep;
    throw Napi::Error::New(env, "Context.submit: could not create the result callback");
  }
  sink->open_ = true;
  return sink;
}

void EventSink::Send(SequenceEvent event) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return;
  const bool token = event.kind == SequenceEvent::kToken;
  pending_.push_back(std::move(event));
  // The first token goes at once (the reader times it); a later one waits until its group is full.
  const bool first = token && !first_token_sent_;
  if (token) first_token_sent_ = true;
  if (token && !first && pending_.size() < group_) return;
  SendPendingLocked();
}

void EventSink::SendPendingLocked() {
  if (pending_.empty()) return;
  auto* data = new Batch(std::move(pending_));
  pending_.clear();
  if (napi_call_threadsafe_function(tsfn_, data, napi_tsfn_nonblocking) != napi_ok) delete data;
}

void EventSink::Hold(SequenceEvent event) {
  std::lock_guard<std::mutex> lock(mutex_);
  last_ = std::make_unique<SequenceEvent>(std::move(event));
}

void EventSink::Close() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return;
  if (last_) pending_.push_back(std::move(*last_));  // the tokens still waiting, then the end
  last_.reset();
  SendPendingLocked();
  open_ = false;
  napi_release_threadsafe_function(tsfn_, napi_tsfn_release);
}

void EventSink::SetReferenced(bool referenced) {
  // referenced_ is the main thread's: a reader taking tokens as they come (the usual case, once per token)
  // never waits for the context's thread, which holds mutex_ while it hands over the next event.
  if (referenced_ == referenced) return;
  std::lock_guard<std::mutex> lock(mutex_);
  if (!open_) return;
  referenced_ = referenced;
  if (referenced) {
    napi_ref_threadsafe_function(env_, tsfn_);
  } else {
    napi_unref_threadsafe_function(env_, tsfn_);
  }
}

void EventSink::Finalize(napi_env /*env*/, void* data, void* /*hint*/) {
  auto* keep = static_cast<std::shared_ptr<EventSink>*>(data);
  {
    std::lock_guard<std::mutex> lock((*keep)->mutex_);
    (*keep)->open_ = false;  // torn down with the environment: never call it again
  }
  delete keep;
}

void EventSink::CallJs(napi_env env, napi_value callback, void* context, void* data) {
  std::unique_ptr<Batch> batch(static_cast<Batch*>(data));
  if (env == nullptr || callback == nullptr) return;  // the environment is going away
  // A C callback: nothing may escape it (building the object throws while a worker terminates).
  auto* sink = static_cast<EventSink*>(context);
  try {
    for (const SequenceEvent& event : *batch) sink->Deliver(env, callback, event);
  } catch (...) {
  }
  // The generation waits for its reader now: nothing more comes until the reader takes a token
  // (and references the function again), so an idle reader does not keep the process alive. The
  // sink lives until Finalize, which runs after the last call.
  if (batch->back().kind == SequenceEvent::kToken && sink->window_->Full()) sink->SetReferenced(false);
}

napi_value EventSink::PieceValue(Napi::Env env, const std::string& piece) {
  bool ascii = true;
  for (const char c : piece) ascii = ascii && static_cast<unsigned char>(c) < 0x80;
  // Bytes of a character the last piece left unfinished can only be its last bytes (>= 0x80): the reader's
  // decoder may hold them, so what follows goes to it as bytes.
  const bool as_text = ascii && !after_high_byte_;
  if (!piece.empty()) after_high_byte_ = static_cast<unsigned char>(piece.back()) >= 0x80;
  if (as_text) return Napi::String::New(env, piece);
  return Napi::Buffer<char>::Copy(env, piece.data(), piece.size());
}

void EventSink::Deliver(napi_env env, napi_value callback, const SequenceEvent& event) {
  Napi::Env e(env);
  Napi::HandleScope scope(e);
  napi_value ignored;
  // The JS callback catches its own errors; a pending exception would surface as uncaught.
  if (event.kind == SequenceEvent::kToken) {
    // The event sent per token goes as arguments: the listener makes the object in JS, where its shape is
    // fixed (setting its properties from here took a tenth of the main thread's time per token).
    napi_value argv[] = {Napi::Number::New(e, event.token),
                         PieceValue(e, event.piece),
                         Napi::Boolean::New(e, event.eog),
                         Napi::Number::New(e, static_cast<double>(event.passes)),
                         Napi::Boolean::New(e, event.forced),
                         Napi::Number::New(e, static_cast<double>(event.drafted)),
                         Napi::Number::New(e, static_cast<double>(event.accepted)),
                         Napi::Number::New(e, static_cast<double>(event.dropped_forced))};
    napi_call_function(env, e.Undefined(), callback, std::size(argv), argv, &ignored);
    return;
  }
  using N = SequenceEventNames;
  const Napi::Object texts = N::Of(e).texts.Value();  // one handle for the event's names
  auto name = [&](N::Name n) { return texts.Get(static_cast<uint32_t>(n)); };
  Napi::Object out = Napi::Object::New(e);
  auto set = [&](N::Name n, napi_value value) { out.Set(name(n), value); };
  auto number = [&](N::Name n, double value) { set(n, Napi::Number::New(e, value)); };
  if (event.kind == SequenceEvent::kStart) {
    set(N::kType, name(N::kStart));
    number(N::kSequence, event.sequence);
    number(N::kReused, static_cast<double>(event.reused));
    number(N::kShifted, static_cast<double>(event.shifted));
    number(N::kEvaluated, static_cast<double>(event.evaluated));
  } else {
    set(N::kType, name(N::kEnd));
    if (event.reason.empty()) {
      set(N::kCode, Napi::String::New(e, event.code.empty() ? codes::kInternal : event.code));
      set(N::kMessage, Napi::String::New(e, event.error));
    } else {
      set(N::kReason, Napi::String::New(e, event.reason));
    }
  }
  napi_value argv[] = {out};
  napi_call_function(env, e.Undefined(), callback, 1, argv, &ignored);
}

}  // namespace toolwright
