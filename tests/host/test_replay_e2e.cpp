// test_replay_e2e.cpp - `mfprio-host replay` end to end: the built binaries
// (MFPRIO_HOST_BIN, MFPRIO_ACCT_BIN), the real priority_multifactor.so
// (MFPRIO_PLUGIN_BUILDDIR) and the real traces of tests/data/traces
// (MFPRIO_TRACES_DIR; a missing plugin or trace fails the test), each on a
// fresh store made from `replay --emit-accounts` + `mfprio-acct import`.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <sstream>

#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;

namespace {

using mfprio::test::has;

// The number after `label` in the output, or NaN.
double number_after(const std::string& out, const std::string& label) {
  const size_t at = out.find(label);
  if (at == std::string::npos) return std::nan("");
  return std::strtod(out.c_str() + at + label.size(), nullptr);
}

constexpr const char* kCpuLabel = "trace CPU-seconds (procs x run time): ";
constexpr const char* kRootLabel = "root raw usage (charged, decayed): ";

class ReplayE2E : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  // A fresh store holding the trace's users; returns a conf pointing at it.
  // The store is a replay's throw-away one, opened as simulate opens its
  // stores (MfprioStoreDurable=no: no flush per pass; a hpc2n replay made
  // ~41,000 of them, minutes on a disk busy with a compile beside it); the
  // durable path is the store tests' (acct_durability, acct_store).
  std::string prepare(const std::string& swf, const std::string& extra_conf = "") {
    const std::string name = "s" + std::to_string(++stores);
    const std::string json = dir.path() + "/" + name + ".json";
    ProcessResult r = host({"replay", "--swf", swf, "--emit-accounts", json});
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(has(r.out, "replay: wrote ")) << r.out;
    const std::string db = dir.path() + "/" + name + ".db";
    r = mfprio::test::run_acct({"--db", db, "import", json});
    EXPECT_EQ(r.status, 0) << r.err;
    return dir.write(name + ".conf", "PluginDir=" + plugin_dir + "\nAccountingStorageLoc=" + db +
                                         "\nPriorityWeightFairshare=100000\nPriorityWeightAge=1000\n"
                                         "MfprioStoreDurable=no\n" +
                                         extra_conf);
  }

  TempDir dir;
  std::string plugin_dir;
  int stores = 0;
};

TEST_F(ReplayE2E, Hpc2nWithoutDecayChargesExactlyTheTracesCpuSeconds) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::string conf = prepare(swf);
  ProcessResult r = host({"--conf", conf, "replay", "--swf", swf, "--no-decay"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "replay: hpc2n.swf.gz: 3170 records, 3145 jobs replayed, 25 skipped")) << r.out;
  EXPECT_TRUE(has(r.out, "3145 job ends")) << r.out;
  const double cpu = number_after(r.out, kCpuLabel), root = number_after(r.out, kRootLabel);
  ASSERT_GT(cpu, 1e8) << r.out;
  EXPECT_LT(std::fabs(root - cpu) / cpu, 1e-9) << "root " << root << " cpu " << cpu;
  // The final sshare follows the summary, with every trace user.
  EXPECT_TRUE(has(r.out, "EffectvUsage")) << r.out;
  EXPECT_TRUE(has(r.out, " u1 ")) << r.out;
}

TEST_F(ReplayE2E, Hpc2nWithTheDefaultHalfLifeDecaysUsage) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::string conf = prepare(swf);  // PriorityDecayHalfLife defaults to 7 days
  ProcessResult r = host({"--conf", conf, "replay", "--swf", swf, "--no-sshare", "--calc-period", "10"});
  ASSERT_EQ(r.status, 0) << r.err;
  const double cpu = number_after(r.out, kCpuLabel), root = number_after(r.out, kRootLabel);
  EXPECT_GT(root, 0) << r.out;
  EXPECT_LT(root, 0.5 * cpu) << r.out;  // 61 days is almost 9 half-lives
  EXPECT_TRUE(has(r.out, "calc period 600 s")) << r.out;
  EXPECT_FALSE(has(r.out, "EffectvUsage")) << r.out;
}

