// Parsing of qconf -ssconf, -sc and -sstree texts (ge_sconf.hpp).
#include <fstream>
#include <sstream>
#include <cstdlib>
#include <gtest/gtest.h>

#include "qconf.hpp"

using namespace mfprio::gridengine;

namespace {
const char* kSconf =
    "algorithm                         default\n"
    "schedule_interval                 0:0:15\n"
    "halftime                          336\n"
    "usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000\n"
    "compensation_factor               5.000000\n"
    "weight_user                       0.250000\n"
    "weight_project                    0.250000\n"
    "weight_department                 0.250000\n"
    "weight_job                        0.250000\n"
    "weight_tickets_functional         0\n"
    "weight_tickets_share              10000\n"
    "share_override_tickets            TRUE\n"
    "share_functional_shares           TRUE\n"
    "max_functional_jobs_to_schedule   200\n"
    "report_pjob_tickets               TRUE\n"
    "max_pending_tasks_per_job         50\n"
    "halflife_decay_list               none\n"
    "policy_hierarchy                  OFS\n"
    "weight_ticket                     0.500000\n"
    "weight_waiting_time               0.278000\n"
    "weight_deadline                   3600000.000000\n"
    "weight_urgency                    0.500000\n"
    "weight_priority                   0.000000\n"
    "max_reservation                   0\n"
    "default_duration                  INFINITY\n";
}  // namespace

TEST(GeSchedConf, ReadsQconfSsconfOutput) {
  SchedConf c;
  std::string why;
  ASSERT_TRUE(parse_sched_conf(kSconf, "sched.conf", &c, &why)) << why;
  EXPECT_DOUBLE_EQ(c.halftime, 336);
  EXPECT_DOUBLE_EQ(c.weight_tickets_share, 10000);
  EXPECT_DOUBLE_EQ(c.weight_waiting_time, 0.278);
  EXPECT_DOUBLE_EQ(c.usage_weight_list.cpu, 1.0);
  EXPECT_TRUE(c.share_override_tickets);
  EXPECT_EQ(c.policy_hierarchy, "OFS");
  EXPECT_TRUE(c.halflife_decay_list.empty());
  ASSERT_EQ(c.other.size(), 4u);  // algorithm, schedule_interval, max_reservation, default_duration
  EXPECT_EQ(c.other[1].first, "schedule_interval");
  EXPECT_EQ(c.other[1].second, "0:0:15");
}

TEST(GeSchedConf, MissingKeysTakeTheCodeDefaults) {
  SchedConf c;
  std::string why;
  ASSERT_TRUE(parse_sched_conf("weight_urgency 0.1\n", "s", &c, &why)) << why;
  EXPECT_DOUBLE_EQ(c.weight_urgency, 0.1);
  EXPECT_DOUBLE_EQ(c.weight_ticket, 0.5);
  EXPECT_DOUBLE_EQ(c.weight_priority, 0.0);
  EXPECT_DOUBLE_EQ(c.weight_waiting_time, 0.278);
  EXPECT_DOUBLE_EQ(c.weight_deadline, 3600000.0);
  EXPECT_DOUBLE_EQ(c.compensation_factor, 5.0);
  EXPECT_DOUBLE_EQ(c.halftime, 168);
  EXPECT_EQ(c.max_functional_jobs_to_schedule, 200u);
  const SchedConf inst = SchedConf::installed_defaults();
  EXPECT_DOUBLE_EQ(inst.weight_ticket, 0.01);
  EXPECT_DOUBLE_EQ(inst.weight_urgency, 0.1);
  EXPECT_DOUBLE_EQ(inst.weight_priority, 1.0);
  EXPECT_DOUBLE_EQ(inst.weight_waiting_time, 0.0);
}

TEST(GeSchedConf, ReadsDecayListAndHierarchy) {
  SchedConf c;
  std::string why;
  ASSERT_TRUE(parse_sched_conf("halflife_decay_list cpu=60:mem=-1:io=0\npolicy_hierarchy fs\n"
                               "usage_weight_list cpu=0.5,mem=0.25,io=0.25\n",
                               "s", &c, &why))
      << why;
  ASSERT_EQ(c.halflife_decay_list.size(), 3u);
  EXPECT_EQ(c.halflife_decay_list[1].name, "mem");
  EXPECT_DOUBLE_EQ(c.halflife_decay_list[1].minutes, -1);
  EXPECT_EQ(c.policy_hierarchy, "FS");
  EXPECT_DOUBLE_EQ(c.usage_weight_list.mem, 0.25);
  ASSERT_TRUE(parse_sched_conf("policy_hierarchy NONE\n", "s", &c, &why));
  EXPECT_EQ(c.policy_hierarchy, "");
}

