// test_store_windows.cpp - the windowed charge path batched
// (accounting/store_windows.cpp): a pass's charges in a few statements
// whatever their number must write exactly what the same charges write one
// transaction each, and a failure anywhere in the batch's writes must leave
// the store as it was.  Runs on SQLite and (suite pg) on PostgreSQL
// (tests/support/store_location.hpp).
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "store.hpp"
#include "test_util.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;
using mfprio::test::store_location;
using mfprio::test::on_postgresql;

// Rows of `sql` (every column as text, '|' after each), read beside the
// store: sqlite3 on the file, libpq on the database (the default cluster's
// schema).
std::vector<std::string> rows_of(const std::string& loc, const std::string& sql) {
  std::vector<std::string> out;
  if (on_postgresql()) {
    PGconn* c = PQconnectdb(loc.c_str());
    EXPECT_EQ(PQstatus(c), CONNECTION_OK) << PQerrorMessage(c);
    PQclear(PQexec(c, (std::string("SET search_path = mfprio_") + kDefaultCluster).c_str()));
    PGresult* r = PQexec(c, sql.c_str());
    const auto status = PQresultStatus(r);
    EXPECT_TRUE(status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK) << sql << ": " << PQerrorMessage(c);
    for (int i = 0; status == PGRES_TUPLES_OK && i < PQntuples(r); ++i) {
      std::string row;
      for (int k = 0; k < PQnfields(r); ++k) row += std::string(PQgetvalue(r, i, k)) + "|";
      out.push_back(row);
    }
    PQclear(r);
    PQfinish(c);
    return out;
  }
  sqlite3* h = nullptr;
  EXPECT_EQ(SQLITE_OK, sqlite3_open(loc.c_str(), &h));
  sqlite3_busy_timeout(h, 10000);
  char* err = nullptr;
  auto each = [](void* o, int n, char** v, char**) {
    std::string row;
    for (int k = 0; k < n; ++k) row += std::string(v[k] ? v[k] : "NULL") + "|";
    static_cast<std::vector<std::string>*>(o)->push_back(row);
    return 0;
  };
  EXPECT_EQ(SQLITE_OK, sqlite3_exec(h, sql.c_str(), each, &out, &err)) << sql << ": " << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(h);
  return out;
}

// The family's windows as (kind, name, start, seconds) -> usage.
using Windows = std::map<std::tuple<std::string, std::string, int64_t, int64_t>, double>;
Windows windows_of(Store& s, const std::string& family) {
  Windows w;
  for (const WindowRow& r : s.load_windows(family)) w[{r.kind, r.name, r.start, r.seconds}] += r.usage;
  return w;
}
std::vector<std::string> ledger_of(const std::string& loc) {
  return rows_of(loc, "SELECT family, job_id, charged_until, ended FROM window_ledger ORDER BY family, job_id");
}

// A store with the Slurm documentation's tree (User1 on B: an owner the
// flux-style charges name) and one earlier maui pass: jobs 1 and 2 charged
// up to 1000, job 3000 (a repeated id below) up to 500.
std::unique_ptr<Store> seeded(const std::string& loc) {
  auto s = Store::open(loc);
  s->apply_admin(test::slurm_doc_tree());
  WindowCycle c = test::window_pass("maui", 300);
  c.charges = {test::window_charge(1, 0, 1000, 1.0, {{"user", "u1"}, {"account", "A"}}),
               test::window_charge(2, 100, 1000, 2.0, {{"user", "u2"}, {"account", "A"}}),
               test::window_charge(3000, 200, 500, 0.5, {{"user", "u1"}, {"account", "B"}})};
  s->apply_windows(c);
  return s;
}

