#include <grpcpp/grpcpp.h>
#include <sqlite3.h>
#include <xgboost/c_api.h>

#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/subcommand.h"
#include "common/version.h"
#include "google/protobuf/stubs/common.h"
#include "llvm/Config/llvm-config.h"

ABSL_FLAG(bool, short, false, "Print only the tunefarm version.");

namespace tunefarm::cli {

int RunVersion(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm version: takes no arguments\n");
    return kExitUsage;
  }
  absl::PrintF("tunefarm %s\n", kTunefarmVersion);
  if (absl::GetFlag(FLAGS_short)) return kExitOk;
  int xgb_major = 0, xgb_minor = 0, xgb_patch = 0;
  XGBoostVersion(&xgb_major, &xgb_minor, &xgb_patch);
  absl::PrintF("  %-9s %s\n", "LLVM", LLVM_VERSION_STRING);
  absl::PrintF("  %-9s %s\n", "gRPC", grpc::Version());
  absl::PrintF("  %-9s %s\n", "protobuf",
               google::protobuf::internal::VersionString(GOOGLE_PROTOBUF_VERSION));
  absl::PrintF("  %-9s %s\n", "SQLite", sqlite3_libversion());
  absl::PrintF("  %-9s %d.%d.%d\n", "XGBoost", xgb_major, xgb_minor, xgb_patch);
  return kExitOk;
}

}  // namespace tunefarm::cli
