// Writes and queries of the tuning log on a temporary file.
#include "db/tuning_log.h"

#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/record_writer.h"
#include "db/test_records.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

using ::tunefarm::db::testing::DenseWorkload;
using ::tunefarm::db::testing::MakeErrorRecord;
using ::tunefarm::db::testing::MakeRecord;

class TuningLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = absl::StrCat(::testing::TempDir(), "/",
                         ::testing::UnitTest::GetInstance()->current_test_info()->name(), ".db");
    for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path_ + suffix).c_str());
    auto log = TuningLog::Open(path_);
    ASSERT_TRUE(log.ok()) << log.status();
    log_ = *std::move(log);
  }

  std::vector<int64_t> InsertOk(const std::vector<Record>& records) {
    auto ids = log_->Insert(records);
    EXPECT_TRUE(ids.ok()) << ids.status();
    return ids.ok() ? *ids : std::vector<int64_t>();
  }

  BestQuery Query(const Workload& w, int k) {
    BestQuery q;
    q.workload = w;
    q.target = "llvm -mcpu=znver4";
    q.k = k;
    return q;
  }

  std::string path_;
  std::unique_ptr<TuningLog> log_;
};

TEST_F(TuningLogTest, BestK_MixedRecords_FastestDistinctValidConfigs) {
  Workload w = DenseWorkload(256, 256, 256);
  InsertOk({MakeRecord(w, 1, 0.004), MakeRecord(w, 2, 0.002), MakeRecord(w, 3, 0.003),
            MakeRecord(w, 2, 0.0025), MakeErrorRecord(w, 4, ErrorClass::kWrongAnswer),
            MakeErrorRecord(w, 5, ErrorClass::kRunTimeout), MakeRecord(w, 6, 0.001)});
  auto best = log_->BestK(Query(w, 3));
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 3u);
  EXPECT_EQ((*best)[0].record.config_index, 6);
  EXPECT_EQ((*best)[1].record.config_index, 2);
  EXPECT_EQ((*best)[2].record.config_index, 3);
  EXPECT_TRUE((*best)[0].exact);
  EXPECT_NEAR((*best)[0].cost_s, 0.001, 1e-12);
  EXPECT_NEAR((*best)[0].gflops, w.flop / 0.001 / 1e9, 1e-6);
  EXPECT_EQ((*best)[0].record.device.cpu_model, "AMD Ryzen 9 7950X");
}

