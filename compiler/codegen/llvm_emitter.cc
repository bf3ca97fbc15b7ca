#include "compiler/codegen/llvm_emitter.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/arith/analyzer.h"
#include "compiler/codegen/kernel_runtime.h"
#include "compiler/codegen/plain_broadcast_addresses.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "compiler/lower/inject_prefetch.h"
#include "llvm/Analysis/CGSCCPassManager.h"
#include "llvm/Analysis/LoopAnalysisManager.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/IntrinsicsX86.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/PassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Transforms/Scalar/LoopUnrollPass.h"

namespace tunefarm::codegen {
namespace {

// Vector loads with a constant stride up to this are one contiguous load and a shuffle;
// larger strides are gathered lane by lane.
constexpr int64_t kMaxShuffledStride = 4;

// A vector index whose lanes read a group of `period` consecutive elements over and over:
// x(base) + floormod(ramp(phase, 1, lanes), x(period)), lane i reading base + (phase + i) mod
// period. It is the index of an input read along a vector axis that fuses an output axis with a
// group of consecutive reduction inputs (examples/programs/dense_pairs.te: the lanes of a
// register are 8 outputs times 2 inputs each), and it is loaded as one group and repeated
// (vbroadcastsd, vbroadcastf32x4 on x86) instead of lane by lane.
struct PeriodicIndex {
  ir::Expr base;  // Undefined: no base, the group starts at element 0.
  int64_t period = 0;
  int64_t phase = 0;
};

// The periodic term floormod(ramp(phase, 1, lanes), x(period)) alone, with no base.
std::optional<PeriodicIndex> MatchPeriodicTerm(const ir::Expr& e) {
  const auto* mod = e.as<ir::BinaryNode>();
  if (mod == nullptr || mod->op != ir::BinaryOp::kFloorMod) return std::nullopt;
  const auto* ramp = mod->a.as<ir::RampNode>();
  const auto* period = mod->b.as<ir::BroadcastNode>();
  if (ramp == nullptr || period == nullptr) return std::nullopt;
  const int64_t* stride = ir::AsConstInt(ramp->stride);
  const int64_t* phase = ir::AsConstInt(ramp->base);
  const int64_t* p = ir::AsConstInt(period->value);
  if (stride == nullptr || *stride != 1 || phase == nullptr || p == nullptr || *p < 2 ||
      ramp->lanes % *p != 0) {
    return std::nullopt;
  }
  return PeriodicIndex{ir::Expr(), *p, ((*phase % *p) + *p) % *p};
}

// Splits a sum into its broadcast terms (`bases`) and its one periodic term; false for any
// other term, or a second periodic one.
bool SplitPeriodicSum(const ir::Expr& e, std::vector<ir::Expr>* bases,
                      std::optional<PeriodicIndex>* periodic) {
  if (const auto* add = e.as<ir::BinaryNode>(); add != nullptr && add->op == ir::BinaryOp::kAdd) {
    return SplitPeriodicSum(add->a, bases, periodic) && SplitPeriodicSum(add->b, bases, periodic);
  }
  if (const auto* broadcast = e.as<ir::BroadcastNode>()) {
    bases->push_back(broadcast->value);
    return true;
  }
  std::optional<PeriodicIndex> term = MatchPeriodicTerm(e);
  if (!term.has_value() || periodic->has_value()) return false;
  *periodic = term;
  return true;
}

// The periodic form of `index` (a sum of broadcasts and one periodic term, in any order and
// nesting, as the vectorizer leaves a tile's offsets), if it has one.
std::optional<PeriodicIndex> MatchPeriodic(const ir::Expr& index) {
  std::vector<ir::Expr> bases;
  std::optional<PeriodicIndex> periodic;
  if (!SplitPeriodicSum(index, &bases, &periodic) || !periodic.has_value()) return std::nullopt;
  for (const ir::Expr& b : bases)
    periodic->base = periodic->base.defined() ? periodic->base + b : b;
  return periodic;
}

}  // namespace

using ir::DataType;
using ir::Expr;
using ir::Stmt;

LLVMEmitter::LLVMEmitter(llvm::Module* m, llvm::TargetMachine& tm)
    : ctx_(m->getContext()), m_(m), tm_(tm), b_(m->getContext()) {
  llvm::FastMathFlags fmf;
  fmf.setAllowContract(true);
  b_.setFastMathFlags(fmf);
}

llvm::Type* LLVMEmitter::LLVMType(DataType t) {
  llvm::Type* e = nullptr;
  switch (t.code) {
    case DataType::Code::kInt:
    case DataType::Code::kUInt:
      e = llvm::IntegerType::get(ctx_, t.bits);
      break;
    case DataType::Code::kBool:
      e = b_.getInt1Ty();
      break;
    case DataType::Code::kFloat:
      e = t.bits == 16 ? b_.getHalfTy() : t.bits == 64 ? b_.getDoubleTy() : b_.getFloatTy();
      break;
    case DataType::Code::kHandle:
      e = b_.getPtrTy();
      break;
  }
  return t.lanes > 1 ? llvm::FixedVectorType::get(e, t.lanes) : e;
}
llvm::Type* LLVMEmitter::StorageType(DataType t) {
  return t.is_bool() ? b_.getInt8Ty() : LLVMType(t.element_of());
}

void LLVMEmitter::Fail(absl::Status s) {
  if (status_.ok()) status_ = std::move(s);
}

absl::Status LLVMEmitter::Finish(const std::string& name) {
  if (!status_.ok()) return status_;
  std::string err;
  llvm::raw_string_ostream os(err);
  if (llvm::verifyFunction(*fn_, &os)) {
    return absl::InternalError(absl::StrCat("LLVM verifier rejected '", name, "': ", os.str()));
  }
  return absl::OkStatus();
}

llvm::Value* LLVMEmitter::Emit(const Expr& e) {
  switch (e->kind) {
    case ir::ExprKind::kIntImm: {
      const auto* op = e.as<ir::IntImmNode>();
      return llvm::ConstantInt::get(LLVMType(op->type), op->value, /*isSigned=*/true);
    }
    case ir::ExprKind::kFloatImm: {
      const auto* op = e.as<ir::FloatImmNode>();
      return llvm::ConstantFP::get(LLVMType(op->type), op->value);
    }
    case ir::ExprKind::kVar: {
      auto it = vars_.find(e.as<ir::VarNode>());
      if (it == vars_.end()) {
        Fail(absl::InternalError(
            absl::StrCat("codegen: unbound variable '", e.as<ir::VarNode>()->name, "'")));
        return llvm::UndefValue::get(LLVMType(e.type()));
      }
      return it->second;
    }
    case ir::ExprKind::kBinary:
      return EmitBinary(e.as<ir::BinaryNode>());
    case ir::ExprKind::kNot:
      return b_.CreateNot(Emit(e.as<ir::NotNode>()->a));
    case ir::ExprKind::kSelect: {
      const auto* op = e.as<ir::SelectNode>();
      llvm::Value* c = Emit(op->cond);
      if (op->type.is_scalar() &&
          (ir::ContainsLoad(op->true_value) || ir::ContainsLoad(op->false_value))) {
        // Evaluate only the chosen side: the other may read out of bounds (padding).
        llvm::BasicBlock* tb = llvm::BasicBlock::Create(ctx_, "sel_true", fn_);
        llvm::BasicBlock* fb = llvm::BasicBlock::Create(ctx_, "sel_false", fn_);
        llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "sel_done", fn_);
        b_.CreateCondBr(c, tb, fb);
        b_.SetInsertPoint(tb);
        llvm::Value* tv = Emit(op->true_value);
        llvm::BasicBlock* tend = b_.GetInsertBlock();
        b_.CreateBr(done);
        b_.SetInsertPoint(fb);
        llvm::Value* fv = Emit(op->false_value);
        llvm::BasicBlock* fend = b_.GetInsertBlock();
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
        llvm::PHINode* phi = b_.CreatePHI(tv->getType(), 2);
        phi->addIncoming(tv, tend);
        phi->addIncoming(fv, fend);
        return phi;
      }
      return b_.CreateSelect(c, Emit(op->true_value), Emit(op->false_value));
    }
    case ir::ExprKind::kCast: {
      const auto* op = e.as<ir::CastNode>();
      return EmitCast(op->type, op->value.type(), Emit(op->value));
    }
    case ir::ExprKind::kCall:
      return EmitCall(e.as<ir::CallNode>());
    case ir::ExprKind::kLoad:
      return EmitLoad(e.as<ir::LoadNode>());
    case ir::ExprKind::kRamp: {
      const auto* op = e.as<ir::RampNode>();
      llvm::Value* base = b_.CreateVectorSplat(op->lanes, Emit(op->base));
      llvm::Value* stride = b_.CreateVectorSplat(op->lanes, Emit(op->stride));
      std::vector<llvm::Constant*> lanes;
      for (int i = 0; i < op->lanes; ++i) {
        lanes.push_back(llvm::ConstantInt::get(LLVMType(op->base.type()), i));
      }
      return b_.CreateAdd(base, b_.CreateMul(stride, llvm::ConstantVector::get(lanes)));
    }
    case ir::ExprKind::kBroadcast: {
      const auto* op = e.as<ir::BroadcastNode>();
      return b_.CreateVectorSplat(op->lanes, Emit(op->value));
    }
    case ir::ExprKind::kLet: {
      const auto* op = e.as<ir::LetNode>();
      vars_[op->var.get()] = Emit(op->value);
      return Emit(op->body);
    }
    case ir::ExprKind::kReduce:
      Fail(absl::InvalidArgumentError("codegen: a reduction survived lowering"));
      return llvm::UndefValue::get(LLVMType(e.type()));
  }
  return nullptr;
}

