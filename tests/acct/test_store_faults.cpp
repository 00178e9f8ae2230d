// test_store_faults.cpp - fault injection in the store (STYLE.md habit
// 12).  Through fault_vfs (the default VFS in this process), the Nth
// xWrite / xSync / xRead / xLock fails with SQLITE_IOERR, SQLITE_FULL or
// SQLITE_BUSY, for every N until the operation runs without reaching N.
// For each operation (import, a charge batch, a decay pass, deferred
// job_end charges, a window roll) and each N:
//   - the call either succeeds (the store then equals an uninterrupted
//     run's) or throws StoreError/AdminError and the store equals the old
//     state (compared as a dump of every row of every table);
//   - after a failure, retrying the same call on the same Store reaches the
//     same state as the uninterrupted run.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "admin.hpp"
#include "fault_vfs.hpp"
#include "import_export.hpp"
#include "store.hpp"
#include "test_util.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;
namespace fv = fault_vfs;

// Every row of every table, in a fixed order, through the platform VFS (no
// faults) and a fresh connection: what another process would read.
std::string dump(const std::string& path) {
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(path.c_str(), &h, SQLITE_OPEN_READONLY, "unix") != SQLITE_OK) {
    sqlite3_close(h);
    return "(cannot open)";
  }
  std::ostringstream out;
  std::vector<std::string> tables;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", -1, &st, nullptr);
  while (sqlite3_step(st) == SQLITE_ROW) tables.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  for (const auto& t : tables) {
    out << "[" << t << "]\n";
    const std::string q = "SELECT * FROM \"" + t + "\" ORDER BY 1, 2";
    if (sqlite3_prepare_v2(h, q.c_str(), -1, &st, nullptr) != SQLITE_OK) {
      out << "(prepare failed)\n";
      continue;
    }
    while (sqlite3_step(st) == SQLITE_ROW) {
      for (int c = 0; c < sqlite3_column_count(st); ++c) {
        const unsigned char* v = sqlite3_column_text(st, c);
        out << (v ? reinterpret_cast<const char*>(v) : "NULL") << '|';
      }
      out << '\n';
    }
    sqlite3_finalize(st);
  }
  sqlite3_stmt* ic = nullptr;
  sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &ic, nullptr);
  if (sqlite3_step(ic) == SQLITE_ROW) out << "integrity " << sqlite3_column_text(ic, 0) << '\n';
  sqlite3_finalize(ic);
  sqlite3_close(h);
  return out.str();
}

void copy_db(const std::string& from, const std::string& to) {
  std::error_code ec;
  for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(to + ext, ec);
  std::filesystem::copy_file(from, to);
}

int64_t assoc_of(const StoreData& d, const std::string& user) {
  for (const auto& a : d.assocs)
    if (a.user == user) return a.id;
  return -1;
}

struct Scenario {
  const char* name;
  std::function<void(Store&, const TempDir&)> op;
};

// usage_time is given so a retried import writes exactly what an uninterrupted one
// does (without it the import stamps its own clock, which moves between the two).
const char* kAccounts = R"({"accounts": [{"name": "A", "shares": 4}, {"name": "B", "parent": "A", "shares": 2}],
  "users": [{"name": "u1", "account": "A", "raw_usage": 100, "usage_time": 1700000000, "tres_usage": {"cpu": 50}},
            {"name": "u2", "account": "B", "raw_usage": 7.5, "usage_time": 1700000000},
            {"name": "u3", "account": "B"}],
  "qos": [{"name": "normal", "priority": 0, "usage_factor": 1}]})";

std::vector<Scenario> scenarios() {
  return {
      {"import",
       [](Store& s, const TempDir& dir) {
         std::ofstream(dir.file("more.json"))
             << R"({"accounts": [{"name": "C", "parent": "A", "shares": 9, "description": "new"}],
                   "users": [{"name": "u4", "account": "C", "raw_usage": 3, "usage_time": 1700000000},
                             {"name": "u1", "account": "A", "raw_usage": 1, "usage_time": 1700000000}],
                   "partitions": [{"name": "p", "tres": "cpu=8", "default": true}]})";
         import_json_file(s, dir.file("more.json"));
       }},
      {"charge_batch",
       [](Store& s, const TempDir&) {
         const StoreData d = s.load();
         CycleUpdate up;
         for (uint64_t j = 1; j <= 20; ++j)
           up.charges.push_back(Charge{j, assoc_of(d, j % 2 ? "u1" : "u2"), 1000, 1000 + 10 * static_cast<int64_t>(j),
                                       1.5, {{"cpu", 2.0}, {"mem", 0.5}}, j % 3 == 0});
         s.apply_cycle(up);
       }},
      {"decay_pass",
       [](Store& s, const TempDir&) {
         const StoreData d = s.load();
         CycleUpdate up;
         up.decay_factor = 0.25;
         up.new_state = DecayState{5000, 0};
         up.charges.push_back(Charge{77, assoc_of(d, "u3"), 4000, 5000, 1.0, {{"cpu", 1.0}}, false});
         s.apply_cycle(up);
       }},
      {"job_end_deferred",
       [](Store& s, const TempDir&) {
         const StoreData d = s.load();
         CycleUpdate up;
         up.defer_usage = true;
         for (uint64_t j = 100; j < 110; ++j)
           up.charges.push_back(Charge{j, assoc_of(d, "u2"), 2000, 2600, 2.0, {{"cpu", 4.0}}, true});
         s.apply_cycle(up);
       }},
      {"window_roll",
       [](Store& s, const TempDir&) {
         WindowCycle w = test::window_pass("maui", 3600);
         w.decay_factor = 0.5;
         w.drop_before = 3600;
         w.new_state = DecayState{20000, 20000};
         for (uint64_t j = 1; j <= 5; ++j)
           w.charges.push_back(
               test::window_charge(j, 1000 * static_cast<int64_t>(j), 20000, 1.0, {{"user", "u1"}, {"account", "A"}}));
         s.apply_windows(w);
       }},
  };
}

