// store.cpp - Store::open, load, open_ledger, apply_cycle, may_write.
//
// Call order: open() (creates the file 0600, pragmas, migrate) -> load() /
// apply_cycle() / apply_admin() (store_admin.cpp) any number of times.
// Invariants:
//   - Statements are prepared once per Store (lazily, on first use) and reused;
//     a StmtUse guard resets each one after use, even on error.
//   - apply_cycle is one IMMEDIATE transaction: any failure rolls it all back.
//   - Usage lives only on user associations; decay is one UPDATE per table.
#include "store_impl.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

#include "store_schema.hpp"

namespace mfprio::acct {

namespace detail {

sql::Stmt& StoreImpl::prep(sql::Stmt& slot, const char* text) {
  if (!slot) slot = sql::Stmt(db_.get(), text);
  return slot;
}

void StoreImpl::row_written() {
  // Crash-test hook (see store.hpp): die inside the open transaction.
  if (kill_after_rows_ > 0 && ++rows_written_ >= kill_after_rows_) raise(SIGKILL);
}

StoreImpl::StoreImpl(const std::string& path, const OpenOptions& opts) : path_(path) {
#ifdef MFPRIO_TEST_HOOKS  // test builds only (tests/acct): never in the shipped store
  if (const char* k = std::getenv("MFPRIO_ACCT_KILL_AFTER_ROWS")) kill_after_rows_ = std::atol(k);
#endif
  read_only_ = opts.read_only;
  if (!opts.read_only && opts.create) {
    // Create the file ourselves so its mode is 0600 whatever the umask or
    // SQLite's defaults: the store holds every user's usage and admin flags.
    // O_EXCL never follows a symlink; O_NOFOLLOW says so for the check below.
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
      ::close(fd);
    } else if (errno != EEXIST) {
      throw StoreError(path + ": cannot create: " + std::strerror(errno));
    }
  }
  // Never through a symlink: a link planted at the store path would make us
  // write a store (and every user's usage) wherever it points.
  struct stat sb;
  if (::lstat(path.c_str(), &sb) != 0)
    throw StoreError(path + ": cannot open: " + std::strerror(errno));
  if (S_ISLNK(sb.st_mode)) throw StoreError(path + ": is a symbolic link: refused (give the real path)");
  if (!S_ISREG(sb.st_mode)) throw StoreError(path + ": not a regular file");
  int flags = (opts.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) |
              SQLITE_OPEN_NOMUTEX;
  sqlite3* raw = nullptr;
  int rc = sqlite3_open_v2(path.c_str(), &raw, flags, nullptr);
  db_.reset(raw);
  if (rc != SQLITE_OK) {
    std::string msg = raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    throw StoreError(path + ": cannot open: " + msg);
  }
  sqlite3_extended_result_codes(db_.get(), 1);
  // Concurrent CLI writes and the plugin's cycle may meet: wait, don't fail.
  sqlite3_busy_timeout(db_.get(), 10000);
  if (!opts.read_only && sqlite3_db_readonly(db_.get(), "main") == 1)
    throw StoreError(path + ": cannot open for writing: permission denied");
  sql::exec(db_.get(), "PRAGMA foreign_keys = ON");
  if (!opts.read_only) {
    sql::exec(db_.get(), "PRAGMA journal_mode = WAL");
    // FULL: in WAL mode every commit fsyncs the WAL before COMMIT returns, so
    // a transaction that returned is on disk and survives a power loss or an
    // OS crash, not only a killed process (NORMAL would fsync only at
    // checkpoints).  README "Durability".
    sql::exec(db_.get(), "PRAGMA synchronous = FULL");
  }
  // A 10^5-association store is ~15 MB: keep it in the page cache (64 MiB
  // at most) so load and decay do not re-read it; sorts stay in memory.
  sql::exec(db_.get(), "PRAGMA cache_size = -65536");
  sql::exec(db_.get(), "PRAGMA temp_store = MEMORY");
  version_ = migrate(db_.get(), opts.read_only);
}

double StoreImpl::usage_scale() {
  sql::StmtUse st(prep(st_scale_get_, "SELECT scale FROM decay_state WHERE id = 1"));
  return st->step() ? st->real(0) : 1.0;
}

StoreData StoreImpl::load(const LoadOptions& opts) {
  StoreData d;
  sql::Txn txn(db_.get(), /*write=*/false);  // one consistent snapshot
  changed_by_others();  // what we load now is the baseline
  const double scale = usage_scale();

  {
    sql::StmtUse st(prep(st_load_accounts_,
        "SELECT a.id, a.name, COALESCE(p.name, ''), a.shares, a.shares_parent, a.priority,"
        " a.description FROM accounts a LEFT JOIN accounts p ON p.id = a.parent_id"
        " ORDER BY a.name"));
    std::vector<AccountRec> by_name;
    while (st->step()) {
      AccountRec a;
      a.id = st->i64(0);
      a.name = st->text(1);
      a.parent = st->text(2);
      a.shares = static_cast<uint32_t>(st->i64(3));
      a.shares_parent = st->i64(4) != 0;
      a.priority = static_cast<uint32_t>(st->i64(5));
      a.description = st->text(6);
      by_name.push_back(std::move(a));
    }
    // Breadth-first from root, siblings by name (by_name is sorted, so each
    // child list is too): parents always precede their children.
    std::unordered_map<std::string, std::vector<size_t>> kids;
    size_t root = by_name.size();
    for (size_t i = 0; i < by_name.size(); ++i) {
      if (by_name[i].parent.empty())
        root = i;
      else
        kids[by_name[i].parent].push_back(i);
    }
    if (root == by_name.size()) throw StoreError(path_ + ": corrupt store: no root account");
    d.accounts.reserve(by_name.size());
    std::vector<size_t> queue{root};
    for (size_t q = 0; q < queue.size(); ++q) {
      AccountRec& a = by_name[queue[q]];
      auto it = kids.find(a.name);
      if (it != kids.end()) queue.insert(queue.end(), it->second.begin(), it->second.end());
      d.accounts.push_back(std::move(a));
    }
    if (d.accounts.size() != by_name.size())
      throw StoreError(path_ + ": corrupt store: accounts not reachable from root");
  }

  // Users first, in name order (ORDER BY walks the UNIQUE(name) index, no
  // sort): their rank orders the associations without string compares.
  struct UserKey {
    uint32_t rank;
    int64_t default_account_id;
  };
  std::unordered_map<int64_t, UserKey> user_by_id;
  {
    sql::StmtUse st(prep(st_load_users_,
        "SELECT u.id, u.name, COALESCE(a.name, ''), u.admin, COALESCE(u.default_account_id, 0)"
        " FROM users u LEFT JOIN accounts a ON a.id = u.default_account_id ORDER BY u.name"));
    while (st->step()) {
      user_by_id.emplace(st->i64(0), UserKey{static_cast<uint32_t>(d.users.size()), st->i64(4)});
      d.users.push_back(UserRec{st->text(1), st->text(2), st->i64(3) != 0});
    }
  }
  std::unordered_map<int64_t, uint32_t> account_by_id;  // id -> index in d.accounts
  account_by_id.reserve(d.accounts.size());
  for (uint32_t i = 0; i < d.accounts.size(); ++i) account_by_id.emplace(d.accounts[i].id, i);
  {
    sql::StmtUse st(prep(st_count_assocs_, "SELECT count(*) FROM assocs"));
    if (st->step()) d.assocs.reserve(static_cast<size_t>(st->i64(0)));
  }
  {
    // A plain table scan: names come from the users and accounts read above.
    sql::StmtUse st(prep(st_load_assocs_,
        "SELECT id, user_id, account_id, partition, shares, shares_parent, priority, raw_usage,"
        " usage_time FROM assocs"));
    struct SortKey {
      uint32_t user_rank, account;
    };
    std::vector<SortKey> keys;
    keys.reserve(d.assocs.capacity());
    while (st->step()) {
      auto u = user_by_id.find(st->i64(1));
      auto a = account_by_id.find(st->i64(2));
      if (u == user_by_id.end() || a == account_by_id.end())  // foreign keys forbid it
        throw StoreError(path_ + ": corrupt store: association " + std::to_string(st->i64(0)) +
                         " names a missing user or account");
      UserAssocRec r;
      r.id = st->i64(0);
      r.user = d.users[u->second.rank].name;
      r.account = d.accounts[a->second].name;
      r.partition = st->text(3);
      r.shares = static_cast<uint32_t>(st->i64(4));
      r.shares_parent = st->i64(5) != 0;
      r.priority = static_cast<uint32_t>(st->i64(6));
      r.raw_usage = st->real(7) * scale;
      r.usage_time = st->i64(8);
      r.is_default = u->second.default_account_id == st->i64(2);
      keys.push_back(SortKey{u->second.rank, a->second});
      d.assocs.push_back(std::move(r));
    }
    // Order by user, account, partition: ranks first, names only on ties;
    // sorting a permutation moves 4-byte indices instead of whole records.
    std::vector<uint32_t> order(d.assocs.size());
    for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](uint32_t xi, uint32_t yi) {
      if (keys[xi].user_rank != keys[yi].user_rank) return keys[xi].user_rank < keys[yi].user_rank;
      const UserAssocRec& x = d.assocs[xi];
      const UserAssocRec& y = d.assocs[yi];
      int c = keys[xi].account == keys[yi].account ? 0 : x.account.compare(y.account);
      if (c == 0) c = x.partition.compare(y.partition);
      return c < 0;
    });
    std::vector<UserAssocRec> sorted;
    sorted.reserve(d.assocs.size());
    for (uint32_t i : order) sorted.push_back(std::move(d.assocs[i]));
    d.assocs = std::move(sorted);
  }
  std::unordered_map<int64_t, size_t> assoc_index;  // id -> index, only when needed
  auto index_of = [&](int64_t id) -> UserAssocRec* {
    if (assoc_index.empty())
      for (size_t i = 0; i < d.assocs.size(); ++i) assoc_index.emplace(d.assocs[i].id, i);
    auto it = assoc_index.find(id);
    return it == assoc_index.end() ? nullptr : &d.assocs[it->second];
  };
  {
    // Journalled job-end charges not yet folded into the rows count too.
    sql::StmtUse st(prep(st_journal_sum_,
        "SELECT assoc_id, sum(amount) FROM charge_journal WHERE tres_id IS NULL GROUP BY assoc_id"));
    while (st->step())
      if (UserAssocRec* r = index_of(st->i64(0))) r->raw_usage += st->real(1) * scale;
  }
  if (opts.tres_usage) {
    {
      sql::StmtUse st(prep(st_load_tres_usage_,
          "SELECT t.assoc_id, r.name, t.usage FROM assoc_tres_usage t JOIN tres r ON r.id = t.tres_id"));
      while (st->step())
        if (UserAssocRec* r = index_of(st->i64(0)))  // the FK makes a miss unreachable
          r->tres_usage.emplace_back(st->text(1), st->real(2) * scale);
    }
    sql::StmtUse st(prep(st_journal_sum_tres_,
        "SELECT j.assoc_id, r.name, sum(j.amount) FROM charge_journal j JOIN tres r ON r.id = j.tres_id"
        " GROUP BY j.assoc_id, j.tres_id"));
    while (st->step()) {
      UserAssocRec* r = index_of(st->i64(0));
      if (!r) continue;
      const std::string name = st->text(1);
      auto it = std::find_if(r->tres_usage.begin(), r->tres_usage.end(),
                             [&](const auto& e) { return e.first == name; });
      if (it == r->tres_usage.end()) r->tres_usage.emplace_back(name, st->real(2) * scale);
      else it->second += st->real(2) * scale;
    }
    for (UserAssocRec& a : d.assocs)
      if (a.tres_usage.size() > 1) std::sort(a.tres_usage.begin(), a.tres_usage.end());
  }
  {
    sql::StmtUse st(prep(st_load_qos_,
        "SELECT id, name, priority, usage_factor FROM qos ORDER BY name"));
    while (st->step())
      d.qos.push_back(QosRec{st->i64(0), st->text(1), static_cast<uint32_t>(st->i64(2)),
                             st->real(3)});
  }
  {
    sql::StmtUse st(prep(st_load_parts_,
        "SELECT id, name, job_factor, billing_weights, tres_totals, is_default"
        " FROM partitions ORDER BY name"));
    while (st->step())
      d.partitions.push_back(PartitionRec{st->i64(0), st->text(1),
                                          static_cast<uint32_t>(st->i64(2)), st->text(3),
                                          st->text(4), st->i64(5) != 0});
  }
  {
    sql::StmtUse st(prep(st_load_queues_, "SELECT name, priority FROM queues ORDER BY name"));
    while (st->step()) d.queues.push_back(QueueRec{st->text(0), st->i64(1)});
  }
  {
    // Permitted queues, by name within each association (the primary key's order).
    sql::StmtUse st(prep(st_load_assoc_queues_, "SELECT assoc_id, queue FROM assoc_queues ORDER BY assoc_id, queue"));
    while (st->step())
      if (UserAssocRec* r = index_of(st->i64(0))) r->queues.push_back(st->text(1));
  }
  {
    sql::StmtUse st(prep(st_load_tres_, "SELECT name FROM tres ORDER BY id"));
    while (st->step()) d.tres.push_back(st->text(0));
  }
  {
    sql::StmtUse st(prep(st_load_tickets_,
        "SELECT kind, name, fshare, oticket FROM ticket_objects ORDER BY kind, name"));
    while (st->step())
      d.ticket_objects.push_back(TicketObjectRec{st->text(0), st->text(1), static_cast<uint32_t>(st->i64(2)),
                                                 static_cast<uint32_t>(st->i64(3))});
  }
  if (opts.tres_usage) {
    sql::StmtUse st(prep(st_load_ge_usage_,
        "SELECT kind, name, start, seconds, usage FROM usage_windows WHERE family = 'gridengine'"
        " AND kind IN ('cpu', 'mem', 'io') AND seconds = 0 ORDER BY name, kind"));
    while (st->step())
      d.gridengine_usage.push_back(WindowRow{st->text(0), st->text(1), st->i64(2), st->i64(3), st->real(4)});
  }
  {
    sql::StmtUse st(prep(st_load_decay_,
        "SELECT last_decay, last_reset FROM decay_state WHERE id = 1"));
    if (st->step()) d.decay = DecayState{st->i64(0), st->i64(1)};
  }
  txn.commit();
  return d;
}

