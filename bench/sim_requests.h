// Requests for the farm benchmarks' simulated devices (farm_dispatch, scale), and the dispatch
// latency they measure with them.
#ifndef TUNEFARM_BENCH_SIM_REQUESTS_H_
#define TUNEFARM_BENCH_SIM_REQUESTS_H_

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "farm/tracker_client.h"
#include "proto/measure.pb.h"

namespace tunefarm::bench {

// `n` measurements of one artifact with ids "<prefix>/<i>", timed once each.
inline std::vector<v1::MeasureRequest> SimRequests(const std::string& prefix, int n,
                                                   const v1::Artifact& artifact) {
  std::vector<v1::MeasureRequest> out;
  for (int i = 0; i < n; ++i) {
    v1::MeasureRequest r;
    r.set_request_id(absl::StrCat(prefix, "/", i));
    *r.mutable_artifact() = artifact;
    r.set_kernel_name("kernel");
    r.mutable_timing()->set_number(1);
    r.mutable_timing()->set_repeat(1);
    out.push_back(std::move(r));
  }
  return out;
}

// Latencies (ms) of `n` single requests of job `job` on devices of `key`, one at a time, from
// submit to result. Exits the benchmark when a request fails.
inline std::vector<double> SingleRequestLatencies(TrackerClient& client, const std::string& job,
                                                  const std::string& key, int n,
                                                  const v1::Artifact& artifact) {
  std::vector<double> ms;
  for (const v1::MeasureRequest& r : SimRequests(job, n, artifact)) {
    const absl::Time start = absl::Now();
    auto result = client.MeasureBatch(job, key, 0, {r}, absl::Seconds(30));
    if (!result.ok()) {
      absl::FPrintF(stderr, "latency request failed: %s\n", result.status().ToString());
      std::exit(1);
    }
    ms.push_back(absl::ToDoubleMilliseconds(absl::Now() - start));
  }
  return ms;
}

}  // namespace tunefarm::bench

#endif  // TUNEFARM_BENCH_SIM_REQUESTS_H_
