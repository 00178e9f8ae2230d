// test_usage.cpp - the family contract for the usage pass, run over every
// family's .so (real dlopen, a real SQLite store).
//
// Pinned for every family (basic, multifactor, maui, moab, gridengine,
// flux), whatever its usage model:
//   - job_end charges a job once: a repeated end, or an end already covered
//     by a pass, leaves the store as it was;
//   - a decay `now` before the last pass, or past PriorityMaxDecayGap after
//     it (and a job end that far ahead), is refused and changes nothing;
//   - plugin_stats: the snapshot number goes +1 per publish (a pass, an
//     admin's edit read by a pass: never +2, never back), last_decay is the
//     pass time, jobs_charged counts the charges;
//   - an admin edit between passes: a handle resolved before it prices
//     exactly as the job by name, and resolving again gives the new layout;
//   - an association deleted while its job runs: that job is not charged,
//     one warning names it, the other charges of the pass go ahead (the
//     families that charge store associations; Maui and Grid Engine charge
//     credentials by name, which nothing deletes: every charge goes ahead);
//   - a store failure at any point of a pass (tests/acct's fault VFS fails
//     the Nth write, sync, read or lock, before or after the commit): the
//     pass is refused or done, never done twice, the retry goes on, the
//     store ends where an uninterrupted run ends and the plugin agrees with
//     a fresh load of it.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "../acct/fault_vfs.hpp"
#include "../families/multifactor/harness.hpp"
#include "families.hpp"

namespace mfprio::test {
namespace {

// Accounts a and c, user u in a and v in c, both with usage measured at T0.
void write_store(const std::string& db) {
  acct::AdminChanges ch;
  for (const char* a : {"a", "c"}) {
    acct::AccountRec r;
    r.name = a;
    r.parent = "root";
    r.shares = 1;
    ch.accounts.push_back(r);
  }
  for (auto [user, account] : {std::pair{"u", "a"}, std::pair{"v", "c"}}) {
    acct::AssocWrite w;
    w.rec.user = user;
    w.rec.account = account;
    w.rec.shares = 1;
    w.rec.raw_usage = 1000;
    w.rec.usage_time = T0;
    w.set_usage = true;
    ch.assocs.push_back(w);
    ch.users.push_back(acct::UserRec{user, account, false});
  }
  acct::Store::open(db, acct::OpenOptions{})->apply_admin(ch);
}

// An admin's edit through another handle: a new account d with user w.
void add_association(const std::string& db) {
  acct::AdminChanges ch;
  acct::AccountRec r;
  r.name = "d";
  r.parent = "root";
  r.shares = 1;
  ch.accounts.push_back(r);
  acct::AssocWrite w;
  w.rec.user = "w";
  w.rec.account = "d";
  w.rec.shares = 1;
  ch.assocs.push_back(w);
  ch.users.push_back(acct::UserRec{"w", "d", false});
  acct::Store::open(db, acct::OpenOptions{})->apply_admin(ch);
}

void delete_association(const std::string& db, const std::string& user, const std::string& account) {
  acct::AdminChanges ch;
  ch.delete_users.push_back(user);
  (void)account;
  acct::Store::open(db, acct::OpenOptions{})->apply_admin(ch);
}

// Everything a pass may write: each association's usage, every windowed
// row of every family, and the pass times; numbers to 12 digits.
struct Fingerprint {
  std::map<std::string, double> usage;
  int64_t last_decay = 0, last_reset = 0;
};
Fingerprint fingerprint(const std::string& db) {
  Fingerprint f;
  auto st = acct::Store::open(db, acct::OpenOptions{true, false});
  const acct::StoreData d = st->load(acct::LoadOptions{});
  for (const acct::UserAssocRec& a : d.assocs) f.usage["assoc " + a.user + "/" + a.account] = a.raw_usage;
  for (const char* fam : {"maui", "flux", "gridengine"})
    for (const acct::WindowRow& r : st->load_windows(fam))
      f.usage[std::string(fam) + " " + r.kind + " " + r.name + " @" + std::to_string(r.start) + "+" +
              std::to_string(r.seconds)] += r.usage;
  f.last_decay = d.decay.last_decay;
  f.last_reset = d.decay.last_reset;
  return f;
}
// Usage whose key names `who` (an association "u/a", a credential "u").
double usage_of(const Fingerprint& f, const std::string& who) {
  double sum = 0;
  for (const auto& [k, v] : f.usage) {
    const std::string tail = k.substr(k.find(' ') + 1);
    if (k.rfind("assoc " + who, 0) == 0 || tail.find(" " + who + " ") != std::string::npos ||
        tail.find(" " + who + "/") != std::string::npos)
      sum += v;
  }
  return sum;
}
void expect_same(const Fingerprint& a, const Fingerprint& b, const std::string& what) {
  EXPECT_EQ(a.last_decay, b.last_decay) << what;
  EXPECT_EQ(a.last_reset, b.last_reset) << what;
  ASSERT_EQ(a.usage.size(), b.usage.size()) << what;
  for (auto i = a.usage.begin(), j = b.usage.begin(); i != a.usage.end(); ++i, ++j) {
    EXPECT_EQ(i->first, j->first) << what;
    EXPECT_NEAR(i->second, j->second, 1e-9 * std::max(1.0, std::fabs(i->second))) << what << ": " << i->first;
  }
}

mfprio_stats_t stats(Plugin& p) {
  mfprio_stats_t s{};
  s.struct_size = sizeof s;
  EXPECT_EQ(p.ops.plugin_stats(&s), MFPRIO_OK) << p.err();
  return s;
}

mfprio_job_t running_job(uint64_t id, const char* user, const char* account, int64_t start, uint32_t cpus) {
  mfprio_job_t j = job(id, user, account);
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = j.submit_time = j.eligible_time = start;
  j.cpus = cpus;
  j.mem_mb = 1024;
  j.min_nodes = 1;
  return j;
}

class Usage : public ::testing::TestWithParam<Family> {
 protected:
  void SetUp() override { write_store(db_); }
  // A plugin of this family on db_ (the caller owns it; init asserted).
  std::unique_ptr<Plugin> open(int64_t now = T0) {
    auto p = std::make_unique<Plugin>(plugin_path(GetParam().so));
    std::vector<std::string> conf = GetParam().conf;
    conf.push_back("AccountingStorageLoc=" + db_);
    EXPECT_EQ(p->init(conf, now), MFPRIO_OK) << p->err();
    return p;
  }
  // The priorities of u's and v's pending jobs (by name) under the plugin's state.
  std::vector<uint32_t> priorities(Plugin& p, int64_t now) {
    mfprio_job_t two[2] = {job(11, "u", "a"), job(12, "v", "c")};
    for (auto& j : two) j.submit_time = j.eligible_time = T0;
    uint32_t pr[2] = {0, 0};
    int st[2] = {0, 0};
    const int rc = GetParam().whole_queue ? p.ops.prioritize(two, 2, nullptr, 0, now, pr, st)
                                          : p.ops.set_priority_batch(two, 2, now, pr, st);
    EXPECT_EQ(rc, MFPRIO_OK) << p.err();
    return {pr[0], pr[1]};
  }

