// test_ge_plugin.cpp - priority_gridengine.so through the C ABI: real
// dlopen, the admin's sched_conf and complexes read from files, the share
// tree, functional shares and usage in a real SQLite store.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "../multifactor/harness.hpp"

namespace mfprio::test {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t T0 = 1'700'000'000;

// The seed's site: 100 per slot, a t queue worth 40000, a u queue 80000
// (string complexes: their urgency counts once, whatever the slots; a BOOL
// would be value x urgency x slots).
const char* kSeedComplexes =
    "#name shortcut type relop requestable consumable default urgency\n"
    "slots s INT <= YES YES 1 100\n"
    "tq tq RESTRING == YES NO NONE 40000\n"
    "uq uq RESTRING == YES NO NONE 80000\n";

class GePlugin : public ::testing::Test {
 protected:
  int start(const std::string& sched_conf, const char* complexes = nullptr) {
    std::string params = "PriorityParameters=";
    if (!sched_conf.empty()) {
      std::ofstream(dir_.file("sched.conf")) << sched_conf;
      params += "sched_conf=" + dir_.file("sched.conf");
    }
    if (complexes) {
      std::ofstream(dir_.file("complexes")) << complexes;
      params += std::string(sched_conf.empty() ? "" : ",") + "complexes=" + dir_.file("complexes");
    }
    p_ = std::make_unique<Plugin>(plugin_path("priority_gridengine.so"));
    std::vector<std::string> conf = {"AccountingStorageLoc=" + db()};
    if (params != "PriorityParameters=") conf.push_back(params);
    return p_->init(conf, T0);
  }
  std::string db() const { return store_location(dir_, db_name_); }
  void store(const acct::AdminChanges& ch) { acct::Store::open(db(), acct::OpenOptions{})->apply_admin(ch); }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now) { return p_->factors(j, now); }
  std::vector<uint32_t> prioritize(const std::vector<mfprio_job_t>& pending,
                                   const std::vector<mfprio_job_t>& running, int64_t now) {
    std::vector<uint32_t> pr(pending.size());
    std::vector<int> st(pending.size());
    EXPECT_EQ(p_->ops.prioritize(pending.data(), pending.size(), running.data(), running.size(), now, pr.data(),
                                 st.data()),
              MFPRIO_OK)
        << p_->err();
    return pr;
  }
  double share(const std::string& node, const std::string& column) {
    mfprio_share_table_t* t = nullptr;
    EXPECT_EQ(p_->ops.share_table(&t), MFPRIO_OK) << p_->err();
    double v = NAN;
    for (size_t r = 0; t && r < t->row_count; ++r) {
      if (std::string(t->rows[r].cells[0].text) != node) continue;
      for (uint32_t c = 0; c < t->column_count; ++c)
        if (column == t->columns[c].name) v = t->rows[r].cells[c].value;
    }
    if (t) p_->ops.share_table_free(t);
    return v;
  }

  TempDir dir_;
  std::string db_name_ = "acct.db";
  std::unique_ptr<Plugin> p_;
};

struct Attrs {
  std::vector<std::string> kv;  // name, value, name, value...
  std::vector<mfprio_attr_t> a;
  void bind(mfprio_job_t* j) {
    a.clear();
    for (size_t i = 0; i + 1 < kv.size(); i += 2) a.push_back({kv[i].c_str(), kv[i + 1].c_str()});
    j->attrs = a.data();
    j->attr_count = static_cast<uint32_t>(a.size());
  }
};

mfprio_job_t ge_job(uint64_t id, const char* user, uint32_t cpus, int64_t submit) {
  mfprio_job_t j = job(id, user);
  j.cpus = cpus;
  j.submit_time = j.eligible_time = submit;
  return j;
}

TEST_F(GePlugin, SeedS64PassesANewT2JobAfter3377HoursAndAU2JobAfter7374) {
  ASSERT_EQ(start("", kSeedComplexes), MFPRIO_OK) << p_->err();
  Attrs tq{{"requests.tq", "true"}}, uq{{"requests.uq", "true"}};
  const int64_t now = T0 + 100 * kHour;
  for (const auto& [hours, beats_t2] : std::vector<std::pair<double, bool>>{{33.7, false}, {33.8, true}}) {
    mfprio_job_t s64 = ge_job(1, "alice", 64, now - static_cast<int64_t>(hours * kHour));
    mfprio_job_t t2 = ge_job(2, "bob", 2, now);
    tq.bind(&t2);
    const auto pr = prioritize({s64, t2}, {}, now);
    EXPECT_EQ(pr[0] > pr[1], beats_t2) << hours << " h";
    EXPECT_DOUBLE_EQ(term(factors(t2, now), "urg").factor, 40200.0);
    EXPECT_DOUBLE_EQ(term(factors(s64, now), "rrcontr").factor, 6400.0);
  }
  for (const auto& [hours, beats_u2] : std::vector<std::pair<double, bool>>{{73.7, false}, {73.8, true}}) {
    mfprio_job_t s64 = ge_job(1, "alice", 64, now - static_cast<int64_t>(hours * kHour));
    mfprio_job_t u2 = ge_job(3, "bob", 2, now);
    uq.bind(&u2);
    const auto pr = prioritize({s64, u2}, {}, now);
    EXPECT_EQ(pr[0] > pr[1], beats_u2) << hours << " h";
  }
}

