#include "tracker/tracker_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "proto/tracker.grpc.pb.h"
#include "tracker/transport.h"

namespace tunefarm {
namespace {

// Requests per Submit call in MeasureBatch (keeps messages well under the size bound).
constexpr int kSubmitChunk = 256;
// Long-poll wait of one FetchResults call in MeasureBatch.
constexpr absl::Duration kFetchWait = absl::Seconds(2);

}  // namespace

struct TrackerClient::Impl {
  TrackerClientOptions options;
  std::unique_ptr<v1::Tracker::Stub> stub;

  // A context with the token and a deadline of rpc_timeout + extra.
  void Prepare(grpc::ClientContext* context, absl::Duration extra = absl::ZeroDuration()) {
    AttachToken(context, options.token);
    context->set_deadline(absl::ToChronoTime(absl::Now() + options.rpc_timeout + extra));
  }
};

TrackerClient::TrackerClient(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
TrackerClient::~TrackerClient() = default;

absl::StatusOr<std::unique_ptr<TrackerClient>> TrackerClient::Connect(
    TrackerClientOptions options) {
  if (options.address.empty()) return absl::InvalidArgumentError("tracker address is empty");
  absl::StatusOr<std::shared_ptr<grpc::Channel>> channel =
      MakeChannel(options.address, options.tls, options.max_message_bytes);
  if (!channel.ok()) return channel.status();
  auto impl = std::make_unique<Impl>();
  impl->options = std::move(options);
  impl->stub = v1::Tracker::NewStub(*channel);
  return std::unique_ptr<TrackerClient>(new TrackerClient(std::move(impl)));
}

absl::StatusOr<v1::SubmitResponse> TrackerClient::Submit(
    const std::string& job_id, const std::string& device_key, int priority,
    const std::vector<v1::MeasureRequest>& requests) {
  v1::SubmitRequest request;
  request.set_job_id(job_id);
  request.set_device_key(device_key);
  request.set_priority(priority);
  for (const v1::MeasureRequest& r : requests) *request.add_requests() = r;
  grpc::ClientContext context;
  impl_->Prepare(&context);
  v1::SubmitResponse response;
  absl::Status status = FromGrpcStatus(impl_->stub->Submit(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<std::vector<v1::MeasureResult>> TrackerClient::FetchResults(
    const std::string& job_id, absl::Duration wait, int* pending) {
  v1::FetchResultsRequest request;
  request.set_job_id(job_id);
  request.set_wait_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(wait)));
  grpc::ClientContext context;
  impl_->Prepare(&context, wait);
  v1::FetchResultsResponse response;
  absl::Status status = FromGrpcStatus(impl_->stub->FetchResults(&context, request, &response));
  if (!status.ok()) return status;
  if (pending != nullptr) *pending = response.pending();
  return std::vector<v1::MeasureResult>(std::make_move_iterator(response.results().begin()),
                                        std::make_move_iterator(response.results().end()));
}

absl::StatusOr<std::vector<v1::MeasureResult>> TrackerClient::MeasureBatch(
    const std::string& job_id, const std::string& device_key, int priority,
    const std::vector<v1::MeasureRequest>& requests, absl::Duration timeout,
    const std::function<void(const v1::MeasureResult&)>& on_result) {
  const absl::Time deadline = absl::Now() + timeout;
  absl::flat_hash_set<std::string> wanted;
  for (const v1::MeasureRequest& r : requests) wanted.insert(r.request_id());
  std::vector<v1::MeasureResult> results;
  size_t next = 0;
  auto drain = [&](absl::Duration wait) -> absl::Status {
    absl::StatusOr<std::vector<v1::MeasureResult>> got = FetchResults(job_id, wait);
    if (!got.ok()) return got.status();
    for (v1::MeasureResult& r : *got) {
      if (wanted.erase(r.request_id()) == 0) continue;  // not ours, or already seen
      if (on_result) on_result(r);
      results.push_back(std::move(r));
    }
    return absl::OkStatus();
  };
  while (!wanted.empty()) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("MeasureBatch: ", wanted.size(), " of ",
                                                      requests.size(), " results missing"));
    }
    if (next < requests.size()) {
      size_t end = std::min(requests.size(), next + kSubmitChunk);
      std::vector<v1::MeasureRequest> chunk(requests.begin() + next, requests.begin() + end);
      absl::StatusOr<v1::SubmitResponse> submitted = Submit(job_id, device_key, priority, chunk);
      if (submitted.ok()) {
        next = end;
        continue;
      }
      if (!absl::IsResourceExhausted(submitted.status())) return submitted.status();
      // Back-pressure: collect results until the queue has room again.
    }
    if (absl::Status s = drain(kFetchWait); !s.ok()) return s;
  }
  return results;
}

absl::StatusOr<int> TrackerClient::Cancel(const std::string& job_id) {
  v1::CancelRequest request;
  request.set_job_id(job_id);
  grpc::ClientContext context;
  impl_->Prepare(&context);
  v1::CancelResponse response;
  absl::Status status = FromGrpcStatus(impl_->stub->Cancel(&context, request, &response));
  if (!status.ok()) return status;
  return response.cancelled();
}

absl::StatusOr<v1::FarmSummary> TrackerClient::Summary() {
  grpc::ClientContext context;
  impl_->Prepare(&context);
  v1::FarmSummary response;
  absl::Status status =
      FromGrpcStatus(impl_->stub->Summary(&context, v1::SummaryRequest(), &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<int> TrackerClient::LiveDevices(const std::string& device_key) {
  absl::StatusOr<v1::FarmSummary> summary = Summary();
  if (!summary.ok()) return summary.status();
  for (const v1::QueueStatus& q : summary->queues()) {
    if (q.device_key() == device_key) return q.live_devices();
  }
  return 0;
}

}  // namespace tunefarm
