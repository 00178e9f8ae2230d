// main.cpp - mfprio-host: load the conf, load the priority plugin, run one
// command (sprio, sshare, decay, job-end, info), unload.
//
// Order: parse the command line (usage error: exit 2) -> read the conf and
// the host's keys -> read the job file -> dlopen + checks -> init -> command
// -> fini + dlclose (Plugin's destructor).  Every failure prints one line on
// stderr and exits 1; a bad job line is reported and the other jobs still run,
// with exit status 1 at the end.
#include <pwd.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "conf.hpp"
#include "jobs_json.hpp"
#include "json_util.hpp"
#include "loader.hpp"
#include "replay.hpp"
#include "settings.hpp"
#include "swf.hpp"
#include "views.hpp"

#include <timestr.hpp>

#ifndef MFPRIO_PLUGINDIR
#define MFPRIO_PLUGINDIR "/usr/local/lib/mfprio"
#endif

namespace mfprio::host {
namespace {

constexpr const char* kProg = "mfprio-host";

void error_line(const std::string& msg) { std::fprintf(stderr, "%s: %s\n", kProg, msg.c_str()); }

std::string record_name(const JobRecord& r) {
  std::string s = r.spec->file + ":" + std::to_string(r.spec->line) + ": job " + std::to_string(r.spec->id);
  if (*r.partition) s += " (partition " + std::string(r.partition) + ")";
  return s;
}

// "FILE:LINE: job N[ (partition P)]: <what: >message (STATUS)".  The plugin's
// message usually starts with "job N: " already; that is dropped, not repeated.
std::string record_error(const JobRecord& r, const Plugin& plugin, int rc, const std::string& what = "") {
  std::string m = plugin.last_error();
  const std::string prefix = "job " + std::to_string(r.spec->id) + ": ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return record_name(r) + ": " + what + m + " (" + status_name(rc) + ")";
}

// What the plugin resolved a name to, when the job record left it empty.
std::string resolved(const std::string& given, const char (&name)[MFPRIO_NAME_MAX]) {
  if (!given.empty()) return given;
  return std::string(name, strnlen(name, MFPRIO_NAME_MAX));
}

bool user_selected(const std::vector<std::string>& users, const std::string& u) {
  return users.empty() || std::find(users.begin(), users.end(), u) != users.end();
}

// Reads the job file; bad lines are printed and counted in *failures.
JobFile load_jobs(const std::string& path, int* failures) {
  JobFile jf = read_job_file(path);
  for (const std::string& e : jf.errors) error_line(e);
  *failures += static_cast<int>(jf.errors.size());
  return jf;
}

int cmd_sprio(const Options& o, Plugin& plugin, int64_t now) {
  int failures = 0;
  JobFile jf;
  if (!o.jobs_file.empty()) jf = load_jobs(o.jobs_file, &failures);
  std::vector<JobRecord> records = expand_records(jf.jobs);

  // Which records to show.  By default only pending and held jobs, like sprio.
  std::vector<size_t> order;
  for (size_t i = 0; i < records.size(); ++i) {
    const JobSpec& s = *records[i].spec;
    if (!o.all_states && s.state != MFPRIO_JOB_PENDING && s.state != MFPRIO_JOB_HELD) continue;
    if (!user_selected(o.users, s.user)) continue;
    order.push_back(i);
  }
  // The plugin sees jobs in submission order (ties: job id), as a controller
  // creates them: priority/basic's FIFO numbering depends on it.  Rows are
  // printed in job id order, a job's partitions in the order given.
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const JobSpec &x = *records[a].spec, &y = *records[b].spec;
    return x.submit != y.submit ? x.submit < y.submit : x.id < y.id;
  });