TEST_F(GePlugin, Seed16CpuJobAfter16HoursMatchesANew32CpuJob) {
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();  // built-in complexes: slots urgency 1000
  const int64_t now = T0 + 20 * kHour;
  mfprio_job_t a = ge_job(1, "alice", 16, now - 16 * kHour), b = ge_job(2, "bob", 32, now);
  prioritize({a, b}, {}, now);
  const double ua = term(factors(a, now), "urg").factor, ub = term(factors(b, now), "urg").factor;
  EXPECT_DOUBLE_EQ(ub, 32000.0);
  EXPECT_NEAR(ua, 32012.8, 1e-6);  // 16000 + 57600 s x 0.278: "roughly the same"
}

TEST_F(GePlugin, EqualValuesNormaliseToOneHalf) {
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  mfprio_job_t a = ge_job(1, "alice", 1, T0), b = ge_job(2, "bob", 1, T0);
  const auto pr = prioritize({a, b}, {}, T0);
  EXPECT_EQ(pr[0], pr[1]);
  const mfprio_factors_t f = factors(a, T0);
  EXPECT_DOUBLE_EQ(term(f, "nurg").factor, 0.5);
  EXPECT_DOUBLE_EQ(term(f, "ntckts").factor, 0.5);  // no tickets at all
  EXPECT_DOUBLE_EQ(term(f, "prio").factor, 0.5);
  EXPECT_NE(term(f, "urgency").flags & MFPRIO_TERMF_CAPPED, 0u);
  EXPECT_NE(term(f, "prio").flags & MFPRIO_TERMF_LONG, 0u);
  EXPECT_EQ(f.priority, 0xBF000000u);  // 0.5 as an order-preserving float
  // sprio --json carries every qstat key.
  char* js = nullptr;
  ASSERT_EQ(p_->ops.job_factors_json(&a, T0, &js), MFPRIO_OK);
  const std::string s = js;
  p_->ops.free_string(js);
  for (const char* k : {"prio", "nurg", "urg", "rrcontr", "wtcontr", "dlcontr", "ntckts", "tckts", "stckt",
                        "ftckt", "otckt", "npprior", "ppri"})
    EXPECT_NE(s.find(std::string("\"name\":\"") + k + "\""), std::string::npos) << k;
}