std::vector<LedgerRec> StoreImpl::open_ledger() {
  std::vector<LedgerRec> out;
  sql::StmtUse st(prep(st_open_ledger_,
      "SELECT job_id, assoc_id, charged_until, ended FROM ledger WHERE ended = 0 ORDER BY job_id"));
  while (st->step())
    out.push_back(LedgerRec{static_cast<uint64_t>(st->i64(0)), st->i64(1), st->i64(2),
                            st->i64(3) != 0});
  return out;
}

int64_t StoreImpl::tres_id(const std::string& name) {
  auto cached = tres_ids_.find(name);
  if (cached != tres_ids_.end()) return cached->second;
  const int64_t id = tres_id_lookup(name);
  tres_ids_.emplace(name, id);
  return id;
}

int64_t StoreImpl::tres_id_lookup(const std::string& name) {
  {
    sql::StmtUse st(prep(st_tres_id_, "SELECT id FROM tres WHERE name = ?1"));
    st->bind(1, name);
    if (st->step()) return st->i64(0);
  }
  sql::StmtUse ins(prep(st_tres_insert_, "INSERT INTO tres(name) VALUES (?1) RETURNING id"));
  ins->bind(1, name);
  if (!ins->step()) sql::fail(db_.get(), "insert tres \"" + name + "\"");
  return ins->i64(0);
}