TEST(GeSchedConf, BadValueNamesFileLineKeyAndValue) {
  SchedConf c;
  c.halftime = 7;
  std::string why;
  EXPECT_FALSE(parse_sched_conf("weight_ticket 0.5\n\nhalftime soon\n", "/etc/sge/sched", &c, &why));
  EXPECT_NE(why.find("/etc/sge/sched:3"), std::string::npos) << why;
  EXPECT_NE(why.find("halftime"), std::string::npos) << why;
  EXPECT_NE(why.find("'soon'"), std::string::npos) << why;
  EXPECT_DOUBLE_EQ(c.halftime, 7);  // untouched on failure
  EXPECT_FALSE(parse_sched_conf("policy_hierarchy OFX\n", "f", &c, &why));
  EXPECT_NE(why.find("f:1"), std::string::npos) << why;
  EXPECT_FALSE(parse_sched_conf("share_functional_shares maybe\n", "f", &c, &why));
  EXPECT_FALSE(parse_sched_conf("usage_weight_list cpu=1,gpu=2\n", "f", &c, &why));
  EXPECT_FALSE(parse_sched_conf("weight_tickets_share -5\n", "f", &c, &why));
}

namespace {
const char* kComplexes =
    "#name               shortcut   type        relop requestable consumable default  urgency\n"
    "#----------------------------------------------------------------------------------------\n"
    "arch                a          RESTRING    ==    YES         NO         NONE     0\n"
    "h_vmem              h_vmem     MEMORY      <=    YES         YES        0        0\n"
    "slots               s          INT         <=    YES         YES        1        100\n"
    "tq                  tq         STRING      ==    YES         NO         NONE     40000\n"
    "infiniband          ib         BOOL        ==    YES         NO         0        500\n"
    "# >#< starts a comment but comments do not save you from being removed.\n";
}  // namespace

TEST(GeComplexes, ReadsQconfScTable) {
  ComplexTable t;
  std::string why;
  ASSERT_TRUE(parse_complexes(kComplexes, "complexes", &t, &why)) << why;
  ASSERT_EQ(t.entries.size(), 5u);
  const Complex* s = t.find("s");
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->name, "slots");
  EXPECT_EQ(s->urgency, 100);
  EXPECT_EQ(t.find("tq")->type, ComplexType::String);
  EXPECT_EQ(t.find("ib")->type, ComplexType::Bool);
  EXPECT_EQ(t.find("nothing"), nullptr);
  EXPECT_EQ(ComplexTable::builtin().find("slots")->urgency, 1000);
}

// find() hashes the parsed table; a table grown by hand since is scanned.
// Both must give what a scan gives: full names first, then the first entry
// with that shortcut.
TEST(GeComplexes, IndexedFindEqualsAScan) {
  ComplexTable t;
  std::string why;
  ASSERT_TRUE(parse_complexes(kComplexes, "complexes", &t, &why)) << why;
  const auto scan = [&t](const std::string& n) -> const Complex* {
    for (const Complex& c : t.entries)
      if (c.name == n) return &c;
    for (const Complex& c : t.entries)
      if (!c.shortcut.empty() && c.shortcut == n) return &c;
    return nullptr;
  };
  for (const char* n : {"arch", "a", "h_vmem", "slots", "s", "tq", "infiniband", "ib", "nothing", "", "S", "NONE"})
    EXPECT_EQ(t.find(n), scan(n)) << n;
  // An entry added after parsing: found (by scan) until reindex(), then hashed.
  Complex x;
  x.name = "gpu";
  x.shortcut = "arch";  // a shortcut equal to another entry's name: the name wins
  t.entries.push_back(x);
  for (int round = 0; round < 2; ++round) {
    ASSERT_NE(t.find("gpu"), nullptr);
    EXPECT_EQ(t.find("gpu")->name, "gpu");
    EXPECT_EQ(t.find("arch")->name, "arch");
    t.reindex();
  }
}

