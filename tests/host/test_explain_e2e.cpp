// test_explain_e2e.cpp - `mfprio-host explain` end to end: the built binary,
// the real priority_multifactor.so over a store made by mfprio-acct from
// samples/accounts.json, and priority_basic.so (one FIFO term), showing that
// explain works through the generic terms alone.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;

namespace {

using mfprio::test::has;

constexpr long long kNow = 1763740000;

class ExplainE2E : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
    const std::string db = dir.path() + "/demo.db";
    const std::string accounts = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/accounts.json";
    ProcessResult r = mfprio::test::run_acct({"--db", db, "import", accounts});
    ASSERT_EQ(r.status, 0) << r.err;
    mf_conf = dir.write("mf.conf", "PriorityType=priority/multifactor\nPluginDir=" + plugin_dir +
                                       "\nAccountingStorageLoc=" + db +
                                       "\nPriorityMaxAge=7-0\nPriorityWeightAge=1000\nPriorityWeightFairshare=10000\n");
    basic_conf = dir.write("basic.conf", "PriorityType=priority/basic\nPluginDir=" + plugin_dir + "\n");
    // Job 1 is six days old but niced by 500; job 2 is new; job 3 is 100 s old.
    // Same user, account, partition and size: only age and nice differ.
    auto job = [](int id, long long submit, const std::string& extra) {
      return "{\"id\": " + std::to_string(id) +
             R"(, "user": "alice", "account": "chemistry", "partition": "batch", "cpus": 4, "submit": )" +
             std::to_string(submit) + extra + "}\n";
    };
    jobs = dir.write("jobs.jsonl", job(1, kNow - 6 * 86400, R"(, "nice": 500)") + job(2, kNow, "") +
                                       job(3, kNow - 100, "") + job(4, kNow - 50, R"(, "state": "running")"));
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  TempDir dir;
  std::string plugin_dir, mf_conf, basic_conf, jobs;
};

TEST_F(ExplainE2E, OneJobShowsItsRankTheGapAndWhatEachTermWouldNeed) {
  ProcessResult r = host({"--conf", mf_conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "rank 3 of 3 pending")) << r.out;  // the running job is not ranked
  EXPECT_TRUE(has(r.out, "past job 3")) << r.out;
  EXPECT_TRUE(has(r.out, "more than ")) << r.out;  // job 3 is older: it wins ties
  // The age term is time-dependent but capped by PriorityMaxAge: it can grow,
  // fairshare (equal for both) and nice (raw) give "cannot" or a factor.
  EXPECT_TRUE(has(r.out, "nice")) << r.out;
  EXPECT_TRUE(has(r.out, "cannot (an amount set as is)")) << r.out;
  EXPECT_TRUE(has(r.out, "factor >")) << r.out;
  // multifactor declares no product weights: its sub-terms show plain weights.
  EXPECT_FALSE(has(r.out, "a sub-term's weight is")) << r.out;
}

// A family that declares no products (multifactor): sprio --json's
// sub-term weights are plain.
TEST_F(ExplainE2E, SprioJsonHasNoWeightProductWhenTheFamilyDeclaresNone) {
  std::ifstream in(mf_conf);
  std::stringstream text;
  text << in.rdbuf() << "PriorityWeightTRES=CPU=1000\n";
  const std::string conf = dir.write("mf-tres.conf", text.str());
  ProcessResult r = host({"--conf", conf, "--now", std::to_string(kNow), "sprio", "--json", "--job-file", jobs});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"name\": \"cpu\"")) << r.out;  // the TRES term's sub-term is there
  EXPECT_FALSE(has(r.out, "weight_product")) << r.out;
}