TEST_F(TuningLogTest, SaveProgram_KeptByHash_SavedOnceAndCheckedInput) {
  const std::string text = "A = input(float32, [N])\nB[i] = A[i] * 2\n";
  ASSERT_TRUE(log_->SaveProgram("0123456789abcdef", "double", text, 1.0).ok());
  ASSERT_TRUE(log_->SaveProgram("0123456789abcdef", "double", "ignored", 2.0).ok());
  auto got = log_->ProgramText("0123456789abcdef");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(*got, text);
  EXPECT_EQ(log_->ProgramText("ffffffffffffffff").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(log_->SaveProgram("XYZ", "p", text, 1.0).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(log_->SaveProgram("0123456789abcdef", "p", "", 1.0).code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, BestK_OnlyInvalidRecords_NotFound) {
  Workload w = DenseWorkload(64, 64, 64);
  InsertOk({MakeErrorRecord(w, 1, ErrorClass::kBuildError)});
  EXPECT_EQ(log_->BestK(Query(w, 5)).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(log_->BestK(Query(DenseWorkload(1, 2, 3), 5)).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(TuningLogTest, BestK_BadK_InvalidArgument) {
  EXPECT_EQ(log_->BestK(Query(DenseWorkload(1, 2, 3), 0)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, BestK_DeviceKey_FiltersOtherDevices) {
  Workload w = DenseWorkload(128, 128, 128);
  Record other = MakeRecord(w, 9, 0.0001);
  other.device_key = "cpu-other";
  InsertOk({MakeRecord(w, 1, 0.01), other});
  BestQuery q = Query(w, 5);
  EXPECT_EQ((*log_->BestK(q))[0].record.config_index, 9);
  q.device_key = "cpu-znver4";
  auto best = log_->BestK(q);
  ASSERT_TRUE(best.ok());
  ASSERT_EQ(best->size(), 1u);
  EXPECT_EQ((*best)[0].record.config_index, 1);
}

// Timings of an emulated board (qemu-user) and of real hardware never rank together: real
// ones answer when there are any, else the emulated ones, each record saying which it is.
TEST_F(TuningLogTest, BestK_EmulatedDevices_NeverMixedWithReal) {
  Workload w = DenseWorkload(64, 64, 64);
  Record emulated_fast = MakeRecord(w, 7, 0.00001);
  emulated_fast.device.emulated = true;
  emulated_fast.device.cpu_model = "emulated aarch64";
  InsertOk({emulated_fast});
  auto only_emulated = log_->BestK(Query(w, 5));
  ASSERT_TRUE(only_emulated.ok()) << only_emulated.status();
  ASSERT_EQ(only_emulated->size(), 1u);
  EXPECT_TRUE((*only_emulated)[0].record.device.emulated);
  InsertOk({MakeRecord(w, 1, 0.01), MakeRecord(w, 2, 0.02)});
  auto best = log_->BestK(Query(w, 5));
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 2u);  // the faster emulated timing is not among them
  EXPECT_EQ((*best)[0].record.config_index, 1);
  EXPECT_FALSE((*best)[0].record.device.emulated);
  EXPECT_FALSE((*best)[1].record.device.emulated);
}

// A config's records count in log order, failures included: one that failed when run again
// ranks at twice its cost, and only failures on its own kind of device count (an emulated
// device's failure says nothing of the real one).
TEST_F(TuningLogTest, BestK_FailuresAfterASuccess_CountOnTheirKindOfDevice) {
  Workload w = DenseWorkload(96, 96, 96);
  Record emulated_failure = MakeErrorRecord(w, 3, ErrorClass::kRunTimeout);
  emulated_failure.device.emulated = true;
  emulated_failure.device.cpu_model = "emulated aarch64";
  InsertOk({MakeRecord(w, 1, 0.0010), MakeRecord(w, 2, 0.0012), MakeRecord(w, 3, 0.0008),
            MakeErrorRecord(w, 1, ErrorClass::kRuntimeError), MakeRecord(w, 2, 0.0012),
            emulated_failure});
  auto best = log_->BestK(Query(w, 3));
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 3u);
  // 3: measured once (its emulated failure left out), faster than any first run: first.
  EXPECT_EQ((*best)[0].record.config_index, 3);
  EXPECT_FALSE((*best)[0].confirmed);
  EXPECT_NEAR((*best)[0].cost_s, 0.0008, 1e-12);
  // 2: confirmed at 1.2 ms. 1: failed again, at twice its 1.0 ms.
  EXPECT_EQ((*best)[1].record.config_index, 2);
  EXPECT_TRUE((*best)[1].confirmed);
  EXPECT_EQ((*best)[2].record.config_index, 1);
  EXPECT_NEAR((*best)[2].cost_s, 0.0010, 1e-12);
  EXPECT_NEAR((*best)[2].rank_s, 0.0020, 1e-12);
  for (size_t i = 1; i < best->size(); ++i) EXPECT_LE((*best)[i - 1].rank_s, (*best)[i].rank_s);
}

// A config index measured in two versions of its space (different knobs) is two configs: their
// measurements do not pool.
TEST_F(TuningLogTest, BestK_SameIndexOtherKnobs_TwoConfigs) {
  Workload w = DenseWorkload(80, 80, 80);
  Record old_space = MakeRecord(w, 5, 0.0009);
  old_space.config_json = R"({"tile_x":[-1,8]})";
  Record new_space = MakeRecord(w, 5, 0.0011);
  new_space.config_json = R"({"tile_x":[-1,16]})";
  InsertOk({old_space, new_space});
  auto best = log_->BestK(Query(w, 5));
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 2u);
  EXPECT_FALSE((*best)[0].confirmed);
  EXPECT_EQ((*best)[0].record.config_json, R"({"tile_x":[-1,8]})");
  EXPECT_EQ((*best)[1].record.config_json, R"({"tile_x":[-1,16]})");
}

// Warm-timed records never rank with cold-timed ones (a warm time is faster than the same
// kernel's cold one): the cold-timed ones answer when there are any, whatever the warm ones
// measured, and a log of warm records alone still answers.
TEST_F(TuningLogTest, BestK_ColdTimedRecords_RankApartFromWarmAndWin) {
  Workload w = DenseWorkload(64, 64, 64);
  InsertOk({MakeRecord(w, 3, 0.001), MakeRecord(w, 4, 0.002)});
  auto warm_only = log_->BestK(Query(w, 5));
  ASSERT_TRUE(warm_only.ok()) << warm_only.status();
  ASSERT_EQ(warm_only->size(), 2u);
  EXPECT_EQ((*warm_only)[0].record.config_index, 3);
  Record cold_slow = MakeRecord(w, 8, 0.005);
  cold_slow.cold_cache = true;
  Record cold_slower = MakeRecord(w, 9, 0.006);
  cold_slower.cold_cache = true;
  InsertOk({cold_slower, cold_slow});
  auto best = log_->BestK(Query(w, 5));
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 2u);  // the faster warm timings are not among them
  EXPECT_EQ((*best)[0].record.config_index, 8);
  EXPECT_EQ((*best)[1].record.config_index, 9);
  EXPECT_TRUE((*best)[0].record.cold_cache);
  EXPECT_TRUE((*best)[1].record.cold_cache);
  // An emulated device's cold record does not displace the real warm ones' ranking: real first.
  Workload v = DenseWorkload(32, 32, 32);
  Record emulated_cold = MakeRecord(v, 5, 0.0001);
  emulated_cold.device.emulated = true;
  emulated_cold.device.cpu_model = "emulated aarch64";
  emulated_cold.cold_cache = true;
  InsertOk({emulated_cold, MakeRecord(v, 6, 0.01)});
  auto real = log_->BestK(Query(v, 5));
  ASSERT_TRUE(real.ok()) << real.status();
  ASSERT_EQ(real->size(), 1u);
  EXPECT_EQ((*real)[0].record.config_index, 6);
}

TEST_F(TuningLogTest, BestK_NearestOnMiss_InvalidArgument_ItIsQueryBests) {
  InsertOk({MakeRecord(DenseWorkload(512, 512, 512), 1, 0.01)});
  BestQuery q = Query(DenseWorkload(1024, 1024, 1024), 5);
  q.nearest_on_miss = true;
  EXPECT_EQ(log_->BestK(q).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, RecordedShapes_OnlyShapesWithValidRecordsOnTargetAndKey) {
  Record failed = MakeRecord(DenseWorkload(8, 8, 8), 1, 0.01);
  failed.error = ErrorClass::kRuntimeError;
  failed.costs.clear();
  Record other_key = MakeRecord(DenseWorkload(16, 16, 16), 1, 0.01);
  other_key.device_key = "gpu-h100";
  InsertOk({MakeRecord(DenseWorkload(512, 512, 512), 1, 0.01), failed, other_key});
  auto shapes = log_->RecordedShapes("dense", "llvm -mcpu=znver4", "cpu-znver4");
  ASSERT_TRUE(shapes.ok()) << shapes.status();
  ASSERT_EQ(shapes->size(), 1u);
  EXPECT_EQ((*shapes)[0].args, DenseWorkload(512, 512, 512).args);
  EXPECT_EQ(log_->RecordedShapes("dense", "llvm -mcpu=znver4", "")->size(), 2u);
  EXPECT_TRUE(log_->RecordedShapes("dense", "cuda", "")->empty());
  EXPECT_EQ(log_->RecordedShapes("", "llvm", "").status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, Insert_OneMalformedRecord_NothingWritten) {
  Workload w = DenseWorkload(8, 8, 8);
  Record bad = MakeRecord(w, 2, 0.1);
  bad.config_json = "not json";
  EXPECT_EQ(log_->Insert({MakeRecord(w, 1, 0.1), bad}).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(*log_->CountRecords(), 0);
}

TEST_F(TuningLogTest, Insert_SameRequestIdTwice_StoredOnce) {
  Workload w = DenseWorkload(64, 64, 64);
  Record first = MakeRecord(w, 1, 0.1);
  first.request_id = "job-1/abc/0";
  Record again = MakeRecord(w, 1, 0.2);  // the same result delivered twice
  again.request_id = first.request_id;
  Record other = MakeRecord(w, 2, 0.3);
  other.request_id = "job-1/abc/1";
  auto ids = log_->Insert({first, other});
  ASSERT_TRUE(ids.ok()) << ids.status();
  auto repeated = log_->Insert({again, MakeRecord(w, 3, 0.4)});
  ASSERT_TRUE(repeated.ok()) << repeated.status();
  EXPECT_EQ((*repeated)[0], (*ids)[0]);  // the stored record's id
  EXPECT_EQ(*log_->CountRecords(), 3);
  // Within one batch too, and records without a request id are never merged.
  Record twice = MakeRecord(w, 4, 0.5);
  twice.request_id = "job-1/abc/2";
  ASSERT_TRUE(log_->Insert({twice, twice, MakeRecord(w, 3, 0.4)}).ok());
  EXPECT_EQ(*log_->CountRecords(), 5);
  std::vector<std::string> request_ids;
  ASSERT_TRUE(log_->ForEachRecord({},
                                  [&](const Record& r) {
                                    request_ids.push_back(r.request_id);
                                    return absl::OkStatus();
                                  })
                  .ok());
  EXPECT_EQ(request_ids,
            (std::vector<std::string>{"job-1/abc/0", "job-1/abc/1", "", "job-1/abc/2", ""}));
}

TEST_F(TuningLogTest, Insert_RoundTrip_IdenticalRecords) {
  Workload w = DenseWorkload(16, 32, 64);
  int64_t job = *log_->CreateJob({0, "job", "llvm -mcpu=znver4", "cpu-znver4", "t", 10, 1.0});
  std::vector<Record> in = {MakeRecord(w, 1, 0.1, job),
                            MakeErrorRecord(w, 2, ErrorClass::kDeviceLost)};
  in[1].job_id = job;
  in[0].cold_cache = true;  // timed cold: kept
  std::vector<int64_t> ids = InsertOk(in);
  auto out = log_->JobHistory(job);
  ASSERT_TRUE(out.ok());
  ASSERT_EQ(out->size(), 2u);
  for (int i = 0; i < 2; ++i) {
    in[i].id = ids[i];
    EXPECT_EQ((*out)[i], in[i]) << i;
  }
  auto info = log_->GetJob(job);
  ASSERT_TRUE(info.ok());
  EXPECT_EQ(info->name, "job");
  EXPECT_EQ(info->trials, 10);
  EXPECT_EQ(log_->GetJob(job + 100).status().code(), absl::StatusCode::kNotFound);
}

TEST_F(TuningLogTest, TemplateHistory_ValidOnly_AllShapesOfTemplateOnDevice) {
  Record other_device = MakeRecord(DenseWorkload(4, 4, 4), 1, 0.1);
  other_device.device_key = "cpu-other";
  Record conv = MakeRecord(DenseWorkload(4, 4, 4), 1, 0.1);
  conv.workload.template_name = "conv2d";
  InsertOk({MakeRecord(DenseWorkload(4, 4, 4), 1, 0.1), MakeRecord(DenseWorkload(8, 8, 8), 2, 0.2),
            MakeErrorRecord(DenseWorkload(8, 8, 8), 3, ErrorClass::kBuildError), other_device,
            conv});
  TemplateHistoryQuery q;
  q.template_name = "dense";
  q.device_key = "cpu-znver4";
  auto valid = log_->TemplateHistory(q);
  ASSERT_TRUE(valid.ok()) << valid.status();
  ASSERT_EQ(valid->size(), 2u);
  EXPECT_EQ((*valid)[0].config_index, 2);  // newest first
  q.include_invalid = true;
  EXPECT_EQ(log_->TemplateHistory(q)->size(), 3u);
  q.limit = 1;
  EXPECT_EQ(log_->TemplateHistory(q)->size(), 1u);
  q.device_key = "";
  EXPECT_EQ(log_->TemplateHistory(q).status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, Stats_PerWorkload_CountsAndBest) {
  Workload a = DenseWorkload(4, 4, 4), b = DenseWorkload(8, 8, 8);
  InsertOk({MakeRecord(a, 1, 0.2), MakeRecord(a, 2, 0.1),
            MakeErrorRecord(a, 3, ErrorClass::kBuildError), MakeRecord(b, 1, 0.3)});
  auto stats = log_->Stats();
  ASSERT_TRUE(stats.ok());
  ASSERT_EQ(stats->size(), 2u);
  EXPECT_EQ((*stats)[0].workload.args, a.args);
  EXPECT_EQ((*stats)[0].records, 3);
  EXPECT_EQ((*stats)[0].valid_records, 2);
  EXPECT_NEAR((*stats)[0].best_mean_cost, 0.1, 1e-12);
}

TEST_F(TuningLogTest, ReadOnly_Insert_FailedPrecondition) {
  InsertOk({MakeRecord(DenseWorkload(4, 4, 4), 1, 0.2)});
  TuningLogOptions options;
  options.read_only = true;
  auto ro = TuningLog::Open(path_, options);
  ASSERT_TRUE(ro.ok()) << ro.status();
  EXPECT_EQ((*ro)->Insert({MakeRecord(DenseWorkload(4, 4, 4), 1, 0.2)}).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(*(*ro)->CountRecords(), 1);
}

TEST_F(TuningLogTest, RecordWriter_Batches_CommitsPerBatchAndOnFlush) {
  std::vector<int64_t> committed_ids;
  RecordWriterOptions options;
  options.batch_size = 3;
  options.on_commit = [&](absl::Span<const Record> batch) {
    for (const Record& r : batch) committed_ids.push_back(r.id);
  };
  auto writer = RecordWriter::Create(log_.get(), options);
  ASSERT_TRUE(writer.ok());
  Workload w = DenseWorkload(4, 4, 4);
  for (int i = 0; i < 4; ++i) ASSERT_TRUE((*writer)->Add(MakeRecord(w, i, 0.1)).ok());
  EXPECT_EQ(*log_->CountRecords(), 3);
  EXPECT_EQ((*writer)->pending(), 1);
  ASSERT_TRUE((*writer)->Flush().ok());
  EXPECT_EQ(*log_->CountRecords(), 4);
  EXPECT_EQ(committed_ids.size(), 4u);
  EXPECT_EQ((*writer)->committed(), 4);
  Record bad = MakeRecord(w, 1, 0.1);
  bad.target = "";
  EXPECT_EQ((*writer)->Add(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(RecordWriter::Create(log_.get(), {0, nullptr}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST_F(TuningLogTest, CheckIntegrity_FreshLog_Ok) { EXPECT_TRUE(log_->CheckIntegrity().ok()); }

}  // namespace
}  // namespace tunefarm::db
