// test_maui_priority.cpp - golden tests for maui_priority.cpp: the Maui and Moab
// "Job Priority Factors" chapters'
// numbers (XFACTOR table, PE 64, fair-share -25000, QUEUETIMEWEIGHT 20) and
// Maui 3.2 source's rules (defaults give FIFO, XFMINWCLIMIT, caps, clamps,
// targets, credentials, accrual, tie order, the term list).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "count_allocations.hpp"  // the fast path of price() allocates nothing
#include "maui_kernel.hpp"
#include "maui_priority.hpp"

namespace mfprio::maui {
namespace {

constexpr double kSix = 1e-6;
constexpr int64_t kNow = 1700000000;
constexpr int64_t kHour = 3600;

Config cfg_from(const std::string& text, Flavor f = Flavor::Maui) {
  Config c;
  std::string why;
  EXPECT_TRUE(parse_maui_cfg(text, "t.cfg", f, &c, &why)) << why;
  return c;
}

Model model_from(const std::string& text, Flavor f = Flavor::Maui) {
  Model m;
  m.cfg = cfg_from(text, f);
  return m;
}

// A job builder: queued `q` seconds before kNow, with a few setters.
struct JobB {
  Job j;
  JobB() {
    j.job_id = 1;
    j.user = "u";
    j.group = "g";
    j.submit_time = kNow;
    j.procs = 1;
    j.nodes = 1;
    j.wclimit = kHour;
  }
  JobB& id(uint64_t v) { j.job_id = v; return *this; }
  JobB& queued(int64_t s) { j.submit_time = kNow - s; return *this; }
  JobB& wc(int64_t s) { j.wclimit = s; return *this; }
  JobB& qos(const std::string& q) { j.qos = q; return *this; }
  JobB& user(const std::string& v) { j.user = v; return *this; }
  JobB& group(const std::string& v) { j.group = v; return *this; }
  JobB& account(const std::string& v) { j.account = v; return *this; }
  JobB& cls(const std::string& v) { j.cls = v; return *this; }
  JobB& procs(double v) { j.procs = v; return *this; }
  JobB& mem(double v) { j.mem_mb = v; return *this; }
  operator Job() const { return j; }
};

const Term& term(const std::vector<Term>& t, const std::string& name) {
  auto it = std::find_if(t.begin(), t.end(), [&](const Term& x) { return x.name == name; });
  EXPECT_NE(it, t.end()) << name;
  static const Term none;
  return it == t.end() ? none : *it;
}

double factor(const Model& m, const Job& j, const std::string& name) {
  std::vector<Term> t;
  price(m, j, kNow, &t);
  return term(t, name).factor;
}

// ---- SERV -------------------------------------------------------------------

TEST(MauiServ, XFactorTableOfTheSeed) {
  const Model m = model_from("XFACTORWEIGHT 1\n");
  const double one_h[] = {2, 3, 5, 9, 17};
  const double four_h[] = {1.25, 1.5, 2, 3, 5};
  const int hours[] = {1, 2, 4, 8, 16};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(factor(m, JobB().qos("q").wc(kHour).queued(hours[i] * kHour), "SERV.XFACTOR"),
                one_h[i], kSix);
    EXPECT_NEAR(factor(m, JobB().qos("q").wc(4 * kHour).queued(hours[i] * kHour), "SERV.XFACTOR"),
                four_h[i], kSix);
  }
  const Model moab = model_from("XFACTORWEIGHT 1\n", Flavor::Moab);
  EXPECT_NEAR(factor(moab, JobB().wc(4 * kHour).queued(16 * kHour), "SERV.XFACTOR"), 5.0, kSix);
}

TEST(MauiServ, XfMinWcLimitFloorsTheDenominatorForJobsWithAQos) {
  const Model m = model_from("XFACTORWEIGHT 1\n");  // XFMINWCLIMIT 120 by default
  // A 60 s job queued 600 s: (600 + 60) / max(120, 60) = 5.5, not 1 + 600/120 = 6.
  EXPECT_NEAR(factor(m, JobB().qos("q").wc(60).queued(600), "SERV.XFACTOR"), 5.5, kSix);
  // Maui: no QOS -> MinWCLimit 0 -> (600 + 60) / 60.
  EXPECT_NEAR(factor(m, JobB().wc(60).queued(600), "SERV.XFACTOR"), 11.0, kSix);
  // Long jobs are unaffected.
  EXPECT_NEAR(factor(m, JobB().qos("q").wc(kHour).queued(kHour), "SERV.XFACTOR"), 2.0, kSix);
  // Moab applies it with or without a QOS.
  const Model moab = model_from("XFACTORWEIGHT 1\nXFMINWCLIMIT 2:00\n", Flavor::Moab);
  EXPECT_NEAR(factor(moab, JobB().wc(60).queued(600), "SERV.XFACTOR"), 660.0 / 7200.0, kSix);
  // Zero walltime and no floor: guarded (Maui divides by zero).
  EXPECT_NEAR(factor(m, JobB().wc(0).queued(600), "SERV.XFACTOR"), 600.0, kSix);
}

TEST(MauiServ, QueueTimeWeight20Over4h20mGives5200) {
  const Model m = model_from("QUEUETIMEWEIGHT 20\n");
  const Result r = price(m, JobB().queued(4 * kHour + 20 * 60), kNow, nullptr);
  EXPECT_NEAR(r.total_unclamped, 5200.0, kSix);
  EXPECT_EQ(r.priority, 5200u);
}

TEST(MauiServ, QueueTimeIsFractionalMinutesInMauiWholeMinutesInMoab) {
  const Job j = JobB().queued(4 * kHour + 20 * 60 + 30);
  EXPECT_NEAR(price(model_from("QUEUETIMEWEIGHT 20\n"), j, kNow, nullptr).total_unclamped,
              5210.0, kSix);
  EXPECT_NEAR(price(model_from("QUEUETIMEWEIGHT 20\n", Flavor::Moab), j, kNow, nullptr)
                  .total_unclamped,
              5200.0, kSix);
}

TEST(MauiServ, FutureSubmitCountsAsZeroQueueTime) {
  const Model m = model_from("XFACTORWEIGHT 1\n");
  Job j = JobB().qos("q").wc(kHour);
  j.submit_time = kNow + 100;
  EXPECT_NEAR(factor(m, j, "SERV.QUEUETIME"), 0.0, kSix);
  EXPECT_NEAR(factor(m, j, "SERV.XFACTOR"), 1.0, kSix);
}

TEST(MauiServ, QosQtWeightAndXfWeightAddToTheSubWeights) {
  const Model m = model_from("QUEUETIMEWEIGHT 2\nXFACTORWEIGHT 0\nQOSCFG[hi] QTWEIGHT=3 XFWEIGHT=100\n");
  std::vector<Term> t;
  const Result r = price(m, JobB().qos("hi").queued(10 * 60).wc(kHour), kNow, &t);
  EXPECT_NEAR(term(t, "SERV.QUEUETIME").weight, 5.0, kSix);
  EXPECT_NEAR(term(t, "SERV.XFACTOR").weight, 100.0, kSix);
  EXPECT_NEAR(r.total_unclamped, 5 * 10 + 100 * (600.0 + 3600.0) / 3600.0, kSix);
}

TEST(MauiServ, BypassSpViolationAndMoabExtras) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nBYPASSWEIGHT 10\nSPVIOLATIONWEIGHT -100\n"
      "STARTCOUNTWEIGHT 7\nDEADLINEWEIGHT 1000\nUSERPRIOWEIGHT 1\n";
  Job j = JobB();
  j.bypass = 3;
  j.sp_violation = true;
  j.start_count = 2;
  j.deadline = kNow + 999;
  j.user_prio = -20;
  EXPECT_NEAR(price(model_from(text), j, kNow, nullptr).total_unclamped, 30 - 100, kSix);
  EXPECT_NEAR(price(model_from(text, Flavor::Moab), j, kNow, nullptr).total_unclamped,
              30 - 100 + 14 + 1000.0 / 1000.0 - 20, kSix);
}

