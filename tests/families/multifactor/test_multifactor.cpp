// test_multifactor.cpp - priority/multifactor through its C ABI (real .so,
// real SQLite store): every factor, the documented worked examples, decay,
// charging and the error paths.
#include <gtest/gtest.h>

#include <functional>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "harness.hpp"
#include "share_tree.hpp"
#include "tres.hpp"

using namespace mfprio::test;

namespace {

constexpr int64_t T0 = 1'700'000'000;

class Multifactor : public ::testing::Test {
 protected:
  TempDir dir;
  std::string db = store_location(dir, "acct.db");
  std::unique_ptr<Plugin> p;

  int start(std::vector<std::string> conf, StoreBuilder b) {
    b.write(db);
    conf.push_back("AccountingStorageLoc=" + db);
    p = std::make_unique<Plugin>();
    return p->init(conf);
  }
  uint32_t prio(const mfprio_job_t& j, int64_t now = T0) { return p->priority(j, now); }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now = T0) { return p->factors(j, now); }
};

StoreBuilder classic_tree() {
  // Slurm's Classic Fairshare Algorithm page, Slurm's documented example.
  StoreBuilder b;
  b.account("A", "root", 40).account("D", "root", 60);
  b.account("B", "A", 30).account("C", "A", 10).account("E", "D", 25).account("F", "D", 35);
  b.user("User1", "B", 1, 20).user("User2", "C", 1, 25).user("User3", "C", 1, 0);
  b.user("User4", "E", 1, 25).user("User5", "F", 1, 0);
  // The example's cluster total is 100 while the five users used 70: the
  // rest sits on an association with no shares, which changes no S.
  b.user("Other", "root", 0, 30);
  return b;
}

}  // namespace

TEST(TresBilling, DocumentedSumExample) {
  std::vector<mfprio::TresWeight> w;
  std::string why;
  ASSERT_TRUE(mfprio::parse_tres_spec("CPU=1.0,Mem=0.25G", &w, &why, false)) << why;
  const double gib = 1024;
  EXPECT_NEAR(mfprio::billable_tres(w, 1, 60 * gib, 1, {}, false), 16.0, 1e-9);
  EXPECT_NEAR(mfprio::billable_tres(w, 16, 1 * gib, 1, {}, false), 16.25, 1e-9);
  EXPECT_NEAR(mfprio::billable_tres(w, 16, 60 * gib, 1, {}, false), 31.0, 1e-9);
}

TEST(TresBilling, DocumentedMaxTresExample) {
  std::vector<mfprio::TresWeight> w;
  std::string why;
  ASSERT_TRUE(mfprio::parse_tres_spec("CPU=1.0,Mem=0.25G", &w, &why, false)) << why;
  EXPECT_NEAR(mfprio::billable_tres(w, 1, 60 * 1024, 1, {}, true), 15.0, 1e-9);
  EXPECT_NEAR(mfprio::billable_tres(w, 16, 1024, 1, {}, true), 16.0, 1e-9);
  EXPECT_NEAR(mfprio::billable_tres(w, 16, 60 * 1024, 1, {}, true), 16.0, 1e-9);
}

TEST(TresBilling, NoWeightsBillsCpus) {
  EXPECT_EQ(mfprio::billable_tres({}, 7, 1e6, 3, {}, false), 7.0);
}

TEST(TresSpec, RejectsMalformedItems) {
  std::vector<mfprio::TresWeight> w;
  std::string why;
  EXPECT_FALSE(mfprio::parse_tres_spec("CPU", &w, &why, false));
  EXPECT_FALSE(mfprio::parse_tres_spec("CPU=abc", &w, &why, false));
  EXPECT_NE(why.find("'abc'"), std::string::npos) << why;
  EXPECT_FALSE(mfprio::parse_tres_spec("CPU=-1", &w, &why, false));
  EXPECT_TRUE(mfprio::parse_tres_spec("CPU=-1", &w, &why, true));
  EXPECT_FALSE(mfprio::parse_tres_spec("CPU=1,cpu=2", &w, &why, false));
  EXPECT_TRUE(mfprio::parse_tres_spec("GRES/gpu=2K", &w, &why, false));
  EXPECT_EQ(w[0].name, "gres/gpu");
  EXPECT_NEAR(w[0].weight, 2.0 / 1024, 1e-12);
}

TEST_F(Multifactor, PartitionFactorDocumentedExample) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).partition("A", 20).partition("B", 10);
  ASSERT_EQ(start({"PriorityWeightPartition=5000"}, b), MFPRIO_OK) << p->err();
  EXPECT_EQ(prio(job(1, "u", "a", "A")), 5000u);
  EXPECT_EQ(prio(job(2, "u", "a", "B")), 2500u);
}

TEST_F(Multifactor, PartitionFactorRawWithNoNormalPart) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).partition("A", 20).partition("B", 10);
  ASSERT_EQ(start({"PriorityWeightPartition=5000", "PriorityFlags=NO_NORMAL_PART"}, b), MFPRIO_OK) << p->err();
  EXPECT_EQ(prio(job(1, "u", "a", "A")), 100000u);
  EXPECT_EQ(prio(job(2, "u", "a", "B")), 50000u);
}

