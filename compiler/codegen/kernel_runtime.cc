#include "compiler/codegen/kernel_runtime.h"

#include <string>

#include "compiler/abi/kernel_abi.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

namespace tunefarm::codegen {
namespace {

// The global `name` of `m`, declared (external, hidden) with type `ty` when `m` lacks it.
llvm::GlobalVariable* DataSymbol(llvm::Module& m, const char* name, llvm::Type* ty) {
  if (llvm::GlobalVariable* g = m.getNamedGlobal(name)) return g;
  auto* g = new llvm::GlobalVariable(m, ty, /*isConstant=*/true, llvm::GlobalValue::ExternalLinkage,
                                     nullptr, name);
  g->setVisibility(llvm::GlobalValue::HiddenVisibility);
  return g;
}

// A counted loop `for (i = 0; i < n; ++i) body(i)` over i64 at the builder's position; the
// builder ends after the loop.
template <typename Body>
void CountedLoop(llvm::IRBuilder<>& b, llvm::Value* n, const char* name, Body body) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::LLVMContext& ctx = fn->getContext();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* head = llvm::BasicBlock::Create(ctx, name, fn);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(ctx, std::string(name) + "_body", fn);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx, std::string(name) + "_done", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* i = b.CreatePHI(b.getInt64Ty(), 2, "i");
  i->addIncoming(b.getInt64(0), before);
  b.CreateCondBr(b.CreateICmpSLT(i, n), loop, done);
  b.SetInsertPoint(loop);
  body(i);
  i->addIncoming(b.CreateAdd(i, b.getInt64(1)), b.GetInsertBlock());
  b.CreateBr(head);
  b.SetInsertPoint(done);
}

// The argument check, in the order the kernel ABI gives (kernel_abi.h): a NULL tensor or data
// pointer, the device, the rank, the dtype (one lane), a NULL shape pointer, each extent, and
// the strides (NULL, or the compact row-major ones; an extent of 1 may carry any stride).
void EmitCheckTensor(llvm::Module& m, const llvm::TargetMachine& tm) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Function* fn = m.getFunction(kCheckTensorSymbol);
  if (fn == nullptr) {
    fn = llvm::Function::Create(CheckTensorType(ctx), llvm::Function::ExternalLinkage,
                                kCheckTensorSymbol, m);
  }
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  SetKernelFunctionAttributes(fn, tm);
  // One small loop, called once per argument: never worth inlining or unrolling.
  fn->addFnAttr(llvm::Attribute::NoInline);
  fn->addFnAttr(llvm::Attribute::OptimizeForSize);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  llvm::Type* ptr = b.getPtrTy();
  llvm::Value* t = fn->getArg(0);
  llvm::Value* ndim = fn->getArg(1);
  llvm::Value* code = fn->getArg(2);
  llvm::Value* bits = fn->getArg(3);
  llvm::Value* shape = fn->getArg(4);
  llvm::StructType* tensor_ty = DLTensorType(ctx);
  auto* device_ty = llvm::cast<llvm::StructType>(tensor_ty->getElementType(1));
  auto* dtype_ty = llvm::cast<llvm::StructType>(tensor_ty->getElementType(3));
  auto check = [&](llvm::Value* ok, int rc) { ReturnUnless(b, ok, b.getInt32(rc)); };
  check(b.CreateIsNotNull(t), TF_KERNEL_NULL_ARG);
  check(b.CreateIsNotNull(b.CreateLoad(ptr, b.CreateStructGEP(tensor_ty, t, 0))),
        TF_KERNEL_NULL_ARG);
  llvm::Value* dev =
      b.CreateLoad(i32, b.CreateStructGEP(device_ty, b.CreateStructGEP(tensor_ty, t, 1), 0));
  check(b.CreateICmpEQ(dev, b.getInt32(kDLCPU)), TF_KERNEL_BAD_DEVICE);
  check(b.CreateICmpEQ(b.CreateLoad(i32, b.CreateStructGEP(tensor_ty, t, 2)), ndim),
        TF_KERNEL_BAD_SHAPE);
  llvm::Value* dt = b.CreateStructGEP(tensor_ty, t, 3);
  llvm::Value* dt_code =
      b.CreateZExt(b.CreateLoad(b.getInt8Ty(), b.CreateStructGEP(dtype_ty, dt, 0)), i32);
  llvm::Value* dt_bits =
      b.CreateZExt(b.CreateLoad(b.getInt8Ty(), b.CreateStructGEP(dtype_ty, dt, 1)), i32);
  llvm::Value* dt_lanes = b.CreateLoad(b.getInt16Ty(), b.CreateStructGEP(dtype_ty, dt, 2));
  check(b.CreateAnd(
            b.CreateICmpEQ(dt_code, code),
            b.CreateAnd(b.CreateICmpEQ(dt_bits, bits), b.CreateICmpEQ(dt_lanes, b.getInt16(1)))),
        TF_KERNEL_BAD_DTYPE);
  llvm::Value* extents = b.CreateLoad(ptr, b.CreateStructGEP(tensor_ty, t, 4));
  check(b.CreateIsNotNull(extents), TF_KERNEL_NULL_ARG);
  llvm::Value* n = b.CreateSExt(ndim, i64);
  CountedLoop(b, n, "extent", [&](llvm::Value* d) {
    llvm::Value* want = b.CreateLoad(i64, b.CreateInBoundsGEP(i64, shape, d));
    check(b.CreateICmpEQ(b.CreateLoad(i64, b.CreateInBoundsGEP(i64, extents, d)), want),
          TF_KERNEL_BAD_SHAPE);
  });

