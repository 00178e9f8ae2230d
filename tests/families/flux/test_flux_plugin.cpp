// test_flux_plugin.cpp - priority_flux.so through the C ABI: real dlopen,
// a real SQLite store written with the acct API (and import-flux's CSV
// path), usage in half-life bins charged by decay and job_end.
#include <gtest/gtest.h>
#include <sys/resource.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "../multifactor/harness.hpp"
#include "record_faults.hpp"
#include "import_flux.hpp"

namespace mfprio::test {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t T0 = 1'700'000'000 - (1'700'000'000 % kHour);  // a half-life boundary
// One-hour bins, four of them: short enough to step through in a test.
const std::string kBins = "decay_half_life=1:00:00,reset_period=4:00:00";

// Store contents for the flux family: banks, (user, bank) associations with
// shares, queues and seeded usage, queues, QOS.
struct FluxStore {
  acct::AdminChanges ch;
  FluxStore& bank(const std::string& name, const std::string& parent, uint32_t shares, uint32_t priority = 0) {
    acct::AccountRec a;
    a.name = name;
    a.parent = parent;
    a.shares = shares;
    a.priority = priority;
    ch.accounts.push_back(a);
    return *this;
  }
  FluxStore& user(const std::string& name, const std::string& bank, uint32_t shares, double usage = 0,
                  std::vector<std::string> queues = {}, int64_t usage_time = T0) {
    acct::AssocWrite w;
    w.rec.user = name;
    w.rec.account = bank;
    w.rec.shares = shares;
    w.rec.raw_usage = usage;
    w.rec.usage_time = usage > 0 ? usage_time : 0;
    w.rec.queues = std::move(queues);
    w.set_usage = true;
    w.set_queues = true;
    ch.assocs.push_back(w);
    return *this;
  }
  FluxStore& queue(const std::string& name, int64_t priority) {
    ch.queues.push_back(acct::QueueRec{name, priority});
    return *this;
  }
  FluxStore& qos(const std::string& name, uint32_t priority) {
    acct::QosRec q;
    q.name = name;
    q.priority = priority;
    ch.qos.push_back(q);
    return *this;
  }
  void write(const std::string& path) {
    auto st = acct::Store::open(path, acct::OpenOptions{});
    // Users get their first association's bank as the default.
    std::map<std::string, std::string> firsts;
    for (const auto& w : ch.assocs) firsts.emplace(w.rec.user, w.rec.account);
    for (const auto& [u, b] : firsts) ch.users.push_back(acct::UserRec{u, b, false});
    st->apply_admin(ch);
  }
};

class FluxPlugin : public ::testing::Test {
 protected:
  std::string db() const { return store_location(dir_, "acct.db"); }
  int start(const std::string& params, int64_t now = T0, bool with_store = true) {
    p_ = std::make_unique<Plugin>(plugin_path("priority_flux.so"));
    std::vector<std::string> conf;
    if (!params.empty()) conf.push_back("PriorityParameters=" + params);
    if (with_store) conf.push_back("AccountingStorageLoc=" + db());
    return p_->init(conf, now);
  }
  uint32_t prio(const mfprio_job_t& j, int64_t now = T0) { return p_->priority(j, now); }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now = T0) { return p_->factors(j, now); }
  const mfprio_term_t* term(const mfprio_factors_t& f, const std::string& name) {
    for (uint32_t i = 0; i < f.term_count; ++i)
      if (name == f.terms[i].name) return &f.terms[i];
    return nullptr;
  }
  // A share-table cell of a user row (user, bank) or a bank row (user ""), by column name.
  double share(const std::string& user, const std::string& bank, const std::string& column) {
    mfprio_share_table_t* t = nullptr;
    EXPECT_EQ(p_->ops.share_table(&t), MFPRIO_OK) << p_->err();
    double v = NAN;
    for (size_t r = 0; t && r < t->row_count; ++r) {
      const mfprio_share_row_t& row = t->rows[r];
      const std::string ru = row.user ? row.user : "";
      if (ru != user || bank != row.account) continue;
      for (uint32_t c = 0; c < t->column_count; ++c)
        if (column == t->columns[c].name) v = row.cells[c].text ? NAN : row.cells[c].value;
    }
    if (t) p_->ops.share_table_free(t);
    return v;
  }
  std::string json_of(int (*fn)(char**)) {
    char* s = nullptr;
    EXPECT_EQ(fn(&s), MFPRIO_OK) << p_->err();
    std::string out = s ? s : "";
    if (s) p_->ops.free_string(s);
    return out;
  }

  TempDir dir_;
  std::unique_ptr<Plugin> p_;
};

mfprio_job_t with_urgency(mfprio_job_t j, uint8_t u) {
  j.flags |= MFPRIO_JOBF_URGENCY;
  j.urgency = u;
  return j;
}

mfprio_job_t running(uint64_t id, const char* user, int64_t start, uint32_t nodes) {
  mfprio_job_t j = job(id, user);
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = start;
  j.min_nodes = nodes;
  return j;
}

// The process's peak resident size so far, in bytes.
int64_t peak_rss() {
  struct rusage ru {};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<int64_t>(ru.ru_maxrss) * 1024;
}

TEST_F(FluxPlugin, UsageBinsAreKeptSparseWithTheMostBinsAllowed) {
  // 100,000 one-hour bins and 400 associations with usage: a dense vector
  // of bins each was 320 MB at every load (2.4 GB at 3,000 associations).
  FluxStore s;
  s.bank("A", "root", 1);
  for (int i = 0; i < 400; ++i) s.user("u" + std::to_string(i), "A", 1, 1000.0 + i);
  s.write(db());
  const int64_t before = peak_rss();
  ASSERT_EQ(start("decay_half_life=1:00:00,reset_period=4166-16:00:00"), MFPRIO_OK) << p_->err();
  EXPECT_LT(peak_rss() - before, 100ll << 20);
  // The usage read is the imported usage (all in the current bin, weight 1).
  EXPECT_NEAR(share("u7", "A", "usage"), 1007.0, 1e-9);
}