TEST_F(ExplainE2E, TwoJobsFindTheAgeTermAndTheOvertakingTime) {
  ProcessResult r = host({"--conf", mf_conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "1", "2", "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"time_dependent\": [\n      \"age\"\n    ]")) << r.out;
  // Job 1 ages out at 7 days (in 1 day); job 2 passes 1000 x age - 500 + 1
  // (integer priorities) at about 3.5 days: 302,400 s plus under 15 minutes.
  const size_t at = r.out.find("\"overtakes_in\": ");
  ASSERT_NE(at, std::string::npos) << r.out;
  const long long in = std::atoll(r.out.c_str() + at + 16);
  EXPECT_GE(in, 302400) << r.out;
  EXPECT_LE(in, 302400 + 900) << r.out;
  ProcessResult t = host({"--conf", mf_conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "1", "2"});
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_TRUE(has(t.out, "terms putting 1 ahead of 2 (A - B, largest first): age +857.14")) << t.out;
  EXPECT_TRUE(has(t.out, "terms favouring 2: nice -500.00")) << t.out;
  EXPECT_TRUE(has(t.out, "job 2 overtakes job 1: 2025-11-25T")) << t.out;
}

TEST_F(ExplainE2E, BasicFamilyExplainsThroughItsGenericTermsAndNeverOvertakes) {
  ProcessResult r = host({"--conf", basic_conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "3", "2"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "fifo")) << r.out;
  EXPECT_TRUE(has(r.out, "time-dependent terms: none")) << r.out;
  EXPECT_TRUE(has(r.out, "job 2 overtakes job 3: never (no term depends on time)")) << r.out;
}

TEST_F(ExplainE2E, AJobThatIsNotPendingIsAnError) {
  ProcessResult r = host({"--conf", mf_conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "4"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "explain: job 4 is not a pending job of")) << r.err;
  r = host({"--conf", mf_conf, "explain", "--job-file", jobs});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "explain needs JOB_A [JOB_B]")) << r.err;
}

// explain names a clamp and a tie broken by submit time, never
// states a negative growth, and lists waiting time as time-dependent.
class ExplainSites : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    data = mfprio::test::env_or_die("MFPRIO_TEST_DATA") + "/admins";
    src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../..";
  }
  std::string maui_conf(const std::string& extra_cfg) {
    std::string cfg = data + "/negprio-maui.cfg";
    if (!extra_cfg.empty()) {
      std::ifstream in(data + "/negprio-maui.cfg");
      std::stringstream t;
      t << in.rdbuf() << extra_cfg;
      cfg = dir.write("maui.cfg", t.str());
    }
    return dir.write("maui.conf", "PriorityType=priority/maui\nPluginDir=" + plugin_dir +
                                      "\nPriorityParameters=config=" + cfg + "\n");
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  TempDir dir;
  std::string plugin_dir, data, src;
};

