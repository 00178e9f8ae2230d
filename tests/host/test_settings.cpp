// test_settings.cpp - the conf keys the host reads itself (settings.cpp).
#include <gtest/gtest.h>

#include "settings.hpp"

using mfprio::Conf;
using mfprio::host::HostSettings;
using mfprio::host::read_settings;
using mfprio::host::SettingsError;

namespace {

HostSettings settings(const std::string& text, const std::string& override_dir = "") {
  return read_settings(Conf::parse(text, "s.conf"), "/default/a:/default/b", override_dir);
}

std::string error_of(const std::string& text) {
  try {
    settings(text);
  } catch (const SettingsError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(Settings, DefaultsToMultifactorAndCompiledInDirs) {
  HostSettings s = settings("");
  EXPECT_EQ(s.priority_type, "priority/multifactor");
  EXPECT_EQ(s.plugin_dirs, (std::vector<std::string>{"/default/a", "/default/b"}));
  EXPECT_EQ(s.cluster.nodes, 0u);
}

TEST(Settings, PriorityTypeAndPluginDirFromConf) {
  HostSettings s = settings("prioritytype=priority/basic\nPluginDir=/x:/y::/z\n");
  EXPECT_EQ(s.priority_type, "priority/basic");
  EXPECT_EQ(s.plugin_dirs, (std::vector<std::string>{"/x", "/y", "/z"}));
}

TEST(Settings, PluginDirOptionWinsOverConf) {
  HostSettings s = settings("PluginDir=/x\n", "/opt/p");
  EXPECT_EQ(s.plugin_dirs, (std::vector<std::string>{"/opt/p"}));
}

TEST(Settings, BadPriorityTypeNamesFileLineAndKey) {
  EXPECT_EQ(error_of("\nPriorityType=multifactor\n"),
            "s.conf:2: PriorityType: 'multifactor' is not a plugin type of the form priority/<name> (letters, "
            "digits, '_' or '-')");
  EXPECT_NE(error_of("PriorityType=priority/../evil\n").find("s.conf:1: PriorityType:"), std::string::npos);
  EXPECT_NE(error_of("PriorityType=priority/\n").find("s.conf:1: PriorityType:"), std::string::npos);
}

TEST(Settings, EmptyPluginDirIsAnError) {
  EXPECT_EQ(error_of("PluginDir=\n"), "s.conf:1: PluginDir: empty directory list");
  EXPECT_EQ(error_of("PluginDir=::\n"), "s.conf:1: PluginDir: empty directory list");
}

TEST(Settings, ExplicitClusterTotals) {
  HostSettings s = settings("ClusterNodes=10 ClusterCPUs=640\nClusterMemMB=2560000\nClusterTRES=GRES/gpu=8,license/matlab=2.5\n");
  EXPECT_EQ(s.cluster.nodes, 10u);
  EXPECT_EQ(s.cluster.cpus, 640u);
  EXPECT_EQ(s.cluster.mem_mb, 2560000u);
  ASSERT_EQ(s.cluster.extra.size(), 2u);
  EXPECT_EQ(s.cluster.extra[0].first, "gres/gpu");
  EXPECT_EQ(s.cluster.extra[0].second, 8);
  EXPECT_EQ(s.cluster.extra[1].first, "license/matlab");
  EXPECT_DOUBLE_EQ(s.cluster.extra[1].second, 2.5);
}

TEST(Settings, BadClusterValuesNameFileLineAndKey) {
  EXPECT_EQ(error_of("ClusterNodes=ten\n"), "s.conf:1: ClusterNodes: 'ten' is not an unsigned integer (0..4294967295)");
  EXPECT_NE(error_of("ClusterCPUs=-4\n").find("s.conf:1: ClusterCPUs:"), std::string::npos);
  EXPECT_NE(error_of("ClusterCPUs=4294967296\n").find("s.conf:1: ClusterCPUs:"), std::string::npos);
  EXPECT_NE(error_of("A=1\nClusterMemMB=1G\n").find("s.conf:2: ClusterMemMB:"), std::string::npos);
  EXPECT_NE(error_of("ClusterTRES=gpu\n").find("s.conf:1: ClusterTRES: TRES item 'gpu' is not name=count"), std::string::npos);
  EXPECT_NE(error_of("ClusterTRES=gres/gpu=x\n").find("s.conf:1: ClusterTRES: bad count 'x' for TRES 'gres/gpu'"), std::string::npos);
  EXPECT_NE(error_of("ClusterTRES=gres/gpu=1,gres/gpu=2\n").find("given twice"), std::string::npos);
}

TEST(Settings, TotalsAreDerivedFromNodeLines) {
  HostSettings s = settings(
      "NodeName=DEFAULT RealMemory=1000\n"
      "NodeName=n[01-04] CPUs=32 RealMemory=128000 Gres=gpu:4\n"
      "NodeName=big1,big2 CPUs=64 Gres=gpu:a100:2,mps:100\n"
      "NodeName=tiny Sockets=2 CoresPerSocket=4 ThreadsPerCore=2\n");
  EXPECT_EQ(s.cluster.nodes, 7u);
  EXPECT_EQ(s.cluster.cpus, 4u * 32 + 2 * 64 + 16);
  EXPECT_EQ(s.cluster.mem_mb, 4u * 128000 + 2 * 1000 + 1000);
  ASSERT_EQ(s.cluster.extra.size(), 2u);
  EXPECT_EQ(s.cluster.extra[0].first, "gres/gpu");
  EXPECT_EQ(s.cluster.extra[0].second, 4 * 4 + 2 * 2);
  EXPECT_EQ(s.cluster.extra[1].first, "gres/mps");
  EXPECT_EQ(s.cluster.extra[1].second, 200);
}

TEST(Settings, ExplicitKeysOverrideDerivedTotals) {
  HostSettings s = settings("NodeName=n[1-4] CPUs=8\nClusterCPUs=100\n");
  EXPECT_EQ(s.cluster.nodes, 4u);
  EXPECT_EQ(s.cluster.cpus, 100u);
}

TEST(Settings, BadNodeLineNamesFileLineAndKey) {
  EXPECT_NE(error_of("NodeName=n[1-4 CPUs=8\n").find("s.conf:1: NodeName: unclosed '['"), std::string::npos);
  EXPECT_NE(error_of("NodeName=n1 CPUs=many\n").find("s.conf:1: CPUs: 'many'"), std::string::npos);
}

TEST(Settings, HostlistCount) {
  using mfprio::host::hostlist_count;
  EXPECT_EQ(hostlist_count("n1"), 1u);
  EXPECT_EQ(hostlist_count("n[1-10]"), 10u);
  EXPECT_EQ(hostlist_count("n[01-04,7,9-10],login"), 8u);
  EXPECT_EQ(hostlist_count("r[1-2]n[1-3]"), 6u);
  EXPECT_THROW(hostlist_count(""), std::invalid_argument);
  EXPECT_THROW(hostlist_count("n[5-1]"), std::invalid_argument);
  EXPECT_THROW(hostlist_count("a,,b"), std::invalid_argument);
  EXPECT_THROW(hostlist_count("n[x]"), std::invalid_argument);
}

TEST(Settings, PluginFileName) {
  EXPECT_EQ(mfprio::host::plugin_file_name("priority/multifactor"), "priority_multifactor.so");
  EXPECT_EQ(mfprio::host::plugin_file_name("priority/basic"), "priority_basic.so");
}

}  // namespace
