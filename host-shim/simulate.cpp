// simulate.cpp - see simulate.hpp.  The world (jobs, names, import document),
// one policy's fresh store and plugin, the event loop with EASY backfill, and
// the per-policy metrics.
#include "simulate.hpp"


#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <queue>
#include <stdexcept>

#include "index_set.hpp"
#include "conf.hpp"
#include "import_export.hpp"
#include "json_util.hpp"
#include "settings.hpp"
#include "store.hpp"
#include "views.hpp"
#include "stable_order.hpp"

#ifndef MFPRIO_PLUGINDIR
#define MFPRIO_PLUGINDIR "/usr/local/lib/mfprio"
#endif

namespace mfprio::host {
namespace {

// user -> default account, from an import document's "users" array.
std::map<std::string, std::string> default_accounts(const std::string& text, const std::string& label) {
  json_error_t err;
  JsonPtr doc(json_loads(text.c_str(), 0, &err));
  if (!doc) throw std::runtime_error(label + ":" + std::to_string(err.line) + ": " + err.text);
  std::map<std::string, std::string> out;
  json_t* users = json_object_get(doc.get(), "users");
  size_t i;
  json_t* u;
  json_array_foreach(users, i, u) {
    const char* name = json_string_value(json_object_get(u, "name"));
    const char* acct = json_string_value(json_object_get(u, "account"));
    if (!name || !acct) continue;
    const json_t* def = json_object_get(u, "default");
    if (json_is_true(def) || !out.count(name)) out[name] = acct;
  }
  return out;
}

uint32_t index_of(const std::vector<std::string>& sorted, const std::string& s) {
  return static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), s) - sorted.begin());
}


// The group statistics of `members` (job indices) given each job's wait.
GroupStats group_stats(const std::string& name, const std::vector<uint32_t>& members, const SimWorld& w,
                       const std::vector<int64_t>& start) {
  GroupStats g;
  g.name = name;
  g.jobs = members.size();
  std::vector<double> waits;
  waits.reserve(members.size());
  double bsld = 0;
  for (uint32_t j : members) {
    const SimJob& s = w.jobs[j];
    const double wait = static_cast<double>(start[j] - s.submit);
    waits.push_back(wait);
    // Bounded slowdown (Feitelson): max(1, (wait + run) / max(run, 10 s)).
    bsld += std::max(1.0, (wait + static_cast<double>(s.run)) / std::max<double>(static_cast<double>(s.run), 10.0));
    g.cpu_seconds += static_cast<double>(s.cpus) * static_cast<double>(s.run);
  }
  std::sort(waits.begin(), waits.end());
  double sum = 0;
  for (double x : waits) sum += x;
  if (!waits.empty()) {
    g.wait_mean = sum / static_cast<double>(waits.size());
    g.bsld_mean = bsld / static_cast<double>(waits.size());
  }
  g.wait_p50 = percentile_sorted(waits, 0.50);
  g.wait_p95 = percentile_sorted(waits, 0.95);
  return g;
}

// Target shares: the share view's norm_shares-like column ("norm_shares",
// or a column whose name has "norm" and "share"), summed over each name's
// rows, then normalized over the names the trace uses.  None (no share
// view, no such column, all zero): equal shares.
std::string target_shares(const ShareTable* table, const std::vector<std::string>& names, bool users,
                          std::vector<double>* out) {
  out->assign(names.size(), 0.0);
  int col = -1;
  if (table) {
    col = table->column("norm_shares");
    for (size_t c = 0; col < 0 && c < table->columns.size(); ++c) {
      const std::string& n = table->columns[c].name;
      if (n.find("norm") != std::string::npos && n.find("share") != std::string::npos) col = static_cast<int>(c);
    }
  }
  double total = 0;
  if (col >= 0) {
    for (const ShareRow& r : table->rows) {
      if (r.is_user != users || static_cast<size_t>(col) >= r.cells.size() || r.cells[col].has_text) continue;
      const std::string& key = users ? r.user : r.account;
      auto it = std::lower_bound(names.begin(), names.end(), key);
      if (it == names.end() || *it != key || !std::isfinite(r.cells[col].value)) continue;
      (*out)[it - names.begin()] += r.cells[col].value;
      total += r.cells[col].value;
    }
  }
  if (total > 0) {
    for (double& x : *out) x /= total;
    return "norm_shares";
  }
  for (double& x : *out) x = names.empty() ? 0 : 1.0 / static_cast<double>(names.size());
  return "equal";
}

