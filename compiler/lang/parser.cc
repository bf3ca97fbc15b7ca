#include "compiler/lang/parser.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "compiler/lang/lexer.h"

namespace tunefarm::lang {
namespace {

// A parsed expression and the height of its tree (a leaf is 1), which bounds the recursion of
// every later pass.
struct Parsed {
  NodePtr node;
  int height = 1;
};

std::string Describe(const Token& t) {
  switch (t.kind) {
    case TokenKind::kEnd:
      return "the end of the program";
    case TokenKind::kEndStmt:
      return "the end of the statement";
    default:
      return absl::StrCat("'", t.text, "'");
  }
}

class Parser {
 public:
  explicit Parser(std::vector<Token> tokens) : tokens_(std::move(tokens)) {}

  absl::StatusOr<Program> Run() {
    Program program;
    while (Peek().kind != TokenKind::kEnd) {
      absl::StatusOr<Statement> s = ParseStatement();
      if (!s.ok()) return s.status();
      program.statements.push_back(*std::move(s));
    }
    if (program.statements.empty()) {
      return ErrorAt(Peek(), "the program is empty; it needs at least an input and a definition");
    }
    return program;
  }

 private:
  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(pos_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = Peek();
    if (pos_ < tokens_.size() - 1) ++pos_;
    return t;
  }
  bool IsPunct(absl::string_view p, size_t ahead = 0) const {
    const Token& t = Peek(ahead);
    return t.kind == TokenKind::kPunct && t.text == p;
  }
  static absl::Status ErrorAt(const Token& t, absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("line ", t.line, ", column ", t.column, ": ", what));
  }
  absl::Status Expected(absl::string_view what) const {
    return ErrorAt(Peek(), absl::StrCat("expected ", what, ", found ", Describe(Peek())));
  }
  absl::Status Expect(absl::string_view p) {
    if (!IsPunct(p)) return Expected(absl::StrCat("'", p, "'"));
    Next();
    return absl::OkStatus();
  }
  static SourcePos PosOf(const Token& t) { return SourcePos{t.line, t.column}; }

  absl::StatusOr<Statement> ParseStatement() {
    const Token& name = Peek();
    if (name.kind != TokenKind::kIdent) {
      return Expected("a statement (`X = input(...)` or `X[i, ...] = ...`)");
    }
    Next();
    Statement s;
    s.name = name.text;
    s.pos = PosOf(name);
    if (IsPunct("=")) {
      Next();
      const bool declaration =
          Peek().kind == TokenKind::kIdent && IsPunct("(", 1) &&
          (Peek().text == "input" || Peek().text == "weight" || Peek().text == "constant");
      if (!declaration) {
        return ErrorAt(
            Peek(), absl::StrCat("'", s.name, " = ...' declares an input and must read `", s.name,
                                 " = input(dtype, [extents])` (or weight(...) for a constant "
                                 "such as a layer's parameters, constant(dtype, [[...]]) for a "
                                 "table written here); a computed tensor is "
                                 "defined with its indices, e.g. `",
                                 s.name, "[i, j] = ...`"));
      }
      const bool table = Peek().text == "constant";
      s.weight = Peek().text == "weight";
      Next();
      Next();
      s.kind = table ? Statement::Kind::kConstant : Statement::Kind::kInput;
      if (Peek().kind != TokenKind::kIdent) return Expected("an element type such as float32");
      s.dtype = Peek().text;
      s.dtype_pos = PosOf(Peek());
      Next();
      if (absl::Status st = Expect(","); !st.ok()) return st;
      if (table) {
        absl::StatusOr<std::vector<int64_t>> shape = ParseTable(1, &s.table_values);
        if (!shape.ok()) return shape.status();
        s.table_shape = *std::move(shape);
      } else {
        if (absl::Status st = Expect("["); !st.ok()) return st;
        while (true) {
          absl::StatusOr<Parsed> e = ParseExpr(0);
          if (!e.ok()) return e.status();
          s.shape.push_back(std::move(e->node));
          if (IsPunct("]")) break;
          if (absl::Status st = Expect(","); !st.ok()) return st;
        }
        Next();
      }
      if (absl::Status st = Expect(")"); !st.ok()) return st;
    } else if (IsPunct("[")) {
      Next();
      s.kind = Statement::Kind::kDefine;
      absl::Status st = ParseAxes("]", &s.axes);
      if (!st.ok()) return st;
      Next();
      if (absl::Status st = Expect("="); !st.ok()) return st;
      absl::StatusOr<Parsed> body = ParseExpr(0);
      if (!body.ok()) return body.status();
      s.body = std::move(body->node);
    } else {
      return Expected(absl::StrCat("'=' or '[' after '", s.name, "'"));
    }
    if (Peek().kind == TokenKind::kEndStmt) {
      Next();
    } else if (Peek().kind != TokenKind::kEnd) {
      return Expected("the end of the statement (a newline or ';')");
    }
    return s;
  }

