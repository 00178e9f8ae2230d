// runtime.cpp - see runtime.hpp.
#include "runtime.hpp"

#include <algorithm>
#include <ctime>
#include <stdexcept>

#include <unistd.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "accounts.hpp"
#include "conf.hpp"
#include "slurm_conf.hpp"
#include "store_loc.hpp"
#include "store.hpp"
#include "timestr.hpp"
#include "tres.hpp"

namespace mfprio {

HostContext host_context(const mfprio_host_t& host, const char* type) {
  HostContext h;
  h.type = type;
  if (host.conf_count && !host.conf) throw std::invalid_argument("conf_count is set but conf is NULL");
  if (host.cluster_tres_count && !host.cluster_tres)
    throw std::invalid_argument("cluster_tres_count is set but cluster_tres is NULL");
  if (host.conf_count > MFPRIO_MAX_CONF)
    throw std::invalid_argument("conf_count " + std::to_string(host.conf_count) + " is above " +
                                std::to_string(MFPRIO_MAX_CONF));
  if (host.cluster_tres_count > MFPRIO_MAX_LIST)
    throw std::invalid_argument("cluster_tres_count " + std::to_string(host.cluster_tres_count) + " is above " +
                                std::to_string(MFPRIO_MAX_LIST));
  h.conf.reserve(host.conf_count);
  for (size_t i = 0; i < host.conf_count; ++i) {
    const mfprio_kv_t& kv = host.conf[i];
    if (!kv.key || !kv.value)
      throw std::invalid_argument("conf pair " + std::to_string(i) + ": " + (kv.key ? "value" : "key") + " is NULL");
    ConfPair p;
    p.key = kv.key;
    p.value = kv.value;
    p.file = kv.file ? kv.file : "(conf)";
    p.line = kv.line;
    h.conf.push_back(std::move(p));
  }
  h.cluster.nodes = host.cluster_nodes;
  h.cluster.cpus = host.cluster_cpus;
  h.cluster.mem_mb = static_cast<double>(host.cluster_mem_mb);
  for (size_t i = 0; i < host.cluster_tres_count; ++i) {
    const mfprio_tres_t& t = host.cluster_tres[i];
    if (!t.name) throw std::invalid_argument("cluster TRES " + std::to_string(i) + ": name is NULL");
    if (!(t.count >= 0) || t.count > 1e18)
      throw std::invalid_argument("cluster TRES '" + std::string(t.name) + "': bad count");
    h.cluster.extra.emplace_back(tres_lower(t.name), t.count);
  }
  h.log_fn = host.log;
  h.log_arg = host.log_arg;
  h.clock_fn = host.clock;
  h.clock_arg = host.clock_arg;
  return h;
}


Runtime::Runtime(std::unique_ptr<Policy> policy, const mfprio_host_t& host)
    : host_(host_context(host, policy->type())), policy_(std::move(policy)) {
  // Every error of the conf in one message: the checks Slurm makes at start
  // (slurm_conf.hpp: Priority* typos, TRES names), the runtime's own key,
  // then the family's.
  ConfErrors errors;
  check_slurm_keys(host_.conf, &errors);
  max_gap_ = 366 * 86400;
  for (const ConfPair& c : host_.conf) {
    if (!iequals(c.key, "PriorityMaxDecayGap")) continue;
    int64_t v = 0;
    std::string why;
    if (!parse_time_string(c.value, &v, &why) || v < 0)
      errors.add(c.file + ":" + std::to_string(c.line) + ": PriorityMaxDecayGap: " +
                 (why.empty() ? "must not be negative" : why));
    else
      max_gap_ = v == kTimeInfinite ? 0 : v;
  }
  try {
    policy_->configure(host_);
  } catch (const ConfigError& e) {
    errors.add(e.what());
  }
  errors.sort_by_position();
  errors.throw_if_any();
  // The store the family names is created at init when missing (a real
  // controller's first start), unless the host said MfprioCreateStore=no
  // (mfprio-host's views): then a missing store is an error.
  for (const ConfPair& c : host_.conf)
    if (iequals(c.key, "MfprioCreateStore")) {
      create_store_ = !(iequals(c.value, "no") || c.value == "0");
      if (c.line == 0) conf_given_ = c.file;  // a host's pair: its file is the conf it was given
    } else if (iequals(c.key, "MfprioStoreDurable")) {  // simulate's throw-away stores say no
      durable_store_ = !(iequals(c.value, "no") || c.value == "0");
    }
}

Runtime::~Runtime() = default;

namespace {
// A load allocates and frees a few times the state it keeps (the store's
// rows, sort orders, scratch lists); the freed pages would stay resident in
// the heap for the daemon's life.  Give them back to the system.
void release_load_scratch() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}
}  // namespace

