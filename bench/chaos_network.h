// The chaos benchmark's network: each process on its own "host", a network namespace joined to
// a bridge in the root namespace by a veth pair, as machines on one switch. A partition takes
// a host's switch port down: its packets are silently dropped, as when a cable is pulled.
// Where namespaces are refused (no CAP_NET_ADMIN), everything falls back to loopback and
// partitions cannot be injected; `mode()` says which ran.
#ifndef TUNEFARM_BENCH_CHAOS_NETWORK_H_
#define TUNEFARM_BENCH_CHAOS_NETWORK_H_

#include <string>
#include <vector>

#include "absl/status/status.h"

namespace tunefarm::bench {

class ChaosNetwork {
 public:
  // Creates one namespace per name in `hosts` (or falls back to loopback; `why_loopback()`
  // then says why). Names are made unique per process, so runs may overlap.
  explicit ChaosNetwork(const std::vector<std::string>& hosts, bool force_loopback);
  // Deletes the namespaces, their links and the bridge.
  ~ChaosNetwork();
  ChaosNetwork(const ChaosNetwork&) = delete;
  ChaosNetwork& operator=(const ChaosNetwork&) = delete;

  bool namespaces() const { return namespaces_; }
  // "netns" or "loopback".
  std::string mode() const { return namespaces_ ? "netns" : "loopback"; }
  const std::string& why_loopback() const { return why_loopback_; }

  // The namespace to run `host` in ("" on loopback) and its address.
  std::string Netns(const std::string& host) const;
  std::string Address(const std::string& host) const;

  // Cuts `host` off the switch, or reconnects it. FailedPrecondition on loopback.
  absl::Status Partition(const std::string& host);
  absl::Status Heal(const std::string& host);

 private:
  // Deletes the namespaces (their veth pairs go with them) and the bridge.
  void Teardown();
  int Index(const std::string& host) const;
  std::string HostLink(const std::string& host) const;
  std::string NamespaceName(const std::string& host) const;

  std::vector<std::string> hosts_;
  std::string prefix_;  // unique per run, short (interface names have 15 characters)
  std::string subnet_;  // "10.A.B."
  bool namespaces_ = false;
  std::string why_loopback_;
};

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_CHAOS_NETWORK_H_
