// test_conf_e2e.cpp - a Slurm admin's own slurm.conf:
//   - the real sites' confs under tests/data/real-confs/ load unchanged
//     (PriorityType and the store path added as pairs) through the real
//     parser, the host's settings and the real priority_multifactor.so, and
//     each of their partitions is seen (a job there is priced; a job in a
//     partition no line defines is a per-job error);
//   - views never create a store, and say how to make one; decay may;
//   - a relative AccountingStorageLoc names the same store for mfprio-acct
//     and mfprio-host whatever the working directory;
//   - blanks around '=' (from a real site's conf) are accepted by the host.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "conf.hpp"
#include "loader.hpp"
#include "run_process.hpp"
#include "settings.hpp"
#include "slurm_conf.hpp"
#include "test_util.hpp"

using mfprio::Conf;
using mfprio::ConfPair;
using mfprio::test::env_or_die;
using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;
namespace fs = std::filesystem;

namespace {

using mfprio::test::has;

const char* kAccounts = R"({"accounts": [{"name": "lab", "shares": 1}],
 "users": [{"name": "alice", "account": "lab", "shares": 1, "raw_usage": 10}]})";

class ConfE2E : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
  }
  std::string store(const std::string& db) {
    const std::string json = dir.write("accounts.json", kAccounts);
    ProcessResult r = mfprio::test::run_acct({"--db", db, "import", json});
    EXPECT_EQ(r.status, 0) << r.err;
    return db;
  }
  ProcessResult host(std::vector<std::string> args, const std::string& cwd = "") {
    return mfprio::test::run_host(std::move(args), cwd);
  }
  std::vector<std::string> real_confs() const {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(env_or_die("MFPRIO_TEST_SRCDIR") + "/../data/real-confs"))
      if (e.path().extension() == ".conf") out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  TempDir dir;
  std::string plugin_dir;
};

TEST_F(ConfE2E, RealSitesConfsLoadAndTheirPartitionsAreSeen) {
  const std::vector<std::string> confs = real_confs();
  ASSERT_GE(confs.size(), 4u);
  const std::string db = store(dir.path() + "/acct.db");
  for (const std::string& path : confs) {
    SCOPED_TRACE(path);
    // Each names its source in a comment at the top.
    std::ifstream in(path);
    std::string first;
    std::getline(in, first);
    EXPECT_TRUE(has(first, "# Source: https://")) << first;

    Conf conf = Conf::load(path);  // the file as published
    conf.add(ConfPair{"PriorityType", "priority/multifactor", "<test>", 0});
    conf.add(ConfPair{"AccountingStorageLoc", db, "<test>", 0});
    conf.add(ConfPair{"PriorityWeightPartition", "1000", "<test>", 0});
    const auto settings = mfprio::host::read_settings(conf, "", plugin_dir);
    EXPECT_GT(settings.cluster.nodes, 0u);  // summed from its NodeName lines
    EXPECT_GT(settings.cluster.cpus, 0u);
    mfprio::host::LogSink sink;
    mfprio::host::Clock clock;
    clock.fixed = true;
    clock.now = 1'700'000'000;
    auto plugin = mfprio::host::Plugin::open(settings.priority_type, settings.plugin_dirs);
    ASSERT_NO_THROW(plugin->init(conf, settings.cluster, &sink, &clock));

    const auto parts = mfprio::conf_records(conf.pairs(), "PartitionName");
    ASSERT_FALSE(parts.empty());
    uint64_t id = 0;
    for (const auto& part : parts) {
      mfprio_job_t j{};
      j.struct_size = sizeof j;
      j.job_id = ++id;
      j.user = "alice";
      j.partition = part.name().c_str();
      j.cpus = 1;
      j.min_nodes = 1;
      j.submit_time = j.eligible_time = clock.now;
      uint32_t v = 0;
      EXPECT_EQ(plugin->ops().set_priority(&j, clock.now, &v), MFPRIO_OK)
          << part.name() << ": " << plugin->last_error();
      EXPECT_GT(v, 0u) << part.name();  // its PriorityJobFactor share of 1000
    }
    mfprio_job_t bad{};
    bad.struct_size = sizeof bad;
    bad.job_id = 999;
    bad.user = "alice";
    bad.partition = "no-such-partition";
    bad.cpus = 1;
    bad.min_nodes = 1;
    uint32_t v = 0;
    EXPECT_EQ(plugin->ops().set_priority(&bad, clock.now, &v), MFPRIO_ENOENT);
    EXPECT_TRUE(has(plugin->last_error(), "job 999")) << plugin->last_error();
    EXPECT_TRUE(has(plugin->last_error(), "no-such-partition")) << plugin->last_error();
  }
}

