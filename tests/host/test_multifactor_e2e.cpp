// test_multifactor_e2e.cpp - the built mfprio-host (MFPRIO_HOST_BIN) and
// mfprio-acct (MFPRIO_ACCT_BIN) over the real priority_multifactor.so
// (MFPRIO_PLUGIN_BUILDDIR) and a store made with `mfprio-acct import`:
// sshare and sprio as an admin sees them, decay and job-end charging.
//
// The tree is the classic fair-share example of Slurm's documentation:
// root -> A(40) -> {B(30) -> User1, C(10) -> {User2, User3}},
//         D(60) -> {E(25) -> User4, F(35) -> User5}; users 1 share each;
// usage User1 20, User2 25, User3 0, User4 25, User5 0, plus "Other" under
// root with 0 shares and usage 30, so the cluster's total is 100.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include <filesystem>
#include <sstream>

#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;

namespace {

using mfprio::test::fields;
using mfprio::test::lines;

using mfprio::test::cells;

// The -P row whose first two cells (trimmed account, user) match.
std::vector<std::string> share_row(const std::string& out, const std::string& account, const std::string& user) {
  for (const std::string& l : lines(out)) {
    auto c = cells(l);
    if (c.size() < 2) continue;
    std::string a = c[0];
    a.erase(0, a.find_first_not_of(' '));
    if (a == account && c[1] == user) return c;
  }
  return {};
}

using mfprio::test::has;

const char* kTree = R"({"accounts": [
  {"name": "A", "shares": 40}, {"name": "B", "parent": "A", "shares": 30},
  {"name": "C", "parent": "A", "shares": 10}, {"name": "D", "shares": 60},
  {"name": "E", "parent": "D", "shares": 25}, {"name": "F", "parent": "D", "shares": 35}],
 "users": [
  {"name": "User1", "account": "B", "shares": 1, "raw_usage": 20},
  {"name": "User2", "account": "C", "shares": 1, "raw_usage": 25},
  {"name": "User3", "account": "C", "shares": 1, "raw_usage": 0},
  {"name": "User4", "account": "E", "shares": 1, "raw_usage": 25},
  {"name": "User5", "account": "F", "shares": 1, "raw_usage": 0},
  {"name": "Other", "account": "root", "shares": 0, "raw_usage": 30}]})";

class MultifactorE2E : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
  }
  // Imports `json` into a fresh store; returns its path.
  std::string store(const std::string& name, const std::string& json) {
    const std::string db = dir.path() + "/" + name + ".db";
    const std::string file = dir.write(name + ".json", json);
    ProcessResult r = mfprio::test::run_acct({"--db", db, "import", file});
    EXPECT_EQ(r.status, 0) << r.err;
    return db;
  }
  std::string conf(const std::string& db, const std::string& extra) {
    return dir.write("mf-" + std::to_string(++confs) + ".conf",
                     "PluginDir=" + plugin_dir + "\nAccountingStorageLoc=" + db + "\n" + extra);
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  std::string classic_conf() {
    return conf(store("tree", kTree), "PriorityFlags=NO_FAIR_TREE\nPriorityWeightFairshare=100000\n");
  }

  TempDir dir;
  std::string plugin_dir;
  int confs = 0;
};

