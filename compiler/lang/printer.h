// The canonical printed form of a tensor-expression program: one statement per line, single
// spaces around binary operators, only the parentheses precedence needs, literals in their
// shortest exact spelling and no comments. Two programs that differ only in layout, comments,
// redundant parentheses or literal spelling print the same, so the text (hashed by the tuner)
// identifies the computation in the tuning log. Parsing the printed form gives it back.
#ifndef TUNEFARM_COMPILER_LANG_PRINTER_H_
#define TUNEFARM_COMPILER_LANG_PRINTER_H_

#include <string>

#include "compiler/lang/ast.h"

namespace tunefarm::lang {

// The canonical text of the whole program, statements separated by newlines, ending with one.
std::string CanonicalText(const Program& program);

// The canonical text of one expression, e.g. "h * 2 + r - 1".
std::string ExprText(const Node& node);

}  // namespace tunefarm::lang

#endif  // TUNEFARM_COMPILER_LANG_PRINTER_H_
