#include "rpc.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <thread>

#include "napi_args.h"

#ifdef TOOLWRIGHT_HAS_RPC
#include "ggml-rpc.h"
#endif

#if defined(TOOLWRIGHT_HAS_RPC) && !defined(_WIN32)
#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace toolwright {
namespace {

constexpr const char* kServeMethod = "rpc.startServer";

std::atomic<bool> g_lost{false};
std::mutex g_lost_mutex;
std::string g_lost_message;  // guarded by g_lost_mutex

std::mutex g_listeners_mutex;
uint64_t g_next_listener = 1;  // guarded by g_listeners_mutex
std::vector<std::pair<uint64_t, std::function<void(const std::string&)>>> g_listeners;  // same

// Tells every listener of a loss (the thread that lost the server, before it parks).
[[maybe_unused]] void NotifyRpcLoss(const std::string& message) {
  std::vector<std::function<void(const std::string&)>> listeners;
  {
    std::lock_guard<std::mutex> lock(g_listeners_mutex);
    for (const auto& entry : g_listeners) listeners.push_back(entry.second);
  }
  for (const auto& listener : listeners) listener(message);
}

std::mutex g_models_mutex;
std::vector<std::weak_ptr<ModelHandle>> g_rpc_models;  // guarded by g_models_mutex

#ifdef TOOLWRIGHT_HAS_RPC

// ggml_abort() calls this, then abort(). Only ggml-rpc's aborts are survivable: they come from a
// connection whose socket is dead, on that connection's own thread, so parking the thread forever
// leaves the rest of the process running (the callers waiting on it are released by
// AwaitUnlessRpcLost). Every other abort keeps its usual outcome.
void OnGgmlAbort(const char* message) {
  const bool rpc = message != nullptr && std::strstr(message, "ggml-rpc") != nullptr;
  std::fprintf(stderr, "%s\n", message != nullptr ? message : "ggml abort");
  std::fflush(stderr);
  if (!rpc) return;
  {
    std::lock_guard<std::mutex> lock(g_lost_mutex);
    if (g_lost_message.empty()) g_lost_message = message;
  }
  g_lost.store(true);
  NotifyRpcLoss(RpcLostMessage());
  for (;;) std::this_thread::sleep_for(std::chrono::hours(24));
}

// Whether `host:port` can be listened on now (ggml's server only prints its failure).
bool CanListen(const std::string& host, int port, std::string* error) {
#ifdef _WIN32
  (void)host;
  (void)port;
  (void)error;
  return true;
#else
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), std::to_string(port).c_str(), &hints, &found);
  if (rc != 0 || found == nullptr) {
    *error = "cannot resolve host \"" + host + "\" to an IPv4 address: " + gai_strerror(rc);
    return false;
  }
  const int fd = socket(found->ai_family, found->ai_socktype, found->ai_protocol);
  bool ok = fd >= 0;
  if (ok) {
    const int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    ok = bind(fd, found->ai_addr, found->ai_addrlen) == 0;
  }
  if (!ok) *error = "cannot listen on " + host + ":" + std::to_string(port) + ": " + std::strerror(errno);
  if (fd >= 0) close(fd);
  freeaddrinfo(found);
  return ok;
#endif
}

std::atomic<bool> g_serving{false};

#endif  // TOOLWRIGHT_HAS_RPC

}  // namespace

void InstallRpcAbortHandler() {
#ifdef TOOLWRIGHT_HAS_RPC
  ggml_set_abort_callback(&OnGgmlAbort);
#endif
}

bool RpcLost() { return g_lost.load(); }

uint64_t ListenForRpcLoss(std::function<void(const std::string&)> listener) {
  uint64_t id = 0;
  {
    std::lock_guard<std::mutex> lock(g_listeners_mutex);
    id = g_next_listener++;
    g_listeners.emplace_back(id, listener);
  }
  if (RpcLost()) listener(RpcLostMessage());
  return id;
}

