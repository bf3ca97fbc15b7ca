// The data model of the tuning log: workloads, device fingerprints, error classes and measured
// records. Plain structs with no SQLite types, shared by the tuner, the CLI and the RPC layer.
#ifndef TUNEFARM_DB_RECORD_H_
#define TUNEFARM_DB_RECORD_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm::db {

// What one operator instance is: a template of the template library and its canonical
// arguments. Two workloads are the same iff template name and canonical args are equal.
struct Workload {
  // Template name in the template registry, e.g. "dense", "conv2d", "batch_matmul".
  std::string template_name;
  // Canonical JSON array of shape and dtype arguments, e.g. `[1024,1024,1024,"float32"]`.
  // Use Workload::Make to canonicalize user-written JSON.
  std::string args;
  // Floating-point operations of one run, so costs convert to GFLOP/s (0 = unknown).
  double flop = 0;

  // Builds a workload with `args` canonicalized (sorted keys, no whitespace).
  // InvalidArgument: empty template name, or `args` is not a JSON array.
  static absl::StatusOr<Workload> Make(absl::string_view template_name, absl::string_view args,
                                       double flop);

  // "template|args": the text the stable hash is computed from.
  std::string CanonicalString() const;
  // FNV-1a 64 of CanonicalString(). Stable across processes, machines and releases (unlike
  // absl::Hash, which is salted per process); stored in the database as a signed 64-bit int.
  uint64_t Hash() const;
};

// FNV-1a 64-bit hash (offset basis 14695981039346656037, prime 1099511628211).
uint64_t Fnv1a64(absl::string_view data);

// What exactly measured a record: results from different hardware or toolchains are kept
// apart by this fingerprint even when the device key is the same.
struct DeviceFingerprint {
  // e.g. "AMD Ryzen 9 7950X".
  std::string cpu_model;
  // e.g. "NVIDIA H100 80GB HBM3"; empty for CPU devices.
  std::string gpu_model;
  // Logical cores available to the worker.
  int cores = 0;
  // GPU driver version, e.g. "535.104"; empty for CPU devices.
  std::string driver_version;
  // Compiler toolchain that built the kernel, e.g. "LLVM 16.0.6".
  std::string compiler_version;
  // The device ran under emulation (e.g. an aarch64 server under qemu-user on an x86-64
  // machine): its timings are not the hardware's, and never rank against real ones.
  bool emulated = false;

  // Canonical "cpu=...;gpu=...;cores=...;driver=...;compiler=..." text, with ";emulated=1"
  // appended for an emulated device (real devices' text, and so their rows, are unchanged).
  std::string CanonicalString() const;
  // FNV-1a 64 of CanonicalString().
  uint64_t Hash() const;
  bool operator==(const DeviceFingerprint& o) const;
};

// Why a measurement has no valid cost. Values are stored in the database: never renumber.
enum class ErrorClass : int {
  kOk = 0,
  // The config is not valid for the workload (bad split, too much shared memory, ...).
  kInvalidConfig = 1,
  // Lowering or code generation failed.
  kBuildError = 2,
  // The artifact could not be loaded on the device (dlopen, cuModuleLoad).
  kLoadError = 3,
  // The kernel crashed or returned an error while running.
  kRuntimeError = 4,
  // The kernel ran but its output differs from the reference.
  kWrongAnswer = 5,
  // Building took longer than the build timeout.
  kBuildTimeout = 6,
  // Running took longer than the run timeout.
  kRunTimeout = 7,
  // The device disappeared (worker died, lease expired) while measuring.
  kDeviceLost = 8,
  // Anything else.
  kUnknown = 9,
  // The kernel exhausted the sandbox's memory limit. Records of schema 3 and earlier stored
  // this as kRuntimeError; migration 4 reclassifies them by their message.
  kOutOfMemory = 10,
};

// "ok", "invalid_config", "build_error", ... (stable, used in the CLI and exports).
absl::string_view ErrorClassName(ErrorClass e);
// Inverse of ErrorClassName. InvalidArgument: unknown name.
absl::StatusOr<ErrorClass> ErrorClassFromName(absl::string_view name);
// ErrorClass from its stored integer. InvalidArgument: out of range.
absl::StatusOr<ErrorClass> ErrorClassFromInt(int64_t value);

// One measurement of one config of one workload on one device.
struct Record {
  // Row id assigned by the log on insert; 0 before.
  int64_t id = 0;
  Workload workload;
  // Compiler target string, e.g. "llvm -mcpu=znver4".
  std::string target;
  // Device queue key, e.g. "cpu-znver4".
  std::string device_key;
  // Hardware/toolchain that measured it (may be empty when unknown, e.g. imported logs).
  DeviceFingerprint device;
  // Tuning job that produced it; 0 = none (imported, ad hoc).
  int64_t job_id = 0;
  // Index of the config in the template's config space.
  int64_t config_index = 0;
  // Readable knob values as a JSON object, e.g. `{"tile_x":[-1,32],"tile_y":[-1,16]}`.
  std::string config_json = "{}";
  // Seconds of each timed repeat; empty for failed measurements.
  std::vector<double> costs;
  ErrorClass error = ErrorClass::kOk;
  // Human-readable error detail; empty when error == kOk.
  std::string error_message;
  // Version of the tuner that made the measurement, e.g. "tunefarm 0.1.0".
  std::string tuner_version;
  // Unix time of the measurement in seconds.
  double timestamp = 0;
  // The farm's id of the measurement request; empty when unknown (imported, older logs). The
  // log stores each request id at most once.
  std::string request_id;
  // Timed cold (TVM's enable_cpu_cache_flush): every run found its weights and outputs out of
  // the caches, as a layer inside a network does. A cold time includes what streaming the
  // weights costs; a warm one (back to back runs, the default) does not.
  bool cold_cache = false;

  // A record is valid (may win best-k) iff error == kOk and it has at least one positive,
  // finite cost.
  bool valid() const;
  // Mean of `costs`; nullopt when not valid.
  std::optional<double> MeanCost() const;
  // flop / mean cost / 1e9; 0 when invalid or the FLOP count is unknown.
  double Gflops() const;
};

// Checks what the log requires before writing: non-empty template, target and device key;
// args a canonical JSON array (see Workload::Make); config_json a JSON object; finite costs;
// error == kOk only with at least one positive cost.
// InvalidArgument: says which requirement failed.
absl::Status ValidateRecord(const Record& record);

// The parts of ValidateRecord, for callers that memoize the JSON checks over a batch.
// Everything but the JSON checks:
absl::Status ValidateRecordFields(const Record& record);
// InvalidArgument unless `args` is a canonical JSON array.
absl::Status ValidateWorkloadArgs(absl::string_view args);
// The canonical text of a config JSON object. InvalidArgument: not a JSON object.
absl::StatusOr<std::string> CanonicalConfigJson(absl::string_view config_json);

// Field-by-field equality (used by round-trip tests and the importer's duplicate check).
bool operator==(const Record& a, const Record& b);
inline bool operator!=(const Record& a, const Record& b) { return !(a == b); }

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_RECORD_H_
