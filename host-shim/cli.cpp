// cli.cpp - see cli.hpp.  Options take "--opt VALUE" or "--opt=VALUE";
// single-letter flags may be grouped ("-ln").
#include "cli.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "strings.hpp"
#include "timestr.hpp"

namespace mfprio::host {
namespace {

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& a) : args_(a) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& peek() const { return args_[i_]; }
  std::string next() { return args_[i_++]; }
  bool has_next_value() const { return i_ < args_.size(); }

  // When the current argument is `name` or `name=...`, consumes it and its value.
  bool value_of(const char* name, std::string* out) {
    const std::string& a = args_[i_];
    const std::string n(name);
    if (a == n) {
      if (i_ + 1 >= args_.size()) throw UsageError(n + " needs a value");
      *out = args_[i_ + 1];
      i_ += 2;
      return true;
    }
    if (a.size() > n.size() && a.compare(0, n.size(), n) == 0 && a[n.size()] == '=') {
      *out = a.substr(n.size() + 1);
      ++i_;
      return true;
    }
    return false;
  }

 private:
  const std::vector<std::string>& args_;
  size_t i_ = 0;
};

int64_t time_arg(const std::string& opt, const std::string& v) {
  int64_t t = 0;
  if (!parse_time_point(v, &t))
    throw UsageError(opt + ": '" + v + "' is not a time (seconds since the epoch or YYYY-MM-DDTHH:MM:SS)");
  return t;
}

uint64_t count_arg(const std::string& opt, const std::string& v, uint64_t max) {
  uint64_t n = 0;
  bool ok = !v.empty() && v.size() <= 19;
  for (char c : v) ok = ok && c >= '0' && c <= '9';
  if (ok) n = std::strtoull(v.c_str(), nullptr, 10);
  if (!ok || n > max) throw UsageError(opt + ": '" + v + "' is not a count (0.." + std::to_string(max) + ")");
  return n;
}

// --calc-period TIME (replay, loop): a finite Slurm time string >= 1 s.
int64_t calc_period_arg(const std::string& v) {
  int64_t s = 0;
  std::string why;
  if (!mfprio::parse_time_string(v, &s, &why)) throw UsageError("--calc-period: " + why);
  if (s <= 0 || s == mfprio::kTimeInfinite)
    throw UsageError("--calc-period: '" + v + "' must be a finite time of at least 1 second (TIME is minutes, "
                     "min:sec, h:m:s or d-h:m:s)");
  return s;
}

// A positive number of at most `max` (--speed X, --origin W).
double positive_arg(const std::string& opt, const std::string& v, double max, const char* what) {
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || !end || *end || !(x > 0) || x > max)
    throw UsageError(opt + ": '" + v + "' is not a positive number (" + what + ")");
  return x;
}

// The loop command's options; true when the current argument was one.
bool loop_option(ArgReader& r, Options* o) {
  std::string v;
  if (r.value_of("--job-file", &v)) o->jobs_file = v;
  else if (r.value_of("--start", &v)) o->start = time_arg("--start", v);
  else if (r.value_of("--until", &v)) o->until = time_arg("--until", v);
  else if (r.value_of("--calc-period", &v)) o->calc_period = calc_period_arg(v);
  else if (r.value_of("--speed", &v)) o->speed = positive_arg("--speed", v, 1e12, "simulated seconds per wall second");
  else if (r.value_of("--origin", &v)) o->origin = positive_arg("--origin", v, 1e11, "epoch seconds");
  else if (r.value_of("--report", &v)) {
    if (v != "passes") throw UsageError("--report: loop reports 'passes' only, not '" + v + "'");
    o->report_passes = true;
  } else return false;
  return true;
}

