// Runs every libFuzzer target of tests/fuzz for its share of --seconds on its seed corpus plus
// a corpus kept between runs, and reports executions, coverage and crashes.
//
//   bazel run --config=fuzz //bench:fuzz -- --seconds 600   # coverage-guided, ASan + UBSan
//   bazel run //bench:fuzz -- --seconds 60                  # gcc build: random mutation only
//
// The last line is `RESULT targets=... execs=... crashes=... instrumented=...`. A crash keeps
// its input under --work_dir/<target>/crash-*; rerun it with the target binary and that file.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/parse.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/child_process.h"

ABSL_FLAG(int, seconds, 60, "Total fuzzing time, shared equally by the targets.");
ABSL_FLAG(bool, quick, false, "10 seconds in all.");
ABSL_FLAG(std::string, work_dir, "/tmp/tunefarm-fuzz",
          "Where the growing corpora and crash inputs are kept between runs.");

namespace tunefarm::bench {
namespace {

constexpr const char* kTargets[] = {"autotvm_log",     "job_spec", "tracker_request",
                                    "sandbox_framing", "log_row",  "program"};

#ifdef TUNEFARM_FUZZ_INSTRUMENTED
constexpr bool kInstrumented = true;
#else
constexpr bool kInstrumented = false;
#endif

std::string Runfile(const std::string& relative) {
  if (const char* srcdir = std::getenv("TEST_SRCDIR")) {
    return absl::StrCat(srcdir, "/tunefarm/", relative);
  }
  return relative;  // `bazel run` starts in the runfiles tree
}

// The last number after `key` in `text` (0 when absent).
int64_t LastNumberAfter(const std::string& text, const std::string& key) {
  size_t at = text.rfind(key);
  if (at == std::string::npos) return 0;
  at += key.size();
  while (at < text.size() && text[at] == ' ') ++at;
  size_t end = at;
  while (end < text.size() && isdigit(static_cast<unsigned char>(text[end]))) ++end;
  int64_t value = 0;
  (void)absl::SimpleAtoi(text.substr(at, end - at), &value);
  return value;
}

int Main() {
  const int total = absl::GetFlag(FLAGS_quick) ? 10 : absl::GetFlag(FLAGS_seconds);
  const int n = static_cast<int>(std::size(kTargets));
  const int each = std::max(1, total / n);
  const std::string work = absl::GetFlag(FLAGS_work_dir);
  std::printf("fuzz: %d targets, %d s each, %s; corpora and crashes in %s\n", n, each,
              kInstrumented ? "coverage-guided with ASan and UBSan (clang-16)"
                            : "uninstrumented (random mutation of the corpus; use --config=fuzz "
                              "for coverage-guided runs)",
              work.c_str());
  std::printf("%-18s %8s %12s %10s %10s %8s\n", "target", "seconds", "execs", "execs/s", "coverage",
              "crashes");
  int64_t execs = 0;
  int crashes = 0;
  for (const char* target : kTargets) {
    const std::string dir = absl::StrCat(work, "/", target);
    const std::string corpus = absl::StrCat(dir, "/corpus");
    (void)RunQuietly({"/bin/mkdir", "-p", corpus});
    const std::string log = absl::StrCat(dir, "/last.log");
    std::remove(log.c_str());
    absl::StatusOr<int> code =
        RunToExit({Runfile(absl::StrCat("tests/fuzz/", target, "_fuzzer")),
                   absl::StrCat("-max_total_time=", each), "-timeout=10", "-rss_limit_mb=2048",
                   "-print_final_stats=1", absl::StrCat("-artifact_prefix=", dir, "/"), corpus,
                   Runfile(absl::StrCat("tests/fuzz/corpus/", target))},
                  log);
    std::ifstream in(log);
    std::stringstream text;
    text << in.rdbuf();
    const int64_t runs = LastNumberAfter(text.str(), "stat::number_of_executed_units:");
    const int64_t coverage = LastNumberAfter(text.str(), "cov:");
    const bool crashed = !code.ok() || *code != 0;
    execs += runs;
    crashes += crashed ? 1 : 0;
    std::printf("%-18s %8d %12lld %10lld %10s %8d\n", target, each, static_cast<long long>(runs),
                static_cast<long long>(runs / each),
                kInstrumented ? absl::StrCat(coverage).c_str() : "-", crashed ? 1 : 0);
    if (crashed) std::printf("  crash: see %s and %s/crash-*\n", log.c_str(), dir.c_str());
    std::fflush(stdout);
  }
  PrintResult({{"targets", absl::StrCat(n)},
               {"execs", absl::StrCat(execs)},
               {"crashes", absl::StrCat(crashes)},
               {"seconds", absl::StrCat(each * n)},
               {"instrumented", kInstrumented ? "1" : "0"}});
  return crashes == 0 ? 0 : 1;
}

}  // namespace
}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  absl::ParseCommandLine(argc, argv);
  return tunefarm::bench::Main();
}