class StoreFaults : public ::testing::TestWithParam<int> {
 protected:
  static void SetUpTestSuite() { fv::install(); }
};

// The base store: the hierarchy, some usage, one earlier window pass and one
// deferred journal entry, closed (checkpointed) so one file copies it.
std::string make_base(const TempDir& dir) {
  const std::string base = dir.file("base.db");
  {
    auto s = Store::open(base);
    std::ofstream(dir.file("a.json")) << kAccounts;
    import_json_file(*s, dir.file("a.json"));
    WindowCycle w = test::window_pass("maui", 3600);
    w.charges.push_back(test::window_charge(1, 0, 500, 2.0, {{"user", "u1"}}));
    s->apply_windows(w);
  }
  return base;
}

TEST_P(StoreFaults, EveryNthCallFailsCleanlyAndARetryReachesTheSameState) {
  const Scenario sc = scenarios()[static_cast<size_t>(GetParam())];
  TempDir dir;
  const std::string base = make_base(dir);
  const std::string before = dump(base);
  ASSERT_NE(before.find("integrity ok"), std::string::npos) << before;
  // The uninterrupted run.
  const std::string clean = dir.file("clean.db");
  copy_db(base, clean);
  {
    auto s = Store::open(clean);
    sc.op(*s, dir);
  }
  const std::string after = dump(clean);
  ASSERT_NE(before, after) << sc.name << " changed nothing";

  const int codes[] = {SQLITE_IOERR, SQLITE_FULL, SQLITE_BUSY};
  size_t failures = 0, cases = 0;
  for (fv::Op op : {fv::Op::Write, fv::Op::Sync, fv::Op::Read, fv::Op::Lock}) {
    for (uint64_t n = 1;; ++n) {
      const int rc = codes[n % 3];
      const std::string db = dir.file("t.db");
      copy_db(base, db);
      auto s = Store::open(db);  // opened without faults: the fault hits the operation
      fv::arm(op, n, rc);
      bool threw = false;
      std::string what;
      try {
        sc.op(*s, dir);
      } catch (const StoreError& e) {
        threw = true;
        what = e.what();
      } catch (const AdminError& e) {
        threw = true;
        what = e.what();
      }
      const bool fired = fv::fired();
      fv::disarm();
      ++cases;
      const std::string now = dump(db);
      const std::string label = std::string(sc.name) + " " + fv::op_name(op) + " #" + std::to_string(n) +
                                " rc " + std::to_string(rc) + (threw ? " threw: " + what : " succeeded");
      if (threw) {
        ++failures;
        ASSERT_EQ(before, now) << label << ": a failed call changed the store";
        sc.op(*s, dir);  // the retry, on the same Store
        ASSERT_EQ(after, dump(db)) << label << ": the retry did not reach the uninterrupted state";
      } else {
        ASSERT_EQ(after, now) << label;
      }
      s.reset();
      ASSERT_EQ(after, threw ? dump(db) : now) << label << " (after close)";
      if (!fired) break;  // n is past the operation's last call of this kind
      ASSERT_LT(n, 5000u) << label;
    }
  }
  RecordProperty("cases", static_cast<int>(cases));
  EXPECT_GT(failures, 0u) << sc.name << ": no fault ever made the call fail";
}

INSTANTIATE_TEST_SUITE_P(Operations, StoreFaults, ::testing::Range(0, 5),
                         [](const ::testing::TestParamInfo<int>& i) {
                           return std::string(scenarios()[static_cast<size_t>(i.param)].name);
                         });

}  // namespace
}  // namespace mfprio::acct
