// test_store.cpp - Store: file creation, schema, load order, apply_cycle
// (decay, reset, charges, ledger idempotency, rollback), admin writes, may_write.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <tuple>

#include "store.hpp"
#include "store_schema.hpp"
#include "test_util.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;

std::unique_ptr<Store> doc_store(const TempDir& dir) {
  auto s = Store::open(store_location(dir, "acct.db"));
  s->apply_admin(test::slurm_doc_tree());
  return s;
}

int64_t assoc_id(Store& s, const std::string& user) {
  for (const auto& a : s.load().assocs)
    if (a.user == user) return a.id;
  ADD_FAILURE() << "no assoc for " << user;
  return -1;
}

// A raw look at the file (a count, a flag, the cache row), through a
// connection of our own.
int64_t sql_int(const std::string& file, const std::string& q) {
  sqlite3* h = nullptr;
  EXPECT_EQ(SQLITE_OK, sqlite3_open(file.c_str(), &h));
  sqlite3_stmt* st = nullptr;
  EXPECT_EQ(SQLITE_OK, sqlite3_prepare_v2(h, q.c_str(), -1, &st, nullptr)) << sqlite3_errmsg(h);
  int64_t v = -1;
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}
void sql_run(const std::string& file, const std::string& q) {
  sqlite3* h = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_open(file.c_str(), &h));
  char* err = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_exec(h, q.c_str(), nullptr, nullptr, &err)) << err;
  sqlite3_close(h);
}
// Overwrites `n` bytes of the tree cache's blob at `offset`, in place.
void cache_write(const std::string& file, const unsigned char* bytes, int n, int offset) {
  sqlite3* h = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_open(file.c_str(), &h));
  sqlite3_blob* b = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_blob_open(h, "main", "tree_cache", "data", 1, 1, &b));
  EXPECT_EQ(SQLITE_OK, sqlite3_blob_write(b, bytes, n, offset));
  sqlite3_blob_close(b);
  sqlite3_close(h);
}

TEST(StoreOpen, NewFileIsCreatedMode0600) {
  TempDir dir;
  mode_t old = umask(0);  // the most permissive umask must not widen the mode
  auto s = Store::open(store_location(dir, "acct.db"));
  umask(old);
  struct stat sb;
  ASSERT_EQ(0, stat(store_location(dir, "acct.db").c_str(), &sb));
  EXPECT_EQ(0600u, sb.st_mode & 0777);
  EXPECT_EQ(detail::kSchemaVersion, s->schema_version());
}

TEST(StoreOpen, UsesWalAndForeignKeysAndFreshStoreHasRootOnly) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  StoreData d = s->load();
  ASSERT_EQ(1u, d.accounts.size());
  EXPECT_EQ("root", d.accounts[0].name);
  EXPECT_EQ("", d.accounts[0].parent);
  EXPECT_TRUE(d.assocs.empty());
  sqlite3* db = nullptr;
  ASSERT_EQ(SQLITE_OK, sqlite3_open(store_location(dir, "acct.db").c_str(), &db));
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, nullptr);
  ASSERT_EQ(SQLITE_ROW, sqlite3_step(st));
  EXPECT_STREQ("wal", reinterpret_cast<const char*>(sqlite3_column_text(st, 0)));
  sqlite3_finalize(st);
  sqlite3_close(db);
}

TEST(StoreOpen, ReopenKeepsDataAndVersion) {
  TempDir dir;
  doc_store(dir).reset();
  auto s = Store::open(store_location(dir, "acct.db"));
  EXPECT_EQ(detail::kSchemaVersion, s->schema_version());
  EXPECT_EQ(5u, s->load().assocs.size());
}

TEST(StoreOpen, ReadOnlyOpenOfMissingFileFailsWithoutCreatingIt) {
  TempDir dir;
  EXPECT_THROW(Store::open(store_location(dir, "none.db"), OpenOptions{true, false}), StoreError);
  struct stat sb;
  EXPECT_NE(0, stat(store_location(dir, "none.db").c_str(), &sb));
}

// An old slurm.conf's AccountingStorageLoc names Slurm's text job
// log (accounting_storage/filetxt).  Opening it says so, in every mode, and
// leaves the file as it was (no -wal, no -shm, same bytes).
TEST(StoreOpen, SlurmTextJobLogIsNamedNotOpened) {
  TempDir dir;
  const std::string log = dir.file("slurm_jobacct.log");
  const std::string text =
      "1234 batch 1700000000 1700000000 1000 100 - - 0 hello 1 4294967295 2 n01 (null)\n"
      "1234 batch 1700000000 1700000000 1000 100 - - 3 60 0 0 0\n";
  { FILE* f = std::fopen(log.c_str(), "w"); ASSERT_NE(f, nullptr); std::fputs(text.c_str(), f); std::fclose(f); }
  for (const OpenOptions& o : {OpenOptions{}, OpenOptions{true, false}, OpenOptions{false, false}}) {
    try {
      Store::open(log, o);
      FAIL() << "opened a text file as a store";
    } catch (const StoreError& e) {
      const std::string m = e.what();
      EXPECT_EQ(m.rfind(log + ": a text file, not an mfprio store", 0), 0u) << m;
      EXPECT_NE(m.find("accounting_storage/filetxt"), std::string::npos) << m;
      EXPECT_EQ(m.find("file is not a database"), std::string::npos) << m;
    }
  }
  struct stat sb;
  EXPECT_NE(::stat((log + "-wal").c_str(), &sb), 0);
  EXPECT_NE(::stat((log + "-shm").c_str(), &sb), 0);
  char buf[256] = {};
  FILE* f = std::fopen(log.c_str(), "r");
  ASSERT_NE(f, nullptr);
  const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  EXPECT_EQ(std::string(buf, n), text);
  // Binary that is not SQLite: named too.
  const std::string bin = store_location(dir, "bin.db");
  { FILE* b = std::fopen(bin.c_str(), "w"); ASSERT_NE(b, nullptr); std::fwrite("\x01\x02\x00\xff", 1, 4, b); std::fclose(b); }
  try {
    Store::open(bin);
    FAIL() << "opened a non-SQLite file";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("does not start with SQLite's header"), std::string::npos) << e.what();
  }
}

TEST(StoreLoad, AccountsComeRootFirstParentsBeforeChildren) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  // Children listed before parents, names out of order.
  ch.accounts = {test::account("zz", "m", 1), test::account("m", "b", 1),
                 test::account("b", "root", 1), test::account("a", "root", 1),
                 test::account("c", "a", 1)};
  s->apply_admin(ch);
  StoreData d = s->load();
  std::vector<std::string> names;
  for (const auto& a : d.accounts) names.push_back(a.name);
  EXPECT_EQ((std::vector<std::string>{"root", "a", "b", "c", "m", "zz"}), names);
}

TEST(StoreLoad, AssocsCarryDefaultFlagAndTresUsage) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  ch.accounts = {test::account("A", "root", 1), test::account("B", "root", 1)};
  auto w = test::assoc("u", "A", 5);
  w.rec.tres_usage = {{"cpu", 3.5}, {"gres/gpu", 1.25}};
  ch.assocs = {w, test::assoc("u", "B", 0)};
  ch.users = {test::user("u", "B")};
  s->apply_admin(ch);
  StoreData d = s->load();
  const UserAssocRec* a = test::find_assoc(d, "u", "A");
  const UserAssocRec* b = test::find_assoc(d, "u", "B");
  ASSERT_TRUE(a && b);
  EXPECT_FALSE(a->is_default);
  EXPECT_TRUE(b->is_default);
  EXPECT_EQ(5.0, a->raw_usage);
  ASSERT_EQ(2u, a->tres_usage.size());
  EXPECT_EQ("cpu", a->tres_usage[0].first);
  EXPECT_EQ(3.5, a->tres_usage[0].second);
  EXPECT_EQ("gres/gpu", a->tres_usage[1].first);
  EXPECT_EQ("B", d.users[0].default_account);
}

TEST(ApplyCycle, DecayFactorMultipliesAllUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.decay_factor = 0.5;
  s->apply_cycle(up);
  StoreData d = s->load();
  EXPECT_DOUBLE_EQ(10.0, test::find_assoc(d, "User1", "B")->raw_usage);
  EXPECT_DOUBLE_EQ(12.5, test::find_assoc(d, "User2", "C")->raw_usage);
  EXPECT_DOUBLE_EQ(35.0, test::total_usage(d));
}

TEST(ApplyCycle, ResetZeroesUsageAndTresUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.charges.push_back(Charge{7, assoc_id(*s, "User3"), 0, 10, 1.0, {{"cpu", 2.0}}, false});
  s->apply_cycle(up);
  CycleUpdate rst;
  rst.reset = true;
  rst.new_state = DecayState{100, 100};
  s->apply_cycle(rst);
  StoreData d = s->load();
  EXPECT_EQ(0.0, test::total_usage(d));
  for (const auto& a : d.assocs)
    for (const auto& t : a.tres_usage) EXPECT_EQ(0.0, t.second);
  EXPECT_EQ(100, d.decay.last_reset);
  EXPECT_EQ(100, d.decay.last_decay);
}

