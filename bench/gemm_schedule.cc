// A hand-written fp32 GEMM schedule against the best library, measured in the same run.
//
//   bazel run -c opt //bench:gemm_schedule -- [--quick]
//
// C[m, n] = Σ_k A[m, k] · B[k, n] with B packed into [n/bn][k][bn] panels, a bm×bn register
// tile accumulated in a local buffer (cache_write), the k loop outside the unrolled rows and
// the vectorized columns, and the panel loop outermost so one B panel stays in L2.
// Prints GFLOP/s for 1 and 2 threads, the ratios to the fastest library measured beside it
// (OpenBLAS on this core's best kernels, oneDNN matmul and inner product: library_baselines.h),
// the fraction of the FMA peak, and the median time from schedule to a loadable shared library.
#include <cblas.h>
#include <dlfcn.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <memory>

#include "absl/strings/str_cat.h"
#include "bench/bench_util.h"
#include "bench/library_baselines.h"
#include "bench/loaded_library.h"
#include "bench/openblas_env.h"
#include "common/machine_peak.h"
#include "compiler/codegen/build.h"
#include "compiler/codegen/linker.h"
#include "compiler/codegen/object_cache.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"

extern "C" void omp_set_num_threads(int);

namespace tunefarm::bench {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

struct GemmProgram {
  Tensor A, B, C;
  std::unique_ptr<schedule::Schedule> sch;
};

// The schedule described in the file comment. `parallel` marks the panel loop parallel.
GemmProgram ScheduledGemm(int m, int n, int k, int bm, int bn, int kunroll, bool parallel) {
  GemmProgram p;
  p.A = te::Placeholder({m, k}, DataType::Float(32), "A");
  p.B = te::Placeholder({k, n}, DataType::Float(32), "B");
  Tensor packed =
      te::Compute(
          {n / bn, k, bn}, [&](const std::vector<Var>& i) { return p.B(i[1], i[0] * bn + i[2]); },
          "B_packed")
          .value();
  auto kk = te::ReduceAxis(k, "k");
  p.C = te::Compute(
            {m, n},
            [&](const std::vector<Var>& i) {
              return te::Sum(p.A(i[0], kk->var) *
                                 packed(ir::floordiv(i[1], bn), kk->var, ir::floormod(i[1], bn)),
                             {kk});
            },
            "C")
            .value();
  p.sch = *schedule::Schedule::Create({p.C});
  schedule::Schedule& s = *p.sch;
  Tensor cc = *s.CacheWrite(p.C, "local");
  schedule::Stage& c = s[p.C];
  auto t = *c.Tile(c.axis(0), c.axis(1), bm, bn);  // mo, no, mi, ni
  (void)c.Reorder({t[1], t[0], t[2], t[3]});       // no, mo, mi, ni
  (void)c.Vectorize(t[3]);
  if (parallel) (void)c.Parallel(t[1]);
  schedule::Stage& l = s[cc];
  (void)l.ComputeAt(c, t[0]);
  auto ks = *l.Split(l.reduce_axis(0), kunroll);
  (void)l.Reorder({ks.first, ks.second, l.axis(0), l.axis(1)});
  (void)l.Unroll(ks.second);
  (void)l.Unroll(l.axis(0));
  (void)l.Vectorize(l.axis(1));
  schedule::Stage& pk = s[packed];
  (void)pk.Vectorize(pk.axis(2));
  if (parallel) (void)pk.Parallel(pk.axis(0));
  return p;
}

double Gflops(int m, int n, int k, double seconds) { return 2.0 * m * n * k / seconds * 1e-9; }

}  // namespace