TEST_F(GePlugin, FunctionalTicketsAreSharedAmongAUsersJobs) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 100, 0}};
  store(ch);
  ASSERT_EQ(start("weight_tickets_functional 1000\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t a1 = ge_job(1, "alice", 1, T0), a2 = ge_job(2, "alice", 1, T0), b = ge_job(3, "bob", 1, T0);
  prioritize({a1, a2, b}, {}, T0);
  const double f1 = term(factors(a1, T0), "ftckt").factor, f2 = term(factors(a2, T0), "ftckt").factor;
  const double fb = term(factors(b, T0), "ftckt").factor;
  EXPECT_GT(f1, 0);
  EXPECT_GT(f2, 0);
  EXPECT_GT(fb, f2);  // alice's share is split over her two jobs
}

TEST_F(GePlugin, InactiveShareTreeNodesGetNoTargetAndOwnersOutsideTheTreeStillGetAPriority) {
  acct::AdminChanges ch;
  acct::AssocWrite a, b;
  a.rec.user = "alice", a.rec.account = "root", a.rec.shares = 50;
  b.rec.user = "bob", b.rec.account = "root", b.rec.shares = 50;
  ch.assocs = {a, b};
  store(ch);
  ASSERT_EQ(start("weight_tickets_share 1000\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t ja = ge_job(1, "alice", 1, T0), jz = ge_job(2, "zed", 1, T0);
  const auto pr = prioritize({ja, jz}, {}, T0);
  EXPECT_GT(pr[1], 0u);  // zed is in no tree: no share-tree tickets, still a priority
  EXPECT_DOUBLE_EQ(term(factors(ja, T0), "stckt").factor, 1000.0);
  EXPECT_DOUBLE_EQ(term(factors(jz, T0), "stckt").factor, 0.0);
  EXPECT_GT(pr[0], pr[1]);
  EXPECT_DOUBLE_EQ(share("alice", "long_target"), 1.0);
  EXPECT_DOUBLE_EQ(share("bob", "long_target"), 0.0);  // inactive: no jobs below it
  EXPECT_DOUBLE_EQ(share("bob", "level_pct"), 50.0);
  // Tree order with parent and depth: the root, then its two user leaves.
  mfprio_share_table_t* t = nullptr;
  ASSERT_EQ(p_->ops.share_table(&t), MFPRIO_OK) << p_->err();
  ASSERT_EQ(t->row_count, 3u);
  EXPECT_EQ(t->rows[0].parent, -1);
  EXPECT_EQ(t->rows[1].parent, 0);
  EXPECT_EQ(t->rows[2].depth, 1u);
  EXPECT_EQ(t->rows[2].is_user, 1u);
  EXPECT_STREQ(t->rows[2].user, "bob");
  p_->ops.share_table_free(t);
  char* js = nullptr;
  ASSERT_EQ(p_->ops.plugin_info_json(&js), MFPRIO_OK);
  const std::string info = js;
  p_->ops.free_string(js);
  EXPECT_NE(info.find("\"urgency\":0.5"), std::string::npos) << info;
  EXPECT_NE(info.find("priority_mapping"), std::string::npos) << info;
}

TEST_F(GePlugin, OneJobInTwoPartitionsTakesPartOnce) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 100, 0}};
  store(ch);
  ASSERT_EQ(start("weight_tickets_functional 1000\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t a = ge_job(1, "alice", 1, T0), a_other = a, b = ge_job(2, "bob", 1, T0);
  a_other.partition = "other";
  const auto once = prioritize({a, b}, {}, T0);
  const auto pr = prioritize({a, a_other, b}, {}, T0);
  EXPECT_EQ(pr[0], pr[1]);
  EXPECT_EQ(pr[0], once[0]);  // alice's one job is not counted (or split) twice
  EXPECT_EQ(pr[2], once[1]);
  EXPECT_DOUBLE_EQ(term(factors(a_other, T0), "ftckt").factor, term(factors(a, T0), "ftckt").factor);
}

TEST_F(GePlugin, DecayByOneHalftimeThroughDecay) {
  acct::AdminChanges ch;
  acct::AssocWrite a;
  a.rec.user = "alice", a.rec.account = "root", a.rec.shares = 50;
  ch.assocs = {a};
  ch.windows_family = "gridengine";
  ch.windows = {acct::WindowRow{"cpu", "alice", 0, 0, 1000.0}};
  store(ch);
  ASSERT_EQ(start(""), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p_->err();  // first pass: stamps only
  EXPECT_DOUBLE_EQ(share("alice", "usage"), 1000.0);
  ASSERT_EQ(p_->ops.decay(T0 + 168 * kHour, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "usage"), 499.98808, 5e-6);
}

TEST_F(GePlugin, DecayChargesRunningJobsOnceAndJobEndTheTail) {
  acct::AdminChanges ch;
  acct::AssocWrite a;
  a.rec.user = "alice", a.rec.account = "root", a.rec.shares = 50;
  ch.assocs = {a};
  store(ch);
  ASSERT_EQ(start("halftime 0\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t r = ge_job(7, "alice", 4, T0 - kHour);
  r.state = MFPRIO_JOB_RUNNING;
  r.start_time = T0;
  ASSERT_EQ(p_->ops.decay(T0 + 100, &r, 1), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "usage"), 400.0);  // 4 slots x 100 s
  ASSERT_EQ(p_->ops.decay(T0 + 100, &r, 1), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "usage"), 400.0);  // charged once
  p_->set_clock(T0 + 150);
  ASSERT_EQ(p_->ops.job_end(&r, T0 + 150), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "usage"), 600.0);
  ASSERT_EQ(p_->ops.job_end(&r, T0 + 150), MFPRIO_OK) << p_->err();
  EXPECT_DOUBLE_EQ(share("alice", "usage"), 600.0);
}

TEST_F(GePlugin, JobFactorsAfterPrioritizeEqualThePass) {
  ASSERT_EQ(start("weight_tickets_functional 1000\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t a = ge_job(1, "alice", 8, T0 - kHour), b = ge_job(2, "bob", 1, T0);
  mfprio_job_t run = ge_job(3, "carol", 64, T0 - 5 * kHour);
  run.state = MFPRIO_JOB_RUNNING;
  run.start_time = T0 - kHour;
  const auto pr = prioritize({a, b}, {run}, T0);
  // Later single pricings of the same jobs give the pass's numbers.
  const mfprio_factors_t f = factors(a, T0 + 5000);
  EXPECT_EQ(f.priority, pr[0]);
  uint32_t v = 0;
  ASSERT_EQ(p_->ops.set_priority(&b, T0 + 5000, &v), MFPRIO_OK);
  EXPECT_EQ(v, pr[1]);
  EXPECT_DOUBLE_EQ(term(f, "wtcontr").contribution, 0.278 * kHour);
  // A job not in the pass: alone, normalised by the pass (urg min 1000, max of the pass).
  mfprio_job_t c = ge_job(9, "dave", 1, T0);
  const mfprio_factors_t fc = factors(c, T0);
  EXPECT_GE(term(fc, "nurg").factor, 0.0);
  EXPECT_LT(term(fc, "nurg").factor, 0.5);
}

TEST_F(GePlugin, ConfErrorsNameFileLineAndKey) {
  EXPECT_EQ(start("weight_urgency abc\n"), MFPRIO_ECONF);
  EXPECT_NE(p_->err().find("sched.conf:1"), std::string::npos) << p_->err();
  EXPECT_NE(p_->err().find("weight_urgency"), std::string::npos) << p_->err();
  p_.reset();
  p_ = std::make_unique<Plugin>(plugin_path("priority_gridengine.so"));
  EXPECT_EQ(p_->init({"PriorityParameters=complexes=/nonexistent"}, T0), MFPRIO_ECONF);
}

TEST_F(GePlugin, BadRecordsFailAloneAndPositivePosixPriorityNeedsTheAdmin) {
  ASSERT_EQ(start("", kSeedComplexes), MFPRIO_OK) << p_->err();
  mfprio_job_t good = ge_job(1, "alice", 1, T0), bad = ge_job(2, "bob", 1, T0), up = ge_job(3, "carol", 1, T0);
  Attrs nope{{"requests.nosuch", "1"}};
  nope.bind(&bad);
  up.user_priority = 10;
  std::vector<mfprio_job_t> pending{good, bad, up};
  std::vector<uint32_t> pr(3);
  std::vector<int> st(3);
  EXPECT_EQ(p_->ops.prioritize(pending.data(), 3, nullptr, 0, T0, pr.data(), st.data()), MFPRIO_EINVAL);
  EXPECT_EQ(st[0], MFPRIO_OK);
  EXPECT_EQ(st[1], MFPRIO_EINVAL);
  EXPECT_EQ(st[2], MFPRIO_EPERM);
  EXPECT_GT(pr[0], 0u);
}

// job_resolve stores the record's user, project and department ids (handle
// generation = the state's layout).  A resolved queue prices exactly as the
// same queue by name; a handle from an older layout (names changed by an
// admin) and forged handles (ids out of range, or in range but naming
// someone else) are priced by name: the same priorities, never a bad read.
TEST_F(GePlugin, ResolvedHandlesPriceAsNamesAndStaleOrForgedOnesFallBackToNames) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 30, 20}, {"user", "carol", 10, 0},
                       {"project", "proj", 50, 0}, {"department", "d1", 40, 10}};
  acct::AssocWrite a, b;
  a.rec.user = "alice", a.rec.account = "root", a.rec.shares = 50;
  b.rec.user = "bob", b.rec.account = "root", b.rec.shares = 20;
  ch.assocs = {a, b};
  store(ch);
  ASSERT_EQ(start("weight_tickets_functional 1000\nweight_tickets_share 1000\nweight_ticket 1\n"
                  "policy_hierarchy OFS\nmax_functional_jobs_to_schedule 7\n"),
            MFPRIO_OK)
      << p_->err();
  const char* users[] = {"alice", "bob", "carol", "zed"};
  Attrs d1{{"department", "d1"}}, d2{{"department", "d2"}}, none;
  std::vector<mfprio_job_t> q;
  for (uint64_t i = 0; i < 24; ++i) {
    mfprio_job_t j = ge_job(100 + i, users[i % 4], 1 + static_cast<uint32_t>(i % 3), T0 - static_cast<int64_t>(i % 5) * 60);
    if (i % 3 == 0) j.account = "proj";
    if (i % 7 == 5) j.account = "nosuchproject";
    (i % 2 ? d1 : i % 5 == 0 ? d2 : none).bind(&j);
    q.push_back(j);
  }
  const std::vector<mfprio_job_t> running = {[] {
    mfprio_job_t r = ge_job(9, "alice", 2, T0 - kHour);
    r.state = MFPRIO_JOB_RUNNING;
    r.start_time = T0 - 60;
    return r;
  }()};
  const int64_t now = T0 + 600;
  const std::vector<uint32_t> plain = prioritize(q, running, now);
  std::vector<mfprio_job_t> resolved = q;
  for (mfprio_job_t& j : resolved) ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
  const uint32_t layout = resolved[0].handle.generation;
  ASSERT_NE(layout, 0u);
  EXPECT_EQ(resolved[3].handle.assoc, UINT32_MAX);  // zed: in no table, priced by name
  EXPECT_NE(resolved[0].handle.assoc, resolved[1].handle.assoc);
  EXPECT_EQ(prioritize(resolved, running, now), plain);

  // A decay that names nothing new keeps the layout: the handles stay good.
  ASSERT_EQ(p_->ops.decay(T0, nullptr, 0), MFPRIO_OK) << p_->err();
  mfprio_job_t again = q[0];
  ASSERT_EQ(p_->ops.job_resolve(&again), MFPRIO_OK);
  EXPECT_EQ(again.handle.generation, layout);
  EXPECT_EQ(prioritize(resolved, running, now), prioritize(q, running, now));

  // Forged handles with the current generation: every id out of range, or
  // ids of other names (alice's job carrying bob's ids and the reverse).
  std::vector<mfprio_job_t> forged = resolved;
  for (size_t i = 0; i < forged.size(); ++i) {
    if (i % 2 == 0) {
      forged[i].handle.assoc = 0xfffffff0u - static_cast<uint32_t>(i);
      forged[i].handle.partition = 0xfffe;
      forged[i].handle.qos = 0xfffe;
    } else {
      forged[i].handle = resolved[(i + 1) % resolved.size()].handle;
    }
  }
  EXPECT_EQ(prioritize(forged, running, now), plain);

  // An admin change that names a new user: a new layout; the old handles are
  // stale and priced by name, new ones resolve with the new generation.
  acct::AdminChanges more;
  more.ticket_objects = {{"user", "dave", 5, 0}};
  store(more);
  ASSERT_EQ(p_->ops.decay(T0 + 60, nullptr, 0), MFPRIO_OK) << p_->err();
  const std::vector<uint32_t> by_name = prioritize(q, running, now);
  EXPECT_EQ(prioritize(resolved, running, now), by_name);
  mfprio_job_t fresh = q[0];
  ASSERT_EQ(p_->ops.job_resolve(&fresh), MFPRIO_OK);
  EXPECT_NE(fresh.handle.generation, layout);
  std::vector<mfprio_job_t> re = q;
  for (mfprio_job_t& j : re) ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prioritize(re, running, now), by_name);
}