void Runtime::open() {
  const std::string path = policy_->store_path();
  if (!path.empty()) {
    acct::OpenOptions opts;
    opts.create = create_store_;
    opts.durable = durable_store_;
    // A view (MfprioCreateStore=no) only reads: read-only, so it works on a
    // read-only file system or a store it may not write.
    opts.read_only = !create_store_;
    opts.cluster = store_cluster(host_.conf);  // PostgreSQL: the cluster's schema (store.hpp)
    if (!create_store_ && !is_server_store(path) && ::access(path.c_str(), F_OK) != 0) {
      // The conf the host was given (an Include's file would name another store).
      const std::string conf = !conf_given_.empty() ? conf_given_
                               : host_.conf.empty() ? std::string("<slurm.conf>")
                                                    : host_.conf.front().file;
      throw acct::StoreError("no accounting store at " + path + " (views never create one): make it with '" +
                             "mfprio-acct --conf " + conf + " import <accounts.json>' (or run decay once)");
    }
    store_ = acct::Store::open(path, opts);
  }
  const StoreView view(store_.get());
  publish(policy_->load(store_ ? &view : nullptr, next_layout_id()));
  release_load_scratch();
  if (store_)
    host_.log(MFPRIO_LOG_INFO, "loaded " + std::to_string(current()->associations) +
                                   " associations from " + store_->path());
}

void Runtime::publish(std::shared_ptr<State> s) {
  // The one place the publish counter moves: +1 per publish, whoever built
  // the state (a load, a converge, a pass), so plugin_stats' generation
  // never goes back and never skips.
  s->publish_seq = ++published_;
  state_.store(std::move(s), std::memory_order_release);
}

bool Runtime::converge(std::string* why) {
  try {
    const StoreView view(store_.get());
    publish(policy_->load(store_ ? &view : nullptr, next_layout_id()));
    release_load_scratch();
    stale_ = false;
    return true;
  } catch (const std::exception& e) {
    stale_ = true;
    if (why) *why = std::string("cannot rebuild from the store: ") + e.what();
    return false;
  }
}

void Runtime::count_clamp(uint32_t clamp, uint64_t job_id) {
  if (clamp == MFPRIO_CLAMP_HIGH) {
    if (clamped_high.fetch_add(1, std::memory_order_relaxed) == 0)
      host_.log(MFPRIO_LOG_WARNING, "job " + std::to_string(job_id) + ": priority clamped to " +
                                        policy_->clamp_high_text() + " (" +
                                        policy_->clamp_reason() + "; later clamps are counted per decay pass)");
  } else if (clamp == MFPRIO_CLAMP_LOW) {
    clamped_low.fetch_add(1, std::memory_order_relaxed);
  }
}

void Runtime::count_clamps(const ClampCounts& c) {
  if (c.high) {
    if (clamped_high.fetch_add(c.high, std::memory_order_relaxed) == 0)
      host_.log(MFPRIO_LOG_WARNING, std::string("a batch priority was clamped to ") +
                                        policy_->clamp_high_text() + " (" +
                                        policy_->clamp_reason() + "; later clamps are counted per decay pass)");
  }
  if (c.low) clamped_low.fetch_add(c.low, std::memory_order_relaxed);
}

void Runtime::summarize_clamps() {
  const uint64_t high = clamped_high.load(std::memory_order_relaxed);
  if (high != clamped_high_logged_) {
    host_.log(MFPRIO_LOG_WARNING, std::to_string(high - clamped_high_logged_) + " priorities clamped to " +
                                      policy_->clamp_high_text() + " since the previous pass (" +
                                      std::to_string(high) + " in all)");
    clamped_high_logged_ = high;
  }
}

