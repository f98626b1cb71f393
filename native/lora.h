// LoraAdapter: a LoRA adapter GGUF loaded for one model, exposed to JS.
//
// The llama_adapter_lora lives in a shared LoraHandle that holds its model: the JS object and
// every context that applies the adapter (ContextState::loras) keep a reference, so dispose() on
// the JS object never frees weights a context still adds, and the model outlives its adapters.
#pragma once

#include <napi.h>

#include <memory>
#include <string>

#include "llama.h"
#include "model.h"

namespace toolwright {

struct LoraHandle {
  ModelPtr model;  // declared first: released after the adapter is freed
  llama_adapter_lora* adapter = nullptr;
  std::string path;
  float alpha = 0.0f;

  LoraHandle(ModelPtr owner, llama_adapter_lora* loaded, std::string file);
  ~LoraHandle();
  LoraHandle(const LoraHandle&) = delete;
  LoraHandle& operator=(const LoraHandle&) = delete;
};
using LoraPtr = std::shared_ptr<LoraHandle>;

class LoraAdapter : public Napi::ObjectWrap<LoraAdapter> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // The live handle of a JS LoraAdapter, or throws a TypeError naming `what`.
  static LoraPtr FromValue(Napi::Env env, const Napi::Value& value, const char* method, const char* what);

  explicit LoraAdapter(const Napi::CallbackInfo& info);

 private:
  // load(model, path) -> Promise<LoraAdapter>
  static Napi::Value Load(const Napi::CallbackInfo& info);
  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  LoraPtr handle_;
};

}  // namespace toolwright
