// sim_report.hpp - the policy lab's report: the policies of one simulate run
// side by side, as a text table, JSON or CSV (keys in host-shim/README.md,
// "Policy lab").  Pure formatting of PolicyResult values: the same inputs give
// byte-identical output (no wall time, no temporary paths).
#pragma once

#include <string>
#include <vector>

#include "simulate.hpp"

namespace mfprio::host {

struct SimHeader {
  std::string trace;        // the trace's file name (no directory)
  uint64_t records = 0, jobs = 0, skipped = 0;  // skipped: unknown run time/procs/user, or bigger than the machine
  uint32_t procs = 0;
  std::string backfill;     // "easy" or "none"
};

std::string sim_report_text(const SimHeader& h, const std::vector<PolicyResult>& policies);
std::string sim_report_json(const SimHeader& h, const std::vector<PolicyResult>& policies);
std::string sim_report_csv(const SimHeader& h, const std::vector<PolicyResult>& policies);

}  // namespace mfprio::host
