#include "compiler/codegen/target.h"

#include <vector>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "compiler/codegen/llvm_init.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/Host.h"
#include "llvm/TargetParser/Triple.h"

namespace tunefarm::codegen {
namespace {

std::string HostFeatures() {
  llvm::StringMap<bool> features;
  std::vector<std::string> out;
  if (llvm::sys::getHostCPUFeatures(features)) {
    for (const auto& f : features)
      out.push_back(absl::StrCat(f.second ? "+" : "-", f.first().str()));
  }
  std::sort(out.begin(), out.end());
  return absl::StrJoin(out, ",");
}

}  // namespace

bool Target::IsHost() const {
  return kind == Kind::kLLVM && triple == llvm::sys::getProcessTriple();
}

Target HostTarget() {
  InitializeLLVM();
  Target t;
  t.triple = llvm::sys::getProcessTriple();
  t.cpu = llvm::sys::getHostCPUName().str();
  t.features = HostFeatures();
  t.str = absl::StrCat("llvm -mcpu=", t.cpu);
  return t;
}

absl::StatusOr<Target> ParseTarget(absl::string_view s) {
  InitializeLLVM();
  std::vector<absl::string_view> parts =
      absl::StrSplit(absl::StripAsciiWhitespace(s), ' ', absl::SkipEmpty());
  if (parts.empty()) return absl::InvalidArgumentError("empty target string");
  Target t;
  if (parts[0] == "llvm") {
    t.kind = Target::Kind::kLLVM;
  } else if (parts[0] == "cuda" || parts[0] == "nvptx") {
    t.kind = Target::Kind::kCUDA;
    t.triple = "nvptx64-nvidia-cuda";
    t.arch = "sm_80";
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("unknown target kind '", parts[0], "' in '", s, "' (expected llvm or cuda)"));
  }
  bool cpu_given = false;
  bool host_features = false;
  for (size_t i = 1; i < parts.size(); ++i) {
    absl::string_view opt = parts[i];
    std::pair<absl::string_view, absl::string_view> kv = absl::StrSplit(opt, '=');
    if (kv.first == "-mcpu") {
      t.cpu = std::string(kv.second);
      cpu_given = true;
    } else if (kv.first == "-mtriple") {
      t.triple = std::string(kv.second);
    } else if (kv.first == "-mattr") {
      t.features = std::string(kv.second);
    } else if (kv.first == "-arch" && t.kind == Target::Kind::kCUDA) {
      t.arch = std::string(kv.second);
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          "unknown option '", opt, "' in target '", s, "' (expected -mcpu, -mtriple, -mattr",
          t.kind == Target::Kind::kCUDA ? ", -arch" : "", ")"));
    }
  }
  if (t.kind == Target::Kind::kCUDA) {
    if (!absl::StartsWith(t.arch, "sm_")) {
      return absl::InvalidArgumentError(
          absl::StrCat("bad CUDA arch '", t.arch, "' (expected sm_XX)"));
    }
    t.cpu = t.arch;
    t.str = absl::StrCat("cuda -arch=", t.arch);
    return t;
  }
  if (t.triple.empty()) t.triple = llvm::sys::getProcessTriple();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (llvm_target == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("target triple '", t.triple, "' is not supported: ", error));
  }
  if (!cpu_given) {
    if (t.IsHost()) {
      t.cpu = llvm::sys::getHostCPUName().str();
      if (t.features.empty()) t.features = HostFeatures();
    } else {
      t.cpu = "generic";
    }
  } else if (t.IsHost() && t.features.empty() && t.cpu == llvm::sys::getHostCPUName()) {
    // This machine's own CPU by name (HostTarget's string, e.g. read back from a tuning log):
    // its features too, which the name alone may understate (a VM's CPU model named
    // rocketlake with AMX). The string stays as it was.
    t.features = HostFeatures();
    host_features = true;
  } else {
    // Reject CPU names the backend does not know (LLVM would only warn).
    std::unique_ptr<llvm::MCSubtargetInfo> sti(
        llvm_target->createMCSubtargetInfo(t.triple, "", ""));
    if (sti != nullptr && !sti->isCPUStringValid(t.cpu)) {
      return absl::InvalidArgumentError(
          absl::StrCat("unknown CPU '", t.cpu, "' for triple '", t.triple, "'"));
    }
  }
  t.str = absl::StrCat("llvm -mcpu=", t.cpu);
  if (!t.IsHost()) absl::StrAppend(&t.str, " -mtriple=", t.triple);
  if (!t.features.empty() && cpu_given && !host_features) {
    absl::StrAppend(&t.str, " -mattr=", t.features);
  }
  return t;
}

bool TargetHasFeature(const Target& t, absl::string_view feature) {
  if (t.kind != Target::Kind::kLLVM) return false;
  InitializeLLVM();
  std::string error;
  const llvm::Target* llvm_target = llvm::TargetRegistry::lookupTarget(t.triple, error);
  if (llvm_target == nullptr) return false;
  std::unique_ptr<llvm::MCSubtargetInfo> sti(
      llvm_target->createMCSubtargetInfo(t.triple, t.cpu, t.features));
  return sti != nullptr && sti->checkFeatures(absl::StrCat("+", feature));
}

}  // namespace tunefarm::codegen
