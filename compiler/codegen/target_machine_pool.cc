#include "compiler/codegen/target_machine_pool.h"

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "compiler/codegen/codegen_llvm.h"

namespace tunefarm::codegen {
namespace {

// Idle machines by target string. A build holds one machine, so the pool never holds more
// machines per target than builds ran at once.
struct Pool {
  absl::Mutex mu;
  absl::flat_hash_map<std::string, std::vector<std::unique_ptr<llvm::TargetMachine>>> idle
      ABSL_GUARDED_BY(mu);
};

Pool& ThePool() {
  static Pool* pool = new Pool;
  return *pool;
}

}  // namespace

PooledTargetMachine::~PooledTargetMachine() {
  if (tm_ == nullptr) return;
  Pool& pool = ThePool();
  absl::MutexLock lock(&pool.mu);
  pool.idle[key_].push_back(std::move(tm_));
}

absl::StatusOr<PooledTargetMachine> BorrowTargetMachine(const Target& target) {
  // The triple, CPU and features decide the machine; the string names them all.
  const std::string key = target.MachineKey();
  {
    Pool& pool = ThePool();
    absl::MutexLock lock(&pool.mu);
    auto it = pool.idle.find(key);
    if (it != pool.idle.end() && !it->second.empty()) {
      std::unique_ptr<llvm::TargetMachine> tm = std::move(it->second.back());
      it->second.pop_back();
      return PooledTargetMachine(key, std::move(tm));
    }
  }
  auto tm = MakeTargetMachine(target);
  if (!tm.ok()) return tm.status();
  return PooledTargetMachine(key, *std::move(tm));
}

}  // namespace tunefarm::codegen
