// `tunefarm tracker`: runs the tracker until SIGTERM/SIGINT, then drains and exits.
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "cli/commands.h"
#include "cli/dashboard/tracker_source.h"
#include "cli/dashboard_flags.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "tracker/tracker_server.h"

ABSL_DECLARE_FLAG(std::string, host);
ABSL_DECLARE_FLAG(int, port);
ABSL_FLAG(int, max_queue, 100000, "Queued requests per device key before Submit is refused.");
ABSL_FLAG(double, heartbeat_timeout_s, 10, "Seconds of silence after which a worker is lost.");
ABSL_FLAG(double, noise_threshold, 0.10,
          "Devices whose calibration noise (robust CV) exceeds this get no work while a quiet "
          "device of their key is live (0: off).");
ABSL_FLAG(int, max_message_mb, 64, "Largest request accepted, in MiB.");
ABSL_FLAG(std::string, keys, "",
          "Comma-separated device keys accepted before any worker of that key registers.");
ABSL_FLAG(double, drain_timeout_s, 30, "On SIGTERM, how long to wait for queued work.");

namespace tunefarm::cli {

int RunTracker(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm tracker: takes no arguments\n");
    return kExitUsage;
  }
  BlockTerminationSignals();
  TrackerServerOptions options;
  options.listen_address =
      absl::StrCat(absl::GetFlag(FLAGS_host), ":",
                   (absl::GetFlag(FLAGS_port) < 0 ? 9190 : absl::GetFlag(FLAGS_port)));
  options.token = FarmToken();
  options.worker_token = FarmWorkerToken();
  options.client_token = FarmClientToken();
  options.tls = FarmTls();
  options.max_message_bytes = absl::GetFlag(FLAGS_max_message_mb) << 20;
  options.core.max_queue_per_key = absl::GetFlag(FLAGS_max_queue);
  options.core.heartbeat_timeout = absl::Seconds(absl::GetFlag(FLAGS_heartbeat_timeout_s));
  options.core.noise_threshold = absl::GetFlag(FLAGS_noise_threshold);
  for (absl::string_view key : absl::StrSplit(absl::GetFlag(FLAGS_keys), ',', absl::SkipEmpty())) {
    options.core.known_keys.emplace_back(key);
  }
  absl::StatusOr<std::unique_ptr<TrackerServer>> server = TrackerServer::Start(options);
  if (!server.ok()) {
    absl::FPrintF(stderr, "tunefarm tracker: %s\n", server.status().ToString());
    return kExitFailure;
  }
  const bool auth = !options.worker_token.empty() || !options.client_token.empty();
  absl::PrintF("tunefarm tracker listening on %s:%d (auth: %s, tls: %s)\n",
               absl::GetFlag(FLAGS_host), (*server)->port(),
               !auth                 ? "off"
               : FarmHasRoleTokens() ? "token per role"
                                     : "shared token",
               options.tls.cert_file.empty()        ? "off"
               : options.tls.client_ca_file.empty() ? "on"
                                                    : "on, client certificates required");
  if (auth && (options.worker_token.empty() || options.client_token.empty())) {
    absl::FPrintF(stderr,
                  "tunefarm tracker: warning: the %s role has no token; its calls are "
                  "not authenticated\n",
                  options.worker_token.empty() ? "worker" : "client");
  }
  TrackerSource source(&(*server)->core());
  auto dashboard = StartDashboardFromFlags(&source);
  if (!dashboard.ok()) {
    absl::FPrintF(stderr, "tunefarm tracker: %s\n", dashboard.status().ToString());
    return kExitFailure;
  }
  std::fflush(stdout);
  int sig = WaitForTerminationSignal();
  absl::PrintF("tunefarm tracker: signal %d, draining\n", sig);
  std::fflush(stdout);
  bool drained = (*server)->Drain(absl::Seconds(absl::GetFlag(FLAGS_drain_timeout_s)));
  dashboard->reset();
  (*server)->Shutdown();
  absl::PrintF("tunefarm tracker: stopped (%s)\n", drained ? "drained" : "drain timed out");
  return kExitOk;
}

}  // namespace tunefarm::cli
