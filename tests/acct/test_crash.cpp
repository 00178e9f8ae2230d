// test_crash.cpp - a process SIGKILLed inside a large import or a charge batch
// leaves the store at the old or the new state: integrity_check ok, and the
// total usage is either the old total or the new one (nothing half-applied).
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "cli_util.hpp"
#include "import_export.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;

std::string integrity(const std::string& db) {
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr);
  std::string r = sqlite3_step(st) == SQLITE_ROW
                      ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0))
                      : "no row";
  sqlite3_finalize(st);
  sqlite3_close(h);
  return r;
}

// Runs mfprio-acct in a child; kills it with SIGKILL after `delay_ms` unless
// it finished first.  Returns the raw wait status.
int run_and_kill(const std::vector<std::string>& args, int delay_ms, const char* kill_rows) {
  pid_t pid = fork();
  if (pid == 0) {
    if (kill_rows) setenv("MFPRIO_ACCT_KILL_AFTER_ROWS", kill_rows, 1);
    std::string bin = test::binary();
    std::vector<char*> argv{bin.data()};
    std::vector<std::string> copy = args;
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    freopen("/dev/null", "w", stdout);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  if (delay_ms >= 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
    kill(pid, SIGKILL);
  }
  int w = 0;
  waitpid(pid, &w, 0);
  return w;
}

class Crash : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_FALSE(test::binary().empty()) << "MFPRIO_ACCT not set";
    // Base: 1000 users with usage 1 each.
    std::string s = R"({"accounts": [{"name": "A"}], "users": [)";
    for (int i = 0; i < 1000; ++i)
      s += std::string(i ? "," : "") + R"({"name": "u)" + std::to_string(i) +
           R"(", "account": "A", "raw_usage": 1})";
    s += "]}";
    std::ofstream(dir.file("base.json")) << s;
    auto st = Store::open(db);
    import_json_file(*st, dir.file("base.json"));
    // The big change: every base user to usage 3, plus 8000 new users with 1.
    s = R"({"accounts": [{"name": "B", "parent": "A"}], "users": [)";
    for (int i = 0; i < 9000; ++i)
      s += std::string(i ? "," : "") + R"({"name": "u)" + std::to_string(i) + R"(", "account": ")" +
           (i < 1000 ? "A" : "B") + R"(", "raw_usage": )" + (i < 1000 ? "3" : "1") + "}";
    s += "]}";
    std::ofstream(dir.file("big.json")) << s;
    std::ofstream c(dir.file("charges.jsonl"));
    for (int j = 0; j < 8000; ++j)
      c << R"({"job": )" << j + 1 << R"(, "user": "u)" << j % 1000 << R"(", "start": 0, "end": 10, "rate": 0.5})" << "\n";
  }
  double total() { return test::total_usage(Store::open(db, OpenOptions{true, false})->load()); }
  TempDir dir;
  std::string db = dir.file("acct.db");
};

TEST_F(Crash, KilledInsideImportTransactionLeavesOldState) {
  int w = run_and_kill({"--db", db, "import", dir.file("big.json")}, -1, "4000");
  ASSERT_TRUE(WIFSIGNALED(w) && WTERMSIG(w) == SIGKILL) << "hook did not fire: " << w;
  EXPECT_EQ("ok", integrity(db));
  EXPECT_EQ(1000.0, total());
  EXPECT_EQ(1000u, Store::open(db)->load().assocs.size());
}

TEST_F(Crash, KilledInsideChargeBatchLeavesOldState) {
  int w = run_and_kill({"--db", db, "charge", "--file", dir.file("charges.jsonl")}, -1, "5000");
  ASSERT_TRUE(WIFSIGNALED(w) && WTERMSIG(w) == SIGKILL) << "hook did not fire: " << w;
  EXPECT_EQ("ok", integrity(db));
  EXPECT_EQ(1000.0, total());
  EXPECT_TRUE(Store::open(db)->open_ledger().empty());
}

