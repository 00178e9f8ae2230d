// test_conf_partitions.cpp - slurm.conf through the real parser and the real
// plugins: slurm.conf's PartitionName lines used by priority/multifactor
// (factor, default, billing, Nodes= totals; the store overriding, a
// conflict warned once; an unknown partition a per-job error), the checks
// every family makes at init (Priority* typos, TRES names, every error at
// once) and the default store location.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include "conf.hpp"
#include "harness.hpp"

namespace mfprio::test {
namespace {

constexpr int64_t T0 = 1'700'000'000;

class ConfPartitions : public ::testing::Test {
 protected:
  TempDir dir;
  std::string db = store_location(dir, "acct.db");
  std::unique_ptr<Plugin> p;

  // Writes slurm.conf (with the store line), reads it with the real parser
  // and starts the plugin on its pairs.
  int start(const std::string& text, StoreBuilder b, const char* so = "priority_multifactor.so",
            bool with_store_key = true) {
    b.write(db);
    const std::string conf = dir.file("slurm.conf");
    // SQLite: relative to the conf's directory, as sites write it; PostgreSQL: the URI.
    const std::string key = on_postgresql() ? db : std::string("acct.db");
    std::ofstream(conf) << text << (with_store_key ? "AccountingStorageLoc=" + key + "\n" : "");
    pairs_ = Conf::load(conf).pairs();
    p = std::make_unique<Plugin>(plugin_path(so));
    return p->init_pairs(pairs_, T0);
  }
  uint32_t prio(const mfprio_job_t& j) {
    uint32_t v = 0;
    EXPECT_EQ(p->ops.set_priority(&j, T0, &v), MFPRIO_OK) << p->err();
    return v;
  }
  size_t warnings_about(const std::string& needle) const {
    size_t n = 0;
    for (const std::string& l : p->logs)
      if (l.rfind(std::to_string(MFPRIO_LOG_WARNING) + " ", 0) == 0 && l.find(needle) != std::string::npos) ++n;
    return n;
  }