// ---- defaults: FIFO -----------------------------------------------------------

TEST(MauiDefaults, DefaultConfigurationOrdersByQueueTime) {
  const Model m = model_from("");
  struct Row { uint64_t id; int64_t queued; uint32_t prio = 0; };
  std::vector<Row> rows = {{5, 30}, {4, 3 * kHour}, {3, 61}, {2, 59 * 60 + 59}, {1, 0}, {6, 30}};
  for (Row& r : rows) r.prio = price(m, JobB().id(r.id).queued(r.queued), kNow, nullptr).priority;
  // max(1, trunc(minutes)).
  EXPECT_EQ(rows[0].prio, 1u);
  EXPECT_EQ(rows[1].prio, 180u);
  EXPECT_EQ(rows[2].prio, 1u);
  EXPECT_EQ(rows[3].prio, 59u);
  EXPECT_EQ(rows[4].prio, 1u);
  std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
    return ranks_before(a.prio, kNow - a.queued, a.id, b.prio, kNow - b.queued, b.id);
  });
  // FIFO: earliest submission first; the equal-priority tail by submit, then id.
  const uint64_t want[] = {4, 2, 3, 5, 6, 1};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(rows[i].id, want[i]) << i;
}

TEST(MauiOrder, TiesBreakBySubmitTimeThenJobId) {
  EXPECT_TRUE(ranks_before(10, 500, 9, 9, 100, 1));   // priority first
  EXPECT_TRUE(ranks_before(10, 100, 9, 10, 500, 1));  // then earlier submit
  EXPECT_TRUE(ranks_before(10, 100, 1, 10, 100, 2));  // then smaller id
  EXPECT_FALSE(ranks_before(10, 100, 2, 10, 100, 2));  // irreflexive
}

