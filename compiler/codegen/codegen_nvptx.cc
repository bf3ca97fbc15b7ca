#include "compiler/codegen/codegen_nvptx.h"

#include <algorithm>
#include <memory>
#include <numeric>
#include <set>
#include <string>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/llvm_emitter.h"
#include "compiler/codegen/llvm_init.h"
#include "compiler/codegen/wmma_nest.h"
#include "compiler/ir/ir_util.h"
#include "compiler/ir/ir_visitor.h"
#include "compiler/lower/inject_prefetch.h"
#include "compiler/lower/insert_barriers.h"
#include "compiler/lower/storage_flatten.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/IntrinsicsNVPTX.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetOptions.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;

constexpr unsigned kGlobalSpace = 1;
constexpr unsigned kSharedSpace = 3;
// Highest PTX ISA LLVM 16 emits; ptxas and drivers from CUDA 11.8 on accept it.
constexpr char kPtxFeature[] = "+ptx78";
// Local buffers up to this many elements, accessed only at constant indices, become scalars.
constexpr int64_t kMaxScalarizedElements = 1024;

class NvptxEmitter : public LLVMEmitter {
 public:
  using LLVMEmitter::LLVMEmitter;

  absl::Status AddKernel(const lower::LoweredFunc& f, const lower::GpuLaunch& launch) {
    std::vector<llvm::Type*> params(f.args.size(), b_.getPtrTy(kGlobalSpace));
    auto* fty = llvm::FunctionType::get(b_.getVoidTy(), params, false);
    fn_ = llvm::Function::Create(fty, llvm::Function::ExternalLinkage, f.name, m_);
    fn_->addFnAttr(llvm::Attribute::NoUnwind);
    for (size_t i = 0; i < f.args.size(); ++i) {
      llvm::Argument* arg = fn_->getArg(static_cast<unsigned>(i));
      arg->setName(f.args[i].buffer->name);
      arg->addAttr(llvm::Attribute::NoAlias);
      // Only arguments the kernel never stores to may use the read-only data path.
      if (!IsOutput(f, f.args[i])) arg->addAttr(llvm::Attribute::ReadOnly);
      bufs_[f.args[i].buffer.get()] = arg;
    }
    launch_ = launch;
    AnnotateKernel(launch);
    entry_ = llvm::BasicBlock::Create(ctx_, "entry", fn_);
    b_.SetInsertPoint(entry_);
    llvm::BasicBlock* body = llvm::BasicBlock::Create(ctx_, "body", fn_);
    b_.CreateBr(body);
    b_.SetInsertPoint(body);
    Emit(f.body);
    b_.CreateRetVoid();
    return Finish(f.name);
  }

 private:
  // Outputs are the arguments the kernel stores to.
  static bool IsOutput(const lower::LoweredFunc& f, const lower::FuncArg& a) {
    class StoreFinder : public ir::IRVisitor {
     public:
      explicit StoreFinder(const ir::BufferNode* b) : b_(b) {}
      bool found = false;

     protected:
      void Visit_(const ir::StoreNode* op) override {
        if (op->buffer.get() == b_) found = true;
        IRVisitor::Visit_(op);
      }

     private:
      const ir::BufferNode* b_;
    } finder(a.buffer.get());
    finder.Visit(f.body);
    return finder.found;
  }

  void AnnotateKernel(const lower::GpuLaunch& launch) {
    llvm::NamedMDNode* md = m_->getOrInsertNamedMetadata("nvvm.annotations");
    auto add = [&](const char* key, int64_t value) {
      llvm::Metadata* ops[] = {llvm::ValueAsMetadata::get(fn_), llvm::MDString::get(ctx_, key),
                               llvm::ValueAsMetadata::get(b_.getInt32(static_cast<int>(value)))};
      md->addOperand(llvm::MDNode::get(ctx_, ops));
    };
    add("kernel", 1);
    add("maxntidx", launch.block[0]);
    add("maxntidy", launch.block[1]);
    add("maxntidz", launch.block[2]);
  }

