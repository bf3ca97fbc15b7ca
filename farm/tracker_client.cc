#include "farm/tracker_client.h"

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "common/transport.h"
#include "proto/tracker.grpc.pb.h"

namespace tunefarm {
namespace {

// Requests per Submit call in MeasureBatch (keeps messages well under the size bound).
constexpr int kSubmitChunk = 256;
// Long-poll wait of one FetchResults call in MeasureBatch.
constexpr absl::Duration kFetchWait = absl::Seconds(2);
// Backoff between attempts while the tracker is unreachable or restarting.
constexpr absl::Duration kMinBackoff = absl::Milliseconds(100);
constexpr absl::Duration kMaxBackoff = absl::Seconds(2);

// Errors after which the same call may succeed later: the tracker is down, restarting (a
// server shutting down cancels calls in flight) or slow to answer.
bool Transient(const absl::Status& s) {
  return absl::IsUnavailable(s) || absl::IsDeadlineExceeded(s) || absl::IsAborted(s) ||
         absl::IsCancelled(s);
}

}  // namespace

bool IsBackPressure(const absl::Status& status) {
  return absl::IsResourceExhausted(status) && status.GetPayload(kBackPressurePayload).has_value();
}

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
  if (request.ByteSizeLong() > static_cast<size_t>(impl_->options.max_message_bytes)) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "Submit of ", request.ByteSizeLong(), " bytes exceeds the message limit of ",
        impl_->options.max_message_bytes, " bytes; send fewer or smaller requests per call"));
  }
  grpc::ClientContext context;
  impl_->Prepare(&context);
  v1::SubmitResponse response;
  absl::Status status = FromGrpcCall(impl_->stub->Submit(&context, request, &response), context);
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<v1::FetchResultsResponse> TrackerClient::FetchResults(
    const std::string& job_id, absl::Duration wait, const std::vector<std::string>& ack) {
  v1::FetchResultsRequest request;
  request.set_job_id(job_id);
  request.set_wait_ms(static_cast<int32_t>(absl::ToInt64Milliseconds(wait)));
  for (const std::string& id : ack) request.add_ack(id);
  grpc::ClientContext context;
  impl_->Prepare(&context, wait);
  v1::FetchResultsResponse response;
  absl::Status status = FromGrpcStatus(impl_->stub->FetchResults(&context, request, &response));
  if (!status.ok()) return status;
  return response;
}

