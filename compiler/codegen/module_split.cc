#include "compiler/codegen/module_split.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/Instructions.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "llvm/Transforms/Utils/ValueMapper.h"

namespace tunefarm::codegen {
namespace {

// True when `f` refers to a global variable or alias, directly or inside a constant
// expression.
bool UsesGlobalVariable(const llvm::Function& f) {
  llvm::SmallPtrSet<const llvm::Constant*, 32> seen;
  std::vector<const llvm::Constant*> work;
  for (const llvm::BasicBlock& bb : f) {
    for (const llvm::Instruction& inst : bb) {
      for (const llvm::Use& op : inst.operands()) {
        if (const auto* c = llvm::dyn_cast<llvm::Constant>(op.get())) work.push_back(c);
      }
    }
  }
  while (!work.empty()) {
    const llvm::Constant* c = work.back();
    work.pop_back();
    if (!seen.insert(c).second) continue;
    if (llvm::isa<llvm::GlobalVariable>(c) || llvm::isa<llvm::GlobalAlias>(c) ||
        llvm::isa<llvm::GlobalIFunc>(c)) {
      return true;
    }
    if (llvm::isa<llvm::GlobalValue>(c)) continue;  // a function: declared where it is called
    for (const llvm::Use& op : c->operands()) {
      if (const auto* inner = llvm::dyn_cast<llvm::Constant>(op.get())) work.push_back(inner);
    }
  }
  return false;
}

void MakeHiddenExternal(llvm::Function& f) {
  f.setLinkage(llvm::GlobalValue::ExternalLinkage);
  f.setVisibility(llvm::GlobalValue::HiddenVisibility);
}

// Erases the declarations and global variables nothing in `m` uses (a clone declares all of
// its source module's).
void EraseUnused(llvm::Module& m) {
  for (llvm::Function& f : llvm::make_early_inc_range(m.functions())) {
    if (f.isDeclaration() && f.use_empty()) f.eraseFromParent();
  }
  for (llvm::GlobalVariable& g : llvm::make_early_inc_range(m.globals())) {
    if (g.use_empty()) g.eraseFromParent();
  }
}

}  // namespace

std::vector<std::unique_ptr<llvm::Module>> SplitOutlinedFunctions(llvm::Module& m) {
  std::vector<llvm::Function*> moved;
  for (llvm::Function& f : m.functions()) {
    if (!f.isDeclaration() && f.hasInternalLinkage() && !UsesGlobalVariable(f)) {
      moved.push_back(&f);
    }
  }
  std::vector<std::unique_ptr<llvm::Module>> parts;
  for (llvm::Function* f : moved) {
    llvm::ValueToValueMapTy map;
    std::unique_ptr<llvm::Module> part =
        llvm::CloneModule(m, map, [f](const llvm::GlobalValue* gv) { return gv == f; });
    // Every moved function is external and hidden in every part: the one defined here, and
    // those it calls (a parallel loop inside an outlined loop nest) or is called from.
    for (llvm::Function* g : moved) MakeHiddenExternal(*llvm::cast<llvm::Function>(map[g]));
    EraseUnused(*part);
    parts.push_back(std::move(part));
  }
  for (llvm::Function* f : moved) {
    f->deleteBody();
    MakeHiddenExternal(*f);
  }
  return parts;
}

}  // namespace tunefarm::codegen
