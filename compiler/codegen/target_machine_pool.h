// Reuse of LLVM target machines across builds. Creating one parses the CPU's features and
// builds its subtarget tables; a builder making hundreds of candidates for one target pays
// that once per thread instead of once per candidate. An llvm::TargetMachine is not safe to
// use from two threads at once, so each build borrows one for itself and gives it back.
#ifndef TUNEFARM_COMPILER_CODEGEN_TARGET_MACHINE_POOL_H_
#define TUNEFARM_COMPILER_CODEGEN_TARGET_MACHINE_POOL_H_

#include <memory>

#include "absl/status/statusor.h"
#include "compiler/codegen/target.h"
#include "llvm/Target/TargetMachine.h"

namespace tunefarm::codegen {

// A target machine borrowed from the pool; returned to it when destroyed.
class PooledTargetMachine {
 public:
  PooledTargetMachine(PooledTargetMachine&&) = default;
  PooledTargetMachine& operator=(PooledTargetMachine&&) = default;
  ~PooledTargetMachine();

  llvm::TargetMachine& operator*() const { return *tm_; }
  llvm::TargetMachine* operator->() const { return tm_.get(); }

 private:
  friend absl::StatusOr<PooledTargetMachine> BorrowTargetMachine(const Target& target);
  PooledTargetMachine(std::string key, std::unique_ptr<llvm::TargetMachine> tm)
      : key_(std::move(key)), tm_(std::move(tm)) {}
  std::string key_;
  std::unique_ptr<llvm::TargetMachine> tm_;
};

// A machine for a CPU `target` (made by MakeTargetMachine when none is idle). Thread-safe.
// Errors: MakeTargetMachine's.
absl::StatusOr<PooledTargetMachine> BorrowTargetMachine(const Target& target);

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_TARGET_MACHINE_POOL_H_
