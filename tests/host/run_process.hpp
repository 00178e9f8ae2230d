// run_process.hpp - runs a program, captures stdout, stderr and exit status.
#pragma once

#include <string>
#include <vector>

namespace mfprio::test {

struct ProcessResult {
  int status = -1;      // exit status, or 128 + signal number
  std::string out, err;
};

// argv[0] is the program path.  Working directory: `cwd` when not empty.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& cwd = "");

}  // namespace mfprio::test
