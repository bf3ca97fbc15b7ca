// Chaos benchmark: real `tunefarm` processes — a tracker, three device servers and a job
// service, each on its own "host" (a network namespace on a bridge) — run one tuning job while
// faults are injected at random points: SIGKILL of a server (restarted at once), SIGKILL and
// restart of the tracker, SIGKILL and restart of the job service, SIGSTOP of a server, a
// partition of a server from the tracker, and a partition of the job service (the tuner) from
// the tracker. The job must finish with no user action and every
// trial in the tuning log exactly once.
//
//   bazel run -c opt //bench:chaos -- [--quick] [--seed N] [--loopback]
//
// The last line is `RESULT faults=... jobs_completed=... records_lost=... duplicates=...
// user_actions=...`:
//   records_lost  trials the job service counted that are not in the tuning log;
//   duplicates    log records of a request id, or of a config, beyond the first;
//   user_actions  resubmissions a user would have had to make (the job failed or vanished).
#include <grpcpp/grpcpp.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bench/bench_util.h"
#include "bench/chaos_network.h"
#include "bench/child_process.h"
#include "db/tuning_log.h"
#include "proto/job.grpc.pb.h"

ABSL_FLAG(bool, quick, false, "A short run (60 trials, shorter stops and partitions).");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the fault order, the faulted servers and the search.");
ABSL_FLAG(int, trials, 0, "Trials of the job (default 300, 60 with --quick).");
ABSL_FLAG(bool, loopback, false, "Run every process on loopback (no partitions).");
ABSL_FLAG(std::string, tunefarm, "", "Path of the tunefarm binary (default: from runfiles).");

namespace tunefarm::bench {
namespace {

constexpr char kKey[] = "cpu-chaos";
constexpr char kWorkerToken[] = "chaos-worker-token";
constexpr char kClientToken[] = "chaos-client-token";

enum class Fault {
  kKillServer,
  kRestartTracker,
  kRestartService,
  kStopServer,
  kPartition,
  kPartitionService,
};

const char* FaultName(Fault f) {
  switch (f) {
    case Fault::kKillServer:
      return "SIGKILL server (restarted at once)";
    case Fault::kRestartTracker:
      return "SIGKILL tracker, restart";
    case Fault::kRestartService:
      return "SIGKILL job service, restart";
    case Fault::kStopServer:
      return "SIGSTOP server";
    case Fault::kPartition:
      return "partition server from tracker";
    case Fault::kPartitionService:
      return "partition job service from tracker";
  }
  return "?";
}

struct Settings {
  int trials;
  int heartbeat_timeout_s;
  absl::Duration stop_for;
  absl::Duration partition_for;
  absl::Duration limit;
};

class Chaos {
 public:
  Chaos(Settings settings, uint64_t seed, bool loopback, std::string bin)
      : settings_(settings),
        rng_(seed),
        seed_(seed),
        net_({"trk", "svc", "s1", "s2", "s3"}, loopback),
        bin_(std::move(bin)) {}

  int Run();

 private:
  absl::Status StartAll();
  std::unique_ptr<ChildProcess> Make(const std::string& name, const std::string& host,
                                     std::vector<std::string> args);
  absl::StatusOr<std::string> Submit();
  absl::StatusOr<v1::JobStatus> Get(const std::string& id);
  void Inject(Fault fault, int trials_done);
  void ReleaseDue(bool all);
  double Seconds() const { return absl::ToDoubleSeconds(absl::Now() - start_); }

