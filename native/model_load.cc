#include "model_load.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "devices.h"
#include "gguf_check.h"
#include "llama.h"
#include "log_capture.h"
#include "model.h"
#include "napi_args.h"
#include "promise_worker.h"
#include "rpc.h"
#include "rpc_keepalive.h"

namespace toolwright {
namespace {

namespace fs = std::filesystem;

constexpr const char* kMethod = "Model.load";

struct LoadOptions {
  std::string path;
  bool vocab_only = false;
  int32_t gpu_layers = -1;               // all
  std::string gpu = "auto";              // "auto", "none" or a backend name
  int use_mmap = -1;                     // -1: llama.cpp decides
  std::vector<std::string> rpc_servers;  // "host:port" of each RPC server, in order
};

struct FileProblem {
  std::string code;
  std::string reason;
};

std::string HexBytes(const unsigned char* bytes, size_t n) {
  std::string out;
  char buf[8];
  for (size_t i = 0; i < n; i++) {
    std::snprintf(buf, sizeof(buf), i == 0 ? "%02x" : " %02x", bytes[i]);
    out += buf;
  }
  return out;
}

// The checks llama.cpp would otherwise answer with a generic "failed to load model".
bool CheckModelFile(const std::string& path, FileProblem* problem) {
  std::error_code ec;
  const fs::path file = fs::u8path(path);
  const fs::file_status status = fs::status(file, ec);
  if (ec || !fs::exists(status)) {
    if (ec && ec != std::errc::no_such_file_or_directory && ec != std::errc::not_a_directory) {
      *problem = {codes::kFileError, "cannot access the file: " + ec.message()};
    } else {
      *problem = {codes::kFileNotFound, "no such file"};
    }
    return false;
  }
  if (fs::is_directory(status)) {
    *problem = {codes::kIsDirectory, "it is a directory, not a GGUF file"};
    return false;
  }
  if (!fs::is_regular_file(status)) {
    *problem = {codes::kFileError, "not a regular file"};
    return false;
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    *problem = {codes::kAccessDenied, "the file cannot be opened for reading"};
    return false;
  }
  unsigned char magic[4] = {0, 0, 0, 0};
  in.read(reinterpret_cast<char*>(magic), 4);
  const auto got = static_cast<size_t>(in.gcount());
  if (got == 0) {
    *problem = {codes::kInvalidGguf, "the file is empty"};
    return false;
  }
  if (got < 4) {
    *problem = {codes::kInvalidGguf,
                "the file is truncated (" + std::to_string(got) + " bytes, shorter than the GGUF header)"};
    return false;
  }
  if (magic[0] != 'G' || magic[1] != 'G' || magic[2] != 'U' || magic[3] != 'F') {
    *problem = {codes::kInvalidGguf, "not a GGUF file: it starts with bytes " + HexBytes(magic, 4) +
                                         ", expected \"GGUF\" (47 47 55 46)"};
    return false;
  }
  return true;
}

class LoadModelWorker : public PromiseWorker {
 public:
  LoadModelWorker(Napi::Env env, LoadOptions options, Napi::Function on_progress,
                  std::shared_ptr<std::atomic<bool>> cancelled)
      : PromiseWorker(env, "toolwright.loadModel", Napi::Object()),
        options_(std::move(options)),
        cancelled_(std::move(cancelled)) {
    if (!on_progress.IsEmpty()) {
      progress_ = Napi::ThreadSafeFunction::New(env, on_progress, "toolwright.loadProgress", 0, 1);
      has_progress_ = true;
    }
  }

  ~LoadModelWorker() override {
    if (has_progress_ && !released_) progress_.Release();
  }

 protected:
  void Run() override {
    Load();
    if (has_progress_) {
      progress_.Release();
      released_ = true;
    }
  }

  Napi::Value Result(Napi::Env env) override { return Model::NewInstance(env, std::move(handle_)); }

 private:
  std::string Where() const { return "Cannot load model \"" + options_.path + "\": "; }

  void Load() {
    if (cancelled_->load()) {
      Fail(codes::kAbort, Where() + "the load was aborted");
      return;
    }
    FileProblem problem;
    if (!CheckModelFile(options_.path, &problem)) {
      Fail(problem.code, Where() + problem.reason);
      return;
    }
    GgufFindings findings;
    {
      std::string reason;
      if (!CheckModelFile(options_.path, options_.vocab_only, &findings, &reason)) {
        Fail(codes::kInvalidGguf, Where() + reason);
        return;
      }
    }
    std::vector<ggml_backend_dev_t> devices;
    std::vector<DeviceInfo> placed;
    std::string device_error;
    if (!options_.vocab_only && !SelectDevices(options_.gpu, &devices, &placed, &device_error)) {
      Fail(codes::kNoGpu, Where() + device_error);
      return;
    }
    if (!options_.vocab_only && !AddRpcDevices(options_.rpc_servers, &devices, &placed, &device_error)) {
      Fail(RpcLost() ? codes::kRpcLost : codes::kRpcUnreachable, Where() + device_error);
      return;
    }
    devices.push_back(nullptr);  // llama.cpp takes a NULL-terminated list
    llama_model_params params = llama_model_default_params();
    params.vocab_only = options_.vocab_only;
    params.n_gpu_layers = placed.empty() ? 0 : options_.gpu_layers;
    params.devices = devices.data();
    if (options_.use_mmap == 1) params.load_mode = LLAMA_LOAD_MODE_MMAP;
    if (options_.use_mmap == 0 || findings.needs_read_load) params.load_mode = LLAMA_LOAD_MODE_NONE;
    params.progress_callback = &LoadModelWorker::OnProgress;
    params.progress_callback_user_data = this;

    ScopedLogCapture capture;
    llama_model* model = llama_model_load_from_file(options_.path.c_str(), params);
    if (cancelled_->load()) {
      if (model != nullptr) llama_model_free(model);
      Fail(codes::kAbort, Where() + "the load was aborted");
      return;
    }
    if (model == nullptr) {
      std::string reason = capture.Reason();
      if (reason.empty()) reason = "llama.cpp gave no reason";
      Fail(codes::kLoadFailed, Where() + reason + " (llama_model_load_from_file failed)");
      return;
    }
    std::string vocab_problem;
    if (!CheckLoadedVocab(llama_model_get_vocab(model), &vocab_problem)) {
      llama_model_free(model);
      Fail(codes::kInvalidGguf, Where() + vocab_problem);
      return;
    }
    handle_ = std::make_shared<ModelHandle>(model, options_.vocab_only, options_.path);
    if (!placed.empty()) {
      const int32_t offloadable = llama_model_n_layer(model) + 1;  // the layers and the output
      handle_->gpu_layers =
          options_.gpu_layers < 0 ? offloadable : std::min(options_.gpu_layers, offloadable);
      handle_->devices = std::move(placed);
      if (UsesRpc(*handle_)) {
        RememberRpcModel(handle_);
        KeepRpcConnectionsAlive(options_.rpc_servers);  // a connection opened after the upload too
      }
    }
  }

