// test_cli.cpp - mfprio-acct end to end: the built binary against a temp store.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

#include <cstdlib>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <sqlite3.h>

#include "cli_util.hpp"
#include "store_schema.hpp"
#include "conf_loc.hpp"
#include "admin.hpp"
#include "store.hpp"

namespace mfprio::acct {
namespace {

using test::Result;
using test::run_acct;
using test::TempDir;

class Cli : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(test::binary().empty()) << "MFPRIO_ACCT not set"; }
  // Scripted calls commit without asking (-i), as a script must.
  Result acct(std::vector<std::string> args, const std::string& prefix = "") {
    args.insert(args.begin(), {"--db", db, "-i"});
    return run_acct(dir, args, prefix);
  }
  void ok(std::vector<std::string> args) {
    Result r = acct(args);
    ASSERT_EQ(0, r.status) << r.err;
  }
  // tests/data/`rel` (MFPRIO_TEST_DATA); throws when the variable is unset.
  static std::string data_path(const std::string& rel) {
    const char* data = std::getenv("MFPRIO_TEST_DATA");
    if (!data) throw std::runtime_error("MFPRIO_TEST_DATA not set");
    return std::string(data) + "/" + rel;
  }
  // The rows of the live Slurm cluster's `sacctmgr show assoc -P` capture
  // (tests/data/slurm-live/variant), each split at '|', without the header;
  // tests/data/admins/live-dump.cfg was written from it.
  static std::vector<std::vector<std::string>> live_assoc_rows() {
    const std::string live = data_path("slurm-live/variant/sacctmgr_assoc.txt");
    std::ifstream in(live);
    if (!in.good()) throw std::runtime_error("missing " + live);
    std::vector<std::vector<std::string>> rows;
    std::string l;
    std::getline(in, l);  // header
    while (std::getline(in, l)) {
      std::stringstream ss(l);
      rows.emplace_back();
      for (std::string x; std::getline(ss, x, '|');) rows.back().push_back(x);
    }
    return rows;
  }
  // Each command is refused: exit status `status` (0: any but 0) and one
  // line on stderr, holding `want` when it is not "".
  void refused(const std::vector<std::vector<std::string>>& commands, int status, const std::string& want = "") {
    for (const std::vector<std::string>& a : commands) {
      Result r = acct(a);
      std::string line;
      for (const std::string& w : a) line += w + " ";
      if (status) {
        EXPECT_EQ(status, r.status) << line << ": " << r.err;
      } else {
        EXPECT_NE(0, r.status) << line << ": " << r.out;
      }
      if (!want.empty()) {
        EXPECT_NE(std::string::npos, r.err.find(want)) << r.err;
      }
      EXPECT_EQ(r.err.size() - 1, r.err.find('\n')) << r.err;
    }
  }
  void doc_tree() {
    ok({"add", "account", "A", "Fairshare=40"});
    ok({"add", "account", "B", "parent=A", "fairshare=30"});
    ok({"add", "account", "C", "Parent=A", "FairShare=10"});
    ok({"add", "account", "D", "FAIRSHARE=60"});
    ok({"add", "user", "User1", "Account=B"});
    ok({"add", "user", "User2", "Account=C"});
    ok({"add", "user", "User4", "Account=D", "Fairshare=parent"});
  }
  TempDir dir;
  std::string db = dir.file("acct.db");
};

TEST_F(Cli, AddThenShowTreeParsableListsHierarchyWithSharesAndUsage) {
  doc_tree();
  Result r = acct({"show", "tree", "-p"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(
      "Account|User|Partition|Shares|RawUsage|\n"
      "root|||1|0|\n"
      "A|||40|0|\n"
      "B|||30|0|\n"
      "B|User1||1|0|\n"
      "C|||10|0|\n"
      "C|User2||1|0|\n"
      "D|||60|0|\n"
      "D|User4||parent|0|\n",
      r.out);
  struct stat sb;
  ASSERT_EQ(0, stat(db.c_str(), &sb));
  EXPECT_EQ(0600u, sb.st_mode & 0777);
}

TEST_F(Cli, ShowTableIndentsByDepthAndJsonIsTheExportSection) {
  doc_tree();
  Result r = acct({"show", "tree"});
  ASSERT_EQ(0, r.status);
  EXPECT_NE(std::string::npos, r.out.find("\n  B ")) << r.out;
  r = acct({"show", "accounts", "--json"});
  ASSERT_EQ(0, r.status);
  EXPECT_NE(std::string::npos, r.out.find(R"({"name":"B","parent":"A","shares":30})")) << r.out;
}

TEST_F(Cli, ChargingTheSameJobTwiceChangesUsageOnce) {
  doc_tree();
  ok({"charge", "--job", "77", "--user", "User1", "--start", "1000", "--end", "1100", "--cpus", "4",
      "--running"});
  ok({"charge", "--job", "77", "--user", "User1", "--start", "1000", "--end", "1100", "--cpus", "4",
      "--running"});
  Result r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("User1|B||1|0|yes|None|400|")) << r.out;
  // A later end charges only the difference: 50 s x 4.
  ok({"charge", "--job", "77", "--user", "User1", "--start", "1000", "--end", "1150", "--cpus", "4"});
  r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("User1|B||1|0|yes|None|600|")) << r.out;
}

TEST_F(Cli, ChargeAppliesQosUsageFactorAndIsoTimes) {
  doc_tree();
  ok({"add", "qos", "double", "UsageFactor=2"});
  ok({"charge", "--job", "1", "--user", "User2", "--account", "C", "--qos", "double", "--start",
      "2024-01-01T00:00:00", "--end", "2024-01-01T00:01:00", "--rate", "1.5"});
  Result r = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("C|User2||1|180|")) << r.out;
}

TEST_F(Cli, ChargeBatchIsAllOrNothing) {
  doc_tree();
  std::ofstream(dir.file("c.jsonl"))
      << "{\"job\": 1, \"user\": \"User1\", \"start\": 0, \"end\": 10, \"cpus\": 1}\n"
      << "{\"job\": 2, \"user\": \"User2\", \"start\": 0, \"end\": 10, \"rate\": 2}\n"
      << "{\"job\": 3, \"user\": \"nobody-here\", \"start\": 0, \"end\": 10, \"rate\": 2}\n";
  Result r = acct({"charge", "--file", dir.file("c.jsonl")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("c.jsonl:3: job 3")) << r.err;
  r = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("root|||1|0|")) << r.out;
  std::ofstream(dir.file("d.jsonl"))
      << "{\"job\": 1, \"user\": \"User1\", \"start\": 0, \"end\": 10, \"cpus\": 1}\n"
      << "{\"job\": 2, \"user\": \"User2\", \"start\": 0, \"end\": 10, \"rate\": 2}\n";
  ok({"charge", "--file", dir.file("d.jsonl")});
  r = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("root|||1|30|")) << r.out;
}

TEST_F(Cli, ModifyAndDelete) {
  doc_tree();
  ok({"add", "user", "User1", "Account=C"});
  ok({"modify", "user", "User1", "account=C", "set", "fairshare=5", "priority=3"});
  ok({"modify", "user", "User1", "set", "DefaultAccount=C"});
  ok({"modify", "account", "C", "set", "parent=D"});
  Result r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("User1|C||5|3|yes|None|0|")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("User1|B||1|0|no|None|0|")) << r.out;
  r = acct({"show", "accounts", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("C|D|10|0||")) << r.out;
  // Moving D under C would make a cycle.
  r = acct({"modify", "account", "D", "set", "parent=C"});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("parent cycle")) << r.err;
  r = acct({"delete", "account", "C"});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("has users")) << r.err;
  ok({"delete", "user", "User1", "account=C"});
  ok({"delete", "user", "User2"});
  ok({"delete", "account", "C"});
  r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("User1|B||1|0|yes|None|0|")) << r.out;
  EXPECT_EQ(std::string::npos, r.out.find("User2")) << r.out;
}

TEST_F(Cli, AnEmptyAccountOrPartitionSelectorIsRefusedAndChangesNothing) {
  doc_tree();
  ok({"add", "user", "User1", "Account=C"});
  const std::string before = acct({"export"}).out;
  // Without the rule "Partition=" selected every association without a
  // partition, in every account: User1's two were deleted.
  refused({{"delete", "user", "User1", "Partition="},
           {"delete", "user", "User1", "where", "Partition="},
           {"delete", "user", "User1", "Account="},
           {"delete", "user", "User1", "Account=B,"},
           {"modify", "user", "User1", "where", "Partition=", "set", "fairshare=7"}},
          2, "empty name");
  EXPECT_EQ(before, acct({"export"}).out);
}

