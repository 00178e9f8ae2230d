// record_faults.hpp - malformed and borderline job records for the tests
// that a family's batch fast path (runtime/policy.hpp: fast_record_head_ok,
// fast_tres_counts_ok) treats every record exactly as set_priority does.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <vector>

#include "mfprio/mfprio.h"

namespace mfprio::test {

using RecordFault = std::function<void(mfprio_job_t&)>;

// The faults check_job refuses in any record, one per rule.  bad_counts:
// three two-entry TRES lists holding a negative, a NaN and an infinite
// count, named as the family's fast path reads names (static storage).
inline std::vector<RecordFault> refused_record_faults(const mfprio_tres_t (*bad_counts)[2]) {
  static const mfprio_tres_t gpus[] = {{"gres/gpu", 2}};
  static const mfprio_attr_t attr[] = {{"a", "b"}};
  return {
      [](mfprio_job_t& j) { j.struct_size = sizeof(mfprio_job_t) - 8; },
      [](mfprio_job_t& j) { j.tres = nullptr, j.tres_count = 1; },
      [](mfprio_job_t& j) { j.tres = gpus, j.tres_count = MFPRIO_MAX_LIST + 1; },
      [](mfprio_job_t& j) { j.attrs = nullptr, j.attr_count = 2; },
      [](mfprio_job_t& j) { j.attrs = attr, j.attr_count = MFPRIO_MAX_LIST + 1; },
      [bad_counts](mfprio_job_t& j) { j.tres = bad_counts[0], j.tres_count = 2; },
      [bad_counts](mfprio_job_t& j) { j.tres = bad_counts[1], j.tres_count = 2; },
      [bad_counts](mfprio_job_t& j) { j.tres = bad_counts[2], j.tres_count = 2; },
      [](mfprio_job_t& j) { j.user = nullptr; },
      [](mfprio_job_t& j) { j.user = ""; },
      [](mfprio_job_t& j) { j.submit_time = -1; },
      [](mfprio_job_t& j) { j.eligible_time = MFPRIO_TIME_MAX + 1; },
      [](mfprio_job_t& j) { j.start_time = INT64_MIN; },
      [](mfprio_job_t& j) { j.deadline = -5; },
      [](mfprio_job_t& j) { j.flags |= MFPRIO_JOBF_URGENCY, j.urgency = MFPRIO_URGENCY_EXPEDITE + 1; },
      [](mfprio_job_t& j) { j.nice = -3, j.flags &= ~MFPRIO_JOBF_NICE_ADMIN; },
      [](mfprio_job_t& j) { j.user_priority = 4, j.flags &= ~MFPRIO_JOBF_USER_PRIORITY_ADMIN; },
  };
}

// Records check_job accepts at the edges of its rules: the admin flags, the
// urgency bound, an attribute, no lists, a time at MFPRIO_TIME_MAX and times
// whose bits together pass it (each one in range; the fast path tests the
// OR of the times, which is stricter).
inline std::vector<RecordFault> accepted_borderline_records() {
  static const mfprio_attr_t attr[] = {{"a", "b"}};
  return {
      [](mfprio_job_t& j) { j.nice = -3, j.flags |= MFPRIO_JOBF_NICE_ADMIN; },
      [](mfprio_job_t& j) { j.user_priority = 4, j.flags |= MFPRIO_JOBF_USER_PRIORITY_ADMIN; },
      [](mfprio_job_t& j) { j.flags |= MFPRIO_JOBF_URGENCY, j.urgency = MFPRIO_URGENCY_EXPEDITE; },
      [](mfprio_job_t& j) { j.attrs = attr, j.attr_count = 1; },
      [](mfprio_job_t& j) { j.tres = nullptr, j.tres_count = 0, j.attrs = nullptr, j.attr_count = 0; },
      [](mfprio_job_t& j) { j.deadline = MFPRIO_TIME_MAX; },
      [](mfprio_job_t& j) { j.deadline = int64_t{1} << 37, j.start_time = (int64_t{1} << 37) - 1; },
  };
}

}  // namespace mfprio::test
