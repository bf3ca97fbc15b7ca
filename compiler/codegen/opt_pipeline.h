// The choice of LLVM optimization pipeline for CPU kernels (no LLVM headers, so the build
// interface can name it).
#ifndef TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_
#define TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_

namespace tunefarm::codegen {

// The optimization pipeline a CPU module goes through.
enum class OptPipeline {
  // LLVM's O3 (with loop and SLP vectorization): what every artifact is built with.
  kO3,
  // A short pipeline for loop nests that are already tiled, unrolled and vectorized by their
  // schedule: SROA, early CSE, instcombine, CFG simplification, loop rotation and LICM,
  // induction variables and full unrolling of constant loops, GVN, loop and SLP vectorization.
  // bench:build_pipeline measures it against O3 config by config: it builds about a third
  // faster but some kernels run much slower (depthwise convolutions at 0.6-0.7x), so it is
  // not used for artifacts.
  kKernel,
};

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_
