// test_maui_plugin.cpp - priority_maui.so / priority_moab.so through the C
// ABI: real dlopen, the admin's maui.cfg read from a file, fair-share
// windows in a real SQLite store charged by decay and job_end.
#include <gtest/gtest.h>
#include <jansson.h>

#include <algorithm>
#include <set>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "../multifactor/harness.hpp"
#include "record_faults.hpp"
#include "import_export.hpp"

namespace mfprio::test {
namespace {

constexpr int64_t kHour = 3600;
constexpr int64_t T0 = 1'700'000'000 - (1'700'000'000 % kHour);  // a window boundary

class MauiPlugin : public ::testing::Test {
 protected:
  int start(const std::string& cfg_text, const char* so = "priority_maui.so", bool store = true) {
    cfg_ = dir_.file("maui.cfg");
    std::ofstream(cfg_) << cfg_text;
    p_ = std::make_unique<Plugin>(plugin_path(so));
    p_->cpus = 64;
    std::vector<std::string> conf = {"PriorityParameters=config=" + cfg_};
    if (store) conf.push_back("AccountingStorageLoc=" + store_location(dir_, "acct.db"));
    return p_->init(conf, T0);
  }
  // plugin_info_json parsed (null, and the test failed, when it is not JSON);
  // *text is the document, for messages.
  struct JsonFree {
    void operator()(json_t* j) const { json_decref(j); }
  };
  std::unique_ptr<json_t, JsonFree> info(std::string* text) {
    char* raw = nullptr;
    EXPECT_EQ(p_->ops.plugin_info_json(&raw), MFPRIO_OK) << p_->err();
    *text = raw ? raw : "";
    p_->ops.free_string(raw);
    std::unique_ptr<json_t, JsonFree> root(json_loads(text->c_str(), 0, nullptr));
    EXPECT_NE(root.get(), nullptr) << *text;
    return root;
  }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now) { return p_->factors(j, now); }
  uint32_t prio(const mfprio_job_t& j, int64_t now) { return p_->priority(j, now); }
  // A share-table cell of a credential row (by its label), by column name.
  double share(const std::string& label, const std::string& column) {
    mfprio_share_table_t* t = nullptr;
    EXPECT_EQ(p_->ops.share_table(&t), MFPRIO_OK) << p_->err();
    double v = NAN;
    for (size_t r = 0; t && r < t->row_count; ++r) {
      if (std::string(t->rows[r].cells[0].text) != label) continue;
      for (uint32_t c = 0; c < t->column_count; ++c)
        if (column == t->columns[c].name) v = t->rows[r].cells[c].text ? NAN : t->rows[r].cells[c].value;
    }
    if (t) p_->ops.share_table_free(t);
    return v;
  }

  TempDir dir_;
  std::string cfg_;
  std::unique_ptr<Plugin> p_;
};

mfprio_job_t running(uint64_t id, const char* user, int64_t start, uint32_t cpus) {
  mfprio_job_t j = job(id, user);
  j.state = MFPRIO_JOB_RUNNING;
  j.start_time = start;
  j.cpus = cpus;
  return j;
}

TEST_F(MauiPlugin, DefaultConfigurationIsFifoByQueueTime) {
  ASSERT_EQ(start("# nothing but the defaults\n", "priority_maui.so", /*store=*/false), MFPRIO_OK) << p_->err();
  mfprio_job_t old = job(1, "alice"), young = job(2, "bob");
  old.submit_time = old.eligible_time = T0 - 600;
  young.submit_time = young.eligible_time = T0 - 60;
  EXPECT_EQ(prio(old, T0), 10u);   // QUEUETIMEWEIGHT 1 x SERVICEWEIGHT 1 x 10 minutes
  EXPECT_EQ(prio(young, T0), 1u);
  EXPECT_GT(prio(old, T0), prio(young, T0));
}

TEST_F(MauiPlugin, QueueTimeWeightOverFourHoursTwentyAndTheTermsThatSayIt) {
  ASSERT_EQ(start("QUEUETIMEWEIGHT 20\n", "priority_maui.so", false), MFPRIO_OK) << p_->err();
  mfprio_job_t j = job(1, "alice");
  j.submit_time = j.eligible_time = T0 - (4 * 3600 + 20 * 60);
  mfprio_factors_t f = factors(j, T0);
  EXPECT_EQ(f.priority, 5200u);
  EXPECT_NEAR(term(f, "SERV").contribution, 5200.0, 1e-6);
  EXPECT_NEAR(term(f, "SERV.QUEUETIME").factor, 260.0, 1e-6);
  EXPECT_EQ(term(f, "SERV.QUEUETIME").parent, static_cast<int32_t>(term_index(f, "SERV")));
}

// plugin_info_json's weights hold each component's weight and, beside it
// under the sub-term's own name, each sub-component's (a dotted name used to
// be dropped under a component that already held a number).
TEST_F(MauiPlugin, InfoJsonCarriesComponentWeightsBesideTheirSubWeights) {
  ASSERT_EQ(start("SERVICEWEIGHT 2\nQUEUETIMEWEIGHT 5\nCREDWEIGHT 3\nUSERWEIGHT 7\n", "priority_maui.so", false),
            MFPRIO_OK)
      << p_->err();
  std::string text;
  const auto root = info(&text);
  ASSERT_NE(root.get(), nullptr);
  const json_t* w = json_object_get(root.get(), "weights");
  auto weight = [&](const char* key) {
    const json_t* v = json_object_get(w, key);
    return json_is_number(v) ? json_number_value(v) : NAN;
  };
  EXPECT_EQ(weight("SERV"), 2.0) << text;
  EXPECT_EQ(weight("SERV.QUEUETIME"), 5.0) << text;
  EXPECT_EQ(weight("CRED"), 3.0) << text;
  EXPECT_EQ(weight("CRED.USER"), 7.0) << text;
  EXPECT_EQ(weight("FS.USER"), 0.0) << text;
  // Dotted settings still nest: the view object is whole.
  EXPECT_TRUE(json_is_true(json_object_get(json_object_get(root.get(), "view"), "sub_weight_product"))) << text;
}

