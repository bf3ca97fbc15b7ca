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

std::vector<Record> SyntheticRecords(int64_t count, int workloads, int configs, uint64_t seed) {
  std::vector<Workload> shapes;
  for (int i = 0; i < workloads; ++i) {
    shapes.push_back(DenseWorkload(64 << (i % 6), 64 << (i / 6 % 6), 64 << (i / 36 % 6) + i / 216));
  }
  // SplitMix64: a tiny deterministic generator, same sequence on every platform.
  uint64_t state = seed;
  auto next = [&state] {
    uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  std::vector<Record> out;
  out.reserve(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) {
    const Workload& w = shapes[next() % shapes.size()];
    int64_t config = static_cast<int64_t>(next() % static_cast<uint64_t>(configs));
    double seconds = w.flop / 1e9 / (1.0 + static_cast<double>(next() % 100000) / 1000.0);
    Record r = MakeRecord(w, config, seconds, /*job_id=*/0);
    if (next() % 10 == 0) r.device_key = "cpu-other";
    if (next() % 20 == 0) {
      r.costs.clear();
      r.error = ErrorClass::kRuntimeError;
    }
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace tunefarm::db::testing
