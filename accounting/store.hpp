// store.hpp - the accounting store: the only code that talks to SQLite or
// PostgreSQL.  A location "postgresql://..." / "postgres://..." is a libpq
// URI (common/store_loc.hpp): a PostgreSQL server; anything else is an
// SQLite file path.
//
// Holds the account/share hierarchy, user associations, QOS, partitions,
// TRES types, each user association's decayed raw usage (total and per TRES),
// a ledger of job charges (idempotent per job id) and the decay state.
//
// Entry points:
//   Store::open(path)      create (mode 0600) or open, migrate the schema
//   Store::load()          everything the engine needs, in one read transaction
//   Store::apply_cycle()   one calc-period's charges + decay + reset, one transaction
//   Store::apply_admin()   add/modify/delete/import used by mfprio-acct, one
//                          transaction; admin.hpp validates before calling it
//
// Invariants:
//   - Only user associations carry usage; an account's usage is the sum of its
//     children's, derived by the engine (so decay and charges stay conserved).
//   - Every multi-row change runs in one transaction; a failed call leaves the
//     file as it was.  SQL only through prepared statements.
//   - A job's usage is charged at most once per second of its run: the ledger
//     records charged_until per job id.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace mfprio::acct {

// Raised for every store failure; what() is one line naming the path, the
// record or the SQLite error.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A read-only open found a store of an older schema: only a read-write open
// upgrades it (the plugin's, or mfprio-acct's, which does so itself).
struct SchemaUpgradeNeeded : StoreError {
  using StoreError::StoreError;
};

struct AccountRec {
  int64_t id = 0;
  std::string name;
  std::string parent;          // "" only for root
  bool shares_parent = false;  // FairShare=parent
  uint32_t shares = 1;
  uint32_t priority = 0;       // association priority; 0 = inherit from parent
  std::string description;
};

struct UserAssocRec {
  int64_t id = 0;
  std::string user;
  std::string account;
  std::string partition;       // "" = any partition
  bool shares_parent = false;
  uint32_t shares = 1;
  uint32_t priority = 0;       // 0 = inherit from the account
  bool is_default = false;     // the user's default account
  double raw_usage = 0;        // decayed billing-TRES-seconds
  std::vector<std::pair<std::string, double>> tres_usage;  // decayed TRES-seconds
  // When an import last set raw_usage (epoch seconds; 0 = never): the flux
  // family counts raw_usage as usage charged at this time (its seed).
  int64_t usage_time = 0;
  std::vector<std::string> queues;  // Flux queues this association may use, by name
};

struct UserRec {
  std::string name;
  std::string default_account;
  bool admin = false;          // AdminLevel=Administrator: may write the store
};

struct QosRec {
  int64_t id = 0;
  std::string name;
  uint32_t priority = 0;
  double usage_factor = 1.0;
};

// A Flux queue (priority/flux): flux-accounting's queue_table name and priority.
struct QueueRec {
  std::string name;
  int64_t priority = 0;        // signed 32-bit
};

struct PartitionRec {
  int64_t id = 0;
  std::string name;
  uint32_t job_factor = 1;     // PriorityJobFactor 0..65533
  std::string billing_weights; // TRESBillingWeights, as written ("CPU=1.0,Mem=0.25G")
  std::string tres_totals;     // "cpu=240,mem=491520,node=10,gres/gpu=8"; "" = cluster totals
  bool is_default = false;
};

// The default-account rule, the only place it is written (mfprio-acct's
// model and every plugin's layout use it): among one user's associations in
// (account, partition) order, the first in the user's chosen default account
// (is_chosen), else the first.  Returns `last` only for an empty range.
template <class It, class IsChosen>
It default_association(It first, It last, IsChosen is_chosen) {
  for (It i = first; i != last; ++i)
    if (is_chosen(*i)) return i;
  return first;
}