TEST_F(FluxPlugin, DefaultWeightsAreFluxAccountingsAndALoneUserHasFairShareOne) {
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  const std::string info = json_of(p_->ops.plugin_info_json);
  for (const char* w : {"\"fairshare\":100000.0", "\"queue\":10000.0", "\"bank\":0.0", "\"urgency\":1000.0"})
    EXPECT_NE(info.find(w), std::string::npos) << w << " in " << info;
  EXPECT_NE(info.find("\"mode\":\"accounting\""), std::string::npos) << info;
  // 100000 x fair share 1 (rank 1 of 1) + 0 (no queue) + 0 x bank + 1000 x (16 - 16).
  EXPECT_EQ(prio(job(1, "alice")), 100000u);
  const mfprio_factors_t f = factors(job(1, "alice"));
  ASSERT_EQ(f.term_count, 4u);
  const char* names[] = {"fairshare", "queue", "bank", "urgency"};
  const char* labels[] = {"FAIRSHARE", "QUEUE", "BANK", "URGENCY"};
  for (int i = 0; i < 4; ++i) {
    EXPECT_STREQ(f.terms[i].name, names[i]);
    EXPECT_STREQ(f.terms[i].label, labels[i]);
  }
  EXPECT_DOUBLE_EQ(f.terms[0].factor, 1.0);
  EXPECT_DOUBLE_EQ(f.terms[0].weight, 100000.0);
  EXPECT_DOUBLE_EQ(f.terms[0].contribution, 100000.0);
  EXPECT_TRUE(f.terms[2].flags & MFPRIO_TERMF_ZERO_WEIGHT);  // bank weight 0
  EXPECT_STREQ(f.account_name, "A");
}

TEST_F(FluxPlugin, UrgencyZeroHoldsAndThirtyOneExpedites) {
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(with_urgency(job(1, "alice"), 0)), 0u);
  EXPECT_EQ(prio(with_urgency(job(1, "alice"), 31)), 4294967295u);
  EXPECT_EQ(prio(with_urgency(job(1, "alice"), 20)), 104000u);  // + 1000 x (20 - 16)
  EXPECT_EQ(prio(with_urgency(job(1, "alice"), 16)), 100000u);
  mfprio_job_t held = job(2, "alice");
  held.state = MFPRIO_JOB_HELD;
  EXPECT_EQ(prio(held), 0u);
  // Urgency 1: 100000 - 15000.
  EXPECT_EQ(prio(with_urgency(job(1, "alice"), 1)), 85000u);
}

TEST_F(FluxPlugin, HalvesRoundAwayFromZero) {
  // alice (no usage) ranks 2 of 2 = 1.0; bob (usage) 1 of 2 = 0.5.
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).user("bob", "A", 1, 100).write(db());
  ASSERT_EQ(start("fairshare=5,queue=0,urgency=0," + kBins), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(job(1, "bob")), 3u);  // 2.5 -> 3
  EXPECT_EQ(prio(job(1, "alice")), 5u);
  p_.reset();
  ASSERT_EQ(start("fairshare=3,queue=0,urgency=0," + kBins), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(job(1, "bob")), 2u);  // 1.5 -> 2
  p_.reset();
  ASSERT_EQ(start("fairshare=1,queue=0,urgency=0," + kBins), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(job(1, "bob")), 1u);  // 0.5 -> 1
  const mfprio_factors_t f = factors(job(1, "bob"));
  EXPECT_DOUBLE_EQ(f.unclamped, 0.5);
}

TEST_F(FluxPlugin, TiedUsersShareARankAndTiedBanksAreMerged) {
  // Bank T: two users with the same shares and usage tie.  Banks C and D
  // have equal weights (1/3 : 10/30 and 2/3 : 20/30), so they merge and
  // their users compete directly: u2 (weight 2), u1 (1), u3 (2/3).
  FluxStore()
      .bank("C", "root", 1).bank("D", "root", 2)
      .user("u1", "C", 1, 10).user("u2", "D", 1, 5).user("u3", "D", 1, 15)
      .write(db());
  ASSERT_EQ(start(kBins), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("u2", "D", "fairshare"), 1.0);
  EXPECT_DOUBLE_EQ(share("u1", "C", "fairshare"), 0.666667);
  EXPECT_DOUBLE_EQ(share("u3", "D", "fairshare"), 0.333333);
  EXPECT_GT(prio(job(1, "u2")), prio(job(2, "u1")));
  EXPECT_GT(prio(job(2, "u1")), prio(job(3, "u3")));
  EXPECT_EQ(prio(job(2, "u1")), 66667u);  // 100000 x 0.666667 = 66666.7

  p_.reset();
  TempDir other;
  const std::string db2 = store_location(other, "tie.db");
  FluxStore().bank("T", "root", 1).user("carol", "T", 3, 40).user("dave", "T", 3, 40).user("erin", "T", 3, 80)
      .write(db2);
  p_ = std::make_unique<Plugin>(plugin_path("priority_flux.so"));
  ASSERT_EQ(p_->init({"PriorityParameters=" + kBins, "AccountingStorageLoc=" + db2}, T0), MFPRIO_OK) << p_->err();
  // carol and dave tie at rank 3 of 3; erin drops by the tie's size: 1 of 3.
  EXPECT_EQ(prio(job(1, "carol")), prio(job(2, "dave")));
  EXPECT_EQ(prio(job(1, "carol")), 100000u);
  EXPECT_EQ(prio(job(3, "erin")), 33333u);
}

