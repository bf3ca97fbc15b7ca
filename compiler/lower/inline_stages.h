// compute_inline: substitutes the bodies of inlined stages into every stage that reads them.
#ifndef TUNEFARM_COMPILER_LOWER_INLINE_STAGES_H_
#define TUNEFARM_COMPILER_LOWER_INLINE_STAGES_H_

#include "compiler/lower/infer_bound.h"
#include "compiler/schedule/schedule.h"

namespace tunefarm::lower {

// Returns the body of every compute stage with loads of inlined stages replaced by their
// (recursively inlined) definitions at the loaded indices.
Bodies InlineStages(const schedule::Schedule& sch);

}  // namespace tunefarm::lower

#endif  // TUNEFARM_COMPILER_LOWER_INLINE_STAGES_H_