void StoreImpl::fold_journal() {
  {
    sql::StmtUse any(prep(st_journal_any_, "SELECT EXISTS (SELECT 1 FROM charge_journal)"));
    if (!any->step() || any->i64(0) == 0) return;  // the usual case: nothing journalled
  }
  sql::StmtUse a(prep(st_journal_fold_assoc_,
      "UPDATE assocs SET raw_usage = raw_usage + j.s FROM"
      " (SELECT assoc_id, sum(amount) AS s FROM charge_journal WHERE tres_id IS NULL"
      "  GROUP BY assoc_id) AS j WHERE assocs.id = j.assoc_id"));
  a->run();
  sql::StmtUse t(prep(st_journal_fold_tres_,
      "INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage)"
      " SELECT assoc_id, tres_id, sum(amount) FROM charge_journal WHERE tres_id IS NOT NULL"
      " GROUP BY assoc_id, tres_id"
      " ON CONFLICT(assoc_id, tres_id) DO UPDATE SET usage = usage + excluded.usage"));
  t->run();
  sql::StmtUse c(prep(st_journal_clear_, "DELETE FROM charge_journal"));
  c->run();
}

// Buffered rows go out in multi-row INSERTs of 32, 16, 8, 4, 2 and 1 rows,
// each statement prepared once: a job end writes 3-5 journal rows and one
// ledger row, and one statement per row made the statement overhead (step,
// halt, reset) most of a charge's cost.  Same rows, same order, same
// transaction as row-by-row writes.
constexpr size_t kMaxRowsPerInsert = 32;