TEST(GeComplexes, BadValueNamesFileLineKeyAndValue) {
  ComplexTable t;
  std::string why;
  EXPECT_FALSE(parse_complexes("#c\nslots s INT <= YES YES 1 lots\n", "cx", &t, &why));
  EXPECT_NE(why.find("cx:2"), std::string::npos) << why;
  EXPECT_NE(why.find("slots.urgency"), std::string::npos) << why;
  EXPECT_NE(why.find("'lots'"), std::string::npos) << why;
  EXPECT_FALSE(parse_complexes("x x FLOAT == YES NO 0 0\n", "cx", &t, &why));
  EXPECT_NE(why.find("FLOAT"), std::string::npos) << why;
  EXPECT_FALSE(parse_complexes("x x INT == YES NO 0\n", "cx", &t, &why));
  EXPECT_FALSE(parse_complexes("x x INT == YES NO 0 0\nx y INT == YES NO 0 0\n", "cx", &t, &why));
}

// A Univa/Altair Grid Engine 8.3 `qconf -sc` has a 9th column
// (aapre).  Read by the header's column names; the extra column is passed over.
TEST(GeComplexes, ReadsUnivaAltairTableByItsHeader) {
  const char* dir = std::getenv("MFPRIO_TEST_DATA");
  ASSERT_NE(dir, nullptr) << "MFPRIO_TEST_DATA not set";
  const std::string path = std::string(dir) + "/admins/uge83-complexes.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream text;
  text << in.rdbuf();
  ComplexTable t;
  std::string why;
  ASSERT_TRUE(parse_complexes(text.str(), path, &t, &why)) << why;
  ASSERT_EQ(t.entries.size(), 9u);
  EXPECT_EQ(t.find("s")->urgency, 1000);
  EXPECT_EQ(t.find("gpu")->consumable, "JOB");
  EXPECT_EQ(t.find("gpu")->urgency, 2000);
  EXPECT_EQ(t.find("mfree")->default_value, "0");
  EXPECT_EQ(t.find("excl")->relop, "EXCL");

  // Columns in another order (and one more) are read by name.
  ASSERT_TRUE(parse_complexes("#name shortcut type relop requestable consumable default urgency aapre affinity\n"
                              "slots s INT <= YES YES 1 1000 YES 0.0\n"
                              "#name urgency type shortcut relop requestable consumable default\n"
                              "gpu 50 INT g <= YES JOB 0\n",
                              "cx", &t, &why)) << why;
  EXPECT_EQ(t.find("g")->urgency, 50);
  EXPECT_EQ(t.find("slots")->urgency, 1000);
  // Without a header: 8 (SGE) or 9 (UGE 8.x) columns.
  ASSERT_TRUE(parse_complexes("slots s INT <= YES YES 1 1000 NO\n", "cx", &t, &why)) << why;
  EXPECT_EQ(t.find("s")->urgency, 1000);

  // A row that does not fit names the file, line and the formats expected.
  EXPECT_FALSE(parse_complexes("slots s INT <= YES YES 1 1000 NO 0.0\n", "cx", &t, &why));
  EXPECT_NE(why.find("cx:1"), std::string::npos) << why;
  EXPECT_NE(why.find("Son of Grid Engine 6.2-8.1"), std::string::npos) << why;
  EXPECT_NE(why.find("Univa/Altair Grid Engine 8.x"), std::string::npos) << why;
  EXPECT_FALSE(parse_complexes("#name shortcut type relop requestable consumable default urgency aapre\n"
                               "slots s INT <= YES YES 1 1000\n", "cx", &t, &why));
  EXPECT_NE(why.find("cx:2"), std::string::npos) << why;
  EXPECT_NE(why.find("header on line 1 names 9 columns"), std::string::npos) << why;
  EXPECT_FALSE(parse_complexes("#name shortcut type relop requestable default urgency\n", "cx", &t, &why));
  EXPECT_NE(why.find("no 'consumable' column"), std::string::npos) << why;
}