// ---- TARG -------------------------------------------------------------------

TEST(MauiTarg, QueueTimeTargetGrowsAsThousandToTheFractionReached) {
  const Model m = model_from("TARGETQUEUETIMEWEIGHT 1\nQOSCFG[t] QTTARGET=2:00:00\n");
  EXPECT_NEAR(factor(m, JobB().qos("t").queued(0), "TARG.QUEUETIME"), 1.0, kSix);
  EXPECT_NEAR(factor(m, JobB().qos("t").queued(kHour), "TARG.QUEUETIME"), 31.622777, kSix);
  EXPECT_NEAR(factor(m, JobB().qos("t").queued(2 * kHour), "TARG.QUEUETIME"), 1000.0, kSix);
  EXPECT_NEAR(factor(m, JobB().qos("t").queued(9 * kHour), "TARG.QUEUETIME"), 1000.0, kSix);
  EXPECT_NEAR(factor(m, JobB().qos("other").queued(kHour), "TARG.QUEUETIME"), 0.0, kSix);
}

TEST(MauiTarg, XFactorTargetIsInverseSquareOfTheDistance) {
  const Model m = model_from("TARGETXFACTORWEIGHT 1\nQOSCFG[a] XFTARGET=4\nQOSCFG[b] XFTARGET=2.1\n");
  // 1 h job queued 1 h: XFACTOR 2.
  EXPECT_NEAR(factor(m, JobB().qos("a").queued(kHour), "TARG.XFACTOR"), 0.25, kSix);
  EXPECT_NEAR(factor(m, JobB().qos("b").queued(kHour), "TARG.XFACTOR"), 100.0, 1e-4);
  EXPECT_NEAR(factor(m, JobB().qos("a").queued(5 * kHour), "TARG.XFACTOR"), 1e8, kSix);
}

// ---- CRED -------------------------------------------------------------------

TEST(MauiCred, SeedExampleUserAndGroupPriorities) {
  const Model m = model_from(
      "QUEUETIMEWEIGHT 0\nCREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\n"
      "USERCFG[john] PRIORITY=2000\nUSERCFG[paul] PRIORITY=-1000\nGROUPCFG[staff] PRIORITY=10000\n");
  EXPECT_EQ(price(m, JobB().user("john").group("staff"), kNow, nullptr).priority, 12000u);
  EXPECT_EQ(price(m, JobB().user("paul").group("staff"), kNow, nullptr).priority, 9000u);
}

TEST(MauiCred, DefaultCredentialFillsInButNotForQosInMaui) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nUSERWEIGHT 1\nACCOUNTWEIGHT 10\nQOSWEIGHT 100\nCLASSWEIGHT 1000\n"
      "USERCFG[DEFAULT] PRIORITY=1\nUSERCFG[vip] PRIORITY=5\nACCOUNTCFG[DEFAULT] PRIORITY=2\n"
      "QOSCFG[DEFAULT] PRIORITY=3\nCLASSCFG[DEFAULT] PRIORITY=4\n";
  const Job j = JobB().user("x").account("a").qos("q").cls("batch");
  EXPECT_NEAR(price(model_from(text), j, kNow, nullptr).total_unclamped, 1 + 20 + 0 + 4000, kSix);
  EXPECT_NEAR(price(model_from(text, Flavor::Moab), j, kNow, nullptr).total_unclamped,
              1 + 20 + 300 + 4000, kSix);
  EXPECT_NEAR(price(model_from(text), JobB().user("vip"), kNow, nullptr).total_unclamped,
              5 + 20 + 4000, kSix);  // no account/class given: DEFAULT still applies
}

TEST(MauiCred, GroupClassWeightReplacesClassWeight) {
  const Model m = model_from(
      "QUEUETIMEWEIGHT 0\nCLASSWEIGHT 2\nCLASSCFG[batch] PRIORITY=10\n"
      "GROUPCFG[fav] CLASSWEIGHT=50\nGROUPCFG[zero] CLASSWEIGHT=0\n");
  EXPECT_EQ(price(m, JobB().group("fav").cls("batch"), kNow, nullptr).priority, 500u);
  EXPECT_EQ(price(m, JobB().group("zero").cls("batch"), kNow, nullptr).priority, 20u);
  EXPECT_EQ(price(m, JobB().group("other").cls("batch"), kNow, nullptr).priority, 20u);
}

// ---- FS -------------------------------------------------------------------