namespace {
std::string multi_row_sql(const char* head, const char* row, size_t rows, const char* tail) {
  std::string sql = head;
  for (size_t i = 0; i < rows; ++i) {
    sql += i ? "," : " VALUES ";
    sql += row;
  }
  return sql + tail;
}
}  // namespace

void StoreImpl::flush_journal() {
  size_t done = 0;
  while (done < journal_buf_.size()) {
    int k = 5;
    while ((size_t{1} << k) > journal_buf_.size() - done) --k;
    const size_t rows = size_t{1} << k;
    sql::Stmt& slot = st_journal_rows_[k];
    if (!slot)
      slot = sql::Stmt(db_.get(), multi_row_sql("INSERT INTO charge_journal(assoc_id, tres_id, amount)",
                                                "(?, ?, ?)", rows, ""));
    sql::StmtUse st(slot);
    for (size_t i = 0; i < rows; ++i) {
      const JournalRow& r = journal_buf_[done + i];
      const int p = static_cast<int>(3 * i);
      st->bind(p + 1, r.assoc_id);
      if (r.tres_id) st->bind(p + 2, r.tres_id);
      else st->bind_null(p + 2);
      st->bind(p + 3, r.amount);
    }
    st->run();
    done += rows;
  }
  journal_buf_.clear();
}

