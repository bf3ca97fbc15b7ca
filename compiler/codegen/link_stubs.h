// Link stubs: small shared objects that stand in for the kernels' runtime libraries (libgomp,
// libm, libc) at link time.
//
// lld reads every symbol of each shared library it links against: for glibc's libc and libm,
// and libgcc's archive index, that was about 2.5 of the 4.4 ms of a candidate's in-process link
// (1.9 ms with stubs), though a kernel calls at most a dozen functions of theirs. A stub carries
// its library's soname and only those functions (each checked to exist in the real library), so a
// library linked against the stubs needs the same libraries by soname, has the same code, and loads
// the same way. Its references carry no symbol versions; the dynamic loader binds those to
// each symbol's default version, as for any library linked without version information.
// Objects that call anything else link against the real libraries (linker.cc decides).
#ifndef TUNEFARM_COMPILER_CODEGEN_LINK_STUBS_H_
#define TUNEFARM_COMPILER_CODEGEN_LINK_STUBS_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/status/statusor.h"

namespace tunefarm::codegen {

// One runtime library a stub stands in for: its soname and the functions generated kernels
// and the kernel runtime call in it.
struct StubbedLibrary {
  std::string soname;
  std::vector<std::string> symbols;
};

// libgomp's parallel loop entry points, libm's functions that LLVM lowers math intrinsics to,
// libc's allocation and memory routines.
const std::vector<StubbedLibrary>& StubbedLibraries();

// The names of the dynamic symbols a shared library defines (an ELF file of any architecture).
// Internal: not readable as an ELF shared object.
absl::StatusOr<absl::flat_hash_set<std::string>> DefinedDynamicSymbols(const std::string& path);

// The symbols the object files reference but none of them defines. Internal: an object that
// is not readable.
absl::StatusOr<absl::flat_hash_set<std::string>> UnresolvedSymbols(
    const std::vector<std::string>& object_paths);

// An object file for the architecture of `llvm_triple` that defines each of `symbols` as a
// function doing nothing: the input of a stub library. InvalidArgument: no LLVM backend.
absl::StatusOr<std::string> StubObject(const std::string& llvm_triple,
                                       const std::vector<std::string>& symbols);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_LINK_STUBS_H_
