// The choice of LLVM optimization pipeline for CPU kernels (no LLVM headers, so the build
// interface can name it).
#ifndef TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_
#define TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_

namespace tunefarm::codegen {

// The optimization pipeline a CPU module goes through.
enum class OptPipeline {
  // LLVM's O3 (with loop and SLP vectorization): the GPU path's, the kernel runtime's (built
  // once), and bench:build_pipeline's reference.
  kO3,
  // O3's function passes for loop nests that are already tiled, unrolled and vectorized by
  // their schedule, without O3's module and call-graph passes, the passes that find nothing
  // in them, and with early CSE where O3 runs GVN (llvm_emitter.cc lists it). What every CPU
  // kernel is built with. bench:build_pipeline measures the artifacts built with it (split,
  // build.h) against one module at O3, config by config over six templates (72 configs): the
  // kernels run at 0.997-1.018x the old ones' speed (geometric mean of two runs).
  kKernel,
};

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_OPT_PIPELINE_H_
