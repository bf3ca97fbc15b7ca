// Compiled objects by the content of what they were compiled from: a module's IR text, the
// target machine and the pipeline (the key is a SHA-256 of all three). A tuning task's
// candidates repeat parts of their modules from config to config (module_split.h); a part
// seen before costs a hash instead of an optimization and a code generation. Bounded by bytes
// (the least recently used object leaves first) and safe to share between builder threads.
#ifndef TUNEFARM_COMPILER_CODEGEN_OBJECT_CACHE_H_
#define TUNEFARM_COMPILER_CODEGEN_OBJECT_CACHE_H_

#include <cstddef>
#include <cstdint>
#include <list>
#include <optional>
#include <string>
#include <utility>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/mutex.h"

namespace tunefarm::codegen {

class ObjectCache {
 public:
  struct Stats {
    int64_t hits = 0;
    int64_t misses = 0;
    size_t entries = 0;
    size_t bytes = 0;
  };

  explicit ObjectCache(size_t max_bytes) : max_bytes_(max_bytes) {}

  // The one every build in this process uses: 256 MiB (a candidate's parts are 2-40 KiB).
  static ObjectCache& Process();

  // The key of a module's object: what it is compiled from and how.
  static std::string Key(absl::string_view machine_key, absl::string_view pipeline,
                         absl::string_view module_text);

  // The object stored under `key`, counted as a hit or a miss.
  std::optional<std::string> Find(const std::string& key);
  // Stores `object` under `key` (replacing any), then drops the least recently used objects
  // while the total is over the bound. An object larger than the bound is not kept.
  void Insert(const std::string& key, std::string object);
  Stats stats() const;
  // Drops every object and zeroes the counts (benchmarks timing builds from scratch).
  void Clear();

 private:
  using Entry = std::pair<std::string, std::string>;  // key, object
  void EvictLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  const size_t max_bytes_;
  mutable absl::Mutex mu_;
  std::list<Entry> lru_ ABSL_GUARDED_BY(mu_);  // most recently used first
  absl::flat_hash_map<std::string, std::list<Entry>::iterator> index_ ABSL_GUARDED_BY(mu_);
  Stats stats_ ABSL_GUARDED_BY(mu_);
};

}  // namespace tunefarm::codegen

#endif  // TUNEFARM_COMPILER_CODEGEN_OBJECT_CACHE_H_