llvm::Value* LLVMEmitter::EmitBinary(const ir::BinaryNode* op) {
  if (llvm::Value* dot = EmitByteDotProducts(op)) return dot;
  llvm::Value* a = Emit(op->a);
  llvm::Value* b = Emit(op->b);
  DataType t = op->a.type();
  bool f = t.is_float();
  bool u = t.is_uint() || t.is_bool();
  switch (op->op) {
    case ir::BinaryOp::kAdd:
      return f ? b_.CreateFAdd(a, b) : b_.CreateAdd(a, b, "", false, !u);
    case ir::BinaryOp::kSub:
      return f ? b_.CreateFSub(a, b) : b_.CreateSub(a, b, "", false, !u);
    case ir::BinaryOp::kMul:
      return f ? b_.CreateFMul(a, b) : b_.CreateMul(a, b, "", false, !u);
    case ir::BinaryOp::kDiv:
      return f ? b_.CreateFDiv(a, b) : u ? b_.CreateUDiv(a, b) : b_.CreateSDiv(a, b);
    case ir::BinaryOp::kMod:
      return f ? b_.CreateFRem(a, b) : u ? b_.CreateURem(a, b) : b_.CreateSRem(a, b);
    case ir::BinaryOp::kFloorDiv: {
      if (f) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
      if (u) return b_.CreateUDiv(a, b);
      llvm::Value* q = b_.CreateSDiv(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero),
                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      return b_.CreateSelect(adjust, b_.CreateSub(q, llvm::ConstantInt::get(a->getType(), 1)), q);
    }
    case ir::BinaryOp::kFloorMod: {
      if (f) {
        llvm::Value* q = b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, b_.CreateFDiv(a, b));
        return b_.CreateFSub(a, b_.CreateFMul(q, b));
      }
      if (u) return b_.CreateURem(a, b);
      llvm::Value* r = b_.CreateSRem(a, b);
      llvm::Value* zero = llvm::Constant::getNullValue(a->getType());
      llvm::Value* adjust =
          b_.CreateAnd(b_.CreateICmpNE(r, zero),
                       b_.CreateICmpNE(b_.CreateICmpSLT(r, zero), b_.CreateICmpSLT(b, zero)));
      return b_.CreateSelect(adjust, b_.CreateAdd(r, b), r);
    }
    case ir::BinaryOp::kMin:
      if (f) return b_.CreateMinNum(a, b);
      return b_.CreateSelect(u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b), a, b);
    case ir::BinaryOp::kMax:
      if (f) return b_.CreateMaxNum(a, b);
      return b_.CreateSelect(u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b), a, b);
    case ir::BinaryOp::kEQ:
      return f ? b_.CreateFCmpOEQ(a, b) : b_.CreateICmpEQ(a, b);
    case ir::BinaryOp::kNE:
      return f ? b_.CreateFCmpUNE(a, b) : b_.CreateICmpNE(a, b);
    case ir::BinaryOp::kLT:
      return f ? b_.CreateFCmpOLT(a, b) : u ? b_.CreateICmpULT(a, b) : b_.CreateICmpSLT(a, b);
    case ir::BinaryOp::kLE:
      return f ? b_.CreateFCmpOLE(a, b) : u ? b_.CreateICmpULE(a, b) : b_.CreateICmpSLE(a, b);
    case ir::BinaryOp::kGT:
      return f ? b_.CreateFCmpOGT(a, b) : u ? b_.CreateICmpUGT(a, b) : b_.CreateICmpSGT(a, b);
    case ir::BinaryOp::kGE:
      return f ? b_.CreateFCmpOGE(a, b) : u ? b_.CreateICmpUGE(a, b) : b_.CreateICmpSGE(a, b);
    case ir::BinaryOp::kAnd:
      return b_.CreateAnd(a, b);
    case ir::BinaryOp::kOr:
      return b_.CreateOr(a, b);
  }
  return nullptr;
}