// Under Fair Tree the share table's columns come from the per-node level
// values and the snapshot's FairShare (no second ranking): every number must
// still be what the core's whole fair_share_fair_tree gives for the table's
// own tree, exactly, through FairShare=parent accounts and users, idle and
// zero-share users, ties, a user in two accounts, before and after a decay
// that folds in a job_end's charge.
TEST_F(Multifactor, FairTreeShareTableEqualsTheCoreAlgorithm) {
  StoreBuilder b;
  b.account("A", "root", 40).account("P", "A", 0, true).account("D", "root", 60).account("Z", "root", 0);
  b.user("u1", "A", 3, 500).user("u2", "A", 1, 0).user("u3", "P", 2, 250).user("u4", "P", 0, 10);
  b.user("u5", "D", 1, 300, 0, true).user("u6", "D", 5, 300).user("u7", "D", 5, 300).user("u8", "Z", 1, 0);
  b.user("u1", "D", 2, 40).user("u9", "P", 1, 0);
  ASSERT_EQ(start({"PriorityWeightFairshare=100000"}, b), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(77, "u2", "A");
  j.state = MFPRIO_JOB_COMPLETED;
  j.start_time = T0;
  j.cpus = 4;
  const int64_t end = T0 + 3600;
  ASSERT_EQ(p->ops.job_end(&j, end), MFPRIO_OK) << p->err();
  for (int pass = 0; pass < 2; ++pass) {
    if (pass) {
      ASSERT_EQ(p->ops.decay(T0 + 7200, nullptr, 0), MFPRIO_OK) << p->err();
    }
    mfprio_share_table_t* t = nullptr;
    ASSERT_EQ(p->ops.share_table(&t), MFPRIO_OK) << p->err();
    ASSERT_NE(t, nullptr);
    std::unique_ptr<mfprio_share_table_t, decltype(p->ops.share_table_free)> guard(t, p->ops.share_table_free);
    auto col = [&](const char* name) {
      for (uint32_t c = 0; c < t->column_count; ++c)
        if (std::string(t->columns[c].name) == name) return c;
      ADD_FAILURE() << "no column " << name;
      return 0u;
    };
    const uint32_t c_raw = col("raw_shares"), c_norm = col("norm_shares"), c_usage = col("raw_usage"),
                   c_nu = col("norm_usage"), c_eff = col("eff_usage"), c_fs = col("fairshare"),
                   c_lfs = col("level_fs");
    mfprio::ShareTree tree;
    for (size_t i = 0; i < t->row_count; ++i) {
      const mfprio_share_row_t& r = t->rows[i];
      const mfprio_share_cell_t& raw = r.cells[c_raw];
      const bool parent = raw.text && std::string(raw.text) == "parent";
      tree.add(r.parent, r.is_user != 0, raw.text ? 0.0 : raw.value, r.cells[c_usage].value, parent);
    }
    tree.finalize();
    mfprio::ShareResult want;
    mfprio::compute_fair_share(tree, mfprio::FairShareParams{}, want);
    for (size_t i = 0; i < t->row_count; ++i) {
      const mfprio_share_row_t& r = t->rows[i];
      const std::string who = std::string(r.account) + "/" + (r.user ? r.user : "") + " pass " + std::to_string(pass);
      const bool root = r.parent < 0;
      EXPECT_EQ(r.cells[c_usage].value, tree.usage[i]) << who;
      EXPECT_EQ(r.cells[c_norm].value, root ? 0.0 : want.norm_shares[i]) << who;
      EXPECT_EQ(r.cells[c_eff].value, want.eff_usage[i]) << who;
      if (!root) {
        EXPECT_EQ(r.cells[c_nu].text, nullptr) << who;
        EXPECT_EQ(r.cells[c_nu].value, want.norm_usage[i]) << who;
      }
      if (r.is_user) {
        EXPECT_EQ(r.cells[c_fs].text, nullptr) << who;
        EXPECT_EQ(r.cells[c_fs].value, want.fairshare[i]) << who;
      } else {
        EXPECT_STREQ(r.cells[c_fs].text, "") << who;
      }
      if (!root && !tree.shares_parent[i]) {
        EXPECT_EQ(r.cells[c_lfs].text, nullptr) << who;
        EXPECT_EQ(r.cells[c_lfs].value, want.level_fs[i]) << who;
      }
    }
  }
}

TEST_F(Multifactor, ClassicFairShareDocumentedExampleThroughPlugin) {
  ASSERT_EQ(start({"PriorityFlags=NO_FAIR_TREE", "PriorityWeightFairshare=1000000"}, classic_tree()),
            MFPRIO_OK) << p->err();
  const struct {
    const char *account, *user;
    double fs, eff;
  } want[] = {{"B", "User1", 0.408479, 0.3875}, {"C", "User2", 0.022097, 0.275},
              {"C", "User3", 0.125000, 0.15},   {"E", "User4", 0.500000, 0.25},
              {"F", "User5", 0.749154, 0.145833}};
  for (const auto& w : want) {
    auto r = p->row(w.account, w.user);
    EXPECT_NEAR(r.fairshare, w.fs, 1e-6) << w.user;
    EXPECT_NEAR(r.eff_usage, w.eff, 1e-6) << w.user;
  }
  EXPECT_NEAR(p->row("A").eff_usage, 0.45, 1e-6);
  // The factor reaches the job: 0.408479 x 1e6, truncated.
  EXPECT_NEAR(prio(job(1, "User1")), 408479.0, 1.0);
}

TEST_F(Multifactor, TicketBasedSeedExample) {
  ASSERT_EQ(start({"PriorityFlags=TICKET_BASED", "PriorityWeightFairshare=1000"}, classic_tree()),
            MFPRIO_OK) << p->err();
  // Only User2 and User5 have pending jobs; pricing them marks them active.
  prio(job(1, "User2"));
  prio(job(2, "User5"));
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p->err();
  const double u2 = p->row("C", "User2").fairshare, u5 = p->row("F", "User5").fairshare;
  EXPECT_NEAR(u5, 1.0, 1e-9);
  // A gets 1000 x .4(.4/.45) / (.4(.4/.45) + .6 x 2.4) = 198 tickets, D 802.
  const double a = 0.4 * (0.4 / 0.45), d = 0.6 * 2.4;
  EXPECT_NEAR(1000 * a / (a + d), 198.0, 0.5);
  EXPECT_NEAR(u2, a / d, 1e-6);
  EXPECT_NEAR(std::round(u2 * 100) / 100, 0.25, 1e-12);
  EXPECT_EQ(p->row("E", "User4").fairshare, 0.0);  // not active
}

TEST_F(Multifactor, UsageHalvesAfterOneHalfLife) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1, 1000);
  ASSERT_EQ(start({"PriorityDecayHalfLife=7-0"}, b), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1000.0, 1e-9);
  ASSERT_EQ(p->ops.decay(T0 + 7 * 86400, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 500.0, 1e-6);
  // ... and the store holds the same after a restart.
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db}), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 500.0, 1e-6);
}