  // Strides: NULL, or for (d = ndim - 1, expect = 1; d >= 0; expect *= shape[d--])
  //   if (shape[d] != 1 && strides[d] != expect) return BAD_STRIDES;
  llvm::Value* strides = b.CreateLoad(ptr, b.CreateStructGEP(tensor_ty, t, 5));
  llvm::BasicBlock* compact = llvm::BasicBlock::Create(ctx, "compact", fn);
  llvm::BasicBlock* walk = llvm::BasicBlock::Create(ctx, "strides", fn);
  b.CreateCondBr(b.CreateIsNull(strides), compact, walk);
  b.SetInsertPoint(compact);
  b.CreateRet(b.getInt32(TF_KERNEL_OK));
  b.SetInsertPoint(walk);
  llvm::Value* last = b.CreateSub(n, b.getInt64(1));
  llvm::BasicBlock* head = llvm::BasicBlock::Create(ctx, "stride", fn);
  llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx, "stride_body", fn);
  b.CreateBr(head);
  b.SetInsertPoint(head);
  llvm::PHINode* d = b.CreatePHI(i64, 2, "d");
  llvm::PHINode* expect = b.CreatePHI(i64, 2, "expect");
  d->addIncoming(last, walk);
  expect->addIncoming(b.getInt64(1), walk);
  b.CreateCondBr(b.CreateICmpSGE(d, b.getInt64(0)), body, compact);
  b.SetInsertPoint(body);
  llvm::Value* extent = b.CreateLoad(i64, b.CreateInBoundsGEP(i64, shape, d));
  llvm::Value* stride = b.CreateLoad(i64, b.CreateInBoundsGEP(i64, strides, d));
  check(b.CreateOr(b.CreateICmpEQ(extent, b.getInt64(1)), b.CreateICmpEQ(stride, expect)),
        TF_KERNEL_BAD_STRIDES);
  d->addIncoming(b.CreateSub(d, b.getInt64(1)), b.GetInsertBlock());
  expect->addIncoming(b.CreateMul(expect, extent), b.GetInsertBlock());
  b.CreateBr(head);
}

// const char* tunefarm_kernel_names(void)
void EmitNames(llvm::Module& m, const llvm::TargetMachine& tm) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::GlobalVariable* names =
      DataSymbol(m, kKernelNamesDataSymbol, llvm::ArrayType::get(llvm::Type::getInt8Ty(ctx), 0));
  auto* fn = llvm::Function::Create(llvm::FunctionType::get(llvm::PointerType::get(ctx, 0), false),
                                    llvm::Function::ExternalLinkage, TF_KERNEL_NAMES_SYMBOL, m);
  SetKernelFunctionAttributes(fn, tm);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  b.CreateRet(names);
}

