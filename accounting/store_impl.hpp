// store_impl.hpp - the implementation of Store (private to accounting/), one
// body for both backends (sql.hpp: SQLite, PostgreSQL).
//
// store.cpp holds open/load/may_write, store_charge.cpp the usage pass's charges
// (apply_cycle), store_admin.cpp the admin writes.
// Invariant: every prepared statement lives in one of the st_* / ls_* slots below, prepared
// on first use and reused for the Store's lifetime (the cycle runs every few
// minutes for months; re-preparing would waste time and churn memory).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "sql.hpp"
#include "store.hpp"
#include "store_batch.hpp"

namespace mfprio::acct::detail {

// Latest time a charge may name (9999-12-31T23:59:59Z): keeps until - start
// and window arithmetic far from int64 overflow.
constexpr int64_t kMaxChargeTime = 253402300799;

class StoreImpl final : public Store {
 public:
  StoreImpl(const std::string& location, const OpenOptions& opts);

  const std::string& path() const override { return path_; }
  int schema_version() override { return version_; }
  using Store::load;
  StoreData load(const LoadOptions& opts) override;
  TreeData load_tree() override;
  std::vector<LedgerRec> open_ledger() override;
  CycleResult apply_cycle(const CycleUpdate& update) override;
  bool may_write(uint32_t uid) override;
  bool changed_by_others() override;
  void apply_admin(const AdminChanges& changes) override;
  std::string grants(const std::string& admin, const std::string& controller, bool apply) override;
  WindowResult apply_windows(const WindowCycle& cycle) override;
  PassResult apply_pass(const PassWrite& pass) override;
  std::vector<WindowRow> load_windows(const std::string& family) override;
  DecayState decay_state() override;
  DecayInfo decay_info() override;
  void set_decay_state(const DecayState& s) override;
  void copy_to(Store& target) override;  // store_copy.cpp

