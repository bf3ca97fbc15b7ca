// AutoTVM JSON-lines interop: round trip of our export, and a hand-made TVM log.
#include "db/autotvm_log.h"

#include <algorithm>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "db/json.h"
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

// A resolver standing in for the tuner's (tuner/tuning/autotvm_seed.h): every translated
// config resolves, to an index derived from its text.
AutotvmConfigResolver FakeResolver() {
  return [](const Workload&, const std::string&,
            const std::string& knobs_json) -> absl::StatusOr<ResolvedConfig> {
    return ResolvedConfig{static_cast<int64_t>(Fnv1a64(knobs_json) % 100000), knobs_json};
  };
}

AutotvmImportOptions WithFakeResolver() {
  AutotvmImportOptions o;
  o.resolve = FakeResolver();
  return o;
}

TEST(ParseAutotvmLine, TvmDenseLine_DenseWorkloadUntranslatedWithoutTileK) {
  AutotvmLineInfo info;
  absl::StatusOr<Record> r = ParseAutotvmLine(kTvmDenseLine, WithFakeResolver(), &info);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->workload.template_name, "dense");
  EXPECT_EQ(r->workload.args, R"([1024,1024,1024,"float32"])");
  EXPECT_EQ(r->workload.flop, 2.0 * 1024 * 1024 * 1024);
  EXPECT_EQ(r->target, "llvm -mcpu=znver4");
  EXPECT_EQ(r->device_key, "autotvm");
  EXPECT_TRUE(info.converted);
  EXPECT_FALSE(info.translated);
  EXPECT_NE(info.note.find("knob tile_k missing"), std::string::npos) << info.note;
  // Untranslated: TVM's knobs, an index no space holds, TVM's index and task kept.
  EXPECT_EQ(r->config_index, -1 - 123);
  EXPECT_EQ(r->config_json, R"({"tile_x":[-1,32],"tile_y":[-1,16],"tvm_index":123,)"
                            R"("tvm_task":"dense_nopack.x86","tvm_untranslated":true})");
  EXPECT_EQ(r->costs, (std::vector<double>{0.0123, 0.0125}));
  EXPECT_EQ(r->error, ErrorClass::kOk);
  EXPECT_EQ(r->timestamp, 1700000000.1);
}

TEST(ParseAutotvmLine, DenseNopackAllKnobs_TranslatedToGemmKnobs) {
  std::string line = kTvmDenseLine;
  line.replace(line.find(R"(["tile_x", "sp", [-1, 32]])"), 26,
               R"(["tile_x", "sp", [-1, 32]], ["tile_k", "sp", [-1, 4]])");
  AutotvmLineInfo info;
  absl::StatusOr<Record> r = ParseAutotvmLine(line, WithFakeResolver(), &info);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(info.translated);
  EXPECT_FALSE(info.approximate);
  EXPECT_GE(r->config_index, 0);
  EXPECT_EQ(r->config_json,
            R"({"order":[1,0],"parallel":1,"tile_k":[-1,4],"tile_x":[-1,32],"tile_y":[-1,16],)"
            R"("tvm_index":123,"tvm_task":"dense_nopack.x86","unroll_k":"unroll"})");
  // Without a resolver (no spaces known) the same config stays TVM's.
  AutotvmLineInfo plain;
  absl::StatusOr<Record> u = ParseAutotvmLine(line, {}, &plain);
  ASSERT_TRUE(u.ok());
  EXPECT_FALSE(plain.translated);
  EXPECT_EQ(u->config_index, -124);
}