void StoreImpl::flush_ledger() {
  size_t done = 0;
  while (done < ledger_buf_.size()) {
    int k = 5;
    while ((size_t{1} << k) > ledger_buf_.size() - done) --k;
    const size_t rows = size_t{1} << k;
    sql::Stmt& slot = st_ledger_rows_[k];
    if (!slot)
      slot = sql::Stmt(db_.get(),
                       multi_row_sql("INSERT INTO ledger(job_id, assoc_id, charged_until, ended)", "(?, ?, ?, ?)",
                                     rows,
                                     " ON CONFLICT(job_id) DO UPDATE SET"
                                     " charged_until = max(charged_until, excluded.charged_until),"
                                     " ended = max(ended, excluded.ended)"));
    sql::StmtUse st(slot);
    for (size_t i = 0; i < rows; ++i) {
      const LedgerRow& r = ledger_buf_[done + i];
      const int p = static_cast<int>(4 * i);
      st->bind(p + 1, r.job_id).bind(p + 2, r.assoc_id).bind(p + 3, r.until).bind(p + 4, r.ended);
    }
    st->run();
    done += rows;
  }
  ledger_buf_.clear();
}

// Usage is stored as value / scale (decay_state.scale): a decay pass only
// multiplies the scale, so it touches one row whatever the store's size.
// When the scale gets tiny the rows are rewritten with the scale folded in.
constexpr double kRenormalizeBelow = 1e-100;

