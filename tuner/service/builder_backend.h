// A builder worker's "device": the generic Worker (rpc_server/worker.h) leases build requests
// from the tracker and this backend compiles them (farm_build.h's BuildFromSpec). It lives in
// the tuner, beside LLVM; the device agent stays free of it.
#ifndef TUNEFARM_TUNER_SERVICE_BUILDER_BACKEND_H_
#define TUNEFARM_TUNER_SERVICE_BUILDER_BACKEND_H_

#include <string>

#include "rpc_server/device_backend.h"

namespace tunefarm::tuner {

class BuilderBackend final : public DeviceBackend {
 public:
  // Describes the builder as a device of its machine's CPU, role "builder".
  void Describe(v1::DeviceDescription* device) const override;
  // Builds request.build(); a request without one is a BUILD_ERROR (a measuring request sent
  // to a builder's key by mistake).
  v1::MeasureResult Measure(const v1::MeasureRequest& request, const std::string& artifact_path,
                            const std::string& reference_path) override;
  // Builds are not timed: there is no noise to report.
  absl::StatusOr<double> MeasureNoise() override { return 0.0; }
};

}  // namespace tunefarm::tuner

#endif  // TUNEFARM_TUNER_SERVICE_BUILDER_BACKEND_H_
