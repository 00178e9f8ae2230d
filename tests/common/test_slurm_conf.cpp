// test_slurm_conf.cpp - common/slurm_conf: records with DEFAULT lines, host
// lists, node and partition totals, the Priority*/TRES key check; and the
// store-location default (common/conf.cpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "conf.hpp"
#include "slurm_conf.hpp"
#include "tempdir.hpp"
#include "tres.hpp"

namespace mfprio {
namespace {

std::vector<ConfPair> pairs(const std::string& text) { return Conf::parse(text, "/etc/slurm/slurm.conf").pairs(); }

std::string errors_of(const std::string& text) {
  ConfErrors e;
  check_slurm_keys(pairs(text), &e);
  return e.joined();
}

TEST(SlurmConf, DefaultLinesApplyToLaterRecordsOfTheirKindOnly) {
  auto ps = pairs("PartitionName=DEFAULT PriorityJobFactor=5 State=UP\n"
                  "PartitionName=a\n"
                  "NodeName=DEFAULT CPUs=8\n"
                  "PartitionName=DEFAULT PriorityTier=2\n"
                  "PartitionName=b PriorityJobFactor=9\n");
  auto parts = conf_records(ps, "PartitionName");
  ASSERT_EQ(parts.size(), 2u);
  EXPECT_EQ(parts[0].name(), "a");
  EXPECT_EQ(parts[0].get("priorityjobfactor")->value, "5");
  EXPECT_EQ(parts[0].get("prioritytier"), nullptr);
  EXPECT_EQ(parts[0].get("cpus"), nullptr);
  EXPECT_EQ(parts[1].get("priorityjobfactor")->value, "9");
  EXPECT_EQ(parts[1].get("prioritytier")->value, "2");  // later DEFAULTs add to earlier ones
  EXPECT_EQ(parts[1].get("state")->value, "UP");
}

TEST(SlurmConf, HostListsExpandWithTheirPadding) {
  EXPECT_EQ(hostlist_expand("n[08-10],login", 100), (std::vector<std::string>{"n08", "n09", "n10", "login"}));
  EXPECT_EQ(hostlist_expand("r[1-2]n[1,3]", 100), (std::vector<std::string>{"r1n1", "r1n3", "r2n1", "r2n3"}));
  EXPECT_EQ(hostlist_count("n[01-16,20],gpu1"), 18u);
  EXPECT_THROW(hostlist_expand("n[1-1000]", 10), std::invalid_argument);
  EXPECT_THROW(hostlist_expand("n[3-1]", 10), std::invalid_argument);
}

TEST(SlurmConf, NodeAndPartitionTotals) {
  auto ps = pairs("NodeName=DEFAULT RealMemory=100\n"
                  "NodeName=g[1-2] CPUs=32 Gres=gpu:a100:4,mps:100\n"
                  "NodeName=c[1-3] Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 Features=big,ib\n"
                  "NodeSet=ibset Feature=ib\n"
                  "PartitionName=gpu Nodes=g[1-2]\nPartitionName=ib Nodes=ibset,c1\nPartitionName=all Nodes=ALL\n"
                  "PartitionName=none\n");
  auto node_recs = conf_records(ps, "NodeName");
  auto nodes = node_lines(node_recs);
  NodeTotals t = sum_nodes(nodes);
  EXPECT_EQ(t.nodes, 5u);
  EXPECT_EQ(t.cpus, 2u * 32 + 3u * 32);
  EXPECT_EQ(t.mem_mb, 500u);
  ASSERT_EQ(t.gres.size(), 2u);
  EXPECT_EQ(t.gres[0], (std::pair<std::string, double>("gres/gpu", 8)));
  auto sets = conf_records(ps, "NodeSet");
  auto parts = conf_records(ps, "PartitionName");
  const HostIndex hosts = index_hosts(nodes);
  NodeTotals p;
  ASSERT_TRUE(partition_totals(parts[0], nodes, hosts, sets, &p));
  EXPECT_EQ(p.nodes, 2u);
  EXPECT_EQ(p.cpus, 64u);
  ASSERT_TRUE(partition_totals(parts[1], nodes, hosts, sets, &p));
  EXPECT_EQ(p.nodes, 3u);  // c1 counted once
  EXPECT_TRUE(p.gres.empty());
  ASSERT_TRUE(partition_totals(parts[2], nodes, hosts, sets, &p));
  EXPECT_EQ(p.cpus, t.cpus);
  EXPECT_FALSE(partition_totals(parts[3], nodes, hosts, sets, &p));  // no Nodes=: the cluster's
}

TEST(SlurmConf, PriorityTyposAreErrorsWithTheClosestKnownKey) {
  EXPECT_EQ(errors_of("PriorityWeightFairShar=10000\n"),
            "/etc/slurm/slurm.conf:1: unknown key 'PriorityWeightFairShar' (did you mean PriorityWeightFairshare?): "
            "Slurm refuses to start on an unknown key");
  EXPECT_NE(errors_of("prioritydecayhalflif=7-0\n").find("did you mean PriorityDecayHalfLife?"), std::string::npos);
  // Every known key in any case, partition-line keys, and other unknown keys pass.
  std::string all;
  for (const char* k : known_priority_keys())
    all += std::string(k) + (iequals(k, "PriorityWeightTRES") ? "=cpu=1\n" : "=1\n");
  EXPECT_EQ(errors_of(all + "PRIORITYTYPE=priority/basic\nPartitionName=p PriorityTier=1 PriorityJobFactor=1 Priority=3\n"
                            "SomeFutureKey=1\n"),
            "");
}

TEST(SlurmConf, TresNamesMustBeKnownTypes) {
  const std::string e = errors_of("PriorityWeightTRES=CPU=1000,Meme=2000\n"
                                  "TRESBillingWeights=CPU=1,GRES/gpu=2,Bogus=1\n"
                                  "PartitionName=p TRESBillingWeights=CPU=1,Nope=1\n"
                                  "NodeName=n TRESBillingWeights=Whatever=1\n");
  EXPECT_NE(e.find("slurm.conf:1: PriorityWeightTRES: unknown TRES 'meme'"), std::string::npos) << e;
  EXPECT_NE(e.find("slurm.conf:2: TRESBillingWeights: unknown TRES 'bogus'"), std::string::npos) << e;
  EXPECT_NE(e.find("slurm.conf:3: TRESBillingWeights: unknown TRES 'nope'"), std::string::npos) << e;
  EXPECT_EQ(e.find("whatever"), std::string::npos) << e;  // not a partition line
  EXPECT_EQ(e.find("'cpu'"), std::string::npos) << e;
  // The cluster's own names count.
  EXPECT_EQ(errors_of("AccountingStorageTRES=gres/gpu,site/thing\nPriorityWeightTRES=Site/Thing=1\n"), "");
  EXPECT_EQ(errors_of("ClusterTRES=custom=4\nPriorityWeightTRES=custom=1\n"), "");
  EXPECT_TRUE(tres_name_known("fs/lustre", {}));
  EXPECT_TRUE(tres_name_known("license/matlab", {}));
  EXPECT_FALSE(tres_name_known("gres/", {}));
  EXPECT_FALSE(tres_name_known("meme", {}));
}

TEST(SlurmConf, EditDistanceIgnoresCase) {
  EXPECT_EQ(edit_distance("PriorityWeightFairShar", "PriorityWeightFairshare"), 1u);
  EXPECT_EQ(edit_distance("abc", "ABC"), 0u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
}

TEST(StoreLocation, KeyThenStateSaveLocationThenBesideTheConf) {
  std::string origin;
  EXPECT_EQ(store_location(pairs("AccountingStorageLoc=db/acct.db\n"), &origin), "/etc/slurm/db/acct.db");
  EXPECT_EQ(origin, "/etc/slurm/slurm.conf:1");
  EXPECT_EQ(store_location(pairs("StateSaveLocation=/var/spool/ctld/\n"), &origin), "/var/spool/ctld/mfprio.db");
  EXPECT_NE(origin.find("default"), std::string::npos);
  EXPECT_NE(origin.find("StateSaveLocation"), std::string::npos);
  EXPECT_THROW(store_location(pairs("AccountingStorageLoc=\"\"\n"), &origin), ConfError);
  EXPECT_TRUE(store_location_given(pairs("accountingstorageloc=x\n")));
  EXPECT_FALSE(store_location_given(pairs("StateSaveLocation=x\n")));
  // Beside the conf only when that is a real file.
  EXPECT_EQ(store_location(pairs("A=1\n"), nullptr), "");  // /etc/slurm/slurm.conf: not here
  const test::TempDir tmp;
  const std::string dir = tmp.path();
  const std::string conf = dir + "/slurm.conf";
  std::ofstream(conf) << "A=1\n";
  EXPECT_EQ(store_location(Conf::load(conf).pairs(), &origin), dir + "/mfprio.db");
  EXPECT_NE(origin.find("beside " + conf), std::string::npos);
}

}  // namespace
}  // namespace mfprio