TEST_F(FluxPlugin, ZeroUsageRanksFirstAndZeroSharesLast) {
  FluxStore().bank("Z", "root", 1).user("none", "Z", 0, 5).user("idle", "Z", 1).user("busy", "Z", 1, 5).write(db());
  ASSERT_EQ(start(kBins), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("idle", "Z", "fairshare"), 1.0);
  EXPECT_DOUBLE_EQ(share("busy", "Z", "fairshare"), 0.666667);
  EXPECT_DOUBLE_EQ(share("none", "Z", "fairshare"), 0.333333);
  EXPECT_EQ(prio(job(1, "none")), 33333u);
}

TEST_F(FluxPlugin, DecayChargesTheCurrentBinAndABinShiftsAfterOneHalfLife) {
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).user("bob", "A", 1).write(db());
  ASSERT_EQ(start(kBins), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 0.0);
  // Two nodes for half an hour: 2 x 1800 node-seconds into bin 0.
  mfprio_job_t r = running(10, "alice", T0, 2);
  ASSERT_EQ(p_->ops.decay(T0 + 1800, &r, 1), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 3600.0);
  EXPECT_DOUBLE_EQ(share("", "A", "usage"), 3600.0);  // the bank sums its users
  EXPECT_DOUBLE_EQ(share("alice", "A", "fairshare"), 0.5);
  EXPECT_DOUBLE_EQ(share("bob", "A", "fairshare"), 1.0);
  // It ends at T0 + 2000: the tail is charged once, whatever is repeated.
  const int64_t end = T0 + 2000;
  p_->set_clock(end);
  ASSERT_EQ(p_->ops.job_end(&r, end), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.job_end(&r, end), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.decay(T0 + 2100, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 4000.0);
  // One half-life later the bin is one step old: weight 0.5.
  ASSERT_EQ(p_->ops.decay(T0 + kHour + 10, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 2000.0);
  ASSERT_EQ(p_->ops.decay(T0 + 3 * kHour + 10, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 500.0);  // 4000 x 0.5^3: the oldest of four bins
  // Past the reset period (four bins) it counts no more.
  ASSERT_EQ(p_->ops.decay(T0 + 4 * kHour + 10, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 0.0);
  // A restart reads the same bins back from the store.
  p_.reset();
  ASSERT_EQ(start(kBins, T0 + 4 * kHour + 20), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 0.0);
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(p_->ops.plugin_stats(&st), MFPRIO_OK);
  EXPECT_EQ(st.last_decay, T0 + 4 * kHour + 10);
}

TEST_F(FluxPlugin, ARunningJobAcrossABinBoundaryIsSplit) {
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start(kBins + ",node_weight=0,core_weight=1,gpu_weight=10"), MFPRIO_OK) << p_->err();
  mfprio_job_t r = running(11, "alice", T0 + kHour - 100, 1);
  r.cpus = 4;
  mfprio_tres_t gpu{"gres/gpu", 1};
  r.tres = &gpu;
  r.tres_count = 1;
  // 14 per second (4 cores + 1 GPU x 10): 100 s in the old bin, 100 s in the new.
  ASSERT_EQ(p_->ops.decay(T0 + kHour + 100, &r, 1), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "A", "usage"), 1400.0 + 1400.0 * 0.5);
}

// Design mode: each factor alone (weight 1000) at 0, 0.5 and 1.
TEST_F(FluxPlugin, DesignFactorsAtZeroHalfAndOne) {
  FluxStore()
      .bank("A", "root", 1)
      .queue("q0", 0).queue("q50", 50).queue("q100", 100)
      .qos("mid", 50).qos("top", 100)
      .user("alice", "A", 2, 0, {"q0", "q50", "q100"})
      .user("bob", "A", 1, 5).user("dave", "A", 1, 15).user("carol", "A", 0)
      .write(db());
  auto run = [&](const std::string& weight, auto&& make) {
    p_.reset();
    // Only this factor's weight is on (fairshare and queue default to non-zero).
    std::string params = "mode=design,max_wait=1:00:00," + kBins + "," + weight + "=1000";
    if (weight != "fairshare") params += ",fairshare=0";
    if (weight != "queue") params += ",queue=0";
    ASSERT_EQ(start(params), MFPRIO_OK) << weight << ": " << p_->err();
    std::vector<uint32_t> got;
    for (int i = 0; i < 3; ++i) got.push_back(prio(make(i)));
    EXPECT_EQ(got, (std::vector<uint32_t>{0, 500, 1000})) << weight;
  };
  run("wait_time", [](int i) {
    mfprio_job_t j = job(1, "alice");
    j.submit_time = T0 - i * 1800;  // 0, half, all of max_wait
    return j;
  });
  // Design fair share 2^(-U/S): carol has no shares (0), bob is exactly
  // served (S = 1/4, U = 5/20: 0.5), alice has used nothing (1).
  run("fairshare", [](int i) { return job(1, i == 0 ? "carol" : i == 1 ? "bob" : "alice"); });
  run("qos", [](int i) {
    mfprio_job_t j = job(1, "alice");
    j.qos = i == 0 ? "normal" : i == 1 ? "mid" : "top";
    return j;
  });
  run("queue", [](int i) { return job(1, "alice", nullptr, i == 0 ? "q0" : i == 1 ? "q50" : "q100"); });
  run("job_size", [](int i) {  // 10 nodes in the cluster
    mfprio_job_t j = job(1, "alice");
    j.min_nodes = static_cast<uint32_t>(i * 5);
    return j;
  });
  static const mfprio_attr_t uf[] = {{"user_factor", "0"}, {"user_factor", "0.5"}};
  run("user", [](int i) {
    mfprio_job_t j = job(1, "alice");
    if (i < 2) {
      j.attrs = &uf[i];
      j.attr_count = 1;
    }
    return j;
  });
  // A user factor outside 0..1 is a bad record.
  mfprio_job_t j = job(1, "alice");
  static const mfprio_attr_t bad{"user_factor", "1.5"};
  j.attrs = &bad;
  j.attr_count = 1;
  uint32_t v = 7;
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_EINVAL);
  EXPECT_NE(p_->err().find("user_factor"), std::string::npos) << p_->err();
  // The terms are the design vocabulary.
  const mfprio_factors_t f = factors(job(1, "alice"));
  std::vector<std::string> names;
  for (uint32_t i = 0; i < f.term_count; ++i) names.push_back(f.terms[i].name);
  EXPECT_EQ(names, (std::vector<std::string>{"wait_time", "fairshare", "qos", "queue", "job_size", "user"}));
}

