// `tunefarm serve`: the job service. Programs submit, watch and cancel tuning jobs over gRPC
// (`tunefarm tune --service`, `tunefarm jobs`); jobs run on the embedded local farm unless
// --tracker is given, and every measurement goes to the tuning log (--db).
#include <string>
#include <vector>

#include "absl/flags/declare.h"
#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "cli/commands.h"
#include "cli/dashboard/service_source.h"
#include "cli/dashboard_flags.h"
#include "cli/farm_flags.h"
#include "cli/subcommand.h"
#include "cli/tuning_setup.h"
#include "common/host_cpu.h"
#include "common/machine_peak.h"
#include "tuner/service/job_service.h"

ABSL_DECLARE_FLAG(std::string, host);
ABSL_DECLARE_FLAG(int, port);

namespace tunefarm::cli {

int RunServe(const std::vector<std::string>& positional) {
  if (!positional.empty()) {
    absl::FPrintF(stderr, "tunefarm serve: takes no arguments\n");
    return kExitUsage;
  }
  BlockTerminationSignals();
  // The dashboard's peak: one core's, as the embedded farm runs each kernel on one core. It is
  // measured before the farm's workers start, which would share the cores with it.
  const double core_peak_gflops = DashboardRequested() ? MeasureFmaPeakGflops(1) : 0;
  auto stack = StartTuningStack(/*persist_jobs=*/true);
  if (!stack.ok()) {
    absl::FPrintF(stderr, "tunefarm serve: %s\n", stack.status().ToString());
    return kExitFailure;
  }
  absl::StatusOr<int> resumed = (*stack)->manager->Recover();
  if (!resumed.ok()) {
    absl::FPrintF(stderr, "tunefarm serve: cannot read its jobs back: %s\n",
                  resumed.status().ToString());
    return kExitFailure;
  }
  tuner::JobServerOptions so;
  int port = absl::GetFlag(FLAGS_port) < 0 ? 9191 : absl::GetFlag(FLAGS_port);
  so.address = absl::StrCat(absl::GetFlag(FLAGS_host), ":", port);
  so.token = FarmClientToken();
  so.tls = FarmTls();
  so.max_message_bytes = kMaxModelMessageBytes;
  auto server = tuner::JobServer::Start((*stack)->manager.get(), (*stack)->log.get(), so);
  if (!server.ok()) {
    absl::FPrintF(stderr, "tunefarm serve: %s\n", server.status().ToString());
    return kExitFailure;
  }
  absl::PrintF("job service listening on %s:%d (devices: %s, tuning log: %s, resumed jobs: %d)\n",
               absl::GetFlag(FLAGS_host), (*server)->port(),
               (*stack)->farm->local != nullptr ? "embedded local farm" : "remote tracker",
               (*stack)->log->path(), *resumed);
  std::unique_ptr<ServiceSource> source;
  if (DashboardRequested()) {
    ServiceSourceOptions options;
    options.core_peak_gflops = core_peak_gflops;
    options.host_cpu_model = HostCpuModel();
    source = std::make_unique<ServiceSource>((*stack)->manager.get(), (*stack)->log.get(),
                                             (*stack)->farm.get(), options);
  }
  auto dashboard = StartDashboardFromFlags(source.get());
  if (!dashboard.ok()) {
    absl::FPrintF(stderr, "tunefarm serve: %s\n", dashboard.status().ToString());
    return kExitFailure;
  }
  fflush(stdout);
  int sig = WaitForTerminationSignal();
  absl::FPrintF(stderr,
                "signal %d: stopping after the current round (unfinished jobs resume when the "
                "service starts again on the same --db)\n",
                sig);
  dashboard->reset();
  (*server)->Shutdown();
  return kExitOk;
}

}  // namespace tunefarm::cli
