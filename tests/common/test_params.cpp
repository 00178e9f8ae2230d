// test_params.cpp - common/params.hpp: the PriorityParameters list of the
// families that read native files, the conf-relative path rule and
// floor_div.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "params.hpp"
#include "tempdir.hpp"

namespace {

mfprio::ConfPair pair(const std::string& value, const std::string& file = "/etc/slurm/slurm.conf") {
  return mfprio::ConfPair{"PriorityParameters", value, file, 7};
}

std::string error_of(const mfprio::ConfPair& p) {
  try {
    mfprio::priority_parameters(p, {"sched_conf", "complexes"}, "priority/gridengine");
  } catch (const mfprio::ConfigError& e) {
    return e.what();
  }
  return "";
}

TEST(PriorityParameters, ParsesNamesCaseInsensitivelyAndTrims) {
  auto m = mfprio::priority_parameters(pair(" Sched_Conf = a/sc , complexes=/abs/cx "), {"sched_conf", "complexes"},
                                       "priority/gridengine");
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m["sched_conf"], "a/sc");
  EXPECT_EQ(m["complexes"], "/abs/cx");
}

TEST(PriorityParameters, EachMistakeNamesFileLineAndWhat) {
  EXPECT_EQ(error_of(pair("sched_conf")), "/etc/slurm/slurm.conf:7: PriorityParameters: 'sched_conf' is not NAME=VALUE");
  EXPECT_NE(error_of(pair("config=x")).find("unknown key 'config' (priority/gridengine reads sched_conf=PATH and "
                                            "complexes=PATH)"),
            std::string::npos);
  EXPECT_NE(error_of(pair("complexes=a,COMPLEXES=b")).find("'complexes' given twice"), std::string::npos);
  EXPECT_NE(error_of(pair("complexes= ")).find("'complexes' has no path"), std::string::npos);
  EXPECT_EQ(error_of(pair("=x")), "/etc/slurm/slurm.conf:7: PriorityParameters: '=x' is not NAME=VALUE");
}

TEST(PriorityParameters, PathsAreRelativeToTheWritingFile) {
  EXPECT_EQ(mfprio::conf_relative_path(pair("", "/etc/slurm/inc/prio.conf"), "maui.cfg"), "/etc/slurm/inc/maui.cfg");
  EXPECT_EQ(mfprio::conf_relative_path(pair("", "/etc/slurm/slurm.conf"), "/opt/maui.cfg"), "/opt/maui.cfg");
  EXPECT_EQ(mfprio::conf_relative_path(pair("", "slurm.conf"), "maui.cfg"), "maui.cfg");
}

TEST(PriorityParameters, ReadsTheNamedFileOrSaysWhy) {
  const mfprio::test::TempDir tmp;
  const std::string dir = tmp.path();
  const std::string conf = std::string(dir) + "/slurm.conf";
  std::ofstream(std::string(dir) + "/maui.cfg") << "FSWEIGHT 10\n";
  std::string full;
  EXPECT_EQ(mfprio::read_parameter_file(pair("", conf), "config", "maui.cfg", &full), "FSWEIGHT 10\n");
  EXPECT_EQ(full, std::string(dir) + "/maui.cfg");
  try {
    mfprio::read_parameter_file(pair("", conf), "config", "missing.cfg", &full);
    ADD_FAILURE() << "a missing file was read";
  } catch (const mfprio::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), conf + ":7: PriorityParameters: config=" + dir + "/missing.cfg: cannot read: No such file or directory");
  }
  try {
    mfprio::read_parameter_file(pair("", conf), "config", ".", &full);
    ADD_FAILURE() << "a directory was read";
  } catch (const mfprio::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), conf + ":7: PriorityParameters: config=" + dir + "/.: cannot read: is a directory");
  }
}

TEST(PriorityParameters, ANamedFileIsUnderTheConfBoundAndLosesItsBom) {
  const mfprio::test::TempDir tmp;
  const std::string dir = tmp.path();
  const std::string conf = dir + "/slurm.conf";
  // A sparse file of 17 MiB: refused from its size, before a byte is read.
  const std::string big = dir + "/big.cfg";
  std::ofstream(big) << "";
  ASSERT_EQ(::truncate(big.c_str(), 17 << 20), 0);
  try {
    mfprio::read_parameter_file(pair("", conf), "config", "big.cfg", nullptr);
    ADD_FAILURE() << "a 17 MiB file was read";
  } catch (const mfprio::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), conf + ":7: PriorityParameters: config=" + big +
                                         ": larger than 16 MiB (the bound for a configuration)");
  }
  std::ofstream(dir + "/long.cfg") << "FSWEIGHT 1\n" << std::string(70 << 10, 'x') << "\n";
  try {
    mfprio::read_parameter_file(pair("", conf), "config", "long.cfg", nullptr);
    ADD_FAILURE() << "a 70 KiB line was read";
  } catch (const mfprio::ConfigError& e) {
    EXPECT_EQ(std::string(e.what()), conf + ":7: PriorityParameters: config=" + dir +
                                         "/long.cfg:2: line longer than 64 KiB (the bound for a configuration)");
  }
  std::ofstream(dir + "/bom.cfg") << "\xEF\xBB\xBF" "FSWEIGHT 10\n";
  EXPECT_EQ(mfprio::read_parameter_file(pair("", conf), "config", "bom.cfg", nullptr), "FSWEIGHT 10\n");
}

TEST(FloorDiv, RoundsDownForTimesBeforeTheEpoch) {
  EXPECT_EQ(mfprio::floor_div(0, 10), 0);
  EXPECT_EQ(mfprio::floor_div(9, 10), 0);
  EXPECT_EQ(mfprio::floor_div(10, 10), 1);
  EXPECT_EQ(mfprio::floor_div(-1, 10), -1);
  EXPECT_EQ(mfprio::floor_div(-10, 10), -1);
  EXPECT_EQ(mfprio::floor_div(-11, 10), -2);
}

}  // namespace