llvm::Value* LLVMEmitter::EmitCast(DataType to, DataType from, llvm::Value* v) {
  llvm::Type* ty = LLVMType(to);
  if (to.is_bool()) {
    if (from.is_float()) return b_.CreateFCmpUNE(v, llvm::Constant::getNullValue(v->getType()));
    return b_.CreateICmpNE(v, llvm::Constant::getNullValue(v->getType()));
  }
  if (from.is_float() && to.is_float()) return b_.CreateFPCast(v, ty);
  if (from.is_float()) return to.is_uint() ? b_.CreateFPToUI(v, ty) : b_.CreateFPToSI(v, ty);
  bool from_signed = from.is_int();
  if (to.is_float()) return from_signed ? b_.CreateSIToFP(v, ty) : b_.CreateUIToFP(v, ty);
  return b_.CreateIntCast(v, ty, from_signed);
}

llvm::Value* LLVMEmitter::EmitCall(const ir::CallNode* op) {
  if (op->name == "likely") return Emit(op->args[0]);
  if (llvm::Value* v = EmitTargetCall(op)) return v;
  if (op->name == lower::kPrefetchIntrinsic) return EmitPrefetch(op);
  std::vector<llvm::Value*> args;
  for (const Expr& a : op->args) args.push_back(Emit(a));
  if (op->horizontal()) return EmitHorizontalReduce(op->name, op->type, args);
  if (!op->type.is_float()) {
    Fail(absl::InvalidArgumentError(
        absl::StrCat("codegen: ", op->name, " needs a float argument, got ", op->type.ToString())));
    return llvm::UndefValue::get(LLVMType(op->type));
  }
  llvm::Type* ty = args[0]->getType();
  llvm::Value* one = llvm::ConstantFP::get(ty, 1.0);
  if (op->name == "exp") return EmitExp(args[0]);
  if (op->name == "recip") return EmitRecip(args[0]);
  if (op->name == "log") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::log, args[0]);
  if (op->name == "sqrt") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::sqrt, args[0]);
  if (op->name == "fabs") return b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, args[0]);
  if (op->name == "pow") return b_.CreateBinaryIntrinsic(llvm::Intrinsic::pow, args[0], args[1]);
  if (op->name == "sigmoid") {
    llvm::Value* e = EmitExp(b_.CreateFNeg(args[0]));
    return b_.CreateFDiv(one, b_.CreateFAdd(one, e));
  }
  if (op->name == "tanh") {
    // tanh(x) = 1 - 2 / (exp(2x) + 1), exact at the saturated ends.
    llvm::Value* two = llvm::ConstantFP::get(ty, 2.0);
    llvm::Value* e = EmitExp(b_.CreateFMul(two, args[0]));
    return b_.CreateFSub(one, b_.CreateFDiv(two, b_.CreateFAdd(e, one)));
  }
  Fail(absl::InvalidArgumentError(absl::StrCat("codegen: unknown intrinsic '", op->name, "'")));
  return llvm::UndefValue::get(LLVMType(op->type));
}

