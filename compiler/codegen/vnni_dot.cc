// Sums of byte products as dot products (LLVMEmitter::EmitByteDotProducts): AVX-512 VNNI's
// vpdpbusd, or on a core with AVX2 and no VNNI, vpmaddwd on the bytes widened to int16 (exact,
// unlike vpmaddubsw, whose int16 sums of two products saturate). A weight the program widened to
// int16 ahead of time (dense_u8s8_avx2.te) is read as it is, two vpmaddwd per 8 lanes without
// the shifts that widen its bytes.
#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "compiler/arith/analyzer.h"
#include "compiler/codegen/kernel_runtime.h"
#include "compiler/codegen/llvm_emitter.h"
#include "compiler/ir/ir_mutator.h"
#include "compiler/ir/ir_operators.h"
#include "compiler/ir/ir_util.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace tunefarm::codegen {
namespace {

using ir::DataType;
using ir::Expr;

constexpr int kVnniChunk = 16;  // int32 lanes of one vpdpbusd on zmm.
constexpr int kAvx2Chunk = 8;   // int32 lanes of one vpmaddwd on ymm.
constexpr int kGroup = 4;       // Byte products one lane sums.

// One product int32(u) * int32(s) of a byte broadcast to every lane and a vector of bytes, or
// of int16 (`words`: a weight widened ahead of time), or of an int16 broadcast to every lane
// and a vector of int16 (`scalar_words`: both widened, dense_u8s8_avx2.te).
struct ByteProduct {
  const ir::LoadNode* scalar;  // The broadcast value's load.
  const ir::LoadNode* vector;  // The vector's load.
  bool words = false;          // The vector is int16.
  bool scalar_words = false;   // The broadcast value is int16 too.
};

// The load under int32(...) of an integer of `bits` bits loaded from memory, cast to int32.
const ir::LoadNode* CastIntLoad(const Expr& e, int bits) {
  const auto* cast = e.as<ir::CastNode>();
  if (cast == nullptr || cast->type.with_lanes(1) != DataType::Int(32)) return nullptr;
  const auto* load = cast->value.as<ir::LoadNode>();
  if (load == nullptr || load->indices.size() != 1 || load->type.bits != bits ||
      !(load->type.is_int() || load->type.is_uint())) {
    return nullptr;
  }
  return load;
}

// Matches x_L(int32(S[a])) * int32xL(V[idx]) in either order, S a byte: with V a byte of the
// other signedness (vpdpbusd's operand types), or V signed int16 (vpmaddwd's; a byte times an
// int16, two of them summed, stays far inside int32); or S and V both signed int16 (vpmaddwd's
// own operands; its one wrapping sum, 2·(-32768)², wraps in the program's int32 as well).
bool MatchByteProduct(const Expr& e, ByteProduct* out) {
  const auto* mul = e.as<ir::BinaryNode>();
  if (mul == nullptr || mul->op != ir::BinaryOp::kMul) return false;
  for (int swap = 0; swap < 2; ++swap) {
    const Expr& x = swap == 0 ? mul->a : mul->b;
    const Expr& y = swap == 0 ? mul->b : mul->a;
    const auto* bcast = x.as<ir::BroadcastNode>();
    if (bcast == nullptr) continue;
    if (const ir::LoadNode* s = CastIntLoad(bcast->value, 16);
        s != nullptr && s->type.is_scalar() && s->type.is_int()) {
      if (const ir::LoadNode* v = CastIntLoad(y, 16); v != nullptr && v->type.is_int()) {
        *out = {s, v, true, true};
        return true;
      }
      continue;
    }
    const ir::LoadNode* s = CastIntLoad(bcast->value, 8);
    if (s == nullptr || !s->type.is_scalar()) continue;
    if (const ir::LoadNode* v = CastIntLoad(y, 8);
        v != nullptr && s->type.is_uint() != v->type.is_uint()) {
      *out = {s, v, false};
      return true;
    }
    if (const ir::LoadNode* v = CastIntLoad(y, 16); v != nullptr && v->type.is_int()) {
      *out = {s, v, true};
      return true;
    }
  }
  return false;
}

// The lanes [Lc, Lc + L) of a vector index, L = `lanes`: its ramps and broadcasts narrowed to
// them.
class NarrowToChunk : public ir::IRMutator {
 public:
  NarrowToChunk(int chunk, int lanes, arith::Analyzer& analyzer)
      : chunk_(chunk), lanes_(lanes), analyzer_(analyzer) {}