// A job's first record that fails leaves no trace: a later valid record of
// the same job id takes part (and prices as the job alone would), and a
// third record of that id is its duplicate.
TEST_F(GePlugin, AFailedFirstRecordOfAJobLeavesTheNextRecordInThePass) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 100, 0}};
  store(ch);
  ASSERT_EQ(start("weight_tickets_functional 1000\n"), MFPRIO_OK) << p_->err();
  Attrs bad{{"job_share", "lots"}};
  mfprio_job_t broken = ge_job(5, "alice", 1, T0), good = ge_job(5, "alice", 1, T0), b = ge_job(6, "bob", 1, T0);
  bad.bind(&broken);
  mfprio_job_t again = good;
  again.partition = "other";
  const std::vector<uint32_t> alone = prioritize({good, b}, {}, T0);
  std::vector<mfprio_job_t> q = {broken, b, good, again};  // another job between the failed and the good one
  std::vector<uint32_t> pr(q.size());
  std::vector<int> st(q.size());
  EXPECT_EQ(p_->ops.prioritize(q.data(), q.size(), nullptr, 0, T0, pr.data(), st.data()), MFPRIO_EINVAL);
  EXPECT_EQ(st[0], MFPRIO_EINVAL);
  EXPECT_EQ(pr[0], 0u);
  EXPECT_EQ(st[2], MFPRIO_OK);
  EXPECT_EQ(pr[1], alone[1]);
  EXPECT_EQ(pr[2], alone[0]);
  EXPECT_EQ(pr[3], alone[0]);
  EXPECT_NE(alone[0], alone[1]);  // (alice has the pending job of the two with the earlier id: distinct prices)
}

