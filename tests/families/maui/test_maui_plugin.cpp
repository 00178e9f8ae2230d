// test_maui_plugin.cpp - priority_maui.so / priority_moab.so through the C
// ABI: real dlopen, the admin's maui.cfg read from a file, fair-share
// windows in a real SQLite store charged by decay and job_end.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "../multifactor/harness.hpp"
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
    if (store) conf.push_back("AccountingStorageLoc=" + dir_.file("acct.db"));
    return p_->init(conf, T0);
  }
  mfprio_factors_t factors(const mfprio_job_t& j, int64_t now) {
    mfprio_factors_t f{};
    f.struct_size = sizeof f;
    EXPECT_EQ(p_->ops.job_factors(&j, now, &f), MFPRIO_OK) << p_->err();
    return f;
  }
  uint32_t prio(const mfprio_job_t& j, int64_t now) {
    uint32_t v = 0;
    EXPECT_EQ(p_->ops.set_priority(&j, now, &v), MFPRIO_OK) << p_->err();
    return v;
  }
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
  ASSERT_EQ(p_->init({"PriorityParameters=config=" + cfg_, "StateSaveLocation=" + dir_.path.string()}, T0),
            MFPRIO_OK)
      << p_->err();
  EXPECT_TRUE(std::filesystem::exists(dir_.file("mfprio.db")));
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

TEST_F(MauiPlugin, ImportedHistoryIsReadUnderTheConfiguredInterval) {
  // Two hours of history in one-hour windows, w0 holding T0 + 10.
  const std::string json = dir_.file("hist.json");
  std::ofstream(json) << R"({"fairshare_as_of": )" << T0 + 10 << R"(, "fairshare_interval": 3600,
    "fairshare_usage": [{"kind": "user", "name": "alice", "windows": [30, 10]},
                        {"kind": "user", "name": "bob", "windows": [10, 30]}]})";
  {
    auto st = acct::Store::open(dir_.file("acct.db"), acct::OpenOptions{});
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
  auto st = acct::Store::open(dir_.file("acct.db"), acct::OpenOptions{});
  try {
    acct::import_json_file(*st, json);
    FAIL() << "accepted a negative window";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fairshare_usage[0] (name \"alice\"): windows[1]"), std::string::npos)
        << e.what();
  }
  EXPECT_TRUE(st->load_windows("maui").empty());
}

}  // namespace
}  // namespace mfprio::test
