#include "bench/chaos_network.h"

#include <unistd.h>

#include "absl/strings/str_cat.h"
#include "bench/child_process.h"

namespace tunefarm::bench {
namespace {

constexpr char kIp[] = "/usr/sbin/ip";

}  // namespace

ChaosNetwork::ChaosNetwork(const std::vector<std::string>& hosts, bool force_loopback)
    : hosts_(hosts) {
  const int id = getpid() % 10000;
  prefix_ = absl::StrCat("tfc", id);
  subnet_ = absl::StrCat("10.", 200 + id % 50, ".", id / 50 % 250, ".");
  if (force_loopback) {
    why_loopback_ = "asked for with --loopback";
    return;
  }
  auto run = [](std::vector<std::string> argv) {
    argv.insert(argv.begin(), kIp);
    return RunQuietly(argv);
  };
  const std::string bridge = prefix_ + "br";
  absl::Status s = run({"link", "add", bridge, "type", "bridge"});
  if (s.ok()) s = run({"addr", "add", subnet_ + "254/24", "dev", bridge});
  if (s.ok()) s = run({"link", "set", bridge, "up"});
  for (size_t i = 0; i < hosts_.size() && s.ok(); ++i) {
    const std::string ns = NamespaceName(hosts_[i]);
    const std::string link = HostLink(hosts_[i]);
    s = run({"netns", "add", ns});
    if (s.ok()) s = run({"link", "add", link, "type", "veth", "peer", "name", "eth0", "netns", ns});
    if (s.ok()) s = run({"link", "set", link, "master", bridge, "up"});
    if (s.ok()) {
      s = run({"-n", ns, "addr", "add", absl::StrCat(subnet_, i + 1, "/24"), "dev", "eth0"});
    }
    if (s.ok()) s = run({"-n", ns, "link", "set", "eth0", "up"});
    if (s.ok()) s = run({"-n", ns, "link", "set", "lo", "up"});
  }
  namespaces_ = s.ok();
  if (!namespaces_) {
    why_loopback_ = absl::StrCat("network namespaces refused here: ", s.message());
    Teardown();  // whatever part was made
  }
}

ChaosNetwork::~ChaosNetwork() {
  if (namespaces_) Teardown();
}

void ChaosNetwork::Teardown() {
  for (const std::string& host : hosts_) {
    (void)RunQuietly({kIp, "netns", "del", NamespaceName(host)});  // its veth goes with it
    (void)RunQuietly({kIp, "link", "del", HostLink(host)});
  }
  (void)RunQuietly({kIp, "link", "del", prefix_ + "br"});
}

int ChaosNetwork::Index(const std::string& host) const {
  for (size_t i = 0; i < hosts_.size(); ++i) {
    if (hosts_[i] == host) return static_cast<int>(i);
  }
  return -1;
}

std::string ChaosNetwork::Netns(const std::string& host) const {
  return namespaces_ ? NamespaceName(host) : "";
}

std::string ChaosNetwork::NamespaceName(const std::string& host) const {
  return absl::StrCat(prefix_, "-", host);
}

std::string ChaosNetwork::HostLink(const std::string& host) const {
  return absl::StrCat(prefix_, "v", Index(host));
}

std::string ChaosNetwork::Address(const std::string& host) const {
  return namespaces_ ? absl::StrCat(subnet_, Index(host) + 1) : "127.0.0.1";
}

absl::Status ChaosNetwork::Partition(const std::string& host) {
  if (!namespaces_) return absl::FailedPreconditionError("no partitions on loopback");
  return RunQuietly({kIp, "link", "set", HostLink(host), "down"});
}

absl::Status ChaosNetwork::Heal(const std::string& host) {
  if (!namespaces_) return absl::FailedPreconditionError("no partitions on loopback");
  return RunQuietly({kIp, "link", "set", HostLink(host), "up"});
}

}  // namespace tunefarm::bench
