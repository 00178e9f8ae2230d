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

// The cold start of a site-shaped store (bench/README.md): `mfprio-host decay
// --now T` against SQLite's own read of every column of the same store
// (mfprio-bench-sqlite-floor), run in turn, decay / floor taken pair by pair;
// and the decay's peak RSS (ru_maxrss, through mfprio-bench-peak-rss) over
// the peak of the same decay on an almost empty store, per association.
struct ColdInputs {
  std::string host_bin, plugin_dir;
  std::string floor_bin;    // mfprio-bench-sqlite-floor
  std::string peak_bin;     // mfprio-bench-peak-rss
  std::string base_store;   // the site-shaped store (copied: decay writes)
  std::string empty_store;  // the almost empty store (copied)
  std::string dir;
  std::string tag;          // file names in dir: cold-<tag>.db ...
  std::vector<std::pair<std::string, std::string>> conf;
  size_t assocs = 0, empty_assocs = 0;
  int64_t now = 0;
  int reps = 5;
};

struct ColdFigure {
  double decay_ms = 0, floor_ms = 0;          // medians, wall
  double decay_cpu_ms = 0, floor_cpu_ms = 0;  // medians, user + system of the child
  double ratio = 0;                           // median of the per-pair decay / floor
  double peak_kb = 0, empty_peak_kb = 0;      // medians of ru_maxrss (KiB)
  double bytes_per_assoc = 0;                 // (peak - empty peak) / (assocs - empty assocs)
  size_t assocs = 0;
  int runs = 0;
  std::string error;
};

ColdFigure run_cold_figures(const ColdInputs& in);

}  // namespace mfprio::bench