TEST(GeComplexes, ValuesFollowGridEngineUnits) {
  double v = 0;
  ASSERT_TRUE(parse_ge_value(ComplexType::Memory, "2G", &v));
  EXPECT_DOUBLE_EQ(v, 2.0 * 1024 * 1024 * 1024);
  ASSERT_TRUE(parse_ge_value(ComplexType::Memory, "2g", &v));
  EXPECT_DOUBLE_EQ(v, 2e9);
  ASSERT_TRUE(parse_ge_value(ComplexType::Time, "1:30:00", &v));
  EXPECT_DOUBLE_EQ(v, 5400);
  ASSERT_TRUE(parse_ge_value(ComplexType::Bool, "TRUE", &v));
  EXPECT_DOUBLE_EQ(v, 1);
  EXPECT_FALSE(parse_ge_value(ComplexType::String, "x", &v));
  EXPECT_FALSE(parse_ge_value(ComplexType::Int, "12x", &v));
}

namespace {
const char* kTree =
    "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,2\n"
    "id=1\nname=physics\ntype=1\nshares=60\nchildnodes=3\n"
    "id=2\nname=default\ntype=0\nshares=10\nchildnodes=NONE\n"
    "id=3\nname=alice\ntype=0\nshares=5\nchildnodes=NONE\n";
}  // namespace

TEST(GeShareTree, ReadsQconfSstreeOutput) {
  ShareTreeSpec t;
  std::string why;
  ASSERT_TRUE(parse_share_tree(kTree, "tree", &t, &why)) << why;
  ASSERT_EQ(t.nodes.size(), 4u);
  EXPECT_EQ(t.nodes[0].name, "Root");
  EXPECT_EQ(t.nodes[1].type, NodeType::Project);
  EXPECT_EQ(t.nodes[1].shares, 60u);
  ASSERT_EQ(t.nodes[1].children.size(), 1u);
  EXPECT_EQ(t.nodes[t.nodes[1].children[0]].name, "alice");
  EXPECT_EQ(t.nodes[3].parent, 1);
}

TEST(GeShareTree, BadValueNamesFileLineKeyAndValue) {
  ShareTreeSpec t;
  std::string why;
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\ntype=0\nshares=many\nchildnodes=NONE\n", "st",
                                &t, &why));
  EXPECT_NE(why.find("st:4"), std::string::npos) << why;
  EXPECT_NE(why.find("shares"), std::string::npos) << why;
  EXPECT_NE(why.find("'many'"), std::string::npos) << why;
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\nshares=1\nchildnodes=7\n", "st", &t, &why));
  EXPECT_NE(why.find("no node has this id"), std::string::npos) << why;
  EXPECT_FALSE(parse_share_tree(
      "id=0\nname=R\nshares=1\nchildnodes=NONE\nid=1\nname=x\nshares=1\nchildnodes=NONE\n", "st",
      &t, &why));
  EXPECT_NE(why.find("not reachable"), std::string::npos) << why;
  EXPECT_TRUE(t.nodes.empty());  // untouched on failure
}

// Grid Engine 8.1.9's qconf -sstree after a qmaster restart prints every id
// (and every childnodes entry) as 0; the records are in depth-first order,
// which is how qconf -Mstree reads them.
TEST(GeShareTree, EveryIdZeroReadsTheTreeFromTheRecordOrder) {
  const char* restarted =
      "id=0\nname=Root\ntype=0\nshares=1\nchildnodes=0,0\n"
      "id=0\nname=physics\ntype=1\nshares=60\nchildnodes=0,0\n"
      "id=0\nname=alice\ntype=0\nshares=5\nchildnodes=NONE\n"
      "id=0\nname=default\ntype=0\nshares=3\nchildnodes=NONE\n"
      "id=0\nname=bob\ntype=0\nshares=40\nchildnodes=NONE\n";
  ShareTreeSpec t;
  std::string why;
  ASSERT_TRUE(parse_share_tree(restarted, "st", &t, &why)) << why;
  ASSERT_EQ(t.nodes.size(), 5u);
  EXPECT_EQ(t.nodes[0].children, (std::vector<size_t>{1, 4}));
  EXPECT_EQ(t.nodes[1].children, (std::vector<size_t>{2, 3}));
  EXPECT_EQ(t.nodes[2].parent, 1);
  EXPECT_EQ(t.nodes[3].name, "default");
  EXPECT_EQ(t.nodes[3].parent, 1);
  EXPECT_EQ(t.nodes[4].name, "bob");
  EXPECT_EQ(t.nodes[4].parent, 0);
  EXPECT_EQ(t.nodes[4].id, 4u);   // ids from the order, as qconf -Mstree gives them
  EXPECT_EQ(t.nodes[4].line, 21);
  // The same tree with ids: the same shape.
  ShareTreeSpec u;
  ASSERT_TRUE(parse_share_tree("id=0\nname=Root\ntype=0\nshares=1\nchildnodes=1,4\n"
                               "id=1\nname=physics\ntype=1\nshares=60\nchildnodes=2,3\n"
                               "id=2\nname=alice\ntype=0\nshares=5\nchildnodes=NONE\n"
                               "id=3\nname=default\ntype=0\nshares=3\nchildnodes=NONE\n"
                               "id=4\nname=bob\ntype=0\nshares=40\nchildnodes=NONE\n",
                               "st", &u, &why)) << why;
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(u.nodes[i].children, t.nodes[i].children) << i;
    EXPECT_EQ(u.nodes[i].parent, t.nodes[i].parent) << i;
  }
}

