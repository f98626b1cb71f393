// Base for every async operation of the addon: a Napi::AsyncWorker that settles a Promise.
//
// Rules it enforces: Run() executes on a libuv worker thread and never touches N-API (inputs
// were copied into the worker by its constructor); any C++ exception thrown there becomes a
// rejected Promise instead of crossing the thread boundary; the JS object that owns the native
// resource is kept alive (ObjectReference) until the worker is done.
#pragma once

#include <napi.h>

#include "error_codes.h"

#include <exception>
#include <stdexcept>
#include <string>
#include <utility>

namespace toolwright {

// Error codes put on rejected errors (`err.code`) come from error_codes.h (the table shared with TS).

// The error a worker rejects with: `message`, `err.code` (TOOLWRIGHT_INTERNAL when empty), and
// the name AbortError for ABORT_ERR.
inline Napi::Value CodedError(Napi::Env env, const std::string& message, const std::string& code) {
  Napi::Error error = Napi::Error::New(env, message);
  const std::string c = code.empty() ? codes::kInternal : code;
  error.Set("code", Napi::String::New(env, c));
  if (c == codes::kAbort) error.Set("name", Napi::String::New(env, "AbortError"));
  return error.Value();
}

// A failure with its own code, thrown from deep inside a worker's Run() (e.g. a lost RPC server
// noticed while waiting for the context's thread): the Promise rejects with that code.
class CodedException : public std::runtime_error {
 public:
  CodedException(std::string code, const std::string& message)
      : std::runtime_error(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

class PromiseWorker : public Napi::AsyncWorker {
 public:
  PromiseWorker(Napi::Env env, const char* resource_name, Napi::Object owner)
      : Napi::AsyncWorker(env, resource_name), deferred_(Napi::Promise::Deferred::New(env)) {
    if (!owner.IsEmpty()) owner_ = Napi::Persistent(owner);
  }

  Napi::Promise Promise() const { return deferred_.Promise(); }

  // Queues the worker and returns the Promise it settles (the worker deletes itself when done).
  Napi::Promise Start() {
    Napi::Promise promise = Promise();
    Queue();
    return promise;
  }

 protected:
  // Worker thread. Call Fail() to reject; return normally to resolve with Result().
  virtual void Run() = 0;
  // Main thread, after a successful Run(): the value the Promise resolves with.
  virtual Napi::Value Result(Napi::Env env) = 0;
  // Main thread, before the Promise settles either way (e.g. to release a busy flag).
  virtual void Settle() {}

  void Fail(std::string code, std::string message) {
    code_ = std::move(code);
    SetError(message);
  }
  bool Failed() const { return !code_.empty(); }

 private:
  void Execute() final {
    try {
      Run();
    } catch (const CodedException& e) {
      Fail(e.code(), e.what());
    } catch (const std::exception& e) {
      Fail(codes::kInternal, std::string("internal error: ") + e.what());
    } catch (...) {
      Fail(codes::kInternal, "internal error: unknown C++ exception");
    }
  }

  void OnOK() final {
    Napi::Env env = Env();
    Settle();
    try {
      deferred_.Resolve(Result(env));
    } catch (const Napi::Error& e) {
      deferred_.Reject(e.Value());
    } catch (const std::exception& e) {  // e.g. bad_alloc building the result: reject, never terminate
      deferred_.Reject(CodedError(env, std::string("internal error: ") + e.what(), codes::kInternal));
    }
  }

  void OnError(const Napi::Error& e) final {
    Settle();
    deferred_.Reject(CodedError(Env(), e.Message(), code_));
  }

  Napi::Promise::Deferred deferred_;
  Napi::ObjectReference owner_;
  std::string code_;
};

}  // namespace toolwright