  Settings settings_;
  std::mt19937_64 rng_;
  uint64_t seed_;
  ChaosNetwork net_;
  std::string bin_;
  std::string dir_;
  std::string tracker_address_;
  std::string service_address_;
  std::unique_ptr<ChildProcess> tracker_;
  std::unique_ptr<ChildProcess> service_;
  std::vector<std::unique_ptr<ChildProcess>> servers_;
  std::unique_ptr<v1::JobService::Stub> stub_;
  absl::Time start_ = absl::Now();
  // Faults with an end: SIGCONT or heal at `due`.
  struct Pending {
    absl::Time due;
    Fault fault;
    int server;
  };
  std::vector<Pending> pending_;
  struct Injected {
    double at_s;
    int trials;
    Fault fault;
    std::string target;
    std::string note;
  };
  std::vector<Injected> injected_;
};

std::unique_ptr<ChildProcess> Chaos::Make(const std::string& name, const std::string& host,
                                          std::vector<std::string> args) {
  args.insert(args.begin(), bin_);
  return std::make_unique<ChildProcess>(name, std::move(args), net_.Netns(host),
                                        absl::StrCat(dir_, "/", name, ".out"));
}

absl::Status Chaos::StartAll() {
  const bool ns = net_.namespaces();
  const std::string trk = net_.Address("trk");
  const int tracker_port = ns ? 9190 : FreeLoopbackPort();
  const int service_port = ns ? 9191 : FreeLoopbackPort();
  tracker_address_ = absl::StrCat(trk, ":", tracker_port);
  service_address_ = absl::StrCat(net_.Address("svc"), ":", service_port);
  tracker_ = Make("tracker", "trk",
                  {"tracker", "--host", trk, absl::StrCat("--port=", tracker_port), "--keys", kKey,
                   absl::StrCat("--heartbeat_timeout_s=", settings_.heartbeat_timeout_s),
                   "--drain_timeout_s=0"});
  if (absl::Status s = tracker_->Start(); !s.ok()) return s;
  for (int i = 0; i < 3; ++i) {
    servers_.push_back(Make(absl::StrCat("server", i + 1), absl::StrCat("s", i + 1),
                            {"server", "--tracker", tracker_address_, "--key", kKey,
                             absl::StrCat("--worker_id=chaos-s", i + 1), "--calibration_period_s=0",
                             "--memory_limit_mb=1024"}));
    if (absl::Status s = servers_.back()->Start(); !s.ok()) return s;
  }
  service_ = Make("service", "svc",
                  {"serve", "--tracker", tracker_address_, "--key", kKey, "--db",
                   dir_ + "/tuning.db", "--host", net_.Address("svc"),
                   absl::StrCat("--port=", service_port), "--repeat=2", "--min_repeat_ms=5"});
  if (absl::Status s = service_->Start(); !s.ok()) return s;
  stub_ = v1::JobService::NewStub(
      grpc::CreateChannel(service_address_, grpc::InsecureChannelCredentials()));
  return absl::OkStatus();
}

absl::StatusOr<std::string> Chaos::Submit() {
  v1::SubmitJobRequest request;
  v1::JobSpec* spec = request.mutable_spec();
  spec->set_name("chaos");
  v1::TaskSpec* task = spec->add_tasks();
  task->set_template_name("dense");
  for (int v : {64, 64, 64}) task->add_args(v);
  spec->set_trials(settings_.trials);
  spec->set_batch_size(8);
  spec->set_strategy("random");
  spec->set_top_k(-1);
  spec->set_seed(seed_);
  absl::Status last;
  // The service and the servers are starting: bounded retries, not user actions.
  for (int attempt = 0; attempt < 300; ++attempt) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", absl::StrCat("Bearer ", kClientToken));
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    v1::SubmitJobResponse response;
    grpc::Status s = stub_->SubmitJob(&context, request, &response);
    if (s.ok()) return response.job_id();
    last = absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
    absl::SleepFor(absl::Milliseconds(200));
  }
  return last;
}

absl::StatusOr<v1::JobStatus> Chaos::Get(const std::string& id) {
  grpc::ClientContext context;
  context.AddMetadata("authorization", absl::StrCat("Bearer ", kClientToken));
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
  v1::JobRequest request;
  request.set_job_id(id);
  v1::JobStatus status;
  grpc::Status s = stub_->GetJob(&context, request, &status);
  if (!s.ok()) {
    return absl::Status(static_cast<absl::StatusCode>(s.error_code()), s.error_message());
  }
  return status;
}

void Chaos::Inject(Fault fault, int trials_done) {
  // A server no other fault holds (stopped or partitioned) right now.
  std::vector<int> free;
  for (int i = 0; i < static_cast<int>(servers_.size()); ++i) {
    if (std::none_of(pending_.begin(), pending_.end(),
                     [&](const Pending& p) { return p.server == i; })) {
      free.push_back(i);
    }
  }
  const int server = free.empty() ? 0 : free[rng_() % free.size()];
  Injected record{Seconds(), trials_done, fault, "", ""};
  switch (fault) {
    case Fault::kKillServer:
      record.target = servers_[server]->name();
      servers_[server]->Kill();
      record.note = servers_[server]->Start().ok() ? "restarted" : "restart failed";
      break;
    case Fault::kRestartTracker:
      record.target = "tracker";
      tracker_->Kill();
      absl::SleepFor(absl::Seconds(1));
      record.note = tracker_->Start().ok() ? "restarted after 1 s" : "restart failed";
      break;
    case Fault::kRestartService:
      record.target = "job service";
      service_->Kill();
      absl::SleepFor(absl::Seconds(1));
      record.note = service_->Start().ok() ? "restarted after 1 s" : "restart failed";
      break;
    case Fault::kStopServer:
      record.target = servers_[server]->name();
      servers_[server]->Stop();
      pending_.push_back({absl::Now() + settings_.stop_for, fault, server});
      record.note = absl::StrCat("SIGCONT after ", absl::FormatDuration(settings_.stop_for));
      break;
    case Fault::kPartition:
    case Fault::kPartitionService: {
      const bool service = fault == Fault::kPartitionService;
      record.target = service ? "job service" : servers_[server]->name();
      absl::Status s = net_.Partition(service ? "svc" : absl::StrCat("s", server + 1));
      if (s.ok()) {
        pending_.push_back({absl::Now() + settings_.partition_for, fault, service ? -1 : server});
        record.note = absl::StrCat("healed after ", absl::FormatDuration(settings_.partition_for));
      } else {
        record.note = absl::StrCat("not injected: ", s.message());
      }
      break;
    }
  }
  std::printf("[%6.1f s] trials %d/%d: %s: %s (%s)\n", record.at_s, trials_done, settings_.trials,
              FaultName(fault), record.target.c_str(), record.note.c_str());
  std::fflush(stdout);
  injected_.push_back(record);
}

void Chaos::ReleaseDue(bool all) {
  for (auto it = pending_.begin(); it != pending_.end();) {
    if (!all && absl::Now() < it->due) {
      ++it;
      continue;
    }
    if (it->fault == Fault::kStopServer) {
      servers_[it->server]->Continue();
    } else {
      (void)net_.Heal(it->server < 0 ? "svc" : absl::StrCat("s", it->server + 1));
    }
    std::printf("[%6.1f s] %s of %s ended\n", Seconds(), FaultName(it->fault),
                it->server < 0 ? "job service" : servers_[it->server]->name().c_str());
    it = pending_.erase(it);
  }
}

int Chaos::Run() {
  char templ[] = "/tmp/tunefarm-chaos-XXXXXX";
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern = base != nullptr ? absl::StrCat(base, "/chaos-XXXXXX") : templ;
  if (mkdtemp(pattern.data()) == nullptr) {
    std::fprintf(stderr, "chaos: cannot make a temporary directory\n");
    return 1;
  }
  dir_ = pattern;
  std::printf("chaos: %d trials, network %s%s, logs in %s\n", settings_.trials, net_.mode().c_str(),
              net_.namespaces() ? " (tracker, job service and 3 servers on 5 hosts)"
                                : absl::StrCat(" (", net_.why_loopback(), ")").c_str(),
              dir_.c_str());
  setenv("TUNEFARM_WORKER_TOKEN", kWorkerToken, 1);
  setenv("TUNEFARM_CLIENT_TOKEN", kClientToken, 1);
  if (absl::Status s = StartAll(); !s.ok()) {
    std::fprintf(stderr, "chaos: %s\n", s.ToString().c_str());
    return 1;
  }
  std::vector<Fault> plan = {Fault::kKillServer, Fault::kRestartTracker, Fault::kRestartService,
                             Fault::kStopServer, Fault::kPartition,      Fault::kPartitionService};
  std::shuffle(plan.begin(), plan.end(), rng_);
  const double fractions[] = {0.06, 0.16, 0.26, 0.36, 0.46, 0.56};

  int user_actions = 0;
  absl::StatusOr<std::string> job = Submit();
  if (!job.ok()) {
    std::fprintf(stderr, "chaos: the job service never took the job: %s\n",
                 job.status().ToString().c_str());
    return 1;
  }
  std::printf("[%6.1f s] submitted %s\n", Seconds(), job->c_str());
  v1::JobStatus status;
  bool completed = false;
  size_t next_fault = 0;
  int last_printed = -1;
  const absl::Time deadline = absl::Now() + settings_.limit;
  while (absl::Now() < deadline) {
    ReleaseDue(false);
    absl::StatusOr<v1::JobStatus> got = Get(*job);
    if (got.ok()) {
      status = *got;
      if (status.trials_done() / 20 != last_printed) {
        last_printed = status.trials_done() / 20;
        std::printf("[%6.1f s] trials %d/%d, best %.1f GFLOP/s\n", Seconds(), status.trials_done(),
                    settings_.trials, status.best_gflops());
        std::fflush(stdout);
      }
      if (status.state() == v1::JOB_SUCCEEDED) {
        completed = true;
        break;
      }
      if (status.state() == v1::JOB_FAILED || status.state() == v1::JOB_CANCELLED) {
        // What a user would have to do: submit it again.
        std::printf("[%6.1f s] the job ended %s (%s): resubmitting (a user action)\n", Seconds(),
                    v1::JobState_Name(status.state()).c_str(), status.error().c_str());
        ++user_actions;
        if (user_actions > 3) break;
        job = Submit();
        if (!job.ok()) break;
        continue;
      }
      while (next_fault < plan.size() &&
             status.trials_done() >= fractions[next_fault] * settings_.trials) {
        Inject(plan[next_fault++], status.trials_done());
      }
    } else if (absl::IsNotFound(got.status())) {
      std::printf("[%6.1f s] the job service forgot %s: resubmitting (a user action)\n", Seconds(),
                  job->c_str());
      ++user_actions;
      if (user_actions > 3) break;
      job = Submit();
      if (!job.ok()) break;
    }
    absl::SleepFor(absl::Milliseconds(250));
  }
  ReleaseDue(true);
  const double seconds = Seconds();
  service_->Kill();
  for (auto& server : servers_) server->Kill();
  tracker_->Kill();

  // The tuning log, as the job left it.
  int64_t records = 0;
  absl::flat_hash_set<int64_t> configs;
  absl::flat_hash_set<std::string> request_ids;
  int64_t with_request_id = 0;
  auto log = db::TuningLog::Open(dir_ + "/tuning.db", {.read_only = true});
  if (log.ok()) {
    (void)(*log)->ForEachRecord({}, [&](const db::Record& r) {
      ++records;
      configs.insert(r.config_index);
      if (!r.request_id.empty()) {
        ++with_request_id;
        request_ids.insert(r.request_id);
      }
      return absl::OkStatus();
    });
  } else {
    std::fprintf(stderr, "chaos: cannot read the tuning log: %s\n",
                 log.status().ToString().c_str());
  }
  const int64_t lost = std::max<int64_t>(0, status.trials_done() - records);
  const int64_t duplicates = (records - static_cast<int64_t>(configs.size())) +
                             (with_request_id - static_cast<int64_t>(request_ids.size()));
  absl::flat_hash_set<int> kinds;
  int faults = 0;
  std::printf("\n%-8s %-7s %-36s %-10s %s\n", "at (s)", "trials", "fault", "target", "outcome");
  for (const Injected& f : injected_) {
    std::printf("%-8.1f %-7d %-36s %-10s %s\n", f.at_s, f.trials, FaultName(f.fault),
                f.target.c_str(), f.note.c_str());
    if (f.note.find("not injected") == std::string::npos &&
        f.note.find("failed") == std::string::npos) {
      ++faults;
      kinds.insert(static_cast<int>(f.fault));
    }
  }
  std::printf(
      "\njob %s: %s after %.1f s, %d/%d trials, %s resume(s); tuning log: %lld records, "
      "%zu distinct configs, %zu distinct request ids\n",
      job.ok() ? job->c_str() : "?", v1::JobState_Name(status.state()).c_str(), seconds,
      status.trials_done(), settings_.trials, absl::StrCat(status.resumed()).c_str(),
      static_cast<long long>(records), configs.size(), request_ids.size());
  PrintResult({{"faults", absl::StrCat(faults)},
               {"fault_kinds", absl::StrCat(kinds.size())},
               {"jobs_completed", completed ? "1" : "0"},
               {"records_lost", absl::StrCat(lost)},
               {"duplicates", absl::StrCat(duplicates)},
               {"user_actions", absl::StrCat(user_actions)},
               {"trials", absl::StrCat(status.trials_done())},
               {"records", absl::StrCat(records)},
               {"seconds", Fixed(seconds, 1)},
               {"network", net_.mode()}});
  return completed ? 0 : 1;
}

}  // namespace
}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  signal(SIGPIPE, SIG_IGN);
  const bool quick = absl::GetFlag(FLAGS_quick);
  tunefarm::bench::Settings settings;
  settings.trials = absl::GetFlag(FLAGS_trials) > 0 ? absl::GetFlag(FLAGS_trials)
                    : quick                         ? 60
                                                    : 300;
  // Partitions and stops outlast the tracker's heartbeat timeout, so the tracker declares the
  // server lost and re-queues its lease, then sees it come back.
  settings.heartbeat_timeout_s = quick ? 4 : 10;
  settings.stop_for = quick ? absl::Seconds(6) : absl::Seconds(20);
  settings.partition_for = quick ? absl::Seconds(8) : absl::Seconds(30);
  settings.limit = quick ? absl::Minutes(5) : absl::Minutes(20);
  std::string bin = tunefarm::bench::FindBinary(absl::GetFlag(FLAGS_tunefarm), "cli/tunefarm");
  if (bin.empty()) {
    std::fprintf(stderr, "chaos: tunefarm binary not found (--tunefarm PATH)\n");
    return 1;
  }
  std::string sandbox = tunefarm::bench::FindBinary("", "rpc_server/tunefarm_sandbox");
  if (!sandbox.empty()) setenv("TUNEFARM_SANDBOX", sandbox.c_str(), 1);
  tunefarm::bench::Chaos chaos(settings, absl::GetFlag(FLAGS_seed), absl::GetFlag(FLAGS_loopback),
                               bin);
  return chaos.Run();
}
