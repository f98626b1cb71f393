// A PromiseWorker on a model with a copy of its options: the workers that create a llama.cpp
// context on a model (a Context, an EmbeddingContext, a measured one) hold these two.
#pragma once

#include <napi.h>

#include <utility>

#include "model.h"
#include "promise_worker.h"

namespace toolwright {

template <typename Options>
class ModelWorker : public PromiseWorker {
 public:
  ModelWorker(Napi::Env env, const char* resource_name, Napi::Object owner, ModelPtr model, Options options)
      : PromiseWorker(env, resource_name, owner), model_(std::move(model)), options_(std::move(options)) {}

 protected:
  ModelPtr model_;
  Options options_;
};

}  // namespace toolwright
