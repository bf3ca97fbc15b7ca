#include "tuner/generated/register_tile.h"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/lang/elaborate.h"
#include "compiler/lang/parser.h"
#include "gtest/gtest.h"

namespace tunefarm::tuner {
namespace {

constexpr VectorRegisterFile kAvx512 = {.registers = 32, .bytes = 64, .embedded_broadcast = true};
constexpr VectorRegisterFile kAvx2 = {.registers = 16, .bytes = 32, .embedded_broadcast = false};
constexpr VectorRegisterFile kAvx512Vnni = {
    .registers = 32, .bytes = 64, .embedded_broadcast = true, .byte_group_registers = 1};

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

// The text of examples/programs/<name>.te.
std::string ReadExample(const std::string& name) {
  std::ifstream in("examples/programs/" + name + ".te");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The output stage of a program of the language, elaborated at `shapes`.
te::Tensor OutputOf(const std::string& text, const lang::ShapeBindings& shapes) {
  absl::StatusOr<lang::Program> program = lang::ParseProgram(text);
  EXPECT_TRUE(program.ok()) << program.status();
  absl::StatusOr<lang::ElaboratedProgram> e = lang::Elaborate(*program, shapes);
  EXPECT_TRUE(e.ok()) << e.status();
  return e->output();
}

// dense_u8s8_vnni.te's reduction: A's four bytes A[i, 4k + u] are one broadcast 32-bit value and
// W's four W[j/16, k, j%16, u] one vector (compiler/codegen/vnni_dot.cc), each taking two
// registers on AVX2 (widened to int16 pairs) and one with VNNI.
TEST(RegisterTile, ByteDotGroups_CountAsOneValueEach) {
  const te::Tensor c = OutputOf(ReadExample("dense_u8s8_vnni"), {{"M", 64}, {"N", 64}, {"K", 64}});
  EXPECT_EQ(ReadAxisMasks(c, kAvx2),
            (std::vector<uint64_t>{Axes({0}), Axes({0}), Axes({1}), Axes({1})}));
  EXPECT_EQ(ReadAxisMasks(c, kAvx512Vnni), (std::vector<uint64_t>{Axes({0}), Axes({1})}));
  // AVX2: 4 x 16 is 8 accumulators, the broadcast's two halves and two per weight vector.
  const std::vector<uint64_t> avx2 = ReadAxisMasks(c, kAvx2);
  EXPECT_EQ(LiveRegisters({4, 16}, avx2, 4, kAvx2), 8 + 2 + 4);
  EXPECT_EQ(LiveRegisters({6, 16}, avx2, 4, kAvx2), 12 + 2 + 4);  // Over 16.
  // VNNI: the 6 x 64 tile, 24 accumulators, the broadcast and 4 weight vectors.
  EXPECT_EQ(LiveRegisters({6, 64}, ReadAxisMasks(c, kAvx512Vnni), 4, kAvx512Vnni), 24 + 1 + 4);
}

// dense_u8s8_avx2.te's reduction: W16's four int16 loads per group of products are two vectors
// (each lane's pairs), A16's four int16 two broadcasts (its pairs): 4 x 16 is 8 accumulators + 2
// + 2 per weight vector.
TEST(RegisterTile, WordDotGroups_CountAsTwoVectors) {
  const te::Tensor c = OutputOf(ReadExample("dense_u8s8_avx2"), {{"M", 64}, {"N", 64}, {"K", 64}});
  const std::vector<uint64_t> reads = ReadAxisMasks(c, kAvx2);
  EXPECT_EQ(reads, (std::vector<uint64_t>{Axes({0}), Axes({0}), Axes({1}), Axes({1})}));
  EXPECT_EQ(LiveRegisters({4, 16}, reads, 4, kAvx2), 8 + 2 + 4);
}

// Byte loads that are not four consecutive bytes of one run stay one entry each: a plain int8
// dense layer's A[i, k] and W[j, k], and three of a run.
TEST(RegisterTile, ByteLoadsOutsideAGroup_CountOneEach) {
  EXPECT_EQ(ReadAxisMasks(OutputOf("A = input(uint8, [M, K])\nW = weight(int8, [N, K])\n"
                                   "C[i, j] = sum(k: int32(A[i, k]) * int32(W[j, k]))\n",
                                   {{"M", 8}, {"N", 16}, {"K", 8}}),
                          kAvx2),
            (std::vector<uint64_t>{Axes({0}), Axes({1})}));
  EXPECT_EQ(
      ReadAxisMasks(
          OutputOf("A = input(uint8, [M, K])\nW = weight(int8, [N, K])\n"
                   "C[i, j] = sum(k < K / 3: int32(A[i, 3 * k]) * int32(W[j, 3 * k]) + "
                   "int32(A[i, 3 * k + 1]) * int32(W[j, 3 * k + 1]) + int32(A[i, 3 * k + 2]) * "
                   "int32(W[j, 3 * k + 2]))\n",
                   {{"M", 8}, {"N", 16}, {"K", 9}}),
          kAvx2)
          .size(),
      6u);
}

}  // namespace
}  // namespace tunefarm::tuner
