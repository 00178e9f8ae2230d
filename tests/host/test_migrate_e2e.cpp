// test_migrate_e2e.cpp - `mfprio-acct migrate --to LOCATION` (issue 21,
// item 6) with the built mfprio-acct and mfprio-host and the real
// priority_multifactor.so: a store holding every kind of row (hierarchy,
// QOS, partitions, queues, ticket objects, settings, usage under a decay
// scale, TRES usage, a journal not yet folded, open and ended ledger rows,
// windows and their ledger, pass times) is copied file -> run's backend and
// run's backend -> file (on the pg run: SQLite -> PostgreSQL -> SQLite; on
// the plain run both SQLite).  The copy must export identically, read
// back identically through every Store read, price the same jobs to the
// same priorities, and charge a job the source already charged nothing.
// A target that is not empty is refused and left as it was.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

#include "import_export.hpp"
#include "run_process.hpp"
#include "store.hpp"
#include "store_location.hpp"
#include "test_util.hpp"

namespace {

using mfprio::test::ProcessResult;
using mfprio::test::TempDir;
namespace acct = mfprio::acct;

constexpr int64_t kT0 = 1700000000;

acct::AccountRec account(const std::string& name, const std::string& parent, uint32_t shares) {
  acct::AccountRec a;
  a.name = name;
  a.parent = parent;
  a.shares = shares;
  return a;
}
acct::AssocWrite assoc(const std::string& user, const std::string& account, double usage) {
  acct::AssocWrite w;
  w.rec.user = user;
  w.rec.account = account;
  w.rec.raw_usage = usage;
  w.rec.tres_usage = {{"cpu", usage / 2}};
  w.set_usage = true;
  return w;
}

// Every kind of row the store keeps, written through the Store interface.
void fill(acct::Store& s) {
  acct::AdminChanges ch;
  // "late" is re-parented below, so its id is lower than its new parent's.
  ch.accounts = {account("late", "root", 2), account("phys", "root", 40), account("chem", "root", 60)};
  ch.assocs = {assoc("alice", "phys", 1000), assoc("bob", "phys", 250), assoc("carol", "chem", 4000)};
  ch.users = {{"alice", "phys", true}, {"bob", "phys", false}, {"carol", "chem", false}};
  ch.qos = {{0, "high", 100, 2.0}};
  acct::PartitionRec p;
  p.name = "batch";
  p.job_factor = 3;
  p.billing_weights = "CPU=1.0,Mem=0.25G";
  p.is_default = true;
  ch.partitions = {p};
  ch.queues = {{"gpu", -5}};
  ch.ticket_objects = {{"project", "phys", 10, 3}};
  ch.settings = {{acct::kSettingCluster, "demo"}};
  s.apply_admin(ch);
  acct::AdminChanges move;
  move.accounts = {account("late", "chem", 2)};
  s.apply_admin(move);
  acct::AdminChanges deeper;
  deeper.accounts = {account("sub", "late", 1)};
  deeper.assocs = {assoc("dave", "sub", 10)};
  deeper.users = {{"dave", "sub", false}};
  s.apply_admin(deeper);
  // A decay pass (scale and pass times), an open job charged up to it, an
  // ended one, and a journalled job end.
  acct::CycleUpdate pass;
  pass.pass = acct::PassClock{kT0, acct::DecayRate{0.5, 7200}, 0};
  acct::Charge open;
  open.job_id = 11;
  open.user = "alice";
  open.account = "phys";
  open.start_time = kT0 - 3600;
  open.until = kT0;
  open.rate = 4;
  open.tres = {{"cpu", 4}};
  pass.charges.push_back(open);
  acct::Charge done = open;
  done.job_id = 12;
  done.user = "carol";
  done.account = "chem";
  done.ended = true;
  pass.charges.push_back(done);
  s.apply_cycle(pass);
  acct::CycleUpdate second;
  second.pass = acct::PassClock{kT0 + 300, acct::DecayRate{0.5, 7200}, 0};
  s.apply_cycle(second);
  acct::CycleUpdate journal;
  journal.defer_usage = true;
  acct::Charge end = open;
  end.job_id = 13;
  end.user = "bob";
  end.start_time = kT0;
  end.until = kT0 + 600;
  end.ended = true;
  journal.charges.push_back(end);
  s.apply_cycle(journal);
  // Windows of a family and its window ledger.
  acct::WindowCycle w;
  w.family = "maui";
  w.window_seconds = 3600;
  acct::WindowCharge wc;
  wc.job_id = 21;
  wc.start_time = kT0 - 5000;
  wc.until = kT0 + 600;
  wc.rate = 2;
  wc.credentials = {{"user", "alice"}, {"account", "phys"}};
  w.charges.push_back(wc);
  s.apply_windows(w);
}

std::unique_ptr<acct::Store> open_ro(const std::string& loc) {
  acct::OpenOptions ro;
  ro.read_only = true;
  ro.create = false;
  return acct::Store::open(loc, ro);
}

// Everything a Store reads, as text: export, pass times and scale, windows,
// open ledger.
std::string everything(const std::string& loc) {
  auto s = open_ro(loc);
  std::string out = acct::export_json(s->load());
  const acct::DecayInfo d = s->decay_info();
  out += "decay " + std::to_string(d.last_decay) + " " + std::to_string(d.last_reset) + " " +
         std::to_string(d.scale) + "\n";
  for (const auto& r : s->load_windows("maui"))
    out += "window " + r.kind + " " + r.name + " " + std::to_string(r.start) + " " + std::to_string(r.seconds) + " " +
           std::to_string(r.usage) + "\n";
  for (const auto& l : s->open_ledger())
    out += "ledger " + std::to_string(l.job_id) + " " + std::to_string(l.charged_until) + "\n";
  return out;
}

class Migrate : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
  }
  // sprio --json of a fixed queue on the store at `loc`.
  std::string prices(const std::string& loc) {
    const std::string conf = dir.write("p" + std::to_string(++confs) + ".conf",
                                       "PriorityType=priority/multifactor\nPluginDir=" + plugin_dir +
                                           "\nAccountingStorageLoc=" + loc +
                                           "\nPriorityWeightFairshare=100000\nPriorityWeightQOS=1000\n");
    const std::string jobs = dir.write(
        "jobs.jsonl",
        "{\"id\": 1, \"user\": \"alice\", \"account\": \"phys\", \"qos\": \"high\", \"submit\": 1700000000}\n"
        "{\"id\": 2, \"user\": \"bob\", \"submit\": 1700000100}\n"
        "{\"id\": 3, \"user\": \"carol\", \"submit\": 1700000200}\n"
        "{\"id\": 4, \"user\": \"dave\", \"submit\": 1700000300}\n");
    const ProcessResult r = mfprio::test::run_host(
        {"--conf", conf, "--now", std::to_string(kT0 + 900), "sprio", "--job-file", jobs, "--json"});
    EXPECT_EQ(r.status, 0) << r.err;
    return r.out;
  }
  void check_copy(const std::string& src, const std::string& dst) {
    const ProcessResult r = mfprio::test::run_acct({"--db", src, "migrate", "--to", dst});
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(mfprio::test::has(r.out, "migrated ")) << r.out;
    const std::string want = everything(src);
    EXPECT_TRUE(mfprio::test::has(want, "\"alice\"")) << want;
    EXPECT_TRUE(mfprio::test::has(want, "window user alice")) << want;
    EXPECT_TRUE(mfprio::test::has(want, "ledger 11 ")) << want;
    EXPECT_EQ(everything(dst), want);
    const ProcessResult ex1 = mfprio::test::run_acct({"--db", src, "export"}),
                        ex2 = mfprio::test::run_acct({"--db", dst, "export"});
    ASSERT_EQ(ex1.status, 0) << ex1.err;
    EXPECT_EQ(ex2.out, ex1.out);
    EXPECT_EQ(prices(dst), prices(src));
    // A job the source charged (its ledger) adds nothing in the copy; a new one does.
    auto s = acct::Store::open(dst);
    acct::CycleUpdate up;
    acct::Charge again;
    again.job_id = 12;
    again.user = "carol";
    again.account = "chem";
    again.start_time = kT0 - 3600;
    again.until = kT0;
    again.rate = 4;
    again.ended = true;
    up.charges.push_back(again);
    acct::Charge fresh = again;
    fresh.job_id = 99 + static_cast<uint64_t>(++copies);  // not charged in any store before
    up.charges.push_back(fresh);
    const acct::CycleResult res = s->apply_cycle(up);
    EXPECT_EQ(res.added[0], 0.0);
    EXPECT_EQ(res.added[1], 4.0 * 3600);
    // New rows get ids after the copied ones (PostgreSQL: the identities follow).
    acct::AdminChanges more;
    const std::string bio = "bio" + std::to_string(copies), erin = "erin" + std::to_string(copies);
    more.accounts = {account(bio, "root", 5)};
    more.assocs = {assoc(erin, bio, 1)};
    more.users = {{erin, bio, false}};
    EXPECT_NO_THROW(s->apply_admin(more));
  }

  TempDir dir;
  std::string plugin_dir;
  int confs = 0, copies = 0;
};