TEST(ApplyCycle, ChargesAreAddedAfterDecay) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.decay_factor = 0.5;
  up.charges.push_back(Charge{1, assoc_id(*s, "User1"), 100, 110, 2.0, {{"cpu", 2.0}}, false});
  CycleResult r = s->apply_cycle(up);
  ASSERT_EQ(1u, r.added.size());
  EXPECT_DOUBLE_EQ(20.0, r.added[0]);
  StoreData d = s->load();
  // 20 * 0.5 + 10 s * 2.0 (not (20 + 20) * 0.5)
  EXPECT_DOUBLE_EQ(30.0, test::find_assoc(d, "User1", "B")->raw_usage);
  ASSERT_EQ(1u, test::find_assoc(d, "User1", "B")->tres_usage.size());
  EXPECT_DOUBLE_EQ(20.0, test::find_assoc(d, "User1", "B")->tres_usage[0].second);
}

TEST(ApplyCycle, SameJobChargedTwiceCountsOnceAndLaterUntilOnlyTheDifference) {
  TempDir dir;
  auto s = doc_store(dir);
  int64_t id = assoc_id(*s, "User3");
  CycleUpdate up;
  up.charges.push_back(Charge{42, id, 1000, 1060, 1.5, {}, false});
  EXPECT_DOUBLE_EQ(90.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(0.0, s->apply_cycle(up).added[0]);  // replayed cycle
  EXPECT_DOUBLE_EQ(90.0, test::find_assoc(s->load(), "User3", "C")->raw_usage);
  up.charges[0].until = 1100;
  up.charges[0].ended = true;
  EXPECT_DOUBLE_EQ(60.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(150.0, test::find_assoc(s->load(), "User3", "C")->raw_usage);
  // An earlier until never un-charges or moves charged_until back.
  up.charges[0].until = 1050;
  EXPECT_DOUBLE_EQ(0.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(150.0, test::find_assoc(s->load(), "User3", "C")->raw_usage);
}

TEST(ApplyCycle, OpenLedgerListsOnlyJobsNotEnded) {
  TempDir dir;
  auto s = doc_store(dir);
  int64_t id = assoc_id(*s, "User1");
  CycleUpdate up;
  up.charges.push_back(Charge{1, id, 0, 10, 1, {}, false});
  up.charges.push_back(Charge{2, id, 0, 20, 1, {}, true});
  up.charges.push_back(Charge{0xFFFFFFFFFFFFFFF0ull, id, 0, 30, 1, {}, false});
  s->apply_cycle(up);
  auto open = s->open_ledger();
  ASSERT_EQ(2u, open.size());
  std::map<uint64_t, int64_t> until;
  for (const auto& l : open) until[l.job_id] = l.charged_until;
  EXPECT_EQ(10, until[1]);
  EXPECT_EQ(30, until[0xFFFFFFFFFFFFFFF0ull]);  // 64-bit ids survive the signed column
  EXPECT_EQ(id, open[0].assoc_id);
}

TEST(ApplyCycle, FailingCycleLeavesEverythingUnchanged) {
  TempDir dir;
  auto s = doc_store(dir);
  StoreData before = s->load();
  CycleUpdate up;
  up.decay_factor = 0.25;
  up.reset = false;
  up.new_state = DecayState{500, 0};
  up.charges.push_back(Charge{1, assoc_id(*s, "User1"), 0, 100, 1.0, {{"cpu", 1}}, false});
  up.charges.push_back(Charge{2, 999999, 0, 100, 1.0, {}, false});  // unknown association
  EXPECT_THROW(s->apply_cycle(up), StoreError);
  StoreData after = s->load();
  EXPECT_EQ(test::total_usage(before), test::total_usage(after));
  EXPECT_EQ(20.0, test::find_assoc(after, "User1", "B")->raw_usage);
  EXPECT_TRUE(test::find_assoc(after, "User1", "B")->tres_usage.empty());
  EXPECT_EQ(0, after.decay.last_decay);
  EXPECT_TRUE(s->open_ledger().empty());
  // The store is still usable after the rollback.
  up.charges.pop_back();
  s->apply_cycle(up);
  EXPECT_DOUBLE_EQ(105.0, test::find_assoc(s->load(), "User1", "B")->raw_usage);
}

TEST(ApplyCycle, ZeroLengthChargeToUnknownAssocIsRejectedByTheLedger) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.charges.push_back(Charge{5, 424242, 100, 100, 1.0, {}, false});
  EXPECT_THROW(s->apply_cycle(up), StoreError);
  EXPECT_TRUE(s->open_ledger().empty());
}

TEST(ApplyCycle, DecayFactorOutsideUnitIntervalIsRefused) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.decay_factor = 1.5;
  EXPECT_THROW(s->apply_cycle(up), StoreError);
  EXPECT_EQ(70.0, test::total_usage(s->load()));
}

TEST(ApplyCycle, TenThousandChargesInOneCycle) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  ch.accounts = {test::account("A", "root", 1)};
  for (int i = 0; i < 1000; ++i) ch.assocs.push_back(test::assoc("u" + std::to_string(i), "A"));
  s->apply_admin(ch);
  StoreData d = s->load();
  CycleUpdate up;
  up.decay_factor = 0.9;
  for (uint64_t j = 0; j < 10000; ++j)
    up.charges.push_back(Charge{j + 1, d.assocs[j % d.assocs.size()].id, 0, 60, 2.0,
                                {{"cpu", 2.0}}, false});
  auto t0 = std::chrono::steady_clock::now();
  s->apply_cycle(up);
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  std::printf("apply_cycle of 10^4 charges: %.1f ms\n", ms.count());
  EXPECT_DOUBLE_EQ(10000 * 120.0, test::total_usage(s->load()));
}

// Prints the load time of a site-sized store (10^5 associations); asserts
// only the content, never the time (bench/ is for figures).
TEST(StoreLoad, HundredThousandAssociationsLoadInOrder) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  for (int a = 0; a < 200; ++a) ch.accounts.push_back(test::account("a" + std::to_string(a), "root", 1));
  for (int u = 0; u < 100000; ++u) {
    auto w = test::assoc("u" + std::to_string(u), "a" + std::to_string(u % 200), u * 0.5);
    if (u % 10 == 0) w.rec.tres_usage = {{"cpu", 1.0}};
    ch.assocs.push_back(w);
  }
  s->apply_admin(ch);
  auto t0 = std::chrono::steady_clock::now();
  StoreData d = s->load();
  auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0);
  std::printf("load of 10^5 associations: %.1f ms\n", ms.count());
  ASSERT_EQ(100000u, d.assocs.size());
  for (size_t i = 1; i < d.assocs.size(); ++i)
    ASSERT_LT(std::tie(d.assocs[i - 1].user, d.assocs[i - 1].account),
              std::tie(d.assocs[i].user, d.assocs[i].account));
}

TEST(StoreAdmin, DeletingAnAccountWithChildrenIsRefusedAndChangesNothing) {
  TempDir dir;
  auto s = doc_store(dir);
  AdminChanges ch;
  ch.delete_qos = {"normal"};
  ch.delete_accounts = {"A"};
  EXPECT_THROW(s->apply_admin(ch), StoreError);
  StoreData d = s->load();
  EXPECT_EQ(7u, d.accounts.size());
  EXPECT_EQ(1u, d.qos.size());  // the earlier delete in the batch was rolled back
}

TEST(StoreAdmin, DeleteUserRemovesItsAssociationsAndLedger) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.charges.push_back(Charge{1, assoc_id(*s, "User1"), 0, 10, 1, {}, false});
  s->apply_cycle(up);
  AdminChanges ch;
  ch.delete_users = {"User1"};
  s->apply_admin(ch);
  StoreData d = s->load();
  EXPECT_EQ(4u, d.assocs.size());
  EXPECT_EQ(nullptr, test::find_assoc(d, "User1", "B"));
  EXPECT_TRUE(s->open_ledger().empty());
}

TEST(StoreAdmin, ModifyWithoutSetUsageKeepsUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  AdminChanges ch;
  auto w = test::assoc("User1", "B", 0, 7);
  w.set_usage = false;
  ch.assocs = {w};
  s->apply_admin(ch);
  const StoreData d = s->load();  // a pointer into a temporary would dangle (ASan)
  const UserAssocRec* a = test::find_assoc(d, "User1", "B");
  ASSERT_NE(nullptr, a);
  EXPECT_EQ(7u, a->shares);
  EXPECT_EQ(20.0, a->raw_usage);
}

