// Broadcast operands addressed from a register of their own, not base + index.
//
// A scalar that one multiply-add broadcasts (a dense layer's A[i, k] when its register tile
// is one vector wide) is folded into the instruction as an embedded-broadcast memory operand:
// `vfmadd231ps off(%rsi,%r9){1to16}, %zmm4, %zmm0`. LLVM's loop strength reduction picks that
// base + index address for x86 because it saves one add per iteration (it ranks instruction
// count first). On Intel cores since Haswell an AVX instruction with a memory operand
// addressed base + index is un-laminated: two micro-ops to issue and retire instead of one,
// so the 16 multiply-adds of a k step take 32 issue slots. oneDNN's brgemm kernels address
// the same operands from one register (`[r11+0x800]`). Measured on the model-207 Xeon
// (Emerald Rapids, 2 vCPUs), dense 512×16×512 with a 16 × 16 tile, our kernel's assembly
// built beside oneDNN's inner product in one process (medians of 1,100-1,250 alternating
// rounds, 3 runs each): with base + index 0.72 of oneDNN's rate while the core was shared
// with another tenant (89-93 GFLOP/s against 124-129) and 0.91 while it was not (153-158
// against 168-174); the same assembly with the row pointer in a register of its own read
// 1.02 (172-178) in the second state.
//
// This pass gives such loads that register: in each innermost loop, the scalar loads whose
// only use is a vector splat with one user (what instruction selection folds), at addresses
// that advance by a constant each iteration, grouped by base and step, are read at a
// constant offset from one pointer per group that the loop advances itself. The advance goes
// through an empty inline-asm copy, so that strength reduction, which runs later in code
// generation, sees an opaque value rather than an induction variable to fold back into an
// index. One add per group and iteration is the cost. x86 targets only.
#ifndef TUNEFARM_COMPILER_CODEGEN_PLAIN_BROADCAST_ADDRESSES_H_
#define TUNEFARM_COMPILER_CODEGEN_PLAIN_BROADCAST_ADDRESSES_H_

#include "llvm/IR/PassManager.h"

namespace tunefarm::codegen {

class PlainBroadcastAddressesPass : public llvm::PassInfoMixin<PlainBroadcastAddressesPass> {
 public:
  llvm::PreservedAnalyses run(llvm::Function& f, llvm::FunctionAnalysisManager& fam);
};

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_PLAIN_BROADCAST_ADDRESSES_H_