TEST_F(ReplayE2E, NasaGzipTraceReplaysWithALimit) {
  MFPRIO_REQUIRE_TRACE(swf, "NASA-iPSC-1993-3.1-cln.swf.gz");
  // A conf half-life long enough not to matter: usage equals the CPU-seconds.
  const std::string conf = prepare(swf, "PriorityDecayHalfLife=999999999999-0\n");
  ProcessResult r = host({"--conf", conf, "replay", "--swf", swf, "--limit", "3000", "--no-sshare"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "replay: NASA-iPSC-1993-3.1-cln.swf.gz: 3000 records, 3000 jobs replayed")) << r.out;
  EXPECT_TRUE(has(r.out, "simulated 1993-10-01T07:00:03Z")) << r.out;  // the header's UnixStartTime
  EXPECT_TRUE(has(r.out, "at most 0 pending")) << r.out;  // no wait times: every job starts at submit
  const double cpu = number_after(r.out, kCpuLabel), root = number_after(r.out, kRootLabel);
  ASSERT_GT(cpu, 0) << r.out;
  EXPECT_LT(std::fabs(root - cpu) / cpu, 1e-9) << r.out;
}

// A small synthetic trace: u1 runs a 10-CPU job for an hour from t=0; at
// t=60 u1 and u2 each submit a 1-CPU job that waits two hours.
const char* kSmall =
    "; UnixStartTime: 1600000000\n"
    " 1  0    0 3600 10 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    " 2 60 7200   60  1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
    " 3 60 7200   60  1 -1 -1 -1 -1 -1 1 2 1 -1 -1 -1 -1 -1\n";

TEST_F(ReplayE2E, ReportPendingRanksTheLighterUsersJobFirst) {
  const std::string swf = dir.write("small.swf", kSmall);
  const std::string conf = prepare(swf);
  ProcessResult r = host({"--conf", conf, "replay", "--swf", swf, "--report", "pending=2", "--no-decay"});
  ASSERT_EQ(r.status, 0) << r.err;
  // Pass 2 (t=300): both jobs pending; u1 has 10 CPUs x 300 s of usage.
  const size_t at = r.out.find("pass 2 2020-09-13T12:31:40Z running=1 pending=2\n");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::istringstream rows(r.out.substr(at));
  std::string header, columns, first, second;
  std::getline(rows, header);
  std::getline(rows, columns);
  EXPECT_EQ(columns, "  RANK    JOBID USER     ACCOUNT  PARTITION   PRIORITY");
  std::getline(rows, first);
  std::getline(rows, second);
  std::istringstream f1(first), f2(second);
  std::string rank, job, user;
  f1 >> rank >> job >> user;
  EXPECT_EQ(rank + " " + job + " " + user, "1 3 u2") << first;
  f2 >> rank >> job >> user;
  EXPECT_EQ(rank + " " + job + " " + user, "2 2 u1") << second;
  // 10 x 3600 + 60 + 60 CPU-seconds, all charged.
  EXPECT_EQ(number_after(r.out, kCpuLabel), 36120);
  EXPECT_DOUBLE_EQ(number_after(r.out, kRootLabel), 36120);
}

