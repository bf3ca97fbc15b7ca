// Synthetic records for tests and benchmarks (deterministic).
#ifndef TUNEFARM_DB_TEST_RECORDS_H_
#define TUNEFARM_DB_TEST_RECORDS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "db/record.h"

namespace tunefarm::db::testing {

// A dense workload M x N x K float32 with its FLOP count 2*M*N*K.
Workload DenseWorkload(int64_t m, int64_t n, int64_t k);

// A valid record of `workload` with config `config_index` and mean cost `mean_seconds`
// (two repeats around it), on target "llvm -mcpu=znver4" and device key "cpu-znver4".
Record MakeRecord(const Workload& workload, int64_t config_index, double mean_seconds,
                  int64_t job_id = 0);

// A failed record (no costs) of `workload`.
Record MakeErrorRecord(const Workload& workload, int64_t config_index, ErrorClass error);

// `count` valid records spread over `workloads` dense shapes and `configs` config indexes,
// with pseudo-random costs from `seed` (deterministic), for benchmarks and load tests.
std::vector<Record> SyntheticRecords(int64_t count, int workloads, int configs, uint64_t seed);

}  // namespace tunefarm::db::testing

#endif  // TUNEFARM_DB_TEST_RECORDS_H_
