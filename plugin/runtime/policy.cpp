// policy.cpp - the defaults of Policy and the small helpers of policy.hpp.
#include "policy.hpp"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>

namespace mfprio {

int64_t HostContext::now() const {
  return clock_fn ? clock_fn(clock_arg) : static_cast<int64_t>(std::time(nullptr));
}

void HostContext::log(int level, const std::string& msg) const {
  if (log_fn) log_fn(log_arg, level, (type + ": " + msg).c_str());
}

uint32_t next_layout_id() {
  static std::atomic<uint32_t> next{[] {
    const uint64_t ns = static_cast<uint64_t>(
        std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count());
    return static_cast<uint32_t>((ns ^ (ns >> 32)) * 2246822519u) ^ (static_cast<uint32_t>(getpid()) << 12);
  }()};
  uint32_t v = next.fetch_add(1, std::memory_order_relaxed);
  if (v == 0) v = next.fetch_add(1, std::memory_order_relaxed);
  return v;
}

namespace {
std::string job_label(const mfprio_job_t& job) { return "job " + std::to_string(job.job_id); }
int failed(std::string* why, int status, std::string msg) {
  *why = std::move(msg);
  return status;
}

template <size_t N>
void put(char (&dst)[N], const char* src) {
  std::snprintf(dst, N, "%s", src ? src : "");
}

// The one record check: every rule a record must keep, in order; the first
// one broken gives the status, and its message when `why` is not null (no
// message is built otherwise).  `as_job`: a record to price (its owner and
// the permission rule too), else one to charge (the shape only).
// check_record, check_job and job_acceptable are this function; a family's
// fast path may pre-test records (fast_record_head_ok) only to send any
// record it doubts here, through price_checked.
int record_fault(const mfprio_job_t* job, const char* where, std::string* why, bool as_job) {
  if (!job) return why ? failed(why, MFPRIO_EINVAL, std::string(where) + ": job is NULL") : MFPRIO_EINVAL;
  if (job->struct_size < sizeof(mfprio_job_t))
    return why ? failed(why, MFPRIO_EINVAL,
                        job_label(*job) + ": struct_size " + std::to_string(job->struct_size) + " is smaller than " +
                            std::to_string(sizeof(mfprio_job_t)) + " (a host built for another ABI?)")
               : MFPRIO_EINVAL;
  if (job->tres_count > MFPRIO_MAX_LIST || job->attr_count > MFPRIO_MAX_LIST)
    return why ? failed(why, MFPRIO_EINVAL,
                        std::string(where) + ": " + job_label(*job) + ": tres_count " +
                            std::to_string(job->tres_count) + " or attr_count " + std::to_string(job->attr_count) +
                            " is above " + std::to_string(MFPRIO_MAX_LIST))
               : MFPRIO_EINVAL;
  if (job->tres_count && !job->tres)
    return why ? failed(why, MFPRIO_EINVAL,
                        job_label(*job) + ": tres_count is " + std::to_string(job->tres_count) + " but tres is NULL")
               : MFPRIO_EINVAL;
  if (job->attr_count && !job->attrs)
    return why ? failed(why, MFPRIO_EINVAL,
                        job_label(*job) + ": attr_count is " + std::to_string(job->attr_count) + " but attrs is NULL")
               : MFPRIO_EINVAL;
  for (uint32_t i = 0; i < job->tres_count; ++i) {
    const double c = job->tres[i].count;
    if (!(c >= 0) || std::isinf(c))
      return why ? failed(why, MFPRIO_EINVAL,
                          job_label(*job) + ": TRES '" + (job->tres[i].name ? job->tres[i].name : "(null)") +
                              "' has a negative, infinite or NaN count")
                 : MFPRIO_EINVAL;
  }
  if (!time_ok(job->submit_time) || !time_ok(job->eligible_time) || !time_ok(job->start_time) ||
      !time_ok(job->deadline))
    return why ? failed(why, MFPRIO_EINVAL,
                        job_label(*job) + ": a time (submit " + std::to_string(job->submit_time) + ", eligible " +
                            std::to_string(job->eligible_time) + ", start " + std::to_string(job->start_time) +
                            ", deadline " + std::to_string(job->deadline) + ") is outside 0.." +
                            std::to_string(MFPRIO_TIME_MAX))
               : MFPRIO_EINVAL;
  if ((job->flags & MFPRIO_JOBF_URGENCY) && job->urgency > MFPRIO_URGENCY_EXPEDITE)
    return why ? failed(why, MFPRIO_EINVAL,
                        job_label(*job) + ": urgency " + std::to_string(job->urgency) + " is outside 0..31")
               : MFPRIO_EINVAL;
  if (!as_job) return MFPRIO_OK;
  // Every host's job has an owner; the families that look users up (all but
  // basic) would otherwise price a NULL user as some default.
  if (!job->user || !*job->user) return why ? failed(why, MFPRIO_EINVAL, job_label(*job) + ": no user") : MFPRIO_EINVAL;
  // Ordinary users may only lower their own priority.
  if (job->nice < 0 && !(job->flags & MFPRIO_JOBF_NICE_ADMIN))
    return why ? failed(why, MFPRIO_EPERM,
                        job_label(*job) + ": nice " + std::to_string(job->nice) +
                            " would raise the priority; only an admin may set a negative nice")
               : MFPRIO_EPERM;
  if (job->user_priority > 0 && !(job->flags & MFPRIO_JOBF_USER_PRIORITY_ADMIN))
    return why ? failed(why, MFPRIO_EPERM,
                        job_label(*job) + ": user priority " + std::to_string(job->user_priority) +
                            " would raise the priority; only an admin may set a positive one")
               : MFPRIO_EPERM;
  return MFPRIO_OK;
}

}  // namespace

int check_record(const mfprio_job_t* job, const char* where, std::string* why) {
  return record_fault(job, where, why, /*as_job=*/false);
}

int check_job(const mfprio_job_t* job, const char* where, std::string* why) {
  return record_fault(job, where, why, /*as_job=*/true);
}

bool job_acceptable(const mfprio_job_t& job) { return record_fault(&job, nullptr, nullptr, true) == MFPRIO_OK; }

int check_charge(const mfprio_job_t& job, int64_t until, bool ended, std::string* why) {
  if (job.struct_size < sizeof(mfprio_job_t))
    return failed(why, MFPRIO_EINVAL, job_label(job) + ": struct_size too small");
  if (job.start_time <= 0 || job.start_time > until)
    return failed(why, MFPRIO_EINVAL,
                  job_label(job) + ": " + (ended ? "finished" : "running") + " job without a valid start time");
  if (!job.user || !*job.user) return failed(why, MFPRIO_EINVAL, job_label(job) + ": no user");
  return MFPRIO_OK;
}

int Explain::term(const char* name, const char* label, double factor, double weight,
                  double contribution, int parent, uint32_t flags, uint32_t width, const char* text) {
  const size_t i = count_++;
  if (i >= capacity_) return static_cast<int>(i);
  mfprio_term_t& t = out_->terms[i];
  std::memset(&t, 0, sizeof t);
  put(t.name, name);
  put(t.label, label);
  t.factor = factor;
  t.weight = weight;
  t.contribution = contribution;
  t.parent = parent;
  t.flags = flags;
  t.width = width;
  put(t.text, text);
  out_->term_count = static_cast<uint32_t>(count_ < capacity_ ? count_ : capacity_);
  return static_cast<int>(i);
}

void Explain::resolved(const std::string& account, const std::string& partition, const std::string& qos) {
  put(out_->account_name, account.c_str());
  put(out_->partition_name, partition.c_str());
  put(out_->qos_name, qos.c_str());
}

void Explain::total(double unclamped, uint32_t priority, uint32_t clamp) {
  out_->unclamped = unclamped;
  out_->priority = priority;
  out_->clamped = clamp;
}

void ShareView::column(const char* name, const char* label, int32_t decimals, uint32_t width,
                       uint32_t flags) {
  mfprio_share_column_t c;
  std::memset(&c, 0, sizeof c);
  put(c.name, name);
  put(c.label, label);
  c.decimals = decimals;
  c.width = width;
  c.flags = flags;
  columns.push_back(c);
}

int Policy::resolve(const State&, const mfprio_job_t&, mfprio_handle_t* h, std::string*) const {
  *h = mfprio_handle_t{};
  return MFPRIO_OK;
}

int Policy::price_checked(const State& state, const PassState* pass, const mfprio_job_t& job, int64_t now,
                          uint32_t* priority, ClampCounts* clamps, BatchError* err) const {
  uint32_t clamp = MFPRIO_CLAMP_NONE;
  std::string why;
  // The same checks as set_priority's (the edge checks one job before
  // price(); a batch reaches here unchecked): a record with tres = NULL
  // and a count, a short struct_size, ... is refused, never read.
  // job_acceptable is check_job's rule without the message.
  int rc = job_acceptable(job) ? MFPRIO_OK : check_job(&job, "set_priority_batch", &why);
  if (rc == MFPRIO_OK) rc = price(state, pass, job, now, nullptr, priority, &clamp, &why);
  if (rc != MFPRIO_OK) {
    *priority = 0;
    err->note(rc, why);
  } else {
    clamps->add(clamp);
  }
  return rc;
}

void Policy::price_batch(const State& state, const PassState* pass, const mfprio_job_t* jobs,
                         size_t count, int64_t now, uint32_t* priorities, int* statuses,
                         ClampCounts* clamps, BatchError* err) const {
  for (size_t i = 0; i < count; ++i) {
    const int rc = price_checked(state, pass, jobs[i], now, &priorities[i], clamps, err);
    if (statuses) statuses[i] = rc;
  }
}

std::shared_ptr<const PassState> Policy::price_queue(const State& state, const mfprio_job_t* pending,
                                                     size_t pending_count, const mfprio_job_t*, size_t,
                                                     int64_t now, uint32_t* priorities, int* statuses,
                                                     ClampCounts* clamps, BatchError* err) const {
  price_batch(state, nullptr, pending, pending_count, now, priorities, statuses, clamps, err);
  return nullptr;
}

bool Policy::plan_pass(const State&, const UsagePass&, UsagePlan*) const { return false; }

int Policy::charge_job(const State&, const mfprio_job_t&, int64_t, bool, UsagePlan*, std::string*) const {
  return MFPRIO_OK;
}

std::shared_ptr<State> Policy::after_pass(const State&, const UsagePass&, const UsagePlan&, const acct::PassResult&,
                                          const StoreView*, bool*) {
  return nullptr;
}

acct::StoreData StoreView::load(const acct::LoadOptions& opts) const { return store_->load(opts); }
acct::TreeData StoreView::load_tree() const { return store_->load_tree(); }
std::vector<acct::WindowRow> StoreView::load_windows(const std::string& family) const {
  return store_->load_windows(family);
}
acct::DecayState StoreView::decay_state() const { return store_->decay_state(); }

void Policy::share_view(const State&, ShareView*) const {}

void Policy::info(const State&, InfoView*) const {}

}  // namespace mfprio
