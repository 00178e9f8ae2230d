// test_conf_limits.cpp - common/conf.cpp against hostile input:
// `Include /dev/zero` and other non-regular targets, lines longer than the
// 64 KiB bound and configurations larger than 16 MiB in total; messages name
// file:line and quote at most a short prefix of the line.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "conf.hpp"
#include "conf_errors.hpp"
#include "tempdir.hpp"

using mfprio::Conf;
using mfprio::ConfError;

namespace {

using mfprio::test::TempDir;

using mfprio::test::load_error;
using mfprio::test::parse_error;

TEST(ConfLimits, IncludeDevZeroIsRefusedAsNotARegularFile) {
  TempDir d;
  const std::string main = d.write("slurm.conf", "A=1\nInclude /dev/zero\n");
  EXPECT_EQ(load_error(main), main + ":2: cannot read conf file '/dev/zero': not a regular file");
}

TEST(ConfLimits, IncludeOfAFifoIsRefused) {
  TempDir d;
  const std::string fifo = d.path() + "/pipe";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  const std::string main = d.write("slurm.conf", "Include pipe\n");
  EXPECT_EQ(load_error(main), main + ":1: cannot read conf file '" + fifo + "': not a regular file");
}

TEST(ConfLimits, TopLevelDevZeroStopsAtTheLineBound) {
  const std::string e = load_error("/dev/zero");
  EXPECT_EQ(e.rfind("/dev/zero:1: line longer than 64 KiB: '", 0), 0u) << e;
  EXPECT_LT(e.size(), 200u);
}

TEST(ConfLimits, HugeLineIsAnErrorQuotingOnlyAPrefix) {
  const std::string e = parse_error("A=1\nKey=" + std::string(100000, 'x') + "\n");
  EXPECT_EQ(e, "t.conf:2: line longer than 64 KiB: 'Key=" + std::string(56, 'x') + "...'");
}

TEST(ConfLimits, LineJustUnderTheBoundIsRead) {
  const Conf c = Conf::parse("Key=" + std::string(64 * 1024 - 4, 'x') + "\n", "t.conf");
  ASSERT_NE(c.find("key"), nullptr);
  EXPECT_EQ(c.find("key")->value.size(), 64u * 1024 - 4);
}

TEST(ConfLimits, ContinuationsCannotBuildAHugeLine) {
  std::string text;
  for (int i = 0; i < 40; ++i) text += "K" + std::to_string(i) + "=" + std::string(2000, 'v') + " \\\n";
  text += "Last=1\n";
  const std::string e = parse_error(text);
  EXPECT_EQ(e.rfind("t.conf:1: line (with continuations) longer than 64 KiB: 'K0=", 0), 0u) << e.substr(0, 100);
  EXPECT_LT(e.size(), 200u);
}

TEST(ConfLimits, ErrorMessagesDoNotRepeatALongLine) {
  const std::string w(30000, 'w');
  const std::string e1 = parse_error("Key=\"" + w + "\n");
  EXPECT_LT(e1.size(), 200u) << e1.substr(0, 100);
  const std::string e2 = parse_error(w + "\n");
  EXPECT_EQ(e2, "t.conf:1: expected Key=Value, found '" + std::string(60, 'w') + "...'");
}

TEST(ConfLimits, TotalSizeIsBoundedAcrossIncludes) {
  TempDir d;
  std::string chunk;
  for (int i = 0; i < 2000; ++i) chunk += "Key" + std::to_string(i) + "=" + std::string(1000, 'v') + "\n";  // ~2 MB
  d.write("part.conf", chunk);
  std::string main_text;
  for (int i = 0; i < 9; ++i) main_text += "Include part.conf\n";
  const std::string main = d.write("slurm.conf", main_text);
  const std::string e = load_error(main);
  EXPECT_NE(e.find("part.conf:"), std::string::npos) << e;
  EXPECT_NE(e.find("configuration larger than 16 MiB (all included files together)"), std::string::npos) << e;
}

}  // namespace

TEST(ConfLimits, AUtf8BomOpeningAFileIsSkippedInEveryFile) {
  TempDir d;
  d.write("inc.conf", "\xEF\xBB\xBFPriorityWeightAge=7\n");
  const std::string main = d.write("slurm.conf", "\xEF\xBB\xBFPriorityType=priority/basic\nInclude inc.conf\n");
  const Conf c = Conf::load(main);
  ASSERT_NE(c.find("PriorityType"), nullptr);
  EXPECT_EQ(c.find("PriorityType")->value, "priority/basic");
  ASSERT_NE(c.find("PriorityWeightAge"), nullptr);
  EXPECT_EQ(c.find("PriorityWeightAge")->value, "7");
  // Only at the start of a file: elsewhere the bytes are part of the key.
  EXPECT_NE(parse_error("A=1\n\xEF\xBB\xBFKey=1\n"), "");
}
