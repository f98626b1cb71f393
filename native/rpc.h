// llama.cpp's RPC backend (ggml-rpc): a model's layers on other machines, and this machine's
// backend served to others (`toolwright rpc-server`).
//
// The client side of ggml-rpc has no error path: a server that disappears mid-call makes it call
// ggml_abort() on its connection's dispatcher thread. InstallRpcAbortHandler() turns that one
// abort into a recorded loss: the dispatcher thread is parked for good (its socket is dead) and
// every wait of an RPC model's context gives up with TOOLWRIGHT_RPC_LOST instead of hanging. What
// lived on the lost server cannot be freed (freeing talks to the server), so an RPC model whose
// server was lost is leaked on dispose, and its context threads are left behind at shutdown. Any
// other abort still ends the process, as before.
#pragma once

#include <napi.h>

#include <chrono>
#include <functional>
#include <future>
#include <string>
#include <vector>

#include "devices.h"
#include "error_codes.h"
#include "ggml-backend.h"
#include "model.h"
#include "promise_worker.h"

namespace toolwright {

// At addon load: routes ggml's aborts through the handler above (no-op without RPC in the build).
void InstallRpcAbortHandler();

// Whether a connection to an RPC server broke in this process, and ggml's words for it.
bool RpcLost();
std::string RpcLostMessage();

// Calls `listener` with ggml's message when an RPC server is lost, on the thread that lost it
// (which then parks for good), or at once when one was lost already. Any thread. The listener must
// not throw. Returns the id StopListeningForRpcLoss takes.
uint64_t ListenForRpcLoss(std::function<void(const std::string&)> listener);
void StopListeningForRpcLoss(uint64_t id);

// The model has layers on RPC servers.
bool UsesRpc(const ModelHandle& model);
// ... and one of them was lost: everything of the model must be left alone (no free, no wait).
inline bool ModelRpcLost(const ModelHandle& model) { return RpcLost() && UsesRpc(model); }

// The "host:port" of each RPC server the model has layers on, in order.
std::vector<std::string> RpcEndpoints(const ModelHandle& model);

// Remembers a loaded model with layers on RPC servers (any thread), for RpcEndpointsInUse.
void RememberRpcModel(const ModelPtr& model);

// rpcEndpointsInUse() -> the "host:port" of every RPC server a live model of this process is
// connected to. ggml's server serves one client connection at a time, so a greeting on a second
// connection from this process would wait for the first to close: the TypeScript layer greets
// only the servers not listed here.
Napi::Value RpcEndpointsInUse(const Napi::CallbackInfo& info);

// The devices of the RPC servers at `endpoints` ("host:port"), in order, for a model's device
// list. Connects to each (the TypeScript layer has checked that each answers). Loading thread.
bool AddRpcDevices(const std::vector<std::string>& endpoints, std::vector<ggml_backend_dev_t>* devices,
                   std::vector<DeviceInfo>* infos, std::string* error);

// Waits for a job's outcome on an RPC model's context thread; throws TOOLWRIGHT_RPC_LOST when a
// server is lost meanwhile (the job itself never finishes then).
template <typename T>
T AwaitUnlessRpcLost(std::future<T>& outcome, const ModelHandle& model) {
  if (UsesRpc(model)) {
    while (outcome.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
      if (RpcLost()) throw CodedException(codes::kRpcLost, RpcLostMessage());
    }
  }
  return outcome.get();
}

// rpc.startServer(host, port, { threads }, onExit) -> undefined. Serves this machine's devices
// (its GPUs, else the CPU) on a thread of its own until the process ends; onExit(message) is
// called if the server stops by itself (it cannot be stopped otherwise: ggml's accept loop has no
// way out, so `toolwright rpc-server` ends with its process).
Napi::Value StartRpcServer(const Napi::CallbackInfo& info);

// { major, minor, patch } of the RPC protocol, or null when the build has no RPC backend.
Napi::Value RpcProtocol(Napi::Env env);

}  // namespace toolwright