TEST(StoreAdmin, OnlyOnePartitionIsDefault) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  ch.partitions = {PartitionRec{0, "batch", 1, "CPU=1.0", "", true}};
  s->apply_admin(ch);
  ch.partitions = {PartitionRec{0, "debug", 10, "", "cpu=8", true}};
  s->apply_admin(ch);
  StoreData d = s->load();
  ASSERT_EQ(2u, d.partitions.size());
  EXPECT_FALSE(d.partitions[0].is_default);  // batch
  EXPECT_TRUE(d.partitions[1].is_default);   // debug
  EXPECT_EQ(10u, d.partitions[1].job_factor);
}

TEST(StoreMayWrite, OwnerAndRootMayWriteOthersOnlyWhenAdmin) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  struct stat sb;
  ASSERT_EQ(0, stat(store_location(dir, "acct.db").c_str(), &sb));
  EXPECT_TRUE(s->may_write(sb.st_uid));
  EXPECT_TRUE(s->may_write(0));
  // uid 65534 is "nobody" on Debian; not the owner unless tests run as nobody.
  if (sb.st_uid != 65534) {
    EXPECT_FALSE(s->may_write(65534));
    AdminChanges ch;
    ch.users = {UserRec{"nobody", "", true}};
    s->apply_admin(ch);
    EXPECT_TRUE(s->may_write(65534));
  }
  EXPECT_FALSE(s->may_write(4000000000u));  // no passwd entry at all
}

}  // namespace

namespace {
// The raw stored value of an association's usage (before the decay scale).
double stored_usage(const std::string& db, const std::string& user, double* scale) {
  sqlite3* h = nullptr;
  sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr);
  double v = -1;
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT s.raw_usage FROM assocs s JOIN users u ON u.id = s.user_id WHERE u.name = ?1",
                     -1, &st, nullptr);
  sqlite3_bind_text(st, 1, user.c_str(), -1, SQLITE_TRANSIENT);
  if (sqlite3_step(st) == SQLITE_ROW) v = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_prepare_v2(h, "SELECT scale FROM decay_state", -1, &st, nullptr);
  if (sqlite3_step(st) == SQLITE_ROW) *scale = sqlite3_column_double(st, 0);
  sqlite3_finalize(st);
  sqlite3_close(h);
  return v;
}
}  // namespace

TEST(StoreDecayScale, DecayTouchesOnlyTheScaleAndLoadGivesTrueUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  const double before = test::find_assoc(s->load(), "User1", "B")->raw_usage;
  double scale = 0;
  const double stored_before = stored_usage(store_location(dir, "acct.db"), "User1", &scale);
  CycleUpdate up;
  up.decay_factor = 0.25;
  s->apply_cycle(up);
  EXPECT_EQ(stored_usage(store_location(dir, "acct.db"), "User1", &scale), stored_before);  // row untouched
  EXPECT_DOUBLE_EQ(scale, 0.25);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User1", "B")->raw_usage, before * 0.25);
  // A charge after the decay adds its full amount to the true value.
  CycleUpdate ch;
  ch.charges.push_back(Charge{77, test::find_assoc(s->load(), "User1", "B")->id, 100, 110, 3, {}, false});
  s->apply_cycle(ch);
  EXPECT_NEAR(test::find_assoc(s->load(), "User1", "B")->raw_usage, before * 0.25 + 30, 1e-9);
}

TEST(StoreDecayScale, TinyScaleIsFoldedBackIntoTheRows) {
  TempDir dir;
  auto s = doc_store(dir);
  const double before = test::find_assoc(s->load(), "User2", "C")->raw_usage;
  CycleUpdate up;
  up.decay_factor = 1e-60;
  s->apply_cycle(up);
  s->apply_cycle(up);  // 1e-120: below the renormalization threshold
  double scale = 0;
  const double stored = stored_usage(store_location(dir, "acct.db"), "User2", &scale);
  EXPECT_EQ(scale, 1.0);
  EXPECT_NEAR(stored / (before * 1e-120), 1.0, 1e-12);
  EXPECT_NEAR(test::find_assoc(s->load(), "User2", "C")->raw_usage / (before * 1e-120), 1.0, 1e-12);
}

TEST(StoreDecayScale, ImportAfterDecayStoresTheGivenUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.decay_factor = 0.5;
  s->apply_cycle(up);
  AdminChanges ch;
  ch.assocs.push_back(test::assoc("User9", "B", 123.5));
  s->apply_admin(ch);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User9", "B")->raw_usage, 123.5);
}

TEST(StoreMigration, VersionOneFileIsMigratedKeepingUsage) {
  TempDir dir;
  const std::string db = store_location(dir, "v1.db");
  {
    auto s = doc_store(dir);  // acct.db, current schema; copy its v1 tables by hand below
  }
  // Build a v1 file: the current schema minus v2 (scale), v3 (journal), v4
  // (windowed usage), v5 (queues, assocs.usage_time), v6 (ticket objects),
  // v7 (tree cache) and v8 (settings), user_version 1.
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  char* err = nullptr;
  const std::string attach = "ATTACH '" + store_location(dir, "acct.db") + "' AS cur;";
  std::string sql = attach +
      "CREATE TABLE decay_state (id INTEGER PRIMARY KEY CHECK (id = 1), last_decay INTEGER NOT NULL"
      " DEFAULT 0, last_reset INTEGER NOT NULL DEFAULT 0);"
      "INSERT INTO decay_state(id, last_decay) VALUES (1, 42);";
  ASSERT_EQ(sqlite3_exec(h, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
  // Copy every other table's definition and rows from the current file.
  sqlite3_stmt* st = nullptr;
  sqlite3_prepare_v2(h, "SELECT name, sql FROM cur.sqlite_master WHERE type IN ('table','index')"
                        " AND name NOT LIKE 'sqlite_%' AND tbl_name NOT IN ('decay_state', 'charge_journal',"
                        " 'usage_windows', 'window_ledger', 'queues', 'assoc_queues', 'ticket_objects',"
                        " 'tree_cache', 'settings')"
                        " ORDER BY type DESC",
                     -1, &st, nullptr);
  std::vector<std::pair<std::string, std::string>> defs;
  while (sqlite3_step(st) == SQLITE_ROW)
    defs.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(st, 0)),
                      reinterpret_cast<const char*>(sqlite3_column_text(st, 1)));
  sqlite3_finalize(st);
  for (const auto& [name, def] : defs) {
    ASSERT_EQ(sqlite3_exec(h, def.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
    if (def.rfind("CREATE TABLE", 0) == 0) {
      const std::string copy = "INSERT INTO main." + name + " SELECT * FROM cur." + name + ";";
      ASSERT_EQ(sqlite3_exec(h, copy.c_str(), nullptr, nullptr, &err), SQLITE_OK) << err;
    }
  }
  ASSERT_EQ(sqlite3_exec(h, "ALTER TABLE assocs DROP COLUMN usage_time; DETACH cur; PRAGMA user_version = 1;",
                         nullptr, nullptr, &err), SQLITE_OK) << err;
  sqlite3_close(h);

  auto s = Store::open(db);
  EXPECT_EQ(s->schema_version(), detail::kSchemaVersion);
  StoreData d = s->load();
  EXPECT_EQ(d.decay.last_decay, 42);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, 20.0);
  CycleUpdate up;
  up.decay_factor = 0.5;
  s->apply_cycle(up);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User1", "B")->raw_usage, 10.0);
}

// Schema 9 takes the journal's and the ledger's foreign keys off (a trigger deletes an
// association's rows instead): a version 8 file's ledger rows are all kept, and its journal's
// amounts count as before (schema 10 folds the journal into the usage rows: every amount in
// them).  (PostgreSQL: test_store_pg.cpp.)
TEST(StoreMigration, VersionEightJournalIsMigratedKeepingEveryAmount) {
  TempDir dir;
  const std::string db = store_location(dir, "acct.db");
  int64_t a1 = 0, a2 = 0, cpu = 0;
  double u1 = 0, u2 = 0;
  {
    auto s = doc_store(dir);
    const StoreData d = s->load();
    a1 = test::find_assoc(d, "User1", "B")->id;
    a2 = test::find_assoc(d, "User2", "C")->id;
    u1 = test::find_assoc(d, "User1", "B")->raw_usage;
    u2 = test::find_assoc(d, "User2", "C")->raw_usage;
  }
  cpu = sql_int(db, "SELECT id FROM tres WHERE name = 'cpu'");
  // Back to version 8's journal and ledger (schema v1's and v3's tables),
  // holding rows.
  sql_run(db, "DROP TRIGGER assoc_rows_gone; DROP TABLE charge_journal; DROP TABLE ledger;"
              "CREATE TABLE charge_journal (seq INTEGER PRIMARY KEY,"
              " assoc_id INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,"
              " tres_id INTEGER REFERENCES tres(id), amount REAL NOT NULL CHECK (amount >= 0));"
              "CREATE TABLE ledger (job_id INTEGER PRIMARY KEY,"
              " assoc_id INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,"
              " charged_until INTEGER NOT NULL, ended INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1)));"
              "CREATE INDEX ledger_open ON ledger(ended); CREATE INDEX ledger_assoc ON ledger(assoc_id);"
              "INSERT INTO ledger VALUES (70, " + std::to_string(a1) + ", 500, 0), (71, " + std::to_string(a2) +
              ", 600, 0), (72, " + std::to_string(a2) + ", 700, 1);"
              "INSERT INTO charge_journal VALUES (3, " + std::to_string(a1) + ", NULL, 10), (4, " +
              std::to_string(a1) + ", NULL, 5), (7, " + std::to_string(a1) + ", " + std::to_string(cpu) +
              ", 7), (9, " + std::to_string(a2) + ", NULL, 2.5), (11, " + std::to_string(a2) + ", " +
              std::to_string(cpu) + ", 1);"
              "PRAGMA user_version = 8;");
  ASSERT_EQ(1, sql_int(db, "SELECT count(*) FROM pragma_foreign_key_list('charge_journal') WHERE \"table\" = 'assocs'"));
  ASSERT_EQ(1, sql_int(db, "SELECT count(*) FROM pragma_foreign_key_list('ledger')"));
  auto s = Store::open(db);
  EXPECT_EQ(detail::kSchemaVersion, s->schema_version());
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM pragma_foreign_key_list('charge_journal')"));
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM pragma_foreign_key_list('ledger')"));
  EXPECT_EQ(2, sql_int(db, "SELECT count(*) FROM sqlite_master WHERE tbl_name = 'ledger' AND type = 'index'"
                           " AND name IN ('ledger_open', 'ledger_assoc')"));
  EXPECT_EQ(3, sql_int(db, "SELECT count(*) FROM ledger"));
  ASSERT_EQ(2u, s->open_ledger().size());
  EXPECT_EQ(600, s->open_ledger()[1].charged_until);
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM charge_journal"));  // folded (schema 10)
  StoreData d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, u1 + 15.0);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User2", "C")->raw_usage, u2 + 2.5);
  ASSERT_EQ(test::find_assoc(d, "User1", "B")->tres_usage.size(), 1u);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->tres_usage[0].second, 7.0);
  // New rows are journalled; deleting User2 deletes its rows.
  CycleUpdate up;
  up.defer_usage = true;
  up.charges.push_back(Charge{1, a1, 0, 4, 1, {}, true});
  up.charges.push_back(Charge{2, a2, 0, 4, 1, {}, true});
  s->apply_cycle(up);
  EXPECT_EQ(2, sql_int(db, "SELECT count(*) FROM charge_journal"));
  AdminChanges del;
  del.delete_users = {"User2"};
  s->apply_admin(del);
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM charge_journal WHERE assoc_id = " + std::to_string(a2)));
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM ledger WHERE assoc_id = " + std::to_string(a2)));
  CycleUpdate fold;
  fold.decay_factor = 0.5;
  s->apply_cycle(fold);
  d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, (u1 + 19.0) * 0.5);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->tres_usage[0].second, 3.5);
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM charge_journal"));
}

