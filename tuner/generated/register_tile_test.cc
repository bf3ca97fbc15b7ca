#include "tuner/generated/register_tile.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

constexpr VectorRegisterFile kAvx512 = {.registers = 32, .bytes = 64, .embedded_broadcast = true};
constexpr VectorRegisterFile kAvx2 = {.registers = 16, .bytes = 32, .embedded_broadcast = false};

uint64_t Axes(std::initializer_list<int> axes) {
  uint64_t mask = 0;
  for (int d : axes) mask |= uint64_t{1} << d;
  return mask;
}

// A dense layer C[i, j] = sum(k: A[i, k] * W[j, k]): A indexes i (a broadcast), W indexes j (the
// vector axis), kept across the rows i.
const std::vector<uint64_t> kDenseReads = {Axes({0}), Axes({1})};

TEST(RegisterTile, Dense_AccumulatorsAndKeptWeightVectors) {
  // A's value feeds 4 vectors: broadcast once into a register of its own, even with AVX-512.
  EXPECT_EQ(LiveRegisters({6, 64}, kDenseReads, 4, kAvx512), 24 + 4 + 1);
  EXPECT_EQ(LiveRegisters({7, 64}, kDenseReads, 4, kAvx512), 28 + 4 + 1);  // Over 32: spilled.
  EXPECT_EQ(LiveRegisters({8, 64}, kDenseReads, 4, kAvx512), 32 + 4 + 1);
  // One vector wide: the multiply-add broadcasts A's value from memory (AVX-512 only).
  EXPECT_EQ(LiveRegisters({16, 16}, kDenseReads, 4, kAvx512), 16 + 1);
  EXPECT_EQ(LiveRegisters({31, 16}, kDenseReads, 4, kAvx512), 31 + 1);
  // One row: nothing is kept, A's value is broadcast into a register for the 4 vectors (and for
  // AVX2's 8).
  EXPECT_EQ(LiveRegisters({1, 64}, kDenseReads, 4, kAvx512), 4 + 1);
  EXPECT_EQ(LiveRegisters({1, 64}, kDenseReads, 4, kAvx2), 8 + 1);
  EXPECT_EQ(LiveRegisters({6, 16}, kDenseReads, 4, kAvx2), 12 + 2 + 1);
  // A vector tile shorter than a register still takes one.
  EXPECT_EQ(LiveRegisters({4, 8}, kDenseReads, 4, kAvx512), 4 + 1);
}

// A convolution Y[n, f, y, x, fb] = sum(c, ry, rx, cb: X[n, c, y·St + ry, x·St + rx, cb] *
// W[f, c, ry, rx, cb, fb]).
const std::vector<uint64_t> kConvReads = {Axes({0, 2, 3}), Axes({1, 4})};

TEST(RegisterTile, Conv_InputBroadcastsKeptAcrossOutputBlocks) {
  // In axis order [f][y][x]: the y·x input values are kept across f, one weight vector per f.
  EXPECT_EQ(LiveRegisters({1, 4, 1, 6, 16}, kConvReads, 4, kAvx512), 24 + 6 + 1);
  EXPECT_EQ(LiveRegisters({1, 2, 2, 4, 16}, kConvReads, 4, kAvx512), 16 + 8 + 1);
  EXPECT_EQ(LiveRegisters({1, 2, 1, 14, 16}, kConvReads, 4, kAvx512), 28 + 14 + 1);
  // As [x][f]: each input value read once for the f blocks, the f weight vectors kept.
  EXPECT_EQ(LiveRegisters({1, 2, 1, 14, 16}, kConvReads, 4, kAvx512, {0, 3, 2, 1}), 28 + 1 + 2);
}

TEST(RegisterTile, RowOrder_AxisOrderWhereItFitsElseTheFewestLive) {
  EXPECT_EQ(RegisterRowOrder({1, 4, 1, 6, 16}, kConvReads, 4, kAvx512),
            (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(RegisterRowOrder({1, 2, 1, 14, 16}, kConvReads, 4, kAvx512),
            (std::vector<int>{0, 3, 2, 1}));
  // y and x both inside f: 2 x 2 x 7 = 28 accumulators.
  const std::vector<int> order = RegisterRowOrder({1, 2, 2, 7, 16}, kConvReads, 4, kAvx512);
  EXPECT_EQ(LiveRegisters({1, 2, 2, 7, 16}, kConvReads, 4, kAvx512, order), 28 + 1 + 2);
  EXPECT_EQ(order.back(), 1);  // f innermost.
  // Nothing fits: still a permutation of the rows.
  std::vector<int> over = RegisterRowOrder({1, 4, 4, 4, 16}, kConvReads, 4, kAvx512);
  std::sort(over.begin(), over.end());
  EXPECT_EQ(over, (std::vector<int>{0, 1, 2, 3}));
}

}  // namespace
}  // namespace tunefarm::tuner