TEST(ParseAutotvmLine, ResolverRefuses_UntranslatedWithItsReason) {
  AutotvmImportOptions o;
  o.resolve = [](const Workload&, const std::string&,
                 const std::string&) -> absl::StatusOr<ResolvedConfig> {
    return absl::NotFoundError("tile_x [-1,32] is not a choice of the template's space");
  };
  std::string line = kTvmDenseLine;
  line.replace(line.find(R"(["tile_x", "sp", [-1, 32]])"), 26,
               R"(["tile_x", "sp", [-1, 32]], ["tile_k", "sp", [-1, 4]])");
  AutotvmLineInfo info;
  absl::StatusOr<Record> r = ParseAutotvmLine(line, o, &info);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(info.translated);
  EXPECT_NE(info.note.find("not a choice"), std::string::npos) << info.note;
  EXPECT_LT(r->config_index, 0);
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

// `line` with `text` replaced by `by` (the text must occur).
std::string Replaced(std::string line, const std::string& text, const std::string& by) {
  const size_t at = line.find(text);
  EXPECT_NE(at, std::string::npos) << text << " not in " << line;
  if (at != std::string::npos) line.replace(at, text.size(), by);
  return line;
}

// Our own export of a dense record, with `edit` applied to its parsed JSON.
std::string OwnLine(const std::function<void(google::protobuf::Value&)>& edit) {
  Record r = MakeRecord(DenseWorkload(64, 32, 16), 7, 1e-5);
  r.config_json = R"({"tile_k":[-1,4],"tile_x":[-1,16],"tile_y":[-1,8]})";
  absl::StatusOr<std::string> line = FormatAutotvmLine(r);
  EXPECT_TRUE(line.ok()) << line.status();
  absl::StatusOr<google::protobuf::Value> v = ParseJson(*line);
  EXPECT_TRUE(v.ok());
  edit(*v);
  return CanonicalJson(*v);
}

google::protobuf::Value& Extra(google::protobuf::Value& line) {
  return (*line.mutable_struct_value()->mutable_fields())["tunefarm"];
}
google::protobuf::Value& ExtraField(google::protobuf::Value& line, const char* key) {
  return (*Extra(line).mutable_struct_value()->mutable_fields())[key];
}
google::protobuf::Value& ExtraConfigField(google::protobuf::Value& line, const char* key) {
  return (*ExtraField(line, "config").mutable_struct_value()->mutable_fields())[key];
}

TEST(ParseAutotvmLine, NumbersOutOfRange_InvalidArgumentNeverCast) {
  ASSERT_TRUE(ParseAutotvmLine(OwnLine([](auto&) {})).ok());
  const std::vector<std::string> bad = {
      // TVM's index counts from 0: -5 would pass for an untranslated config's index (4).
      Replaced(kTvmDenseLine, R"("index": 123)", R"("index": -5)"),
      Replaced(kTvmDenseLine, R"("index": 123)", R"("index": 1e300)"),
      Replaced(kTvmDenseLine, R"("index": 123)", R"("index": 1.5)"),
      Replaced(kTvmDenseLine, "1700000000.1", "1e400"),
      OwnLine([](auto& v) { ExtraField(v, "config_index").set_number_value(1e300); }),
      OwnLine([](auto& v) { ExtraField(v, "config_index").set_number_value(-1e300); }),
      OwnLine([](auto& v) { ExtraField(v, "config_index").set_number_value(2.5); }),
      OwnLine([](auto& v) { ExtraField(v, "job_id").set_number_value(1e300); }),
      OwnLine([](auto& v) { ExtraField(v, "job_id").set_number_value(-1); }),
      OwnLine([](auto& v) { ExtraField(v, "job_id").set_number_value(0.5); }),
      OwnLine([](auto& v) { ExtraField(v, "cores").set_number_value(1e300); }),
      OwnLine([](auto& v) { ExtraField(v, "cores").set_number_value(4294967296.0); }),
      OwnLine([](auto& v) { ExtraField(v, "cores").set_number_value(-3); }),
      OwnLine([](auto& v) { ExtraField(v, "flop").set_number_value(-1); }),
      OwnLine([](auto& v) { ExtraConfigField(v, "tvm_index").set_number_value(1e300); }),
      OwnLine([](auto& v) { ExtraConfigField(v, "tvm_index").set_number_value(-5); }),
      OwnLine([](auto& v) { ExtraConfigField(v, "tvm_untranslated").set_string_value("yes"); }),
      OwnLine([](auto& v) { ExtraConfigField(v, "tvm_task").set_number_value(3); }),
      // A negative index marks TVM's knobs, and only those: template config 4 on TVM's knobs
      // would be measured as TVM's pick by tune --seed-from-log.
      OwnLine([](auto& v) { ExtraField(v, "config_index").set_number_value(-5); }),
      OwnLine([](auto& v) {
        ExtraConfigField(v, "tvm_untranslated").set_bool_value(true);
        ExtraConfigField(v, "tvm_index").set_number_value(3);
      }),
      OwnLine([](auto& v) {
        ExtraConfigField(v, "tvm_untranslated").set_bool_value(true);
        ExtraConfigField(v, "tvm_index").set_number_value(3);
        ExtraField(v, "config_index").set_number_value(-5);
      }),
  };
  std::stringstream file;
  for (const std::string& line : bad) {
    absl::StatusOr<Record> r = ParseAutotvmLine(line, WithFakeResolver());
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << line;
    file << line << "\n";
  }
  // Counted and reported, never imported.
  auto log = OpenFresh("out_of_range.db");
  absl::StatusOr<AutotvmImportReport> report = ImportAutotvmLog(file, *log, WithFakeResolver());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->malformed, static_cast<int64_t>(bad.size()));
  EXPECT_EQ(report->imported, 0);
  EXPECT_EQ(report->problems.size(),
            std::min<size_t>(bad.size(), AutotvmImportReport::kMaxProblems));
  // The untranslated config's own index is consistent: it imports.
  absl::StatusOr<Record> untranslated = ParseAutotvmLine(OwnLine([](auto& v) {
    ExtraConfigField(v, "tvm_untranslated").set_bool_value(true);
    ExtraConfigField(v, "tvm_index").set_number_value(3);
    ExtraField(v, "config_index").set_number_value(-4);
  }));
  ASSERT_TRUE(untranslated.ok()) << untranslated.status();
  EXPECT_EQ(untranslated->config_index, -4);
}

