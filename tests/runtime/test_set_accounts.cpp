// test_set_accounts.cpp - set_accounts (mfprio.h) through the real plugin
// (priority_multifactor.so, dlopen, the C ABI): a host's whole account tree
// replaces the store's, usage stays with the associations that stay, the
// same tree twice writes nothing, a bad tree is refused whole naming its
// row, and the family prices from the new tree at once.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "../families/multifactor/harness.hpp"
#include "mfprio/mfprio.h"
#include "store.hpp"

namespace mfprio::test {
namespace {

constexpr int64_t T0 = 1'700'000'000;

struct Row {
  std::string user, account, parent, partition;
  uint32_t shares = 1, priority = 0, flags = 0;
};

class SetAccounts : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* so = std::getenv("MFPRIO_MULTIFACTOR_SO");
    ASSERT_NE(so, nullptr) << "MFPRIO_MULTIFACTOR_SO (the plugin under test) is not set";
    StoreBuilder b;
    b.account("a", "root", 1).user("u", "a", 1, /*usage=*/1000.0);
    b.write(db_);
    p_ = std::make_unique<Plugin>(so);
    ASSERT_NE(p_->ops.set_accounts, nullptr) << "set_accounts is missing";
    p_->nodes = 1;
    p_->cpus = 8;
    p_->mem_mb = 0;
    ASSERT_EQ(p_->init({"AccountingStorageLoc=" + db_, "PriorityWeightFairshare=100000", "PriorityDecayHalfLife=7-0"},
                       T0),
              MFPRIO_OK)
        << p_->err();
  }

  // The tree as ABI records (strings owned by rows_).
  int send(const std::vector<Row>& rows, uint32_t flags = 0, const std::vector<mfprio_qos_rec_t>& qos = {},
           uint32_t assoc_size = sizeof(mfprio_assoc_t), const std::vector<mfprio_partition_rec_t>& parts = {}) {
    rows_ = rows;
    std::vector<mfprio_assoc_t> recs;
    for (const Row& r : rows_) {
      mfprio_assoc_t a{};
      a.user = r.user.empty() ? nullptr : r.user.c_str();
      a.account = r.account.c_str();
      a.parent = r.parent.empty() ? nullptr : r.parent.c_str();
      a.partition = r.partition.empty() ? nullptr : r.partition.c_str();
      a.shares = r.shares;
      a.priority = r.priority;
      a.flags = r.flags;
      recs.push_back(a);
    }
    mfprio_accounts_t t{};
    t.struct_size = sizeof t;
    t.flags = flags;
    t.assocs = recs.data();
    t.assoc_count = recs.size();
    t.assoc_size = assoc_size;
    t.qos = qos.data();
    t.qos_count = qos.size();
    t.qos_size = sizeof(mfprio_qos_rec_t);
    t.partitions = parts.data();
    t.partition_count = parts.size();
    t.partition_size = sizeof(mfprio_partition_rec_t);
    return p_->ops.set_accounts(&t);
  }
  uint32_t generation() {
    mfprio_stats_t s{};
    s.struct_size = sizeof s;
    EXPECT_EQ(p_->ops.plugin_stats(&s), MFPRIO_OK);
    return s.generation;
  }
  acct::StoreData store() {
    auto st = acct::Store::open(db_, acct::OpenOptions{true});
    return st->load(acct::LoadOptions{});
  }
  std::map<std::string, const acct::UserAssocRec*> by_user(const acct::StoreData& d) {
    std::map<std::string, const acct::UserAssocRec*> m;
    for (const auto& a : d.assocs) m[a.user + "/" + a.account] = &a;
    return m;
  }
  int price(const char* user, const char* account, uint32_t* p) {
    mfprio_job_t j{};
    j.struct_size = sizeof j;
    j.job_id = 7;
    j.user = user;
    j.account = account;
    j.cpus = 1;
    j.submit_time = T0;
    j.eligible_time = T0;
    return p_->ops.set_priority(&j, T0, p);
  }

  TempDir dir_;
  std::string db_ = dir_.file("acct.db");
  std::vector<Row> rows_;
  std::unique_ptr<Plugin> p_;
};

// Slurm's tree of the test: root; accounts a (1 share) and b (3) under it;
// u in a, v in b and a (default b).
std::vector<Row> tree() {
  return {{"", "a", "root", "", 1}, {"", "b", "", "", 3}, {"u", "a", "", "", 1},
          {"v", "a", "", "", 2}, {"v", "b", "", "", 1, 0, MFPRIO_ASSOCF_DEFAULT}};
}