CycleResult StoreImpl::apply_cycle(const CycleUpdate& up) {
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  if (!(up.decay_factor >= 0.0 && up.decay_factor <= 1.0))
    throw StoreError(path_ + ": decay factor " + std::to_string(up.decay_factor) +
                     " is outside [0, 1]");
  if (up.defer_usage && (up.reset || up.decay_factor != 1.0))
    throw StoreError(path_ + ": a deferred cycle cannot reset or decay usage");
  try {
    return apply_cycle_txn(up);
  } catch (...) {
    tres_ids_.clear();  // a rolled-back insert may have cached an id that no longer exists
    journal_buf_.clear();  // rolled back with the transaction
    ledger_buf_.clear();
    throw;
  }
}

CycleResult StoreImpl::apply_cycle_txn(const CycleUpdate& up) {
  journal_buf_.clear();
  ledger_buf_.clear();
  CycleResult res;
  res.added.reserve(up.charges.size());
  sql::Txn txn(db_.get());
  const double old_scale = usage_scale();
  double scale = old_scale;
  // Journalled charges join the rows before any reset or decay touches them.
  if (!up.defer_usage) fold_journal();
  if (up.reset || up.decay_factor == 0.0) {
    sql::StmtUse a(prep(st_reset_assoc_, "UPDATE assocs SET raw_usage = 0"));
    a->run();
    sql::StmtUse t(prep(st_reset_tres_, "UPDATE assoc_tres_usage SET usage = 0"));
    t->run();
    scale = 1.0;
  } else if (up.decay_factor != 1.0) {
    scale *= up.decay_factor;
    if (scale < kRenormalizeBelow) {
      sql::StmtUse a(prep(st_decay_assoc_, "UPDATE assocs SET raw_usage = raw_usage * ?1"));
      a->bind(1, scale).run();
      sql::StmtUse t(prep(st_decay_tres_, "UPDATE assoc_tres_usage SET usage = usage * ?1"));
      t->bind(1, scale).run();
      scale = 1.0;
    }
  }
  const double inv_scale = 1.0 / scale;
  for (const Charge& c : up.charges) {
    if (!(c.rate >= 0.0) || c.rate > 1e15)
      throw StoreError(path_ + ": job " + std::to_string(c.job_id) + ": bad rate " +
                       std::to_string(c.rate));
    // until - start must not overflow: times run from 1970 to year 9999.
    if (c.start_time < 0 || c.until < 0 || c.start_time > kMaxChargeTime || c.until > kMaxChargeTime)
      throw StoreError(path_ + ": job " + std::to_string(c.job_id) + ": charge time before 1970 or after 9999");
    int64_t from = c.start_time;
    int64_t ledger_assoc = c.assoc_id;
    // A ledger row of this job still in the buffer is written first, so the
    // read below sees it (the same job charged twice in one cycle).
    for (const LedgerRow& l : ledger_buf_)
      if (l.job_id == static_cast<int64_t>(c.job_id)) {
        flush_ledger();
        break;
      }
    {
      sql::StmtUse st(prep(st_ledger_get_,
          "SELECT charged_until, assoc_id FROM ledger WHERE job_id = ?1"));
      st->bind(1, static_cast<int64_t>(c.job_id));
      if (st->step()) {
        from = std::max(from, st->i64(0));
        // A job stays on the association it was first charged to.
        ledger_assoc = st->i64(1);
      }
    }
    double added = 0;
    int64_t secs = c.until - from;
    if (secs > 0) {
      added = static_cast<double>(secs) * c.rate;
      if (up.defer_usage) {
        // Appends only (buffered, written many rows a statement); the
        // foreign key still rejects an unknown association.
        journal_buf_.push_back(JournalRow{ledger_assoc, 0, added * inv_scale});
        for (const auto& [name, per_sec] : c.tres) {
          if (per_sec == 0.0) continue;
          journal_buf_.push_back(JournalRow{ledger_assoc, tres_id(name), static_cast<double>(secs) * per_sec * inv_scale});
        }
        if (journal_buf_.size() >= kMaxRowsPerInsert) flush_journal();
      } else {
        sql::StmtUse st(prep(st_charge_assoc_,
            "UPDATE assocs SET raw_usage = raw_usage + ?1 WHERE id = ?2"));
        st->bind(1, added * inv_scale).bind(2, ledger_assoc).run();
        if (sqlite3_changes(db_.get()) != 1)
          throw StoreError(path_ + ": job " + std::to_string(c.job_id) +
                           ": unknown association id " + std::to_string(ledger_assoc));
        for (const auto& [name, per_sec] : c.tres) {
          if (per_sec == 0.0) continue;  // nothing to add: skip the row write
          const int64_t tid = tres_id(name);
          sql::StmtUse t(prep(st_charge_tres_,
              "INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage) VALUES (?1, ?2, ?3)"
              " ON CONFLICT(assoc_id, tres_id) DO UPDATE SET usage = usage + excluded.usage"));
          t->bind(1, ledger_assoc).bind(2, tid).bind(3, static_cast<double>(secs) * per_sec * inv_scale);
          t->run();
        }
      }
    }
    // The ledger row's foreign key rejects an unknown association even when
    // nothing was due (a zero-length first charge): buffered, written many
    // rows a statement before the commit.
    ledger_buf_.push_back(LedgerRow{static_cast<int64_t>(c.job_id), ledger_assoc, c.until, c.ended});
    if (ledger_buf_.size() >= kMaxRowsPerInsert) flush_ledger();
    res.added.push_back(added);
    res.assoc_ids.push_back(ledger_assoc);
    row_written();
  }
  flush_journal();
  flush_ledger();
  if (scale != old_scale) {
    sql::StmtUse st(prep(st_scale_put_, "UPDATE decay_state SET scale = ?1 WHERE id = 1"));
    st->bind(1, scale).run();
  }
  if (up.new_state) {
    sql::StmtUse st(prep(st_decay_state_,
        "UPDATE decay_state SET last_decay = ?1, last_reset = ?2 WHERE id = 1"));
    st->bind(1, up.new_state->last_decay).bind(2, up.new_state->last_reset).run();
  }
  txn.commit();
  return res;
}

