#include "compiler/codegen/object_cache.h"

#include <string>

#include "gtest/gtest.h"

namespace tunefarm::codegen {
namespace {

TEST(ObjectCache, FindsWhatWasInserted_CountsHitsAndMisses) {
  ObjectCache cache(1 << 20);
  EXPECT_FALSE(cache.Find("a").has_value());
  cache.Insert("a", "object a");
  ASSERT_TRUE(cache.Find("a").has_value());
  EXPECT_EQ(*cache.Find("a"), "object a");
  ObjectCache::Stats s = cache.stats();
  EXPECT_EQ(s.hits, 2);
  EXPECT_EQ(s.misses, 1);
  EXPECT_EQ(s.entries, 1u);
  EXPECT_EQ(s.bytes, 8u);
  // Inserting under a key again replaces the object and its bytes.
  cache.Insert("a", "xy");
  EXPECT_EQ(*cache.Find("a"), "xy");
  EXPECT_EQ(cache.stats().bytes, 2u);
  EXPECT_EQ(cache.stats().entries, 1u);
}

TEST(ObjectCache, OverTheBound_LeastRecentlyUsedLeavesFirst) {
  ObjectCache cache(10);
  cache.Insert("a", "aaaa");
  cache.Insert("b", "bbbb");
  ASSERT_TRUE(cache.Find("a").has_value());  // a is now the most recently used
  cache.Insert("c", "cccc");                 // 12 bytes: b goes
  EXPECT_TRUE(cache.Find("a").has_value());
  EXPECT_FALSE(cache.Find("b").has_value());
  EXPECT_TRUE(cache.Find("c").has_value());
  EXPECT_EQ(cache.stats().bytes, 8u);
  // An object larger than the whole bound is not kept, and evicts nothing.
  cache.Insert("huge", std::string(11, 'h'));
  EXPECT_FALSE(cache.Find("huge").has_value());
  EXPECT_TRUE(cache.Find("a").has_value());
  cache.Clear();
  EXPECT_FALSE(cache.Find("a").has_value());
  EXPECT_EQ(cache.stats().entries, 0u);
  EXPECT_EQ(cache.stats().bytes, 0u);
  EXPECT_EQ(cache.stats().hits, 0);
}

TEST(ObjectCache, Key_DependsOnMachinePipelineAndText_NotOnWhereTheyJoin) {
  const std::string k = ObjectCache::Key("x86_64 znver4", "kernel", "define void @f()");
  EXPECT_EQ(k.size(), 64u);
  EXPECT_EQ(k, ObjectCache::Key("x86_64 znver4", "kernel", "define void @f()"));
  EXPECT_NE(k, ObjectCache::Key("x86_64 skylake", "kernel", "define void @f()"));
  EXPECT_NE(k, ObjectCache::Key("x86_64 znver4", "O3", "define void @f()"));
  EXPECT_NE(k, ObjectCache::Key("x86_64 znver4", "kernel", "define void @g()"));
  EXPECT_NE(ObjectCache::Key("ab", "c", ""), ObjectCache::Key("a", "bc", ""));
}

}  // namespace
}  // namespace tunefarm::codegen
