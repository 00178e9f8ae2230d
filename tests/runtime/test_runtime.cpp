// test_runtime.cpp - the runtime's orchestration rules, with a real store
// and the real multifactor policy (no dlopen: the Runtime is constructed
// directly, so a test policy can wrap the real one and fail on purpose).
//
// Pinned: a decay pass that fails after the store committed leaves the
// runtime converged on the store's state (never decayed twice); a pass that
// fails before the commit changes nothing; a pass is refused while the state
// cannot be rebuilt, and goes on once it can.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "../families/multifactor/harness.hpp"
#include "mf_policy.hpp"
#include "runtime.hpp"
#include "share_block.hpp"
#include "store.hpp"

#include <sqlite3.h>

namespace mfprio::test {
namespace {

constexpr int64_t T0 = 1'700'000'000;
constexpr int64_t kHalfLife = 3600;

// The real multifactor policy, with switches that make it fail at chosen points.
class FaultyPolicy final : public Policy {
 public:
  bool throw_after_commit = false;  // decay: the store commits, then a step throws
  bool fail_loads = false;          // load(): the store cannot be read
  int loads = 0;

  const char* type() const override { return inner_.type(); }
  void configure(const HostContext& h) override { inner_.configure(h); }
  std::string store_path() const override { return inner_.store_path(); }
  std::shared_ptr<State> load(const StoreView* s, uint32_t id) override {
    ++loads;
    if (fail_loads) throw acct::StoreError("injected: load failed");
    return inner_.load(s, id);
  }
  int price(const State& st, const PassState* p, const mfprio_job_t& j, int64_t now, Explain* e,
            uint32_t* prio, uint32_t* clamp, std::string* why) const override {
    return inner_.price(st, p, j, now, e, prio, clamp, why);
  }
  bool plan_pass(const State& cur, const UsagePass& pass, UsagePlan* plan) const override {
    return inner_.plan_pass(cur, pass, plan);
  }
  int charge_job(const State& cur, const mfprio_job_t& j, int64_t until, bool ended, UsagePlan* plan,
                 std::string* why) const override {
    return inner_.charge_job(cur, j, until, ended, plan, why);
  }
  // The runtime has committed the pass when it asks for the next state.
  std::shared_ptr<State> after_pass(const State& cur, const UsagePass& pass, const UsagePlan& plan,
                                    const acct::PassResult& res, const StoreView* s, bool* reload) override {
    if (throw_after_commit) throw std::runtime_error("injected: after the commit");
    return inner_.after_pass(cur, pass, plan, res, s, reload);
  }
  bool has_share_view() const override { return true; }
  void share_view(const State& st, ShareView* v) const override { inner_.share_view(st, v); }
  bool share_block(const State& st, ShareBlockSink* out) const override { return inner_.share_block(st, out); }

 private:
  multifactor::MultifactorPolicy inner_;
};

class RuntimeFailure : public ::testing::Test {
 protected:
  void SetUp() override {
    StoreBuilder b;
    b.account("a", "root", 1).user("u", "a", 1, /*usage=*/1000.0);
    b.write(db_);
    conf_ = {"AccountingStorageLoc=" + db_, "PriorityDecayHalfLife=" + std::to_string(kHalfLife / 60)};
    keys_ = {"AccountingStorageLoc", "PriorityDecayHalfLife"};
    vals_ = {db_, std::to_string(kHalfLife / 60)};
    for (size_t i = 0; i < keys_.size(); ++i)
      kv_.push_back({keys_[i].c_str(), vals_[i].c_str(), "test.conf", static_cast<uint32_t>(i + 1)});
    host_.struct_size = sizeof host_;
    host_.abi_version = MFPRIO_ABI_VERSION;
    host_.conf = kv_.data();
    host_.conf_count = kv_.size();
    host_.cluster_nodes = 1;
    host_.cluster_cpus = 8;
    auto p = std::make_unique<FaultyPolicy>();
    policy_ = p.get();
    rt_ = std::make_unique<Runtime>(std::move(p), host_);
    rt_->open();
  }

