// Jobs on a context's own thread (ContextState::thread) that an AsyncWorker waits for: the worker's
// Run() posts the llama work there and blocks on its outcome, so every use of a llama_context stays
// on that one thread, between the scheduler's rounds. Used by decode, setLoras and the state jobs.
#pragma once

#include <exception>
#include <future>
#include <memory>
#include <string>
#include <utility>

#include "context.h"
#include "error_codes.h"
#include "rpc.h"

namespace toolwright {

// What a job on the context's thread reports back: an empty code means success.
struct JobStatus {
  std::string code;
  std::string error;
};

// How a job on the context's thread hands its outcome to the waiting worker. It holds the job's
// only reference to the context: the job's captures hold none, so once it has delivered nothing
// of it keeps the context (or its model) alive, and a dispose() right after the promise settles
// frees them at once.
template <typename T>
class Delivery {
 public:
  Delivery(ContextPtr keep, std::shared_ptr<std::promise<T>> promise)
      : keep_(std::move(keep)), promise_(std::move(promise)) {}
  ContextState& state() { return *keep_; }
  // The job is done with the context: drop it, then wake the worker.
  void Final(T value) {
    keep_.reset();
    promise_->set_value(std::move(value));
  }
  // The job threw: the worker rejects with it, unless the outcome was delivered already.
  void Fail(std::exception_ptr error) {
    keep_.reset();
    try {
      promise_->set_exception(std::move(error));
    } catch (...) {  // already delivered: the failure is the job's own to report
    }
  }

 private:
  ContextPtr keep_;
  std::shared_ptr<std::promise<T>> promise_;
};

// Worker thread: runs `job(delivery)` on the context's thread and waits until the job delivers a
// T. A job that throws before delivering makes this throw (the PromiseWorker rejects with an
// internal error); one that ends without delivering breaks the promise, which does the same.
template <typename T, typename Job>
T RunOnContextThread(const ContextPtr& state, Job job) {
  auto promise = std::make_shared<std::promise<T>>();
  std::future<T> outcome = promise->get_future();
  // An init-capture: a plain copy of the const reference would be const, and moving it would copy.
  state->thread->Post([keep = state, promise, job = std::move(job)]() mutable {
    Delivery<T> delivery(std::move(keep), std::move(promise));
    try {
      job(delivery);
    } catch (...) {
      delivery.Fail(std::current_exception());
    }
  });
  return AwaitUnlessRpcLost(outcome, *state->model);
}

// A dispose() between queueing and the start of the job aborts this operation.
inline bool CheckNotCancelled(ContextState& state, const char* method, JobStatus* status) {
  if (!state.abort.load()) return true;
  status->code = codes::kAbort;
  status->error = std::string(method) + ": cancelled";
  return false;
}

}  // namespace toolwright
