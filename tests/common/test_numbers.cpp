// common/numbers.hpp and strings.hpp: one rule per kind of text, each with
// its format's edge cases (signs, hex, exponents, inf/nan, overflow,
// underflow, blanks), and the two trimming rules.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "numbers.hpp"
#include "qconf.hpp"
#include "strings.hpp"

namespace mfprio {
namespace {

bool u64(const std::string& s, uint64_t max, uint64_t* out) { return parse_u64(s, max, out); }

// Counts (slurm.conf values, PriorityParameters items, CLI arguments).
TEST(Numbers, CountsAreDecimalDigitsOnly) {
  uint64_t v = 7;
  EXPECT_TRUE(u64("0", 10, &v));
  EXPECT_EQ(v, 0u);
  EXPECT_TRUE(u64("4294967295", 0xffffffffu, &v));
  EXPECT_EQ(v, 4294967295u);
  EXPECT_TRUE(u64("18446744073709551615", UINT64_MAX, &v));
  EXPECT_EQ(v, UINT64_MAX);
  v = 7;
  EXPECT_FALSE(u64("4294967296", 0xffffffffu, &v));  // over the maximum
  for (const char* bad : {"", "18446744073709551616", "-1", "+1", " 1", "1 ", "0x10", "1e3", "1.0", "inf", "nan",
                          "\xef\xbc\x91"}) {  // the last: a full-width digit one
    EXPECT_FALSE(u64(bad, UINT64_MAX, &v)) << bad;
    EXPECT_EQ(v, 7u) << bad;  // untouched
  }
}

// Integers (maui.cfg, qconf text, CSV cells, signed CLI values).
TEST(Numbers, IntegersTakeASignAndDigits) {
  int64_t v = 7;
  EXPECT_TRUE(parse_i64("-42", &v));
  EXPECT_EQ(v, -42);
  EXPECT_TRUE(parse_i64("+42", &v));
  EXPECT_EQ(v, 42);
  EXPECT_TRUE(parse_i64("-9223372036854775808", &v));
  EXPECT_EQ(v, INT64_MIN);
  EXPECT_TRUE(parse_i64("007", &v));
  EXPECT_EQ(v, 7);
  v = 7;
  for (const char* bad : {"", "-", "+", "9223372036854775808", "-9223372036854775809", " 1", "1 ", "0x10",
                          "1e3", "1.0", "--1", "inf", "nan", "1_000"}) {
    EXPECT_FALSE(parse_i64(bad, &v)) << bad;
    EXPECT_EQ(v, 7) << bad;
  }
  // A range (queue priorities are signed 32-bit).
  EXPECT_TRUE(parse_i64("-2147483648", &v, INT32_MIN, INT32_MAX));
  EXPECT_FALSE(parse_i64("2147483648", &v, INT32_MIN, INT32_MAX));
}

// Reals of the C readers (slurm.conf, maui.cfg, qconf): strtod's syntax.
TEST(Numbers, RealsAreWhatStrtodReadsFinite) {
  double v = 7;
  EXPECT_TRUE(parse_real("0.25", &v));
  EXPECT_EQ(v, 0.25);
  EXPECT_TRUE(parse_real("-1.5e3", &v));
  EXPECT_EQ(v, -1500);
  EXPECT_TRUE(parse_real(".5", &v));
  EXPECT_EQ(v, 0.5);
  EXPECT_TRUE(parse_real("5.", &v));
  EXPECT_EQ(v, 5);
  EXPECT_TRUE(parse_real("0x1p4", &v));  // hexadecimal, as Slurm's, Maui's and Grid Engine's strtod read it
  EXPECT_EQ(v, 16);
  EXPECT_TRUE(parse_real("1.7976931348623157e308", &v));
  v = 7;
  for (const char* bad : {"", "inf", "-inf", "INFINITY", "nan", "NaN", "1e999", "-1e999", "1e-400", " 1", "1 ",
                          "1,5", "1.5x", "e3", ".", "+"}) {
    EXPECT_FALSE(parse_real(bad, &v)) << bad;
    EXPECT_EQ(v, 7) << bad;
  }
}

// Reals of CSV cells (flux-accounting's export-db, written by Python).
TEST(Numbers, CsvRealsAreDecimalNotationOnly) {
  double v = 7;
  for (const auto& [text, want] : std::initializer_list<std::pair<const char*, double>>{
           {"0.5", 0.5}, {"-2", -2}, {"+3.25", 3.25}, {"1e3", 1000}, {"1E-2", 0.01}, {".5", 0.5}, {"5.", 5}}) {
    EXPECT_TRUE(parse_decimal(text, &v)) << text;
    EXPECT_EQ(v, want) << text;
  }
  v = 7;
  for (const char* bad : {"", "0x10", "0x1p4", "inf", "nan", "1e", "1e+", ".", "-", "1_000", "1e999", " 1", "1 ",
                          "1.2.3", "e5"}) {
    EXPECT_FALSE(parse_decimal(bad, &v)) << bad;
    EXPECT_EQ(v, 7) << bad;
  }
}

// The two trimming rules, and ASCII-only case folding.
TEST(Strings, TrimSpaceAndTrimBlank) {
  EXPECT_EQ(trim_space(" \t\r\n\v\fa b\f\v\n\r\t "), "a b");
  EXPECT_EQ(trim_blank(" \t\ra b\r\t "), "a b");
  EXPECT_EQ(trim_blank("\fa\v"), "\fa\v");  // qconf text: a form feed is a byte of the value
  EXPECT_EQ(trim_space(""), "");
  EXPECT_EQ(trim_space(" \t "), "");
  EXPECT_EQ(lower("PriorityWeightAge=ÄB"), "priorityweightage=Äb");
  EXPECT_EQ(upper("fsPolicy ä"), "FSPOLICY ä");
  EXPECT_TRUE(iequals("AccountingStorageLoc", "accountingstorageLOC"));
  EXPECT_FALSE(iequals("Loc", "Lo"));
  EXPECT_FALSE(iequals("\xc4", "\xe4"));  // Latin-1 Ä and ä: bytes, not letters
}

// qconf -sconf: enforce_user and the auto_user_* values.
TEST(QconfGlobal, ReadsEnforceUserAndAutoUserTickets) {
  using gridengine::GlobalConf;
  GlobalConf g;
  std::string why;
  ASSERT_TRUE(gridengine::parse_global_conf(
      "#global:\nexecd_spool_dir /var/spool\nenforce_user AUTO\nreporting_params accounting=true \\\n"
      "  flush_time=00:00:15\nauto_user_oticket 5\nauto_user_fshare 100\nauto_user_delete_time 86400\n",
      "sconf", &g, &why)) << why;
  EXPECT_TRUE(g.auto_users());
  EXPECT_EQ(g.auto_user_fshare, 100u);
  EXPECT_EQ(g.auto_user_oticket, 5u);
  GlobalConf d;
  ASSERT_TRUE(gridengine::parse_global_conf("", "sconf", &d, &why));
  EXPECT_TRUE(d.auto_users());  // absent: auto, as installed
  EXPECT_EQ(d.auto_user_fshare, 0u);
  ASSERT_TRUE(gridengine::parse_global_conf("enforce_user false\n", "sconf", &d, &why));
  EXPECT_FALSE(d.auto_users());
  GlobalConf keep = g;
  for (const auto& [text, msg] : std::initializer_list<std::pair<const char*, const char*>>{
           {"auto_user_fshare -1\n", "sconf:1: key 'auto_user_fshare' value '-1': expected an integer"},
           {"auto_user_fshare 4294967296\n", "sconf:1: key 'auto_user_fshare' value '4294967296'"},
           {"auto_user_oticket 0x10\n", "sconf:1: key 'auto_user_oticket' value '0x10'"},
           {"enforce_user maybe\n", "sconf:1: key 'enforce_user' value 'maybe': expected true, false or auto"},
           {"auto_user_fshare 1\nauto_user_fshare 2\n", "sconf:2: key 'auto_user_fshare' value '2': already given"}}) {
    EXPECT_FALSE(gridengine::parse_global_conf(text, "sconf", &g, &why)) << text;
    EXPECT_EQ(why.rfind(msg, 0), 0u) << why;
    EXPECT_EQ(g.auto_user_fshare, keep.auto_user_fshare);  // untouched
  }
}

}  // namespace
}  // namespace mfprio
