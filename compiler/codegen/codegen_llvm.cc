#include "compiler/codegen/codegen_llvm.h"

#include <set>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/abi/kernel_abi.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/codegen/kernel_runtime.h"
#include "compiler/codegen/llvm_emitter.h"
#include "compiler/codegen/llvm_init.h"
#include "compiler/ir/ir_printer.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/storage_flatten.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;
using ir::Stmt;

// Allocations up to this size live on the stack (registers after SROA); larger ones on the
// heap, freed when their scope ends.
constexpr int64_t kMaxStackAllocBytes = 64 * 1024;
// Heap temporaries start on cache lines.
constexpr int64_t kHeapAlignment = 64;

int64_t RoundUp(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

// Variables and buffers a statement uses but does not define.
class FreeUses : public ir::IRVisitor {
 public:
  std::vector<const ir::VarNode*> vars;
  std::vector<const ir::BufferNode*> buffers;

 protected:
  void Visit_(const ir::VarNode* op) override {
    if (!defined_.count(op) && seen_vars_.insert(op).second) vars.push_back(op);
  }
  void Visit_(const ir::ForNode* op) override {
    Visit(op->min);
    Visit(op->extent);
    defined_.insert(op->var.get());
    Visit(op->body);
  }
  void Visit_(const ir::LetStmtNode* op) override {
    Visit(op->value);
    defined_.insert(op->var.get());
    Visit(op->body);
  }
  void Visit_(const ir::LetNode* op) override {
    Visit(op->value);
    defined_.insert(op->var.get());
    Visit(op->body);
  }
  void Visit_(const ir::AllocateNode* op) override {
    allocated_.insert(op->buffer.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::LoadNode* op) override {
    UseBuffer(op->buffer.get());
    IRVisitor::Visit_(op);
  }
  void Visit_(const ir::StoreNode* op) override {
    UseBuffer(op->buffer.get());
    IRVisitor::Visit_(op);
  }

 private:
  void UseBuffer(const ir::BufferNode* b) {
    if (!allocated_.count(b) && seen_bufs_.insert(b).second) buffers.push_back(b);
  }
  absl::flat_hash_set<const ir::VarNode*> defined_, seen_vars_;
  absl::flat_hash_set<const ir::BufferNode*> allocated_, seen_bufs_;
};

// Whether a statement holds a loop tensorized for AMX.
bool UsesAmx(const ir::Stmt& s) {
  class Finder : public ir::IRVisitor {
   public:
    bool found = false;

   protected:
    void Visit_(const ir::ForNode* op) override {
      if (IsAmxLoop(op)) {
        found = true;
        return;
      }
      IRVisitor::Visit_(op);
    }
  } finder;
  finder.Visit(s);
  return finder.found;
}

class CpuEmitter : public LLVMEmitter {
 public:
  CpuEmitter(llvm::Module* m, llvm::TargetMachine& tm) : LLVMEmitter(m, tm) {
    alias_scopes_ = true;
  }

  // With `on`, each loop nest at the top of a kernel is outlined into a function of its own,
  // called directly (parallel loops always are, and run through GOMP_parallel).
  void OutlineLoopNests(bool on) { outline_loop_nests_ = on; }
  absl::Status AddFunction(const lower::LoweredFunc& f);
  // The data the kernel runtime (kernel_runtime.h) reads: the kernels' names, and the table of
  // the heap temporaries kept between calls (see EmitAllocate), which the runtime lists
  // (TF_KERNEL_WORKSPACES_SYMBOL) and frees when the library is unloaded.
  void AddNamesData(const std::vector<std::string>& names);
  void AddWorkspaceTable();

 private:
  void SetAttributes(llvm::Function* fn) { SetKernelFunctionAttributes(fn, tm_); }

  llvm::AllocaInst* EntryAlloca(llvm::Type* t, llvm::Value* count, const std::string& name,
                                unsigned align) {
    llvm::IRBuilder<> eb(alloca_block_, alloca_block_->begin());
    auto* a = eb.CreateAlloca(t, count, name);
    a->setAlignment(llvm::Align(align));
    return a;
  }

  // Returns `code` from the kernel entry unless `ok`.
  void CheckOr(llvm::Value* ok, int code) { ReturnUnless(b_, ok, b_.getInt32(code)); }

  void EmitFor(const ir::ForNode* op) override;
  // Emits the loop as a function of its own taking a closure of what the body uses; with
  // `parallel`, run by every thread of GOMP_parallel on its chunk of the range, otherwise
  // called once for the whole range.
  void EmitOutlinedFor(const ir::ForNode* op, bool parallel);
  void EmitAllocate(const ir::AllocateNode* op) override;

  llvm::BasicBlock* alloca_block_ = nullptr;
  llvm::Value* err_slot_ = nullptr;  // i32* the kernel returns at the end.
  int parallel_count_ = 0;
  int loop_nest_count_ = 0;
  bool outline_loop_nests_ = false;
  llvm::Function* entry_fn_ = nullptr;  // the kernel being emitted
  // One slot per heap allocation site: a global holding the block kept for the next call.
  std::vector<llvm::GlobalVariable*> workspace_slots_;
  // The size in bytes of the block each slot holds.
  std::vector<int64_t> workspace_bytes_;
};

absl::Status CpuEmitter::AddFunction(const lower::LoweredFunc& f) {
  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* ptr = b_.getPtrTy();
  auto* fty = llvm::FunctionType::get(i32, {ptr, i32}, false);
  fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, f.name, m_);
  entry_fn_ = fn_;
  SetAttributes(fn_);
  alloca_block_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
  b_.SetInsertPoint(alloca_block_);
  llvm::Value* args = fn_->getArg(0);
  llvm::Value* nargs = fn_->getArg(1);
  llvm::BasicBlock* start = llvm::BasicBlock::Create(ctx_, "check", fn_);
  b_.CreateBr(start);
  b_.SetInsertPoint(start);
  CheckOr(b_.CreateICmpEQ(nargs, b_.getInt32(static_cast<int>(f.args.size()))),
          TF_KERNEL_BAD_ARG_COUNT);
  // A NULL array used to be dereferenced (a crash instead of an error code).
  if (!f.args.empty()) CheckOr(b_.CreateIsNotNull(args), TF_KERNEL_NULL_ARG);

  llvm::StructType* tensor_ty = DLTensorType(ctx_);
  llvm::FunctionCallee check = m_->getOrInsertFunction(kCheckTensorSymbol, CheckTensorType(ctx_));
  llvm::cast<llvm::Function>(check.getCallee())->setVisibility(llvm::GlobalValue::HiddenVisibility);
  llvm::Type* i64 = b_.getInt64Ty();
  for (size_t i = 0; i < f.args.size(); ++i) {
    const lower::FuncArg& a = f.args[i];
    llvm::Value* t = b_.CreateLoad(ptr, b_.CreateConstGEP1_32(ptr, args, static_cast<unsigned>(i)));
    llvm::Value* shape = llvm::ConstantPointerNull::get(b_.getPtrTy());
    if (!a.shape.empty()) {
      auto* array_ty = llvm::ArrayType::get(i64, a.shape.size());
      std::vector<llvm::Constant*> dims;
      for (int64_t d : a.shape) dims.push_back(b_.getInt64(d));
      auto* global = new llvm::GlobalVariable(
          *m_, array_ty, /*isConstant=*/true, llvm::GlobalValue::PrivateLinkage,
          llvm::ConstantArray::get(array_ty, dims), absl::StrCat(f.name, ".shape", i));
      global->setUnnamedAddr(llvm::GlobalValue::UnnamedAddr::Global);
      shape = global;
    }
    DataType d = a.buffer->dtype;
    const int code = d.is_float() ? kDLFloat : (d.is_uint() || d.is_bool()) ? kDLUInt : kDLInt;
    const int bits = d.is_bool() ? 8 : d.bits;
    llvm::Value* rc = b_.CreateCall(check, {t, b_.getInt32(static_cast<int>(a.shape.size())),
                                            b_.getInt32(code), b_.getInt32(bits), shape});
    ReturnUnless(b_, b_.CreateICmpEQ(rc, b_.getInt32(TF_KERNEL_OK)), rc);
    llvm::Value* data = b_.CreateLoad(ptr, b_.CreateStructGEP(tensor_ty, t, 0));
    llvm::Value* offset = b_.CreateLoad(i64, b_.CreateStructGEP(tensor_ty, t, 6));
    bufs_[a.buffer.get()] = b_.CreateInBoundsGEP(b_.getInt8Ty(), data, offset, a.buffer->name);
  }
  err_slot_ = EntryAlloca(i32, nullptr, "err", 4);
  b_.CreateStore(b_.getInt32(0), err_slot_);
  if (UsesAmx(f.body)) {
    llvm::FunctionCallee permit =
        m_->getOrInsertFunction(kTilePermitSymbol, llvm::FunctionType::get(i32, false));
    llvm::cast<llvm::Function>(permit.getCallee())
        ->setVisibility(llvm::GlobalValue::HiddenVisibility);
    llvm::Value* rc = b_.CreateCall(permit);
    ReturnUnless(b_, b_.CreateICmpEQ(rc, b_.getInt32(TF_KERNEL_OK)), rc);
  }
  Emit(f.body);
  b_.CreateRet(b_.CreateLoad(i32, err_slot_));
  // The kernel's loads and stores, its outlined loop bodies' included, in one alias domain.
  AddAliasScopes();
  vars_.clear();
  bufs_.clear();
  return Finish(f.name);
}

void CpuEmitter::AddNamesData(const std::vector<std::string>& names) {
  llvm::Constant* text = llvm::ConstantDataArray::getString(ctx_, absl::StrJoin(names, ","));
  auto* g =
      new llvm::GlobalVariable(*m_, text->getType(), /*isConstant=*/true,
                               llvm::GlobalValue::ExternalLinkage, text, kKernelNamesDataSymbol);
  g->setVisibility(llvm::GlobalValue::HiddenVisibility);
}

void CpuEmitter::EmitFor(const ir::ForNode* op) {
  // AMX nests become tile instructions; a nest tensorized for another intrinsic (WMMA, in a
  // GPU kernel emulated on the host) keeps its scalar meaning.
  if (IsAmxLoop(op)) {
    EmitAmxNest(op);
    return;
  }
  if (op->for_kind == ir::ForKind::kThreadBinding) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("loop '", op->var.name(), "' is bound to ", op->thread_tag,
                     "; thread bindings need a cuda target, not a CPU target")));
    return;
  }
  if (op->for_kind == ir::ForKind::kParallel) {
    EmitOutlinedFor(op, /*parallel=*/true);
    return;
  }
  // Any loop met in the kernel itself is at the top: the loops inside it are emitted into its
  // function.
  if (outline_loop_nests_ && fn_ == entry_fn_) {
    EmitOutlinedFor(op, /*parallel=*/false);
    return;
  }
  llvm::Value* begin = Emit(op->min);
  llvm::Value* end = b_.CreateAdd(begin, Emit(op->extent), "", false, true);
  EmitLoop(op->var, begin, end, op->body);
}

