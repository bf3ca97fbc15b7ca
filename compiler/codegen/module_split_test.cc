#include "compiler/codegen/module_split.h"

#include <dlfcn.h>

#include <cmath>
#include <fstream>
#include <string>

#include "compiler/codegen/build.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/object_cache.h"
#include "compiler/codegen/target_machine_pool.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/lower/lower.h"
#include "compiler/runtime/ndarray.h"
#include "gtest/gtest.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Verifier.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Var;
using runtime::NDArray;
using te::Tensor;

constexpr int kN = 32;

// Y[i] = sum_k 2 * X[i, k], through a temporary T: two loop nests at the top of the kernel.
lower::LoweredFunc TwoNestKernel(const std::string& name) {
  Tensor X = te::Placeholder({kN, kN}, DataType::Float(32), "X");
  Tensor T = *te::Compute(
      {kN, kN}, [&](const std::vector<Var>& i) { return X(i[0], i[1]) * 2.0f; }, "T");
  auto kk = te::ReduceAxis(kN, "k");
  Tensor Y = *te::Compute(
      {kN}, [&](const std::vector<Var>& i) { return te::Sum(T(i[0], kk->var), {kk}); }, "Y");
  auto sch = *schedule::Schedule::Create({Y});
  return *lower::Lower(*sch, {X, Y}, name);
}

bool Verifies(const llvm::Module& m) {
  std::string errors;
  llvm::raw_string_ostream os(errors);
  const bool broken = llvm::verifyModule(m, &os);
  EXPECT_FALSE(broken) << os.str();
  return !broken;
}

TEST(ModuleSplit, EachOutlinedLoopNest_BecomesAModule_KernelKeepsDeclarations) {
  auto tm = MakeTargetMachine(HostTarget());
  ASSERT_TRUE(tm.ok()) << tm.status();
  llvm::LLVMContext context;
  auto module = EmitCpuModule({TwoNestKernel("two")}, **tm, context, /*outline_loop_nests=*/true);
  ASSERT_TRUE(module.ok()) << module.status();
  std::vector<std::unique_ptr<llvm::Module>> parts = SplitOutlinedFunctions(**module);
  ASSERT_EQ(parts.size(), 2u);
  const char* names[] = {"two.loop0", "two.loop1"};
  for (size_t i = 0; i < parts.size(); ++i) {
    EXPECT_TRUE(Verifies(*parts[i]));
    int bodies = 0;
    for (const llvm::Function& f : *parts[i]) bodies += f.isDeclaration() ? 0 : 1;
    EXPECT_EQ(bodies, 1);
    const llvm::Function* f = parts[i]->getFunction(names[i]);
    ASSERT_NE(f, nullptr) << names[i];
    EXPECT_FALSE(f->isDeclaration());
    EXPECT_TRUE(f->hasExternalLinkage());
    EXPECT_EQ(f->getVisibility(), llvm::GlobalValue::HiddenVisibility);
    // Nothing of the kernel's data comes along (its shapes, names, workspace table).
    EXPECT_TRUE(parts[i]->global_empty());
    const llvm::Function* left = (*module)->getFunction(names[i]);
    ASSERT_NE(left, nullptr);
    EXPECT_TRUE(left->isDeclaration());
    EXPECT_EQ(left->getVisibility(), llvm::GlobalValue::HiddenVisibility);
  }
  EXPECT_TRUE(Verifies(**module));
  EXPECT_FALSE((*module)->getFunction("two")->isDeclaration());
}

