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

// The built tools, as meson test names them: mfprio-host (MFPRIO_HOST_BIN)
// and mfprio-acct (MFPRIO_ACCT_BIN), run with `args`.
ProcessResult run_host(std::vector<std::string> args, const std::string& cwd = "");
ProcessResult run_acct(std::vector<std::string> args, const std::string& cwd = "");

// Grid Engine from the site's own outputs in `samples` (samples/gridengine):
// its qconf -sstree imported by mfprio-acct into DIR/ge.db, and DIR/ge.conf
// naming that store, the sample's sched_conf and complexes, `plugin_dir` and
// the `extra` lines.  Returns the conf's path; throws std::runtime_error with
// mfprio-acct's message when the import fails.
std::string gridengine_sample_conf(const std::string& dir, const std::string& samples, const std::string& plugin_dir,
                                   const std::string& extra = "");

}  // namespace mfprio::test