int Runtime::decay(int64_t now, const mfprio_job_t* running, size_t count, std::string* why) {
  if (stale_ && !converge(why)) {
    *why = "decay: refused: the last pass committed but " + *why;
    return MFPRIO_ESTORE;
  }
  std::shared_ptr<const State> cur = current();
  if (cur->last_decay > 0 && now < cur->last_decay) {
    *why = "decay: now (" + std::to_string(now) + ") is before the last decay pass (" +
           std::to_string(cur->last_decay) + ")";
    return MFPRIO_EINVAL;
  }
  if (max_gap_ > 0 && cur->last_decay > 0 && now - cur->last_decay > max_gap_) {
    *why = "decay: now (" + std::to_string(now) + ") is " + std::to_string((now - cur->last_decay) / 86400) +
           " days after the last decay pass (" + std::to_string(cur->last_decay) +
           "): more than PriorityMaxDecayGap allows; refused (a clock that far ahead would decay all "
           "usage away).  If the gap is real, raise PriorityMaxDecayGap";
    return MFPRIO_EINVAL;
  }
  // A running record that starts after this pass (a node's clock a few
  // minutes ahead of the controller's) has nothing to charge yet: it is left
  // out of this pass, named in the log, and charged by the first pass that
  // reaches its start; the others are charged as usual (it used to fail the
  // whole pass, for everybody, at every pass).
  std::vector<mfprio_job_t> kept;
  auto ahead = [now](const mfprio_job_t& j) { return j.state == MFPRIO_JOB_RUNNING && j.start_time > now; };
  if (count > 0 && std::any_of(running, running + count, ahead)) {
    for (size_t i = 0; i < count; ++i) {
      if (!ahead(running[i])) {
        kept.push_back(running[i]);
        continue;
      }
      host_.log(MFPRIO_LOG_WARNING, "decay: job " + std::to_string(running[i].job_id) + " starts at " +
                                        std::to_string(running[i].start_time) + ", after this pass (" +
                                        std::to_string(now) + "): charged from the first pass past its start");
    }
    running = kept.data();
    count = kept.size();
  }
  UsagePass pass;
  pass.now = now;
  pass.jobs = running;
  pass.count = count;
  pass.until = &pass.now;
  pass.until_stride = 0;
  return usage_pass(*cur, pass, why);
}

int Runtime::job_end(const mfprio_job_t* jobs, const int64_t* end_times, size_t count, std::string* why) {
  if (stale_ && !converge(why)) {
    *why = "job_end: refused: the last pass committed but " + *why;
    return MFPRIO_ESTORE;
  }
  std::shared_ptr<const State> cur = current();
  // An end time far past the last pass (or the host's clock before the
  // first) is a wrong clock, as for decay: refused before anything is charged
  // (the families split charges into usage windows up to the end time).
  if (max_gap_ > 0) {
    const int64_t ref = cur->last_decay > 0 ? cur->last_decay : host_.now();
    for (size_t i = 0; i < count; ++i)
      if (end_times[i] - ref > max_gap_) {
        *why = "job_end: job " + std::to_string(jobs[i].job_id) + ": end time " + std::to_string(end_times[i]) +
               " is " + std::to_string((end_times[i] - ref) / 86400) + " days after " +
               (cur->last_decay > 0 ? "the last decay pass" : "the host's clock") +
               ": more than PriorityMaxDecayGap allows; refused";
        return MFPRIO_EINVAL;
      }
  }
  // Charges never run past the host's clock (or the last pass, whichever is
  // later): an end time after it is charged up to it, with a warning.
  const int64_t clock = std::max(host_.now(), cur->last_decay);
  std::vector<int64_t> clamped;
  for (size_t i = 0; i < count; ++i)
    if (end_times[i] > clock) {
      if (clamped.empty()) clamped.assign(end_times, end_times + count);
      clamped[i] = clock;
      host_.log(MFPRIO_LOG_WARNING, "job_end: job " + std::to_string(jobs[i].job_id) + ": end time " +
                                        std::to_string(end_times[i]) + " is after the host's clock (" +
                                        std::to_string(clock) + "): charged up to the clock");
    }
  if (!clamped.empty()) end_times = clamped.data();
  UsagePass pass;
  pass.ended = true;
  pass.now = clock;
  pass.jobs = jobs;
  pass.count = count;
  pass.until = end_times;
  pass.until_stride = 1;
  return usage_pass(*cur, pass, why);
}

int Runtime::set_accounts(const mfprio_accounts_t& tree, std::string* why) {
  if (!store_) {
    *why = "set_accounts: " + host_.type + " keeps no accounting store";
    return MFPRIO_ENOTSUP;
  }
  HostAccounts want;
  if (int rc = read_accounts(tree, &want, why)) return rc;
  acct::AdminChanges write;
  try {
    acct::LoadOptions opts;
    opts.tres_usage = false;
    write = diff_accounts(store_->load(opts), want);
    if (write.empty() && !stale_) return MFPRIO_OK;  // the same tree: nothing written, nothing published
    if (!write.empty()) store_->apply_admin(write);  // one transaction: all of it or nothing
  } catch (const acct::StoreError& e) {
    *why = std::string("set_accounts: ") + e.what();
    return MFPRIO_ESTORE;
  }
  const size_t gone = write.delete_accounts.size() + write.delete_assocs.size() + write.delete_users.size();
  host_.log(MFPRIO_LOG_INFO, "set_accounts: the host's tree written to " + store_->path() + " (" +
                                 std::to_string(write.accounts.size()) + " accounts and " +
                                 std::to_string(write.assocs.size()) + " associations added or changed, " +
                                 std::to_string(gone) + " accounts, associations or users deleted)");
  if (!converge(why)) {
    *why = "set_accounts: the tree was written but " + *why;
    return MFPRIO_ESTORE;
  }
  return MFPRIO_OK;
}