TEST_F(FluxPlugin, AForbiddenQueueIsRefusedNamingJobUserBankAndQueue) {
  FluxStore()
      .bank("A", "root", 1, 3)
      .queue("batch", 2).queue("debug", 5)
      .user("alice", "A", 1, 0, {"batch"})
      .write(db());
  ASSERT_EQ(start("bank=10"), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(job(1, "alice", nullptr, "batch")), 100000u + 20000u + 30u);
  uint32_t v = 9;
  mfprio_job_t j = job(7, "alice", "A", "debug");
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_EPERM);
  const std::string e = p_->err();
  for (const char* w : {"job 7", "alice", "bank A", "queue debug"}) EXPECT_NE(e.find(w), std::string::npos) << e;
  // A queue accounting does not know is admitted with factor 0.
  EXPECT_EQ(prio(job(1, "alice", nullptr, "elsewhere")), 100030u);
}

// Handles (job_resolve): the batch's fast path gives what the names give;
// a stale handle (after a decay changed usage) or a forged one (the right
// generation, indices out of range) is priced by name, never read past
// the tables; a forbidden queue is refused on the fast path too.
TEST_F(FluxPlugin, ResolvedStaleAndForgedHandlesPriceAsTheNames) {
  FluxStore()
      .bank("A", "root", 1, 3)
      .bank("B", "root", 1, 7)
      .queue("batch", 2).queue("debug", 5)
      .user("alice", "A", 1, 0, {"batch", "debug"})
      .user("bob", "B", 1, 0, {"batch"})
      .write(db());
  ASSERT_EQ(start("bank=10"), MFPRIO_OK) << p_->err();
  std::vector<mfprio_job_t> named = {job(1, "alice", nullptr, "debug"), job(2, "bob", "B", "batch"),
                                     with_urgency(job(3, "bob", nullptr, "elsewhere"), 20),
                                     job(4, "bob", "B", "debug"), with_urgency(job(5, "alice", "A"), 31)};
  auto batch = [&](std::vector<mfprio_job_t> jobs, std::vector<uint32_t>* pr, std::vector<int>* st) {
    pr->assign(jobs.size(), 7);
    st->assign(jobs.size(), 99);
    return p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, pr->data(), st->data());
  };
  std::vector<mfprio_job_t> resolved = named;
  for (mfprio_job_t& j : resolved) ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
  EXPECT_NE(resolved[0].handle.generation, 0u);
  std::vector<uint32_t> pn, pr;
  std::vector<int> sn, sr;
  EXPECT_EQ(batch(named, &pn, &sn), MFPRIO_EPERM);
  const std::string en = p_->err();
  EXPECT_EQ(batch(resolved, &pr, &sr), MFPRIO_EPERM);
  EXPECT_EQ(p_->err(), en);
  for (const char* w : {"job 4", "bob", "bank B", "queue debug"}) EXPECT_NE(en.find(w), std::string::npos) << en;
  EXPECT_EQ(pn, pr);
  EXPECT_EQ(sn, sr);
  EXPECT_EQ(sr, (std::vector<int>{MFPRIO_OK, MFPRIO_OK, MFPRIO_OK, MFPRIO_EPERM, MFPRIO_OK}));
  EXPECT_EQ(pr[0], prio(named[0]));
  EXPECT_EQ(pr[4], 4294967295u);
  // Forged: the current generation with indices past every table.
  std::vector<mfprio_job_t> forged = resolved;
  for (mfprio_job_t& j : forged) {
    j.handle.assoc = 0xfffffff0u;
    j.handle.partition = 0x7000;
    j.handle.qos = 0x7000;
  }
  EXPECT_EQ(batch(forged, &pr, &sr), MFPRIO_EPERM);
  EXPECT_EQ(pn, pr);
  EXPECT_EQ(sn, sr);
  // Stale: usage moves alice's fair share; the old handles still price as the names.
  mfprio_job_t r = running(10, "alice", T0 - 3600, 4);
  ASSERT_EQ(p_->ops.decay(T0, &r, 1), MFPRIO_OK) << p_->err();
  EXPECT_EQ(batch(named, &pn, &sn), MFPRIO_EPERM);
  EXPECT_EQ(batch(resolved, &pr, &sr), MFPRIO_EPERM);
  EXPECT_EQ(pn, pr);
  EXPECT_EQ(sn, sr);
  EXPECT_EQ(pr[0], prio(named[0]));
  // An admin adds "aaron" (index 0, where alice was; no debug queue).  The
  // next pass sees the new associations: no handle is trusted then, and a
  // new runtime's handles have a new generation: the old ones are stale.
  FluxStore().user("aaron", "A", 9, 0, {"batch"}).write(db());
  ASSERT_EQ(p_->ops.decay(T0 + 60, nullptr, 0), MFPRIO_OK) << p_->err();
  mfprio_job_t aaron0 = job(6, "aaron", "A", "batch");
  ASSERT_EQ(p_->ops.job_resolve(&aaron0), MFPRIO_OK) << p_->err();
  EXPECT_NE(aaron0.handle.generation, 0u);  // reloaded: new handles again
  EXPECT_NE(aaron0.handle.generation, resolved[0].handle.generation);
  EXPECT_EQ(batch(named, &pn, &sn), MFPRIO_EPERM);
  EXPECT_EQ(batch(resolved, &pr, &sr), MFPRIO_EPERM);
  EXPECT_EQ(pn, pr);
  EXPECT_EQ(sn, sr);
  EXPECT_EQ(sr[0], MFPRIO_OK);  // alice may use debug; aaron's row would refuse it
  ASSERT_EQ(start("bank=10", T0 + 60), MFPRIO_OK) << p_->err();
  mfprio_job_t aaron = job(6, "aaron", "A", "batch");
  ASSERT_EQ(p_->ops.job_resolve(&aaron), MFPRIO_OK) << p_->err();
  EXPECT_EQ(aaron.handle.assoc, resolved[0].handle.assoc);  // the index alice's old handle names
  EXPECT_NE(aaron.handle.generation, 0u);
  EXPECT_NE(aaron.handle.generation, resolved[0].handle.generation);
  EXPECT_EQ(batch(named, &pn, &sn), MFPRIO_EPERM);
  EXPECT_EQ(batch(resolved, &pr, &sr), MFPRIO_EPERM);
  EXPECT_EQ(pn, pr);
  EXPECT_EQ(sn, sr);
  EXPECT_EQ(sr[0], MFPRIO_OK);
}

