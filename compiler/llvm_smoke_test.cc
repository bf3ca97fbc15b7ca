// Links LLVM 16's ORC JIT: builds `int answer() { return 42; }` as IR, JITs it and calls it.
#include <memory>

#include "gtest/gtest.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/TargetSelect.h"

namespace tunefarm {
namespace {

TEST(LlvmSmoke, LlJit_CompilesAndRunsFunction_Returns42) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  auto jit = llvm::orc::LLJITBuilder().create();
  ASSERT_TRUE(static_cast<bool>(jit)) << llvm::toString(jit.takeError());

  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("smoke", *context);
  module->setDataLayout((*jit)->getDataLayout());
  llvm::IRBuilder<> b(*context);
  auto* fn_type = llvm::FunctionType::get(b.getInt32Ty(), /*isVarArg=*/false);
  auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, "answer", *module);
  b.SetInsertPoint(llvm::BasicBlock::Create(*context, "entry", fn));
  b.CreateRet(b.getInt32(42));

  llvm::Error err =
      (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(module), std::move(context)));
  ASSERT_FALSE(static_cast<bool>(err)) << llvm::toString(std::move(err));
  auto sym = (*jit)->lookup("answer");
  ASSERT_TRUE(static_cast<bool>(sym)) << llvm::toString(sym.takeError());
  auto* answer = sym->toPtr<int (*)()>();
  EXPECT_EQ(answer(), 42);
}

}  // namespace
}  // namespace tunefarm
