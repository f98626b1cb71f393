#include "devices.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace toolwright {
namespace {

std::string Lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

const char* TypeName(enum ggml_backend_dev_type type) {
  switch (type) {
    case GGML_BACKEND_DEVICE_TYPE_CPU:
      return "cpu";
    case GGML_BACKEND_DEVICE_TYPE_GPU:
      return "gpu";
    case GGML_BACKEND_DEVICE_TYPE_IGPU:
      return "igpu";
    case GGML_BACKEND_DEVICE_TYPE_ACCEL:
      return "accel";
    default:
      return "other";
  }
}

}  // namespace

DeviceInfo Describe(ggml_backend_dev_t dev) {
  DeviceInfo d;
  d.name = ggml_backend_dev_name(dev);
  d.description = ggml_backend_dev_description(dev);
  d.backend = ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev));
  d.type = TypeName(ggml_backend_dev_type(dev));
  size_t free = 0, total = 0;
  ggml_backend_dev_memory(dev, &free, &total);
  d.memory_free = free;
  d.memory_total = total;
  return d;
}

namespace {

bool IsOffloadTarget(ggml_backend_dev_t dev) {
  const auto type = ggml_backend_dev_type(dev);
  return type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU;
}

// Metal's registry is named "MTL" in some ggml versions and "Metal" in others.
bool BackendMatches(ggml_backend_dev_t dev, const std::string& wanted) {
  const std::string reg = Lower(ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev)));
  if (wanted == "metal") return reg == "metal" || reg == "mtl";
  return reg == wanted;
}

}  // namespace

std::vector<DeviceInfo> ListDevices() {
  std::vector<DeviceInfo> out;
  for (size_t i = 0; i < ggml_backend_dev_count(); i++) out.push_back(Describe(ggml_backend_dev_get(i)));
  return out;
}

bool SelectDevices(const std::string& gpu, std::vector<ggml_backend_dev_t>* devices,
                   std::vector<DeviceInfo>* infos, std::string* error) {
  devices->clear();
  const std::string wanted = Lower(gpu);
  if (wanted == "none") return true;
  std::vector<ggml_backend_dev_t> discrete, integrated;
  for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    if (!IsOffloadTarget(dev)) continue;
    // RPC servers are only used when asked for by name.
    const bool rpc = std::strcmp(ggml_backend_reg_name(ggml_backend_dev_backend_reg(dev)), "RPC") == 0;
    if (wanted == "auto" ? rpc : !BackendMatches(dev, wanted)) continue;
    (ggml_backend_dev_type(dev) == GGML_BACKEND_DEVICE_TYPE_GPU ? discrete : integrated).push_back(dev);
  }
  // As llama.cpp's default: integrated GPUs only when there is no discrete one.
  *devices = discrete.empty() ? integrated : discrete;
  if (devices->empty() && wanted != "auto") {
    std::string have;
    for (const DeviceInfo& d : ListDevices())
      have += (have.empty() ? "" : ", ") + d.name + " (" + d.backend + ")";
    *error = "gpu: \"" + gpu + "\" was asked for, but no such device is available in this build (devices: " +
             (have.empty() ? "none" : have) + "). Use a prebuild or a source build with that backend " +
             "(e.g. TOOLWRIGHT_CUDA=1), or gpu: \"auto\" / false";
    return false;
  }
  for (ggml_backend_dev_t dev : *devices) infos->push_back(Describe(dev));
  return true;
}

Napi::Object DeviceToJs(Napi::Env env, const DeviceInfo& device) {
  Napi::Object o = Napi::Object::New(env);
  o.Set("name", device.name);
  o.Set("description", device.description);
  o.Set("backend", device.backend);
  o.Set("type", device.type);
  o.Set("memoryFree", static_cast<double>(device.memory_free));
  o.Set("memoryTotal", static_cast<double>(device.memory_total));
  return o;
}

}  // namespace toolwright
