// Storage flattening: multi-dimensional loads and stores become one flat element index,
// Σ index_d × stride_d, using the buffer's strides (storage_align) or compact row-major ones.
#ifndef TUNEFARM_COMPILER_LOWER_STORAGE_FLATTEN_H_
#define TUNEFARM_COMPILER_LOWER_STORAGE_FLATTEN_H_

#include <optional>
#include <vector>

#include "compiler/ir/ir.h"
#include "compiler/ir/ir_util.h"

namespace tunefarm::lower {

// `bindings` resolve symbolic shape variables.
ir::Stmt StorageFlatten(ir::Stmt s, const ir::VarMap& bindings);

// Row strides (in elements) of a buffer after binding; the product of the extents when the
// buffer has explicit strides is strides[0] * shape[0].
std::vector<ir::Expr> BufferStrides(const ir::BufferNode& b, const ir::VarMap& bindings);

// Elements an allocation of `b` needs (strides[0] * shape[0], 1 for a scalar); nullopt when
// that is not a constant.
std::optional<int64_t> AllocationElements(const ir::BufferNode& b);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_STORAGE_FLATTEN_H_