// Grid Engine's functional shares and override tickets of a user, project
// or department (table ticket_objects).  A user's row needs no users row.
struct TicketObjectRec {
  std::string kind;            // "user", "project", "department"
  std::string name;
  uint32_t fshare = 0;
  uint32_t oticket = 0;
};

// The store's settings (table settings, schema 8): key -> value.
inline constexpr const char* kSettingCluster = "cluster";  // sacctmgr load's Cluster line
// Grid Engine's auto_user_fshare / auto_user_oticket (qconf -sconf, with
// enforce_user auto): every user the store creates gets a user ticket object
// with these values unless the same write gives it one.
inline constexpr const char* kSettingAutoUserFshare = "gridengine.auto_user_fshare";
inline constexpr const char* kSettingAutoUserOticket = "gridengine.auto_user_oticket";

struct WindowRow {
  std::string kind;            // "user", "group", "account", "qos", "class", "total", ...
  std::string name;
  int64_t start = 0;           // window start (epoch seconds)
  int64_t seconds = 0;         // window length; 0: the single decayed window
  double usage = 0;
};

struct DecayState {
  int64_t last_decay = 0;      // 0 = never
  int64_t last_reset = 0;
};

// The decay bookkeeping as `mfprio-acct show decay` prints it: pass times
// and the internal usage scale (stored usage = true usage / scale).
struct DecayInfo {
  int64_t last_decay = 0;
  int64_t last_reset = 0;
  double scale = 1.0;
};

struct LedgerRec {
  uint64_t job_id = 0;
  int64_t assoc_id = 0;
  int64_t charged_until = 0;
  bool ended = false;
};

struct StoreData {
  std::vector<AccountRec> accounts;    // root first, then parents before children
  std::vector<UserAssocRec> assocs;    // by user, account, partition
  std::vector<UserRec> users;
  std::vector<QosRec> qos;
  std::vector<PartitionRec> partitions;
  std::vector<std::string> tres;       // TRES type names
  std::vector<QueueRec> queues;        // Flux queues, by name
  std::vector<TicketObjectRec> ticket_objects;  // by kind, name
  // Grid Engine's per-user decayed usage (family "gridengine", kinds cpu,
  // mem, io; export's "usage").  Read only with LoadOptions::tres_usage.
  std::vector<WindowRow> gridengine_usage;
  DecayState decay;
  std::vector<std::pair<std::string, std::string>> settings;  // by key (kSetting*)
  // The value of `key`, "" when unset.
  std::string setting(const std::string& key) const {
    for (const auto& [k, v] : settings)
      if (k == key) return v;
    return "";
  }
};

// ---- the compact hierarchy (Store::load_tree) ---------------------------
// What an engine needs to build its tree, with every name interned once and
// integer indices everywhere else: no string per association, no per-row
// allocation.  load() builds StoreData from the same read.

// Names in one character buffer; a name is its index.  Index 0 is "".
struct NamePool {
  std::string chars;
  std::vector<uint32_t> begin{0, 0};  // name i is chars[begin[i], begin[i + 1])
  uint32_t size() const { return static_cast<uint32_t>(begin.size() - 1); }
  std::string_view operator[](uint32_t i) const {
    return std::string_view(chars.data() + begin[i], begin[i + 1] - begin[i]);
  }
  uint32_t add(std::string_view s) {  // appends (no dedup); "" is 0
    if (s.empty()) return 0;
    chars.append(s.data(), s.size());
    begin.push_back(static_cast<uint32_t>(chars.size()));
    return size() - 1;
  }
};

struct TreeAccount {
  int64_t id = 0;
  int32_t parent = -1;         // index in TreeData::accounts; -1 for root
  uint32_t name = 0;           // in TreeData::names
  uint32_t description = 0;    // in TreeData::names
  uint32_t shares = 1;
  uint32_t priority = 0;
  bool shares_parent = false;
};