// An association's TRES usage by name, 0 when it has none.
double tres_of(const StoreData& d, const char* user, const char* account, const std::string& name) {
  for (const auto& [n, v] : test::find_assoc(d, user, account)->tres_usage)
    if (n == name) return v;
  return 0;
}

// Schema 10 keeps one journal row per association and batch, its TRES amounts
// packed in it: a version 9 file's journal (a row per association and one per
// association and TRES, several of each) is folded into the usage rows by the
// migration, every amount kept, billing and each TRES's; the journal then goes
// on in the new form, and folds.  (PostgreSQL: test_store_pg.cpp.)
TEST(StoreMigration, VersionNineJournalIsMigratedKeepingEveryAmount) {
  TempDir dir;
  const std::string db = store_location(dir, "acct.db");
  StoreData before;
  {
    auto s = doc_store(dir);
    CycleUpdate up;  // some TRES usage in the rows already (the fold's upsert meets it)
    up.charges.push_back(Charge{90, test::find_assoc(s->load(), "User1", "B")->id, 0, 2, 1, {{"cpu", 1}}, true});
    s->apply_cycle(up);
    before = s->load();
  }
  sql_run(db, "INSERT OR IGNORE INTO tres(name) VALUES ('cpu'), ('mem');");
  const std::string a1 = std::to_string(test::find_assoc(before, "User1", "B")->id),
                    a2 = std::to_string(test::find_assoc(before, "User2", "C")->id),
                    cpu = std::to_string(sql_int(db, "SELECT id FROM tres WHERE name = 'cpu'")),
                    mem = std::to_string(sql_int(db, "SELECT id FROM tres WHERE name = 'mem'"));
  // Back to version 9's journal, holding rows.
  sql_run(db, "ALTER TABLE charge_journal DROP COLUMN tres; ALTER TABLE charge_journal ADD COLUMN tres_id INTEGER;"
              "INSERT INTO charge_journal(assoc_id, tres_id, amount) VALUES (" + a1 + ", NULL, 10), (" + a1 +
              ", NULL, 5.25), (" + a1 + ", " + cpu + ", 7), (" + a1 + ", " + mem + ", 0.125), (" + a1 + ", " + cpu +
              ", 1), (" + a2 + ", NULL, 2.5), (" + a2 + ", " + cpu + ", 1);"
              "PRAGMA user_version = 9;");
  auto s = Store::open(db);
  EXPECT_EQ(10, s->schema_version());
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM charge_journal"));
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM pragma_table_info('charge_journal') WHERE name = 'tres_id'"));
  EXPECT_EQ(1, sql_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'ledger_open' AND sql LIKE '%WHERE ended = 0'"));
  auto expect = [&](const StoreData& d, double factor, double billing1, double cpu1, double mem1) {
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage,
                     (test::find_assoc(before, "User1", "B")->raw_usage + billing1) * factor);
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User2", "C")->raw_usage,
                     (test::find_assoc(before, "User2", "C")->raw_usage + 2.5) * factor);
    EXPECT_DOUBLE_EQ(tres_of(d, "User1", "B", "cpu"), (tres_of(before, "User1", "B", "cpu") + cpu1) * factor);
    EXPECT_DOUBLE_EQ(tres_of(d, "User1", "B", "mem"), (tres_of(before, "User1", "B", "mem") + mem1) * factor);
    EXPECT_DOUBLE_EQ(tres_of(d, "User2", "C", "cpu"), (tres_of(before, "User2", "C", "cpu") + 1) * factor);
  };
  expect(s->load(), 1.0, 15.25, 8, 0.125);
  // A job end in the new form: one row, its TRES packed.
  CycleUpdate up;
  up.defer_usage = true;
  up.charges.push_back(Charge{1, std::stoll(a1), 0, 4, 1, {{"cpu", 2}, {"mem", 0.5}}, true});
  s->apply_cycle(up);
  EXPECT_EQ(1, sql_int(db, "SELECT count(*) FROM charge_journal"));
  expect(s->load(), 1.0, 19.25, 16, 2.125);
  CycleUpdate fold;
  fold.decay_factor = 0.5;
  s->apply_cycle(fold);
  EXPECT_EQ(0, sql_int(db, "SELECT count(*) FROM charge_journal"));
  expect(s->load(), 0.5, 19.25, 16, 2.125);
}

}  // namespace mfprio::acct

namespace mfprio::acct {

TEST(StoreJournal, DeferredChargesCountAtOnceAndFoldAtTheNextCycle) {
  TempDir dir;
  auto s = doc_store(dir);
  const StoreData before = s->load();
  const double u1 = test::find_assoc(before, "User1", "B")->raw_usage;
  CycleUpdate up;
  up.defer_usage = true;
  up.charges.push_back(Charge{901, test::find_assoc(before, "User1", "B")->id, 1000, 1010, 2, {{"cpu", 2}}, true});
  EXPECT_EQ(s->apply_cycle(up).added[0], 20.0);
  EXPECT_EQ(s->apply_cycle(up).added[0], 0.0);  // idempotent per job, journal or not
  // Visible at once (usage and per-TRES usage), before any fold.
  StoreData d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, u1 + 20);
  const auto& tu = test::find_assoc(d, "User1", "B")->tres_usage;
  ASSERT_EQ(tu.size(), 1u);
  EXPECT_EQ(tu[0].first, "cpu");
  EXPECT_DOUBLE_EQ(tu[0].second, 20.0);
  // The next ordinary cycle folds the journal, then decays everything alike.
  CycleUpdate decay;
  decay.decay_factor = 0.5;
  s->apply_cycle(decay);
  d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, (u1 + 20) * 0.5);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->tres_usage[0].second, 10.0);
  EXPECT_EQ(sql_int(store_location(dir, "acct.db"), "SELECT count(*) FROM charge_journal"), 0);
}