  std::vector<ConfPair> pairs_;
};

StoreBuilder one_user() {
  StoreBuilder b;
  b.account("a", "root", 1).user("u", "a", 1);
  return b;
}

TEST_F(ConfPartitions, PartitionLinesGiveTheFactorAndTheDefault) {
  ASSERT_EQ(start("PriorityWeightPartition=1000\n"
                  "PartitionName=DEFAULT PriorityJobFactor=5 State=UP\n"
                  "PartitionName=high Nodes=ALL PriorityJobFactor=20 Default=YES MaxTime=INFINITE\n"
                  "PartitionName=low Nodes=ALL\n",
                  one_user()),
            MFPRIO_OK)
      << p->err();
  EXPECT_EQ(prio(job(1, "u", "a", "high")), 1000u);
  EXPECT_EQ(prio(job(2, "u", "a", "low")), 250u);  // DEFAULT's factor 5 of the largest, 20
  EXPECT_EQ(prio(job(3, "u")), 1000u);             // no partition: Default=YES
}

TEST_F(ConfPartitions, UnknownPartitionIsAPerJobErrorNamingJobAndPartition) {
  ASSERT_EQ(start("PriorityWeightPartition=1000\nPartitionName=batch Default=YES\n", one_user()), MFPRIO_OK)
      << p->err();
  uint32_t v = 77;
  mfprio_job_t bad = job(42, "u", "a", "nowhere");
  EXPECT_EQ(p->ops.set_priority(&bad, T0, &v), MFPRIO_ENOENT);
  EXPECT_NE(p->err().find("job 42"), std::string::npos) << p->err();
  EXPECT_NE(p->err().find("'nowhere'"), std::string::npos) << p->err();
  // In a batch only that record fails; the others are priced.
  mfprio_job_t jobs[] = {job(1, "u", "a", "batch"), bad, job(3, "u")};
  uint32_t prios[3] = {};
  int st[3] = {};
  EXPECT_NE(p->ops.set_priority_batch(jobs, 3, T0, prios, st), MFPRIO_OK);
  EXPECT_EQ(st[0], MFPRIO_OK);
  EXPECT_EQ(st[1], MFPRIO_ENOENT);
  EXPECT_EQ(st[2], MFPRIO_OK);
  EXPECT_EQ(prios[0], 1000u);
  EXPECT_EQ(prios[2], 1000u);
}

TEST_F(ConfPartitions, StoreOverridesAndAddsAndAConflictIsWarnedOnce) {
  StoreBuilder b = one_user();
  b.partition("high", 10).partition("mid", 20);
  ASSERT_EQ(start("PriorityWeightPartition=1000\n"
                  "PartitionName=high PriorityJobFactor=40\n"
                  "PartitionName=low PriorityJobFactor=5\n",
                  b),
            MFPRIO_OK)
      << p->err();
  EXPECT_EQ(prio(job(1, "u", "a", "high")), 500u);  // the store's 10 of the largest, 20
  EXPECT_EQ(prio(job(2, "u", "a", "mid")), 1000u);  // added by the store
  EXPECT_EQ(prio(job(3, "u", "a", "low")), 250u);   // the conf's own
  EXPECT_EQ(warnings_about("partition 'high'"), 1u);
  EXPECT_EQ(warnings_about("PriorityJobFactor 40 vs 10"), 1u);
  EXPECT_EQ(warnings_about("partition 'mid'"), 0u);
  // A reload (an admin's edit) does not repeat it.
  StoreBuilder more;
  more.user("v", "a", 1);
  more.write(db);
  ASSERT_EQ(p->ops.decay(T0 + 300, nullptr, 0), MFPRIO_OK) << p->err();
  EXPECT_EQ(prio(job(4, "v", "a", "high")), 500u);
  EXPECT_EQ(warnings_about("partition 'high'"), 1u);
}

TEST_F(ConfPartitions, NodesGiveThePartitionsTresTotals) {
  ASSERT_EQ(start("PriorityWeightTRES=CPU=1000,GRES/gpu=2000\n"
                  "NodeName=DEFAULT RealMemory=1000\n"
                  "NodeName=g[1-2] CPUs=32 Gres=gpu:4\n"
                  "NodeName=c[01-06] CPUs=64\n"
                  "NodeSet=gpunodes Nodes=g[1-2]\n"
                  "PartitionName=gpu Nodes=gpunodes\n"
                  "PartitionName=cpu Nodes=c[01-06],c01\n",
                  one_user()),
            MFPRIO_OK)
      << p->err();
  mfprio_tres_t gpus[] = {{"gres/gpu", 2}};
  mfprio_job_t j = job(1, "u", "a", "gpu");
  j.cpus = 16;
  j.tres = gpus;
  j.tres_count = 1;
  mfprio_factors_t f{};
  f.struct_size = sizeof f;
  ASSERT_EQ(p->ops.job_factors(&j, T0, &f), MFPRIO_OK) << p->err();
  EXPECT_NEAR(term(f, "gres/gpu").factor, 2.0 / 8.0, 1e-12);  // 2 of the partition's 2 x 4
  EXPECT_NEAR(term(f, "cpu").factor, 16.0 / 64.0, 1e-12);     // 16 of 2 x 32
  mfprio_job_t c = job(2, "u", "a", "cpu");
  c.cpus = 96;
  ASSERT_EQ(p->ops.job_factors(&c, T0, &f), MFPRIO_OK) << p->err();
  EXPECT_NEAR(term(f, "cpu").factor, 96.0 / 384.0, 1e-12);  // c01 counted once: 6 x 64
}

TEST_F(ConfPartitions, PartitionBillingWeightsChargeUsage) {
  ASSERT_EQ(start("PartitionName=p Default=YES TRESBillingWeights=CPU=1.0,Mem=0.25G\n", one_user()), MFPRIO_OK)
      << p->err();
  mfprio_job_t j = job(9, "u", "a", "p");
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = T0;
  j.mem_mb = 60 * 1024;
  ASSERT_EQ(p->ops.decay(T0 + 100, &j, 1), MFPRIO_OK) << p->err();
  EXPECT_NEAR(p->row("a", "u").raw_usage, 1600.0, 1e-9);  // 1 CPU + 60 GiB x 0.25 = 16 x 100 s
}

TEST_F(ConfPartitions, PartitionNodeThatExistsNowhereIsAnError) {
  EXPECT_EQ(start("NodeName=n[1-2] CPUs=4\nPartitionName=p Nodes=n[1-3]\n", one_user()), MFPRIO_ECONF);
  EXPECT_NE(p->err().find(dir.file("slurm.conf") + ":2: Nodes: 'n3'"), std::string::npos) << p->err();
}

// --- the key checks, every family ------------------------------------------

TEST_F(ConfPartitions, PriorityTypoIsAnErrorWithASuggestion) {
  EXPECT_EQ(start("PriorityWeightAge=10\nPriorityWeightFairShar=10000\n", one_user()), MFPRIO_ECONF);
  EXPECT_NE(p->err().find(dir.file("slurm.conf") +
                          ":2: unknown key 'PriorityWeightFairShar' (did you mean PriorityWeightFairshare?)"),
            std::string::npos)
      << p->err();
  // Partition-line keys that start with Priority are not top-level keys.
  EXPECT_EQ(start("PartitionName=x PriorityTier=2 PriorityJobFactor=3\n", one_user()), MFPRIO_OK) << p->err();
}

TEST_F(ConfPartitions, EveryFamilyRefusesAPriorityTypo) {
  for (const char* so : {"priority_maui.so", "priority_gridengine.so", "priority_flux.so", "priority_basic.so"}) {
    EXPECT_EQ(start("PriorityFlgs=MAX_TRES\n", one_user(), so), MFPRIO_ECONF) << so;
    EXPECT_NE(p->err().find("did you mean PriorityFlags?"), std::string::npos) << so << ": " << p->err();
  }
}

TEST_F(ConfPartitions, UnknownTresNamesAreErrorsNamingFileLineKeyAndName) {
  EXPECT_EQ(start("PriorityWeightTRES=CPU=1000,Meme=2000\n"
                  "AccountingStorageTRES=gres/gpu,mytres\n"
                  "PartitionName=p TRESBillingWeights=CPU=1,Mytres=2,Bogus=1\n",
                  one_user()),
            MFPRIO_ECONF);
  const std::string conf = dir.file("slurm.conf");
  EXPECT_NE(p->err().find(conf + ":1: PriorityWeightTRES: unknown TRES 'meme'"), std::string::npos) << p->err();
  EXPECT_NE(p->err().find(conf + ":3: TRESBillingWeights: unknown TRES 'bogus'"), std::string::npos) << p->err();
  EXPECT_EQ(p->err().find("'mytres'"), std::string::npos) << p->err();  // the cluster's own
  EXPECT_EQ(p->err().find("'cpu'"), std::string::npos) << p->err();
  // Known kinds pass.
  EXPECT_EQ(start("PriorityWeightTRES=CPU=1,Mem=1,Node=1,Energy=1,Billing=1,GRES/gpu:a100=1,License/matlab=1,"
                  "BB/datawarp=1,FS/disk=1,FS/lustre=1,IC/ofed=1,VMem=1,Pages=1\n",
                  one_user()),
            MFPRIO_OK)
      << p->err();
}

TEST_F(ConfPartitions, EveryErrorIsReportedAtOnce) {
  EXPECT_EQ(start("PriorityWeightAge=ten\n"
                  "PriorityWeightFairShar=1\n"
                  "PriorityWeightTRES=Meme=1\n"
                  "PriorityFlags=NO_SUCH_FLAG\n"
                  "PartitionName=p PriorityJobFactor=99999\n",
                  one_user()),
            MFPRIO_ECONF);
  const std::string e = p->err();
  const std::string conf = dir.file("slurm.conf");
  for (const char* where : {":1: PriorityWeightAge", ":2: unknown key", ":3: PriorityWeightTRES",
                                   ":4: PriorityFlags", ":5: PriorityJobFactor"})
    EXPECT_NE(e.find(conf + where), std::string::npos) << where << " in:\n" << e;
  EXPECT_EQ(std::count(e.begin(), e.end(), '\n'), 4) << e;  // five errors, one per line
  // In line order, whoever found them (the common check or the family).
  size_t last = 0;
  for (const char* where : {":1:", ":2:", ":3:", ":4:", ":5:"}) {
    const size_t at = e.find(conf + where);
    EXPECT_GE(at, last) << where << " in:\n" << e;
    last = at;
  }
}

// --- the store location --------------------------------------------------------

TEST_F(ConfPartitions, WithoutAccountingStorageLocTheStoreIsInStateSaveLocation) {
  std::filesystem::create_directory(dir.file("state"));
  StoreBuilder b = one_user();
  b.write(dir.file("state/mfprio.db"));
  ASSERT_EQ(start("StateSaveLocation=state\nPriorityWeightPartition=1\n", StoreBuilder(), "priority_multifactor.so",
                  /*with_store_key=*/false),
            MFPRIO_OK)
      << p->err();
  EXPECT_EQ(prio(job(1, "u")), 1u);  // the user exists only in state/mfprio.db
}

TEST_F(ConfPartitions, WithoutEitherKeyTheStoreIsBesideTheConf) {
  ASSERT_EQ(start("PriorityWeightAge=1\n", StoreBuilder(), "priority_multifactor.so", false), MFPRIO_OK)
      << p->err();
  EXPECT_TRUE(std::filesystem::exists(dir.file("mfprio.db")));  // init creates it (a controller's first start)
}

TEST_F(ConfPartitions, EmptyStoreKeyNamesFileLineAndKey) {
  const std::string conf = dir.file("slurm.conf");
  std::ofstream(conf) << "ClusterName=x\nAccountingStorageLoc=\"\"\n";
  pairs_ = Conf::load(conf).pairs();
  p = std::make_unique<Plugin>();
  EXPECT_EQ(p->init_pairs(pairs_, T0), MFPRIO_ECONF);
  EXPECT_NE(p->err().find(conf + ":2: AccountingStorageLoc: empty path"), std::string::npos) << p->err();
}

}  // namespace
}  // namespace mfprio::test
