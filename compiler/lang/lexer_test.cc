#include "compiler/lang/lexer.h"

#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "gtest/gtest.h"

namespace tunefarm::lang {
namespace {

std::vector<std::string> Texts(const std::vector<Token>& tokens) {
  std::vector<std::string> out;
  for (const Token& t : tokens) out.push_back(t.kind == TokenKind::kEnd ? "<end>" : t.text);
  return out;
}

TEST(Tokenize, Program_TokensStatementsAndPositions) {
  auto tokens = Tokenize(
      "A = input(float32, [M,\n  K])  # comment\n\nC[i, j] = sum(k: A[i, k] * 2.5e-1) ; x <= 3\n");
  ASSERT_TRUE(tokens.ok()) << tokens.status();
  EXPECT_EQ(
      Texts(*tokens),
      (std::vector<std::string>{
          "A", "=", "input", "(", "float32", ",",      "[", "M",   ",", "K",  "]", ")", ";",
          "C", "[", "i",     ",", "j",       "]",      "=", "sum", "(", "k",  ":", "A", "[",
          "i", ",", "k",     "]", "*",       "2.5e-1", ")", ";",   "x", "<=", "3", ";", "<end>"}));
  const Token& k = (*tokens)[9];  // K, on the second line after two spaces
  EXPECT_EQ(k.line, 2);
  EXPECT_EQ(k.column, 3);
  const Token& quarter = (*tokens)[31];
  EXPECT_EQ(quarter.kind, TokenKind::kFloat);
  EXPECT_DOUBLE_EQ(quarter.float_value, 0.25);
  EXPECT_EQ(quarter.line, 4);
  EXPECT_EQ((*tokens)[36].kind, TokenKind::kInt);
  EXPECT_EQ((*tokens)[36].int_value, 3);
}

TEST(Tokenize, BadInput_InvalidArgumentWithPosition) {
  const std::pair<const char*, const char*> cases[] = {
      {"A = B @ C", "line 1, column 7: unexpected character '@'"},
      {"x = 1\ny = 99999999999999999999", "line 2, column 5: integer"},
      {"x = 1e+", "line 1, column 5: malformed number"},
      {"x = 12abc", "line 1, column 7: a number may not run into"},
      {"x = (1))", "line 1, column 8: ')' closes nothing"},
      {"x = [1)", "line 1, column 7: ')' closes nothing"},
      {"x = \x01", "unexpected byte 0x1"},
  };
  for (const auto& [text, want] : cases) {
    auto tokens = Tokenize(text);
    EXPECT_EQ(tokens.status().code(), absl::StatusCode::kInvalidArgument) << text;
    EXPECT_TRUE(absl::StrContains(tokens.status().message(), want))
        << text << ": " << tokens.status();
  }
  EXPECT_FALSE(Tokenize(std::string(kMaxNesting + 1, '(')).ok());
  EXPECT_FALSE(Tokenize(std::string(kMaxProgramBytes + 1, ' ')).ok());
}

TEST(Tokenize, EmptyStatements_NoEndStmtOfTheirOwn) {
  auto tokens = Tokenize(";;\n\n  # only a comment\n");
  ASSERT_TRUE(tokens.ok());
  EXPECT_EQ(Texts(*tokens), (std::vector<std::string>{"<end>"}));
}

}  // namespace
}  // namespace tunefarm::lang