// Job ends are written many rows a statement (sql::ListStmt: up to 256 rows,
// the last chunk padded with NULL rows the statement drops): every row of a
// large batch must land, and no padding row.
TEST(StoreJournal, ALargeBatchWritesEveryJournalAndLedgerRow) {
  TempDir dir;
  auto s = doc_store(dir);
  const StoreData before = s->load();
  const UserAssocRec* a = test::find_assoc(before, "User1", "B");
  CycleUpdate up;
  up.defer_usage = true;
  double want = 0;
  for (uint64_t k = 0; k < 53; ++k) {  // 53 ledger rows and 53 x 4 amounts
    up.charges.push_back(Charge{5000 + k, a->id, 1000, 1000 + static_cast<int64_t>(k) + 1, 2,
                                {{"cpu", 1}, {"mem", 3}, {"node", 0.5}}, k % 2 == 0});
    want += 2.0 * static_cast<double>(k + 1);
  }
  const CycleResult res = s->apply_cycle(up);
  ASSERT_EQ(res.added.size(), 53u);
  EXPECT_DOUBLE_EQ(res.added[52], 106.0);
  const StoreData d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage, a->raw_usage + want);
  // The 26 jobs not ended are open in the ledger, each up to its own end.
  const std::vector<LedgerRec> open = s->open_ledger();
  ASSERT_EQ(open.size(), 26u);
  EXPECT_EQ(open[0].job_id, 5001u);
  EXPECT_EQ(open[0].charged_until, 1002);
  EXPECT_EQ(open[25].job_id, 5051u);
  EXPECT_EQ(open[25].charged_until, 1052);
  // The journal holds the batch summed per association (schema 10): one row,
  // the billing amount and the three TRES amounts packed in it, every amount in.
  const std::string db = store_location(dir, "acct.db");
  EXPECT_EQ(sql_int(db, "SELECT count(*) FROM charge_journal"), 1);
  EXPECT_EQ(sql_int(db, "SELECT sum(amount) FROM charge_journal"), static_cast<int64_t>(want));
  const auto tres = test::find_assoc(d, "User1", "B")->tres_usage;
  const auto before_tres = a->tres_usage;
  ASSERT_EQ(tres.size(), 3u);
  for (const auto& [name, amount] : tres) {
    double had = 0;
    for (const auto& [n, v] : before_tres)
      if (n == name) had = v;
    const double per_sec = name == "cpu" ? 1 : name == "mem" ? 3 : 0.5;
    EXPECT_DOUBLE_EQ(amount, had + want / 2 * per_sec) << name;
  }
}

// The same job twice in one cycle: the second charge starts where the first
// ended (the batch carries its ledger state from one charge to the next), in the
// journal path and in the row path alike.
TEST(StoreJournal, AJobChargedTwiceInOneCycleIsChargedOnce) {
  for (const bool deferred : {true, false}) {
    TempDir dir;
    auto s = doc_store(dir);
    const StoreData before = s->load();
    const UserAssocRec* a = test::find_assoc(before, "User3", "C");
    CycleUpdate up;
    up.defer_usage = deferred;
    for (int64_t until : {1010, 1030, 1030, 1020})
      up.charges.push_back(Charge{77, a->id, 1000, until, 1, {{"cpu", 2}}, false});
    up.charges.back().ended = true;
    const CycleResult res = s->apply_cycle(up);
    ASSERT_EQ(res.added.size(), 4u);
    EXPECT_DOUBLE_EQ(res.added[0], 10.0) << deferred;
    EXPECT_DOUBLE_EQ(res.added[1], 20.0) << deferred;
    EXPECT_DOUBLE_EQ(res.added[2], 0.0) << deferred;
    EXPECT_DOUBLE_EQ(res.added[3], 0.0) << deferred;
    const StoreData d = s->load();
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User3", "C")->raw_usage, a->raw_usage + 30.0) << deferred;
    EXPECT_TRUE(s->open_ledger().empty()) << deferred;  // ended by the last charge
  }
}

// One batch mixing every case the charge path meets (store_charge.cpp: one
// ledger read and one look-up by name for the whole batch, the writes
// coalesced), in the row path and the journal path, on either backend: a
// job already charged (continues from its ledger row, on its first
// association even when the charge names another), new jobs by name (more
// than one statement's worth: 300 of them), a job whose association was
// deleted (dropped, no ledger row), a job charged before its association was
// deleted (its ledger row went with it: dropped too), a new job charged
// twice in the batch (the second charge starts where the first ended).  The
// same batch again adds nothing.
TEST(StoreCharges, ABatchMixingChargedNewAndDeletedAssociationJobsIsChargedOnce) {
  for (const bool deferred : {false, true}) {
    TempDir dir;
    auto s = doc_store(dir);
    auto named = [](uint64_t job, const char* user, const char* account, int64_t start, int64_t until) {
      Charge c{job, 0, start, until, 1.0, {{"cpu", 2.0}}, false};
      c.user = user;
      c.account = account;
      return c;
    };
    {
      CycleUpdate first;
      first.charges = {named(1, "User1", "B", 1000, 1010), named(4, "User3", "C", 1000, 1010)};
      s->apply_cycle(first);
      AdminChanges del;
      del.delete_users = {"User3", "User5"};
      s->apply_admin(del);
    }
    const StoreData before = s->load();
    CycleUpdate up;
    up.defer_usage = deferred;
    up.charges.push_back(named(1, "User2", "C", 1000, 1030));  // charged to User1/B until 1010: stays there
    up.charges.push_back(named(3, "User5", "F", 1000, 1100));  // association deleted: dropped
    up.charges.push_back(named(4, "User3", "C", 1000, 1100));  // charged, then deleted: dropped
    up.charges.push_back(named(5, "User4", "E", 1000, 1040));  // new ...
    for (uint64_t k = 0; k < 300; ++k) up.charges.push_back(named(100 + k, "User2", "C", 1000, 1002));
    up.charges.push_back(named(5, "User4", "E", 1000, 1050));  // ... and again: only 10 more
    const CycleResult res = s->apply_cycle(up);
    ASSERT_EQ(res.added.size(), up.charges.size()) << deferred;
    const int64_t b = test::find_assoc(before, "User1", "B")->id, c = test::find_assoc(before, "User2", "C")->id,
                  e = test::find_assoc(before, "User4", "E")->id;
    EXPECT_DOUBLE_EQ(res.added[0], 20.0) << deferred;
    EXPECT_EQ(res.assoc_ids[0], b) << deferred;
    EXPECT_EQ(res.added[1], 0.0) << deferred;
    EXPECT_EQ(res.assoc_ids[1], 0) << deferred;
    EXPECT_EQ(res.assoc_ids[2], 0) << deferred;
    EXPECT_EQ(res.dropped, 2u) << deferred;
    EXPECT_DOUBLE_EQ(res.added[3], 40.0) << deferred;
    EXPECT_EQ(res.assoc_ids[3], e) << deferred;
    EXPECT_DOUBLE_EQ(res.added[4], 2.0) << deferred;
    EXPECT_EQ(res.assoc_ids[303], c) << deferred;
    EXPECT_DOUBLE_EQ(res.added.back(), 10.0) << deferred;
    const StoreData d = s->load();
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage,
                     test::find_assoc(before, "User1", "B")->raw_usage + 20.0) << deferred;
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User2", "C")->raw_usage,
                     test::find_assoc(before, "User2", "C")->raw_usage + 600.0) << deferred;
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User4", "E")->raw_usage,
                     test::find_assoc(before, "User4", "E")->raw_usage + 50.0) << deferred;
    ASSERT_EQ(test::find_assoc(d, "User4", "E")->tres_usage.size(), 1u) << deferred;
    EXPECT_DOUBLE_EQ(test::find_assoc(d, "User4", "E")->tres_usage[0].second, 100.0) << deferred;
    // The ledger: one row per job charged, none for the dropped ones.
    std::map<uint64_t, LedgerRec> open;
    for (const LedgerRec& l : s->open_ledger()) open[l.job_id] = l;
    EXPECT_EQ(open.size(), 302u) << deferred;  // jobs 1, 5 and the 300
    EXPECT_EQ(open[1].assoc_id, b) << deferred;
    EXPECT_EQ(open[1].charged_until, 1030) << deferred;
    EXPECT_EQ(open[5].charged_until, 1050) << deferred;
    EXPECT_EQ(open.count(3), 0u) << deferred;
    EXPECT_EQ(open.count(4), 0u) << deferred;
    // Charged once: the same batch again adds nothing anywhere.
    const CycleResult again = s->apply_cycle(up);
    for (size_t i = 0; i < again.added.size(); ++i) EXPECT_EQ(again.added[i], 0.0) << deferred << " charge " << i;
    EXPECT_DOUBLE_EQ(test::total_usage(s->load()), test::total_usage(d)) << deferred;
  }
}