TEST(ModuleSplit, FunctionUsingAGlobalVariable_StaysInTheModule) {
  llvm::LLVMContext context;
  llvm::Module m("m", context);
  llvm::IRBuilder<> b(context);
  auto* slot = new llvm::GlobalVariable(m, b.getPtrTy(), false, llvm::GlobalValue::InternalLinkage,
                                        llvm::ConstantPointerNull::get(b.getPtrTy()), "slot");
  auto* fty = llvm::FunctionType::get(b.getVoidTy(), {b.getPtrTy()}, false);
  auto* uses = llvm::Function::Create(fty, llvm::GlobalValue::InternalLinkage, "uses", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", uses));
  b.CreateStore(uses->getArg(0), slot);
  b.CreateRetVoid();
  auto* plain = llvm::Function::Create(fty, llvm::GlobalValue::InternalLinkage, "plain", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", plain));
  b.CreateStore(b.getInt32(7), plain->getArg(0));
  b.CreateRetVoid();
  auto* entry = llvm::Function::Create(fty, llvm::GlobalValue::ExternalLinkage, "entry", m);
  b.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", entry));
  b.CreateCall(fty, uses, {entry->getArg(0)});
  b.CreateCall(fty, plain, {entry->getArg(0)});
  b.CreateRetVoid();
  std::vector<std::unique_ptr<llvm::Module>> parts = SplitOutlinedFunctions(m);
  ASSERT_EQ(parts.size(), 1u);
  ASSERT_NE(parts[0]->getFunction("plain"), nullptr);
  EXPECT_EQ(parts[0]->getFunction("uses"), nullptr);
  EXPECT_FALSE(m.getFunction("uses")->isDeclaration());
  EXPECT_TRUE(m.getFunction("plain")->isDeclaration());
  EXPECT_TRUE(Verifies(m));
  EXPECT_TRUE(Verifies(*parts[0]));
}

// A library built again reuses every part's object: the same bytes, and a kernel that still
// computes the right thing.
TEST(ModuleSplit, SecondBuild_TakesEveryPartFromTheCache_SameLibraryThatRuns) {
  const lower::LoweredFunc f = TwoNestKernel("two_cached");
  ObjectCache& cache = ObjectCache::Process();
  const ObjectCache::Stats before = cache.stats();
  auto first = BuildSharedLibrary({f}, HostTarget());
  ASSERT_TRUE(first.ok()) << first.status();
  const ObjectCache::Stats middle = cache.stats();
  // Three parts: the two loop nests and the kernel itself, none seen before.
  EXPECT_EQ(middle.misses - before.misses, 3);
  EXPECT_EQ(middle.hits - before.hits, 0);
  auto second = BuildSharedLibrary({f}, HostTarget());
  ASSERT_TRUE(second.ok()) << second.status();
  const ObjectCache::Stats after = cache.stats();
  EXPECT_EQ(after.hits - middle.hits, 3);
  EXPECT_EQ(after.misses, middle.misses);
  EXPECT_EQ(*first, *second);

  const std::string path = ::testing::TempDir() + "/two_cached.so";
  std::ofstream(path, std::ios::binary) << *second;
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  ASSERT_NE(lib, nullptr) << dlerror();
  // The outlined loop nests are the library's own (hidden), not exported.
  EXPECT_EQ(dlsym(lib, "two_cached.loop0"), nullptr);
  auto fn = reinterpret_cast<TfKernelFn>(dlsym(lib, "two_cached"));
  ASSERT_NE(fn, nullptr);
  auto x = *NDArray::Empty({kN, kN}, DataType::Float(32));
  auto y = *NDArray::Empty({kN}, DataType::Float(32));
  x.FillRandom(3);
  y.Fill(NAN);
  ASSERT_TRUE(runtime::Call(fn, {&x, &y}).ok());
  for (int i = 0; i < kN; ++i) {
    double s = 0;
    for (int k = 0; k < kN; ++k) s += 2.0 * x.data<float>()[i * kN + k];
    EXPECT_NEAR(y.data<float>()[i], s, 1e-4 * (1 + std::abs(s))) << i;
  }
  dlclose(lib);
}

// A library's bytes depend on its kernels only, not on what the process built before: the
// kernel entry's code generation at LLVM's quickest setting must leave the (reused) target
// machine as it found it, or the next kernels' loop nests would be compiled differently.
TEST(ModuleSplit, SameKernel_SameBytes_WhateverWasBuiltBetween) {
  const lower::LoweredFunc f = TwoNestKernel("two_again");
  ObjectCache& cache = ObjectCache::Process();
  cache.Clear();
  auto first = BuildSharedLibrary({f}, HostTarget());
  ASSERT_TRUE(first.ok()) << first.status();
  for (const char* other : {"other1", "other2"}) {
    ASSERT_TRUE(BuildSharedLibrary({TwoNestKernel(other)}, HostTarget()).ok());
  }
  cache.Clear();
  auto again = BuildSharedLibrary({f}, HostTarget());
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(*first, *again);
  // The pooled machine these builds used (one thread: the same one) is as it was made.
  auto tm = BorrowTargetMachine(HostTarget());
  ASSERT_TRUE(tm.ok()) << tm.status();
  EXPECT_FALSE((*tm)->Options.EnableFastISel);
  EXPECT_EQ((*tm)->getOptLevel(), llvm::CodeGenOpt::Aggressive);
}

}  // namespace
}  // namespace tunefarm::codegen
