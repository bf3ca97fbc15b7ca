#include "compiler/codegen/object_cache.h"

#include "absl/strings/str_cat.h"
#include "common/content_hash.h"

namespace tunefarm::codegen {

ObjectCache& ObjectCache::Process() {
  static auto* cache = new ObjectCache(size_t{256} << 20);
  return *cache;
}

std::string ObjectCache::Key(absl::string_view machine_key, absl::string_view pipeline,
                             absl::string_view module_text) {
  // Lengths first, so that no two different triples give the same bytes.
  return ContentHash(absl::StrCat(machine_key.size(), ":", machine_key, pipeline.size(), ":",
                                  pipeline, module_text));
}

std::optional<std::string> ObjectCache::Find(const std::string& key) {
  absl::MutexLock lock(&mu_);
  auto it = index_.find(key);
  if (it == index_.end()) {
    ++stats_.misses;
    return std::nullopt;
  }
  ++stats_.hits;
  lru_.splice(lru_.begin(), lru_, it->second);
  return it->second->second;
}

void ObjectCache::Insert(const std::string& key, std::string object) {
  if (object.size() > max_bytes_) return;
  absl::MutexLock lock(&mu_);
  if (auto it = index_.find(key); it != index_.end()) {
    stats_.bytes -= it->second->second.size();
    lru_.erase(it->second);
    index_.erase(it);
  }
  stats_.bytes += object.size();
  lru_.emplace_front(key, std::move(object));
  index_[key] = lru_.begin();
  EvictLocked();
  stats_.entries = index_.size();
}

void ObjectCache::EvictLocked() {
  while (stats_.bytes > max_bytes_ && !lru_.empty()) {
    stats_.bytes -= lru_.back().second.size();
    index_.erase(lru_.back().first);
    lru_.pop_back();
  }
}

void ObjectCache::Clear() {
  absl::MutexLock lock(&mu_);
  lru_.clear();
  index_.clear();
  stats_ = Stats();
}

ObjectCache::Stats ObjectCache::stats() const {
  absl::MutexLock lock(&mu_);
  return stats_;
}

}  // namespace tunefarm::codegen
