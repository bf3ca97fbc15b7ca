#include "tuner/tuning/measurer.h"

#include <map>
#include <random>

#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {

TrackerMeasurer::TrackerMeasurer(TrackerClient* client, TrackerMeasurerOptions options)
    : client_(client), options_(std::move(options)) {
  std::random_device rd;
  nonce_ = absl::StrCat(absl::Hex(static_cast<uint64_t>(rd()) << 32 | rd()));
}

MeasuredBatch TrackerMeasurer::Measure(const std::vector<BuildResult>& builds,
                                       const BuildResult& reference,
                                       const std::vector<std::string>& avoid_workers,
                                       const ResultSink& sink) {
  MeasuredBatch out;
  out.results.resize(builds.size());
  out.arrived.assign(builds.size(), false);
  std::vector<v1::MeasureRequest> requests;
  std::map<std::string, size_t> slot;
  for (size_t i = 0; i < builds.size(); ++i) {
    const BuildResult& b = builds[i];
    std::string id = absl::StrCat(options_.job_id, "/", nonce_, "/", next_request_++);
    if (!b.status.ok()) {
      out.results[i].set_request_id(id);
      out.results[i].set_error(v1::BUILD_ERROR);
      out.results[i].set_message(std::string(b.status.message()));
      out.arrived[i] = true;
      continue;
    }
    v1::MeasureRequest r;
    r.set_request_id(id);
    r.mutable_artifact()->set_hash(b.artifact_hash);
    r.mutable_artifact()->set_content(b.artifact);
    r.set_kernel_name(kKernelName);
    for (const v1::TensorArg& t : b.tensors) *r.add_tensors() = t;
    for (const v1::PackedArg& p : b.packed_args) *r.add_packed_args() = p;
    r.set_seed(options_.seed);
    r.mutable_reference_artifact()->set_hash(reference.artifact_hash);
    r.mutable_reference_artifact()->set_content(reference.artifact);
    *r.mutable_timing() = options_.timing;
    r.set_timeout_ms(options_.timeout_ms);
    if (i < avoid_workers.size()) r.set_avoid_worker_id(avoid_workers[i]);
    slot[id] = i;
    requests.push_back(std::move(r));
  }
  for (size_t i = 0; i < builds.size() && sink; ++i) {
    if (!out.arrived[i]) continue;
    if (absl::Status s = sink(i, out.results[i]); !s.ok()) {
      out.status = s;
      return out;
    }
  }
  if (requests.empty()) return out;
  // Each result is kept as it arrives, so a batch that fails part-way loses none of them.
  auto results = client_->MeasureBatch(
      options_.job_id, options_.device_key, options_.priority, requests, options_.batch_timeout,
      [&](const v1::MeasureResult& r) {
        auto it = slot.find(r.request_id());
        if (it == slot.end()) return absl::OkStatus();
        if (sink) {
          if (absl::Status s = sink(it->second, r); !s.ok()) return s;
        }
        out.results[it->second] = r;
        out.arrived[it->second] = true;
        return absl::OkStatus();
      },
      options_.cancelled);
  if (!results.ok()) out.status = results.status();
  return out;
}

absl::StatusOr<int> TrackerMeasurer::LiveDevices() {
  return client_->LiveDevices(options_.device_key);
}

void TrackerMeasurer::Cancel() { (void)client_->Cancel(options_.job_id); }

}  // namespace tunefarm::tuner

namespace tunefarm::tuner {

std::optional<v1::DeviceDescription> TrackerMeasurer::Describe(const std::string& worker_id) {
  auto it = devices_.find(worker_id);
  if (it == devices_.end()) {
    // One farm summary per worker never seen before; unknown workers are remembered as such so
    // recording a batch does not ask the tracker once per record.
    auto summary = client_->Summary();
    if (summary.ok()) {
      for (const v1::DeviceStatus& d : summary->device_status()) {
        devices_[d.worker_id()] = d.device();
      }
    }
    it = devices_.emplace(worker_id, std::nullopt).first;
  }
  return it->second;
}

}  // namespace tunefarm::tuner
