// test_checks.cpp - runtime/policy.hpp: job_acceptable (the batch fast
// paths' test) accepts exactly the records check_job accepts, over records
// varied in every field either looks at.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "policy.hpp"

namespace {

TEST(JobChecks, AcceptableExactlyWhenCheckJobPasses) {
  std::mt19937_64 rng(7);
  mfprio_tres_t tres[4] = {{"cpu", 4}, {"mem", 1024}, {"gres/gpu", 1}, {"billing", 2}};
  mfprio_attr_t attrs[1] = {{"k", "v"}};
  const double counts[] = {0, 1, -1, std::nan(""), INFINITY, -INFINITY, 1e300};
  size_t accepted = 0, refused = 0;
  for (int n = 0; n < 20000; ++n) {
    mfprio_job_t j{};
    j.struct_size = rng() % 8 ? sizeof j : sizeof j - 8 * (1 + rng() % 4);
    j.job_id = static_cast<uint64_t>(n);
    const char* users[] = {"alice", "", nullptr};
    j.user = users[rng() % 6 < 4 ? 0 : 1 + rng() % 2];
    j.tres_count = static_cast<uint32_t>(rng() % 10 ? rng() % 5 : MFPRIO_MAX_LIST + 1);
    if (j.tres_count > 4 && j.tres_count <= MFPRIO_MAX_LIST) j.tres_count = 4;
    j.tres = rng() % 10 ? tres : nullptr;
    for (auto& t : tres) t.count = rng() % 6 ? 2 : counts[rng() % 7];
    j.attr_count = static_cast<uint32_t>(rng() % 10 ? rng() % 2 : MFPRIO_MAX_LIST + 1);
    j.attrs = rng() % 10 ? attrs : nullptr;
    j.flags = static_cast<uint16_t>(rng() & (MFPRIO_JOBF_URGENCY | MFPRIO_JOBF_NICE_ADMIN | MFPRIO_JOBF_USER_PRIORITY_ADMIN));
    j.urgency = static_cast<uint8_t>(rng() % 40);
    j.nice = static_cast<int32_t>(rng() % 5) - 2;
    j.user_priority = static_cast<int32_t>(rng() % 5) - 2;
    const int64_t times[] = {0, 1700000000, -1, MFPRIO_TIME_MAX, MFPRIO_TIME_MAX + 1, INT64_MIN, INT64_MAX};
    auto t = [&] { return rng() % 8 ? int64_t{1700000000} : times[rng() % 7]; };
    j.submit_time = t();
    j.eligible_time = t();
    j.start_time = t();
    j.deadline = t();
    std::string why;
    const bool ok = mfprio::check_job(&j, "test", &why) == MFPRIO_OK;
    ASSERT_EQ(mfprio::job_acceptable(j), ok) << "record " << n << ": check_job says '" << why << "'";
    (ok ? accepted : refused)++;
  }
  // Both sides were exercised.
  EXPECT_GT(accepted, 1000u);
  EXPECT_GT(refused, 1000u);
}

}  // namespace
