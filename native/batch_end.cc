// How BatchScheduler's requests end: one that finished or failed (its end event queued, sent once the
// round lets go of the context), a slot let go with what it keeps for the next request, every request
// failed at once (a decode error), and every request ended at once when the RPC server behind the model
// is lost (sent now: the round that would send them is stuck).
#include <algorithm>

#include "batch_scheduler.h"
#include "error_codes.h"

namespace toolwright {

void BatchScheduler::End(const RequestPtr& request, const std::string& reason, const std::string& code,
                         const std::string& error) {
  if (request->ended.exchange(true)) return;  // FailLost ended it
  // Out of the books first: once JS sees the end, the counts and the sampler say it ended.
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inflight_.erase(std::remove(inflight_.begin(), inflight_.end(), request), inflight_.end());
  }
  request->sampler->busy.store(false);
  request->sampler.reset();  // the reader may dispose the model once it sees the end
  SequenceEvent end;
  end.kind = SequenceEvent::kEnd;
  end.reason = reason;
  end.code = code;
  end.error = error;
  // Queued, not sent: RunRound sends it once the round let go of the context (the destructor at once).
  std::lock_guard<std::mutex> lock(mutex_);
  ended_.push_back(request->events);
  request->events->Hold(std::move(end));
}

void BatchScheduler::Finish(Slot& slot, const std::string& reason, const std::string& code,
                            const std::string& error) {
  RequestPtr request = std::move(slot.request);
  slot.request.reset();
  const bool own_end =
      request && code.empty() && (reason == "eog" || reason == "maxTokens" || reason == "contextFull");
  slot.ended_id = own_end ? request->id : 0;
  slot.ended_len = slot.tokens.size();
  slot.ended_decoded = own_end ? std::max<int64_t>(0, request->window->sent.load() - 1) : 0;
  slot.pending.clear();
  slot.next = LLAMA_TOKEN_NULL;
  slot.forced.clear();
  slot.drafted.clear();
  slot.checking.clear();
  slot.row = -1;
  if (request) End(request, reason, code, error);
}

void BatchScheduler::FailAll(const std::string& code, const std::string& error) {
  for (Slot& slot : slots_) {
    if (slot.request) Finish(slot, "", code, error);
  }
  std::deque<RequestPtr> waiting;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    waiting.swap(waiting_);
  }
  for (const RequestPtr& request : waiting) End(request, "", code, error);
}

void BatchScheduler::FailLost(const std::string& message) {
  std::vector<RequestPtr> requests;
  std::vector<std::shared_ptr<EventSink>> ended;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    requests.assign(inflight_.begin(), inflight_.end());
    inflight_.clear();
    waiting_.clear();
    ended.swap(ended_);
  }
  // Ends decided before the loss would be sent when the stuck round lets go: send them now.
  for (const std::shared_ptr<EventSink>& sink : ended) sink->Close();
  for (const RequestPtr& request : requests) {
    if (request->ended.exchange(true)) continue;
    request->sampler->busy.store(false);
    SequenceEvent end;
    end.kind = SequenceEvent::kEnd;
    end.code = codes::kRpcLost;
    end.error = message;
    request->events->Hold(std::move(end));
    request->events->Close();
  }
}

}  // namespace toolwright
