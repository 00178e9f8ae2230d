// mf_state.hpp - priority/multifactor's immutable state (a runtime State):
// the layout (who exists) and the snapshot (usage and fair share now).
//
// The plugin builds a Snapshot from the accounting store (layout: who exists)
// plus the latest usage (fair share), then publishes it atomically; readers
// hold a shared_ptr for the length of one call or one batch.  Nothing in a
// published Snapshot changes, except the `pending_mark` bytes that readers set
// (relaxed atomics) to tell the next decay pass which users have pending jobs
// (ticket-based fair share needs that).
//
// Handles (mfprio_handle_t) are indices into assocs/parts/qos, valid while
// `layout` is unchanged; a new layout (associations added or removed) gets a
// new number, and readers re-resolve stale handles by name.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mf_settings.hpp"
#include "policy.hpp"
#include "share_tree.hpp"
#include "store.hpp"

namespace mfprio::multifactor {

inline constexpr size_t kMaxTresWeights = 16;  // PriorityWeightTRES items

struct PartitionInfo {
  std::string name;
  InlineName iname;                    // `name` for the handle check
  double score = 0;                    // PriorityWeightPartition x factor
  uint32_t job_factor = 1;             // PriorityJobFactor
  double factor = 0;                   // the partition factor (normalized unless NO_NORMAL_PART)
  std::vector<TresWeight> billing;     // TRESBillingWeights
  ClusterTotals totals;                // partition totals (cluster's when not given)
  double tres_inv_total[kMaxTresWeights] = {};  // per PriorityWeightTRES item: 1/total, 0 when unknown
};

struct QosInfo {
  std::string name;
  InlineName iname;                    // `name` for the handle check
  double score = 0;                    // PriorityWeightQOS x factor
  uint32_t priority = 0;
  double factor = 0;                   // normalized unless NO_NORMAL_QOS
  double usage_factor = 1;
};

struct AssocInfo {                     // a user association
  uint32_t node = 0;                   // its node in `tree`
  uint32_t priority = 0;               // effective (inherited) association priority
  int32_t partition = -1;              // partition association: index in parts
  uint32_t partition_name = 0;         // in Layout::names; 0 ("") unless a partition association
  uint32_t user = 0;                   // its user (user_index's numbering)
  uint32_t account = 0;                // its account (account_name's numbering)
  int64_t store_id = 0;
};

// Name -> index over names interned in a NamePool: open addressing, linear
// probing, 8 bytes a slot, no per-entry allocation.
class NameIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Entry i (i < n) is named names[name_of(i)]; the first wins on a repeat.
  template <class NameOf>
  void build(const acct::NamePool& names, size_t n, NameOf name_of) {
    size_t cap = 16;
    while (cap < n + n / 2) cap <<= 1;
    slots_.assign(cap, Slot{0, kNone});
    mask_ = cap - 1;
    for (size_t i = 0; i < n; ++i) {
      const uint32_t nm = name_of(i);
      const std::string_view key = names[nm];
      for (size_t h = hash(key) & mask_;; h = (h + 1) & mask_) {
        if (slots_[h].value == kNone) {
          slots_[h] = Slot{nm, static_cast<uint32_t>(i)};
          break;
        }
        if (names[slots_[h].name] == key) break;
      }
    }
  }
  uint32_t find(const acct::NamePool& names, std::string_view key) const {
    if (slots_.empty()) return kNone;
    for (size_t h = hash(key) & mask_;; h = (h + 1) & mask_) {
      const Slot& s = slots_[h];
      if (s.value == kNone) return kNone;
      if (names[s.name] == key) return s.value;
    }
  }

 private:
  struct Slot {
    uint32_t name, value;
  };
  static size_t hash(std::string_view s) { return std::hash<std::string_view>{}(s); }
  std::vector<Slot> slots_;
  size_t mask_ = 0;
};

// What the handle check reads per association (mf_priority.cpp:
// handle_fits), dense (24 bytes) and prefetched with the association's
// score: its user's name inline, its account (an index: the accounts'
// inline names are a small table that stays in cache), the partition it
// serves and whether it is its user's default association.  Nothing else
// of the association is read on the fast path.
struct AssocNames {
  static constexpr uint16_t kAnyPartition = 0xffff;  // not a partition association
  static constexpr uint16_t kNoPartition = 0xfffe;   // a partition no one defines (or past 0xfffd): none
  InlineName user;
  uint32_t account = 0;                // index in Layout::account_name / account_inames
  uint16_t serves = kAnyPartition;     // the partition (index in parts) a partition association serves
  uint8_t user_default = 0;            // in the user's default account (a job naming no account)
};
static_assert(sizeof(AssocNames) == 24, "three associations' names in a cache line and a half");

