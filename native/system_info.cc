#include "system_info.h"

#include <string>

#include "devices.h"
#include "grammar_slot.h"
#include "llama.h"

namespace toolwright {

Napi::Value SystemInfo(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  Napi::Object out = Napi::Object::New(env);
  out.Set("llamaVersion", llama_version());
  out.Set("system", llama_print_system_info());
  out.Set("supportsMmap", llama_supports_mmap());
  out.Set("supportsGpuOffload", llama_supports_gpu_offload());
  Napi::Array devices = Napi::Array::New(env);
  uint32_t d = 0;
  for (const DeviceInfo& device : ListDevices()) devices.Set(d++, DeviceToJs(env, device));
  out.Set("devices", devices);
  Napi::Array engines = Napi::Array::New(env);
  uint32_t i = 0;
  for (const std::string& name : GrammarEngineNames()) engines.Set(i++, name);
  out.Set("grammarEngines", engines);
  return out;
}

}  // namespace toolwright