// The usage pass, written once for every family (runtime.hpp).
int Runtime::usage_pass(const State& cur, const UsagePass& pass, std::string* why) {
  const char* what = pass.ended ? "job_end: " : "decay: ";
  UsagePlan plan;
  const bool keeps = policy_->plan_pass(cur, pass, &plan);
  // The charges: the records a pass charges (running ones; every job end),
  // each checked, then priced by the family's rule.
  if (keeps) {
    for (size_t i = 0; i < pass.count; ++i) {
      const mfprio_job_t& j = pass.jobs[i];
      if (!pass.ended && j.state != MFPRIO_JOB_RUNNING) continue;  // nothing to charge yet
      const int64_t until = pass.until_of(i);
      if (int rc = check_charge(j, until, pass.ended, why)) return rc;
      std::string miss;
      const int rc = policy_->charge_job(cur, j, until, pass.ended, &plan, &miss);
      if (rc == MFPRIO_ENOENT) {  // the vanished-association rule: one warning, the pass goes on
        host_.log(MFPRIO_LOG_WARNING, what + miss + ": its association is gone; this usage is not charged");
        continue;
      }
      if (rc != MFPRIO_OK) {
        *why = miss;
        return rc;
      }
    }
  }
  // One transaction: scalar and windowed rows, the pass's clock.
  acct::PassResult res;
  bool committed = false;
  if (keeps && store_) {
    try {
      res = store_->apply_pass(plan);
    } catch (const acct::StoreError& e) {
      *why = what + std::string(e.what());
      return MFPRIO_ESTORE;
    }
    committed = true;
    report_dropped(plan, res, what);
    const size_t charges = (plan.scalar ? plan.scalar->charges.size() : 0) +
                           (plan.windows ? plan.windows->charges.size() : 0);
    jobs_charged += charges - res.scalar.dropped - res.windows.dropped_at.size();
    if (!pass.ended) summarize_clamps();
  }
  // What follows the commit: the family's next state, or a rebuild from the
  // store when it cannot say (an admin's edit) or a step throws.
  std::shared_ptr<State> next;
  bool reload = false;
  try {
    const StoreView view(store_.get());
    next = policy_->after_pass(cur, pass, plan, res, store_ ? &view : nullptr, &reload);
    if (committed && !pass.ended && store_->changed_by_others()) reload = true;
  } catch (const std::exception& e) {
    if (!committed) throw;  // nothing changed: the edge reports it
    *why = what + std::string(e.what());
    std::string conv;
    if (!converge(&conv)) *why += "; " + conv;
    return MFPRIO_EINTERNAL;
  }
  if (reload || (!next && !pass.ended)) {
    if (!converge(why)) return MFPRIO_ESTORE;
  } else if (next) {
    publish(std::move(next));
  }
  return MFPRIO_OK;
}

// The charges the store found no association for (deleted while the job
// ran, found gone inside the pass): one warning each, naming the job.
void Runtime::report_dropped(const UsagePlan& plan, const acct::PassResult& res, const char* what) const {
  auto warn = [&](uint64_t job, const std::string& user, const std::string& account, const std::string& part) {
    host_.log(MFPRIO_LOG_WARNING, what + ("job " + std::to_string(job) + ": association user '" + user +
                                          "' account '" + account + "'" +
                                          (part.empty() ? "" : " partition '" + part + "'") +
                                          " is no longer in the store: its association is gone; this usage "
                                          "is not charged"));
  };
  if (plan.scalar && res.scalar.dropped)
    for (size_t i = 0; i < plan.scalar->charges.size() && i < res.scalar.assoc_ids.size(); ++i)
      if (res.scalar.assoc_ids[i] == 0) {
        const acct::Charge& c = plan.scalar->charges[i];
        warn(c.job_id, c.user, c.account, c.partition);
      }
  if (plan.windows)
    for (size_t i : res.windows.dropped_at) {
      const acct::WindowCharge& c = plan.windows->charges[i];
      warn(c.job_id, c.owner_user, c.owner_account, c.owner_partition);
    }
}

}  // namespace mfprio
