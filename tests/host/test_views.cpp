// test_views.cpp - sprio and sshare text layout (views.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <sstream>

#include "test_util.hpp"
#include "views.hpp"

using namespace mfprio::host;

namespace {

using mfprio::test::fields;
using mfprio::test::lines;

SprioRow sample_row() {
  SprioRow r;
  r.job_id = 42;
  r.partition = "batch";
  r.user = "alice";
  r.account = "physics";
  r.qos = "normal";
  r.f.priority = 1851;
  r.f.site = 3;
  r.f.nice = 10;
  r.f.age = 0.5;
  r.f.w_age = 500.4;
  r.f.assoc = 0;
  r.f.fairshare = 0.25;
  r.f.w_fairshare = 1000.6;
  r.f.jobsize = 0.125;
  r.f.w_jobsize = 12.5;
  r.f.partition = 1;
  r.f.w_partition = 200;
  r.f.qos = 0.3333333333;
  r.f.w_qos = 100;
  r.f.tres_count = 2;
  std::strcpy(r.f.tres[0].name, "cpu");
  r.f.tres[0].factor = 0.0625;
  r.f.tres[0].weighted = 62.5;
  std::strcpy(r.f.tres[1].name, "gres/gpu");
  r.f.tres[1].factor = 0.25;
  r.f.tres[1].weighted = 250;
  return r;
}

TEST(SprioView, ShortColumnsMatchSprio) {
  auto l = lines(format_sprio({sample_row()}, SprioOptions{}, Weights{}));
  ASSERT_EQ(l.size(), 2u);
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"JOBID", "PARTITION", "PRIORITY", "SITE", "AGE", "ASSOC",
                                                    "FAIRSHARE", "JOBSIZE", "PARTITION", "QOS", "TRES"}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "1851", "3", "500", "0", "1001", "13", "200", "100",
                                                    "cpu=63,gres/gpu=250"}));
  // Right-aligned JOBID in 15 columns, then a left-aligned 9-wide partition.
  EXPECT_EQ(l[1].substr(0, 25), "             42 batch    ");
  EXPECT_EQ(l[0].substr(0, 25), "          JOBID PARTITION");
}

TEST(SprioView, LongColumnsAddUserAccountQosNameNice) {
  SprioOptions o;
  o.long_format = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"JOBID", "PARTITION", "USER", "ACCOUNT", "PRIORITY", "SITE", "AGE",
                                                    "ASSOC", "FAIRSHARE", "JOBSIZE", "PARTITION", "QOSNAME", "QOS",
                                                    "NICE", "TRES"}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "alice", "physics", "1851", "3", "500", "0", "1001",
                                                    "13", "200", "normal", "100", "10", "cpu=63,gres/gpu=250"}));
}

TEST(SprioView, NormalizedFactorsHaveSevenDecimals) {
  SprioOptions o;
  o.normalized = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"42", "batch", "0.0000004", "3", "0.5000000", "0.0000000",
                                                    "0.2500000", "0.1250000", "1.0000000", "0.3333333",
                                                    "cpu=0.0625000,gres/gpu=0.2500000"}));
}

TEST(SprioView, WeightsRowComesFirst) {
  SprioOptions o;
  o.weights = true;
  Weights w;
  w.known = true;
  w.age = 1000;
  w.fairshare = 2000;
  w.jobsize = 3;
  w.partition = 4;
  w.qos = 5;
  w.tres = "CPU=1000";
  auto l = lines(format_sprio({sample_row()}, o, w));
  ASSERT_EQ(l.size(), 3u);
  EXPECT_EQ(fields(l[1]), (std::vector<std::string>{"Weights", "1000", "0", "2000", "3", "4", "5", "CPU=1000"}));
  EXPECT_EQ(fields(l[2])[0], "42");
}

TEST(SprioView, ParsableHasBarAfterEveryField) {
  SprioOptions o;
  o.parsable = true;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|TRES|");
  EXPECT_EQ(l[1], "42|batch|1851|3|500|0|1001|13|200|100|cpu=63,gres/gpu=250|");
}

TEST(SprioView, NoHeaderOption) {
  SprioOptions o;
  o.header = false;
  auto l = lines(format_sprio({sample_row()}, o, Weights{}));
  ASSERT_EQ(l.size(), 1u);
  EXPECT_EQ(fields(l[0])[0], "42");
}

TEST(Weights, ReadFromWeightsObject) {
  Weights w = parse_weights(R"({"weights": {"Age": 1000, "fairshare": "2000", "QOS": 7, "tres": {"CPU": 1000}}})");
  EXPECT_TRUE(w.known);
  EXPECT_EQ(w.age, 1000);
  EXPECT_EQ(w.fairshare, 2000);
  EXPECT_EQ(w.qos, 7);
  EXPECT_EQ(w.tres, "CPU=1000");
}

TEST(Weights, ReadFromConfStyleKeys) {
  Weights w = parse_weights(R"({"PriorityWeightAge": 5, "PriorityWeightTRES": "CPU=1,Mem=2"})");
  EXPECT_TRUE(w.known);
  EXPECT_EQ(w.age, 5);
  EXPECT_EQ(w.tres, "CPU=1,Mem=2");
}