Model seed_fs_model() {
  // Maui 3.2 Administrator's Guide §5.1.2.2: user A 50 / 45, group B none / 65, account C 25 / 35,
  // QOS D 10+ / 25, class E none / 20.
  Model m = model_from(
      "QUEUETIMEWEIGHT 0\nFSPOLICY DEDICATEDPS\n"
      "FSWEIGHT 100\nFSUSERWEIGHT 10\nFSGROUPWEIGHT 20\nFSACCOUNTWEIGHT 30\n"
      "FSQOSWEIGHT 40\nFSCLASSWEIGHT 0\n"
      "USERCFG[A] FSTARGET=50\nACCOUNTCFG[C] FSTARGET=25\nQOSCFG[D] FSTARGET=10+\n");
  FsUsage u;
  u.total = 1000.0;
  u.by_name[0]["A"] = 450;
  u.by_name[1]["B"] = 650;
  u.by_name[2]["C"] = 350;
  u.by_name[3]["D"] = 250;
  u.by_name[4]["E"] = 200;
  m.fs = build_fs_view(m.cfg, u);
  return m;
}

TEST(MauiFs, SeedExampleGivesMinus25000) {
  const Model m = seed_fs_model();
  std::vector<Term> t;
  const Job j = JobB().user("A").group("B").account("C").qos("D").cls("E");
  const Result r = price(m, j, kNow, &t);
  EXPECT_NEAR(term(t, "FS.USER").factor, 5.0, kSix);
  EXPECT_NEAR(term(t, "FS.GROUP").factor, 0.0, kSix);
  EXPECT_NEAR(term(t, "FS.ACCOUNT").factor, -10.0, kSix);
  EXPECT_NEAR(term(t, "FS.QOS").factor, 0.0, kSix);
  EXPECT_NEAR(term(t, "FS.CLASS").factor, 0.0, kSix);
  EXPECT_NEAR(term(t, "FS").factor, -250.0, kSix);
  EXPECT_NEAR(term(t, "FS").contribution, -25000.0, kSix);
  EXPECT_NEAR(r.total_unclamped, -25000.0, kSix);
  EXPECT_EQ(r.priority, 1u);
  EXPECT_TRUE(r.clamped_low);
}

TEST(MauiFs, FsCapClipsOnlyFromAboveInMaui) {
  Model m = seed_fs_model();
  m.cfg.comp_cap[static_cast<int>(Component::Fs)] = 100;
  const Job j = JobB().user("A").group("B").account("C").qos("D").cls("E");
  std::vector<Term> t;
  price(m, j, kNow, &t);
  EXPECT_NEAR(term(t, "FS").factor, -250.0, kSix);
  EXPECT_FALSE(term(t, "FS").bound);
}

// ---- RES -------------------------------------------------------------------

TEST(MauiRes, PeOf64AndTheOtherResourceFactors) {
  Model m = model_from("QUEUETIMEWEIGHT 0\nPEWEIGHT 1\nPSWEIGHT 0\nWALLTIMEWEIGHT 0\n");
  m.totals.procs = 128;
  m.totals.mem_mb = 65536;
  std::vector<Term> t;
  const Job j = JobB().procs(32).mem(32768).wc(2 * kHour);
  const Result r = price(m, j, kNow, &t);
  EXPECT_NEAR(term(t, "RES.PE").factor, 64.0, kSix);
  EXPECT_EQ(r.priority, 64u);
  EXPECT_NEAR(term(t, "RES.PS").factor, 32.0 * 7200, kSix);
  EXPECT_NEAR(term(t, "RES.WALLTIME").factor, 7200.0, kSix);
  EXPECT_NEAR(term(t, "RES.MEM").factor, 32768.0, kSix);
  EXPECT_NEAR(term(t, "RES.PROC").factor, 32.0, kSix);
}

// ---- caps ------------------------------------------------------------------

TEST(MauiCaps, MoabCapsBindBothSignsMauiOnlyFromAbove) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nUSERWEIGHT 1\nUSERCAP 1000\n"
      "USERCFG[hi] PRIORITY=5000\nUSERCFG[lo] PRIORITY=-5000\n";
  for (Flavor f : {Flavor::Maui, Flavor::Moab}) {
    const Model m = model_from(text, f);
    std::vector<Term> t;
    price(m, JobB().user("hi"), kNow, &t);
    EXPECT_NEAR(term(t, "CRED.USER").factor, 1000.0, kSix);
    EXPECT_TRUE(term(t, "CRED.USER").bound);
    price(m, JobB().user("lo"), kNow, &t);
    const bool moab = f == Flavor::Moab;
    EXPECT_NEAR(term(t, "CRED.USER").factor, moab ? -1000.0 : -5000.0, kSix);
    EXPECT_EQ(term(t, "CRED.USER").bound, moab);
  }
}

