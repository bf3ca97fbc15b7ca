#include "rpc_server/emulation.h"

#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/host_cpu.h"

namespace tunefarm {
namespace {

bool IsExecutableFile(const std::string& path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// The first executable `name` in the directories of `path`, or "".
std::string FindOnPath(absl::string_view name, absl::string_view path) {
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::string candidate = absl::StrCat(dir, "/", name);
    if (IsExecutableFile(candidate)) return candidate;
  }
  return "";
}

}  // namespace

std::string MachineFamily(absl::string_view machine) {
  if (machine == "x86_64" || machine == "amd64" ||
      (machine.size() == 4 && machine[0] == 'i' && absl::EndsWith(machine, "86"))) {
    return "x86";
  }
  if (machine == "aarch64" || machine == "arm64" || absl::StartsWith(machine, "arm")) {
    return "arm";
  }
  if (absl::StartsWith(machine, "riscv")) return "riscv";
  if (absl::StartsWith(machine, "ppc")) return "ppc";
  if (absl::StartsWith(machine, "s390")) return "s390";
  if (absl::StartsWith(machine, "mips")) return "mips";
  return "";
}

std::string CpuinfoFamily(absl::string_view cpuinfo) {
  // Each kernel architecture lists its own keys (arch/*/kernel/cpuinfo or setup.c).
  const std::string vendor = CpuinfoField(cpuinfo, "vendor_id");
  if (absl::StartsWith(vendor, "IBM/S390")) return "s390";
  if (!vendor.empty() || !CpuinfoField(cpuinfo, "flags").empty()) return "x86";
  if (!CpuinfoField(cpuinfo, "CPU implementer").empty() ||
      !CpuinfoField(cpuinfo, "CPU architecture").empty()) {
    return "arm";
  }
  if (absl::StartsWith(CpuinfoField(cpuinfo, "isa"), "rv")) return "riscv";
  if (absl::StrContains(CpuinfoField(cpuinfo, "cpu"), "POWER") ||
      !CpuinfoField(cpuinfo, "timebase").empty()) {
    return "ppc";
  }
  if (absl::StrContains(CpuinfoField(cpuinfo, "cpu model"), "MIPS")) return "mips";
  return "";
}

EmulationInfo DetectEmulation(absl::string_view machine, absl::string_view cpuinfo) {
  EmulationInfo info;
  info.arch = std::string(machine);
  info.cpuinfo_family = CpuinfoFamily(cpuinfo);
  info.host_cpu_model = CpuinfoModel(cpuinfo);
  const std::string family = MachineFamily(machine);
  info.emulated = !family.empty() && !info.cpuinfo_family.empty() && family != info.cpuinfo_family;
  return info;
}

EmulationInfo DetectHostEmulation() {
  utsname name{};
  uname(&name);
  return DetectEmulation(name.machine, ReadHostCpuinfo());
}

std::string ReportedCpuModel(const EmulationInfo& info) {
  if (!info.emulated) return info.host_cpu_model;
  return absl::StrCat("emulated ", info.arch, " (qemu-user on ", info.host_cpu_model, ")");
}

absl::StatusOr<std::vector<std::string>> EmulatorExecPrefix(const EmulationInfo& info,
                                                            const std::string& qemu_binary,
                                                            const std::string& sysroot,
                                                            int64_t memory_limit_mb,
                                                            absl::string_view path) {
  if (!info.emulated) return std::vector<std::string>();
  std::string qemu = qemu_binary;
  if (qemu.empty()) {
    for (const std::string& name :
         {absl::StrCat("qemu-", info.arch, "-static"), absl::StrCat("qemu-", info.arch)}) {
      qemu = FindOnPath(name, path);
      if (!qemu.empty()) break;
    }
  }
  if (qemu.empty()) {
    return absl::NotFoundError(absl::StrCat("running emulated (", info.arch, " on an ",
                                            info.cpuinfo_family, " host) but no qemu-", info.arch,
                                            "-static on PATH to start the sandbox child with; "
                                            "install qemu-user-static or pass --sandbox_emulator"));
  }
  std::vector<std::string> prefix;
  if (memory_limit_mb > 0) {
    std::string prlimit = FindOnPath("prlimit", path);
    if (!prlimit.empty()) {
      prefix = {prlimit, absl::StrCat("--as=", (memory_limit_mb + kEmulatorOverheadMb) << 20),
                "--"};
    }
  }
  prefix.push_back(qemu);
  if (!sysroot.empty()) {
    prefix.push_back("-L");
    prefix.push_back(sysroot);
  }
  return prefix;
}

}  // namespace tunefarm