TEST_F(Multifactor, RunningJobChargedWithPartitionBilling) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).partition("p", 1, "CPU=1.0,Mem=0.25G", true);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(9, "u", "a", "p");
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = T0;
  j.mem_mb = 60 * 1024;
  ASSERT_EQ(p->ops.decay(T0 + 100, &j, 1), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1600.0, 1e-9);  // 16 billing x 100 s
  // The next pass charges only the new interval.
  ASSERT_EQ(p->ops.decay(T0 + 150, &j, 1), MFPRIO_OK) << p->err();
  const double hl = 7 * 86400.0;
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1600.0 * std::exp2(-50 / hl) + 800.0, 1e-6);
}

TEST_F(Multifactor, ARunningJobStartingAfterThePassIsLeftOutAndTheOthersCharged) {
  // A node's clock a few minutes ahead: its job's start is after the pass.
  // It used to fail every pass, for everybody, until the clock caught up.
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).user("v", "a", 1);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  mfprio_job_t jobs[2] = {job(9, "u", "a"), job(10, "v", "a")};
  for (mfprio_job_t& j : jobs) {
    j.state = MFPRIO_JOB_RUNNING;
    j.cpus = 1;
  }
  jobs[0].start_time = T0;
  jobs[1].start_time = T0 + 100 + 300;  // 5 minutes after the pass
  ASSERT_EQ(p->ops.decay(T0 + 100, jobs, 2), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 100.0, 1e-9);
  EXPECT_NEAR(p->row("a", "v").raw_usage, 0.0, 1e-9);
  // The first pass past its start charges it from there.
  ASSERT_EQ(p->ops.decay(T0 + 500, jobs, 2), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "v").raw_usage, 100.0, 1e-6);
}

TEST_F(Multifactor, MaxTresBillsLargestNodeTres) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).partition("p", 1, "CPU=1.0,Mem=0.25G", true);
  ASSERT_EQ(start({"PriorityFlags=MAX_TRES"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(9, "u", "a", "p");
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = T0;
  j.mem_mb = 60 * 1024;
  ASSERT_EQ(p->ops.decay(T0 + 100, &j, 1), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1500.0, 1e-9);
}

TEST_F(Multifactor, QosUsageFactorScalesCharge) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).qos("normal", 0).qos("cheap", 0, 0.5);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(9, "u", "a");
  j.qos = "cheap";
  j.cpus = 4;
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = T0;
  ASSERT_EQ(p->ops.decay(T0 + 10, &j, 1), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 20.0, 1e-9);
}

TEST_F(Multifactor, JobEndChargesOnceAndPersists) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(5, "u", "a");
  j.state = MFPRIO_JOB_COMPLETED;
  j.start_time = T0;
  j.cpus = 2;
  p->set_clock(T0 + 100);  // the job ended now
  ASSERT_EQ(p->ops.job_end(&j, T0 + 100), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.job_end(&j, T0 + 100), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0 + 100, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 200.0, 1e-9);
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db}), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 200.0, 1e-9);
}

// Job ends between passes move usage only; the next pass adds them, in
// their order, to the snapshot's usage before it decays it (the plugin
// keeps no second copy of the usage): the user's row after the pass is the
// store's, and the fair share of the users differs as their usage does.
TEST_F(Multifactor, JobEndsBetweenPassesAreInTheNextPassAsTheStoreHasThem) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1, 1000).user("v", "a", 1, 1000).user("w", "a", 1, 1000);
  ASSERT_EQ(start({"PriorityDecayHalfLife=1-0"}, b), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p->err();
  auto end = [&](uint64_t id, const char* user, int64_t ran, uint32_t cpus) {
    mfprio_job_t j = job(id, user, "a");
    j.state = MFPRIO_JOB_COMPLETED;
    j.start_time = T0;
    j.cpus = cpus;
    p->set_clock(T0 + ran);
    ASSERT_EQ(p->ops.job_end(&j, T0 + ran), MFPRIO_OK) << p->err();
  };
  end(1, "u", 100, 2);
  end(2, "v", 300, 1);
  end(3, "u", 50, 4);
  // Not in the view before the pass (fair share follows at the next pass).
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1000.0, 1e-9);
  ASSERT_EQ(p->ops.decay(T0 + 43200, nullptr, 0), MFPRIO_OK) << p->err();
  const double f = std::exp2(-0.5);  // half a half-life
  const double u = p->row("a", "u").raw_usage, v = p->row("a", "v").raw_usage, w = p->row("a", "w").raw_usage;
  EXPECT_NEAR(u, (1000.0 + 200.0 + 200.0) * f, 1e-6);
  EXPECT_NEAR(v, (1000.0 + 300.0) * f, 1e-6);
  EXPECT_NEAR(w, 1000.0 * f, 1e-6);
  EXPECT_LT(p->row("a", "u").fairshare, p->row("a", "w").fairshare);
  // A second pass starts from the first's usage (nothing added twice).
  ASSERT_EQ(p->ops.decay(T0 + 86400, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1400.0 * 0.5, 1e-6);
  // The store holds the same.
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db}), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 700.0, 1e-6);
  EXPECT_NEAR(p->row("a", "v").raw_usage, 650.0, 1e-6);
}

