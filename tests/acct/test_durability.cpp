// test_durability.cpp - mfprio-acct(1) DURABILITY: two writer processes on one
// store (two `mfprio-acct charge --file` streams, and an import racing
// them), SIGKILLed at random moments, round after round.  Afterwards:
// PRAGMA integrity_check is ok, every charge file is in the ledger wholly
// or not at all (one transaction each), and each association's usage is
// exactly its imported usage plus the charges of the files that committed.
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "cli_util.hpp"
#include "store.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;

std::string integrity(const std::string& db) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &st, nullptr);
  std::string r = sqlite3_step(st) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(st, 0)) : "none";
  sqlite3_finalize(st);
  sqlite3_close(h);
  return r;
}

pid_t spawn(const std::vector<std::string>& args) {
  pid_t pid = fork();
  if (pid == 0) {
    std::string bin = test::binary();
    std::vector<std::string> copy = args;
    std::vector<char*> argv{bin.data()};
    for (auto& a : copy) argv.push_back(a.data());
    argv.push_back(nullptr);
    if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr)) _exit(126);
    execv(bin.c_str(), argv.data());
    _exit(127);
  }
  return pid;
}

// One charge file: `jobs` jobs of user u<k>, job ids from `first`, each
// charging rate 1 for `secs` seconds.  Returns its total per user.
void write_charges(const std::string& path, uint64_t first, int jobs, const std::string& user, int secs) {
  std::ofstream out(path);
  for (int i = 0; i < jobs; ++i)
    out << "{\"job\": " << first + i << ", \"user\": \"" << user << "\", \"start\": 1000, \"end\": " << 1000 + secs
        << ", \"rate\": 1}\n";
}

TEST(Durability, TwoWritersKilledAtRandomLoseOrDoubleNothing) {
  // The built mfprio-acct (meson test sets MFPRIO_ACCT): missing is a failure, never a skip.
  ASSERT_FALSE(test::binary().empty()) << "MFPRIO_ACCT is not set: run this test through meson test";
  TempDir dir;
  const std::string db = dir.file("acct.db");
  {
    std::ofstream(dir.file("a.json")) << R"({"accounts": [{"name": "A", "shares": 1}],
      "users": [{"name": "u1", "account": "A", "raw_usage": 10}, {"name": "u2", "account": "A", "raw_usage": 20},
                {"name": "u3", "account": "A", "raw_usage": 0}]})";
    ASSERT_EQ(0, test::run_acct(dir, {"--db", db, "import", dir.file("a.json")}).status);
  }
  // The import racing the charge streams rewrites u3's usage (to the same
  // value), so it takes the write lock and writes pages, and must not touch
  // the charged users' usage.
  std::ofstream(dir.file("b.json")) << R"({"users": [{"name": "u3", "account": "A", "raw_usage": 0}]})";

  std::mt19937 rng(20261124);
  struct File {
    std::string user;
    uint64_t first;
    int jobs, secs;
  };
  std::vector<File> files;
  const int rounds = 40;
  int killed = 0;
  for (int r = 0; r < rounds; ++r) {
    const int jobs = 200 + static_cast<int>(rng() % 800);
    File f1{"u1", 1000000ull * (2 * r + 1), jobs, 1 + static_cast<int>(rng() % 50)};
    File f2{"u2", 1000000ull * (2 * r + 2), jobs, 1 + static_cast<int>(rng() % 50)};
    const std::string p1 = dir.file("c" + std::to_string(2 * r) + ".jsonl");
    const std::string p2 = dir.file("c" + std::to_string(2 * r + 1) + ".jsonl");
    write_charges(p1, f1.first, f1.jobs, f1.user, f1.secs);
    write_charges(p2, f2.first, f2.jobs, f2.user, f2.secs);
    files.push_back(f1);
    files.push_back(f2);
    const pid_t a = spawn({"--db", db, "charge", "--file", p1});
    const pid_t b = spawn({"--db", db, "charge", "--file", p2});
    const pid_t c = r % 4 == 0 ? spawn({"--db", db, "import", dir.file("b.json")}) : -1;
    std::this_thread::sleep_for(std::chrono::microseconds(rng() % 60000));
    for (pid_t p : {a, b, c}) {
      if (p < 0) continue;
      if (rng() % 3 != 0) killed += kill(p, SIGKILL) == 0;
    }
    for (pid_t p : {a, b, c}) {
      if (p < 0) continue;
      int w = 0;
      waitpid(p, &w, 0);
    }
    ASSERT_EQ("ok", integrity(db)) << "round " << r;
  }
  EXPECT_GT(killed, 0);

  auto s = Store::open(db, OpenOptions{true, false});
  const StoreData d = s->load();
  std::set<uint64_t> ledger;
  {
    sqlite3* h = nullptr;
    sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* st = nullptr;
    sqlite3_prepare_v2(h, "SELECT job_id FROM ledger", -1, &st, nullptr);
    while (sqlite3_step(st) == SQLITE_ROW) ledger.insert(static_cast<uint64_t>(sqlite3_column_int64(st, 0)));
    sqlite3_finalize(st);
    sqlite3_close(h);
  }
  std::map<std::string, double> expect{{"u1", 10}, {"u2", 20}, {"u3", 0}};
  int committed = 0, lost = 0;
  for (const File& f : files) {
    int in = 0;
    for (int i = 0; i < f.jobs; ++i) in += ledger.count(f.first + static_cast<uint64_t>(i));
    ASSERT_TRUE(in == 0 || in == f.jobs) << "file of " << f.user << " from job " << f.first << ": " << in << " of "
                                         << f.jobs << " jobs committed";
    if (in) {
      expect[f.user] += static_cast<double>(f.jobs) * f.secs;
      ++committed;
    } else {
      ++lost;
    }
  }
  EXPECT_EQ(ledger.size(), [&] {
    size_t n = 0;
    for (const File& f : files) n += ledger.count(f.first) ? static_cast<size_t>(f.jobs) : 0;
    return n;
  }());
  for (const auto& a : d.assocs) EXPECT_DOUBLE_EQ(expect[a.user], a.raw_usage) << a.user;
  RecordProperty("committed_files", committed);
  RecordProperty("lost_files", lost);
  std::printf("durability: %d files committed, %d killed before their commit, %d kills\n", committed, lost, killed);
}

}  // namespace
}  // namespace mfprio::acct