TEST(GeShareTree, IdZeroTwiceAmongOtherIdsIsAnError) {
  ShareTreeSpec t;
  std::string why;
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\nshares=1\nchildnodes=1,0\n"
                                "id=1\nname=a\nshares=1\nchildnodes=NONE\n"
                                "id=0\nname=b\nshares=1\nchildnodes=NONE\n",
                                "st", &t, &why));
  EXPECT_NE(why.find("st:9"), std::string::npos) << why;
  EXPECT_NE(why.find("also at line 1"), std::string::npos) << why;
  EXPECT_NE(why.find("every id is 0"), std::string::npos) << why;
  // Every record 0, a child entry not: named.
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\nshares=1\nchildnodes=3\n"
                                "id=0\nname=a\nshares=1\nchildnodes=NONE\n",
                                "st", &t, &why));
  EXPECT_NE(why.find("st:1: key 'childnodes' value '3'"), std::string::npos) << why;
  // Every id 0, more records than the childnodes lists take.
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\nshares=1\nchildnodes=0\n"
                                "id=0\nname=a\nshares=1\nchildnodes=NONE\n"
                                "id=0\nname=b\nshares=1\nchildnodes=NONE\n",
                                "st", &t, &why));
  EXPECT_NE(why.find("st:9"), std::string::npos) << why;
  EXPECT_NE(why.find("no node's child"), std::string::npos) << why;
  // ... and fewer.
  EXPECT_FALSE(parse_share_tree("id=0\nname=Root\nshares=1\nchildnodes=0,0\n"
                                "id=0\nname=a\nshares=1\nchildnodes=NONE\n",
                                "st", &t, &why));
  EXPECT_NE(why.find("more children than records follow"), std::string::npos) << why;
  EXPECT_TRUE(t.nodes.empty());
}

// A misspelled scheduler key is an error with "did you mean";
// the keys Grid Engine prints that mfprio does not read are passed over.
TEST(GeSchedConf, MisspelledKeyNamesTheNearestKey) {
  const char* dir = std::getenv("MFPRIO_TEST_DATA");
  ASSERT_NE(dir, nullptr) << "MFPRIO_TEST_DATA not set";
  const std::string path = std::string(dir) + "/admins/typo-sched_conf.txt";
  std::ifstream in(path);
  ASSERT_TRUE(in.good()) << "missing " << path;
  std::stringstream text;
  text << in.rdbuf();
  SchedConf c;
  std::string why;
  EXPECT_FALSE(parse_sched_conf(text.str(), path, &c, &why));
  EXPECT_NE(why.find(path + ":29"), std::string::npos) << why;
  EXPECT_NE(why.find("weight_tiket"), std::string::npos) << why;
  EXPECT_NE(why.find("did you mean weight_ticket?"), std::string::npos) << why;
  // Fixed, the file reads, and Grid Engine's other keys are kept aside.
  std::string fixed = text.str();
  fixed.replace(fixed.find("weight_tiket "), 13, "weight_ticket");
  ASSERT_TRUE(parse_sched_conf(fixed, path, &c, &why)) << why;
  EXPECT_DOUBLE_EQ(c.weight_ticket, 0.01);
  EXPECT_EQ(c.other.size(), 14u);
}
