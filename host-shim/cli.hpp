// cli.hpp - the mfprio-host command line: parsed into a typed Options value
// before anything is loaded, so a usage error never touches the plugin.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace mfprio::host {

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Command { None, Sprio, Sshare, Decay, JobEnd, Info, Replay, Simulate, Explain, Loop };

struct Options {
  std::string conf;
  std::string plugin_dir;          // --plugin-dir, overrides PluginDir
  std::optional<int64_t> now;      // --now (global or per command)
  bool verbose = false;
  bool help = false;          // --help before the command: the program's usage
  bool command_help = false;  // COMMAND --help: that command's usage
  bool version = false;       // --version / -V
  Command command = Command::None;

  // sprio (Slurm's sprio options, plus the job feed --job-file)
  std::string jobs_file;           // sprio/explain --job-file, decay --running, job-end --job-file
  bool long_format = false, normalized = false, weights = false, parsable = false, json = false;
  bool parsable_no_ending = false;  // sshare -P (Slurm's --parsable2); -p keeps the trailing '|'
  bool percent = false;  // sprio --percent
  std::string view;      // sprio --view NAME: one of the plugin's layout's named job views
  bool slurm = false;    // sprio --slurm[=PATH]: a live slurmctld's last pass (slurm_view.hpp)
  std::string slurm_path;  // its FILE or DIR ("": StateSaveLocation's)
  bool noheader = false, all_states = false;
  std::vector<std::string> users;  // -u a,b
  std::vector<uint64_t> job_ids;   // sprio -j/--jobs LIST
  std::vector<std::string> partitions;  // sprio -p/--partition LIST
  std::vector<std::string> accounts_filter;  // sprio -A/--account, sshare -A/--accounts LIST
  std::string format;              // -o/--format: sprio's %-letters, sshare's field list
  bool has_format = false;
  std::string sort;                // sprio -S/--sort
  bool helpformat = false;         // sprio --helpformat, sshare -e/--helpformat
  std::string clusters;            // -M (accepted and ignored: one cluster)
  // sshare
  bool all_users = false;
  bool users_only = false;         // sshare -U/--Users
  bool share_partitions = false;   // sshare -m/--partition
  // job-end
  std::optional<int64_t> end;
  // replay
  std::string swf;                 // --swf FILE
  std::string emit_accounts;       // --emit-accounts FILE: write the import JSON and stop
  std::optional<int64_t> calc_period;  // --calc-period TIMESTRING (seconds)
  std::optional<int64_t> start;    // --start T: epoch of the trace's time 0
  double speed = 0;                // --speed X
  uint64_t limit = 0;              // --limit N (0 = all)
  bool report_passes = false;      // --report passes
  uint32_t pending_top = 0;        // --report pending[=N]
  bool no_decay = false;           // --no-decay
  bool no_sshare = false;          // --no-sshare
  // simulate (also --swf)
  std::vector<std::string> confs;  // --conf A --conf B ... (the global --conf first)
  uint32_t procs = 0;              // --procs N (0: the trace header's MaxProcs)
  std::string accounts;            // --accounts IMPORT.json
  std::string map;                 // simulate --map FILE|auto
  uint64_t seed = 1;               // simulate --seed N (--map auto)
  bool csv = false;                // --csv (--json is `json`)
  std::string plot;                // --plot OUT.svg
  bool backfill_none = false;      // --backfill none (default easy)
  std::string trace_decisions;     // --trace-decisions FILE
  // loop (also --job-file, --calc-period, --start, --speed, --report passes)
  std::optional<int64_t> until;    // --until T: the last pass is the first at or after T
  std::optional<double> origin;    // --origin W: the wall time (epoch seconds) of --start
  // explain (also --job-file, --json, --now)
  std::vector<uint64_t> explain_ids;  // JOB_A [JOB_B]
};

// argv without the program name.  Throws UsageError with a one-line reason.
Options parse_cli(const std::vector<std::string>& args);

// Seconds since the epoch: an integer, or YYYY-MM-DDTHH:MM:SS[Z] in UTC.
bool parse_time_point(const std::string& s, int64_t* out);

const char* usage_text();
// `mfprio-host COMMAND --help`.
const char* command_usage(Command c);

}  // namespace mfprio::host
