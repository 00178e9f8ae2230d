// flux_priority.hpp - the `flux` family's job priority.
//
// Purpose: turn a Job and a Model into a 0..4294967295 priority, with an
// optional per-factor breakdown (Terms) for explanation views.
// Entry points: prepare_model() once per model, then check_job() (admission:
// refuses a queue the association may not use) and price() (any number of
// times, from any thread: it reads the model only).
// Modes (Settings::mode):
//   accounting: flux-accounting's mf_priority (flux-accounting mf_priority.cpp)
//     P = round(W_fs*fairshare + W_q*queue_priority + W_b*bank_priority
//               + W_u*(urgency - 16)), C round() (halves away from zero),
//     P < 0 -> 0.
//   design: the six normalised factors of Flux's "Job Priority Plugin" design
//     page, each 0..1 times its weight:
//     wait_time = min(1, (now - submit) / max_wait); fairshare (0.5 = exactly
//     served, from design_fairshare()); qos = qos priority / largest qos
//     priority; queue = queue priority / largest queue priority; job_size =
//     nodes / cluster nodes (or 1 - that when favouring small jobs); user =
//     the job's user factor, 1 by default, which a user can only lower.
//   Both modes, as flux-core's job manager forces it (flux-core priority-default.c):
//     urgency 0 (held) -> 0 and urgency 31 (expedite) -> 4294967295, before
//     anything else.
// Invariants: price() is pure (same model + job + now = same result) and
// allocates nothing when `terms` is null.  The result is clamped to
// 0..4294967295 and the clamp is reported (clamped_low / clamped_high).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "flux_settings.hpp"

#if defined(__SSE2__) && defined(__x86_64__)
#include <emmintrin.h>
#endif

