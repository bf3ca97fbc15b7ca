// The target-independent half of LLVM IR generation: expressions, loads and stores, serial
// loops, conditions and sequences. Each backend derives from LLVMEmitter and supplies what
// differs: the function signature and argument checks, loops bound to parallel hardware
// (CPU threads through libgomp, GPU block/thread indices), allocation per storage scope, target
// intrinsics and the alignment it can prove for vector accesses.
#ifndef TUNEFARM_COMPILER_CODEGEN_LLVM_EMITTER_H_
#define TUNEFARM_COMPILER_CODEGEN_LLVM_EMITTER_H_

#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/codegen/opt_pipeline.h"
#include "compiler/ir/ir.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

class LLVMEmitter {
 public:
  LLVMEmitter(llvm::Module* m, llvm::TargetMachine& tm);
  virtual ~LLVMEmitter() = default;

 protected:
  llvm::Type* LLVMType(ir::DataType t);
  // Element type used in memory (bool is stored as a byte).
  llvm::Type* StorageType(ir::DataType t);
  // Keeps the first error; emission goes on with placeholder values and the caller reports it.
  void Fail(absl::Status s);

  llvm::Value* Emit(const ir::Expr& e);
  void Emit(const ir::Stmt& s);
  // The first emission error, or the LLVM verifier's verdict on the function just emitted.
  absl::Status Finish(const std::string& name);
  // A serial loop over [begin, end) binding `var`.
  void EmitLoop(const ir::Var& var, llvm::Value* begin, llvm::Value* end, const ir::Stmt& body);
  // A nest tensorized as schedule::TensorIntrinsic::kAmxDotProduct (amx_nest.h), on a target
  // with AMX-INT8: its accumulator tiles loaded (or zeroed), one tdpbusd per tile and 64-byte
  // step with A and W tiles loaded straight from memory, and stored (defined in amx_tiles.cc).
  // The kernel must have called tf_tile_permit first.
  void EmitAmxNest(const ir::ForNode* op);
  // An AMX initialization nest C = 0 at stmts[first] followed by the update of the same block
  // (the reduction in one nest): emitted as one, the accumulators starting from tilezero
  // instead of a store of zeros and a load. Returns 2, or 0 where no such pair starts there.
  size_t EmitAmxInitAndUpdate(const std::vector<ir::Stmt>& stmts, size_t first);

  // Backend hooks.
  virtual void EmitFor(const ir::ForNode* op) = 0;
  virtual void EmitAllocate(const ir::AllocateNode* op) = 0;
  // A call the backend implements itself (e.g. a barrier, fast math); nullptr for the generic
  // math intrinsics.
  virtual llvm::Value* EmitTargetCall(const ir::CallNode* op) { return nullptr; }
  // The address of element `index` of `buf` (a GEP off the buffer's base by default).
  virtual llvm::Value* Address(const ir::BufferNode* buf, llvm::Value* index);
  // `access`, a load or store of elements of `buf`, recorded for AddAliasScopes (when
  // alias_scopes_ is set); returns it.
  template <typename Access>
  Access* Noted(Access* access, const ir::BufferNode* buf) {
    if (alias_scopes_) accesses_.emplace_back(access, buf);
    return access;
  }
  // Tells LLVM that distinct buffers never overlap: one alias scope per buffer accessed since
  // the last call (LLVM's scoped noalias metadata), each recorded access in its buffer's scope
  // and noalias with every other buffer's. Unlike a noalias argument, this holds in the
  // outlined loop bodies too, which get their buffers through a closure. LLVM may then keep an
  // element in a register across a loop that loads other buffers, and reorder their loads
  // around its stores. Sound because each BufferNode is memory of its own (an argument
  // tensor, an allocation) and a kernel's arguments never overlap: the farm, the runtime and a
  // compiled model's arena give each its own bytes, and an exported kernel requires it (as TVM
  // assumes of its buffer arguments).
  void AddAliasScopes();
  // Alignment of a contiguous vector access of `lanes` elements of `buf` starting at `base`.
  virtual llvm::Align VectorAlign(const ir::BufferNode* buf, const ir::Expr& base, int lanes) {
    return llvm::Align(buf->dtype.bytes());
  }