absl::StatusOr<std::vector<v1::MeasureResult>> TrackerClient::MeasureBatch(
    const std::string& job_id, const std::string& device_key, int priority,
    const std::vector<v1::MeasureRequest>& requests, absl::Duration timeout,
    const std::function<absl::Status(const v1::MeasureResult&)>& on_result,
    const std::function<bool()>& cancelled) {
  const absl::Time deadline = absl::Now() + timeout;
  // Indices of requests still without a result, and of those to (re)submit.
  absl::flat_hash_map<std::string, size_t> wanted;
  for (size_t i = 0; i < requests.size(); ++i) wanted.emplace(requests[i].request_id(), i);
  const absl::flat_hash_map<std::string, size_t> batch = wanted;
  std::vector<size_t> to_submit;
  for (size_t i = requests.size(); i > 0; --i) to_submit.push_back(i - 1);  // popped from back
  std::vector<v1::MeasureResult> results;
  // Ids received since the last acknowledgement that reached the tracker.
  std::vector<std::string> ack;
  std::string incarnation;
  bool key_accepted = false;
  absl::Duration backoff = kMinBackoff;
  // The tracker forgot what it had: everything still wanted goes out again.
  auto resubmit_all = [&] {
    to_submit.clear();
    for (const auto& [id, index] : wanted) to_submit.push_back(index);
  };
  auto note_incarnation = [&](const std::string& seen) {
    if (!incarnation.empty() && seen != incarnation) resubmit_all();
    incarnation = seen;
  };
  auto wait_and_retry = [&] {
    absl::SleepFor(std::min(backoff, std::max(deadline - absl::Now(), absl::ZeroDuration())));
    backoff = std::min(2 * backoff, kMaxBackoff);
  };
  while (!wanted.empty()) {
    if (cancelled && cancelled()) {
      // What was acknowledged is the caller's; the rest stays with the tracker until the
      // caller cancels the job there.
      if (!ack.empty()) (void)FetchResults(job_id, absl::ZeroDuration(), ack);
      return absl::CancelledError(absl::StrCat("MeasureBatch: cancelled with ", wanted.size(),
                                               " of ", requests.size(), " results missing"));
    }
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(absl::StrCat("MeasureBatch: ", wanted.size(), " of ",
                                                      requests.size(), " results missing"));
    }
    if (!to_submit.empty()) {
      std::vector<v1::MeasureRequest> chunk;
      std::vector<size_t> chunk_indices;
      // At most kSubmitChunk requests and half the message limit per call (one request alone
      // may take more; the tracker then refuses it as too large, an error).
      size_t chunk_bytes = 0;
      const size_t byte_budget = static_cast<size_t>(impl_->options.max_message_bytes) / 2;
      while (!to_submit.empty() && chunk.size() < static_cast<size_t>(kSubmitChunk)) {
        size_t index = to_submit.back();
        if (!wanted.contains(requests[index].request_id())) {
          to_submit.pop_back();
          continue;
        }
        const size_t bytes = requests[index].ByteSizeLong();
        if (!chunk.empty() && chunk_bytes + bytes > byte_budget) break;
        to_submit.pop_back();
        chunk_bytes += bytes;
        chunk.push_back(requests[index]);
        chunk_indices.push_back(index);
      }
      if (chunk.empty()) continue;
      absl::StatusOr<v1::SubmitResponse> submitted = Submit(job_id, device_key, priority, chunk);
      if (submitted.ok()) {
        key_accepted = true;
        backoff = kMinBackoff;
        note_incarnation(submitted->tracker_incarnation());
        continue;
      }
      to_submit.insert(to_submit.end(), chunk_indices.rbegin(), chunk_indices.rend());
      const absl::Status& s = submitted.status();
      // After a restart the key is unknown until its workers register again.
      if (Transient(s) || (absl::IsNotFound(s) && key_accepted)) {
        wait_and_retry();
        continue;
      }
      // A full queue: collect results until it has room again. Anything else, an oversized
      // message included, is an error that waiting cannot cure.
      if (!IsBackPressure(s)) return s;
    }
    absl::StatusOr<v1::FetchResultsResponse> got = FetchResults(job_id, kFetchWait, ack);
    if (!got.ok()) {
      if (absl::IsNotFound(got.status())) {
        ack.clear();  // that tracker holds nothing of this job any more
        resubmit_all();
        if (to_submit.empty()) wait_and_retry();
        continue;
      }
      if (Transient(got.status())) {
        wait_and_retry();
        continue;
      }
      return got.status();
    }
    backoff = kMinBackoff;
    ack.clear();
    note_incarnation(got->tracker_incarnation());
    for (v1::MeasureResult& r : *got->mutable_results()) {
      if (!batch.contains(r.request_id())) continue;  // another caller's: not ours to take
      auto it = wanted.find(r.request_id());
      if (it == wanted.end()) {
        ack.push_back(r.request_id());  // held already (an acknowledgement was lost)
        continue;
      }
      // Taken over only once the caller has it: acknowledged with the next call.
      if (on_result) {
        if (absl::Status s = on_result(r); !s.ok()) return s;
      }
      ack.push_back(r.request_id());
      wanted.erase(it);
      results.push_back(std::move(r));
    }
  }
  // Hand the last results over; if this is lost, the tracker keeps them until the job's next
  // acknowledgement (best effort: we hold every result already).
  if (!ack.empty()) (void)FetchResults(job_id, absl::ZeroDuration(), ack);
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