namespace mfprio::flux {

inline constexpr int32_t kNone = -1;     // the job names no queue / qos
inline constexpr int32_t kUnknown = -2;  // it names one the model does not know
inline constexpr uint32_t kPriorityMax = 4294967295u;  // FLUX_JOB_PRIORITY_MAX
inline constexpr int kUrgencyHold = 0;
inline constexpr int kUrgencyDefault = 16;
inline constexpr int kUrgencyExpedite = 31;

struct Queue {
  std::string name;
  int64_t priority = 0;  // flux-accounting queue_table.priority (an int; may be negative)
};

struct Bank {
  std::string name;
  double priority = 0.0;  // bank_table.priority
};

struct Qos {  // design mode only
  std::string name;
  double priority = 0.0;  // >= 0 expected; normalised by the largest
};

// One user association (user, bank): what pricing reads about it.
struct Association {
  std::string user;
  std::string bank;
  int32_t bank_index = kNone;   // into Model::banks; kNone: bank priority 0
  double fairshare = 0.5;       // from flux_fairshare (flux-accounting's default 0.5)
  std::vector<int32_t> queues;  // permitted queue indices (any order)
};

struct Model {
  Settings settings;
  std::vector<Association> assocs;
  std::vector<Queue> queues;
  std::vector<Bank> banks;
  std::vector<Qos> qos;
  uint32_t cluster_nodes = 0;  // design job_size denominator; 0 -> factor 0 (large)
  // Filled by prepare_model(): design-mode normalisers.
  double max_queue_priority = 0.0;
  double max_qos_priority = 0.0;
};

// The job fields the family reads.  user+bank are the association index.
struct Job {
  uint64_t id = 0;
  int32_t assoc = kNone;   // into Model::assocs
  int32_t queue = kNone;   // into Model::queues, or kNone / kUnknown
  int32_t qos = kNone;     // into Model::qos, or kNone / kUnknown (design)
  int urgency = kUrgencyDefault;  // 0..31
  int64_t submit_time = 0;        // seconds (design wait_time)
  uint32_t nodes = 1;             // design job_size
  uint32_t cpus = 1;              // read by usage charging, not by pricing
  double user_factor = 1.0;       // design user factor, 0..1; values above 1 count as 1
};

// One line of an explanation.  Top-level terms have parent -1.
struct Term {
  std::string name;   // the family's vocabulary: fairshare, queue, bank, urgency /
                      // wait_time, fairshare, qos, queue, job_size, user
  std::string label;  // human words for the line
  double factor = 0.0;
  double weight = 0.0;
  double contribution = 0.0;  // factor * weight (what went into the sum)
  bool bound = false;         // the factor was capped, clamped or forced
  int parent = -1;
};

struct Result {
  double total_unclamped = 0.0;  // the weighted sum before rounding and clamping
  uint32_t priority = 0;
  bool clamped_low = false;   // the rounded sum was below 0
  bool clamped_high = false;  // the rounded sum was above 4294967295
};

// ---- the accounting formula, one function per number ----------------------
// price() (by name, explained or not) and the batch's tables and loop
// (flux_policy.cpp) form every term and the sum only through these, so the
// doubles and the priority are the same on every path.
// C round() (halves away from zero) without the libm call: exact, as the
// fraction x - trunc(x) of a double below 2^52 is exact; larger ones, the
// infinities and NaN are their own rounding.
inline double round_half_away(double x) {
  if (!(std::fabs(x) < 4503599627370496.0)) return x;
  const double t = static_cast<double>(static_cast<int64_t>(x));
  const double f = x - t;
  // Without a branch on the fraction (random from record to record).
  return t + static_cast<double>(f >= 0.5) - static_cast<double>(f <= -0.5);
}

// x truncated toward zero; INT64_MIN when it does not fit (NaN too), as
// x86's conversion gives, without C++'s undefined behaviour.
inline int64_t truncate(double x) {
#if defined(__SSE2__) && defined(__x86_64__)
  return _mm_cvttsd_si64(_mm_set_sd(x));
#else
  return x >= -9223372036854775808.0 && x < 9223372036854775808.0 ? static_cast<int64_t>(x) : INT64_MIN;
#endif
}

// A weighted sum's priority: rounded (C round()), clamped to 0..kPriorityMax
// (*low: below 0 or NaN; *high: above), by masks (the compiler makes
// branches of the selects): the truncation is the rounded value when it is
// neither low nor high.  Both modes' one finish.
inline uint32_t finish_sum(double sum, bool* low, bool* high) {
  const double r = round_half_away(sum);
  *low = !(r >= 0.0);
  *high = r > static_cast<double>(kPriorityMax);
  return (static_cast<uint32_t>(truncate(r)) & -static_cast<uint32_t>(!*low)) | -static_cast<uint32_t>(*high);
}

// W_fs x the association's fair share (0 without one).
inline double fairshare_term(const Weights& w, const Association* a) {
  return static_cast<double>(w.fairshare) * (a ? a->fairshare : 0.0);
}
// W_q x a queue factor (the queue's priority, or 0: none, unknown, refused).
inline double queue_term(const Weights& w, double q) { return static_cast<double>(w.queue) * q; }
// The association's bank priority (0: none or out of range).
inline double bank_factor(const Model& m, const Association* a) {
  if (a && a->bank_index >= 0 && static_cast<size_t>(a->bank_index) < m.banks.size())
    return m.banks[static_cast<size_t>(a->bank_index)].priority;
  return 0.0;
}
inline double bank_term(const Weights& w, double b) { return static_cast<double>(w.bank) * b; }
// W_u x (urgency - 16).
inline double urgency_term(const Weights& w, int urgency) {
  return static_cast<double>(w.urgency) * static_cast<double>(urgency - kUrgencyDefault);
}
// The sum in flux-accounting's order (fair share, queue, bank, urgency), finished.
inline uint32_t accounting_total(double fs_c, double q_c, double b_c, double u_c, bool* low, bool* high) {
  return finish_sum(fs_c + q_c + b_c + u_c, low, high);
}

// Computes the design-mode normalisers.  Call after filling the model.
void prepare_model(Model* m);

// Admission check, as flux-accounting's job.validate refuses a job: the
// association must exist, urgency must be 0..31, and a queue flux-accounting
// knows must be in the association's permitted list (flux-accounting's
// INVALID_QUEUE).  False with a message naming job, user, bank and queue.
bool check_job(const Model& m, const Job& job, std::string* why);

// The priority of `job` at time `now`.  `terms` (may be null) is cleared and
// filled with the factor lines.  Bad indices are handled (treated as "none"),
// never trusted: run check_job() at admission to refuse them.
Result price(const Model& m, const Job& job, int64_t now, std::vector<Term>* terms);

// Lookups by name for the code that builds jobs (linear; not for hot paths).
int32_t find_association(const Model& m, std::string_view user, std::string_view bank);
int32_t find_queue(const Model& m, std::string_view name);  // kNone for "", kUnknown if absent
int32_t find_qos(const Model& m, std::string_view name);    // likewise

}  // namespace mfprio::flux