// Names reach the look-up as they are, whatever they hold: on PostgreSQL as
// elements of a text array (sql_pg.cpp: double-quoted, " and \ escaped), so
// a backslash, braces, a comma, a quote or the word NULL are names like any
// other, and an unknown one matches nothing.
TEST(StoreCharges, NamesWithArraySyntaxInThemAreLookedUpAsThemselves) {
  TempDir dir;
  auto s = Store::open(store_location(dir, "acct.db"));
  AdminChanges ch;
  ch.accounts = {test::account("NULL", "root", 1), test::account("{a}", "root", 1)};
  ch.users = {test::user("u\\1{x}", "NULL"), test::user("NULL", "{a}")};
  ch.assocs = {test::assoc("u\\1{x}", "NULL"), test::assoc("NULL", "{a}")};
  s->apply_admin(ch);
  auto named = [](uint64_t job, const char* user, const char* account, int64_t secs) {
    Charge c{job, 0, 0, secs, 1.0, {}, true};
    c.user = user;
    c.account = account;
    return c;
  };
  for (const bool deferred : {false, true}) {
    CycleUpdate up;
    up.defer_usage = deferred;
    const uint64_t j = deferred ? 10 : 0;
    up.charges = {named(j + 1, "u\\1{x}", "NULL", 10), named(j + 2, "NULL", "{a}", 20),
                  named(j + 3, "u\"1,x", "NULL", 40), named(j + 4, "u\\1{x}", "{a}", 80)};
    const CycleResult r = s->apply_cycle(up);
    EXPECT_EQ(r.added, (std::vector<double>{10, 20, 0, 0})) << deferred;
    EXPECT_EQ(r.dropped, 2u) << deferred;
  }
  const StoreData d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "u\\1{x}", "NULL")->raw_usage, 20.0);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "NULL", "{a}")->raw_usage, 40.0);
}

TEST(StoreJournal, DeferredCycleRefusesDecayAndUnknownAssociations) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.defer_usage = true;
  up.decay_factor = 0.5;
  EXPECT_THROW(s->apply_cycle(up), StoreError);
  // An unknown association id is refused, deferred or not, even when
  // nothing is due (a zero-length charge), naming the job and the id; the
  // batch's other charges are not applied.
  const UserAssocRec before = *test::find_assoc(s->load(), "User1", "B");
  for (const bool deferred : {true, false})
    for (const int64_t until : {10, 0}) {
      CycleUpdate bad;
      bad.defer_usage = deferred;
      bad.charges.push_back(Charge{4, before.id, 0, 10, 1, {}, false});
      bad.charges.push_back(Charge{5, 987654, 0, until, 1, {}, false});
      try {
        s->apply_cycle(bad);
        ADD_FAILURE() << "charged to an unknown association";
      } catch (const StoreError& e) {
        EXPECT_NE(std::string(e.what()).find("job 5: unknown association id 987654"), std::string::npos) << e.what();
      }
      EXPECT_TRUE(s->open_ledger().empty());
      EXPECT_EQ(test::find_assoc(s->load(), "User1", "B")->raw_usage, before.raw_usage);
    }
}

// Deleting an association deletes its journalled usage (schema 9: a trigger,
// the journal has no foreign key): the next fold does not meet it (it would
// fail on assoc_tres_usage's foreign key), and an association made again
// under the same names starts from nothing.  On either backend.
TEST(StoreJournal, DeletingAnAssociationDropsItsJournalledUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  const StoreData before = s->load();
  CycleUpdate up;
  up.defer_usage = true;
  up.charges.push_back(Charge{8, test::find_assoc(before, "User3", "C")->id, 0, 100, 1, {{"cpu", 4}}, true});
  up.charges.push_back(Charge{9, test::find_assoc(before, "User5", "F")->id, 0, 100, 1, {{"cpu", 4}}, true});
  up.charges.push_back(Charge{10, test::find_assoc(before, "User1", "B")->id, 0, 100, 1, {{"cpu", 4}}, true});
  s->apply_cycle(up);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User3", "C")->raw_usage, 100.0);
  AdminChanges del;
  del.delete_users = {"User3"};                      // its associations with it
  del.delete_assocs = {AssocKey{"User5", "F", ""}};  // one association
  s->apply_admin(del);
  // Made again (usage not given): from nothing, whatever id they get (SQLite
  // may give a deleted one's again).
  AdminChanges again;
  again.users = {test::user("User3", "C")};
  again.assocs = {test::assoc("User3", "C"), test::assoc("User5", "F")};
  for (AssocWrite& w : again.assocs) w.set_usage = false;
  s->apply_admin(again);
  StoreData d = s->load();
  for (const char* u : {"User3", "User5"}) {
    const UserAssocRec* r = test::find_assoc(d, u, u[4] == '3' ? "C" : "F");
    ASSERT_NE(r, nullptr) << u;
    EXPECT_EQ(r->raw_usage, 0.0) << u;
    EXPECT_TRUE(r->tres_usage.empty()) << u;
  }
  // The fold meets only the journal rows of associations that exist.
  CycleUpdate fold;
  fold.decay_factor = 0.5;
  s->apply_cycle(fold);
  d = s->load();
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->raw_usage,
                   (test::find_assoc(before, "User1", "B")->raw_usage + 100.0) * 0.5);
  ASSERT_EQ(test::find_assoc(d, "User1", "B")->tres_usage.size(), 1u);
  EXPECT_DOUBLE_EQ(test::find_assoc(d, "User1", "B")->tres_usage[0].second, 200.0);
  EXPECT_EQ(test::find_assoc(d, "User3", "C")->raw_usage, 0.0);
  EXPECT_EQ(test::find_assoc(d, "User5", "F")->raw_usage, 0.0);
}

// The charge path keeps the association ids of the names it looked up
// (store_charge.cpp: the name cache) only while nothing was written since:
// an association deleted and made again (a new id) by another Store on the
// same store (another host, mfprio-acct), or by this Store's own admin
// write, is never charged under its old id: a job after the delete is
// dropped, a job after the re-creation goes to the new id, and the usage
// lands on the association that exists.  Deferred (job ends) and not.
TEST(StoreCharges, TheNameCacheNeverChargesAnAssociationChangedSinceItWasLookedUp) {
  for (const bool deferred : {false, true}) {
    for (const bool same_store : {false, true}) {
      TempDir dir;
      auto s = doc_store(dir);
      auto other = same_store ? nullptr : Store::open(store_location(dir, "acct.db"));
      Store& admin = same_store ? *s : *other;
      const std::string what = std::string(deferred ? "deferred" : "rows") + (same_store ? ", same store" : ", other");
      uint64_t job = 1;
      auto end = [&](const char* user, const char* account) {
        CycleUpdate up;
        up.defer_usage = deferred;
        Charge c{job++, 0, 1000, 1100, 1.0, {{"cpu", 1.0}}, true};
        c.user = user;
        c.account = account;
        up.charges.push_back(c);
        return s->apply_cycle(up);
      };
      const int64_t old_id = test::find_assoc(s->load(), "User5", "F")->id;
      EXPECT_EQ(end("User5", "F").assoc_ids[0], old_id) << what;  // looked up, kept
      EXPECT_EQ(end("User5", "F").assoc_ids[0], old_id) << what;  // from the cache
      AdminChanges del;
      del.delete_assocs = {AssocKey{"User5", "F", ""}};
      admin.apply_admin(del);
      const CycleResult gone = end("User5", "F");
      EXPECT_EQ(gone.assoc_ids[0], 0) << what;
      EXPECT_EQ(gone.dropped, 1u) << what;
      // Made again, then the store changed by another write with a new
      // association taking the old one's place in the name order.
      AdminChanges again;
      again.assocs = {test::assoc("User5", "E"), test::assoc("User5", "F")};
      for (AssocWrite& w : again.assocs) w.set_usage = false;
      admin.apply_admin(again);
      const int64_t new_id = test::find_assoc(s->load(), "User5", "F")->id;
      EXPECT_EQ(end("User5", "F").assoc_ids[0], new_id) << what;
      EXPECT_EQ(end("User5", "F").assoc_ids[0], new_id) << what;
      CycleUpdate fold;  // the journal into the rows: both charges on the new association
      s->apply_cycle(fold);
      const StoreData d = s->load();
      EXPECT_DOUBLE_EQ(test::find_assoc(d, "User5", "F")->raw_usage, 200.0) << what;
      ASSERT_EQ(test::find_assoc(d, "User5", "F")->tres_usage.size(), 1u) << what;
      EXPECT_DOUBLE_EQ(test::find_assoc(d, "User5", "F")->tres_usage[0].second, 200.0) << what;
      EXPECT_EQ(test::find_assoc(d, "User5", "E")->raw_usage, 0.0) << what;
    }
  }
}

TEST(StoreJournal, ImportReplacesJournalledUsage) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.defer_usage = true;
  up.charges.push_back(Charge{6, test::find_assoc(s->load(), "User3", "C")->id, 0, 100, 1, {}, false});
  s->apply_cycle(up);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User3", "C")->raw_usage, 100.0);
  AdminChanges ch;
  ch.assocs.push_back(test::assoc("User3", "C", 7));
  s->apply_admin(ch);
  EXPECT_DOUBLE_EQ(test::find_assoc(s->load(), "User3", "C")->raw_usage, 7.0);
}

}  // namespace mfprio::acct

