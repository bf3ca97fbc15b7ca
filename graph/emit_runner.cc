#include "graph/emit_runner.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_replace.h"

namespace tunefarm::graph {
namespace {

// The fixed part of the runner: the model object, weights loading and checking, the calls.
constexpr char kRunnerBody[] = R"C(
struct tf_model {
  unsigned char* weights;
  unsigned char* arena;
  DLTensor tensors[TF_NUM_ARGS];
  DLTensor* args[TF_NUM_ARGS];
};

static _Thread_local char tf_error[512];

const char* tf_model_error(void) { return tf_error; }

static uint64_t tf_checksum(const unsigned char* p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 1099511628211ull;
  }
  return h;
}

static uint64_t tf_u64(const unsigned char* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

/* Weights and arena of 2 MiB or more sit on transparent huge pages where the kernel offers them
 * (THP "madvise" mode asks for this call): a layer finds its weights cold in the TLB as well as
 * in the caches, and with 4 KiB pages each streamed page costs a page walk (ResNet-18 ran about
 * 7% faster in three alternations, its 9 MB layers 7-10%). */
#define TF_HUGE_PAGE ((size_t)2 << 20)
static void* tf_alloc(size_t bytes) {
  void* p = NULL;
  if (bytes >= TF_HUGE_PAGE) {
    size_t rounded = (bytes + TF_HUGE_PAGE - 1) / TF_HUGE_PAGE * TF_HUGE_PAGE;
    if (posix_memalign(&p, TF_HUGE_PAGE, rounded) != 0) return NULL;
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, rounded, MADV_HUGEPAGE); /* advice only: small pages if refused */
#endif
    return p;
  }
  if (posix_memalign(&p, 64, bytes == 0 ? 64 : bytes) != 0) return NULL;
  return p;
}

tf_model* tf_model_create(const void* weights, size_t size) {
  const unsigned char* w = (const unsigned char*)weights;
  if (w == NULL || size < TF_WEIGHTS_HEADER || memcmp(w, "TFMW0001", 8) != 0) {
    snprintf(tf_error, sizeof tf_error, "not a tunefarm weights file");
    return NULL;
  }
  if (tf_u64(w + 8) != TF_WEIGHTS_BYTES || size != TF_WEIGHTS_HEADER + TF_WEIGHTS_BYTES) {
    snprintf(tf_error, sizeof tf_error,
             "these weights (%llu bytes) are not this model's (%llu bytes): compile again",
             (unsigned long long)tf_u64(w + 8), (unsigned long long)TF_WEIGHTS_BYTES);
    return NULL;
  }
  if (tf_u64(w + 16) != TF_WEIGHTS_CHECKSUM ||
      tf_checksum(w + TF_WEIGHTS_HEADER, TF_WEIGHTS_BYTES) != TF_WEIGHTS_CHECKSUM) {
    snprintf(tf_error, sizeof tf_error, "the weights are corrupt or belong to another build");
    return NULL;
  }
  tf_model* m = (tf_model*)calloc(1, sizeof(tf_model));
  if (m == NULL) return NULL;
  m->weights = (unsigned char*)tf_alloc(TF_WEIGHTS_BYTES);
  m->arena = (unsigned char*)tf_alloc(TF_ARENA_BYTES);
  if (m->weights == NULL || m->arena == NULL) {
    snprintf(tf_error, sizeof tf_error, "out of memory");
    tf_model_free(m);
    return NULL;
  }
  memcpy(m->weights, w + TF_WEIGHTS_HEADER, TF_WEIGHTS_BYTES);
  for (int a = 0; a < TF_NUM_ARGS; ++a) {
    DLTensor* t = &m->tensors[a];
    t->device.device_type = kDLCPU;
    t->ndim = kArgs[a].ndim;
    t->dtype.code = kDLFloat;
    t->dtype.bits = 32;
    t->dtype.lanes = 1;
    t->shape = (int64_t*)&kShapes[kArgs[a].shape];
    t->strides = NULL;
    t->byte_offset = 0;
    if (kArgs[a].kind == 0) t->data = m->arena + kArgs[a].offset;
    if (kArgs[a].kind == 1) t->data = m->weights + kArgs[a].offset;
    m->args[a] = t;
  }
  return m;
}

tf_model* tf_model_create_from_file(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) {
    snprintf(tf_error, sizeof tf_error, "cannot open %s", path);
    return NULL;
  }
  size_t size = TF_WEIGHTS_HEADER + TF_WEIGHTS_BYTES;
  unsigned char* buf = (unsigned char*)malloc(size + 1);
  size_t got = buf == NULL ? 0 : fread(buf, 1, size + 1, f);
  fclose(f);
  tf_model* m = buf == NULL ? NULL : tf_model_create(buf, got);
  free(buf);
  return m;
}

