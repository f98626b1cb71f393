// TCP keepalive and a user timeout on ggml-rpc's client connections, so a dead network link is
// found instead of waited on forever.
//
// ggml-rpc's client socket has neither: a link that goes down while a server's reply is on its way
// leaves the client blocked in recv() with nothing to retransmit, for good. ggml-rpc makes and keeps
// its sockets to itself, so they are found from outside: every TCP socket of this process whose peer
// is one of the given endpoints gets the options below. With them the kernel ends a dead connection
// (recv fails, ggml-rpc aborts, rpc.h turns that into TOOLWRIGHT_RPC_LOST):
// - keepalive probes after 10 s without traffic, every 5 s: they are answered by the server's
//   kernel, so a server that computes for long is never taken for a dead one;
// - a user timeout of 25 s: a connection whose probes or sent data stay unanswered that long is
//   ended (Linux TCP_USER_TIMEOUT; macOS TCP_RXT_CONNDROPTIME for sent data, and 3 probes).
// Linux and macOS; elsewhere (Windows) a no-op: there the OS's retransmission timeout decides.
#pragma once

#include <string>
#include <vector>

namespace toolwright {

// Seconds without traffic before the first probe, between probes, and the user timeout.
constexpr int kRpcKeepaliveIdleS = 10;
constexpr int kRpcKeepaliveIntervalS = 5;
constexpr int kRpcKeepaliveProbes = 3;
constexpr int kRpcUserTimeoutS = kRpcKeepaliveIdleS + kRpcKeepaliveIntervalS * kRpcKeepaliveProbes;

// Sets the options above on every TCP socket of this process connected to one of `endpoints`
// ("host:port", resolved as ggml-rpc does: IPv4). Setting them again is harmless, so callers call
// this after every step that may have opened a connection. Returns how many sockets it set (for
// tests and logs). Any thread.
int KeepRpcConnectionsAlive(const std::vector<std::string>& endpoints);

}  // namespace toolwright
