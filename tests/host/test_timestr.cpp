// test_timestr.cpp - every Slurm time-string form (plugin/core/timestr.cpp),
// as the host uses it for job time limits.
#include <gtest/gtest.h>

#include <timestr.hpp>

namespace {

int64_t secs(const std::string& s) {
  int64_t v = -12345;
  std::string why;
  EXPECT_TRUE(mfprio::parse_time_string(s, &v, &why)) << s << ": " << why;
  return v;
}

bool rejects(const std::string& s) {
  int64_t v = 0;
  std::string why;
  const bool ok = mfprio::parse_time_string(s, &v, &why);
  return !ok && !why.empty();
}

TEST(TimeString, LoneNumberIsMinutes) { EXPECT_EQ(secs("5"), 300); }
TEST(TimeString, MinutesColonSeconds) { EXPECT_EQ(secs("5:30"), 330); }
TEST(TimeString, HoursMinutesSeconds) { EXPECT_EQ(secs("2:03:04"), 2 * 3600 + 3 * 60 + 4); }
TEST(TimeString, DaysDashHours) { EXPECT_EQ(secs("7-0"), 7 * 86400); EXPECT_EQ(secs("1-2"), 86400 + 7200); }
TEST(TimeString, DaysDashHoursMinutes) { EXPECT_EQ(secs("1-2:30"), 86400 + 7200 + 1800); }
TEST(TimeString, DaysDashHoursMinutesSeconds) { EXPECT_EQ(secs("1-00:00:01"), 86401); }
TEST(TimeString, ZeroIsZero) { EXPECT_EQ(secs("0"), 0); }
TEST(TimeString, InfiniteForms) {
  EXPECT_EQ(secs("INFINITE"), mfprio::kTimeInfinite);
  EXPECT_EQ(secs("infinite"), mfprio::kTimeInfinite);
  EXPECT_EQ(secs("UNLIMITED"), mfprio::kTimeInfinite);
  EXPECT_EQ(secs("Unlimited"), mfprio::kTimeInfinite);
  EXPECT_EQ(secs("-1"), mfprio::kTimeInfinite);
}
TEST(TimeString, RejectsGarbage) {
  EXPECT_TRUE(rejects(""));
  EXPECT_TRUE(rejects("abc"));
  EXPECT_TRUE(rejects("1:2:3:4"));
  EXPECT_TRUE(rejects("-5"));
  EXPECT_TRUE(rejects("1-"));
  EXPECT_TRUE(rejects("1-2-3"));
  EXPECT_TRUE(rejects("5:"));
  EXPECT_TRUE(rejects(":5"));
  EXPECT_TRUE(rejects("1.5"));
  EXPECT_TRUE(rejects("1-2:3:4:5"));
  EXPECT_TRUE(rejects("-2"));
}

}  // namespace