// A handle resolved for one record and kept on another
// (the job's user, bank, queue or QOS changed) is not trusted: the record
// is priced, and admitted to its queue, by its own names, single and batch.
TEST_F(FluxPlugin, AHandleOfAnotherRecordIsNotTrusted) {
  FluxStore()
      .bank("A", "root", 1, 3)
      .bank("B", "root", 1, 7)
      .queue("batch", 2).queue("debug", 5)
      .qos("high", 9)
      .user("alice", "A", 1, 0, {"batch", "debug"})
      .user("bob", "B", 1, 0, {"batch"})
      .user("bob", "A", 1, 0, {"batch", "debug"})
      .write(db());
  ASSERT_EQ(start("bank=10"), MFPRIO_OK) << p_->err();
  auto rec = [](uint64_t id, const char* user, const char* bank, const char* queue, const char* qos) {
    mfprio_job_t j = job(id, user, bank, queue);
    j.qos = qos;
    return j;
  };
  const std::vector<mfprio_job_t> recs = {rec(1, "alice", "A", "debug", nullptr), rec(2, "bob", "B", "batch", nullptr),
                                          rec(3, "bob", "B", "debug", nullptr),   rec(4, "bob", "A", "debug", nullptr),
                                          rec(5, "bob", nullptr, "batch", "high"), rec(6, "alice", nullptr, nullptr, nullptr)};
  for (size_t i = 0; i < recs.size(); ++i)
    for (size_t k = 0; k < recs.size(); ++k) {
      mfprio_job_t donor = recs[k];
      ASSERT_EQ(p_->ops.job_resolve(&donor), MFPRIO_OK) << p_->err();
      mfprio_job_t r = recs[i];
      uint32_t want = 7, got = 7, batch = 7;
      const int want_rc = p_->ops.set_priority(&r, T0, &want);
      r.handle = donor.handle;
      EXPECT_EQ(p_->ops.set_priority(&r, T0, &got), want_rc) << "record " << i << " with the handle of " << k;
      EXPECT_EQ(got, want) << "record " << i << " with the handle of " << k;
      int st = 99;
      p_->ops.set_priority_batch(&r, 1, T0, &batch, &st);
      EXPECT_EQ(st, want_rc) << "batch: record " << i << " with the handle of " << k;
      EXPECT_EQ(batch, want_rc == MFPRIO_OK ? want : 0u) << "batch: record " << i << " with the handle of " << k;
    }
}

// The batch refuses, per record, what set_priority refuses before pricing:
// a short record, a negative nice or a positive user priority from a
// non-admin; the other records are priced.
TEST_F(FluxPlugin, TheBatchChecksEachRecordAsSetPriorityDoes) {
  FluxStore().bank("A", "root", 1).queue("batch", 2).user("alice", "A", 1, 0, {"batch"}).write(db());
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  std::vector<mfprio_job_t> jobs(4, job(1, "alice", "A", "batch"));
  for (size_t i = 0; i < jobs.size(); ++i) jobs[i].job_id = 20 + i;
  for (mfprio_job_t& j : jobs) ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
  jobs[1].nice = -5;
  jobs[2].user_priority = 3;
  jobs[3].struct_size = 8;
  std::vector<uint32_t> pr(jobs.size(), 7);
  std::vector<int> st(jobs.size(), 99);
  EXPECT_EQ(p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, pr.data(), st.data()), MFPRIO_EPERM);
  EXPECT_NE(p_->err().find("job 21"), std::string::npos) << p_->err();
  EXPECT_EQ(st, (std::vector<int>{MFPRIO_OK, MFPRIO_EPERM, MFPRIO_EPERM, MFPRIO_EINVAL}));
  EXPECT_EQ(pr, (std::vector<uint32_t>{prio(jobs[0]), 0, 0, 0}));
  uint32_t v = 0;
  EXPECT_EQ(p_->ops.set_priority(&jobs[1], T0, &v), MFPRIO_EPERM);
  jobs[1].flags |= MFPRIO_JOBF_NICE_ADMIN;  // an admin's nice: priced (flux reads no nice)
  EXPECT_EQ(p_->ops.set_priority_batch(jobs.data(), 2, T0, pr.data(), st.data()), MFPRIO_OK) << p_->err();
  EXPECT_EQ(pr[1], pr[0]);
}

