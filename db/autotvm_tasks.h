// The AutoTVM tasks tunefarm understands: how a TVM task's argument list becomes a tunefarm
// workload (template, canonical args, FLOP count) and back, and how the task's knobs translate
// into the template's knobs and back. Facts about TVM's tasks (argument order, knob names and
// what they tile) are from TVM's public topi sources; the table is in db/README.md.
//
//   TVM task                      template           TVM args (after the two tensors)
//   conv2d_NCHWc.x86              conv2d_nchwc       strides, padding, dilation, layout,
//                                                    out_layout, out_dtype
//   conv2d_nchw.x86 / .cuda       conv2d             strides, padding, dilation, out_dtype
//   depthwise_conv2d_NCHWc.x86    depthwise_conv2d   as conv2d_NCHWc.x86
//   depthwise_conv2d_nchw.x86 / .cuda                as conv2d_nchw
//   dense_pack.x86, dense_nopack.x86, dense.cuda, dense_small_batch.gpu
//                                 dense              bias, out_dtype
//   batch_matmul.x86 / .cuda      batch_matmul       out_shape, out_dtype, transpose_a,
//                                                    transpose_b (trailing ones optional)
//
// Configs translate for conv2d_NCHWc.x86, dense_pack.x86, dense_nopack.x86 and
// batch_matmul.x86 (CPU spaces); other tasks keep TVM's knobs ("untranslated").
#ifndef TUNEFARM_DB_AUTOTVM_TASKS_H_
#define TUNEFARM_DB_AUTOTVM_TASKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "google/protobuf/struct.pb.h"

namespace tunefarm::db {

// What a TVM task's argument list became.
struct AutotvmWorkload {
  // The tunefarm template of the task.
  std::string template_name;
  // True when the args are the template's own: `args` is then exactly the canonical args JSON
  // a tunefarm tune of that shape records ([N,C,H,W,K,R,S,stride,pad,"float32"], ...) and
  // `flop` its FLOP count. False: `args` is TVM's argument list verbatim (canonical JSON),
  // `flop` 0, and `why_raw` says which argument has no tunefarm equivalent.
  bool converted = false;
  std::string args;
  double flop = 0;
  std::string why_raw;
  // The template's integer args (converted only).
  std::vector<int64_t> shape;
};

// The template a TVM task maps to. NotFound: a task tunefarm has no template for.
absl::StatusOr<std::string> TemplateForAutotvmTask(absl::string_view task);

// The TVM task a template's records export as: the x86 task on CPU targets, the cuda task on
// "cuda ..." targets. NotFound: a template with no TVM task.
absl::StatusOr<std::string> AutotvmTaskFor(absl::string_view template_name,
                                           absl::string_view target);

// Converts TVM's argument list of `task`. Never fails on odd arguments (they give
// converted = false with the reason). NotFound: unknown task.
absl::StatusOr<AutotvmWorkload> ConvertAutotvmArgs(absl::string_view task,
                                                   const google::protobuf::Value& args);

// TVM's argument list for the template's args `args_json` ([1024,1024,1024,"float32"]), in the
// layout `task` takes (the inverse of ConvertAutotvmArgs). NotFound: unknown task.
// InvalidArgument: args that are not the template's integer args and dtype.
absl::StatusOr<google::protobuf::Value> AutotvmArgsFor(absl::string_view task,
                                                       absl::string_view args_json);

// How a config translated.
struct AutotvmTranslation {
  // The template's knobs, {name: value} with the values as tunefarm writes them
  // ({"tile_ic":[-1,8],"unroll_kernel":"unroll","parallel":1,...}).
  google::protobuf::Value knobs;
  // True when TVM's knobs carried something the template has no knob for (e.g. the middle
  // level of dense_pack's 3-way splits): the translation is the template's nearest point,
  // with the same register tile.
  bool approximate = false;
};

// Translates TVM's knobs `tvm_knobs` ({name: value}) of `task` on a converted workload into the
// template's knobs. FailedPrecondition (the message says why): a task without a translation,
// a missing or unexpected knob, a value of the wrong shape, a choice the template lacks.
absl::StatusOr<AutotvmTranslation> TranslateAutotvmConfig(absl::string_view task,
                                                          const AutotvmWorkload& workload,
                                                          const google::protobuf::Value& tvm_knobs);

// TVM's entity ([[name, type, value], ...] in TVM's definition order) for the template's knobs
// `knobs` of a workload with args `args_json` (the inverse of TranslateAutotvmConfig; knobs TVM
// has no field for are dropped). FailedPrecondition: a task without a translation, or a knob
// missing from `knobs`; InvalidArgument: args that are not the template's.
absl::StatusOr<google::protobuf::Value> AutotvmEntityFor(absl::string_view task,
                                                         absl::string_view args_json,
                                                         const google::protobuf::Value& knobs);

// Config JSON keys that keep what a TVM -> tunefarm -> TVM trip needs (db/autotvm_log.h): the
// provenance of an imported record, not knobs of any space. They sort after most knob names,
// so a config's knobs come first where it is shown shortened.
//   kAutotvmTaskKey: TVM's task, when it is not the template's export task (string).
//   kAutotvmIndexKey: TVM's config index (a non-negative integer).
//   kAutotvmEntityKey: TVM's entity, when the translation was approximate.
//   kAutotvmUntranslatedKey: true when the knobs are TVM's (the config index is then
//     -1 - TVM's index).
//   kAutotvmLegacyTaskKey: what tunefarm 0.1 called kAutotvmTaskKey (still read).
inline constexpr char kAutotvmTaskKey[] = "tvm_task";
inline constexpr char kAutotvmIndexKey[] = "tvm_index";
inline constexpr char kAutotvmEntityKey[] = "tvm_entity";
inline constexpr char kAutotvmUntranslatedKey[] = "tvm_untranslated";
inline constexpr char kAutotvmLegacyTaskKey[] = "_autotvm_task";

// True for the keys above: a config's provenance, which comparisons of knob values ignore and
// an imported entity may not use as a knob name.
bool IsAutotvmProvenanceKey(absl::string_view key);

// True for the knob types of TVM's entity ("sp" split, "re" reorder, "an" annotate, "ot" other
// option: the types TVM's ConfigEntity.from_json_dict reads; it refuses any other).
bool IsAutotvmKnobType(absl::string_view type);

// The integer args and dtype of a canonical args array ([1,2,3,"float32"]).
// InvalidArgument: anything else.
absl::Status ParseTemplateArgs(absl::string_view args_json, std::vector<int64_t>* ints,
                               std::string* dtype);

}  // namespace tunefarm::db

#endif  // TUNEFARM_DB_AUTOTVM_TASKS_H_