TEST(MauiCaps, MoabComponentCapOfEachSign) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nCREDWEIGHT 2\nUSERWEIGHT 1\nCREDCAP 300\n"
      "USERCFG[hi] PRIORITY=5000\nUSERCFG[lo] PRIORITY=-5000\n";
  const Model moab = model_from(text, Flavor::Moab);
  std::vector<Term> t;
  Result r = price(moab, JobB().user("hi"), kNow, &t);
  EXPECT_NEAR(term(t, "CRED").factor, 300.0, kSix);
  EXPECT_TRUE(term(t, "CRED").bound);
  EXPECT_NEAR(r.total_unclamped, 600.0, kSix);
  r = price(moab, JobB().user("lo"), kNow, &t);
  EXPECT_NEAR(term(t, "CRED").factor, -300.0, kSix);
  EXPECT_NEAR(r.total_unclamped, -600.0, kSix);
  const Model maui = model_from(text);
  r = price(maui, JobB().user("lo"), kNow, &t);
  EXPECT_NEAR(r.total_unclamped, -10000.0, kSix);
  EXPECT_FALSE(term(t, "CRED").bound);
}

TEST(MauiCaps, MoabTargetSubFactorsAreCappedOnlyFromAbove) {
  const Model m = model_from(
      "QUEUETIMEWEIGHT 0\nTARGETQUEUETIMEWEIGHT 1\nTARGETQUEUETIMECAP 100\n"
      "QOSCFG[t] QTTARGET=3600\n", Flavor::Moab);
  std::vector<Term> t;
  price(m, JobB().qos("t").queued(2 * kHour), kNow, &t);
  EXPECT_NEAR(term(t, "TARG.QUEUETIME").factor, 100.0, kSix);
  EXPECT_TRUE(term(t, "TARG.QUEUETIME").bound);
}

TEST(MauiCaps, ZeroOrNegativeCapMeansNone) {
  const Model m = model_from("QUEUETIMEWEIGHT 1\nQUEUETIMECAP -10\nSERVICEWCAP 0\n");
  EXPECT_EQ(price(m, JobB().queued(100 * 60), kNow, nullptr).priority, 100u);
}

// ---- clamps ----------------------------------------------------------------

TEST(MauiClamp, NegativeTotalBecomesOne) {
  const Model m = model_from("QUEUETIMEWEIGHT 0\nUSERWEIGHT 1\nUSERCFG[u] PRIORITY=-7\n");
  const Result r = price(m, JobB(), kNow, nullptr);
  EXPECT_NEAR(r.total_unclamped, -7.0, kSix);
  EXPECT_EQ(r.priority, 1u);
  EXPECT_TRUE(r.clamped_low);
  EXPECT_FALSE(r.clamped_high);
}

TEST(MauiClamp, HugeTotalBecomesOneBillion) {
  const Model m = model_from("QUEUETIMEWEIGHT 0\nUSERWEIGHT 1000000\nUSERCFG[u] PRIORITY=2000000\n");
  const Result r = price(m, JobB(), kNow, nullptr);
  EXPECT_NEAR(r.total_unclamped, 2e12, kSix);
  EXPECT_EQ(r.priority, 1000000000u);
  EXPECT_TRUE(r.clamped_high);
  EXPECT_FALSE(r.clamped_low);
}

TEST(MauiClamp, FractionalTotalIsTruncated) {
  const Model m = model_from("");
  const Result r = price(m, JobB().queued(179), kNow, nullptr);  // 2.983 minutes
  EXPECT_NEAR(r.total_unclamped, 179.0 / 60.0, kSix);
  EXPECT_EQ(r.priority, 2u);
  EXPECT_FALSE(r.clamped_low);
}

// ---- USAGE -----------------------------------------------------------------

TEST(MauiUsage, ZeroInMauiRunPriorityTermsInMoab) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nCONSUMEDWEIGHT 1\nREMAININGWEIGHT 1\nPERCENTWEIGHT 1\n"
      "USAGEEXECUTIONTIMEWEIGHT 1\n";
  Job j = JobB().procs(4).wc(1000);
  j.running = true;
  j.elapsed = 300;
  EXPECT_EQ(price(model_from(text), j, kNow, nullptr).priority, 1u);
  std::vector<Term> t;
  price(model_from(text, Flavor::Moab), j, kNow, &t);
  EXPECT_NEAR(term(t, "USAGE.CONSUMED").factor, 1200.0, kSix);
  EXPECT_NEAR(term(t, "USAGE.REMAINING").factor, 2800.0, kSix);
  EXPECT_NEAR(term(t, "USAGE.PERCENT").factor, 42.0, kSix);  // 300*100/700, integer
  EXPECT_NEAR(term(t, "USAGE.EXECUTIONTIME").factor, 300.0, kSix);
}

// ---- accrual ---------------------------------------------------------------

