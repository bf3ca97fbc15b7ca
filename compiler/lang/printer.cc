#include "compiler/lang/printer.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace tunefarm::lang {
namespace {

// Binding strength of a binary operator (larger binds tighter), as parser.h's grammar.
int Precedence(const Node& n) {
  if (n.kind == Node::Kind::kUnary) return 6;
  if (n.kind != Node::Kind::kBinary) return 7;
  const std::string& op = n.name;
  if (op == "||") return 1;
  if (op == "&&") return 2;
  if (op == "+" || op == "-") return 4;
  if (op == "*" || op == "/" || op == "%") return 5;
  return 3;  // Comparisons.
}

// The shortest decimal spelling that reads back as exactly `v`, always with a '.' or an
// exponent so it stays a float literal.
std::string FloatText(double v) {
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

void Print(const Node& n, std::string* out);

void PrintChild(const Node& child, bool parenthesize, std::string* out) {
  if (parenthesize) out->push_back('(');
  Print(child, out);
  if (parenthesize) out->push_back(')');
}

void PrintList(const std::vector<NodePtr>& args, std::string* out) {
  for (size_t i = 0; i < args.size(); ++i) {
    if (i > 0) out->append(", ");
    Print(*args[i], out);
  }
}

void PrintAxes(const std::vector<AxisDecl>& axes, std::string* out) {
  for (size_t i = 0; i < axes.size(); ++i) {
    if (i > 0) out->append(", ");
    out->append(axes[i].name);
    if (axes[i].extent != nullptr) {
      out->append(" < ");
      Print(*axes[i].extent, out);
    }
  }
}

void Print(const Node& n, std::string* out) {
  switch (n.kind) {
    case Node::Kind::kInt:
      absl::StrAppend(out, n.int_value);
      return;
    case Node::Kind::kFloat:
      out->append(FloatText(n.float_value));
      return;
    case Node::Kind::kName:
      out->append(n.name);
      return;
    case Node::Kind::kAccess:
    case Node::Kind::kCall:
      out->append(n.name);
      out->push_back(n.kind == Node::Kind::kAccess ? '[' : '(');
      PrintList(n.args, out);
      out->push_back(n.kind == Node::Kind::kAccess ? ']' : ')');
      return;
    case Node::Kind::kReduce:
      absl::StrAppend(out, n.name, "(");
      PrintAxes(n.axes, out);
      out->append(": ");
      Print(*n.args[0], out);
      out->push_back(')');
      return;
    case Node::Kind::kUnary: {
      out->append(n.name);
      // A negative literal operand would read back as "--1" = a literal; keep it apart.
      const Node& a = *n.args[0];
      const bool negative_literal = (a.kind == Node::Kind::kInt && a.int_value < 0) ||
                                    (a.kind == Node::Kind::kFloat && std::signbit(a.float_value));
      PrintChild(a, Precedence(a) < 6 || negative_literal, out);
      return;
    }
    case Node::Kind::kBinary: {
      const int p = Precedence(n);
      const Node& a = *n.args[0];
      const Node& b = *n.args[1];
      // Left-associative: an equal-precedence right operand needs parentheses; comparisons do
      // not chain, so an equal-precedence operand on either side does.
      PrintChild(a, Precedence(a) < p || (p == 3 && Precedence(a) == 3), out);
      absl::StrAppend(out, " ", n.name, " ");
      PrintChild(b, Precedence(b) <= p, out);
      return;
    }
  }
}

// The nested lists of a constant from dimension `dim`, whose first value is `offset`.
void PrintTable(const Statement& s, size_t dim, size_t offset, std::string* out) {
  size_t stride = 1;
  for (size_t d = dim + 1; d < s.table_shape.size(); ++d) stride *= s.table_shape[d];
  out->push_back('[');
  for (int64_t i = 0; i < s.table_shape[dim]; ++i) {
    if (i > 0) out->append(", ");
    if (dim + 1 == s.table_shape.size()) {
      Print(*s.table_values[offset + i], out);
    } else {
      PrintTable(s, dim + 1, offset + i * stride, out);
    }
  }
  out->push_back(']');
}

}  // namespace

std::string ExprText(const Node& node) {
  std::string out;
  Print(node, &out);
  return out;
}

std::string CanonicalText(const Program& program) {
  std::string out;
  for (const Statement& s : program.statements) {
    if (s.kind == Statement::Kind::kInput) {
      absl::StrAppend(&out, s.name, s.weight ? " = weight(" : " = input(", s.dtype, ", [");
      PrintList(s.shape, &out);
      out.append("])\n");
    } else if (s.kind == Statement::Kind::kConstant) {
      absl::StrAppend(&out, s.name, " = constant(", s.dtype, ", ");
      PrintTable(s, 0, 0, &out);
      out.append(")\n");
    } else {
      absl::StrAppend(&out, s.name, "[");
      PrintAxes(s.axes, &out);
      out.append("] = ");
      Print(*s.body, &out);
      out.push_back('\n');
    }
  }
  return out;
}

}  // namespace tunefarm::lang
