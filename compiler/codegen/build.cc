#include "compiler/codegen/build.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <optional>
#include <sstream>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/synchronization/mutex.h"
#include "common/scratch_dir.h"
#include "compiler/codegen/codegen_llvm.h"
#include "compiler/codegen/kernel_runtime.h"
#include "compiler/codegen/linker.h"
#include "compiler/codegen/llvm_emitter.h"
#include "compiler/codegen/module_split.h"
#include "compiler/codegen/object_cache.h"
#include "compiler/codegen/target_machine_pool.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/Support/DynamicLibrary.h"
#include "llvm/Support/raw_ostream.h"

// libgomp is linked into every process that JITs kernels (not dlopen'ed late: its worker
// threads must be set up and torn down with the process).
extern "C" int omp_get_max_threads();

namespace tunefarm::codegen {
namespace {

absl::Status ToStatus(llvm::Error err, const std::string& what) {
  if (!err) return absl::OkStatus();
  return absl::InternalError(absl::StrCat(what, ": ", llvm::toString(std::move(err))));
}

absl::Status CheckCpuTarget(const Target& target) {
  if (target.kind != Target::Kind::kLLVM) {
    return absl::InvalidArgumentError(
        absl::StrCat("target '", target.str, "' is not a CPU target"));
  }
  return absl::OkStatus();
}

// `module` as an object file or assembly for `tm`'s target.
absl::StatusOr<std::string> EmitFile(llvm::Module& module, llvm::TargetMachine& tm,
                                     llvm::CodeGenFileType type, const Target& target) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager pm;
  if (tm.addPassesToEmitFile(pm, os, nullptr, type)) {
    return absl::InternalError(absl::StrCat("LLVM cannot emit files for '", target.str, "'"));
  }
  pm.run(module);
  return std::string(buffer.begin(), buffer.end());
}

absl::StatusOr<std::string> Emit(const std::vector<lower::LoweredFunc>& funcs, const Target& target,
                                 llvm::CodeGenFileType type, OptPipeline pipeline) {
  if (absl::Status s = CheckCpuTarget(target); !s.ok()) return s;
  auto tm = BorrowTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::LLVMContext context;
  auto module = CodegenLLVM(funcs, **tm, context, pipeline);
  if (!module.ok()) return module.status();
  return EmitFile(**module, **tm, type, target);
}

absl::StatusOr<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::InternalError(absl::StrCat("cannot read ", path));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

absl::Status WriteFile(const std::string& path, const std::string& data) {
  std::ofstream out(path, std::ios::binary);
  out << data;
  if (!out) return absl::InternalError(absl::StrCat("cannot write ", path));
  return absl::OkStatus();
}

// Whether `part` holds a loop nest: an outlined function that stayed with the kernel entry
// (module_split.h), as the entry itself has no loops.
bool HoldsLoopNest(const llvm::Module& part) {
  for (const llvm::Function& f : part) {
    if (!f.isDeclaration() && f.hasInternalLinkage()) return true;
  }
  return false;
}

// The objects of a library of `funcs`: its module split into one part per outlined loop nest
// (module_split.h), each part compiled unless the process compiled the same text for the same
// machine and pipeline before (object_cache.h).
absl::StatusOr<std::vector<std::string>> BuildObjectParts(
    const std::vector<lower::LoweredFunc>& funcs, const Target& target, OptPipeline pipeline) {
  if (absl::Status s = CheckCpuTarget(target); !s.ok()) return s;
  auto tm = BorrowTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::LLVMContext context;
  auto module = EmitCpuModule(funcs, **tm, context, /*outline_loop_nests=*/true);
  if (!module.ok()) return module.status();
  std::vector<std::unique_ptr<llvm::Module>> parts = SplitOutlinedFunctions(**module);
  parts.push_back(*std::move(module));
  ObjectCache& cache = ObjectCache::Process();
  const char* pipeline_name = pipeline == OptPipeline::kO3 ? "O3" : "kernel";
  std::vector<std::string> objects;
  for (const std::unique_ptr<llvm::Module>& part : parts) {
    std::string text;
    llvm::raw_string_ostream os(text);
    part->print(os, nullptr);
    os.flush();
    const std::string key = ObjectCache::Key(target.MachineKey(), pipeline_name, text);
    if (std::optional<std::string> object = cache.Find(key)) {
      objects.push_back(*std::move(object));
      continue;
    }
    OptimizeModule(*part, **tm, pipeline);
    // The kernel entry (argument checks, workspaces, the calls of its loop nests) is generated
    // at LLVM's quickest setting: 2-3 ms less per build from an empty cache, about 1 ns more
    // per call (8 -> 9 ns for a whole 16-element kernel through its library). The machine is
    // put back as it was, options too: code generation at None turns on fast instruction
    // selection in the machine's options, which would then stay on for the next kernels.
    const llvm::CodeGenOpt::Level level = (*tm)->getOptLevel();
    const llvm::TargetOptions options = (*tm)->Options;
    if (&part == &parts.back() && !HoldsLoopNest(*part)) {
      (*tm)->setOptLevel(llvm::CodeGenOpt::None);
    }
    auto object = EmitFile(*part, **tm, llvm::CGFT_ObjectFile, target);
    (*tm)->setOptLevel(level);
    (*tm)->Options = options;
    if (!object.ok()) return object.status();
    cache.Insert(key, *object);
    objects.push_back(*std::move(object));
  }
  return objects;
}

}  // namespace