TEST_F(Crash, UninterruptedRunsGiveTheNewTotals) {
  ASSERT_EQ(0, WEXITSTATUS(run_and_kill({"--db", db, "import", dir.file("big.json")}, -1, nullptr)));
  EXPECT_EQ(11000.0, total());
  ASSERT_EQ(0, WEXITSTATUS(run_and_kill({"--db", db, "charge", "--file", dir.file("charges.jsonl")},
                                        -1, nullptr)));
  EXPECT_EQ(11000.0 + 8000 * 5.0, total());
}

// Kills at arbitrary moments (no hook): whatever the moment, old or new.
TEST_F(Crash, KilledAtRandomMomentsGivesOldOrNewTotal) {
  double expect_old = 1000.0;
  for (int delay : {5, 20, 40, 80, 150}) {
    run_and_kill({"--db", db, "import", dir.file("big.json")}, delay, nullptr);
    EXPECT_EQ("ok", integrity(db));
    double t = total();
    EXPECT_TRUE(t == expect_old || t == 11000.0) << "delay " << delay << " total " << t;
    if (t == 11000.0) break;
  }
  ASSERT_EQ(0, WEXITSTATUS(run_and_kill({"--db", db, "import", dir.file("big.json")}, -1, nullptr)));
  for (int delay : {5, 20, 40, 80, 150}) {
    run_and_kill({"--db", db, "charge", "--file", dir.file("charges.jsonl")}, delay, nullptr);
    EXPECT_EQ("ok", integrity(db));
    double t = total();
    EXPECT_TRUE(t == 11000.0 || t == 51000.0) << "delay " << delay << " total " << t;
    if (t == 51000.0) break;
  }
}

}  // namespace

// Windowed usage (Maui/Moab fair share, flux bins): a process killed at a
// random moment inside a stream of window charges and rolls leaves every
// charge whole or absent.  Conservation: with rate 1 from start 0, the sum
// of a family's rows equals the sum of its ledger's charged_until (nothing
// lost, nothing counted twice), whatever window boundary a charge crossed.
namespace {
double scalar(const std::string& db, const char* sql) {
  sqlite3* h = nullptr;
  sqlite3_open(db.c_str(), &h);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, sql, -1, &st, nullptr);
  double v = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_double(st, 0) : -1;
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}
}  // namespace

TEST(CrashWindows, KilledWhileChargingWindowsLosesAndDoublesNothing) {
  TempDir dir;
  const std::string db = dir.file("w.db");
  { auto s = Store::open(db); }
  unsigned seed = 12345;
  double last_ledger = 0;
  for (int trial = 0; trial < 12; ++trial) {
    pid_t pid = fork();
    if (pid == 0) {
      auto s = Store::open(db);
      for (int64_t until = 100;; until += 37) {  // crosses a 100 s window boundary every few passes
        WindowCycle c = test::window_pass("maui", 100);
        c.drop_before = 0;
        for (uint64_t job = 1; job <= 5; ++job)
          c.charges.push_back(test::window_charge(job * 1000 + static_cast<uint64_t>(trial), 0, until, 1.0,
                                                  {{"user", "u" + std::to_string(job)}, {"total", ""}}));
        c.new_state = DecayState{until, until};
        s->apply_windows(c);
      }
    }
    seed = seed * 1103515245u + 12345u;
    std::this_thread::sleep_for(std::chrono::milliseconds(5 + (seed >> 16) % 40));
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_EQ(integrity(db), "ok");
    const double users = scalar(db, "SELECT total(usage) FROM usage_windows WHERE kind = 'user'");
    const double totals = scalar(db, "SELECT total(usage) FROM usage_windows WHERE kind = 'total'");
    const double ledger = scalar(db, "SELECT total(charged_until) FROM window_ledger");
    EXPECT_DOUBLE_EQ(users, ledger) << "trial " << trial;
    EXPECT_DOUBLE_EQ(totals, ledger) << "trial " << trial;
    last_ledger = ledger;
  }
  EXPECT_GT(last_ledger, 0.0);  // the children did commit charges before dying
}

}  // namespace mfprio::acct

