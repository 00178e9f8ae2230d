// test_concurrency.cpp - the family contract for threads, run over every
// family's .so (real dlopen, a real SQLite store): readers pricing, reading
// the factors, the share table and the stats on two threads while the
// control thread runs decay passes that charge a running job, a job end and
// an admin edit made through the store by another handle.  A reader may
// only ever see what some whole published snapshot answers, and the
// snapshot number never goes back.  Built plain, with ASan+UBSan, and run
// under TSan (./dev test's stage 3), so a data race in any family's publish
// fails the suite.
#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../families/multifactor/harness.hpp"
#include "families.hpp"

namespace mfprio::test {
namespace {

// Two accounts with one user each, both with usage measured at T0.
void write_store(const std::string& db, uint32_t v_shares) {
  acct::AdminChanges ch;
  for (const char* a : {"a", "c"}) {
    acct::AccountRec r;
    r.name = a;
    r.parent = "root";
    r.shares = 1;
    ch.accounts.push_back(r);
  }
  for (auto [user, account, shares] : {std::tuple{"u", "a", 1u}, std::tuple{"v", "c", v_shares}}) {
    acct::AssocWrite w;
    w.rec.user = user;
    w.rec.account = account;
    w.rec.shares = shares;
    w.rec.raw_usage = 1000;
    w.rec.usage_time = T0;
    w.set_usage = true;
    ch.assocs.push_back(w);
    ch.users.push_back(acct::UserRec{user, account, false});
  }
  acct::Store::open(db, acct::OpenOptions{})->apply_admin(ch);
}

class Contract : public ::testing::TestWithParam<Family> {
 protected:
  TempDir dir_;
};

TEST_P(Contract, ReadersDuringPassesSeeOnlyWholeSnapshots) {
  const Family& fam = GetParam();
  const std::string db = store_location(dir_, "acct.db");
  write_store(db, 1);
  Plugin p(plugin_path(fam.so));
  std::vector<std::string> conf = fam.conf;
  conf.push_back("AccountingStorageLoc=" + db);
  ASSERT_EQ(p.init(conf, T0), MFPRIO_OK) << p.err();

  mfprio_job_t ju = job(1, "u", "a"), jv = job(2, "v", "c");
  ju.submit_time = ju.eligible_time = jv.submit_time = jv.eligible_time = T0;
  mfprio_job_t running = job(3, "u", "a");
  running.state = MFPRIO_JOB_RUNNING;
  running.start_time = T0;
  running.submit_time = running.eligible_time = T0;
  running.cpus = 64;
  mfprio_job_t ended = job(4, "v", "c");
  ended.state = MFPRIO_JOB_COMPLETED;
  ended.start_time = ended.submit_time = ended.eligible_time = T0;
  ended.cpus = 8;

  // The pair of priorities (u's job, v's job) under the snapshot in force.
  auto pair_now = [&](std::string* err) -> std::pair<uint32_t, uint32_t> {
    mfprio_job_t two[2] = {ju, jv};
    uint32_t pr[2] = {0, 0};
    int st[2] = {0, 0};
    const int rc = fam.whole_queue && p.ops.prioritize
                       ? p.ops.prioritize(two, 2, nullptr, 0, T0, pr, st)
                       : p.ops.set_priority_batch(two, 2, T0, pr, st);
    if (rc != MFPRIO_OK && err->empty()) *err = p.err();
    return {pr[0], pr[1]};
  };
  std::string main_err;
  std::set<std::pair<uint32_t, uint32_t>> published{pair_now(&main_err)};

  std::atomic<bool> stop{false};
  std::vector<std::set<std::pair<uint32_t, uint32_t>>> seen(2);
  std::vector<std::string> reader_err(2);
  std::vector<int> generation_back(2, 0);
  std::vector<std::thread> readers;
  for (int r = 0; r < 2; ++r)
    readers.emplace_back([&, r] {
      uint32_t last_gen = 0;
      while (!stop.load()) {
        seen[r].insert(pair_now(&reader_err[r]));
        if (p.ops.job_factors_json) {
          char* json = nullptr;
          if (p.ops.job_factors_json(&ju, T0, &json) == MFPRIO_OK) p.ops.free_string(json);
        }
        if (p.ops.share_table) {
          mfprio_share_table_t* t = nullptr;
          if (p.ops.share_table(&t) == MFPRIO_OK) p.ops.share_table_free(t);
        }
        if (p.ops.plugin_stats) {
          mfprio_stats_t s{};
          s.struct_size = sizeof s;
          if (p.ops.plugin_stats(&s) == MFPRIO_OK) {
            if (s.generation < last_gen) ++generation_back[r];
            last_gen = s.generation;
          }
        }
      }
    });

  for (int i = 1; i <= 30; ++i) {
    const int64_t now = T0 + 120 * i;
    p.set_clock(now);  // the host's clock moves with its passes (a job end is charged up to it)
    if (i == 10) write_store(db, 9);  // an admin edit between passes: v's shares 1 -> 9
    if (i == 20 && p.ops.job_end) {
      EXPECT_EQ(p.ops.job_end(&ended, now), MFPRIO_OK) << p.err();
      published.insert(pair_now(&main_err));
    }
    ASSERT_EQ(p.ops.decay(now, &running, 1), MFPRIO_OK) << "pass " << i << ": " << p.err();
    published.insert(pair_now(&main_err));
  }
  stop = true;
  for (auto& t : readers) t.join();

  EXPECT_EQ(main_err, "");
  for (int r = 0; r < 2; ++r) {
    EXPECT_EQ(reader_err[r], "") << "reader " << r;
    EXPECT_EQ(generation_back[r], 0) << "reader " << r << " saw the snapshot number go back";
    for (const auto& pr : seen[r])
      EXPECT_TRUE(published.count(pr)) << "reader " << r << " saw (" << pr.first << ", " << pr.second
                                       << "), which no published snapshot gives";
  }
  if (fam.charges) EXPECT_GT(published.size(), 2u) << "charged usage never moved the priorities";
}

INSTANTIATE_TEST_SUITE_P(EveryFamily, Contract, ::testing::ValuesIn(families()), family_name);

}  // namespace
}  // namespace mfprio::test
