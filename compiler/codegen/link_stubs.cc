#include "compiler/codegen/link_stubs.h"

#include <memory>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/llvm_init.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ELFObjectFile.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"

namespace tunefarm::codegen {

const std::vector<StubbedLibrary>& StubbedLibraries() {
  static const auto* libs = new std::vector<StubbedLibrary>{
      {"libgomp.so.1", {"GOMP_parallel", "omp_get_num_threads", "omp_get_thread_num"}},
      {"libm.so.6",
       {"expf", "exp", "logf", "log", "powf", "pow", "floorf", "floor", "sqrtf", "sqrt"}},
      {"libc.so.6", {"malloc", "aligned_alloc", "free", "memcpy", "memmove", "memset", "syscall"}},
  };
  return *libs;
}

absl::StatusOr<absl::flat_hash_set<std::string>> DefinedDynamicSymbols(const std::string& path) {
  auto binary = llvm::object::createBinary(path);
  if (!binary) {
    return absl::InternalError(
        absl::StrCat("cannot read ", path, ": ", llvm::toString(binary.takeError())));
  }
  const auto* elf = llvm::dyn_cast<llvm::object::ELFObjectFileBase>(binary->getBinary());
  if (elf == nullptr) return absl::InternalError(absl::StrCat(path, " is not an ELF file"));
  absl::flat_hash_set<std::string> out;
  for (const llvm::object::ELFSymbolRef& sym : elf->getDynamicSymbolIterators()) {
    llvm::Expected<uint32_t> flags = sym.getFlags();
    llvm::Expected<llvm::StringRef> name = sym.getName();
    if (!flags || !name) {
      if (!flags) llvm::consumeError(flags.takeError());
      if (!name) llvm::consumeError(name.takeError());
      continue;
    }
    if ((*flags & llvm::object::SymbolRef::SF_Undefined) == 0) out.insert(name->str());
  }
  return out;
}

absl::StatusOr<absl::flat_hash_set<std::string>> UnresolvedSymbols(
    const std::vector<std::string>& object_paths) {
  absl::flat_hash_set<std::string> defined, undefined;
  for (const std::string& path : object_paths) {
    auto object = llvm::object::ObjectFile::createObjectFile(path);
    if (!object) {
      return absl::InternalError(
          absl::StrCat("cannot read ", path, ": ", llvm::toString(object.takeError())));
    }
    for (const llvm::object::SymbolRef& sym : object->getBinary()->symbols()) {
      llvm::Expected<uint32_t> flags = sym.getFlags();
      llvm::Expected<llvm::StringRef> name = sym.getName();
      if (!flags || !name) {
        if (!flags) llvm::consumeError(flags.takeError());
        if (!name) llvm::consumeError(name.takeError());
        return absl::InternalError(absl::StrCat("cannot read the symbols of ", path));
      }
      if (name->empty()) continue;
      if (*flags & llvm::object::SymbolRef::SF_Undefined) {
        undefined.insert(name->str());
      } else {
        defined.insert(name->str());
      }
    }
  }
  absl::flat_hash_set<std::string> out;
  for (const std::string& name : undefined) {
    if (!defined.contains(name)) out.insert(name);
  }
  return out;
}

absl::StatusOr<std::string> StubObject(const std::string& llvm_triple,
                                       const std::vector<std::string>& symbols) {
  InitializeLLVM();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(llvm_triple, error);
  if (target == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("no LLVM backend for '", llvm_triple, "': ", error));
  }
  std::unique_ptr<llvm::TargetMachine> tm(target->createTargetMachine(
      llvm_triple, "", "", llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt));
  if (tm == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("LLVM could not create a target machine for '", llvm_triple, "'"));
  }
  llvm::LLVMContext ctx;
  llvm::Module m("tunefarm_link_stub", ctx);
  m.setTargetTriple(llvm_triple);
  m.setDataLayout(tm->createDataLayout());
  for (const std::string& name : symbols) {
    auto* fn = llvm::Function::Create(llvm::FunctionType::get(llvm::Type::getVoidTy(ctx), false),
                                      llvm::Function::ExternalLinkage, name, m);
    llvm::IRBuilder<> b(llvm::BasicBlock::Create(ctx, "entry", fn));
    b.CreateRetVoid();
  }
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_ObjectFile)) {
    return absl::InternalError(absl::StrCat("LLVM cannot emit objects for '", llvm_triple, "'"));
  }
  pm.run(m);
  return std::string(buffer.begin(), buffer.end());
}

}  // namespace tunefarm::codegen