TEST_F(Cli, HugeUsageFactorsAndBillingWeightsAreRefusedAtAddAndImport) {
  // 1e308 was stored, and every decay pass then failed for everybody.
  ok({"add", "qos", "fast", "UsageFactor=2.5"});
  const std::string before = acct({"export"}).out;
  refused({{"add", "qos", "big", "UsageFactor=1e308"},
           {"modify", "qos", "fast", "set", "UsageFactor=1000001"},
           {"add", "partition", "p", "TRESBillingWeights=cpu=1e308"},
           {"add", "partition", "p", "TRESBillingWeights=mem=2e9"}},
          0);
  std::ofstream(dir.file("q.json")) << R"({"qos": [{"name": "huge", "usage_factor": 1e308}]})";
  Result r = acct({"import", dir.file("q.json")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("usage_factor 1e+308 is not a number in 0..1000000")) << r.err;
  EXPECT_EQ(before, acct({"export"}).out);
  ok({"add", "qos", "max", "UsageFactor=1000000"});
  ok({"add", "partition", "p", "TRESBillingWeights=cpu=1000000"});
}

TEST_F(Cli, BadArgumentsGiveOneLineAndStatus2) {
  doc_tree();
  const std::vector<std::vector<std::string>> bad = {
      {"frobnicate"},
      {"add", "account"},
      {"add", "widget", "x"},
      {"add", "account", "X", "Fairshare=-5"},
      {"add", "account", "X", "colour=red"},
      {"add", "user", "u"},
      {"add", "qos", "q", "UsageFactor=abc"},
      {"add", "partition", "p", "PriorityJobFactor=70000"},
      {"show", "everything"},
      {"charge", "--job", "1"},
      {"modify", "account", "A"},
  };
  for (const auto& args : bad) {
    Result r = acct(args);
    EXPECT_EQ(2, r.status) << args[0] << " " << r.err;
    EXPECT_EQ(0u, r.err.find("mfprio-acct: ")) << r.err;
    EXPECT_EQ(r.err.size() - 1, r.err.find('\n')) << r.err;  // exactly one line
  }
  Result r = run_acct(dir, {"show", "tree"});  // neither --db nor --conf
  EXPECT_EQ(2, r.status);
  r = run_acct(dir, {"--help"});
  EXPECT_EQ(0, r.status);
  EXPECT_NE(std::string::npos, r.out.find("usage: mfprio-acct"));
}

TEST_F(Cli, FailedWritesExit1AndChangeNothing) {
  doc_tree();
  std::string before = acct({"export"}).out;
  EXPECT_EQ(1, acct({"add", "account", "A"}).status);                 // exists
  EXPECT_EQ(1, acct({"add", "user", "u", "account=nope"}).status);    // unknown account
  EXPECT_EQ(1, acct({"add", "account", "X", "parent=nope"}).status);  // unknown parent
  EXPECT_EQ(1, acct({"delete", "account", "root"}).status);
  std::ofstream(dir.file("bad.json"))
      << R"({"accounts": [{"name": "N"}], "users": [{"name": "a", "account": "N"},)"
      << R"({"name": "bob", "account": "zz"}]})";
  Result r = acct({"import", dir.file("bad.json")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find(R"(users[1] (name "bob"): unknown account "zz")"))
      << r.err;
  EXPECT_EQ(before, acct({"export"}).out);
}

TEST_F(Cli, ExportImportRoundTripThroughTheBinary) {
  doc_tree();
  ok({"charge", "--job", "5", "--user", "User4", "--start", "0", "--end", "3", "--rate", "0.1"});
  ok({"add", "partition", "batch", "TRESBillingWeights=CPU=1.0,Mem=0.25G", "TRES=cpu=240",
      "Default=yes"});
  std::string exported = acct({"export"}).out;
  std::ofstream(dir.file("e.json")) << exported;
  Result r = run_acct(dir, {"--db", dir.file("copy.db"), "import", dir.file("e.json")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(exported, run_acct(dir, {"--db", dir.file("copy.db"), "export"}).out);
}

TEST_F(Cli, ConfFileGivesTheStoreLocation) {
  doc_tree();
  std::ofstream(dir.file("slurm.conf"))
      << "# test\nClusterName=x  accountingstorageLOC=" << db << " # the store\n";
  Result r = run_acct(dir, {"--conf", dir.file("slurm.conf"), "show", "accounts", "-p"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("B|A|30|0||"));
  std::ofstream(dir.file("empty.conf")) << "PriorityType=priority/multifactor\n";
  // No AccountingStorageLoc: the default store beside the conf, which
  // `show` does not create.
  r = run_acct(dir, {"--conf", dir.file("empty.conf"), "show", "tree"});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find(dir.file("mfprio.db"))) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir.file("mfprio.db")));
  // The key may come from an included file, as in a real slurm.conf.
  std::ofstream(dir.file("accounting.conf")) << "AccountingStorageLoc=" << db << "\n";
  std::ofstream(dir.file("main.conf")) << "ClusterName=x\nInclude accounting.conf\n";
  r = run_acct(dir, {"--conf", dir.file("main.conf"), "show", "accounts", "-p"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("B|A|30|0||"));
}

TEST(ConfLoc, LastPairWinsQuotesAndRelativePaths) {
  EXPECT_EQ("/b.db", storage_loc_from_text(
                         "AccountingStorageLoc=/a.db\nX=1 AccountingStorageLoc=\"/b.db\"\n", "f"));
  EXPECT_EQ("/etc/mf/acct.db", storage_loc_from_text("accountingstorageloc=acct.db", "/etc/mf/x.conf"));
  EXPECT_EQ("/x.db", storage_loc_from_text("#AccountingStorageLoc=/no.db\nAccountingStorageLoc=/x.db#c", "f"));
  // No key: the default, mfprio.db in StateSaveLocation, else beside the conf.
  TempDir d;
  const std::string conf = d.file("x.conf");
  std::ofstream(conf) << "Other=1\n";
  EXPECT_EQ(d.file("mfprio.db"), storage_loc_from_text("Other=1\n", conf));
  EXPECT_THROW(storage_loc_from_text("Other=1\n", "/no/such/x.conf"), AdminError);  // beside no real file
  EXPECT_EQ("/var/spool/ctld/mfprio.db", storage_loc_from_text("StateSaveLocation=/var/spool/ctld/\n", "/etc/x.conf"));
  EXPECT_EQ("/etc/state/mfprio.db", storage_loc_from_text("StateSaveLocation=state\n", "/etc/x.conf"));
  EXPECT_THROW(storage_loc_from_text("", "f"), AdminError);  // nothing to place it beside
  EXPECT_THROW(storage_loc_from_text("AccountingStorageLoc=\"/x\n", "f"), AdminError);
}

// An older store, as a package upgrade finds it: schema 6 (no tree cache, the
// journal of before schema 10).
void back_to_schema_6(const std::string& db) {
  sqlite3* h = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_open(db.c_str(), &h));
  ASSERT_EQ(SQLITE_OK, sqlite3_exec(h, "DROP TABLE tree_cache; DROP TABLE settings;"
                                      " ALTER TABLE charge_journal DROP COLUMN tres;"
                                      " ALTER TABLE charge_journal ADD COLUMN tres_id INTEGER; PRAGMA user_version = 6;",
                                    nullptr, nullptr, nullptr));
  sqlite3_close(h);
}
int schema_of(const std::string& db) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  int v = -1;
  if (sqlite3_prepare_v2(h, "PRAGMA user_version", -1, &st, nullptr) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    v = sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}

TEST_F(Cli, AnOlderSchemaStoreIsUpgradedByTheToolItself) {
  // Without the upgrade every command said "open it once read-write" until a plugin started.
  doc_tree();
  const std::string tree = acct({"show", "tree", "-p"}).out;
  back_to_schema_6(db);
  Result r = acct({"show", "tree", "-p"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(tree, r.out);
  EXPECT_EQ(detail::kSchemaVersion, schema_of(db));
  back_to_schema_6(db);
  ok({"add", "account", "Z"});
  EXPECT_EQ(detail::kSchemaVersion, schema_of(db));
  back_to_schema_6(db);
  r = acct({"export"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("\"Z\"")) << r.out;
}

// Runs as nobody; needs root to switch users.
class CliAsNobody : public Cli {
 protected:
  void SetUp() override {
    Cli::SetUp();
    // Switching to nobody needs root; ./dev test and CI run as root. Run
    // as another user, these tests fail: a check that did not run is not a pass.
    ASSERT_EQ(0u, geteuid()) << "needs root to run mfprio-acct as nobody via setpriv (run the suite as root)";
    ASSERT_EQ(0, chmod(dir.path().c_str(), 0777));
  }
  const std::string nobody = "setpriv --reuid=nobody --regid=nogroup --clear-groups ";
};

TEST_F(CliAsNobody, ReadableStoreShowsButRefusesWritesWithOwnershipMessage) {
  doc_tree();
  ASSERT_EQ(0, chmod(db.c_str(), 0644));
  std::string before = acct({"export"}).out;
  Result r = acct({"add", "account", "Z"}, nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("refused: uid 65534 (nobody) is neither the owner"))
      << r.err;
  r = acct({"charge", "--job", "1", "--user", "User1", "--start", "0", "--end", "9", "--rate", "1"},
           nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("refused")) << r.err;
  r = acct({"show", "tree", "-p"}, nobody);
  EXPECT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("B|User1||1|0|"));
  EXPECT_EQ(before, acct({"export"}).out);
}

TEST_F(CliAsNobody, AnOlderSchemaIsUpgradedOnlyByItsOwnerOrRoot) {
  doc_tree();
  ASSERT_EQ(0, chmod(db.c_str(), 0666));
  back_to_schema_6(db);
  Result r = acct({"show", "tree"}, nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("needs a schema upgrade, which only its owner (uid 0) or root may make"))
      << r.err;
  EXPECT_EQ(6, schema_of(db));
  EXPECT_EQ(0, acct({"show", "tree"}).status);  // root
  EXPECT_EQ(detail::kSchemaVersion, schema_of(db));
}

TEST_F(CliAsNobody, AReadOnlyStoreInADirectoryNobodyMayWriteIsShown) {
  // A 0444 store in a 0555 directory (as on a read-only file system): no
  // -shm can be made beside it; show and export still read it.
  doc_tree();
  const std::string before = acct({"export"}).out;
  const std::string ro = dir.file("ro");
  ASSERT_EQ(0, mkdir(ro.c_str(), 0755));
  std::filesystem::copy_file(db, ro + "/acct.db");
  ASSERT_EQ(0, chmod((ro + "/acct.db").c_str(), 0444));
  ASSERT_EQ(0, chmod(ro.c_str(), 0555));
  Result r = run_acct(dir, {"--db", ro + "/acct.db", "show", "tree", "-p"}, nobody);
  EXPECT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("B|User1||1|0|")) << r.out;
  r = run_acct(dir, {"--db", ro + "/acct.db", "export"}, nobody);
  EXPECT_EQ(0, r.status) << r.err;
  EXPECT_EQ(before, r.out);
  EXPECT_FALSE(std::filesystem::exists(ro + "/acct.db-shm"));
  ASSERT_EQ(0, chmod(ro.c_str(), 0755));
}

TEST_F(CliAsNobody, UnreadableStoreRefusesEverything) {
  doc_tree();
  ASSERT_EQ(0, chmod(db.c_str(), 0600));
  std::string before = acct({"export"}).out;
  Result r = acct({"add", "account", "Z"}, nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("cannot open")) << r.err;
  EXPECT_EQ(1, acct({"show", "tree"}, nobody).status);
  EXPECT_EQ(before, acct({"export"}).out);
}

TEST_F(CliAsNobody, AdminInStoreIsNotRefused) {
  doc_tree();
  ok({"add", "user", "nobody", "Account=root", "AdminLevel=Administrator"});
  // Make the file writable by nobody without making it nobody's: then only
  // the admin flag can let the write through.
  ASSERT_EQ(0, chmod(db.c_str(), 0666));
  for (const char* ext : {"-wal", "-shm"}) chmod((db + ext).c_str(), 0666);
  Result r = acct({"add", "account", "Z"}, nobody);
  EXPECT_EQ(0, r.status) << r.err;
  ok({"modify", "user", "nobody", "set", "AdminLevel=None"});
  r = acct({"add", "account", "Y"}, nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("refused")) << r.err;
}

// import-flux: flux-accounting's export-db files (banks with a header, the
// legacy headerless users.csv with a quoted queue list, queue_table.csv).
TEST_F(Cli, ImportFluxReadsExportDbCsvsInOneTransaction) {
  std::ofstream(dir.file("banks.csv")) << "bank,parent_bank,shares,priority\n"
                                          "root,,1,0\n"
                                          "physics,root,3,2\n"
                                          "chem,root,1,0\n";
  std::ofstream(dir.file("users.csv")) << "alice,5001,physics,2,5,7,2147483647,\"batch,debug\"\n"
                                          "bob,5002,chem,1,5,7,2147483647,\n";
  std::ofstream(dir.file("queues.csv")) << "queue,min_nodes_per_job,max_nodes_per_job,max_time_per_job,priority\n"
                                           "batch,0,1,60,1\n"
                                           "debug,0,1,60,100\n";
  Result r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv"), "--queues",
                   dir.file("queues.csv")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("imported 2 banks, 2 queues, 2 users\n", r.out);
  const std::string ex = acct({"export"}).out;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"physics","parent":"root","shares":3,"priority":2})")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"debug","priority":100})")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"("queues":["batch","debug"])")) << ex;
  Result t = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, t.out.find("physics|alice||2|0|")) << t.out;
}