// One of a user's associations, for resolving a job's names.
struct UserAssoc {
  uint32_t assoc;                      // index in Layout::assocs
  uint32_t account;                    // index in Layout::account_name
  uint32_t partition;                  // name (0: any partition)
};

// Settings folded into the constants the priority path needs.
enum class SizeMode : uint8_t { FavorLarge, FavorSmall, PerTime, PerTimeSmall };

struct Plan {
  double w_age = 0, w_jobsize = 0;
  double inv_max_age = 0;              // 1/PriorityMaxAge (0: no age factor)
  bool accrue_always = false, raw_tres = false, incr_only = false;
  // Job size (priority_multifactor.c:_get_priority_internal): the cluster's nodes and CPUs, and inverses.
  SizeMode size_mode = SizeMode::FavorLarge;
  double nodes = 0, cpus = 0, inv_nodes = 0, inv_cpus = 0;
  // PriorityWeightTRES as flat arrays; names point into *settings.
  uint32_t n_tres = 0;
  TresKind tres_kind[kMaxTresWeights] = {};
  double tres_weight[kMaxTresWeights] = {};
  const char* tres_name[kMaxTresWeights] = {};
};

// Who exists: built when the store's hierarchy is loaded, shared by every
// snapshot until the hierarchy changes.
struct Layout {
  uint32_t id = 0;                     // handle generation (never 0 once built)
  std::shared_ptr<const Settings> settings;
  Plan plan;
  ClusterTotals cluster;

  std::vector<PartitionInfo> parts;
  std::vector<QosInfo> qos;
  std::vector<AssocInfo> assocs;
  std::vector<AssocNames> assoc_names;      // per assoc (handle checks)

  // Names: interned once (the store's pool); everything below holds indices.
  acct::NamePool names;
  std::vector<uint32_t> account_name;       // per account (the store's order): its name
  std::vector<InlineName> account_inames;   // per account: its name inline (handle checks)
  NameIndex account_index, user_index;      // name -> account, name -> user
  std::vector<uint32_t> user_first;         // user u's associations: user_assocs[user_first[u] .. user_first[u+1])
  std::vector<UserAssoc> user_assocs;       // by user, account, partition
  std::vector<uint32_t> user_default;       // per user: default account (acct::default_association); kNone: none
  acct::IdIndex assoc_by_store_id;          // store association id -> assocs index
  std::unordered_map<std::string, uint32_t> part_index, qos_index;
  int32_t default_part = -1;
  int32_t normal_qos = -1;
  bool implicit_partitions = false;    // neither slurm.conf nor the store defines one: any name is a factor-1 partition

  // The association factor: effective priority, normalized by the largest
  // unless NO_NORMAL_ASSOC.
  uint32_t max_assoc_priority = 0;
  bool raw_assoc_priority = false;     // NO_NORMAL_ASSOC
  double assoc_factor(const AssocInfo& a) const {
    return raw_assoc_priority ? a.priority
                              : (max_assoc_priority ? double(a.priority) / max_assoc_priority : 0.0);
  }

  // The share tree's names, per node, for sshare and explain.  The tree
  // itself lives in the snapshots: the first is built with the layout, each
  // later one copies its predecessor's (same layout) with new usage.
  std::vector<uint32_t> node_name;          // account nodes: the account; user nodes: the user
  std::vector<int32_t> node_assoc;          // user node -> assoc index, -1 for accounts

  std::string_view name(uint32_t i) const { return names[i]; }
  // A node's account: its own name, or for a user its parent account's.
  std::string_view node_account(const ShareTree& t, size_t node) const {
    return names[node_name[t.is_user[node] ? static_cast<size_t>(t.parent[node]) : node]];
  }
};

// What fair share says now: usage, the share results, one value per assoc.
// State::layout_id is layout->id; publish_seq and last_decay are State's.
struct Snapshot : State {
  std::shared_ptr<const Layout> layout;
  ShareTree tree;                      // the layout's tree with this snapshot's usage
  // The fair-share factor per assoc.  The other per-node results (sshare's
  // columns) are computed again from `tree` when a view asks: the same
  // inputs give the same numbers, and a snapshot stays small.
  std::vector<double> assoc_fs;
  std::vector<double> assoc_score;     // Wassoc*assoc + Wfs*fs per assoc (hot, dense)
  // Readers mark associations with pending jobs (see file comment).
  std::shared_ptr<std::atomic<uint8_t>[]> pending_mark;
};


}  // namespace mfprio::multifactor