  double usage() {
    ShareView v;
    rt_->policy().share_view(*rt_->current(), &v);
    size_t col = 0;
    for (size_t c = 0; c < v.columns.size(); ++c)
      if (std::string(v.columns[c].name) == "raw_usage") col = c;
    for (const ShareView::Row& r : v.rows)
      if (r.is_user && r.user == "u") return r.cells[col].value;
    ADD_FAILURE() << "no row for u";
    return -1;
  }
  double store_usage() {
    auto st = acct::Store::open(db_, acct::OpenOptions{true});
    for (const acct::UserAssocRec& a : st->load(acct::LoadOptions{}).assocs)
      if (a.user == "u") return a.raw_usage;
    return -1;
  }
  int64_t store_last_decay() {
    auto st = acct::Store::open(db_, acct::OpenOptions{true});
    return st->load(acct::LoadOptions{}).decay.last_decay;
  }

  TempDir dir_;
  std::string db_ = store_location(dir_, "acct.db");
  std::vector<std::string> conf_, keys_, vals_;
  std::vector<mfprio_kv_t> kv_;
  mfprio_host_t host_{};
  FaultyPolicy* policy_ = nullptr;
  std::unique_ptr<Runtime> rt_;
};

TEST_F(RuntimeFailure, ThrowAfterCommitConvergesOnTheStoreAndNeverDecaysTwice) {
  std::string why;
  ASSERT_EQ(rt_->decay(T0, nullptr, 0, &why), MFPRIO_OK) << why;  // first pass: sets last_decay
  EXPECT_NEAR(usage(), 1000.0, 1e-9);
  policy_->throw_after_commit = true;
  EXPECT_EQ(rt_->decay(T0 + kHalfLife, nullptr, 0, &why), MFPRIO_EINTERNAL);
  EXPECT_NE(why.find("after the commit"), std::string::npos) << why;
  // The store committed the pass; memory took the store's state.
  EXPECT_EQ(store_last_decay(), T0 + kHalfLife);
  EXPECT_NEAR(store_usage(), 500.0, 1e-6);
  EXPECT_EQ(rt_->current()->last_decay, T0 + kHalfLife);
  EXPECT_NEAR(usage(), 500.0, 1e-6);
  EXPECT_FALSE(rt_->stale());
  // The next pass decays one half-life from the committed pass, not two.
  policy_->throw_after_commit = false;
  ASSERT_EQ(rt_->decay(T0 + 2 * kHalfLife, nullptr, 0, &why), MFPRIO_OK) << why;
  EXPECT_NEAR(usage(), 250.0, 1e-6);
  EXPECT_NEAR(store_usage(), 250.0, 1e-6);
}

// sshare's table written straight into the ABI block says what share_view
// says: every row's identity and every cell (text or the same number).
TEST_F(RuntimeFailure, ShareTableBlockMatchesTheShareView) {
  std::string why;
  ASSERT_EQ(rt_->decay(T0, nullptr, 0, &why), MFPRIO_OK) << why;
  const auto st = rt_->current();
  ShareView v;
  policy_->share_view(*st, &v);
  edge::ShareBlockWriter w;  // the edge's writer, as share_table() drives it
  ASSERT_TRUE(policy_->share_block(*st, &w));
  mfprio_share_table_t* t = w.release();
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->struct_size, sizeof *t);
  ASSERT_EQ(t->column_count, v.columns.size());
  ASSERT_EQ(t->row_count, v.rows.size());
  ASSERT_EQ(t->row_count, 3u);  // root, a, u
  for (size_t c = 0; c < v.columns.size(); ++c) EXPECT_EQ(std::string(t->columns[c].name), v.columns[c].name);
  size_t numbers = 0;
  for (size_t i = 0; i < t->row_count; ++i) {
    const mfprio_share_row_t& r = t->rows[i];
    const ShareView::Row& w = v.rows[i];
    EXPECT_EQ(r.parent, w.parent);
    EXPECT_EQ(r.depth, w.depth);
    EXPECT_EQ(r.is_user != 0, w.is_user);
    EXPECT_EQ(std::string(r.account), w.account);
    EXPECT_EQ(r.user ? std::string(r.user) : std::string("(null)"), w.is_user ? w.user : std::string("(null)"));
    EXPECT_EQ(r.partition ? std::string(r.partition) : std::string(), w.partition);
    ASSERT_EQ(w.cells.size(), t->column_count);
    for (size_t c = 0; c < t->column_count; ++c) {
      const mfprio_share_cell_t& cell = r.cells[c];
      EXPECT_EQ(cell.text != nullptr, w.cells[c].is_text) << "row " << i << " column " << v.columns[c].name;
      if (cell.text) {
        EXPECT_EQ(std::string(cell.text), w.cells[c].text) << "row " << i << " column " << v.columns[c].name;
      } else {
        ++numbers;
        EXPECT_TRUE(cell.value == w.cells[c].value || (std::isnan(cell.value) && std::isnan(w.cells[c].value)))
            << "row " << i << " column " << v.columns[c].name << ": " << cell.value << " vs " << w.cells[c].value;
      }
    }
  }
  EXPECT_GT(numbers, 10u);
  std::free(t);
}

TEST_F(RuntimeFailure, UnreadableStoreAfterCommitRefusesPassesUntilItCanRebuild) {
  std::string why;
  ASSERT_EQ(rt_->decay(T0, nullptr, 0, &why), MFPRIO_OK) << why;
  policy_->throw_after_commit = true;
  policy_->fail_loads = true;
  EXPECT_EQ(rt_->decay(T0 + kHalfLife, nullptr, 0, &why), MFPRIO_EINTERNAL);
  EXPECT_TRUE(rt_->stale());
  EXPECT_NE(why.find("cannot rebuild"), std::string::npos) << why;
  // While stale, a pass is refused and the store is not touched again.
  policy_->throw_after_commit = false;
  EXPECT_EQ(rt_->decay(T0 + 2 * kHalfLife, nullptr, 0, &why), MFPRIO_ESTORE);
  EXPECT_EQ(store_last_decay(), T0 + kHalfLife);
  EXPECT_NEAR(store_usage(), 500.0, 1e-6);
  // Once the store reads again, the runtime rebuilds, then runs the pass once.
  policy_->fail_loads = false;
  ASSERT_EQ(rt_->decay(T0 + 2 * kHalfLife, nullptr, 0, &why), MFPRIO_OK) << why;
  EXPECT_FALSE(rt_->stale());
  EXPECT_NEAR(usage(), 250.0, 1e-6);
  EXPECT_NEAR(store_usage(), 250.0, 1e-6);
}

TEST_F(RuntimeFailure, RefusedPassBeforeTheCommitChangesNothing) {
  std::string why;
  ASSERT_EQ(rt_->decay(T0, nullptr, 0, &why), MFPRIO_OK) << why;
  const uint64_t gen = rt_->current()->publish_seq;
  EXPECT_EQ(rt_->decay(T0 - 10, nullptr, 0, &why), MFPRIO_EINVAL);  // before the last pass
  EXPECT_EQ(rt_->current()->publish_seq, gen);
  EXPECT_EQ(store_last_decay(), T0);
  EXPECT_NEAR(store_usage(), 1000.0, 1e-9);
}

}  // namespace
}  // namespace mfprio::test

