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
#include <random>
#include <stdexcept>

#include "index_set.hpp"
#include "conf.hpp"
#include "import_export.hpp"
#include "json_util.hpp"
#include "layout.hpp"
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


// Bounded slowdown (Feitelson): max(1, (wait + run) / max(run, 10 s)).
double bounded_slowdown(double wait, int64_t run) {
  const double r = static_cast<double>(run);
  return std::max(1.0, (wait + r) / std::max(r, 10.0));
}

double mean_of(const std::vector<double>& v) {
  double sum = 0;
  for (double x : v) sum += x;
  return v.empty() ? 0 : sum / static_cast<double>(v.size());
}

// The group statistics of `members` (job indices) given each job's start
// (and, when not empty, its start under FIFO).
GroupStats group_stats(const std::string& name, const std::vector<uint32_t>& members, const SimWorld& w,
                       const std::vector<int64_t>& start, const std::vector<int64_t>& fifo) {
  GroupStats g;
  g.name = name;
  g.jobs = members.size();
  std::vector<double> waits, bslds;
  waits.reserve(members.size());
  bslds.reserve(members.size());
  uint64_t later = 0;
  for (uint32_t j : members) {
    const SimJob& s = w.jobs[j];
    const double wait = static_cast<double>(start[j] - s.submit);
    waits.push_back(wait);
    bslds.push_back(bounded_slowdown(wait, s.run));
    if (!fifo.empty() && start[j] > fifo[j]) ++later;
    g.cpu_seconds += static_cast<double>(s.cpus) * static_cast<double>(s.run);
  }
  g.wait_mean = mean_of(waits);
  g.bsld_mean = mean_of(bslds);
  std::sort(waits.begin(), waits.end());
  std::sort(bslds.begin(), bslds.end());
  g.wait_p50 = percentile_sorted(waits, 0.50);
  g.wait_p95 = percentile_sorted(waits, 0.95);
  g.wait_p99 = percentile_sorted(waits, 0.99);
  g.wait_max = waits.empty() ? 0 : waits.back();
  g.bsld_p50 = percentile_sorted(bslds, 0.50);
  g.bsld_p95 = percentile_sorted(bslds, 0.95);
  g.bsld_p99 = percentile_sorted(bslds, 0.99);
  g.later_than_fifo = members.empty() ? 0 : static_cast<double>(later) / static_cast<double>(members.size());
  return g;
}

// Jain's fairness index (sum x)^2 / (n sum x^2) over the x given; 1 when
// every x is 0 (all equal) or there is none.
double jain_index(const std::vector<double>& x) {
  double sx = 0, sxx = 0;
  for (double v : x) {
    sx += v;
    sxx += v * v;
  }
  return sxx > 0 ? sx * sx / (static_cast<double>(x.size()) * sxx) : 1.0;
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

// While nothing is pending no priority decides anything, so no pass is made
// one period after another: the next pass is the last grid point (first
// submit + k x period) at or before the next arrival, made before that
// arrival is priced, so the priorities see usage exactly as fresh as with a
// pass every period; or the first grid point at or after the last end when
// no job is left to arrive.  Passes are never more than kMaxIdleGap apart
// (far below the default PriorityMaxDecayGap): a job of 10^9 s alone on the
// machine costs ~390 passes, not 3.3 million.  A pass decays and charges up
// to its own time, so every job is charged all of its run; what skipped
// passes would have decayed in steps is decayed in one (hpc2n, 7-day
// half-life: 4,274 passes instead of 17,608, every start the same, the
// decayed total 0.18 % lower).
constexpr int64_t kMaxIdleGap = 30 * 86400;
// The share samples kept per policy: past 2 x kMaxSamples every other one is
// dropped and sampling thins out by two, so the plot keeps its whole span
// (it draws at most 400 points per line).
constexpr size_t kMaxSamples = 512;

// Every other sample dropped (the first kept).
void thin_samples(PolicyResult* r) {
  size_t k = 0;
  for (size_t i = 0; i < r->sample_t.size(); i += 2, ++k) {
    if (i == k) continue;  // no self-move
    r->sample_t[k] = r->sample_t[i];
    r->sample_share[k] = std::move(r->sample_share[i]);
    r->sample_util[k] = r->sample_util[i];
    r->sample_demand_share[k] = std::move(r->sample_demand_share[i]);
    r->sample_acct_util[k] = std::move(r->sample_acct_util[i]);
    r->sample_demand[k] = r->sample_demand[i];
  }
  r->sample_t.resize(k);
  r->sample_share.resize(k);
  r->sample_util.resize(k);
  r->sample_demand_share.resize(k);
  r->sample_acct_util.resize(k);
  r->sample_demand.resize(k);
}

}  // namespace