ShareTable fetch_table(const Plugin& plugin) {
  const Plugin::PluginShareTable table = plugin.share_table();
  const mfprio_share_table_t* raw = table.get();
  if (!raw) return {};
  try {
    return share_table_from(*raw);
  } catch (const std::runtime_error& e) {
    throw PluginError(e.what(), MFPRIO_EINVAL);
  }
}

struct EndEvent {
  int64_t t;
  uint64_t job_id;
  uint32_t job;
  bool operator>(const EndEvent& o) const { return t != o.t ? t > o.t : job_id > o.job_id; }
};

// While nothing is pending no priority decides anything: calc-period passes
// up to the next arrival or end are spread so that at most kIdlePasses are
// made before it (a job of 10^9 s cost 3.3 million passes and a sample
// each), never more than kMaxIdleGap apart (far below the default
// PriorityMaxDecayGap), always whole periods from the first.  Each pass
// still decays and charges up to its own time.
constexpr int64_t kIdlePasses = 1000;
constexpr int64_t kMaxIdleGap = 30 * 86400;
// The share samples kept per policy: past 2 x kMaxSamples every other one is
// dropped and sampling thins out by two, so the plot keeps its whole span.
constexpr size_t kMaxSamples = 4096;

// *stride: the idle stretch's stride in periods, fixed when it begins (0:
// not in one) so that the passes are evenly spread over it.
int64_t next_pass_time(int64_t now, int64_t period, bool idle, int64_t next_event, int64_t* stride) {
  if (!idle || next_event <= now) {
    *stride = 0;
    return now + period;
  }
  if (*stride == 0) {
    const int64_t periods = (next_event - now) / period;
    *stride = periods <= kIdlePasses ? 1
                                     : std::min((periods + kIdlePasses - 1) / kIdlePasses,
                                                std::max<int64_t>(1, kMaxIdleGap / period));
  }
  return now + *stride * period;
}

// Every other sample dropped (the first kept).
void thin_samples(std::vector<int64_t>* t, std::vector<std::vector<double>>* share) {
  size_t k = 0;
  for (size_t i = 0; i < t->size(); i += 2, ++k) {
    if (i == k) continue;  // no self-move
    (*t)[k] = (*t)[i];
    (*share)[k] = std::move((*share)[i]);
  }
  t->resize(k);
  share->resize(k);
}

}  // namespace

double percentile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  // Nearest rank: the smallest value with at least p of the values at or below it.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  if (rank < 1) rank = 1;
  return v[std::min(rank, v.size()) - 1];
}

SimWorld make_world(const SwfTrace& trace, uint32_t procs, const std::string& accounts_text,
                    const std::string& accounts_label) {
  SimWorld w;
  w.plan = plan_replay(trace);
  w.procs = procs ? procs : trace.max_procs > 0 ? static_cast<uint32_t>(std::min<int64_t>(trace.max_procs, UINT32_MAX)) : 0;
  if (!w.procs)
    throw std::runtime_error(trace.file + ": the header gives no MaxProcs; say how many processors with --procs N");
  w.import_json = accounts_text.empty() ? accounts_json(w.plan) : accounts_text;
  const std::map<std::string, std::string> defaults =
      default_accounts(w.import_json, accounts_text.empty() ? "<accounts from the trace>" : accounts_label);

  auto account_of = [&](const mfprio_job_t& j) -> std::string {
    if (j.account && *j.account) return j.account;
    auto it = defaults.find(j.user);
    return it != defaults.end() ? it->second : std::string("(none)");
  };
  std::vector<std::string> accts, users;
  for (const ReplayJob& r : w.plan.jobs) {
    accts.push_back(account_of(r.job));
    users.push_back(r.job.user);
  }
  auto uniq = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  w.accounts = uniq(accts);
  w.users = uniq(users);
  for (uint32_t i = 0; i < w.plan.jobs.size(); ++i) {
    const ReplayJob& r = w.plan.jobs[i];
    if (r.cpus > w.procs) {
      ++w.skipped_too_big;
      continue;
    }
    SimJob s;
    s.plan = i;
    s.submit = r.submit;
    const int64_t run = r.end - r.start;
    const int64_t req = r.src->req_time;
    s.run = req > 0 ? std::min(run, req) : run;  // killed at its requested time
    s.est = req > 0 ? req : run;
    s.cpus = r.cpus;
    s.account = index_of(w.accounts, accts[i]);
    s.user = index_of(w.users, users[i]);
    w.cpu_seconds += static_cast<double>(s.cpus) * static_cast<double>(s.run);
    w.jobs.push_back(s);
  }
  mfprio::stable_order(w.jobs.begin(), w.jobs.end(), [&](const SimJob& a, const SimJob& b) {
    if (a.submit != b.submit) return a.submit < b.submit;
    return w.plan.jobs[a.plan].job.job_id < w.plan.jobs[b.plan].job.job_id;
  });
  return w;
}