llvm::Value* LLVMEmitter::EmitPrefetch(const ir::CallNode* op) {
  const auto* ld = op->args.size() == 1 ? op->args[0].as<ir::LoadNode>() : nullptr;
  if (ld == nullptr || ld->indices.size() != 1 || ld->type.lanes != 1) return b_.getInt32(0);
  auto it = bufs_.find(ld->buffer.get());
  if (it == bufs_.end()) return b_.getInt32(0);
  // Not inbounds: the look-ahead of the last iterations points past the buffer, which a prefetch
  // may do (it never faults) but an inbounds address may not.
  llvm::Value* address =
      b_.CreateGEP(StorageType(ld->buffer->dtype), it->second, Emit(ld->indices[0]));
  // Read (0), keep in every cache level (locality 3), data cache (1).
  b_.CreateIntrinsic(llvm::Intrinsic::prefetch, {address->getType()},
                     {address, b_.getInt32(0), b_.getInt32(3), b_.getInt32(1)});
  return b_.getInt32(0);
}

llvm::Value* LLVMEmitter::EmitHorizontalReduce(const std::string& name, ir::DataType type,
                                               const std::vector<llvm::Value*>& args) {
  if (args.size() != 1 || !args[0]->getType()->isVectorTy()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("codegen: ", name, " needs one vector")));
    return llvm::UndefValue::get(LLVMType(type));
  }
  llvm::Value* v = args[0];
  const bool f = type.is_float();
  if (name == "vector_reduce_add") {
    if (!f) return b_.CreateAddReduce(v);
    // Reassociation lets the lanes be added in a tree (the point of a horizontal add).
    llvm::CallInst* r = b_.CreateFAddReduce(llvm::ConstantFP::getNegativeZero(LLVMType(type)), v);
    llvm::FastMathFlags fmf;
    fmf.setAllowReassoc();
    r->setFastMathFlags(fmf);
    return r;
  }
  if (name == "vector_reduce_max") {
    return f ? b_.CreateFPMaxReduce(v) : b_.CreateIntMaxReduce(v, !type.is_uint());
  }
  if (name == "vector_reduce_min") {
    return f ? b_.CreateFPMinReduce(v) : b_.CreateIntMinReduce(v, !type.is_uint());
  }
  Fail(absl::InvalidArgumentError(absl::StrCat("codegen: unknown intrinsic '", name, "'")));
  return llvm::UndefValue::get(LLVMType(type));
}

llvm::Value* LLVMEmitter::ConcatVectors(std::vector<llvm::Value*> parts) {
  while (parts.size() > 1) {  // Pairwise, so each shuffle joins two equal halves.
    std::vector<llvm::Value*> next;
    for (size_t i = 0; i < parts.size(); i += 2) {
      const int n = static_cast<int>(
          llvm::cast<llvm::FixedVectorType>(parts[i]->getType())->getNumElements());
      std::vector<int> mask;
      for (int k = 0; k < 2 * n; ++k) mask.push_back(k);
      next.push_back(b_.CreateShuffleVector(parts[i], parts[i + 1], mask));
    }
    parts = std::move(next);
  }
  return parts[0];
}

llvm::Value* LLVMEmitter::EmitRecip(llvm::Value* x) {
  llvm::Type* ty = x->getType();
  llvm::Value* one = llvm::ConstantFP::get(ty, 1.0);
  auto* vty = llvm::dyn_cast<llvm::FixedVectorType>(ty);
  const int64_t chunks = vty != nullptr ? vty->getNumElements() / 16 : 0;
  if (vty == nullptr || !vty->getElementType()->isFloatTy() || vty->getNumElements() % 16 != 0 ||
      (chunks & (chunks - 1)) != 0 || !MachineHasFeature(tm_, "+avx512f")) {
    return b_.CreateFDiv(one, x);
  }
  const int lanes = static_cast<int>(vty->getNumElements());
  llvm::Type* v16 = llvm::FixedVectorType::get(b_.getFloatTy(), 16);
  llvm::Value* zero16 = llvm::ConstantFP::get(v16, 0.0);
  std::vector<llvm::Value*> parts;
  for (int c = 0; c < lanes; c += 16) {
    std::vector<int> mask;
    for (int i = 0; i < 16; ++i) mask.push_back(c + i);
    llvm::Value* part = lanes == 16 ? x : b_.CreateShuffleVector(x, mask);
    // rcp14(a, passthru, all lanes).
    parts.push_back(b_.CreateIntrinsic(llvm::Intrinsic::x86_avx512_rcp14_ps_512, {},
                                       {part, zero16, b_.getInt16(0xffff)}));
  }
  llvm::Value* r0 = ConcatVectors(std::move(parts));
  // r1 = r0 + r0 (1 - x r0). At x = 0 and x = ±inf the step is NaN (inf · 0): the estimate, exact
  // there (±inf, ±0), is kept; a NaN x gives a NaN estimate.
  llvm::Value* e = b_.CreateFSub(one, b_.CreateFMul(x, r0));
  llvm::Value* r1 = b_.CreateFAdd(r0, b_.CreateFMul(r0, e));
  return b_.CreateSelect(b_.CreateFCmpUNO(r1, r1), r0, r1);
}

