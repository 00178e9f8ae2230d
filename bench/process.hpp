// process.hpp - figures timed as whole processes: the real `mfprio-host`
// binary started on a copy of the bench's big store, as an admin would run
// it.  `mfprio-host sshare -a` (every association's row printed) against
// the cold recompute `mfprio-host decay --now T` (open, load, build, fair
// share, persist), run in turn, sshare / decay taken pair by pair.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mfprio::bench {

struct ProcessInputs {
  std::string host_bin;     // mfprio-host
  std::string plugin_dir;   // --plugin-dir
  std::string base_store;   // copied: the decay runs write to the copy
  std::string dir;
  std::vector<std::pair<std::string, std::string>> conf;  // the family's conf (no AccountingStorageLoc)
  int64_t now = 0;          // the first decay's --now; each later run adds 300 s
  int reps = 5;
};

struct ProcessFigure {
  double sshare_ms = 0, decay_ms = 0;   // medians, wall
  double sshare_cpu_ms = 0, decay_cpu_ms = 0;  // medians, user + system of the child
  double ratio = 0;                     // median of the per-pair sshare / decay
  size_t sshare_bytes = 0, sshare_lines = 0;  // what one sshare printed
  int runs = 0;
  std::string error;
};

ProcessFigure run_process_figures(const ProcessInputs& in);

}  // namespace mfprio::bench