// A stored record whose kept TVM index is no index (stored before import checked it) is
// refused on export, never cast.
TEST(FormatAutotvmLine, KeptTvmIndexOutOfRange_InvalidArgument) {
  Record r = MakeRecord(DenseWorkload(64, 32, 16), 7, 1e-5);
  for (const char* bad : {"1e300", "-5", "0.5"}) {
    r.config_json = absl::StrCat(R"({"tile_x":[-1,16],"tvm_index":)", bad, "}");
    EXPECT_EQ(FormatAutotvmLine(r).status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

// TVM reads its four knob types only (ConfigEntity.from_json_dict); any other text is no TVM
// line, and would reach the comments of an exported kernels.h.
TEST(ParseAutotvmLine, EntityTypeNotTvms_InvalidArgument) {
  constexpr char kPwn[] = R"(*/ __attribute__((constructor)) static void pwn(void){} /*)";
  for (const std::string& line : {
           Replaced(kTvmDenseLine, R"(["tile_y", "sp",)",
                    absl::StrCat(R"(["tile_y", ")", kPwn, R"(",)")),
           Replaced(kTvmDenseLine, R"(["tile_y", "sp",)", R"(["tile_y", "oe",)"),
           Replaced(kTvmDenseLine, R"(["tile_y", "sp",)", R"(["tile_y", 3,)"),
           // Provenance keys are no knob names.
           Replaced(kTvmDenseLine, R"(["tile_y", "sp", [-1, 16]])",
                    R"(["tvm_untranslated", "ot", 1])"),
           Replaced(kTvmDenseLine, R"(["tile_y", "sp", [-1, 16]])", R"(["tvm_task", "ot", "x"])"),
           OwnLine([&](auto& v) {
             ExtraConfigField(v, "tvm_entity") =
                 *ParseJson(absl::StrCat(R"([["tile_y",")", kPwn, R"(",[-1,8]]])"));
           }),
       }) {
    EXPECT_EQ(ParseAutotvmLine(line).status().code(), absl::StatusCode::kInvalidArgument) << line;
  }
  // Each of TVM's types is read.
  std::string all = Replaced(kTvmDenseLine, R"(["tile_x", "sp", [-1, 32]])",
                             R"(["order", "re", [1, 0]], ["ann", "an", ["unroll", "none"]], )"
                             R"(["opt", "ot", true])");
  absl::StatusOr<Record> r = ParseAutotvmLine(all);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(r->config_json,
            R"({"ann":["unroll","none"],"opt":true,"order":[1,0],"tile_y":[-1,16],)"
            R"("tvm_index":123,"tvm_task":"dense_nopack.x86","tvm_untranslated":true})");
}

TEST(IsAutotvmProvenanceKey, ReservedKeysOnly) {
  for (const char* key :
       {"tvm_task", "tvm_index", "tvm_entity", "tvm_untranslated", "_autotvm_task"}) {
    EXPECT_TRUE(IsAutotvmProvenanceKey(key)) << key;
  }
  for (const char* key : {"tile_x", "index", "tvm", "task"}) {
    EXPECT_FALSE(IsAutotvmProvenanceKey(key)) << key;
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
  ASSERT_EQ(best->size(), 1u);                      // the failed record never wins
  EXPECT_EQ((*best)[0].record.config_index, -124);  // untranslated: TVM's config 123
  EXPECT_EQ(report->converted, 2);                  // the two dense lines
  EXPECT_EQ(report->raw_args, 1);                   // conv2d_NCHWc.x86 given dense's args
  EXPECT_EQ(report->untranslated, 2);
  ASSERT_EQ(report->notes.size(), 3u);
  EXPECT_NE(report->notes[1].find("line 5: conv2d_NCHWc.x86 args kept as TVM's"), std::string::npos)
      << report->notes[1];
}

TEST(TemplateForAutotvmTask, Table_MapsBothWays) {
  EXPECT_EQ(*TemplateForAutotvmTask("dense_pack.x86"), "dense");
  EXPECT_EQ(*TemplateForAutotvmTask("dense_small_batch.gpu"), "dense");
  EXPECT_EQ(*TemplateForAutotvmTask("conv2d_NCHWc.x86"), "conv2d_nchwc");
  EXPECT_EQ(*TemplateForAutotvmTask("conv2d_nchw.cuda"), "conv2d");
  EXPECT_EQ(*TemplateForAutotvmTask("batch_matmul.x86"), "batch_matmul");
  EXPECT_EQ(*TemplateForAutotvmTask("depthwise_conv2d_NCHWc.x86"), "depthwise_conv2d");
  EXPECT_EQ(TemplateForAutotvmTask("pool2d.x86").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(*AutotvmTaskFor("conv2d_nchwc", "llvm"), "conv2d_NCHWc.x86");
  EXPECT_EQ(*AutotvmTaskFor("dense", "llvm -mcpu=znver4"), "dense_pack.x86");
  EXPECT_EQ(*AutotvmTaskFor("dense", "cuda -arch=sm_90"), "dense.cuda");
  EXPECT_EQ(*AutotvmTaskFor("depthwise_conv2d", "cuda"), "depthwise_conv2d_nchw.cuda");
  EXPECT_EQ(AutotvmTaskFor("conv2d_nchwc", "cuda").status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(AutotvmTaskFor("softmax", "llvm").status().code(), absl::StatusCode::kNotFound);
}

TEST(ImportAutotvmLog, CommentsAndBlankLines_SkippedNotMalformed) {
  std::stringstream file;
  file << "# AutoTVM log of resnet-18, tophub style\n"
       << "   # an indented comment\n"
       << "\n"
       << kTvmDenseLine << "\n"
       << "#{\"input\": this would be malformed but is a comment}\n";
  auto log = OpenFresh("comments.db");
  absl::StatusOr<AutotvmImportReport> report = ImportAutotvmLog(file, *log);
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->comments, 3);
  EXPECT_EQ(report->lines, 1);
  EXPECT_EQ(report->imported, 1);
  EXPECT_EQ(report->malformed, 0);
  EXPECT_TRUE(IsAutotvmCommentOrBlank("  \t"));
  EXPECT_TRUE(IsAutotvmCommentOrBlank(" # x"));
  EXPECT_FALSE(IsAutotvmCommentOrBlank("{}"));
  EXPECT_EQ(ParseAutotvmLine("# a comment").status().code(), absl::StatusCode::kInvalidArgument);
}

// ---- Argument conversion, task by task.

google::protobuf::Value Json(absl::string_view text) {
  absl::StatusOr<google::protobuf::Value> v = ParseJson(text);
  EXPECT_TRUE(v.ok()) << text;
  return *v;
}

struct ArgsCase {
  const char* task;
  const char* tvm_args;
  const char* template_name;
  const char* args;
  double flop;
};

TEST(ConvertAutotvmArgs, EveryTask_TemplateWorkloadAndFlop) {
  const double conv_flop = 2.0 * 64 * 56 * 56 * 64 * 9;
  const ArgsCase cases[] = {
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[1,1,1,1],)"
       R"([1,1],"NCHW","NCHW","float32"])",
       "conv2d_nchwc", R"([1,64,56,56,64,3,3,1,1,"float32"])", conv_flop},
      // Older spellings: one stride, [pad_h, pad_w], dilation 1 as an integer.
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,3,224,224],"float32"],["TENSOR",[64,3,7,7],"float32"],2,[3,3],1,)"
       R"("NCHW","NCHW","float32"])",
       "conv2d_nchwc", R"([1,3,224,224,64,7,7,2,3,"float32"])", 2.0 * 64 * 112 * 112 * 3 * 49},
      {"conv2d_nchw.cuda",
       R"([["TENSOR",[1,64,56,56],"float16"],["TENSOR",[64,64,3,3],"float16"],[1,1],[1,1,1,1],)"
       R"([1,1],"float32"])",
       "conv2d", R"([1,64,56,56,64,3,3,1,1,"float16"])", conv_flop},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[2,64,56,56],"float32"],["TENSOR",[128,64,1,1],"float32"],[2,2],0,[1,1],)"
       R"("float32"])",
       "conv2d", R"([2,64,56,56,128,1,1,2,0,"float32"])", 2.0 * 2 * 128 * 28 * 28 * 64},
      {"depthwise_conv2d_NCHWc.x86",
       R"([["TENSOR",[1,32,112,112],"float32"],["TENSOR",[32,1,3,3],"float32"],[1,1],)"
       R"([1,1,1,1],[1,1],"NCHW","NCHW","float32"])",
       "depthwise_conv2d", R"([1,32,112,112,3,3,1,1,"float32"])", 2.0 * 32 * 112 * 112 * 9},
      {"depthwise_conv2d_nchw.cuda",
       R"([["TENSOR",[1,96,112,112],"float32"],["TENSOR",[96,1,3,3],"float32"],[2,2],)"
       R"([1,1,1,1],[1,1],"float32"])",
       "depthwise_conv2d", R"([1,96,112,112,3,3,2,1,"float32"])", 2.0 * 96 * 56 * 56 * 9},
      {"dense_pack.x86",
       R"([["TENSOR",[1,2048],"float32"],["TENSOR",[1000,2048],"float32"],null,)"
       R"("float32"])",
       "dense", R"([1,1000,2048,"float32"])", 2.0 * 1000 * 2048},
      {"dense_small_batch.gpu",
       R"([["TENSOR",[16,768],"float16"],["TENSOR",[3072,768],"float16"],null,"float32"])", "dense",
       R"([16,3072,768,"float16"])", 2.0 * 16 * 3072 * 768},
      {"batch_matmul.x86",
       R"([["TENSOR",[12,128,64],"float32"],["TENSOR",[12,128,64],"float32"],null,"float32",)"
       R"(false,true])",
       "batch_matmul", R"([12,128,128,64,"float32"])", 2.0 * 12 * 128 * 128 * 64},
      // TVM 0.7's three arguments, and an explicit out_shape.
      {"batch_matmul.cuda",
       R"([["TENSOR",[4,32,16],"float32"],["TENSOR",[4,8,16],"float32"],[4,32,8]])", "batch_matmul",
       R"([4,32,8,16,"float32"])", 2.0 * 4 * 32 * 8 * 16},
  };
  for (const ArgsCase& c : cases) {
    absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(c.task, Json(c.tvm_args));
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_TRUE(w->converted) << c.task << " " << c.tvm_args << ": " << w->why_raw;
    EXPECT_EQ(w->template_name, c.template_name);
    EXPECT_EQ(w->args, c.args) << c.task;
    EXPECT_EQ(w->flop, c.flop) << c.task;
    // And back: the task's argument list converts to the same workload.
    absl::StatusOr<google::protobuf::Value> back = AutotvmArgsFor(c.task, w->args);
    ASSERT_TRUE(back.ok()) << back.status();
    absl::StatusOr<AutotvmWorkload> again = ConvertAutotvmArgs(c.task, *back);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(again->args, w->args) << CanonicalJson(*back);
  }
}

