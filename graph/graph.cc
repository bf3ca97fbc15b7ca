#include "graph/graph.h"

#include <algorithm>
#include <set>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::graph {

const char* DTypeName(DType t) { return t == DType::kFloat32 ? "float32" : "int64"; }

int64_t Tensor::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t Node::Int(const std::string& key, int64_t fallback) const {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.kind == Attribute::Kind::kInt ? it->second.i : fallback;
}

float Node::Float(const std::string& key, float fallback) const {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.kind == Attribute::Kind::kFloat ? it->second.f : fallback;
}

std::vector<int64_t> Node::Ints(const std::string& key, std::vector<int64_t> fallback) const {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.kind == Attribute::Kind::kInts ? it->second.ints
                                                                        : fallback;
}

std::string Node::String(const std::string& key, const std::string& fallback) const {
  auto it = attrs.find(key);
  return it != attrs.end() && it->second.kind == Attribute::Kind::kString ? it->second.s : fallback;
}

const Tensor* Graph::Find(const std::string& name) const {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

Tensor* Graph::Find(const std::string& name) {
  auto it = tensors.find(name);
  return it == tensors.end() ? nullptr : &it->second;
}

bool Graph::IsConstant(const std::string& name) const {
  const Tensor* t = Find(name);
  return t != nullptr && t->constant;
}

bool Graph::IsOutput(const std::string& tensor) const {
  return std::find(outputs.begin(), outputs.end(), tensor) != outputs.end();
}

std::vector<int64_t> TransposePerm(const Node& n, size_t rank) {
  std::vector<int64_t> perm = n.Ints("perm");
  if (perm.empty()) {
    for (size_t d = rank; d-- > 0;) perm.push_back(static_cast<int64_t>(d));
  }
  return perm;
}

std::vector<int> Graph::Consumers(const std::string& tensor) const {
  std::vector<int> out;
  for (size_t i = 0; i < nodes.size(); ++i) {
    for (const std::string& in : nodes[i].inputs) {
      if (in == tensor) {
        out.push_back(static_cast<int>(i));
        break;
      }
    }
  }
  return out;
}

void Graph::ReplaceUses(const std::string& from, const std::string& to) {
  for (Node& n : nodes) {
    for (std::string& in : n.inputs) {
      if (in == from) in = to;
    }
  }
  for (std::string& out : outputs) {
    if (out == from) out = to;
  }
}

void Graph::RemoveDead() {
  std::set<std::string> live(outputs.begin(), outputs.end());
  std::vector<bool> keep(nodes.size(), false);
  for (size_t i = nodes.size(); i-- > 0;) {
    for (const std::string& out : nodes[i].outputs) {
      if (live.count(out)) keep[i] = true;
    }
    if (!keep[i]) continue;
    for (const std::string& in : nodes[i].inputs) {
      if (!in.empty()) live.insert(in);
    }
  }
  std::vector<Node> kept;
  for (size_t i = 0; i < nodes.size(); ++i) {
    if (keep[i]) kept.push_back(std::move(nodes[i]));
  }
  nodes = std::move(kept);
  for (const std::string& in : inputs) live.insert(in);
  for (auto it = tensors.begin(); it != tensors.end();) {
    it = live.count(it->first) ? std::next(it) : tensors.erase(it);
  }
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  return absl::StrCat("[", absl::StrJoin(shape, ", "), "]");
}

}  // namespace tunefarm::graph