void CpuEmitter::EmitOutlinedFor(const ir::ForNode* op, bool parallel) {
  FreeUses uses;
  uses.Visit(op->body);
  std::vector<const ir::VarNode*> vars;
  for (const ir::VarNode* v : uses.vars) {
    if (v != op->var.get() && vars_.contains(v)) vars.push_back(v);
  }
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Type* i32 = b_.getInt32Ty();
  // Closure: {err*, min, extent, vars..., buffers...}, without min and extent when both are
  // constants: the outlined function then has them as constants (a known trip count), and the
  // kernel's code does not change with them (for the object cache: module_split.h).
  const int64_t* const_min = ir::AsConstInt(op->min);
  const int64_t* const_extent = ir::AsConstInt(op->extent);
  const bool range_in_closure = const_min == nullptr || const_extent == nullptr;
  const unsigned first_capture = range_in_closure ? 3 : 1;
  std::vector<llvm::Type*> fields = {ptr};
  if (range_in_closure) fields.insert(fields.end(), {i32, i32});
  for (const ir::VarNode* v : vars) fields.push_back(vars_.at(v)->getType());
  for (size_t i = 0; i < uses.buffers.size(); ++i) fields.push_back(ptr);
  auto* closure_ty = llvm::StructType::get(ctx_, fields);
  llvm::Value* closure = EntryAlloca(closure_ty, nullptr, "closure", 8);
  std::vector<llvm::Value*> values = {err_slot_};
  if (range_in_closure) values.insert(values.end(), {Emit(op->min), Emit(op->extent)});
  for (const ir::VarNode* v : vars) values.push_back(vars_.at(v));
  for (const ir::BufferNode* buf : uses.buffers) {
    auto it = bufs_.find(buf);
    if (it == bufs_.end()) {
      Fail(absl::InternalError(absl::StrCat("codegen: buffer '", buf->name, "' not in scope")));
      return;
    }
    values.push_back(it->second);
  }
  for (size_t i = 0; i < values.size(); ++i) {
    b_.CreateStore(values[i], b_.CreateStructGEP(closure_ty, closure, static_cast<unsigned>(i)));
  }

  // The outlined body: void fn(void* closure).
  auto* fty = llvm::FunctionType::get(b_.getVoidTy(), {ptr}, false);
  const std::string name = parallel
                               ? absl::StrCat(fn_->getName().str(), ".par", parallel_count_++)
                               : absl::StrCat(fn_->getName().str(), ".loop", loop_nest_count_++);
  auto* outlined = llvm::Function::Create(fty, llvm::Function::InternalLinkage, name, m_);
  SetAttributes(outlined);
  llvm::Function* saved_fn = fn_;
  llvm::BasicBlock* saved_alloca = alloca_block_;
  llvm::Value* saved_err = err_slot_;
  llvm::BasicBlock* saved_block = b_.GetInsertBlock();
  auto saved_vars = vars_;
  auto saved_bufs = bufs_;

  fn_ = outlined;
  alloca_block_ = llvm::BasicBlock::Create(ctx_, "entry", outlined);
  b_.SetInsertPoint(alloca_block_);
  llvm::Value* data = outlined->getArg(0);
  auto field = [&](unsigned i) {
    return b_.CreateLoad(fields[i], b_.CreateStructGEP(closure_ty, data, i));
  };
  err_slot_ = field(0);
  llvm::Value* min = range_in_closure ? field(1) : Emit(op->min);
  llvm::Value* extent = range_in_closure ? field(2) : Emit(op->extent);
  vars_.clear();
  bufs_.clear();
  for (size_t i = 0; i < vars.size(); ++i) {
    vars_[vars[i]] = field(first_capture + static_cast<unsigned>(i));
  }
  for (size_t i = 0; i < uses.buffers.size(); ++i) {
    bufs_[uses.buffers[i]] = field(first_capture + static_cast<unsigned>(vars.size() + i));
  }
  llvm::Value* begin = min;
  llvm::Value* end = nullptr;
  if (!parallel) {
    end = b_.CreateAdd(min, extent, "", false, true);
  } else {
    llvm::FunctionCallee nthreads_fn = m_->getOrInsertFunction("omp_get_num_threads", i32);
    llvm::FunctionCallee tid_fn = m_->getOrInsertFunction("omp_get_thread_num", i32);
    llvm::Value* nthreads = b_.CreateCall(nthreads_fn);
    llvm::Value* tid = b_.CreateCall(tid_fn);
    // Static schedule: contiguous chunks, one per thread.
    llvm::Value* chunk =
        b_.CreateSDiv(b_.CreateAdd(extent, b_.CreateSub(nthreads, b_.getInt32(1))), nthreads);
    begin = b_.CreateAdd(min, b_.CreateMul(tid, chunk));
    llvm::Value* limit = b_.CreateAdd(min, extent);
    end = b_.CreateSelect(b_.CreateICmpSLT(b_.CreateAdd(begin, chunk), limit),
                          b_.CreateAdd(begin, chunk), limit);
  }
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "par_body", outlined);
  b_.CreateBr(body);
  b_.SetInsertPoint(body);
  EmitLoop(op->var, begin, end, op->body);
  b_.CreateRetVoid();

  fn_ = saved_fn;
  alloca_block_ = saved_alloca;
  err_slot_ = saved_err;
  vars_ = std::move(saved_vars);
  bufs_ = std::move(saved_bufs);
  b_.SetInsertPoint(saved_block);
  if (!parallel) {
    b_.CreateCall(fty, outlined, {closure});
    return;
  }
  llvm::FunctionCallee gomp =
      m_->getOrInsertFunction("GOMP_parallel", b_.getVoidTy(), ptr, ptr, i32, i32);
  b_.CreateCall(gomp, {outlined, closure, b_.getInt32(0), b_.getInt32(0)});
}