// The replay command's options; true when the current argument was one.
bool replay_option(ArgReader& r, Options* o) {
  std::string v;
  if (r.value_of("--swf", &v)) o->swf = v;
  else if (r.value_of("--emit-accounts", &v)) o->emit_accounts = v;
  else if (r.value_of("--start", &v)) o->start = time_arg("--start", v);
  else if (r.value_of("--limit", &v)) o->limit = count_arg("--limit", v, UINT64_MAX / 4);
  else if (r.value_of("--calc-period", &v)) o->calc_period = calc_period_arg(v);
  else if (r.value_of("--speed", &v)) o->speed = positive_arg("--speed", v, 1e12, "simulated seconds per wall second");
  else if (r.value_of("--report", &v)) {
    for (const std::string& item : split_nonempty(v, ',')) {
      if (item == "passes") o->report_passes = true;
      else if (item == "pending") o->pending_top = 10;
      else if (item.rfind("pending=", 0) == 0) {
        o->pending_top = static_cast<uint32_t>(count_arg("--report pending=N", item.substr(8), 1000000));
        if (!o->pending_top) throw UsageError("--report pending=N: N must be at least 1");
      } else
        throw UsageError("--report: unknown report '" + item + "' (passes, pending[=N])");
    }
  } else if (r.peek() == "--no-decay") { r.next(); o->no_decay = true; }
  else if (r.peek() == "--no-sshare") { r.next(); o->no_sshare = true; }
  else return false;
  return true;
}

// One job id of -j LIST (Slurm takes plain job ids; an array task "N_M" or a
// het component "N+M" names job N here).
uint64_t job_id_arg(const std::string& item) {
  std::string digits = item.substr(0, item.find_first_of("_+"));
  return count_arg("-j/--jobs", digits, UINT64_MAX / 4);
}

bool is_job_list(const std::string& s) {
  if (s.empty()) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != ',' && c != '_' && c != '+') return false;
  return true;
}

// One sprio/sshare option being read: the argument, its long name and
// attached value ("--user=alice"), and the readers every option uses.
struct ViewArg {
  ArgReader& r;
  Options* o;
  bool sprio;
  std::string a, name, value;
  bool has_value = false;

  static void list_into(std::vector<std::string>* out, const std::string& v) {
    for (auto& x : split_nonempty(v, ',')) out->push_back(x);
  }
  std::string need(const std::string& what) {
    if (!r.has_next_value()) throw UsageError(what + " needs a value");
    return r.next();
  }
  void jobs(const std::string& v) {
    if (!is_job_list(v)) throw UsageError("-j/--jobs: '" + v + "' is not a comma-separated list of job ids");
    for (auto& x : split_nonempty(v, ',')) o->job_ids.push_back(job_id_arg(x));
  }
  // -j/--jobs: the list is optional (Slurm: alone it filters nothing); a
  // following word that is not an option must be the list.
  void optional_jobs(const std::string& what) {
    if (!r.has_next_value() || (r.peek().size() > 1 && r.peek()[0] == '-')) return;
    if (!is_job_list(r.peek()))
      throw UsageError(what + ": '" + r.peek() + "' is not a list of job ids (the job feed is --job-file FILE)");
    jobs(r.next());
  }
  // A long flag (no value allowed) / a long option's value.
  bool flag(bool* f) {
    if (has_value) throw UsageError(name + " takes no value");
    r.next();
    *f = true;
    return true;
  }
  std::string val() {
    r.next();
    return has_value ? value : need(name);
  }
  void format(const std::string& v) {
    o->format = (!sprio && o->has_format) ? o->format + "," + v : v;  // sshare: every -o adds fields
    o->has_format = true;
  }
};

// Long options both commands take.
bool common_long(ViewArg& v) {
  Options* o = v.o;
  if (v.name == "--json") return v.flag(&o->json);
  if (v.name == "--long") return v.flag(&o->long_format);
  if (v.name == "--noheader") return v.flag(&o->noheader);
  if (v.name == "--verbose") return v.flag(&o->verbose);
  if (v.name == "--helpformat") return v.flag(&o->helpformat);
  if (v.name == "--format") {
    v.format(v.val());
    return true;
  }
  if (v.name == "--clusters" || v.name == "--cluster") {
    o->clusters = v.val();
    return true;
  }
  if (v.name == "--job-file") {
    o->jobs_file = v.val();
    return true;
  }
  return false;
}