void tf_model_free(tf_model* m) {
  if (m == NULL) return;
  free(m->weights);
  free(m->arena);
  free(m);
}

static void tf_bind(tf_model* m, const float* const* inputs, float* const* outputs) {
  for (int a = 0; a < TF_NUM_ARGS; ++a) {
    if (kArgs[a].kind == 2) m->tensors[a].data = (void*)inputs[kArgs[a].offset];
    if (kArgs[a].kind == 3) m->tensors[a].data = outputs[kArgs[a].offset];
  }
}

static int tf_call(tf_model* m, int c) {
  int rc = kCalls[c].fn(&m->args[kCalls[c].first_arg], kCalls[c].num_args);
  if (rc != 0) snprintf(tf_error, sizeof tf_error, "call %d (%s) returned %d", c, kCalls[c].name, rc);
  return rc;
}

int tf_model_run(tf_model* m, const float* const* inputs, float* const* outputs) {
  if (m == NULL || inputs == NULL || outputs == NULL) return -1;
  tf_bind(m, inputs, outputs);
  for (int c = 0; c < TF_NUM_CALLS; ++c) {
    int rc = tf_call(m, c);
    if (rc != 0) return rc;
  }
  return 0;
}

static double tf_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + 1e-9 * ts.tv_nsec;
}

int tf_model_run_profiled(tf_model* m, const float* const* inputs, float* const* outputs,
                          double* seconds) {
  if (m == NULL || inputs == NULL || outputs == NULL || seconds == NULL) return -1;
  tf_bind(m, inputs, outputs);
  for (int c = 0; c < TF_NUM_CALLS; ++c) {
    double t0 = tf_now();
    int rc = tf_call(m, c);
    seconds[c] = tf_now() - t0;
    if (rc != 0) return rc;
  }
  return 0;
}

int tf_model_num_inputs(void) { return TF_NUM_INPUTS; }
int tf_model_num_outputs(void) { return TF_NUM_OUTPUTS; }
int tf_model_num_calls(void) { return TF_NUM_CALLS; }
const char* tf_model_call_name(int c) { return c >= 0 && c < TF_NUM_CALLS ? kCalls[c].name : NULL; }

static int tf_io(const tf_io_desc* io, int n, int i, int64_t* dims, const char** name) {
  if (i < 0 || i >= n) return -1;
  if (name != NULL) *name = io[i].name;
  if (dims != NULL) {
    for (int d = 0; d < io[i].ndim; ++d) dims[d] = kShapes[io[i].shape + d];
  }
  return io[i].ndim;
}

int tf_model_input(int i, int64_t* dims, const char** name) {
  return tf_io(kInputs, TF_NUM_INPUTS, i, dims, name);
}

int tf_model_output(int i, int64_t* dims, const char** name) {
  return tf_io(kOutputs, TF_NUM_OUTPUTS, i, dims, name);
}
)C";

// A C string literal.
std::string Quote(const std::string& s) {
  return absl::StrCat("\"", absl::StrReplaceAll(s, {{"\\", "\\\\"}, {"\"", "\\\""}, {"\n", " "}}),
                      "\"");
}

}  // namespace

uint64_t WeightsChecksum(const std::string& payload) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : payload) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return h;
}