  // Runs on the loading thread; returning false makes llama.cpp abandon the load.
  static bool OnProgress(float progress, void* user_data) {
    auto* self = static_cast<LoadModelWorker*>(user_data);
    // The weights' buffers (and their connections) exist before the first step: a link lost during
    // the upload is then found too (rpc_keepalive.h).
    if (!self->connections_kept_alive_) {
      self->connections_kept_alive_ = true;
      KeepRpcConnectionsAlive(self->options_.rpc_servers);
    }
    // Thousands of tensors: only forward steps of at least 1% (and the end).
    if (self->has_progress_ && (progress >= 1.0f || progress - self->last_sent_ >= 0.01f)) {
      self->last_sent_ = progress;
      auto* value = new float(progress);
      napi_status status =
          self->progress_.NonBlockingCall(value, [](Napi::Env env, Napi::Function callback, float* data) {
            const float p = *data;
            delete data;
            if (env == nullptr || callback.IsEmpty()) return;
            try {
              callback.Call({Napi::Number::New(env, p)});
            } catch (const Napi::Error&) {
              // The TS wrapper's callback does not throw; a user's error is reported there.
            }
          });
      if (status != napi_ok) delete value;
    }
    return !self->cancelled_->load();
  }

  LoadOptions options_;
  std::shared_ptr<std::atomic<bool>> cancelled_;
  Napi::ThreadSafeFunction progress_;
  bool has_progress_ = false;
  bool released_ = false;
  float last_sent_ = -1.0f;
  bool connections_kept_alive_ = false;
  ModelPtr handle_;
};

}  // namespace

// load(path, {vocabOnly, gpuLayers, gpu, useMmap, rpcServers}, onProgress?) -> { promise, cancel }
Napi::Value LoadModel(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  LoadOptions options;
  options.path = args::String(info, 0, kMethod, "path");
  if (options.path.empty()) args::ThrowRange(env, kMethod, "path must not be empty");
  if (options.path.find('\0') != std::string::npos)
    args::ThrowRange(env, kMethod, "path must not contain NUL characters");
  Napi::Object opts = args::OptionalObject(info, 1, kMethod, "options");
  options.vocab_only = args::OptBool(opts, "vocabOnly", false, kMethod);
  options.gpu_layers = static_cast<int32_t>(args::OptInt(opts, "gpuLayers", -1, -1, INT32_MAX, kMethod));
  if (opts.Has("gpu") && !opts.Get("gpu").IsUndefined()) {
    Napi::Value gpu = opts.Get("gpu");
    if (!gpu.IsString())
      args::ThrowType(env, kMethod, "options.gpu must be a string (\"auto\", \"none\" or a backend name)",
                      gpu);
    options.gpu = gpu.As<Napi::String>().Utf8Value();
    if (options.gpu.empty()) args::ThrowRange(env, kMethod, "options.gpu must not be empty");
  }
  if (opts.Has("useMmap") && !opts.Get("useMmap").IsUndefined()) {
    options.use_mmap = args::OptBool(opts, "useMmap", true, kMethod) ? 1 : 0;
  }
  options.rpc_servers = args::OptStringArray(opts, "rpcServers", kMethod);
  for (const std::string& endpoint : options.rpc_servers) {
    const size_t colon = endpoint.rfind(':');
    if (colon == std::string::npos || colon == 0 || colon + 1 == endpoint.size() ||
        endpoint.find('\0') != std::string::npos)
      args::ThrowRange(env, kMethod,
                       "options.rpcServers entries must be \"host:port\", got \"" + endpoint + "\"");
  }
  Napi::Function on_progress = args::OptionalFunction(info, 2, kMethod, "onProgress");

  auto cancelled = std::make_shared<std::atomic<bool>>(false);
  auto* worker = new LoadModelWorker(env, std::move(options), on_progress, cancelled);
  Napi::Object out = Napi::Object::New(env);
  out.Set("promise", worker->Promise());
  out.Set("cancel", Napi::Function::New(
                        env,
                        [cancelled](const Napi::CallbackInfo& call) {
                          cancelled->store(true);
                          return call.Env().Undefined();
                        },
                        "cancel"));
  worker->Queue();
  return out;
}

}  // namespace toolwright