bool sprio_long(ViewArg& v) {
  Options* o = v.o;
  if (v.name == "--norm") return v.flag(&o->normalized);
  if (v.name == "--weights") return v.flag(&o->weights);
  if (v.name == "--percent") return v.flag(&o->percent);
  if (v.name == "--all-states") return v.flag(&o->all_states);
  if (v.name == "--view") {
    o->view = v.val();
    return true;
  }
  if (v.name == "--parsable") return v.flag(&o->parsable);
  if (v.name == "--slurm") {  // --slurm or --slurm=PATH (never a separate word: it is optional)
    v.r.next();
    o->slurm = true;
    o->slurm_path = v.value;
    if (v.has_value && v.value.empty()) throw UsageError("--slurm=: empty path");
    return true;
  }
  if (v.name == "--jobs") {
    v.r.next();
    if (v.has_value) v.jobs(v.value);
    else v.optional_jobs("--jobs");
    return true;
  }
  std::vector<std::string>* list = v.name == "--user" || v.name == "--users"         ? &o->users
                                   : v.name == "--account" || v.name == "--accounts" ? &o->accounts_filter
                                   : v.name == "--partition"                         ? &o->partitions
                                                                                     : nullptr;
  if (list) {
    ViewArg::list_into(list, v.val());
    return true;
  }
  if (v.name == "--sort") {
    o->sort = v.val();
    return true;
  }
  return false;
}

bool sshare_long(ViewArg& v) {
  Options* o = v.o;
  if (v.name == "--all") return v.flag(&o->all_users);
  if (v.name == "--Users") return v.flag(&o->users_only);
  if (v.name == "--partition") return v.flag(&o->share_partitions);
  if (v.name == "--parsable" || v.name == "--parsable2") {
    v.flag(&o->parsable);
    o->parsable_no_ending = v.name == "--parsable2";
    return true;
  }
  if (v.name == "--users") {
    const std::string u = v.val();
    if (u == "-1") o->all_users = true;  // Slurm: -u -1 is every user
    else ViewArg::list_into(&o->users, u);
    return true;
  }
  if (v.name == "--accounts") {
    ViewArg::list_into(&o->accounts_filter, v.val());
    return true;
  }
  return false;
}

// Short options, getopt style: grouped flags, a value attached or next.
bool short_options(ViewArg& v) {
  Options* o = v.o;
  const bool sprio = v.sprio;
  const std::string& a = v.a;
  const std::string flags = sprio ? "hlnwPv" : "ahelmnpPUv";
  const std::string valued = sprio ? "uApoSM" : "AuoM";
  v.r.next();
  for (size_t i = 1; i < a.size(); ++i) {
    const char c = a[i];
    if (sprio && c == 'j') {  // optional argument, attached or the next word
      const std::string rest = a.substr(i + 1);
      if (!rest.empty()) v.jobs(rest);
      else v.optional_jobs("-j");
      return true;
    }
    if (valued.find(c) != std::string::npos) {
      const std::string rest = a.substr(i + 1);
      const std::string x = !rest.empty() ? rest : v.need(std::string("-") + c);
      switch (c) {
        case 'u':
          if (!sprio && x == "-1") o->all_users = true;
          else ViewArg::list_into(&o->users, x);
          break;
        case 'A': ViewArg::list_into(&o->accounts_filter, x); break;
        case 'p': ViewArg::list_into(&o->partitions, x); break;
        case 'o': v.format(x); break;
        case 'S': o->sort = x; break;
        case 'M': o->clusters = x; break;
      }
      return true;
    }
    if (flags.find(c) == std::string::npos)
      throw UsageError("unknown option '-" + std::string(1, c) + "' for " + (sprio ? "sprio" : "sshare"));
    switch (c) {
      case 'h': o->noheader = true; break;
      case 'n': if (sprio) o->normalized = true; else o->noheader = true; break;
      case 'l': o->long_format = true; break;
      case 'w': o->weights = true; break;
      case 'v': o->verbose = true; break;
      case 'a': o->all_users = true; break;
      case 'e': o->helpformat = true; break;
      case 'm': o->share_partitions = true; break;
      case 'U': o->users_only = true; break;
      case 'p': o->parsable = true; o->parsable_no_ending = false; break;
      case 'P': o->parsable = true; o->parsable_no_ending = !sprio; break;
    }
  }
  return true;
}

