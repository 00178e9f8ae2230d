// ge_urgency.cpp - job urgency (see ge_urgency.hpp, sge_urgency.c).
#include "ge_urgency.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>

namespace mfprio::gridengine {

uint32_t urgency_slot_count(const Job& job) {
  if (!job.pe || job.pe->ranges.empty()) return 1;
  const PeRequest& pe = *job.pe;
  // A single fixed count: that number.
  if (pe.ranges.size() == 1 && pe.ranges[0].min == pe.ranges[0].max) return pe.ranges[0].min;
  const uint32_t cap = pe.pe_slots > 0 ? pe.pe_slots : kInfiniteSlots;
  const std::string& us = pe.urgency_slots;
  if (us == "min") return pe.ranges.front().min;
  if (us == "max") {
    uint32_t m = pe.ranges.back().max;
    return m == kInfiniteSlots ? cap : m;
  }
  if (us == "avg") {
    // Mean of every id the ranges allow, ids above the PE's slots left out.
    // Each range's ids in closed form (an open range "1-" allows 4 billion:
    // summing them one by one cost seconds per job per pass), exact in 128 bits.
    unsigned __int128 sum = 0;
    uint64_t n = 0;
    for (const auto& r : pe.ranges) {
      const uint64_t hi = std::min(r.max, cap);
      if (hi < r.min) continue;
      const uint64_t count = hi - r.min + 1;
      sum += static_cast<unsigned __int128>(r.min + hi) * count / 2;  // (lo + hi) * count is even
      n += count;
    }
    if (n == 0) return pe.ranges.front().min;
    return static_cast<uint32_t>(static_cast<double>(sum) / static_cast<double>(n));
  }
  char* end = nullptr;
  unsigned long v = std::strtoul(us.c_str(), &end, 10);
  if (end != us.c_str() && *end == '\0' && v > 0) return static_cast<uint32_t>(v);
  return pe.ranges.front().min;  // unreadable setting: Grid Engine falls back to min
}

namespace {
// Urgency terms stay finite: a request of 1e307 (or a sum of large ones)
// would make the largest urgency infinite and every other job's normalized
// urgency 0 (and its own NaN).  Kept within +-kMaxUrgency, the normalization
// (v - lo) / (hi - lo) stays finite.
constexpr double kMaxUrgency = 1e300;
double bounded(double v) { return std::isnan(v) ? 0.0 : std::clamp(v, -kMaxUrgency, kMaxUrgency); }
}  // namespace

bool static_urgency(const Job& job, const ComplexTable& complexes, StaticUrgency* out, std::string* why) {
  StaticUrgency p;
  p.slots = urgency_slot_count(job);
  const double S = static_cast<double>(p.slots);
  // Implicit slots request: one slot per slot, times the slots complex urgency.
  if (const Complex* slots = complexes.find("slots")) {
    p.rrcontr = bounded(p.rrcontr + 1.0 * static_cast<double>(slots->urgency) * S);
  }
  for (const auto& [name, value] : job.hard_requests) {
    const Complex* c = complexes.find(name);
    if (c == nullptr) {
      *why = "job " + std::to_string(job.id) + ": request '" + name + "' names no complex";
      return false;
    }
    if (c->name == "slots") continue;
    if (complex_is_numeric(c->type)) {
      double v = value.number;
      if (!value.is_number && !parse_ge_value(c->type, value.text, &v)) {
        *why = "job " + std::to_string(job.id) + ": request '" + name + "=" + value.text +
               "' is not a " + complex_type_name(c->type) + " value";
        return false;
      }
      if (!std::isfinite(v)) {
        *why = "job " + std::to_string(job.id) + ": request '" + name + "' is not a finite number";
        return false;
      }
      p.rrcontr = bounded(p.rrcontr + v * static_cast<double>(c->urgency) * S);
    } else {
      p.rrcontr = bounded(p.rrcontr + static_cast<double>(c->urgency));
    }
  }
  *out = p;
  return true;
}

UrgencyParts timed_urgency(const StaticUrgency& s, const SchedConf& conf, int64_t submit_time, bool has_deadline,
                           int64_t deadline, int64_t now) {
  UrgencyParts p;
  p.slots = s.slots;
  p.rrcontr = s.rrcontr;
  p.wtcontr = bounded(conf.weight_waiting_time * static_cast<double>(now - submit_time));
  if (has_deadline) {
    const int64_t left = deadline - now;
    p.deadline_bound = left <= 1;
    p.dlcontr = bounded(conf.weight_deadline / static_cast<double>(std::max<int64_t>(left, 1)));
  }
  p.urg = bounded(p.rrcontr + p.wtcontr + p.dlcontr);
  return p;
}

bool job_urgency(const Job& job, const Model& model, int64_t now, UrgencyParts* out,
                 std::string* why) {
  StaticUrgency s;
  if (!static_urgency(job, model.complexes, &s, why)) return false;
  *out = timed_urgency(s, model.conf, job.submit_time, job.deadline.has_value(), job.deadline.value_or(0), now);
  return true;
}


}  // namespace mfprio::gridengine