TEST(MauiAccrual, QueuePolicyResetsOnHardLimitsOnly) {
  Accrual a{1000, -1};
  accrual_step(AccrualPolicy::QueuePolicy, Block::None, 1600, &a);
  EXPECT_EQ(a.eff_queue_duration, 600);
  accrual_step(AccrualPolicy::QueuePolicy, Block::Other, 2000, &a);  // hold: frozen
  EXPECT_EQ(a.system_queue_time, 1000);
  EXPECT_EQ(a.eff_queue_duration, 600);
  accrual_step(AccrualPolicy::QueuePolicy, Block::None, 2200, &a);  // hold time counts
  EXPECT_EQ(a.eff_queue_duration, 1200);
  accrual_step(AccrualPolicy::QueuePolicy, Block::HardLimit, 3000, &a);
  EXPECT_EQ(a.system_queue_time, 3000);
  EXPECT_EQ(a.eff_queue_duration, 1200);  // frozen while blocked
  accrual_step(AccrualPolicy::QueuePolicy, Block::None, 3060, &a);
  EXPECT_EQ(a.eff_queue_duration, 60);    // restarted
}

TEST(MauiAccrual, FullPolicyResetsOnAnyBlockAlwaysNever) {
  Accrual a{1000, -1};
  accrual_step(AccrualPolicy::FullPolicy, Block::Other, 2000, &a);
  EXPECT_EQ(a.system_queue_time, 2000);
  accrual_step(AccrualPolicy::FullPolicy, Block::StartDate, 2500, &a);
  EXPECT_EQ(a.system_queue_time, 2000);
  Accrual b{1000, -1};
  accrual_step(AccrualPolicy::Always, Block::HardLimit, 2000, &b);
  accrual_step(AccrualPolicy::Always, Block::Other, 2100, &b);
  accrual_step(AccrualPolicy::Always, Block::None, 2200, &b);
  EXPECT_EQ(b.system_queue_time, 1000);
  EXPECT_EQ(b.eff_queue_duration, 1200);
}

TEST(MauiAccrual, EffectiveQueueDurationDrivesQueueTime) {
  const Model m = model_from("");
  Job j = JobB().queued(10 * kHour);
  j.eff_queue_duration = 30 * 60;
  EXPECT_EQ(price(m, j, kNow, nullptr).priority, 30u);
  j.eff_queue_duration = 0;  // Maui: not > 0 -> from submit
  EXPECT_EQ(price(m, j, kNow, nullptr).priority, 600u);
  EXPECT_EQ(price(model_from("", Flavor::Moab), j, kNow, nullptr).priority, 1u);  // Moab: >= 0
  j.eff_queue_duration = -1;
  j.system_queue_time = kNow - 2 * kHour;
  EXPECT_EQ(price(model_from("USESYSTEMQUEUETIME TRUE\n"), j, kNow, nullptr).priority, 120u);
  EXPECT_EQ(price(m, j, kNow, nullptr).priority, 600u);
}

// ---- terms -----------------------------------------------------------------

TEST(MauiTerms, ComponentsThenTheirSubsAndContributionsAddUp) {
  Model m = seed_fs_model();
  m.cfg.sub_weight[static_cast<int>(Sub::QueueTime)] = 3;
  m.cfg.comp_weight[static_cast<int>(Component::Serv)] = 2;
  std::vector<Term> t;
  const Job j = JobB().user("A").group("B").account("C").qos("D").cls("E").queued(kHour);
  const Result r = price(m, j, kNow, &t);
  const char* comps[] = {"SERV", "TARG", "CRED", "ATTR", "FS", "RES", "USAGE"};
  int ci = 0;
  double sum = 0;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].parent == -1) {
      ASSERT_LT(ci, 7);
      EXPECT_EQ(t[i].name, comps[ci++]);
      sum += t[i].contribution;
      double subs = 0;
      for (size_t k = i + 1; k < t.size() && t[k].parent != -1; ++k) {
        EXPECT_EQ(t[k].parent, static_cast<int>(i));
        EXPECT_EQ(t[k].name.rfind(t[i].name + ".", 0), 0u);
        subs += t[k].contribution;
      }
      EXPECT_NEAR(subs, t[i].contribution, kSix) << t[i].name;
    }
  }
  EXPECT_EQ(ci, 7);
  EXPECT_NEAR(sum, r.total_unclamped, kSix);
  EXPECT_NEAR(term(t, "SERV.QUEUETIME").weight, 6.0, kSix);  // 3 x SERVICEWEIGHT 2
  EXPECT_NEAR(term(t, "SERV.QUEUETIME").contribution, 360.0, kSix);
  // Maui lists no Moab-only sub-component and never UPROC/UJOB.
  for (const Term& x : t) {
    EXPECT_NE(x.name, "SERV.STARTCOUNT");
    EXPECT_NE(x.name, "RES.UPROC");
  }
  EXPECT_EQ(t.size(), 7u + 4 + 2 + 5 + 2 + 5 + 8 + 4);
}