TEST_F(ConfE2E, RealSitesConfsLoadThroughMfprioHost) {
  const std::string db = store(dir.path() + "/acct.db");
  for (const std::string& path : real_confs()) {
    SCOPED_TRACE(path);
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    // Unchanged, then the two lines the issue allows.
    const std::string copy = dir.write(fs::path(path).filename().string(),
                                       text.str() + "\nPriorityType=priority/multifactor\nAccountingStorageLoc=" + db + "\n");
    ProcessResult r = host({"--conf", copy, "--plugin-dir", plugin_dir, "info"});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "priority/multifactor")) << r.out;
  }
}

TEST_F(ConfE2E, BlanksAroundEqualsAsARealSiteWritesThem) {
  const std::string db = store(dir.path() + "/acct.db");
  const std::string conf = dir.write("slurm.conf",
                                     "ClusterName=production\nMailProg= /usr/bin/smail\nUsePam = 1\n"
                                     "PriorityType=priority/multifactor\nPriorityWeightFairshare = 100000\n"
                                     "AccountingStorageLoc=" + db + "\n");
  ProcessResult r = host({"--conf", conf, "--plugin-dir", plugin_dir, "info"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "100000")) << r.out;  // the weight was read
}

TEST_F(ConfE2E, EveryConfErrorInOneRun) {
  const std::string conf = dir.write("slurm.conf",
                                     "A=1 oops\nPriorityType=priority/multifactor\n=3\nB=\"open\n");
  ProcessResult r = host({"--conf", conf, "--plugin-dir", plugin_dir, "info"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, conf + ":1:")) << r.err;
  EXPECT_TRUE(has(r.err, conf + ":3:")) << r.err;
  EXPECT_TRUE(has(r.err, conf + ":4:")) << r.err;
}

// A conf that opens with an Include: the hint names the conf given, not the
// included file (`mfprio-acct --conf` on that file reads another store).
TEST_F(ConfE2E, MissingStoreHintNamesTheConfGivenNotAnInclude) {
  dir.write("common.conf", "PriorityType=priority/multifactor\n");
  const std::string conf = dir.write("top.conf", "Include common.conf\nAccountingStorageLoc=gone.db\n");
  ProcessResult r = host({"--conf", conf, "--plugin-dir", plugin_dir, "info"}, dir.path());
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.err, "no accounting store at " + dir.path() + "/gone.db")) << r.err;
  EXPECT_TRUE(has(r.err, "mfprio-acct --conf " + conf + " import")) << r.err;
  EXPECT_FALSE(has(r.err, "common.conf")) << r.err;
}

TEST_F(ConfE2E, ViewsNeverCreateAStoreAndSayHowToMakeOne) {
  // The key given (relative) and the default (no key: mfprio.db beside the conf).
  for (const std::string& key : {std::string("AccountingStorageLoc=missing.db\n"), std::string()}) {
    const std::string conf = dir.write("v.conf", "PriorityType=priority/multifactor\n" + key);
    const std::string expect = dir.path() + (key.empty() ? "/mfprio.db" : "/missing.db");
    for (const char* view : {"sshare", "info"}) {
      SCOPED_TRACE(std::string(view) + " " + key);
      ProcessResult r = host({"--conf", conf, "--plugin-dir", plugin_dir, view}, dir.path());
      EXPECT_EQ(r.status, 1) << r.out;
      EXPECT_TRUE(has(r.err, "no accounting store at " + expect)) << r.err;
      EXPECT_TRUE(has(r.err, "mfprio-acct --conf " + conf + " import")) << r.err;
      EXPECT_FALSE(fs::exists(expect));
      EXPECT_FALSE(fs::exists(expect + "-wal"));
    }
  }
  // sprio and explain too (their job-file option is whatever --help says).
  ProcessResult help = host({"--help"});
  const bool job_file = has(help.out, "sprio --job-file");
  const std::string jobs = dir.write("jobs.jsonl", "");
  const std::string conf = dir.write("v.conf", "PriorityType=priority/multifactor\nAccountingStorageLoc=gone.db\n");
  const std::vector<std::vector<std::string>> views = {
      {"sprio", job_file ? "--job-file" : "--jobs", jobs},
      {"explain", has(help.out, "explain --job-file") ? "--job-file" : "--jobs", jobs, "1"}};
  for (std::vector<std::string> v : views) {
    SCOPED_TRACE(v[0]);
    v.insert(v.begin(), {"--conf", conf, "--plugin-dir", plugin_dir});
    ProcessResult r = host(v, dir.path());
    EXPECT_NE(r.status, 0) << r.out;
    EXPECT_TRUE(has(r.err, "no accounting store at " + dir.path() + "/gone.db")) << r.err;
    EXPECT_FALSE(fs::exists(dir.path() + "/gone.db"));
  }
}