llvm::Value* LLVMEmitter::EmitExp(llvm::Value* x) {
  llvm::Type* ty = x->getType();
  if (!ty->getScalarType()->isFloatTy()) return b_.CreateUnaryIntrinsic(llvm::Intrinsic::exp, x);
  // Cody-Waite range reduction and a degree-6 polynomial (the classic single-precision
  // approximation, about 1 ulp): x = n·ln2 + r with |r| <= ln2/2, e^x = p(r) · 2^n1 · 2^n2
  // with n1 + n2 = n, each power built from its exponent bits and both in the normal range,
  // so results that overflow become inf and tiny ones go gradually to denormals and zero.
  // Every step is a plain vector instruction. x is clamped to [-104, 89] first, where the
  // product already is 0 below and inf above the float range, so no select is needed there;
  // the halves of n are split in integers (an arithmetic shift), not with a second rounding.
  auto c = [&](double v) { return llvm::ConstantFP::get(ty, v); };
  llvm::Type* ity = ty->isVectorTy()
                        ? static_cast<llvm::Type*>(llvm::VectorType::get(
                              b_.getInt32Ty(), llvm::cast<llvm::VectorType>(ty)->getElementCount()))
                        : b_.getInt32Ty();
  auto i = [&](int v) { return llvm::ConstantInt::get(ity, v); };
  const double kHi = 89.0, kLo = -104.0;  // e^x overflows above 88.73 and is 0 below -103.98.
  llvm::Value* xc = b_.CreateSelect(b_.CreateFCmpOGT(x, c(kHi)), c(kHi), x);
  xc = b_.CreateSelect(b_.CreateFCmpOLT(xc, c(kLo)), c(kLo), xc);
  llvm::Value* n = b_.CreateUnaryIntrinsic(
      llvm::Intrinsic::floor, b_.CreateFAdd(b_.CreateFMul(xc, c(1.44269504088896341)), c(0.5)));
  llvm::Value* r = b_.CreateFSub(xc, b_.CreateFMul(n, c(0.693359375)));
  r = b_.CreateFSub(r, b_.CreateFMul(n, c(-2.12194440e-4)));
  llvm::Value* p = c(1.9875691500e-4);
  for (double k :
       {1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1}) {
    p = b_.CreateFAdd(b_.CreateFMul(p, r), c(k));
  }
  p = b_.CreateFAdd(b_.CreateFAdd(b_.CreateFMul(p, b_.CreateFMul(r, r)), r), c(1.0));
  // A NaN makes n NaN, and fptosi of NaN is poison: the last select never picks that lane.
  llvm::Value* ni = b_.CreateFPToSI(n, ity);  // In [-150, 129].
  llvm::Value* n1 = b_.CreateAShr(ni, i(1));
  llvm::Value* n2 = b_.CreateSub(ni, n1);
  auto pow2 = [&](llvm::Value* k) {
    return b_.CreateBitCast(b_.CreateShl(b_.CreateAdd(k, i(127)), 23), ty);
  };
  llvm::Value* e = b_.CreateFMul(b_.CreateFMul(p, pow2(n1)), pow2(n2));
  return b_.CreateSelect(b_.CreateFCmpUNO(x, x), x, e);
}

llvm::Value* LLVMEmitter::Address(const ir::BufferNode* buf, llvm::Value* index) {
  auto it = bufs_.find(buf);
  if (it == bufs_.end()) {
    Fail(absl::InternalError(absl::StrCat("codegen: buffer '", buf->name, "' is not in scope")));
    return llvm::ConstantPointerNull::get(b_.getPtrTy());
  }
  return b_.CreateInBoundsGEP(StorageType(buf->dtype), it->second, index);
}

void LLVMEmitter::AddAliasScopes() {
  std::vector<std::pair<llvm::WeakVH, const ir::BufferNode*>> accesses;
  accesses.swap(accesses_);
  absl::flat_hash_map<const ir::BufferNode*, llvm::MDNode*> scope;
  std::vector<const ir::BufferNode*> buffers;  // In the order first accessed.
  for (const auto& [access, buf] : accesses) {
    if (access != nullptr && !scope.contains(buf)) {
      scope[buf] = nullptr;
      buffers.push_back(buf);
    }
  }
  if (buffers.size() < 2) return;  // Nothing to tell apart.
  llvm::MDBuilder md(ctx_);
  llvm::MDNode* domain = md.createAnonymousAliasScopeDomain("tunefarm.buffers");
  for (const ir::BufferNode* buf : buffers) {
    scope[buf] = md.createAnonymousAliasScope(domain, buf->name);
  }
  // Per buffer: its own scope, and every other buffer's.
  absl::flat_hash_map<const ir::BufferNode*, std::pair<llvm::MDNode*, llvm::MDNode*>> tags;
  for (const ir::BufferNode* buf : buffers) {
    std::vector<llvm::Metadata*> others;
    for (const ir::BufferNode* other : buffers) {
      if (other != buf) others.push_back(scope[other]);
    }
    tags[buf] = {llvm::MDNode::get(ctx_, {scope[buf]}), llvm::MDNode::get(ctx_, others)};
  }
  for (const auto& [access, buf] : accesses) {
    auto* inst = llvm::dyn_cast_or_null<llvm::Instruction>(static_cast<llvm::Value*>(access));
    if (inst == nullptr) continue;
    inst->setMetadata(llvm::LLVMContext::MD_alias_scope, tags[buf].first);
    inst->setMetadata(llvm::LLVMContext::MD_noalias, tags[buf].second);
  }
}

