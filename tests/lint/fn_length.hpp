// fn_length.hpp - finds the function bodies of a C++ source text and their
// lengths, for the "no shipped function over ~150 lines" rule.
//
// Not a parser: comments, string and character literals (raw strings too)
// and preprocessor lines are blanked first, so their braces do not count;
// then every `{` outside a function body is classified by the text before it
// (back to the last `;`, `{` or `}`): a `(` there (before any
// class/struct/union/enum/namespace keyword, after a `template <...>`) makes
// it a function body unless an `=` stands outside the parentheses (a
// variable's initializer or a lambda assigned to one: data); a brace that
// follows a constructor's `) :` list element is an initializer, not the body.
// Everything inside a function body (lambdas, local classes) belongs to it.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace mfprio::lint {

struct Function {
  std::string name;  // "Class::name" as written before the `(`
  int line = 0;      // line of the opening brace (1-based)
  int lines = 0;     // lines strictly between the braces
};

// `text` with comments, literals' contents and preprocessor lines replaced
// by spaces; newlines kept, so line numbers stay.
std::string blank_non_code(const std::string& text);

// The outermost function bodies of `text` in source order.  An unbalanced
// text (a `}` too many, or a `{` never closed) sets *error.
std::vector<Function> functions(const std::string& text, std::string* error);

}  // namespace mfprio::lint