  const mfprio_ops_t& ops = plugin.ops();
  std::vector<SprioRow> rows(records.size());
  std::vector<JsonPtr> objects(records.size());
  std::vector<bool> ok(records.size(), false);
  for (size_t i : order) {
    JobRecord& r = records[i];
    int rc = ops.job_resolve(&r.job);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc));
      ++failures;
      continue;
    }
    if (o.json) {
      char* raw = nullptr;
      rc = ops.job_factors_json(&r.job, now, &raw);
      Plugin::PluginString text = plugin.adopt(raw);
      if (rc != MFPRIO_OK) {
        error_line(record_error(r, plugin, rc));
        ++failures;
        continue;
      }
      json_error_t err;
      JsonPtr obj(text ? json_loads(text.get(), 0, &err) : nullptr);
      if (!obj) {
        error_line(record_name(r) + ": plugin returned invalid JSON from job_factors_json");
        ++failures;
        continue;
      }
      if (json_is_object(obj.get())) {  // make each element self-describing
        auto add = [&](const char* k, json_t* v) {
          if (!json_object_get(obj.get(), k)) json_object_set_new(obj.get(), k, v);
          else json_decref(v);
        };
        add("job_id", json_integer(static_cast<json_int_t>(r.spec->id)));
        add("partition", json_string(r.partition));
        add("user", json_string(r.spec->user.c_str()));
        add("account", json_string(r.spec->account.c_str()));
        add("qos", json_string(r.spec->qos.c_str()));
      }
      objects[i] = std::move(obj);
      ok[i] = true;
      continue;
    }
    SprioRow& row = rows[i];
    row.f.struct_size = sizeof(mfprio_factors_t);
    rc = ops.job_factors(&r.job, now, &row.f);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc));
      ++failures;
      continue;
    }
    row.job_id = r.spec->id;
    row.partition = resolved(r.partition, row.f.partition_name);
    row.user = r.spec->user;
    row.account = resolved(r.spec->account, row.f.account_name);
    row.qos = resolved(r.spec->qos, row.f.qos_name);
    ok[i] = true;
  }

  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return records[a].spec->id < records[b].spec->id; });
  std::vector<SprioRow> shown;
  JsonPtr array(json_array());
  for (size_t i : order) {
    if (!ok[i]) continue;
    if (o.json) json_array_append_new(array.get(), objects[i].release());
    else shown.push_back(std::move(rows[i]));
  }

  if (o.json) {
    std::cout << json_dump_string(array.get(), JSON_INDENT(2)) << "\n";
  } else {
    Weights w;
    if (o.weights) {
      char* raw = nullptr;
      const int rc = ops.plugin_info_json(&raw);
      Plugin::PluginString info = plugin.adopt(raw);
      plugin.check(rc, "plugin_info_json");
      w = parse_weights(info ? info.get() : "");
      if (!w.known) error_line("warning: plugin_info_json has no weights; the Weights row is empty");
    }
    SprioOptions so;
    so.long_format = o.long_format;
    so.normalized = o.normalized;
    so.weights = o.weights;
    so.parsable = o.parsable;
    so.header = !o.noheader;
    std::cout << format_sprio(shown, so, w);
    // A clamped priority is not the sum of its columns: say so, once.
    size_t high = 0, low = 0;
    for (const SprioRow& row : shown) {
      if (row.f.clamped == MFPRIO_CLAMP_HIGH) ++high;
      if (row.f.clamped == MFPRIO_CLAMP_LOW) ++low;
    }
    std::cout.flush();
    if (high)
      std::fprintf(stderr, "%s: sprio: %zu priorit%s clamped to 4294967295 (weighted factors sum past 2^32-1)\n",
                   kProg, high, high == 1 ? "y" : "ies");
    if (low)
      std::fprintf(stderr, "%s: sprio: %zu priorit%s raised to 1 (weighted factors sum below 1)\n", kProg, low,
                   low == 1 ? "y" : "ies");
  }
  std::cout.flush();
  return failures ? 1 : 0;
}

std::string current_user() {
  if (const passwd* pw = getpwuid(getuid()); pw && pw->pw_name) return pw->pw_name;
  const char* u = std::getenv("USER");
  return u ? u : "";
}

int cmd_sshare(const Options& o, Plugin& plugin) {
  const mfprio_ops_t& ops = plugin.ops();
  // Without -a: account rows plus the given users (-u) or the calling user.
  std::vector<std::string> users = o.users;
  if (users.empty() && !o.all_users) users.push_back(current_user());
  auto keep_user = [&](const std::string& u) { return o.all_users || user_selected(users, u); };

  if (o.json) {
    char* raw = nullptr;
    const int rc = ops.share_table_json(&raw);
    Plugin::PluginString text = plugin.adopt(raw);
    plugin.check(rc, "share_table_json");
    JsonPtr doc(text ? json_loads(text.get(), 0, nullptr) : nullptr);
    if (!doc) throw PluginError("share_table_json returned invalid JSON", MFPRIO_EINTERNAL);
    if (json_is_array(doc.get())) {
      JsonPtr kept(json_array());
      size_t i;
      json_t* e;
      json_array_foreach(doc.get(), i, e) {
        const json_t* u = json_is_object(e) ? json_object_get(e, "user") : nullptr;
        if (u && json_is_string(u) && json_string_length(u) > 0 && !keep_user(json_string_value(u))) continue;
        json_array_append(kept.get(), e);
      }
      doc = std::move(kept);
    }
    std::cout << json_dump_string(doc.get(), JSON_INDENT(2)) << "\n";
    return 0;
  }

  mfprio_share_row_t* raw = nullptr;
  size_t count = 0;
  const int rc = ops.share_table(&raw, &count);
  auto free_rows = [&](mfprio_share_row_t* p) {
    if (p) ops.share_table_free(p);
  };
  std::unique_ptr<mfprio_share_row_t, decltype(free_rows)> guard(raw, free_rows);
  plugin.check(rc, "share_table");
  if (count && raw && raw[0].struct_size != sizeof(mfprio_share_row_t))
    throw PluginError("share_table: rows have struct_size " + std::to_string(raw[0].struct_size) + ", expected " +
                          std::to_string(sizeof(mfprio_share_row_t)),
                      MFPRIO_EINVAL);
  std::vector<ShareRow> all = share_rows_from(raw, raw ? count : 0);
  std::vector<ShareRow> shown;
  for (ShareRow& r : all)
    if (!r.is_user || keep_user(r.user)) shown.push_back(std::move(r));
  SshareOptions so;
  so.long_format = o.long_format;
  so.parsable = o.parsable;
  so.header = !o.noheader;
  std::cout << format_sshare(shown, so);
  return 0;
}