// The batch's fast loop checks each record in one pass (flux_policy.cpp,
// quick_record) and refuses a forbidden queue without leaving it: every
// record set_priority refuses is refused with its status (and the batch's
// first failure with its message), every record it prices gets its
// priority, whichever path the batch took (resolved handles: the fast loop
// sees every record first), with the faults before or after the records
// refused for their queue.
TEST_F(FluxPlugin, MalformedRecordsInABatchAreRefusedAsOneByOne) {
  FluxStore()
      .bank("A", "root", 2, 3)
      .bank("B", "root", 1, 7)
      .queue("batch", 2).queue("debug", 5).queue("gpu", 1)
      .user("alice", "A", 1, 0, {"batch", "debug"})
      .user("bob", "B", 1, 100, {"batch"})
      .user("carol", "A", 3, 50, {"gpu", "batch"})
      .write(db());
  ASSERT_EQ(start("bank=10,urgency=1000," + kBins), MFPRIO_OK) << p_->err();
  static const char* users[] = {"alice", "bob", "carol"};
  static const char* queues[] = {nullptr, "batch", "debug", "gpu", "elsewhere"};
  std::vector<mfprio_job_t> good;
  for (uint64_t k = 0; k < 30; ++k) {
    mfprio_job_t j = job(100 + k, users[k % 3], k % 2 ? nullptr : (k % 3 == 1 ? "B" : "A"), queues[k % 5]);
    if (k % 4 == 1) j = with_urgency(j, static_cast<uint8_t>((k * 7) % 32));
    if (k % 7 == 3) j.state = MFPRIO_JOB_HELD;
    j.nice = static_cast<int32_t>(k % 3);
    ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
    good.push_back(j);
  }
  static const mfprio_tres_t bad_counts[][2] = {
      {{"gres/gpu", 1}, {"gres/gpu", -1}}, {{"gres/gpu", NAN}, {"x", 1}}, {{"x", HUGE_VAL}, {"gres/gpu", 1}}};
  static const mfprio_tres_t gpus[] = {{"gres/gpu", 2}};
  static const mfprio_attr_t bad_factor[] = {{"user_factor", "2"}};
  std::vector<RecordFault> faults = refused_record_faults(bad_counts);
  // Refused by pricing (the named path): a user_factor out of range (read
  // in either mode), a stale generation naming an unknown user.
  faults.push_back([](mfprio_job_t& j) { j.attrs = bad_factor, j.attr_count = 1; });
  faults.push_back([](mfprio_job_t& j) { j.user = "mallory", j.handle.generation = 0; });
  const size_t kRefused = faults.size();  // the faults that refuse every record
  // Accepted (unless the queue refuses the record): the edges of check_job's
  // rules, a zero urgency, TRES within the limits, forged handles (priced
  // by name).
  for (RecordFault& f : accepted_borderline_records()) faults.push_back(std::move(f));
  const std::vector<RecordFault> more = {
      [](mfprio_job_t& j) { j.flags |= MFPRIO_JOBF_URGENCY, j.urgency = 0; },
      [](mfprio_job_t& j) { j.tres = gpus, j.tres_count = 1; },
      [](mfprio_job_t& j) { j.tres = bad_counts[0], j.tres_count = 1; },
      [](mfprio_job_t& j) { j.handle.assoc = 0xfffffff0u; },
      [](mfprio_job_t& j) { j.handle.partition = 0x0003u, j.handle.qos = 0xfffdu; },
      [](mfprio_job_t& j) { j.handle.partition = 0xfffdu; },
      [](mfprio_job_t& j) { j.handle.generation += 1; },
  };
  faults.insert(faults.end(), more.begin(), more.end());
  std::vector<mfprio_job_t> faulty;
  std::vector<int> good_rc;  // the record a fault was applied to: its own status
  for (size_t f = 0; f < faults.size(); ++f)
    for (size_t g = 0; g < 3; ++g) {
      mfprio_job_t j = good[(f * 3 + g) % good.size()];
      uint32_t v = 0;
      good_rc.push_back(p_->ops.set_priority(&j, T0, &v));
      faults[f](j);
      faulty.push_back(j);
    }
  size_t queue_refused = 0;
  for (const mfprio_job_t& j : good) {
    uint32_t v = 0;
    queue_refused += p_->ops.set_priority(&j, T0, &v) == MFPRIO_EPERM;
  }
  ASSERT_GT(queue_refused, 0u);
  for (bool faults_first : {true, false}) {
    std::vector<mfprio_job_t> jobs = faults_first ? faulty : good;
    const std::vector<mfprio_job_t>& rest = faults_first ? good : faulty;
    jobs.insert(jobs.end(), rest.begin(), rest.end());
    const size_t fault_at = faults_first ? 0 : good.size();
    std::vector<uint32_t> prios(jobs.size(), 77);
    std::vector<int> st(jobs.size(), -1);
    const int rc = p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, prios.data(), st.data());
    const std::string batch_msg = p_->err();
    int first = MFPRIO_OK;
    std::string first_msg;
    for (size_t i = 0; i < jobs.size(); ++i) {
      uint32_t one = 99;
      const int one_rc = p_->ops.set_priority(&jobs[i], T0, &one);
      EXPECT_EQ(st[i], one_rc) << "record " << i;
      if (i >= fault_at && i < fault_at + faulty.size()) {
        const size_t f = (i - fault_at) / 3;
        if (f < kRefused) EXPECT_NE(one_rc, MFPRIO_OK) << "fault " << f;
        else EXPECT_EQ(one_rc, good_rc[i - fault_at]) << "fault " << f;
      }
      if (one_rc == MFPRIO_OK) {
        EXPECT_EQ(prios[i], one) << "record " << i;
      } else {
        EXPECT_EQ(prios[i], 0u) << "record " << i;
        std::string msg = p_->err();
        // The same message, naming the batch instead of set_priority.
        for (size_t at; (at = msg.find("set_priority")) != std::string::npos;) msg.replace(at, 12, "@");
        if (first == MFPRIO_OK) first = one_rc, first_msg = msg;
      }
    }
    EXPECT_EQ(rc, first);
    EXPECT_EQ(rc, faults_first ? MFPRIO_EINVAL : MFPRIO_EPERM);
    std::string bm = batch_msg;
    for (size_t at; (at = bm.find("set_priority_batch")) != std::string::npos;) bm.replace(at, 18, "@");
    EXPECT_EQ(bm, first_msg);
    // Without statuses: the same priorities and the same first failure.
    std::vector<uint32_t> again(jobs.size(), 77);
    EXPECT_EQ(p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, again.data(), nullptr), rc);
    EXPECT_EQ(p_->err(), batch_msg);
    EXPECT_EQ(again, prios);
  }
}