TEST_F(Cli, ImportFluxSkipsAUtf8BomAndRefusesInvisibleCharactersInNames) {
  // Saved by a spreadsheet: a BOM before the header and the first name.
  std::ofstream(dir.file("banks.csv")) << "\xEF\xBB\xBF" "bank,parent_bank,shares\nroot,,1\nA,root,1\n";
  std::ofstream(dir.file("users.csv")) << "\xEF\xBB\xBF" "alice,5001,A,2,5,7,2147483647,\n";
  Result r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  ASSERT_EQ(0, r.status) << r.err;
  Result t = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, t.out.find("\nA|alice||2|0|")) << t.out;  // not "\ufeffalice"
  // Inside a file a BOM (U+FEFF) or a zero-width space (U+200B) in a name is refused, naming it.
  std::ofstream(dir.file("users.csv")) << "bob,5002,A,1,5,7,2147483647,\n\xE2\x80\x8B" "carol,5003,A,1,5,7,1,\n";
  r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("invisible format character U+200B")) << r.err;
  EXPECT_NE(std::string::npos, r.err.find("users.csv:2")) << r.err;
  r = acct({"add", "user", "\xEF\xBB\xBF" "dave", "Account=A"});
  EXPECT_EQ(2, r.status);
  EXPECT_NE(std::string::npos, r.err.find("invisible format character U+FEFF")) << r.err;
  EXPECT_EQ(t.out, acct({"show", "tree", "-p"}).out);  // nothing changed
}

// A users file without the job_usage or queues column
// keeps the stored usage and queue permissions (an omitted field keeps its
// stored value); a column given (even an empty queue list) sets them.
TEST_F(Cli, ImportFluxAgainWithoutUsageOrQueuesColumnsKeepsThem) {
  std::ofstream(dir.file("banks.csv")) << "bank,parent_bank,shares\nroot,,1\nA,root,1\n";
  std::ofstream(dir.file("queues.csv")) << "queue,priority\nbatch,1\n";
  std::ofstream(dir.file("users.csv")) << "username,bank,shares,job_usage,queues\nalice,A,1,1234,batch\n";
  const std::vector<std::string> args = {"import-flux", "--banks", dir.file("banks.csv"), "--users",
                                         dir.file("users.csv"), "--queues", dir.file("queues.csv")};
  ASSERT_EQ(0, acct(args).status);
  std::ofstream(dir.file("users.csv")) << "username,bank,shares\nalice,A,3\n";
  Result r = acct(args);
  ASSERT_EQ(0, r.status) << r.err;
  std::string ex = acct({"export"}).out;
  EXPECT_NE(std::string::npos, ex.find(R"("queues":["batch"])")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"("raw_usage":1234)")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"("shares":3)")) << ex;
  // The same in the legacy headerless order (it has queues but no job_usage).
  std::ofstream(dir.file("users.csv")) << "alice,5001,A,2,5,7,2147483647,batch\n";
  ASSERT_EQ(0, acct(args).status);
  ex = acct({"export"}).out;
  EXPECT_NE(std::string::npos, ex.find(R"("raw_usage":1234)")) << ex;
  // Given, they are set: an empty queue list clears the permissions.
  std::ofstream(dir.file("users.csv")) << "username,bank,shares,job_usage,queues\nalice,A,1,10,\n";
  ASSERT_EQ(0, acct(args).status);
  ex = acct({"export"}).out;
  EXPECT_EQ(std::string::npos, ex.find(R"("queues":["batch"])")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"("raw_usage":10)")) << ex;
}

// `flux account export-db`'s whole set: the root bank's shares go
// to the root account; the weights and config tables become the flux
// family's PriorityParameters line (an Include-able fragment).
TEST_F(Cli, ImportFluxTakesTheRootSharesAndTheWeightAndConfigTables) {
  const std::string x = data_path("admins/flux-export/");
  for (const char* f : {"bank_table.csv", "association_table.csv", "queue_table.csv",
                        "priority_factor_weight_table.csv", "config_table.csv"})
    ASSERT_TRUE(std::ifstream(x + f).good()) << "missing " << x << f;
  const std::string frag = dir.file("flux-priority.conf");
  Result r = acct({"import-flux", "--banks", x + "bank_table.csv", "--users", x + "association_table.csv",
                   "--queues", x + "queue_table.csv", "--weights", x + "priority_factor_weight_table.csv", "--config", x + "config_table.csv",
                   "--parameters-out", frag});
  ASSERT_EQ(0, r.status) << r.err;
  const std::string line =
      "PriorityParameters=mode=accounting,fairshare=50000,queue=20000,bank=500,urgency=1000,"
      "decay_half_life=14-00:00:00,reset_period=28-00:00:00,decay_factor=0.8,node_weight=1.0,core_weight=0.0,"
      "gpu_weight=0.0";
  EXPECT_NE(std::string::npos, r.out.find("imported 2 banks, 2 queues, 2 users\n")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("wrote " + frag + ": " + line)) << r.out;
  std::ifstream in(frag);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(std::string::npos, text.str().find("\n" + line + "\n")) << text.str();
  // The config keys that are not priority settings are named, as comments.
  EXPECT_NE(std::string::npos, text.str().find("# " + x + "config_table.csv:8: key 'deny_unknown_queues' is not a "
                                                            "priority setting mfprio reads: passed over"))
      << text.str();
  // The root bank's shares (5) are the root account's.
  Result t = acct({"show", "tree", "-p"});
  EXPECT_NE(std::string::npos, t.out.find("root|||5|")) << t.out;
  EXPECT_NE(std::string::npos, t.out.find("physics|alice||2|")) << t.out;
  // --weights/--config alone: the fragment on stdout, no store needed.
  Result s = run_acct(dir, {"--db", dir.file("none.db"), "import-flux", "--weights",
                            x + "priority_factor_weight_table.csv"});
  ASSERT_EQ(0, s.status) << s.err;
  EXPECT_NE(std::string::npos, s.out.find("\nPriorityParameters=mode=accounting,fairshare=50000,queue=20000,bank=500,"
                                          "urgency=1000\n")) << s.out;
  EXPECT_FALSE(std::ifstream(dir.file("none.db")).good());
  // A factor flux-accounting does not have, or a bad duration: FILE:LINE, nothing written.
  std::ofstream(dir.file("w.csv")) << "factor,weight\nfairshare,1\nage,5\n";
  s = acct({"import-flux", "--banks", x + "bank_table.csv", "--users", x + "association_table.csv", "--queues",
            x + "queue_table.csv", "--weights", dir.file("w.csv")});
  EXPECT_EQ(1, s.status);
  EXPECT_NE(std::string::npos, s.err.find(dir.file("w.csv") + ":3: factor 'age'")) << s.err;
  std::ofstream(dir.file("c.csv")) << "key,value\npriority_decay_half_life,1w\n";
  s = acct({"import-flux", "--config", dir.file("c.csv")});
  EXPECT_EQ(1, s.status);
  EXPECT_NE(std::string::npos, s.err.find(dir.file("c.csv") + ":2: key 'priority_decay_half_life': '1w'")) << s.err;
}