struct TreeUser {
  uint32_t name = 0;
  int32_t default_account = -1;  // the chosen one (index in accounts), -1 = none
  bool admin = false;
};

struct TreeAssoc {
  int64_t id = 0;
  double raw_usage = 0;        // true (decayed) usage, journal included
  int64_t usage_time = 0;
  uint32_t user = 0;           // index in TreeData::users
  uint32_t account = 0;        // index in TreeData::accounts
  uint32_t partition = 0;      // name; 0 = any partition
  uint32_t shares = 1;
  uint32_t priority = 0;
  bool shares_parent = false;
  bool is_default = false;     // in the user's chosen default account
};

// A store id (int64) -> index map: a flat array when the ids are compact
// (INTEGER PRIMARY KEYs of a table that is mostly appended to), a hash map
// otherwise.  find() gives kNone for an id not added.
class IdIndex {
 public:
  static constexpr uint32_t kNone = UINT32_MAX;
  // id_of(i) for i in [0, n); the first index wins for a repeated id.
  template <class IdOf>
  void build(size_t n, IdOf id_of) {
    dense_.clear();
    sparse_.clear();
    if (n == 0) return;
    int64_t lo = id_of(0), hi = lo;
    for (size_t i = 1; i < n; ++i) {
      const int64_t v = id_of(i);
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    base_ = lo;
    const uint64_t range = static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo);
    if (range < 4 * static_cast<uint64_t>(n) + 1024) {
      dense_.assign(static_cast<size_t>(range) + 1, kNone);
      for (size_t i = n; i-- > 0;) dense_[static_cast<size_t>(id_of(i) - lo)] = static_cast<uint32_t>(i);
    } else {
      sparse_.reserve(n);
      for (size_t i = 0; i < n; ++i) sparse_.push_back({id_of(i), static_cast<uint32_t>(i)});
      std::sort(sparse_.begin(), sparse_.end());  // by id, then index: a run's first is the first added
    }
  }
  uint32_t find(int64_t id) const {
    if (!dense_.empty()) {
      const uint64_t k = static_cast<uint64_t>(id) - static_cast<uint64_t>(base_);
      return k < dense_.size() ? dense_[static_cast<size_t>(k)] : kNone;
    }
    auto it = std::lower_bound(sparse_.begin(), sparse_.end(), id,
                               [](const auto& e, int64_t v) { return e.first < v; });
    return it == sparse_.end() || it->first != id ? kNone : it->second;
  }

 private:
  int64_t base_ = 0;
  std::vector<uint32_t> dense_;
  std::vector<std::pair<int64_t, uint32_t>> sparse_;
};

struct TreeData {
  NamePool names;
  std::vector<TreeAccount> accounts;  // StoreData's order: root first, breadth-first, siblings by name
  std::vector<TreeUser> users;        // by name
  std::vector<TreeAssoc> assocs;      // by user, account, partition (StoreData's order)
  std::vector<QosRec> qos;            // by name
  std::vector<PartitionRec> partitions;  // by name
  DecayState decay;
};

// How usage decays with time: factor(elapsed) = base ^ (elapsed / unit_seconds)
// (1 for elapsed <= 0; base <= 0: all usage gone; base >= 1: no decay).
// Slurm's half-life H is {0.5, H}; Grid Engine's per-minute constant k is
// {k, 60}.
struct DecayRate {
  double base = 1.0;
  double unit_seconds = 1.0;
  double factor(int64_t elapsed) const;
};

// A decay pass as the store applies it, whoever runs it (two hosts on one
// store, a controller and an admin's `mfprio-host decay`): the factor comes
// from the store's own last pass time, read inside the pass's write
// transaction, never from a caller's snapshot.  A pass whose `now` is not
// after the store's last pass applies no decay and no reset and leaves the
// pass times alone (its charges still go: the ledger makes them idempotent),
// so an hour is decayed once and the last pass time never moves backwards.
struct PassClock {
  int64_t now = 0;                 // the pass time
  DecayRate rate;                  // CycleUpdate: every association's usage
  int64_t reset_if_before = 0;     // CycleUpdate: reset when the stored last_reset is in (0, this)
};