TEST_F(Multifactor, WeightsSummingPast32BitsAreClampedAndCounted) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightAge=4000000000", "PriorityWeightFairshare=4000000000",
                   "PriorityMaxAge=1-0"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.eligible_time = T0 - 2 * 86400;
  mfprio_factors_t f = factors(j);
  EXPECT_EQ(f.priority, 4294967295u);
  EXPECT_EQ(f.clamped, MFPRIO_CLAMP_HIGH);
  EXPECT_NEAR(f.unclamped, 8e9, 1);
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(p->ops.plugin_stats(&st), MFPRIO_OK);
  EXPECT_EQ(st.clamped_high, 1u);
  // The start-up warned that the weights can overflow, the first clamp named its job.
  auto count = [&](const std::string& needle) {
    return std::count_if(p->logs.begin(), p->logs.end(),
                         [&](const std::string& l) { return l.find(needle) != std::string::npos; });
  };
  EXPECT_EQ(count("sum past 2^32-1"), 2);
  EXPECT_EQ(count("job 1: priority clamped"), 1);
  // More clamps are counted, not logged one by one; the decay pass sums them up.
  for (int i = 0; i < 50; ++i) factors(j);
  EXPECT_EQ(count("priority clamped"), 1);
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK);
  EXPECT_EQ(count("51 priorities clamped"), 1);
}

TEST_F(Multifactor, AgeGrowsToMaxAge) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightAge=1000", "PriorityMaxAge=1-0"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.eligible_time = T0 - 12 * 3600;
  EXPECT_EQ(prio(j), 500u);
  j.eligible_time = T0 - 5 * 86400;
  EXPECT_EQ(prio(j), 1000u);
  j.eligible_time = 0;  // not yet eligible: no age, priority floor 1
  EXPECT_EQ(prio(j), 1u);
  j.flags = MFPRIO_JOBF_DEPENDENT;
  j.eligible_time = T0 - 12 * 3600;
  EXPECT_EQ(prio(j), 1u);
}

TEST_F(Multifactor, AccrueAlwaysAgesFromSubmit) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightAge=1000", "PriorityMaxAge=1-0", "PriorityFlags=ACCRUE_ALWAYS"}, b),
            MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.submit_time = T0 - 6 * 3600;
  j.eligible_time = 0;
  j.flags = MFPRIO_JOBF_DEPENDENT;
  EXPECT_EQ(prio(j), 250u);
}

TEST_F(Multifactor, JobSizeFavorsLargeOrSmall) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightJobSize=1000"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.min_nodes = 2;
  j.cpus = 24;  // of 10 nodes, 240 cpus
  EXPECT_EQ(prio(j), 150u);
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db, "PriorityWeightJobSize=1000", "PriorityFavorSmall=YES"}),
            MFPRIO_OK) << p->err();
  EXPECT_EQ(prio(j), 850u);
}

TEST_F(Multifactor, SmallRelativeToTime) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightJobSize=100000", "PriorityFlags=SMALL_RELATIVE_TO_TIME"}, b),
            MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.min_nodes = 1;
  j.cpus = 12;
  j.time_limit_min = 60;
  // max(1 x 240/10, 12) / 60 / 240 = 24/14400
  EXPECT_EQ(prio(j), static_cast<uint32_t>(100000.0 * 24 / 14400));
}

TEST_F(Multifactor, QosAndAssocFactorsNormalize) {
  StoreBuilder b;
  b.account("a", "root", 1, false, 40).user("u", "a", 1).user("v", "a", 1, 0, 80);
  b.qos("normal", 50).qos("high", 100);
  ASSERT_EQ(start({"PriorityWeightQOS=1000", "PriorityWeightAssoc=1000"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  EXPECT_EQ(prio(j), 500u + 500u);  // normal QOS by default; assoc 40 (inherited) of 80
  mfprio_factors_t f = factors(j);
  EXPECT_STREQ(f.account_name, "a");  // the default account
  EXPECT_STREQ(f.qos_name, "normal");
  j.qos = "high";
  j.user = "v";
  EXPECT_EQ(prio(j), 1000u + 1000u);
}

TEST_F(Multifactor, TresFactorWeighsShareOfPartition) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightTRES=CPU=1000,GRES/gpu=2000"}, b), MFPRIO_OK) << p->err();
  mfprio_tres_t gpus[] = {{"gres/gpu", 2}};
  p->cluster_tres.clear();
  mfprio_job_t j = job(1, "u");
  j.cpus = 24;
  EXPECT_EQ(prio(j), 100u);  // 24/240 of 1000; no gpu total known
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  p = std::make_unique<Plugin>();
  mfprio_tres_t total[] = {{"gres/gpu", 8}};
  p->cluster_tres.assign(total, total + 1);
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db, "PriorityWeightTRES=CPU=1000,GRES/gpu=2000"}),
            MFPRIO_OK) << p->err();
  j.tres = gpus;
  j.tres_count = 1;
  EXPECT_EQ(prio(j), 100u + 500u);
  mfprio_factors_t f = factors(j);
  ASSERT_EQ(term_children(f, "tres"), 2u);
  EXPECT_NEAR(term(f, "gres/gpu").factor, 0.25, 1e-12);
  EXPECT_EQ(term(f, "gres/gpu").parent, static_cast<int32_t>(term_index(f, "tres")));
}