// Grid Engine's users, projects and departments with their
// functional shares and override tickets, from the site's qconf output.
TEST_F(Cli, ImportQconfReadsUsersProjectsAndDepartments) {
  const std::string q = data_path("admins/qconf/");
  for (const char* f : {"suser.txt", "sprj.txt", "su.txt"})
    ASSERT_TRUE(std::ifstream(q + f).good()) << "missing " << q << f;
  Result r = acct({"import-qconf", "--users", q + "suser.txt", "--projects", q + "sprj.txt", "--usersets",
                   q + "su.txt"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("note: " + q + "su.txt:12: userset 'chem_users' is an ACL only")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("imported 2 users, 2 projects, 2 departments\n")) << r.out;
  const std::string ex = acct({"export"}).out;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"bob","admin":false,"fshare":100,"oticket":2000})")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"chemistry","fshare":300,"oticket":500})")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"theory","fshare":250,"oticket":0})")) << ex;
  EXPECT_EQ(std::string::npos, ex.find("chem_users")) << ex;
  // A bad number names the file and line; nothing is written.
  std::ofstream(dir.file("bad.txt")) << "name carol\noticket 0\nfshare lots\n";
  r = acct({"import-qconf", "--projects", q + "sprj.txt", "--users", dir.file("bad.txt")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find(dir.file("bad.txt") + ":3: key 'fshare' value 'lots'")) << r.err;
  std::ofstream(dir.file("bad.txt")) << "fshare 3\nname carol\n";
  r = acct({"import-qconf", "--users", dir.file("bad.txt")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find(dir.file("bad.txt") + ":1: key 'fshare' value '3': a key before the first"))
      << r.err;
  EXPECT_EQ(2, acct({"import-qconf"}).status);
}

// sacctmgr's dump / load flat-file format.  The live Slurm
// cluster's association tree (tests/data/slurm-live/variant's `sacctmgr
// show assoc`), as a dump file, loads into a store whose associations are
// what sacctmgr showed; dumped and loaded again it gives the same store.
// show assoc's Cluster column: after `load` it is the
// dump's cluster, as the live capture's `sacctmgr show assoc` has it in
// every row; with --conf it is the conf's ClusterName (lower-cased, as
// slurmctld registers it).
TEST_F(Cli, ShowAssocFillsTheClusterColumn) {
  const std::string dump = data_path("admins/live-dump.cfg");
  const std::vector<std::vector<std::string>> rows = live_assoc_rows();
  ASSERT_EQ(0, acct({"load", "file=" + dump}).status);
  std::string expected = "Cluster|Account|User\n";
  for (const std::vector<std::string>& f : rows) {
    ASSERT_GE(f.size(), 3u);
    expected += f[0] + "|" + f[1] + "|" + f[2] + "\n";
  }
  Result shown = acct({"show", "assoc", "format=Cluster,Account,User", "-P"});
  ASSERT_EQ(0, shown.status) << shown.err;
  EXPECT_EQ(expected, shown.out);
  // The default table: the Cluster column's first cell.
  shown = acct({"show", "assoc", "-n", "user=dave"});
  ASSERT_EQ(0, shown.status) << shown.err;
  EXPECT_EQ(0u, shown.out.find("      live ")) << shown.out;
  // --conf: ClusterName wins.
  std::ofstream(dir.file("slurm.conf")) << "ClusterName=Hermes\nAccountingStorageLoc=" << db << "\n";
  shown = run_acct(dir, {"--conf", dir.file("slurm.conf"), "show", "assoc", "format=Cluster,User", "-P", "-n",
                         "user=dave"});
  ASSERT_EQ(0, shown.status) << shown.err;
  EXPECT_EQ("hermes|dave\n", shown.out);
  // A store no load wrote, given by --db: no cluster, an empty column.
  Result fresh = run_acct(dir, {"--db", dir.file("fresh.db"), "-i", "add", "account", "a"});
  ASSERT_EQ(0, fresh.status) << fresh.err;
  fresh = run_acct(dir, {"--db", dir.file("fresh.db"), "show", "assoc", "format=Cluster,Account", "-P", "-n"});
  EXPECT_EQ("|root\n|a\n", fresh.out);
}

// `show cluster`: sacctmgr's default columns; what
// mfprio knows is filled (the conf's ClusterName, first SlurmctldHost and
// its port, the node lines' TRES; root's share), the rest is empty.
TEST_F(Cli, ShowClusterHasSacctmgrsColumns) {
  ok({"add", "account", "phys"});
  ok({"modify", "account", "root", "set", "fairshare=7"});
  std::ofstream(dir.file("slurm.conf"))
      << "ClusterName=hermes\nSlurmctldHost=ctl1(10.1.0.1)\nSlurmctldHost=ctl2\nSlurmctldPort=6820-6821\n"
      << "NodeName=n[1-2] CPUs=32 RealMemory=128000 Gres=gpu:4\nAccountingStorageLoc=" << db << "\n";
  const std::string conf = dir.file("slurm.conf");
  Result r = run_acct(dir, {"--conf", conf, "show", "cluster"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(0u, r.out.find("   Cluster     ControlHost  ControlPort   RPC     Share GrpJobs       GrpTRES GrpSubmit "
                           "MaxJobs       MaxTRES MaxSubmit     MaxWall                  QOS   Def QOS \n")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("\n    hermes            ctl1         6820               7 ")) << r.out;
  r = run_acct(dir, {"--conf", conf, "show", "clusters", "format=Cluster,ControlHost,ControlPort,NodeCount,TRES,Share",
                     "-P", "-n"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("hermes|ctl1|6820|2|cpu=64,mem=256000M,node=2,gres/gpu=8|7\n", r.out);
  // where Name=other: no row; --json is refused like show assoc's.
  r = run_acct(dir, {"--conf", conf, "show", "cluster", "where", "name=other", "-P", "-n"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("", r.out);
  EXPECT_EQ(2, run_acct(dir, {"--conf", conf, "--json", "show", "cluster"}).status);
  // --db after load: the loaded cluster's name, no controller.
  ASSERT_EQ(0, acct({"load", "file=" + data_path("admins/live-dump.cfg")}).status);
  r = acct({"show", "cluster", "format=Cluster,ControlHost,Share", "-P", "-n"});
  EXPECT_EQ("live||1\n", r.out) << r.err;
}

// An old slurm.conf names Slurm's text job log as
// AccountingStorageLoc; every command says what the file is (not SQLite's
// "file is not a database") and leaves it alone.
TEST_F(Cli, AnOldConfsTextJobLogIsNamed) {
  const std::string log = dir.file("slurm_jobacct.log");
  const std::string text = "17 debug 1700000000 1700000000 1000 100 - - 0 job 1 4294967295 1 n1 (null)\n";
  std::ofstream(log) << text;
  std::ofstream(dir.file("old.conf"))
      << "AccountingStorageType=accounting_storage/filetxt\nAccountingStorageLoc=" << log << "\n";
  for (const std::vector<std::string>& cmd :
       {std::vector<std::string>{"show", "assoc"}, {"-i", "add", "account", "a"}, {"export"}}) {
    std::vector<std::string> args{"--conf", dir.file("old.conf")};
    args.insert(args.end(), cmd.begin(), cmd.end());
    Result r = run_acct(dir, args);
    EXPECT_EQ(1, r.status) << cmd[0];
    EXPECT_NE(std::string::npos, r.err.find(log + ": a text file, not an mfprio store")) << r.err;
    EXPECT_NE(std::string::npos, r.err.find("accounting_storage/filetxt")) << r.err;
    EXPECT_EQ(std::string::npos, r.err.find("not a database")) << r.err;
  }
  EXPECT_EQ(text, test::slurp(log));
  EXPECT_FALSE(std::filesystem::exists(log + "-wal"));
}

// Grid Engine's auto_user_fshare / auto_user_oticket (qconf
// -sconf, enforce_user auto) go to every user without a user object: the
// store's users now, and every user the store creates later; a user object
// given explicitly keeps its values; enforce_user false removes them.
TEST_F(Cli, ImportQconfGlobalGivesAutoUsersTheirFshare) {
  ok({"add", "account", "phys"});
  ok({"add", "user", "alice,bob", "account=phys"});
  std::ofstream(dir.file("suser.txt")) << "name alice\noticket 0\nfshare 30\ndelete_time 0\ndefault_project NONE\n";
  ok({"import-qconf", "--users", dir.file("suser.txt")});
  std::ofstream(dir.file("sconf.txt"))
      << "#global:\nexecd_spool_dir              /var/spool/gridengine/execd\nenforce_user                 auto\n"
      << "reporting_params             accounting=true reporting=false \\\n"
      << "                             flush_time=00:00:15 joblog=false sharelog=00:00:00\n"
      << "auto_user_oticket            5\nauto_user_fshare             100\n"
      << "auto_user_default_project    none\nauto_user_delete_time        86400\n";
  Result r = acct({"import-qconf", "--global", dir.file("sconf.txt")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("gave 1 users without a user object auto_user_fshare/oticket")) << r.out;
  auto exported = [&] { return acct({"export"}).out; };
  std::string ex = exported();
  EXPECT_NE(std::string::npos, ex.find(R"("fshare":30,"oticket":0)")) << ex;    // alice's own object
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"bob","account":"phys","shares":1,"default":true,"raw_usage":0.0,)"
                                       R"("fshare":100,"oticket":5})")) << ex;
  // Users created later get them too; an explicit object in the same write wins.
  ok({"add", "user", "carol", "account=phys"});
  std::ofstream(dir.file("dave.txt")) << "name dave\noticket 1\nfshare 2\n";
  ok({"import-qconf", "--users", dir.file("dave.txt")});
  ex = exported();
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"carol","account":"phys","shares":1,"default":true,)"
                                       R"("raw_usage":0.0,"fshare":100,"oticket":5})")) << ex;
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"dave","admin":false,"fshare":2,"oticket":1})")) << ex;
  // A bad value names file:line, key and value; nothing changes.
  std::ofstream(dir.file("bad.txt")) << "enforce_user auto\nauto_user_fshare -1\n";
  r = acct({"import-qconf", "--global", dir.file("bad.txt")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find(dir.file("bad.txt") + ":2: key 'auto_user_fshare' value '-1'")) << r.err;
  EXPECT_EQ(ex, exported());
  // enforce_user false: Grid Engine creates no user objects; new users get none.
  std::ofstream(dir.file("off.txt")) << "enforce_user false\nauto_user_fshare 100\n";
  r = acct({"import-qconf", "--global", dir.file("off.txt")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("enforce_user is false")) << r.out;
  ok({"add", "user", "erin", "account=phys"});
  ex = exported();
  EXPECT_NE(std::string::npos, ex.find(R"({"name":"erin","account":"phys","shares":1,"default":true,"raw_usage":0.0})"))
      << ex;
  EXPECT_EQ(2, acct({"import-qconf", "--global", dir.file("off.txt"), "--global", dir.file("off.txt")}).status);
}

TEST_F(Cli, LoadAndDumpRoundTripTheLiveClustersAssociations) {
  const std::string dump = data_path("admins/live-dump.cfg");
  const std::vector<std::vector<std::string>> rows = live_assoc_rows();
  ASSERT_TRUE(std::ifstream(dump).good()) << "missing " << dump;
  Result r = acct({"load", "file=" + dump});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find("loaded cluster 'live': 4 accounts, 7 user associations\n")) << r.out;
  EXPECT_NE(std::string::npos, r.out.find("note: " + dump + ":9: qos: read, not kept")) << r.out;
  // sacctmgr's rows: Cluster|Account|User|Partition|Share|Priority|ParentName|QOS|Def QOS.
  std::string expected = "Account|User|Partition|Share|Priority\n";
  for (const std::vector<std::string>& f : rows) {
    ASSERT_GE(f.size(), 6u);
    expected += f[1] + "|" + f[2] + "|" + f[3] + "|" + f[4] + "|" + f[5] + "\n";
  }
  Result shown = acct({"show", "assoc", "format=Account,User,Partition,Share,Priority", "-P"});
  ASSERT_EQ(0, shown.status) << shown.err;
  EXPECT_EQ(expected, shown.out);
  // Round trip: dump, load into a fresh store, the same export.
  const std::string out = dir.file("out.cfg");
  r = acct({"dump", "live", "file=" + out});
  ASSERT_EQ(0, r.status) << r.err;
  const std::string first = acct({"export"}).out;
  Result again = run_acct(dir, {"--db", dir.file("again.db"), "-i", "load", "file=" + out});
  ASSERT_EQ(0, again.status) << again.err;
  EXPECT_EQ(first, run_acct(dir, {"--db", dir.file("again.db"), "export"}).out);
  Result d = acct({"dump", "live"});
  EXPECT_NE(std::string::npos, d.out.find("\nCluster - 'live':Fairshare=1\nParent - 'root'\n")) << d.out;
  EXPECT_NE(std::string::npos, d.out.find("User - 'dave':DefaultAccount='exp':Fairshare=parent\n")) << d.out;
  // Bad lines name FILE:LINE; nothing is written.
  auto refused = [&](const std::string& text, const std::string& message) {
    std::ofstream(dir.file("bad.cfg")) << text;
    Result b = run_acct(dir, {"--db", dir.file("bad.db"), "-i", "load", "file=" + dir.file("bad.cfg")});
    EXPECT_EQ(1, b.status) << text;
    EXPECT_NE(std::string::npos, b.err.find(message)) << b.err;
    EXPECT_EQ(std::string::npos, run_acct(dir, {"--db", dir.file("bad.db"), "export"}).out.find("\"x\"")) << text;
  };
  refused("Cluster - 'c'\nAccount - 'x':FairShar=5\n", dir.file("bad.cfg") + ":2: option 'fairshar' is not one sacctmgr "
                                                        "knows (did you mean fairshare?)");
  refused("Cluster - 'c'\nParent - 'nowhere'\n", ":2: Parent 'nowhere' is not an account listed before it");
  refused("Account - 'x'\n", ":1: the first record must be 'Cluster - NAME'");
  refused("Cluster - 'c'\nAccount - 'x':Fairshare=lots\n", ":2: Fairshare='lots': expected an integer");
  refused("Cluster - 'c'\nAccount - 'x'\nParent - 'x'\nUser - 'u':DefaultAccount='y'\n",
          "user 'u': DefaultAccount='y' has no User line under Parent 'y'");
  EXPECT_EQ(2, acct({"dump"}).status);
}

TEST_F(Cli, ImportFluxNamesTheBadLineAndColumnAndWritesNothing) {
  std::ofstream(dir.file("banks.csv")) << "bank,parent_bank,shares\nroot,,1\nA,root,1\n";
  std::ofstream(dir.file("users.csv")) << "username,bank,shares\nalice,A,1\nbob,A,lots\n";
  Result r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("users.csv:3")) << r.err;
  EXPECT_NE(std::string::npos, r.err.find("shares")) << r.err;
  // Validation is the JSON import's: an unknown bank, then a queue no file
  // lists, are named by their CSV line.
  std::ofstream(dir.file("users.csv")) << "username,bank,shares\nalice,A,1\nbob,B,1\n";
  r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("users.csv:3 (name \"bob\"): unknown account \"B\"")) << r.err;
  std::ofstream(dir.file("users.csv")) << "username,bank,shares,queues\nalice,A,1,gpu\n";
  r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("users.csv:2 (name \"alice\"): unknown queue \"gpu\"")) << r.err;
  // A fractional bank priority cannot be kept by the store.
  std::ofstream(dir.file("banks.csv")) << "bank,parent_bank,shares,priority\nroot,,1,0\nA,root,1,1.5\n";
  r = acct({"import-flux", "--banks", dir.file("banks.csv"), "--users", dir.file("users.csv")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("banks.csv:3: column 'priority': '1.5'")) << r.err;
  EXPECT_EQ(2, acct({"import-flux", "--banks", dir.file("banks.csv")}).status);
  // Nothing was written by any of the failures.
  Result t = acct({"show", "tree", "-p"});
  EXPECT_EQ("Account|User|Partition|Shares|RawUsage|\nroot|||1|0|\n", t.out) << t.err;
}

