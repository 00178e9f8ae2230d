// test_deep_tree.cpp - every family's plugin over an account tree that is
// one chain 10^5 accounts deep (root -> a1 -> a2 -> ... -> a100000 -> alice):
// init, a pricing pass and the share view, through the real .so and a real
// store.  Recursive walks (gridengine's init and ticket passes, flux's
// weighted tree) overflowed the stack on such a tree; the walk of
// plugin/core/tree_walk.hpp does not recurse.  The chain is built once and
// copied for each family.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../multifactor/harness.hpp"

namespace mfprio::test {
namespace {

constexpr int kDepth = 100000;
constexpr int64_t T0 = 1'700'000'000;

class DeepTree : public ::testing::TestWithParam<const char*> {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir;
    StoreBuilder b;
    std::string parent = "root";
    for (int i = 1; i <= kDepth; ++i) {
      const std::string name = "a" + std::to_string(i);
      b.account(name, parent, 1);
      parent = name;
    }
    b.user("alice", parent, 1, 100.0);
    b.write(dir_->file("chain.db"));
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  static TempDir* dir_;
};
TempDir* DeepTree::dir_ = nullptr;

TEST_P(DeepTree, InitPricingAndTheShareViewWorkOnA100000DeepChain) {
  const std::string family = GetParam();
  const std::string db = dir_->file(family + ".db");
  std::filesystem::copy_file(dir_->file("chain.db"), db, std::filesystem::copy_options::overwrite_existing);
  std::vector<std::string> conf = {"AccountingStorageLoc=" + db};
  if (family == "gridengine") {  // share-tree tickets: the ticket passes walk the whole path
    std::ofstream(dir_->file("sched.conf")) << "weight_tickets_share 1000\nweight_ticket 1\n";
    conf.push_back("PriorityParameters=sched_conf=" + dir_->file("sched.conf"));
  }
  if (family == "maui" || family == "moab") {  // fair share by account over the chain's last account
    std::ofstream(dir_->file("maui.cfg")) << "FSPOLICY DEDICATEDPS\nFSWEIGHT 1\nFSUSERWEIGHT 1\nFSACCOUNTWEIGHT 1\n";
    conf.push_back("PriorityParameters=config=" + dir_->file("maui.cfg"));
  }
  Plugin p(plugin_path(("priority_" + family + ".so").c_str()));
  ASSERT_EQ(p.init(conf, T0), MFPRIO_OK) << p.err();

  mfprio_job_t j = job(1, "alice");
  const std::string acct = "a" + std::to_string(kDepth);
  j.account = acct.c_str();
  j.submit_time = j.eligible_time = T0 - 3600;
  uint32_t prio = 0;
  int st = 0;
  ASSERT_EQ(p.ops.prioritize(&j, 1, nullptr, 0, T0, &prio, &st), MFPRIO_OK) << p.err();
  EXPECT_EQ(st, MFPRIO_OK);

  mfprio_share_table_t* t = nullptr;
  ASSERT_EQ(p.ops.share_table(&t), MFPRIO_OK) << p.err();
  ASSERT_NE(t, nullptr);
  bool alice = false;
  for (size_t r = 0; r < t->row_count; ++r)
    if (t->rows[r].user && std::string(t->rows[r].user) == "alice") alice = true;
  // The tree families list every account and alice under the chain; maui and
  // moab list credentials that hold windowed usage or a target (none here).
  if (family != "maui" && family != "moab") {
    EXPECT_TRUE(alice) << family << ": no row for alice";
    EXPECT_GE(t->row_count, static_cast<size_t>(kDepth)) << family;
  }
  p.ops.share_table_free(t);
}

INSTANTIATE_TEST_SUITE_P(Families, DeepTree, ::testing::Values("multifactor", "maui", "moab", "gridengine", "flux"),
                         [](const ::testing::TestParamInfo<const char*>& i) { return std::string(i.param); });

}  // namespace
}  // namespace mfprio::test