std::string EmitRunnerSource(const RunnerPlan& plan) {
  std::string shapes, args, calls, decls, io;
  int64_t shape_count = 0, arg_count = 0;
  auto add_shape = [&](const std::vector<int64_t>& s) {
    const int64_t at = shape_count;
    for (int64_t d : s) absl::StrAppend(&shapes, d, ", ");
    shape_count += static_cast<int64_t>(s.size());
    return at;
  };
  std::vector<std::string> declared;
  for (const RunnerCall& c : plan.calls) {
    if (std::find(declared.begin(), declared.end(), c.symbol) == declared.end()) {
      absl::StrAppend(&decls, "int32_t ", c.symbol, "(DLTensor* const* args, int32_t num_args);\n");
      declared.push_back(c.symbol);
    }
    absl::StrAppend(&calls, "  {", c.symbol, ", ", arg_count, ", ", c.args.size(), ", ",
                    Quote(c.label), "},\n");
    for (const RunnerArg& a : c.args) {
      absl::StrAppend(&args, "  {", static_cast<int>(a.kind), ", ", a.offset, ", ", a.shape.size(),
                      ", ", add_shape(a.shape), "},\n");
      ++arg_count;
    }
  }
  std::string inputs, outputs;
  for (const RunnerTensor& t : plan.inputs) {
    absl::StrAppend(&inputs, "  {", Quote(t.name), ", ", t.shape.size(), ", ", add_shape(t.shape),
                    "},\n");
  }
  for (const RunnerTensor& t : plan.outputs) {
    absl::StrAppend(&outputs, "  {", Quote(t.name), ", ", t.shape.size(), ", ", add_shape(t.shape),
                    "},\n");
  }
  std::string out =
      "/* Generated by `tunefarm compile`: the model's runner (graph/emit_runner.h). */\n"
      "#define _POSIX_C_SOURCE 200809L\n#define _DEFAULT_SOURCE\n"
      "#include <dlpack/dlpack.h>\n#include <stdint.h>\n#include <stdio.h>\n"
      "#include <stdlib.h>\n#include <string.h>\n#include <time.h>\n"
      "#ifdef __linux__\n#include <sys/mman.h>\n#endif\n\n"
      "typedef struct tf_model tf_model;\n"
      "void tf_model_free(tf_model* m);\n\n";
  absl::StrAppend(&out, decls, "\n");
  absl::StrAppend(&out, "#define TF_NUM_ARGS ", std::max<int64_t>(arg_count, 1), "\n");
  absl::StrAppend(&out, "#define TF_NUM_CALLS ", plan.calls.size(), "\n");
  absl::StrAppend(&out, "#define TF_NUM_INPUTS ", plan.inputs.size(), "\n");
  absl::StrAppend(&out, "#define TF_NUM_OUTPUTS ", plan.outputs.size(), "\n");
  absl::StrAppend(&out, "#define TF_ARENA_BYTES ((size_t)", plan.arena_bytes, "ull)\n");
  absl::StrAppend(&out, "#define TF_WEIGHTS_BYTES ((size_t)", plan.weights_bytes, "ull)\n");
  absl::StrAppend(&out, "#define TF_WEIGHTS_HEADER ", kWeightsHeaderBytes, "\n");
  absl::StrAppend(&out, "#define TF_WEIGHTS_CHECKSUM ", plan.weights_checksum, "ull\n\n");
  absl::StrAppend(&out, "static const int64_t kShapes[] = {", shapes, "0};\n\n");
  absl::StrAppend(&out,
                  "/* kind: 0 arena, 1 weights, 2 input, 3 output; offset in bytes or the "
                  "index. */\n"
                  "typedef struct { int kind; int64_t offset; int ndim; int shape; } tf_arg_desc;\n"
                  "static const tf_arg_desc kArgs[] = {\n",
                  args, "  {0, 0, 0, 0},\n};\n\n");
  absl::StrAppend(&out,
                  "typedef struct { int32_t (*fn)(DLTensor* const*, int32_t); int first_arg; "
                  "int num_args; const char* name; } tf_call_desc;\n"
                  "static const tf_call_desc kCalls[] = {\n",
                  calls, "};\n\n");
  absl::StrAppend(&out,
                  "typedef struct { const char* name; int ndim; int shape; } tf_io_desc;\n"
                  "static const tf_io_desc kInputs[] = {\n",
                  inputs, "  {0, 0, 0},\n};\nstatic const tf_io_desc kOutputs[] = {\n", outputs,
                  "  {0, 0, 0},\n};\n");
  absl::StrAppend(&out, kRunnerBody);
  return out;
}

