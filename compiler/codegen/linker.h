// Linking kernels into shared libraries, and compiling generated C.
//
// Candidates are linked in-process by lld (Debian's liblld-16-dev): the tuner builds one
// shared library per candidate, and spawning the system `cc` for each cost about 50 ms, more
// than lowering, optimizing and emitting the kernel together. The link line mirrors what
// `cc -shared` does for these objects (build id, eh-frame header, GNU hash, --as-needed
// libgomp, libm and libc, libgcc's archive for helper routines), without the C runtime's
// start files, which kernels do not use. Objects that call only the dozen functions kernels
// call in libgomp, libm and libc link against small stubs of those libraries (link_stubs.h)
// instead of the real ones, which lld would otherwise read in full for every candidate. If lld
// ever fails in a way that leaves its state unusable (it reports that), this process links
// with `cc` from then on.
#ifndef TUNEFARM_COMPILER_CODEGEN_LINKER_H_
#define TUNEFARM_COMPILER_CODEGEN_LINKER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::codegen {

// Which linker LinkSharedLibrary uses.
enum class LinkerKind {
  kInProcess,  // lld in this process (the default)
  kDriver,     // the system C compiler driver `cc` in a child process
};

// Links object files of the architecture of `triple` (an LLVM target triple; empty: this
// machine's) into a shared library at `out_path`, with the kernels' runtime libraries (libgomp,
// libm, libc, libgcc): this process's own for the host, Debian's cross toolchain's for another
// architecture (a board's, e.g. g++-aarch64-linux-gnu's /usr/aarch64-linux-gnu/lib).
// Thread-safe (in-process links run one at a time).
// Internal: the linker failed (its message is included). FailedPrecondition: kDriver and no
// `cc` on PATH, or no cross toolchain for `triple`. InvalidArgument: `triple` is not Linux on
// x86_64, aarch64 or arm.
absl::Status LinkSharedLibrary(const std::vector<std::string>& object_paths,
                               const std::string& out_path,
                               LinkerKind kind = LinkerKind::kInProcess,
                               const std::string& triple = "");

// Debian's multiarch name of this machine ("x86_64-linux-gnu").
std::string HostGnuTriple();

// Debian's multiarch name of an LLVM triple (empty: this machine's), e.g. "aarch64-linux-gnu"
// for "aarch64-unknown-linux-gnu". The environment must match Debian's libraries: gnueabihf
// (hard-float) for 32-bit arm ("armv7l-linux-gnueabihf" gives "arm-linux-gnueabihf"), gnu or
// none for x86_64 and aarch64. InvalidArgument: not Linux, no known Debian toolchain, or
// another environment (a soft-float "gnueabi", android, musl), named in the message.
absl::StatusOr<std::string> GnuTripleOf(const std::string& llvm_triple);

// Whether LinkSharedLibrary can link objects for `triple` (empty: this machine's) here, without
// compiling or linking anything: GnuTripleOf accepts it, and for another architecture the cross
// toolchain's runtime files (libgcc.a, libgomp, libm, libc) exist. Cheap: the files are looked
// up once per architecture and process. Call it before compiling candidates, so that a missing
// toolchain fails once, not after every candidate is compiled.
// InvalidArgument: as GnuTripleOf. FailedPrecondition: the cross toolchain is not installed
// (the message names the package to install).
absl::Status CheckCanLink(const std::string& triple);

// Compiles a generated C11 source file (a compiled model's runner, graph/emit_runner.h) into a
// position-independent object at `object_path`, with the system C compiler driver.
// FailedPrecondition: no `cc`. Internal: the compiler failed (its message is included).
absl::Status CompileCSource(const std::string& source_path, const std::string& object_path);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_LINKER_H_
