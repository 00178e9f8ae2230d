// test_conf.cpp - the slurm.conf syntax reader (host-shim/conf.cpp).
#include <gtest/gtest.h>

#include "conf.hpp"
#include "conf_errors.hpp"
#include "test_util.hpp"

using mfprio::Conf;
using mfprio::ConfError;
using mfprio::test::TempDir;

namespace {

using mfprio::test::load_error;
using mfprio::test::parse_error;

TEST(Conf, ParsesKeyValuePairsWithFileAndLine) {
  Conf c = Conf::parse("PriorityType=priority/basic\n\nPriorityWeightAge=1000\n", "site.conf");
  ASSERT_EQ(c.pairs().size(), 2u);
  EXPECT_EQ(c.pairs()[0].key, "PriorityType");
  EXPECT_EQ(c.pairs()[0].value, "priority/basic");
  EXPECT_EQ(c.pairs()[0].file, "site.conf");
  EXPECT_EQ(c.pairs()[0].line, 1u);
  EXPECT_EQ(c.pairs()[1].line, 3u);
}

TEST(Conf, CommentsAreIgnoredOutsideQuotes) {
  Conf c = Conf::parse("# whole line\nA=1 # trailing\nB=\"x # not a comment\"\nC=a\\#b\n", "t");
  ASSERT_EQ(c.pairs().size(), 3u);
  EXPECT_EQ(c.find("A")->value, "1");
  EXPECT_EQ(c.find("B")->value, "x # not a comment");
  EXPECT_EQ(c.find("C")->value, "a#b");
}

TEST(Conf, HashRightAfterValueStartsAComment) {
  Conf c = Conf::parse("A=1#comment\n", "t");
  ASSERT_EQ(c.pairs().size(), 1u);
  EXPECT_EQ(c.find("A")->value, "1");
}

TEST(Conf, KeysAreCaseInsensitiveButKeptAsWritten) {
  Conf c = Conf::parse("prioritytype=priority/basic\n", "t");
  ASSERT_NE(c.find("PriorityType"), nullptr);
  ASSERT_NE(c.find("PRIORITYTYPE"), nullptr);
  EXPECT_EQ(c.find("PriorityType")->key, "prioritytype");
  EXPECT_EQ(c.find("PriorityTypo"), nullptr);
}

TEST(Conf, SeveralPairsOnOneLineShareTheLine) {
  Conf c = Conf::parse("\nPartitionName=batch Nodes=n[1-4]\tPriorityJobFactor=10\n", "t");
  ASSERT_EQ(c.pairs().size(), 3u);
  EXPECT_EQ(c.pairs()[0].key, "PartitionName");
  EXPECT_EQ(c.pairs()[1].value, "n[1-4]");
  EXPECT_EQ(c.pairs()[2].key, "PriorityJobFactor");
  for (const auto& p : c.pairs()) EXPECT_EQ(p.line, 2u);
}

TEST(Conf, QuotedValuesKeepBlanksAndEqualsSigns) {
  Conf c = Conf::parse("A=\"two words\" B='single q' C=x\"y z\"w D=\"k=v,a=b\" E=\"\"\n", "t");
  EXPECT_EQ(c.find("A")->value, "two words");
  EXPECT_EQ(c.find("B")->value, "single q");
  EXPECT_EQ(c.find("C")->value, "xy zw");
  EXPECT_EQ(c.find("D")->value, "k=v,a=b");
  EXPECT_EQ(c.find("E")->value, "");
}

TEST(Conf, ValueMayContainEqualsUnquoted) {
  Conf c = Conf::parse("PriorityWeightTRES=CPU=1000,Mem=2000\n", "t");
  EXPECT_EQ(c.find("PriorityWeightTRES")->value, "CPU=1000,Mem=2000");
}

TEST(Conf, EmptyValueIsAllowed) {
  Conf c = Conf::parse("A=\n", "t");
  ASSERT_NE(c.find("A"), nullptr);
  EXPECT_EQ(c.find("A")->value, "");
}

TEST(Conf, LaterPairOverridesEarlier) {
  Conf c = Conf::parse("PriorityWeightAge=1\npriorityweightage=2\n", "t");
  EXPECT_EQ(c.find("PriorityWeightAge")->value, "2");
  EXPECT_EQ(c.find("PriorityWeightAge")->line, 2u);
  EXPECT_EQ(c.pairs().size(), 2u);  // both are kept and passed on, in order
}

TEST(Conf, BackslashContinuesALine) {
  Conf c = Conf::parse("PartitionName=a \\\n  Nodes=n1\nB=2\n", "t");
  ASSERT_EQ(c.pairs().size(), 3u);
  EXPECT_EQ(c.find("Nodes")->value, "n1");
  EXPECT_EQ(c.find("Nodes")->line, 1u);
  EXPECT_EQ(c.find("B")->line, 3u);
}

TEST(Conf, CrLfLineEndsAreAccepted) {
  Conf c = Conf::parse("A=1\r\nB=2\r\n", "t");
  EXPECT_EQ(c.find("A")->value, "1");
  EXPECT_EQ(c.find("B")->value, "2");
}

TEST(Conf, UnknownKeysAreKept) {
  Conf c = Conf::parse("SlurmctldHost=ctl1\nSchedulerType=sched/backfill\n", "t");
  EXPECT_EQ(c.find("SchedulerType")->value, "sched/backfill");
}

TEST(Conf, WordWithoutEqualsIsASyntaxErrorNamingFileAndLine) {
  EXPECT_EQ(parse_error("A=1\nB=2 oops\n", "x.conf"), "x.conf:2: expected Key=Value, found 'oops'");
}

TEST(Conf, MissingKeyIsAnError) { EXPECT_EQ(parse_error("=5\n"), "t.conf:1: missing key before '=' in '=5'"); }

TEST(Conf, UnterminatedQuoteIsAnError) {
  EXPECT_NE(parse_error("\n\nA=\"open\n").find("t.conf:3: unterminated double quote"), std::string::npos);
}

TEST(Conf, BadKeyCharacterIsAnError) {
  EXPECT_NE(parse_error("Ke$y=1\n").find("t.conf:1: invalid character '$'"), std::string::npos);
}

TEST(Conf, IncludeIsRelativeToTheIncludingFile) {
  TempDir d;
  d.write("etc/sub/prio.conf", "PriorityWeightAge=500\nInclude more.conf\n");
  d.write("etc/sub/more.conf", "PriorityWeightQOS=7\n");
  const std::string main = d.write("etc/slurm.conf", "PriorityType=priority/basic\nInclude sub/prio.conf\nX=1\n");
  Conf c = Conf::load(main);
  ASSERT_EQ(c.pairs().size(), 4u);
  EXPECT_EQ(c.pairs()[1].key, "PriorityWeightAge");
  EXPECT_EQ(c.pairs()[1].file, d.path() + "/etc/sub/prio.conf");
  EXPECT_EQ(c.pairs()[1].line, 1u);
  EXPECT_EQ(c.pairs()[2].key, "PriorityWeightQOS");
  EXPECT_EQ(c.pairs()[3].key, "X");  // after the include, in file order
  EXPECT_EQ(c.pairs()[3].line, 3u);
}

TEST(Conf, IncludeKeywordAnyCaseAndQuotedPath) {
  TempDir d;
  d.write("with space.conf", "A=1\n");
  const std::string main = d.write("m.conf", "include \"with space.conf\"\n");
  EXPECT_EQ(Conf::load(main).find("A")->value, "1");
}

TEST(Conf, IncludeAbsolutePath) {
  TempDir d;
  const std::string inc = d.write("abs.conf", "A=abs\n");
  const std::string main = d.write("sub/m.conf", "Include " + inc + "\n");
  EXPECT_EQ(Conf::load(main).find("A")->value, "abs");
}

TEST(Conf, IncludedValueCanBeOverriddenLater) {
  TempDir d;
  d.write("inc.conf", "A=inner\n");
  const std::string main = d.write("m.conf", "A=first\nInclude inc.conf\n");
  EXPECT_EQ(Conf::load(main).find("A")->value, "inner");
  const std::string main2 = d.write("m2.conf", "Include inc.conf\nA=outer\n");
  EXPECT_EQ(Conf::load(main2).find("A")->value, "outer");
}

TEST(Conf, IncludeLoopIsDetected) {
  TempDir d;
  d.write("a.conf", "A=1\nInclude b.conf\n");
  d.write("b.conf", "\nInclude a.conf\n");
  const std::string err = load_error(d.path() + "/a.conf");
  EXPECT_NE(err.find(d.path() + "/b.conf:2: Include loop"), std::string::npos) << err;
}

TEST(Conf, SelfIncludeIsALoop) {
  TempDir d;
  const std::string p = d.write("self.conf", "Include self.conf\n");
  EXPECT_NE(load_error(p).find("self.conf:1: Include loop"), std::string::npos);
}

TEST(Conf, MissingIncludeNamesTheIncludingLine) {
  TempDir d;
  const std::string p = d.write("m.conf", "A=1\nInclude nothere.conf\n");
  const std::string err = load_error(p);
  EXPECT_NE(err.find(p + ":2: cannot open conf file"), std::string::npos) << err;
  EXPECT_NE(err.find("nothere.conf"), std::string::npos) << err;
}

TEST(Conf, IncludeWithoutPathIsAnError) {
  EXPECT_EQ(parse_error("Include\n"), "t.conf:1: Include takes exactly one file name");
  EXPECT_EQ(parse_error("Include a b\n"), "t.conf:1: Include takes exactly one file name");
}

TEST(Conf, MissingFileIsAnError) {
  const std::string err = load_error("/nonexistent/dir/slurm.conf");
  EXPECT_NE(err.find("cannot open conf file '/nonexistent/dir/slurm.conf'"), std::string::npos) << err;
}

TEST(Conf, ErrorInIncludedFileNamesThatFile) {
  TempDir d;
  d.write("inc.conf", "A=1\n\n\nbroken\n");
  const std::string p = d.write("m.conf", "Include inc.conf\n");
  EXPECT_EQ(load_error(p), d.path() + "/inc.conf:4: expected Key=Value, found 'broken'");
}

TEST(Conf, IequalsComparesAsciiCaseInsensitively) {
  EXPECT_TRUE(mfprio::iequals("PluginDir", "plugindir"));
  EXPECT_FALSE(mfprio::iequals("PluginDir", "plugindirs"));
}

}  // namespace

