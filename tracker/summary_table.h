// Renders a FarmSummary as the plain-text tables of `tunefarm status`.
#ifndef TUNEFARM_TRACKER_SUMMARY_TABLE_H_
#define TUNEFARM_TRACKER_SUMMARY_TABLE_H_

#include <string>

#include "proto/tracker.pb.h"

namespace tunefarm {

// Name of a device state as shown in the table: "idle", "busy", "noisy", "lost"; "unknown" for
// any other value.
std::string DeviceStateName(v1::DeviceState state);

// Two tables (devices, then queues) and a throughput line, newline-terminated. A device row
// shows its leases, completed results, noise (coefficient of variation, in percent), seconds
// since its last heartbeat, its machine (ARCH: "x86_64", "aarch64"; "aarch64(emu)" for a
// worker under qemu-user), and its GPU (with arch) or CPU model. "DRAINING" ends the
// throughput line while the tracker drains.
std::string FormatSummaryTable(const v1::FarmSummary& summary);

}  // namespace tunefarm

#endif  // TUNEFARM_TRACKER_SUMMARY_TABLE_H_
