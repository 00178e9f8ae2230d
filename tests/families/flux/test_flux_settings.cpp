// Golden tests of flux_settings: PriorityParameters parsing and Slurm time
// strings (flux-accounting mf_priority.cpp defaults, flux-accounting job_usage_calculation.py usage defaults).
#include <gtest/gtest.h>

#include "flux_settings.hpp"

namespace mfprio::flux {
namespace {

Settings parse_ok(const std::string& v) {
  Settings s;
  std::string why;
  EXPECT_TRUE(parse_flux_parameters(v, &s, &why)) << why;
  return s;
}

std::string parse_err(const std::string& v) {
  Settings s;
  s.weights.fairshare = 7;  // sentinel: must survive a failed parse
  std::string why;
  EXPECT_FALSE(parse_flux_parameters(v, &s, &why)) << v;
  EXPECT_EQ(s.weights.fairshare, 7) << "settings changed by a failed parse of " << v;
  return why;
}

TEST(FluxSettings, EmptyStringGivesFluxAccountingDefaults) {
  const Settings s = parse_ok("");
  EXPECT_EQ(s.mode, Mode::kAccounting);
  EXPECT_EQ(s.weights.fairshare, 100000);
  EXPECT_EQ(s.weights.queue, 10000);
  EXPECT_EQ(s.weights.bank, 0);
  EXPECT_EQ(s.weights.urgency, 1000);
  EXPECT_EQ(s.usage.half_life, 7 * 86400);
  EXPECT_EQ(s.usage.reset_period, 28 * 86400);
  EXPECT_DOUBLE_EQ(s.usage.decay_factor, 0.5);
  EXPECT_DOUBLE_EQ(s.usage.node_weight, 1.0);
  EXPECT_DOUBLE_EQ(s.usage.core_weight, 0.0);
  EXPECT_DOUBLE_EQ(s.usage.gpu_weight, 0.0);
  EXPECT_EQ(s.usage.bins(), 4);
  EXPECT_EQ(s.max_wait, 7 * 86400);
  EXPECT_EQ(s.job_size_favor, SizeFavor::kLarge);
}

TEST(FluxSettings, AccountingKeysSetTheFourWeights) {
  const Settings s = parse_ok("mode=accounting, fairshare=5, queue=-3, bank=7, urgency=0");
  EXPECT_EQ(s.weights.fairshare, 5);
  EXPECT_EQ(s.weights.queue, -3);  // flux-accounting keeps any int
  EXPECT_EQ(s.weights.bank, 7);
  EXPECT_EQ(s.weights.urgency, 0);
}

TEST(FluxSettings, DesignModeKeysAnyOrderCaseInsensitive) {
  const Settings s = parse_ok(
      "wait_time=1000,Max_Wait=1-0,fairshare=2000,qos=3000,queue=4000,job_size=5000,"
      "job_size_favor=SMALL,user=6000,MODE=design");
  EXPECT_EQ(s.mode, Mode::kDesign);
  EXPECT_EQ(s.weights.wait_time, 1000);
  EXPECT_EQ(s.max_wait, 86400);
  EXPECT_EQ(s.weights.fairshare, 2000);
  EXPECT_EQ(s.weights.qos, 3000);
  EXPECT_EQ(s.weights.queue, 4000);
  EXPECT_EQ(s.weights.job_size, 5000);
  EXPECT_EQ(s.job_size_favor, SizeFavor::kSmall);
  EXPECT_EQ(s.weights.user, 6000);
}

TEST(FluxSettings, UsageKeysSetBinsAndDecay) {
  const Settings s =
      parse_ok("decay_half_life=1-0,reset_period=10-0,decay_factor=0.25,node_weight=2,core_weight=0.5,gpu_weight=3");
  EXPECT_EQ(s.usage.half_life, 86400);
  EXPECT_EQ(s.usage.reset_period, 864000);
  EXPECT_EQ(s.usage.bins(), 10);
  EXPECT_DOUBLE_EQ(s.usage.decay_factor, 0.25);
  EXPECT_DOUBLE_EQ(s.usage.node_weight, 2.0);
  EXPECT_DOUBLE_EQ(s.usage.core_weight, 0.5);
  EXPECT_DOUBLE_EQ(s.usage.gpu_weight, 3.0);
}

TEST(FluxSettings, ResetPeriodShorterThanHalfLifeGivesFourBins) {
  const Settings s = parse_ok("decay_half_life=7-0,reset_period=1-0");
  EXPECT_EQ(s.usage.bins(), 4);  // flux-accounting: N <= 0 -> 4
}

TEST(FluxSettings, SlurmTimeStringForms) {
  int64_t t = 0;
  ASSERT_TRUE(parse_slurm_time("90", &t, nullptr));
  EXPECT_EQ(t, 5400);  // minutes
  ASSERT_TRUE(parse_slurm_time("1:30", &t, nullptr));
  EXPECT_EQ(t, 90);  // min:sec
  ASSERT_TRUE(parse_slurm_time("2:00:05", &t, nullptr));
  EXPECT_EQ(t, 7205);
  ASSERT_TRUE(parse_slurm_time("7-0", &t, nullptr));
  EXPECT_EQ(t, 604800);
  ASSERT_TRUE(parse_slurm_time("1-2:3", &t, nullptr));
  EXPECT_EQ(t, 86400 + 7200 + 180);
  ASSERT_TRUE(parse_slurm_time("1-2:3:4", &t, nullptr));
  EXPECT_EQ(t, 93784);
  ASSERT_TRUE(parse_slurm_time("UNLIMITED", &t, nullptr));
  EXPECT_EQ(t, kTimeInfinite);
  std::string why;
  EXPECT_FALSE(parse_slurm_time("1:2:3:4", &t, &why));
  EXPECT_FALSE(parse_slurm_time("abc", &t, &why));
  EXPECT_FALSE(parse_slurm_time("", &t, &why));
}

TEST(FluxSettingsErrors, UnknownKeyNamesKeyAndValue) {
  const std::string why = parse_err("fairshare=1,colour=blue");
  EXPECT_NE(why.find("unknown key 'colour'"), std::string::npos) << why;
  EXPECT_NE(why.find("'blue'"), std::string::npos) << why;
}

TEST(FluxSettingsErrors, BadIntegerWeightNamesKeyAndValue) {
  const std::string why = parse_err("queue=ten");
  EXPECT_NE(why.find("'queue'"), std::string::npos) << why;
  EXPECT_NE(why.find("'ten'"), std::string::npos) << why;
}

TEST(FluxSettingsErrors, WeightBeyondInt32Refused) {
  EXPECT_NE(parse_err("fairshare=2147483648").find("out of range"), std::string::npos);
  EXPECT_NE(parse_err("mode=design,user=4294967296").find("out of range"), std::string::npos);
}

TEST(FluxSettingsErrors, NegativeWeightRefusedInDesignMode) {
  EXPECT_NE(parse_err("mode=design,fairshare=-1").find(">= 0"), std::string::npos);
}

TEST(FluxSettingsErrors, KeyOfTheOtherModeRefused) {
  std::string why = parse_err("wait_time=10");
  EXPECT_NE(why.find("only with mode=design"), std::string::npos) << why;
  why = parse_err("mode=design,urgency=10");
  EXPECT_NE(why.find("only with mode=accounting"), std::string::npos) << why;
}

TEST(FluxSettingsErrors, BadModeAndFavor) {
  EXPECT_NE(parse_err("mode=fast").find("'fast'"), std::string::npos);
  EXPECT_NE(parse_err("mode=design,job_size_favor=medium").find("'medium'"), std::string::npos);
}

TEST(FluxSettingsErrors, DuplicateKeyRefused) {
  EXPECT_NE(parse_err("queue=1,QUEUE=2").find("given twice"), std::string::npos);
}

TEST(FluxSettingsErrors, SyntaxErrors) {
  EXPECT_NE(parse_err("fairshare").find("not NAME=VALUE"), std::string::npos);
  EXPECT_NE(parse_err("fairshare=1,,queue=2").find("empty item"), std::string::npos);
}

TEST(FluxSettingsErrors, BadDurationsAndDecay) {
  EXPECT_NE(parse_err("mode=design,max_wait=0").find("'max_wait'"), std::string::npos);
  EXPECT_NE(parse_err("mode=design,max_wait=INFINITE").find("finite"), std::string::npos);
  EXPECT_NE(parse_err("decay_half_life=soon").find("'decay_half_life'"), std::string::npos);
  EXPECT_NE(parse_err("decay_factor=1").find("between 0 and 1"), std::string::npos);
  EXPECT_NE(parse_err("decay_factor=0").find("between 0 and 1"), std::string::npos);
  EXPECT_NE(parse_err("node_weight=-1").find("'node_weight'"), std::string::npos);
}

}  // namespace
}  // namespace mfprio::flux