// What the store did with a PassClock (CycleResult, WindowResult).
struct PassApplied {
  bool applied = false;            // false: the store's last pass was at or after `now`
  double decay_factor = 1.0;       // CycleUpdate's usage factor (1 when not applied)
  bool reset = false;              // usage was reset first
  DecayState state;                // the pass times in the store after the commit
  int64_t previous = 0;            // the store's last pass before this one (0: none)
};

// One job's charge in a cycle.  The store charges
//   seconds = until - max(start_time, ledger.charged_until)  (if > 0)
//   raw_usage += seconds * rate;  tres_usage[name] += seconds * count
// and sets the ledger's charged_until = until (and ended).
struct Charge {
  uint64_t job_id = 0;
  int64_t assoc_id = 0;        // see `user` below
  int64_t start_time = 0;
  int64_t until = 0;
  double rate = 0;             // billable TRES x QOS UsageFactor, per second
  std::vector<std::pair<std::string, double>> tres;  // per-second TRES counts x UsageFactor
  bool ended = false;
  // The association: by name when `user` is set (a plugin's charges), looked
  // up inside the transaction, so a row id cached in a snapshot can never
  // credit another association that took it since; else by assoc_id (an
  // admin tool that resolved it in the same breath).  A job already in the
  // ledger stays on the association it was first charged to (a deleted
  // association takes its ledger rows with it).  An association not in the
  // store (deleted while its job ran) is not charged: CycleResult::dropped.
  std::string user, account, partition;
};

struct CycleUpdate {
  bool reset = false;          // PriorityUsageResetPeriod boundary: usage := 0 first
  double decay_factor = 1.0;   // every usage is multiplied by this (after reset)
  std::vector<Charge> charges; // applied after the decay
  std::optional<DecayState> new_state;
  // Journal the charges instead of updating each association's row: an
  // append-only table (sequential pages, so a commit writes a few pages
  // whatever the associations), folded into the rows by the next cycle that
  // is not deferred.  Only for cycles with no reset and no decay (job ends).
  // load() counts journalled charges, so nothing is ever invisible or lost.
  bool defer_usage = false;
  // A decay pass (see PassClock): the store computes the factor, the reset
  // and the new pass times itself.  Then decay_factor must be 1 and
  // new_state unset; `reset` still forces a reset (PriorityUsageResetPeriod=NOW).
  std::optional<PassClock> pass;
};

struct CycleResult {
  PassApplied pass;            // with CycleUpdate::pass
  std::vector<double> added;   // per charge: usage added (0 if already charged)
  // Per charge: the association credited.  A job stays on the association it
  // was first charged to (the ledger's), whatever the charge named: the one
  // rule, and callers credit memory from here so file and memory agree.
  std::vector<int64_t> assoc_ids;
  // Charges whose association is gone (by name, see Charge): added 0,
  // assoc_ids 0, no ledger row; every other charge of the cycle went ahead.
  size_t dropped = 0;
};

// ---- windowed usage --------------------------------------------------------
// The usage model of families that keep usage per credential in windows
// aligned to the clock (Maui/Moab fair share: FSINTERVAL windows; Flux's
// half-life bins) or in one decayed total per credential (Grid Engine's cpu,
// mem and io).  Rows are (family, kind, name, window start, window length):
// a window is absolute time, so windows "roll" by the clock alone and
// nothing is lost on restart; a family whose interval changes re-buckets old
// rows by their start when it reads them.  A job's charges are made once per
// family (the window ledger), so a repeated or replayed charge adds nothing.