void StopListeningForRpcLoss(uint64_t id) {
  std::lock_guard<std::mutex> lock(g_listeners_mutex);
  g_listeners.erase(std::remove_if(g_listeners.begin(), g_listeners.end(),
                                   [id](const auto& entry) { return entry.first == id; }),
                    g_listeners.end());
}

std::string RpcLostMessage() {
  std::lock_guard<std::mutex> lock(g_lost_mutex);
  return "the connection to an RPC server broke (" + g_lost_message +
         "): the model's layers on it are gone. Dispose the model; RPC models cannot be used again in "
         "this process (restart it once the server runs again)";
}

bool UsesRpc(const ModelHandle& model) {
  for (const DeviceInfo& d : model.devices)
    if (d.backend == "RPC") return true;
  return false;
}

std::vector<std::string> RpcEndpoints(const ModelHandle& model) {
  std::vector<std::string> endpoints;
  for (const DeviceInfo& d : model.devices)
    if (d.backend == "RPC" && std::find(endpoints.begin(), endpoints.end(), d.description) == endpoints.end())
      endpoints.push_back(d.description);  // ggml names an RPC device by its endpoint
  return endpoints;
}

void RememberRpcModel(const ModelPtr& model) {
  std::lock_guard<std::mutex> lock(g_models_mutex);
  g_rpc_models.erase(std::remove_if(g_rpc_models.begin(), g_rpc_models.end(),
                                    [](const std::weak_ptr<ModelHandle>& m) { return m.expired(); }),
                     g_rpc_models.end());
  g_rpc_models.push_back(model);
}

Napi::Value RpcEndpointsInUse(const Napi::CallbackInfo& info) {
  std::vector<std::string> endpoints;
  {
    std::lock_guard<std::mutex> lock(g_models_mutex);
    for (const std::weak_ptr<ModelHandle>& weak : g_rpc_models) {
      const ModelPtr model = weak.lock();
      if (!model) continue;
      for (const std::string& endpoint : RpcEndpoints(*model))
        if (std::find(endpoints.begin(), endpoints.end(), endpoint) == endpoints.end())
          endpoints.push_back(endpoint);
    }
  }
  Napi::Array out = Napi::Array::New(info.Env(), endpoints.size());
  for (uint32_t i = 0; i < endpoints.size(); i++) out.Set(i, endpoints[i]);
  return out;
}

bool AddRpcDevices(const std::vector<std::string>& endpoints, std::vector<ggml_backend_dev_t>* devices,
                   std::vector<DeviceInfo>* infos, std::string* error) {
  if (endpoints.empty()) return true;
#ifdef TOOLWRIGHT_HAS_RPC
  if (RpcLost()) {
    *error = "rpcServers cannot be used: " + RpcLostMessage();
    return false;
  }
  std::vector<ggml_backend_dev_t> added;
  for (const std::string& endpoint : endpoints) {
    ggml_backend_reg_t reg = ggml_backend_rpc_add_server(endpoint.c_str());
    if (reg == nullptr || ggml_backend_reg_dev_count(reg) == 0) {
      *error = "the RPC server at " + endpoint + " offers no device";
      return false;
    }
    for (size_t i = 0; i < ggml_backend_reg_dev_count(reg); i++)
      added.push_back(ggml_backend_reg_dev_get(reg, i));
  }
  // As llama.cpp does: the servers' devices first, then the local GPUs.
  devices->insert(devices->begin(), added.begin(), added.end());
  std::vector<DeviceInfo> described;
  for (ggml_backend_dev_t dev : added) described.push_back(Describe(dev));
  infos->insert(infos->begin(), described.begin(), described.end());
  return true;
#else
  (void)devices;
  (void)infos;
  *error = "rpcServers: this build of the addon has no RPC backend (rebuild with TOOLWRIGHT_RPC=1)";
  return false;
#endif
}