  llvm::Value* ReadIndex(const std::string& tag) {
    using llvm::Intrinsic::ID;
    static const std::pair<const char*, ID> kIndices[] = {
        {"threadIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_x},
        {"threadIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_y},
        {"threadIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_tid_z},
        {"blockIdx.x", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_x},
        {"blockIdx.y", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_y},
        {"blockIdx.z", llvm::Intrinsic::nvvm_read_ptx_sreg_ctaid_z},
    };
    for (const auto& [name, id] : kIndices) {
      if (tag == name) return b_.CreateIntrinsic(id, {}, {});
    }
    return nullptr;
  }

  void EmitFor(const ir::ForNode* op) override {
    if (op->pragmas.count(schedule::kTensorizePragma)) {
      EmitWmma(op);
      return;
    }
    llvm::Value* begin = Emit(op->min);
    if (op->for_kind == ir::ForKind::kParallel) {
      Fail(absl::InvalidArgumentError(absl::StrCat(
          "loop '", op->var.name(), "' is parallel (CPU threads); bind it to blockIdx/threadIdx")));
      return;
    }
    if (op->for_kind == ir::ForKind::kThreadBinding && op->thread_tag != "vthread") {
      llvm::Value* index = ReadIndex(op->thread_tag);
      if (index == nullptr) {
        Fail(absl::InvalidArgumentError(absl::StrCat("unknown thread tag '", op->thread_tag, "'")));
        return;
      }
      index = b_.CreateIntCast(index, begin->getType(), /*isSigned=*/false);
      llvm::Value* saved = vars_.contains(op->var.get()) ? vars_[op->var.get()] : nullptr;
      vars_[op->var.get()] = b_.CreateAdd(begin, index, op->var.name(), true, true);
      const int64_t* extent = ir::AsConstInt(op->extent);
      if (extent != nullptr && *extent < LaunchDim(op->thread_tag)) {
        // Fewer iterations than threads: the others skip the body.
        llvm::BasicBlock* then_bb = llvm::BasicBlock::Create(ctx_, "in_" + op->var.name(), fn_);
        llvm::BasicBlock* done = llvm::BasicBlock::Create(ctx_, "out_" + op->var.name(), fn_);
        b_.CreateCondBr(b_.CreateICmpULT(index, llvm::ConstantInt::get(index->getType(), *extent)),
                        then_bb, done);
        b_.SetInsertPoint(then_bb);
        Emit(op->body);
        b_.CreateBr(done);
        b_.SetInsertPoint(done);
      } else {
        Emit(op->body);
      }
      if (saved != nullptr) {
        vars_[op->var.get()] = saved;
      } else {
        vars_.erase(op->var.get());
      }
      return;
    }
    llvm::Value* end = b_.CreateAdd(begin, Emit(op->extent), "", false, true);
    EmitLoop(op->var, begin, end, op->body);
  }

  void EmitAllocate(const ir::AllocateNode* op) override {
    const ir::BufferNode& buf = *op->buffer;
    std::optional<int64_t> elems = lower::AllocationElements(buf);
    if (!elems) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("codegen: allocation '", buf.name, "' has a non-constant size")));
      return;
    }
    auto* array = llvm::ArrayType::get(StorageType(buf.dtype), static_cast<uint64_t>(*elems));
    if (buf.scope.rfind("wmma.", 0) == 0) {
      // Fragments: one register set per 16x16 tile, created when a tile is first used.
      fragments_[&buf];
      Emit(op->body);
      fragments_.erase(&buf);
      return;
    }
    if (buf.scope == "shared") {
      auto* gv = new llvm::GlobalVariable(*m_, array, false, llvm::GlobalValue::InternalLinkage,
                                          llvm::UndefValue::get(array), buf.name, nullptr,
                                          llvm::GlobalValue::NotThreadLocal, kSharedSpace);
      gv->setAlignment(llvm::Align(128));  // WMMA tiles need 32-byte aligned rows.
      bufs_[&buf] = gv;
    } else if (buf.scope == "local") {
      llvm::IRBuilder<> eb(entry_, entry_->begin());
      if (*elems <= kMaxScalarizedElements && OnlyConstantScalarAccess(op->body, &buf)) {
        // A register tile: one scalar per element, which mem2reg always promotes (SROA gives
        // up on some large arrays, leaving the tile in slow local memory).
        std::vector<llvm::Value*>& slots = scalarized_[&buf];
        for (int64_t i = 0; i < *elems; ++i) {
          slots.push_back(
              eb.CreateAlloca(StorageType(buf.dtype), nullptr, absl::StrCat(buf.name, ".", i)));
        }
        bufs_[&buf] = slots[0];
        Emit(op->body);
        bufs_.erase(&buf);
        scalarized_.erase(&buf);
        return;
      }
      llvm::AllocaInst* a = eb.CreateAlloca(array, nullptr, buf.name);
      a->setAlignment(llvm::Align(16));
      bufs_[&buf] = a;
    } else {
      Fail(absl::InvalidArgumentError(absl::StrCat("codegen: buffer '", buf.name, "' in ",
                                                   buf.scope, " memory inside a GPU kernel")));
      return;
    }
    Emit(op->body);
    bufs_.erase(&buf);
  }