// A job takes part in a pass once, whatever the host
// gives: a running record twice, or a job both pending and running.
TEST_F(GePlugin, DuplicateRunningRecordsAndAPendingJobGivenRunningCountOnce) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 100, 0}};
  store(ch);
  ASSERT_EQ(start("weight_tickets_functional 1000\n"), MFPRIO_OK) << p_->err();
  mfprio_job_t a = ge_job(1, "alice", 1, T0 - 600), b = ge_job(2, "bob", 1, T0 - 60);
  mfprio_job_t r = ge_job(3, "alice", 1, T0 - 900);
  r.state = MFPRIO_JOB_RUNNING;
  r.start_time = T0 - 300;
  const auto once = prioritize({a, b}, {r}, T0);
  const double ftckt_once = term(factors(a, T0), "ftckt").factor;
  EXPECT_EQ(prioritize({a, b}, {r, r, r}, T0), once);
  EXPECT_DOUBLE_EQ(term(factors(a, T0), "ftckt").factor, ftckt_once);
  mfprio_job_t a_running = a;
  a_running.state = MFPRIO_JOB_RUNNING;
  a_running.start_time = T0 - 10;
  EXPECT_EQ(prioritize({a, b}, {r, a_running}, T0), once);
  EXPECT_DOUBLE_EQ(term(factors(a, T0), "ftckt").factor, ftckt_once);
}

