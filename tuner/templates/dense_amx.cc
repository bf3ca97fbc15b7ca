// dense_u8s8_amx: C[M, N] (int32) = A[M, K] (uint8) · W (int8) on Intel AMX tiles (TVM's
// dense_amx_int8 for x86). The weight comes in the layout tdpbusd reads, the VNNI layout of
// examples/programs/dense_u8s8_vnni.te: W[N/16][K/4][16 outputs][4 inputs], reordered once
// ahead of time as oneDNN reorders its own. N must be a multiple of 16 and K of 64, and the
// target must have AMX-INT8 (Sapphire Rapids and later).
//
// Each tensorized nest computes a block of `rows` rows (up to two tiles of 16) by `tiles_n` ×
// 16 columns over 64 · k_steps inputs: the accumulators stay in tile registers, A and W tiles
// load straight from memory (codegen/amx_nest.h). Knobs:
//   tile_mn  rows · 10 + tiles_n: the block, limited to what the eight tile registers hold
//            (rows · tiles_n accumulators, the A tiles and one W tile);
//   k_steps  64-byte steps of the reduction per nest (a divisor of K / 64, at most 256); the
//            block's C tiles
//            are loaded and stored once per nest, and with all of K in one nest start from
//            zero (no pass that zeroes C first);
//   order    0: row blocks outside column blocks, 1: the reverse (the reduction's outer loop
//            is inside both);
//   parallel the outermost loop on the thread pool.

#include "compiler/codegen/target.h"
#include "compiler/ir/ir_operators.h"
#include "tuner/templates/amx_common.h"
#include "tuner/templates/registry.h"
#include "tuner/templates/template_util.h"

namespace tunefarm::tuner {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Var;
using te::Tensor;

constexpr int64_t kTile = kAmxTile;
constexpr int64_t kStep = kAmxStep;
constexpr char kAlternative[] = "examples/programs/dense_u8s8_vnni.te runs on AVX-512 VNNI";

class DenseAmxTemplate : public Template {
 public:
  std::string name() const override { return "dense_u8s8_amx"; }
  std::string args_doc() const override { return "M,N,K"; }

  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        DataType dtype) const override {
    if (absl::Status s = CheckArgs(name(), args, args_doc()); !s.ok()) return s;
    if (absl::Status s = CheckDtype(name(), dtype, {DataType::Int(8)}); !s.ok()) return s;
    if (args[1] % kTile != 0 || args[2] % kStep != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          name(), ": N must be a multiple of 16 and K of 64 (AMX tiles), got N=", args[1],
          " K=", args[2], "; examples/programs/dense_u8s8.te takes any shape"));
    }
    return Workload{name(), args, dtype, 2.0 * args[0] * args[1] * args[2]};
  }

  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override {
    const int64_t m = w.args[0], steps = w.args[2] / kStep;
    if (absl::Status s = DefineAmxKnobs(name(), target, kAlternative, m, absl::StrCat("M=", m),
                                        w.args[1] / kTile, space);
        !s.ok()) {
      return s;
    }
    space->DefineOther("k_steps", AmxKSteps(steps));
    return absl::OkStatus();
  }

  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override {
    const std::string tmpl = name();
    const int64_t m = w.args[0], n = w.args[1], k = w.args[2];
    const Tensor a = te::Placeholder({I32(m), I32(k)}, DataType::UInt(8), "A");
    const Tensor wt =
        te::Placeholder({I32(n / kTile), I32(k / 4), I32(kTile), I32(4)}, DataType::Int(8), "W");
    const te::IterVar q = te::ReduceAxis(I32(k / 4), "k");
    TF_TEMPLATE_ASSIGN_OR_RETURN(c,
                                 te::Compute(
                                     {I32(m), I32(n)},
                                     [&](const std::vector<Var>& i) {
                                       const Expr j = i[1];
                                       return te::Sum(
                                           ByteGroupSum(
                                               [&](int u) {
                                                 return a({i[0], I32(4) * q->var + I32(u)});
                                               },
                                               [&](int u) {
                                                 return wt({ir::floordiv(j, I32(kTile)), q->var,
                                                            ir::floormod(j, I32(kTile)), I32(u)});
                                               }),
                                           {q});
                                     },
                                     "C"),
                                 tmpl);
    TF_TEMPLATE_ASSIGN_OR_RETURN(inst, MakeInstance({a, wt, c}), tmpl);
    if (config == nullptr) return inst;  // The reference: the plain reduction.

    absl::StatusOr<AmxKnobs> knobs_or =
        ReadAmxKnobs(tmpl, *config, target, kAlternative, m, n / kTile);
    if (!knobs_or.ok()) return knobs_or.status();  // Internal (knobs) or InvalidArgument.
    const AmxKnobs& knobs = *knobs_or;
    TF_TEMPLATE_ASSIGN_OR_RETURN(k_steps, config->Other("k_steps"), tmpl);
    if (k_steps <= 0 || (k / kStep) % k_steps != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(tmpl, ": k_steps=", k_steps, " does not divide K/64=", k / kStep));
    }
    TF_TEMPLATE_RETURN_IF_ERROR(ScheduleAmxNests(c, knobs, k_steps, inst.sch.get()).status(), tmpl);
    return inst;
  }
};

TF_REGISTER_TEMPLATE(DenseAmxTemplate);

}  // namespace
}  // namespace tunefarm::tuner
