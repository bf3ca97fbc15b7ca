// Whether this process runs under a user-mode emulator (qemu-user), and how a worker that does
// starts its sandbox child.
//
// qemu-user (7.2, as in Debian 12) reports the guest's machine in uname() ("aarch64") but passes
// the host's /proc/cpuinfo through unchanged (an x86 "vendor_id"/"flags" listing), so the two
// disagree about the CPU family exactly when the program is emulated. On a real board both
// describe the same family, including a 32-bit Arm userland on a 64-bit Arm kernel ("armv8l"
// with an Armv8 cpuinfo), which is not emulation.
//
// Under qemu-user without binfmt_misc the host kernel cannot exec a guest binary (the exec
// returns ENOEXEC and the spawned child exits 127), so the worker execs the emulator with the
// sandbox binary as its argument (EmulatorExecPrefix).
#ifndef TUNEFARM_RPC_SERVER_EMULATION_H_
#define TUNEFARM_RPC_SERVER_EMULATION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm {

struct EmulationInfo {
  // The program's machine as uname() reports it, e.g. "aarch64" or "x86_64".
  std::string arch;
  // The CPU family /proc/cpuinfo describes: "x86", "arm", "riscv", "ppc", "s390", "mips", or
  // "" when the listing names none of them.
  std::string cpuinfo_family;
  // The CPU model as /proc/cpuinfo names it (the host's when emulated): CpuinfoModel
  // (common/host_cpu.h), "unknown" when it names none, as on most Arm boards.
  std::string host_cpu_model;
  // uname()'s family and cpuinfo's are both known and differ.
  bool emulated = false;
};

// The CPU family of a uname() machine name: "x86" (x86_64, i386..i686), "arm" (aarch64,
// arm64, armv*), "riscv", "ppc", "s390", "mips"; "" for anything else.
std::string MachineFamily(absl::string_view machine);

// The CPU family a /proc/cpuinfo listing describes (see EmulationInfo::cpuinfo_family).
std::string CpuinfoFamily(absl::string_view cpuinfo);

// Emulation as decided from `machine` (uname -m) and the text of /proc/cpuinfo.
EmulationInfo DetectEmulation(absl::string_view machine, absl::string_view cpuinfo);

// DetectEmulation for this process (uname() and /proc/cpuinfo).
EmulationInfo DetectHostEmulation();

// The CPU model a worker reports: the cpuinfo model on real hardware (HostCpuModel()), and
// "emulated aarch64 (qemu-user on <host model>)" when emulated.
std::string ReportedCpuModel(const EmulationInfo& info);

// Address-space headroom the emulator itself needs on top of the guest's limit (its
// translation cache and its own heap): qemu-aarch64 7.2 starts under a 256 MiB limit.
inline constexpr int64_t kEmulatorOverheadMb = 512;

// The exec prefix a worker emulated as `info` puts before the sandbox binary:
//   [prlimit --as=BYTES --] QEMU [-L SYSROOT]
// QEMU is `qemu_binary` if given, else qemu-<arch>-static (then qemu-<arch>) found on `path`
// (a PATH-style list). -L SYSROOT only when `sysroot` is given: with Debian's multiarch
// libc6:arm64 installed the guest loader is /lib/ld-linux-aarch64.so.1 and no prefix is needed,
// and a prefix such as /usr/aarch64-linux-gnu (the cross toolchain's glibc) would pair its
// loader with the multiarch libc.so.6 found through /etc/ld.so.cache: a mismatched pair in
// which pthread_create spins forever. The prlimit prefix (the host's util-linux, found on
// `path`) caps the emulator's whole address space at `memory_limit_mb` + kEmulatorOverheadMb,
// since qemu-user pretends to apply a guest's setrlimit(RLIMIT_AS) and enforces nothing; it is
// left out when `memory_limit_mb` is 0 or no prlimit is found. Empty when not emulated.
// Errors: NotFound (no emulator on `path`).
absl::StatusOr<std::vector<std::string>> EmulatorExecPrefix(const EmulationInfo& info,
                                                            const std::string& qemu_binary,
                                                            const std::string& sysroot,
                                                            int64_t memory_limit_mb,
                                                            absl::string_view path);

}  // namespace tunefarm

#endif  // TUNEFARM_RPC_SERVER_EMULATION_H_