namespace {
// Job-size classes by processors and run-time classes by seconds run: the
// upper bound of each (inclusive) and its name.
constexpr uint32_t kSizeBound[] = {1, 4, 16, 64, 256, UINT32_MAX};
const char* const kSizeName[] = {"1 cpu", "2-4 cpus", "5-16 cpus", "17-64 cpus", "65-256 cpus", ">256 cpus"};
constexpr int64_t kRunBound[] = {600, 3600, 4 * 3600, 86400, INT64_MAX};
const char* const kRunName[] = {"<=10m", "10m-1h", "1h-4h", "4h-1d", ">1d"};

int size_rank(uint32_t cpus) {
  int k = 0;
  while (cpus > kSizeBound[k]) ++k;
  return k;
}
int runtime_rank(int64_t run) {
  int k = 0;
  while (run > kRunBound[k]) ++k;
  return k;
}
}  // namespace

const char* size_class(uint32_t cpus) { return kSizeName[size_rank(cpus)]; }
const char* runtime_class(int64_t run) { return kRunName[runtime_rank(run)]; }

double percentile_sorted(const std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  // Nearest rank: the smallest value with at least p of the values at or below it.
  size_t rank = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  if (rank < 1) rank = 1;
  return v[std::min(rank, v.size()) - 1];
}

namespace {

// --map on the plan's records: names renamed, "user * auto" accounts and
// "partition * auto" partitions put in; the rules whose trace name no job
// has are listed in w->unmatched_rules.
void apply_map(const SimMap& map, SimWorld* w) {
  w->mapped = std::make_shared<std::set<std::string>>();
  auto keep = [&](const std::string& s) { return w->mapped->insert(s).first->c_str(); };
  std::set<std::string> seen[3];  // the trace's users, accounts, partitions
  std::mt19937_64 rng(map.seed + 1);
  std::vector<double> weights;
  double sum = 0;
  for (const auto& p : map.spread) {
    weights.push_back(p.second);
    sum += p.second;
  }
  for (ReplayJob& r : w->plan.jobs) {
    const std::string acct = r.job.account ? r.job.account : "", part = r.job.partition ? r.job.partition : "";
    seen[0].insert(r.job.user);
    seen[1].insert(acct);
    seen[2].insert(part);
    const auto drawn = map.user_account.find(r.job.user);  // user * auto
    r.job.account = drawn != map.user_account.end() ? keep(drawn->second) : keep(map.account(acct));
    if (drawn == map.user_account.end()) r.job.user = keep(map.user(r.job.user));
    if (!map.auto_partitions || map.partitions.count(part)) r.job.partition = keep(map.partition(part));
    else r.job.partition = keep(sum > 0 ? map.spread[weighted_draw(rng, weights, sum)].first : std::string());
  }
  const std::pair<const char*, const std::map<std::string, std::string>*> kinds[] = {
      {"user", &map.users}, {"account", &map.accounts}, {"partition", &map.partitions}};
  for (int k = 0; k < 3; ++k)
    for (const auto& rule : *kinds[k].second)
      if (!seen[k].count(rule.first)) w->unmatched_rules.push_back(std::string(kinds[k].first) + " " + rule.first);
}

}  // namespace

SimWorld make_world(const SwfTrace& trace, uint32_t procs, const std::string& accounts_text,
                    const std::string& accounts_label, const SimMap* map) {
  SimWorld w;
  w.plan = plan_replay(trace);
  if (map) apply_map(*map, &w);
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
  std::set<std::string> part_names;
  for (const ReplayJob& r : w.plan.jobs) {
    accts.push_back(account_of(r.job));
    users.push_back(r.job.user);
    part_names.insert(r.job.partition ? r.job.partition : "");
  }
  auto uniq = [](std::vector<std::string> v) {
    std::sort(v.begin(), v.end());
    v.erase(std::unique(v.begin(), v.end()), v.end());
    return v;
  };
  w.accounts = uniq(accts);
  w.users = uniq(users);
  w.partitions.assign(part_names.begin(), part_names.end());
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
    s.partition = index_of(w.partitions, r.job.partition ? r.job.partition : "");
    w.cpu_seconds += static_cast<double>(s.cpus) * static_cast<double>(s.run);
    w.jobs.push_back(s);
  }
  mfprio::stable_order(w.jobs.begin(), w.jobs.end(), [&](const SimJob& a, const SimJob& b) {
    if (a.submit != b.submit) return a.submit < b.submit;
    return w.plan.jobs[a.plan].job.job_id < w.plan.jobs[b.plan].job.job_id;
  });
  return w;
}

