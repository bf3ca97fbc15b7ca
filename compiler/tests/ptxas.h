// Test helper: assembles PTX with the CUDA toolkit's `ptxas`, when one is installed.
#ifndef TUNEFARM_COMPILER_TESTS_PTXAS_H_
#define TUNEFARM_COMPILER_TESTS_PTXAS_H_

#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace tunefarm::testing {

// `ptxas` from $PTXAS, $CUDA_HOME/bin, PATH, /usr/local/cuda/bin or /usr/local/cuda-*/bin.
// NotFound (with where it looked) when there is none.
absl::StatusOr<std::string> FindPtxas();

// Assembles `ptx` for `arch` ("sm_90"). Internal: ptxas failed (its output is included).
absl::Status AssemblePtx(const std::string& ptxas, const std::string& ptx, const std::string& arch);

}  // namespace tunefarm::testing

#endif  // TUNEFARM_COMPILER_TESTS_PTXAS_H_