  // A constant's nested lists, from the '[' at `rank` (1 for the outermost list): appends the
  // literals to `values` in row-major order and returns the extents from this level down.
  absl::StatusOr<std::vector<int64_t>> ParseTable(int rank, std::vector<NodePtr>* values) {
    if (rank > kMaxTableRank) {
      return ErrorAt(Peek(), absl::StrCat("a constant has at most ", kMaxTableRank, " dimensions"));
    }
    if (absl::Status st = Expect("["); !st.ok()) return st;
    std::vector<int64_t> inner;
    int64_t count = 0;
    const bool nested = IsPunct("[");
    while (true) {
      if (nested) {
        const Token& at = Peek();
        absl::StatusOr<std::vector<int64_t>> sub = ParseTable(rank + 1, values);
        if (!sub.ok()) return sub.status();
        if (count > 0 && *sub != inner) {
          return ErrorAt(at, absl::StrCat("a constant's lists must be rectangular: this one has "
                                          "extents [",
                                          absl::StrJoin(*sub, ", "), "], the first had [",
                                          absl::StrJoin(inner, ", "), "]"));
        }
        inner = *std::move(sub);
      } else {
        const Token& at = Peek();
        const bool negative = IsPunct("-");
        if (negative) Next();
        const Token& t = Peek();
        if (t.kind != TokenKind::kInt && t.kind != TokenKind::kFloat) {
          return Expected(nested ? "a list '['" : "a number (a constant's values are literals)");
        }
        if (t.kind == TokenKind::kFloat && !std::isfinite(t.float_value)) {
          return ErrorAt(t, "a float literal must be finite");
        }
        auto n = std::make_unique<Node>();
        n->kind = t.kind == TokenKind::kInt ? Node::Kind::kInt : Node::Kind::kFloat;
        n->pos = PosOf(at);
        n->int_value = negative ? -t.int_value : t.int_value;
        n->float_value = negative ? -t.float_value : t.float_value;
        Next();
        values->push_back(std::move(n));
        if (values->size() > static_cast<size_t>(kMaxTableValues)) {
          return ErrorAt(at, absl::StrCat("a constant holds at most ", kMaxTableValues, " values"));
        }
      }
      ++count;
      if (IsPunct("]")) break;
      if (absl::Status st = Expect(","); !st.ok()) return st;
    }
    Next();
    inner.insert(inner.begin(), count);
    return inner;
  }

  // axis (',' axis)* up to (not including) `close`, which is ":" or "]".
  absl::Status ParseAxes(absl::string_view close, std::vector<AxisDecl>* out) {
    while (true) {
      if (Peek().kind != TokenKind::kIdent) return Expected("an index variable name");
      AxisDecl a;
      a.name = Peek().text;
      a.pos = PosOf(Peek());
      Next();
      if (IsPunct("<")) {
        Next();
        absl::StatusOr<Parsed> e = ParseExpr(0);
        if (!e.ok()) return e.status();
        a.extent = std::move(e->node);
      }
      out->push_back(std::move(a));
      if (IsPunct(close)) return absl::OkStatus();
      if (!IsPunct(",")) return Expected(absl::StrCat("',' or '", close, "'"));
      Next();
    }
  }

