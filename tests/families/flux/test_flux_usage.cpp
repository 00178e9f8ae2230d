// Golden tests of flux_usage: half-life bins (flux-accounting job_usage_calculation.py) and the
// worked example of flux-accounting's job-usage-calculation documentation.
#include <gtest/gtest.h>

#include "flux_usage.hpp"

namespace mfprio::flux {
namespace {

constexpr int64_t H = 100;

TEST(FluxUsage, JobUsageIsNodesTimesSecondsByDefault) {
  const UsageSettings s;
  EXPECT_DOUBLE_EQ(job_usage_value(2, 64, 0, 1605635403.22141, 1605637403.22141, s), 4000.0);
  EXPECT_DOUBLE_EQ(job_usage_value(1, 1, 0, 10.0, 5.0, s), 0.0);  // negative duration
}

TEST(FluxUsage, JobUsageWeightsAndFiveDecimals) {
  UsageSettings s;
  s.node_weight = 0.0;
  s.core_weight = 1.0 / 3.0;
  s.gpu_weight = 2.0;
  // (3 cores / 3 + 1 gpu * 2) * 1 s = 3; then 1 core * 1/3 * 1 s -> 0.33333
  EXPECT_DOUBLE_EQ(job_usage_value(0, 3, 1, 0.0, 1.0, s), 3.0);
  EXPECT_DOUBLE_EQ(job_usage_value(0, 1, 0, 0.0, 1.0, s), 0.33333);
}

TEST(FluxUsage, BinIndexCountsWholePeriodsBackFromTheEnd) {
  EXPECT_EQ(bin_index(1000, 1000, H, 4), 0);
  EXPECT_EQ(bin_index(901, 1000, H, 4), 0);
  EXPECT_EQ(bin_index(5000, 1000, H, 4), 0);  // after the end: current
  EXPECT_EQ(bin_index(900, 1000, H, 4), 1);
  EXPECT_EQ(bin_index(801, 1000, H, 4), 1);
  EXPECT_EQ(bin_index(800, 1000, H, 4), 2);
  EXPECT_EQ(bin_index(601, 1000, H, 4), 3);
  EXPECT_EQ(bin_index(600, 1000, H, 4), -1);  // older than the reset period
}

TEST(FluxUsage, BinShiftAfterOneHalfLife) {
  UsageBins u = UsageBins::make(4, 1000);
  u.bins = {8, 4, 2, 1};
  EXPECT_DOUBLE_EQ(decayed_usage(u, 0.5), 8 + 2 + 0.5 + 0.125);
  EXPECT_EQ(advance(&u, 1000, H), 0);  // still inside the period
  EXPECT_EQ(advance(&u, 1001, H), 1);
  EXPECT_EQ(u.period_end, 1100);
  EXPECT_EQ(u.bins, (std::vector<double>{0, 8, 4, 2}));
  EXPECT_DOUBLE_EQ(decayed_usage(u, 0.5), 4 + 1 + 0.25);  // halved, oldest bin gone
  EXPECT_EQ(advance(&u, 1001, H), 0);  // idempotent
}

TEST(FluxUsage, EveryElapsedHalfLifeShiftsOnce) {
  UsageBins u = UsageBins::make(4, 1000);
  u.bins = {8, 4, 2, 1};
  EXPECT_EQ(advance(&u, 1250, H), 3);  // 2.5 half-lives: three period ends passed
  EXPECT_EQ(u.period_end, 1300);
  EXPECT_EQ(u.bins, (std::vector<double>{0, 0, 0, 8}));
  EXPECT_EQ(advance(&u, 100000, H), 987);
  EXPECT_EQ(u.bins, (std::vector<double>{0, 0, 0, 0}));
  EXPECT_EQ(u.period_end, 100000);
}

TEST(FluxUsage, DocumentationExampleSixteenThousandEightyNine) {
  // doc/components/job-usage-calculation.rst: past periods 128, 64, 64, 16,
  // decayed to 64 + 16 + 8 + 1 = 89, plus 16000 current = 16089.  The doc
  // sums four past periods besides the current one, i.e. five bins.
  UsageBins u = UsageBins::make(5, 1000);
  u.bins = {128, 64, 64, 16, 0};
  advance(&u, 1050, H);
  charge_at(&u, 1050, 16000, H);
  EXPECT_NEAR(decayed_usage(u, 0.5), 16089.0, 1e-6);
  // With the default four bins the oldest (16) is dropped by the shift.
  UsageBins d = UsageBins::make(4, 1000);
  d.bins = {128, 64, 64, 16};
  advance(&d, 1050, H);
  charge_at(&d, 1050, 16000, H);
  EXPECT_NEAR(decayed_usage(d, 0.5), 16088.0, 1e-6);
}

TEST(FluxUsage, ChargeAtPutsUsageInItsPeriodAndDropsTooOld) {
  UsageBins u = UsageBins::make(4, 1000);
  charge_at(&u, 950, 10, H);
  charge_at(&u, 850, 20, H);
  charge_at(&u, 500, 99, H);  // older than 4 half-lives
  EXPECT_EQ(u.bins, (std::vector<double>{10, 20, 0, 0}));
  EXPECT_NEAR(decayed_usage(u, 0.5), 20.0, 1e-6);
}

TEST(FluxUsage, ChargeIntervalSplitsAcrossBins) {
  UsageBins u = UsageBins::make(4, 1000);
  charge_interval(&u, 650, 1050, 2.0, H);  // 400 s at rate 2
  // bin0 (900,1000] + the 50 s after the end = 150 s; bin1 100 s; bin2 100 s;
  // bin3 (600,700] overlaps 50 s.
  EXPECT_EQ(u.bins, (std::vector<double>{300, 200, 200, 100}));
  charge_interval(&u, 0, 100, 1.0, H);  // entirely older than the window
  EXPECT_EQ(u.bins, (std::vector<double>{300, 200, 200, 100}));
}

TEST(FluxUsage, DecayFactorOtherThanHalf) {
  UsageBins u = UsageBins::make(3, 0);
  u.bins = {1, 1, 1};
  EXPECT_NEAR(decayed_usage(u, 0.25), 1.3125, 1e-12);
}

}  // namespace
}  // namespace mfprio::flux