// plugin_info_json: the TRES weights (a term with no weight of its own) nest
// under "tres"; the view's weights keep the TRES weights as written.
TEST_F(Multifactor, InfoJsonNestsTresWeightsUnderTres) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightAge=10", "PriorityWeightTRES=CPU=1000,GRES/gpu=2000"}, b), MFPRIO_OK) << p->err();
  char* raw = nullptr;
  ASSERT_EQ(p->ops.plugin_info_json(&raw), MFPRIO_OK) << p->err();
  const std::string info = raw ? raw : "";
  p->ops.free_string(raw);
  EXPECT_NE(info.find(R"("weights":{"age":10.0,)"), std::string::npos) << info;
  EXPECT_NE(info.find(R"("tres":{"cpu":1000.0,"gres/gpu":2000.0})"), std::string::npos) << info;
  EXPECT_NE(info.find(R"("tres":"CPU=1000,GRES/gpu=2000")"), std::string::npos) << info;
}

TEST_F(Multifactor, SiteFactorAddsNiceSubtractsIncrOnlyKeeps) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightPartition=1000", "PriorityFlags=INCR_ONLY"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.site_factor = 70;
  j.nice = 20;
  EXPECT_EQ(prio(j), 1000u + 70u - 20u);
  j.prev_priority = 5000;
  EXPECT_EQ(prio(j), 5000u);
  j.nice = -20;
  uint32_t v;
  EXPECT_EQ(p->ops.set_priority(&j, T0, &v), MFPRIO_EPERM);
  EXPECT_NE(p->err().find("job 1"), std::string::npos) << p->err();
  j.flags = MFPRIO_JOBF_NICE_ADMIN;
  j.prev_priority = 0;
  EXPECT_EQ(prio(j), 1000u + 70u + 20u);
}

TEST_F(Multifactor, HeldJobsGetZero) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({"PriorityWeightPartition=1000"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t j = job(1, "u");
  j.state = MFPRIO_JOB_HELD;
  EXPECT_EQ(prio(j), 0u);
}

TEST_F(Multifactor, UnknownUserAccountPartitionQosNameTheJob) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).partition("batch", 1, "", true).qos("normal", 0);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  uint32_t v;
  const struct {
    mfprio_job_t j;
    const char* needle;
  } cases[] = {{job(7, "nobody"), "nobody"},
               {job(8, "u", "zz"), "zz"},
               {job(9, "u", "a", "gpu"), "gpu"}};
  for (const auto& c : cases) {
    EXPECT_EQ(p->ops.set_priority(&c.j, T0, &v), MFPRIO_ENOENT);
    EXPECT_NE(p->err().find(std::to_string(c.j.job_id)), std::string::npos) << p->err();
    EXPECT_NE(p->err().find(c.needle), std::string::npos) << p->err();
  }
  mfprio_job_t q = job(10, "u");
  q.qos = "premium";
  EXPECT_EQ(p->ops.set_priority(&q, T0, &v), MFPRIO_ENOENT);
  EXPECT_NE(p->err().find("premium"), std::string::npos) << p->err();
}

TEST_F(Multifactor, ConfErrorsNameFileLineAndKey) {
  StoreBuilder b;
  const struct {
    std::string line, needle;
  } cases[] = {{"PriorityFlags=FAIR_TREE,BOGUS", "BOGUS"},
               {"PriorityWeightTRES=CPU=abc", "PriorityWeightTRES"},
               {"PriorityWeightAge=-5", "negative"},
               {"PriorityDecayHalfLife=soon", "PriorityDecayHalfLife"},
               {"PriorityUsageResetPeriod=HOURLY", "HOURLY"},
               {"FairShareDampeningFactor=0", "FairShareDampeningFactor"}};
  for (const auto& c : cases) {
    p = std::make_unique<Plugin>();
    ASSERT_EQ(p->init({"PriorityWeightAge=1", c.line, "AccountingStorageLoc=" + db}), MFPRIO_ECONF)
        << c.line;
    EXPECT_NE(p->err().find("test.conf:2"), std::string::npos) << p->err();
    EXPECT_NE(p->err().find(c.needle), std::string::npos) << p->err();
  }
}