namespace mfprio::test {
namespace {

TEST_F(RuntimeFailure, DecayFarBeyondTheLastPassIsRefusedAndChangesNothing) {
  std::string why;
  ASSERT_EQ(rt_->decay(T0, nullptr, 0, &why), MFPRIO_OK) << why;
  const int64_t far = T0 + 400 * 86400;  // a clock a year and more ahead
  EXPECT_EQ(rt_->decay(far, nullptr, 0, &why), MFPRIO_EINVAL);
  EXPECT_NE(why.find("PriorityMaxDecayGap"), std::string::npos) << why;
  EXPECT_EQ(store_last_decay(), T0);
  EXPECT_NEAR(store_usage(), 1000.0, 1e-9);
  // The correct clock goes on as if nothing happened.
  ASSERT_EQ(rt_->decay(T0 + kHalfLife, nullptr, 0, &why), MFPRIO_OK) << why;
  EXPECT_NEAR(usage(), 500.0, 1e-6);
}

}  // namespace
}  // namespace mfprio::test

// Decay through the real multifactor policy while the store's
// Nth write/sync/read/lock fails (tests/acct/fault_vfs).  Whatever N, the
// published snapshot agrees with the store (usage and last pass), a failed
// pass is refused cleanly, and the retry runs the pass once.
#include "../acct/fault_vfs.hpp"

