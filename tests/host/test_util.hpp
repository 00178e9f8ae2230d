// test_util.hpp - helpers of the host tests (the temporary directory, TempDir,
// is tests/support/tempdir.hpp): environment, output lines and fields.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tempdir.hpp"

namespace mfprio::test {

inline std::string env_or_die(const char* name) {
  const char* v = std::getenv(name);
  if (!v || !*v) throw std::runtime_error(std::string("environment variable ") + name + " is not set (run via meson test)");
  return v;
}

// The path of one of the real traces in tests/data/traces (MFPRIO_TRACES_DIR).
inline std::string trace_path(const std::string& name) { return env_or_die("MFPRIO_TRACES_DIR") + "/" + name; }

// A test that needs a plugin, a trace or a data file fails (never skips) when
// it is missing: meson builds every family's plugin and the traces are in the
// repository, so a missing one is a broken tree, and a skip would count as a pass.
#define MFPRIO_REQUIRE_FILE(path, what)                                                   \
  ASSERT_TRUE(std::filesystem::exists(path)) << (path) << " is missing (" << (what) << ")"
#define MFPRIO_REQUIRE_PLUGIN(dir, so) \
  MFPRIO_REQUIRE_FILE((dir) + "/" + (so), "meson builds every family's plugin into the build tree's plugin/")
#define MFPRIO_REQUIRE_TRACE(var, name)                  \
  const std::string var = mfprio::test::trace_path(name); \
  MFPRIO_REQUIRE_FILE(var, "tests/data/traces/README.md names where each trace comes from")

// Whether `needle` occurs in `hay` (a program's output).
inline bool has(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

// The lines of a program's output.
inline std::vector<std::string> lines(const std::string& s) {
  std::vector<std::string> out;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) out.push_back(l);
  return out;
}

// The whitespace-separated fields of one line.
// The '|'-separated fields of a -P line (the trailing '|' gives no field).
inline std::vector<std::string> cells(const std::string& line) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : line) {
    if (c == '|') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  return out;
}

inline std::vector<std::string> fields(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string f;
  while (in >> f) out.push_back(f);
  return out;
}

}  // namespace mfprio::test