struct WindowCharge {
  uint64_t job_id = 0;
  int64_t start_time = 0;      // when the job started
  int64_t until = 0;           // charge up to here (the pass time or the job's end)
  double rate = 0;             // usage per second, charged to every credential below
  std::vector<std::pair<std::string, std::string>> credentials;  // (kind, name)
  bool ended = false;
  // Optional: one rate per credential (same length as credentials), used
  // instead of `rate` (Grid Engine charges cpu, mem and io of one job at
  // different rates in the one ledger step).
  std::vector<double> credential_rates;
  // Optional: the association that owns these credentials (Flux's user and
  // bank), looked up inside the transaction as Charge's: when it is not in
  // the store (deleted while the job ran) nothing is charged and the charge
  // is listed in WindowResult::dropped_at.
  std::string owner_user, owner_account, owner_partition;
};

struct WindowCycle {
  std::string family;          // "maui", "flux", "gridengine"
  int64_t window_seconds = 0;  // > 0: split charges at multiples of it; 0: one window (start 0)
  double decay_factor = 1.0;   // every row of the family multiplied by it first
  // Per kind, the factor for that kind's rows (Grid Engine's
  // halflife_decay_list: cpu, mem and io decay apart); kinds not listed are
  // not decayed.  Only with decay_factor 1.
  std::vector<std::pair<std::string, double>> kind_decay;
  int64_t drop_before = 0;     // rows whose window ends at or before this are deleted
  // > 0 (with window_seconds > 0): the windows the family keeps, the
  // current one included.  A charge writes only the last keep_windows
  // windows up to its own end: older ones would be dropped by the time the
  // clock reaches that end, so a job end dated days past the last pass
  // writes at most keep_windows rows per credential, not one per window.
  int64_t keep_windows = 0;
  std::vector<WindowCharge> charges;
  std::optional<DecayState> new_state;  // the pass time, as apply_cycle keeps it
  // A decay pass (see PassClock): pass.rate decays every row of the family,
  // kind_rates the rows of the kinds listed (then pass.rate must be 1);
  // both from the store's own last pass time.  Then decay_factor must be 1,
  // kind_decay empty and new_state unset; the pass times become {now, now}.
  std::optional<PassClock> pass;
  std::vector<std::pair<std::string, DecayRate>> kind_rates;
};

struct WindowResult {
  PassApplied pass;            // with WindowCycle::pass
  std::vector<double> added;   // per charge: usage added to each of its credentials
  std::vector<size_t> dropped_at;  // charges whose owner association is gone (added 0)
};

// One usage pass as the plugin's runtime writes it: scalar rows
// (associations, ledger, journal) and windowed rows in ONE transaction;
// at most one of them carries the PassClock.
struct PassWrite {
  std::optional<CycleUpdate> scalar;
  std::optional<WindowCycle> windows;
};
struct PassResult {
  CycleResult scalar;
  WindowResult windows;
};

// How to open a store.  The CLI opens read-only for `show`/`export` so that a
// user who may read the file but not write it can still look.
struct OpenOptions {
  bool read_only = false;
  bool create = true;          // create the file (mode 0600) or the cluster's schema if missing
  // The cluster (slurm.conf's ClusterName, lower case; mfprio-acct's
  // cluster=): callers pass it, "" is kDefaultCluster.  On PostgreSQL each
  // cluster is the schema mfprio_<cluster> of the database (names of 1 to
  // 48 of a-z, 0-9, _; others refused), so hierarchy, usage, windows and
  // ledgers are the cluster's by construction.  An SQLite file holds one
  // cluster and opens whatever `cluster` says (slurm.conf's ClusterName
  // may differ from the Cluster a sacctmgr load recorded), unless
  // cluster_given: then a cluster other than the one its settings name
  // (when they name one, kSettingCluster) is refused.
  std::string cluster{};
  bool cluster_given = false;  // mfprio-acct's cluster= on the command line
  // false: a throw-away store (mfprio-host simulate's, MfprioStoreDurable=no):
  // one connection holds it (locking_mode EXCLUSIVE), its rollback journal
  // is in memory and nothing is synced.  A crash may leave it corrupt.  An
  // SQLite matter: a PostgreSQL store is always the server's.
  bool durable = true;
};
inline constexpr const char* kDefaultCluster = "default";