TEST_F(Multifactor, BatchMatchesSingleCalls) {
  StoreBuilder b;
  b.account("a", "root", 3).account("c", "root", 1).partition("x", 3).partition("y", 7);
  for (int u = 0; u < 20; ++u) b.user("u" + std::to_string(u), u % 2 ? "a" : "c", 1 + u % 3, u * 100.0);
  ASSERT_EQ(start({"PriorityWeightAge=1000", "PriorityWeightFairshare=10000", "PriorityWeightJobSize=500",
                   "PriorityWeightPartition=2000", "PriorityWeightTRES=CPU=300"}, b), MFPRIO_OK) << p->err();
  std::mt19937 rng(42);
  std::vector<std::string> users;
  for (int u = 0; u < 20; ++u) users.push_back("u" + std::to_string(u));
  std::vector<mfprio_job_t> jobs;
  for (int i = 0; i < 500; ++i) {
    mfprio_job_t j = job(i + 1, users[rng() % 20].c_str(), nullptr, rng() % 2 ? "x" : "y");
    j.cpus = 1 + rng() % 64;
    j.eligible_time = T0 - static_cast<int64_t>(rng() % 1000000);
    if (i % 2) {
      ASSERT_EQ(p->ops.job_resolve(&j), MFPRIO_OK) << p->err();
    }
    jobs.push_back(j);
  }
  std::vector<uint32_t> batch(jobs.size());
  std::vector<int> st(jobs.size(), -99);
  ASSERT_EQ(p->ops.set_priority_batch(jobs.data(), jobs.size(), T0, batch.data(), st.data()), MFPRIO_OK);
  for (size_t i = 0; i < jobs.size(); ++i) {
    EXPECT_EQ(st[i], MFPRIO_OK);
    EXPECT_EQ(batch[i], prio(jobs[i])) << i;
  }
  // A bad record fails alone.
  jobs[3].user = "ghost";
  jobs[3].handle = mfprio_handle_t{};  // a changed record is resolved again
  EXPECT_EQ(p->ops.set_priority_batch(jobs.data(), jobs.size(), T0, batch.data(), st.data()), MFPRIO_ENOENT);
  EXPECT_EQ(st[3], MFPRIO_ENOENT);
  EXPECT_EQ(batch[3], 0u);
  EXPECT_EQ(st[4], MFPRIO_OK);
  EXPECT_NE(p->err().find("ghost"), std::string::npos) << p->err();
  // A resolved record whose nice turned negative is still checked.
  jobs[5].nice = -3;
  p->ops.set_priority_batch(jobs.data(), jobs.size(), T0, batch.data(), st.data());
  EXPECT_EQ(st[5], MFPRIO_EPERM);
  EXPECT_EQ(batch[5], 0u);
}

// The batch's fast path takes a resolved record only when the one record
// check (policy.hpp: check_job) would: a record set_priority refuses is
// refused in a batch too, with the same status, never priced.
TEST_F(Multifactor, BatchRefusesWhatSetPriorityRefuses) {
  StoreBuilder b;
  b.account("a", "root", 1).partition("x", 1).user("u", "a", 1, 100.0);
  ASSERT_EQ(start({"PriorityWeightAge=1000", "PriorityWeightTRES=CPU=300,GRES/gpu=100"}, b), MFPRIO_OK) << p->err();
  static const mfprio_tres_t nan_gpu[] = {{"gres/gpu", std::nan("")}};
  static const mfprio_tres_t inf_gpu[] = {{"gres/gpu", HUGE_VAL}};
  std::vector<std::function<void(mfprio_job_t&)>> faults = {
      [](mfprio_job_t& j) { j.tres = nan_gpu, j.tres_count = 1; },
      [](mfprio_job_t& j) { j.tres = inf_gpu, j.tres_count = 1; },
      [](mfprio_job_t& j) { j.submit_time = -5; },
      [](mfprio_job_t& j) { j.eligible_time = MFPRIO_TIME_MAX + 1; },
      [](mfprio_job_t& j) { j.flags |= MFPRIO_JOBF_URGENCY, j.urgency = 40; },
      [](mfprio_job_t& j) { j.user_priority = 5; },
  };
  for (size_t f = 0; f < faults.size(); ++f) {
    mfprio_job_t j = job(1, "u", nullptr, "x");
    j.eligible_time = T0 - 100;
    ASSERT_EQ(p->ops.job_resolve(&j), MFPRIO_OK) << p->err();  // resolved while whole
    faults[f](j);
    uint32_t single = 7;
    const int want = p->ops.set_priority(&j, T0, &single);
    ASSERT_NE(want, MFPRIO_OK) << "fault " << f;
    uint32_t got = 7;
    int status = MFPRIO_OK;
    EXPECT_EQ(p->ops.set_priority_batch(&j, 1, T0, &got, &status), want) << "fault " << f;
    EXPECT_EQ(status, want) << "fault " << f;
    EXPECT_EQ(got, 0u) << "fault " << f;
  }
}

TEST_F(Multifactor, AdminChangesAreSeenAtTheNextDecay) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  uint32_t v;
  mfprio_job_t j = job(1, "newbie");
  EXPECT_EQ(p->ops.set_priority(&j, T0, &v), MFPRIO_ENOENT);
  StoreBuilder more;
  more.user("newbie", "a", 1);
  more.write(db);  // another connection, as mfprio-acct would
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_EQ(p->ops.set_priority(&j, T0, &v), MFPRIO_OK) << p->err();
}

TEST_F(Multifactor, CallsOutOfOrderAreRefused) {
  p = std::make_unique<Plugin>();
  uint32_t v;
  mfprio_job_t j = job(1, "u");
  EXPECT_EQ(p->ops.set_priority(&j, T0, &v), MFPRIO_ESTATE);
  EXPECT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_ESTATE);
  EXPECT_EQ(p->init({}), MFPRIO_ECONF);  // no AccountingStorageLoc
  EXPECT_NE(p->err().find("AccountingStorageLoc"), std::string::npos);
}

TEST_F(Multifactor, DecayBackwardsInTimeIsRefused) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1, 100);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0, nullptr, 0), MFPRIO_OK);
  EXPECT_EQ(p->ops.decay(T0 - 10, nullptr, 0), MFPRIO_EINVAL);
  EXPECT_NEAR(p->row("a", "u").raw_usage, 100.0, 1e-9);
}

