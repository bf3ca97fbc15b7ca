// Small tensor programs with plain C++ reference implementations, shared by the compiler's
// property tests and the C printer's tests.
#ifndef TUNEFARM_COMPILER_TESTS_PROGRAMS_H_
#define TUNEFARM_COMPILER_TESTS_PROGRAMS_H_

#include <functional>
#include <string>
#include <vector>

#include "compiler/runtime/ndarray.h"
#include "compiler/te/tensor.h"

namespace tunefarm::testing {

// A tensor program: its inputs and outputs (the kernel arguments, inputs first) and a
// reference that fills the outputs from the inputs with straightforward loops in double.
struct Program {
  std::string name;
  std::vector<te::Tensor> inputs;
  std::vector<te::Tensor> outputs;
  std::function<void(const std::vector<runtime::NDArray*>& in,
                     const std::vector<runtime::NDArray*>& out)>
      reference;

  // inputs followed by outputs.
  std::vector<te::Tensor> args() const;
};

// C[i, j] = Σ_k A[i, k] · B[k, j] with shapes that no small factor divides.
Program Matmul(int m = 33, int n = 40, int k = 27);
// C[b, i, j] = Σ_k A[b, i, k] · B[b, k, j].
Program BatchMatmul(int batch = 3, int m = 17, int n = 24, int k = 13);
// NCHW conv2d with a zero-padding stage (a Select) and a stride:
// pad = Pad(X, 1); Y[n, f, y, x] = Σ_{c, ry, rx} pad[n, c, y·s + ry, x·s + rx] · W[f, c, ry, rx].
Program Conv2dNchw(int channels = 4, int filters = 6, int size = 11, int stride = 2);
// Depthwise 3×3 conv2d with padding 1 and stride 1.
Program DepthwiseConv2d(int channels = 5, int size = 12);
// Row softmax in four stages: max-reduce, exp(x - max), sum-reduce, divide.
Program Softmax(int rows = 13, int cols = 37);
// Y[b, i, j] = relu(A[b, i, j] · s[j] + t[i, 0]) through an elementwise intermediate.
Program BroadcastElementwise(int batch = 3, int m = 10, int n = 24);

// Every program above with its default shapes.
std::vector<Program> AllPrograms();

// Random inputs (deterministic in `seed`), runs `kernel`-style checks: allocates arrays for the
// program's arguments. Inputs are filled, outputs set to NaN.
std::vector<runtime::NDArray> MakeArgs(const Program& p, uint64_t seed);
// The reference outputs for `args` (as made by MakeArgs).
std::vector<runtime::NDArray> ReferenceOutputs(const Program& p,
                                               std::vector<runtime::NDArray>& args);

}  // namespace tunefarm::testing

#endif  // TUNEFARM_COMPILER_TESTS_PROGRAMS_H_