// sprio's and sshare's options, as Slurm's sprio and sshare take them
// (getopt style: "-u alice", "-ualice", "--user=alice", "--user alice",
// grouped flags "-lnh").  True when the current argument was one.
bool view_option(ArgReader& r, Options* o, bool sprio) {
  ViewArg v{r, o, sprio, r.peek(), {}, {}, false};
  const std::string& a = v.a;
  if (a.size() < 2 || a[0] != '-') return false;
  if (a[1] != '-') return short_options(v);
  v.name = a;
  if (size_t eq = a.find('='); eq != std::string::npos) {
    v.name = a.substr(0, eq);
    v.value = a.substr(eq + 1);
    v.has_value = true;
  }
  return common_long(v) || (sprio ? sprio_long(v) : sshare_long(v));
}

// The simulate command's options; true when the current argument was one.
bool simulate_option(ArgReader& r, Options* o) {
  std::string v;
  if (r.value_of("--swf", &v)) o->swf = v;
  else if (r.value_of("--conf", &v)) o->confs.push_back(v);
  else if (r.value_of("--procs", &v)) {
    o->procs = static_cast<uint32_t>(count_arg("--procs", v, UINT32_MAX));
    if (!o->procs) throw UsageError("--procs: N must be at least 1");
  } else if (r.value_of("--accounts", &v)) o->accounts = v;
  else if (r.value_of("--map", &v)) o->map = v;
  else if (r.value_of("--seed", &v)) o->seed = count_arg("--seed", v, UINT64_MAX);
  else if (r.value_of("--plot", &v)) o->plot = v;
  else if (r.value_of("--trace-decisions", &v)) o->trace_decisions = v;
  else if (r.value_of("--backfill", &v)) {
    if (v == "easy") o->backfill_none = false;
    else if (v == "none") o->backfill_none = true;
    else throw UsageError("--backfill: '" + v + "' is not easy or none");
  } else if (r.peek() == "--json") { r.next(); o->json = true; }
  else if (r.peek() == "--csv") { r.next(); o->csv = true; }
  else return false;
  return true;
}

}  // namespace

const char* usage_text() {
  return "usage: mfprio-host --conf FILE [--plugin-dir DIR] [--now T] [-v|--verbose] COMMAND [options]\n"
         "commands:\n"
         "  sprio --job-file FILE [-j IDS] [-u USERS] [-A ACCOUNTS] [-p PARTITIONS] [-o FORMAT | -l] [-S SORT]\n"
         "        [-n] [-w] [-h] [--percent] [-P | --json] [--all-states] [--view NAME] [--helpformat] [--now T]\n"
         "  sprio --slurm[=FILE|DIR] [the same options but --now]   (--conf: slurmctld's slurm.conf)\n"
         "  sshare [-a] [-A ACCOUNTS] [-u USERS] [-U] [-m] [-l] [-n] [-o FIELDS] [-p | -P | --json] [-e]\n"
         "  decay --now T [--running FILE]\n"
         "  job-end --job-file FILE --end T\n"
         "  info\n"
         "  replay --swf FILE [--calc-period TIME] [--limit N] [--start T] [--speed X] [--no-decay]\n"
         "         [--report passes|pending[=N][,...]] [--no-sshare]\n"
         "  replay --swf FILE --emit-accounts OUT.json   (no --conf needed: accounts for mfprio-acct import)\n"
         "  simulate --swf FILE --conf A.conf [--conf B.conf ...] [--procs N] [--accounts IMPORT.json]\n"
         "           [--map FILE|auto] [--seed N] [--json | --csv] [--plot OUT.svg] [--backfill easy|none]\n"
         "           [--trace-decisions FILE]\n"
         "  explain --job-file FILE JOB_A [JOB_B] [--json] [--now T]\n"
         "  loop --job-file FILE --start T --until T [--calc-period TIME] [--speed X] [--origin W]\n"
         "       [--report passes]\n"
         "  COMMAND --help: that command's options;  --version: the version\n"
         "T: seconds since the epoch, or YYYY-MM-DDTHH:MM:SS (UTC)\n";
}

