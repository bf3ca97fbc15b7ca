#include "rpc_server/tensors.h"

#include <cmath>
#include <cstdlib>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/aligned_allocator.h"

namespace tunefarm {
namespace {

constexpr uint8_t kPoisonByte = 0xCD;

uint64_t SplitMix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1).
double UnitDouble(uint64_t& state) {
  return static_cast<double>(SplitMix64(state) >> 11) * 0x1.0p-52 - 1.0;
}

// Element i of a tensor as double, for comparison and sums.
double ElementAsDouble(const DLTensor& t, int64_t i) {
  const char* p = static_cast<const char*>(t.data);
  if (t.dtype.code == kDLFloat) {
    if (t.dtype.bits == 32) return reinterpret_cast<const float*>(p)[i];
    if (t.dtype.bits == 64) return reinterpret_cast<const double*>(p)[i];
    return HalfToFloat(reinterpret_cast<const uint16_t*>(p)[i]);
  }
  if (t.dtype.code == kDLInt) {
    switch (t.dtype.bits) {
      case 8:
        return reinterpret_cast<const int8_t*>(p)[i];
      case 16:
        return reinterpret_cast<const int16_t*>(p)[i];
      case 32:
        return reinterpret_cast<const int32_t*>(p)[i];
      default:
        return static_cast<double>(reinterpret_cast<const int64_t*>(p)[i]);
    }
  }
  return reinterpret_cast<const uint8_t*>(p)[i];
}

double Tolerance(const DLDataType& dtype) {
  if (dtype.code != kDLFloat) return 0;
  return dtype.bits == 16 ? 1e-2 : 1e-3;
}

}  // namespace

float HalfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16;
  uint32_t exp = (h >> 10) & 0x1f;
  uint32_t mant = h & 0x3ff;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else {  // subnormal: normalize
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      bits = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7f800000u | (mant << 13);
  } else {
    bits = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

uint16_t FloatToHalf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, 4);
  uint16_t sign = (bits >> 16) & 0x8000;
  int32_t exp = static_cast<int32_t>((bits >> 23) & 0xff) - 127 + 15;
  uint32_t mant = bits & 0x7fffff;
  if (((bits >> 23) & 0xff) == 0xff) return sign | 0x7c00 | (mant ? 0x200 : 0);
  if (exp >= 31) return sign | 0x7c00;
  if (exp <= 0) {
    if (exp < -10) return sign;
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    uint32_t mid = 1u << (shift - 1);
    if (rem > mid || (rem == mid && (half & 1))) ++half;
    return sign | static_cast<uint16_t>(half);
  }
  uint16_t half = sign | static_cast<uint16_t>(exp << 10) | static_cast<uint16_t>(mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return half;
}

absl::StatusOr<DLDataType> ToDlDtype(v1::DType dtype) {
  switch (dtype) {
    case v1::DTYPE_FLOAT32:
      return DLDataType{kDLFloat, 32, 1};
    case v1::DTYPE_FLOAT16:
      return DLDataType{kDLFloat, 16, 1};
    case v1::DTYPE_FLOAT64:
      return DLDataType{kDLFloat, 64, 1};
    case v1::DTYPE_INT8:
      return DLDataType{kDLInt, 8, 1};
    case v1::DTYPE_INT16:
      return DLDataType{kDLInt, 16, 1};
    case v1::DTYPE_INT32:
      return DLDataType{kDLInt, 32, 1};
    case v1::DTYPE_INT64:
      return DLDataType{kDLInt, 64, 1};
    case v1::DTYPE_UINT8:
      return DLDataType{kDLUInt, 8, 1};
    default:
      return absl::InvalidArgumentError(absl::StrCat("unsupported dtype ", dtype));
  }
}

absl::StatusOr<std::unique_ptr<HostTensors>> HostTensors::Allocate(
    const google::protobuf::RepeatedPtrField<v1::TensorArg>& args, int64_t max_bytes) {
  std::unique_ptr<HostTensors> out(new HostTensors());
  int64_t total = 0;
  out->tensors_.resize(args.size());
  for (int i = 0; i < args.size(); ++i) {
    Tensor& t = out->tensors_[i];
    absl::StatusOr<DLDataType> dtype = ToDlDtype(args[i].spec().dtype());
    if (!dtype.ok()) return dtype.status();
    t.shape.assign(args[i].spec().shape().begin(), args[i].spec().shape().end());
    t.elements = 1;
    for (int64_t d : t.shape) {
      if (d < 0 || (d > 0 && t.elements > (int64_t{1} << 40) / d)) {
        return absl::InvalidArgumentError(absl::StrCat("tensor ", i, " has a bad shape"));
      }
      t.elements *= d;
    }
    t.bytes = static_cast<size_t>(t.elements) * dtype->bits / 8;
    total += static_cast<int64_t>(t.bytes);
    if (total > max_bytes) {
      return absl::ResourceExhaustedError(
          absl::StrCat("tensors need more than ", max_bytes, " bytes"));
    }
    void* data = AllocateTensorStorage(t.bytes);
    if (data == nullptr) return absl::ResourceExhaustedError("cannot allocate tensors");
    t.is_output = args[i].is_output();
    t.dl = DLTensor{};
    t.dl.data = data;
    t.dl.device = DLDevice{kDLCPU, 0};
    t.dl.ndim = static_cast<int32_t>(t.shape.size());
    t.dl.dtype = *dtype;
    t.dl.shape = t.shape.data();
    t.dl.strides = nullptr;
    t.dl.byte_offset = 0;
  }
  for (Tensor& t : out->tensors_) out->pointers_.push_back(&t.dl);
  return out;
}