  llvm::Value* EmitTargetCall(const ir::CallNode* op) override {
    if (op->name == lower::kBarrierIntrinsic) {
      b_.CreateIntrinsic(llvm::Intrinsic::nvvm_barrier0, {}, {});
      return b_.getInt32(0);
    }
    // The CPU's software prefetch has no use here: the GPU spaces stage tiles in shared memory.
    if (op->name == lower::kPrefetchIntrinsic) return b_.getInt32(0);
    static const char* const kMath[] = {"exp", "log", "sigmoid", "tanh", "pow"};
    if (std::find_if(std::begin(kMath), std::end(kMath),
                     [&](const char* n) { return op->name == n; }) == std::end(kMath)) {
      return nullptr;
    }
    if (op->type != DataType::Float(32)) {
      Fail(absl::InvalidArgumentError(absl::StrCat(
          "codegen: ", op->name, " on the GPU is implemented for float32 scalars, not ",
          op->type.ToString(), " (cast to float32 first)")));
      return llvm::UndefValue::get(LLVMType(op->type));
    }
    llvm::Value* x = Emit(op->args[0]);
    llvm::Type* f32 = b_.getFloatTy();
    auto c = [&](double v) { return llvm::ConstantFP::get(f32, v); };
    auto ex2 = [&](llvm::Value* v) {
      return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_ex2_approx_f, {}, {v});
    };
    auto lg2 = [&](llvm::Value* v) {
      return b_.CreateIntrinsic(llvm::Intrinsic::nvvm_lg2_approx_f, {}, {v});
    };
    auto exp = [&](llvm::Value* v) { return ex2(b_.CreateFMul(v, c(1.4426950408889634))); };
    if (op->name == "exp") return exp(x);
    if (op->name == "log") return b_.CreateFMul(lg2(x), c(0.6931471805599453));
    if (op->name == "pow") {
      // 2^(y·log2|x|), with C's pow for the cases that formula misses: y = 0 gives 1, a
      // negative base gives ±|x|^y for an integer y (negative for odd y) and NaN otherwise.
      llvm::Value* y = Emit(op->args[1]);
      llvm::Value* mag =
          ex2(b_.CreateFMul(y, lg2(b_.CreateUnaryIntrinsic(llvm::Intrinsic::fabs, x))));
      llvm::Value* y_int = b_.CreateFCmpOEQ(y, b_.CreateUnaryIntrinsic(llvm::Intrinsic::floor, y));
      llvm::Value* odd = b_.CreateAnd(y_int, b_.CreateFCmpONE(b_.CreateFRem(y, c(2.0)), c(0.0)));
      llvm::Value* negative = b_.CreateFCmpOLT(x, c(0.0));
      llvm::Value* r = b_.CreateSelect(b_.CreateAnd(negative, odd), b_.CreateFNeg(mag), mag);
      r = b_.CreateSelect(b_.CreateAnd(negative, b_.CreateNot(y_int)),
                          llvm::ConstantFP::getNaN(f32), r);
      return b_.CreateSelect(b_.CreateFCmpOEQ(y, c(0.0)), c(1.0), r);
    }
    if (op->name == "sigmoid")
      return b_.CreateFDiv(c(1.0), b_.CreateFAdd(c(1.0), exp(b_.CreateFNeg(x))));
    // tanh(x) = 1 - 2 / (exp(2x) + 1).
    return b_.CreateFSub(
        c(1.0), b_.CreateFDiv(c(2.0), b_.CreateFAdd(exp(b_.CreateFMul(c(2.0), x)), c(1.0))));
  }

  llvm::Value* Address(const ir::BufferNode* buf, llvm::Value* index) override {
    if (fragments_.count(buf)) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("codegen: the WMMA fragment '", buf->name,
                       "' is accessed outside a tensorized nest (tensorize every stage that reads "
                       "or writes it)")));
      return llvm::UndefValue::get(b_.getPtrTy());
    }
    auto it = scalarized_.find(buf);
    if (it == scalarized_.end()) return LLVMEmitter::Address(buf, index);
    const auto* c = llvm::dyn_cast<llvm::ConstantInt>(index);
    if (c == nullptr || c->getSExtValue() < 0 ||
        c->getSExtValue() >= static_cast<int64_t>(it->second.size())) {
      Fail(absl::InternalError(absl::StrCat("codegen: register tile '", buf->name,
                                            "' indexed out of its constant range")));
      return it->second[0];
    }
    return it->second[static_cast<size_t>(c->getSExtValue())];
  }

  // The registers of the fragment tile of `ref` (its base must be a constant offset).
  llvm::Value* FragmentSlot(const TileRef& ref, llvm::Type* type) {
    auto it = fragments_.find(ref.buffer);
    llvm::Value* base = Emit(ref.base);
    const auto* c = llvm::dyn_cast<llvm::ConstantInt>(base);
    if (it == fragments_.end() || c == nullptr) {
      Fail(absl::InvalidArgumentError(
          absl::StrCat("codegen: WMMA fragment '", ref.buffer->name,
                       "' is indexed by a non-constant tile (unroll the loops over its tiles)")));
      return nullptr;
    }
    llvm::Value*& slot = it->second[c->getSExtValue()];
    if (slot == nullptr) {
      llvm::IRBuilder<> eb(entry_, entry_->begin());
      slot = eb.CreateAlloca(type, nullptr, absl::StrCat(ref.buffer->name, ".", c->getSExtValue()));
    }
    return slot;
  }

  void EmitWmma(const ir::ForNode* op) {
    auto nest = MatchWmmaNest(op);
    if (!nest.ok()) {
      Fail(nest.status());
      return;
    }
    using schedule::TensorIntrinsic;
    auto memory_ptr = [&]() { return Address(nest->memory.buffer, Emit(nest->memory.base)); };
    llvm::Type* acc_type =
        llvm::StructType::get(ctx_, std::vector<llvm::Type*>(8, b_.getFloatTy()));
    switch (nest->op) {
      case TensorIntrinsic::kWmmaLoadA:
      case TensorIntrinsic::kWmmaLoadB: {
        llvm::Value* ptr = memory_ptr();
        auto id = nest->op == TensorIntrinsic::kWmmaLoadA
                      ? llvm::Intrinsic::nvvm_wmma_m16n16k16_load_a_f16_row_stride
                      : llvm::Intrinsic::nvvm_wmma_m16n16k16_load_b_f16_col_stride;
        llvm::Function* fn = llvm::Intrinsic::getDeclaration(m_, id, {ptr->getType()});
        llvm::Value* frag = b_.CreateCall(fn, {ptr, b_.getInt32(static_cast<int>(nest->ldm))});
        if (llvm::Value* slot = FragmentSlot(nest->fragment, frag->getType())) {
          b_.CreateStore(frag, slot);
        }
        return;
      }
      case TensorIntrinsic::kWmmaMma: {
        llvm::Value* c_slot = FragmentSlot(nest->fragment, acc_type);
        if (c_slot == nullptr) return;
        if (nest->fill) {
          b_.CreateStore(llvm::Constant::getNullValue(acc_type), c_slot);
          return;
        }
        llvm::Function* fn = llvm::Intrinsic::getDeclaration(
            m_, llvm::Intrinsic::nvvm_wmma_m16n16k16_mma_row_col_f32_f32);
        llvm::Type* ab_type = fn->getFunctionType()->getParamType(0);
        llvm::Type* frag_type = llvm::StructType::get(ctx_, std::vector<llvm::Type*>(8, ab_type));
        llvm::Value* a_slot = FragmentSlot(nest->a, frag_type);
        llvm::Value* b_slot = FragmentSlot(nest->b, frag_type);
        if (a_slot == nullptr || b_slot == nullptr) return;
        llvm::Value* a = b_.CreateLoad(frag_type, a_slot);
        llvm::Value* b = b_.CreateLoad(frag_type, b_slot);
        llvm::Value* c = b_.CreateLoad(acc_type, c_slot);
        std::vector<llvm::Value*> args;
        for (llvm::Value* frag : {a, b, c}) {
          for (unsigned e = 0; e < 8; ++e) args.push_back(b_.CreateExtractValue(frag, e));
        }
        llvm::Value* d = b_.CreateCall(fn, args);
        llvm::Value* packed = llvm::UndefValue::get(acc_type);
        for (unsigned e = 0; e < 8; ++e) {
          packed = b_.CreateInsertValue(packed, b_.CreateExtractValue(d, e), e);
        }
        b_.CreateStore(packed, c_slot);
        return;
      }
      case TensorIntrinsic::kWmmaStore: {
        llvm::Value* slot = FragmentSlot(nest->fragment, acc_type);
        if (slot == nullptr) return;
        llvm::Value* ptr = memory_ptr();
        llvm::Function* fn = llvm::Intrinsic::getDeclaration(
            m_, llvm::Intrinsic::nvvm_wmma_m16n16k16_store_d_f32_row_stride, {ptr->getType()});
        llvm::Value* c = b_.CreateLoad(acc_type, slot);
        std::vector<llvm::Value*> args = {ptr};
        for (unsigned e = 0; e < 8; ++e) args.push_back(b_.CreateExtractValue(c, e));
        args.push_back(b_.getInt32(static_cast<int>(nest->ldm)));
        b_.CreateCall(fn, args);
        return;
      }
      case TensorIntrinsic::kAmxDotProduct:  // MatchWmmaNest refuses it.
        return;
    }
  }

  // True when every access to `buf` in `body` is a scalar load or store at a constant index.
  static bool OnlyConstantScalarAccess(const ir::Stmt& body, const ir::BufferNode* buf) {
    class Checker : public ir::IRVisitor {
     public:
      explicit Checker(const ir::BufferNode* b) : b_(b) {}
      bool ok = true;

     protected:
      void Visit_(const ir::LoadNode* op) override {
        if (op->buffer.get() == b_) Check(op->indices, op->type);
        IRVisitor::Visit_(op);
      }
      void Visit_(const ir::StoreNode* op) override {
        if (op->buffer.get() == b_) Check(op->indices, op->value.type());
        IRVisitor::Visit_(op);
      }

     private:
      void Check(const std::vector<Expr>& idx, DataType t) {
        if (idx.size() != 1 || t.lanes != 1 || ir::AsConstInt(idx[0]) == nullptr) ok = false;
      }
      const ir::BufferNode* b_;
    } checker(buf);
    checker.Visit(body);
    return checker.ok;
  }

  llvm::Align VectorAlign(const ir::BufferNode* buf, const Expr& base, int lanes) override {
    int64_t bytes = buf->dtype.bytes();
    int64_t multiple = ir::KnownMultiple(base) * bytes;
    int64_t align = bytes;
    while (align * 2 <= std::min<int64_t>(16, lanes * bytes) && multiple % (align * 2) == 0) {
      align *= 2;
    }
    return llvm::Align(static_cast<uint64_t>(align));
  }

  int64_t LaunchDim(const std::string& tag) const {
    int d = tag.back() - 'x';
    return tag.rfind("blockIdx", 0) == 0 ? launch_.grid[d] : launch_.block[d];
  }

  llvm::BasicBlock* entry_ = nullptr;
  lower::GpuLaunch launch_;
  // WMMA fragment buffers: tile offset -> the alloca holding that tile's registers.
  absl::flat_hash_map<const ir::BufferNode*, absl::flat_hash_map<int64_t, llvm::Value*>> fragments_;
  // Local buffers held as one alloca per element (see EmitAllocate).
  absl::flat_hash_map<const ir::BufferNode*, std::vector<llvm::Value*>> scalarized_;
};

