// cli.cpp - see cli.hpp.  Options take "--opt VALUE" or "--opt=VALUE";
// single-letter flags may be grouped ("-ln").
#include "cli.hpp"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include <timestr.hpp>

namespace mfprio::host {
namespace {

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t c = s.find(',', pos);
    if (c == std::string::npos) c = s.size();
    if (c > pos) out.push_back(s.substr(pos, c - pos));
    pos = c + 1;
  }
  return out;
}

class ArgReader {
 public:
  explicit ArgReader(const std::vector<std::string>& a) : args_(a) {}
  bool done() const { return i_ >= args_.size(); }
  const std::string& peek() const { return args_[i_]; }
  std::string next() { return args_[i_++]; }

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

// The replay command's options; true when the current argument was one.
bool replay_option(ArgReader& r, Options* o) {
  std::string v;
  if (r.value_of("--swf", &v)) o->swf = v;
  else if (r.value_of("--emit-accounts", &v)) o->emit_accounts = v;
  else if (r.value_of("--start", &v)) o->start = time_arg("--start", v);
  else if (r.value_of("--limit", &v)) o->limit = count_arg("--limit", v, UINT64_MAX / 4);
  else if (r.value_of("--calc-period", &v)) {
    int64_t s = 0;
    std::string why;
    if (!mfprio::parse_time_string(v, &s, &why)) throw UsageError("--calc-period: " + why);
    if (s <= 0 || s == mfprio::kTimeInfinite)
      throw UsageError("--calc-period: '" + v + "' must be a finite time of at least 1 second (TIME is minutes, "
                       "min:sec, h:m:s or d-h:m:s)");
    o->calc_period = s;
  } else if (r.value_of("--speed", &v)) {
    char* end = nullptr;
    const double x = std::strtod(v.c_str(), &end);
    if (v.empty() || !end || *end || !(x > 0) || x > 1e12)
      throw UsageError("--speed: '" + v + "' is not a positive number (simulated seconds per wall second)");
    o->speed = x;
  } else if (r.value_of("--report", &v)) {
    for (const std::string& item : split_commas(v)) {
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

// The simulate command's options; true when the current argument was one.
bool simulate_option(ArgReader& r, Options* o) {
  std::string v;
  if (r.value_of("--swf", &v)) o->swf = v;
  else if (r.value_of("--conf", &v)) o->confs.push_back(v);
  else if (r.value_of("--procs", &v)) {
    o->procs = static_cast<uint32_t>(count_arg("--procs", v, UINT32_MAX));
    if (!o->procs) throw UsageError("--procs: N must be at least 1");
  } else if (r.value_of("--accounts", &v)) o->accounts = v;
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
         "  sprio --jobs FILE [-l] [-n] [-w] [--percent] [-u USER[,USER...]] [-P | --json] [-h|--noheader] [--all-states] [--now T]\n"
         "  sshare [-l] [-a] [-u USER[,USER...]] [-P | --json] [-h|--noheader]\n"
         "  decay --now T [--running FILE]\n"
         "  job-end --job-file FILE --end T\n"
         "  info\n"
         "  replay --swf FILE [--calc-period TIME] [--limit N] [--start T] [--speed X] [--no-decay]\n"
         "         [--report passes|pending[=N][,...]] [--no-sshare]\n"
         "  replay --swf FILE --emit-accounts OUT.json   (no --conf needed: accounts for mfprio-acct import)\n"
         "  simulate --swf FILE --conf A.conf [--conf B.conf ...] [--procs N] [--accounts IMPORT.json]\n"
         "           [--json | --csv] [--plot OUT.svg] [--backfill easy|none] [--trace-decisions FILE]\n"
         "  explain --jobs FILE JOB_A [JOB_B] [--json] [--now T]\n"
         "T: seconds since the epoch, or YYYY-MM-DDTHH:MM:SS (UTC)\n";
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
      else if (!a.empty() && a[0] == '-') throw UsageError("unknown option '" + a + "'");
      else throw UsageError("unknown command '" + a + "'");
    }
  }
  if (o.command == Command::None) throw UsageError("no command given");

  const bool sprio = o.command == Command::Sprio, sshare = o.command == Command::Sshare;
  while (!r.done()) {
    if (r.value_of("--now", &v)) { o.now = time_arg("--now", v); continue; }
    if ((sprio && r.value_of("--jobs", &v)) || (o.command == Command::Decay && r.value_of("--running", &v)) ||
        (o.command == Command::JobEnd && r.value_of("--job-file", &v))) {
      o.jobs_file = v;
      continue;
    }
    if (o.command == Command::JobEnd && r.value_of("--end", &v)) { o.end = time_arg("--end", v); continue; }
    if (o.command == Command::Replay && replay_option(r, &o)) continue;
    if (o.command == Command::Simulate && simulate_option(r, &o)) continue;
    if (o.command == Command::Explain) {
      if (r.value_of("--jobs", &v)) { o.jobs_file = v; continue; }
      if (r.peek() == "--json") { r.next(); o.json = true; continue; }
      const std::string& a = r.peek();
      if (!a.empty() && a[0] != '-') {
        if (o.explain_ids.size() == 2) throw UsageError("explain takes one or two job ids");
        o.explain_ids.push_back(count_arg("explain JOB", r.next(), UINT64_MAX / 4));
        continue;
      }
    }
    if ((sprio || sshare) && (r.value_of("-u", &v) || r.value_of("--user", &v))) {
      for (auto& u : split_commas(v)) o.users.push_back(u);
      continue;
    }
    const std::string a = r.next();
    if (a == "-v" || a == "--verbose") { o.verbose = true; continue; }
    if (sprio || sshare) {
      if (a == "--json") { o.json = true; continue; }
      if (a == "--long") { o.long_format = true; continue; }
      if (a == "--parsable") { o.parsable = true; continue; }
      if (a == "--noheader") { o.noheader = true; continue; }
      if (sprio && a == "--norm") { o.normalized = true; continue; }
      if (sprio && a == "--weights") { o.weights = true; continue; }
      if (sprio && a == "--percent") { o.percent = true; continue; }
      if (sprio && a == "--all-states") { o.all_states = true; continue; }
      if (sshare && a == "--all") { o.all_users = true; continue; }
      if (a.size() >= 2 && a[0] == '-' && a[1] != '-') {
        const std::string letters = sprio ? "lnwPh" : "laPh";
        for (size_t i = 1; i < a.size(); ++i) {
          const char c = a[i];
          if (letters.find(c) == std::string::npos)
            throw UsageError("unknown option '-" + std::string(1, c) + "' for " + (sprio ? "sprio" : "sshare"));
          if (c == 'l') o.long_format = true;
          if (c == 'n') o.normalized = true;
          if (c == 'w') o.weights = true;
          if (c == 'P') o.parsable = true;
          if (c == 'h') o.noheader = true;
          if (c == 'a') o.all_users = true;
        }
        continue;
      }
    }
    throw UsageError((a.empty() || a[0] != '-' ? "unexpected argument '" : "unknown option '") + a + "'");
  }

  if (o.command == Command::Replay && o.swf.empty()) throw UsageError("replay needs --swf FILE");
  if (o.command == Command::Simulate) {
    if (o.swf.empty()) throw UsageError("simulate needs --swf FILE");
    if (!o.conf.empty()) o.confs.insert(o.confs.begin(), o.conf);
    if (o.confs.empty()) throw UsageError("simulate needs at least one --conf FILE");
    if (o.json && o.csv) throw UsageError("--json and --csv exclude each other");
    o.conf = o.confs.front();
  }
  if (o.command == Command::Explain) {
    if (o.jobs_file.empty()) throw UsageError("explain needs --jobs FILE");
    if (o.explain_ids.empty()) throw UsageError("explain needs JOB_A [JOB_B]");
  }
  const bool emit_only = o.command == Command::Replay && !o.emit_accounts.empty();
  if (o.conf.empty() && !emit_only) throw UsageError("--conf FILE is required");
  if (o.parsable && o.json) throw UsageError("-P and --json exclude each other");
  if (sprio && o.jobs_file.empty() && !o.weights) throw UsageError("sprio needs --jobs FILE");
  if (o.command == Command::Decay && !o.now) throw UsageError("decay needs --now T");
  if (o.command == Command::JobEnd && (o.jobs_file.empty() || !o.end))
    throw UsageError("job-end needs --job-file FILE and --end T");
  return o;
}

}  // namespace mfprio::host