namespace mfprio::test {
namespace {

namespace fv = acct::fault_vfs;

class RuntimeStoreFault : public RuntimeFailure {
 protected:
  void SetUp() override {
    fv::install();  // the default VFS from here on: the runtime's store uses it
    RuntimeFailure::SetUp();
  }
  void TearDown() override { fv::disarm(); }
};

TEST_F(RuntimeStoreFault, DecayHittingAStoreFaultLeavesTheSnapshotAgreeingWithTheStore) {
  std::string why;
  int64_t t = T0;
  ASSERT_EQ(rt_->decay(t, nullptr, 0, &why), MFPRIO_OK) << why;
  const int codes[] = {SQLITE_IOERR, SQLITE_FULL, SQLITE_BUSY};
  int failed = 0;
  for (fv::Op op : {fv::Op::Write, fv::Op::Sync, fv::Op::Read, fv::Op::Lock}) {
    for (uint64_t n = 1; n < 200; ++n) {
      t += 60;
      const double before = store_usage();
      fv::arm(op, n, codes[n % 3]);
      const int rc = rt_->decay(t, nullptr, 0, &why);
      const bool fired = fv::fired();
      fv::disarm();
      const std::string label = std::string(fv::op_name(op)) + " #" + std::to_string(n) + ": " + why;
      ASSERT_NEAR(usage(), store_usage(), 1e-9 * before) << label;
      ASSERT_EQ(rt_->current()->last_decay, store_last_decay()) << label;
      if (rc != MFPRIO_OK) {
        ++failed;
        ASSERT_EQ(store_last_decay(), t - 60 - 0 * n) << label;  // the store kept the old pass
        ASSERT_NEAR(store_usage(), before, 1e-9 * before) << label;
        ASSERT_EQ(rt_->decay(t, nullptr, 0, &why), MFPRIO_OK) << label << " / retry: " << why;
        ASSERT_EQ(store_last_decay(), t) << label;
        ASSERT_NEAR(usage(), store_usage(), 1e-9 * before) << label;
      }
      if (!fired) break;
    }
  }
  EXPECT_GT(failed, 0);
}

}  // namespace
}  // namespace mfprio::test

