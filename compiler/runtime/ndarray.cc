#include "compiler/runtime/ndarray.h"

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/aligned_allocator.h"

namespace tunefarm::runtime {
namespace {

// v as an integer of type I: rounded toward zero and clamped to I's range; NaN (the tests'
// "not written" fill) is I's minimum. A plain cast of such values is undefined behaviour.
template <typename I>
I ToInteger(double v) {
  if (std::isnan(v)) return std::numeric_limits<I>::min();
  if (v <= static_cast<double>(std::numeric_limits<I>::min())) {
    return std::numeric_limits<I>::min();
  }
  if (v >= static_cast<double>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  return static_cast<I>(v);
}

// fp16 <-> float conversions (IEEE binary16, round to nearest even).
float HalfToFloat(uint16_t h) {
  uint32_t sign = (h & 0x8000u) << 16, exp = (h >> 10) & 0x1f, mant = h & 0x3ff;
  uint32_t f;
  if (exp == 0) {
    if (mant == 0) {
      f = sign;
    } else {
      exp = 127 - 15 + 1;
      while ((mant & 0x400) == 0) {
        mant <<= 1;
        --exp;
      }
      f = sign | (exp << 23) | ((mant & 0x3ff) << 13);
    }
  } else if (exp == 31) {
    f = sign | 0x7f800000u | (mant << 13);
  } else {
    f = sign | ((exp + 127 - 15) << 23) | (mant << 13);
  }
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

uint16_t FloatToHalf(float v) {
  uint32_t f;
  std::memcpy(&f, &v, 4);
  uint32_t sign = (f >> 16) & 0x8000u;
  int32_t exp = static_cast<int32_t>((f >> 23) & 0xff) - 127 + 15;
  uint32_t mant = f & 0x7fffff;
  if (((f >> 23) & 0xff) == 0xff) return static_cast<uint16_t>(sign | 0x7c00 | (mant ? 0x200 : 0));
  if (exp >= 31) return static_cast<uint16_t>(sign | 0x7c00);
  if (exp <= 0) {
    if (exp < -10) return static_cast<uint16_t>(sign);
    mant |= 0x800000;
    uint32_t shift = static_cast<uint32_t>(14 - exp);
    uint32_t half = mant >> shift;
    uint32_t rem = mant & ((1u << shift) - 1);
    if (rem > (1u << (shift - 1)) || (rem == (1u << (shift - 1)) && (half & 1))) ++half;
    return static_cast<uint16_t>(sign | half);
  }
  uint32_t half = sign | (static_cast<uint32_t>(exp) << 10) | (mant >> 13);
  uint32_t rem = mant & 0x1fff;
  if (rem > 0x1000 || (rem == 0x1000 && (half & 1))) ++half;
  return static_cast<uint16_t>(half);
}

}  // namespace

absl::StatusOr<NDArray> NDArray::Empty(std::vector<int64_t> shape, ir::DataType dtype) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (d <= 0) return absl::InvalidArgumentError("NDArray: dimensions must be positive");
    n *= d;
  }
  if (dtype.lanes != 1 || dtype.is_handle()) {
    return absl::InvalidArgumentError(
        absl::StrCat("NDArray: unsupported dtype ", dtype.ToString()));
  }
  NDArray a;
  a.shape_ = std::move(shape);
  a.dtype_ = dtype;
  size_t bytes = static_cast<size_t>(n * dtype.bytes());
  auto* p = static_cast<uint8_t*>(AllocateTensorStorage(bytes));
  if (p == nullptr) return absl::ResourceExhaustedError("NDArray: out of memory");
  a.storage_ = std::unique_ptr<uint8_t[], void (*)(uint8_t*)>(p, [](uint8_t* q) { std::free(q); });
  a.tensor_.data = p;
  a.tensor_.device = DLDevice{kDLCPU, 0};
  a.tensor_.ndim = static_cast<int32_t>(a.shape_.size());
  uint8_t code = dtype.is_float()                       ? kDLFloat
                 : (dtype.is_uint() || dtype.is_bool()) ? kDLUInt
                                                        : kDLInt;
  a.tensor_.dtype = DLDataType{code, static_cast<uint8_t>(dtype.is_bool() ? 8 : dtype.bits), 1};
  a.tensor_.shape = a.shape_.data();
  a.tensor_.strides = nullptr;
  a.tensor_.byte_offset = 0;
  return a;
}

int64_t NDArray::size() const {
  int64_t n = 1;
  for (int64_t d : shape_) n *= d;
  return n;
}

double NDArray::Get(int64_t i) const {
  const uint8_t* p = storage_.get();
  switch (dtype_.code) {
    case ir::DataType::Code::kFloat:
      if (dtype_.bits == 32) return reinterpret_cast<const float*>(p)[i];
      if (dtype_.bits == 64) return reinterpret_cast<const double*>(p)[i];
      return HalfToFloat(reinterpret_cast<const uint16_t*>(p)[i]);
    case ir::DataType::Code::kInt:
      if (dtype_.bits == 8) return reinterpret_cast<const int8_t*>(p)[i];
      if (dtype_.bits == 16) return reinterpret_cast<const int16_t*>(p)[i];
      if (dtype_.bits == 32) return reinterpret_cast<const int32_t*>(p)[i];
      return static_cast<double>(reinterpret_cast<const int64_t*>(p)[i]);
    case ir::DataType::Code::kUInt:
    case ir::DataType::Code::kBool:
      if (dtype_.bits <= 8) return p[i];
      return reinterpret_cast<const uint32_t*>(p)[i];
    default:
      return 0;
  }
}

void NDArray::Set(int64_t i, double v) {
  uint8_t* p = storage_.get();
  switch (dtype_.code) {
    case ir::DataType::Code::kFloat:
      if (dtype_.bits == 32)
        reinterpret_cast<float*>(p)[i] = static_cast<float>(v);
      else if (dtype_.bits == 64)
        reinterpret_cast<double*>(p)[i] = v;
      else
        reinterpret_cast<uint16_t*>(p)[i] = FloatToHalf(static_cast<float>(v));
      return;
    case ir::DataType::Code::kInt:
      if (dtype_.bits == 8)
        reinterpret_cast<int8_t*>(p)[i] = ToInteger<int8_t>(v);
      else if (dtype_.bits == 16)
        reinterpret_cast<int16_t*>(p)[i] = ToInteger<int16_t>(v);
      else if (dtype_.bits == 32)
        reinterpret_cast<int32_t*>(p)[i] = ToInteger<int32_t>(v);
      else
        reinterpret_cast<int64_t*>(p)[i] = ToInteger<int64_t>(v);
      return;
    case ir::DataType::Code::kUInt:
    case ir::DataType::Code::kBool:
      if (dtype_.bits <= 8)
        p[i] = ToInteger<uint8_t>(v);
      else
        reinterpret_cast<uint32_t*>(p)[i] = ToInteger<uint32_t>(v);
      return;
    default:
      return;
  }
}

void NDArray::FillRandom(uint64_t seed, double lo, double hi) {
  uint64_t x = seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  for (int64_t i = 0; i < size(); ++i) {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    double u = static_cast<double>((x * 0x2545F4914F6CDD1Dull) >> 11) / 9007199254740992.0;
    double v = lo + (hi - lo) * u;
    Set(i, dtype_.is_float() ? v : std::floor(v));
  }
}

void NDArray::Fill(double v) {
  for (int64_t i = 0; i < size(); ++i) Set(i, v);
}

double MaxRelError(const NDArray& a, const NDArray& b, double rtol, double atol) {
  double worst = 0;
  for (int64_t i = 0; i < a.size(); ++i) {
    double x = a.Get(i), y = b.Get(i);
    if (std::isnan(x) != std::isnan(y)) return INFINITY;
    if (std::isnan(x)) continue;
    worst = std::max(worst, std::fabs(x - y) / (atol + rtol * std::fabs(y)));
  }
  return worst;
}

absl::Status Call(TfKernelFn fn, std::vector<NDArray*> args) {
  std::vector<DLTensor*> dl;
  for (NDArray* a : args) dl.push_back(a->dl());
  int32_t rc = fn(dl.data(), static_cast<int32_t>(dl.size()));
  if (rc != TF_KERNEL_OK) return absl::InternalError(absl::StrCat("kernel returned error ", rc));
  return absl::OkStatus();
}

}  // namespace tunefarm::runtime