  // Binary operators by precedence level, loosest first.
  static const std::vector<std::vector<absl::string_view>>& Levels() {
    static const auto* levels = new std::vector<std::vector<absl::string_view>>{
        {"||"}, {"&&"}, {"<", "<=", ">", ">=", "==", "!="}, {"+", "-"}, {"*", "/", "%"}};
    return *levels;
  }

  absl::StatusOr<Parsed> ParseExpr(size_t level) {
    if (level == Levels().size()) return ParseUnary();
    absl::StatusOr<Parsed> lhs = ParseExpr(level + 1);
    if (!lhs.ok()) return lhs;
    const bool comparison = level == 2;  // Comparisons do not chain: `a < b < c` is an error.
    while (true) {
      const Token& op = Peek();
      if (op.kind != TokenKind::kPunct) return lhs;
      const auto& ops = Levels()[level];
      if (std::find(ops.begin(), ops.end(), op.text) == ops.end()) return lhs;
      Next();
      absl::StatusOr<Parsed> rhs = ParseExpr(level + 1);
      if (!rhs.ok()) return rhs;
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::kBinary;
      n->pos = lhs->node->pos;
      n->name = op.text;
      const int height = 1 + std::max(lhs->height, rhs->height);
      n->args.push_back(std::move(lhs->node));
      n->args.push_back(std::move(rhs->node));
      absl::StatusOr<Parsed> joined = Make(std::move(n), height, op);
      if (!joined.ok()) return joined;
      lhs = std::move(joined);
      if (comparison && Peek().kind == TokenKind::kPunct) {
        if (std::find(ops.begin(), ops.end(), Peek().text) != ops.end()) {
          return ErrorAt(Peek(), "comparisons do not chain; join them with &&");
        }
      }
    }
  }

  absl::StatusOr<Parsed> Make(std::unique_ptr<Node> n, int height, const Token& at) {
    if (height > kMaxExpressionDepth) {
      return ErrorAt(at, absl::StrCat("expression nested deeper than ", kMaxExpressionDepth,
                                      " levels; split it into stages"));
    }
    return Parsed{std::move(n), height};
  }

  // Recursion through unary operators and parentheses is counted across both, so the stack
  // stays bounded before any node is built.
  absl::StatusOr<Parsed> ParseUnary() {
    if (nesting_ > kMaxExpressionDepth) {
      return ErrorAt(
          Peek(), absl::StrCat("expression nested deeper than ", kMaxExpressionDepth, " levels"));
    }
    ++nesting_;
    absl::StatusOr<Parsed> out = ParseUnaryNested();
    --nesting_;
    return out;
  }

  absl::StatusOr<Parsed> ParseUnaryNested() {
    if (IsPunct("-") || IsPunct("!")) {
      const Token& op = Next();
      absl::StatusOr<Parsed> operand = ParseUnary();
      if (!operand.ok()) return operand;
      // A negative literal is a literal, so `-1` prints and folds as one number.
      if (op.text == "-" && operand->node->kind == Node::Kind::kInt &&
          operand->node->int_value != INT64_MIN) {
        auto n = std::make_unique<Node>(
            Node{Node::Kind::kInt, PosOf(op), "", -operand->node->int_value, 0, {}, {}});
        return Parsed{std::move(n), 1};
      }
      if (op.text == "-" && operand->node->kind == Node::Kind::kFloat) {
        auto n = std::make_unique<Node>(
            Node{Node::Kind::kFloat, PosOf(op), "", 0, -operand->node->float_value, {}, {}});
        return Parsed{std::move(n), 1};
      }
      auto n = std::make_unique<Node>();
      n->kind = Node::Kind::kUnary;
      n->pos = PosOf(op);
      n->name = op.text;
      const int height = operand->height + 1;
      n->args.push_back(std::move(operand->node));
      return Make(std::move(n), height, op);
    }
    return ParsePrimary();
  }