struct RawCase {
  const char* task;
  const char* tvm_args;
  const char* why;  // a piece of the reason
};

TEST(ConvertAutotvmArgs, NoTunefarmEquivalent_KeptRawWithReason) {
  const RawCase cases[] = {
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[2,2,2,2],)"
       R"([2,2],"NCHW","NCHW","float32"])",
       "dilation 2"},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,16,3,3],"float32"],[1,1],[1,1,1,1],)"
       R"([1,1],"float32"])",
       "grouped"},
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,8,56,56,8],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],)"
       R"([1,1,1,1],[1,1],"NCHW8c","NCHW8c","float32"])",
       "rank 5"},
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[1,1,1,1],)"
       R"([1,1],"NHWC","NCHW","float32"])",
       "layout"},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[0,0,1,1],)"
       R"([1,1],"float32"])",
       "differs per side"},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,2],[1,1,1,1],)"
       R"([1,1],"float32"])",
       "strides"},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,1,1],"float32"],[1,1],[1,1,1,1],)"
       R"([1,1],"float32"])",
       "not smaller than the kernel"},
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,64,56,56],"float16"],["TENSOR",[64,64,3,3],"float16"],[1,1],[1,1,1,1],)"
       R"([1,1],"NCHW","NCHW","float32"])",
       "float32 only"},
      {"conv2d_nchw.x86",
       R"([["TENSOR",[1,64,56,56],"int8"],["TENSOR",[64,64,3,3],"int8"],[1,1],[1,1,1,1],)"
       R"([1,1],"int32"])",
       "dtype int8"},
      {"depthwise_conv2d_nchw.x86",
       R"([["TENSOR",[1,32,112,112],"float32"],["TENSOR",[32,2,3,3],"float32"],[1,1],)"
       R"([1,1,1,1],[1,1],"float32"])",
       "multiplier"},
      {"dense_pack.x86",
       R"([["TENSOR",[64,64],"float32"],["TENSOR",[64,64],"float32"],["TENSOR",[64],"float32"],)"
       R"("float32"])",
       "bias"},
      {"dense_nopack.x86",
       R"([["TENSOR",[64,32],"float32"],["TENSOR",[64,64],"float32"],null,)"
       R"("float32"])",
       "disagree on K"},
      {"batch_matmul.x86",
       R"([["TENSOR",[8,64,32],"float32"],["TENSOR",[1,48,32],"float32"],null,"float32",false,)"
       R"(true])",
       "batch"},
      {"batch_matmul.x86",
       R"([["TENSOR",[8,32,64],"float32"],["TENSOR",[8,48,32],"float32"],null,"float32",true,)"
       R"(true])",
       "transpose_a"},
  };
  for (const RawCase& c : cases) {
    absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(c.task, Json(c.tvm_args));
    ASSERT_TRUE(w.ok()) << w.status();
    EXPECT_FALSE(w->converted) << c.task << " " << c.tvm_args;
    EXPECT_NE(w->why_raw.find(c.why), std::string::npos) << c.why << " vs " << w->why_raw;
    EXPECT_EQ(w->args, CanonicalJson(Json(c.tvm_args)));
    EXPECT_EQ(w->flop, 0);
  }
}

