#include "tuner/tuning/error_class.h"

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::tuner {

using db::ErrorClass;

ErrorClass ErrorClassOfResult(v1::ErrorClass e) {
  switch (e) {
    case v1::ERROR_NONE:
      return ErrorClass::kOk;
    case v1::BUILD_ERROR:
      return ErrorClass::kBuildError;
    case v1::LOAD_ERROR:
      return ErrorClass::kLoadError;
    case v1::RUNTIME_ERROR:
      return ErrorClass::kRuntimeError;
    case v1::WRONG_ANSWER:
      return ErrorClass::kWrongAnswer;
    case v1::TIMEOUT:
      return ErrorClass::kRunTimeout;
    case v1::DEVICE_LOST:
      return ErrorClass::kDeviceLost;
    case v1::OUT_OF_MEMORY:
      return ErrorClass::kOutOfMemory;
    case v1::INVALID_REQUEST:
      return ErrorClass::kInvalidConfig;
    default:
      return ErrorClass::kUnknown;
  }
}

v1::RecordErrorClass ToRecordErrorClass(ErrorClass e) {
  switch (e) {
    case ErrorClass::kOk:
      return v1::ERROR_CLASS_OK;
    case ErrorClass::kInvalidConfig:
      return v1::ERROR_CLASS_INVALID_CONFIG;
    case ErrorClass::kBuildError:
      return v1::ERROR_CLASS_BUILD_ERROR;
    case ErrorClass::kLoadError:
      return v1::ERROR_CLASS_LOAD_ERROR;
    case ErrorClass::kRuntimeError:
      return v1::ERROR_CLASS_RUNTIME_ERROR;
    case ErrorClass::kWrongAnswer:
      return v1::ERROR_CLASS_WRONG_ANSWER;
    case ErrorClass::kBuildTimeout:
      return v1::ERROR_CLASS_BUILD_TIMEOUT;
    case ErrorClass::kRunTimeout:
      return v1::ERROR_CLASS_RUN_TIMEOUT;
    case ErrorClass::kDeviceLost:
      return v1::ERROR_CLASS_DEVICE_LOST;
    case ErrorClass::kOutOfMemory:
      return v1::ERROR_CLASS_OUT_OF_MEMORY;
    case ErrorClass::kUnknown:
      break;
  }
  return v1::ERROR_CLASS_UNKNOWN;
}

absl::StatusOr<ErrorClass> FromRecordErrorClass(int e) {
  switch (e) {
    case v1::ERROR_CLASS_OK:
      return ErrorClass::kOk;
    case v1::ERROR_CLASS_INVALID_CONFIG:
      return ErrorClass::kInvalidConfig;
    case v1::ERROR_CLASS_BUILD_ERROR:
      return ErrorClass::kBuildError;
    case v1::ERROR_CLASS_LOAD_ERROR:
      return ErrorClass::kLoadError;
    case v1::ERROR_CLASS_RUNTIME_ERROR:
      return ErrorClass::kRuntimeError;
    case v1::ERROR_CLASS_WRONG_ANSWER:
      return ErrorClass::kWrongAnswer;
    case v1::ERROR_CLASS_BUILD_TIMEOUT:
      return ErrorClass::kBuildTimeout;
    case v1::ERROR_CLASS_RUN_TIMEOUT:
      return ErrorClass::kRunTimeout;
    case v1::ERROR_CLASS_DEVICE_LOST:
      return ErrorClass::kDeviceLost;
    case v1::ERROR_CLASS_OUT_OF_MEMORY:
      return ErrorClass::kOutOfMemory;
    case v1::ERROR_CLASS_UNKNOWN:
      return ErrorClass::kUnknown;
    default:
      return absl::InvalidArgumentError(absl::StrCat("unknown record error class ", e));
  }
}

}  // namespace tunefarm::tuner
