// Helpers of the farm tests: test artifacts from runfiles and vector-add requests.
#ifndef TUNEFARM_TESTS_FARM_TEST_UTIL_H_
#define TUNEFARM_TESTS_FARM_TEST_UTIL_H_

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "common/content_hash.h"
#include "proto/measure.pb.h"

namespace tunefarm::testing {

// Bytes of rpc_server/testdata/lib<name>.so.
inline std::string KernelBytes(const std::string& name) {
  std::ifstream in(
      absl::StrCat(std::getenv("TEST_SRCDIR"), "/tunefarm/rpc_server/testdata/lib", name, ".so"),
      std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A distinct artifact with the same code: bytes appended after the ELF image change the
// content hash but not what the loader maps.
inline std::string Variant(const std::string& bytes, int i) {
  return absl::StrCat(bytes, "tunefarm-variant-", i);
}

inline v1::Artifact MakeArtifact(const std::string& bytes) {
  v1::Artifact a;
  a.set_hash(ContentHash(bytes));
  a.set_content(bytes);
  return a;
}

// c = a + b over `n` float32 elements, checked against `reference` (the vadd kernel).
inline v1::MeasureRequest VaddRequest(const std::string& id, const std::string& candidate,
                                      const std::string& reference, int n = 256) {
  v1::MeasureRequest r;
  r.set_request_id(id);
  *r.mutable_artifact() = MakeArtifact(candidate);
  *r.mutable_reference_artifact() = MakeArtifact(reference);
  r.set_kernel_name("kernel");
  r.set_seed(42);
  for (int i = 0; i < 3; ++i) {
    v1::TensorArg* t = r.add_tensors();
    t->mutable_spec()->add_shape(n);
    t->mutable_spec()->set_dtype(v1::DTYPE_FLOAT32);
    t->set_is_output(i == 2);
  }
  r.mutable_timing()->set_number(1);
  r.mutable_timing()->set_repeat(2);
  r.set_timeout_ms(3000);
  return r;
}

}  // namespace tunefarm::testing

#endif  // TUNEFARM_TESTS_FARM_TEST_UTIL_H_