namespace {

// One policy's run over the world: the plugin's clock and records, the
// machine (pending, running, free processors), the event loop, the pricing
// and the EASY scheduler, and what the report needs recorded (starts, ends,
// share samples).  The plugin is open and initialized; run() drives it to
// the last pass.
class PolicyRun {
 public:
  // plugin null: FIFO, every priority equal, no plugin called (fifo_starts).
  PolicyRun(const SimWorld& world, const SimOptions& opt, size_t index, Plugin* plugin, Clock& clock,
            PolicyResult* res)
      : w_(world), jobs_(world.jobs), n_(world.jobs.size()), opt_(opt), index_(index), plugin_(plugin),
        ops_(plugin ? plugin->ops() : kNoOps), clock_(clock), res_(*res), dec_(opt.decisions), start_(n_, -1), end_(n_, -1),
        pending_(n_), running_(n_), acct_done_(world.accounts.size(), 0.0), acct_demand_(world.accounts.size(), 0.0),
        t0_(world.jobs.front().submit),
        next_tick_(t0_), period_(res->calc_period) {}

  void resolve_records();
  void run();
  const std::vector<int64_t>& starts() const { return start_; }
  const std::vector<int64_t>& ends() const { return end_; }

 private:
  struct EndEvent {
    int64_t t;
    uint64_t job_id;
    uint32_t job;
    bool operator>(const EndEvent& o) const { return t != o.t ? t > o.t : job_id > o.job_id; }
  };

  [[noreturn]] void throw_call(const char* op, int64_t now, int rc) const;
  void running_batch();
  bool end_jobs(int64_t now);
  void flush_ends();
  bool arrivals(int64_t now);
  void calc_pass(int64_t now);
  void price(int64_t now);
  void schedule(int64_t now);
  void sort_queue();
  void reserve(uint32_t j, int64_t now, int64_t free, int64_t* shadow, int64_t* extra);
  void count_bypasses(size_t backfills);
  void start_job(uint32_t j, int64_t now, const char* how);
  void sample(int64_t now);
  void next_pass(int64_t now, bool pass);
  int64_t idle_pass_due() const;
  int64_t grid_floor(int64_t t) const { return t0_ + (t - t0_) / period_ * period_; }
  void progress();

  const SimWorld& w_;
  const std::vector<SimJob>& jobs_;
  const size_t n_;
  const SimOptions& opt_;
  const size_t index_;
  static constexpr mfprio_ops_t kNoOps{};
  Plugin* plugin_;
  const mfprio_ops_t& ops_;
  Clock& clock_;
  PolicyResult& res_;
  std::FILE* dec_;

