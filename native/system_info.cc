#include "system_info.h"

#include <string>

#include "devices.h"
#include "grammar_slot.h"
#include "llama.h"
#include "rpc.h"

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
  // The backends compiled in (registered even when they found no device: a Vulkan build on a
  // machine without a Vulkan driver lists "Vulkan" here and no Vulkan device above).
  Napi::Array backends = Napi::Array::New(env);
  for (size_t r = 0; r < ggml_backend_reg_count(); r++)
    backends.Set(static_cast<uint32_t>(r), ggml_backend_reg_name(ggml_backend_reg_get(r)));
  out.Set("backends", backends);
  out.Set("rpc", RpcProtocol(env));
  Napi::Array engines = Napi::Array::New(env);
  uint32_t i = 0;
  for (const std::string& name : GrammarEngineNames()) engines.Set(i++, name);
  out.Set("grammarEngines", engines);
  return out;
}

}  // namespace toolwright
