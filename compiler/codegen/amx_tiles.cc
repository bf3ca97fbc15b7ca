// A tensorized AMX nest (amx_nest.h) as tile instructions (LLVMEmitter::EmitAmxNest).
#include <algorithm>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "compiler/codegen/amx_nest.h"
#include "compiler/codegen/kernel_runtime.h"
#include "compiler/codegen/llvm_emitter.h"
#include "compiler/ir/ir_equality.h"
#include "compiler/ir/ir_operators.h"
#include "llvm/IR/IntrinsicsX86.h"

namespace tunefarm::codegen {
namespace {

constexpr int64_t kTileRows = kAmxTileRows;
constexpr int64_t kRowBytes = kAmxRowBytes;  // Also an accumulator row: 16 int32.

// The AMX nest at `s`, if it is a loop tensorized for AMX that has the form (else nullopt).
std::optional<AmxNest> AmxNestAt(const ir::Stmt& s) {
  const auto* op = s.as<ir::ForNode>();
  if (op == nullptr || !IsAmxLoop(op)) return std::nullopt;
  absl::StatusOr<AmxNest> nest = MatchAmxNest(op);
  if (!nest.ok()) return std::nullopt;
  return *nest;
}

bool SameBlock(const AmxNest& x, const AmxNest& y) {
  return x.c == y.c && x.rows == y.rows && x.col_tiles == y.col_tiles &&
         x.c_row_stride == y.c_row_stride && x.c_tile_stride == y.c_tile_stride &&
         ir::StructuralEqual(x.c_base, y.c_base);
}

}  // namespace

size_t LLVMEmitter::EmitAmxInitAndUpdate(const std::vector<ir::Stmt>& stmts, size_t first) {
  if (first + 1 >= stmts.size()) return 0;
  std::optional<AmxNest> init = AmxNestAt(stmts[first]);
  if (!init || !init->zero) return 0;
  std::optional<AmxNest> update = AmxNestAt(stmts[first + 1]);
  if (!update || update->zero || !SameBlock(*init, *update)) return 0;
  EmitAmx(stmts[first].as<ir::ForNode>(), *update, /*from_zero=*/true);
  return 2;
}

void LLVMEmitter::EmitAmxNest(const ir::ForNode* op) {
  absl::StatusOr<AmxNest> matched = MatchAmxNest(op);
  if (!matched.ok()) {
    Fail(matched.status());
    return;
  }
  EmitAmx(op, *matched, /*from_zero=*/false);
}

void LLVMEmitter::EmitAmx(const ir::ForNode* op, const AmxNest& nest, bool from_zero) {
  // amx-int8 is an x86 feature (another backend would count it present), and the kernel asks
  // Linux for the tile state (tf_tile_permit).
  const llvm::Triple& triple = tm_.getTargetTriple();
  if (triple.getArch() != llvm::Triple::x86_64 || !triple.isOSLinux()) {
    Fail(absl::InvalidArgumentError(absl::StrCat("tensorize (AMX) at loop '", op->var.name(),
                                                 "': AMX tiles need an x86-64 Linux target, not '",
                                                 triple.str(), "'")));
    return;
  }
  if (!MachineHasFeature(tm_, "+amx-int8")) {
    Fail(absl::InvalidArgumentError(absl::StrCat(
        "tensorize (AMX) at loop '", op->var.name(), "': the target CPU '",
        tm_.getTargetCPU().str(), "' has no AMX-INT8 (e.g. llvm -mcpu=sapphirerapids)")));
    return;
  }
  llvm::Function* load =
      llvm::Intrinsic::getDeclaration(m_, llvm::Intrinsic::x86_tileloadd64_internal);
  llvm::Function* store =
      llvm::Intrinsic::getDeclaration(m_, llvm::Intrinsic::x86_tilestored64_internal);
  llvm::Function* zero =
      llvm::Intrinsic::getDeclaration(m_, llvm::Intrinsic::x86_tilezero_internal);
  llvm::Function* dot = llvm::Intrinsic::getDeclaration(m_, llvm::Intrinsic::x86_tdpbusd_internal);
  const int64_t tiles_m = (nest.rows + kTileRows - 1) / kTileRows;
  auto rows_of = [&](int64_t t) {
    return b_.getInt16(std::min(kTileRows, nest.rows - kTileRows * t));
  };
  llvm::Value* width = b_.getInt16(kRowBytes);
  auto at = [&](const ir::BufferNode* buf, const ir::Expr& base, int64_t offset) {
    return Address(buf, Emit(base + ir::Expr(static_cast<int>(offset))));
  };
  llvm::Value* c_stride = b_.getInt64(nest.c_row_stride * 4);
  auto c_ptr = [&](int64_t t, int64_t n) {
    return at(nest.c, nest.c_base, kTileRows * t * nest.c_row_stride + n * nest.c_tile_stride);
  };
  if (nest.zero) {
    for (int64_t t = 0; t < tiles_m; ++t) {
      llvm::Value* z = b_.CreateCall(zero, {rows_of(t), width});
      for (int64_t n = 0; n < nest.col_tiles; ++n) {
        b_.CreateCall(store, {rows_of(t), width, c_ptr(t, n), c_stride, z});
      }
    }
    return;
  }
  std::vector<std::vector<llvm::Value*>> acc(tiles_m, std::vector<llvm::Value*>(nest.col_tiles));
  for (int64_t t = 0; t < tiles_m; ++t) {
    for (int64_t n = 0; n < nest.col_tiles; ++n) {
      acc[t][n] = from_zero || nest.starts_at_zero
                      ? b_.CreateCall(zero, {rows_of(t), width})
                      : b_.CreateCall(load, {rows_of(t), width, c_ptr(t, n), c_stride});
    }
  }
  llvm::Value* a_stride = b_.getInt64(nest.a_row_stride);
  llvm::Value* w_stride = b_.getInt64(nest.w_row_stride);
  llvm::Value* w_rows = b_.getInt16(kTileRows);
  std::vector<llvm::Value*> a_tiles(tiles_m);
  auto load_a = [&](size_t s, int64_t t) {
    return b_.CreateCall(
        load,
        {rows_of(t), width,
         at(nest.a, nest.a_base, nest.a_steps[s] + kTileRows * t * nest.a_row_stride), a_stride});
  };
  auto load_w = [&](size_t s, int64_t n) {
    return b_.CreateCall(
        load, {w_rows, width, at(nest.w, nest.w_base, nest.w_steps[s] + n * nest.w_tile_stride),
               w_stride});
  };
  // Per step: the A tiles, then one W tile at a time and its products (the register
  // allocator keeps to the eight tiles: accumulators, A tiles and one W tile).
  for (size_t s = 0; s < nest.a_steps.size(); ++s) {
    for (int64_t t = 0; t < tiles_m; ++t) a_tiles[t] = load_a(s, t);
    for (int64_t n = 0; n < nest.col_tiles; ++n) {
      llvm::Value* w = load_w(s, n);
      for (int64_t t = 0; t < tiles_m; ++t) {
        acc[t][n] = b_.CreateCall(dot, {rows_of(t), width, width, acc[t][n], a_tiles[t], w});
      }
    }
  }
  for (int64_t t = 0; t < tiles_m; ++t) {
    for (int64_t n = 0; n < nest.col_tiles; ++n) {
      b_.CreateCall(store, {rows_of(t), width, c_ptr(t, n), c_stride, acc[t][n]});
    }
  }
}

}  // namespace tunefarm::codegen
