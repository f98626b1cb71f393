// Tells V8 how much native memory a JS object holds (a model's weights, a context's KV cache),
// so that objects dropped without dispose() are collected before that memory piles up: V8 only
// counts its own heap otherwise, and would let a thousand undisposed contexts grow RSS by GBs
// before a GC runs their finalizers (test/reliability/gguf-external-memory.test.ts).
#pragma once

#include <napi.h>

#include <cstdint>

namespace toolwright {

class ExternalMemory {
 public:
  ExternalMemory() = default;
  ExternalMemory(const ExternalMemory&) = delete;
  ExternalMemory& operator=(const ExternalMemory&) = delete;
  ~ExternalMemory() { Release(); }

  // Main thread: records `bytes` more (replaces what was recorded before).
  void Set(Napi::Env env, int64_t bytes) {
    Release();
    if (bytes <= 0) return;
    env_ = env;
    bytes_ = bytes;
    Napi::MemoryManagement::AdjustExternalMemory(env, bytes);
  }

  // Main thread (dispose() or the finalizer): gives the amount back.
  void Release() {
    if (bytes_ == 0 || env_ == nullptr) return;
    int64_t ignored = 0;
    napi_adjust_external_memory(env_, -bytes_, &ignored);  // never throws, even while the env ends
    bytes_ = 0;
  }

 private:
  napi_env env_ = nullptr;
  int64_t bytes_ = 0;
};

}  // namespace toolwright