  std::vector<mfprio_job_t> rec_;  // this policy's job records (handles are the plugin's)
  std::vector<int64_t> start_, end_;
  IndexSet pending_, running_;
  std::priority_queue<EndEvent, std::vector<EndEvent>, std::greater<EndEvent>> ends_q_;
  // scratch, reused between instants
  std::vector<mfprio_job_t> pbatch_, rbatch_, ebatch_;
  std::vector<int64_t> etimes_;
  std::vector<uint32_t> prios_, order_, queue_;
  std::vector<int> statuses_;
  std::vector<uint8_t> started_now_;               // per queue slot: 0 not, 1 in order, 2 backfilled
  std::vector<std::pair<int64_t, uint32_t>> by_est_;  // (estimated end, job)
  std::vector<double> acct_done_;                  // CPU time of each account's ended jobs
  std::vector<double> acct_demand_;                // CPU time of each account's submitted jobs
  uint64_t used_ = 0, finished_ = 0;
  uint64_t pending_cpus_ = 0;                      // processors the pending jobs ask for
  size_t next_arrival_ = 0;
  const int64_t t0_;
  int64_t next_tick_;
  const int64_t period_;
  bool idle_ = false;        // nothing pending: passes only when due (idle_pass_due)
  int64_t last_pass_ = INT64_MIN / 2;
  int64_t now_ = 0;          // the instant being simulated
  bool final_pass_done_ = false;
  uint64_t sample_every_ = 1, passes_seen_ = 0;
  std::chrono::steady_clock::time_point last_progress_ = std::chrono::steady_clock::now();
};

void PolicyRun::throw_call(const char* op, int64_t now, int rc) const {
  throw PluginError(std::string(op) + " at " + iso_utc(now) + ": " + plugin_->last_error() + " (" + status_name(rc) + ")",
                    rc);
}

// The records, resolved once (a name the store lacks stops the run, naming the job).
void PolicyRun::resolve_records() {
  rec_.resize(n_);
  for (size_t i = 0; i < n_; ++i) {
    rec_[i] = w_.plan.jobs[jobs_[i].plan].job;
    rec_[i].handle = mfprio_handle_t{};
    if (ops_.job_resolve && ops_.job_resolve(&rec_[i]) != MFPRIO_OK)
      throw PluginError(w_.plan.file + ":" + std::to_string(w_.plan.jobs[jobs_[i].plan].src->line) + ": job " +
                            std::to_string(rec_[i].job_id) + ": " + plugin_->last_error(),
                        MFPRIO_ENOENT);
  }
}

void PolicyRun::running_batch() {
  rbatch_.clear();
  for (uint32_t j : running_.items()) rbatch_.push_back(rec_[j]);
}

// The event loop: at each instant ends, arrivals, the pass when due, then
// pricing and starts when anything happened.
void PolicyRun::run() {
  if (dec_) std::fprintf(dec_, "policy %zu %s\n", index_ + 1, res_.name.c_str());
  while (!final_pass_done_) {
    if (idle_) next_tick_ = idle_pass_due();
    int64_t now = next_tick_;
    if (next_arrival_ < n_) now = std::min(now, jobs_[next_arrival_].submit);
    if (!ends_q_.empty()) now = std::min(now, ends_q_.top().t);
    clock_.now = now;
    now_ = now;
    const bool ended = end_jobs(now);
    const bool arrived = arrivals(now);
    const bool events = ended || arrived;
    const bool pass = now == next_tick_;
    if (pass) calc_pass(now);
    if (events || pass) schedule(now);
    next_pass(now, pass);
    progress();
  }
  if (finished_ != n_ || !pending_.items().empty())
    throw std::runtime_error("simulate: internal error: " + std::to_string(n_ - finished_) + " jobs never ended");
}

// 1. job ends.  The plugin hears of them (job_end_batch with each job's own
// end time, else job_end per job) just before it is next asked anything: a
// pricing or a pass.  Until then nothing reads the usage they charge, so
// the ends of an idle queue's instants cost the store one commit, not one
// each (the priorities and every start stay the same).
bool PolicyRun::end_jobs(int64_t now) {
  bool any = false;
  while (!ends_q_.empty() && ends_q_.top().t == now) {
    const uint32_t j = ends_q_.top().job;
    ends_q_.pop();
    running_.erase(j);
    used_ -= jobs_[j].cpus;
    rec_[j].state = MFPRIO_JOB_COMPLETED;
    end_[j] = now;
    acct_done_[jobs_[j].account] += static_cast<double>(jobs_[j].cpus) * static_cast<double>(jobs_[j].run);
    ebatch_.push_back(rec_[j]);
    etimes_.push_back(now);
    ++finished_;
    any = true;
    if (dec_)
      std::fprintf(dec_, "end %lld %llu %u\n", static_cast<long long>(now),
                   static_cast<unsigned long long>(rec_[j].job_id), jobs_[j].cpus);
  }
  return any;
}

void PolicyRun::flush_ends() {
  if (ebatch_.empty()) return;
  if (ops_.job_end_batch) {
    const int rc = ops_.job_end_batch(ebatch_.data(), ebatch_.size(), etimes_.data());
    if (rc != MFPRIO_OK) throw_call("job_end_batch", etimes_.back(), rc);
  } else if (ops_.job_end) {
    for (size_t k = 0; k < ebatch_.size(); ++k) {
      const int rc = ops_.job_end(&ebatch_[k], etimes_[k]);
      if (rc != MFPRIO_OK) throw_call("job_end", etimes_[k], rc);
    }
  }
  ebatch_.clear();
  etimes_.clear();
}

// 2. arrivals.
bool PolicyRun::arrivals(int64_t now) {
  bool any = false;
  for (; next_arrival_ < n_ && jobs_[next_arrival_].submit == now; ++next_arrival_) {
    pending_.insert(static_cast<uint32_t>(next_arrival_));
    const SimJob& s = jobs_[next_arrival_];
    pending_cpus_ += s.cpus;
    acct_demand_[s.account] += static_cast<double>(s.cpus) * static_cast<double>(s.run);
    any = true;
    if (dec_)
      std::fprintf(dec_, "submit %lld %llu %u\n", static_cast<long long>(now),
                   static_cast<unsigned long long>(rec_[next_arrival_].job_id), jobs_[next_arrival_].cpus);
  }
  return any;
}

// 3. the calc-period pass.
void PolicyRun::calc_pass(int64_t now) {
  flush_ends();
  if (plugin_) {
    running_batch();
    const int rc = ops_.decay(now, rbatch_.empty() ? nullptr : rbatch_.data(), rbatch_.size());
    if (rc != MFPRIO_OK) throw_call("decay", now, rc);
  }
  ++res_.decay_passes;
  last_pass_ = now;
  sample(now);
  if (next_arrival_ >= n_ && ends_q_.empty() && pending_.items().empty()) final_pass_done_ = true;
}

// After an instant: while jobs wait, a pass at every grid point; when none
// waits, the passes are skipped until one is needed (idle_pass_due).
void PolicyRun::next_pass(int64_t now, bool pass) {
  if (pending_.items().empty()) {
    idle_ = true;
    return;
  }
  if (idle_ || pass) next_tick_ = grid_floor(now) + period_;
  idle_ = false;
}

// The next pass of an idle stretch (see kMaxIdleGap).
int64_t PolicyRun::idle_pass_due() const {
  const int64_t gap = std::max(period_, kMaxIdleGap / period_ * period_);
  int64_t due = last_pass_ + gap;
  if (next_arrival_ < n_) {
    const int64_t g = grid_floor(jobs_[next_arrival_].submit);
    if (g > last_pass_) due = std::min(due, g);
  } else if (ends_q_.empty()) {
    const int64_t g = grid_floor(now_);
    due = std::min(due, g == now_ ? g : g + period_);
  }
  return due;
}

void PolicyRun::progress() {
  if (!opt_.progress) return;
  const auto t = std::chrono::steady_clock::now();
  if (t - last_progress_ <= std::chrono::milliseconds(200)) return;
  last_progress_ = t;
  opt_.progress(index_, static_cast<double>(finished_) / static_cast<double>(n_));
}

// The pending jobs priced in one call (prioritize, else set_priority_batch,
// else set_priority per job); a failed record stops the run, naming its job.
void PolicyRun::price(int64_t now) {
  flush_ends();
  const auto& pend = pending_.items();
  if (!plugin_) {
    prios_.assign(pend.size(), 0);
    return;
  }
  pbatch_.clear();
  for (uint32_t j : pend) pbatch_.push_back(rec_[j]);
  prios_.assign(pbatch_.size(), 0);
  statuses_.assign(pbatch_.size(), MFPRIO_OK);
  int rc = MFPRIO_OK;
  if (ops_.prioritize) {
    running_batch();
    rc = ops_.prioritize(pbatch_.data(), pbatch_.size(), rbatch_.empty() ? nullptr : rbatch_.data(), rbatch_.size(),
                         now, prios_.data(), statuses_.data());
  } else if (ops_.set_priority_batch) {
    rc = ops_.set_priority_batch(pbatch_.data(), pbatch_.size(), now, prios_.data(), statuses_.data());
  } else {
    for (size_t k = 0; k < pbatch_.size(); ++k) {
      statuses_[k] = ops_.set_priority(&pbatch_[k], now, &prios_[k]);
      if (statuses_[k] != MFPRIO_OK && rc == MFPRIO_OK) rc = statuses_[k];
    }
  }
  ++res_.pricing_calls;
  if (rc == MFPRIO_OK) return;
  size_t k = 0;
  while (k < statuses_.size() && statuses_[k] == MFPRIO_OK) ++k;
  if (k == statuses_.size()) throw_call(res_.pricing_op.c_str(), now, rc);
  throw PluginError("job " + std::to_string(pbatch_[k].job_id) + ": " + res_.pricing_op + " at " + iso_utc(now) +
                        ": " + plugin_->last_error(),
                    statuses_[k]);
}

// queue_: the pending jobs in priority order (ties: submit time, job id).
void PolicyRun::sort_queue() {
  const auto& pend = pending_.items();
  order_.resize(pend.size());
  for (uint32_t k = 0; k < order_.size(); ++k) order_[k] = k;
  std::sort(order_.begin(), order_.end(), [&](uint32_t a, uint32_t b) {
    if (prios_[a] != prios_[b]) return prios_[a] > prios_[b];
    const uint32_t ja = pend[a], jb = pend[b];
    if (jobs_[ja].submit != jobs_[jb].submit) return jobs_[ja].submit < jobs_[jb].submit;
    return rec_[ja].job_id < rec_[jb].job_id;
  });
  queue_.resize(order_.size());
  for (size_t k = 0; k < order_.size(); ++k) queue_[k] = pend[order_[k]];
}

// The head job j that does not fit: its shadow time (the first estimated end
// by which enough processors are free, every job estimated to end by then
// counted) and the spare processors then.
void PolicyRun::reserve(uint32_t j, int64_t now, int64_t free, int64_t* shadow, int64_t* extra) {
  const int64_t c = jobs_[j].cpus;
  by_est_.clear();
  for (uint32_t r : running_.items()) by_est_.push_back({start_[r] + jobs_[r].est, r});
  std::sort(by_est_.begin(), by_est_.end());
  int64_t avail = free;
  for (size_t e = 0; e < by_est_.size(); ++e) {
    avail += jobs_[by_est_[e].second].cpus;
    if (avail < c || (e + 1 < by_est_.size() && by_est_[e + 1].first == by_est_[e].first)) continue;
    *shadow = std::max(by_est_[e].first, now);
    *extra = avail - c;
    break;
  }
  if (dec_)
    std::fprintf(dec_, "reserve %lld %llu %lld %lld %lld\n", static_cast<long long>(now),
                 static_cast<unsigned long long>(rec_[j].job_id), static_cast<long long>(c),
                 static_cast<long long>(*shadow), static_cast<long long>(*extra));
}

// Priority order, then EASY backfill (or none).
void PolicyRun::schedule(int64_t now) {
  if (pending_.items().empty()) return;
  price(now);  // every event and pass, also when the machine is full (whole-queue families keep state)
  if (used_ >= w_.procs) return;
  sort_queue();
  started_now_.assign(queue_.size(), 0);
  bool blocked = false;
  int64_t shadow = 0, extra = 0;
  size_t backfills = 0;
  for (size_t k = 0; k < queue_.size() && used_ < w_.procs; ++k) {
    const uint32_t j = queue_[k];
    const int64_t free = static_cast<int64_t>(w_.procs) - static_cast<int64_t>(used_);
    const int64_t c = jobs_[j].cpus;
    if (!blocked) {
      if (c <= free) {
        start_job(j, now, "order");
        started_now_[k] = 1;
        continue;
      }
      if (opt_.backfill == Backfill::None) break;
      blocked = true;
      reserve(j, now, free, &shadow, &extra);
      continue;
    }
    if (c > free) continue;
    const bool before_shadow = now + jobs_[j].est <= shadow;
    if (!before_shadow && c > extra) continue;
    if (!before_shadow) extra -= c;
    start_job(j, now, "backfill");
    started_now_[k] = 2;
    ++backfills;
  }
  if (backfills) count_bypasses(backfills);
}

// Each job passed over by a backfilled job: +1 per backfilled job after it.
void PolicyRun::count_bypasses(size_t backfills) {
  res_.backfilled += backfills;
  uint32_t after = 0;
  for (size_t k = queue_.size(); k-- > 0;) {
    if (started_now_[k] == 2) ++after;
    else if (started_now_[k] == 0 && after) rec_[queue_[k]].bypass_count += after;
  }
}

void PolicyRun::start_job(uint32_t j, int64_t now, const char* how) {
  pending_.erase(j);
  running_.insert(j);
  rec_[j].state = MFPRIO_JOB_RUNNING;
  rec_[j].start_time = now;
  rec_[j].start_count = 1;
  start_[j] = now;
  used_ += jobs_[j].cpus;
  pending_cpus_ -= jobs_[j].cpus;
  ends_q_.push({now + jobs_[j].run, rec_[j].job_id, j});
  if (dec_)
    std::fprintf(dec_, "start %lld %llu %u %lld %lld %s %u\n", static_cast<long long>(now),
                 static_cast<unsigned long long>(rec_[j].job_id), jobs_[j].cpus, static_cast<long long>(jobs_[j].submit),
                 static_cast<long long>(now + jobs_[j].est), how, rec_[j].bypass_count);
}

// At a pass (thinned by two past 2 x kMaxSamples, so the plot keeps the
// whole span; none before any CPU time is delivered): each account's share
// of the CPU time delivered so far and of the submitted jobs' CPU time, the
// fraction of processors busy (all, each account's) and the demand.
void PolicyRun::sample(int64_t now) {
  if (passes_seen_++ % sample_every_ != 0) return;
  if (res_.sample_t.size() >= 2 * kMaxSamples) {
    thin_samples(&res_);
    sample_every_ *= 2;
  }
  std::vector<double> cum = acct_done_;
  std::vector<double> busy(cum.size(), 0.0);
  double total = 0, asked = 0;
  for (uint32_t r : running_.items()) {
    cum[jobs_[r].account] += static_cast<double>(jobs_[r].cpus) * static_cast<double>(now - start_[r]);
    busy[jobs_[r].account] += jobs_[r].cpus;
  }
  for (double x : cum) total += x;
  if (total <= 0) return;
  for (double& x : cum) x /= total;
  const double procs = static_cast<double>(w_.procs);
  for (double& x : busy) x /= procs;
  std::vector<double> demand = acct_demand_;
  for (double x : demand) asked += x;
  for (double& x : demand) x /= asked;  // > 0: some job has run
  res_.sample_t.push_back(now);
  res_.sample_share.push_back(std::move(cum));
  res_.sample_util.push_back(static_cast<double>(used_) / procs);
  res_.sample_demand_share.push_back(std::move(demand));
  res_.sample_acct_util.push_back(std::move(busy));
  res_.sample_demand.push_back(static_cast<double>(used_ + pending_cpus_) / procs);
}

// A fresh store at `db` holding the world's accounts.
void make_store(const SimWorld& world, const std::string& db, const std::string& tmpdir) {
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
}

// The charged total: the share view's top row raw_usage, when it has one.
std::optional<double> charged_usage(const Plugin& plugin) {
  if (!plugin.ops().share_table) return std::nullopt;
  const ShareTable table = fetch_table(plugin);
  const int col = table.column("raw_usage");
  double root = 0;
  bool have = false;
  for (const ShareRow& r : table.rows)
    if (r.parent < 0 && col >= 0 && static_cast<size_t>(col) < r.cells.size() && !r.cells[col].has_text) {
      root += r.cells[col].value;
      have = true;
    }
  return have ? std::optional<double>(root) : std::nullopt;
}

// Jain's fairness index over accounts of x = delivered / target; 0 when no
// account has a target.
double jain_delivered(const std::vector<GroupStats>& accounts) {
  std::vector<double> x;
  for (const GroupStats& g : accounts)
    if (g.target_share > 0) x.push_back(g.delivered_share / g.target_share);
  return x.empty() ? 0 : jain_index(x);
}

// The fairness across users: Jain over their mean waits and slowdowns, and
// the user with the highest mean wait.
void user_fairness(PolicyResult* res) {
  std::vector<double> waits, bslds;
  for (const GroupStats& u : res->users) {
    waits.push_back(u.wait_mean);
    bslds.push_back(u.bsld_mean);
    if (res->worst_user.empty() || u.wait_mean > res->worst_user_wait) {
      res->worst_user = u.name;
      res->worst_user_wait = u.wait_mean;
    }
  }
  res->jain_user_wait = jain_index(waits);
  res->jain_user_bsld = jain_index(bslds);
}

// The jobs of each class that has any, in class order.
void class_stats(const SimWorld& world, const std::vector<int64_t>& start, const std::vector<int64_t>& fifo,
                 bool by_size, std::vector<GroupStats>* out) {
  std::map<int, std::pair<std::string, std::vector<uint32_t>>> classes;
  for (uint32_t j = 0; j < world.jobs.size(); ++j) {
    const SimJob& s = world.jobs[j];
    const char* name = by_size ? size_class(s.cpus) : runtime_class(s.run);
    const int rank = by_size ? size_rank(s.cpus) : runtime_rank(s.run);
    auto& c = classes[rank];
    c.first = name;
    c.second.push_back(j);
  }
  for (const auto& [rank, c] : classes) out->push_back(group_stats(c.first, c.second, world, start, fifo));
}

// The report's numbers from each job's start and end.
void record_metrics(const SimWorld& world, const std::vector<int64_t>& start, const std::vector<int64_t>& end,
                    const std::vector<int64_t>& fifo, const std::vector<double>& acct_target,
                    const std::vector<double>& user_target, PolicyResult* res) {
  const std::vector<SimJob>& jobs = world.jobs;
  const size_t n = jobs.size();
  res->jobs = n;
  res->first_submit = jobs.front().submit;
  std::vector<std::vector<uint32_t>> by_acct(world.accounts.size()), by_user(world.users.size()),
      by_part(world.partitions.size());
  std::vector<uint32_t> all(n);
  for (uint32_t j = 0; j < n; ++j) {
    all[j] = j;
    by_acct[jobs[j].account].push_back(j);
    by_user[jobs[j].user].push_back(j);
    by_part[jobs[j].partition].push_back(j);
    res->last_end = std::max(res->last_end, end[j]);
    res->waits.push_back(start[j] - jobs[j].submit);
  }
  std::sort(res->waits.begin(), res->waits.end());
  res->bslds.reserve(n);
  for (uint32_t j = 0; j < n; ++j)
    res->bslds.push_back(bounded_slowdown(static_cast<double>(start[j] - jobs[j].submit), jobs[j].run));
  std::sort(res->bslds.begin(), res->bslds.end());
  res->makespan = res->last_end - res->first_submit;
  res->cpu_seconds = world.cpu_seconds;
  res->utilization = res->makespan > 0 ? world.cpu_seconds / (static_cast<double>(world.procs) *
                                                               static_cast<double>(res->makespan))
                                       : 0;
  const GroupStats o = group_stats("", all, world, start, fifo);
  res->wait_mean = o.wait_mean;
  res->wait_p50 = o.wait_p50;
  res->wait_p95 = o.wait_p95;
  res->wait_p99 = o.wait_p99;
  res->wait_max = o.wait_max;
  res->bsld_mean = o.bsld_mean;
  res->bsld_p50 = o.bsld_p50;
  res->bsld_p95 = o.bsld_p95;
  res->bsld_p99 = o.bsld_p99;
  res->later_than_fifo = o.later_than_fifo;
  auto fill = [&](std::vector<GroupStats>* out, const std::vector<std::string>& names,
                  const std::vector<std::vector<uint32_t>>& members, const std::vector<double>& target) {
    for (size_t i = 0; i < names.size(); ++i) {
      GroupStats g = group_stats(names[i], members[i], world, start, fifo);
      g.delivered_share = world.cpu_seconds > 0 ? g.cpu_seconds / world.cpu_seconds : 0;
      g.target_share = target[i];
      out->push_back(std::move(g));
    }
  };
  fill(&res->accounts, world.accounts, by_acct, acct_target);
  fill(&res->users, world.users, by_user, user_target);
  for (size_t i = 0; i < world.partitions.size(); ++i)
    if (!by_part[i].empty())
      res->partitions.push_back(
          group_stats(world.partitions[i].empty() ? "(none)" : world.partitions[i], by_part[i], world, start, fifo));
  class_stats(world, start, fifo, true, &res->sizes);
  class_stats(world, start, fifo, false, &res->runtimes);
  res->jain = jain_delivered(res->accounts);
  user_fairness(res);
}

}  // namespace

