// Per-environment state (main thread and each worker_thread get their own): the class
// constructors, so workers can create instances (a loaded Model, a created Context).
#pragma once

#include <napi.h>

namespace toolwright {

struct AddonData {
  Napi::FunctionReference model_constructor;
  Napi::FunctionReference context_constructor;
  Napi::FunctionReference sampler_constructor;
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

}  // namespace toolwright