// A request of inf is refused for its job alone, and a
// huge one (1e307 x urgency 1000 is past the double range) keeps every
// urgency finite: no NaN priority, no "nan"/"inf" in the JSON.
TEST_F(GePlugin, InfiniteOrHugeRequestsKeepUrgencyFinite) {
  ASSERT_EQ(start("", "#name shortcut type relop requestable consumable default urgency\n"
                      "slots s INT <= YES YES 1 100\n"
                      "big b DOUBLE <= YES NO 0 1000\n"),
            MFPRIO_OK)
      << p_->err();
  mfprio_job_t huge = ge_job(1, "alice", 1, T0), old = ge_job(2, "bob", 1, T0 - 7200),
               young = ge_job(3, "carol", 1, T0 - 60), inf = ge_job(4, "dave", 1, T0);
  Attrs big{{"requests.big", "1e307"}}, infinite{{"requests.big", "inf"}};
  big.bind(&huge);
  infinite.bind(&inf);
  const std::vector<mfprio_job_t> pending = {huge, old, young, inf};
  std::vector<uint32_t> pr(4);
  std::vector<int> st(4);
  EXPECT_EQ(p_->ops.prioritize(pending.data(), 4, nullptr, 0, T0, pr.data(), st.data()), MFPRIO_EINVAL);
  EXPECT_NE(p_->err().find("job 4"), std::string::npos) << p_->err();
  EXPECT_EQ(st[3], MFPRIO_EINVAL);
  EXPECT_EQ(st[0], MFPRIO_OK);
  EXPECT_GT(pr[0], pr[1]);  // the huge request leads (not NaN -> 0)
  EXPECT_GE(pr[1], pr[2]);
  char* json = nullptr;
  ASSERT_EQ(p_->ops.job_factors_json(&huge, T0, &json), MFPRIO_OK) << p_->err();
  const std::string text = json;
  p_->ops.free_string(json);
  EXPECT_EQ(text.find("nan"), std::string::npos) << text;
  EXPECT_EQ(text.find("inf"), std::string::npos) << text;
  EXPECT_EQ(p_->ops.set_priority(&inf, T0, &pr[3]), MFPRIO_EINVAL);
}

// Two hosts on one store decay an hour
// once; a pass dated before the store's last one applies nothing and does
// not move it back.
TEST_F(GePlugin, TwoHostsOnOneStoreDecayEachHourOnce) {
  acct::AdminChanges ch;
  acct::AssocWrite a;
  a.rec.user = "alice", a.rec.account = "root", a.rec.shares = 50;
  ch.assocs = {a};
  ch.windows_family = "gridengine";
  ch.windows = {acct::WindowRow{"cpu", "alice", 0, 0, 1000.0}};
  store(ch);
  std::ofstream(dir_.file("sched.conf")) << "halftime 1\n";
  const std::vector<std::string> conf = {"AccountingStorageLoc=" + db(),
                                         "PriorityParameters=sched_conf=" + dir_.file("sched.conf")};
  OtherHost first(plugin_path("priority_gridengine.so"), conf), second(plugin_path("priority_gridengine.so"), conf);
  ASSERT_EQ(first.decay(T0), 0);
  p_ = std::make_unique<Plugin>(plugin_path("priority_gridengine.so"));
  ASSERT_EQ(p_->init(conf, T0), MFPRIO_OK) << p_->err();  // its state: last pass T0
  ASSERT_EQ(second.decay(T0 + kHour), 0);                 // the other host decays the hour
  const double hour = std::pow(1.0 - std::log(2.0) / 60.0, 60.0);  // Grid Engine's per-minute constant, 60 times
  ASSERT_EQ(p_->ops.decay(T0 + kHour / 2, nullptr, 0), MFPRIO_OK) << p_->err();  // before the store's last pass
  EXPECT_NEAR(share("alice", "usage"), 1000.0 * hour, 1e-6);
  ASSERT_EQ(p_->ops.decay(T0 + kHour, nullptr, 0), MFPRIO_OK) << p_->err();  // the same hour again
  EXPECT_NEAR(share("alice", "usage"), 1000.0 * hour, 1e-6);
  ASSERT_EQ(p_->ops.decay(T0 + 2 * kHour, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "usage"), 1000.0 * hour * hour, 1e-6);
}