// plugin_info_json's "conf_names": the names the file's *CFG lines give,
// DEFAULT aside, sorted, as an array of strings per kind.
TEST_F(MauiPlugin, InfoJsonConfNamesAreArraysOfTheConfiguredNames) {
  ASSERT_EQ(start("CLASSCFG[q1] PRIORITY=10\nCLASSCFG[idle] PRIORITY=5\nCLASSCFG[DEFAULT] PRIORITY=1\n"
                  "USERCFG[zed] PRIORITY=3\nUSERCFG[u1] PRIORITY=2\n",
                  "priority_maui.so", false),
            MFPRIO_OK)
      << p_->err();
  std::string text;
  const auto root = info(&text);
  ASSERT_NE(root.get(), nullptr);
  const json_t* names = json_object_get(root.get(), "conf_names");
  auto list = [&](const char* kind) {
    std::vector<std::string> out;
    const json_t* a = json_object_get(names, kind);
    EXPECT_TRUE(json_is_array(a)) << kind << ": " << text;
    for (size_t i = 0; i < json_array_size(a); ++i) {
      const json_t* n = json_array_get(a, i);
      out.push_back(json_is_string(n) ? json_string_value(n) : "(not a string)");
    }
    return out;
  };
  EXPECT_EQ(list("partitions"), (std::vector<std::string>{"idle", "q1"})) << text;
  EXPECT_EQ(list("users"), (std::vector<std::string>{"u1", "zed"})) << text;
  EXPECT_EQ(json_object_get(names, "accounts"), nullptr) << "no ACCOUNTCFG line: " << text;
}

TEST_F(MauiPlugin, BlockedJobAccruesNoQueueTimeUnderQueuePolicy) {
  ASSERT_EQ(start("QUEUETIMEWEIGHT 1\n", "priority_maui.so", false), MFPRIO_OK) << p_->err();
  mfprio_job_t j = job(1, "alice");
  j.submit_time = j.eligible_time = T0 - 600;
  j.flags = MFPRIO_JOBF_BLOCKED;
  EXPECT_EQ(prio(j, T0), 1u);  // clamped up to 1
}

TEST_F(MauiPlugin, PriorityIsClampedToOneBillion) {
  ASSERT_EQ(start("QUEUETIMEWEIGHT 100000000\n", "priority_maui.so", false), MFPRIO_OK) << p_->err();
  mfprio_job_t j = job(1, "alice");
  j.submit_time = j.eligible_time = T0 - 3600;
  mfprio_factors_t f = factors(j, T0);
  EXPECT_EQ(f.priority, 1000000000u);
  EXPECT_EQ(f.clamped, MFPRIO_CLAMP_HIGH);
}

// QUEUETIMEWEIGHT plus a QOS's QTWEIGHT past the int64
// range saturates; it never wraps to a negative weight that flips the order.
TEST_F(MauiPlugin, WeightSumsPastInt64DoNotWrap) {
  ASSERT_EQ(start("QUEUETIMEWEIGHT 9223372036854775807\nXFACTORWEIGHT 9223372036854775807\n"
                  "QOSCFG[q] QTWEIGHT=1 XFWEIGHT=9223372036854775807\n",
                  "priority_maui.so", false),
            MFPRIO_OK)
      << p_->err();
  mfprio_job_t plain = job(1, "alice"), with_qos = job(2, "bob");
  plain.submit_time = plain.eligible_time = T0 - 600;
  with_qos.submit_time = with_qos.eligible_time = T0 - 600;
  with_qos.qos = "q";
  EXPECT_EQ(prio(plain, T0), 1000000000u);
  EXPECT_EQ(prio(with_qos, T0), 1000000000u);  // not wrapped to the bottom
  const mfprio_job_t both[] = {plain, with_qos};
  uint32_t got[2] = {};
  ASSERT_EQ(p_->ops.set_priority_batch(both, 2, T0, got, nullptr), MFPRIO_OK) << p_->err();
  EXPECT_EQ(got[1], 1000000000u);
  mfprio_job_t resolved = with_qos;
  ASSERT_EQ(p_->ops.job_resolve(&resolved), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.set_priority_batch(&resolved, 1, T0, got, nullptr), MFPRIO_OK) << p_->err();
  EXPECT_EQ(got[0], 1000000000u);  // the fast path sums the same way
}

// A handle resolved for one record and kept on another
// (the job's user, group, account, QOS or class changed) is not trusted:
// the record is priced by its own names, single and batch.
TEST_F(MauiPlugin, AHandleOfAnotherRecordIsNotTrusted) {
  ASSERT_EQ(start("CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\nACCOUNTWEIGHT 1\nQOSWEIGHT 1\nCLASSWEIGHT 1\n"
                  "USERCFG[alice] PRIORITY=1000\nUSERCFG[bob] PRIORITY=2000\nGROUPCFG[g1] PRIORITY=30000\n"
                  "ACCOUNTCFG[a1] PRIORITY=400000\nQOSCFG[q1] PRIORITY=5000000\nCLASSCFG[c1] PRIORITY=60000000\n",
                  "priority_maui.so", false),
            MFPRIO_OK)
      << p_->err();
  auto rec = [](uint64_t id, const char* user, const char* group, const char* account, const char* qos,
                const char* cls) {
    mfprio_job_t j = job(id, user, account, cls);
    j.group = group;
    j.qos = qos;
    j.submit_time = j.eligible_time = T0;
    return j;
  };
  const std::vector<mfprio_job_t> recs = {
      rec(1, "alice", "g1", "a1", "q1", "c1"), rec(2, "bob", "g1", "a1", "q1", "c1"),
      rec(3, "alice", nullptr, "a1", "q1", "c1"), rec(4, "alice", "g1", "zz", "q1", "c1"),
      rec(5, "alice", "g1", "a1", nullptr, "c1"), rec(6, "alice", "g1", "a1", "q1", nullptr),
      rec(7, "carol", "g1", "a1", "q1", "c1")};
  for (size_t i = 0; i < recs.size(); ++i)
    for (size_t k = 0; k < recs.size(); ++k) {
      mfprio_job_t donor = recs[k];
      ASSERT_EQ(p_->ops.job_resolve(&donor), MFPRIO_OK) << p_->err();
      mfprio_job_t r = recs[i];
      const uint32_t want = prio(r, T0);
      r.handle = donor.handle;
      EXPECT_EQ(prio(r, T0), want) << "record " << i << " with the handle of " << k;
      uint32_t got = 7;
      ASSERT_EQ(p_->ops.set_priority_batch(&r, 1, T0, &got, nullptr), MFPRIO_OK) << p_->err();
      EXPECT_EQ(got, want) << "batch: record " << i << " with the handle of " << k;
    }
}

