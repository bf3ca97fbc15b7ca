// Test helper for crash_test: inserts batches into a tuning log forever and prints
// "committed FIRST LAST" after each commit, so a test that SIGKILLs it knows which records
// must survive. Usage: crash_writer DB_PATH BATCH_SIZE
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "db/record.h"
#include "db/test_records.h"
#include "db/tuning_log.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: crash_writer DB_PATH BATCH_SIZE\n");
    return 2;
  }
  int batch_size = std::atoi(argv[2]);
  auto log = tunefarm::db::TuningLog::Open(argv[1]);
  if (!log.ok()) {
    std::fprintf(stderr, "crash_writer: %s\n", log.status().ToString().c_str());
    return 1;
  }
  tunefarm::db::Workload w = tunefarm::db::testing::DenseWorkload(256, 256, 256);
  for (int64_t seq = 0;; ++seq) {
    std::vector<tunefarm::db::Record> batch;
    for (int i = 0; i < batch_size; ++i) {
      batch.push_back(tunefarm::db::testing::MakeRecord(w, seq * batch_size + i, 0.001 + i * 1e-6));
    }
    auto ids = (*log)->Insert(batch);
    if (!ids.ok()) {
      std::fprintf(stderr, "crash_writer: %s\n", ids.status().ToString().c_str());
      return 1;
    }
    std::printf("committed %lld %lld\n", static_cast<long long>(ids->front()),
                static_cast<long long>(ids->back()));
    std::fflush(stdout);
  }
}