int Run(bool quick) {
  const int m = 1024, n = 1024, k = 1024;
  const int repeats = quick ? 3 : 10;
  const int rounds = quick ? 3 : 5;
  const int bm = 8, bn = 32, kunroll = 4;
  auto a = *runtime::NDArray::Empty({m, k}, DataType::Float(32));
  auto b = *runtime::NDArray::Empty({k, n}, DataType::Float(32));
  auto c = *runtime::NDArray::Empty({m, n}, DataType::Float(32));
  auto ref = *runtime::NDArray::Empty({m, n}, DataType::Float(32));
  a.FillRandom(1);
  b.FillRandom(2);
  // The reference result for the correctness check.
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, m, n, k, 1.0f, a.data<float>(), k,
              b.data<float>(), n, 0.0f, ref.data<float>(), n);

  codegen::Target host = codegen::HostTarget();
  // Our kernel, checked against the reference: a call of it, or null after an error.
  auto ours = [&](bool parallel) -> std::function<void()> {
    GemmProgram p = ScheduledGemm(m, n, k, bm, bn, kunroll, parallel);
    auto f = lower::Lower(*p.sch, {p.A, p.B, p.C}, "gemm");
    if (!f.ok()) {
      std::fprintf(stderr, "lower: %s\n", f.status().ToString().c_str());
      return nullptr;
    }
    auto so = codegen::BuildSharedLibrary({*f}, host);
    if (!so.ok()) {
      std::fprintf(stderr, "build: %s\n", so.status().ToString().c_str());
      return nullptr;
    }
    auto module = LoadedLibrary::Load(*so);
    if (!module.ok()) {
      std::fprintf(stderr, "load: %s\n", module.status().ToString().c_str());
      return nullptr;
    }
    auto fn = module->Kernel("gemm");
    if (!fn.ok()) return nullptr;
    c.Fill(0);
    if (!runtime::Call(*fn, {&a, &b, &c}).ok()) return nullptr;
    double err = runtime::MaxRelError(c, ref, 1e-3, 1e-3);
    if (err > 1) {
      std::fprintf(stderr, "wrong result (max rel error %g)\n", err);
      return nullptr;
    }
    return [fn = *fn, &a, &b, &c] { (void)runtime::Call(fn, {&a, &b, &c}); };
  };

  // Build time: schedule -> loadable shared library, as the tuner's builders do it, and where
  // it goes (the module in one piece): schedule and lower, LLVM (IR, the kernel pipeline, code
  // generation) to an object, link. The link is
  // timed with the in-process linker and, for comparison, with the `cc` driver spawned per
  // candidate (what every build did before).
  using Ms = std::chrono::duration<double, std::milli>;
  std::vector<double> build_ms, lower_ms, object_ms, link_ms, cc_link_ms;
  char dir[] = "/tmp/tunefarm-gemm-build-XXXXXX";
  if (mkdtemp(dir) == nullptr) return 1;
  const std::string obj_path = absl::StrCat(dir, "/k.o"), so_path = absl::StrCat(dir, "/k.so");
  const std::string runtime_path = absl::StrCat(dir, "/runtime.o");
  for (int i = 0; i < (quick ? 3 : 9); ++i) {
    // From an empty object cache (object_cache.h): built again, the same schedule would take
    // every part of its module from the cache.
    codegen::ObjectCache::Process().Clear();
    auto start = std::chrono::steady_clock::now();
    GemmProgram p = ScheduledGemm(m, n, k, bm, bn, kunroll, true);
    auto f = lower::Lower(*p.sch, {p.A, p.B, p.C}, "gemm");
    auto so = f.ok() ? codegen::BuildSharedLibrary({*f}, host) : f.status();
    if (!so.ok()) {
      std::fprintf(stderr, "build: %s\n", so.status().ToString().c_str());
      return 1;
    }
    build_ms.push_back(Ms(std::chrono::steady_clock::now() - start).count());
    // The phases, one at a time.
    auto t0 = std::chrono::steady_clock::now();
    GemmProgram q = ScheduledGemm(m, n, k, bm, bn, kunroll, true);
    auto g = lower::Lower(*q.sch, {q.A, q.B, q.C}, "gemm");
    auto t1 = std::chrono::steady_clock::now();
    auto obj = codegen::BuildObject({*g}, host);
    auto t2 = std::chrono::steady_clock::now();
    if (!obj.ok()) return 1;
    // The kernel runtime every library links (built once per process, as in a builder).
    auto runtime = codegen::KernelRuntimeObject(host);
    if (!runtime.ok()) return 1;
    for (const auto& [path, bytes] : {std::pair{obj_path, &*obj}, {runtime_path, &*runtime}}) {
      FILE* out = std::fopen(path.c_str(), "wb");
      if (out == nullptr) return 1;
      std::fwrite(bytes->data(), 1, bytes->size(), out);
      std::fclose(out);
    }
    if (!codegen::LinkSharedLibrary({obj_path, runtime_path}, so_path).ok()) return 1;
    auto t3 = std::chrono::steady_clock::now();
    absl::Status cc =
        codegen::LinkSharedLibrary({obj_path, runtime_path}, so_path, codegen::LinkerKind::kDriver);
    auto t4 = std::chrono::steady_clock::now();
    lower_ms.push_back(Ms(t1 - t0).count());
    object_ms.push_back(Ms(t2 - t1).count());
    link_ms.push_back(Ms(t3 - t2).count());
    if (cc.ok()) cc_link_ms.push_back(Ms(t4 - t3).count());
  }
  unlink(obj_path.c_str());
  unlink(runtime_path.c_str());
  unlink(so_path.c_str());
  rmdir(dir);

  const double peak[] = {0, MeasureFmaPeakGflops(1), MeasureFmaPeakGflops(2)};
  std::printf(
      "fp32 GEMM 1024^3; FMA peak %.1f GFLOP/s on 1 thread, %.1f on 2; OpenBLAS kernels %s\n\n",
      peak[1], peak[2], OpenBlasCoreName().c_str());
  std::printf("%-10s %10s %10s %7s %6s  %s\n", "threads", "ours GF/s", "best lib", "ratio", "peak",
              "fastest library kernel");
  std::vector<std::pair<std::string, std::string>> result;
  for (int threads : {1, 2}) {
    std::function<void()> kernel = ours(threads > 1);
    if (!kernel) return 1;
    omp_set_num_threads(threads);
    const std::vector<Baseline> libs = GemmBaselines(1, m, n, k, OneDnnTypes::kF32, threads);
    const SideBySide t = TimeAgainst(kernel, libs, repeats, rounds, SideBySideSeconds(quick));
    std::printf("%-10d %10.1f %10.1f %7.3f %6.2f  %s\n", threads, Gflops(m, n, k, t.ours_s),
                Gflops(m, n, k, t.fastest_s()), t.fastest_ratio(),
                Gflops(m, n, k, t.ours_s) / peak[threads], libs[t.fastest].impl.c_str());
    result.emplace_back(absl::StrCat("ratio_", threads, "t"), Fixed(t.fastest_ratio()));
  }
  std::printf("build (schedule -> .so): median %.1f ms over %zu builds\n", Median(build_ms),
              build_ms.size());
  std::printf(
      "  phases (medians): schedule+lower %.1f ms, LLVM to object %.1f ms, in-process link "
      "%.1f ms (spawning `cc` to link: %.1f ms)\n",
      Median(lower_ms), Median(object_ms), Median(link_ms),
      cc_link_ms.empty() ? 0.0 : Median(cc_link_ms));
  result.emplace_back("build_ms_median", Fixed(Median(build_ms), 1));
  PrintResult(result);
  return 0;
}

}  // namespace tunefarm::bench

int main(int argc, char** argv) {
  tunefarm::bench::ReexecWithLibrariesAtTheirBest(argv);
  return tunefarm::bench::Run(tunefarm::bench::QuickMode(argc, argv));
}
