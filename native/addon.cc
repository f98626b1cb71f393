// Registers the addon's classes and module functions; the classes live in their own files.
#include <napi.h>

#include "addon_data.h"
#include "context.h"
#include "embedding.h"
#include "projector.h"
#include "grammar_cache_napi.h"
#include "grammar_slot.h"
#include "grammar_toolwright.h"
#include "llama.h"
#include "log_capture.h"
#include "lora.h"
#include "memory_usage.h"
#include "model.h"
#include "rpc.h"
#include "sampler.h"
#include "system_info.h"

namespace toolwright {
namespace {

Napi::Object Init(Napi::Env env, Napi::Object exports) {
  InstallLogHandler();
  InstallRpcAbortHandler();
  llama_backend_init();
  env.SetInstanceData(new AddonData());
#ifdef TOOLWRIGHT_HAS_GRAMMAR_ENGINE
  RegisterGrammarEngine("toolwright", &CreateToolwrightGrammar);
#endif
  Model::Init(env, exports);
  Context::Init(env, exports);
  LoraAdapter::Init(env, exports);
  Sampler::Init(env, exports);
  EmbeddingContext::Init(env, exports);
  Projector::Init(env, exports);
  MediaPromptObject::Init(env, exports);
  exports.Set("measureContextMemory", Napi::Function::New(env, MeasureContextMemory, "measureContextMemory"));
  exports.Set("systemInfo", Napi::Function::New(env, SystemInfo, "systemInfo"));
  exports.Set("startRpcServer", Napi::Function::New(env, StartRpcServer, "startRpcServer"));
  exports.Set("rpcEndpointsInUse", Napi::Function::New(env, RpcEndpointsInUse, "rpcEndpointsInUse"));
  exports.Set("grammarCacheStats", Napi::Function::New(env, GrammarCacheStats, "grammarCacheStats"));
  exports.Set("clearGrammarCache", Napi::Function::New(env, ClearGrammarCache, "clearGrammarCache"));
  exports.Set("setGrammarCacheLimit", Napi::Function::New(env, SetGrammarCacheLimit, "setGrammarCacheLimit"));
  return exports;
}

}  // namespace
}  // namespace toolwright

static Napi::Object InitAddon(Napi::Env env, Napi::Object exports) { return toolwright::Init(env, exports); }

NODE_API_MODULE(toolwright, InitAddon)