TEST_F(Multifactor, ReadersDuringDecaySeeOnlyWholeSnapshots) {
  StoreBuilder b;
  b.account("a", "root", 1).account("c", "root", 1);
  b.user("u", "a", 1, 1000).user("v", "c", 1, 1000);
  ASSERT_EQ(start({"PriorityWeightFairshare=1000000", "PriorityFlags=NO_FAIR_TREE",
                   "PriorityDecayHalfLife=1:00:00"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t ju = job(1, "u"), jv = job(2, "v");
  ASSERT_EQ(p->ops.job_resolve(&ju), MFPRIO_OK);
  ASSERT_EQ(p->ops.job_resolve(&jv), MFPRIO_OK);
  mfprio_job_t running = job(3, "u");
  running.state = MFPRIO_JOB_RUNNING;
  running.start_time = T0;
  running.cpus = 64;
  // Each pass charges u more, so u's priority falls pass by pass; a reader
  // must only ever see (u, v) pairs that some whole snapshot produced.
  std::set<std::pair<uint32_t, uint32_t>> published;
  auto pair_now = [&] {
    mfprio_job_t two[2] = {ju, jv};
    uint32_t pr[2];
    EXPECT_EQ(p->ops.set_priority_batch(two, 2, T0, pr, nullptr), MFPRIO_OK);
    return std::make_pair(pr[0], pr[1]);
  };
  published.insert(pair_now());
  std::atomic<bool> stop{false};
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> seen(2);
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&, r] {
      while (!stop.load()) seen[r].insert(pair_now());
    });
  for (int i = 1; i <= 40; ++i) {
    ASSERT_EQ(p->ops.decay(T0 + 60 * i, &running, 1), MFPRIO_OK) << p->err();
    published.insert(pair_now());
  }
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_GT(published.size(), 20u);
  for (const auto& s : seen)
    for (const auto& pr : s) EXPECT_TRUE(published.count(pr)) << pr.first << "," << pr.second;
}

TEST_F(Multifactor, HandlesFromAnEarlierInitAreNeverTrusted) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1, 0, 10).user("w", "a", 1, 0, 90);
  ASSERT_EQ(start({"PriorityWeightAssoc=1000"}, b), MFPRIO_OK) << p->err();
  mfprio_job_t old = job(1, "w");
  ASSERT_EQ(p->ops.job_resolve(&old), MFPRIO_OK);
  EXPECT_EQ(prio(old), 1000u);
  ASSERT_EQ(p->fini(), MFPRIO_OK);
  StoreBuilder more;  // a user sorting first shifts every association's index
  more.user("aaa", "a", 1, 0, 50);
  more.write(db);
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init({"AccountingStorageLoc=" + db, "PriorityWeightAssoc=1000"}), MFPRIO_OK) << p->err();
  EXPECT_EQ(prio(old), 1000u);  // still w's association, not whoever holds its old index
}

TEST_F(Multifactor, JobEndBatchChargesAllInOneCallOrNone) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1).user("v", "a", 1);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  std::vector<mfprio_job_t> ended;
  for (uint64_t id = 1; id <= 3; ++id) {
    mfprio_job_t j = job(id, id == 3 ? "v" : "u", "a");
    j.state = MFPRIO_JOB_COMPLETED;
    j.start_time = T0;
    j.cpus = static_cast<uint32_t>(id);
    ended.push_back(j);
  }
  const int64_t ends[] = {T0 + 10, T0 + 20, T0 + 30};
  // A bad record (no start time) anywhere: nothing is charged.
  std::vector<mfprio_job_t> bad = ended;
  bad[2].start_time = 0;
  EXPECT_EQ(p->ops.job_end_batch(bad.data(), bad.size(), ends), MFPRIO_EINVAL);
  EXPECT_NE(p->err().find("job 3"), std::string::npos) << p->err();
  ASSERT_EQ(p->ops.decay(T0 + 30, nullptr, 0), MFPRIO_OK);
  EXPECT_EQ(p->row("a", "u").raw_usage, 0.0);
  // An association that is gone (a user not in the store): that job is not
  // charged, with a warning naming it; the others are (mfprio-acct(1), DURABILITY).
  std::vector<mfprio_job_t> ghost = ended;
  ghost[2].user = "ghost";
  p->logs.clear();
  EXPECT_EQ(p->ops.job_end_batch(ghost.data(), ghost.size(), ends), MFPRIO_OK) << p->err();
  std::string logged;
  for (const std::string& l : p->logs) logged += l + "\n";
  EXPECT_NE(logged.find("job 3"), std::string::npos) << logged;
  EXPECT_NE(logged.find("ghost"), std::string::npos) << logged;
  ASSERT_EQ(p->ops.decay(T0 + 30, nullptr, 0), MFPRIO_OK);
  EXPECT_NEAR(p->row("a", "u").raw_usage, 50.0, 1e-9);
  EXPECT_EQ(p->row("a", "v").raw_usage, 0.0);
  // All good: 1 cpu x 10 s + 2 cpus x 20 s for u, 3 x 30 for v; twice = once.
  ASSERT_EQ(p->ops.job_end_batch(ended.data(), ended.size(), ends), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.job_end_batch(ended.data(), ended.size(), ends), MFPRIO_OK) << p->err();
  ASSERT_EQ(p->ops.decay(T0 + 30, nullptr, 0), MFPRIO_OK);
  EXPECT_NEAR(p->row("a", "u").raw_usage, 50.0, 1e-9);
  EXPECT_NEAR(p->row("a", "v").raw_usage, 90.0, 1e-9);
}

