// Usage combination, decay and charging (ge_usage.hpp, sge_support.c:decay_usage).
#include <gtest/gtest.h>

#include <cmath>

#include "ge_usage.hpp"

using namespace mfprio::gridengine;

TEST(GeDecay, OneHalftimeGivesTheCodesPerMinuteFactor) {
  // (1 - ln2/10080)^10080, not 0.5: the per-minute linearised constant (sge_support.c:decay_usage).
  const double c = decay_constant_per_minute(168.0 * 60);
  EXPECT_NEAR(decay_factor(c, 168.0 * 3600), 0.49998808, 5e-9);
  UsageRecord r;
  r.usage = {1000, 10, 1};
  r.last_decay = 1000;
  SchedConf conf;  // halftime 168
  decay_usage(&r, conf, 1000 + 168 * 3600);
  EXPECT_NEAR(r.usage.cpu, 499.98808, 5e-6);
  EXPECT_NEAR(r.usage.mem, 4.9998808, 5e-8);
}

TEST(GeDecay, ZeroHalftimeNeverDecaysAndNegativeListEntryDrops) {
  SchedConf conf;
  conf.halftime = 0;
  conf.halflife_decay_list = {{"mem", -1}, {"io", 60}};
  UsageRecord r;
  r.usage = {100, 100, 100};
  r.finished_jobs = 4;
  r.last_decay = 10;
  decay_usage(&r, conf, 10 + 3600);
  EXPECT_DOUBLE_EQ(r.usage.cpu, 100);
  EXPECT_DOUBLE_EQ(r.usage.mem, 0);
  EXPECT_NEAR(r.usage.io, 100 * std::pow(1 - std::log(2.0) / 60, 60), 1e-9);
  EXPECT_DOUBLE_EQ(r.finished_jobs, 4);  // with a list: the halftime (0 = none) applies
}

TEST(GeDecay, FinishedJobsCounterZeroedWithoutDecayList) {
  SchedConf conf;
  UsageRecord r;
  r.finished_jobs = 3;
  r.last_decay = 10;
  decay_usage(&r, conf, 70);
  EXPECT_DOUBLE_EQ(r.finished_jobs, 0);
}

TEST(GeUsage, CombinesByUsageWeightList) {
  Usage u{100, 40, 10};
  EXPECT_DOUBLE_EQ(combine_usage(u, UsageWeights{}), 100);
  EXPECT_DOUBLE_EQ(combine_usage(u, UsageWeights{1, 1, 2}), (100 + 40 + 20) / 4.0);
  EXPECT_DOUBLE_EQ(combine_usage(u, UsageWeights{0, 0, 0}), 0);
}

TEST(GeUsage, ChargingDebitsEachJobUsageOnce) {
  UsageRecord owner;
  Usage debited;
  charge_running_job(&owner, {60, 1, 0}, &debited);
  charge_running_job(&owner, {90, 1, 0}, &debited);
  charge_running_job(&owner, {90, 0.5, 0}, &debited);  // usage went down: nothing added
  EXPECT_DOUBLE_EQ(owner.usage.cpu, 90);
  EXPECT_DOUBLE_EQ(owner.usage.mem, 1);
  record_finished_job(&owner, {100, 0.5, 0}, &debited);
  EXPECT_DOUBLE_EQ(owner.usage.cpu, 100);
  EXPECT_DOUBLE_EQ(owner.finished_jobs, 1);
}
