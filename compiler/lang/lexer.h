// Tokens of tunefarm's tensor-expression language (issue "any operator"): the first stage of
// reading a program such as
//
//   A = input(float32, [M, K]); W = input(float32, [N, K])
//   C[i, j] = sum(k: A[i, k] * W[j, k])   # a comment
//
// Statements end at a newline or ';' (a newline inside brackets or parentheses does not end
// one). Every token carries its 1-based line and column, so later stages can say where an
// error is.
#ifndef TUNEFARM_COMPILER_LANG_LEXER_H_
#define TUNEFARM_COMPILER_LANG_LEXER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tunefarm::lang {

enum class TokenKind {
  kIdent,    // A name: [A-Za-z_][A-Za-z0-9_]*.
  kInt,      // A decimal integer literal (int_value).
  kFloat,    // A literal with a '.' or an exponent (float_value).
  kPunct,    // An operator or punctuation mark (text), e.g. "(", "<=", "&&".
  kEndStmt,  // The end of a statement: ';' or a newline outside brackets.
  kEnd,      // The end of the program.
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string text;  // As written.
  int64_t int_value = 0;
  double float_value = 0;
  int line = 1;
  int column = 1;
};

// Limits on untrusted program text (it arrives over RPC).
inline constexpr size_t kMaxProgramBytes = 1 << 20;
inline constexpr int kMaxNesting = 64;

// The tokens of `text`, ending with one kEnd. Empty statements (blank lines, ";;") produce no
// kEndStmt of their own. InvalidArgument, with "line L, column C:" first: a character that
// starts no token, an integer literal that overflows int64, a malformed number, a closing
// bracket that matches nothing, brackets nested deeper than kMaxNesting, or a program larger
// than kMaxProgramBytes.
absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view text);

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_LEXER_H_
