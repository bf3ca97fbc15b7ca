// A registry template's operator with the generated space instead of the template's own
// (`tunefarm tune dense --space generated`), so the two can be measured side by side. The
// definition is the template's plain program (its correctness reference); the template name
// is "generated:<template>", so the log keeps the two spaces' records apart.
#ifndef TUNEFARM_TUNER_GENERATED_GENERATED_TEMPLATE_H_
#define TUNEFARM_TUNER_GENERATED_GENERATED_TEMPLATE_H_

#include <memory>

#include "absl/strings/string_view.h"
#include "tuner/templates/template.h"

namespace tunefarm::tuner {

inline constexpr absl::string_view kGeneratedPrefix = "generated:";

// `base` must outlive the result (registry templates live as long as the process).
std::shared_ptr<const Template> WithGeneratedSpace(const Template* base);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_GENERATED_GENERATED_TEMPLATE_H_