llvm::Value* LLVMEmitter::EmitLoad(const ir::LoadNode* op) {
  if (op->indices.size() != 1) {
    Fail(absl::InternalError("codegen: load is not flattened"));
    return llvm::UndefValue::get(LLVMType(op->type));
  }
  llvm::Type* elem = StorageType(op->buffer->dtype);
  const Expr& index = op->indices[0];
  auto fix_bool = [&](llvm::Value* v) {
    return op->buffer->dtype.is_bool() ? b_.CreateTrunc(v, LLVMType(op->type)) : v;
  };
  if (op->type.is_scalar()) {
    return fix_bool(
        Noted(b_.CreateLoad(elem, Address(op->buffer.get(), Emit(index))), op->buffer.get()));
  }
  const auto* ramp = index.as<ir::RampNode>();
  const int64_t* stride = ramp != nullptr ? ir::AsConstInt(ramp->stride) : nullptr;
  llvm::Type* vty = llvm::FixedVectorType::get(elem, op->type.lanes);
  if (stride != nullptr && *stride == 1) {
    auto* ld = b_.CreateAlignedLoad(vty, Address(op->buffer.get(), Emit(ramp->base)),
                                    VectorAlign(op->buffer.get(), ramp->base, op->type.lanes));
    return fix_bool(Noted(ld, op->buffer.get()));
  }
  if (stride != nullptr && *stride > 1 && *stride <= kMaxShuffledStride) {
    // A small constant stride (a pooling or convolution window with stride 2): one contiguous
    // load of exactly the elements from the first lane to the last, then every stride-th
    // element picked out, which LLVM turns into permutes instead of one load per lane.
    const int span = (op->type.lanes - 1) * static_cast<int>(*stride) + 1;
    auto* wide = Noted(b_.CreateAlignedLoad(llvm::FixedVectorType::get(elem, span),
                                            Address(op->buffer.get(), Emit(ramp->base)),
                                            llvm::Align(elem->getPrimitiveSizeInBits() / 8)),
                       op->buffer.get());
    std::vector<int> mask;
    for (int i = 0; i < op->type.lanes; ++i) mask.push_back(i * static_cast<int>(*stride));
    return fix_bool(b_.CreateShuffleVector(wide, mask));
  }
  if (std::optional<PeriodicIndex> periodic = MatchPeriodic(index)) {
    llvm::Value* base = periodic->base.defined()
                            ? Emit(periodic->base)
                            : llvm::ConstantInt::get(LLVMType(index.type().element_of()), 0);
    auto* group = Noted(
        b_.CreateAlignedLoad(
            llvm::FixedVectorType::get(elem, periodic->period), Address(op->buffer.get(), base),
            llvm::Align(std::max<uint64_t>(1, elem->getPrimitiveSizeInBits() / 8))),
        op->buffer.get());
    std::vector<int> mask;
    for (int i = 0; i < op->type.lanes; ++i) {
      mask.push_back(static_cast<int>((periodic->phase + i) % periodic->period));
    }
    return fix_bool(b_.CreateShuffleVector(group, mask));
  }
  // Gather lane by lane.
  llvm::Value* idx = Emit(index);
  llvm::Value* out = llvm::UndefValue::get(vty);
  for (int i = 0; i < op->type.lanes; ++i) {
    llvm::Value* li = b_.CreateExtractElement(idx, i);
    out = b_.CreateInsertElement(
        out, Noted(b_.CreateLoad(elem, Address(op->buffer.get(), li)), op->buffer.get()), i);
  }
  return fix_bool(out);
}

void LLVMEmitter::EmitStore(const ir::StoreNode* op) {
  if (op->indices.size() != 1) {
    Fail(absl::InternalError("codegen: store is not flattened"));
    return;
  }
  llvm::Value* value = Emit(op->value);
  if (op->buffer->dtype.is_bool())
    value = b_.CreateZExt(value,
                          value->getType()->isVectorTy()
                              ? llvm::FixedVectorType::get(b_.getInt8Ty(), op->value.type().lanes)
                              : static_cast<llvm::Type*>(b_.getInt8Ty()));
  const Expr& index = op->indices[0];
  if (op->value.type().is_scalar()) {
    Noted(b_.CreateStore(value, Address(op->buffer.get(), Emit(index))), op->buffer.get());
    return;
  }
  const auto* ramp = index.as<ir::RampNode>();
  const int64_t* stride = ramp != nullptr ? ir::AsConstInt(ramp->stride) : nullptr;
  if (stride != nullptr && *stride == 1) {
    Noted(b_.CreateAlignedStore(value, Address(op->buffer.get(), Emit(ramp->base)),
                                VectorAlign(op->buffer.get(), ramp->base, op->value.type().lanes)),
          op->buffer.get());
    return;
  }
  llvm::Value* idx = Emit(index);
  for (int i = 0; i < op->value.type().lanes; ++i) {
    Noted(b_.CreateStore(b_.CreateExtractElement(value, i),
                         Address(op->buffer.get(), b_.CreateExtractElement(idx, i))),
          op->buffer.get());
  }
}