TEST(Weights, UnknownWhenAbsentOrInvalid) {
  EXPECT_FALSE(parse_weights(R"({"flags": []})").known);
  EXPECT_FALSE(parse_weights("not json").known);
}

std::vector<ShareRow> sample_tree() {
  std::vector<ShareRow> rows(4);
  rows[0].is_root = true;
  rows[0].account = "root";
  rows[0].norm_shares = 1;
  rows[0].raw_usage = 1000.6;
  rows[0].eff_usage = 1;
  rows[1].depth = 1;
  rows[1].account = "physics";
  rows[1].raw_shares = 40;
  rows[1].norm_shares = 0.4;
  rows[1].raw_usage = 600;
  rows[1].norm_usage = 0.6;
  rows[1].eff_usage = 0.6;
  rows[1].level_fs = 0.6666667;
  rows[2].depth = 2;
  rows[2].is_user = true;
  rows[2].account = "physics";
  rows[2].user = "alice";
  rows[2].raw_shares = 1;
  rows[2].norm_shares = 1;
  rows[2].raw_usage = 600;
  rows[2].fairshare = 0.5;
  rows[2].level_fs = 1.5;
  rows[3] = rows[2];
  rows[3].user = "bob";
  rows[3].shares_parent = true;
  rows[3].raw_usage = 0;
  rows[3].level_fs = INFINITY;
  rows[3].fairshare = 1;
  return rows;
}

TEST(SshareView, ColumnsIndentationAndBlanks) {
  auto l = lines(format_sshare(sample_tree(), SshareOptions{}));
  ASSERT_EQ(l.size(), 6u);
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"Account", "User", "RawShares", "NormShares", "RawUsage",
                                                    "EffectvUsage", "FairShare"}));
  EXPECT_EQ(l[1].substr(0, 21), "-------------------- ");
  EXPECT_EQ(l[2].substr(0, 5), "root ");
  EXPECT_EQ(fields(l[2]), (std::vector<std::string>{"root", "1.000000", "1001", "1.000000"}));  // no shares, no FS
  EXPECT_EQ(l[3].substr(0, 9), " physics ");
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"physics", "40", "0.400000", "600", "0.600000"}));
  EXPECT_EQ(l[4].substr(0, 10), "  physics ");
  EXPECT_EQ(fields(l[4]), (std::vector<std::string>{"physics", "alice", "1", "1.000000", "600", "0.000000", "0.500000"}));
  EXPECT_EQ(fields(l[5])[2], "parent");
}

TEST(SshareView, LongAddsNormUsageAndLevelFs) {
  SshareOptions o;
  o.long_format = true;
  auto l = lines(format_sshare(sample_tree(), o));
  EXPECT_EQ(fields(l[0]), (std::vector<std::string>{"Account", "User", "RawShares", "NormShares", "RawUsage",
                                                    "NormUsage", "EffectvUsage", "FairShare", "LevelFS", "GrpTRESMins",
                                                    "TRESRunMins"}));
  EXPECT_EQ(fields(l[3]), (std::vector<std::string>{"physics", "40", "0.400000", "600", "0.600000", "0.600000",
                                                    "0.666667"}));
  EXPECT_EQ(fields(l[5]).back(), "inf");
}

TEST(SshareView, ParsableHeaderAndTrailingBar) {
  SshareOptions o;
  o.parsable = true;
  auto l = lines(format_sshare(sample_tree(), o));
  ASSERT_EQ(l.size(), 5u);  // no dash line
  EXPECT_EQ(l[0], "Account|User|RawShares|NormShares|RawUsage|EffectvUsage|FairShare|");
  EXPECT_EQ(l[1], "root|||1.000000|1001|1.000000||");
  EXPECT_EQ(l[2], " physics||40|0.400000|600|0.600000||");
  EXPECT_EQ(l[4], "  physics|bob|parent|1.000000|0|0.000000|1.000000|");
}

TEST(SshareView, ShareRowsCopiedFromAbiRows) {
  mfprio_share_row_t r[2] = {};
  r[0].parent = -1;
  r[0].account = "root";
  r[1].parent = 0;
  r[1].depth = 1;
  r[1].is_user = 1;
  r[1].account = "root";
  r[1].user = "u";
  r[1].raw_shares = 3;
  r[1].fairshare = 0.25;
  auto rows = share_rows_from(r, 2);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_TRUE(rows[0].is_root);
  EXPECT_FALSE(rows[1].is_root);
  EXPECT_TRUE(rows[1].is_user);
  EXPECT_EQ(rows[1].user, "u");
  EXPECT_EQ(rows[1].raw_shares, 3u);
  EXPECT_EQ(rows[1].fairshare, 0.25);
}

TEST(Fixed, InfinityAndRounding) {
  EXPECT_EQ(fixed(INFINITY, 6), "inf");
  EXPECT_EQ(fixed(0.1234567, 6), "0.123457");
  EXPECT_EQ(fixed(NAN, 6), "nan");
}

}  // namespace