Napi::Value StartRpcServer(const Napi::CallbackInfo& info) {
  Napi::Env env = info.Env();
  const std::string host = args::String(info, 0, kServeMethod, "host");
  if (host.empty() || host.find(':') != std::string::npos || host.find('\0') != std::string::npos)
    args::ThrowRange(env, kServeMethod, "host must be a host name or IPv4 address without a port");
  const int port = static_cast<int>(args::Integer(info, 1, kServeMethod, "port", 1, 65535));
  Napi::Object opts = args::OptionalObject(info, 2, kServeMethod, "options");
  const auto threads = static_cast<size_t>(args::OptInt(opts, "threads", 1, 1, 1024, kServeMethod));
  Napi::Function on_exit = args::OptionalFunction(info, 3, kServeMethod, "onExit");
#ifdef TOOLWRIGHT_HAS_RPC
  auto fail = [&](const std::string& message) {
    Napi::Error error = Napi::Error::New(env, std::string(kServeMethod) + ": " + message);
    error.Set("code", Napi::String::New(env, codes::kRpcServerFailed));
    throw error;
  };
  if (g_serving.exchange(true)) fail("this process already serves RPC (one server per process)");
  std::string problem;
  if (!CanListen(host, port, &problem)) {
    g_serving.store(false);
    fail(problem);
  }
  // This machine's GPUs (llama.cpp's rpc-server default), else its CPU.
  std::vector<ggml_backend_dev_t> served;
  for (size_t i = 0; i < ggml_backend_dev_count(); i++) {
    ggml_backend_dev_t dev = ggml_backend_dev_get(i);
    const auto type = ggml_backend_dev_type(dev);
    if (type == GGML_BACKEND_DEVICE_TYPE_GPU || type == GGML_BACKEND_DEVICE_TYPE_IGPU) served.push_back(dev);
  }
  if (served.empty()) served.push_back(ggml_backend_dev_by_type(GGML_BACKEND_DEVICE_TYPE_CPU));
  if (served.back() == nullptr) {
    g_serving.store(false);
    fail("the build has no device to serve");
  }
  Napi::ThreadSafeFunction exited;
  const bool notify = !on_exit.IsEmpty();
  if (notify) {
    exited = Napi::ThreadSafeFunction::New(env, on_exit, "toolwright.rpcServerExit", 0, 1);
    exited.Unref(env);  // serving does not keep the process alive by itself (the CLI does)
  }
  const std::string endpoint = host + ":" + std::to_string(port);
  std::thread([endpoint, threads, served, notify, exited]() mutable {
    // Returns only when the server cannot go on (its socket failed).
    ggml_backend_rpc_start_server(endpoint.c_str(), nullptr, threads, served.size(), served.data());
    g_serving.store(false);
    if (!notify) return;
    auto* message = new std::string("the RPC server on " + endpoint + " stopped (see the messages above)");
    const napi_status status =
        exited.BlockingCall(message, [](Napi::Env call_env, Napi::Function callback, std::string* text) {
          std::unique_ptr<std::string> owned(text);
          if (call_env == nullptr || callback.IsEmpty()) return;
          try {
            callback.Call({Napi::String::New(call_env, *owned)});
          } catch (const Napi::Error&) {
            // The CLI's callback only records the message.
          }
        });
    if (status != napi_ok) delete message;
    exited.Release();
  }).detach();
  return env.Undefined();
#else
  (void)threads;
  (void)on_exit;
  Napi::Error error = Napi::Error::New(
      env, std::string(kServeMethod) +
               ": this build of the addon has no RPC backend (rebuild with TOOLWRIGHT_RPC=1)");
  error.Set("code", Napi::String::New(env, codes::kRpcServerFailed));
  throw error;
#endif
}

Napi::Value RpcProtocol(Napi::Env env) {
#ifdef TOOLWRIGHT_HAS_RPC
  Napi::Object out = Napi::Object::New(env);
  out.Set("major", RPC_PROTO_MAJOR_VERSION);
  out.Set("minor", RPC_PROTO_MINOR_VERSION);
  out.Set("patch", RPC_PROTO_PATCH_VERSION);
  return out;
#else
  return env.Null();
#endif
}

}  // namespace toolwright