  TempDir dir_;
  std::string db_ = store_location(dir_, "acct.db");
};

TEST_P(Usage, JobEndChargesOnce) {
  auto p = open();
  mfprio_job_t r = running_job(3, "u", "a", T0, 8);
  ASSERT_EQ(p->ops.decay(T0, &r, 1), MFPRIO_OK) << p->err();
  p->set_clock(T0 + 900);
  ASSERT_EQ(p->ops.decay(T0 + 600, &r, 1), MFPRIO_OK) << p->err();
  const Fingerprint before = fingerprint(db_);
  r.state = MFPRIO_JOB_COMPLETED;
  ASSERT_EQ(p->ops.job_end(&r, T0 + 900), MFPRIO_OK) << p->err();
  const Fingerprint once = fingerprint(db_);
  if (GetParam().charges) {
    EXPECT_GT(usage_of(once, "u"), usage_of(before, "u")) << "the tail was not charged";
  }
  const uint64_t charged = stats(*p).jobs_charged;
  // Again, and once more as a batch with an end the first already covered.
  ASSERT_EQ(p->ops.job_end(&r, T0 + 900), MFPRIO_OK) << p->err();
  int64_t ends[1] = {T0 + 700};
  ASSERT_EQ(p->ops.job_end_batch(&r, 1, ends), MFPRIO_OK) << p->err();
  expect_same(once, fingerprint(db_), "a repeated job end");
  EXPECT_GE(stats(*p).jobs_charged, charged);
}

TEST_P(Usage, ClockGoingBackwardsIsRefusedAndChangesNothing) {
  auto p = open();
  mfprio_job_t r = running_job(3, "u", "a", T0, 8);
  ASSERT_EQ(p->ops.decay(T0 + kHour, &r, 1), MFPRIO_OK) << p->err();
  const Fingerprint before = fingerprint(db_);
  const mfprio_stats_t s0 = stats(*p);
  const std::vector<uint32_t> pr0 = priorities(*p, T0 + kHour);
  EXPECT_EQ(p->ops.decay(T0 + kHour / 2, &r, 1), MFPRIO_EINVAL);
  EXPECT_NE(p->err().find("before the last decay pass"), std::string::npos) << p->err();
  expect_same(before, fingerprint(db_), "a pass dated before the last");
  const mfprio_stats_t s1 = stats(*p);
  EXPECT_EQ(s1.generation, s0.generation);
  EXPECT_EQ(s1.last_decay, T0 + kHour);
  EXPECT_EQ(s1.jobs_charged, s0.jobs_charged);
  EXPECT_EQ(priorities(*p, T0 + kHour), pr0);
  // The right clock goes on.
  EXPECT_EQ(p->ops.decay(T0 + 2 * kHour, &r, 1), MFPRIO_OK) << p->err();
  EXPECT_EQ(stats(*p).last_decay, T0 + 2 * kHour);
}

TEST_P(Usage, DecayGapBoundRefusesAFarClockAndChangesNothing) {
  auto p = open();
  mfprio_job_t r = running_job(3, "u", "a", T0, 8);
  ASSERT_EQ(p->ops.decay(T0, &r, 1), MFPRIO_OK) << p->err();
  const Fingerprint before = fingerprint(db_);
  const mfprio_stats_t s0 = stats(*p);
  const int64_t far = T0 + 400 * 86400;  // past the default bound, 366 days
  EXPECT_EQ(p->ops.decay(far, &r, 1), MFPRIO_EINVAL);
  EXPECT_NE(p->err().find("PriorityMaxDecayGap"), std::string::npos) << p->err();
  r.state = MFPRIO_JOB_COMPLETED;
  EXPECT_EQ(p->ops.job_end(&r, far), MFPRIO_EINVAL);
  EXPECT_NE(p->err().find("job 3"), std::string::npos) << p->err();
  expect_same(before, fingerprint(db_), "a clock 400 days ahead");
  EXPECT_EQ(stats(*p).generation, s0.generation);
  EXPECT_EQ(stats(*p).last_decay, T0);
  r.state = MFPRIO_JOB_RUNNING;
  EXPECT_EQ(p->ops.decay(T0 + kHour, &r, 1), MFPRIO_OK) << p->err();
}

TEST_P(Usage, StatsGenerationGoesUpOnePerPublish) {
  auto p = open();
  mfprio_job_t r = running_job(3, "u", "a", T0, 8);
  mfprio_stats_t s = stats(*p);
  uint32_t gen = s.generation;
  EXPECT_EQ(s.jobs_charged, 0u);
  for (int i = 0; i < 6; ++i) {
    const int64_t now = T0 + 600 * i;
    p->set_clock(now);
    if (i == 3) add_association(db_);  // read by this pass: one publish, not two
    ASSERT_EQ(p->ops.decay(now, &r, 1), MFPRIO_OK) << "pass " << i << ": " << p->err();
    s = stats(*p);
    EXPECT_EQ(s.generation, gen + 1) << "pass " << i;
    EXPECT_EQ(s.last_decay, now) << "pass " << i;
    gen = s.generation;
    if (i == 3 && GetParam().charges_assocs) {
      EXPECT_EQ(s.associations, 3u) << "the edit was not read";
    }
  }
  if (GetParam().charges) {
    EXPECT_GE(s.jobs_charged, 6u);
  }
  // A job end publishes at most once.
  r.state = MFPRIO_JOB_COMPLETED;
  ASSERT_EQ(p->ops.job_end(&r, T0 + 3100), MFPRIO_OK) << p->err();
  EXPECT_LE(stats(*p).generation, gen + 1);
  EXPECT_GE(stats(*p).generation, gen);
  // A refused call publishes nothing.
  gen = stats(*p).generation;
  EXPECT_NE(p->ops.decay(T0, &r, 1), MFPRIO_OK);
  EXPECT_EQ(stats(*p).generation, gen);
}

TEST_P(Usage, AdminEditBetweenPassesHandlesGoStaleAndResolveAgain) {
  auto p = open();
  mfprio_job_t r = running_job(3, "u", "a", T0, 8);
  ASSERT_EQ(p->ops.decay(T0, &r, 1), MFPRIO_OK) << p->err();
  mfprio_job_t ju = job(11, "u", "a");
  ju.submit_time = ju.eligible_time = T0;
  ASSERT_EQ(p->ops.job_resolve(&ju), MFPRIO_OK) << p->err();
  const mfprio_handle_t old = ju.handle;
  add_association(db_);
  ASSERT_EQ(p->ops.decay(T0 + 600, &r, 1), MFPRIO_OK) << p->err();
  mfprio_job_t by_name = ju;
  by_name.handle = mfprio_handle_t{};
  uint32_t p_old = 0, p_name = 0, p_batch = 0;
  int st = -100;
  EXPECT_EQ(p->ops.set_priority(&ju, T0 + 600, &p_old), MFPRIO_OK) << p->err();
  EXPECT_EQ(p->ops.set_priority(&by_name, T0 + 600, &p_name), MFPRIO_OK) << p->err();
  EXPECT_EQ(p->ops.set_priority_batch(&ju, 1, T0 + 600, &p_batch, &st), MFPRIO_OK) << p->err();
  EXPECT_EQ(st, MFPRIO_OK);
  EXPECT_EQ(p_old, p_name) << "an old handle priced otherwise than the names";
  EXPECT_EQ(p_batch, p_name);
  ASSERT_EQ(p->ops.job_resolve(&ju), MFPRIO_OK) << p->err();
  if (old.generation != 0 && GetParam().layout_follows_store) {
    EXPECT_NE(ju.handle.generation, old.generation) << "the new association did not make a new layout";
  }
  uint32_t p_new = 0;
  EXPECT_EQ(p->ops.set_priority(&ju, T0 + 600, &p_new), MFPRIO_OK) << p->err();
  EXPECT_EQ(p_new, p_name);
  // The new user is known to the families whose hierarchy is the store's.
  mfprio_job_t jw = job(13, "w", "d");
  jw.submit_time = jw.eligible_time = T0;
  if (GetParam().layout_follows_store) {
    EXPECT_EQ(p->ops.job_resolve(&jw), MFPRIO_OK) << p->err();
    uint32_t pw = 0;
    EXPECT_EQ(p->ops.set_priority(&jw, T0 + 600, &pw), MFPRIO_OK) << p->err();
  }
}

TEST_P(Usage, AssociationDeletedWhileItsJobRunsIsNotChargedOthersAre) {
  auto p = open();
  mfprio_job_t run[2] = {running_job(3, "u", "a", T0, 8), running_job(4, "v", "c", T0, 8)};
  ASSERT_EQ(p->ops.decay(T0, run, 2), MFPRIO_OK) << p->err();
  p->set_clock(T0 + 600);
  ASSERT_EQ(p->ops.decay(T0 + 600, run, 2), MFPRIO_OK) << p->err();
  delete_association(db_, "u", "a");
  const Fingerprint before = fingerprint(db_);
  const size_t logs = p->logs.size();
  p->set_clock(T0 + 1200);
  ASSERT_EQ(p->ops.decay(T0 + 1200, run, 2), MFPRIO_OK) << p->err();
  const Fingerprint after = fingerprint(db_);
  auto warnings_naming = [&](size_t from, const std::string& what) {
    int n = 0;
    for (size_t i = from; i < p->logs.size(); ++i)
      if (p->logs[i].find(what) != std::string::npos &&
          p->logs[i].rfind(std::to_string(MFPRIO_LOG_WARNING) + " ", 0) == 0)
        ++n;
    return n;
  };
  if (GetParam().charges) {
    EXPECT_GT(usage_of(after, "v"), usage_of(before, "v") * 0.999) << "the other job's charge did not go ahead";
  }
  if (GetParam().charges_assocs) {
    EXPECT_LE(usage_of(after, "u"), usage_of(before, "u") * (1 + 1e-12)) << "the vanished association was charged";
    EXPECT_EQ(warnings_naming(logs, "job 3"), 1) << "one warning names the job";
    EXPECT_EQ(warnings_naming(logs, "job 4"), 0);
    // Its end too: not charged, one warning, the batch's other end charged.
    const size_t logs2 = p->logs.size();
    const Fingerprint mid = fingerprint(db_);
    run[0].state = run[1].state = MFPRIO_JOB_COMPLETED;
    p->set_clock(T0 + 1500);
    int64_t ends[2] = {T0 + 1500, T0 + 1500};
    ASSERT_EQ(p->ops.job_end_batch(run, 2, ends), MFPRIO_OK) << p->err();
    const Fingerprint end = fingerprint(db_);
    EXPECT_LE(usage_of(end, "u"), usage_of(mid, "u") * (1 + 1e-12));
    EXPECT_GT(usage_of(end, "v"), usage_of(mid, "v"));
    EXPECT_EQ(warnings_naming(logs2, "job 3"), 1);
  } else {
    EXPECT_EQ(warnings_naming(logs, "job 3"), 0) << "a credential charged by name never vanishes";
    if (GetParam().charges) {
      EXPECT_GT(usage_of(after, "u"), usage_of(before, "u") * 0.999);
    }
  }
}

// The store fails at each point of a pass in turn.  Whatever the point, the
// pass is refused (then the retry at the same time runs it) or done; the
// store ends exactly where a run without faults ends, and the plugin agrees
// with a fresh load of the store.
TEST_P(Usage, StoreFailureAtAnyPointOfAPassIsNeverAppliedTwiceAndConverges) {
  namespace fv = acct::fault_vfs;
  fv::install();  // the process's default VFS: the plugin's store opens through it
  const mfprio_job_t run[2] = {running_job(3, "u", "a", T0, 8), running_job(4, "v", "c", T0, 2)};
  std::vector<int64_t> times;
  int refused = 0, after_commit = 0;
  {
    auto p = open();
    ASSERT_EQ(p->ops.decay(T0, run, 2), MFPRIO_OK) << p->err();
    int64_t t = T0;
    const int codes[] = {SQLITE_IOERR, SQLITE_FULL, SQLITE_BUSY};
    for (fv::Op op : {fv::Op::Write, fv::Op::Sync, fv::Op::Read, fv::Op::Lock, fv::Op::ShmLock}) {
      for (uint64_t n = 1; n < 400; ++n) {
        t += 60;
        p->set_clock(t);
        const int64_t store_pass = fingerprint(db_).last_decay;
        fv::arm(op, n, codes[n % 3]);
        const int rc = p->ops.decay(t, run, 2);
        const bool fired = fv::fired();
        fv::disarm();
        const std::string label = std::string(fv::op_name(op)) + " #" + std::to_string(n);
        if (!GetParam().charges) {
          ASSERT_EQ(rc, MFPRIO_OK) << label << ": " << p->err();  // no store, nothing to fail
        } else if (rc != MFPRIO_OK) {
          ++refused;
          if (fingerprint(db_).last_decay == t) {
            ++after_commit;  // the store had committed
          } else {
            ASSERT_EQ(fingerprint(db_).last_decay, store_pass) << label;
          }
          ASSERT_EQ(p->ops.decay(t, run, 2), MFPRIO_OK) << label << " / retry: " << p->err();
        }
        if (GetParam().charges) {
          ASSERT_EQ(fingerprint(db_).last_decay, t) << label;
        }
        ASSERT_EQ(stats(*p).last_decay, t) << label;
        times.push_back(t);
        if (!fired) break;
      }
    }
    if (GetParam().charges) {
      EXPECT_GT(refused, 0);
    }
    const std::vector<uint32_t> mine = priorities(*p, t);
    p.reset();
    // A fresh load of the same store prices as the plugin that ran the passes.
    auto fresh = open(t);
    EXPECT_EQ(priorities(*fresh, t), mine) << "the plugin's state differs from the store's";
  }
  if (GetParam().rereads) {
    EXPECT_GT(after_commit, 0) << "no fault came after the commit";
  }
  // An uninterrupted run of the same passes reaches the same store.
  const std::string ref = store_location(dir_, "ref.db");
  write_store(ref);
  {
    auto p = std::make_unique<Plugin>(plugin_path(GetParam().so));
    std::vector<std::string> conf = GetParam().conf;
    conf.push_back("AccountingStorageLoc=" + ref);
    ASSERT_EQ(p->init(conf, T0), MFPRIO_OK) << p->err();
    ASSERT_EQ(p->ops.decay(T0, run, 2), MFPRIO_OK) << p->err();
    for (int64_t t : times) {
      p->set_clock(t);
      ASSERT_EQ(p->ops.decay(t, run, 2), MFPRIO_OK) << p->err();
    }
  }
  expect_same(fingerprint(ref), fingerprint(db_), "faulty run vs clean run");
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, Usage, ::testing::ValuesIn(families()), family_name);

}  // namespace
}  // namespace mfprio::test