// int32_t tunefarm_kernel_workspaces(void** blocks, int64_t* bytes, int32_t capacity), and
// the destructor that frees every kept block when the library is unloaded.
void EmitWorkspaces(llvm::Module& m, const llvm::TargetMachine& tm) {
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  auto* entry_ty = llvm::StructType::get(ctx, {ptr, i64});
  llvm::GlobalVariable* table =
      DataSymbol(m, kWorkspaceTableSymbol, llvm::ArrayType::get(entry_ty, 0));
  llvm::GlobalVariable* count = DataSymbol(m, kWorkspaceCountSymbol, i32);

  auto* list =
      llvm::Function::Create(llvm::FunctionType::get(i32, {ptr, ptr, i32}, false),
                             llvm::Function::ExternalLinkage, TF_KERNEL_WORKSPACES_SYMBOL, m);
  SetKernelFunctionAttributes(list, tm);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", list));
    llvm::Value* n = b.CreateLoad(i32, count);
    llvm::Value* capacity = list->getArg(2);
    llvm::Value* written =
        b.CreateSExt(b.CreateSelect(b.CreateICmpSLT(capacity, n), capacity, n), i64);
    CountedLoop(b, written, "ws", [&](llvm::Value* i) {
      llvm::Value* e = b.CreateInBoundsGEP(entry_ty, table, i);
      llvm::Value* slot = b.CreateLoad(ptr, b.CreateStructGEP(entry_ty, e, 0));
      llvm::LoadInst* block = b.CreateAlignedLoad(ptr, slot, llvm::MaybeAlign(8));
      block->setAtomic(llvm::AtomicOrdering::Acquire);
      b.CreateStore(block, b.CreateInBoundsGEP(ptr, list->getArg(0), i));
      b.CreateStore(b.CreateLoad(i64, b.CreateStructGEP(entry_ty, e, 1)),
                    b.CreateInBoundsGEP(i64, list->getArg(1), i));
    });
    b.CreateRet(n);
  }

  llvm::FunctionCallee free_fn = m.getOrInsertFunction("free", llvm::Type::getVoidTy(ctx), ptr);
  auto* dtor = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                      llvm::Function::InternalLinkage, "tf_free_workspaces", m);
  SetKernelFunctionAttributes(dtor, tm);
  {
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", dtor));
    llvm::Value* n = b.CreateSExt(b.CreateLoad(i32, count), i64);
    CountedLoop(b, n, "ws", [&](llvm::Value* i) {
      llvm::Value* e = b.CreateInBoundsGEP(entry_ty, table, i);
      llvm::Value* slot = b.CreateLoad(ptr, b.CreateStructGEP(entry_ty, e, 0));
      llvm::Value* block = b.CreateAtomicRMW(
          llvm::AtomicRMWInst::Xchg, slot, llvm::ConstantPointerNull::get(b.getPtrTy()),
          llvm::MaybeAlign(8), llvm::AtomicOrdering::AcquireRelease);
      b.CreateCall(free_fn, {block});
    });
    b.CreateRetVoid();
  }
  llvm::appendToGlobalDtors(m, dtor, 65535);
}

