// test_maui_fairshare.cpp - golden tests for maui_fairshare.cpp
// (MFS.c): window arithmetic, rolling, decay, charging, deltas.
#include <gtest/gtest.h>

#include "maui_fairshare.hpp"

namespace mfprio::maui {
namespace {

constexpr double kSix = 1e-6;
constexpr int64_t kDay = 86400;

CredNames who(std::string_view user, std::string_view group = "", std::string_view account = "",
              std::string_view qos = "", std::string_view cls = "") {
  CredNames n;
  n.name = {user, group, account, qos, cls};
  return n;
}

TEST(FsWindows, IndexIsFloorOfTimeOverInterval) {
  EXPECT_EQ(fs_window_index(0, 43200), 0);
  EXPECT_EQ(fs_window_index(43199, 43200), 0);
  EXPECT_EQ(fs_window_index(43200, 43200), 1);
  EXPECT_EQ(fs_window_index(1700000000, 43200), 1700000000 / 43200);
  EXPECT_EQ(fs_window_index(-1, 43200), -1);
  EXPECT_EQ(fs_window_index(-43200, 43200), -1);
  EXPECT_EQ(fs_window_index(-43201, 43200), -2);
  EXPECT_EQ(fs_window_start(3, 100), 300);
}

TEST(FsWindows, ChargeIntervalIsSplitAtTheBoundary) {
  std::vector<WindowPiece> p;
  fs_split_interval(900, 1150, 1000, &p);
  ASSERT_EQ(p.size(), 2u);
  EXPECT_EQ(p[0].window, 0);
  EXPECT_EQ(p[0].seconds, 100);
  EXPECT_EQ(p[1].window, 1);
  EXPECT_EQ(p[1].seconds, 150);

  fs_split_interval(500, 3500, 1000, &p);  // spans four windows
  ASSERT_EQ(p.size(), 4u);
  int64_t sum = 0;
  for (const auto& x : p) sum += x.seconds;
  EXPECT_EQ(sum, 3000);
  EXPECT_EQ(p[3].window, 3);
  EXPECT_EQ(p[3].seconds, 500);

  fs_split_interval(1000, 1000, 1000, &p);
  EXPECT_TRUE(p.empty());
  fs_split_interval(1000, 2000, 1000, &p);  // exactly one window, no empty piece
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].window, 1);
}

TEST(FsWindows, RollShiftsOlderAndDropsOnlyPastTheLastSlot) {
  FsWindows w{};
  for (int i = 0; i < kMaxFsDepth; ++i) w[i] = i + 1;  // 1..24
  EXPECT_NEAR(fs_roll(&w, 0), 0.0, kSix);
  EXPECT_NEAR(fs_roll(&w, 2), 23.0 + 24.0, kSix);
  EXPECT_EQ(w[0], 0.0);
  EXPECT_EQ(w[1], 0.0);
  EXPECT_EQ(w[2], 1.0);
  EXPECT_EQ(w[23], 22.0);
  double left = 0;
  for (double v : w) left += v;
  EXPECT_NEAR(fs_roll(&w, kMaxFsDepth), left, kSix);
  for (double v : w) EXPECT_EQ(v, 0.0);
}

TEST(FsWindows, DecayedTotalCountsFsDepthWindowsIncludingTheCurrent) {
  FsWindows w{};
  w[0] = 8;
  w[1] = 4;
  w[2] = 2;
  w[3] = 1;
  // FSDEPTH 3, FSDECAY 0.5: 8 + 4*0.5 + 2*0.25; slot 3 does not count.
  EXPECT_NEAR(fs_decayed_total(w, 3, 0.5), 10.5, kSix);
  EXPECT_NEAR(fs_decayed_total(w, 8, 1.0), 15.0, kSix);  // Maui's defaults
  EXPECT_NEAR(fs_decayed_total(w, 1, 0.5), 8.0, kSix);
  EXPECT_NEAR(fs_decayed_total(w, 4, 0.0), 8.0, kSix);   // decay 0: current only
  EXPECT_NEAR(fs_decayed_total(w, 0, 0.5), 8.0, kSix);   // depth clamped to 1
}

