#include "lora.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <utility>

#include "addon_data.h"
#include "log_capture.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "rpc.h"

namespace toolwright {
namespace {

const napi_type_tag kLoraHandleTag = {0x51c0a7e39b2d4f18ULL, 0x8e4f2a6b1d7c3059ULL};

// llama.cpp keeps a model's adapters in a set on the model, which loading and freeing change:
// adapters of one model may load on several pool threads at once.
std::mutex& AdapterSetMutex() {
  static std::mutex mutex;
  return mutex;
}

// A metadata value of the adapter as a float (0 when absent).
float AdapterFloat(const llama_adapter_lora* adapter, const char* key) {
  char buf[64];
  if (llama_adapter_meta_val_str(adapter, key, buf, sizeof buf) < 0) return 0.0f;
  return std::strtof(buf, nullptr);
}

class LoadLoraWorker : public PromiseWorker {
 public:
  LoadLoraWorker(Napi::Env env, Napi::Object owner, ModelPtr model, std::string path)
      : PromiseWorker(env, "toolwright.loadLora", owner), model_(std::move(model)), path_(std::move(path)) {}

 protected:
  void Run() override {
    const std::string what = "Cannot load the LoRA adapter \"" + path_ + "\": ";
    struct stat st {};
    if (stat(path_.c_str(), &st) != 0) {
      Fail(errno == ENOENT ? codes::kFileNotFound : codes::kFileError, what + "no such file");
      return;
    }
    if (!S_ISREG(st.st_mode)) {
      Fail(S_ISDIR(st.st_mode) ? codes::kIsDirectory : codes::kFileError, what + "not a regular file");
      return;
    }
    if (ModelRpcLost(*model_)) {
      Fail(codes::kRpcLost, what + RpcLostMessage());
      return;
    }
    ScopedLogCapture capture;
    llama_adapter_lora* adapter = nullptr;
    {
      std::lock_guard<std::mutex> lock(AdapterSetMutex());
      adapter = llama_adapter_lora_init(model_->model, path_.c_str());
    }
    if (adapter == nullptr) {
      const std::string reason = capture.Reason();
      Fail(codes::kLoraInvalid, what + (reason.empty() ? "llama.cpp gave no reason" : reason) +
                                    " (llama_adapter_lora_init failed)");
      return;
    }
    handle_ = std::make_shared<LoraHandle>(model_, adapter, path_);
    handle_->alpha = AdapterFloat(adapter, "adapter.lora.alpha");
  }
  Napi::Value Result(Napi::Env env) override {
    auto* boxed = new LoraPtr(std::move(handle_));
    Napi::External<LoraPtr> external =
        Napi::External<LoraPtr>::New(env, boxed, [](Napi::Env, LoraPtr* p) { delete p; });
    external.TypeTag(&kLoraHandleTag);
    return GetAddonData(env).lora_constructor.New({external});
  }

 private:
  ModelPtr model_;
  std::string path_;
  LoraPtr handle_;
};

}  // namespace

LoraHandle::LoraHandle(ModelPtr owner, llama_adapter_lora* loaded, std::string file)
    : model(std::move(owner)), adapter(loaded), path(std::move(file)) {}

LoraHandle::~LoraHandle() {
  if (adapter == nullptr || ModelRpcLost(*model)) return;  // a lost server's buffers are leaked (rpc.h)
  std::lock_guard<std::mutex> lock(AdapterSetMutex());
  llama_adapter_lora_free(adapter);
}

void LoraAdapter::Init(Napi::Env env, Napi::Object exports) {
  Napi::Function ctor = DefineClass(env, "LoraAdapter",
                                    {
                                        StaticMethod<&LoraAdapter::Load>("load"),
                                        InstanceMethod<&LoraAdapter::Info>("info"),
                                        InstanceMethod<&LoraAdapter::Dispose>("dispose"),
                                        InstanceAccessor<&LoraAdapter::IsDisposed>("disposed"),
                                    });
  GetAddonData(env).lora_constructor = Napi::Persistent(ctor);
  exports.Set("LoraAdapter", ctor);
}

LoraAdapter::LoraAdapter(const Napi::CallbackInfo& info) : Napi::ObjectWrap<LoraAdapter>(info) {
  if (info.Length() != 1 || !info[0].IsExternal() ||
      !info[0].As<Napi::External<LoraPtr>>().CheckTypeTag(&kLoraHandleTag)) {
    throw Napi::TypeError::New(info.Env(),
                               "LoraAdapter: not constructible from JS; use LoraAdapter.load(model, path)");
  }
  handle_ = std::move(*info[0].As<Napi::External<LoraPtr>>().Data());
}

Napi::Value LoraAdapter::Load(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  constexpr const char* kMethod = "LoraAdapter.load";
  ModelPtr model = Model::FromValue(env, info.Length() > 0 ? info[0] : env.Undefined(), kMethod, "model");
  if (model->vocab_only)
    args::ThrowRange(env, kMethod, "the model was loaded with vocabOnly: it has no weights");
  std::string path = args::String(info, 1, kMethod, "path");
  return (new LoadLoraWorker(env, info[0].As<Napi::Object>(), std::move(model), std::move(path)))->Start();
}

LoraPtr LoraAdapter::FromValue(Napi::Env env, const Napi::Value& value, const char* method,
                               const char* what) {
  Napi::FunctionReference& ctor = GetAddonData(env).lora_constructor;
  if (!value.IsObject() || !value.As<Napi::Object>().InstanceOf(ctor.Value())) {
    args::ThrowType(env, method, std::string(what) + " must be a native LoraAdapter", value);
  }
  LoraAdapter* adapter = Napi::ObjectWrap<LoraAdapter>::Unwrap(value.As<Napi::Object>());
  if (!adapter->handle_) {
    Napi::Error e = Napi::Error::New(env, std::string(method) + ": " + what + " is disposed");
    e.Set("code", Napi::String::New(env, codes::kDisposed));
    throw e;
  }
  return adapter->handle_;
}

Napi::Value LoraAdapter::Info(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  if (!handle_) throw Napi::Error::New(env, "LoraAdapter.info: the adapter is disposed");
  Napi::Object out = Napi::Object::New(env);
  out.Set("path", handle_->path);
  out.Set("alpha", handle_->alpha);
  return out;
}

Napi::Value LoraAdapter::Dispose(const Napi::CallbackInfo& info) {
  handle_.reset();  // a context applying it keeps its own reference
  return info.Env().Undefined();
}

Napi::Value LoraAdapter::IsDisposed(const Napi::CallbackInfo& info) {
  return Napi::Boolean::New(info.Env(), !handle_);
}

}  // namespace toolwright