TEST_F(SetAccounts, TheTreeReplacesTheStoresKeepsUsageAndPricesAtOnce) {
  uint32_t p = 0;
  EXPECT_EQ(price("v", "b", &p), MFPRIO_ENOENT) << "v is not in the store yet";
  const uint32_t g0 = generation();
  ASSERT_EQ(send(tree()), MFPRIO_OK) << p_->err();
  EXPECT_GT(generation(), g0) << "a new snapshot is published";
  const acct::StoreData d = store();
  auto m = by_user(d);
  ASSERT_TRUE(m.count("u/a") && m.count("v/a") && m.count("v/b"));
  EXPECT_DOUBLE_EQ(m["u/a"]->raw_usage, 1000.0) << "u's association stays with its usage";
  EXPECT_EQ(m["v/a"]->shares, 2u);
  EXPECT_TRUE(m["v/b"]->is_default);
  EXPECT_FALSE(m["v/a"]->is_default);
  for (const auto& a : d.accounts)
    if (a.name == "b") {
      EXPECT_EQ(a.shares, 3u);
    }
  // v (no usage, in b with 3 of 4 shares) now prices above u (all the usage).
  uint32_t pu = 0, pv = 0;
  ASSERT_EQ(price("v", "", &pv), MFPRIO_OK) << p_->err();
  ASSERT_EQ(price("u", "", &pu), MFPRIO_OK) << p_->err();
  EXPECT_GT(pv, pu);
  // The same tree again: nothing written, nothing published.
  const uint32_t g1 = generation();
  ASSERT_EQ(send(tree()), MFPRIO_OK) << p_->err();
  EXPECT_EQ(generation(), g1);
  // sacctmgr modify user u set fairshare=50: u's factor moves, its usage stays.
  auto t = tree();
  t[2].shares = 50;
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  EXPECT_GT(generation(), g1);
  EXPECT_EQ(by_user(store())["u/a"]->shares, 50u);
  EXPECT_DOUBLE_EQ(by_user(store())["u/a"]->raw_usage, 1000.0);
}

TEST_F(SetAccounts, WhatTheTreeNoLongerHasIsDeletedAndAMovedAccountSurvives) {
  // c under a, w in c; then a goes and c moves under b (one transaction: the
  // move before the deletion).
  auto t = tree();
  t.push_back({"", "c", "a", "", 1});
  t.push_back({"w", "c", "", "", 1});
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  std::vector<Row> next = {{"", "b", "", "", 3}, {"", "c", "b", "", 1}, {"w", "c", "", "", 1},
                           {"v", "b", "", "", 1}};
  ASSERT_EQ(send(next), MFPRIO_OK) << p_->err();
  const acct::StoreData d = store();
  std::map<std::string, std::string> parent;
  for (const auto& a : d.accounts) parent[a.name] = a.parent;
  EXPECT_EQ(parent.count("a"), 0u) << "a is gone";
  EXPECT_EQ(parent["c"], "b");
  auto m = by_user(d);
  EXPECT_EQ(m.size(), 2u);
  EXPECT_TRUE(m.count("w/c") && m.count("v/b"));
  for (const auto& u : d.users) EXPECT_NE(u.name, "u") << "u had no association left";
  for (const auto& u : d.users)
    if (u.name == "v") {
      EXPECT_EQ(u.default_account, "b");
    }
}

TEST_F(SetAccounts, ADefaultIsTheFlaggedAccountElseTheFirst) {
  std::vector<Row> t = {{"", "a", "", "", 1}, {"", "b", "", "", 1}, {"x", "b", "", "", 1}, {"x", "a", "", "", 1}};
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  for (const auto& u : store().users)
    if (u.name == "x") {
      EXPECT_EQ(u.default_account, "a");
    }
  t[2].flags = MFPRIO_ASSOCF_DEFAULT;
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  for (const auto& u : store().users)
    if (u.name == "x") {
      EXPECT_EQ(u.default_account, "b");
    }
}

