#include "compiler/codegen/plain_broadcast_addresses.h"

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/ScalarEvolutionExpressions.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/ScalarEvolutionExpander.h"

namespace tunefarm::codegen {
namespace {

// Pointers one loop may advance: each takes a general-purpose register for the whole loop.
constexpr size_t kMaxPointersPerLoop = 4;

// Whether `load` reads a scalar that one instruction broadcasts: its only use a splat
// (insertelement at lane 0, then a shuffle of lane 0) with one user, which instruction
// selection folds into that user as an embedded-broadcast memory operand.
bool IsFoldedBroadcast(const llvm::LoadInst& load) {
  if (!load.isSimple() || load.getType()->isVectorTy() || !load.hasOneUse()) return false;
  const auto* insert = llvm::dyn_cast<llvm::InsertElementInst>(*load.user_begin());
  if (insert == nullptr || !insert->hasOneUse() || insert->getOperand(1) != &load) return false;
  const auto* lane = llvm::dyn_cast<llvm::ConstantInt>(insert->getOperand(2));
  if (lane == nullptr || !lane->isZero()) return false;
  const auto* splat = llvm::dyn_cast<llvm::ShuffleVectorInst>(*insert->user_begin());
  return splat != nullptr && splat->getOperand(0) == insert && splat->isZeroEltSplat() &&
         splat->hasOneUse();
}

// Loads read at constant offsets from one pointer that starts at `start` and advances by
// `step` bytes each iteration.
struct PointerGroup {
  const llvm::SCEV* start = nullptr;
  int64_t step = 0;
  llvm::Type* type = nullptr;
  std::vector<std::pair<llvm::LoadInst*, int64_t>> loads;  // With their byte offsets.
};

// A constant that fits a 32-bit displacement, or nullopt.
std::optional<int64_t> Displacement(const llvm::SCEV* s) {
  const auto* c = llvm::dyn_cast<llvm::SCEVConstant>(s);
  if (c == nullptr || c->getAPInt().getSignificantBits() > 32) return std::nullopt;
  return c->getAPInt().getSExtValue();
}

bool RewriteLoop(llvm::Loop& loop, llvm::ScalarEvolution& se, const llvm::DataLayout& dl) {
  llvm::BasicBlock* preheader = loop.getLoopPreheader();
  llvm::BasicBlock* latch = loop.getLoopLatch();
  if (preheader == nullptr || latch == nullptr || !loop.isInnermost()) return false;
  llvm::SCEVExpander expander(se, dl, "tf.bcast");
  std::vector<PointerGroup> groups;
  for (llvm::BasicBlock* bb : loop.blocks()) {
    for (llvm::Instruction& inst : *bb) {
      auto* load = llvm::dyn_cast<llvm::LoadInst>(&inst);
      if (load == nullptr || !IsFoldedBroadcast(*load)) continue;
      auto* type = llvm::dyn_cast<llvm::PointerType>(load->getPointerOperandType());
      if (type == nullptr || !type->isOpaque()) continue;
      const auto* rec = llvm::dyn_cast<llvm::SCEVAddRecExpr>(se.getSCEV(load->getPointerOperand()));
      if (rec == nullptr || rec->getLoop() != &loop || !rec->isAffine()) continue;
      const std::optional<int64_t> step = Displacement(rec->getStepRecurrence(se));
      const llvm::SCEV* start = rec->getStart();
      if (!step.has_value() || !se.isLoopInvariant(start, &loop) ||
          !expander.isSafeToExpand(start)) {
        continue;
      }
      PointerGroup* group = nullptr;
      int64_t offset = 0;
      for (PointerGroup& g : groups) {
        if (g.step != *step || g.type != type) continue;
        const std::optional<int64_t> d = Displacement(se.getMinusSCEV(start, g.start));
        if (!d.has_value()) continue;
        group = &g;
        offset = *d;
        break;
      }
      if (group == nullptr) {
        if (groups.size() == kMaxPointersPerLoop) continue;
        groups.push_back({start, *step, type, {}});
        group = &groups.back();
      }
      group->loads.push_back({load, offset});
    }
  }
  if (groups.empty()) return false;
  llvm::LLVMContext& ctx = preheader->getContext();
  llvm::Type* i8 = llvm::Type::getInt8Ty(ctx);
  llvm::Type* i64 = llvm::Type::getInt64Ty(ctx);
  for (PointerGroup& g : groups) {
    llvm::Value* begin = expander.expandCodeFor(g.start, g.type, preheader->getTerminator());
    llvm::IRBuilder<> head(&*loop.getHeader()->getFirstInsertionPt());
    llvm::PHINode* pointer = head.CreatePHI(g.type, 2, "tf.bcast.ptr");
    // The advance, copied through an empty asm statement: an opaque value to strength
    // reduction, so that it stays a pointer of its own (the header's comment).
    llvm::IRBuilder<> end(latch->getTerminator());
    llvm::Value* next = end.CreateGEP(i8, pointer, llvm::ConstantInt::get(i64, g.step));
    llvm::InlineAsm* copy = llvm::InlineAsm::get(llvm::FunctionType::get(g.type, {g.type}, false),
                                                 "", "=r,0", /*hasSideEffects=*/false);
    next = end.CreateCall(copy, {next});
    for (llvm::BasicBlock* pred : llvm::predecessors(loop.getHeader())) {
      pointer->addIncoming(pred == preheader ? begin : next, pred);
    }
    for (auto& [load, offset] : g.loads) {
      llvm::IRBuilder<> at(load);
      load->setOperand(load->getPointerOperandIndex(),
                       offset == 0
                           ? static_cast<llvm::Value*>(pointer)
                           : at.CreateGEP(i8, pointer, llvm::ConstantInt::get(i64, offset)));
    }
  }
  return true;
}

}  // namespace

llvm::PreservedAnalyses PlainBroadcastAddressesPass::run(llvm::Function& f,
                                                         llvm::FunctionAnalysisManager& fam) {
  llvm::LoopInfo& loops = fam.getResult<llvm::LoopAnalysis>(f);
  llvm::ScalarEvolution& se = fam.getResult<llvm::ScalarEvolutionAnalysis>(f);
  bool changed = false;
  for (llvm::Loop* loop : loops.getLoopsInPreorder()) {
    changed |= RewriteLoop(*loop, se, f.getParent()->getDataLayout());  // Innermost ones only.
  }
  return changed ? llvm::PreservedAnalyses::none() : llvm::PreservedAnalyses::all();
}

}  // namespace tunefarm::codegen