TEST_F(MultifactorE2E, ClassicSshareMatchesTheDocumentedExample) {
  ProcessResult r = host({"--conf", classic_conf(), "sshare", "-a", "-l", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  // columns: Account User RawShares NormShares RawUsage NormUsage EffectvUsage FairShare LevelFS ...
  struct Want {
    const char *account, *user, *raw_usage, *eff_usage, *fairshare;
  };
  const Want want[] = {{"B", "User1", "20", "0.387500", "0.408479"}, {"C", "User2", "25", "0.275000", "0.022097"},
                       {"C", "User3", "0", "0.150000", "0.125000"},  {"E", "User4", "25", "0.250000", "0.500000"},
                       {"F", "User5", "0", "0.145833", "0.749154"}};
  for (const Want& w : want) {
    auto c = share_row(r.out, w.account, w.user);
    ASSERT_GE(c.size(), 9u) << w.user << "\n" << r.out;
    EXPECT_EQ(c[4], w.raw_usage) << w.user;
    EXPECT_EQ(c[6], w.eff_usage) << w.user;
    EXPECT_EQ(c[7], w.fairshare) << w.user;
  }
  // Account rows: usage summed over the children, 6 decimals.  Under
  // NO_FAIR_TREE Slurm's sshare prints a FairShare on account rows too:
  // 2^(-EffectvUsage / NormShares) of the row itself.
  auto b = share_row(r.out, "B", "");
  ASSERT_GE(b.size(), 8u) << r.out;
  EXPECT_EQ(b[2], "30");
  EXPECT_EQ(b[6], "0.387500");
  auto a = share_row(r.out, "A", "");
  ASSERT_GE(a.size(), 8u) << r.out;
  EXPECT_EQ(a[4], "45");
  for (const auto& row : {a, b}) {
    ASSERT_FALSE(row[7].empty()) << r.out;
    EXPECT_NEAR(std::stod(row[7]), std::exp2(-std::stod(row[6]) / std::stod(row[3])), 2e-5) << r.out;
  }
  // The header has no LevelFS (Slurm drops it without Fair Tree); -P puts no '|' after the last field.
  EXPECT_EQ(lines(r.out).at(0),
            "Account|User|RawShares|NormShares|RawUsage|NormUsage|EffectvUsage|FairShare|GrpTRESMins|TRESRunMins");
  // The root as a live Slurm 22.05 prints it under NO_FAIR_TREE (tests/data/slurm-live/classic):
  // NormShares 1, NormUsage blank, FairShare 2^(-1/1) = 0.5.
  EXPECT_EQ(lines(r.out).at(1), "root|||1.000000|100||1.000000|0.500000||");
}

TEST_F(MultifactorE2E, FairTreeShowsInfLevelFsForAnIdleUser) {
  const std::string c = conf(store("tree", kTree), "PriorityWeightFairshare=100000\n");
  ProcessResult r = host({"--conf", c, "sshare", "-a", "-l", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto u3 = share_row(r.out, "C", "User3");
  ASSERT_GE(u3.size(), 9u) << r.out;
  EXPECT_EQ(u3[8], "inf");
  auto u2 = share_row(r.out, "C", "User2");
  ASSERT_GE(u2.size(), 9u) << r.out;
  EXPECT_EQ(u2[8], "0.500000");  // LevelFS = S/U = 0.5 / 1.0 inside C
}

TEST_F(MultifactorE2E, SshareShowsParentForAFairShareParentAccount) {
  const std::string db = store("parent", R"({"accounts": [{"name": "dept", "shares": 10},
      {"name": "lab", "parent": "dept", "shares": "parent"}],
    "users": [{"name": "ann", "account": "lab", "shares": 1, "raw_usage": 7.6}]})");
  ProcessResult r = host({"--conf", conf(db, ""), "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto lab = share_row(r.out, "lab", "");
  ASSERT_GE(lab.size(), 3u) << r.out;
  EXPECT_EQ(lab[2], "parent");
  auto ann = share_row(r.out, "lab", "ann");
  ASSERT_GE(ann.size(), 5u) << r.out;
  EXPECT_EQ(ann[4], "7");  // raw usage 7.6 truncated to an integer, as Slurm's (uint64_t) cast does
  // Slurm leaves LevelFS blank on a FairShare=parent row (not inf).
  r = host({"--conf", conf(db, ""), "sshare", "-a", "-l", "-p"});
  ASSERT_EQ(r.status, 0) << r.err;
  lab = share_row(r.out, "lab", "");
  ASSERT_GE(lab.size(), 9u) << r.out;
  EXPECT_EQ(lab[8], "") << r.out;
  EXPECT_EQ(lines(r.out).at(0).back(), '|');  // -p keeps the trailing '|'

}

TEST_F(MultifactorE2E, SprioLongShowsTheResolvedAccountAndQos) {
  const std::string c = classic_conf();
  const std::string jobs = dir.write("jobs.jsonl",
                                     "{\"id\": 1, \"user\": \"User1\", \"submit\": 1700000000, \"cpus\": 4}\n"
                                     "{\"id\": 2, \"user\": \"User5\", \"account\": \"F\", \"submit\": 1700000000}\n");
  ProcessResult r = host({"--conf", c, "--now", "1700003600", "sprio", "--job-file", jobs, "-l", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  // Slurm 22.05's -l: "%.15i %9r %.8u %.10Y %.10S %.10A %.10B %.10F %.10J %.10P %.10Q %.11N %.20T".
  EXPECT_EQ(l[0], "JOBID|PARTITION|USER|PRIORITY|SITE|AGE|ASSOC|FAIRSHARE|JOBSIZE|PARTITION|QOS|NICE|TRES|");
  auto j1 = cells(l[1]);
  ASSERT_GE(j1.size(), 12u);
  EXPECT_EQ(j1[3], "40847");    // 100000 x 0.408479, truncated
  EXPECT_EQ(j1[7], "40848");    // the weighted factor, rounded
  auto j2 = cells(l[2]);
  EXPECT_EQ(j2[3], "74915");
  // The resolved account and QOS through -o's %o and %n (later Slurm's letters).
  r = host({"--conf", c, "--now", "1700003600", "sprio", "--job-file", jobs, "-o", "%i|%o|%n|%Y", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  l = lines(r.out);
  ASSERT_EQ(l.size(), 2u) << r.out;
  EXPECT_EQ(l[0], "1|B|normal|40847");  // the job named no account: User1's default; QOS: the default
  EXPECT_EQ(l[1], "2|F|normal|74915");
}

TEST_F(MultifactorE2E, SprioNormalizedAndWeightsRow) {
  const std::string c = classic_conf();
  const std::string jobs = dir.write("jobs.jsonl", "{\"id\": 7, \"user\": \"User2\", \"submit\": 1700000000}\n");
  // -w prints the header and the weights only (Slurm's sprio -w); only the
  // non-zero weights have a column (age, assoc, job size, partition, QOS are 0 here).
  ProcessResult r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-n", "-w", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 2u) << r.out;
  EXPECT_EQ(l[0], "JOBID|PARTITION|PRIORITY|FAIRSHARE|");
  EXPECT_EQ(l[1], "Weights|||100000|");
  r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-P", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  const unsigned long prio = std::stoul(cells(lines(r.out).at(0)).at(2));
  r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-n", "-P", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto j = cells(lines(r.out).at(0));
  ASSERT_EQ(j.size(), 4u) << r.out;
  EXPECT_EQ(j[3], "0.0220971");  // FAIRSHARE normalized, 7 decimals
  char want[64];
  std::snprintf(want, sizeof want, "%16.14f", prio / 4294967295.0);  // sprio -n's priority
  EXPECT_EQ(j[2], want);
  // Without -P the normalized priority is cut to its 10 columns, as sprio cuts it.
  r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-n", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  // "%.15i %9r %10y %10f": '.' right-justifies; the others are left-justified and padded.
  std::string part = j[1];
  part.resize(9, ' ');
  EXPECT_EQ(lines(r.out).at(0), std::string(14, ' ') + "7 " + part + " " + std::string(want).substr(0, 10) + " 0.0220971 ")
      << r.out;
}

TEST_F(MultifactorE2E, DecayChargesCpusTimesSecondsAndJobEndChargesOnce) {
  const std::string db = store("small", R"({"accounts": [{"name": "acct", "shares": 1}],
    "users": [{"name": "ann", "account": "acct", "shares": 1}, {"name": "bob", "account": "acct", "shares": 1}]})");
  // No decay in this window: the half-life is far longer than the test.
  const std::string c = conf(db, "PriorityDecayHalfLife=999999999999-0\n");
  const std::string run = dir.write("run.jsonl",
                                    "{\"id\": 1, \"user\": \"ann\", \"state\": \"running\", \"start\": 1700000000, "
                                    "\"cpus\": 4}\n");
  ProcessResult r = host({"--conf", c, "decay", "--now", "1700000000", "--running", run});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", c, "decay", "--now", "1700000100", "--running", run});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", c, "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(share_row(r.out, "acct", "ann").at(4), "400");  // 4 CPUs x 100 s
  // The job ends at +250: 150 s more; a second job-end adds nothing.
  const std::string done = dir.write("done.jsonl",
                                     "{\"id\": 1, \"user\": \"ann\", \"state\": \"completed\", \"start\": 1700000000, "
                                     "\"cpus\": 4}\n");
  r = host({"--conf", c, "job-end", "--job-file", done, "--end", "1700000250"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", c, "job-end", "--job-file", done, "--end", "1700000250"});
  ASSERT_EQ(r.status, 0) << r.err;
  r = host({"--conf", c, "sshare", "-a", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(share_row(r.out, "acct", "ann").at(4), "1000");
  EXPECT_EQ(share_row(r.out, "acct", "bob").at(4), "0");
  EXPECT_EQ(lines(r.out).at(1).substr(0, 13), "root|||0.0000");  // Slurm: the root has no NormShares
  EXPECT_TRUE(has(lines(r.out).at(1), "|1000|")) << r.out;
}

TEST_F(MultifactorE2E, SprioSaysWhenPrioritiesWereClamped) {
  // Two weights of 2^32-1 and non-zero factors sum past what a priority holds.
  const std::string c = conf(store("tree", kTree),
                             "PriorityFlags=NO_FAIR_TREE\nPriorityWeightFairshare=4294967295\n"
                             "PriorityWeightAge=4294967295\nPriorityMaxAge=1-0\n");
  const std::string jobs = dir.write("jobs.jsonl",
                                     "{\"id\": 1, \"user\": \"User5\", \"submit\": 1700000000}\n"
                                     "{\"id\": 2, \"user\": \"User1\", \"submit\": 1700000000}\n"
                                     "{\"id\": 3, \"user\": \"User2\", \"submit\": 1700086400}\n");
  ProcessResult r = host({"--conf", c, "--now", "1700086400", "sprio", "--job-file", jobs, "-P", "-h"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  EXPECT_EQ(cells(l[0]).at(2), "4294967295");
  EXPECT_EQ(cells(l[1]).at(2), "4294967295");
  EXPECT_NE(cells(l[2]).at(2), "4294967295");  // age 0, fair share 0.022: not clamped
  EXPECT_TRUE(has(r.err, "mfprio-host: sprio: 2 priorities clamped to 4294967295")) << r.err;
  // Without clamping there is no such line.
  r = host({"--conf", classic_conf(), "--now", "1700086400", "sprio", "--job-file", jobs, "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_FALSE(has(r.err, "clamped")) << r.err;
}

TEST_F(MultifactorE2E, UnknownUserIsNamedOnceWithTheJob) {
  const std::string jobs = dir.write("jobs.jsonl", "{\"id\": 3, \"user\": \"zed\"}\n");
  ProcessResult r = host({"--conf", classic_conf(), "sprio", "--job-file", jobs});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(has(r.err, jobs + ":1: job 3: ")) << r.err;
  EXPECT_TRUE(has(r.err, "zed")) << r.err;
  EXPECT_FALSE(has(r.err, "job 3: job 3")) << r.err;
}

}  // namespace

namespace {

// The first cell of each line (-o %i... with -h): the job ids listed.
std::vector<std::string> first_cells(const std::string& out) {
  std::vector<std::string> ids;
  for (const std::string& l : lines(out)) ids.push_back(cells(l).at(0));
  return ids;
}

TEST_F(MultifactorE2E, SprioListsWhatSlurmListsAndFiltersLikeIt) {
  const std::string c = classic_conf();
  const std::string jobs = dir.write(
      "jobs.jsonl",
      "{\"id\": 1, \"user\": \"User1\", \"submit\": 1700000000}\n"
      "{\"id\": 2, \"user\": \"User2\", \"submit\": 1700000000}\n"
      "{\"id\": 3, \"user\": \"User5\", \"account\": \"F\", \"submit\": 1700000000}\n"
      "{\"id\": 4, \"user\": \"User1\", \"submit\": 1700000000, \"state\": \"held\"}\n"
      "{\"id\": 5, \"user\": \"User2\", \"submit\": 1700000000, \"eligible\": 1700090000}\n"
      "{\"id\": 6, \"user\": \"User3\", \"submit\": 1700000000, \"dependent\": true}\n"
      "{\"id\": 7, \"user\": \"User2\", \"submit\": 1700000000, \"state\": \"running\", \"start\": 1700000100}\n");
  auto sprio = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = {"--conf", c, "--now", "1700003600", "sprio", "--job-file", jobs, "-h",
                                  "-o", "%i|%r|%u|%o|%Y|"};
    a.insert(a.end(), extra.begin(), extra.end());
    return host(a);
  };
  // Held (4), not yet eligible (5: begin time ahead; 6: a dependency) and running (7) jobs are not listed.
  ProcessResult r = sprio({});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(first_cells(r.out), (std::vector<std::string>{"1", "2", "3"})) << r.out;
  r = sprio({"--all-states"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(first_cells(r.out).size(), 7u) << r.out;
  r = sprio({"-j", "3,2"});
  EXPECT_EQ(first_cells(r.out), (std::vector<std::string>{"2", "3"})) << r.out;
  r = sprio({"--jobs=4"});  // held: Slurm's words when -j finds nothing
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Unable to find jobs matching user/id(s) specified\n");
  r = sprio({"-u", "User1,User5"});
  EXPECT_EQ(first_cells(r.out), (std::vector<std::string>{"1", "3"})) << r.out;
  r = sprio({"-A", "F"});
  EXPECT_EQ(first_cells(r.out), (std::vector<std::string>{"3"})) << r.out;
  const std::string part = cells(lines(sprio({}).out).at(0)).at(1);
  r = sprio({"-p", part});
  EXPECT_EQ(first_cells(r.out).size(), 3u) << r.out;
  r = sprio({"-p", "no-such-partition"});
  EXPECT_EQ(r.out, "") << r.out;
  // -S -Y: by priority, highest first (ties keep job id order).
  r = sprio({"-S", "-Y"});
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;
  for (size_t i = 1; i < l.size(); ++i) EXPECT_GE(std::stoul(cells(l[i - 1]).at(4)), std::stoul(cells(l[i]).at(4)));
  // A bad letter is a usage error before anything runs.
  r = sprio({"-S", "Z"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "'Z' is not a sprio sort letter")) << r.err;
}

TEST_F(MultifactorE2E, SprioHidesZeroWeightColumnsAndShowsUserWithU) {
  // classic_conf weighs fair share only: the short format keeps PRIORITY, SITE and FAIRSHARE.
  const std::string jobs = dir.write("j.jsonl", "{\"id\": 1, \"user\": \"User1\", \"submit\": 1700000000}\n");
  ProcessResult r = host({"--conf", classic_conf(), "--now", "1700003600", "sprio", "--job-file", jobs});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fields(lines(r.out).at(0)), (std::vector<std::string>{"JOBID", "PARTITION", "PRIORITY", "SITE", "FAIRSHARE"}));
  r = host({"--conf", classic_conf(), "--now", "1700003600", "sprio", "--job-file", jobs, "-u", "User1"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fields(lines(r.out).at(0)),
            (std::vector<std::string>{"JOBID", "PARTITION", "USER", "PRIORITY", "SITE", "FAIRSHARE"}));
  EXPECT_TRUE(has(lines(r.out).at(1), " User1 ")) << r.out;
}

TEST_F(MultifactorE2E, SshareAccountsUsersOnlyPartitionAndFormat) {
  const std::string c = conf(store("tree", kTree), "PriorityWeightFairshare=100000\n");
  ProcessResult r = host({"--conf", c, "sshare", "-a", "-A", "C", "-P", "-n"});
  ASSERT_EQ(r.status, 0) << r.err;
  auto l = lines(r.out);
  ASSERT_EQ(l.size(), 3u) << r.out;  // C's own row and its two users
  for (const auto& line : l) EXPECT_EQ(cells(line).at(0).substr(cells(line).at(0).find_first_not_of(' ')), "C");
  r = host({"--conf", c, "sshare", "-a", "-U", "-P", "-n"});
  ASSERT_EQ(r.status, 0) << r.err;
  l = lines(r.out);
  ASSERT_EQ(l.size(), 6u) << r.out;  // the six users, no account rows
  for (const auto& line : l) EXPECT_FALSE(cells(line).at(1).empty()) << line;
  r = host({"--conf", c, "sshare", "-a", "-m", "-P"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).at(0), "Account|User|Partition|RawShares|NormShares|RawUsage|EffectvUsage|FairShare");
  r = host({"--conf", c, "sshare", "-u", "User2", "-o", "acc,user,rawu%5"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(lines(r.out).at(0), "Account                    User RawUs ");  // headers are cut to the width
  EXPECT_EQ(lines(r.out).at(1), "-------------------- ---------- ----- ");
  r = host({"--conf", c, "sshare", "-o", "Account,Bogus"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "Invalid field requested: \"Bogus\"")) << r.err;
  // Fair Tree: LevelFS is in the long default.
  r = host({"--conf", c, "sshare", "-l", "-p", "-n", "-U", "-a"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(cells(lines(r.out).at(0)).size(), 11u) << r.out;
}

TEST_F(MultifactorE2E, HelpFormatVersionAndCommandHelpNeedNoConf) {
  ProcessResult r = host({"sshare", "-e"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "RawUsage")) << r.out;
  r = host({"sprio", "--helpformat"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "%Y")) << r.out;
  r = host({"--version"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("mfprio-host ") + MFPRIO_VERSION + "\n");
  for (const char* cmd : {"sprio", "sshare", "decay", "job-end", "info", "replay", "simulate", "explain"}) {
    r = host({cmd, "--help"});
    EXPECT_EQ(r.status, 0) << cmd << r.err;
    EXPECT_TRUE(has(r.out, std::string(cmd))) << cmd;
    EXPECT_TRUE(has(r.out, "usage: mfprio-host")) << cmd;
  }
  // `--help` after a command is that command's help, never an account name or a file.
  r = host({"--conf", "nonexistent.conf", "sprio", "--job-file", "--help"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "-j, --jobs=LIST")) << r.out;
}

}  // namespace

namespace {

TEST_F(MultifactorE2E, SshareJsonKeepsTheSameRowsAndSeveralFormatsAddUp) {
  const std::string c = conf(store("tree", kTree), "PriorityWeightFairshare=100000\n");
  ProcessResult r = host({"--conf", c, "sshare", "--json", "-a", "-A", "C"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"User2\"")) << r.out;
  EXPECT_FALSE(has(r.out, "\"User1\"")) << r.out;  // account B
  r = host({"--conf", c, "sshare", "--json", "-a", "-U"});
  ASSERT_EQ(r.status, 0) << r.err;
  // No account rows: every row (one "parent" each) names a user.
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = r.out.find(needle); at != std::string::npos; at = r.out.find(needle, at + 1)) ++n;
    return n;
  };
  EXPECT_EQ(count("\"parent\":"), 6u) << r.out;
  EXPECT_EQ(count("\"user\":"), 6u) << r.out;
  // Slurm's sshare appends each -o's fields; -M is accepted with a note.
  r = host({"--conf", c, "sshare", "-n", "-P", "-o", "Account", "-o", "User", "-u", "User2", "-M", "other"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "  C|User2\n")) << r.out;
  EXPECT_TRUE(has(r.err, "-M/--clusters 'other' ignored")) << r.err;
}

}  // namespace

namespace {

TEST_F(MultifactorE2E, SprioPrintsAnExactHalfAsPrintfDoes) {
  // One node of two: job size factor 0.5; weight 1125 -> 562.5, which C's
  // printf("%.0f") prints as 562 (half to even) where rounding half up gives 563.
  const std::string db = store("half", R"({"accounts": [{"name": "A", "shares": 1}],
    "users": [{"name": "u1", "account": "A", "shares": 1}]})");
  const std::string c = conf(db, "PriorityWeightJobSize=1125\nNodeName=n[1-2] CPUs=4 RealMemory=1000\n");
  const std::string jobs =
      dir.write("half.jsonl", "{\"id\": 5, \"user\": \"u1\", \"submit\": 1700000000, \"nodes\": 1, \"cpus\": 4}\n");
  ProcessResult r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-h", "-o", "%j|%J|"});
  ASSERT_EQ(r.status, 0) << r.err;
  const auto c0 = cells(lines(r.out).at(0));
  ASSERT_EQ(c0.at(0), "0.5000000") << r.out;
  char want[32];
  std::snprintf(want, sizeof want, "%.0f", std::stod(c0[0]) * 1125);
  EXPECT_EQ(c0.at(1), want);
  EXPECT_EQ(c0.at(1), "562");
  // The default layout: JOBSIZE is the only weighted factor, so the only factor column.
  r = host({"--conf", c, "--now", "1700000000", "sprio", "--job-file", jobs, "-l"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(fields(lines(r.out).at(1)).at(7), "562") << r.out;  // JOBID USER PRIORITY SITE AGE ASSOC FAIRSHARE JOBSIZE
}

}  // namespace