PolicyResult run_policy(const SimWorld& world, const std::string& conf_path, size_t index, const std::string& name,
                        const std::string& tmpdir, const SimOptions& opt, const std::vector<int64_t>& fifo) {
  const auto wall0 = std::chrono::steady_clock::now();
  PolicyResult res;
  res.name = name;
  res.conf = conf_path;
  res.backfill = opt.backfill;

  // A fresh store holding the trace's accounts, and the conf pointed at it.
  const std::string db = tmpdir + "/policy" + std::to_string(index + 1) + ".db";
  make_store(world, db, tmpdir);
  Conf conf = Conf::load(conf_path);
  conf.add(ConfPair{"AccountingStorageLoc", db, "<simulate: fresh store>", 0});
  // Thrown away after the run: no sync, the journal in memory, one
  // connection (the per-pass commits cost a third less CPU; the same usage).
  conf.add(ConfPair{"MfprioStoreDurable", "no", "<simulate: fresh store>", 0});
  HostSettings settings = read_settings(conf, MFPRIO_PLUGINDIR, opt.plugin_dir);
  if (settings.cluster.cpus == 0) settings.cluster.cpus = world.procs;
  res.calc_period = conf_calc_period(conf);

  LogSink sink;
  sink.max_level = opt.verbose ? MFPRIO_LOG_DEBUG : MFPRIO_LOG_WARNING;
  Clock clock;
  clock.fixed = true;
  if (world.jobs.empty()) throw std::runtime_error(world.plan.file + ": no job to simulate");
  clock.now = world.jobs.front().submit;
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  plugin->init(conf, settings.cluster, &sink, &clock);
  const mfprio_ops_t& ops = plugin->ops();
  res.plugin_type = plugin->type();
  res.conf_names = parse_conf_names(plugin->info_json());
  res.pricing_op = ops.prioritize ? "prioritize" : ops.set_priority_batch ? "set_priority_batch" : "set_priority";

  PolicyRun run(world, opt, index, plugin.get(), clock, &res);
  run.resolve_records();
  std::vector<double> acct_target, user_target;
  {
    ShareTable table;
    const bool have = ops.share_table != nullptr;
    if (have) table = fetch_table(*plugin);
    res.target_rule = target_shares(have ? &table : nullptr, world.accounts, false, &acct_target);
    target_shares(have ? &table : nullptr, world.users, true, &user_target);
  }
  run.run();
  res.charged_usage = charged_usage(*plugin);
  plugin.reset();  // fini + dlclose before the next policy loads its family

  record_metrics(world, run.starts(), run.ends(), fifo, acct_target, user_target, &res);
  res.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  return res;
}

std::vector<int64_t> fifo_starts(const SimWorld& world, Backfill backfill) {
  if (world.jobs.empty()) return {};
  SimOptions opt;
  opt.backfill = backfill;
  PolicyResult res;
  res.calc_period = 300;  // passes change nothing without a plugin
  Clock clock;
  clock.fixed = true;
  PolicyRun run(world, opt, 0, nullptr, clock, &res);
  run.resolve_records();
  run.run();
  return run.starts();
}

}  // namespace mfprio::host