// The mixed batch: already charged (1), partly charged (2: its ledger is
// inside the charge), new, repeated ids (3000 three times, out of order;
// 4000 twice), an owner that exists and one deleted (dropped), per-credential
// rates, and 700 more jobs on a few shared credentials: more window rows and
// ledger rows than one statement takes (sql::ListStmt::kMaxRows, 256), the
// same (credential, window) row written by many charges.  Rates and times
// keep every sum exact in binary, so "the same rows" means equal doubles.
WindowCycle mixed_batch() {
  WindowCycle c = test::window_pass("maui", 300);
  c.decay_factor = 0.5;
  c.drop_before = 600;  // the windows 0..300 and 300..600 go
  c.keep_windows = 6;
  auto& v = c.charges;
  v.push_back(test::window_charge(1, 0, 900, 1.0, {{"user", "u1"}, {"account", "A"}}));   // already charged
  v.push_back(test::window_charge(2, 100, 1700, 2.0, {{"user", "u2"}, {"account", "A"}}));  // 1000..1700
  v.push_back(test::window_charge(3000, 200, 1400, 0.5, {{"user", "u1"}, {"account", "B"}}));
  v.push_back(test::window_charge(3000, 200, 1100, 0.5, {{"user", "u1"}, {"account", "B"}}));  // before: nothing
  v.push_back(test::window_charge(4000, 1200, 1500, 4.0, {{"user", "u3"}}));
  WindowCharge owned = test::window_charge(5000, 900, 1600, 1.0, {{"user", "User1"}, {"bank", "B"}});
  owned.owner_user = "User1";
  owned.owner_account = "B";
  v.push_back(owned);
  WindowCharge gone = test::window_charge(5001, 900, 1600, 1.0, {{"user", "ghost"}, {"bank", "B"}});
  gone.owner_user = "ghost";
  gone.owner_account = "B";
  v.push_back(gone);
  WindowCharge split = test::window_charge(6000, 700, 1300, 1.0, {{"cpu", "u4"}, {"mem", "u4"}});
  split.credential_rates = {0.25, 8.0};
  v.push_back(split);
  for (uint64_t j = 0; j < 700; ++j) {
    const int64_t start = 100 + 37 * static_cast<int64_t>(j % 40);
    v.push_back(test::window_charge(10000 + j, start, start + 450 + 13 * static_cast<int64_t>(j % 7), 0.125 * (1 + j % 4),
                                    {{"user", "w" + std::to_string(j % 23)}, {"account", "G" + std::to_string(j % 3)},
                                     {"total", ""}}));
    if (j % 100 == 50) v.push_back(test::window_charge(4000, 1200, 1800, 4.0, {{"user", "u3"}}));  // later: 1500..1800
  }
  v.back().ended = true;
  v.push_back(test::window_charge(3000, 200, 1900, 0.5, {{"user", "u1"}, {"account", "B"}}));  // 1400..1900
  v.back().ended = true;
  return c;
}

// The batch's charges one transaction each (the first with the decay and
// the drop; the later ones repeat drop_before, which then deletes nothing).
std::vector<WindowResult> one_at_a_time(Store& s, const WindowCycle& batch) {
  std::vector<WindowResult> out;
  for (size_t i = 0; i < batch.charges.size(); ++i) {
    WindowCycle c = batch;
    if (i > 0) c.decay_factor = 1.0;
    c.charges = {batch.charges[i]};
    out.push_back(s.apply_windows(c));
  }
  return out;
}

TEST(StoreWindowsBatch, AMixedBatchWritesWhatOneChargeATransactionWrites) {
  TempDir dir;
  const std::string la = store_location(dir, "batch.db"), lb = store_location(dir, "single.db");
  auto a = seeded(la);
  auto b = seeded(lb);
  const WindowCycle batch = mixed_batch();
  ASSERT_GT(batch.charges.size(), 2 * 256u);
  const WindowResult r = a->apply_windows(batch);
  const std::vector<WindowResult> single = one_at_a_time(*b, batch);

  ASSERT_EQ(r.added.size(), batch.charges.size());
  std::vector<size_t> dropped;
  for (size_t i = 0; i < single.size(); ++i) {
    ASSERT_EQ(single[i].added.size(), 1u);
    EXPECT_EQ(r.added[i], single[i].added[0]) << "charge " << i << ", job " << batch.charges[i].job_id;
    if (!single[i].dropped_at.empty()) dropped.push_back(i);
  }
  EXPECT_EQ(r.dropped_at, dropped);
  const Windows wa = windows_of(*a, "maui"), wb = windows_of(*b, "maui");
  EXPECT_EQ(wa.size(), wb.size());
  EXPECT_TRUE(wa == wb);
  for (const auto& [key, usage] : wa) {
    const auto it = wb.find(key);
    if (it == wb.end()) ADD_FAILURE() << std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key) << ": only batched";
    else EXPECT_EQ(usage, it->second) << std::get<0>(key) << " " << std::get<1>(key) << " " << std::get<2>(key);
  }
  const std::vector<std::string> la_rows = ledger_of(la);
  EXPECT_EQ(la_rows, ledger_of(lb));

  // And the figures themselves, worked out by hand (not by the store).
  EXPECT_EQ(r.added[0], 0.0);             // job 1: charged to 1000 before, asks 900
  EXPECT_EQ(r.added[1], 700 * 2.0);       // job 2: 1000..1700
  EXPECT_EQ(r.added[2], 800 * 0.5);       // job 3000: charged to 500, the windows before 600 dropped: 600..1400
  EXPECT_EQ(r.added[3], 0.0);             // job 3000 again, to 1100: inside what the batch charged
  EXPECT_EQ(r.added[4], 300 * 4.0);       // job 4000: 1200..1500
  EXPECT_EQ(r.added[5], 700 * 1.0);       // job 5000, owner User1/B: 900..1600
  EXPECT_EQ(r.added[6], 0.0);             // job 5001, owner gone
  EXPECT_EQ(r.dropped_at.front(), 6u);
  EXPECT_EQ(r.added.back(), 500 * 0.5);   // job 3000 a third time: 1400..1900
  EXPECT_EQ(wa.count({"user", "ghost", 900, 300}), 0u);
  // u3's windows: 1200..1500 once, then 1500..1800 once (the repeats add nothing).
  EXPECT_EQ((wa.at({"user", "u3", 1200, 300})), 300 * 4.0);
  EXPECT_EQ((wa.at({"user", "u3", 1500, 300})), 300 * 4.0);
  // u4's split rates: cpu 0.25/s, mem 8/s over 700..1300 (the drop moves
  // nothing: 700 > 600), windows 600..900, 900..1200, 1200..1500.
  EXPECT_EQ((wa.at({"cpu", "u4", 600, 300})), 200 * 0.25);
  EXPECT_EQ((wa.at({"mem", "u4", 1200, 300})), 100 * 8.0);
  // The seed's job 1 rows were halved; the windows ending by 600 dropped.
  EXPECT_EQ((wa.at({"user", "u1", 900, 300})), 100 * 1.0 * 0.5 + 300 * 0.5);  // job 1's 900..1000, job 3000's
  EXPECT_EQ(wa.count({"user", "u1", 300, 300}), 0u);
  // The ledger: one row per job charged, the latest until, ended kept.
  EXPECT_NE(std::find(la_rows.begin(), la_rows.end(), "maui|3000|1900|1|"), la_rows.end());
  EXPECT_NE(std::find(la_rows.begin(), la_rows.end(), "maui|4000|1800|0|"), la_rows.end());
  EXPECT_NE(std::find(la_rows.begin(), la_rows.end(), "maui|1|1000|0|"), la_rows.end());
  EXPECT_EQ(la_rows.size(), 3u + 1 + 1 + 1 + 700);  // 1, 2, 3000; 4000; 5000; 6000; the 700 (not 5001)

  // The same batch again adds nothing (a charge already made), on both.
  WindowCycle again = batch;
  again.decay_factor = 1.0;
  const WindowResult r2 = a->apply_windows(again);
  for (size_t i = 0; i < r2.added.size(); ++i) EXPECT_EQ(r2.added[i], 0.0) << "charge " << i;
  EXPECT_TRUE(windows_of(*a, "maui") == wa);
  EXPECT_EQ(ledger_of(la), la_rows);
}

