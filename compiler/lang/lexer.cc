#include "compiler/lang/lexer.h"

#include <cerrno>
#include <cstdlib>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tunefarm::lang {
namespace {

// Multi-character operators first, so "<=" is not read as "<" then "=".
constexpr absl::string_view kPuncts[] = {"<=", ">=", "==", "!=", "&&", "||", "(", ")",
                                         "[",  "]",  ",",  ":",  "=",  "+",  "-", "*",
                                         "/",  "%",  "<",  ">",  "!",  "?"};

absl::Status ErrorAt(int line, int column, absl::string_view what) {
  return absl::InvalidArgumentError(absl::StrCat("line ", line, ", column ", column, ": ", what));
}

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }
bool IsIdentChar(char c) { return absl::ascii_isalnum(c) || c == '_'; }

}  // namespace

absl::StatusOr<std::vector<Token>> Tokenize(absl::string_view text) {
  if (text.size() > kMaxProgramBytes) {
    return ErrorAt(1, 1,
                   absl::StrCat("program of ", text.size(), " bytes; at most ", kMaxProgramBytes,
                                " are accepted"));
  }
  std::vector<Token> out;
  std::vector<char> open;  // Brackets not yet closed: a newline inside them ends nothing.
  int line = 1, column = 1;
  size_t i = 0;
  auto end_statement = [&](int l, int c) {
    if (!out.empty() && out.back().kind != TokenKind::kEndStmt) {
      out.push_back(Token{TokenKind::kEndStmt, ";", 0, 0, l, c});
    }
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      if (open.empty()) end_statement(line, column);
      ++i;
      ++line;
      column = 1;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      ++column;
      continue;
    }
    if (c == '#') {  // A comment runs to the end of the line.
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == ';') {
      end_statement(line, column);
      ++i;
      ++column;
      continue;
    }
    Token t;
    t.line = line;
    t.column = column;
    const size_t start = i;
    if (IsIdentStart(c)) {
      while (i < text.size() && IsIdentChar(text[i])) ++i;
      t.kind = TokenKind::kIdent;
    } else if (absl::ascii_isdigit(c) ||
               (c == '.' && i + 1 < text.size() && absl::ascii_isdigit(text[i + 1]))) {
      bool is_float = false;
      while (i < text.size() && absl::ascii_isdigit(text[i])) ++i;
      if (i < text.size() && text[i] == '.') {
        is_float = true;
        ++i;
        while (i < text.size() && absl::ascii_isdigit(text[i])) ++i;
      }
      if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        is_float = true;
        ++i;
        if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
        if (i >= text.size() || !absl::ascii_isdigit(text[i])) {
          return ErrorAt(line, column,
                         absl::StrCat("malformed number '", text.substr(start, i - start), "'"));
        }
        while (i < text.size() && absl::ascii_isdigit(text[i])) ++i;
      }
      if (i < text.size() && IsIdentChar(text[i])) {
        return ErrorAt(line, column + static_cast<int>(i - start),
                       absl::StrCat("a number may not run into '", text.substr(i, 1), "'"));
      }
      const absl::string_view literal = text.substr(start, i - start);
      if (is_float) {
        t.kind = TokenKind::kFloat;
        if (!absl::SimpleAtod(literal, &t.float_value)) {
          return ErrorAt(line, column, absl::StrCat("malformed number '", literal, "'"));
        }
      } else {
        t.kind = TokenKind::kInt;
        if (!absl::SimpleAtoi(literal, &t.int_value)) {
          return ErrorAt(line, column, absl::StrCat("integer '", literal, "' does not fit int64"));
        }
      }
    } else {
      for (absl::string_view p : kPuncts) {
        if (text.substr(i, p.size()) == p) {
          t.kind = TokenKind::kPunct;
          i += p.size();
          break;
        }
      }
      if (t.kind != TokenKind::kPunct) {
        return ErrorAt(
            line, column,
            absl::ascii_isprint(c)
                ? absl::StrCat("unexpected character '", std::string(1, c), "'")
                : absl::StrCat("unexpected byte 0x", absl::Hex(static_cast<uint8_t>(c))));
      }
      const char p = text[start];
      if (p == '(' || p == '[') {
        if (static_cast<int>(open.size()) >= kMaxNesting) {
          return ErrorAt(line, column, absl::StrCat("brackets nested deeper than ", kMaxNesting));
        }
        open.push_back(p);
      } else if (p == ')' || p == ']') {
        const char want = p == ')' ? '(' : '[';
        if (open.empty() || open.back() != want) {
          return ErrorAt(line, column, absl::StrCat("'", std::string(1, p), "' closes nothing"));
        }
        open.pop_back();
      }
    }
    t.text = std::string(text.substr(start, i - start));
    column += static_cast<int>(i - start);
    out.push_back(std::move(t));
  }
  end_statement(line, column);
  out.push_back(Token{TokenKind::kEnd, "", 0, 0, line, column});
  return out;
}

}  // namespace tunefarm::lang