 protected:
  Expr Mutate_(const ir::RampNode* op, const Expr& self) override {
    Expr base = Mutate(op->base), stride = Mutate(op->stride);
    return ir::RampNode::Make(analyzer_.Simplify(base + stride * Expr(chunk_ * lanes_)), stride,
                              lanes_);
  }
  Expr Mutate_(const ir::BroadcastNode* op, const Expr& self) override {
    return ir::BroadcastNode::Make(Mutate(op->value), lanes_);
  }
  // Lane arithmetic folded as the narrowed operands allow: broadcasts combine lane-wise, a
  // ramp plus or times a broadcast stays a ramp, and floordiv / floormod of a ramp with
  // constant base and stride by a constant whose L lanes stay inside one block of the divisor
  // (a lane block of a wider tile) is a broadcast quotient and a ramp remainder.
  Expr Mutate_(const ir::BinaryNode* op, const Expr& self) override {
    Expr e = IRMutator::Mutate_(op, self);
    const auto* bin = e.as<ir::BinaryNode>();
    if (bin == nullptr) return e;
    const auto* ra = bin->a.as<ir::RampNode>();
    const auto* rb = bin->b.as<ir::RampNode>();
    const auto* ba = bin->a.as<ir::BroadcastNode>();
    const auto* bb = bin->b.as<ir::BroadcastNode>();
    auto ramp = [&](const Expr& base, const Expr& stride) {
      return ir::RampNode::Make(analyzer_.Simplify(base), analyzer_.Simplify(stride), lanes_);
    };
    switch (bin->op) {
      case ir::BinaryOp::kAdd:
      case ir::BinaryOp::kSub: {
        const bool add = bin->op == ir::BinaryOp::kAdd;
        auto combine = [&](const Expr& x, const Expr& y) { return add ? x + y : x - y; };
        if (ba != nullptr && bb != nullptr) {
          return ir::BroadcastNode::Make(analyzer_.Simplify(combine(ba->value, bb->value)), lanes_);
        }
        if (ra != nullptr && bb != nullptr) return ramp(combine(ra->base, bb->value), ra->stride);
        if (ra != nullptr && rb != nullptr) {
          return ramp(combine(ra->base, rb->base), combine(ra->stride, rb->stride));
        }
        if (ba != nullptr && rb != nullptr && add) return ramp(ba->value + rb->base, rb->stride);
        return e;
      }
      case ir::BinaryOp::kMul:
        if (ba != nullptr && bb != nullptr) {
          return ir::BroadcastNode::Make(analyzer_.Simplify(ba->value * bb->value), lanes_);
        }
        if (ra != nullptr && bb != nullptr) {
          return ramp(ra->base * bb->value, ra->stride * bb->value);
        }
        if (ba != nullptr && rb != nullptr) {
          return ramp(ba->value * rb->base, ba->value * rb->stride);
        }
        return e;
      case ir::BinaryOp::kFloorDiv:
      case ir::BinaryOp::kFloorMod: {
        const int64_t* base = ra != nullptr ? ir::AsConstInt(ra->base) : nullptr;
        const int64_t* stride = ra != nullptr ? ir::AsConstInt(ra->stride) : nullptr;
        const int64_t* d = bb != nullptr ? ir::AsConstInt(bb->value) : nullptr;
        if (base == nullptr || stride == nullptr || d == nullptr || *base < 0 || *stride < 0 ||
            *d <= 0 || *base / *d != (*base + *stride * (lanes_ - 1)) / *d) {
          return e;
        }
        const DataType t = ra->base.type();
        if (bin->op == ir::BinaryOp::kFloorDiv) {
          return ir::BroadcastNode::Make(ir::MakeConst(t, *base / *d), lanes_);
        }
        return ir::RampNode::Make(ir::MakeConst(t, *base % *d), ra->stride, lanes_);
      }
      default:
        return e;
    }
  }

 private:
  int chunk_;
  const int lanes_;
  arith::Analyzer& analyzer_;
};

// Where lanes [Lc, Lc + L) of `index` read, L = `lanes`: base + stride·lane, the base (nullopt
// otherwise).
std::optional<Expr> ChunkBase(const Expr& index, int chunk, int lanes, int stride,
                              arith::Analyzer& analyzer) {
  Expr narrowed = index;
  if (index.type().lanes != lanes) narrowed = NarrowToChunk(chunk, lanes, analyzer).Mutate(index);
  narrowed = analyzer.Simplify(narrowed);
  const auto* ramp = narrowed.as<ir::RampNode>();
  const int64_t* step = ramp != nullptr ? ir::AsConstInt(ramp->stride) : nullptr;
  if (step == nullptr || *step != stride) return std::nullopt;
  return ramp->base;
}

bool IsConst(const Expr& e, int64_t v, arith::Analyzer& analyzer) {
  const Expr simplified = analyzer.Simplify(e);
  const int64_t* c = ir::AsConstInt(simplified);
  return c != nullptr && *c == v;
}

}  // namespace