 private:
  void open_sqlite(const std::string& path, const OpenOptions& opts);
  void open_pg(const std::string& uri, const OpenOptions& opts);
  sql::Stmt& prep(sql::Stmt& slot, const char* text);
  sql::Stmt& prep_binary(sql::Stmt& slot, const char* text);  // PostgreSQL: rows in binary form
  int64_t tres_id(const std::string& name);
  int64_t tres_id_lookup(const std::string& name);
  double usage_scale();
  // Inside a read transaction: the hierarchy from every row, or from the
  // cache (false: no usable cache), and the rest (journal, QOS, partitions,
  // decay state).
  void read_tree(TreeData& t, bool descriptions);
  void read_hierarchy(TreeData& t, bool descriptions, double scale);
  struct TreeIndex;  // store.cpp: what read_hierarchy's parts hand on
  void read_tree_accounts(TreeData& t, bool descriptions, TreeIndex& ix);
  void read_tree_users(TreeData& t, TreeIndex& ix);
  void read_tree_assocs(TreeData& t, double scale, const TreeIndex& ix);
  bool read_cached_hierarchy(TreeData& t, double scale);
  bool read_cached_usage(TreeData& t, double scale);
  void write_cached_hierarchy(const TreeData& t);
  void write_cache_in_snapshot(const TreeData& t);
  void clear_tree_cache();  // inside apply_admin's transaction
  void read_tree_tail(TreeData& t, double scale);
  void check_pass(const PassClock& p, double decay_factor, bool explicit_state) const;
  PassApplied decide_pass(const PassClock& p, bool force_reset, bool windows);
  DecayState decay_state_in_txn();  // decay_state.scale, inside a transaction
  // The bodies of apply_cycle / apply_windows inside the caller's
  // transaction (apply_pass runs both in one), and their argument checks.
  CycleResult cycle_in_txn(const CycleUpdate& update);
  WindowResult windows_in_txn(const WindowCycle& cycle);
  void check_cycle(const CycleUpdate& update);
  void check_windows(const WindowCycle& cycle);
  void drop_buffers();
  void fold_journal();  // journalled charges into the rows, inside a transaction
  void add_tres_sum(int64_t assoc_id, int64_t tres_id, double amount);  // into tres_sums_
  void apply_admin_txn(const AdminChanges& changes);
  void admin_deletes(const AdminChanges& changes);  // apply_admin_txn's parts, in its order
  void admin_accounts(const AdminChanges& changes);
  void admin_assoc(const AssocWrite& w, double inv_scale);
  void admin_rest(const AdminChanges& changes);
  void admin_settings(const AdminChanges& changes);
  // Grid Engine's auto_user_* (settings): the values, or false when unset.
  bool auto_user_tickets(uint32_t* fshare, uint32_t* oticket);
  // Before a user row is written: a user the write creates gets the
  // automatic ticket object (when set; an existing object is kept).
  void auto_user_object(const std::string& user);
  bool auto_user_ = false;  // within apply_admin_txn: auto_user_* are set
  uint32_t auto_fshare_ = 0, auto_oticket_ = 0;
  void put_window(const std::string& family, const WindowRow& row);  // store_windows.cpp
  // The windowed charge path (store_windows.cpp): a pass's charges in a few
  // statements whatever their number (see the top of that file).
  struct WinJob {  // a job's window_ledger row as the batch leaves it
    int64_t until;
    int32_t ledger_row;  // its row in win_ledger_buf_; -1: none yet
  };
  struct WinLedgerRow {
    int64_t job_id, until;
    bool ended;
  };
  struct WinRow {  // one (credential, window) row's sum over the batch
    uint32_t cred;  // its index in win_creds_
    int64_t start;
    double usage;
  };
  void check_window_charge(const WindowCharge& ch) const;
  void check_window_row(const std::string& family, const WindowRow& w) const;
  void read_window_ledger(const WindowCycle& c);
  void charge_windows(const WindowCycle& c, WindowResult& res);
  void add_window_usage(const std::string& kind, const std::string& name, int64_t start, double usage);
  void write_windows(const WindowCycle& c);
  void row_written();
  // The charge path (store_charge.cpp): a cycle's charges in a few
  // statements whatever their number (see the top of that file).
  struct LedgerRow {
    int64_t job_id, assoc_id, until;
    bool ended;
    bool existed;  // the job had a ledger row when the batch began
  };
  struct JobState {  // a job's ledger row as the batch leaves it
    int64_t until, assoc_id;
    int32_t ledger_row;  // its row in ledger_buf_; -1: none yet
    bool existed;        // read from the ledger (not first charged in this batch)
  };
  struct AssocSum {
    int64_t assoc_id;
    double amount;
    uint64_t first_job;  // named if the association is missing
  };
  struct TresSum {
    int64_t assoc_id, tres_id;
    double amount;
  };
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& p) const noexcept {
      return std::hash<int64_t>()(p.first * 1000003 + p.second);
    }
  };
  static constexpr uint32_t kNoName = UINT32_MAX;
  void charge_all(const CycleUpdate& up, double inv_scale, CycleResult& res);
  void read_ledger_batch(const std::vector<Charge>& charges);
  void batch_job_ids(const std::vector<Charge>& charges);  // batch_ids_; job_state_ emptied
  bool ledger_read_ = false;  // scale_and_token read the batch's ledger rows
  void resolve_names_batch(const std::vector<Charge>& charges);
  void check_given_assocs(const std::vector<Charge>& charges);
  void write_usage_sums();
  void write_journal();
  void flush_ledger();
  // The store's state as a charge transaction sees it, to tell whether
  // anything changed since the name cache was filled (store_charge.cpp):
  // PostgreSQL: store_meta.changes (every write transaction bumps it under
  // the cluster's lock), b unused; SQLite: PRAGMA data_version (another
  // connection committed) and this connection's total changes (it wrote).
  struct StoreToken {
    int64_t a = -1, b = -1;
    bool operator==(const StoreToken& o) const { return a == o.a && b == o.b && a >= 0; }
  };
  double scale_and_token(const std::vector<Charge>& charges);  // decay_state.scale; txn_token_ with it
  StoreToken committed_token();  // after this connection's COMMIT
  void charge_committed();       // after a COMMIT of cycle_in_txn: the cache carried on

  std::string path_;  // the file, or the URI without its password
  std::string cluster_;  // PostgreSQL: the cluster whose schema this is
  int64_t seen_data_version_ = -1;
  std::unordered_map<std::string, int64_t> tres_ids_;  // TRES name -> id, for the Store's life  // changed_by_others(): last PRAGMA data_version
  bool read_only_ = false;
  int version_ = 0;
  long kill_after_rows_ = 0;
  long rows_written_ = 0;
  sql::Conn db_;
  // The charge path's buffers, kept across calls: no allocation per charge.
  std::vector<LedgerRow> ledger_buf_;
  std::vector<int64_t> batch_ids_;  // the batch's distinct job ids
  std::vector<int64_t> given_ids_;  // association ids the caller gave, to check
  std::unordered_map<int64_t, JobState> job_state_;
  std::unordered_map<std::string, uint32_t> name_idx_;  // user \0 account \0 partition -> name_rows_ index
  std::vector<const Charge*> name_rows_;
  std::vector<int64_t> name_assoc_;     // per name_rows_ row: its association, 0: none
  std::vector<uint32_t> charge_name_;   // per charge: its name_rows_ row, kNoName: not looked up by name
  std::vector<uint32_t> name_miss_;     // name_rows_ rows the cache does not hold, to look up
  // The association ids of names looked up (name_key -> id; never a missing
  // one), good while the store is as name_cache_token_ says: any write since
  // by anyone (another host, mfprio-acct, this Store's other writes) changes
  // the token and the next charge transaction empties the cache.
  std::unordered_map<std::string, int64_t> name_cache_;
  StoreToken name_cache_token_;
  StoreToken txn_token_;  // read at the start of the current charge transaction
  std::vector<AssocSum> assoc_sums_;
  std::unordered_map<int64_t, uint32_t> assoc_idx_;
  std::vector<TresSum> tres_sums_;
  std::vector<std::string> journal_tres_;  // per assoc_sums_ row: its TRES amounts packed (write_journal)
  std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> tres_idx_;
  // The windowed charge path's buffers, kept across calls likewise.
  std::unordered_map<int64_t, WinJob> win_state_;
  std::vector<WinLedgerRow> win_ledger_buf_;
  std::vector<uint32_t> win_owner_;  // per charge: its owner's NameBatch row, kNoName: no owner
  NameBatch names_;  // a batch's association names (store_batch.hpp); the windowed path's owners
  std::string win_key_;
  std::unordered_map<std::string, uint32_t> win_cred_idx_;  // kind \0 name -> win_creds_ index
  std::vector<std::pair<const std::string*, const std::string*>> win_creds_;  // (kind, name), in the charges
  std::vector<WinRow> win_rows_;
  std::unordered_map<std::pair<int64_t, int64_t>, uint32_t, PairHash> win_row_idx_;  // (cred, start) -> win_rows_

  // load / ledger
  sql::Stmt st_tree_accounts_, st_tree_users_, st_tree_user_order_, st_tree_assoc_bound_,
      st_tree_assocs_, st_cache_present_, st_cache_usage_, st_cache_reserve_, st_cache_clear_,
      st_cache_get_, st_cache_put_, st_cache_lock_, st_load_tres_usage_, st_load_qos_, st_load_parts_, st_load_tres_, st_load_decay_,
      st_open_ledger_, st_data_version_, st_scale_get_, st_scale_token_, st_scale_put_, st_journal_put_,
      st_journal_fold_assoc_, st_journal_fold_tres_, st_journal_clear_, st_journal_sum_,
      st_journal_sum_tres_, st_journal_tres_, st_load_tres_ids_, st_journal_drop_assoc_, st_journal_any_, st_load_queues_, st_load_assoc_queues_;
  // cycle
  sql::Stmt st_reset_assoc_, st_reset_tres_, st_decay_assoc_, st_decay_tres_, st_decay_state_, st_tres_id_,
      st_tres_insert_, st_is_admin_, st_assoc_exists_;
  // the charge path's list statements (sql::ListStmt: one text per power-of-two row count)
  // (PostgreSQL: the last argument, one statement over arrays whatever the row count)
  sql::ListStmt ls_ledger_get_{"SELECT job_id, charged_until, assoc_id FROM ledger WHERE job_id IN (", "?", ")", 1,
                               "SELECT job_id, charged_until, assoc_id FROM ledger WHERE job_id = ANY(?1::bigint[])"};
  // PostgreSQL: the same rows (first column 0) with the decay scale and the
  // change counter (one row, first column 1): a charge transaction's first
  // statement (store_charge.cpp: scale_and_token).  SQLite runs the two apart.
  sql::ListStmt ls_ledger_token_{"SELECT 0, job_id, charged_until, assoc_id, 0.0 FROM ledger WHERE job_id IN (", "?", ")",
                                 1,
                                 "SELECT 0, job_id, charged_until, assoc_id, NULL::float8 FROM ledger"
                                 " WHERE job_id = ANY(?1::bigint[]) UNION ALL SELECT 1, m.changes, 0, 0, d.scale"
                                 " FROM decay_state d, store_meta m WHERE d.id = 1 AND m.id = 1"};
  sql::ListStmt ls_assoc_exists_{"SELECT id FROM assocs WHERE id IN (", "?", ")", 1,
                                 "SELECT id FROM assocs WHERE id = ANY(?1::bigint[])"};
  // (a subquery per row: index look-ups whatever the planner thinks of the list's size; a join
  // of the unnest with users, accounts and assocs was planned as hash joins over whole tables:
  // 9 ms for 100 names of a 2*10^4 store instead of 0.7)
  sql::ListStmt ls_assoc_by_name_{
      "SELECT v.column1, (SELECT a.id FROM users u JOIN assocs a ON a.user_id = u.id"
      " JOIN accounts c ON c.id = a.account_id"
      " WHERE u.name = v.column2 AND c.name = v.column3 AND a.partition = v.column4) FROM (VALUES ",
      "(CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT))", ") AS v WHERE v.column1 IS NOT NULL",
      4,
      "SELECT v.k, (SELECT a.id FROM users u JOIN assocs a ON a.user_id = u.id JOIN accounts c ON c.id = a.account_id"
      " WHERE u.name = v.u AND c.name = v.c AND a.partition = v.p)"
      " FROM unnest(?1::bigint[], ?2::text[], ?3::text[], ?4::text[]) AS v(k, u, c, p)"};
  sql::ListStmt ls_charge_assoc_{
      "UPDATE assocs SET raw_usage = raw_usage + v.column2 FROM (VALUES ",
      "(CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION))", ") AS v WHERE assocs.id = v.column1", 2,
      "UPDATE assocs SET raw_usage = raw_usage + v.a FROM unnest(?1::bigint[], ?2::float8[]) AS v(id, a)"
      " WHERE assocs.id = v.id"};
  sql::ListStmt ls_charge_tres_{
      "INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage) SELECT column1, column2, column3 FROM (VALUES ",
      "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION))",
      ") AS v WHERE column1 IS NOT NULL"
      " ON CONFLICT(assoc_id, tres_id) DO UPDATE SET usage = assoc_tres_usage.usage + excluded.usage", 3,
      "INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage) SELECT * FROM unnest(?1::bigint[], ?2::bigint[],"
      " ?3::float8[]) ON CONFLICT(assoc_id, tres_id) DO UPDATE SET usage = assoc_tres_usage.usage + excluded.usage"};
  // (schema 10: one row per association, its TRES amounts packed: pack_tres)
  sql::ListStmt ls_journal_put_{
      "INSERT INTO charge_journal(assoc_id, amount, tres) SELECT column1, column2, column3 FROM (VALUES ",
      "(CAST(? AS BIGINT), CAST(? AS DOUBLE PRECISION), CAST(? AS TEXT))", ") AS v WHERE column1 IS NOT NULL", 3,
      "INSERT INTO charge_journal(assoc_id, amount, tres) SELECT * FROM unnest(?1::bigint[], ?2::float8[],"
      " ?3::text[])"};
  // The ledger rows of jobs new to it, then those of jobs in it: on SQLite
  // the same upsert; on PostgreSQL a plain INSERT (no speculative insertion:
  // the batch read these jobs' rows under the cluster's write lock, so a new
  // job has none) and an UPDATE.
  static constexpr const char* kLedgerHead =
      "INSERT INTO ledger(job_id, assoc_id, charged_until, ended) SELECT column1, column2, column3, column4"
      " FROM (VALUES ";
  static constexpr const char* kLedgerRow =
      "(CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))";
  static constexpr const char* kLedgerTail =
      ") AS v WHERE column1 IS NOT NULL ON CONFLICT(job_id) DO UPDATE SET"
      " charged_until = CASE WHEN excluded.charged_until > ledger.charged_until"
      "  THEN excluded.charged_until ELSE ledger.charged_until END,"
      " ended = CASE WHEN excluded.ended > ledger.ended THEN excluded.ended ELSE ledger.ended END";
  sql::ListStmt ls_ledger_update_{
      kLedgerHead, kLedgerRow, kLedgerTail, 4,
      "UPDATE ledger SET charged_until = GREATEST(ledger.charged_until, v.u), ended = GREATEST(ledger.ended, v.e)"
      " FROM unnest(?1::bigint[], ?2::bigint[], ?3::bigint[], ?4::bigint[]) AS v(j, a, u, e)"
      " WHERE ledger.job_id = v.j"};
  sql::ListStmt ls_ledger_put_{
      kLedgerHead, kLedgerRow, kLedgerTail, 4,
      "INSERT INTO ledger(job_id, assoc_id, charged_until, ended) SELECT * FROM unnest(?1::bigint[], ?2::bigint[],"
      " ?3::bigint[], ?4::bigint[])"};
  // admin
  sql::Stmt st_del_assoc_, st_del_user_, st_del_account_, st_del_qos_, st_del_part_,
      st_up_account_, st_link_account_, st_up_user_, st_ensure_user_, st_up_assoc_,
      st_clear_assoc_tres_, st_set_assoc_tres_, st_user_default_, st_up_qos_, st_up_part_,
      st_clear_default_part_, st_del_queue_, st_up_queue_, st_clear_assoc_queues_, st_add_assoc_queue_;
  // windowed usage (store_windows.cpp)
  sql::Stmt st_win_load_, st_win_decay_, st_win_drop_, st_win_set_, st_win_state_get_, st_win_decay_kind_;
  // (the window_ledger rows of a batch's jobs: a subquery per row, an index look-up each)
  sql::ListStmt ls_win_ledger_get_{
      "SELECT v.column1, (SELECT w.charged_until FROM window_ledger w WHERE w.family = v.column2"
      " AND w.job_id = v.column1) FROM (VALUES ",
      "(CAST(? AS BIGINT), CAST(? AS TEXT))", ") AS v WHERE v.column1 IS NOT NULL", 2};
  sql::ListStmt ls_win_add_{
      "INSERT INTO usage_windows(family, kind, name, start, seconds, usage)"
      " SELECT column1, column2, column3, column4, column5, column6 FROM (VALUES ",
      "(CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT),"
      " CAST(? AS DOUBLE PRECISION))",
      ") AS v WHERE column1 IS NOT NULL ON CONFLICT(family, kind, name, start, seconds)"
      " DO UPDATE SET usage = usage_windows.usage + excluded.usage", 6};
  sql::ListStmt ls_win_ledger_put_{
      "INSERT INTO window_ledger(family, job_id, charged_until, ended) SELECT column1, column2, column3, column4"
      " FROM (VALUES ",
      "(CAST(? AS TEXT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT))",
      ") AS v WHERE column1 IS NOT NULL ON CONFLICT(family, job_id) DO UPDATE SET"
      " charged_until = CASE WHEN excluded.charged_until > window_ledger.charged_until"
      "  THEN excluded.charged_until ELSE window_ledger.charged_until END,"
      " ended = CASE WHEN excluded.ended > window_ledger.ended THEN excluded.ended ELSE window_ledger.ended END", 4};
  // ticket objects (Grid Engine)
  sql::Stmt st_load_tickets_, st_load_ge_usage_, st_up_ticket_, st_del_ticket_;
  // settings (schema 8); Grid Engine's automatic user ticket objects
  sql::Stmt st_load_settings_, st_up_setting_, st_del_setting_, st_get_setting_, st_user_exists_, st_auto_ticket_;
};

}  // namespace mfprio::acct::detail