absl::StatusOr<std::unique_ptr<llvm::TargetMachine>> MakeNvptxMachine(const Target& target) {
  if (target.kind != Target::Kind::kCUDA) {
    return absl::InvalidArgumentError(
        absl::StrCat("'", target.str, "' is not a cuda target (expected e.g. cuda -arch=sm_90)"));
  }
  InitializeLLVM();
  std::string error;
  const llvm::Target* t = llvm::TargetRegistry::lookupTarget(target.triple, error);
  if (t == nullptr) return absl::InvalidArgumentError(absl::StrCat("no NVPTX backend: ", error));
  llvm::TargetOptions opts;
  opts.AllowFPOpFusion = llvm::FPOpFusion::Fast;
  std::unique_ptr<llvm::TargetMachine> tm(t->createTargetMachine(
      target.triple, target.arch, target.features.empty() ? kPtxFeature : target.features, opts,
      std::nullopt, std::nullopt, llvm::CodeGenOpt::Aggressive));
  if (tm == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("LLVM could not create an NVPTX target machine for '", target.str, "'"));
  }
  if (!tm->getMCSubtargetInfo()->isCPUStringValid(target.arch)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "LLVM ", LLVM_VERSION_MAJOR, "'s NVPTX backend does not know ", target.arch,
        "; use an older architecture such as cuda -arch=sm_90 (newer GPUs JIT-compile its PTX)"));
  }
  return tm;
}