std::string EmitRunnerHeader(const RunnerPlan& plan, const std::string& description) {
  std::string io;
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    absl::StrAppend(&io, " *   input ", i, " '", plan.inputs[i].name, "': float32 [",
                    absl::StrJoin(plan.inputs[i].shape, ", "), "]\n");
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    absl::StrAppend(&io, " *   output ", i, " '", plan.outputs[i].name, "': float32 [",
                    absl::StrJoin(plan.outputs[i].shape, ", "), "]\n");
  }
  std::string out = absl::StrCat(
      "/* ", description,
      "\n *\n * Tensors are float32, row-major (NCHW for images), in host "
      "memory:\n",
      io,
      " *\n * tf_model* m = tf_model_create_from_file(\"model.weights\");  (NULL: "
      "tf_model_error())\n"
      " * const float* in[] = {input};  float* out[] = {output};\n"
      " * int rc = tf_model_run(m, in, out);  (0: ok; else tf_model_error())\n"
      " * tf_model_free(m);\n"
      " * Link with the model's library (and -lgomp). A model object runs one inference at a "
      "time;\n * create one per thread for concurrent inferences. Inputs and outputs on "
      "TF_MODEL_ALIGNMENT-byte\n * boundaries (aligned_alloc(64, ...)) run as fast as the "
      "model's own buffers. */\n"
      "#ifndef TUNEFARM_COMPILED_MODEL_H_\n#define TUNEFARM_COMPILED_MODEL_H_\n\n"
      "#include <stddef.h>\n#include <stdint.h>\n\n"
      "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n");
  absl::StrAppend(&out, "#define TF_MODEL_ALIGNMENT 64\n");
  absl::StrAppend(&out, "#define TF_MODEL_NUM_INPUTS ", plan.inputs.size(), "\n");
  absl::StrAppend(&out, "#define TF_MODEL_NUM_OUTPUTS ", plan.outputs.size(), "\n");
  for (size_t i = 0; i < plan.inputs.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : plan.inputs[i].shape) n *= d;
    absl::StrAppend(&out, "#define TF_MODEL_INPUT", i, "_ELEMENTS ", n, "\n");
  }
  for (size_t i = 0; i < plan.outputs.size(); ++i) {
    int64_t n = 1;
    for (int64_t d : plan.outputs[i].shape) n *= d;
    absl::StrAppend(&out, "#define TF_MODEL_OUTPUT", i, "_ELEMENTS ", n, "\n");
  }
  absl::StrAppend(
      &out,
      "\ntypedef struct tf_model tf_model;\n\n"
      "/* A model from the bytes of its weights file (copied; checked against this build). NULL on "
      "error. */\n"
      "tf_model* tf_model_create(const void* weights, size_t size);\n"
      "/* The same, reading the weights file at `path`. */\n"
      "tf_model* tf_model_create_from_file(const char* path);\n"
      "/* One inference: inputs[i] and outputs[i] point to the tensors above. 0 on success. */\n"
      "int tf_model_run(tf_model* m, const float* const* inputs, float* const* outputs);\n"
      "/* The same, writing each call's wall time in seconds to seconds[0 .. num_calls). */\n"
      "int tf_model_run_profiled(tf_model* m, const float* const* inputs, float* const* outputs,\n"
      "                          double* seconds);\n"
      "void tf_model_free(tf_model* m);\n"
      "/* Why the last create or run on this thread failed. */\n"
      "const char* tf_model_error(void);\n\n"
      "/* Inputs and outputs: the rank (or -1 for a bad index); the dims and name if non-NULL. */\n"
      "int tf_model_num_inputs(void);\nint tf_model_num_outputs(void);\n"
      "int tf_model_input(int i, int64_t* dims, const char** name);\n"
      "int tf_model_output(int i, int64_t* dims, const char** name);\n"
      "/* The kernel calls of one inference, in order (for profiles). */\n"
      "int tf_model_num_calls(void);\nconst char* tf_model_call_name(int c);\n\n"
      "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n"
      "#endif  /* TUNEFARM_COMPILED_MODEL_H_ */\n");
  return out;
}

}  // namespace tunefarm::graph
