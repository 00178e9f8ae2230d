// The function-length checker (fn_length.hpp) on its fixture and on the
// traps one at a time: braces in comments, strings, raw strings, character
// literals and preprocessor lines do not count; a constructor's brace
// initializers are not its body; lambdas belong to their function.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include "fn_length.hpp"

using mfprio::lint::Function;
using mfprio::lint::functions;

namespace {

std::string fixture() {
  const char* p = std::getenv("MFPRIO_LINT_FIXTURE");
  if (p == nullptr) ADD_FAILURE() << "MFPRIO_LINT_FIXTURE is not set";
  std::ifstream in(p == nullptr ? "" : p);
  if (!in) ADD_FAILURE() << "cannot read the fixture " << (p ? p : "");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::string describe(const std::vector<Function>& fs) {
  std::string out;
  for (const Function& f : fs) out += f.name + "@" + std::to_string(f.line) + ":" + std::to_string(f.lines) + "\n";
  return out;
}

}  // namespace

TEST(FnLength, FixtureFunctionsNamesLinesAndLengths) {
  std::string error;
  const auto fs = functions(fixture(), &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(describe(fs),
            "Point::Point@21:1\n"
            "Point::sum@24:0\n"
            "Point::operator==@25:1\n"
            "c_entry@42:1\n"
            "twice@47:5\n"
            "at_limit@55:150\n"
            "over_limit@208:151\n");
}

TEST(FnLength, BracesInLiteralsAndCommentsDoNotCount) {
  std::string error;
  const std::string text =
      "void f() {\n"
      "  const char* a = \"}}}\";  // }\n"
      "  char b = '}';\n"
      "  /* } */ auto c = R\"d(})\" })d\";\n"
      "#define X }\n"
      "  int d = 1'0'0;\n"
      "}\n"
      "void g() {}\n";
  const auto fs = functions(text, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(describe(fs), "f@1:5\ng@8:0\n");
}

TEST(FnLength, BlankingKeepsLines) {
  const std::string text = "a /* x\n y */ \"s\\\"t\" // c\n#if 1\nb\n";
  const std::string out = mfprio::lint::blank_non_code(text);
  ASSERT_EQ(out.size(), text.size());
  EXPECT_EQ(out, "a     \n      \"    \"     \n     \nb\n");
}

TEST(FnLength, UnbalancedTextIsAnError) {
  std::string error;
  functions("void f() {\n  if (x) {\n}\n", &error);
  EXPECT_EQ(error, "line 1: '{' never closed");
  error.clear();
  functions("void f() {}\n}\n", &error);
  EXPECT_EQ(error, "line 2: '}' without '{'");
}

TEST(FnLength, DataAndClassesAreNotFunctions) {
  std::string error;
  const std::string text =
      "namespace n {\n"
      "const std::map<int, int> m = {{f(1), 2}};\n"
      "auto l = [](int x) {\n  return x;\n};\n"
      "enum class E : int { A = g(1) };\n"
      "template <class T> struct S : B<decltype(h())> {\n"
      "  S() : a{1}, b{c(2)} {}\n"
      "  int a, b;\n"
      "};\n"
      "}\n";
  const auto fs = functions(text, &error);
  EXPECT_EQ(error, "");
  EXPECT_EQ(describe(fs), "S::S@8:0\n");
}