size_t LLVMEmitter::EmitTransposedCopies(const std::vector<Stmt>& stmts, size_t first) {
  constexpr int kBlock = 16;
  if (stmts.size() - first < kBlock) return 0;
  struct Copy {
    const ir::StoreNode* store;
    const ir::LoadNode* load;
    const ir::RampNode* to;
    const ir::RampNode* from;
  };
  std::vector<Copy> run;
  for (int t = 0; t < kBlock; ++t) {
    const auto* st = stmts[first + t].as<ir::StoreNode>();
    if (st == nullptr || st->indices.size() != 1 || st->buffer->dtype.is_bool()) return 0;
    const auto* ld = st->value.as<ir::LoadNode>();
    if (ld == nullptr || ld->indices.size() != 1 || ld->buffer->dtype != st->buffer->dtype ||
        ld->buffer.get() == st->buffer.get()) {
      return 0;
    }
    const auto* to = st->indices[0].as<ir::RampNode>();
    const auto* from = ld->indices[0].as<ir::RampNode>();
    if (to == nullptr || from == nullptr || to->lanes % kBlock != 0 || from->lanes != to->lanes) {
      return 0;
    }
    const int64_t* unit = ir::AsConstInt(to->stride);
    const int64_t* stride = ir::AsConstInt(from->stride);
    if (unit == nullptr || *unit != 1 || stride == nullptr || *stride <= kMaxShuffledStride) {
      return 0;
    }
    if (t > 0 &&
        (st->buffer.get() != run[0].store->buffer.get() ||
         ld->buffer.get() != run[0].load->buffer.get() ||
         *stride != *ir::AsConstInt(run[0].from->stride) || to->lanes != run[0].to->lanes)) {
      return 0;
    }
    run.push_back({st, ld, to, from});
  }
  // Copy t reads from a + t and writes to b + t * step, the stores apart (|step| >= lanes: none
  // overwrites another, so their order does not matter).
  const int lanes = run[0].to->lanes;
  arith::Analyzer analyzer;
  int64_t step = 0;
  for (int t = 1; t < kBlock; ++t) {
    const Expr from = analyzer.Simplify(run[t].from->base - run[0].from->base);
    const Expr to = analyzer.Simplify(run[t].to->base - run[0].to->base);
    const int64_t* da = ir::AsConstInt(from);
    const int64_t* db = ir::AsConstInt(to);
    if (da == nullptr || *da != t || db == nullptr) return 0;
    if (t == 1) step = *db;
    if (*db != t * step || std::abs(step) < lanes) return 0;
  }
  const int64_t stride = *ir::AsConstInt(run[0].from->stride);
  llvm::Type* elem = StorageType(run[0].store->buffer->dtype);
  llvm::Type* row_ty = llvm::FixedVectorType::get(elem, kBlock);
  const llvm::Align align(run[0].store->buffer->dtype.bytes());
  llvm::Value* a = Emit(run[0].from->base);
  llvm::Value* b = Emit(run[0].to->base);
  auto offset = [&](llvm::Value* base, int64_t by) {
    return b_.CreateAdd(base, llvm::ConstantInt::get(base->getType(), by));
  };
  for (int chunk = 0; chunk < lanes / kBlock; ++chunk) {
    // Row u: the 16 copies' elements of lane chunk*16 + u, contiguous in the source.
    std::vector<llvm::Value*> v(kBlock);
    for (int u = 0; u < kBlock; ++u) {
      v[u] = Noted(
          b_.CreateAlignedLoad(
              row_ty, Address(run[0].load->buffer.get(), offset(a, (chunk * kBlock + u) * stride)),
              align),
          run[0].load->buffer.get());
    }
    // Transpose: butterfly stages exchange the off-diagonal half-blocks of width w.
    for (int w = 1; w < kBlock; w *= 2) {
      for (int i = 0; i < kBlock; ++i) {
        if ((i & w) != 0) continue;
        std::vector<int> lo, hi;
        for (int p = 0; p < kBlock; ++p) {
          lo.push_back((p & w) == 0 ? p : kBlock + p - w);
          hi.push_back((p & w) == 0 ? p + w : kBlock + p);
        }
        llvm::Value* x = b_.CreateShuffleVector(v[i], v[i + w], lo);
        llvm::Value* y = b_.CreateShuffleVector(v[i], v[i + w], hi);
        v[i] = x;
        v[i + w] = y;
      }
    }
    for (int t = 0; t < kBlock; ++t) {
      Noted(b_.CreateAlignedStore(
                v[t], Address(run[0].store->buffer.get(), offset(b, t * step + chunk * kBlock)),
                align),
            run[0].store->buffer.get());
    }
  }
  return kBlock;
}

void LLVMEmitter::Emit(const Stmt& s) {
  if (!s.defined() || !status_.ok()) return;
  switch (s->kind) {
    case ir::StmtKind::kLetStmt: {
      const auto* op = s.as<ir::LetStmtNode>();
      vars_[op->var.get()] = Emit(op->value);
      Emit(op->body);
      return;
    }
    case ir::StmtKind::kFor:
      EmitFor(s.as<ir::ForNode>());
      return;
    case ir::StmtKind::kIfThenElse: {
      const auto* op = s.as<ir::IfThenElseNode>();
      llvm::Value* c = Emit(op->cond);
      llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "then", fn_);
      llvm::BasicBlock* else_bb =
          op->else_case.defined() ? llvm::BasicBlock::Create(ctx_, "else", fn_) : nullptr;
      llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "endif", fn_);
      b_.CreateCondBr(c, then_bb, else_bb != nullptr ? else_bb : done);
      b_.SetInsertPoint(then_bb);
      Emit(op->then_case);
      b_.CreateBr(done);
      if (else_bb != nullptr) {
        b_.SetInsertPoint(else_bb);
        Emit(op->else_case);
        b_.CreateBr(done);
      }
      b_.SetInsertPoint(done);
      return;
    }
    case ir::StmtKind::kAllocate:
      EmitAllocate(s.as<ir::AllocateNode>());
      return;
    case ir::StmtKind::kStore:
      EmitStore(s.as<ir::StoreNode>());
      return;
    case ir::StmtKind::kEvaluate: {
      const auto* op = s.as<ir::EvaluateNode>();
      if (ir::AsConstInt(op->value) == nullptr) Emit(op->value);
      return;
    }
    case ir::StmtKind::kSeq: {
      const std::vector<Stmt>& stmts = s.as<ir::SeqNode>()->stmts;
      for (size_t i = 0; i < stmts.size();) {
        size_t done = EmitTransposedCopies(stmts, i);
        if (done == 0) done = EmitAmxInitAndUpdate(stmts, i);
        if (done == 0) Emit(stmts[i]);
        i += std::max<size_t>(done, 1);
      }
      return;
    }
  }
}

