// Candidate builds on the farm's builder workers (`tunefarm server --role builder`): the tuner
// sends a round's configs as build requests (v1::BuildSpec: task, target, config index) through
// the tracker to the builders' device key, and each answer carries the content-hashed artifact
// and the kernel's arguments (v1::BuiltArtifact). Artifacts come back through the tuner, which
// then submits them for measurement as it does its own builds: it needs each artifact's hash
// and arguments for the measure request anyway, and build failures stay results in its log.
#ifndef TUNEFARM_TUNER_SERVICE_FARM_BUILD_H_
#define TUNEFARM_TUNER_SERVICE_FARM_BUILD_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "farm/tracker_client.h"
#include "proto/measure.pb.h"
#include "tuner/tuning/builder.h"
#include "tuner/tuning/task.h"

namespace tunefarm::tuner {

// The builder's side: builds what `spec` names. Never fails: a spec that does not make a task,
// a config outside the space or a config that does not build gives a BUILD_ERROR result with
// the message; thread-safe. Tasks are made once per distinct task and target (a small cache).
v1::MeasureResult BuildFromSpec(const v1::BuildSpec& spec);

// The task as a builder can make it again: a registry template (its generated space too), or a
// program of the language (its canonical text, name and shape bindings).
absl::StatusOr<v1::TaskSpec> TaskSpecOf(const TuneTask& task);

// Builds configs `indices` of `task` on the builders of `builder_key`, as job `job_id`;
// results in the order of `indices`, like BuildAll. A build that fails on a builder is a result
// with its error. Errors of the farm itself (no builder answers within `timeout`, the tracker
// refuses the batch) are returned, so the caller can build locally instead.
absl::StatusOr<std::vector<BuildResult>> BuildOnFarm(
    TrackerClient& client, const std::string& job_id, const std::string& builder_key,
    const TuneTask& task, const std::vector<int64_t>& indices, absl::Duration timeout);

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_FARM_BUILD_H_
