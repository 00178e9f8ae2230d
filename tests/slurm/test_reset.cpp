// test_reset.cpp - PriorityUsageResetPeriod's boundaries for Slurm's own
// usage bookkeeping in priority/mfprio (host-shim/slurm/reset.c, pure: no
// daemon, a forced clock).  The rules (slurm.conf(5)): DAILY at midnight,
// WEEKLY on Sunday 00:00, MONTHLY on the 1st, QUARTERLY on Jan/Apr/Jul/Oct
// 1st, YEARLY on Jan 1st, all 00:00 local time; NONE and NOW have no
// boundary (NOW is the bookkeeping's once-per-start reset).
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <string>

#include "mfprio_slurm_reset.h"

namespace {

// Sets the process's time zone for one test and restores UTC after it.
class Zone {
 public:
  explicit Zone(const char* tz) {
    setenv("TZ", tz, 1);
    tzset();
  }
  ~Zone() {
    setenv("TZ", "UTC", 1);
    tzset();
  }
};

// Local time YYYY-MM-DD hh:mm:ss -> epoch.
time_t at(int y, int mo, int d, int h = 0, int mi = 0, int s = 0) {
  std::tm tm{};
  tm.tm_year = y - 1900;
  tm.tm_mon = mo - 1;
  tm.tm_mday = d;
  tm.tm_hour = h;
  tm.tm_min = mi;
  tm.tm_sec = s;
  tm.tm_isdst = -1;
  return mktime(&tm);
}

TEST(ResetPeriod, NextBoundaryOfEachPeriod) {
  Zone z("UTC");
  const time_t t = at(2026, 11, 26, 13, 45);  // a Thursday
  EXPECT_EQ(mfs_reset_next(MFS_RESET_DAILY, t), at(2026, 11, 27));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_WEEKLY, t), at(2026, 11, 29));  // Sunday
  EXPECT_EQ(mfs_reset_next(MFS_RESET_MONTHLY, t), at(2026, 12, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_QUARTERLY, t), at(2027, 1, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_YEARLY, t), at(2027, 1, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_QUARTERLY, at(2026, 2, 10)), at(2026, 4, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_QUARTERLY, at(2026, 4, 1)), at(2026, 7, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_NONE, t), 0);
  EXPECT_EQ(mfs_reset_next(MFS_RESET_NOW, t), 0);
}

TEST(ResetPeriod, ABoundaryIsStrictlyAfterItsStart) {
  Zone z("UTC");
  EXPECT_EQ(mfs_reset_next(MFS_RESET_DAILY, at(2026, 11, 27)), at(2026, 11, 28));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_WEEKLY, at(2026, 11, 29)), at(2026, 12, 6));  // from a Sunday
  EXPECT_EQ(mfs_reset_next(MFS_RESET_WEEKLY, at(2026, 11, 28, 23, 59, 59)), at(2026, 11, 29));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_MONTHLY, at(2026, 12, 31, 23)), at(2027, 1, 1));
  EXPECT_EQ(mfs_reset_next(MFS_RESET_YEARLY, at(2027, 1, 1)), at(2028, 1, 1));
}

TEST(ResetPeriod, DueOnlyOnceABoundaryPassed) {
  Zone z("UTC");
  time_t last = at(2026, 11, 26, 13), when = 0;
  EXPECT_FALSE(mfs_reset_due(MFS_RESET_DAILY, last, at(2026, 11, 26, 23, 59, 59), &when));
  ASSERT_TRUE(mfs_reset_due(MFS_RESET_DAILY, last, at(2026, 11, 27, 0, 0, 5), &when));
  EXPECT_EQ(when, at(2026, 11, 27));
  // the next pass, after that reset: not again the same day
  EXPECT_FALSE(mfs_reset_due(MFS_RESET_DAILY, when, at(2026, 11, 27, 9), &when));
  EXPECT_FALSE(mfs_reset_due(MFS_RESET_NONE, last, at(2030, 1, 1), &when));
  EXPECT_FALSE(mfs_reset_due(MFS_RESET_NOW, last, at(2030, 1, 1), &when));
}

TEST(ResetPeriod, MissedBoundariesGiveOneResetAtTheLatest) {
  Zone z("UTC");
  time_t when = 0;
  // slurmctld down from Nov 26 to Dec 3 noon: one reset, at Dec 3 00:00
  ASSERT_TRUE(mfs_reset_due(MFS_RESET_DAILY, at(2026, 11, 26, 13), at(2026, 12, 3, 12), &when));
  EXPECT_EQ(when, at(2026, 12, 3));
  ASSERT_TRUE(mfs_reset_due(MFS_RESET_MONTHLY, at(2026, 1, 15), at(2026, 5, 2), &when));
  EXPECT_EQ(when, at(2026, 5, 1));
  ASSERT_TRUE(mfs_reset_due(MFS_RESET_WEEKLY, at(2026, 11, 26), at(2026, 12, 10), &when));
  EXPECT_EQ(when, at(2026, 12, 6));
}

TEST(ResetPeriod, LocalMidnightAcrossDaylightSaving) {
  // Berlin's clocks go back on 2026-10-25 (a 25-hour day): midnight stays
  // midnight, local time
  Zone z("Europe/Berlin");
  const time_t d = mfs_reset_next(MFS_RESET_DAILY, at(2026, 10, 25, 12));
  EXPECT_EQ(d, at(2026, 10, 26));
  EXPECT_EQ(d - at(2026, 10, 25), 25 * 3600);
  std::tm tm{};
  ASSERT_NE(localtime_r(&d, &tm), nullptr);
  EXPECT_EQ(tm.tm_hour, 0);
  EXPECT_EQ(tm.tm_mday, 26);
}

}  // namespace