llvm::Value* LLVMEmitter::EmitByteDotProducts(const ir::BinaryNode* op) {
  const DataType t = op->type;
  if (op->op != ir::BinaryOp::kAdd || t.with_lanes(1) != DataType::Int(32) ||
      !tm_.getTargetTriple().isX86()) {
    return nullptr;
  }
  std::vector<Expr> terms = ir::SumTerms(op->a);
  for (const Expr& e : ir::SumTerms(op->b)) terms.push_back(e);
  std::vector<Expr> rest;
  std::vector<ByteProduct> products;
  for (const Expr& e : terms) {
    ByteProduct p;
    if (MatchByteProduct(e, &p)) {
      products.push_back(p);
    } else {
      rest.push_back(e);
    }
  }
  if (products.empty() || products.size() % kGroup != 0) return nullptr;
  // All products of bytes, or all with an int16 vector (a weight widened ahead of time), or all
  // of two int16 (the broadcast input widened too): words are vpmaddwd's operands on any core
  // with AVX2, bytes vpdpbusd's where it has VNNI.
  const bool words = products[0].words;
  const bool scalar_words = products[0].scalar_words;
  for (const ByteProduct& p : products) {
    if (p.words != words || p.scalar_words != scalar_words) return nullptr;
  }
  const bool avx2 = MachineHasFeature(tm_, "+avx2");
  const bool vnni = !words && MachineHasFeature(tm_, "+avx512vnni");
  const int lanes = vnni ? kVnniChunk : avx2 ? kAvx2Chunk : 0;
  if (lanes == 0 || t.lanes % lanes != 0) return nullptr;
  const int chunks = t.lanes / lanes;
  if ((chunks & (chunks - 1)) != 0) return nullptr;
  // Groups of four: the broadcast bytes S[a + u], u = 0..3, so one 32-bit load of S feeds the
  // dot, and per chunk of lanes either the vector bytes V[base_c + 4·lane + u] (one load), or
  // the int16 words V[even_c + 2·lane + u / 2] for u = 0, 2 and V[odd_c + 2·lane + u / 2] for
  // u = 1, 3 (two loads: each lane's pairs (u0, u2) and (u1, u3), as the widened broadcast).
  // Broadcast int16 S[a + u]: two 32-bit loads, the pairs (u0, u1) and (u2, u3), and the words
  // V[even_c + 2·lane + u] for u = 0, 1 and V[odd_c + 2·lane + u - 2] for u = 2, 3.
  arith::Analyzer analyzer;
  struct Group {
    const ByteProduct* first;
    std::vector<Expr> bases;      // Per chunk: where its bytes, or its even words, start.
    std::vector<Expr> odd_bases;  // Per chunk, words only: where its odd words start.
  };
  const int stride = words ? 2 : kGroup;
  std::vector<Group> groups;
  for (size_t g = 0; g < products.size(); g += kGroup) {
    const ByteProduct& p0 = products[g];
    Group group{&p0, {}, {}};
    std::vector<std::vector<Expr>> bases(kGroup);  // [u][chunk]
    for (int u = 0; u < kGroup; ++u) {
      const ByteProduct& p = products[g + u];
      if (p.scalar->buffer.get() != p0.scalar->buffer.get() ||
          p.vector->buffer.get() != p0.vector->buffer.get() || p.scalar->type != p0.scalar->type ||
          p.vector->type != p0.vector->type ||
          !IsConst(p.scalar->indices[0] - p0.scalar->indices[0], u, analyzer)) {
        return nullptr;
      }
      for (int c = 0; c < chunks; ++c) {
        std::optional<Expr> base = ChunkBase(p.vector->indices[0], c, lanes, stride, analyzer);
        if (!base.has_value()) return nullptr;
        bases[u].push_back(*base);
      }
    }
    for (int c = 0; c < chunks; ++c) {
      if (words) {
        const int pair = scalar_words ? 1 : 2;  // The group's product paired with u = 0.
        if (!IsConst(bases[pair][c] - bases[0][c], 1, analyzer) ||
            !IsConst(bases[3][c] - bases[3 - pair][c], 1, analyzer)) {
          return nullptr;
        }
        continue;
      }
      for (int u = 1; u < kGroup; ++u) {
        if (!IsConst(bases[u][c] - bases[0][c], u, analyzer)) return nullptr;
      }
    }
    group.bases = bases[0];
    if (words) group.odd_bases = bases[scalar_words ? 2 : 1];
    groups.push_back(std::move(group));
  }

  llvm::Type* i32 = b_.getInt32Ty();
  llvm::Type* words_t = llvm::FixedVectorType::get(i32, lanes);
  llvm::Type* bytes_t = llvm::FixedVectorType::get(b_.getInt8Ty(), lanes * kGroup);
  llvm::Type* halves = llvm::FixedVectorType::get(b_.getInt16Ty(), lanes * 2);
  // AVX2: the bytes of each int32 lane, read as two int16 (b0 | b1 << 8, b2 | b3 << 8), widened
  // to the int16 pairs (b0, b2) and (b1, b3): zero- or sign-extended as the byte's type is.
  auto widen = [&](llvm::Value* four_bytes,
                   bool is_unsigned) -> std::pair<llvm::Value*, llvm::Value*> {
    llvm::Value* w = b_.CreateBitCast(four_bytes, halves);
    llvm::Value* eight = llvm::ConstantInt::get(halves, 8);
    if (is_unsigned) {
      return {b_.CreateAnd(w, llvm::ConstantInt::get(halves, 0xff)), b_.CreateLShr(w, eight)};
    }
    return {b_.CreateAShr(b_.CreateShl(w, eight), eight), b_.CreateAShr(w, eight)};
  };
  llvm::Value* acc = nullptr;
  for (const Expr& e : rest) acc = acc == nullptr ? Emit(e) : b_.CreateAdd(acc, Emit(e));
  if (acc == nullptr) acc = llvm::Constant::getNullValue(LLVMType(t));
  // Per group, its four broadcast bytes as one int32 in every lane of a chunk (and, on AVX2,
  // widened): the same for every chunk.
  std::vector<llvm::Value*> splats;
  std::vector<std::pair<llvm::Value*, llvm::Value*>> widened_splats;
  for (const Group& g : groups) {
    const ir::BufferNode* scalar_buf = g.first->scalar->buffer.get();
    auto splat = [&](const Expr& index) {
      llvm::Value* four = Noted(
          b_.CreateAlignedLoad(i32, Address(scalar_buf, Emit(index)), llvm::Align(1)), scalar_buf);
      return b_.CreateVectorSplat(lanes, four);
    };
    const Expr& index = g.first->scalar->indices[0];
    if (scalar_words) {
      // Already int16: the pairs (u0, u1) and (u2, u3), each one 32-bit broadcast.
      widened_splats.push_back(
          {b_.CreateBitCast(splat(index), halves),
           b_.CreateBitCast(splat(index + ir::MakeConst(index.type(), 2)), halves)});
      continue;
    }
    splats.push_back(splat(index));
    if (!vnni) widened_splats.push_back(widen(splats.back(), g.first->scalar->type.is_uint()));
  }
  std::vector<llvm::Value*> parts;
  for (int c = 0; c < chunks; ++c) {
    std::vector<int> mask;
    for (int i = 0; i < lanes; ++i) mask.push_back(c * lanes + i);
    llvm::Value* part = chunks == 1 ? acc : b_.CreateShuffleVector(acc, mask);
    for (size_t gi = 0; gi < groups.size(); ++gi) {
      const Group& g = groups[gi];
      const ir::BufferNode* vector_buf = g.first->vector->buffer.get();
      auto load = [&](llvm::Type* type, const Expr& base) {
        return Noted(b_.CreateAlignedLoad(type, Address(vector_buf, Emit(base)), llvm::Align(1)),
                     vector_buf);
      };
      const bool scalar_unsigned = g.first->scalar->type.is_uint();
      if (vnni) {
        // vpdpbusd(acc, unsigned bytes, signed bytes).
        llvm::Value* vec = b_.CreateBitCast(load(bytes_t, g.bases[c]), words_t);
        llvm::Value* splat = splats[gi];
        part = b_.CreateIntrinsic(
            llvm::Intrinsic::x86_avx512_vpdpbusd_512, {},
            {part, scalar_unsigned ? splat : vec, scalar_unsigned ? vec : splat});
        continue;
      }
      // vpmaddwd: lane += b0·c0 + b2·c2, then += b1·c1 + b3·c3 (int16 products, int32 sums).
      const auto [v_even, v_odd] =
          words ? std::make_pair(load(halves, g.bases[c]), load(halves, g.odd_bases[c]))
                : widen(b_.CreateBitCast(load(bytes_t, g.bases[c]), words_t), !scalar_unsigned);
      const auto [s_even, s_odd] = widened_splats[gi];
      part = b_.CreateAdd(
          part, b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {s_even, v_even}));
      part = b_.CreateAdd(
          part, b_.CreateIntrinsic(llvm::Intrinsic::x86_avx2_pmadd_wd, {}, {s_odd, v_odd}));
    }
    parts.push_back(part);
  }
  return ConcatVectors(std::move(parts));
}

}  // namespace tunefarm::codegen