// The batch's fast path (resolved records) against one job at a time:
// halves away from zero, a negative sum clamped to 0, a sum past 2^32-1
// clamped high (both counted once), hold and expedite.
TEST_F(FluxPlugin, TheFastBatchRoundsClampsHoldsAndExpeditesAsSetPriority) {
  // alice (no usage) has fair share 1.0, bob (usage) 0.5.
  FluxStore()
      .bank("A", "root", 1)
      .queue("neg", 1)
      .user("alice", "A", 1, 0, {"neg"})
      .user("bob", "A", 1, 100, {"neg"})
      .write(db());
  ASSERT_EQ(start("fairshare=1,queue=-3,bank=0,urgency=2147483647," + kBins), MFPRIO_OK) << p_->err();
  std::vector<mfprio_job_t> jobs = {
      job(1, "bob"),                             // 0.5 -> 1
      job(2, "bob", "A", "neg"),                 // 0.5 - 3 = -2.5 -> -3 -> 0 (clamped low)
      with_urgency(job(3, "bob"), 17),           // 0.5 + 2147483647 -> 2147483648 (a half, away)
      with_urgency(job(4, "alice"), 30),         // 1 + 14 x 2147483647 -> 4294967295 (clamped high)
      with_urgency(job(5, "alice", "A", "neg"), 31),  // expedite: 4294967295, not a clamp
      job(6, "alice", "A", "neg"),               // 1 - 3 = -2 -> 0 (clamped low) ...
      job(7, "alice"),                           // 1
  };
  jobs[5].state = MFPRIO_JOB_HELD;               // ... but held: 0, not a clamp
  for (mfprio_job_t& j : jobs) ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
  auto stats = [&] {
    mfprio_stats_t st{};
    st.struct_size = sizeof st;
    EXPECT_EQ(p_->ops.plugin_stats(&st), MFPRIO_OK);
    return st;
  };
  const mfprio_stats_t s0 = stats();
  std::vector<uint32_t> one(jobs.size());
  for (size_t i = 0; i < jobs.size(); ++i) one[i] = prio(jobs[i]);
  const mfprio_stats_t s1 = stats();
  std::vector<uint32_t> pr(jobs.size(), 7);
  std::vector<int> st(jobs.size(), 99);
  ASSERT_EQ(p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, pr.data(), st.data()), MFPRIO_OK) << p_->err();
  const mfprio_stats_t s2 = stats();
  EXPECT_EQ(one, (std::vector<uint32_t>{1u, 0u, 2147483648u, 4294967295u, 4294967295u, 0u, 1u}));
  EXPECT_EQ(pr, one);
  EXPECT_EQ(st, std::vector<int>(jobs.size(), MFPRIO_OK));
  EXPECT_EQ(s1.clamped_low - s0.clamped_low, 1u);
  EXPECT_EQ(s1.clamped_high - s0.clamped_high, 1u);
  EXPECT_EQ(s2.clamped_low - s1.clamped_low, 1u);
  EXPECT_EQ(s2.clamped_high - s1.clamped_high, 1u);
}

TEST_F(FluxPlugin, UnknownUserOrBankIsNamed) {
  FluxStore().bank("A", "root", 1).bank("B", "root", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  uint32_t v = 0;
  mfprio_job_t j = job(3, "zed");
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_ENOENT);
  EXPECT_NE(p_->err().find("unknown user \"zed\""), std::string::npos) << p_->err();
  j = job(4, "alice", "nosuch");
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_ENOENT);
  EXPECT_NE(p_->err().find("unknown bank \"nosuch\""), std::string::npos) << p_->err();
  j = job(5, "alice", "B");
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_ENOENT);
  EXPECT_NE(p_->err().find("no association with bank \"B\""), std::string::npos) << p_->err();
}

TEST_F(FluxPlugin, ConfErrorsNameTheLineAndKeyAndTheStoreIsRequired) {
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).write(db());
  EXPECT_EQ(start("fairshare=1,bogus=2"), MFPRIO_ECONF);
  EXPECT_NE(p_->err().find("test.conf:1"), std::string::npos) << p_->err();
  EXPECT_NE(p_->err().find("bogus"), std::string::npos) << p_->err();
  p_.reset();
  EXPECT_EQ(start("mode=accounting,wait_time=5"), MFPRIO_ECONF);  // a design-only key
  EXPECT_NE(p_->err().find("wait_time"), std::string::npos) << p_->err();
  p_.reset();
  EXPECT_EQ(start("", T0, /*with_store=*/false), MFPRIO_ECONF);
  EXPECT_NE(p_->err().find("AccountingStorageLoc"), std::string::npos) << p_->err();
}

