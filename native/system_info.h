// systemInfo(): llama.cpp's version and CPU features, the compute devices, the grammar engines.
#pragma once

#include <napi.h>

namespace toolwright {

Napi::Value SystemInfo(const Napi::CallbackInfo& info);

}  // namespace toolwright