PolicyResult run_policy(const SimWorld& world, const std::string& conf_path, size_t index, const std::string& name,
                        const std::string& tmpdir, const SimOptions& opt) {
  const auto wall0 = std::chrono::steady_clock::now();
  PolicyResult res;
  res.name = name;
  res.conf = conf_path;
  res.backfill = opt.backfill;

  // A fresh store holding the trace's accounts, and the conf pointed at it.
  const std::string db = tmpdir + "/policy" + std::to_string(index + 1) + ".db";
  const std::string import_file = tmpdir + "/accounts.json";
  {
    std::ofstream f(import_file, std::ios::trunc);
    if (!(f << world.import_json) || !f.flush()) throw std::runtime_error("cannot write " + import_file);
  }
  try {
    std::unique_ptr<acct::Store> store = acct::Store::open(db);
    acct::import_json_file(*store, import_file);
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("simulate: the policy store: ") + e.what());
  }
  Conf conf = Conf::load(conf_path);
  conf.add(ConfPair{"AccountingStorageLoc", db, "<simulate: fresh store>", 0});
  HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, opt.plugin_dir);
  if (settings.cluster.cpus == 0) settings.cluster.cpus = world.procs;
  res.calc_period = conf_calc_period(conf);

  LogSink sink;
  sink.max_level = opt.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  clock.fixed = true;
  const std::vector<SimJob>& jobs = world.jobs;
  const size_t n = jobs.size();
  if (n == 0) throw std::runtime_error(world.plan.file + ": no job to simulate");
  const int64_t t0 = jobs.front().submit;
  clock.now = t0;
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  plugin->init(conf, settings.cluster, &sink, &clock);
  const mfprio_ops_t& ops = plugin->ops();
  res.plugin_type = plugin->type();
  res.pricing_op = ops.prioritize ? "prioritize" : ops.set_priority_batch ? "set_priority_batch" : "set_priority";

  // This policy's job records (handles are the plugin's), resolved once.
  std::vector<mfprio_job_t> rec(n);
  for (size_t i = 0; i < n; ++i) {
    rec[i] = world.plan.jobs[jobs[i].plan].job;
    rec[i].handle = mfprio_handle_t{};
    if (ops.job_resolve && ops.job_resolve(&rec[i]) != MFPRIO_OK)
      throw PluginError(world.plan.file + ":" + std::to_string(world.plan.jobs[jobs[i].plan].src->line) + ": job " +
                            std::to_string(rec[i].job_id) + ": " + plugin->last_error(),
                        MFPRIO_ENOENT);
  }
  std::vector<double> acct_target, user_target;
  {
    ShareTable table;
    const bool have = ops.share_table != nullptr;
    if (have) table = fetch_table(*plugin);
    res.target_rule = target_shares(have ? &table : nullptr, world.accounts, false, &acct_target);
    target_shares(have ? &table : nullptr, world.users, true, &user_target);
  }

  std::FILE* dec = opt.decisions;
  if (dec) std::fprintf(dec, "policy %zu %s\n", index + 1, name.c_str());

  std::vector<int64_t> start(n, -1), end(n, -1);
  IndexSet pending(n), running(n);
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<EndEvent>> ends;
  std::vector<mfprio_job_t> pbatch, rbatch, ebatch;
  std::vector<int64_t> etimes;
  std::vector<uint32_t> prios, order, queue;
  std::vector<int> statuses;
  std::vector<uint8_t> started_now;
  std::vector<std::pair<int64_t, uint32_t>> by_est;  // (estimated end, job)
  std::vector<double> acct_done(world.accounts.size(), 0.0);
  uint64_t used = 0, finished = 0;
  size_t next_arrival = 0;
  int64_t next_tick = t0;
  const int64_t period = res.calc_period;

  auto throw_call = [&](const char* op, int64_t now, int rc) {
    throw PluginError(std::string(op) + " at " + iso_utc(now) + ": " + plugin->last_error() + " (" + status_name(rc) + ")",
                      rc);
  };
  auto running_batch = [&]() {
    rbatch.clear();
    for (uint32_t j : running.items()) rbatch.push_back(rec[j]);
  };

  auto price = [&](int64_t now) {
    const auto& pend = pending.items();
    pbatch.clear();
    for (uint32_t j : pend) pbatch.push_back(rec[j]);
    prios.assign(pbatch.size(), 0);
    statuses.assign(pbatch.size(), MFPRIO_OK);
    int rc = MFPRIO_OK;
    if (ops.prioritize) {
      running_batch();
      rc = ops.prioritize(pbatch.data(), pbatch.size(), rbatch.empty() ? nullptr : rbatch.data(), rbatch.size(), now,
                          prios.data(), statuses.data());
    } else if (ops.set_priority_batch) {
      rc = ops.set_priority_batch(pbatch.data(), pbatch.size(), now, prios.data(), statuses.data());
    } else {
      for (size_t k = 0; k < pbatch.size(); ++k) {
        statuses[k] = ops.set_priority(&pbatch[k], now, &prios[k]);
        if (statuses[k] != MFPRIO_OK && rc == MFPRIO_OK) rc = statuses[k];
      }
    }
    ++res.pricing_calls;
    if (rc != MFPRIO_OK) {
      size_t k = 0;
      while (k < statuses.size() && statuses[k] == MFPRIO_OK) ++k;
      if (k == statuses.size()) throw_call(res.pricing_op.c_str(), now, rc);
      throw PluginError("job " + std::to_string(pbatch[k].job_id) + ": " + res.pricing_op + " at " + iso_utc(now) +
                            ": " + plugin->last_error(),
                        statuses[k]);
    }
  };

  auto start_job = [&](uint32_t j, int64_t now, const char* how) {
    pending.erase(j);
    running.insert(j);
    rec[j].state = MFPRIO_JOB_RUNNING;
    rec[j].start_time = now;
    rec[j].start_count = 1;
    start[j] = now;
    used += jobs[j].cpus;
    ends.push({now + jobs[j].run, rec[j].job_id, j});
    if (dec)
      std::fprintf(dec, "start %lld %llu %u %lld %lld %s %u\n", static_cast<long long>(now),
                   static_cast<unsigned long long>(rec[j].job_id), jobs[j].cpus, static_cast<long long>(jobs[j].submit),
                   static_cast<long long>(now + jobs[j].est), how, rec[j].bypass_count);
  };

  // Priority order, then EASY backfill (or none).
  auto schedule = [&](int64_t now) {
    const auto& pend = pending.items();
    if (pend.empty()) return;
    price(now);  // every event and pass, also when the machine is full (whole-queue families keep state)
    if (used >= world.procs) return;
    order.resize(pend.size());
    for (uint32_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (prios[a] != prios[b]) return prios[a] > prios[b];
      const uint32_t ja = pend[a], jb = pend[b];
      if (jobs[ja].submit != jobs[jb].submit) return jobs[ja].submit < jobs[jb].submit;
      return rec[ja].job_id < rec[jb].job_id;
    });
    // Job indices in priority order (pend changes as jobs start).
    std::vector<uint32_t>& q = queue;
    q.resize(order.size());
    for (size_t k = 0; k < order.size(); ++k) q[k] = pend[order[k]];
    started_now.assign(q.size(), 0);
    bool blocked = false;
    int64_t shadow = 0;
    int64_t extra = 0;
    size_t backfills = 0;
    for (size_t k = 0; k < q.size() && used < world.procs; ++k) {
      const uint32_t j = q[k];
      const int64_t free = static_cast<int64_t>(world.procs) - static_cast<int64_t>(used);
      const int64_t c = jobs[j].cpus;
      if (!blocked) {
        if (c <= free) {
          start_job(j, now, "order");
          started_now[k] = 1;
          continue;
        }
        if (opt.backfill == Backfill::None) break;
        // The reservation: the running jobs' estimated ends, earliest first.
        blocked = true;
        by_est.clear();
        for (uint32_t r : running.items()) by_est.push_back({start[r] + jobs[r].est, r});
        std::sort(by_est.begin(), by_est.end());
        // Every job estimated to end by the shadow time frees its processors then.
        int64_t avail = free;
        for (size_t e = 0; e < by_est.size(); ++e) {
          avail += jobs[by_est[e].second].cpus;
          if (avail < c || (e + 1 < by_est.size() && by_est[e + 1].first == by_est[e].first)) continue;
          shadow = std::max(by_est[e].first, now);
          extra = avail - c;
          break;
        }
        if (dec)
          std::fprintf(dec, "reserve %lld %llu %lld %lld %lld\n", static_cast<long long>(now),
                       static_cast<unsigned long long>(rec[j].job_id), static_cast<long long>(c),
                       static_cast<long long>(shadow), static_cast<long long>(extra));
        continue;
      }
      if (c > free) continue;
      const bool before_shadow = now + jobs[j].est <= shadow;
      if (!before_shadow && c > extra) continue;
      if (!before_shadow) extra -= c;
      start_job(j, now, "backfill");
      started_now[k] = 2;
      ++backfills;
    }
    if (backfills) {
      // Each job passed over by a backfilled job: +1 per backfilled job after it.
      res.backfilled += backfills;
      uint32_t after = 0;
      for (size_t k = q.size(); k-- > 0;) {
        if (started_now[k] == 2) ++after;
        else if (started_now[k] == 0 && after) rec[q[k]].bypass_count += after;
      }
    }
  };

  uint64_t sample_every = 1, passes_seen = 0;
  auto sample = [&](int64_t now) {
    if (passes_seen++ % sample_every != 0) return;
    if (res.sample_t.size() >= 2 * kMaxSamples) {
      thin_samples(&res.sample_t, &res.sample_share);
      sample_every *= 2;
    }
    std::vector<double> cum = acct_done;
    double total = 0;
    for (uint32_t r : running.items())
      cum[jobs[r].account] += static_cast<double>(jobs[r].cpus) * static_cast<double>(now - start[r]);
    for (double x : cum) total += x;
    if (total <= 0) return;
    for (double& x : cum) x /= total;
    res.sample_t.push_back(now);
    res.sample_share.push_back(std::move(cum));
  };

  bool final_pass_done = false;
  int64_t idle_stride = 0;
  auto last_progress = std::chrono::steady_clock::now();
  while (!final_pass_done) {
    int64_t now = next_tick;
    if (next_arrival < n) now = std::min(now, jobs[next_arrival].submit);
    if (!ends.empty()) now = std::min(now, ends.top().t);
    clock.now = now;
    bool changed = false;
    // 1. job ends, all of this instant in one call
    ebatch.clear();
    etimes.clear();
    while (!ends.empty() && ends.top().t == now) {
      const uint32_t j = ends.top().job;
      ends.pop();
      running.erase(j);
      used -= jobs[j].cpus;
      rec[j].state = MFPRIO_JOB_COMPLETED;
      end[j] = now;
      acct_done[jobs[j].account] += static_cast<double>(jobs[j].cpus) * static_cast<double>(jobs[j].run);
      ebatch.push_back(rec[j]);
      etimes.push_back(now);
      ++finished;
      if (dec) std::fprintf(dec, "end %lld %llu %u\n", static_cast<long long>(now),
                            static_cast<unsigned long long>(rec[j].job_id), jobs[j].cpus);
    }
    if (!ebatch.empty()) {
      changed = true;
      if (ops.job_end_batch) {
        const int rc = ops.job_end_batch(ebatch.data(), ebatch.size(), etimes.data());
        if (rc != MFPRIO_OK) throw_call("job_end_batch", now, rc);
      } else if (ops.job_end) {
        for (const mfprio_job_t& j : ebatch) {
          const int rc = ops.job_end(&j, now);
          if (rc != MFPRIO_OK) throw_call("job_end", now, rc);
        }
      }
    }
    // 2. arrivals
    for (; next_arrival < n && jobs[next_arrival].submit == now; ++next_arrival) {
      pending.insert(static_cast<uint32_t>(next_arrival));
      changed = true;
      if (dec)
        std::fprintf(dec, "submit %lld %llu %u\n", static_cast<long long>(now),
                     static_cast<unsigned long long>(rec[next_arrival].job_id), jobs[next_arrival].cpus);
    }
    const bool events = changed;  // an end or an arrival at this instant
    // 3. the calc-period pass
    const bool pass = now == next_tick;
    if (pass) {
      running_batch();
      const int rc = ops.decay(now, rbatch.empty() ? nullptr : rbatch.data(), rbatch.size());
      if (rc != MFPRIO_OK) throw_call("decay", now, rc);
      ++res.decay_passes;
      changed = true;
      sample(now);
      if (next_arrival >= n && ends.empty() && pending.items().empty()) final_pass_done = true;
    }
    // 4. price and start
    if (changed) schedule(now);
    if (pass) {
      int64_t next_event = next_arrival < n ? jobs[next_arrival].submit : INT64_MAX;
      if (!ends.empty()) next_event = std::min(next_event, ends.top().t);
      if (events) idle_stride = 0;  // an end or arrival: the stretch starts again here
      next_tick = next_pass_time(now, period, pending.items().empty(), next_event, &idle_stride);
    } else if (events) {
      idle_stride = 0;
    }
    if (!pass && !pending.items().empty() && next_tick > now + period) {
      next_tick = t0 + ((now - t0) / period + 1) * period;  // a job waits: back to every period
    }
    if (opt.progress) {
      const auto t = std::chrono::steady_clock::now();
      if (t - last_progress > std::chrono::milliseconds(200)) {
        last_progress = t;
        opt.progress(index, static_cast<double>(finished) / static_cast<double>(n));
      }
    }
  }
  if (finished != n || !pending.items().empty())
    throw std::runtime_error("simulate: internal error: " + std::to_string(n - finished) + " jobs never ended");

  // The charged total: the share view's top row raw_usage, when it has one.
  if (ops.share_table) {
    const ShareTable table = fetch_table(*plugin);
    const int col = table.column("raw_usage");
    double root = 0;
    bool have = false;
    for (const ShareRow& r : table.rows)
      if (r.parent < 0 && col >= 0 && static_cast<size_t>(col) < r.cells.size() && !r.cells[col].has_text) {
        root += r.cells[col].value;
        have = true;
      }
    if (have) res.charged_usage = root;
  }
  plugin.reset();  // fini + dlclose before the next policy loads its family

  // Metrics.
  res.jobs = n;
  res.first_submit = t0;
  std::vector<std::vector<uint32_t>> by_acct(world.accounts.size()), by_user(world.users.size());
  std::vector<uint32_t> all(n);
  for (uint32_t j = 0; j < n; ++j) {
    all[j] = j;
    by_acct[jobs[j].account].push_back(j);
    by_user[jobs[j].user].push_back(j);
    res.last_end = std::max(res.last_end, end[j]);
    res.waits.push_back(start[j] - jobs[j].submit);
  }
  std::sort(res.waits.begin(), res.waits.end());
  res.makespan = res.last_end - t0;
  res.cpu_seconds = world.cpu_seconds;
  res.utilization = res.makespan > 0 ? world.cpu_seconds / (static_cast<double>(world.procs) * static_cast<double>(res.makespan)) : 0;
  const GroupStats overall = group_stats("", all, world, start);
  res.wait_mean = overall.wait_mean;
  res.wait_p50 = overall.wait_p50;
  res.wait_p95 = overall.wait_p95;
  res.bsld_mean = overall.bsld_mean;
  auto fill = [&](std::vector<GroupStats>* out, const std::vector<std::string>& names,
                  const std::vector<std::vector<uint32_t>>& members, const std::vector<double>& target) {
    for (size_t i = 0; i < names.size(); ++i) {
      GroupStats g = group_stats(names[i], members[i], world, start);
      g.delivered_share = world.cpu_seconds > 0 ? g.cpu_seconds / world.cpu_seconds : 0;
      g.target_share = target[i];
      out->push_back(std::move(g));
    }
  };
  fill(&res.accounts, world.accounts, by_acct, acct_target);
  fill(&res.users, world.users, by_user, user_target);
  // Jain's fairness index over accounts of x = delivered / target:
  // (sum x)^2 / (n sum x^2); 1 = every account got exactly its target.
  double sx = 0, sxx = 0;
  size_t m = 0;
  for (const GroupStats& g : res.accounts) {
    if (g.target_share <= 0) continue;
    const double x = g.delivered_share / g.target_share;
    sx += x;
    sxx += x * x;
    ++m;
  }
  res.jain = m && sxx > 0 ? sx * sx / (static_cast<double>(m) * sxx) : 0;
  res.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

}  // namespace mfprio::host
