// Compute devices: what the build's ggml backends offer, and which of them a model is placed on.
//
// loadModel({ gpu }) asks for "auto" (every discrete GPU, else the integrated ones: llama.cpp's
// own default), "none" (CPU only) or one backend by name ("cuda", "metal", "vulkan", ...). The
// choice is made here, on the loading worker, so the model can report exactly what it uses.
#pragma once

#include <napi.h>

#include <cstdint>
#include <string>
#include <vector>

#include "ggml-backend.h"

namespace toolwright {

struct DeviceInfo {
  std::string name;         // e.g. "CUDA0", "MTL0", "CPU"
  std::string description;  // e.g. "NVIDIA H100 80GB HBM3"
  std::string backend;      // the backend registry's name: "CUDA", "Metal", "Vulkan", "CPU", ...
  std::string type;         // "cpu", "gpu", "igpu", "accel"
  uint64_t memory_free = 0;
  uint64_t memory_total = 0;
};

// What ggml says of one device (its memory figures included: for an RPC device, a round trip).
DeviceInfo Describe(ggml_backend_dev_t dev);

// Every device of every registered backend.
std::vector<DeviceInfo> ListDevices();

// The GPU devices for a `gpu` choice ("auto", "none", or a backend name, any case). Returns false
// with a message naming what was asked and what the build has when the backend is absent.
bool SelectDevices(const std::string& gpu, std::vector<ggml_backend_dev_t>* devices,
                   std::vector<DeviceInfo>* infos, std::string* error);

Napi::Object DeviceToJs(Napi::Env env, const DeviceInfo& device);

}  // namespace toolwright
