#include "tracker/summary_table.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace tunefarm {

std::string DeviceStateName(v1::DeviceState state) {
  switch (state) {
    case v1::DEVICE_STATE_IDLE:
      return "idle";
    case v1::DEVICE_STATE_BUSY:
      return "busy";
    case v1::DEVICE_STATE_NOISY:
      return "noisy";
    case v1::DEVICE_STATE_LOST:
      return "lost";
    default:
      return "unknown";
  }
}

namespace {

// The GPU (with its architecture) for GPU workers, else the CPU model.
std::string DeviceName(const v1::DeviceDescription& device) {
  if (device.gpu_name().empty()) return device.cpu_model();
  return device.gpu_arch().empty() ? device.gpu_name()
                                   : absl::StrCat(device.gpu_name(), " (", device.gpu_arch(), ")");
}

// The machine (uname -m) a worker reported, "(emu)" appended under a user-mode emulator
// (qemu-user: its timings are the emulator's); "-" for workers that report none.
std::string ArchName(const v1::DeviceDescription& device) {
  if (device.arch().empty()) return device.emulated() ? "(emu)" : "-";
  return device.emulated() ? absl::StrCat(device.arch(), "(emu)") : device.arch();
}

}  // namespace

std::string FormatSummaryTable(const v1::FarmSummary& summary) {
  std::string out;
  absl::StrAppendFormat(&out, "%-24s %-14s %-6s %6s %9s %9s %8s  %-12s %s\n", "WORKER", "KEY",
                        "STATE", "LEASED", "DONE", "NOISE_CV", "LAST_HB", "ARCH", "DEVICE");
  for (const v1::DeviceStatus& d : summary.device_status()) {
    absl::StrAppendFormat(&out, "%-24s %-14s %-6s %6d %9d %8.2f%% %7.1fs  %-12s %s\n",
                          d.worker_id(), d.device().key(), DeviceStateName(d.state()), d.leased(),
                          d.completed(), 100.0 * d.noise_cv(), d.seconds_since_heartbeat(),
                          ArchName(d.device()), DeviceName(d.device()));
  }
  if (summary.device_status_size() == 0) out += "(no devices registered)\n";
  absl::StrAppendFormat(&out, "\n%-14s %6s %7s %7s %5s\n", "KEY", "LIVE", "QUEUED", "LEASED",
                        "JOBS");
  for (const v1::QueueStatus& q : summary.queues()) {
    absl::StrAppendFormat(&out, "%-14s %6d %7d %7d %5d\n", q.device_key(), q.live_devices(),
                          q.queued(), q.leased(), q.jobs());
  }
  absl::StrAppendFormat(&out, "\nthroughput: %.1f results/s (last minute), %d results total%s\n",
                        summary.results_per_second(), summary.results_total(),
                        summary.draining() ? ", DRAINING" : "");
  return out;
}

}  // namespace tunefarm