TEST(MauiTerms, ExplainedAndFastPathsAgree) {
  const Model m = seed_fs_model();
  std::vector<Term> t;
  for (int q : {0, 59, 3600, 86400}) {
    const Job j = JobB().user("A").account("C").queued(q);
    const Result a = price(m, j, kNow, nullptr);
    const Result b = price(m, j, kNow, &t);
    EXPECT_EQ(a.priority, b.priority);
    EXPECT_EQ(a.total_unclamped, b.total_unclamped);
  }
}

TEST(MauiFast, PriceWithoutTermsAllocatesNothing) {
  for (Flavor f : {Flavor::Maui, Flavor::Moab}) {
    Model m = seed_fs_model();
    m.cfg.flavor = f;
    m.user_activity["A"].active_jobs = 3;
    m.cfg.creds[static_cast<int>(CredKind::Qos)]["D"].qt_target = 600;
    m.cfg.creds[static_cast<int>(CredKind::Qos)]["D"].xf_target = 3;
    m.totals.procs = 64;
    m.totals.mem_mb = 1024;
    Job j = JobB().user("A").group("B").account("C").qos("D").cls("E").queued(kHour).mem(100);
    j.running = true;
    j.elapsed = 10;
    const long before = mfprio::test::allocations();
    uint64_t sum = 0;
    for (int i = 0; i < 1000; ++i) sum += price(m, j, kNow + i, nullptr).priority;
    EXPECT_EQ(mfprio::test::allocations(), before) << (f == Flavor::Maui ? "maui" : "moab");
    EXPECT_GT(sum, 0u);
  }
}

// A state prices by name with the kernel constants it formed once with its
// model (FastPlan::k; they were formed again on every call): the same
// numbers, bit for bit, and the constants given are the ones used.
TEST(MauiPrice, ConstantsFormedOnceGiveTheSameNumbersAsPerCall) {
  const std::string text =
      "QUEUETIMEWEIGHT 20\nXFACTORWEIGHT 5\nSERVICECAP 4000\nCREDWEIGHT 2\nUSERWEIGHT 3\nQOSWEIGHT 7\n"
      "USERCFG[A] PRIORITY=50\nQOSCFG[D] PRIORITY=9 QTTARGET=600\nRESWEIGHT 4\nPROCWEIGHT 6\nRESCAP 100\n";
  for (Flavor f : {Flavor::Maui, Flavor::Moab}) {
    const Model m = model_from(text, f);
    KernelConsts k;
    fill_kernel_consts(m.cfg, &k);
    for (int64_t q : {int64_t{0}, int64_t{60}, kHour, 30 * kHour}) {
      const Job j = JobB().user("A").qos("D").queued(q).procs(static_cast<double>(q % 7 + 1));
      std::vector<Term> t1, t2;
      const Result a = price(m, j, kNow, &t1), b = price(m, k, j, kNow, &t2);
      EXPECT_EQ(a.total_unclamped, b.total_unclamped) << q;
      EXPECT_EQ(a.priority, b.priority) << q;
      ASSERT_EQ(t1.size(), t2.size());
      for (size_t i = 0; i < t1.size(); ++i) EXPECT_EQ(t1[i].contribution, t2[i].contribution) << t1[i].name;
      EXPECT_EQ(price(m, k, j, kNow, nullptr).priority, a.priority);
    }
    // Another cfg's constants (QUEUETIMEWEIGHT 40): the ones given are used.
    KernelConsts other;
    fill_kernel_consts(model_from("QUEUETIMEWEIGHT 40\n", f).cfg, &other);
    const Job j = JobB().queued(kHour);
    EXPECT_NE(price(m, other, j, kNow, nullptr).total_unclamped, price(m, j, kNow, nullptr).total_unclamped);
    const long before = mfprio::test::allocations();
    uint64_t sum = 0;
    for (int i = 0; i < 100; ++i) sum += price(m, k, j, kNow + i, nullptr).priority;
    EXPECT_EQ(mfprio::test::allocations(), before);
    EXPECT_GT(sum, 0u);
  }
}

// ---- Moab extras --------------------------------------------------------------

TEST(MoabFs, CredentialFsWeightsAddToTheFsComponentWeight) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\nFSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 1\n"
      "USERCFG[u] FSTARGET=60\nGROUPCFG[g] FSWEIGHT=2\nACCOUNTCFG[a] FSWEIGHT=3\n"
      "QOSCFG[q] FSWEIGHT=4\n";
  Model m = model_from(text, Flavor::Moab);
  FsUsage u;
  u.total = 100;
  u.by_name[0]["u"] = 50;
  m.fs = build_fs_view(m.cfg, u);
  std::vector<Term> t;
  const Result r = price(m, JobB().account("a").qos("q"), kNow, &t);
  EXPECT_NEAR(term(t, "FS").weight, 10.0, kSix);
  EXPECT_NEAR(r.total_unclamped, 100.0, kSix);
}