const char* command_usage(Command c) {
  switch (c) {
    case Command::Sprio:
      return "usage: mfprio-host --conf FILE sprio --job-file FILE [options]\n"
             "       mfprio-host [--conf SLURM.CONF] sprio --slurm[=FILE|DIR] [options]\n"
             "The priority factors of the pending jobs in FILE, in the view layout the plugin declares (Slurm's\n"
             "sprio for slurm-22.05, any family with -o; else one column per term);\n"
             "held jobs and jobs not yet eligible are left out, as sprio leaves them out.\n"
             "  --job-file FILE        the job feed (JSON Lines, mfprio-host(1) JOB FILE)\n"
             "  --slurm[=FILE|DIR]     a live slurmctld's jobs as priority/mfprio's last pass published them\n"
             "                         (default StateSaveLocation/mfprio-pass.jsonl), priced at the pass's\n"
             "                         time; --conf is slurmctld's slurm.conf (default $SLURM_CONF, else\n"
             "                         /etc/slurm/slurm.conf)\n"
             "  -j, --jobs=LIST        only these job ids\n"
             "  -u, --user(s)=LIST     only these users' jobs\n"
             "  -A, --account=LIST     only these accounts' jobs (mfprio; not in Slurm 22.05's sprio)\n"
             "  -p, --partition=LIST   only these partitions\n"
             "  -o, --format=FORMAT    Slurm's format: %[.][size]letter (see --helpformat); excludes -l\n"
             "  -S, --sort=LIST        sort by letters, each with an optional + or - (default: job id)\n"
             "  -l, --long             every factor column\n"
             "  -n, --norm             normalized factors\n"
             "  -w, --weights          the weights only\n"
             "  -h, --noheader         no header line\n"
             "  -M, --clusters=NAME    accepted and ignored (one cluster)\n"
             "  -P, --parsable         '|' after every field (mfprio)\n"
             "  --json                 the plugin's factor objects (mfprio)\n"
             "  --percent              a Percent row (mfprio; Maui's diagnose -p)\n"
             "  --all-states           every record of FILE, not only eligible pending ones (mfprio)\n"
             "  --view NAME            one of the layout's job views (mfprio-host(1), VIEW LAYOUTS)\n"
             "  --helpformat           the format letters\n"
             "  --now T                the time to price at\n";
    case Command::Sshare:
      return "usage: mfprio-host --conf FILE sshare [options]\n"
             "The share tree, in the view layout the plugin declares (Slurm's sshare for slurm-22.05, any family\n"
             "with -o or -m; else the family's own columns).\n"
             "  --job-file FILE        price FILE's queue first (a whole-queue family's share view shows that pass)\n"
             "  -a, --all              every user (default: the calling user, or -u)\n"
             "  -A, --accounts=LIST    only these accounts (and their users)\n"
             "  -u, --users=LIST       these users (-u -1: every user)\n"
             "  -U, --Users            user rows only\n"
             "  -m, --partition        the Partition column\n"
             "  -l, --long             NormUsage, LevelFS, GrpTRESMins, TRESRunMins too\n"
             "  -n, -h, --noheader     no header lines\n"
             "  -o, --format=LIST      comma-separated field names, each with an optional %WIDTH (see -e)\n"
             "  -p, --parsable         '|' after every field\n"
             "  -P, --parsable2        '|' between fields, none after the last\n"
             "  -e, --helpformat       the field names\n"
             "  -M, --clusters=NAME    accepted and ignored (one cluster)\n"
             "  --json                 the share table as JSON\n";
    case Command::Decay:
      return "usage: mfprio-host --conf FILE decay --now T [--running FILE]\n"
             "One decay pass at T; FILE: the running jobs (JSON Lines), charged up to T.\n"
             "  --now T                the time of the pass (required)\n"
             "  --running FILE         the running jobs to charge (JSON Lines; default none)\n";
    case Command::JobEnd:
      return "usage: mfprio-host --conf FILE job-end --job-file FILE --end T\n"
             "Charges the jobs of FILE as ended at T.\n"
             "  --job-file FILE        the jobs that ended (JSON Lines, with their start)\n"
             "  --end T                when they ended\n";
    case Command::Info:
      return "usage: mfprio-host --conf FILE info\nThe plugin's identity and settings as JSON.\n";
    case Command::Loop:
      return "usage: mfprio-host --conf FILE loop --job-file FILE --start T --until T [--calc-period TIME]\n"
             "       [--speed X] [--origin W] [--report passes]\n"
             "A controller's calc-period loop over FILE's jobs (their start and end), on a clock running with\n"
             "the wall clock: simulated now = T + (wall - W) x X.  A pass every TIME after --start: the jobs\n"
             "ended since the previous pass (job_end), then decay with the jobs running.\n"
             "  --job-file FILE        the job stream (JSON Lines, each job's start and, once known, end)\n"
             "  --start T              the simulated time at the wall time W (passes at T + k x TIME)\n"
             "  --until T              stop after the first pass at or after T\n"
             "  --calc-period TIME     interval between passes (default: PriorityCalcPeriod)\n"
             "  --speed X              X simulated seconds per wall second (default 1)\n"
             "  --origin W             the wall time (epoch seconds) of --start (default: now); two hosts given\n"
             "                         the same W share one clock, and a restarted one catches up\n"
             "  --report passes        a line per pass\n";
    case Command::Replay:
      return "usage: mfprio-host --conf FILE replay --swf FILE [--calc-period TIME] [--limit N] [--start T]\n"
             "       [--speed X] [--no-decay] [--report passes|pending[=N][,...]] [--no-sshare]\n"
             "       mfprio-host replay --swf FILE --emit-accounts OUT.json\n"
             "Replays a Standard Workload Format trace (plain or gzip) through the plugin on simulated time.\n"
             "  --swf FILE             the trace (required)\n"
             "  --emit-accounts OUT.json  write the trace's accounts and users for mfprio-acct import, and stop\n"
             "  --calc-period TIME     interval between decay passes (default: PriorityCalcPeriod)\n"
             "  --limit N              read only the first N jobs\n"
             "  --start T              move the trace to start at T\n"
             "  --speed X              pace at X simulated seconds per second (default: as fast as possible)\n"
             "  --no-decay             no decay: the root's usage equals the trace's CPU-seconds\n"
             "  --report passes|pending[=N][,...]  a line per pass, or the top N pending jobs after each pass\n"
             "  --no-sshare            no share table at the end\n";
    case Command::Simulate:
      return "usage: mfprio-host simulate --swf FILE --conf A.conf [--conf B.conf ...] [--procs N]\n"
             "       [--accounts IMPORT.json] [--map FILE|auto] [--seed N] [--json | --csv] [--plot OUT.svg]\n"
             "       [--backfill easy|none] [--trace-decisions FILE]\n"
             "Schedules the trace under each configuration (each on a fresh store) and compares waits,\n"
             "slowdowns and delivered shares per account and user.\n"
             "  --swf FILE             the trace (required)\n"
             "  --conf FILE            a configuration to compare (one or more)\n"
             "  --procs N              the machine's processors (default: the trace's MaxProcs)\n"
             "  --accounts IMPORT.json the accounts loaded into each store (default: the trace's)\n"
             "  --map FILE             the trace's users, accounts and partitions renamed to the site's\n"
             "  --map auto             the trace's users spread over the site's accounts by their shares, its jobs\n"
             "                         over the site's partitions by their processors\n"
             "  --seed N               the seed of that spread (default 1)\n"
             "  --json, --csv          the report as JSON or CSV (default: text)\n"
             "  --plot OUT.svg         also draw shares over time and the wait distribution (SVG)\n"
             "  --backfill easy|none   EASY backfill (default) or none\n"
             "  --trace-decisions FILE every scheduling decision\n";
    case Command::Explain:
      return "usage: mfprio-host --conf FILE explain --job-file FILE JOB_A [JOB_B] [--json] [--now T]\n"
             "Why JOB_A has its priority (and why it sits where it does against JOB_B).\n"
             "  --job-file FILE        the pending (and running) jobs (JSON Lines)\n"
             "  JOB_A [JOB_B]          the job to explain, and one to compare it with\n"
             "  --json                 the explanation as JSON\n"
             "  --now T                the time to price at\n";
    case Command::None: break;
  }
  return usage_text();
}