TEST_F(Cli, QueuesAreAddedModifiedPermittedAndDeleted) {
  ok({"add", "account", "A"});
  ok({"add", "queue", "batch", "Priority=-3"});
  ok({"add", "queue", "debug"});
  ok({"add", "user", "alice", "Account=A", "Queues=debug,batch"});
  Result r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("alice|A||1|0|yes|None|0|batch,debug|")) << r.out;
  ok({"modify", "queue", "debug", "set", "Priority=100"});
  r = acct({"show", "queues", "-p"});
  EXPECT_EQ("Name|Priority|\nbatch|-3|\ndebug|100|\n", r.out);
  r = acct({"modify", "user", "alice", "set", "Queues=gpu"});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("unknown queue \"gpu\"")) << r.err;
  EXPECT_EQ(2, acct({"add", "queue", "x", "Priority=2147483648"}).status);
  ok({"delete", "queue", "batch"});
  r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("|debug|")) << r.out;
  ok({"modify", "user", "alice", "set", "Queues="});
  r = acct({"show", "users", "-p"});
  EXPECT_NE(std::string::npos, r.out.find("alice|A||1|0|yes|None|0||")) << r.out;
}

// ---- Grid Engine: qconf -sstree and its usage --------------------------------

class CliSstree : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(test::binary().empty()) << "MFPRIO_ACCT not set"; }
  Result acct(std::vector<std::string> args) {
    args.insert(args.begin(), {"--db", db});
    return test::run_acct(dir, args);
  }
  // Imports `sstree` (qconf -sstree's text) and checks the store holds the
  // tree both forms of it describe: physics (75, a project) with alice (10)
  // and a default leaf (5), and root's default leaf (25).
  void import_physics_tree(const std::string& sstree) {
    std::ofstream(dir.file("tree")) << sstree;
    Result r = acct({"import-sstree", dir.file("tree")});
    ASSERT_EQ(0, r.status) << r.err;
    EXPECT_EQ("imported 1 accounts, 3 user leaves, 1 projects\n", r.out);
    r = acct({"show", "tree", "-p"});
    ASSERT_EQ(0, r.status) << r.err;
    EXPECT_EQ(
        "Account|User|Partition|Shares|RawUsage|\n"
        "root|||1|0|\n"
        "root|default||25|0|\n"
        "physics|||75|0|\n"
        "physics|alice||10|0|\n"
        "physics|default||5|0|\n",
        r.out);
  }
  TempDir dir;
  std::string db = dir.file("acct.db");
};