void CpuEmitter::EmitAllocate(const ir::AllocateNode* op) {
  const ir::BufferNode& buf = *op->buffer;
  std::optional<int64_t> count = lower::AllocationElements(buf);
  if (!count) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("codegen: allocation '", buf.name, "' has a non-constant size")));
    return;
  }
  const int64_t elems = *count;
  int64_t bytes = elems * buf.dtype.bytes();
  llvm::Type* elem = StorageType(buf.dtype);
  if (bytes <= kMaxStackAllocBytes) {
    bufs_[&buf] = EntryAlloca(elem, b_.getInt32(static_cast<int>(elems)), buf.name, 64);
    Emit(op->body);
    bufs_.erase(&buf);
    return;
  }
  // A heap temporary is kept for the next call instead of freed: a fresh malloc of megabytes
  // is an mmap, and the page faults that fill it cost more than many kernels themselves
  // (10x on the attention block), depending on the calling process's allocator state. Each
  // allocation site has a slot (a module global) holding its block (always of this site's
  // size). A call takes the block with an atomic exchange, so concurrent calls never share
  // one (a second call finds the slot empty and allocates its own), and puts it back with an
  // exchange, freeing whatever another call left there.
  llvm::Type* i64 = b_.getInt64Ty();
  llvm::Type* ptr = b_.getPtrTy();
  llvm::Value* null = llvm::ConstantPointerNull::get(b_.getPtrTy());
  // On cache-line boundaries (malloc's blocks of this size are mmap'd pages plus a 16-byte
  // header): a 64-byte vector or an AMX tile row that straddles two lines costs two accesses
  // (the AMX convolution's padded input: its layer went from 0.80 to 0.86 of the same layer
  // without padding, docs/cpu_kernels.md).
  llvm::FunctionCallee alloc_fn = m_->getOrInsertFunction("aligned_alloc", ptr, i64, i64);
  llvm::FunctionCallee free_fn = m_->getOrInsertFunction("free", b_.getVoidTy(), ptr);
  auto* slot = new llvm::GlobalVariable(*m_, ptr, false, llvm::GlobalValue::InternalLinkage,
                                        llvm::ConstantPointerNull::get(b_.getPtrTy()),
                                        absl::StrCat("tf_workspace.", buf.name));
  slot->setAlignment(llvm::Align(8));
  workspace_slots_.push_back(slot);
  workspace_bytes_.push_back(bytes);
  llvm::Value* cached =
      b_.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, slot, null, llvm::MaybeAlign(8),
                         llvm::AtomicOrdering::AcquireRelease);
  llvm::BasicBlock* take = b_.GetInsertBlock();
  llvm::BasicBlock* fresh = llvm::BasicBlock::Create(ctx_, "ws_fresh", fn_);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx_, "alloc_ok", fn_);
  llvm::BasicBlock* oom = llvm::BasicBlock::Create(ctx_, "alloc_fail", fn_);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "alloc_done", fn_);
  b_.CreateCondBr(b_.CreateIsNotNull(cached), ok, fresh);
  b_.SetInsertPoint(fresh);
  llvm::Value* block = b_.CreateCall(
      alloc_fn, {b_.getInt64(kHeapAlignment), b_.getInt64(RoundUp(bytes, kHeapAlignment))},
      buf.name);
  b_.CreateCondBr(b_.CreateIsNotNull(block), ok, oom);
  b_.SetInsertPoint(oom);
  b_.CreateStore(b_.getInt32(TF_KERNEL_OUT_OF_MEMORY), err_slot_);
  b_.CreateBr(done);
  b_.SetInsertPoint(ok);
  llvm::PHINode* p = b_.CreatePHI(ptr, 2);
  p->addIncoming(cached, take);
  p->addIncoming(block, fresh);
  bufs_[&buf] = p;
  Emit(op->body);
  bufs_.erase(&buf);
  llvm::Value* left = b_.CreateAtomicRMW(llvm::AtomicRMWInst::Xchg, slot, p, llvm::MaybeAlign(8),
                                         llvm::AtomicOrdering::AcquireRelease);
  b_.CreateCall(free_fn, {left});
  b_.CreateBr(done);
  b_.SetInsertPoint(done);
}

