#include "db/test_records.h"

#include "absl/strings/str_cat.h"

namespace tunefarm::db::testing {

Workload DenseWorkload(int64_t m, int64_t n, int64_t k) {
  Workload w;
  w.template_name = "dense";
  w.args = absl::StrCat("[", m, ",", n, ",", k, ",\"float32\"]");
  w.flop = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
  return w;
}

Record MakeRecord(const Workload& workload, int64_t config_index, double mean_seconds,
                  int64_t job_id) {
  Record r;
  r.workload = workload;
  r.target = "llvm -mcpu=znver4";
  r.device_key = "cpu-znver4";
  r.device.cpu_model = "AMD Ryzen 9 7950X";
  r.device.cores = 2;
  r.device.compiler_version = "LLVM 16.0.6";
  r.job_id = job_id;
  r.config_index = config_index;
  r.config_json = absl::StrCat("{\"tile_x\":[-1,", 1 + config_index % 64, "],\"tile_y\":[-1,",
                               1 + config_index / 64 % 64, "]}");
  r.costs = {mean_seconds * 0.99, mean_seconds * 1.01};
  r.tuner_version = "tunefarm 0.1.0";
  r.timestamp = 1700000000.0 + static_cast<double>(config_index);
  return r;
}

Record MakeErrorRecord(const Workload& workload, int64_t config_index, ErrorClass error) {
  Record r = MakeRecord(workload, config_index, 1.0);
  r.costs.clear();
  r.error = error;
  r.error_message = absl::StrCat("synthetic ", ErrorClassName(error));
  return r;
}

}  // namespace tunefarm::db::testing