TEST(FsLedger, AdvancingPastABoundaryMovesUsageOneWindowOlder) {
  const int64_t I = 43200;
  FsLedger l(I, 10 * I + 5);
  ASSERT_TRUE(l.charge_at(who("alice", "staff"), 10 * I + 100, 50.0));
  EXPECT_NEAR(l.advance_to(11 * I - 1), 0.0, kSix);  // same window: nothing moves
  EXPECT_NEAR((*l.windows(CredKind::User, "alice"))[0], 50.0, kSix);
  l.advance_to(11 * I);  // exactly at the boundary
  EXPECT_EQ(l.current_window(), 11);
  EXPECT_NEAR((*l.windows(CredKind::User, "alice"))[0], 0.0, kSix);
  EXPECT_NEAR((*l.windows(CredKind::User, "alice"))[1], 50.0, kSix);
  EXPECT_NEAR(l.total()[1], 50.0, kSix);
  EXPECT_NEAR((*l.windows(CredKind::Group, "staff"))[1], 50.0, kSix);
  EXPECT_EQ(l.windows(CredKind::Account, ""), nullptr);
  // Time never runs backwards.
  l.advance_to(5 * I);
  EXPECT_EQ(l.current_window(), 11);
}

TEST(FsLedger, UsageSurvivesUntilPastTheLastKeptWindow) {
  const int64_t I = 1000;
  FsLedger l(I, 0);
  l.charge_at(who("u"), 10, 7.0);
  EXPECT_NEAR(l.advance_to((kMaxFsDepth - 1) * I), 0.0, kSix);
  EXPECT_NEAR((*l.windows(CredKind::User, "u"))[kMaxFsDepth - 1], 7.0, kSix);
  EXPECT_NEAR(l.advance_to(kMaxFsDepth * I), 7.0, kSix);  // reported, not silent
  EXPECT_NEAR(l.total()[kMaxFsDepth - 1], 0.0, kSix);
}

TEST(FsLedger, ChargeAcrossABoundaryLandsInBothWindows) {
  const int64_t I = 1000;
  FsLedger l(I, 5 * I + 900);
  // 4 procs from 5900 to 6050: 100 s in window 5, 50 s in window 6.
  EXPECT_NEAR(l.charge_interval(who("bob"), 5 * I + 900, 6 * I + 50, 4.0), 0.0, kSix);
  EXPECT_EQ(l.current_window(), 6);
  EXPECT_NEAR((*l.windows(CredKind::User, "bob"))[0], 200.0, kSix);
  EXPECT_NEAR((*l.windows(CredKind::User, "bob"))[1], 400.0, kSix);
  EXPECT_NEAR(l.total()[0] + l.total()[1], 600.0, kSix);
}

TEST(FsLedger, ChargeOlderThanTheKeptWindowsIsRefused) {
  const int64_t I = 1000;
  FsLedger l(I, 100 * I);
  EXPECT_FALSE(l.charge_at(who("x"), 10 * I, 5.0));
  EXPECT_EQ(l.windows(CredKind::User, "x"), nullptr);
  EXPECT_NEAR(l.charge_interval(who("x"), 77 * I - 10, 77 * I + 10, 1.0), 10.0, kSix);  // window 76 is slot 24: gone
}

TEST(FsLedger, DecayedUsageUsesDepthAndDecay) {
  const int64_t I = 100;
  FsLedger l(I, 0);
  l.charge_at(who("a", "", "acct"), 0, 100.0);
  l.advance_to(I);
  l.charge_at(who("b", "", "acct"), I, 50.0);
  const FsUsage u = l.decayed(2, 0.5);
  EXPECT_NEAR(u.total, 50.0 + 100.0 * 0.5, kSix);
  EXPECT_NEAR(u.by_name[0].at("a"), 50.0, kSix);
  EXPECT_NEAR(u.by_name[0].at("b"), 50.0, kSix);
  EXPECT_NEAR(u.by_name[2].at("acct"), 100.0, kSix);
  const FsUsage u1 = l.decayed(1, 0.5);
  EXPECT_NEAR(u1.by_name[0].at("a"), 0.0, kSix);
}

TEST(FsCharge, PolicyChoosesTheAmount) {
  EXPECT_EQ(fs_charge_amount(FsPolicy::None, 4, 8, 3, 10), 0.0);
  EXPECT_EQ(fs_charge_amount(FsPolicy::DedicatedPS, 4, 8, 3, 10), 40.0);
  EXPECT_EQ(fs_charge_amount(FsPolicy::DedicatedPES, 4, 8, 3, 10), 80.0);
  EXPECT_EQ(fs_charge_amount(FsPolicy::UtilizedPS, 4, 8, 3, 10), 3.0);
  EXPECT_EQ(fs_charge_amount(FsPolicy::UtilizedPS, 4, 8, -1, 10), 40.0);  // not measured
}