TEST_F(FluxPlugin, ShareViewIsTheBankTreeWithFairshare) {
  FluxStore().bank("A", "root", 1, 4).bank("A1", "A", 2).user("alice", "A1", 1).user("bob", "A1", 1, 10).write(db());
  ASSERT_EQ(start(kBins), MFPRIO_OK) << p_->err();
  const std::string js = json_of(p_->ops.share_table_json);
  EXPECT_NE(js.find("\"fairshare\""), std::string::npos) << js;
  mfprio_share_table_t* t = nullptr;
  ASSERT_EQ(p_->ops.share_table(&t), MFPRIO_OK);
  ASSERT_EQ(t->row_count, 5u);  // root, A, A1, alice, bob
  EXPECT_STREQ(t->rows[0].cells[0].text, "root");
  EXPECT_STREQ(t->rows[1].cells[0].text, "A");
  EXPECT_EQ(t->rows[1].parent, 0);
  EXPECT_EQ(t->rows[2].depth, 2u);
  EXPECT_STREQ(t->rows[3].user, "alice");
  EXPECT_EQ(t->rows[3].parent, 2);
  EXPECT_TRUE(t->rows[3].is_user);
  p_->ops.share_table_free(t);
  EXPECT_DOUBLE_EQ(share("alice", "A1", "fairshare"), 1.0);
  EXPECT_DOUBLE_EQ(share("bob", "A1", "fairshare"), 0.5);
  EXPECT_DOUBLE_EQ(share("", "A", "bank_priority"), 4.0);
  EXPECT_DOUBLE_EQ(share("", "A", "usage"), 10.0);
  EXPECT_DOUBLE_EQ(share("", "A1", "shares"), 2.0);
}

// flux-accounting's own weighted_tree test data (small_tie), written as
// `flux account export-db` writes bank_table.csv and association_table.csv,
// imported unchanged: the plugin gives flux-accounting's fair-share order.
TEST_F(FluxPlugin, ExportDbCsvImportedUnchangedGivesFluxAccountingsOrder) {
  std::ofstream(dir_.file("bank_table.csv"))
      << "bank_id,bank,active,parent_bank,shares,job_usage,priority\n"
         "1,root,1,,1,0.0,0.0\n"
         "2,account1,1,root,1000,120.0,0.0\n"
         "3,account2,1,root,100,12.0,0.0\n"
         "4,account3,1,root,10,1.0,0.0\n";
  std::ofstream(dir_.file("association_table.csv"))
      << "creation_time,mod_time,active,username,userid,bank,default_bank,shares,job_usage,fairshare,"
         "max_running_jobs,max_active_jobs,max_nodes,max_cores,queues,projects,default_project\n"
         "0,0,1,leaf.1.1,5011,account1,account1,10000,100.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.1.2,5012,account1,account1,1000,10.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.1.3,5013,account1,account1,100000,10.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.2.1,5021,account2,account2,10000,10.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.2.2,5022,account2,account2,1000,1.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.2.3,5023,account2,account2,100000,1.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.3.1,5031,account3,account3,100,0.0,0.5,5,7,2147483647,2147483647,,*,*\n"
         "0,0,1,leaf.3.2,5032,account3,account3,10,1.0,0.5,5,7,2147483647,2147483647,,*,*\n";
  {
    auto st = acct::Store::open(db(), acct::OpenOptions{});
    acct::import_flux_files(*st, acct::FluxCsvFiles{dir_.file("bank_table.csv"), dir_.file("association_table.csv"), ""});
  }
  // The imported usage sits in the bin of the import time (now): price now.
  const int64_t now = static_cast<int64_t>(time(nullptr));
  ASSERT_EQ(start("", now), MFPRIO_OK) << p_->err();
  const std::vector<std::string> order = {"leaf.3.1", "leaf.3.2", "leaf.1.3", "leaf.2.3",
                                          "leaf.1.2", "leaf.2.2", "leaf.1.1", "leaf.2.1"};
  const std::vector<double> expected = {1.0, 0.875, 0.75, 0.75, 0.5, 0.5, 0.5, 0.5};
  for (size_t i = 0; i < order.size(); ++i) {
    const std::string bank = "account" + order[i].substr(5, 1);
    EXPECT_DOUBLE_EQ(share(order[i], bank, "fairshare"), expected[i]) << order[i];
    mfprio_job_t j = job(i + 1, order[i].c_str());
    EXPECT_EQ(prio(j, now), static_cast<uint32_t>(std::lround(100000 * expected[i]))) << order[i];
  }
}

TEST_F(FluxPlugin, AnEmptyStoreLoadsAndABatchReportsEachRecord) {
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();  // only the root bank
  uint32_t v = 5;
  mfprio_job_t j = job(1, "alice");
  EXPECT_EQ(p_->ops.set_priority(&j, T0, &v), MFPRIO_ENOENT);
  p_.reset();
  FluxStore().bank("A", "root", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  const mfprio_job_t jobs[] = {job(1, "alice"), job(2, "nobody"), with_urgency(job(3, "alice"), 31)};
  uint32_t pr[3] = {9, 9, 9};
  int st[3] = {1, 1, 1};
  EXPECT_EQ(p_->ops.set_priority_batch(jobs, 3, T0, pr, st), MFPRIO_ENOENT);
  EXPECT_EQ(pr[0], 100000u);
  EXPECT_EQ(st[0], MFPRIO_OK);
  EXPECT_EQ(pr[1], 0u);
  EXPECT_EQ(st[1], MFPRIO_ENOENT);
  EXPECT_EQ(pr[2], 4294967295u);
  EXPECT_NE(p_->err().find("job 2"), std::string::npos) << p_->err();
}

TEST_F(FluxPlugin, AJobWithoutABankGoesToTheUsersDefaultBank) {
  // alice's first listed bank, B, is her default (FluxStore::write).
  FluxStore().bank("A", "root", 1, 0).bank("B", "root", 1, 7).user("alice", "B", 1).user("alice", "A", 1).write(db());
  ASSERT_EQ(start("fairshare=0,bank=1"), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(job(1, "alice")), 7u);
  EXPECT_EQ(prio(job(1, "alice", "A")), 0u);
  EXPECT_STREQ(factors(job(1, "alice")).account_name, "B");
}

}  // namespace
}  // namespace mfprio::test