// A store on a read-only file system, or one the viewer may only read: a
// 0444 copy in a 0555 directory, read by nobody (root would ignore the
// modes).  The views open it read-only and need no -shm beside it; decay,
// which writes, is refused with the store named and the file unchanged.
TEST_F(ConfE2E, ViewsReadAStoreInADirectoryNobodyMayWrite) {
  ASSERT_EQ(geteuid(), 0u) << "this test runs the views as nobody through setpriv: run it as root";
  const std::string ro = dir.path() + "/ro";
  fs::create_directories(ro);
  store(ro + "/acct.db");
  ASSERT_FALSE(fs::exists(ro + "/acct.db-wal"));  // the import closed it cleanly
  const std::string conf =
      dir.write("ro.conf", "PriorityType=priority/multifactor\nAccountingStorageLoc=" + ro + "/acct.db\n");
  const std::string before = mfprio::test::run_acct({"--db", ro + "/acct.db", "export"}).out;
  // A read-only open leaves an empty -wal and the -shm behind: as a store
  // copied to a read-only medium, there are none.
  for (const char* side : {"-wal", "-shm"}) {
    if (!fs::exists(ro + "/acct.db" + side)) continue;
    if (std::string(side) == "-wal") ASSERT_EQ(fs::file_size(ro + "/acct.db-wal"), 0u);
    fs::remove(ro + "/acct.db" + side);
  }
  ASSERT_EQ(chmod((ro + "/acct.db").c_str(), 0444), 0);
  ASSERT_EQ(chmod(ro.c_str(), 0555), 0);
  ASSERT_EQ(chmod(dir.path().c_str(), 0755), 0);
  const std::vector<std::string> nobody = {"/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup",
                                           "--clear-groups"};
  auto as_nobody = [&](std::vector<std::string> args, const char* bin_env) {
    args.insert(args.begin(), env_or_die(bin_env));
    args.insert(args.begin(), nobody.begin(), nobody.end());
    return run_process(args);
  };
  ProcessResult r = as_nobody({"--conf", conf, "--plugin-dir", plugin_dir, "sshare", "-a", "-P"}, "MFPRIO_HOST_BIN");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "alice")) << r.out;
  r = as_nobody({"--conf", conf, "--plugin-dir", plugin_dir, "info"}, "MFPRIO_HOST_BIN");
  EXPECT_EQ(r.status, 0) << r.err;
  r = as_nobody({"--db", ro + "/acct.db", "show", "tree", "-p"}, "MFPRIO_ACCT_BIN");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "lab|alice||1|")) << r.out;
  r = as_nobody({"--db", ro + "/acct.db", "export"}, "MFPRIO_ACCT_BIN");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, before);
  r = as_nobody({"--conf", conf, "--plugin-dir", plugin_dir, "decay", "--now", "1700000000"}, "MFPRIO_HOST_BIN");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_TRUE(has(r.err, ro + "/acct.db")) << r.err;
  EXPECT_FALSE(fs::exists(ro + "/acct.db-shm"));
  EXPECT_FALSE(fs::exists(ro + "/acct.db-wal"));
  ASSERT_EQ(chmod(ro.c_str(), 0755), 0);  // so the temporary directory can be removed
}

TEST_F(ConfE2E, DecayMayCreateTheStore) {
  // decay (a pass of the controller) may create it.
  const std::string conf = dir.write("d.conf", "PriorityType=priority/multifactor\nAccountingStorageLoc=made.db\n");
  ProcessResult r = host({"--conf", conf, "--plugin-dir", plugin_dir, "decay", "--now", "1700000000"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path() + "/made.db"));
}

TEST_F(ConfE2E, RelativeStorePathIsTheSameStoreForBothTools) {
  fs::create_directories(dir.path() + "/etc");
  fs::create_directories(dir.path() + "/elsewhere");
  dir.write("etc/slurm.conf", "PriorityType=priority/multifactor\nAccountingStorageLoc=acct.db\n");
  const std::string json = dir.write("accounts.json", kAccounts);
  // mfprio-acct from the parent directory with a relative conf path...
  ProcessResult r = mfprio::test::run_acct({"--conf", "etc/slurm.conf", "import", json}, dir.path());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir.path() + "/etc/acct.db"));
  EXPECT_FALSE(fs::exists(dir.path() + "/acct.db"));
  // ...and mfprio-host from another directory see the same store.
  r = host({"--conf", "../etc/slurm.conf", "--plugin-dir", plugin_dir, "sshare", "-a", "-P"},
           dir.path() + "/elsewhere");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "alice")) << r.out;
  EXPECT_FALSE(fs::exists(dir.path() + "/elsewhere/acct.db"));
}

}  // namespace