// Every argument position of every task replaced by junk: never a crash, never converted.
TEST(ConvertAutotvmArgs, MalformedArgs_NeverCrashNeverConverted) {
  const std::pair<const char*, const char*> valid[] = {
      {"conv2d_NCHWc.x86",
       R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[1,1,1,1],)"
       R"([1,1],"NCHW","NCHW","float32"])"},
      {"depthwise_conv2d_nchw.cuda",
       R"([["TENSOR",[1,32,112,112],"float32"],["TENSOR",[32,1,3,3],"float32"],[1,1],)"
       R"([1,1,1,1],[1,1],"float32"])"},
      {"dense_nopack.x86",
       R"([["TENSOR",[64,64],"float32"],["TENSOR",[64,64],"float32"],null,"float32"])"},
      {"batch_matmul.x86",
       R"([["TENSOR",[8,64,32],"float32"],["TENSOR",[8,48,32],"float32"],null,"float32",false,)"
       R"(true])"},
  };
  const char* junk[] = {"null",
                        R"("x")",
                        "[]",
                        "{}",
                        "-1",
                        "1e300",
                        "0.5",
                        R"(["TENSOR",[-3,2],"float32"])",
                        "[[[]]]",
                        R"(["TENSOR",["a",2],"float32"])",
                        R"(["TENSOR",[1e30,1],"x"])",
                        "true"};
  int tried = 0;
  for (const auto& [task, args] : valid) {
    google::protobuf::Value base = Json(args);
    ASSERT_TRUE(ConvertAutotvmArgs(task, base)->converted) << task;
    for (int i = 0; i < base.list_value().values_size(); ++i) {
      for (const char* j : junk) {
        google::protobuf::Value bad = base;
        *bad.mutable_list_value()->mutable_values(i) = Json(j);
        absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(task, bad);
        ASSERT_TRUE(w.ok());
        // A few junk values are valid spellings (null out_dtype, an int stride); the rest fail.
        if (w->converted) {
          EXPECT_TRUE(std::string(j) == "null" || std::string(j) == "true" ||
                      std::string(j) == R"("x")" || std::string(j) == "-1" ||
                      std::string(j) == "1e300" || std::string(j) == "0.5")
              << task << " arg " << i << " = " << j;
        }
        ++tried;
      }
    }
    for (const char* whole : {"null", "{}", R"("args")", "[]", "[1,2,3]"}) {
      absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(task, Json(whole));
      ASSERT_TRUE(w.ok());
      EXPECT_FALSE(w->converted) << whole;
    }
  }
  EXPECT_GT(tried, 200);
  EXPECT_EQ(ConvertAutotvmArgs("winograd.x86", Json("[]")).status().code(),
            absl::StatusCode::kNotFound);
}