// Two hosts on one store (a controller and an admin's
// decay, a backup controller) decay an hour once, and a pass dated before
// the store's last pass applies nothing and does not move it back.
TEST_F(Multifactor, TwoHostsOnOneStoreDecayEachHourOnce) {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1, 1000);
  b.write(db);
  const std::vector<std::string> conf = {"AccountingStorageLoc=" + db, "PriorityDecayHalfLife=1:00:00"};
  OtherHost first(plugin_path("priority_multifactor.so"), conf),
      second(plugin_path("priority_multifactor.so"), conf);  // forked before this process loads the plugin
  ASSERT_EQ(first.decay(T0), 0);         // the store's first pass
  p = std::make_unique<Plugin>();
  ASSERT_EQ(p->init(conf), MFPRIO_OK) << p->err();  // its snapshot: last pass T0
  ASSERT_EQ(second.decay(T0 + 3600), 0);            // the other host: 1000 -> 500
  auto last_pass = [&] {
    mfprio_stats_t st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(p->ops.plugin_stats(&st), MFPRIO_OK);
    return st.last_decay;
  };
  // A pass dated before the store's last one (this host's snapshot is
  // older): nothing decayed, and the store's pass time does not move back.
  ASSERT_EQ(p->ops.decay(T0 + 1800, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 500.0, 1e-6);
  EXPECT_EQ(last_pass(), T0 + 3600);
  // The same hour again: applied once, not twice (not 250).
  ASSERT_EQ(p->ops.decay(T0 + 3600, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 500.0, 1e-6);
  ASSERT_EQ(p->ops.decay(T0 + 7200, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 250.0, 1e-6);
  EXPECT_EQ(last_pass(), T0 + 7200);
}

// A user deleted while a job runs does not stop the
// passes, and a new user taking the deleted one's row id is never charged
// the old user's job.
TEST_F(Multifactor, VanishedAssociationIsNotChargedAndNobodyElseIs) {
  StoreBuilder b;
  b.account("a", "root", 1).user("alice", "a", 1).user("bob", "a", 1);
  ASSERT_EQ(start({}, b), MFPRIO_OK) << p->err();
  mfprio_job_t bj = job(7, "bob", "a");
  bj.state = MFPRIO_JOB_RUNNING;
  bj.start_time = T0;
  bj.cpus = 4;
  mfprio_job_t aj = job(8, "alice", "a");
  aj.state = MFPRIO_JOB_RUNNING;
  aj.start_time = T0;
  ASSERT_EQ(p->ops.job_resolve(&bj), MFPRIO_OK) << p->err();
  mfprio_job_t run[] = {bj, aj};
  ASSERT_EQ(p->ops.decay(T0 + 10, run, 2), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "bob").raw_usage, 40.0, 1e-9);
  // The admin deletes bob and adds carol (she takes bob's row id).
  {
    auto st = mfprio::acct::Store::open(db, mfprio::acct::OpenOptions{});
    mfprio::acct::AdminChanges del;
    del.delete_users.push_back("bob");
    st->apply_admin(del);
    StoreBuilder c;
    c.user("carol", "a", 1);
    st->apply_admin(c.ch);
  }
  p->logs.clear();
  ASSERT_EQ(p->ops.decay(T0 + 20, run, 2), MFPRIO_OK) << p->err();  // the old snapshot's handle
  ASSERT_EQ(p->ops.decay(T0 + 30, run, 2), MFPRIO_OK) << p->err();  // bob gone from the snapshot too
  EXPECT_EQ(p->row("a", "carol").raw_usage, 0.0);
  EXPECT_NEAR(p->row("a", "alice").raw_usage, 30.0, 1e-3);  // every other charge went ahead
  std::string logged;
  for (const std::string& l : p->logs) logged += l + "\n";
  EXPECT_NE(logged.find("job 7"), std::string::npos) << logged;
  EXPECT_NE(logged.find("bob"), std::string::npos) << logged;
}

// A handle kept after the job's user, account, QOS or
// partition changed is not trusted: the record is priced (and charged) by its
// own names, on every path, batch included.
TEST_F(Multifactor, HandleOfAnotherRecordIsNotTrusted) {
  StoreBuilder b;
  b.account("a", "root", 1, false, 10).account("b", "root", 1, false, 90);
  b.user("u", "a", 1).user("u", "b", 1).user("w", "a", 1);
  b.qos("normal", 0).qos("high", 100);
  b.partition("p", 1, "", true).partition("q", 5);
  ASSERT_EQ(start({"PriorityWeightAssoc=1000", "PriorityWeightQOS=10000", "PriorityWeightPartition=100000"}, b),
            MFPRIO_OK)
      << p->err();
  auto rec = [](uint64_t id, const char* user, const char* account, const char* part, const char* qos) {
    mfprio_job_t j = job(id, user, account, part);
    j.qos = qos;
    return j;
  };
  const std::vector<mfprio_job_t> recs = {rec(1, "u", "a", "p", "normal"), rec(2, "u", "b", "p", "normal"),
                                          rec(3, "u", "a", "q", "normal"), rec(4, "u", "a", "p", "high"),
                                          rec(5, "w", "a", "p", "normal"), rec(6, "u", "", "", ""),
                                          rec(7, "w", nullptr, "q", "high")};
  for (size_t i = 0; i < recs.size(); ++i)
    for (size_t k = 0; k < recs.size(); ++k) {
      mfprio_job_t donor = recs[k];
      ASSERT_EQ(p->ops.job_resolve(&donor), MFPRIO_OK) << p->err();
      mfprio_job_t r = recs[i];
      const uint32_t want = prio(r);  // by name (a zeroed handle)
      r.handle = donor.handle;
      EXPECT_EQ(prio(r), want) << "record " << i << " with the handle of " << k;
      uint32_t got = 0;
      int status = -1;
      ASSERT_EQ(p->ops.set_priority_batch(&r, 1, T0, &got, &status), MFPRIO_OK) << p->err();
      EXPECT_EQ(got, want) << "batch: record " << i << " with the handle of " << k;
    }
}