TEST_F(CliSstree, ImportsAccountsUserLeavesDefaultAndProjects) {
  ASSERT_NO_FATAL_FAILURE(import_physics_tree("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
                                              "id=1\nname=physics\ntype=1\nshares=75\nchildnodes=3,4\n"
                                              "id=2\nname=default\ntype=0\nshares=25\nchildnodes=NONE\n"
                                              "id=3\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n"
                                              "id=4\nname=default\ntype=0\nshares=5\nchildnodes=NONE\n"));
  Result r = acct({"export"});
  EXPECT_NE(r.out.find("\"projects\": [\n{\"name\":\"physics\""), std::string::npos) << r.out;
}

// Grid Engine 8.1.9's qconf -sstree after a qmaster restart (every id 0).
TEST_F(CliSstree, EveryIdZeroAfterAQmasterRestartImportsByOrder) {
  ASSERT_NO_FATAL_FAILURE(import_physics_tree("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=0,0\n"
                                              "id=0\nname=physics\ntype=1\nshares=75\nchildnodes=0,0\n"
                                              "id=0\nname=alice\ntype=0\nshares=10\nchildnodes=NONE\n"
                                              "id=0\nname=default\ntype=0\nshares=5\nchildnodes=NONE\n"
                                              "id=0\nname=default\ntype=0\nshares=25\nchildnodes=NONE\n"));
  // Ids 0 mixed with others: the line, nothing written.
  std::ofstream(dir.file("tree2")) << "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,0\n"
                                      "id=1\nname=x\ntype=0\nshares=1\nchildnodes=NONE\n"
                                      "id=0\nname=y\ntype=0\nshares=1\nchildnodes=NONE\n";
  Result r = acct({"import-sstree", dir.file("tree2")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(r.err.find(dir.file("tree2") + ":11"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("either every id is 0"), std::string::npos) << r.err;
}

TEST_F(CliSstree, ABadLineIsNamedAndNothingIsWritten) {
  std::ofstream(dir.file("tree")) << "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                                     "id=1\nname=alice\ntype=0\nshares=ten\nchildnodes=NONE\n";
  Result r = acct({"import-sstree", dir.file("tree")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(r.err.find(dir.file("tree") + ":9"), std::string::npos) << r.err;
  std::ofstream(dir.file("tree2")) << "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1\n"
                                      "id=1\nname=a|b\ntype=0\nshares=1\nchildnodes=NONE\n";
  r = acct({"import-sstree", dir.file("tree2")});
  EXPECT_EQ(1, r.status);
  EXPECT_NE(r.err.find(dir.file("tree2") + ":6"), std::string::npos) << r.err;
  r = acct({"show", "tree", "-p"});
  EXPECT_EQ("Account|User|Partition|Shares|RawUsage|\nroot|||1|0|\n", r.out);
}

// Grid Engine usage with the time it was measured, from
// sge_share_mon and from the qmaster's spooled users and projects.
// Halftime 168 h (the default): c = 1 - ln2/10080 per minute.
std::map<std::string, double> ge_rows(const std::string& db) {
  std::map<std::string, double> out;
  auto st = Store::open(db);
  for (const WindowRow& w : st->load_windows("gridengine")) out[w.kind + " " + w.name] = w.usage;
  return out;
}

TEST_F(CliSstree, SgeUsageIsCarriedFromItsMeasuredTimeToTheStoreClock) {
  const double c = 1 - std::log(2.0) / 10080;
  // sge_share_mon -c 1 (default fields): curr_time usage_time node user project
  // shares job_count level% total% lt st actual usage cpu mem io ltcpu ltmem ltio.
  std::ofstream(dir.file("mon")) <<
      "1700000600\t0\t/\t\t\t1\t0\t1\t1\t0\t0\t0\t900\t900\t0\t0\t0\t0\t0\n"
      "1700000600\t0\t/physics\t\tphysics\t60\t0\t0.6\t0.6\t0\t0\t0\t500\t500\t7\t0\t0\t0\t0\n"
      "1700000600\t1700000000\t/physics/alice\talice\tphysics\t5\t0\t1\t0.6\t0\t0\t0\t100\t100\t2\t0\t0\t0\t0\n"
      "1700000600\t1700000000\t/bob\tbob\t\t40\t0\t0.4\t0.4\t0\t0\t0\t300\t300\t0\t1\t0\t0\t0\n"
      "1700000600\t0\t/default\t\t\t10\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\t0\n";
  Result r = acct({"import-sge-usage", "--share-mon", dir.file("mon")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("imported the usage of 1 users, 1 users in projects, 1 projects at the store's decay time "
            "1700000600 (set)\n", r.out);
  // A store never decayed takes the latest measurement (1700000600) as its
  // clock; bob and alice were measured 10 minutes before: x c^10.
  std::map<std::string, double> rows = ge_rows(db);
  EXPECT_NEAR(rows["cpu bob"], 300 * std::pow(c, 10), 1e-9);
  EXPECT_NEAR(rows["io bob"], 1 * std::pow(c, 10), 1e-12);
  EXPECT_NEAR(rows["user_project_cpu alice:physics"], 100 * std::pow(c, 10), 1e-9);
  EXPECT_NEAR(rows["user_project_mem alice:physics"], 2 * std::pow(c, 10), 1e-12);
  EXPECT_DOUBLE_EQ(rows["project_cpu physics"], 500);  // measured at curr_time
  EXPECT_DOUBLE_EQ(rows["project_mem physics"], 7);
  EXPECT_EQ(rows.size(), 9u);  // 3 nodes x cpu, mem, io; "/" and the default leaf passed over
  r = acct({"show", "decay", "-p"});
  EXPECT_EQ(0u, r.out.find("LastDecay|LastReset|Scale|\n1700000600|0|")) << r.out;

  // The spool, one halftime (10080 minutes) after the store's clock: x c^-10080.
  std::filesystem::create_directories(dir.file("spool/users"));
  std::filesystem::create_directories(dir.file("spool/projects"));
  std::ofstream(dir.file("spool/users/bob")) << "name bob\noticket 0\nfshare 0\ndelete_time 0\n"
                                                "usage cpu=50.000000 mem=0.000000 io=0.000000 iow=0.000000\n"
                                                "usage_time_stamp 1700605400\n"
                                                "long_term_usage cpu=9000.000000 mem=0.000000 io=0.000000\n"
                                                "project physics cpu=20.000000,mem=1.000000,io=0.000000 "
                                                "cpu=90.000000,mem=0.000000,io=0.000000;\n"
                                                "default_project NONE\n";
  std::ofstream(dir.file("spool/users/carol")) << "name carol\noticket 0\nfshare 0\ndelete_time 0\n"
                                                  "usage NONE\nusage_time_stamp 0\nlong_term_usage NONE\n"
                                                  "project NONE\ndefault_project NONE\n";
  std::ofstream(dir.file("spool/projects/physics")) << "name physics\noticket 0\nfshare 0\n"
                                                       "usage cpu=250.000000 mem=0.000000 io=0.000000\n"
                                                       "usage_time_stamp 1700605400\nlong_term_usage NONE\n"
                                                       "project NONE\nacl NONE\nxacl NONE\n";
  r = acct({"import-sge-usage", "--spool", dir.file("spool")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("imported the usage of 1 users, 1 users in projects, 1 projects at the store's decay time "
            "1700000600\n", r.out);
  rows = ge_rows(db);
  const double back = std::pow(c, -10080.0);  // 1 / 0.49998808...
  EXPECT_NEAR(back, 2.0000477, 1e-6);
  EXPECT_NEAR(rows["cpu bob"], 50 * back, 1e-9);
  EXPECT_NEAR(rows["user_project_cpu bob:physics"], 20 * back, 1e-9);
  EXPECT_NEAR(rows["user_project_mem bob:physics"], 1 * back, 1e-9);
  EXPECT_NEAR(rows["project_cpu physics"], 250 * back, 1e-9);
  EXPECT_NEAR(rows["user_project_cpu alice:physics"], 100 * std::pow(c, 10), 1e-9);  // untouched
  EXPECT_EQ(rows.count("cpu carol"), 0u);  // never charged: passed over
  // With a sched_conf whose halftime is 0 (no decay): values as measured.
  std::ofstream(dir.file("sconf")) << "halftime 0\n";
  r = acct({"import-sge-usage", "--spool", dir.file("spool/users/bob"), "--sched-conf", dir.file("sconf")});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_DOUBLE_EQ(ge_rows(db)["cpu bob"], 50);
}

TEST_F(CliSstree, SgeUsageErrorsNameTheLineAndWriteNothing) {
  auto fails = [&](const std::string& text, std::vector<std::string> args, const std::string& want) {
    std::ofstream(dir.file("in")) << text;
    args.insert(args.begin(), "import-sge-usage");
    Result r = acct(args);
    EXPECT_EQ(1, r.status) << text;
    EXPECT_NE(r.err.find(want), std::string::npos) << r.err;
    EXPECT_TRUE(ge_rows(db).empty());
  };
  const std::string ok = "1700000600\t1700000000\t/bob\tbob\t\t40\t0\t0.4\t0.4\t0\t0\t0\t300\t300\t0\t1\t0\t0\t0\n";
  fails(ok + "1700000600\t1700000000\t/carol\tcarol\t\t40\t0\t0.4\t0.4\t0\t0\t0\t3\tlots\t0\t1\t0\t0\t0\n",
        {"--share-mon", dir.file("in")}, dir.file("in") + ":2: field 'cpu' value 'lots'");
  fails("Thu Nov 14 22:03:20 2023\t0\t/bob\tbob\t\t40\t0\t0.4\t0.4\t0\t0\t0\t300\t300\t0\t1\t0\t0\t0\n",
        {"--share-mon", dir.file("in")}, ":1: field 'curr_time' value 'Thu Nov 14 22:03:20 2023'");
  fails("1700000600\t/bob\tbob\n", {"--share-mon", dir.file("in")}, ":1: 3 tab-separated fields, expected 19");
  fails(ok + "1700000600\t1700000000\t/x/bob\tbob\t\t40\t0\t0.4\t0.4\t0\t0\t0\t300\t301\t0\t1\t0\t0\t0\n",
        {"--share-mon", dir.file("in")}, ":2: usage of 'bob' differs from " + dir.file("in") + ":1");
  fails("name bob\ndelete_time 0\nusage cpu=5\nusage_time_stamp 0\n", {"--spool", dir.file("in")},
        ":3: usage of 'bob' without a usage_time_stamp");
  fails("name bob\ndelete_time 0\nusgae cpu=5\n", {"--spool", dir.file("in")},
        ":3: 'usgae' is not a field of a spooled Grid Engine user");
  fails("name bob\nusage cpu=5\n", {"--spool", dir.file("in")}, "cannot tell a spooled user");
  Result r = acct({"import-sge-usage", "--decayed", "--spool", dir.file("in")});
  EXPECT_EQ(2, r.status);
  r = acct({"show", "decay", "-p"});
  EXPECT_EQ(0u, r.out.find("LastDecay|LastReset|Scale|\n0|0|")) << r.out;
}

// The decay state can be shown and repaired; repair is a write.
TEST_F(Cli, ShowDecayAndModifyDecayRepairThePassTimes) {
  doc_tree();
  Result r = acct({"show", "decay", "-p"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("LastDecay|LastReset|Scale|\n0|0|1|\n", r.out);
  ok({"modify", "decay", "set", "last_decay=2025-11-21T12:00:00", "last_reset=1000"});
  r = acct({"show", "decay", "--json"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ("{\"last_decay\": 1763726400, \"last_reset\": 1000, \"scale\": 1}\n", r.out);
  ok({"modify", "decay", "last_decay=2000"});  // last_reset kept
  EXPECT_EQ("LastDecay|LastReset|Scale|\n2000|1000|1|\n", acct({"show", "decay", "-p"}).out);
  const std::string before = acct({"show", "decay", "-p"}).out;
  r = acct({"modify", "decay", "last_decay=500"});  // before last_reset
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("last_reset 1000 is after last_decay 500")) << r.err;
  EXPECT_EQ(2, acct({"modify", "decay", "last_reset=5"}).status);   // last_decay required
  EXPECT_EQ(2, acct({"modify", "decay", "scale=5"}).status);        // not settable
  EXPECT_EQ(2, acct({"modify", "decay", "last_decay=yesterday"}).status);
  EXPECT_EQ(before, acct({"show", "decay", "-p"}).out);
}

TEST_F(CliAsNobody, ModifyDecayIsRefusedToNonAdmins) {
  doc_tree();
  ASSERT_EQ(0, chmod(db.c_str(), 0644));
  Result r = acct({"modify", "decay", "last_decay=5000"}, nobody);
  EXPECT_EQ(1, r.status);
  EXPECT_NE(std::string::npos, r.err.find("refused")) << r.err;
  EXPECT_EQ(0, acct({"show", "decay"}, nobody).status);
  EXPECT_EQ("LastDecay|LastReset|Scale|\n0|0|1|\n", acct({"show", "decay", "-p"}).out);
}

// Descriptions are refused, not escaped, when they would break a -P row.
TEST_F(Cli, DescriptionWithNewlineOrPipeIsRefusedSoParsableRowsStayWhole) {
  doc_tree();
  Result r = acct({"add", "account", "X", "Description=two\nlines"});
  EXPECT_EQ(2, r.status);
  EXPECT_NE(std::string::npos, r.err.find("control character")) << r.err;
  r = acct({"modify", "account", "A", "set", "Description=a|b"});
  EXPECT_EQ(2, r.status);
  EXPECT_NE(std::string::npos, r.err.find("'|'")) << r.err;
  ok({"add", "account", "Y", "Description=Physik für alle"});
  r = acct({"show", "accounts", "-p"});
  ASSERT_EQ(0, r.status);
  size_t lines = 0;
  for (char c : r.out) lines += c == '\n';
  EXPECT_EQ(7u, lines) << r.out;  // header, root, A..D, Y
  EXPECT_NE(std::string::npos, r.out.find("|Physik für alle|"));
}

TEST_F(Cli, NamesMustBeUtf8WithoutControlCharacters) {
  Result r = acct({"add", "account", "bad\x01name"});
  EXPECT_EQ(2, r.status);
  EXPECT_NE(std::string::npos, r.err.find("\"bad\\x01name\" contains a control character")) << r.err;
  r = acct({"add", "account", "caf\xe9"});  // Latin-1, not UTF-8
  EXPECT_EQ(2, r.status);
  EXPECT_NE(std::string::npos, r.err.find("is not valid UTF-8")) << r.err;
  ok({"add", "account", "café"});
}

// ---- sacctmgr's grammar -----------------------------------------------------

class Grammar : public Cli {
 protected:
  // As typed, without -i: the caller chooses the options and the answer.
  Result raw(std::vector<std::string> args, const std::string& input = "") {
    args.insert(args.begin(), {"--db", db});
    return run_acct(dir, args, "", input);
  }
  bool exists() const {
    struct stat sb;
    return ::stat(db.c_str(), &sb) == 0;
  }
};

// The EXAMPLES of Slurm's sacctmgr(1) that touch what mfprio manages, as an
// admin types them (plus -i, since the test is a script).
TEST_F(Grammar, SacctmgrManPageExamplesRunUnchanged) {
  for (const std::vector<std::string>& cmd : std::vector<std::vector<std::string>>{
           {"create", "account", "name=science", "fairshare=50"},
           {"create", "account", "name=chemistry", "parent=science", "fairshare=30"},
           {"create", "account", "name=physics", "parent=science", "fairshare=20"},
           {"create", "user", "name=adam", "cluster=tux", "account=physics", "fairshare=10"},
           {"add", "user", "brian", "account=chemistry"},
       }) {
    std::vector<std::string> a{"-i"};
    a.insert(a.end(), cmd.begin(), cmd.end());
    Result r = raw(a);
    ASSERT_EQ(0, r.status) << cmd[0] << " " << cmd[2] << ": " << r.err;
  }
  Result r = raw({"-P", "list", "associations", "cluster=tux", "format=Account,Cluster,User,Fairshare", "tree",
                  "withd"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(
      "Account|Cluster|User|Share\n"
      "root|||1\n"
      " science|||50\n"
      "  chemistry|||30\n"
      "   chemistry||brian|1\n"
      "  physics|||20\n"
      "   physics||adam|10\n",
      r.out);
  ASSERT_EQ(0, raw({"-i", "delete", "user", "name=adam", "cluster=tux", "account=physics"}).status);
  r = raw({"-i", "delete", "account", "name=physics", "cluster=tux"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(" Deleting accounts...\n  physics\n", r.out);
  r = raw({"-n", "-P", "show", "assoc", "format=account,user"});
  EXPECT_EQ("root|\nscience|\nchemistry|\nchemistry|brian\n", r.out);
}

TEST_F(Grammar, CommaListsWhereAndSet) {
  ASSERT_EQ(0, raw({"-i", "add", "account", "phys,chem", "Parent=root", "Fairshare=5"}).status);
  ASSERT_EQ(0, raw({"-i", "add", "account", "science"}).status);
  Result r = raw({"-i", "add", "user", "u1,u2", "Account=phys,chem"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(" Adding User(s)\n  u1\n  u2\n Associations\n  A = phys U = u1\n  A = chem U = u1\n"
            "  A = phys U = u2\n  A = chem U = u2\n",
            r.out);
  r = raw({"-i", "modify", "user", "where", "name=u1", "account=phys", "set", "fairshare=10"});
  ASSERT_EQ(0, r.status) << r.err;
  EXPECT_EQ(" Modified user associations...\n  A = phys U = u1\n Settings\n  Fairshare = 10\n", r.out);
  ASSERT_EQ(0, raw({"-i", "update", "account", "name=phys", "set", "parent=science"}).status);
  ASSERT_EQ(0, raw({"-i", "remove", "user", "name=u2", "account=chem"}).status);
  r = raw({"-p", "show", "association", "format=Account,User,Share,ParentName"});
  EXPECT_EQ("Account|User|Share|Par Name|\n"
            "root||1||\n"
            "chem||5|root|\n"
            "chem|u1|1|chem|\n"
            "science||1|root|\n"
            "phys||5|science|\n"
            "phys|u1|10|phys|\n"
            "phys|u2|1|phys|\n",
            r.out);
  // where filters: user=, account=, partition=
  r = raw({"-P", "-n", "show", "assoc", "where", "user=u1", "format=acc,share"});
  EXPECT_EQ("chem|1\nphys|10\n", r.out);
  r = raw({"-P", "-n", "show", "assoc", "account=science", "format=acc,user"});
  EXPECT_EQ("science|\n", r.out);
  r = raw({"-P", "-n", "show", "assoc", "partition=gpu"});
  EXPECT_EQ("", r.out);
  // show user|account|qos take format= too; user-level fields give one line per user.
  r = raw({"-P", "show", "user", "format=user,defaultaccount,admin"});
  EXPECT_EQ("User|Def Acct|Admin\nu1|chem|None\nu2|phys|None\n", r.out);
  ASSERT_EQ(0, raw({"-i", "add", "qos", "high,low", "Priority=10"}).status);
  r = raw({"-P", "-n", "show", "qos", "format=name,prio", "name=high"});
  EXPECT_EQ("high|10\n", r.out);
  r = raw({"-p", "show", "account", "science", "format=account,parentname,fairshare"});
  EXPECT_EQ("Account|Par Name|Share|\nscience|root|1|\n", r.out);
}

TEST_F(Grammar, TableOutputIsSacctmgrsFixedWidths) {
  ASSERT_EQ(0, raw({"-i", "add", "account", "physics", "Fairshare=20"}).status);
  Result r = raw({"show", "assoc"});
  ASSERT_EQ(0, r.status) << r.err;
  // sacctmgr 22.05's default columns and widths.
  EXPECT_EQ(0u, r.out.find("   Cluster    Account       User  Partition     Share   Priority GrpJobs       GrpTRES "
                           "GrpSubmit     GrpWall   GrpTRESMins MaxJobs       MaxTRES MaxTRESPerNode MaxSubmit "
                           "    MaxWall   MaxTRESMins                  QOS   Def QOS GrpTRESRunMin \n"))
      << r.out;
  r = raw({"show", "assoc", "format=account%-12,share%4", "-n"});
  EXPECT_EQ("root            1 \nphysics        20 \n", r.out);
  r = raw({"show", "assoc", "format=account%3"});
  EXPECT_EQ("Acc \n--- \nro+ \nph+ \n", r.out);
}

TEST_F(Grammar, HelpAnywhereIsNeverAName) {
  for (const std::vector<std::string>& a : std::vector<std::vector<std::string>>{
           {"add", "account", "--help"}, {"-i", "add", "account", "x", "--help"}, {"add", "user", "-h", "Account=A"},
           {"delete", "account", "root", "--help"}, {"--help"}, {"show", "assoc", "--help"}}) {
    Result r = raw(a);
    EXPECT_EQ(0, r.status) << a[0] << " " << r.err;
    EXPECT_NE(std::string::npos, r.out.find("usage: mfprio-acct")) << r.out;
  }
  EXPECT_FALSE(exists());
  EXPECT_NE(std::string::npos, raw({"add", "account", "--help"}).out.find("add account NAME"));
  EXPECT_NE(std::string::npos, raw({"show", "--help"}).out.find("show associations"));
  Result r = raw({"-V"});
  EXPECT_EQ(0, r.status);
  EXPECT_EQ(0u, r.out.find("mfprio-acct "));
  EXPECT_FALSE(exists());
}

TEST_F(Grammar, BadNamesGiveOneMessageStatus2AndChangeNothing) {
  ASSERT_EQ(0, raw({"-i", "add", "account", "A"}).status);
  const std::string before = raw({"export"}).out;
  for (const std::vector<std::string>& a : std::vector<std::vector<std::string>>{
           {"-i", "add", "account", "-x"},
           {"-i", "add", "account", "name=-x"},
           {"-i", "add", "account", "a b"},
           {"-i", "add", "account", "ok,,b"},
           {"-i", "add", "account", "name=a=b"},
           {"-i", "add", "user", "u\x01", "Account=A"},
           {"-i", "add", "user", "caf\xe9", "Account=A"},
           {"-i", "add", "user", "bob", "Account=A", "Partition=x y"},
           {"-i", "add", "account", "B", "C", "B"},
       }) {
    Result r = raw(a);
    EXPECT_EQ(2, r.status) << a[3] << ": " << r.err;
    EXPECT_EQ(0u, r.err.find("mfprio-acct: ")) << r.err;
    EXPECT_EQ(r.err.size() - 1, r.err.find('\n')) << r.err;
    EXPECT_EQ("", r.out);
  }
  EXPECT_NE(std::string::npos, raw({"-i", "add", "account", "name=-x"}).err.find("starts with '-'"));
  EXPECT_EQ(before, raw({"export"}).out);
}

// Without -i: the changes are printed, then sacctmgr's question.  y commits,
// n (or an empty line) discards with status 0, end of input discards with 1.
TEST_F(Grammar, ConfirmationAsksAndOnlyYesCommits) {
  ASSERT_EQ(0, raw({"-i", "add", "account", "A"}).status);
  const std::string before = raw({"export"}).out;
  Result r = raw({"add", "account", "B", "Parent=A"});
  EXPECT_EQ(1, r.status);
  EXPECT_EQ(" Adding Account(s)\n  B\n Settings\n  Parent = A\n"
            "Would you like to commit changes? (You have 30 seconds to decide)\n(N/y): \n Changes Discarded\n",
            r.out);
  EXPECT_NE(std::string::npos, r.err.find("give -i")) << r.err;
  r = raw({"add", "account", "B"}, "n\n");
  EXPECT_EQ(0, r.status) << r.err;
  EXPECT_NE(std::string::npos, r.out.find(" Changes Discarded\n"));
  r = raw({"delete", "account", "A"}, "maybe\n");
  EXPECT_EQ(0, r.status);
  EXPECT_EQ(before, raw({"export"}).out);
  r = raw({"add", "account", "B"}, "y\n");
  EXPECT_EQ(0, r.status) << r.err;
  EXPECT_EQ(std::string::npos, r.out.find("Discarded"));
  EXPECT_NE(std::string::npos, raw({"-P", "show", "account"}).out.find("B|root|1|0|\n"));
  // -Q with -i prints nothing; the change is made.
  r = raw({"-Q", "-i", "modify", "account", "B", "set", "fairshare=3"});
  EXPECT_EQ(0, r.status);
  EXPECT_EQ("", r.out);
  EXPECT_NE(std::string::npos, raw({"-P", "show", "account"}).out.find("B|root|3|0|\n"));
}

TEST_F(Grammar, ParsableVariantsAreExact) {
  ASSERT_EQ(0, raw({"-i", "add", "queue", "batch", "Priority=2"}).status);
  EXPECT_EQ("Name|Priority|\nbatch|2|\n", raw({"-p", "show", "queues"}).out);
  EXPECT_EQ("Name|Priority\nbatch|2\n", raw({"-P", "show", "queues"}).out);
  EXPECT_EQ("batch|2\n", raw({"-nP", "show", "queues"}).out);
  EXPECT_EQ("batch|2|\n", raw({"show", "queues", "--parsable", "--noheader"}).out);
  EXPECT_EQ("batch  2\n", raw({"-n", "show", "queues"}).out);
}

}  // namespace
}  // namespace mfprio::acct