// The pass keeps each record's parts from pass to pass by position (job id
// and a fingerprint of the attrs' texts): a queue changed between passes,
// attr texts rewritten in place (same pointers), a job held and let go, a
// second record of a job added, records dropped and reordered, a user name
// rewritten in place, a job's submit time and deadline changed (a requeue,
// qalter -dl), prices as a fresh plugin prices it.
TEST_F(GePlugin, PassesOverAChangingQueuePriceAsAFreshPlugin) {
  acct::AdminChanges ch;
  ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 300, 0}, {"user", "carol", 50, 0}};
  store(ch);
  const std::string conf =
      "weight_tickets_functional 1000\nweight_urgency 1\nweight_ticket 1\nweight_user 0.5\nweight_job 0.5\n"
      "weight_waiting_time 10\n";
  Attrs aa{{"job_share", "10"}}, ca{{"requests.tq", "yes"}}, ea{{"requests.uq", "yes"}}, da{{"job_share", "20"}};
  mfprio_job_t a = ge_job(1, "alice", 1, T0 - 600), b = ge_job(2, "bob", 2, T0 - 60);
  char c_user[] = "carol";  // rewritten in place in the last step
  mfprio_job_t c = ge_job(3, c_user, 1, T0 - 300), d = ge_job(4, "bob", 1, T0 - 30);
  mfprio_job_t e = ge_job(5, "carol", 2, T0 - 30);  // the highest urgency: carol's c in between
  aa.bind(&a);
  ca.bind(&c);
  ea.bind(&e);
  da.bind(&d);
  const char* const a_value = aa.a[0].value;
  mfprio_job_t c_other = c;
  c_other.partition = "other";
  // Each step changes the queue (or its records' texts) before its pass.
  const std::vector<std::function<std::vector<mfprio_job_t>()>> steps = {
      [&] { return std::vector<mfprio_job_t>{a, b, c, d}; },
      [&] {
        aa.kv[1] = "90";  // in place: the attr's value pointer stays
        return std::vector<mfprio_job_t>{a, b, c, d};
      },
      [&] {
        mfprio_job_t held = b;
        held.state = MFPRIO_JOB_HELD;
        return std::vector<mfprio_job_t>{a, held, c, d};
      },
      [&] { return std::vector<mfprio_job_t>{a, b, c, d, c_other}; },
      [&] { return std::vector<mfprio_job_t>{a, d, c, e}; },
      [&] {
        ca.kv[0] = "requests.uq";  // another queue (80000, not 40000), same length
        ca.bind(&c);
        return std::vector<mfprio_job_t>{a, d, c, e};
      },
      [&] {
        std::memcpy(c_user, "alice", 6);  // carol's job is alice's now: same pointer, same length
        return std::vector<mfprio_job_t>{a, d, c, e};
      },
      [&] {
        a.submit_time = T0 - 7200;  // requeued with an earlier submit time: a longer wait
        return std::vector<mfprio_job_t>{a, d, c, e};
      },
      [&] {
        a.deadline = T0 + 600;  // a deadline
        return std::vector<mfprio_job_t>{a, d, c, e};
      },
  };
  const auto reset = [&] {
    a.submit_time = T0 - 600;
    a.deadline = 0;
    std::memcpy(c_user, "carol", 6);
    aa.kv[1] = "10";
    ca.kv[0] = "requests.tq";
    ca.bind(&c);
  };
  // Fresh: a new plugin for each step's queue.
  std::vector<std::vector<uint32_t>> fresh;
  for (size_t k = 0; k < steps.size(); ++k) {
    reset();
    std::vector<mfprio_job_t> q;
    for (size_t i = 0; i <= k; ++i) q = steps[i]();
    p_.reset();
    ASSERT_EQ(start(conf, kSeedComplexes), MFPRIO_OK) << p_->err();
    fresh.push_back(prioritize(q, {}, T0));
  }
  EXPECT_NE(fresh[1][0], fresh[0][0]);  // the in-place -js changed alice's price
  EXPECT_NE(fresh[5][2], fresh[4][2]);  // and the renamed request carol's
  EXPECT_NE(fresh[6][2], fresh[5][2]);  // and the user rewritten in place carol's job
  EXPECT_NE(fresh[7][0], fresh[6][0]);  // and the earlier submit time alice's a
  EXPECT_NE(fresh[8][0], fresh[7][0]);  // and its deadline
  // Kept: one plugin through every step, each pass run three times (the
  // policy's passes alternate between kept arrays).
  reset();
  p_.reset();
  ASSERT_EQ(start(conf, kSeedComplexes), MFPRIO_OK) << p_->err();
  for (size_t k = 0; k < steps.size(); ++k) {
    const std::vector<mfprio_job_t> q = steps[k]();
    for (int rep = 0; rep < 3; ++rep) EXPECT_EQ(prioritize(q, {}, T0), fresh[k]) << "step " << k << " pass " << rep;
  }
  EXPECT_EQ(aa.a[0].value, a_value);  // (the -js text was rewritten in place)
}