// ---- windowed usage (schema v4) ----------------------------------------------
namespace mfprio::acct {
namespace {

double window_usage(Store& s, const std::string& family, const std::string& kind, const std::string& name,
                    int64_t start) {
  double u = 0;
  for (const WindowRow& r : s.load_windows(family))
    if (r.kind == kind && r.name == name && r.start == start) u += r.usage;
  return u;
}

TEST(StoreWindows, ChargeSplitsAtWindowBoundariesAndIsMadeOnce) {
  test::TempDir dir;
  auto s = Store::open(store_location(dir, "w.db"));
  WindowCycle c = test::window_pass("maui", 100);
  c.charges.push_back(test::window_charge(7, 150, 320, 2, {{"user", "u"}, {"total", ""}}));
  WindowResult r = s->apply_windows(c);
  ASSERT_EQ(r.added.size(), 1u);
  EXPECT_DOUBLE_EQ(r.added[0], 340.0);                          // 170 s x 2
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 100), 100.0);  // 150..200
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 200), 200.0);  // 200..300
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 300), 40.0);   // 300..320
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "total", "", 300), 40.0);
  // The same charge again adds nothing; a later one adds only the tail.
  r = s->apply_windows(c);
  EXPECT_DOUBLE_EQ(r.added[0], 0.0);
  c.charges[0].until = 330;
  r = s->apply_windows(c);
  EXPECT_DOUBLE_EQ(r.added[0], 20.0);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 300), 60.0);
  // Other families keep their own ledger and rows.
  EXPECT_TRUE(s->load_windows("flux").empty());
}

TEST(StoreWindows, AChargeWritesAtMostTheKeptWindowsUpToItsEnd) {
  // One-second windows, 24 kept: a day-long charge wrote 86,400 rows per
  // credential; only the last 24 can ever count.
  test::TempDir dir;
  auto s = Store::open(store_location(dir, "w.db"));
  WindowCycle c = test::window_pass("maui", 1);
  c.keep_windows = 24;
  const int64_t t0 = 1'700'000'000, end = t0 + 86400;
  c.charges.push_back(test::window_charge(7, t0, end, 2, {{"user", "u"}, {"total", ""}}));
  WindowResult r = s->apply_windows(c);
  EXPECT_DOUBLE_EQ(r.added[0], 2.0 * 23);  // the windows end-23 .. end-1, the one at `end` empty
  EXPECT_EQ(s->load_windows("maui").size(), 2u * 23);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", end - 1), 2.0);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", end - 24), 0.0);
}

TEST(StoreWindows, DecayAndDropApplyToTheFamilyOnly) {
  test::TempDir dir;
  auto s = Store::open(store_location(dir, "w.db"));
  AdminChanges a;
  a.windows_family = "gridengine";
  a.windows = {WindowRow{"cpu", "u", 0, 0, 800.0}};
  s->apply_admin(a);
  a.windows_family = "maui";
  a.windows = {WindowRow{"user", "u", 0, 100, 5.0}, WindowRow{"user", "u", 100, 100, 7.0}};
  s->apply_admin(a);
  WindowCycle c;
  c.family = "gridengine";
  c.decay_factor = 0.5;
  c.new_state = DecayState{1000, 1000};
  s->apply_windows(c);
  EXPECT_DOUBLE_EQ(window_usage(*s, "gridengine", "cpu", "u", 0), 400.0);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 100), 7.0);
  EXPECT_EQ(s->decay_state().last_decay, 1000);
  WindowCycle m;
  m.family = "maui";
  m.window_seconds = 100;
  m.drop_before = 150;  // the window 0..100 has ended; 100..200 has not
  s->apply_windows(m);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 0), 0.0);
  EXPECT_DOUBLE_EQ(window_usage(*s, "maui", "user", "u", 100), 7.0);
}

TEST(StoreWindows, BadChargeRollsTheWholePassBack) {
  test::TempDir dir;
  auto s = Store::open(store_location(dir, "w.db"));
  WindowCycle c = test::window_pass("maui", 100);
  c.charges = {test::window_charge(1, 0, 50, 1.0, {{"user", "u"}}),
               test::window_charge(2, 0, 50, std::nan(""), {{"user", "v"}})};
  EXPECT_THROW(s->apply_windows(c), StoreError);
  EXPECT_TRUE(s->load_windows("maui").empty());
}

}  // namespace
}  // namespace mfprio::acct

namespace mfprio::acct {
namespace {

TEST(StoreOpen, RefusesASymlinkAtTheStorePathAndWritesNothingThrough) {
  test::TempDir dir;
  const std::string target = store_location(dir, "elsewhere.db"), link = store_location(dir, "acct.db");
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  try {
    Store::open(link);
    FAIL() << "opened a store through a symlink";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string(e.what()).find("symbolic link"), std::string::npos) << e.what();
  }
  struct stat sb;
  EXPECT_NE(::stat(target.c_str(), &sb), 0);  // nothing created at the link's target
  // A link to an existing store is refused too.
  { auto s = Store::open(target); }
  EXPECT_THROW(Store::open(link), StoreError);
}

}  // namespace
// Charge times before 1970 (or past 9999) cannot overflow
// until - start; they are refused and the pass changes nothing.
TEST(StoreCharges, ChargeBefore1970IsRefusedWithoutOverflow) {
  TempDir dir;
  auto s = doc_store(dir);
  const double before = test::total_usage(s->load());
  for (auto [start, until] : {std::pair<int64_t, int64_t>{INT64_MIN, 100}, {-1, 100}, {0, INT64_MAX},
                              {INT64_MIN, INT64_MAX}}) {
    CycleUpdate up;
    up.charges.push_back(Charge{9, assoc_id(*s, "User1"), start, until, 1.0, {{"cpu", 1.0}}, false});
    EXPECT_THROW(s->apply_cycle(up), StoreError) << start << " " << until;
    WindowCycle w = test::window_pass("maui", 3600);
    w.charges.push_back(test::window_charge(9, start, until, 1.0, {{"user", "User1"}}));
    EXPECT_THROW(s->apply_windows(w), StoreError) << start << " " << until;
  }
  EXPECT_EQ(before, test::total_usage(s->load()));
  EXPECT_TRUE(s->open_ledger().empty());
}

TEST(StoreDecayState, SetDecayStateRepairsPassTimesOnlyAndValidates) {
  TempDir dir;
  auto s = doc_store(dir);
  CycleUpdate up;
  up.decay_factor = 0.5;
  up.new_state = DecayState{100, 50};
  s->apply_cycle(up);
  const double usage = test::total_usage(s->load());
  EXPECT_EQ(0.5, s->decay_info().scale);
  s->set_decay_state(DecayState{2000, 1000});
  const DecayInfo i = s->decay_info();
  EXPECT_EQ(2000, i.last_decay);
  EXPECT_EQ(1000, i.last_reset);
  EXPECT_EQ(0.5, i.scale);
  EXPECT_EQ(usage, test::total_usage(s->load()));
  EXPECT_THROW(s->set_decay_state(DecayState{10, 20}), StoreError);
  EXPECT_THROW(s->set_decay_state(DecayState{-1, 0}), StoreError);
  EXPECT_THROW(s->set_decay_state(DecayState{INT64_MAX, 0}), StoreError);
  EXPECT_EQ(2000, s->decay_state().last_decay);
}

}  // namespace mfprio::acct

