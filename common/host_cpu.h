// The host CPU as /proc/cpuinfo names it: what CPU workers report as their model, and what the
// dashboard compares with to know whether a measurement ran on a CPU like this host's. The one
// parser of cpuinfo listings in tunefarm (rpc_server/emulation reads its fields through here).
#ifndef TUNEFARM_COMMON_HOST_CPU_H_
#define TUNEFARM_COMMON_HOST_CPU_H_

#include <string>

#include "absl/strings/string_view.h"

namespace tunefarm {

// The text of this machine's /proc/cpuinfo ("" when it cannot be read).
std::string ReadHostCpuinfo();

// The value of the first "KEY : VALUE" line of a cpuinfo listing whose key (blanks around it
// stripped) is exactly `key`, with blanks stripped; "" when no line has that key.
std::string CpuinfoField(absl::string_view cpuinfo, absl::string_view key);

// The CPU model of a cpuinfo listing: its first "model name" (x86 kernels print one), else
// "unknown". Arm kernels print no model name, and an Arm board reports "unknown": never the
// "Hardware" or "CPU part" line, since the model is part of a device's fingerprint in the
// tuning log and a new name would make a second device of every board already stored there.
std::string CpuinfoModel(absl::string_view cpuinfo);

// CpuinfoModel of this machine's /proc/cpuinfo.
std::string HostCpuModel();

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_HOST_CPU_H_
