// AutoTVM JSON-lines interop: round trip of our export, and a hand-made TVM log.
#include "db/autotvm_log.h"

#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/test_records.h"
#include "db/tuning_log.h"
#include "gtest/gtest.h"

namespace tunefarm::db {
namespace {

using ::tunefarm::db::testing::DenseWorkload;
using ::tunefarm::db::testing::MakeErrorRecord;
using ::tunefarm::db::testing::MakeRecord;

std::unique_ptr<TuningLog> OpenFresh(absl::string_view name) {
  std::string path = absl::StrCat(::testing::TempDir(), "/", name);
  for (const char* suffix : {"", "-wal", "-shm"}) std::remove((path + suffix).c_str());
  auto log = TuningLog::Open(path);
  EXPECT_TRUE(log.ok()) << log.status();
  return *std::move(log);
}

std::vector<Record> AllRecords(const TuningLog& log) {
  std::vector<Record> out;
  EXPECT_TRUE(log.ForEachRecord({},
                                [&](const Record& r) {
                                  out.push_back(r);
                                  return absl::OkStatus();
                                })
                  .ok());
  return out;
}

// The example line of the issue, in TVM's own spelling.
constexpr char kTvmDenseLine[] =
    R"({"input": ["llvm -mcpu=znver4", "dense_nopack.x86", [["TENSOR", [1024, 1024], "float32"],)"
    R"( ["TENSOR", [1024, 1024], "float32"], null, "float32"], {}], "config": {"index": 123,)"
    R"( "code_hash": null, "entity": [["tile_y", "sp", [-1, 16]], ["tile_x", "sp", [-1, 32]]]},)"
    R"( "result": [[0.0123, 0.0125], 0, 1.53, 1700000000.1], "version": 0.2,)"
    R"( "tvm_version": "0.8.0"})";

TEST(ParseAutotvmLine, TvmDenseLine_DenseWorkloadWithKnobs) {
  absl::StatusOr<Record> r = ParseAutotvmLine(kTvmDenseLine);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->workload.template_name, "dense");
  EXPECT_EQ(r->workload.args, R"([1024,1024,1024,"float32"])");
  EXPECT_EQ(r->workload.flop, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(r->target, "llvm -mcpu=znver4");
  EXPECT_EQ(r->device_key, "autotvm");
  EXPECT_EQ(r->config_index, 123);
  EXPECT_EQ(r->config_json, R"({"tile_x":[-1,32],"tile_y":[-1,16]})");
  EXPECT_EQ(r->costs, (std::vector<double>{0.0123, 0.0125}));
  EXPECT_EQ(r->error, ErrorClass::kOk);
  EXPECT_EQ(r->timestamp, 1700000000.1);
}

TEST(ParseAutotvmLine, NonDefaultTask_KeptInConfig) {
  std::string line = kTvmDenseLine;
  line.replace(line.find("dense_nopack"), 12, "dense_pack");
  absl::StatusOr<Record> r = ParseAutotvmLine(line);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->config_json,
            R"({"_autotvm_task":"dense_pack.x86","tile_x":[-1,32],"tile_y":[-1,16]})");
  absl::StatusOr<std::string> back = FormatAutotvmLine(*r);
  ASSERT_TRUE(back.ok());
  EXPECT_NE(back->find(R"("dense_pack.x86")"), std::string::npos) << *back;
  EXPECT_NE(back->find(R"(["tile_x","sp",[-1,32]])"), std::string::npos) << *back;
}

TEST(ParseAutotvmLine, UnknownTask_NotFound) {
  std::string line = kTvmDenseLine;
  line.replace(line.find("dense_nopack.x86"), 16, "softmax.cuda");
  EXPECT_EQ(ParseAutotvmLine(line).status().code(), absl::StatusCode::kNotFound);
}

TEST(ParseAutotvmLine, BadFields_InvalidArgument) {
  for (const char* bad : {
           "not json at all",
           "[1, 2, 3]",
           R"({"input": ["llvm", "dense_nopack.x86"], "config": {}, "result": []})",
           R"({"input": ["llvm", "dense_nopack.x86", [], {}], "config": {"index": 1,)"
           R"( "entity": []}, "result": [[0.1], 42, 0, 0]})",
           R"({"input": ["llvm", "dense_nopack.x86", [], {}], "config": {"index": 1,)"
           R"( "entity": []}, "result": [[], 0, 0, 0]})",
       }) {
    EXPECT_EQ(ParseAutotvmLine(bad).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(ExportAutotvmLog, OwnRecords_ImportBackIdentical) {
  auto log = OpenFresh("roundtrip_src.db");
  Workload conv;
  conv.template_name = "conv2d";
  conv.args = R"([1,64,56,56,64,3,3,1,1,"float32"])";
  conv.flop = 231211008;
  Record c = MakeRecord(conv, 17, 0.00123456789);
  c.config_json = R"({"tile_ic":[-1,8],"unroll_kw":true,"order":[2,0,1],"mode":"vec"})";
  Record lost = MakeErrorRecord(DenseWorkload(64, 32, 16), 5, ErrorClass::kDeviceLost);
  lost.job_id = 3;
  lost.device.gpu_model = "H100";
  lost.device.driver_version = "535.104";
  ASSERT_TRUE(log->Insert({MakeRecord(DenseWorkload(1024, 512, 256), 1, 0.0123), c, lost,
                           MakeErrorRecord(conv, 9, ErrorClass::kWrongAnswer)})
                  .ok());
  std::stringstream text;
  int64_t skipped = -1;
  absl::StatusOr<int64_t> written = ExportAutotvmLog(*log, {}, text, &skipped);
  ASSERT_TRUE(written.ok()) << written.status();
  EXPECT_EQ(*written, 4);
  EXPECT_EQ(skipped, 0);

  auto copy = OpenFresh("roundtrip_dst.db");
  absl::StatusOr<AutotvmImportReport> report = ImportAutotvmLog(text, *copy);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->imported, 4);
  EXPECT_EQ(report->malformed + report->unknown_template, 0);
  std::vector<Record> a = AllRecords(*log), b = AllRecords(*copy);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    b[i].id = a[i].id;
    EXPECT_EQ(a[i], b[i]) << "record " << i << "\n" << *FormatAutotvmLine(a[i]);
  }
}

TEST(ImportAutotvmLog, MixedFile_ImportsValidAndReportsRest) {
  std::string conv_line = kTvmDenseLine;
  conv_line.replace(conv_line.find("dense_nopack.x86"), 16, "conv2d_NCHWc.x86");
  std::string error_line = kTvmDenseLine;
  error_line.replace(error_line.find("[[0.0123, 0.0125], 0,"), 21,
                     R"x([["RuntimeError('x')"], 4,)x");
  std::string unknown = kTvmDenseLine;
  unknown.replace(unknown.find("dense_nopack.x86"), 16, "pool2d.x86");
  std::stringstream file;
  file << kTvmDenseLine << "\n"
       << "\n"                       // blank: ignored
       << "{\"input\": truncated\n"  // malformed
       << unknown << "\n"            // unknown template
       << conv_line << "\n"          // valid conv2d
       << R"({"input": 1, "config": {}, "result": []})"
       << "\n"                 // malformed
       << error_line << "\n";  // valid failed measurement
  auto log = OpenFresh("mixed.db");
  absl::StatusOr<AutotvmImportReport> report = ImportAutotvmLog(file, *log);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->lines, 6);
  EXPECT_EQ(report->imported, 3);
  EXPECT_EQ(report->malformed, 2);
  EXPECT_EQ(report->unknown_template, 1);
  ASSERT_EQ(report->problems.size(), 3u);
  EXPECT_EQ(report->problems[0].rfind("line 3: ", 0), 0u) << report->problems[0];
  EXPECT_EQ(*log->CountRecords(), 3);
  std::vector<Record> records = AllRecords(*log);
  EXPECT_EQ(records[2].error, ErrorClass::kRuntimeError);
  EXPECT_TRUE(records[2].costs.empty());
  BestQuery q;
  q.workload = records[0].workload;
  q.target = "llvm -mcpu=znver4";
  auto best = log->BestK(q);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 1u);  // the failed record never wins
  EXPECT_EQ((*best)[0].record.config_index, 123);
}

TEST(TemplateForAutotvmTask, Table_MapsBothWays) {
  EXPECT_EQ(*TemplateForAutotvmTask("dense_pack.x86"), "dense");
  EXPECT_EQ(*TemplateForAutotvmTask("conv2d_nchw.x86"), "conv2d");
  EXPECT_EQ(*TemplateForAutotvmTask("batch_matmul.x86"), "batch_matmul");
  EXPECT_EQ(*TemplateForAutotvmTask("depthwise_conv2d_NCHWc.x86"), "depthwise");
  EXPECT_EQ(*AutotvmTaskForTemplate("conv2d"), "conv2d_NCHWc.x86");
  EXPECT_EQ(AutotvmTaskForTemplate("softmax").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace tunefarm::db