void CpuEmitter::AddWorkspaceTable() {
  auto* entry_ty = llvm::StructType::get(ctx_, {b_.getPtrTy(), b_.getInt64Ty()});
  std::vector<llvm::Constant*> entries;
  for (size_t i = 0; i < workspace_slots_.size(); ++i) {
    entries.push_back(llvm::ConstantStruct::get(
        entry_ty, {workspace_slots_[i], b_.getInt64(workspace_bytes_[i])}));
  }
  auto* table_ty = llvm::ArrayType::get(entry_ty, entries.size());
  auto* table = new llvm::GlobalVariable(
      *m_, table_ty, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      llvm::ConstantArray::get(table_ty, entries), kWorkspaceTableSymbol);
  table->setVisibility(llvm::GlobalValue::HiddenVisibility);
  auto* count = new llvm::GlobalVariable(
      *m_, b_.getInt32Ty(), /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
      b_.getInt32(static_cast<int32_t>(entries.size())), kWorkspaceCountSymbol);
  count->setVisibility(llvm::GlobalValue::HiddenVisibility);
}

}  // namespace

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeTargetMachine(const Target& target) {
  InitializeLLVM();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (t == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no LLVM backend for '", target.triple, "': ", error));
  }
  llvm::TargetOptions opts;
  opts.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  // Static constructors and destructors in .init_array/.fini_array, which the dynamic loader
  // runs (LLVM's default here is .ctors/.dtors, which nothing runs in a library linked without
  // crtbegin.o): the kernel runtime's destructor frees the kept workspace blocks on dlclose.
  opts.UseInitArray = true;
  std::unique_ptr<llvm::TargetMachine> tm(
      t->createTargetMachine(target.triple, target.cpu, target.features, opts, llvm::Reloc::PIC_,
                             std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (tm == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("LLVM could not create a target machine for '", target.str, "'"));
  }
  return tm;
}

absl::StatusOr<std::unique_ptr<llvm::Module>> EmitCpuModule(
    const std::vector<lower::LoweredFunc>& funcs, llvm::TargetMachine& tm,
    llvm::LLVMContext& context, bool outline_loop_nests) {
  auto module = std::make_unique<llvm::Module>("tunefarm", context);
  module->setTargetTriple(tm.getTargetTriple().str());
  module->setDataLayout(tm.createDataLayout());
  CpuEmitter cg(module.get(), tm);
  cg.OutlineLoopNests(outline_loop_nests);
  std::set<std::string> names;
  std::vector<std::string> ordered;
  for (const lower::LoweredFunc& f : funcs) {
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate kernel name '", f.name, "'"));
    }
    ordered.push_back(f.name);
    if (absl::Status s = cg.AddFunction(f); !s.ok()) return s;
  }
  cg.AddNamesData(ordered);
  cg.AddWorkspaceTable();
  return module;
}

absl::StatusOr<std::unique_ptr<llvm::Module>> CodegenLLVM(
    const std::vector<lower::LoweredFunc>& funcs, llvm::TargetMachine& tm,
    llvm::LLVMContext& context, OptPipeline pipeline, bool with_runtime) {
  auto module = EmitCpuModule(funcs, tm, context, /*outline_loop_nests=*/false);
  if (!module.ok()) return module.status();
  if (with_runtime) EmitKernelRuntime(**module, tm);
  OptimizeModule(**module, tm, pipeline);
  return module;
}

}  // namespace tunefarm::codegen
