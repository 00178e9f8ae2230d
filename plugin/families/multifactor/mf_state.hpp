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

struct AssocInfo {                     // a user association (20 bytes)
  uint32_t node = 0;                   // its node in Layout::tree
  uint32_t priority = 0;               // effective (inherited) association priority
  uint32_t partition_name = 0;         // in Layout::names; 0 ("") unless a partition association
  uint32_t user = 0;                   // its user (user_name's numbering)
  uint32_t account = 0;                // its account (account_name's numbering)
};

// Name -> index: open addressing, linear probing, 4 bytes a slot (the
// entry's number; its name is name_of(number), a table the owner keeps
// anyway), at most 2/3 full (6 bytes a name), no per-entry allocation.
class NameIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // Entry i (i < n) is named name_of(i); the first wins on a repeat.
  template <class NameOf>
  void build(size_t n, NameOf name_of) {
    slots_.assign(n + n / 2 + 8, kNone);
    for (size_t i = 0; i < n; ++i) {
      const std::string_view key = name_of(static_cast<uint32_t>(i));
      for (size_t h = home(key);; h = next(h)) {
        if (slots_[h] == kNone) {
          slots_[h] = static_cast<uint32_t>(i);
          break;
        }
        if (name_of(slots_[h]) == key) break;
      }
    }
  }
  template <class NameOf>
  uint32_t find(std::string_view key, NameOf name_of) const {
    if (slots_.empty()) return kNone;
    for (size_t h = home(key);; h = next(h)) {
      const uint32_t v = slots_[h];
      if (v == kNone || name_of(v) == key) return v;
    }
  }

 private:
  // The hash scaled onto the table (any size, no modulo).
  size_t home(std::string_view s) const {
    return static_cast<size_t>((static_cast<unsigned __int128>(std::hash<std::string_view>{}(s)) * slots_.size()) >>
                               64);
  }
  size_t next(size_t h) const { return h + 1 == slots_.size() ? 0 : h + 1; }
  std::vector<uint32_t> slots_;
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
  std::vector<uint32_t> user_name;          // per user (the store's order): its name
  NameIndex account_index, user_index;      // name -> account, name -> user (find_account, find_user)
  std::vector<uint32_t> user_first;         // user u's associations: user_assocs[user_first[u] .. user_first[u+1])
  std::vector<uint32_t> user_assocs;        // assocs indices, by user, account, partition
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

  // The share tree's structure (finalized; its `usage` is empty: each
  // snapshot keeps its own beside this one structure, never a copy of it).
  ShareTree tree;
  std::vector<uint32_t> node_item;          // user node: its assoc index; account node: its account

  std::string_view name(uint32_t i) const { return names[i]; }
  uint32_t find_user(std::string_view n) const {
    return user_index.find(n, [this](uint32_t u) { return names[user_name[u]]; });
  }
  uint32_t find_account(std::string_view n) const {
    return account_index.find(n, [this](uint32_t a) { return names[account_name[a]]; });
  }
  std::string_view user_of(const AssocInfo& a) const { return names[user_name[a.user]]; }
  // A node's account: its own name, or for a user its association's.
  std::string_view node_account(size_t node) const {
    const uint32_t k = node_item[node];
    return names[account_name[tree.is_user[node] ? assocs[k].account : k]];
  }
  // A user node's association (-1 for an account node).
  int32_t node_assoc(size_t node) const { return tree.is_user[node] ? static_cast<int32_t>(node_item[node]) : -1; }
};

// What fair share says now: usage, the share results, one value per assoc.
// State::layout_id is layout->id; publish_seq and last_decay are State's.
struct Snapshot : State {
  std::shared_ptr<const Layout> layout;
  std::vector<double> usage;           // per node of layout->tree: users' decayed usage, accounts' sums
  std::vector<uint8_t> active;         // TicketBased: per node, had a pending job (else empty)
  // The fair-share factor per assoc.  The other per-node results (sshare's
  // columns) are computed again from `tree` when a view asks: the same
  // inputs give the same numbers, and a snapshot stays small.
  std::vector<double> assoc_fs;
  std::vector<double> assoc_score;     // Wassoc*assoc + Wfs*fs per assoc (hot, dense)
  // Readers mark associations with pending jobs (see file comment).
  std::shared_ptr<std::atomic<uint8_t>[]> pending_mark;

  // What the fair-share algorithms read besides layout->tree.
  ShareInputs inputs() const {
    return ShareInputs{usage.data(), active.empty() ? layout->tree.active.data() : active.data()};
  }
};


}  // namespace mfprio::multifactor
