// Splitting a kernel module into one module per outlined function, so that each part is
// compiled (or found in the object cache, object_cache.h) on its own: among a tuning task's
// candidates the kernel entry and a weight pack's loop nest repeat from config to config while
// the main loop nest changes, and a repeated part's object is reused instead of compiled again.
#ifndef TUNEFARM_COMPILER_CODEGEN_MODULE_SPLIT_H_
#define TUNEFARM_COMPILER_CODEGEN_MODULE_SPLIT_H_

#include <memory>
#include <vector>

#include "llvm/IR/Module.h"

namespace tunefarm::codegen {

// Moves every internal function of `m` that has a body and uses no global variable (the
// functions loop nests are outlined into: codegen_llvm.h) into a module of its own, where it
// becomes external with hidden visibility beside declarations of what it calls; `m` keeps a
// hidden declaration in its place. A function that uses a global variable (a workspace's slot)
// stays in `m`. Returns the new modules in `m`'s order of functions; linked together with
// what is left of `m`, they are the program `m` was. The modules share `m`'s context.
std::vector<std::unique_ptr<llvm::Module>> SplitOutlinedFunctions(llvm::Module& m);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_MODULE_SPLIT_H_