// A failure inside the batch's writes (the window rows all sent, the
// ledger's second statement refused: a trigger rejects job 9999's row)
// rolls the whole pass back: decay, drop, rows and ledger as before.
TEST(StoreWindowsBatch, AFailureMidBatchLeavesTheOldState) {
  TempDir dir;
  const std::string loc = store_location(dir, "fault.db"), ref_loc = store_location(dir, "ref.db");
  auto s = seeded(loc);
  const Windows before = windows_of(*s, "maui");
  const std::vector<std::string> ledger_before = ledger_of(loc);
  const DecayState state_before = s->decay_state();
  ASSERT_FALSE(before.empty());
  if (on_postgresql()) {
    rows_of(loc,
            "CREATE FUNCTION refuse_9999() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.job_id = 9999 THEN"
            " RAISE EXCEPTION 'injected fault'; END IF; RETURN NEW; END $$;"
            " CREATE TRIGGER refuse_9999 BEFORE INSERT ON window_ledger FOR EACH ROW EXECUTE FUNCTION refuse_9999()");
  } else {
    rows_of(loc, "CREATE TRIGGER refuse_9999 BEFORE INSERT ON window_ledger WHEN NEW.job_id = 9999"
                 " BEGIN SELECT RAISE(ABORT, 'injected fault'); END");
  }
  WindowCycle batch = mixed_batch();
  batch.new_state = DecayState{2000, 2000};
  batch.charges.insert(batch.charges.begin() + 400, test::window_charge(9999, 1000, 1200, 1.0, {{"user", "u9"}}));
  EXPECT_THROW(s->apply_windows(batch), StoreError);
  EXPECT_TRUE(windows_of(*s, "maui") == before);
  EXPECT_EQ(ledger_of(loc), ledger_before);
  EXPECT_EQ(s->decay_state().last_decay, state_before.last_decay);

  // The trigger gone, the same pass gives what it gives on a store that never failed.
  rows_of(loc, "DROP TRIGGER refuse_9999" + std::string(on_postgresql() ? " ON window_ledger" : ""));
  const WindowResult r = s->apply_windows(batch);
  auto ref = seeded(ref_loc);
  const WindowResult rr = ref->apply_windows(batch);
  EXPECT_EQ(r.added, rr.added);
  EXPECT_TRUE(windows_of(*s, "maui") == windows_of(*ref, "maui"));
  EXPECT_EQ(ledger_of(loc), ledger_of(ref_loc));
  EXPECT_EQ(s->decay_state().last_decay, 2000);
}

}  // namespace
}  // namespace mfprio::acct
