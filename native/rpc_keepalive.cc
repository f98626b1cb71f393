#include "rpc_keepalive.h"

#if defined(__linux__) || defined(__APPLE__)
#define TOOLWRIGHT_RPC_KEEPALIVE 1
#include <arpa/inet.h>
#include <dirent.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <cstdlib>
#include <cstring>
#endif

namespace toolwright {

#ifdef TOOLWRIGHT_RPC_KEEPALIVE
namespace {

// Why a scan and not a wrapper around connect() (`-Wl,--wrap=connect`): the wrapper needs GNU ld
// (macOS's linker has no --wrap) and would change every connect() linked into the addon. A scan
// of the descriptors touches only sockets whose peer is a model's RPC server, works on Linux and
// macOS alike, and costs a few system calls per open descriptor, a few times per load.
#ifdef __APPLE__
constexpr const char* kOpenDescriptors = "/dev/fd";
#else
constexpr const char* kOpenDescriptors = "/proc/self/fd";
#endif

struct PeerAddress {
  in_addr_t address;  // network byte order, as in sockaddr_in
  in_port_t port;     // same
};

// The IPv4 addresses `endpoint` ("host:port") resolves to; none when it does not.
void Resolve(const std::string& endpoint, std::vector<PeerAddress>* out) {
  const size_t colon = endpoint.rfind(':');
  if (colon == std::string::npos) return;
  const std::string host = endpoint.substr(0, colon);
  const std::string port = endpoint.substr(colon + 1);
  addrinfo hints{};
  hints.ai_family = AF_INET;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), port.c_str(), &hints, &found) != 0) return;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(a->ai_addr);
    out->push_back({in->sin_addr.s_addr, in->sin_port});
  }
  freeaddrinfo(found);
}

// Whether `fd` is a TCP socket connected to one of `peers`.
bool ConnectedToOneOf(int fd, const std::vector<PeerAddress>& peers) {
  int type = 0;
  socklen_t type_size = sizeof(type);
  if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &type_size) != 0 || type != SOCK_STREAM) return false;
  sockaddr_storage peer{};
  socklen_t peer_size = sizeof(peer);
  if (getpeername(fd, reinterpret_cast<sockaddr*>(&peer), &peer_size) != 0 || peer.ss_family != AF_INET)
    return false;
  const auto* in = reinterpret_cast<const sockaddr_in*>(&peer);
  for (const PeerAddress& p : peers)
    if (p.address == in->sin_addr.s_addr && p.port == in->sin_port) return true;
  return false;
}

bool SetInt(int fd, int level, int option, int value) {
  return setsockopt(fd, level, option, &value, sizeof(value)) == 0;
}

bool SetKeepalive(int fd) {
  bool ok = SetInt(fd, SOL_SOCKET, SO_KEEPALIVE, 1);
#ifdef __APPLE__
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_KEEPALIVE, kRpcKeepaliveIdleS);
#else
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_KEEPIDLE, kRpcKeepaliveIdleS);
#endif
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_KEEPINTVL, kRpcKeepaliveIntervalS);
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_KEEPCNT, kRpcKeepaliveProbes);
#if defined(TCP_USER_TIMEOUT)
  // Linux: also bounds the probes (the connection ends once they go unanswered this long).
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, kRpcUserTimeoutS * 1000);
#elif defined(TCP_RXT_CONNDROPTIME)
  ok = ok && SetInt(fd, IPPROTO_TCP, TCP_RXT_CONNDROPTIME, kRpcUserTimeoutS);
#endif
  return ok;
}

}  // namespace

int KeepRpcConnectionsAlive(const std::vector<std::string>& endpoints) {
  std::vector<PeerAddress> peers;
  for (const std::string& endpoint : endpoints) Resolve(endpoint, &peers);
  if (peers.empty()) return 0;
  DIR* dir = opendir(kOpenDescriptors);
  if (dir == nullptr) return 0;
  int set = 0;
  for (dirent* entry = readdir(dir); entry != nullptr; entry = readdir(dir)) {
    char* end = nullptr;
    const long fd = std::strtol(entry->d_name, &end, 10);
    if (end == entry->d_name || *end != '\0' || fd == dirfd(dir)) continue;  // ".", "..", the listing
    if (ConnectedToOneOf(static_cast<int>(fd), peers) && SetKeepalive(static_cast<int>(fd))) set++;
  }
  closedir(dir);
  return set;
}

#else

int KeepRpcConnectionsAlive(const std::vector<std::string>& endpoints) {
  (void)endpoints;
  return 0;
}

#endif

}  // namespace toolwright