  // True when the call starting at '(' (the current token) holds a ':' at its own level: a
  // reduction such as `max(k: ...)` rather than `max(a, b)`.
  bool CallHasColon() const {
    int depth = 0;
    for (size_t i = pos_; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      if (t.kind == TokenKind::kEnd || t.kind == TokenKind::kEndStmt) return false;
      if (t.kind != TokenKind::kPunct) continue;
      if (t.text == "(" || t.text == "[") ++depth;
      if (t.text == ")" || t.text == "]") {
        if (--depth == 0) return false;
      }
      if (t.text == ":" && depth == 1) return true;
    }
    return false;
  }

  absl::StatusOr<Parsed> ParsePrimary() {
    const Token& t = Peek();
    if (t.kind == TokenKind::kInt || t.kind == TokenKind::kFloat) {
      if (t.kind == TokenKind::kFloat && !std::isfinite(t.float_value)) {
        return ErrorAt(t, absl::StrCat("float literal '", t.text, "' is out of range"));
      }
      Next();
      auto n = std::make_unique<Node>();
      n->kind = t.kind == TokenKind::kInt ? Node::Kind::kInt : Node::Kind::kFloat;
      n->pos = PosOf(t);
      n->int_value = t.int_value;
      n->float_value = t.float_value;
      return Parsed{std::move(n), 1};
    }
    if (IsPunct("(")) {
      Next();
      absl::StatusOr<Parsed> inner = ParseExpr(0);
      if (!inner.ok()) return inner;
      if (absl::Status st = Expect(")"); !st.ok()) return st;
      return inner;
    }
    if (t.kind != TokenKind::kIdent) return Expected("a value, a name or '('");
    Next();
    auto n = std::make_unique<Node>();
    n->pos = PosOf(t);
    n->name = t.text;
    int height = 1;
    const bool reduction_name = t.text == "sum" || t.text == "max" || t.text == "min";
    if (IsPunct("(") && reduction_name && CallHasColon()) {
      Next();
      n->kind = Node::Kind::kReduce;
      if (absl::Status st = ParseAxes(":", &n->axes); !st.ok()) return st;
      Next();
      absl::StatusOr<Parsed> body = ParseExpr(0);
      if (!body.ok()) return body;
      height = body->height + 1;
      n->args.push_back(std::move(body->node));
      if (absl::Status st = Expect(")"); !st.ok()) return st;
    } else if (IsPunct("(") || IsPunct("[")) {
      const bool call = IsPunct("(");
      const absl::string_view close = call ? ")" : "]";
      n->kind = call ? Node::Kind::kCall : Node::Kind::kAccess;
      Next();
      while (true) {
        absl::StatusOr<Parsed> arg = ParseExpr(0);
        if (!arg.ok()) return arg;
        height = std::max(height, arg->height + 1);
        n->args.push_back(std::move(arg->node));
        if (IsPunct(close)) break;
        if (!IsPunct(",")) return Expected(absl::StrCat("',' or '", close, "'"));
        Next();
      }
      Next();
    } else {
      n->kind = Node::Kind::kName;
    }
    return Make(std::move(n), height, t);
  }

  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int nesting_ = 0;  // Active ParseUnary calls.
};

}  // namespace

absl::StatusOr<Program> ParseProgram(absl::string_view text) {
  absl::StatusOr<std::vector<Token>> tokens = Tokenize(text);
  if (!tokens.ok()) return tokens.status();
  return Parser(*std::move(tokens)).Run();
}

}  // namespace tunefarm::lang
