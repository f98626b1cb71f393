// Model: a loaded GGUF model (or only its vocabulary), exposed to JS.
//
// The llama_model lives in a shared ModelHandle: the Model object, every Context created from
// it and every worker in flight hold a reference, so dispose() on the Model never frees weights
// that a context or a running worker still uses.
#pragma once

#include <napi.h>

#include <memory>
#include <string>
#include <vector>

#include "devices.h"
#include "external_memory.h"
#include "llama.h"

namespace toolwright {

struct ModelHandle {
  llama_model* model = nullptr;
  const llama_vocab* vocab = nullptr;
  int32_t n_vocab = 0;
  bool vocab_only = false;
  std::string path;
  // The GPU devices the weights were placed on (none: CPU only) and how many layers went there.
  std::vector<DeviceInfo> devices;
  int32_t gpu_layers = 0;

  ModelHandle(llama_model* m, bool vocab_only_load, std::string file);
  ~ModelHandle();
  ModelHandle(const ModelHandle&) = delete;
  ModelHandle& operator=(const ModelHandle&) = delete;
};
using ModelPtr = std::shared_ptr<ModelHandle>;

class Model : public Napi::ObjectWrap<Model> {
 public:
  static void Init(Napi::Env env, Napi::Object exports);
  // Wraps a freshly loaded model in a JS Model (main thread only).
  static Napi::Object NewInstance(Napi::Env env, ModelPtr handle);
  // The live handle of a JS Model, or throws a TypeError naming `what`.
  static ModelPtr FromValue(Napi::Env env, const Napi::Value& value, const char* method, const char* what);

  explicit Model(const Napi::CallbackInfo& info);

 private:
  const ModelPtr& Live(Napi::Env env, const char* method) const;

  Napi::Value Info(const Napi::CallbackInfo& info);
  Napi::Value Metadata(const Napi::CallbackInfo& info);
  Napi::Value ChatTemplate(const Napi::CallbackInfo& info);
  Napi::Value SpecialTokens(const Napi::CallbackInfo& info);
  Napi::Value TokenPiece(const Napi::CallbackInfo& info);
  Napi::Value TokenAttributes(const Napi::CallbackInfo& info);
  Napi::Value IsEog(const Napi::CallbackInfo& info);
  Napi::Value Vocabulary(const Napi::CallbackInfo& info);
  Napi::Value Tokenize(const Napi::CallbackInfo& info);
  Napi::Value TokenizeAsync(const Napi::CallbackInfo& info);
  Napi::Value Detokenize(const Napi::CallbackInfo& info);
  Napi::Value DetokenizeAsync(const Napi::CallbackInfo& info);
  Napi::Value Dispose(const Napi::CallbackInfo& info);
  Napi::Value IsDisposed(const Napi::CallbackInfo& info);

  ModelPtr handle_;
  ExternalMemory external_;
};

}  // namespace toolwright
