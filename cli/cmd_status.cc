// `tunefarm status`: prints the devices, queues and throughput of a farm as tables.
#include <string>
#include <vector>

#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "farm/tracker_client.h"
#include "tracker/summary_table.h"

namespace tunefarm::cli {

int RunStatus(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm status: takes no arguments\n");
    return kExitUsage;
  }
  TrackerClientOptions options;
  options.address = FarmTrackerAddress("127.0.0.1:9190");
  options.token = FarmClientToken();
  options.tls = FarmTls();
  options.rpc_timeout = absl::Seconds(5);
  absl::StatusOr<std::unique_ptr<TrackerClient>> client = TrackerClient::Connect(options);
  absl::StatusOr<v1::FarmSummary> summary =
      client.ok() ? (*client)->Summary() : absl::StatusOr<v1::FarmSummary>(client.status());
  if (!summary.ok()) {
    absl::FPrintF(stderr, "tunefarm status: %s: %s\n", options.address,
                  summary.status().ToString());
    return kExitFailure;
  }
  absl::PrintF("%s", FormatSummaryTable(*summary));
  return kExitOk;
}

}  // namespace tunefarm::cli
