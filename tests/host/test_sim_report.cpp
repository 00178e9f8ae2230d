// test_sim_report.cpp - the policy lab's pure pieces: percentiles
// (simulate.cpp), the report (sim_report.cpp) and the plot (sim_svg.cpp),
// fed hand-built PolicyResult values.
#include <gtest/gtest.h>
#include <jansson.h>

#include <set>
#include <string>
#include <vector>

#include "sim_report.hpp"
#include "sim_svg.hpp"
#include "simulate.hpp"

using namespace mfprio::host;

namespace {

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t at = hay.find(needle); at != std::string::npos; at = hay.find(needle, at + 1)) ++n;
  return n;
}

GroupStats group(const std::string& name, uint64_t jobs, double deliv, double target) {
  GroupStats g;
  g.name = name;
  g.jobs = jobs;
  g.wait_mean = 120;
  g.wait_p50 = 60;
  g.wait_p95 = 7200;
  g.bsld_mean = 1.5;
  g.cpu_seconds = deliv * 1000;
  g.delivered_share = deliv;
  g.target_share = target;
  return g;
}

// A policy over two accounts and one user, with a few samples for the plot.
PolicyResult policy(const std::string& name) {
  PolicyResult p;
  p.name = name;
  p.conf = name + ".conf";
  p.plugin_type = "priority/fake";
  p.pricing_op = "prioritize";
  p.target_rule = "equal";
  p.calc_period = 300;
  p.first_submit = 1000;
  p.last_end = 1000 + 86400;
  p.makespan = 86400;
  p.utilization = 0.5;
  p.jobs = 3;
  p.jain = 0.9;
  p.cpu_seconds = 1000;
  p.accounts = {group("a<1>", 2, 0.7, 0.5), group("b&2", 1, 0.3, 0.5)};
  p.users = {group("u1", 3, 1.0, 1.0)};
  p.sizes = {group("1 cpu", 3, 1.0, 0)};
  p.runtimes = {group("<=10m", 3, 1.0, 0)};
  p.waits = {0, 60, 3600};
  p.sample_t = {1000, 44200, 87400};
  p.sample_share = {{1.0, 0.0}, {0.6, 0.4}, {0.7, 0.3}};
  p.sample_util = {0.5, 1.0, 0.25};
  p.sample_demand = {0.75, 2.5, 0.25};
  p.sample_demand_share = {{0.5, 0.5}, {0.8, 0.2}, {0.7, 0.3}};
  p.sample_acct_util = {{0.5, 0.0}, {0.625, 0.375}, {0.0, 0.25}};
  return p;
}

SimHeader header() {
  SimHeader h;
  h.trace = "t.swf";
  h.records = 4;
  h.jobs = 3;
  h.skipped = 1;
  h.procs = 8;
  h.backfill = "easy";
  return h;
}

TEST(Percentile, NearestRankOfSortedValues) {
  const std::vector<double> v = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(percentile_sorted(v, 0.5), 5);
  EXPECT_EQ(percentile_sorted(v, 0.95), 10);
  EXPECT_EQ(percentile_sorted(v, 0.0), 1);
  EXPECT_EQ(percentile_sorted({42}, 0.95), 42);
  EXPECT_EQ(percentile_sorted({}, 0.5), 0);
}

TEST(SimReport, JsonHasTheDocumentedKeysAndIsTheSameEveryTime) {
  const std::vector<PolicyResult> ps = {policy("fs"), policy("fifo")};
  const std::string a = sim_report_json(header(), ps);
  EXPECT_EQ(a, sim_report_json(header(), ps));
  json_error_t err;
  json_t* doc = json_loads(a.c_str(), 0, &err);
  ASSERT_NE(doc, nullptr) << err.text;
  json_t* pol = json_object_get(doc, "policies");
  ASSERT_EQ(json_array_size(pol), 2u);
  json_t* p0 = json_array_get(pol, 0);
  for (const char* k : {"name", "conf", "plugin_type", "pricing_op", "calc_period", "backfill", "target_rule", "overall",
                        "accounts", "users", "partitions", "sizes", "runtimes", "timeline"})
    EXPECT_NE(json_object_get(p0, k), nullptr) << k;
  json_t* tl = json_object_get(p0, "timeline");
  for (const char* k : {"t", "utilization", "demand"}) EXPECT_EQ(json_array_size(json_object_get(tl, k)), 3u) << k;
  EXPECT_DOUBLE_EQ(json_real_value(json_array_get(json_object_get(tl, "demand"), 1)), 2.5);
  json_t* tl_b = json_array_get(json_object_get(tl, "accounts"), 1);
  EXPECT_STREQ(json_string_value(json_object_get(tl_b, "name")), "b&2");
  EXPECT_DOUBLE_EQ(json_real_value(json_array_get(json_object_get(tl_b, "delivered_share"), 1)), 0.4);
  EXPECT_DOUBLE_EQ(json_real_value(json_array_get(json_object_get(tl_b, "demand_share"), 1)), 0.2);
  EXPECT_DOUBLE_EQ(json_real_value(json_array_get(json_object_get(tl_b, "utilization"), 2)), 0.25);
  json_t* ov = json_object_get(p0, "overall");
  for (const char* k : {"jobs", "first_submit", "last_end", "makespan", "utilization", "wait_mean", "wait_p50",
                        "wait_p95", "bounded_slowdown_mean", "jain_index", "backfilled", "pricing_calls",
                        "decay_passes", "cpu_seconds", "charged_usage", "wait_p99", "wait_max",
                        "bounded_slowdown_p50", "bounded_slowdown_p95", "bounded_slowdown_p99", "later_than_fifo",
                        "jain_user_wait", "jain_user_bounded_slowdown", "worst_user", "worst_user_wait_mean"})
    EXPECT_NE(json_object_get(ov, k), nullptr) << k;
  EXPECT_TRUE(json_is_null(json_object_get(ov, "charged_usage")));
  json_t* acct = json_array_get(json_object_get(p0, "accounts"), 0);
  for (const char* k : {"name", "jobs", "wait_mean", "wait_p50", "wait_p95", "bounded_slowdown_mean", "cpu_seconds",
                        "delivered_share", "target_share"})
    EXPECT_NE(json_object_get(acct, k), nullptr) << k;
  EXPECT_DOUBLE_EQ(json_real_value(json_object_get(acct, "delivered_share")), 0.7);
  json_decref(doc);
}