  llvm::LLVMContext& ctx_;
  llvm::Module* m_;
  llvm::TargetMachine& tm_;
  llvm::IRBuilder<> b_;
  llvm::Function* fn_ = nullptr;
  absl::flat_hash_map<const ir::VarNode*, llvm::Value*> vars_;
  absl::flat_hash_map<const ir::BufferNode*, llvm::Value*> bufs_;
  absl::Status status_;
  // Set by backends whose buffers get alias scopes (AddAliasScopes).
  bool alias_scopes_ = false;
  // The loads and stores of buffer elements since the last AddAliasScopes.
  std::vector<std::pair<llvm::WeakVH, const ir::BufferNode*>> accesses_;

 private:
  llvm::Value* EmitBinary(const ir::BinaryNode* op);
  llvm::Value* EmitCast(ir::DataType to, ir::DataType from, llvm::Value* v);
  llvm::Value* EmitCall(const ir::CallNode* op);
  // llvm.prefetch of the address its load names (lower/inject_prefetch.h); nothing is read.
  llvm::Value* EmitPrefetch(const ir::CallNode* op);
  // e^x: inline and vectorizable for float32 (llvm.exp on a vector becomes one libm call per
  // lane on CPUs); the llvm.exp intrinsic for other types.
  llvm::Value* EmitExp(llvm::Value* x);
  // 1 / x: on AVX-512, float32 vectors of a multiple of 16 lanes take the 14-bit hardware
  // estimate and one Newton step (within 1 ulp; a division's throughput is several times
  // lower); elsewhere a division.
  llvm::Value* EmitRecip(llvm::Value* x);
  // One vector of `parts` (equal vectors, a power of two of them) end to end.
  llvm::Value* ConcatVectors(std::vector<llvm::Value*> parts);
  // `vector_reduce_add|max|min` of one vector (the vectorizer's horizontal reduction update).
  llvm::Value* EmitHorizontalReduce(const std::string& name, ir::DataType type,
                                    const std::vector<llvm::Value*>& args);
  // A vector int32 sum with groups of four products int32(u8) * int32(s8), one byte broadcast
  // S[a + u] and one vector V[base + 4·lane + u] (u = 0..3; a weight in the VNNI layout
  // [..][K/4][16][4]), on a target with AVX-512 VNNI: each group is one vpdpbusd per 16 lanes
  // (a 32-bit load of S, a 64-byte load of V), the other terms added as usual. nullptr where
  // the sum has no such shape (defined in vnni_dot.cc).
  llvm::Value* EmitByteDotProducts(const ir::BinaryNode* op);
  // The matched nest (amx_nest.h) of the loop `op`; from_zero: the accumulators start at zero.
  void EmitAmx(const ir::ForNode* op, const AmxNest& nest, bool from_zero);
  llvm::Value* EmitLoad(const ir::LoadNode* op);
  void EmitStore(const ir::StoreNode* op);
  // A run of 16 vector copies from stmts[first] on, B[ramp(b + t*T, 1, L)] = A[ramp(a + t, S, L)]
  // for t = 0..15, |T| >= L (a packed copy's transpose, its source axis unrolled by 16; an
  // output unblocked from a channel-blocked layout, its channels unrolled by 16): emitted as
  // contiguous loads of A and in-register transposes of 16 x 16 blocks, instead of one load per
  // lane. Returns the number of statements emitted: 16, or 0 where no such run starts there.
  size_t EmitTransposedCopies(const std::vector<ir::Stmt>& stmts, size_t first);
};

// Runs `pipeline` (the kernel pipeline by default; opt_pipeline.h) for `tm` on `m`.
void OptimizeModule(llvm::Module& m, llvm::TargetMachine& tm,
                    OptPipeline pipeline = OptPipeline::kKernel);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_LLVM_EMITTER_H_
