// A compiled model in an application: `tunefarm compile` wrote model.so, model.h and
// model.weights; this program links model.so, creates the model from its weights, runs it on an
// input (a raw float32 file, e.g. an image as NCHW 1×3×224×224), prints the top-5 classes and the
// median latency, and checks the output against an expected one when given.
//
//   g++ -O2 -I OUT main.cc -L OUT -l:model.so -Wl,-rpath,OUT -o classify
//   ./classify OUT/model.weights input.bin [expected.bin]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numeric>
#include <vector>

#include "model.h"

static bool ReadFloats(const char* path, float* data, size_t n) {
  std::ifstream in(path, std::ios::binary);
  in.read(reinterpret_cast<char*>(data), static_cast<std::streamsize>(n * 4));
  return static_cast<bool>(in) && in.peek() == EOF;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.weights INPUT.bin [EXPECTED.bin]\n", argv[0]);
    return 2;
  }
  tf_model* model = tf_model_create_from_file(argv[1]);
  if (model == nullptr) {
    std::fprintf(stderr, "cannot create the model: %s\n", tf_model_error());
    return 1;
  }
  // On TF_MODEL_ALIGNMENT-byte boundaries, as the model's own buffers (model.h).
  alignas(TF_MODEL_ALIGNMENT) static float input[TF_MODEL_INPUT0_ELEMENTS];
  alignas(TF_MODEL_ALIGNMENT) static float output[TF_MODEL_OUTPUT0_ELEMENTS];
  if (!ReadFloats(argv[2], input, TF_MODEL_INPUT0_ELEMENTS)) {
    std::fprintf(stderr, "%s must hold %d float32 values\n", argv[2], TF_MODEL_INPUT0_ELEMENTS);
    return 2;
  }
  const float* inputs[] = {input};
  float* outputs[] = {output};
  std::vector<double> ms;
  for (int run = 0; run < 21; ++run) {
    const auto t0 = std::chrono::steady_clock::now();
    if (tf_model_run(model, inputs, outputs) != 0) {
      std::fprintf(stderr, "run failed: %s\n", tf_model_error());
      return 1;
    }
    ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(ms.begin() + 1, ms.end());  // the first run warms up
  std::vector<int> top(TF_MODEL_OUTPUT0_ELEMENTS);
  std::iota(top.begin(), top.end(), 0);
  const size_t k = std::min<size_t>(5, top.size());
  std::partial_sort(top.begin(), top.begin() + k, top.end(),
                    [&](int a, int b) { return output[a] > output[b]; });
  std::printf("top-%zu:", k);
  for (size_t i = 0; i < k; ++i) std::printf(" class %d (%.4f)", top[i], output[top[i]]);
  std::printf("\nlatency: median %.3f ms over 20 runs\n", ms[1 + ms.size() / 2 - 1]);
  int rc = 0;
  if (argc > 3) {
    std::vector<float> want(TF_MODEL_OUTPUT0_ELEMENTS);
    if (!ReadFloats(argv[3], want.data(), want.size())) {
      std::fprintf(stderr, "%s must hold %zu float32 values\n", argv[3], want.size());
      rc = 2;
    } else {
      size_t bad = 0;
      for (size_t i = 0; i < want.size(); ++i) {
        if (!(std::fabs(output[i] - want[i]) <= 1e-4 + 1e-3 * std::fabs(want[i]))) ++bad;
      }
      std::printf("%s: %zu of %zu outputs outside 1e-4 + 1e-3·|expected|\n",
                  bad == 0 ? "ok" : "MISMATCH", bad, want.size());
      rc = bad == 0 ? 0 : 1;
    }
  }
  tf_model_free(model);
  return rc;
}