// Windowed families: a pass dated before the store's
// last pass (another host ran a later one) never moves the store's pass
// time back.
TEST_F(MauiPlugin, APassBeforeTheStoresLastDoesNotMoveItBack) {
  cfg_ = dir_.file("maui.cfg");
  std::ofstream(cfg_) << "FSPOLICY DEDICATEDPS\nFSINTERVAL 1:00:00\nFSWEIGHT 1\n";
  const std::vector<std::string> conf = {"PriorityParameters=config=" + cfg_,
                                         "AccountingStorageLoc=" + store_location(dir_, "acct.db")};
  OtherHost first(plugin_path("priority_maui.so"), conf), second(plugin_path("priority_maui.so"), conf);
  ASSERT_EQ(first.decay(T0), 0);
  p_ = std::make_unique<Plugin>(plugin_path("priority_maui.so"));
  ASSERT_EQ(p_->init(conf, T0), MFPRIO_OK) << p_->err();
  ASSERT_EQ(second.decay(T0 + 2 * kHour), 0);
  ASSERT_EQ(p_->ops.decay(T0 + kHour, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_EQ(acct::Store::open(store_location(dir_, "acct.db"))->decay_state().last_decay, T0 + 2 * kHour);
  mfprio_stats_t st{};
  st.struct_size = sizeof st;
  ASSERT_EQ(p_->ops.plugin_stats(&st), MFPRIO_OK);
  EXPECT_EQ(st.last_decay, T0 + 2 * kHour);
}

TEST_F(MauiPlugin, BadPriorityValueNamesFileAndLine) {
  EXPECT_EQ(start("RMCFG[base] TYPE=PBS\nQUEUETIMEWEIGHT ten\n", "priority_maui.so", false), MFPRIO_ECONF);
  EXPECT_NE(p_->err().find(cfg_ + ":2"), std::string::npos) << p_->err();
  EXPECT_NE(p_->err().find("QUEUETIMEWEIGHT"), std::string::npos) << p_->err();
}

TEST_F(MauiPlugin, FairSharePolicyWithoutStoreKeyUsesTheDefaultStore) {
  // No AccountingStorageLoc: FSPOLICY keeps usage in the default store,
  // mfprio.db in StateSaveLocation (common/conf.hpp's rule).
  cfg_ = dir_.file("maui.cfg");
  std::ofstream(cfg_) << "FSPOLICY DEDICATEDPS\n";
  p_ = std::make_unique<Plugin>(plugin_path("priority_maui.so"));
  ASSERT_EQ(p_->init({"PriorityParameters=config=" + cfg_, "StateSaveLocation=" + dir_.path()}, T0),
            MFPRIO_OK)
      << p_->err();
  EXPECT_TRUE(std::filesystem::exists(dir_.file("mfprio.db")));
}

// The maui family's window rows of the store (either backend), and the
// numbers the tests ask of them.
std::vector<acct::WindowRow> maui_windows(const std::string& db) {
  acct::OpenOptions ro;
  ro.read_only = true;
  ro.create = false;
  return acct::Store::open(db, ro)->load_windows("maui");
}
int64_t user_rows(const std::vector<acct::WindowRow>& rows, const std::string& name) {
  int64_t n = 0;
  for (const auto& r : rows) n += r.kind == "user" && r.name == name;
  return n;
}
int64_t user_start(const std::vector<acct::WindowRow>& rows, bool latest) {
  int64_t v = -1;
  for (const auto& r : rows)
    if (r.kind == "user") v = v < 0 ? r.start : latest ? std::max(v, r.start) : std::min(v, r.start);
  return v;
}
int64_t credentials(const std::vector<acct::WindowRow>& rows) {
  std::set<std::string> seen;
  for (const auto& r : rows) seen.insert(r.kind + "/" + r.name);
  return static_cast<int64_t>(seen.size());
}

TEST_F(MauiPlugin, AJobEndPastTheHostsClockIsChargedUpToTheClock) {
  // FSINTERVAL 1: one window a second.  A job end dated a day past the
  // host's clock was charged to it: 86,400 rows per credential.
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 1\nFSDEPTH 3\nFSWEIGHT 1\nFSUSERWEIGHT 1\n"), MFPRIO_OK)
      << p_->err();
  mfprio_job_t a = running(1, "alice", T0, 2);
  ASSERT_EQ(p_->ops.decay(T0, &a, 1), MFPRIO_OK) << p_->err();
  p_->set_clock(T0 + 100);
  ASSERT_EQ(p_->ops.job_end(&a, T0 + 86400), MFPRIO_OK) << p_->err();
  const auto rows = maui_windows(store_location(dir_, "acct.db"));
  // Charged to the clock, T0 + 100: the kept windows T0+77 .. T0+99.
  EXPECT_EQ(user_rows(rows, "alice"), 23);
  EXPECT_EQ(user_start(rows, true), T0 + 99);
  bool warned = false;
  for (const std::string& l : p_->logs) warned = warned || l.find("is after the host's clock") != std::string::npos;
  EXPECT_TRUE(warned);
}

TEST_F(MauiPlugin, AJobEndADayAfterTheLastPassWritesOnlyTheKeptWindows) {
  // FSINTERVAL 1: one window a second.  The controller was down a day: the
  // job end wrote one row per second per credential (86,400 each) though
  // Maui keeps 24.
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 1\nFSDEPTH 3\nFSWEIGHT 1\nFSUSERWEIGHT 1\n"), MFPRIO_OK)
      << p_->err();
  mfprio_job_t a = running(1, "alice", T0, 2);
  ASSERT_EQ(p_->ops.decay(T0, &a, 1), MFPRIO_OK) << p_->err();
  const int64_t end = T0 + 86400;
  p_->set_clock(end);
  ASSERT_EQ(p_->ops.job_end(&a, end), MFPRIO_OK) << p_->err();
  const auto rows = maui_windows(store_location(dir_, "acct.db"));
  const int64_t creds = credentials(rows);
  ASSERT_GT(creds, 0);
  EXPECT_LE(static_cast<int64_t>(rows.size()), 24 * creds);
  // The kept windows (24, the one holding `end` itself empty) hold the
  // job's last 23 seconds: 2 processors x 1 s each.
  EXPECT_EQ(user_rows(rows, "alice"), 23);
  EXPECT_EQ(user_start(rows, false), end - 23);
  // The next pass, at the end, counts them as any other.
  ASSERT_EQ(p_->ops.decay(end, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_0"), 0.0, 1e-9);  // the window holding `end` itself is empty
  EXPECT_NEAR(share("alice", "window_1"), 2.0, 1e-9);
}

TEST_F(MauiPlugin, ChargesFillTheCurrentWindowAndRollAtTheInterval) {
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 01:00:00\nFSDEPTH 3\nFSDECAY 0.5\n"
                  "FSWEIGHT 1\nFSUSERWEIGHT 1\nUSERCFG[alice] FSTARGET=50\n"),
            MFPRIO_OK) << p_->err();
  mfprio_job_t a = running(1, "alice", T0, 4);
  ASSERT_EQ(p_->ops.decay(T0 + 1800, &a, 1), MFPRIO_OK) << p_->err();   // 4 procs x 1800 s
  EXPECT_NEAR(share("alice", "window_0"), 7200.0, 1e-9);
  EXPECT_NEAR(share("TOTAL", "decayed_usage"), 7200.0, 1e-9);
  // Crossing the boundary: the first window keeps its half, the new one gets the rest.
  ASSERT_EQ(p_->ops.decay(T0 + 5400, &a, 1), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_0"), 4 * 1800.0, 1e-9);   // T0+3600 .. T0+5400
  EXPECT_NEAR(share("alice", "window_1"), 4 * 3600.0, 1e-9);   // T0 .. T0+3600
  EXPECT_NEAR(share("alice", "decayed_usage"), 7200.0 + 0.5 * 14400.0, 1e-9);
  // The job ends: its tail is charged once, whatever is repeated.
  const int64_t end = T0 + 6000;
  p_->set_clock(end);
  ASSERT_EQ(p_->ops.job_end(&a, end), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.job_end(&a, end), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.decay(T0 + 6000, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_0"), 4 * 2400.0, 1e-9);
  // Three windows on, the oldest charged window has left FSDEPTH.
  ASSERT_EQ(p_->ops.decay(T0 + 3 * kHour + 10, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_2"), 4 * 2400.0, 1e-9);
  EXPECT_NEAR(share("alice", "decayed_usage"), 0.25 * 4 * 2400.0, 1e-9);
  // Restart: the windows come back from the store.
  ASSERT_EQ(p_->fini(), MFPRIO_OK);
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 01:00:00\nFSDEPTH 3\nFSDECAY 0.5\n"
                  "FSWEIGHT 1\nFSUSERWEIGHT 1\nUSERCFG[alice] FSTARGET=50\n"),
            MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.decay(T0 + 3 * kHour + 20, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_2"), 4 * 2400.0, 1e-9);
}

TEST_F(MauiPlugin, FairShareDeltaMovesPriority) {
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 01:00:00\nFSWEIGHT 1\nFSUSERWEIGHT 100\n"
                  "USERCFG[DEFAULT] FSTARGET=50\nQUEUETIMEWEIGHT 0\n"),
            MFPRIO_OK) << p_->err();
  mfprio_job_t a = running(1, "alice", T0, 3), b = running(2, "bob", T0, 1);
  mfprio_job_t both[] = {a, b};
  ASSERT_EQ(p_->ops.decay(T0 + 1000, both, 2), MFPRIO_OK) << p_->err();
  // alice used 75%, bob 25% against 50% targets: bob's pending job goes first.
  mfprio_job_t pa = job(3, "alice"), pb = job(4, "bob");
  mfprio_factors_t fa = factors(pa, T0 + 1000), fb = factors(pb, T0 + 1000);
  EXPECT_NEAR(term(fa, "FS.USER").factor, -25.0, 1e-6);
  EXPECT_NEAR(term(fb, "FS.USER").factor, 25.0, 1e-6);
  EXPECT_GT(fb.unclamped, fa.unclamped);
}

TEST_F(MauiPlugin, MoabCapBindsBothSigns) {
  ASSERT_EQ(start("QUEUETIMEWEIGHT 0\nCREDWEIGHT 1\nUSERWEIGHT 1\nCREDCAP 100\n"
                  "USERCFG[alice] PRIORITY=500\nUSERCFG[bob] PRIORITY=-500\n",
                  "priority_moab.so", false),
            MFPRIO_OK) << p_->err();
  mfprio_factors_t fa = factors(job(1, "alice"), T0), fb = factors(job(2, "bob"), T0);
  EXPECT_NEAR(term(fa, "CRED").contribution, 100.0, 1e-9);
  EXPECT_TRUE(term(fa, "CRED").flags & MFPRIO_TERMF_CAPPED);
  EXPECT_NEAR(term(fb, "CRED").contribution, -100.0, 1e-9);
}

// The sites' own moab.cfg (tests/data/admins/accrue-moab.cfg).
std::string admins_file(const std::string& name) {
  const char* dir = std::getenv("MFPRIO_TEST_DATA");
  EXPECT_NE(dir, nullptr) << "MFPRIO_TEST_DATA not set";
  const std::string path = std::string(dir ? dir : "") + "/admins/" + name;
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "missing " << path;
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// ENABLENEGJOBPRIORITY TRUE: negative priorities keep Moab's order through
// the 32-bit result (priority + 1000000001); without it they clamp to 1 and tie.
TEST_F(MauiPlugin, NegativePrioritiesKeepTheirOrderThroughTheAbi) {
  const std::string cfg = admins_file("accrue-moab.cfg");
  ASSERT_EQ(start(cfg, "priority_moab.so"), MFPRIO_OK) << p_->err();
  mfprio_job_t a = job(1, "alice"), l = job(2, "low"), ll = job(3, "lower");
  for (mfprio_job_t* j : {&a, &l, &ll}) j->submit_time = j->eligible_time = T0 - 600;  // 10 minutes
  mfprio_factors_t fa = factors(a, T0), fl = factors(l, T0), fll = factors(ll, T0);
  EXPECT_EQ(fa.priority, 1000000001u + 10u);
  EXPECT_EQ(fl.priority, 1000000001u + 10u - 500u);
  EXPECT_EQ(fll.priority, 1000000001u + 10u - 900u);
  EXPECT_EQ(fll.clamped, MFPRIO_CLAMP_NONE);
  EXPECT_NEAR(fll.unclamped, -890.0, 1e-9);
  // The batch path agrees with the one-by-one path.
  std::vector<mfprio_job_t> jobs = {a, l, ll};
  std::vector<uint32_t> prios(3);
  ASSERT_EQ(p_->ops.set_priority_batch(jobs.data(), jobs.size(), T0, prios.data(), nullptr), MFPRIO_OK);
  EXPECT_EQ(prios, (std::vector<uint32_t>{fa.priority, fl.priority, fll.priority}));
  // Below -1e9 the floor binds and is named.
  ASSERT_EQ(start("ENABLENEGJOBPRIORITY TRUE\nCREDWEIGHT 1\nUSERWEIGHT 1000000\n"
                  "USERCFG[bob] PRIORITY=-5000\n", "priority_moab.so", false), MFPRIO_OK) << p_->err();
  mfprio_factors_t fb = factors(job(4, "bob"), T0);
  EXPECT_EQ(fb.priority, 1u);
  EXPECT_EQ(fb.clamped, MFPRIO_CLAMP_LOW);
  // Without it: both clamp to 1 and tie (Maui's and Moab's default).
  std::string off = cfg;
  off.replace(off.find("ENABLENEGJOBPRIORITY  TRUE"), 26, "ENABLENEGJOBPRIORITY  FALSE");
  ASSERT_EQ(start(off, "priority_moab.so"), MFPRIO_OK) << p_->err();
  EXPECT_EQ(prio(l, T0), 1u);
  EXPECT_EQ(prio(ll, T0), 1u);
}

// ACCRUE with SOFTPOLICY,HARDPOLICY,DEPENDS: no queue time while the record
// shows a listed violation; DEPENDS listed: queue time from eligibility.
TEST_F(MauiPlugin, AccrueHonoursTheListedExceptions) {
  ASSERT_EQ(start(admins_file("accrue-moab.cfg"), "priority_moab.so"), MFPRIO_OK) << p_->err();
  bool warned = false;
  for (const std::string& l : p_->logs)
    if (l.rfind("1 ", 0) == 0 && l.find(cfg_ + ":8: JOBPRIOEXCEPTIONS with ACCRUE") != std::string::npos)
      warned = true;
  EXPECT_TRUE(warned) << "no warning naming " << cfg_ << ":8";
  const uint32_t base = 1000000001u;
  mfprio_job_t j = job(1, "alice");
  j.submit_time = T0 - 3600;
  j.eligible_time = T0 - 600;
  EXPECT_EQ(prio(j, T0), base + 10u);  // from eligibility (DEPENDS listed)
  for (uint16_t f : {MFPRIO_JOBF_SOFT_VIOLATION, MFPRIO_JOBF_BLOCKED, MFPRIO_JOBF_DEPENDENT}) {
    j.flags = f;
    EXPECT_EQ(prio(j, T0), base) << "flag " << f;
  }
  j.flags = MFPRIO_JOBF_USER_PRIORITY_ADMIN;  // not an exception
  EXPECT_EQ(prio(j, T0), base + 10u);
  // The same file without exceptions: ACCRUE counts from submission, always.
  std::string cfg = admins_file("accrue-moab.cfg");
  cfg.replace(cfg.find("SOFTPOLICY,HARDPOLICY,DEPENDS"), 29, "NONE");
  ASSERT_EQ(start(cfg, "priority_moab.so"), MFPRIO_OK) << p_->err();
  j.flags = MFPRIO_JOBF_SOFT_VIOLATION | MFPRIO_JOBF_BLOCKED;
  EXPECT_EQ(prio(j, T0), base + 60u);
}

TEST_F(MauiPlugin, ImportedHistoryIsReadUnderTheConfiguredInterval) {
  // Two hours of history in one-hour windows, w0 holding T0 + 10.
  const std::string json = dir_.file("hist.json");
  std::ofstream(json) << R"({"fairshare_as_of": )" << T0 + 10 << R"(, "fairshare_interval": 3600,
    "fairshare_usage": [{"kind": "user", "name": "alice", "windows": [30, 10]},
                        {"kind": "user", "name": "bob", "windows": [10, 30]}]})";
  {
    auto st = acct::Store::open(store_location(dir_, "acct.db"), acct::OpenOptions{});
    acct::import_json_file(*st, json);
  }
  ASSERT_EQ(start("FSPOLICY DEDICATEDPS\nFSINTERVAL 01:00:00\nFSDEPTH 2\nFSDECAY 0.5\n"), MFPRIO_OK) << p_->err();
  ASSERT_EQ(p_->ops.decay(T0 + 20, nullptr, 0), MFPRIO_OK) << p_->err();
  EXPECT_NEAR(share("alice", "window_0"), 30.0, 1e-9);
  EXPECT_NEAR(share("alice", "window_1"), 10.0, 1e-9);
  EXPECT_NEAR(share("alice", "decayed_usage"), 35.0, 1e-9);
  EXPECT_NEAR(share("TOTAL", "decayed_usage"), 40.0 + 0.5 * 40.0, 1e-9);  // the sum over users
  EXPECT_NEAR(share("alice", "usage_percent"), 100.0 * 35.0 / 60.0, 1e-9);
}

TEST_F(MauiPlugin, BadHistoryIsRefusedNamingTheRecord) {
  const std::string json = dir_.file("hist.json");
  std::ofstream(json) << R"({"fairshare_usage": [{"kind": "user", "name": "alice", "windows": [1, -2]}]})";
  auto st = acct::Store::open(store_location(dir_, "acct.db"), acct::OpenOptions{});
  try {
    acct::import_json_file(*st, json);
    FAIL() << "accepted a negative window";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fairshare_usage[0] (name \"alice\"): windows[1]"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(st->load_windows("maui").empty());
}


// ---- the resolved path: job_resolve handles (maui_fast.hpp) -----------------

// Every component and sub-component with a weight, caps, *CFG lines of every
// kind, so a resolved record exercises each term the fast path adds.
const char* kEveryTerm =
    "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 100\nXFMINWCLIMIT 00:02:00\nBYPASSWEIGHT 10\nSPVIOLATIONWEIGHT 7\n"
    "TARGETQUEUETIMEWEIGHT 2\nTARGETXFACTORWEIGHT 5\nTARGETWEIGHT 1\n"
    "RESWEIGHT 1\nPROCWEIGHT 10\nMEMWEIGHT 1\nNODEWEIGHT 100\nSWAPWEIGHT 2\nDISKWEIGHT 1\nPSWEIGHT 1\n"
    "PEWEIGHT 5\nWALLTIMEWEIGHT 1\n"
    "CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\nACCOUNTWEIGHT 1\nQOSWEIGHT 1\nCLASSWEIGHT 1\nCREDCAP 5000\n"
    "USERCAP 300\n"
    "FSPOLICY DEDICATEDPS\nFSINTERVAL 01:00:00\nFSDEPTH 4\nFSDECAY 0.5\nFSWEIGHT 3\n"
    "FSUSERWEIGHT 10\nFSGROUPWEIGHT 2\nFSACCOUNTWEIGHT 5\nFSQOSWEIGHT 1\nFSCLASSWEIGHT 1\nFSUSERCAP 20\n"
    "USERCFG[DEFAULT] FSTARGET=10 PRIORITY=7\nGROUPCFG[DEFAULT] FSTARGET=20+\nACCOUNTCFG[DEFAULT] FSTARGET=5\n"
    "USERCFG[alice] PRIORITY=500 FSTARGET=30\nUSERCFG[bob] PRIORITY=-400\n"
    "GROUPCFG[staff] CLASSWEIGHT=9 PRIORITY=20\nACCOUNTCFG[physics] PRIORITY=60 FSTARGET=40-\n"
    "CLASSCFG[debug] PRIORITY=1000 FSTARGET=10\nCLASSCFG[batch] PRIORITY=10\n"
    "QOSCFG[high] PRIORITY=1000 QTWEIGHT=5 XFWEIGHT=20 QTTARGET=3600 XFTARGET=8 FSTARGET=30\n"
    "QOSCFG[low] PRIORITY=-50\n";
// Moab adds the USAGE component (running records) and its own SERV terms.
const char* kMoabExtra =
    "STARTCOUNTWEIGHT 3\nDEADLINEWEIGHT 1000\nUSERPRIOWEIGHT 2\n"
    "USAGEWEIGHT 1\nCONSUMEDWEIGHT 1\nEXECUTIONTIMEWEIGHT 2\nREMAININGWEIGHT 1\nPERCENTWEIGHT 4\n";

// A mix of records: known, unknown ("zed", "other", "mystery", "gpu") and
// absent credentials, every state and accrual flag, swap/disk requests.
std::vector<mfprio_job_t> mixed_jobs(size_t n, int64_t now) {
  static const char* users[] = {"alice", "bob", "carol", "zed"};
  static const char* groups[] = {nullptr, "staff", "other", "users"};
  static const char* accounts[] = {nullptr, "physics", "chem"};
  static const char* qoses[] = {nullptr, "high", "low", "mystery"};
  static const char* classes[] = {nullptr, "debug", "batch", "gpu"};
  static const mfprio_tres_t swap[] = {{"swap", 2048}, {"gres/gpu", 2}};
  static const mfprio_tres_t disk[] = {{"disk", 100000}};
  std::vector<mfprio_job_t> v;
  uint64_t r = 12345;
  auto pick = [&](uint64_t m) {
    r = r * 6364136223846793005ull + 1442695040888963407ull;
    return (r >> 33) % m;
  };
  for (size_t i = 0; i < n; ++i) {
    mfprio_job_t j = job(100 + i, users[pick(4)], accounts[pick(3)], classes[pick(4)]);
    j.group = groups[pick(4)];
    j.qos = qoses[pick(4)];
    j.cpus = 1u << pick(8);
    j.min_nodes = 1 + uint32_t(pick(4));
    j.mem_mb = 512u * (1 + pick(64));
    j.time_limit_min = uint32_t(pick(3000));
    j.submit_time = now - int64_t(pick(200000));
    j.eligible_time = pick(3) ? j.submit_time + int64_t(pick(600)) : 0;
    j.bypass_count = uint32_t(pick(5));
    j.start_count = uint32_t(pick(3));
    j.user_priority = -int32_t(pick(100));
    if (pick(4) == 0) j.deadline = now + int64_t(pick(90000));
    switch (pick(8)) {
      case 0: j.state = MFPRIO_JOB_HELD; break;
      case 1: j.state = MFPRIO_JOB_RUNNING; j.start_time = now - int64_t(pick(50000)); break;
      case 2: j.flags |= MFPRIO_JOBF_BLOCKED; break;
      case 3: j.flags |= MFPRIO_JOBF_DEPENDENT | MFPRIO_JOBF_SOFT_VIOLATION; break;
      default: break;
    }
    if (pick(5) == 0) {
      j.tres = swap;
      j.tres_count = 2;
    } else if (pick(5) == 0) {
      j.tres = disk;
      j.tres_count = 1;
    }
    v.push_back(j);
  }
  return v;
}

class MauiResolved : public MauiPlugin {
 protected:
  // Usage for some named credentials (and "carol", who has no *CFG line).
  void charge(int64_t now) {
    mfprio_job_t a = running(1, "alice", now - 3000, 4), c = running(2, "carol", now - 2000, 2);
    a.group = "staff";
    a.qos = "high";
    a.partition = "debug";
    c.account = "chem";
    c.group = "users";
    mfprio_job_t both[] = {a, c};
    ASSERT_EQ(p_->ops.decay(now, both, 2), MFPRIO_OK) << p_->err();
  }
  std::vector<uint32_t> batch(const std::vector<mfprio_job_t>& jobs, int64_t now) {
    std::vector<uint32_t> prios(jobs.size(), 77);
    std::vector<int> st(jobs.size(), -1);
    EXPECT_EQ(p_->ops.set_priority_batch(jobs.data(), jobs.size(), now, prios.data(), st.data()), MFPRIO_OK)
        << p_->err();
    for (int s : st) EXPECT_EQ(s, MFPRIO_OK);
    return prios;
  }
  // Priorities by name (handles cleared) and resolved (job_resolve now).
  std::vector<uint32_t> by_name(std::vector<mfprio_job_t> jobs, int64_t now) {
    for (mfprio_job_t& j : jobs) j.handle = mfprio_handle_t{};
    return batch(jobs, now);
  }
  void resolve(std::vector<mfprio_job_t>* jobs) {
    for (mfprio_job_t& j : *jobs) {
      ASSERT_EQ(p_->ops.job_resolve(&j), MFPRIO_OK) << p_->err();
      ASSERT_NE(j.handle.generation, 0u) << "job " << j.job_id;
    }
  }
  void resolved_prices_as_by_name(const char* so, const std::string& cfg) {
    ASSERT_EQ(start(cfg, so), MFPRIO_OK) << p_->err();
    const int64_t now = T0 + 5000;
    charge(now);
    std::vector<mfprio_job_t> jobs = mixed_jobs(400, now);
    const std::vector<uint32_t> want = by_name(jobs, now);
    resolve(&jobs);
    const std::vector<uint32_t> got = batch(jobs, now);
    ASSERT_EQ(got.size(), want.size());
    size_t distinct = 0;
    for (size_t i = 0; i < jobs.size(); ++i) {
      EXPECT_EQ(got[i], want[i]) << so << " job " << jobs[i].job_id;
      // set_priority takes the handle too; the explained path goes by name.
      EXPECT_EQ(prio(jobs[i], now), want[i]) << so << " job " << jobs[i].job_id;
      EXPECT_EQ(factors(jobs[i], now).priority, want[i]) << so << " job " << jobs[i].job_id;
      if (i && want[i] != want[i - 1]) ++distinct;
    }
    EXPECT_GT(distinct, jobs.size() / 2);  // the records really differ
  }
};

TEST_F(MauiResolved, ResolvedRecordsPriceAsByNameMaui) {
  resolved_prices_as_by_name("priority_maui.so", kEveryTerm);
}

TEST_F(MauiResolved, ResolvedRecordsPriceAsByNameMoab) {
  resolved_prices_as_by_name("priority_moab.so",
                             std::string(kEveryTerm) + kMoabExtra +
                                 "GROUPCFG[staff] FSWEIGHT=4\nACCOUNTCFG[chem] FSWEIGHT=2\nQOSCFG[high] FSWEIGHT=3\n"
                                 "SERVICECAP 100000\nFSCAP 50\n");
}

// Without any cap the batch takes a loop that tests none (maui_fast.cpp).
std::string without_caps(const std::string& cfg) {
  std::string out, line;
  std::istringstream in(cfg);
  while (std::getline(in, line))
    if (line.find("CAP ") == std::string::npos) out += line + "\n";
  return out;
}

TEST_F(MauiResolved, ResolvedRecordsPriceAsByNameWithoutCaps) {
  const std::string cfg = without_caps(kEveryTerm);
  ASSERT_EQ(cfg.find("CAP"), std::string::npos);
  resolved_prices_as_by_name("priority_maui.so", cfg);
}

TEST_F(MauiResolved, ResolvedRecordsPriceAsByNameWithoutCapsMoab) {
  const std::string cfg = without_caps(std::string(kEveryTerm) + kMoabExtra);
  ASSERT_EQ(cfg.find("CAP"), std::string::npos);
  resolved_prices_as_by_name("priority_moab.so", cfg);
}

// The batch picks the accrual start without branches (maui_fast.cpp):
// every JOBPRIOACCRUALPOLICY over blocked, dependent and not-yet-eligible records.
TEST_F(MauiResolved, ResolvedRecordsPriceAsByNameUnderEachAccrualPolicy) {
  for (const char* policy : {"ALWAYS", "FULLPOLICY"}) {
    SCOPED_TRACE(policy);
    resolved_prices_as_by_name("priority_maui.so", std::string(kEveryTerm) + "JOBPRIOACCRUALPOLICY " + policy + "\n");
    p_.reset();
    resolved_prices_as_by_name("priority_moab.so", std::string(kEveryTerm) + kMoabExtra +
                                                       "JOBPRIOACCRUALPOLICY " + policy + "\n");
    p_.reset();
  }
}

TEST_F(MauiResolved, DecayChargingANewNameMakesOlderHandlesStale) {
  ASSERT_EQ(start(kEveryTerm), MFPRIO_OK) << p_->err();
  const int64_t now = T0 + 5000;
  charge(now);
  // "newbie" is unknown: its handle says so, which a later charge makes untrue.
  mfprio_job_t j = job(7, "newbie", "physics", "batch");
  j.group = "staff";
  std::vector<mfprio_job_t> jobs = {j};
  resolve(&jobs);
  const mfprio_handle_t old = jobs[0].handle;
  const uint32_t before = batch(jobs, now)[0];
  EXPECT_EQ(before, by_name(jobs, now)[0]);

  mfprio_job_t r = running(8, "newbie", now, 16);
  ASSERT_EQ(p_->ops.decay(now + 1800, &r, 1), MFPRIO_OK) << p_->err();
  const uint32_t after = by_name(jobs, now + 1800)[0];
  EXPECT_EQ(batch(jobs, now + 1800)[0], after);  // the old handle is not trusted
  EXPECT_NE(after, before + 1800 / 60);           // newbie's usage moved FS.USER, not only the queue time
  std::vector<mfprio_job_t> again = jobs;
  resolve(&again);
  EXPECT_NE(again[0].handle.generation, old.generation);
  EXPECT_EQ(batch(again, now + 1800)[0], after);
}

TEST_F(MauiResolved, DecayNamingNothingNewKeepsHandlesAndMovesTheTerms) {
  ASSERT_EQ(start(kEveryTerm), MFPRIO_OK) << p_->err();
  const int64_t now = T0 + 5000;
  charge(now);
  std::vector<mfprio_job_t> jobs = mixed_jobs(100, now);
  resolve(&jobs);
  const std::vector<uint32_t> first = batch(jobs, now);
  charge(now + 3 * kHour);  // the same credentials: their usage and the total move
  std::vector<mfprio_job_t> again = jobs;
  resolve(&again);
  EXPECT_EQ(again[0].handle.generation, jobs[0].handle.generation);
  const std::vector<uint32_t> want = by_name(jobs, now + 3 * kHour);
  EXPECT_EQ(batch(jobs, now + 3 * kHour), want);
  EXPECT_NE(want, first);
}

TEST_F(MauiResolved, HandlesFromAnEarlierInitAreNotTrusted) {
  ASSERT_EQ(start(kEveryTerm), MFPRIO_OK) << p_->err();
  const int64_t now = T0 + 5000;
  charge(now);
  std::vector<mfprio_job_t> jobs = mixed_jobs(100, now);
  resolve(&jobs);
  // The admin changes the cfg (alice loses her PRIORITY, a new user line)
  // and the controller restarts: the state is loaded again.
  p_.reset();
  ASSERT_EQ(start(std::string(kEveryTerm) + "USERCFG[alice] PRIORITY=1\nUSERCFG[aaron] PRIORITY=900\n"),
            MFPRIO_OK) << p_->err();
  const std::vector<uint32_t> want = by_name(jobs, now);
  EXPECT_EQ(batch(jobs, now), want);
  std::vector<mfprio_job_t> again = jobs;
  resolve(&again);
  EXPECT_NE(again[0].handle.generation, jobs[0].handle.generation);
  EXPECT_EQ(batch(again, now), want);
}

TEST_F(MauiResolved, ForgedHandlesArePricedByName) {
  ASSERT_EQ(start(kEveryTerm), MFPRIO_OK) << p_->err();
  const int64_t now = T0 + 5000;
  charge(now);
  std::vector<mfprio_job_t> jobs = mixed_jobs(50, now);
  const std::vector<uint32_t> want = by_name(jobs, now);
  resolve(&jobs);
  // The right generation with at least one index past its table (user,
  // group, account, QOS, class in turn, and mixed with the "none" and
  // "unknown" codes), and a generation off by one.
  const uint32_t gen = jobs[0].handle.generation;
  const mfprio_handle_t forged[] = {
      {gen, 0x000ffffdu, 0, 0},          {gen, 0x0000fff0u, 0, 0},      {gen, 0xfff00000u, 0, 0},
      {gen, 0, 0xfff0u, 0},               {gen, 0, 0x0003u, 0xfffeu},    {gen, 0, 0, 0xfd00u},
      {gen, 0xfffffffeu, 0xfffeu, 0xfffeu}, {gen, 0x7ffffu, 0x0fffu, 0x00ffu}, {gen + 1, 0, 0, 0},
  };
  for (const mfprio_handle_t& h : forged) {
    std::vector<mfprio_job_t> f = jobs;
    for (mfprio_job_t& j : f) j.handle = h;
    EXPECT_EQ(batch(f, now), want) << "assoc " << h.assoc << " partition " << h.partition << " qos " << h.qos;
    for (size_t i = 0; i < f.size(); ++i) EXPECT_EQ(prio(f[i], now), want[i]);
  }
}

// The batch's fast loop checks each record in one pass (maui_fast.cpp,
// quick_record) instead of calling job_acceptable: every record check_job
// refuses is still refused with set_priority's status and message, and a
// record it accepts gets set_priority's priority, however the batch reached
// it (resolved handles, so the fast loop sees every record first).
void batch_checks_as_set_priority(std::unique_ptr<Plugin>& p, int64_t now) {
  std::vector<mfprio_job_t> good = mixed_jobs(24, now);
  for (mfprio_job_t& j : good) ASSERT_EQ(p->ops.job_resolve(&j), MFPRIO_OK) << p->err();
  static const mfprio_tres_t bad_counts[][2] = {
      {{"gres/gpu", 1}, {"swap", -1}}, {{"disk", NAN}, {"swap", 1}}, {{"swap", HUGE_VAL}, {"disk", 1}}};
  std::vector<RecordFault> faults = refused_record_faults(bad_counts);
  for (RecordFault& f : accepted_borderline_records()) faults.push_back(std::move(f));
  std::vector<mfprio_job_t> jobs;
  for (size_t f = 0; f < faults.size(); ++f)
    for (size_t g = 0; g < 3; ++g) {
      mfprio_job_t j = good[(f * 3 + g) % good.size()];
      faults[f](j);
      jobs.push_back(j);
    }
  jobs.insert(jobs.end(), good.begin(), good.end());
  std::vector<uint32_t> prios(jobs.size(), 77);
  std::vector<int> st(jobs.size(), -1);
  const int rc = p->ops.set_priority_batch(jobs.data(), jobs.size(), now, prios.data(), st.data());
  const std::string batch_msg = p->err();
  int first = MFPRIO_OK;
  std::string first_msg;
  size_t refused = 0, accepted = 0;
  for (size_t i = 0; i < jobs.size(); ++i) {
    uint32_t one = 99;
    const int one_rc = p->ops.set_priority(&jobs[i], now, &one);
    EXPECT_EQ(st[i], one_rc) << "record " << i;
    if (one_rc == MFPRIO_OK) {
      EXPECT_EQ(prios[i], one) << "record " << i;
      ++accepted;
    } else {
      EXPECT_EQ(prios[i], 0u) << "record " << i;
      std::string msg = p->err();
      // The same message, naming the batch instead of set_priority.
      for (size_t at; (at = msg.find("set_priority")) != std::string::npos;) msg.replace(at, 12, "@");
      if (first == MFPRIO_OK) first = one_rc, first_msg = msg;
      ++refused;
    }
  }
  EXPECT_EQ(refused, 17u * 3);
  EXPECT_EQ(accepted, jobs.size() - refused);
  EXPECT_EQ(rc, first);
  std::string bm = batch_msg;
  for (size_t at; (at = bm.find("set_priority_batch")) != std::string::npos;) bm.replace(at, 18, "@");
  EXPECT_EQ(bm, first_msg);
}

TEST_F(MauiResolved, MalformedRecordsInABatchAreRefusedAsOneByOneMaui) {
  ASSERT_EQ(start(kEveryTerm), MFPRIO_OK) << p_->err();
  charge(T0 + 5000);
  batch_checks_as_set_priority(p_, T0 + 5000);
}

TEST_F(MauiResolved, MalformedRecordsInABatchAreRefusedAsOneByOneMoab) {
  ASSERT_EQ(start(std::string(kEveryTerm) + kMoabExtra, "priority_moab.so"), MFPRIO_OK) << p_->err();
  charge(T0 + 5000);
  batch_checks_as_set_priority(p_, T0 + 5000);
}

}  // namespace
}  // namespace mfprio::test
