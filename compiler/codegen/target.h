// Compilation targets, parsed from TVM-style strings:
//   "llvm"                                   the host CPU
//   "llvm -mcpu=znver4"                      x86-64 host triple, given CPU
//   "llvm -mtriple=aarch64-linux-gnu -mcpu=neoverse-n1 -mattr=+neon"
//   "cuda -arch=sm_90"                       NVPTX (built by the GPU backend)
#ifndef TUNEFARM_COMPILER_CODEGEN_TARGET_H_
#define TUNEFARM_COMPILER_CODEGEN_TARGET_H_

#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm::codegen {

struct Target {
  enum class Kind { kLLVM, kCUDA };
  Kind kind = Kind::kLLVM;
  // LLVM target triple; the host's when not given.
  std::string triple;
  // CPU name for LLVM ("znver4", "skylake-avx512", "neoverse-n1"); the host's when not given.
  std::string cpu;
  // Comma-separated LLVM features ("+avx512f,+fma"); the host's when cpu is the host's.
  std::string features;
  // CUDA: "sm_90".
  std::string arch;
  // The string this was parsed from, normalized.
  std::string str;

  bool IsHost() const;
  // What decides the machine code: triple, CPU and features, as one string (a cache key).
  std::string MachineKey() const { return triple + "|" + cpu + "|" + features; }
};

// Parses a target string. InvalidArgument: unknown kind or option, an unknown CPU for the
// triple, or a triple LLVM has no backend for. "llvm -mcpu=<this host's CPU name>" without
// -mattr, on this host, is this machine with all its features (HostTarget's string, as tuning
// logs hold it): the name alone may understate them (a VM's CPU model). To build for that CPU
// model's own features from such a host, give them with -mattr.
absl::StatusOr<Target> ParseTarget(absl::string_view s);

// Whether `t`'s CPU and features include the LLVM feature `feature` ("amx-int8",
// "avx512vnni"): false for a cuda target or a triple LLVM has no backend for. Ask only about
// a feature of the triple's architecture: LLVM counts one its backend does not know as present
// (with a warning).
bool TargetHasFeature(const Target& t, absl::string_view feature);

// The host CPU as a target ("llvm -mcpu=<host cpu>").
Target HostTarget();

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_TARGET_H_