// Reads, checks and resolves every record of a job file meant for decay or
// job_end.  Returns false (after printing why) when any record is unusable:
// those commands change the store, so they run on all records or none.
bool prepare_charge_records(const Options& o, Plugin& plugin, JobFile* jf, std::vector<JobRecord>* records) {
  int failures = 0;
  *jf = load_jobs(o.jobs_file, &failures);
  *records = expand_records(jf->jobs);
  for (const JobSpec& s : jf->jobs)
    if (s.partitions.size() > 1) {
      error_line(s.file + ":" + std::to_string(s.line) + ": job " + std::to_string(s.id) +
                 ": a running or finished job runs in one partition, not " + std::to_string(s.partitions.size()));
      ++failures;
    }
  if (failures) return false;
  for (JobRecord& r : *records) {
    const int rc = plugin.ops().job_resolve(&r.job);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc));
      ++failures;
    }
  }
  return failures == 0;
}

void print_stats(const char* what, Plugin& plugin, const std::string& extra) {
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  plugin.check(plugin.ops().plugin_stats(&st), "plugin_stats");
  std::printf("%s: %s generation=%u last_decay=%lld associations=%llu jobs_charged=%llu clamped_high=%llu "
              "clamped_low=%llu\n",
              what, extra.c_str(), st.generation, static_cast<long long>(st.last_decay),
              static_cast<unsigned long long>(st.associations), static_cast<unsigned long long>(st.jobs_charged),
              static_cast<unsigned long long>(st.clamped_high), static_cast<unsigned long long>(st.clamped_low));
}

int cmd_decay(const Options& o, Plugin& plugin) {
  JobFile jf;
  std::vector<JobRecord> records;
  if (!o.jobs_file.empty() && !prepare_charge_records(o, plugin, &jf, &records)) {
    error_line("decay not run: fix the job file first (nothing was charged)");
    return 1;
  }
  std::vector<mfprio_job_t> running;
  running.reserve(records.size());
  for (const JobRecord& r : records) running.push_back(r.job);
  const int rc = plugin.ops().decay(*o.now, running.empty() ? nullptr : running.data(), running.size());
  plugin.check(rc, "decay");
  print_stats("decay", plugin, "now=" + std::to_string(*o.now) + " running=" + std::to_string(running.size()));
  return 0;
}

int cmd_job_end(const Options& o, Plugin& plugin) {
  JobFile jf;
  std::vector<JobRecord> records;
  if (!prepare_charge_records(o, plugin, &jf, &records)) {
    error_line("job-end not run: fix the job file first (nothing was charged)");
    return 1;
  }
  size_t done = 0;
  int failures = 0;
  for (const JobRecord& r : records) {
    const int rc = plugin.ops().job_end(&r.job, *o.end);
    if (rc != MFPRIO_OK) {
      error_line(record_error(r, plugin, rc, "job_end: "));
      ++failures;
    } else {
      ++done;
    }
  }
  print_stats("job-end", plugin,
              "end=" + std::to_string(*o.end) + " jobs=" + std::to_string(done) + "/" + std::to_string(records.size()));
  return failures ? 1 : 0;
}

int cmd_info(Plugin& plugin) {
  char* raw = nullptr;
  const int rc = plugin.ops().plugin_info_json(&raw);
  Plugin::PluginString text = plugin.adopt(raw);
  plugin.check(rc, "plugin_info_json");
  JsonPtr doc(text ? json_loads(text.get(), 0, nullptr) : nullptr);
  if (doc) std::cout << json_dump_string(doc.get(), JSON_INDENT(2)) << "\n";
  else std::cout << (text ? text.get() : "") << "\n";
  return 0;
}