bool StoreImpl::may_write(uint32_t uid) {
  if (uid == 0) return true;  // root can rewrite the file anyway
  struct stat sb;
  if (::stat(path_.c_str(), &sb) == 0 && sb.st_uid == uid) return true;
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) != 0 || !found) return false;
  sql::StmtUse st(prep(st_is_admin_, "SELECT admin FROM users WHERE name = ?1"));
  st->bind(1, found->pw_name);
  return st->step() && st->i64(0) != 0;
}

}  // namespace detail

std::unique_ptr<Store> Store::open(const std::string& path) { return open(path, OpenOptions{}); }

std::unique_ptr<Store> Store::open(const std::string& path, const OpenOptions& opts) {
  return std::make_unique<detail::StoreImpl>(path, opts);
}

}  // namespace mfprio::acct

namespace mfprio::acct::detail {
// PRAGMA data_version changes when another connection commits to the file;
// our own commits leave it alone, so this sees exactly the admin's edits.
bool StoreImpl::changed_by_others() {
  sql::StmtUse st(prep(st_data_version_, "PRAGMA data_version"));
  const int64_t v = st->step() ? st->i64(0) : 0;
  const bool changed = seen_data_version_ >= 0 && v != seen_data_version_;
  seen_data_version_ = v;
  return changed;
}
}  // namespace mfprio::acct::detail
