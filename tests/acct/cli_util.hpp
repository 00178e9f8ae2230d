// cli_util.hpp - runs the built mfprio-acct (path in $MFPRIO_ACCT, set by
// meson) in a child process and captures its status and output.
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace mfprio::acct::test {

struct Result {
  int status = -1;  // exit status, or -signal
  std::string out, err;
};

inline std::string binary() {
  const char* b = std::getenv("MFPRIO_ACCT");
  return b ? b : "";
}

inline std::string quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

inline std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// prefix: e.g. "setpriv ... " or "MFPRIO_ACCT_KILL_AFTER_ROWS=5 ".
// stdin is a file holding `input` (empty: end of input at once), never the
// test's own stdin, so a confirmation question cannot wait on a terminal.
inline Result run_acct(const TempDir& dir, const std::vector<std::string>& args,
                       const std::string& prefix = "", const std::string& input = "") {
  std::string cmd = prefix + quote(binary());
  for (const auto& a : args) cmd += " " + quote(a);
  std::string out = dir.file(".out"), err = dir.file(".err"), in = dir.file(".in");
  std::ofstream(in, std::ios::trunc) << input;
  cmd += " <" + quote(in) + " >" + quote(out) + " 2>" + quote(err);
  int w = std::system(cmd.c_str());
  Result r;
  // sh reports a child killed by signal N as exit status 128+N.
  r.status = WIFEXITED(w) ? WEXITSTATUS(w) : -WTERMSIG(w);
  if (r.status > 128) r.status = -(r.status - 128);
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

}  // namespace mfprio::acct::test