// ---- Knob translation.

AutotvmWorkload Converted(const char* task, const char* tvm_args) {
  absl::StatusOr<AutotvmWorkload> w = ConvertAutotvmArgs(task, Json(tvm_args));
  EXPECT_TRUE(w.ok() && w->converted) << tvm_args;
  return *w;
}

constexpr char kConv3x3[] =
    R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[64,64,3,3],"float32"],[1,1],[1,1,1,1],)"
    R"([1,1],"NCHW","NCHW","float32"])";
constexpr char kConv1x1[] =
    R"([["TENSOR",[1,64,56,56],"float32"],["TENSOR",[256,64,1,1],"float32"],[1,1],0,[1,1],)"
    R"("NCHW","NCHW","float32"])";
constexpr char kDense64[] =
    R"([["TENSOR",[64,64],"float32"],["TENSOR",[64,64],"float32"],null,"float32"])";
constexpr char kBmm[] =
    R"([["TENSOR",[8,64,32],"float32"],["TENSOR",[8,48,32],"float32"],null,"float32",false,true])";

struct KnobCase {
  const char* task;
  const char* tvm_args;
  const char* tvm_knobs;
  const char* ours;
  bool approximate;
};

TEST(TranslateAutotvmConfig, CorrespondingKnobs_TemplateKnobsAndBack) {
  const KnobCase cases[] = {
      {"conv2d_NCHWc.x86", kConv3x3,
       R"({"tile_ic":[-1,8],"tile_oc":[-1,16],"tile_ow":[-1,8],"unroll_kw":true})",
       R"({"parallel":1,"tile_ic":[-1,8],"tile_oc":[-1,16],"tile_ocb":[-1,1],"tile_ow":[-1,8],)"
       R"("unroll_kernel":"unroll"})",
       false},
      {"conv2d_NCHWc.x86", kConv3x3,
       R"({"tile_ic":[-1,16],"tile_oc":[-1,32],"tile_ow":[-1,14],"unroll_kw":false})",
       R"({"parallel":1,"tile_ic":[-1,16],"tile_oc":[-1,32],"tile_ocb":[-1,1],"tile_ow":[-1,14],)"
       R"("unroll_kernel":"none"})",
       false},
      {"conv2d_NCHWc.x86", kConv1x1,
       R"({"tile_ic":[-1,16],"tile_oc":[-1,32],"tile_oh":1,"tile_ow":[-1,8]})",
       R"({"parallel":1,"tile_ic":[-1,16],"tile_oc":[-1,32],"tile_ocb":[-1,1],"tile_ow":[-1,8],)"
       R"("unroll_kernel":"none"})",
       false},
      {"dense_pack.x86", kDense64,
       R"({"tile_inner":[-1,1],"tile_k":[-1,4],"tile_x":[-1,1,16],"tile_y":[-1,1,8]})",
       R"({"order":[0,1],"parallel":1,"tile_k":[-1,4],"tile_x":[-1,16],"tile_y":[-1,8],)"
       R"("unroll_k":"unroll"})",
       false},
      {"dense_pack.x86", kDense64,
       R"({"tile_inner":[-1,2],"tile_k":[-1,8],"tile_x":[-1,2,32],"tile_y":[-1,2,4]})",
       R"({"order":[0,1],"parallel":1,"tile_k":[-1,8],"tile_x":[-1,32],"tile_y":[-1,4],)"
       R"("unroll_k":"unroll"})",
       true},
      {"dense_nopack.x86", kDense64, R"({"tile_k":[-1,8],"tile_x":[-1,16],"tile_y":[-1,4]})",
       R"({"order":[1,0],"parallel":1,"tile_k":[-1,8],"tile_x":[-1,16],"tile_y":[-1,4],)"
       R"("unroll_k":"unroll"})",
       false},
      {"batch_matmul.x86", kBmm, R"({"tile_k":[-1,8],"tile_x":[-1,16],"tile_y":[-1,8]})",
       R"({"order":[1,0],"parallel":1,"tile_k":[-1,8],"tile_x":[-1,16],"tile_y":[-1,8],)"
       R"("unroll_k":"unroll"})",
       false},
  };
  for (const KnobCase& c : cases) {
    AutotvmWorkload w = Converted(c.task, c.tvm_args);
    absl::StatusOr<AutotvmTranslation> t = TranslateAutotvmConfig(c.task, w, Json(c.tvm_knobs));
    ASSERT_TRUE(t.ok()) << c.task << " " << c.tvm_knobs << ": " << t.status();
    EXPECT_EQ(CanonicalJson(t->knobs), c.ours) << c.tvm_knobs;
    EXPECT_EQ(t->approximate, c.approximate) << c.tvm_knobs;
    // Back to TVM's entity: TVM's own knobs again, unless the translation was approximate.
    absl::StatusOr<google::protobuf::Value> entity = AutotvmEntityFor(c.task, w.args, t->knobs);
    ASSERT_TRUE(entity.ok()) << entity.status();
    google::protobuf::Value knobs = JsonObject();
    for (const google::protobuf::Value& e : entity->list_value().values()) {
      ASSERT_EQ(e.list_value().values_size(), 3);
      const std::string type = e.list_value().values(1).string_value();
      EXPECT_TRUE(type == "sp" || type == "ot") << type;
      (*knobs.mutable_struct_value()->mutable_fields())[e.list_value().values(0).string_value()] =
          e.list_value().values(2);
    }
    if (!c.approximate) EXPECT_EQ(CanonicalJson(knobs), c.tvm_knobs);
  }
}