// --- what Slurm's own reader accepts ------------------------------------------

namespace {

TEST(ConfSlurm, BlanksAroundEqualsAreAccepted) {
  // Both lines come from a real site's slurm.conf.
  Conf c = Conf::parse("MailProg= /usr/bin/smail\nUsePam = 1\nA =2 B= 3\tC\t=\t4\n", "t");
  ASSERT_EQ(c.pairs().size(), 5u);
  EXPECT_EQ(c.find("MailProg")->value, "/usr/bin/smail");
  EXPECT_EQ(c.find("UsePam")->value, "1");
  EXPECT_EQ(c.find("A")->value, "2");
  EXPECT_EQ(c.find("B")->value, "3");
  EXPECT_EQ(c.find("C")->value, "4");
  EXPECT_EQ(c.find("C")->line, 3u);
}

TEST(ConfSlurm, KeyWithEqualsAtLineEndHasAnEmptyValue) {
  Conf c = Conf::parse("A= \nB= # comment\n", "t");
  EXPECT_EQ(c.find("A")->value, "");
  EXPECT_EQ(c.find("B")->value, "");
}

TEST(ConfSlurm, ContinuationJoinsWithNothingBetweenAndAllowsTrailingBlanks) {
  Conf c = Conf::parse("PartitionName=p Nodes=n[1-4],\\  \nn[7-8] Default=YES\nX=a\\\\\nY=b\n", "t");
  EXPECT_EQ(c.find("Nodes")->value, "n[1-4],n[7-8]");
  EXPECT_EQ(c.find("Default")->line, 1u);
  // An even run of '\' does not continue the line.
  EXPECT_EQ(c.find("Y")->line, 4u);
}

TEST(ConfSlurm, IncludePercentCIsTheClusterNameLowerCased) {
  TempDir d;
  d.write("etc/prio-mycluster.conf", "PriorityWeightAge=5\n");
  const std::string main = d.write("etc/slurm.conf", "ClusterName=MyCluster\nInclude prio-%c.conf\n");
  Conf c = Conf::load(main);
  ASSERT_NE(c.find("PriorityWeightAge"), nullptr);
  EXPECT_EQ(c.find("PriorityWeightAge")->file, d.path() + "/etc/prio-mycluster.conf");
}

TEST(ConfSlurm, IncludePercentCWithoutClusterNameIsAnError) {
  TempDir d;
  const std::string main = d.write("slurm.conf", "Include prio-%c.conf\nClusterName=late\n");
  const std::string e = load_error(main);
  EXPECT_NE(e.find(main + ":1: Include 'prio-%c.conf': %c stands for ClusterName"), std::string::npos) << e;
}

TEST(ConfSlurm, EveryErrorIsReportedInOneRun) {
  TempDir d;
  d.write("bad.conf", "Q=\"open\n");
  const std::string main =
      d.write("slurm.conf", "A=1\nB=2 oops\nInclude missing.conf\nC=3\n=5\nInclude bad.conf\nKe$y=1\nD=4\n");
  const std::string e = load_error(main);
  // One line per error, in reading order, each naming file:line.
  std::vector<std::string> lines;
  for (size_t pos = 0; pos <= e.size();) {
    size_t nl = e.find('\n', pos);
    if (nl == std::string::npos) nl = e.size();
    lines.push_back(e.substr(pos, nl - pos));
    pos = nl + 1;
  }
  ASSERT_EQ(lines.size(), 5u) << e;
  EXPECT_EQ(lines[0], main + ":2: expected Key=Value, found 'oops'");
  EXPECT_NE(lines[1].find(main + ":3: cannot open conf file"), std::string::npos);
  EXPECT_EQ(lines[2], main + ":5: missing key before '=' in '=5'");
  EXPECT_NE(lines[3].find(d.path() + "/bad.conf:1: unterminated double quote"), std::string::npos);
  EXPECT_NE(lines[4].find(main + ":7: invalid character '$'"), std::string::npos);
}

TEST(ConfErrorsList, DropsRepeatsAndSplitsMultiLineMessages) {
  mfprio::ConfErrors errs;
  EXPECT_NO_THROW(errs.throw_if_any());
  errs.add("a:1: x");
  errs.add("a:2: y\na:1: x");
  ASSERT_EQ(errs.items().size(), 2u);
  try {
    errs.throw_if_any();
    FAIL();
  } catch (const ConfError& e) {
    EXPECT_EQ(std::string(e.what()), "a:1: x\na:2: y");
  }
}

}  // namespace

namespace {
TEST(ConfErrorsList, SortsByFileThenLine) {
  mfprio::ConfErrors errs;
  errs.add("b.conf:9: x");
  errs.add("a.conf:3: y");
  errs.add("no position");
  errs.add("b.conf:2: z");
  errs.add("a.conf:1: w");
  errs.sort_by_position();
  EXPECT_EQ(errs.joined(), "b.conf:2: z\nb.conf:9: x\na.conf:1: w\na.conf:3: y\nno position");
}
}  // namespace