TEST_F(Migrate, FileToTheRunsBackendAndBackCopiesEveryRow) {
  const std::string orig = dir.file("orig.db");
  fill(*acct::Store::open(orig));
  const std::string mid = mfprio::test::store_location(dir, "mid.db");
  check_copy(orig, mid);
  // And back from there into a new file (the copy's own later writes included).
  check_copy(mid, dir.file("back.db"));
}

TEST_F(Migrate, ANonEmptyTargetIsRefusedAndLeftAsItWas) {
  const std::string src = mfprio::test::store_location(dir, "src.db");
  fill(*acct::Store::open(src));
  const std::string dst = mfprio::test::store_location(dir, "dst.db");
  acct::AdminChanges one;
  one.accounts = {account("other", "root", 1)};
  acct::Store::open(dst)->apply_admin(one);
  const std::string before = everything(dst);
  const ProcessResult r = mfprio::test::run_acct({"--db", src, "migrate", "--to", dst});
  EXPECT_EQ(r.status, 1);
  EXPECT_TRUE(mfprio::test::has(r.err, "not an empty store (it holds 1 accounts)")) << r.err;
  EXPECT_EQ(everything(dst), before);
  // Usage errors: no --to, or the store itself.
  EXPECT_EQ(mfprio::test::run_acct({"--db", src, "migrate"}).status, 2);
  EXPECT_EQ(mfprio::test::run_acct({"--db", src, "migrate", "--to", src}).status, 2);
}

TEST_F(Migrate, AFailedCopyIntoANewFileLeavesNoFile) {
  const std::string src = dir.file("src.db");
  fill(*acct::Store::open(src));
  // A directory that does not exist: the target cannot be made.
  const std::string dst = dir.file("nodir/dst.db");
  const ProcessResult r = mfprio::test::run_acct({"--db", src, "migrate", "--to", dst});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(mfprio::test::has(r.err, "nodir/dst.db")) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dst));
}

}  // namespace
