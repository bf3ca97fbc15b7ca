#include "tuner/tuning/result_record.h"

#include <algorithm>
#include <cmath>

#include "tuner/tuning/error_class.h"

namespace tunefarm::tuner {

db::Record RecordFromResult(const TuneTask& task, int64_t index, const v1::MeasureResult& r,
                            const RecordContext& context) {
  db::Record rec;
  rec.workload = task.DbWorkload();
  rec.target = task.target.str;
  rec.device_key = task.device_key;
  if (context.device.has_value()) {
    rec.device.cpu_model = context.device->cpu_model();
    rec.device.gpu_model = context.device->gpu_name();
    rec.device.cores = context.device->cores();
  }
  // An emulated board's timings are the emulator's: marked, they never rank with real ones. The
  // worker says so in every result; the device description (a lookup that can miss) as well.
  rec.device.emulated = r.emulated() || (context.device.has_value() && context.device->emulated());
  // The code generator every candidate is built with (compiler/codegen links LLVM 16).
  rec.device.compiler_version = "LLVM 16";
  rec.job_id = context.db_job_id;
  rec.config_index = index;
  auto cfg = task.space->Get(index);
  rec.config_json = cfg.ok() ? cfg->ToJson() : "{}";
  rec.error = ErrorClassOfResult(r.error());
  if (rec.error == db::ErrorClass::kOk) {
    rec.costs.assign(r.costs_s().begin(), r.costs_s().end());
    const bool positive = std::any_of(rec.costs.begin(), rec.costs.end(),
                                      [](double c) { return c > 0 && std::isfinite(c); });
    if (!positive) {
      rec.error = db::ErrorClass::kUnknown;
      rec.error_message = "device reported no positive cost";
      rec.costs.clear();
    }
  } else {
    rec.error_message = r.message().empty() ? "failed" : r.message();
  }
  rec.tuner_version = context.tuner_version;
  rec.timestamp = absl::ToDoubleSeconds(context.now - absl::UnixEpoch());
  rec.request_id = r.request_id();
  rec.cold_cache = r.distribution().cold_cache();
  return rec;
}

}  // namespace tunefarm::tuner