// int32_t tf_tile_permit(void): asks Linux once per process for the AMX tile data state
// (arch_prctl(ARCH_REQ_XCOMP_PERM, XFEATURE_XTILEDATA), Linux 5.16+; the grant covers every
// thread of the process), remembered in a flag; TF_KERNEL_NO_TILE_STATE where it is refused.
void EmitTilePermit(llvm::Module& m, const llvm::TargetMachine& tm) {
  constexpr int64_t kSysArchPrctl = 158, kArchReqXcompPerm = 0x1023, kXfeatureXtiledata = 18;
  llvm::LLVMContext& ctx = m.getContext();
  llvm::Function* fn = m.getFunction(kTilePermitSymbol);
  if (fn == nullptr) {
    fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getInt32Ty(ctx), false),
                                llvm::Function::ExternalLinkage, kTilePermitSymbol, m);
  }
  fn->setVisibility(llvm::GlobalValue::HiddenVisibility);
  SetKernelFunctionAttributes(fn, tm);
  fn->addFnAttr(llvm::Attribute::NoInline);
  llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
  llvm::Type* i32 = b.getInt32Ty();
  llvm::Type* i64 = b.getInt64Ty();
  auto* granted =
      new llvm::GlobalVariable(m, i32, /*isConstant=*/false, llvm::GlobalValue::InternalLinkage,
                               b.getInt32(0), "tf_tile_permit_granted");
  // Threads may race to the first call: each asks (the request is idempotent) and sets the flag.
  llvm::LoadInst* seen = b.CreateLoad(i32, granted);
  seen->setAtomic(llvm::AtomicOrdering::Monotonic);
  seen->setAlignment(llvm::Align(4));
  llvm::BasicBlock* ask = llvm::BasicBlock::Create(ctx, "ask", fn);
  llvm::BasicBlock* ok = llvm::BasicBlock::Create(ctx, "ok", fn);
  llvm::BasicBlock* refused = llvm::BasicBlock::Create(ctx, "refused", fn);
  llvm::BasicBlock* record = llvm::BasicBlock::Create(ctx, "record", fn);
  b.CreateCondBr(b.CreateICmpNE(seen, b.getInt32(0)), ok, ask);
  b.SetInsertPoint(ask);
  llvm::FunctionCallee syscall =
      m.getOrInsertFunction("syscall", llvm::FunctionType::get(i64, {i64}, /*isVarArg=*/true));
  llvm::Value* rc = b.CreateCall(syscall, {b.getInt64(kSysArchPrctl), b.getInt64(kArchReqXcompPerm),
                                           b.getInt64(kXfeatureXtiledata)});
  b.CreateCondBr(b.CreateICmpEQ(rc, b.getInt64(0)), record, refused);
  b.SetInsertPoint(record);
  llvm::StoreInst* set = b.CreateStore(b.getInt32(1), granted);
  set->setAtomic(llvm::AtomicOrdering::Monotonic);
  set->setAlignment(llvm::Align(4));
  b.CreateBr(ok);
  b.SetInsertPoint(ok);
  b.CreateRet(b.getInt32(TF_KERNEL_OK));
  b.SetInsertPoint(refused);
  b.CreateRet(b.getInt32(TF_KERNEL_NO_TILE_STATE));
}

}  // namespace

bool MachineHasFeature(const llvm::TargetMachine& tm, llvm::StringRef feature) {
  const llvm::MCSubtargetInfo* cpu = tm.getMCSubtargetInfo();
  return cpu != nullptr && cpu->checkFeatures(feature);
}

void SetKernelFunctionAttributes(llvm::Function* fn, const llvm::TargetMachine& tm) {
  fn->addFnAttr("target-cpu", tm.getTargetCPU());
  fn->addFnAttr("target-features", tm.getTargetFeatureString());
  if (MachineHasFeature(tm, "+avx512f")) {
    fn->addFnAttr("prefer-vector-width", "512");
    fn->addFnAttr("min-legal-vector-width", "512");
  }
  fn->addFnAttr(llvm::Attribute::NoUnwind);
}

void ReturnUnless(llvm::IRBuilder<>& b, llvm::Value* ok, llvm::Value* rc) {
  llvm::Function* fn = b.GetInsertBlock()->getParent();
  llvm::BasicBlock* fail = llvm::BasicBlock::Create(fn->getContext(), "fail", fn);
  llvm::BasicBlock* next = llvm::BasicBlock::Create(fn->getContext(), "ok", fn);
  b.CreateCondBr(ok, next, fail);
  b.SetInsertPoint(fail);
  b.CreateRet(rc);
  b.SetInsertPoint(next);
}

llvm::StructType* DLTensorType(llvm::LLVMContext& ctx) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  auto* device_ty = llvm::StructType::get(ctx, {i32, i32});
  auto* dtype_ty = llvm::StructType::get(
      ctx, {llvm::Type::getInt8Ty(ctx), llvm::Type::getInt8Ty(ctx), llvm::Type::getInt16Ty(ctx)});
  return llvm::StructType::get(
      ctx, {ptr, device_ty, i32, dtype_ty, ptr, ptr, llvm::Type::getInt64Ty(ctx)});
}

llvm::FunctionType* CheckTensorType(llvm::LLVMContext& ctx) {
  llvm::Type* i32 = llvm::Type::getInt32Ty(ctx);
  llvm::Type* ptr = llvm::PointerType::get(ctx, 0);
  return llvm::FunctionType::get(i32, {ptr, i32, i32, i32, ptr}, false);
}

void EmitKernelRuntime(llvm::Module& m, const llvm::TargetMachine& tm) {
  EmitCheckTensor(m, tm);
  EmitNames(m, tm);
  EmitWorkspaces(m, tm);
  if (tm.getTargetTriple().getArch() == llvm::Triple::x86_64 && tm.getTargetTriple().isOSLinux()) {
    EmitTilePermit(m, tm);
  }
}

}  // namespace tunefarm::codegen