TEST(SimReport, TextPutsThePoliciesSideBySide) {
  const std::string t = sim_report_text(header(), {policy("fs"), policy("fifo")});
  EXPECT_NE(t.find("policy fs: fs.conf (priority/fake, prioritize, calc period 300 s, target shares: equal)"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("| fs"), std::string::npos) << t;
  EXPECT_NE(t.find("| fifo"), std::string::npos) << t;
  EXPECT_EQ(count(t, "JOBS  WAITMEAN"), 8u) << t;  // account, user, size and run-time tables x two policies
  EXPECT_EQ(count(t, "DELIV%"), 4u) << t;          // shares only in the account and user tables
  EXPECT_NE(t.find("fifo-fs"), std::string::npos) << t;  // the difference column
  EXPECT_NE(t.find("utilization %"), std::string::npos);
  EXPECT_NE(t.find("1.00d"), std::string::npos) << t;  // makespan
  EXPECT_NE(t.find("2.00h"), std::string::npos) << t;  // p95 wait
}

TEST(SimReport, CsvHasOneRowPerPolicyScopeAndName) {
  const std::string c = sim_report_csv(header(), {policy("fs"), policy("fifo")});
  // overall, 2 accounts, 1 user, 1 size, 1 run time; per sample a machine row and one per account
  EXPECT_EQ(count(c, "\n"), 1u + 2 * (1 + 2 + 1 + 1 + 1 + 3 * (1 + 2))) << c;
  EXPECT_EQ(count(c, ",time,,,,,,,,,,1.000000,,,,,,,,,,,,,44200,2.500000,\n"), 2u) << c;
  EXPECT_EQ(count(c, ",time_account,b&2,,,,,,,0.400000,,0.375000,,,,,,,,,,,,,44200,,0.200000\n"), 2u) << c;
  EXPECT_EQ(count(c, ",size,1 cpu,"), 2u);
  EXPECT_EQ(count(c, ",runtime,<=10m,"), 2u);
  EXPECT_EQ(count(c, ",overall,"), 2u);
  EXPECT_EQ(count(c, ",account,"), 4u);
  EXPECT_EQ(count(c, ",user,u1,"), 2u);
}

TEST(SimSvg, IsSelfContainedEscapedAndDrawsEveryAccount) {
  std::vector<PolicyResult> ps = {policy("fs"), policy("fifo")};
  for (PolicyResult& p : ps) {
    p.bslds = {1.0, 1.5, 30.0};
    p.sample_util = {0.5, 1.0, 0.25};
  }
  const std::string s = sim_svg("title & more", ps);
  EXPECT_EQ(s.rfind("<?xml", 0), 0u);
  EXPECT_NE(s.find("</svg>"), std::string::npos);
  EXPECT_EQ(count(s, "stroke-dasharray"), 4u);  // a target line per account and policy
  // per policy: a wait CDF, a slowdown CDF, two share lines, one busy line
  EXPECT_EQ(count(s, "<polyline"), 10u);
  EXPECT_EQ(count(s, "<circle"), 2u * (1 + 2));  // each policy's mean wait per user and per account
  EXPECT_NE(s.find("a&lt;1&gt;"), std::string::npos);
  EXPECT_NE(s.find("b&amp;2"), std::string::npos);
  EXPECT_NE(s.find("title &amp; more"), std::string::npos);
  EXPECT_EQ(s.find("a<1>"), std::string::npos);
}

TEST(SimSvg, FortyAccountsGetFortyColours) {
  PolicyResult p = policy("fs");
  p.accounts.clear();
  p.sample_share.assign(3, std::vector<double>(40, 0.025));
  for (int a = 0; a < 40; ++a) p.accounts.push_back(group("acct" + std::to_string(a), 1, 0.025, 0.025));
  const std::string s = sim_svg("t", {p});
  std::set<std::string> colours;
  for (size_t at = s.find("stroke-dasharray"); at != std::string::npos; at = s.find("stroke-dasharray", at + 1)) {
    const size_t c = s.rfind("stroke=\"#", at);
    colours.insert(s.substr(c + 8, 7));
  }
  EXPECT_EQ(colours.size(), 40u);
  EXPECT_NE(s.find(">acct39<"), std::string::npos);  // every name in the legend, below the panel
}

}  // namespace
