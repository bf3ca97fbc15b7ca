// A tensor-expression program as a template: its definition comes from the program text (see
// compiler/lang), its schedule space is generated from its stage graph (generated_space.h).
//
// Identity in the tuning log: the template name is "expr:<name>:<hash>", where <hash> is 16 hex
// digits of the FNV-1a 64 hash of the program's canonical text, so programs that differ only
// in layout or comments share their records and any other change starts afresh. The workload's
// args are the values of the shape variables in order of first appearance (ShapeVariables),
// then the output's dtype; the target is logged beside it as for every record.
#ifndef TUNEFARM_TUNER_GENERATED_PROGRAM_TEMPLATE_H_
#define TUNEFARM_TUNER_GENERATED_PROGRAM_TEMPLATE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/lang/ast.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

// The prefix of every program's template name.
inline constexpr absl::string_view kProgramPrefix = "expr:";

class ProgramTemplate : public Template {
 public:
  // Parses `text`. `name` (for people; letters, digits, '_' and '-', at most 64) defaults to
  // "program" when empty. InvalidArgument: a bad name, or the program does not parse (the
  // parser's message with line and column).
  static absl::StatusOr<std::shared_ptr<const ProgramTemplate>> Create(absl::string_view name,
                                                                       absl::string_view text);

  // "expr:<name>:<hash>".
  std::string name() const override { return template_name_; }
  // The shape variables, "M,N,K".
  std::string args_doc() const override;
  // `args`: one value per shape variable, in order. `dtype` must be the output's dtype (the
  // program fixes its own types). InvalidArgument: a wrong count, or any elaboration error.
  absl::StatusOr<Workload> MakeWorkload(const std::vector<int64_t>& args,
                                        ir::DataType dtype) const override;
  // The generated space. Unimplemented for CUDA targets (see generated_space.h).
  absl::Status DefineSpace(const Workload& w, const codegen::Target& target,
                           ConfigSpace* space) const override;
  absl::StatusOr<Instance> Instantiate(const Workload& w, const codegen::Target& target,
                                       const Config* config) const override;

  // The canonical text (what the hash is of), the name given, the shape variables.
  const std::string& canonical_text() const { return canonical_; }
  const std::string& program_name() const { return program_name_; }
  const std::vector<std::string>& shape_variables() const { return shape_vars_; }
  // The workload args for named bindings. InvalidArgument: a variable without a value, or a
  // value for a name that is not a shape variable.
  absl::StatusOr<std::vector<int64_t>> ArgsFor(
      const absl::flat_hash_map<std::string, int64_t>& shapes) const;
  // The output's dtype under `args` (elaborates the program).
  absl::StatusOr<ir::DataType> OutputType(const std::vector<int64_t>& args) const;

 private:
  ProgramTemplate() = default;
  // The program's kernel arguments under `args`; its FLOP count and weights when asked.
  absl::StatusOr<std::vector<te::Tensor>> Build(const std::vector<int64_t>& args, double* flop,
                                                std::vector<te::Tensor>* weights = nullptr) const;

  std::string program_name_;
  std::string canonical_;
  std::string template_name_;
  std::vector<std::string> shape_vars_;
  std::shared_ptr<const lang::Program> program_;
};

// The 16-hex-digit hash of a canonical program text, as in the template name.
std::string ProgramHash(absl::string_view canonical_text);

// Splits "expr:<name>:<hash>" into name and hash. InvalidArgument: not of that form.
absl::Status ParseProgramTemplateName(absl::string_view template_name, std::string* name,
                                      std::string* hash);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_PROGRAM_TEMPLATE_H_
