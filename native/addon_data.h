// Per-environment state (main thread and each worker_thread get their own): the class
// constructors, so workers can create instances (a loaded Model, a created Context), and the
// environment's live contexts.
#pragma once

#include <napi.h>

#include <memory>

namespace toolwright {

struct ContextRegistry;     // context.h
struct SequenceEventNames;  // sequence_events.cc

struct AddonData {
  Napi::FunctionReference model_constructor;
  Napi::FunctionReference context_constructor;
  Napi::FunctionReference sampler_constructor;
  Napi::FunctionReference embedding_constructor;
  Napi::FunctionReference projector_constructor;
  Napi::FunctionReference media_prompt_constructor;
  Napi::FunctionReference lora_constructor;
  // This environment's contexts, stopped when it is torn down (see ContextRegistry).
  std::shared_ptr<ContextRegistry> contexts;
  // The property names of the events a request reports, made once (see sequence_events.cc).
  std::shared_ptr<SequenceEventNames> event_names;
};

inline AddonData& GetAddonData(Napi::Env env) { return *env.GetInstanceData<AddonData>(); }

}  // namespace toolwright
