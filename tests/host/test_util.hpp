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

// The path of one of the shared real traces (MFPRIO_TRACES_DIR), or "" when
// it is not there (the trace tests then skip).
inline std::string trace_path(const std::string& name) {
  const std::string path = env_or_die("MFPRIO_TRACES_DIR") + "/" + name;
  return std::filesystem::exists(path) ? path : "";
}

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
