// test_sources.cpp - host-shim carries no family's words.  Reads
// the sources of host-shim/ (MFPRIO_TEST_SRCDIR/../../host-shim) and checks
// the code, not the comments: no string literal names a plugin type
// ("priority/maui", ...) or a family's Priority* conf key, and no code
// compares a plugin's type.  A family's view comes from what it declares in
// plugin_info_json ("view", "no_decay_conf"; host-shim/layout.hpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace {

struct Source {
  std::string code;                   // comments removed, literals replaced by ""
  std::vector<std::string> literals;  // the string literals, in order
};

// Splits C++ text into code and string literals; comments are dropped.
Source scan(const std::string& s) {
  Source out;
  for (size_t i = 0; i < s.size();) {
    if (s.compare(i, 2, "//") == 0) {
      i = s.find('\n', i);
      if (i == std::string::npos) break;
    } else if (s.compare(i, 2, "/*") == 0) {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? s.size() : end + 2;
    } else if (s[i] == '\'' || s[i] == '"') {
      const char q = s[i];
      std::string lit;
      for (++i; i < s.size() && s[i] != q; ++i) {
        if (s[i] == '\\' && i + 1 < s.size()) lit += s[i++];
        lit += s[i];
      }
      ++i;
      if (q == '"') out.literals.push_back(lit);
      out.code += q == '"' ? "\"\"" : "''";
    } else {
      out.code += s[i++];
    }
  }
  return out;
}

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

void erase_all(std::string* s, const std::string& word) {
  for (size_t at; (at = s->find(word)) != std::string::npos;) s->erase(at, word.size());
}

// What a literal says that only a family may say ("" when nothing).
std::string family_word(const std::string& file, const std::string& literal) {
  std::string l = lower(literal);
  // The host's own keys: which plugin to load, and the pass interval of replay and simulate.
  erase_all(&l, "prioritytype");
  erase_all(&l, "prioritycalcperiod");
  for (const char* family : {"basic", "multifactor", "maui", "moab", "gridengine", "flux"}) {
    const std::string type = std::string("priority/") + family;
    // settings.hpp: PriorityType's documented default, the plugin loaded when the conf names none.
    if (l.find(type) != std::string::npos && !(file == "settings.hpp" && l == "priority/multifactor")) return type;
  }
  for (size_t at = l.find("priority"); at != std::string::npos; at = l.find("priority", at + 1))
    if (at + 8 < l.size() && std::isalpha(static_cast<unsigned char>(l[at + 8]))) return literal;  // a Priority* key
  if (l.find("fairshare_algorithm") != std::string::npos) return literal;
  return "";
}

std::vector<std::filesystem::path> host_sources() {
  const std::filesystem::path dir =
      std::filesystem::path(mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR")) / ".." / ".." / "host-shim";
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string ext = e.path().extension().string();
    if (ext == ".cpp" || ext == ".hpp") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string read(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(HostSources, TheScannerSeesLiteralsAndNotComments) {
  const Source s = scan("// \"priority/maui\"\nint x = f(\"a\\\"b\", 'c'); /* \"PriorityWeightAge\" */ g(\"d\");\n");
  EXPECT_EQ(s.literals, (std::vector<std::string>{"a\\\"b", "d"}));
  EXPECT_EQ(s.code, "\nint x = f(\"\", ''); "
                    " g(\"\");\n");
  EXPECT_EQ(family_word("main.cpp", "priority/maui"), "priority/maui");
  EXPECT_EQ(family_word("main.cpp", "PriorityWeightTRES"), "PriorityWeightTRES");
  EXPECT_EQ(family_word("cli.cpp", "interval (default: PriorityCalcPeriod)"), "");
  EXPECT_EQ(family_word("cli.cpp", "PRIORITY"), "");
  EXPECT_EQ(family_word("main.cpp", "priority/multifactor"), "priority/multifactor");
  EXPECT_EQ(family_word("settings.hpp", "priority/multifactor"), "");
}

TEST(HostSources, NoPluginTypeNoFamilyKeyNoTypeComparison) {
  const std::vector<std::filesystem::path> files = host_sources();
  ASSERT_GT(files.size(), 20u);  // the directory was found
  bool saw_main = false;
  for (const auto& p : files) {
    const std::string name = p.filename().string();
    saw_main = saw_main || name == "main.cpp";
    const Source s = scan(read(p));
    for (const std::string& lit : s.literals) {
      const std::string word = family_word(name, lit);
      EXPECT_EQ(word, "") << "host-shim/" << name << ": \"" << lit << "\" is a family's word";
    }
    std::string code = s.code;
    code.erase(std::remove_if(code.begin(), code.end(), [](char c) { return std::isspace(static_cast<unsigned char>(c)); }),
               code.end());
    for (const char* cmp : {"type()==", "type()!=", "==plugin.type()", "==plugin->type()", "type().compare("})
      EXPECT_EQ(code.find(cmp), std::string::npos) << "host-shim/" << name << " compares a plugin type (" << cmp << ")";
  }
  EXPECT_TRUE(saw_main);
}

}  // namespace