JitModule::JitModule(std::unique_ptr<llvm::orc::LLJIT> jit) : jit_(std::move(jit)) {}

// Runs the module's static destructors before its code goes: the one the kernel runtime adds
// frees the workspace blocks kernels keep between calls (EmitWorkspaces), as unloading a
// kernel library does. Without it every JIT module with a heap temporary leaked its blocks.
JitModule::~JitModule() { llvm::consumeError(jit_->deinitialize(jit_->getMainJITDylib())); }

absl::StatusOr<TfKernelFn> JitModule::Lookup(const std::string& name) const {
  auto sym = jit_->lookup(name);
  if (!sym) {
    llvm::consumeError(sym.takeError());
    return absl::NotFoundError(absl::StrCat("no kernel named '", name, "' in this module"));
  }
  return sym->toPtr<TfKernelFn>();
}

absl::StatusOr<std::unique_ptr<JitModule>> BuildJit(const std::vector<lower::LoweredFunc>& funcs,
                                                    const Target& target, OptPipeline pipeline) {
  if (target.kind != Target::Kind::kLLVM || !target.IsHost()) {
    return absl::InvalidArgumentError(
        absl::StrCat("JIT needs a target of this machine's architecture, got '", target.str, "'"));
  }
  auto tm = BorrowTargetMachine(target);
  if (!tm.ok()) return tm.status();
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = CodegenLLVM(funcs, **tm, *context, pipeline, /*with_runtime=*/true);
  if (!module.ok()) return module.status();

  // Parallel loops call into libgomp; make its symbols visible to the JIT. LLVM dlcloses the
  // libraries it loaded when the process exits (DynamicLibrary's static handle set), while
  // libgomp's pool threads from earlier parallel loops are still alive: unmapping the code
  // under them crashed the process at exit. RTLD_NODELETE keeps libgomp mapped for good.
  static const bool gomp_loaded = [] {
    if (dlopen("libgomp.so.1", RTLD_NOW | RTLD_GLOBAL | RTLD_NODELETE) == nullptr) return false;
    std::string err;
    return omp_get_max_threads() > 0 &&
           !llvm::sys::DynamicLibrary::LoadLibraryPermanently(nullptr, &err);
  }();
  if (!gomp_loaded) {
    return absl::FailedPreconditionError("cannot load libgomp.so.1 (install gcc's libgomp1)");
  }
  llvm::orc::JITTargetMachineBuilder jtmb((*tm)->getTargetTriple());
  jtmb.setCPU(target.cpu);
  if (!target.features.empty()) {
    llvm::SubtargetFeatures sf(target.features);
    jtmb.addFeatures(sf.getFeatures());
  }
  jtmb.setCodeGenOptLevel(llvm::CodeGenOpt::Aggressive);
  auto jit = llvm::orc::LLJITBuilder().setJITTargetMachineBuilder(std::move(jtmb)).create();
  if (!jit) return ToStatus(jit.takeError(), "creating the JIT");
  auto gen = llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
      (*jit)->getDataLayout().getGlobalPrefix());
  if (!gen) return ToStatus(gen.takeError(), "process symbol lookup");
  (*jit)->getMainJITDylib().addGenerator(std::move(*gen));
  (*module)->setDataLayout((*jit)->getDataLayout());
  if (absl::Status s = ToStatus(
          (*jit)->addIRModule(llvm::orc::ThreadSafeModule(std::move(*module), std::move(context))),
          "adding the module to the JIT");
      !s.ok()) {
    return s;
  }
  // Static constructors now, and the module's destructors registered for ~JitModule.
  if (absl::Status s =
          ToStatus((*jit)->initialize((*jit)->getMainJITDylib()), "initializing the JIT module");
      !s.ok()) {
    return s;
  }
  return std::unique_ptr<JitModule>(new JitModule(std::move(*jit)));
}

