#include "system_info.h"

#include <string>
#include <vector>

#include "devices.h"
#include "grammar_slot.h"
#include "llama.h"
#include "rpc.h"

namespace toolwright {
namespace {

// The backends compiled in, with or without devices. ggml does not register a GPU backend whose
// initialisation found nothing (a Vulkan build on a machine without a Vulkan driver), so the
// build's own definitions add those: the loader tells such a build from a CPU one by this list.
Napi::Array CompiledBackends(Napi::Env env) {
  std::vector<std::string> names;
  for (size_t r = 0; r < ggml_backend_reg_count(); r++)
    names.push_back(ggml_backend_reg_name(ggml_backend_reg_get(r)));
  auto add = [&names](const char* name, const char* alias) {
    for (const std::string& n : names)
      if (n == name || n == alias) return;
    names.push_back(name);
  };
#ifdef GGML_USE_CUDA
  add("CUDA", "CUDA");
#endif
#ifdef GGML_USE_VULKAN
  add("Vulkan", "Vulkan");
#endif
#ifdef GGML_USE_METAL
  add("Metal", "MTL");
#endif
  (void)add;
  Napi::Array out = Napi::Array::New(env, names.size());
  for (uint32_t i = 0; i < names.size(); i++) out.Set(i, names[i]);
  return out;
}

}  // namespace

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
  out.Set("backends", CompiledBackends(env));
  out.Set("rpc", RpcProtocol(env));
  Napi::Array engines = Napi::Array::New(env);
  uint32_t i = 0;
  for (const std::string& name : GrammarEngineNames()) engines.Set(i++, name);
  out.Set("grammarEngines", engines);
  return out;
}

}  // namespace toolwright