TEST(TranslateAutotvmConfig, NoFaithfulTranslation_FailedPrecondition) {
  const KnobCase cases[] = {
      // A task whose knobs tunefarm's template does not have.
      {"depthwise_conv2d_NCHWc.x86",
       R"([["TENSOR",[1,32,112,112],"float32"],["TENSOR",[32,1,3,3],"float32"],[1,1],)"
       R"([1,1,1,1],[1,1],"NCHW","NCHW","float32"])",
       R"({"tile_ic":[-1,8],"tile_oc":[-1,8],"tile_ow":[-1,16],"unroll_kw":true})", "counterpart",
       false},
      // Two output rows per block (1x1 kernels): conv2d_nchwc has one.
      {"conv2d_NCHWc.x86", kConv1x1,
       R"({"tile_ic":[-1,16],"tile_oc":[-1,32],"tile_oh":2,"tile_ow":[-1,8]})", "tile_oh", false},
      {"conv2d_NCHWc.x86", kConv3x3, R"({"tile_ic":[-1,8],"tile_oc":[-1,16],"unroll_kw":true})",
       "tile_ow missing", false},
      {"conv2d_NCHWc.x86", kConv3x3,
       R"({"tile_ic":[-1,8],"tile_oc":[-1,16],"tile_ow":[-1,8],"unroll_kw":true,"extra":1})",
       "unexpected knob extra", false},
      {"conv2d_NCHWc.x86", kConv3x3,
       R"({"tile_ic":[-1,8],"tile_oc":[-1,16],"tile_ow":[-1,8],"unroll_kw":"yes"})", "boolean",
       false},
      {"dense_pack.x86", kDense64, R"({"tile_k":[-1,4],"tile_x":[-1,16],"tile_y":[-1,8]})",
       "3-way split", false},
      {"dense_nopack.x86", kDense64, R"({"tile_k":[-1,0],"tile_x":[-1,16],"tile_y":[-1,4]})",
       "factor", false},
      {"batch_matmul.x86", kBmm, R"({"tile_k":[-1,8],"tile_x":true,"tile_y":[-1,8]})", "split",
       false},
  };
  for (const KnobCase& c : cases) {
    AutotvmWorkload w = Converted(c.task, c.tvm_args);
    absl::StatusOr<AutotvmTranslation> t = TranslateAutotvmConfig(c.task, w, Json(c.tvm_knobs));
    EXPECT_EQ(t.status().code(), absl::StatusCode::kFailedPrecondition) << c.tvm_knobs;
    EXPECT_NE(t.status().message().find(c.ours), std::string::npos) << t.status();
  }
  AutotvmWorkload raw;
  raw.converted = false;
  EXPECT_EQ(TranslateAutotvmConfig("dense_pack.x86", raw, JsonObject()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// ---- The test log in TVM's format, through import and export.

constexpr char kTestLog[] = "tests/testdata/autotvm/tvm_x86.log";

std::vector<std::string> TestLogLines() {
  std::ifstream in(kTestLog);
  EXPECT_TRUE(in.good()) << kTestLog;
  std::vector<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!IsAutotvmCommentOrBlank(line)) lines.push_back(line);
  }
  return lines;
}

// What TVM reads of a line: target, task, args, config index, entity as {name: [type, value]},
// costs, error number and timestamp.
std::string TvmView(const std::string& line) {
  google::protobuf::Value v = Json(line);
  const auto& f = v.struct_value().fields();
  google::protobuf::Value entity = JsonObject();
  for (const auto& e : f.at("config").struct_value().fields().at("entity").list_value().values()) {
    (*entity.mutable_struct_value()->mutable_fields())[e.list_value().values(0).string_value()] =
        JsonList({e.list_value().values(1), e.list_value().values(2)});
  }
  const auto& result = f.at("result").list_value().values();
  return absl::StrCat(CanonicalJson(f.at("input")), " #",
                      CanonicalJson(f.at("config").struct_value().fields().at("index")), " ",
                      CanonicalJson(entity), " ", CanonicalJson(result[0]), " ",
                      CanonicalJson(result[1]), " ", CanonicalJson(result[3]));
}

TEST(ImportAutotvmLog, TestLog_ReportCountsEveryKind) {
  std::ifstream in(kTestLog);
  auto log = OpenFresh("testlog.db");
  absl::StatusOr<AutotvmImportReport> report = ImportAutotvmLog(in, *log, WithFakeResolver());
  ASSERT_TRUE(report.ok()) << report.status();
  EXPECT_EQ(report->comments, 3);
  EXPECT_EQ(report->lines, 16);
  EXPECT_EQ(report->imported, 16);
  EXPECT_EQ(report->malformed + report->unknown_template, 0);
  EXPECT_EQ(report->raw_args, 3);
  EXPECT_EQ(report->converted, 13);
  // The fake resolver accepts every translation (the real spaces refuse tile_ow 28: see
  // tuner/tuning:autotvm_seed_test); depthwise has none.
  EXPECT_EQ(report->translated, 12);
  EXPECT_EQ(report->approximate, 1);
  EXPECT_EQ(report->untranslated, 1);
  EXPECT_EQ(report->notes.size(), 5u);  // 3 raw, 1 untranslated, 1 approximate
  // Records are found under tunefarm's workload names.
  BestQuery q;
  q.workload = *Workload::Make("conv2d_nchwc", R"([1,64,56,56,64,3,3,1,1,"float32"])", 0);
  q.target = "llvm -keys=cpu -link-params=0 -mcpu=skylake-avx512";
  q.k = 5;
  absl::StatusOr<std::vector<BestRecord>> best = log->BestK(q);
  ASSERT_TRUE(best.ok()) << best.status();
  ASSERT_EQ(best->size(), 3u);  // the failed one never wins
  EXPECT_NEAR((*best)[0].gflops, 2.0 * 64 * 56 * 56 * 64 * 9 / 0.0019 / 1e9, 1e-6);
}

TEST(ExportAutotvmLog, TestLog_RoundTripGivesTvmsLinesBack) {
  const std::vector<std::string> lines = TestLogLines();
  std::stringstream text;
  for (const std::string& l : lines) text << l << "\n";
  auto log = OpenFresh("tvm_roundtrip.db");
  absl::StatusOr<AutotvmImportReport> first = ImportAutotvmLog(text, *log, WithFakeResolver());
  ASSERT_TRUE(first.ok()) << first.status();
  std::stringstream out;
  absl::StatusOr<int64_t> written = ExportAutotvmLog(*log, {}, out);
  ASSERT_TRUE(written.ok()) << written.status();
  ASSERT_EQ(*written, static_cast<int64_t>(lines.size()));
  std::string line;
  for (size_t i = 0; std::getline(out, line); ++i) {
    ASSERT_LT(i, lines.size());
    EXPECT_EQ(TvmView(line), TvmView(lines[i])) << "line " << i;
  }
  // And our export imports back to identical records.
  out.clear();
  out.seekg(0);
  auto copy = OpenFresh("tvm_roundtrip_copy.db");
  absl::StatusOr<AutotvmImportReport> again = ImportAutotvmLog(out, *copy);
  ASSERT_TRUE(again.ok()) << again.status();
  // The report of our export says what the first import said, with a note for every line that
  // kept TVM's args or config.
  EXPECT_EQ(again->raw_args, first->raw_args);
  EXPECT_EQ(again->converted, first->converted);
  EXPECT_EQ(again->translated, first->translated);
  EXPECT_EQ(again->approximate, first->approximate);
  EXPECT_EQ(again->untranslated, first->untranslated);
  ASSERT_EQ(again->notes.size(), first->notes.size());
  // "line N: TASK config I kept as TVM's: why": the export does not say why.
  auto head = [](const std::string& note) {
    const size_t kept = note.find("kept as TVM's");
    return kept == std::string::npos ? note : note.substr(0, kept);
  };
  for (size_t i = 0; i < first->notes.size(); ++i) {
    EXPECT_EQ(head(again->notes[i]), head(first->notes[i]));
  }
  std::vector<Record> a = AllRecords(*log), b = AllRecords(*copy);
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    b[i].id = a[i].id;
    EXPECT_EQ(a[i], b[i]) << "record " << i;
  }
}

