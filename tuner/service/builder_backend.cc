#include "tuner/service/builder_backend.h"

#include "compiler/codegen/target.h"
#include "tuner/service/farm_build.h"

namespace tunefarm::tuner {

void BuilderBackend::Describe(v1::DeviceDescription* device) const {
  const codegen::Target host = codegen::HostTarget();
  device->set_cpu_model(host.cpu);
  (*device->mutable_labels())["role"] = "builder";
}

v1::MeasureResult BuilderBackend::Measure(const v1::MeasureRequest& request, const std::string&,
                                          const std::string&) {
  if (!request.has_build()) {
    v1::MeasureResult r;
    r.set_error(v1::BUILD_ERROR);
    r.set_message("this worker is a builder: the request names nothing to build");
    return r;
  }
  return BuildFromSpec(request.build());
}

}  // namespace tunefarm::tuner
