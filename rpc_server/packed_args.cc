#include "rpc_server/packed_args.h"

#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tunefarm {

std::unique_ptr<PackedArguments> PackedArguments::Pack(const v1::MeasureRequest& request,
                                                       const HostTensors& tensors,
                                                       const LoadedLibrary& library,
                                                       int64_t max_bytes,
                                                       v1::MeasureResult* error) {
  std::unique_ptr<PackedArguments> out(new PackedArguments());
  out->pointers_.assign(tensors.args(), tensors.args() + tensors.num_args());
  for (const v1::PackedArg& p : request.packed_args()) {
    const int i = p.arg_index();
    if (i < 0 || i >= tensors.num_args() || tensors.is_output(i)) {
      *error = MeasureError(v1::INVALID_REQUEST,
                            absl::StrCat("packed argument ", i, " is not an input of the kernel"));
      return nullptr;
    }
    TfKernelFn pack = library.Symbol(p.pack_kernel_name());
    if (pack == nullptr) {
      *error = MeasureError(v1::LOAD_ERROR, absl::StrCat("pack function '", p.pack_kernel_name(),
                                                         "' not found in artifact"));
      return nullptr;
    }
    google::protobuf::RepeatedPtrField<v1::TensorArg> spec;
    v1::TensorArg* arg = spec.Add();
    *arg->mutable_spec() = p.spec();
    arg->set_is_output(true);
    absl::StatusOr<std::unique_ptr<HostTensors>> packed = HostTensors::Allocate(spec, max_bytes);
    if (!packed.ok()) {
      *error = MeasureError(
          absl::IsResourceExhausted(packed.status()) ? v1::OUT_OF_MEMORY : v1::INVALID_REQUEST,
          absl::StrCat("packed argument ", i, ": ", packed.status().message()));
      return nullptr;
    }
    (*packed)->PoisonOutputs();
    DLTensor* call[2] = {tensors.args()[i], (*packed)->args()[0]};
    if (int32_t rc = pack(call, 2); rc != 0) {
      *error = KernelFailed(absl::StrCat("pack function '", p.pack_kernel_name(), "'"), rc);
      return nullptr;
    }
    out->pointers_[i] = (*packed)->args()[0];
    out->packed_.push_back(*std::move(packed));
  }
  return out;
}

}  // namespace tunefarm