TEST_F(ExplainSites, MauiClampAndTieAreNamedAndNoNegativeGrowthIsStated) {
  const std::string jobs = data + "/negprio-jobs.jsonl";
  ASSERT_TRUE(std::filesystem::exists(jobs)) << "missing " << jobs;
  ProcessResult r = host({"--conf", maui_conf(""), "--now", std::to_string(kNow), "explain", "--job-file", jobs, "8"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "priority 1 (unclamped -50.0000), rank 3 of 3")) << r.out;
  EXPECT_TRUE(has(r.out, "clamped low: the total -50.0000 lies below the priorities priority/maui gives")) << r.out;
  EXPECT_TRUE(has(r.out, "job 7 has the same priority 1; the tie is broken by submit time: job 7 comes first")) << r.out;
  EXPECT_TRUE(has(r.out, "its priority must rise above 1; the totals are clamped")) << r.out;
  EXPECT_FALSE(has(r.out, "must grow by")) << r.out;
  EXPECT_TRUE(has(r.out, "cannot (the clamp hides the total)")) << r.out;
  EXPECT_TRUE(has(r.out, "time-dependent terms: SERV (SERV.QUEUETIME)")) << r.out;
  ProcessResult j = host({"--conf", maui_conf(""), "--now", std::to_string(kNow), "explain", "--json", "--job-file",
                          jobs, "8"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(has(j.out, "\"clamped\": \"low\"")) << j.out;
  EXPECT_TRUE(has(j.out, "\"tie\": true")) << j.out;
  EXPECT_TRUE(has(j.out, "\"gap\": null")) << j.out;
  // ENABLENEGJOBPRIORITY TRUE: nothing clamps, frank (-50) is ahead of erin (-240).
  r = host({"--conf", maui_conf("ENABLENEGJOBPRIORITY TRUE\n"), "--now", std::to_string(kNow), "explain",
            "--job-file", jobs, "7"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "priority 999999761 (unclamped -240.0000), rank 3 of 3")) << r.out;
  EXPECT_TRUE(has(r.out, "past job 8 (priority 999999951): the total must grow by at least 190.0000")) << r.out;
  EXPECT_FALSE(has(r.out, "clamped low")) << r.out;
}

// Maui's sub-component weights are products (CREDWEIGHT x
// USERWEIGHT); the family says so ("view": {"sub_weight_product": true}) and
// explain shows each sub-term under its component with its weight as that product.
TEST_F(ExplainSites, MauiSubTermWeightsAreShownAsTheProductsTheyAre) {
  const std::string jobs = data + "/negprio-jobs.jsonl";
  const std::string conf = maui_conf("CREDWEIGHT 2\nUSERWEIGHT 50\n");
  ProcessResult r = host({"--conf", conf, "--now", std::to_string(kNow), "explain", "--job-file", jobs, "8"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\n  CRED                 -5000.000000         2.00      -10000.00  ")) << r.out;
  EXPECT_TRUE(has(r.out, "\n    CRED.USER           -100.000000       2 x 50      -10000.00\n")) << r.out;
  EXPECT_TRUE(has(r.out, "a sub-term's weight is its term's weight x its own")) << r.out;
  EXPECT_FALSE(has(r.out, "CRED.GROUP")) << r.out;  // weighs nothing: not listed
  ProcessResult j = host({"--conf", conf, "--now", std::to_string(kNow), "explain", "--json", "--job-file", jobs, "8"});
  ASSERT_EQ(j.status, 0) << j.err;
  EXPECT_TRUE(has(j.out, "\"name\": \"CRED.USER\",\n          \"factor\": -100.0,\n          \"weight\": 100.0,")) << j.out;
  EXPECT_TRUE(has(j.out, "\"weight_product\": [\n            2.0,\n            50.0\n          ]")) << j.out;
}

// sprio --json gives each of Maui's sub-terms the product its weight is, as
// explain --json does; a component (no parent) has none.
TEST_F(ExplainSites, MauiSprioJsonSubTermsCarryTheirWeightProduct) {
  const std::string jobs = data + "/negprio-jobs.jsonl";
  const std::string conf = maui_conf("CREDWEIGHT 2\nUSERWEIGHT 50\n");
  ProcessResult r = host({"--conf", conf, "--now", std::to_string(kNow), "sprio", "--json", "--job-file", jobs, "-j", "8"});
  ASSERT_EQ(r.status, 0) << r.err;
  // One term's object: from its name to the end of the object.
  auto term_obj = [&](const std::string& name) {
    const size_t at = r.out.find("\"name\": \"" + name + "\"");
    return at == std::string::npos ? std::string() : r.out.substr(at, r.out.find('}', at) - at);
  };
  const std::string user = term_obj("CRED.USER");
  EXPECT_TRUE(has(user, "\"weight\": 100.0,")) << r.out;
  EXPECT_TRUE(has(user, "\"weight_product\": [\n          2.0,\n          50.0\n        ]")) << r.out;
  const std::string cred = term_obj("CRED");
  ASSERT_FALSE(cred.empty()) << r.out;
  EXPECT_FALSE(has(cred, "weight_product")) << r.out;
}

TEST_F(ExplainSites, GridEngineWaitingTimeIsTimeDependentAndTextColumnsAreNotTerms) {
  const std::string ge = src + "/samples/gridengine";
  const std::string conf = mfprio::test::gridengine_sample_conf(dir.path(), ge, plugin_dir);
  ProcessResult r = host({"--conf", conf, "--now", std::to_string(kNow), "explain", "--job-file", ge + "/jobs.jsonl", "102"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "time-dependent terms: urgency (wtcontr)")) << r.out;
  EXPECT_FALSE(has(r.out, "not a number")) << r.out;
}

}  // namespace