void LLVMEmitter::EmitLoop(const ir::Var& var, llvm::Value* begin, llvm::Value* end,
                           const Stmt& body) {
  llvm::BasicBlock* pre = b_.GetInsertBlock();
  llvm::BasicBlock* header = llvm::BasicBlock::Create(ctx_, "for_" + var.name(), fn_);
  llvm::BasicBlock* body_bb = llvm::BasicBlock::Create(ctx_, "body_" + var.name(), fn_);
  llvm::BasicBlock* exit = llvm::BasicBlock::Create(ctx_, "end_" + var.name(), fn_);
  b_.CreateBr(header);
  b_.SetInsertPoint(header);
  llvm::PHINode* phi = b_.CreatePHI(begin->getType(), 2, var.name());
  phi->addIncoming(begin, pre);
  b_.CreateCondBr(b_.CreateICmpSLT(phi, end), body_bb, exit);
  b_.SetInsertPoint(body_bb);
  llvm::Value* saved = vars_.contains(var.get()) ? vars_[var.get()] : nullptr;
  vars_[var.get()] = phi;
  Emit(body);
  llvm::Value* next = b_.CreateAdd(phi, llvm::ConstantInt::get(phi->getType(), 1), "", false, true);
  phi->addIncoming(next, b_.GetInsertBlock());
  b_.CreateBr(header);
  b_.SetInsertPoint(exit);
  if (saved != nullptr) {
    vars_[var.get()] = saved;
  } else {
    vars_.erase(var.get());
  }
}

void OptimizeModule(llvm::Module& m, llvm::TargetMachine& tm, OptPipeline pipeline) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions pto;
  pto.LoopVectorization = true;
  pto.SLPVectorization = true;
  llvm::PassBuilder pb(&tm, pto);
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  // The full unrolling of constant loops at O3's size threshold (the pipeline text's
  // `loop-unroll-full` takes O2's, which leaves depthwise convolutions up to 1.7x slower).
  pb.registerPipelineParsingCallback([](llvm::StringRef name, llvm::LoopPassManager& lpm,
                                        llvm::ArrayRef<llvm::PassBuilder::PipelineElement>) {
    if (name != "loop-unroll-full-o3") return false;
    lpm.addPass(llvm::LoopFullUnrollPass(/*OptLevel=*/3));
    return true;
  });
  llvm::ModulePassManager mpm;
  if (pipeline == OptPipeline::kKernel) {
    // O3's function passes in O3's order (LLVM 16, `opt -passes='default<O3>'
    // -print-pipeline-passes`), less its module and call-graph passes (a kernel's functions
    // call only the runtime and libgomp), less what finds nothing in a lowered loop nest
    // (speculative execution, aggressive instcombine, tail calls, merged loads and stores,
    // memcpy forming, float2int, loop distribution and load elimination, loop sinking) and
    // with early CSE over memory SSA where O3 runs GVN. Parsed from LLVM's pipeline syntax:
    // a text LLVM 16 rejects is a bug of this file.
    llvm::cantFail(pb.parsePassPipeline(
        mpm,
        "function(sroa,early-cse<memssa>,instcombine,simplifycfg,jump-threading,"
        "correlated-propagation,reassociate,loop-mssa(loop-instsimplify,loop-simplifycfg,"
        "licm<no-allowspeculation>,loop-rotate,licm<allowspeculation>,"
        "simple-loop-unswitch<nontrivial;trivial>),simplifycfg,instcombine,"
        "loop(loop-idiom,indvars,loop-deletion,loop-unroll-full-o3),sroa,early-cse<memssa>,"
        "sccp,instcombine,dse,loop-mssa(licm<allowspeculation>),"
        "simplifycfg<hoist-common-insts;sink-common-insts>,loop(loop-rotate,loop-deletion),"
        "loop-vectorize,instcombine,"
        "simplifycfg<forward-switch-cond;switch-to-lookup;no-keep-loops;hoist-common-insts;"
        "sink-common-insts>,slp-vectorizer,instcombine,loop-unroll<O3>,sroa,instcombine,"
        "loop-mssa(licm<allowspeculation>),simplifycfg)"));
    // Last: strength reduction in code generation must find these loads' addresses final.
    if (tm.getTargetTriple().isX86()) {
      mpm.addPass(llvm::createModuleToFunctionPassAdaptor(PlainBroadcastAddressesPass()));
    }
  } else {
    mpm = pb.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  }
  mpm.run(m, mam);
}

}  // namespace tunefarm::codegen
