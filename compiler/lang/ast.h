// The syntax tree of a tensor-expression program, as the parser reads it: names are not yet
// resolved, shapes not yet bound, types not yet checked (see elaborate.h for that).
//
//   A = input(float32, [M, K])             # Statement::kInput
//   W = weight(float32, [N, K])            # Statement::kInput, weight: the same every call
//   Bt = constant(float32, [[1, 0], [0, -1]])  # Statement::kConstant: a table in the program
//   C[i, j] = sum(k: A[i, k] * W[j, k])    # Statement::kDefine, body a Node::kReduce
//   P[h < H + 2] = select(h >= 1 && h <= H, X[h - 1], 0.0)
//
// Every node keeps the line and column where it starts, so later stages can say where an
// error is.
#ifndef TUNEFARM_COMPILER_LANG_AST_H_
#define TUNEFARM_COMPILER_LANG_AST_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tunefarm::lang {

// Where something starts in the program text (1-based).
struct SourcePos {
  int line = 1;
  int column = 1;
};

struct Node;
using NodePtr = std::unique_ptr<const Node>;

// An index variable introduced by a definition's left-hand side (`i` or `h < H + 2`) or by a
// reduction (`k` or `r < 3`). Without an extent, it is inferred from where the variable
// indexes a tensor directly.
struct AxisDecl {
  std::string name;
  SourcePos pos;
  NodePtr extent;  // Null when not written.
};

// An expression.
struct Node {
  enum class Kind {
    kInt,     // int_value.
    kFloat,   // float_value.
    kName,    // name: an index variable, a shape variable.
    kAccess,  // name[args...]: an element of a tensor.
    kCall,    // name(args...): a math function, select, max/min of two values, or a cast.
    kReduce,  // name(axes: args[0]) with name "sum", "max" or "min".
    kBinary,  // args[0] name args[1]; name is "+", "-", "*", "/", "%", "<", "<=", ">", ">=",
              // "==", "!=", "&&" or "||".
    kUnary,   // name args[0]; name is "-" or "!".
  };
  Kind kind = Kind::kInt;
  SourcePos pos;
  std::string name;
  int64_t int_value = 0;
  double float_value = 0;
  std::vector<NodePtr> args;
  std::vector<AxisDecl> axes;  // kReduce only.
};

// One line of a program.
struct Statement {
  enum class Kind {
    kInput,     // name = input(dtype, [shape...]) or weight(dtype, [shape...]).
    kDefine,    // name[axes...] = body.
    kConstant,  // name = constant(dtype, [[v, ...], ...]): values written in the program.
  };
  Kind kind = Kind::kInput;
  std::string name;
  SourcePos pos;
  // kInput and kConstant: the element type as written ("float32"); kInput: the extents.
  std::string dtype;
  SourcePos dtype_pos;
  std::vector<NodePtr> shape;
  // kInput: declared with weight(...): a constant of the deployed operator (a layer's
  // parameters), the same on every call, so it may be packed once ahead of time.
  bool weight = false;
  // kConstant: the extents of the nested lists and their literals (kInt or kFloat nodes,
  // negative ones folded) in row-major order.
  std::vector<int64_t> table_shape;
  std::vector<NodePtr> table_values;
  // kDefine: the left-hand side's index variables and the definition.
  std::vector<AxisDecl> axes;
  NodePtr body;
};

struct Program {
  std::vector<Statement> statements;
};

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_AST_H_
