#include "db/nearest_shape.h"

#include <cmath>
#include <vector>

#include "db/json.h"

namespace tunefarm::db {
namespace {

void Flatten(const google::protobuf::Value& v, std::vector<const google::protobuf::Value*>* out) {
  if (v.has_list_value()) {
    for (const auto& e : v.list_value().values()) Flatten(e, out);
    return;
  }
  out->push_back(&v);
}

}  // namespace

std::optional<double> ShapeDistance(absl::string_view args_a, absl::string_view args_b) {
  auto a = ParseJson(args_a);
  auto b = ParseJson(args_b);
  if (!a.ok() || !b.ok()) return std::nullopt;
  std::vector<const google::protobuf::Value*> la, lb;
  Flatten(*a, &la);
  Flatten(*b, &lb);
  if (la.size() != lb.size()) return std::nullopt;
  double distance = 0;
  for (size_t i = 0; i < la.size(); ++i) {
    bool na = la[i]->kind_case() == google::protobuf::Value::kNumberValue;
    bool nb = lb[i]->kind_case() == google::protobuf::Value::kNumberValue;
    if (na != nb) return std::nullopt;
    if (!na) {
      if (CanonicalJson(*la[i]) != CanonicalJson(*lb[i])) return std::nullopt;
      continue;
    }
    double x = la[i]->number_value(), y = lb[i]->number_value();
    if (x > 0 && y > 0) {
      distance += std::fabs(std::log(x / y));
    } else {
      distance += std::fabs(x - y);
    }
  }
  return distance;
}

}  // namespace tunefarm::db
