// replay.cpp - see replay.hpp.
#include "replay.hpp"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <ostream>
#include <thread>

#include "index_set.hpp"
#include "json_util.hpp"
#include "views.hpp"

namespace mfprio::host {
namespace {

const char* intern(ReplayPlan& p, std::map<std::string, const char*>& seen, const std::string& s) {
  auto it = seen.find(s);
  if (it != seen.end()) return it->second;
  p.names.push_back(s);
  const char* c = p.names.back().c_str();
  seen.emplace(s, c);
  return c;
}

enum EventKind : uint8_t { kSubmit = 0, kStart = 1, kEnd = 2 };

struct Event {
  int64_t t;
  uint8_t kind;
  uint32_t job;
  bool operator<(const Event& o) const {
    if (t != o.t) return t < o.t;
    if (kind != o.kind) return kind < o.kind;
    return job < o.job;
  }
};

// "FILE:LINE: job N"
std::string where(const ReplayPlan& p, const ReplayJob& j) {
  return p.file + ":" + std::to_string(j.src->line) + ": job " + std::to_string(j.src->number);
}

// The plugin's message without a leading "job N: ", which `where` already says.
std::string message_for(const Plugin& plugin, uint64_t job_id) {
  std::string m = plugin.last_error();
  const std::string prefix = "job " + std::to_string(job_id) + ": ";
  if (m.compare(0, prefix.size(), prefix) == 0) m.erase(0, prefix.size());
  return m;
}


}  // namespace

std::string iso_utc(int64_t t) {
  const std::time_t tt = static_cast<std::time_t>(t);
  std::tm tm{};
  gmtime_r(&tt, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

ReplayPlan plan_replay(const SwfTrace& trace, int64_t epoch0) {
  ReplayPlan p;
  p.file = trace.file;
  p.records = trace.records;
  p.epoch0 = epoch0 >= 0 ? epoch0 : trace.unix_start_time > 0 ? trace.unix_start_time : kDefaultEpoch0;
  std::map<std::string, const char*> seen;
  std::map<int64_t, size_t> user_index;
  const char* empty = intern(p, seen, "");
  p.jobs.reserve(trace.jobs.size());
  for (const SwfJob& s : trace.jobs) {
    const int64_t procs = s.procs > 0 ? s.procs : s.req_procs;
    if (s.runtime < 0) {
      ++p.skipped_runtime;
      continue;
    }
    if (procs <= 0 || procs > 0xffffffffLL) {
      ++p.skipped_procs;
      continue;
    }
    if (s.user < 0) {
      ++p.skipped_user;
      continue;
    }
    ReplayJob r;
    r.src = &s;
    r.submit = p.epoch0 + s.submit;
    r.start = r.submit + (s.wait > 0 ? s.wait : 0);
    r.end = r.start + s.runtime;
    r.cpus = static_cast<uint32_t>(procs);
    p.cpu_seconds += static_cast<uint64_t>(procs) * static_cast<uint64_t>(s.runtime);

    auto [it, fresh] = user_index.emplace(s.user, p.user_groups.size());
    if (fresh) p.user_groups.push_back({s.user, {}});
    auto& groups = p.user_groups[it->second].second;
    if (std::find(groups.begin(), groups.end(), s.group) == groups.end()) groups.push_back(s.group);

    mfprio_job_t& j = r.job;
    j.struct_size = sizeof(mfprio_job_t);
    j.state = MFPRIO_JOB_PENDING;
    j.job_id = static_cast<uint64_t>(s.number);
    j.user = intern(p, seen, "u" + std::to_string(s.user));
    j.account = s.group >= 0 ? intern(p, seen, "g" + std::to_string(s.group)) : empty;
    j.partition = s.partition >= 0 ? intern(p, seen, "p" + std::to_string(s.partition))
                  : s.queue >= 0   ? intern(p, seen, "q" + std::to_string(s.queue))
                                   : empty;
    j.qos = empty;
    j.submit_time = r.submit;
    j.eligible_time = r.submit;
    j.start_time = 0;
    j.cpus = r.cpus;
    j.min_nodes = 1;
    if (trace.max_nodes > 0 && trace.max_procs > 0) {  // processors per node from the header
      // procs (< 2^32) times an 18-digit MaxNodes needs 128 bits; the count is clamped to uint32.
      const __int128 nodes = (static_cast<__int128>(procs) * trace.max_nodes + trace.max_procs - 1) / trace.max_procs;
      j.min_nodes = static_cast<uint32_t>(std::clamp<__int128>(nodes, 1, UINT32_MAX));
    }
    j.time_limit_min = s.req_time > 0 ? static_cast<uint32_t>(std::min<int64_t>((s.req_time + 59) / 60, 0xffffffffLL)) : 0;
    p.jobs.push_back(r);
  }
  return p;
}

std::string accounts_json(const ReplayPlan& plan) {
  std::vector<int64_t> groups;
  bool nogroup = false;
  for (const auto& [user, gs] : plan.user_groups) {
    bool named = false;
    for (int64_t g : gs)
      if (g >= 0) {
        named = true;
        if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
      }
    if (!named) nogroup = true;
  }
  std::sort(groups.begin(), groups.end());
  JsonPtr doc(json_object());
  json_t* accounts = json_array();
  json_object_set_new(doc.get(), "accounts", accounts);
  auto account = [&](const std::string& name) {
    json_t* a = json_object();
    json_object_set_new(a, "name", json_string(name.c_str()));
    json_object_set_new(a, "parent", json_string("root"));
    json_object_set_new(a, "shares", json_integer(1));
    json_array_append_new(accounts, a);
  };
  for (int64_t g : groups) account("g" + std::to_string(g));
  if (nogroup) account("nogroup");
  json_t* users = json_array();
  json_object_set_new(doc.get(), "users", users);
  for (const auto& [user, gs] : plan.user_groups) {
    bool first = true;
    std::vector<std::string> accts;
    for (int64_t g : gs)
      if (g >= 0) accts.push_back("g" + std::to_string(g));
    if (accts.empty()) accts.push_back("nogroup");
    for (const std::string& a : accts) {
      json_t* u = json_object();
      json_object_set_new(u, "name", json_string(("u" + std::to_string(user)).c_str()));
      json_object_set_new(u, "account", json_string(a.c_str()));
      json_object_set_new(u, "shares", json_integer(1));
      json_object_set_new(u, "default", json_boolean(first));
      json_array_append_new(users, u);
      first = false;
    }
  }
  return json_dump_string(doc.get(), JSON_INDENT(2)) + "\n";
}

namespace {

// Resolves every job before anything is charged: a missing user changes
// nothing.  False (reported) when any does not resolve.
bool resolve_all(ReplayPlan& plan, Plugin& plugin) {
  const mfprio_ops_t& ops = plugin.ops();
  size_t unresolved = 0;
  for (ReplayJob& r : plan.jobs) {
    if (!ops.job_resolve || ops.job_resolve(&r.job) == MFPRIO_OK) continue;
    if (++unresolved <= 5)
      std::fprintf(stderr, "mfprio-host: %s: %s\n", where(plan, r).c_str(), message_for(plugin, r.job.job_id).c_str());
  }
  if (unresolved)
    std::fprintf(stderr,
                 "mfprio-host: replay not run: %zu jobs do not resolve (nothing was charged); create the trace's "
                 "associations with 'replay --emit-accounts FILE' and 'mfprio-acct import FILE'\n",
                 unresolved);
  return unresolved == 0;
}

// The simulated calc-period loop: events, decay passes, pricing, reports.
class ReplayLoop {
 public:
  ReplayLoop(ReplayPlan& plan, const ReplayOptions& opt, Plugin& plugin, Clock& clock, std::ostream& out)
      : plan_(plan), opt_(opt), plugin_(plugin), ops_(plugin.ops()), clock_(clock), out_(out),
        running_(plan.jobs.size()), pending_(plan.jobs.size()) {
    events_.reserve(plan.jobs.size() * 3);
    for (uint32_t i = 0; i < plan.jobs.size(); ++i) {
      const ReplayJob& r = plan.jobs[i];
      events_.push_back({r.submit, kSubmit, i});
      events_.push_back({r.start, kStart, i});
      events_.push_back({r.end, kEnd, i});
    }
    std::sort(events_.begin(), events_.end());
    t0 = events_.front().t;
    pricing_op = ops_.prioritize ? "prioritize" : ops_.set_priority_batch ? "set_priority_batch" : "set_priority";
  }

  void run(std::chrono::steady_clock::time_point wall0) {
    for (now = t0;; now += opt_.calc_period) {
      apply_events();
      if (opt_.speed > 0) {  // pace simulated time: `speed` simulated seconds per wall second
        const auto due = wall0 + std::chrono::duration<double>(static_cast<double>(now - t0) / opt_.speed);
        std::this_thread::sleep_until(due);
      }
      clock_.now = now;
      decay_pass();
      price_pending();
      report_pass();
      if (e_ >= events_.size()) break;
    }
  }

  int64_t t0 = 0, now = 0;
  uint64_t passes = 0, ends = 0, priced = 0;
  size_t max_pending = 0, max_running = 0;
  const char* pricing_op = "set_priority";

 private:
  // This instant's submits, starts and ends (in that order).
  void apply_events() {
    for (; e_ < events_.size() && events_[e_].t <= now; ++e_) {
      const Event& ev = events_[e_];
      ReplayJob& r = plan_.jobs[ev.job];
      if (ev.kind == kSubmit) {
        pending_.insert(ev.job);
      } else if (ev.kind == kStart) {
        pending_.erase(ev.job);
        running_.insert(ev.job);
        r.job.state = MFPRIO_JOB_RUNNING;
        r.job.start_time = r.start;
      } else {
        running_.erase(ev.job);
        r.job.state = MFPRIO_JOB_COMPLETED;
        clock_.now = ev.t;
        end_job(r);
        ++ends;
      }
    }
  }

  // A family without job_end charges no usage at job end (job_end_batch is
  // for many ends under one lock; the replay ends them one instant at a time).
  void end_job(ReplayJob& r) {
    int rc = MFPRIO_OK;
    const char* op = "job_end";
    if (ops_.job_end) {
      rc = ops_.job_end(&r.job, r.end);
    } else if (ops_.job_end_batch) {
      op = "job_end_batch";
      const int64_t end = r.end;
      rc = ops_.job_end_batch(&r.job, 1, &end);
    }
    if (rc != MFPRIO_OK)
      throw PluginError(where(plan_, r) + ": " + op + " at " + std::to_string(r.end) + ": " +
                            message_for(plugin_, r.job.job_id),
                        MFPRIO_EINTERNAL);
  }

  void decay_pass() {
    batch_.clear();
    for (uint32_t j : running_.items()) batch_.push_back(plan_.jobs[j].job);
    const int rc = ops_.decay(now, batch_.empty() ? nullptr : batch_.data(), batch_.size());
    if (rc != MFPRIO_OK)
      throw PluginError("decay pass " + std::to_string(passes + 1) + " at " + std::to_string(now) + ": " +
                            plugin_.last_error() + " (" + status_name(rc) + ")",
                        rc);
    ++passes;
    max_running = std::max(max_running, batch_.size());
  }

  // The whole queue in one pass when the family prices it so (prioritize,
  // with the running jobs), else set_priority_batch, else set_priority one by one.
  void price_pending() {
    const auto& pend = pending_.items();
    max_pending = std::max(max_pending, pend.size());
    if (pend.empty()) return;
    batch_.clear();
    for (uint32_t j : pend) batch_.push_back(plan_.jobs[j].job);
    prios_.assign(batch_.size(), 0);
    statuses_.assign(batch_.size(), 0);
    const char* op = "set_priority";
    int prc = MFPRIO_OK;
    if (ops_.prioritize) {
      op = "prioritize";
      running_jobs_.clear();
      for (uint32_t j : running_.items()) running_jobs_.push_back(plan_.jobs[j].job);
      prc = ops_.prioritize(batch_.data(), batch_.size(), running_jobs_.empty() ? nullptr : running_jobs_.data(),
                            running_jobs_.size(), now, prios_.data(), statuses_.data());
    } else if (ops_.set_priority_batch) {
      op = "set_priority_batch";
      prc = ops_.set_priority_batch(batch_.data(), batch_.size(), now, prios_.data(), statuses_.data());
    } else {
      for (size_t k = 0; k < batch_.size(); ++k) {
        statuses_[k] = ops_.set_priority(&batch_[k], now, &prios_[k]);
        if (statuses_[k] != MFPRIO_OK && prc == MFPRIO_OK) prc = statuses_[k];
      }
    }
    if (prc != MFPRIO_OK) {
      size_t k = 0;
      while (k < statuses_.size() && statuses_[k] == MFPRIO_OK) ++k;
      if (k == statuses_.size())  // the call failed, not a record
        throw PluginError(std::string(op) + " at " + std::to_string(now) + ": " + plugin_.last_error() + " (" +
                              status_name(prc) + ")",
                          prc);
      const ReplayJob& bad = plan_.jobs[pend[k]];
      throw PluginError(where(plan_, bad) + ": " + op + ": " + message_for(plugin_, bad.job.job_id), statuses_[k]);
    }
    priced += batch_.size();
    pricing_op = op;
  }

  // --report passes / pending[=N]: the pass line and the top N pending jobs.
  void report_pass() {
    const auto& pend = pending_.items();
    if (opt_.report_passes || (opt_.pending_top && !pend.empty()))
      out_ << "pass " << passes << " " << iso_utc(now) << " running=" << running_.items().size()
           << " pending=" << pend.size() << "\n";
    if (!opt_.pending_top || pend.empty()) return;
    order_.resize(pend.size());
    for (uint32_t k = 0; k < order_.size(); ++k) order_[k] = k;
    const size_t n = std::min<size_t>(opt_.pending_top, order_.size());
    std::partial_sort(order_.begin(), order_.begin() + static_cast<long>(n), order_.end(), [&](uint32_t a, uint32_t b) {
      if (prios_[a] != prios_[b]) return prios_[a] > prios_[b];
      return batch_[a].job_id < batch_[b].job_id;
    });
    out_ << "  RANK    JOBID USER     ACCOUNT  PARTITION   PRIORITY\n";
    for (size_t k = 0; k < n; ++k) {
      const mfprio_job_t& j = batch_[order_[k]];
      char line[160];
      std::snprintf(line, sizeof line, "  %4zu %8llu %-8s %-8s %-9s %10u\n", k + 1,
                    static_cast<unsigned long long>(j.job_id), j.user, *j.account ? j.account : "-",
                    *j.partition ? j.partition : "-", prios_[order_[k]]);
      out_ << line;
    }
  }

  ReplayPlan& plan_;
  const ReplayOptions& opt_;
  Plugin& plugin_;
  const mfprio_ops_t& ops_;
  Clock& clock_;
  std::ostream& out_;
  std::vector<Event> events_;
  size_t e_ = 0;
  IndexSet running_, pending_;
  std::vector<mfprio_job_t> batch_, running_jobs_;
  std::vector<uint32_t> prios_, order_;
  std::vector<int> statuses_;
};

// The share table after the replay (empty when the family has none).
ShareTable final_share_table(Plugin& plugin) {
  ShareTable table;
  if (!plugin.ops().share_table) return table;
  const Plugin::PluginShareTable owned = plugin.share_table();
  const mfprio_share_table_t* raw = owned.get();
  if (!raw) return table;
  try {
    return share_table_from(*raw);
  } catch (const std::runtime_error& e) {
    throw PluginError(e.what(), MFPRIO_EINVAL);
  }
}

// The summary lines and the final share table.
void summarize(const ReplayPlan& plan, const ReplayOptions& opt, Plugin& plugin, const ReplayLoop& loop, double wall,
               std::ostream& out) {
  // Root's raw usage (the top row's "raw_usage" cell) is the cluster's
  // charged total.  A family without a share table or that column reports no usage total.
  const ShareTable table = final_share_table(plugin);
  const int usage_col = table.column("raw_usage");
  bool have_usage = false;
  double root_usage = 0;
  for (const ShareRow& r : table.rows)
    if (r.parent < 0 && usage_col >= 0 && static_cast<size_t>(usage_col) < r.cells.size() &&
        !r.cells[usage_col].has_text) {
      root_usage = r.cells[usage_col].value;
      have_usage = true;
    }
  const double cpu = static_cast<double>(plan.cpu_seconds);
  const double rel = cpu > 0 ? (root_usage - cpu) / cpu : 0.0;
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "replay: simulated %s .. %s (%.2f days), calc period %lld s, %llu decay passes, %llu job ends\n"
                "replay: pending jobs priced: %llu (%s once per pass; at most %zu pending, %zu running)\n"
                "replay: trace CPU-seconds (procs x run time): %llu\n",
                iso_utc(loop.t0).c_str(), iso_utc(loop.now).c_str(), static_cast<double>(loop.now - loop.t0) / 86400.0,
                static_cast<long long>(opt.calc_period), static_cast<unsigned long long>(loop.passes),
                static_cast<unsigned long long>(loop.ends), static_cast<unsigned long long>(loop.priced),
                loop.pricing_op, loop.max_pending, loop.max_running, static_cast<unsigned long long>(plan.cpu_seconds));
  out << buf;
  if (have_usage)
    std::snprintf(buf, sizeof buf, "replay: root raw usage (charged, decayed): %.3f (relative difference %.3e)\n",
                  root_usage, rel);
  else
    std::snprintf(buf, sizeof buf, "replay: root raw usage: none (%s has no share table with raw_usage)\n",
                  plugin.type().c_str());
  out << buf;
  std::snprintf(buf, sizeof buf, "replay: wall time %.2f s\n", wall);
  out << buf;
  if (opt.sshare && plugin.ops().share_table) {
    SshareOptions so;
    out << "\n" << format_sshare(table, so);
  }
  out.flush();
}

}  // namespace

int run_replay(ReplayPlan& plan, const ReplayOptions& opt, Plugin& plugin, Clock& clock, std::ostream& out) {
  const auto wall0 = std::chrono::steady_clock::now();
  const std::string base = plan.file.substr(plan.file.find_last_of('/') + 1);
  out << "replay: " << base << ": " << plan.records << " records, " << plan.jobs.size() << " jobs replayed, "
      << plan.skipped_runtime + plan.skipped_procs + plan.skipped_user << " skipped (" << plan.skipped_runtime
      << " unknown run time, " << plan.skipped_procs << " unknown processors, " << plan.skipped_user
      << " unknown user)\n";
  if (plan.jobs.empty()) {
    std::fprintf(stderr, "mfprio-host: replay: %s has no job to replay\n", plan.file.c_str());
    return 1;
  }
  clock.fixed = true;
  if (!resolve_all(plan, plugin)) return 1;
  ReplayLoop loop(plan, opt, plugin, clock, out);
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  if (plugin.ops().plugin_stats) plugin.check(plugin.ops().plugin_stats(&st), "plugin_stats");
  if (st.last_decay > loop.t0) {
    std::fprintf(stderr,
                 "mfprio-host: replay not run: the store's last decay pass (%s) is after the trace's first submit "
                 "(%s); use a fresh store or --start T\n",
                 iso_utc(st.last_decay).c_str(), iso_utc(loop.t0).c_str());
    return 1;
  }
  loop.run(wall0);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  summarize(plan, opt, plugin, loop, wall, out);
  return 0;
}

}  // namespace mfprio::host