// One association to upsert, keyed by (user, account, partition).  The user
// row is created if missing.  Usage is written only when set_usage is true
// (import); CLI modifies leave the decayed usage alone.
struct AssocWrite {
  UserAssocRec rec;
  bool set_usage = false;      // also writes rec.usage_time (< 0: the time of the write)
  bool set_queues = false;     // replace the association's permitted queues by rec.queues
};

struct AssocKey {
  std::string user;
  std::string account;
  std::string partition;
};

// A batch of admin changes, written in one transaction by apply_admin:
// deletions first (last with deletions_last), then upserts (accounts in any
// order: parents are linked after every listed account exists).  The store does not re-validate shape
// (cycles, defaults): admin.hpp's validate_changes does that on the merged
// picture first; the schema's constraints and foreign keys are the backstop.
struct AdminChanges {
  std::vector<std::string> delete_accounts;   // must have no children/assocs
  std::vector<std::string> delete_users;      // with all their associations
  std::vector<AssocKey> delete_assocs;
  std::vector<std::string> delete_qos;
  std::vector<std::string> delete_partitions;
  std::vector<std::string> delete_queues;     // their permissions go with them
  std::vector<AccountRec> accounts;           // upsert by name (id ignored)
  std::vector<AssocWrite> assocs;
  std::vector<UserRec> users;                 // upsert by name; "" default = none
  std::vector<QosRec> qos;                    // upsert by name
  std::vector<PartitionRec> partitions;       // upsert by name; a default one
                                              // clears the others' flag
  std::vector<QueueRec> queues;               // upsert by name, before the associations
  // Windowed usage rows to set (import "fairshare_usage"): each replaces the
  // row with the same family, kind, name, start and length.
  std::string windows_family;
  std::vector<WindowRow> windows;
  // Functional shares / override tickets: upserted by (kind, name).
  std::vector<TicketObjectRec> ticket_objects;
  std::vector<std::pair<std::string, std::string>> delete_ticket_objects;  // (kind, name)
  // Settings to set (key, value), before anything else; "" removes the key.
  std::vector<std::pair<std::string, std::string>> settings;
  // The deletions after the upserts, in the same transaction: a kept
  // account moved out of one that goes (set_accounts) is linked to its new
  // parent before the old one is deleted.
  bool deletions_last = false;
  bool empty() const {
    return delete_accounts.empty() && delete_users.empty() && delete_assocs.empty() &&
           delete_qos.empty() && delete_partitions.empty() && delete_queues.empty() &&
           accounts.empty() && assocs.empty() && users.empty() && qos.empty() &&
           partitions.empty() && queues.empty() && windows.empty() && ticket_objects.empty() &&
           delete_ticket_objects.empty() && settings.empty();
  }
};

struct LoadOptions {
  bool tres_usage = true;      // per-TRES usage (export needs it; the engine does not)
};

class Store {
 public:
  // Opens or creates the file (created with mode 0600), sets WAL, foreign
  // keys and a busy timeout, and migrates the schema forward.  A PostgreSQL
  // URI connects instead, and creates or migrates the cluster's schema.
  static std::unique_ptr<Store> open(const std::string& path);
  static std::unique_ptr<Store> open(const std::string& path, const OpenOptions& opts);
  // The clusters of a store (mfprio-acct show cluster, show assoc without
  // cluster=), sorted: on PostgreSQL every cluster made in the database
  // (the shared table mfprio.clusters; none when no cluster was made yet),
  // read without opening any of them; an SQLite file holds one, the one its
  // settings name (kSettingCluster), else kDefaultCluster.  StoreError as
  // open's (no server, not a store).
  static std::vector<std::string> list_clusters(const std::string& location);
  virtual ~Store() = default;

