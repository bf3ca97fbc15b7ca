// The parser of tunefarm's tensor-expression language: program text to a syntax tree.
//
// Grammar (statements end at a newline or ';'; '#' starts a comment):
//
//   program  := statement*
//   statement:= NAME '=' 'input' '(' DTYPE ',' '[' expr (',' expr)* ']' ')'
//             | NAME '=' 'weight' '(' DTYPE ',' '[' expr (',' expr)* ']' ')'
//             | NAME '=' 'constant' '(' DTYPE ',' table ')'
//             | NAME '[' axis (',' axis)* ']' '=' expr
//   table    := '[' (table (',' table)* | number (',' number)*) ']'   # rectangular
//   number   := '-'? (INT | FLOAT)
//   axis     := NAME ('<' expr)?                     # an index variable and its extent
//   expr     := or
//   or       := and ('||' and)*
//   and      := cmp ('&&' cmp)*
//   cmp      := sum (('<' | '<=' | '>' | '>=' | '==' | '!=') sum)?
//   sum      := product (('+' | '-') product)*
//   product  := unary (('*' | '/' | '%') unary)*
//   unary    := ('-' | '!') unary | primary
//   primary  := INT | FLOAT | NAME | '(' expr ')'
//             | NAME '[' expr (',' expr)* ']'          # a tensor element
//             | ('sum' | 'max' | 'min') '(' axis (',' axis)* ':' expr ')'   # a reduction
//             | NAME '(' expr (',' expr)* ')'          # a function call or a cast
//
// `max(a, b)` is the larger of two values; `max(k: ...)` (with a ':') is a reduction.
// The parser checks only the syntax; names, shapes and types are checked by Elaborate.
#ifndef TUNEFARM_COMPILER_LANG_PARSER_H_
#define TUNEFARM_COMPILER_LANG_PARSER_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "compiler/lang/ast.h"

namespace tunefarm::lang {

// Expressions nested deeper than this are rejected, so no later recursive pass can run out of
// stack on untrusted text (`- - - ... x`, or a very long `a + a + ...`).
inline constexpr int kMaxExpressionDepth = 200;

// A constant(...) table holds at most this many values, in at most kMaxTableRank nested lists.
inline constexpr int kMaxTableValues = 4096;
inline constexpr int kMaxTableRank = 8;

// The syntax tree of `text`. InvalidArgument, with "line L, column C:" first: any error of
// Tokenize, an empty program, a statement that is neither an input nor a definition, a missing
// or unexpected token (the message names what was expected and what was found), an expression
// nested deeper than kMaxExpressionDepth, a constant table that is not rectangular, is empty, or
// exceeds kMaxTableValues or kMaxTableRank.
absl::StatusOr<Program> ParseProgram(absl::string_view text);

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_PARSER_H_