TEST(FsDelta, TargetFloorCeilingAndCapModes) {
  const double total = 100.0;
  EXPECT_NEAR(fs_delta(45, total, {50, TargetMode::Target}, false), 5.0, kSix);
  EXPECT_NEAR(fs_delta(35, total, {25, TargetMode::Target}, false), -10.0, kSix);
  EXPECT_NEAR(fs_delta(25, total, {10, TargetMode::Floor}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(5, total, {10, TargetMode::Floor}, false), 5.0, kSix);
  EXPECT_NEAR(fs_delta(5, total, {10, TargetMode::Ceiling}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(25, total, {10, TargetMode::Ceiling}, false), -15.0, kSix);
  EXPECT_NEAR(fs_delta(5, total, {10, TargetMode::CapAbsolute}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(5, total, {10, TargetMode::CapRelative}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(5, total, {0, TargetMode::Target}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(5, 0.0, {10, TargetMode::Target}, false), 0.0, kSix);
}

TEST(FsDelta, PercentPolicyIsRelativeToTheTarget) {
  // delta = 1 - usage% / target
  EXPECT_NEAR(fs_delta(45, 100, {50, TargetMode::Target}, true), 0.1, kSix);
  EXPECT_NEAR(fs_delta(35, 100, {25, TargetMode::Target}, true), -0.4, kSix);
  EXPECT_NEAR(fs_delta(0, 100, {25, TargetMode::Target}, true), 1.0, kSix);
  // Fractional and huge usage
  EXPECT_NEAR(fs_delta(1e-9, 1e-8, {10, TargetMode::Target}, false), 0.0, kSix);
  EXPECT_NEAR(fs_delta(1e18, 4e18, {50, TargetMode::Target}, false), 25.0, kSix);
}

Config fs_config() {
  Config c = Config::defaults(Flavor::Maui);
  c.fs_policy = FsPolicy::DedicatedPS;
  return c;
}

TEST(FsView, DisabledWithoutPolicyOrUsage) {
  Config c = Config::defaults(Flavor::Maui);
  c.creds[0]["a"].fs_target = {50, TargetMode::Target};
  FsUsage u;
  u.total = 100;
  u.by_name[0]["a"] = 10;
  EXPECT_FALSE(build_fs_view(c, u).enabled);  // FSPOLICY NONE
  EXPECT_EQ(build_fs_view(c, u).delta(CredKind::User, "a"), 0.0);
  c.fs_policy = FsPolicy::DedicatedPS;
  u.total = 0;
  EXPECT_FALSE(build_fs_view(c, u).enabled);  // no usage at all
  u.total = 100;
  EXPECT_NEAR(build_fs_view(c, u).delta(CredKind::User, "a"), 40.0, kSix);
}

TEST(FsView, DefaultTargetCoversCredentialsWithoutOne) {
  Config c = fs_config();
  c.default_cred[static_cast<int>(CredKind::Account)].fs_target = {20, TargetMode::Target};
  c.creds[2]["own"].fs_target = {60, TargetMode::Ceiling};
  FsUsage u;
  u.total = 200;
  u.by_name[2]["busy"] = 100;   // 50% against DEFAULT 20 -> -30
  u.by_name[2]["own"] = 100;    // 50% against own 60- -> ceiling keeps only <= 0 -> 0
  const FsView v = build_fs_view(c, u);
  EXPECT_NEAR(v.delta(CredKind::Account, "busy"), -30.0, kSix);
  EXPECT_NEAR(v.delta(CredKind::Account, "own"), 0.0, kSix);
  EXPECT_NEAR(v.delta(CredKind::Account, "never-seen"), 20.0, kSix);  // usage 0
  EXPECT_NEAR(v.delta(CredKind::Account, ""), 0.0, kSix);             // no credential
  EXPECT_NEAR(v.delta(CredKind::User, "anyone"), 0.0, kSix);          // no target at all
  EXPECT_NEAR(v.entries[2].at("busy").percent, 50.0, kSix);
}

}  // namespace
}  // namespace mfprio::maui