bool parse_time_point(const std::string& s, int64_t* out) {
  if (s.empty()) return false;
  bool digits = true;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) digits = false;
  if (digits) {
    if (s.size() > 15) return false;
    *out = std::strtoll(s.c_str(), nullptr, 10);
    return true;
  }
  int Y, M, D, h, m, sec;
  char tail[4] = {0};
  const int n = std::sscanf(s.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%3s", &Y, &M, &D, &h, &m, &sec, tail);
  if (n < 6 || (n == 7 && std::string(tail) != "Z")) return false;
  if (M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60 || h < 0 || m < 0 || sec < 0) return false;
  std::tm tm{};
  tm.tm_year = Y - 1900;
  tm.tm_mon = M - 1;
  tm.tm_mday = D;
  tm.tm_hour = h;
  tm.tm_min = m;
  tm.tm_sec = sec;
  *out = static_cast<int64_t>(timegm(&tm));
  return true;
}

Options parse_cli(const std::vector<std::string>& args) {
  Options o;
  ArgReader r(args);
  std::string v;
  // Global options, up to the command word.
  while (!r.done() && o.command == Command::None) {
    if (r.value_of("--conf", &v)) o.conf = v;
    else if (r.value_of("--plugin-dir", &v)) o.plugin_dir = v;
    else if (r.value_of("--now", &v)) o.now = time_arg("--now", v);
    else if (r.peek() == "-v" || r.peek() == "--verbose") { r.next(); o.verbose = true; }
    else if (r.peek() == "--help") { r.next(); o.help = true; return o; }
    else if (r.peek() == "--version" || r.peek() == "-V") { r.next(); o.version = true; return o; }
    else {
      const std::string a = r.next();
      if (a == "sprio") o.command = Command::Sprio;
      else if (a == "sshare") o.command = Command::Sshare;
      else if (a == "decay") o.command = Command::Decay;
      else if (a == "job-end") o.command = Command::JobEnd;
      else if (a == "info") o.command = Command::Info;
      else if (a == "replay") o.command = Command::Replay;
      else if (a == "simulate") o.command = Command::Simulate;
      else if (a == "explain") o.command = Command::Explain;
      else if (a == "loop") o.command = Command::Loop;
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else throw UsageError("unknown command '" + a + "'");
    }
  }
  if (o.command == Command::None) throw UsageError("no command given");

  const bool sprio = o.command == Command::Sprio, sshare = o.command == Command::Sshare;
  // `COMMAND --help` (or --usage) anywhere after the command: that command's help, nothing else is read.
  for (size_t i = 0; i < args.size(); ++i)
    if (args[i] == "--help" || ((sprio || sshare) && args[i] == "--usage")) {
      bool after_command = false;
      for (size_t k = 0; k < i; ++k) {
        const std::string& w = args[k];
        if (w == "sprio" || w == "sshare" || w == "decay" || w == "job-end" || w == "info" || w == "replay" ||
            w == "simulate" || w == "explain" || w == "loop")
          after_command = true;
      }
      if (after_command) {
        o.command_help = true;
        return o;
      }
    }
  while (!r.done()) {
    if (r.value_of("--now", &v)) { o.now = time_arg("--now", v); continue; }
    if (r.peek() == "--version" || r.peek() == "-V") {
      r.next();
      o.version = true;
      return o;
    }
    if ((o.command == Command::Decay && r.value_of("--running", &v)) ||
        (o.command == Command::JobEnd && r.value_of("--job-file", &v))) {
      o.jobs_file = v;
      continue;
    }
    if (o.command == Command::JobEnd && r.value_of("--end", &v)) { o.end = time_arg("--end", v); continue; }
    if (o.command == Command::Replay && replay_option(r, &o)) continue;
    if (o.command == Command::Loop && loop_option(r, &o)) continue;
    if (o.command == Command::Simulate && simulate_option(r, &o)) continue;
    if (o.command == Command::Explain) {
      if (r.value_of("--job-file", &v)) { o.jobs_file = v; continue; }
      if (r.peek() == "--json") { r.next(); o.json = true; continue; }
      const std::string& a = r.peek();
      if (!a.empty() && a[0] != '-') {
        if (o.explain_ids.size() == 2) throw UsageError("explain takes one or two job ids");
        o.explain_ids.push_back(count_arg("explain JOB", r.next(), UINT64_MAX / 4));
        continue;
      }
    }
    if ((sprio || sshare) && view_option(r, &o, sprio)) continue;
    const std::string a = r.next();
    if (a == "-v" || a == "--verbose") { o.verbose = true; continue; }
    throw UsageError((a.empty() || a[0] != '-' ? "unexpected argument '" : "unknown option '") + a + "'" +
                     (sprio || sshare ? std::string(" for ") + (sprio ? "sprio" : "sshare") : std::string()));
  }

  if (o.command == Command::Replay && o.swf.empty()) throw UsageError("replay needs --swf FILE");
  if (o.command == Command::Simulate) {
    if (o.swf.empty()) throw UsageError("simulate needs --swf FILE");
    if (!o.conf.empty()) o.confs.insert(o.confs.begin(), o.conf);
    if (o.confs.empty()) throw UsageError("simulate needs at least one --conf FILE");
    if (!o.map.empty() && o.accounts.empty())
      throw UsageError("simulate --map needs --accounts IMPORT.json (the site's accounts, named as the map names them)");
    if (o.json && o.csv) throw UsageError("--json and --csv exclude each other");
    o.conf = o.confs.front();
  }
  if (o.command == Command::Explain) {
    if (o.jobs_file.empty()) throw UsageError("explain needs --job-file FILE");
    if (o.explain_ids.empty()) throw UsageError("explain needs JOB_A [JOB_B]");
  }
  const bool emit_only = o.command == Command::Replay && !o.emit_accounts.empty();
  if (o.slurm && !o.jobs_file.empty())
    throw UsageError("--slurm reads the controller's pass file: not with --job-file");
  if (o.slurm && o.now) throw UsageError("--slurm prices at the pass's time: not with --now");
  if (o.conf.empty() && !emit_only && !o.helpformat && !o.slurm) throw UsageError("--conf FILE is required");
  if (o.parsable && o.json) throw UsageError(std::string(sshare ? "-p/-P" : "-P") + " and --json exclude each other");
  if (sprio && o.percent && o.has_format) throw UsageError("--percent and -o/--format exclude each other");
  if (sprio && !o.view.empty() && (o.has_format || o.long_format || o.percent || o.json || o.weights))
    throw UsageError("--view prints the layout's own columns: not with -o, -l, --percent, --json or -w");
  if (sprio && o.long_format && o.has_format)
    throw UsageError("-o/--format and -l/--long exclude each other (as in Slurm's sprio)");
  if ((sprio || sshare) && o.has_format && o.format.empty()) throw UsageError("-o/--format needs a format");
  if (sprio && o.jobs_file.empty() && !o.slurm && !o.weights && !o.helpformat)
    throw UsageError("sprio needs --job-file FILE (the job feed; -j/--jobs filters job ids)");
  if (o.command == Command::Decay && !o.now) throw UsageError("decay needs --now T");
  if (o.command == Command::Loop && (o.jobs_file.empty() || !o.start || !o.until))
    throw UsageError("loop needs --job-file FILE, --start T and --until T");
  if (o.command == Command::JobEnd && (o.jobs_file.empty() || !o.end))
    throw UsageError("job-end needs --job-file FILE and --end T");
  return o;
}

}  // namespace mfprio::host