struct GpuModule {
  std::unique_ptr<llvm::LLVMContext> context;
  std::unique_ptr<llvm::Module> module;
  std::unique_ptr<llvm::TargetMachine> tm;
  std::vector<lower::GpuLaunch> launches;
};

absl::StatusOr<GpuModule> Generate(const std::vector<lower::LoweredFunc>& funcs,
                                   const Target& target) {
  auto tm = MakeNvptxMachine(target);
  if (!tm.ok()) return tm.status();
  auto limits = lower::GpuLimits::ForArch(target.arch);
  if (!limits.ok()) return limits.status();
  GpuModule g;
  g.context = std::make_unique<llvm::LLVMContext>();
  g.module = std::make_unique<llvm::Module>("tunefarm", *g.context);
  g.module->setTargetTriple((*tm)->getTargetTriple().str());
  g.module->setDataLayout((*tm)->createDataLayout());
  std::set<std::string> names;
  for (const lower::LoweredFunc& f : funcs) {
    if (!names.insert(f.name).second) {
      return absl::InvalidArgumentError(absl::StrCat("duplicate kernel name '", f.name, "'"));
    }
    auto launch = lower::VerifyGpuKernel(f, *limits);
    if (!launch.ok()) return launch.status();
    NvptxEmitter emitter(g.module.get(), **tm);
    if (absl::Status s = emitter.AddKernel(f, *launch); !s.ok()) return s;
    g.launches.push_back(*launch);
  }
  OptimizeModule(*g.module, **tm, OptPipeline::kO3);
  g.tm = std::move(*tm);
  return g;
}