// Store::load_tree: the compact read and its cache (schema v7).
namespace mfprio::acct {
namespace {

// Every field of a TreeData, names spelled out, one line per record.
std::vector<std::string> tree_lines(const TreeData& t) {
  std::vector<std::string> out;
  const NamePool& nm = t.names;
  auto acc = [&](int64_t i) { return i < 0 ? std::string("-") : std::string(nm[t.accounts[size_t(i)].name]); };
  for (const TreeAccount& a : t.accounts)
    out.push_back("account " + std::to_string(a.id) + " " + std::string(nm[a.name]) + " parent=" + acc(a.parent) +
                  " shares=" + std::to_string(a.shares) + " sp=" + std::to_string(a.shares_parent) +
                  " prio=" + std::to_string(a.priority));
  for (const TreeUser& u : t.users)
    out.push_back("user " + std::string(nm[u.name]) + " default=" + acc(u.default_account) +
                  " admin=" + std::to_string(u.admin));
  for (const TreeAssoc& a : t.assocs) {
    char usage[64];
    std::snprintf(usage, sizeof usage, "%.17g", a.raw_usage);
    out.push_back("assoc " + std::to_string(a.id) + " " + std::string(nm[t.users[a.user].name]) + "/" +
                  acc(a.account) + "/" + std::string(nm[a.partition]) + " shares=" + std::to_string(a.shares) +
                  " sp=" + std::to_string(a.shares_parent) + " prio=" + std::to_string(a.priority) +
                  " default=" + std::to_string(a.is_default) + " usage=" + usage +
                  " time=" + std::to_string(a.usage_time));
  }
  for (const QosRec& q : t.qos) out.push_back("qos " + q.name);
  for (const PartitionRec& p : t.partitions) out.push_back("partition " + p.name);
  out.push_back("decay " + std::to_string(t.decay.last_decay) + " " + std::to_string(t.decay.last_reset));
  return out;
}

// The same lines from load() (the reference reader).
std::vector<std::string> tree_lines(const StoreData& d) {
  std::vector<std::string> out;
  for (const AccountRec& a : d.accounts)
    out.push_back("account " + std::to_string(a.id) + " " + a.name + " parent=" + (a.parent.empty() ? "-" : a.parent) +
                  " shares=" + std::to_string(a.shares) + " sp=" + std::to_string(a.shares_parent) +
                  " prio=" + std::to_string(a.priority));
  for (const UserRec& u : d.users)
    out.push_back("user " + u.name + " default=" + (u.default_account.empty() ? "-" : u.default_account) +
                  " admin=" + std::to_string(u.admin));
  for (const UserAssocRec& a : d.assocs) {
    char usage[64];
    std::snprintf(usage, sizeof usage, "%.17g", a.raw_usage);
    out.push_back("assoc " + std::to_string(a.id) + " " + a.user + "/" + a.account + "/" + a.partition +
                  " shares=" + std::to_string(a.shares) + " sp=" + std::to_string(a.shares_parent) +
                  " prio=" + std::to_string(a.priority) + " default=" + std::to_string(a.is_default) +
                  " usage=" + usage + " time=" + std::to_string(a.usage_time));
  }
  for (const QosRec& q : d.qos) out.push_back("qos " + q.name);
  for (const PartitionRec& p : d.partitions) out.push_back("partition " + p.name);
  out.push_back("decay " + std::to_string(d.decay.last_decay) + " " + std::to_string(d.decay.last_reset));
  return out;
}


// The doc tree plus what makes ordering and defaults interesting: names out
// of insertion order, a second account, a partition association, a user
// whose chosen default is not its first account, a user with none, FairShare=parent.
std::unique_ptr<Store> rich_store(const TempDir& dir) {
  auto s = doc_store(dir);
  AdminChanges ch;
  ch.accounts = {test::account("aa", "A", 5)};
  ch.accounts.back().shares_parent = true;
  ch.assocs = {test::assoc("User1", "E", 3), test::assoc("zed", "aa", 7), test::assoc("Adam", "F", 1),
               test::assoc("Adam", "C", 2)};
  ch.assocs.back().rec.priority = 9;
  AssocWrite part = test::assoc("User1", "E", 4);
  part.rec.partition = "gpu";
  ch.assocs.push_back(part);
  ch.users = {test::user("Adam", "F"), test::user("zed", "")};
  s->apply_admin(ch);
  return s;
}

TEST(StoreTree, LoadTreeIsLoadInCompactForm) {
  TempDir dir;
  auto s = rich_store(dir);
  const std::vector<std::string> want = tree_lines(s->load());
  ASSERT_GT(want.size(), 20u);
  EXPECT_EQ(0, sql_int(store_location(dir, "acct.db"), "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(want, tree_lines(s->load_tree()));  // from the rows; writes the cache
  EXPECT_EQ(1, sql_int(store_location(dir, "acct.db"), "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(want, tree_lines(s->load_tree()));  // from the cache
  auto again = Store::open(store_location(dir, "acct.db"));  // a restart
  EXPECT_EQ(want, tree_lines(again->load_tree()));
}

TEST(StoreTree, UsageWritesKeepTheCacheHierarchyWritesClearIt) {
  TempDir dir;
  auto s = rich_store(dir);
  s->load_tree();
  const std::string db = store_location(dir, "acct.db");
  ASSERT_EQ(1, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  // A decay pass and a job end (journalled) move usage only.
  CycleUpdate up;
  up.decay_factor = 0.5;
  s->apply_cycle(up);
  CycleUpdate end;
  end.defer_usage = true;
  end.charges.push_back(Charge{77, test::find_assoc(s->load(), "User2", "C")->id, 1000, 1010, 2, {}, true});
  s->apply_cycle(end);
  EXPECT_EQ(1, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(tree_lines(s->load()), tree_lines(s->load_tree()));
  // An admin write clears the cache; the next load sees the change and
  // writes the cache again.
  AdminChanges ch;
  ch.assocs = {test::assoc("User3", "C", 0, 42)};
  ch.assocs.back().set_usage = false;
  s->apply_admin(ch);
  EXPECT_EQ(0, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  TreeData t = s->load_tree();
  EXPECT_EQ(tree_lines(s->load()), tree_lines(t));
  bool seen = false;
  for (const TreeAssoc& a : t.assocs)
    if (t.names[t.users[a.user].name] == "User3") seen = a.shares == 42;
  EXPECT_TRUE(seen);
  EXPECT_EQ(1, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  // Accounts and users too, and a deletion.
  AdminChanges acc;
  acc.accounts = {test::account("B", "A", 99)};
  acc.users = {test::user("Adam", "C")};
  s->apply_admin(acc);
  EXPECT_EQ(0, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(tree_lines(s->load()), tree_lines(s->load_tree()));
  AdminChanges del;
  del.delete_users = {"zed"};
  s->apply_admin(del);
  EXPECT_EQ(0, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(tree_lines(s->load()), tree_lines(s->load_tree()));
}

TEST(StoreTree, DamagedOrForeignCacheIsIgnored) {
  TempDir dir;
  auto s = rich_store(dir);
  const std::vector<std::string> want = tree_lines(s->load());
  s->load_tree();
  const std::string db = store_location(dir, "acct.db");
  const int64_t n = sql_int(db, "SELECT length(data) FROM tree_cache");
  ASSERT_GT(n, 100);
  // The last association's user index out of range (TreeAssoc: id, usage,
  // time, then user at byte 24 of 48).
  const unsigned char ff[4] = {0xff, 0xff, 0xff, 0xff};
  ASSERT_EQ(static_cast<int>(sizeof(TreeAssoc)), 48);
  ASSERT_NO_FATAL_FAILURE(cache_write(db, ff, 4, static_cast<int>(n - 24)));
  ASSERT_EQ(n, sql_int(db, "SELECT length(data) FROM tree_cache"));
  EXPECT_EQ(want, tree_lines(s->load_tree()));
  // A flag byte that is neither 0 nor 1 (is_default, byte 45 of the last one).
  s->load_tree();
  const unsigned char two = 2;
  ASSERT_NO_FATAL_FAILURE(cache_write(db, &two, 1, static_cast<int>(n - 3)));
  EXPECT_EQ(want, tree_lines(s->load_tree()));
  sql_run(db, "UPDATE tree_cache SET data = randomblob(" + std::to_string(n) + ")");
  EXPECT_EQ(want, tree_lines(s->load_tree()));
  sql_run(db, "UPDATE tree_cache SET data = x'00'");
  EXPECT_EQ(want, tree_lines(s->load_tree()));
  // A cache whose association rows no longer match (written behind the
  // Store's back): the usage scan notices, the rows win.
  s->load_tree();
  sql_run(db, "DELETE FROM assocs WHERE partition = 'gpu'");
  ASSERT_EQ(1, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
  EXPECT_EQ(tree_lines(s->load()), tree_lines(s->load_tree()));
}

TEST(StoreMigration, VersionSixFileGainsTheTreeCache) {
  TempDir dir;
  const std::string db = store_location(dir, "acct.db");
  std::vector<std::string> want;
  {
    auto s = rich_store(dir);
    want = tree_lines(s->load());
  }
  // Back to v6: no cache table (nor v8's settings).
  sql_run(db, "DROP TABLE tree_cache; DROP TABLE settings; ALTER TABLE charge_journal DROP COLUMN tres;"
              " ALTER TABLE charge_journal ADD COLUMN tres_id INTEGER; PRAGMA user_version = 6;");
  ASSERT_EQ(0, sql_int(db, "SELECT count(*) FROM sqlite_master WHERE name = 'tree_cache'"));
  {
    auto s = Store::open(db);
    EXPECT_EQ(detail::kSchemaVersion, s->schema_version());
    EXPECT_EQ(want, tree_lines(s->load()));
    EXPECT_EQ(want, tree_lines(s->load_tree()));
    EXPECT_EQ(want, tree_lines(s->load_tree()));
  }
  EXPECT_EQ(detail::kSchemaVersion, sql_int(db, "PRAGMA user_version"));
  EXPECT_EQ(1, sql_int(db, "SELECT data IS NOT NULL FROM tree_cache"));
}

}  // namespace
}  // namespace mfprio::acct