  // The file, or the URI without its password (for messages).
  virtual const std::string& path() const = 0;
  virtual int schema_version() = 0;

  // Everything the engine needs, read in one transaction.  Usage comes back
  // as true (decayed) values whatever the file's internal scale.
  StoreData load() { return load(LoadOptions{}); }
  virtual StoreData load(const LoadOptions& opts) = 0;
  // The hierarchy, usage, QOS and partitions only, compact (what a
  // multifactor engine builds from), in one read transaction: one scan per
  // table in rowid order, no per-row allocation.
  virtual TreeData load_tree() = 0;
  // The ledger rows of jobs not yet ended.
  virtual std::vector<LedgerRec> open_ledger() = 0;

  // One transaction: reset, decay, charges, new decay state.
  virtual CycleResult apply_cycle(const CycleUpdate& update) = 0;
  // One windowed-usage pass (see WindowCycle), one transaction.
  virtual WindowResult apply_windows(const WindowCycle& cycle) = 0;
  // Both in one transaction (see PassWrite): the usage pass.
  virtual PassResult apply_pass(const PassWrite& pass) = 0;
  // Every row of a family, and the decay state (pass times).
  virtual std::vector<WindowRow> load_windows(const std::string& family) = 0;
  virtual DecayState decay_state() = 0;
  virtual DecayInfo decay_info() = 0;
  // Repair (mfprio-acct modify decay): sets both pass times in one
  // transaction, usage untouched.  Times must lie in [0, year 9999] and
  // last_reset <= last_decay; else StoreError and nothing changes.
  virtual void set_decay_state(const DecayState& s) = 0;


  // True when another connection (mfprio-acct, another host) committed to
  // the store since this Store last asked (SQLite: PRAGMA data_version;
  // PostgreSQL: the cluster's change counter, bumped by every write).
  virtual bool changed_by_others() = 0;

  // May `uid` write?  True for the file's owner and for users with admin set
  // whose name is the passwd name of uid.  PostgreSQL: true (the server's
  // grants to the connecting role decide).
  // uid 0 is also allowed: it can rewrite the file anyway.
  virtual bool may_write(uint32_t uid) = 0;

  // Admin writes (add/modify/delete/import), one transaction.
  virtual void apply_admin(const AdminChanges& changes) = 0;

  // PostgreSQL's least privilege (mfprio-acct grants): the SQL that makes
  // `roles.admin` the owner of this cluster's schema and every table in it
  // (all writes, later migrations) and gives `roles.controller` what a
  // controller does: read everything, charge usage (the usage columns,
  // ledgers, journal, windows, decay state, change counter; new TRES
  // names) and nothing else, so a share change by it is refused by the
  // server.  With apply, run in one transaction by the connecting role
  // (one that may ALTER ... OWNER, e.g. the database's owner).  Role names
  // are 1 to 63 of a-z, 0-9, _ (not starting with a digit).  An SQLite
  // store has no roles: StoreError.
  virtual std::string grants(const std::string& admin, const std::string& controller, bool apply) = 0;
  // mfprio-acct migrate (store_copy.cpp): every row of this store (ids,
  // usage scale, journal, both ledgers, windows, decay state, settings) into
  // `target`, which must be a store as Store::open creates it (else
  // StoreError naming what it holds, and nothing is written), SQLite or
  // PostgreSQL either side.  One read transaction here, one write there.
  virtual void copy_to(Store& target) = 0;

  // Test hook for crash tests, compiled only with MFPRIO_TEST_HOOKS (the
  // mfprio-acct-testhooks build): when the environment variable
  // MFPRIO_ACCT_KILL_AFTER_ROWS=N is set at open, the process raises SIGKILL on
  // itself after writing N rows inside an apply_admin/apply_cycle transaction.
};

}  // namespace mfprio::acct