// A usage pass makes a new state; while its names, ticket objects and share
// tree are the last state's it shares their tables and tree index, so what a
// pass kept for its jobs (their ids, flat records, leaves, scan, functional
// categories) stays good across usage passes.  Passes after each usage pass
// (a running job charged, the share tree's usage changed; the queue the
// same or a job gone), each run three times, price as a fresh plugin whose
// store went through the same usage passes.
TEST_F(GePlugin, PassesAcrossUsagePassesPriceAsAFreshPlugin) {
  const auto setup = [&] {
    acct::AdminChanges ch;
    for (const auto& [user, shares] : std::vector<std::pair<const char*, uint32_t>>{{"alice", 50}, {"bob", 30},
                                                                                   {"carol", 20}}) {
      acct::AssocWrite a;
      a.rec.user = user, a.rec.account = "root", a.rec.shares = shares;
      ch.assocs.push_back(a);
    }
    ch.ticket_objects = {{"user", "alice", 100, 0}, {"user", "bob", 300, 40}, {"user", "carol", 50, 0}};
    store(ch);
  };
  const std::string conf =
      "weight_tickets_functional 1000\nweight_tickets_share 1000\nweight_urgency 0.01\nweight_ticket 1\n"
      "weight_user 0.5\nweight_job 0.5\nhalftime 1\n";
  const char* users[] = {"alice", "bob", "carol"};
  std::vector<mfprio_job_t> q;
  for (uint64_t i = 0; i < 12; ++i) q.push_back(ge_job(10 + i, users[i % 3], 1 + i % 2, T0 - 60 * (i % 4)));
  Attrs js{{"job_share", "5"}};
  js.bind(&q[4]);
  mfprio_job_t run = ge_job(7, "alice", 4, T0 - kHour);
  run.state = MFPRIO_JOB_RUNNING;
  run.start_time = T0;
  const auto queue = [&](size_t round) {  // rounds 2 and 3: job 15 gone
    std::vector<mfprio_job_t> v = q;
    if (round >= 2) v.erase(v.begin() + 5);
    return v;
  };
  // Round 4: an admin change of bob's override tickets before its usage
  // pass (the same names, other objects: the tables are not shared).
  const auto admin = [&](size_t round) {
    if (round != 4) return;
    acct::AdminChanges ch;
    ch.ticket_objects = {{"user", "bob", 300, 4000}};
    store(ch);
  };
  const size_t rounds = 5;
  const auto when = [](size_t round) { return T0 + 600 * static_cast<int64_t>(round + 1); };
  // Kept: one plugin through every usage pass.
  db_name_ = "kept.db";
  setup();
  ASSERT_EQ(start(conf, kSeedComplexes), MFPRIO_OK) << p_->err();
  std::vector<std::vector<std::vector<uint32_t>>> kept(rounds);
  for (size_t k = 0; k < rounds; ++k) {
    admin(k);
    ASSERT_EQ(p_->ops.decay(when(k), &run, 1), MFPRIO_OK) << p_->err();
    for (int rep = 0; rep < 3; ++rep) kept[k].push_back(prioritize(queue(k), {run}, when(k)));
  }
  // Fresh: a new plugin on a store that went through the same usage passes.
  std::vector<std::vector<uint32_t>> fresh;
  for (size_t k = 0; k < rounds; ++k) {
    db_name_ = "fresh" + std::to_string(k) + ".db";
    setup();
    p_.reset();
    ASSERT_EQ(start(conf, kSeedComplexes), MFPRIO_OK) << p_->err();
    for (size_t i = 0; i <= k; ++i) {
      admin(i);
      ASSERT_EQ(p_->ops.decay(when(i), &run, 1), MFPRIO_OK) << p_->err();
    }
    fresh.push_back(prioritize(queue(k), {run}, when(k)));
    for (int rep = 0; rep < 3; ++rep) EXPECT_EQ(kept[k][rep], fresh[k]) << "round " << k << " pass " << rep;
  }
  EXPECT_NE(fresh[1], fresh[0]);  // the passes' prices move with the usage (and the time)
  EXPECT_NE(fresh[3], fresh[2]);
  EXPECT_NE(fresh[4], fresh[3]);
}

}  // namespace
}  // namespace mfprio::test