// set_accounts while the store's Nth write/sync/read/lock fails: a tree that
// deletes an account and moves a kept one out of it (moves and deletions,
// written in one transaction) either reaches the store whole or not at all,
// and the runtime's memory agrees with the store either way (a failure
// between the moves and the deletions used to leave the moves).
namespace mfprio::test {
namespace {

// A tree as ABI rows: {user, account, parent}; user "" is an account row.
struct TreeRows {
  std::vector<mfprio_assoc_t> rows;
  mfprio_accounts_t tree{};
  TreeRows(std::initializer_list<std::array<const char*, 3>> list) {
    for (const auto& r : list) {
      mfprio_assoc_t a{};
      a.user = *r[0] ? r[0] : nullptr;
      a.account = r[1];
      a.parent = *r[2] ? r[2] : nullptr;
      a.shares = 1;
      rows.push_back(a);
    }
    tree.struct_size = sizeof tree;
    tree.assocs = rows.data();
    tree.assoc_count = rows.size();
    tree.assoc_size = sizeof(mfprio_assoc_t);
    tree.qos_size = sizeof(mfprio_qos_rec_t);
    tree.partition_size = sizeof(mfprio_partition_rec_t);
  }
};

class RuntimeSetAccountsFault : public RuntimeStoreFault {
 protected:
  // The store's tree: each account with its parent, each association.
  std::string store_tree() {
    auto st = acct::Store::open(db_, acct::OpenOptions{true});
    const acct::StoreData d = st->load(acct::LoadOptions{});
    std::vector<std::string> out;
    for (const acct::AccountRec& a : d.accounts) out.push_back(a.name + "<" + a.parent);
    for (const acct::UserAssocRec& a : d.assocs) out.push_back(a.user + "/" + a.account);
    std::sort(out.begin(), out.end());
    std::string s;
    for (const std::string& x : out) s += x + " ";
    return s;
  }
  // The associations the runtime's memory prices, as store_tree names them.
  std::vector<std::string> memory_assocs() {
    ShareView v;
    rt_->policy().share_view(*rt_->current(), &v);
    std::vector<std::string> out;
    for (const ShareView::Row& r : v.rows)
      if (r.is_user) out.push_back(r.user + "/" + r.account);
    std::sort(out.begin(), out.end());
    return out;
  }
  std::vector<std::string> store_assocs() {
    auto st = acct::Store::open(db_, acct::OpenOptions{true});
    std::vector<std::string> out;
    for (const acct::UserAssocRec& a : st->load(acct::LoadOptions{}).assocs) out.push_back(a.user + "/" + a.account);
    std::sort(out.begin(), out.end());
    return out;
  }
};

TEST_F(RuntimeSetAccountsFault, AMoveAndADeletionReachTheStoreWholeOrNotAtAll) {
  // c under a, w in c; then a goes (with u's association in it) and c moves under b.
  const TreeRows first{{"", "a", ""}, {"", "b", ""}, {"", "c", "a"}, {"u", "a", ""}, {"w", "c", ""}};
  const TreeRows next{{"", "b", ""}, {"", "c", "b"}, {"u", "b", ""}, {"w", "c", ""}};
  std::string why;
  ASSERT_EQ(rt_->set_accounts(first.tree, &why), MFPRIO_OK) << why;
  const std::string had = store_tree();
  ASSERT_EQ(rt_->set_accounts(next.tree, &why), MFPRIO_OK) << why;
  const std::string moved = store_tree();
  ASSERT_NE(had, moved);
  ASSERT_EQ(moved.find("a<"), std::string::npos) << moved;
  const int codes[] = {SQLITE_IOERR, SQLITE_FULL, SQLITE_BUSY};
  int failed_unchanged = 0;
  for (fv::Op op : {fv::Op::Write, fv::Op::Sync, fv::Op::Read, fv::Op::Lock}) {
    for (uint64_t n = 1; n < 400; ++n) {
      ASSERT_EQ(rt_->set_accounts(first.tree, &why), MFPRIO_OK) << why;
      ASSERT_EQ(store_tree(), had);
      const uint64_t seq = rt_->current()->publish_seq;
      fv::arm(op, n, codes[n % 3]);
      const int rc = rt_->set_accounts(next.tree, &why);
      const bool fired = fv::fired();
      fv::disarm();
      const std::string label = std::string(fv::op_name(op)) + " #" + std::to_string(n) + ": " + why;
      const std::string now = store_tree();
      if (rc == MFPRIO_OK) {
        ASSERT_EQ(now, moved) << label;
      } else {
        ASSERT_EQ(rc, MFPRIO_ESTORE) << label;
        ASSERT_TRUE(now == had || now == moved) << label << "\nbefore: " << had << "\nafter:  " << moved
                                                << "\nstore:  " << now;
        if (now == had) {
          ++failed_unchanged;
          ASSERT_EQ(rt_->current()->publish_seq, seq) << label << ": nothing changed, nothing published";
        }
      }
      if (!rt_->stale()) {
        ASSERT_EQ(memory_assocs(), store_assocs()) << label;
      }
      if (!fired) break;
    }
  }
  EXPECT_GT(failed_unchanged, 0);
}

}  // namespace
}  // namespace mfprio::test
