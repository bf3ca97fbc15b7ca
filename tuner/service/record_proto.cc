#include "tuner/service/record_proto.h"

#include "tuner/tuning/error_class.h"

namespace tunefarm::tuner {

using db::BestQuery;
using db::BestRecord;
using db::ErrorClass;
using db::Record;

void ToProto(const Record& r, v1::Record* out) {
  out->set_id(r.id);
  out->mutable_workload()->set_template_name(r.workload.template_name);
  out->mutable_workload()->set_args(r.workload.args);
  out->mutable_workload()->set_flop(r.workload.flop);
  out->set_target(r.target);
  out->set_device_key(r.device_key);
  v1::DeviceFingerprint* d = out->mutable_device();
  d->set_cpu_model(r.device.cpu_model);
  d->set_gpu_model(r.device.gpu_model);
  d->set_cores(r.device.cores);
  d->set_driver_version(r.device.driver_version);
  d->set_compiler_version(r.device.compiler_version);
  d->set_emulated(r.device.emulated);
  out->set_job_id(r.job_id);
  out->set_config_index(r.config_index);
  out->set_config_json(r.config_json);
  out->mutable_costs()->Assign(r.costs.begin(), r.costs.end());
  out->set_error(ToRecordErrorClass(r.error));
  out->set_error_message(r.error_message);
  out->set_tuner_version(r.tuner_version);
  out->set_timestamp(r.timestamp);
  out->set_cold_cache(r.cold_cache);
}

absl::StatusOr<Record> FromProto(const v1::Record& p) {
  absl::StatusOr<ErrorClass> error = FromRecordErrorClass(p.error());
  if (!error.ok()) return error.status();
  Record r;
  r.id = p.id();
  r.workload.template_name = p.workload().template_name();
  r.workload.args = p.workload().args();
  r.workload.flop = p.workload().flop();
  r.target = p.target();
  r.device_key = p.device_key();
  r.device.cpu_model = p.device().cpu_model();
  r.device.gpu_model = p.device().gpu_model();
  r.device.cores = p.device().cores();
  r.device.driver_version = p.device().driver_version();
  r.device.compiler_version = p.device().compiler_version();
  r.device.emulated = p.device().emulated();
  r.job_id = p.job_id();
  r.config_index = p.config_index();
  r.config_json = p.config_json();
  r.costs.assign(p.costs().begin(), p.costs().end());
  r.error = *error;
  r.error_message = p.error_message();
  r.tuner_version = p.tuner_version();
  r.timestamp = p.timestamp();
  r.cold_cache = p.cold_cache();
  return r;
}

BestQuery FromProto(const v1::QueryBestRequest& request) {
  BestQuery q;
  q.workload.template_name = request.workload().template_name();
  q.workload.args = request.workload().args();
  q.workload.flop = request.workload().flop();
  q.target = request.target();
  q.device_key = request.device_key();
  q.k = request.k() == 0 ? 1 : request.k();
  q.nearest_on_miss = request.nearest_on_miss();
  return q;
}

v1::QueryBestResponse ToProto(const std::vector<BestRecord>& best) {
  v1::QueryBestResponse response;
  for (const BestRecord& b : best) {
    v1::BestRecord* out = response.add_best();
    ToProto(b.record, out->mutable_record());
    out->set_mean_cost(b.cost_s);
    out->set_gflops(b.gflops);
    out->set_exact(b.exact);
    out->set_distance(b.distance);
    out->set_runs(b.runs);
    out->set_confirmed(b.confirmed);
    out->set_rank_s(b.rank_s);
  }
  return response;
}

}  // namespace tunefarm::tuner