absl::StatusOr<std::string> BuildObject(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target, OptPipeline pipeline) {
  return Emit(funcs, target, llvm::CGFT_ObjectFile, pipeline);
}

absl::StatusOr<std::string> KernelRuntimeObject(const Target& target) {
  if (absl::Status s = CheckCpuTarget(target); !s.ok()) return s;
  // Built once per target (triple, CPU and features) in a process.
  static absl::Mutex mu(absl::kConstInit);
  static auto* built = new std::map<std::string, std::string>();
  const std::string key = target.MachineKey();
  {
    absl::MutexLock lock(&mu);
    auto it = built->find(key);
    if (it != built->end()) return it->second;
  }
  auto tm = BorrowTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::LLVMContext context;
  llvm::Module module("tunefarm_kernel_runtime", context);
  module.setTargetTriple((*tm)->getTargetTriple().str());
  module.setDataLayout((*tm)->createDataLayout());
  EmitKernelRuntime(module, **tm);
  OptimizeModule(module, **tm, OptPipeline::kO3);
  auto object = EmitFile(module, **tm, llvm::CGFT_ObjectFile, target);
  if (!object.ok()) return object.status();
  absl::MutexLock lock(&mu);
  return built->emplace(key, *std::move(object)).first->second;
}

absl::StatusOr<std::string> BuildAssembly(const std::vector<lower::LoweredFunc>& funcs,
                                          const Target& target) {
  return Emit(funcs, target, llvm::CGFT_AssemblyFile, OptPipeline::kKernel);
}

int CountVectorSpills(const std::string& assembly) {
  int spills = 0;
  for (absl::string_view line : absl::StrSplit(assembly, '\n')) {
    line = absl::StripAsciiWhitespace(line);
    if (!absl::StartsWith(line, "vmov")) continue;
    const size_t comma = line.rfind(',');
    if (comma == absl::string_view::npos) continue;
    const absl::string_view source = line.substr(0, comma);
    const absl::string_view dest = line.substr(comma + 1);
    if (absl::StrContains(dest, "(%rsp)") &&
        (absl::StrContains(source, "%zmm") || absl::StrContains(source, "%ymm") ||
         absl::StrContains(source, "%xmm"))) {
      ++spills;
    }
  }
  return spills;
}

absl::StatusOr<std::string> BuildLLVMIR(const std::vector<lower::LoweredFunc>& funcs,
                                        const Target& target) {
  auto tm = BorrowTargetMachine(target);
  if (!tm.ok()) return tm.status();
  llvm::LLVMContext context;
  auto module = CodegenLLVM(funcs, **tm, context);
  if (!module.ok()) return module.status();
  std::string out;
  llvm::raw_string_ostream os(out);
  (*module)->print(os, nullptr);
  return os.str();
}

absl::StatusOr<std::string> LinkLibrary(const std::vector<std::string>& objects,
                                        const Target& target) {
  absl::StatusOr<ScratchDir> scratch = ScratchDir::Make("tunefarm");
  if (!scratch.ok()) return scratch.status();
  const ScratchDir& dir = *scratch;
  std::vector<std::string> paths;
  for (size_t i = 0; i < objects.size(); ++i) {
    paths.push_back(dir.File(absl::StrCat("part", i, ".o")));
    if (absl::Status s = WriteFile(paths.back(), objects[i]); !s.ok()) return s;
  }
  const std::string so_path = dir.File("kernel.so");
  if (absl::Status s = LinkSharedLibrary(paths, so_path, LinkerKind::kInProcess,
                                         target.IsHost() ? "" : target.triple);
      !s.ok()) {
    return s;
  }
  return ReadFile(so_path);
}

absl::StatusOr<std::string> BuildSharedLibrary(const std::vector<lower::LoweredFunc>& funcs,
                                               const Target& target, OptPipeline pipeline) {
  // Another architecture links against Debian's cross toolchain for it (fails early, before the
  // kernel is compiled, when that is missing or unknown).
  if (absl::Status s = CheckCanLink(target.IsHost() ? "" : target.triple); !s.ok()) return s;
  auto objects = BuildObjectParts(funcs, target, pipeline);
  if (!objects.ok()) return objects.status();
  auto runtime = KernelRuntimeObject(target);
  if (!runtime.ok()) return runtime.status();
  objects->push_back(*std::move(runtime));
  return LinkLibrary(*objects, target);
}

}  // namespace tunefarm::codegen