absl::StatusOr<std::string> EmitPtx(GpuModule& g, const Target& target) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (g.tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile)) {
    return absl::InternalError(absl::StrCat("LLVM cannot emit PTX for '", target.str, "'"));
  }
  pm.run(*g.module);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace

absl::StatusOr<GpuLibrary> BuildGpuLibrary(const std::vector<lower::LoweredFunc>& funcs,
                                           const Target& target) {
  auto g = Generate(funcs, target);
  if (!g.ok()) return g.status();
  auto ptx = EmitPtx(*g, target);
  if (!ptx.ok()) return ptx.status();
  GpuLibrary lib;
  lib.ptx = *std::move(ptx);
  lib.arch = target.arch;
  for (size_t i = 0; i < funcs.size(); ++i) {
    lib.kernels.push_back(GpuKernel{"", funcs[i].name, target.arch, g->launches[i]});
  }
  return lib;
}

absl::StatusOr<GpuKernel> BuildGpuKernel(const lower::LoweredFunc& f, const Target& target) {
  auto lib = BuildGpuLibrary({f}, target);
  if (!lib.ok()) return lib.status();
  GpuKernel k = lib->kernels[0];
  k.ptx = std::move(lib->ptx);
  return k;
}

absl::StatusOr<std::string> BuildGpuLLVMIR(const lower::LoweredFunc& f, const Target& target) {
  auto g = Generate({f}, target);
  if (!g.ok()) return g.status();
  std::string out;
  llvm::raw_string_ostream os(out);
  g->module->print(os, nullptr);
  return os.str();
}

}  // namespace tunefarm::codegen