// The tree carries no AdminLevel: a user whose default account it changes
// stays an administrator of the store (the user row used to be written with
// admin cleared).
TEST_F(SetAccounts, AChangedDefaultKeepsTheUsersAdminFlag) {
  ASSERT_EQ(send(tree()), MFPRIO_OK) << p_->err();
  {
    auto st = acct::Store::open(db_);
    acct::AdminChanges ch;
    ch.users.push_back(acct::UserRec{"v", "b", true});
    st->apply_admin(ch);
  }
  auto t = tree();
  t[3].flags = MFPRIO_ASSOCF_DEFAULT;  // v's default: a
  t[4].flags = 0;
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  bool found = false;
  for (const auto& u : store().users)
    if (u.name == "v") {
      found = true;
      EXPECT_EQ(u.default_account, "a");
      EXPECT_TRUE(u.admin) << "set_accounts cleared v's AdminLevel";
    }
  EXPECT_TRUE(found);
}

TEST_F(SetAccounts, QosAreReplacedOnlyWhenFlagged) {
  std::vector<mfprio_qos_rec_t> q = {{"high", 100, 0, 2.0}, {"normal", 0, 0, 1.0}};
  const size_t had = store().qos.size();
  ASSERT_EQ(send(tree(), 0, q), MFPRIO_OK) << p_->err();
  EXPECT_EQ(store().qos.size(), had) << "not flagged: the store's QOS stay as they are";
  for (const auto& r : store().qos) EXPECT_NE(r.name, "high");
  ASSERT_EQ(send(tree(), MFPRIO_ACCOUNTSF_QOS, q), MFPRIO_OK) << p_->err();
  auto d = store();
  ASSERT_EQ(d.qos.size(), 2u);
  EXPECT_EQ(d.qos[0].name, "high");
  EXPECT_EQ(d.qos[0].priority, 100u);
  EXPECT_DOUBLE_EQ(d.qos[0].usage_factor, 2.0);
  q.pop_back();
  ASSERT_EQ(send(tree(), MFPRIO_ACCOUNTSF_QOS, q), MFPRIO_OK) << p_->err();
  EXPECT_EQ(store().qos.size(), 1u) << "normal is gone";
}

TEST_F(SetAccounts, PartitionsAreReplacedOnlyWhenFlagged) {
  std::vector<mfprio_partition_rec_t> parts = {{"debug", 10, MFPRIO_PARTF_DEFAULT, nullptr, nullptr},
                                               {"batch", 2, 0, "CPU=1.0", "cpu=8,mem=1024,node=1"}};
  const auto named = [&](const std::string& name) -> std::optional<acct::PartitionRec> {
    for (const auto& p : store().partitions)
      if (p.name == name) return p;
    return std::nullopt;
  };
  ASSERT_EQ(send(tree(), 0, {}, sizeof(mfprio_assoc_t), parts), MFPRIO_OK) << p_->err();
  EXPECT_FALSE(named("batch").has_value()) << "not flagged: the store's partitions stay as they are";
  ASSERT_EQ(send(tree(), MFPRIO_ACCOUNTSF_PARTITIONS, {}, sizeof(mfprio_assoc_t), parts), MFPRIO_OK) << p_->err();
  ASSERT_TRUE(named("debug").has_value());
  EXPECT_TRUE(named("debug")->is_default);
  ASSERT_TRUE(named("batch").has_value());
  EXPECT_EQ(named("batch")->job_factor, 2u);
  EXPECT_EQ(named("batch")->billing_weights, "CPU=1.0");
  EXPECT_EQ(named("batch")->tres_totals, "cpu=8,mem=1024,node=1");
  // batch changes, debug goes.
  parts[1].job_factor = 5;
  parts.erase(parts.begin());
  ASSERT_EQ(send(tree(), MFPRIO_ACCOUNTSF_PARTITIONS, {}, sizeof(mfprio_assoc_t), parts), MFPRIO_OK) << p_->err();
  EXPECT_FALSE(named("debug").has_value()) << "debug is gone";
  ASSERT_TRUE(named("batch").has_value());
  EXPECT_EQ(named("batch")->job_factor, 5u);
}