// Seconds from the conf's PriorityCalcPeriod, else 5 minutes (the plugin
// validates the key itself; a value it rejects stops init anyway).
int64_t conf_calc_period(const Conf& conf) {
  const ConfPair* p = conf.find("PriorityCalcPeriod");
  int64_t s = 0;
  std::string why;
  if (p && parse_time_string(p->value, &s, &why) && s > 0 && s != kTimeInfinite) return s;
  return 300;
}

// replay: the whole trace is read and checked before anything is loaded.
int cmd_replay(const Options& o) {
  const SwfTrace trace = read_swf(o.swf, o.limit);
  ReplayPlan plan = plan_replay(trace, o.start ? *o.start : -1);
  if (!o.emit_accounts.empty()) {
    const std::string text = accounts_json(plan);
    std::ofstream f(o.emit_accounts, std::ios::trunc);
    if (!(f << text) || !(f.flush()))
      throw std::runtime_error("cannot write '" + o.emit_accounts + "': " + std::strerror(errno));
    std::printf("replay: wrote %zu users in %s for 'mfprio-acct import %s'\n", plan.user_groups.size(),
                o.emit_accounts.c_str(), o.emit_accounts.c_str());
    return 0;
  }
  Conf conf = Conf::load(o.conf);
  if (o.no_decay)  // overrides the conf's: usage is then the plain sum of charges
    conf.add(ConfPair{"PriorityDecayHalfLife", "999999999999-0", "<replay --no-decay>", 0});
  HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, o.plugin_dir);
  if (settings.cluster.cpus == 0 && trace.max_procs > 0)  // no NodeName/ClusterCPUs: the trace's machine
    settings.cluster.cpus = static_cast<uint32_t>(std::min<int64_t>(trace.max_procs, UINT32_MAX));
  if (settings.cluster.nodes == 0 && trace.max_nodes > 0)
    settings.cluster.nodes = static_cast<uint32_t>(std::min<int64_t>(trace.max_nodes, UINT32_MAX));

  LogSink sink;
  sink.max_level = o.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  clock.fixed = true;
  clock.now = plan.jobs.empty() ? plan.epoch0 : plan.jobs.front().submit;
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  plugin->init(conf, settings.cluster, &sink, &clock);
  ReplayOptions ro;
  ro.calc_period = o.calc_period ? *o.calc_period : conf_calc_period(conf);
  ro.speed = o.speed;
  ro.report_passes = o.report_passes;
  ro.pending_top = o.pending_top;
  ro.sshare = !o.no_sshare;
  return run_replay(plan, ro, *plugin, clock, std::cout);
}

int run(const Options& o) {
  if (o.command == Command::Replay) return cmd_replay(o);
  const Conf conf = Conf::load(o.conf);
  const HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, o.plugin_dir);
  // Job files are read before the plugin is loaded: a missing file costs nothing.
  if (!o.jobs_file.empty() && ::access(o.jobs_file.c_str(), R_OK) != 0)
    throw JobParseError("cannot read job file '" + o.jobs_file + "'");

  LogSink sink;
  sink.max_level = o.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  if (o.now) {
    clock.fixed = true;
    clock.now = *o.now;
  }
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  if (o.verbose)
    std::fprintf(stderr, "%s: loaded %s (%s) from %s\n", kProg, plugin->type().c_str(), plugin->name().c_str(),
                 plugin->path().c_str());
  plugin->init(conf, settings.cluster, &sink, &clock);

  switch (o.command) {
    case Command::Sprio: return cmd_sprio(o, *plugin, clock.read());
    case Command::Sshare: return cmd_sshare(o, *plugin);
    case Command::Decay: return cmd_decay(o, *plugin);
    case Command::JobEnd: return cmd_job_end(o, *plugin);
    case Command::Info: return cmd_info(*plugin);
    case Command::Replay:
    case Command::None: break;
  }
  return 2;
}

}  // namespace
}  // namespace mfprio::host

int main(int argc, char** argv) {
  using namespace mfprio::host;
  Options o;
  try {
    o = parse_cli(std::vector<std::string>(argv + 1, argv + argc));
  } catch (const UsageError& e) {
    std::fprintf(stderr, "%s: %s\n%s", kProg, e.what(), usage_text());
    return 2;
  }
  if (o.help) {
    std::fputs(usage_text(), stdout);
    return 0;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {  // ConfError, SettingsError, LoadError, PluginError, JobParseError, bad_alloc
    std::cout.flush();
    error_line(e.what());
    return 1;
  }
}