TEST(FormatAutotvmLine, OwnDenseRecord_DensePackArgsAndKnobs) {
  Record r = MakeRecord(DenseWorkload(64, 32, 16), 7, 1e-5);
  r.config_json =
      R"({"index":7,"order":[0,1],"parallel":1,"tile_k":[-1,4],"tile_x":[-1,16],"tile_y":[-1,8],)"
      R"("unroll_k":"unroll"})";
  absl::StatusOr<std::string> line = FormatAutotvmLine(r);
  ASSERT_TRUE(line.ok()) << line.status();
  google::protobuf::Value v = Json(*line);
  const auto& input = v.struct_value().fields().at("input").list_value().values();
  EXPECT_EQ(input[1].string_value(), "dense_pack.x86");
  EXPECT_EQ(CanonicalJson(input[2]),
            R"([["TENSOR",[64,16],"float32"],["TENSOR",[32,16],"float32"],null,"float32"])");
  EXPECT_EQ(
      CanonicalJson(v.struct_value().fields().at("config").struct_value().fields().at("entity")),
      R"([["tile_y","sp",[-1,1,8]],["tile_x","sp",[-1,1,16]],["tile_k","sp",[-1,4]],)"
      R"(["tile_inner","sp",[-1,1]]])");
}

}  // namespace
}  // namespace tunefarm::db
