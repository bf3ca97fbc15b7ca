// Fuzz target: the tracker's request validation and state machine. The input is a serialized
// SubmitRequest; it is submitted, leased by a registered worker, reported with fuzzed results,
// fetched and cancelled, as requests from the network would be. Every step returns a status;
// none may crash or break the core's bookkeeping (Drained after cancel).
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "common/clock.h"
#include "proto/tracker.pb.h"
#include "tracker/tracker_core.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tunefarm::v1::SubmitRequest submit;
  if (!submit.ParseFromArray(data, static_cast<int>(size))) return 0;
  tunefarm::FakeClock clock;
  tunefarm::TrackerOptions options;
  options.max_queue_per_key = 64;
  tunefarm::TrackerCore core(options, &clock);
  tunefarm::v1::RegisterRequest reg;
  reg.set_worker_id("w");
  reg.set_incarnation("i");
  reg.mutable_device()->set_key(submit.device_key().empty() ? "k" : submit.device_key());
  auto registered = core.Register(reg);
  if (!registered.ok()) return 0;
  (void)core.Submit(submit);
  tunefarm::v1::LeaseRequest lease;
  lease.set_worker_id("w");
  lease.set_incarnation("i");
  lease.set_session_key(registered->session_key());
  lease.set_max_tasks(8);
  auto leased = core.Lease(lease);
  tunefarm::v1::LeaseRequest report = lease;
  report.set_max_tasks(0);
  if (leased.ok()) {
    for (const auto& task : leased->tasks()) {
      tunefarm::v1::MeasureResult* r = report.add_results();
      r->set_request_id(task.request_id());
      r->add_costs_s(1e-3);
    }
  }
  for (const auto& r : submit.requests()) {  // results for ids never leased: refused
    report.add_results()->set_request_id(r.request_id());
  }
  (void)core.Lease(report);
  tunefarm::v1::FetchResultsRequest fetch;
  fetch.set_job_id(submit.job_id());
  (void)core.FetchResults(fetch);
  clock.Advance(absl::Hours(1));
  core.CheckLiveness();
  tunefarm::v1::CancelRequest cancel;
  cancel.set_job_id(submit.job_id());
  (void)core.Cancel(cancel);
  (void)core.Summary();
  if (!core.Drained()) std::abort();  // cancelled and lost: nothing may be left behind
  return 0;
}