HostTensors::~HostTensors() {
  for (Tensor& t : tensors_) std::free(t.dl.data);
}

void HostTensors::FillInputs(uint64_t seed) {
  for (size_t i = 0; i < tensors_.size(); ++i) {
    Tensor& t = tensors_[i];
    if (t.is_output) continue;
    uint64_t state = seed * 0x100000001B3ull + i;
    char* p = static_cast<char*>(t.dl.data);
    for (int64_t e = 0; e < t.elements; ++e) {
      double u = UnitDouble(state);
      if (t.dl.dtype.code == kDLFloat) {
        if (t.dl.dtype.bits == 32) reinterpret_cast<float*>(p)[e] = static_cast<float>(u);
        if (t.dl.dtype.bits == 64) reinterpret_cast<double*>(p)[e] = u;
        if (t.dl.dtype.bits == 16) {
          reinterpret_cast<uint16_t*>(p)[e] = FloatToHalf(static_cast<float>(u));
        }
      } else if (t.dl.dtype.code == kDLInt) {
        int64_t v = static_cast<int64_t>(std::floor(u * 8));  // [-8, 8)
        if (t.dl.dtype.bits == 8) reinterpret_cast<int8_t*>(p)[e] = static_cast<int8_t>(v);
        if (t.dl.dtype.bits == 16) reinterpret_cast<int16_t*>(p)[e] = static_cast<int16_t>(v);
        if (t.dl.dtype.bits == 32) reinterpret_cast<int32_t*>(p)[e] = static_cast<int32_t>(v);
        if (t.dl.dtype.bits == 64) reinterpret_cast<int64_t*>(p)[e] = v;
      } else {
        reinterpret_cast<uint8_t*>(p)[e] = static_cast<uint8_t>((u + 1) * 8);
      }
    }
  }
}

void HostTensors::PoisonOutputs() {
  for (Tensor& t : tensors_) {
    if (!t.is_output) continue;
    if (t.dl.dtype.code == kDLFloat) {
      // Quiet NaN of the element width.
      char* p = static_cast<char*>(t.dl.data);
      for (int64_t e = 0; e < t.elements; ++e) {
        if (t.dl.dtype.bits == 32) reinterpret_cast<uint32_t*>(p)[e] = 0x7FC00000u;
        if (t.dl.dtype.bits == 64) reinterpret_cast<uint64_t*>(p)[e] = 0x7FF8000000000000ull;
        if (t.dl.dtype.bits == 16) reinterpret_cast<uint16_t*>(p)[e] = 0x7E00;
      }
    } else {
      std::memset(t.dl.data, kPoisonByte, t.bytes);
    }
  }
}

std::vector<std::string> HostTensors::CopyOutputs() const {
  std::vector<std::string> out;
  for (const Tensor& t : tensors_) {
    if (t.is_output) out.emplace_back(static_cast<const char*>(t.dl.data), t.bytes);
  }
  return out;
}

std::string HostTensors::CompareOutputs(const std::vector<std::string>& expected) const {
  size_t k = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    const Tensor& t = tensors_[i];
    if (!t.is_output) continue;
    if (k >= expected.size() || expected[k].size() != t.bytes) {
      return absl::StrCat("output ", k, ": reference has a different size");
    }
    DLTensor want = t.dl;
    want.data = const_cast<char*>(expected[k].data());
    const double tol = Tolerance(t.dl.dtype);
    int64_t bad = 0, first = -1;
    for (int64_t e = 0; e < t.elements; ++e) {
      double g = ElementAsDouble(t.dl, e), w = ElementAsDouble(want, e);
      bool ok = (std::isnan(w) && std::isnan(g)) || std::fabs(g - w) <= tol + tol * std::fabs(w);
      if (!ok) {
        if (first < 0) first = e;
        ++bad;
      }
    }
    if (bad > 0) {
      return absl::StrFormat(
          "output %d: %d of %d elements differ; first at flat index %d: got %g, "
          "want %g",
          k, bad, t.elements, first, ElementAsDouble(t.dl, first), ElementAsDouble(want, first));
    }
    ++k;
  }
  return "";
}

std::string HostTensors::CompareSums(const google::protobuf::RepeatedField<double>& sums) const {
  int k = 0;
  for (const Tensor& t : tensors_) {
    if (!t.is_output) continue;
    if (k >= sums.size()) return absl::StrCat("no reference sum for output ", k);
    double sum = 0;
    for (int64_t e = 0; e < t.elements; ++e) sum += ElementAsDouble(t.dl, e);
    double want = sums[k];
    if (!(std::fabs(sum - want) <= 1e-3 * std::fabs(want) + 1e-4 * t.elements)) {
      return absl::StrFormat("output %d: sum %g, want %g", k, sum, want);
    }
    ++k;
  }
  return "";
}

}  // namespace tunefarm