TEST_F(SetAccounts, ABadTreeIsRefusedWholeNamingItsRow) {
  struct Case {
    const char* what;
    std::vector<Row> rows;
    const char* want;
  };
  const std::vector<Case> cases = {
      {"unknown parent", {{"", "a", "nope", "", 1}}, "assocs[0] account 'a': unknown parent \"nope\""},
      {"cycle", {{"", "a", "b", "", 1}, {"", "b", "a", "", 1}}, "cycle"},
      {"user under an unknown account", {{"", "a", "", "", 1}, {"z", "zz", "", "", 1}},
       "assocs[1] user 'z' account 'zz': the tree has no account 'zz'"},
      {"two defaults",
       {{"", "a", "", "", 1}, {"", "b", "", "", 1}, {"z", "a", "", "", 1, 0, MFPRIO_ASSOCF_DEFAULT},
        {"z", "b", "", "", 1, 0, MFPRIO_ASSOCF_DEFAULT}},
       "assocs[3] user 'z' account 'b': a second default account for user 'z'"},
      {"repeated row", {{"", "a", "", "", 1}, {"z", "a", "", "", 1}, {"z", "a", "", "", 2}}, "repeats assocs[1]"},
      {"bad name", {{"", "a b", "", "", 1}}, "assocs[0] account 'a b': account:"},
      {"root with a parent", {{"", "root", "a", "", 1}}, "the root account has no parent"},
  };
  const acct::StoreData before = store();
  const uint32_t g = generation();
  for (const Case& c : cases) {
    EXPECT_EQ(send(c.rows), MFPRIO_EINVAL) << c.what;
    EXPECT_NE(p_->err().find(c.want), std::string::npos) << c.what << ": " << p_->err();
  }
  EXPECT_EQ(send(tree(), 0, {}, sizeof(mfprio_assoc_t) - 8), MFPRIO_EINVAL);
  EXPECT_NE(p_->err().find("element size"), std::string::npos) << p_->err();
  EXPECT_EQ(p_->ops.set_accounts(nullptr), MFPRIO_EINVAL);
  mfprio_accounts_t t{};
  t.struct_size = sizeof t;
  t.assoc_count = 3;  // and no array
  t.assoc_size = sizeof(mfprio_assoc_t);
  EXPECT_EQ(p_->ops.set_accounts(&t), MFPRIO_EINVAL);
  t.assoc_count = SIZE_MAX;
  EXPECT_EQ(p_->ops.set_accounts(&t), MFPRIO_EINVAL);
  // Nothing changed.
  EXPECT_EQ(generation(), g);
  const acct::StoreData after = store();
  EXPECT_EQ(after.accounts.size(), before.accounts.size());
  EXPECT_EQ(after.assocs.size(), before.assocs.size());
}

// Fairshare=parent (Slurm's SLURMDB_FS_USE_PARENT) and a partition
// association reach the store as such.
TEST_F(SetAccounts, FairshareParentAndPartitionAssociations) {
  std::vector<Row> t = {{"", "a", "", "", 0, 0, MFPRIO_ASSOCF_SHARES_PARENT},
                        {"u", "a", "", "", 1},
                        {"u", "a", "", "debug", 4, 7, 0}};
  ASSERT_EQ(send(t), MFPRIO_OK) << p_->err();
  const acct::StoreData d = store();
  for (const auto& a : d.accounts) {
    if (a.name == "a") {
      EXPECT_TRUE(a.shares_parent);
    }
  }
  bool found = false;
  for (const auto& r : d.assocs)
    if (r.user == "u" && r.partition == "debug") {
      found = true;
      EXPECT_EQ(r.shares, 4u);
      EXPECT_EQ(r.priority, 7u);
    }
  EXPECT_TRUE(found) << "no partition association";
  EXPECT_EQ(d.assocs.size(), 2u);
}

// A host with a newer, larger element: the plugin steps by the host's size.
TEST_F(SetAccounts, ALargerElementSizeIsTheStride) {
  struct Wider {
    mfprio_assoc_t a;
    uint64_t newer_field;
  };
  std::vector<std::string> names = {"a", "u"};
  std::vector<Wider> w(2);
  w[0].a.account = "a";
  w[0].a.shares = 7;
  w[1].a.user = "u";
  w[1].a.account = "a";
  w[1].a.shares = 9;
  w[0].newer_field = w[1].newer_field = ~0ull;
  mfprio_accounts_t t{};
  t.struct_size = sizeof t;
  t.assocs = &w[0].a;
  t.assoc_count = 2;
  t.assoc_size = sizeof(Wider);
  t.qos_size = sizeof(mfprio_qos_rec_t);
  t.partition_size = sizeof(mfprio_partition_rec_t);
  ASSERT_EQ(p_->ops.set_accounts(&t), MFPRIO_OK) << p_->err();
  EXPECT_EQ(by_user(store())["u/a"]->shares, 9u);
}

}  // namespace
}  // namespace mfprio::test