TEST(MoabFs, UserActivitySubFactors) {
  Model m = model_from("QUEUETIMEWEIGHT 0\nFSJPUWEIGHT 1\nFSPPUWEIGHT 10\nFSPSPUWEIGHT 100\n"
                       "WCACCURACYWEIGHT 1000\n", Flavor::Moab);
  m.user_activity["u"] = {2, 3, 4, 0.5};
  EXPECT_NEAR(price(m, JobB(), kNow, nullptr).total_unclamped, 2 + 30 + 400 + 500, kSix);
  EXPECT_NEAR(price(m, JobB().user("other"), kNow, nullptr).total_unclamped, 0, kSix);
}

TEST(MoabAttr, AttributeStateAndGresPrioritiesCountOnlyInMoab) {
  const std::string text = "QUEUETIMEWEIGHT 0\nATTRWEIGHT 100\nATTRATTRWEIGHT 1\n"
                           "ATTRSTATEWEIGHT 1\nATTRGRESWEIGHT 5\n";
  Job j = JobB();
  j.attr_prio = 30;
  j.state_prio = -200;
  j.gres_prio = 400;
  EXPECT_NEAR(price(model_from(text, Flavor::Moab), j, kNow, nullptr).total_unclamped,
              100 * (30 - 200 + 2000), kSix);
  EXPECT_EQ(price(model_from(text), j, kNow, nullptr).priority, 1u);  // Maui: NYI
}

TEST(MauiFs, PercentPolicyGivesRelativeDeltas) {
  Model m = model_from("QUEUETIMEWEIGHT 0\nFSPOLICY DEDICATEDPS%\nFSWEIGHT 1000\nFSUSERWEIGHT 1\n"
                       "USERCFG[u] FSTARGET=40\n");
  FsUsage u;
  u.total = 100;
  u.by_name[0]["u"] = 10;  // 10% of a 40% target: 1 - 0.25 = 0.75
  m.fs = build_fs_view(m.cfg, u);
  EXPECT_EQ(price(m, JobB(), kNow, nullptr).priority, 750u);
}

// ---- end to end: cfg -> ledger -> view -> price -------------------------------

TEST(MauiEndToEnd, UsageChargedThroughTheLedgerSteersPriority) {
  const std::string text =
      "QUEUETIMEWEIGHT 0\n"
      "FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00\nFSDEPTH 2\nFSDECAY 0.5\n"
      "FSWEIGHT 10\nFSUSERWEIGHT 1\nUSERCFG[DEFAULT] FSTARGET=50\n";
  Model m = model_from(text);
  const int64_t I = m.cfg.fs_interval;
  ASSERT_EQ(I, 3600);
  const int64_t t0 = (kNow / I) * I;  // a window boundary
  FsLedger ledger(I, t0);
  CredNames heavy, light;
  heavy.name[0] = "heavy";
  light.name[0] = "light";
  // Previous window: heavy ran 3 procs for the whole hour, light 1 proc.
  ledger.charge_interval(heavy, t0, t0 + I, fs_charge_amount(m.cfg.fs_policy, 3, 0, -1, 1.0));
  ledger.charge_interval(light, t0, t0 + I, fs_charge_amount(m.cfg.fs_policy, 1, 0, -1, 1.0));
  // Current window: only light, 1 proc for half an hour.
  ledger.advance_to(t0 + I + 1800);
  ledger.charge_interval(light, t0 + I, t0 + I + 1800, 1.0);
  const FsUsage u = ledger.decayed(m.cfg.fs_depth, m.cfg.fs_decay);
  // heavy: 10800 * 0.5 = 5400; light: 1800 + 3600 * 0.5 = 3600; total 9000.
  EXPECT_NEAR(u.by_name[0].at("heavy"), 5400.0, kSix);
  EXPECT_NEAR(u.by_name[0].at("light"), 3600.0, kSix);
  EXPECT_NEAR(u.total, 9000.0, kSix);
  m.fs = build_fs_view(m.cfg, u);
  const int64_t now = t0 + I + 1800;
  // heavy 60% of a 50% target: -10 -> 10 * -10 = -100 -> 1; light 40%: +10 -> 100.
  EXPECT_NEAR(price(m, JobB().user("heavy"), now, nullptr).total_unclamped, -100.0, kSix);
  EXPECT_EQ(price(m, JobB().user("light"), now, nullptr).priority, 100u);
  EXPECT_EQ(price(m, JobB().user("newcomer"), now, nullptr).priority, 500u);  // 0% used
}

TEST(MauiProperties, DefaultPriorityNeverDecreasesWithQueueTime) {
  const Model m = model_from("");
  uint32_t prev = 0;
  for (int64_t q = 0; q < 40 * 86400; q += 997) {
    const uint32_t p = price(m, JobB().queued(q), kNow, nullptr).priority;
    EXPECT_GE(p, prev);
    EXPECT_GE(p, 1u);
    prev = p;
  }
}

}  // namespace
}  // namespace mfprio::maui
