// The host CPU as /proc/cpuinfo names it: what CPU workers report as their model, and what the
// dashboard compares with to know whether a measurement ran on a CPU like this host's.
#ifndef TUNEFARM_COMMON_HOST_CPU_H_
#define TUNEFARM_COMMON_HOST_CPU_H_

#include <string>

namespace tunefarm {

// The first "model name" of /proc/cpuinfo (x86), else its "Hardware"/"CPU part" line (ARM
// kernels name no model), or "unknown".
std::string HostCpuModel();

}  // namespace tunefarm

#endif  // TUNEFARM_COMMON_HOST_CPU_H_
