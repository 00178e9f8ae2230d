// simulate_cmd.cpp - the `simulate` command: read the trace and the import
// document, run each conf in turn on its own store in one temporary
// directory (removed on exit), print the report (text, --json or --csv) on
// stdout, the plot with --plot, the elapsed time on stderr, and a progress
// line on stderr when stderr is a terminal and the run lasts over a second.
#include "simulate_cmd.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <set>
#include <sstream>

#include <algorithm>
#include <map>
#include <optional>

#include "bounded_read.hpp"
#include "json_util.hpp"
#include "simulate_map.hpp"
#include "sim_report.hpp"
#include "sim_svg.hpp"
#include "simulate.hpp"
#include "swf.hpp"

namespace mfprio::host {
namespace {

class TempDir {
 public:
  TempDir() {
    // $TMPDIR when set; else /dev/shm when writable: the stores are thrown
    // away, and on tmpfs their per-pass commits cost no disk sync (about 3x
    // faster on a loaded machine); else /tmp.
    const char* base = std::getenv("TMPDIR");
    std::string dir = base && *base ? base : ::access("/dev/shm", W_OK | X_OK) == 0 ? "/dev/shm" : "/tmp";
    std::string tmpl = dir + "/mfprio-simulate-XXXXXX";
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("cannot make a temporary directory: " + std::string(std::strerror(errno)));
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path) {
  try {
    return read_bounded(path, kImportBounds);
  } catch (const ReadError& e) {
    throw std::runtime_error(std::string("accounts file ") + e.what());
  }
}

std::string base_name(const std::string& p) { return p.substr(p.find_last_of('/') + 1); }

// The conf's file name without ".conf"; a repeated name gets "#2", "#3"...
std::vector<std::string> policy_names(const std::vector<std::string>& confs) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  for (const std::string& c : confs) {
    std::string n = base_name(c);
    if (n.size() > 5 && n.compare(n.size() - 5, 5, ".conf") == 0) n.resize(n.size() - 5);
    std::string u = n;
    for (int k = 2; seen.count(u); ++k) u = n + "#" + std::to_string(k);
    seen.insert(u);
    out.push_back(u);
  }
  return out;
}

// One warning line: "simulate: warning: LABEL: N NOUNs WHY: a, b, ..." (the
// first ten names).  Nothing when `names` is empty.
void warn_names(const std::string& label, const char* noun, const std::string& why,
                const std::vector<std::string>& names) {
  if (names.empty()) return;
  std::string list;
  for (size_t i = 0; i < names.size() && i < 10; ++i) list += (i ? ", " : "") + names[i];
  std::fprintf(stderr, "simulate: warning: %s: %zu %s%s %s: %s%s\n", label.c_str(), names.size(), noun,
               names.size() == 1 ? "" : "s", why.c_str(), list.c_str(), names.size() > 10 ? ", ..." : "");
}

// The partitions the (mapped) trace's jobs name, sorted (world.partitions
// is), the default ("") left out.
std::vector<std::string> used_partitions_of(const SimWorld& world) {
  std::vector<uint8_t> used_at(world.partitions.size(), 0);
  for (const SimJob& j : world.jobs) used_at[j.partition] = 1;
  std::vector<std::string> used;
  for (size_t i = 0; i < used_at.size(); ++i)
    if (used_at[i] && !world.partitions[i].empty()) used.push_back(world.partitions[i]);
  return used;
}

// The partitions (classes, queues) the site names that no job of the
// (mapped) trace uses, per conf and for the accounts document; and per conf
// that (with the document) names any, the partitions jobs name that neither
// defines: a policy keyed on them sees nothing of theirs, or refuses the job.
void warn_partitions(const SimWorld& world, const SitePartitions& site, const std::string& accounts_label) {
  const std::vector<std::string> used = used_partitions_of(world);
  std::set<std::string> in_document;
  for (const SiteSource& s : site.sources) {
    if (!s.from_conf) in_document.insert(s.names.begin(), s.names.end());
    std::vector<std::string> unused;
    for (const std::string& n : s.names)
      if (!std::binary_search(used.begin(), used.end(), n)) unused.push_back(n);
    warn_names(s.label, s.kind.c_str(), "no job of the trace uses (see --map)", unused);
  }
  for (const SiteSource& s : site.sources) {
    if (!s.from_conf || (s.names.empty() && in_document.empty())) continue;
    std::vector<std::string> unknown;
    for (const std::string& n : used)
      if (!in_document.count(n) && std::find(s.names.begin(), s.names.end(), n) == s.names.end())
        unknown.push_back(n);
    warn_names(s.label, "partition", in_document.empty() ? "the jobs name that it does not define (see --map)"
                                     : "the jobs name that neither it nor " + accounts_label + " defines (see --map)",
               unknown);
  }
}

// The --map rules whose trace name no job of the trace has.
void warn_unmatched_rules(const SimWorld& world, const std::string& map_label) {
  warn_names(map_label, "rule", "no job of the trace matches", world.unmatched_rules);
}

// The accounts of the --accounts document that no job of the (mapped) trace
// uses, neither itself nor below it, named on stderr: a policy keyed on them
// sees nothing of theirs.
void warn_unused_accounts(const SimWorld& world, const std::string& label) {
  json_error_t err;
  JsonPtr doc(json_loads(world.import_json.c_str(), 0, &err));
  if (!doc) return;  // make_world has reported a bad document already
  std::map<std::string, std::string> parent;
  std::vector<std::string> order;
  size_t i;
  json_t* a;
  json_array_foreach(json_object_get(doc.get(), "accounts"), i, a) {
    const char* name = json_string_value(json_object_get(a, "name"));
    const char* up = json_string_value(json_object_get(a, "parent"));
    if (!name) continue;
    order.push_back(name);
    parent[name] = up ? up : "";
  }
  std::set<std::string> used;
  for (const std::string& acct : world.accounts)
    for (std::string x = acct; !x.empty() && used.insert(x).second; x = parent.count(x) ? parent[x] : "") {
    }
  std::vector<std::string> unused;
  for (const std::string& name : order)
    if (!used.count(name)) unused.push_back(name);
  warn_names(label, "account", "no job of the trace uses (see --map)", unused);
}

// The names a policy's family configures in its own files (its
// plugin_info_json "conf_names": Maui's CLASSCFG, ACCOUNTCFG, USERCFG ...)
// that no job of the (mapped) trace uses, per kind the trace has: the
// partitions, accounts and users.  Other kinds are not checked.
void warn_conf_names(const SimWorld& world, const PolicyResult& res) {
  const std::vector<std::string> used_partitions = used_partitions_of(world);
  const std::pair<const char*, const std::vector<std::string>*> kinds[] = {
      {"partitions", &used_partitions}, {"accounts", &world.accounts}, {"users", &world.users}};
  for (const auto& kind : kinds) {
    const auto it = res.conf_names.find(kind.first);
    if (it == res.conf_names.end()) continue;
    std::vector<std::string> unused;
    for (const std::string& n : it->second)
      if (!std::binary_search(kind.second->begin(), kind.second->end(), n)) unused.push_back(n);
    std::string noun(kind.first);
    noun.pop_back();  // "partitions" -> "partition": warn_names adds the plural
    warn_names(res.conf + " (" + res.plugin_type + "'s own files)", noun.c_str(),
               "no job of the trace uses (see --map)", unused);
  }
}

}  // namespace

int cmd_simulate(const Options& o) {
  const auto wall0 = std::chrono::steady_clock::now();
  const SwfTrace trace = read_swf(o.swf);
  const std::string accounts_text = o.accounts.empty() ? std::string() : read_file(o.accounts);
  std::optional<SimMap> map;
  std::string site_accounts = accounts_text;
  if (!o.map.empty()) {
    std::string text = "user * auto\npartition * auto\n";
    if (o.map != "auto") {
      try {
        text = read_bounded(o.map, kImportBounds);
      } catch (const ReadError& e) {
        throw std::runtime_error(std::string("map file ") + e.what());
      }
    }
    map = parse_sim_map(text, o.map);
    map->seed = o.seed;
    if (map->any_user == "auto") {
      map->any_user.clear();
      std::vector<std::string> users;
      for (const SwfJob& j : trace.jobs)
        if (j.user >= 0) users.push_back("u" + std::to_string(j.user));
      site_accounts = spread_users(&*map, users, accounts_text, o.accounts, o.seed);
    }
  }
  // The machine's processors size a partition that names no nodes.
  const double procs = o.procs ? o.procs : trace.max_procs > 0 ? static_cast<double>(trace.max_procs) : 1.0;
  const SitePartitions site = site_partitions(o.confs, accounts_text, o.accounts, procs);
  if (map && map->auto_partitions)
    for (const SitePartition& p : site.all) map->spread.emplace_back(p.name, p.cpus);
  const SimWorld world = make_world(trace, o.procs, site_accounts, o.accounts, map ? &*map : nullptr);
  if (!o.accounts.empty()) warn_unused_accounts(world, o.accounts);
  warn_partitions(world, site, o.accounts);
  if (map) warn_unmatched_rules(world, o.map);

  std::unique_ptr<std::FILE, int (*)(std::FILE*)> decisions(nullptr, &std::fclose);
  if (!o.trace_decisions.empty()) {
    decisions.reset(std::fopen(o.trace_decisions.c_str(), "w"));
    if (!decisions) throw std::runtime_error("cannot write '" + o.trace_decisions + "': " + std::strerror(errno));
  }
  const std::vector<std::string> names = policy_names(o.confs);
  const bool tty = isatty(STDERR_FILENO) == 1;
  bool progress_shown = false;
  SimOptions so;
  so.backfill = o.backfill_none ? Backfill::None : Backfill::Easy;
  so.plugin_dir = o.plugin_dir;
  so.verbose = o.verbose;
  so.decisions = decisions.get();
  if (tty)
    so.progress = [&](size_t policy, double done) {
      if (std::chrono::steady_clock::now() - wall0 < std::chrono::seconds(1)) return;
      std::fprintf(stderr, "\rsimulate: policy %zu/%zu %s: %5.1f %% of jobs done ", policy + 1, names.size(),
                   names[policy].c_str(), 100 * done);
      std::fflush(stderr);
      progress_shown = true;
    };

  TempDir tmp;
  const std::vector<int64_t> fifo = fifo_starts(world, so.backfill);
  std::vector<PolicyResult> results;
  for (size_t i = 0; i < o.confs.size(); ++i)
    results.push_back(run_policy(world, o.confs[i], i, names[i], tmp.path(), so, fifo));
  if (progress_shown) std::fprintf(stderr, "\r%*s\r", 72, "");
  for (const PolicyResult& r : results) warn_conf_names(world, r);

  SimHeader h;
  h.trace = base_name(trace.file);
  h.records = trace.records;
  h.jobs = world.jobs.size();
  h.skipped = world.plan.skipped_runtime + world.plan.skipped_procs + world.plan.skipped_user + world.skipped_too_big;
  h.procs = world.procs;
  h.backfill = o.backfill_none ? "none" : "easy";
  const std::string report = o.json  ? sim_report_json(h, results)
                             : o.csv ? sim_report_csv(h, results)
                                     : sim_report_text(h, results);
  std::cout << report;
  std::cout.flush();
  if (!o.plot.empty()) {
    std::ofstream f(o.plot, std::ios::trunc);
    if (!(f << sim_svg("mfprio simulate: " + h.trace + " on " + std::to_string(h.procs) + " processors", results)) ||
        !f.flush())
      throw std::runtime_error("cannot write '" + o.plot + "': " + std::strerror(errno));
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::string per;
  for (const PolicyResult& r : results) {
    char b[96];
    std::snprintf(b, sizeof b, "%s%s %.2f s", per.empty() ? "" : ", ", r.name.c_str(), r.elapsed_s);
    per += b;
  }
  std::fprintf(stderr, "simulate: %zu polic%s, %zu jobs, elapsed %.2f s (%s)\n", results.size(),
               results.size() == 1 ? "y" : "ies", world.jobs.size(), wall, per.c_str());
  return 0;
}

}  // namespace mfprio::host