TEST_F(ReplayE2E, NoDecayComesFromTheFamilysDeclaredSettingsOrIsRefused) {
  // multifactor names its no-decay settings in plugin_info_json ("no_decay_conf"): the
  // host never writes a family's key itself.
  const std::string swf = dir.write("small.swf", kSmall);
  const std::string conf = prepare(swf);
  ProcessResult r = host({"--conf", conf, "info"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"no_decay_conf\": {\n    \"PriorityDecayHalfLife\": \"999999999999-0\"")) << r.out;
  // A family that names none is refused before any job is priced or charged.
  const std::string basic = dir.write("basic.conf", "PriorityType=priority/basic\nPluginDir=" + plugin_dir + "\n");
  r = host({"--conf", basic, "replay", "--swf", swf, "--no-decay"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: replay --no-decay: priority/basic names no settings that stop its usage decay "
                   "(plugin_info_json has no \"no_decay_conf\"); replay without --no-decay (nothing was charged)\n");
  EXPECT_EQ(r.out, "");
  r = host({"--conf", basic, "replay", "--swf", swf, "--no-sshare"});
  EXPECT_EQ(r.status, 0) << r.err;  // without it basic replays
}

TEST_F(ReplayE2E, MalformedRecordNamesFileLineAndFieldAndChargesNothing) {
  const std::string good = dir.write("good.swf", kSmall);
  const std::string conf = prepare(good);
  const std::string bad = dir.write("bad.swf", std::string(kSmall) + " 4 70 0 1x 1 -1 -1 -1 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"--conf", conf, "replay", "--swf", bad});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + bad + ":5: field 4 (run time): '1x' is not an integer\n");
  EXPECT_EQ(r.out, "");
  const std::string short_line = dir.write("short.swf", " 1 0 0 5 1\n");
  r = host({"--conf", conf, "replay", "--swf", short_line});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: " + short_line + ":1: expected 18 fields, found 5\n");
  r = host({"--conf", conf, "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\nroot|||0.000000|0|")) << r.out;  // the store was not touched
}

TEST_F(ReplayE2E, MissingTraceIsAClearError) {
  const std::string conf = prepare(dir.write("small.swf", kSmall));
  ProcessResult r = host({"--conf", conf, "replay", "--swf", dir.path() + "/none.swf"});
  EXPECT_EQ(r.status, 1);
  EXPECT_EQ(r.err, "mfprio-host: cannot open trace '" + dir.path() + "/none.swf': No such file or directory\n");
  r = host({"replay", "--swf", dir.path() + "/none.swf", "--emit-accounts", dir.path() + "/a.json"});
  EXPECT_EQ(r.status, 1);
  EXPECT_FALSE(std::filesystem::exists(dir.path() + "/a.json"));
}

TEST_F(ReplayE2E, UsersMissingFromTheStoreStopTheReplayBeforeAnyCharge) {
  const std::string swf = dir.write("small.swf", kSmall);
  const std::string conf = prepare(swf);
  const std::string other = dir.write("other.swf", std::string(kSmall) +
                                                       " 4 70 0 10 1 -1 -1 -1 -1 -1 1 99 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"--conf", conf, "replay", "--swf", other});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, other + ":5: job 4: ")) << r.err;
  EXPECT_TRUE(has(r.err, "u99")) << r.err;
  EXPECT_TRUE(has(r.err, "replay not run: 1 jobs do not resolve (nothing was charged)")) << r.err;
  r = host({"--conf", conf, "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\nroot|||0.000000|0|")) << r.out;
}

TEST_F(ReplayE2E, ASecondReplayOnTheSameStoreIsRefused) {
  const std::string swf = dir.write("small.swf", kSmall);
  const std::string conf = prepare(swf);
  ProcessResult r = host({"--conf", conf, "replay", "--swf", swf, "--no-sshare"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", conf, "replay", "--swf", swf, "--no-sshare"});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, "the store's last decay pass (2020-09-13T")) << r.err;
  EXPECT_TRUE(has(r.err, "use a fresh store or --start T")) << r.err;
}

TEST_F(ReplayE2E, BadReplayArgumentsExit2) {
  ProcessResult r = host({"--conf", "x.conf", "replay"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "replay needs --swf FILE")) << r.err;
  r = host({"--conf", "x.conf", "replay", "--swf", "t.swf", "--calc-period", "soon"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--calc-period: ")) << r.err;
  r = host({"--conf", "x.conf", "replay", "--swf", "t.swf", "--report", "everything"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--report: unknown report 'everything'")) << r.err;
  r = host({"replay", "--swf", "t.swf"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--conf FILE is required")) << r.err;
}

}  // namespace
