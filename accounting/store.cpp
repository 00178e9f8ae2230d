// store.cpp - Store::open, load, open_ledger, may_write (apply_cycle: store_charge.cpp).
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
#include <cmath>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <unordered_map>

#include "store_loc.hpp"
#include "store_schema.hpp"

namespace mfprio::acct {

namespace detail {

namespace {
// The advisory-lock key of a cluster's writers: FNV-1a of its schema name.
int64_t lock_key_of(const std::string& schema) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : "mfprio:" + schema) h = (h ^ c) * 1099511628211ull;
  return static_cast<int64_t>(h);
}

constexpr const char* kCacheSize = "PRAGMA cache_size = -65536";

// load_tree reads every row once, in rowid order, at start (and after an
// admin's edit): its pages need not stay in the page cache (they would cost
// ~60 bytes of memory per association for the store's life), so the scan
// goes through a 2 MiB cache, whose pages are given back after it (they
// would otherwise sit beside the layout the caller builds next: 20 bytes per
// association at 10^5), and the cache's normal size is restored.
class CacheForScan {
 public:
  explicit CacheForScan(const sql::Conn& db) : db_(db.lite()) {
    if (db_) sql::exec(db, "PRAGMA cache_size = -2048");  // PostgreSQL: the server's cache
  }
  ~CacheForScan() {
    if (!db_) return;
    sqlite3_db_release_memory(db_);
    sqlite3_exec(db_, kCacheSize, nullptr, nullptr, nullptr);
  }
  CacheForScan(const CacheForScan&) = delete;
  CacheForScan& operator=(const CacheForScan&) = delete;

 private:
  sqlite3* db_;
};

// `path` as an SQLite URI ("file:" + path, '%', '?' and '#' escaped) with
// the query `query`.
std::string uri_of(const std::string& path, const char* query) {
  std::string u = "file:";
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      u += hex;
    } else {
      u += c;
    }
  }
  return u + "?" + query;
}

// A read-only open that works where nothing can be written (a read-only
// file system, a 0444 store in a 0555 directory): mode=ro first; when the
// store is in WAL mode and its -shm index can be neither read nor created
// (SQLite says CANTOPEN or READONLY on the first read), the store is opened
// immutable, which needs no -shm, provided there is no -wal holding
// changes not yet in the store (those could not be read: refused, named).
int open_read_only(const std::string& path, sqlite3** out, std::string* why) {
  const int flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI;
  int rc = sqlite3_open_v2(uri_of(path, "mode=ro").c_str(), out, flags, nullptr);
  if (rc != SQLITE_OK) return rc;
  sqlite3_extended_result_codes(*out, 1);
  rc = sqlite3_exec(*out, "SELECT count(*) FROM sqlite_master", nullptr, nullptr, nullptr);
  const int primary = rc & 0xff;
  if (rc == SQLITE_OK || (primary != SQLITE_CANTOPEN && primary != SQLITE_READONLY)) return SQLITE_OK;
  struct stat wal {};
  if (::stat((path + "-wal").c_str(), &wal) == 0 && wal.st_size > 0) {
    *why = std::string(sqlite3_errmsg(*out)) + " (its -wal holds changes, and the -shm index they need can be " +
           "neither read nor created here: open it once where it can be written)";
    return rc;
  }
  sqlite3_close_v2(*out);
  *out = nullptr;
  return sqlite3_open_v2(uri_of(path, "mode=ro&immutable=1").c_str(), out, flags, nullptr);
}
}  // namespace

sql::Stmt& StoreImpl::prep(sql::Stmt& slot, const char* text) {
  if (!slot) slot = sql::Stmt(db_, text);
  return slot;
}

// The same for a statement whose rows PostgreSQL sends in binary form (the
// load's big reads: no number formatting or parsing on either side).
sql::Stmt& StoreImpl::prep_binary(sql::Stmt& slot, const char* text) {
  if (!slot) slot = sql::Stmt(db_, text);
  return slot.binary_rows();
}

void StoreImpl::row_written() {
  // Crash-test hook (see store.hpp): die inside the open transaction.
  if (kill_after_rows_ > 0 && ++rows_written_ >= kill_after_rows_) raise(SIGKILL);
}

namespace {

// A file that is not empty must start with SQLite's header.  An old
// slurm.conf's AccountingStorageLoc names Slurm's text job log
// (accounting_storage/filetxt); SQLite would only say "file is not a
// database", so say what the file is and what to do, before SQLite opens
// (and never writes) it.
void check_header(const std::string& path, off_t size) {
  if (size == 0) return;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0) return;  // SQLite's open reports it
  char buf[512];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return;
  static const char kHeader[] = "SQLite format 3";  // and its NUL: 16 bytes
  if (n >= 16 && std::memcmp(buf, kHeader, 16) == 0) return;
  bool text = true;
  for (ssize_t i = 0; i < n && text; ++i) {
    const unsigned char c = static_cast<unsigned char>(buf[i]);
    text = c == '\n' || c == '\t' || c == '\r' || (c >= 0x20 && c < 0x7f) || c >= 0x80;
  }
  if (text)
    throw StoreError(path + ": a text file, not an mfprio store (an SQLite database): an old slurm.conf's "
                            "AccountingStorageLoc names Slurm's text job log "
                            "(AccountingStorageType=accounting_storage/filetxt); point AccountingStorageLoc at "
                            "a new file for mfprio's store (or remove it: the default is mfprio.db in "
                            "StateSaveLocation), or give mfprio-acct --db PATH");
  throw StoreError(path + ": not an mfprio store: the file does not start with SQLite's header");
}

}  // namespace

StoreImpl::StoreImpl(const std::string& location, const OpenOptions& opts)
    : path_(store_location_shown(location)) {
#ifdef MFPRIO_TEST_HOOKS  // test builds only (tests/acct): never in the shipped store
  if (const char* k = std::getenv("MFPRIO_ACCT_KILL_AFTER_ROWS")) kill_after_rows_ = std::atol(k);
#endif
  read_only_ = opts.read_only;
  if (is_server_store(location)) open_pg(location, opts);
  else open_sqlite(location, opts);
}

// A PostgreSQL store: the cluster's schema of the database the URI names
// (store.hpp: OpenOptions::cluster); no file, so no mode, symlink or header
// checks: who may do what is the server's grants.
void StoreImpl::open_pg(const std::string& uri, const OpenOptions& opts) {
  const std::string cluster = opts.cluster.empty() ? std::string(kDefaultCluster) : opts.cluster;
  bool ok = !cluster.empty() && cluster.size() <= 48;
  for (char c : cluster) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
  if (!ok)
    throw StoreError(path_ + ": cluster name '" + cluster + "' is not 1 to 48 of a-z, 0-9 and _ (a PostgreSQL "
                     "store keeps each cluster in the schema mfprio_<cluster>)");
  cluster_ = cluster;
  sql::PgSession s;
  s.uri = uri;
  s.shown = path_;
  s.schema = "mfprio_" + cluster;
  s.lock_key = lock_key_of(s.schema);
  s.read_only = opts.read_only;
  db_.set_pg(sql::pg_connect(s), path_);
  version_ = migrate(db_, MigrateOptions{opts.read_only, opts.create, cluster, s.schema});
}

void StoreImpl::open_sqlite(const std::string& path, const OpenOptions& opts) {
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
  check_header(path, sb.st_size);
  sqlite3* raw = nullptr;
  std::string why;
  const int rc = opts.read_only ? open_read_only(path, &raw, &why)
                                : sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX,
                                                  nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = !why.empty() ? why : raw ? sqlite3_errmsg(raw) : sqlite3_errstr(rc);
    if (raw) sqlite3_close_v2(raw);
    throw StoreError(path + ": cannot open: " + msg);
  }
  db_.set_lite(raw, path);
  sqlite3_extended_result_codes(raw, 1);
  // Concurrent CLI writes and the plugin's cycle may meet: wait, don't fail.
  sqlite3_busy_timeout(raw, 10000);
  if (!opts.read_only && sqlite3_db_readonly(raw, "main") == 1)
    throw StoreError(path + ": cannot open for writing: permission denied");
  sql::exec(db_, "PRAGMA foreign_keys = ON");
  if (!opts.read_only && !opts.durable) {
    sql::exec(db_, "PRAGMA locking_mode = EXCLUSIVE");
    sql::exec(db_, "PRAGMA journal_mode = MEMORY");
    sql::exec(db_, "PRAGMA synchronous = OFF");
  } else if (!opts.read_only) {
    sql::exec(db_, "PRAGMA journal_mode = WAL");
    // FULL: in WAL mode every commit fsyncs the WAL before COMMIT returns, so
    // a transaction that returned is on disk and survives a power loss or an
    // OS crash, not only a killed process (NORMAL would fsync only at
    // checkpoints).  mfprio-acct(1), DURABILITY.
    sql::exec(db_, "PRAGMA synchronous = FULL");
  }
  // Pages the cycles and job ends touch stay cached (64 MiB at most); a
  // load streams through a small cache instead (see CacheForScan).
  sql::exec(db_, kCacheSize);
  sql::exec(db_, "PRAGMA temp_store = MEMORY");
  version_ = migrate(db_, MigrateOptions{opts.read_only, opts.create, opts.cluster, ""});
  // A file holds one cluster: the one its settings name, when they name one.
  if (opts.cluster_given && !opts.cluster.empty()) {
    sql::Stmt st(db_, "SELECT value FROM settings WHERE key = ?1");
    st.bind(1, kSettingCluster);
    if (st.step() && !st.view(0).empty() && st.view(0) != opts.cluster)
      throw StoreError(path + ": holds cluster '" + st.text(0) + "', not '" + opts.cluster +
                       "' (an SQLite store holds one cluster; a PostgreSQL store holds several)");
  }
}

double StoreImpl::usage_scale() {
  sql::StmtUse st(prep(st_scale_get_, "SELECT scale FROM decay_state WHERE id = 1"));
  return st->step() ? st->real(0) : 1.0;
}

// The hierarchy in one pass per table, rowid order (sequential pages, no
// index walks, no joins): names go into one pool, ids become indices.
void StoreImpl::read_tree(TreeData& t, bool descriptions) {
  const double scale = usage_scale();
  read_hierarchy(t, descriptions, scale);
  read_tree_tail(t, scale);
}

// What read_hierarchy's parts hand on: account ids -> raw index -> tree
// (breadth-first) index and name rank; the users as read and their ranks.
struct StoreImpl::TreeIndex {
  struct RawUser {
    int64_t id, default_id;
    uint32_t name;
    bool admin, has_default;
  };
  IdIndex acc_by_id, user_by_id;
  std::vector<uint32_t> acc_new, acc_rank, user_rank;
  std::vector<RawUser> users;
};

void StoreImpl::read_hierarchy(TreeData& t, bool descriptions, double scale) {
  TreeIndex ix;
  read_tree_accounts(t, descriptions, ix);
  read_tree_users(t, ix);
  read_tree_assocs(t, scale, ix);
}

// ---- accounts: breadth-first from root, siblings by name ----
void StoreImpl::read_tree_accounts(TreeData& t, bool descriptions, TreeIndex& ix) {
  NamePool& names = t.names;
  struct RawAccount {
    int64_t id, parent_id;
    uint32_t name, description, shares, priority;
    bool has_parent, shares_parent;
  };
  std::vector<RawAccount> acc;
  {
    sql::StmtUse st(prep_binary(st_tree_accounts_,
        "SELECT id, name, parent_id, shares, shares_parent, priority, description FROM accounts"));
    while (st->step()) {
      RawAccount a;
      a.id = st->i64(0);
      a.name = names.add(st->view(1));
      a.has_parent = !st->is_null(2);
      a.parent_id = a.has_parent ? st->i64(2) : 0;
      a.shares = static_cast<uint32_t>(st->i64(3));
      a.shares_parent = st->i64(4) != 0;
      a.priority = static_cast<uint32_t>(st->i64(5));
      a.description = descriptions ? names.add(st->view(6)) : 0;
      acc.push_back(a);
    }
  }
  const uint32_t n_acc = static_cast<uint32_t>(acc.size());
  IdIndex& acc_by_id = ix.acc_by_id;
  acc_by_id.build(n_acc, [&](size_t i) { return acc[i].id; });
  std::vector<uint32_t> acc_by_name(n_acc);
  for (uint32_t i = 0; i < n_acc; ++i) acc_by_name[i] = i;
  std::sort(acc_by_name.begin(), acc_by_name.end(),
            [&](uint32_t x, uint32_t y) { return names[acc[x].name] < names[acc[y].name]; });
  // Children lists (CSR), each in name order.
  std::vector<uint32_t> raw_parent(n_acc, IdIndex::kNone), kid_begin(n_acc + 1, 0), kids(n_acc);
  uint32_t root = IdIndex::kNone;
  for (uint32_t i = 0; i < n_acc; ++i) {
    if (!acc[i].has_parent) {
      root = i;
      continue;
    }
    const uint32_t p = acc_by_id.find(acc[i].parent_id);
    if (p == IdIndex::kNone)  // the foreign key forbids it
      throw StoreError(path_ + ": corrupt store: account '" + std::string(names[acc[i].name]) +
                       "' names a missing parent");
    raw_parent[i] = p;
    ++kid_begin[p + 1];
  }
  if (root == IdIndex::kNone) throw StoreError(path_ + ": corrupt store: no root account");
  for (uint32_t i = 0; i < n_acc; ++i) kid_begin[i + 1] += kid_begin[i];
  {
    std::vector<uint32_t> fill(kid_begin.begin(), kid_begin.end() - 1);
    for (uint32_t i : acc_by_name)
      if (raw_parent[i] != IdIndex::kNone) kids[fill[raw_parent[i]]++] = i;
  }
  std::vector<uint32_t> order{root};  // breadth-first
  order.reserve(n_acc);
  for (size_t q = 0; q < order.size() && order.size() <= n_acc; ++q)
    order.insert(order.end(), kids.begin() + kid_begin[order[q]], kids.begin() + kid_begin[order[q] + 1]);
  if (order.size() != n_acc)
    throw StoreError(path_ + ": corrupt store: accounts not reachable from root");
  std::vector<uint32_t>& acc_new = ix.acc_new;  // raw index -> BFS index
  std::vector<uint32_t>& acc_rank = ix.acc_rank;  // BFS index -> name rank
  acc_new.resize(n_acc);
  acc_rank.resize(n_acc);
  for (uint32_t k = 0; k < n_acc; ++k) acc_new[order[k]] = k;
  for (uint32_t r = 0; r < n_acc; ++r) acc_rank[acc_new[acc_by_name[r]]] = r;
  t.accounts.resize(n_acc);
  for (uint32_t k = 0; k < n_acc; ++k) {
    const RawAccount& a = acc[order[k]];
    TreeAccount& o = t.accounts[k];
    o.id = a.id;
    o.parent = a.has_parent ? static_cast<int32_t>(acc_new[raw_parent[order[k]]]) : -1;
    o.name = a.name;
    o.description = a.description;
    o.shares = a.shares;
    o.priority = a.priority;
    o.shares_parent = a.shares_parent;
  }
}

void StoreImpl::read_tree_users(TreeData& t, TreeIndex& ix) {
  // ---- users: the table in rowid order, their name order from the name
  // index alone (a covering scan: no row look-ups) ----
  NamePool& names = t.names;
  std::vector<TreeIndex::RawUser>& users = ix.users;
  {
    sql::StmtUse st(prep_binary(st_tree_users_, "SELECT id, name, default_account_id, admin FROM users"));
    while (st->step())
      users.push_back(TreeIndex::RawUser{st->i64(0), st->is_null(2) ? 0 : st->i64(2), names.add(st->view(1)),
                              st->i64(3) != 0, !st->is_null(2)});
  }
  IdIndex& user_by_id = ix.user_by_id;
  user_by_id.build(users.size(), [&](size_t i) { return users[i].id; });
  std::vector<uint32_t>& user_rank = ix.user_rank;
  user_rank.assign(users.size(), IdIndex::kNone);
  t.users.reserve(users.size());
  {
    sql::StmtUse st(prep_binary(st_tree_user_order_, "SELECT id FROM users ORDER BY name"));
    while (st->step()) {
      const uint32_t u = user_by_id.find(st->i64(0));
      if (u == IdIndex::kNone || user_rank[u] != IdIndex::kNone) continue;  // one snapshot: unreachable
      user_rank[u] = static_cast<uint32_t>(t.users.size());
      const uint32_t d = users[u].has_default ? ix.acc_by_id.find(users[u].default_id) : IdIndex::kNone;
      t.users.push_back(TreeUser{users[u].name, d == IdIndex::kNone ? -1 : static_cast<int32_t>(ix.acc_new[d]),
                                 users[u].admin});
    }
  }
  if (t.users.size() != users.size()) throw StoreError(path_ + ": corrupt store: the users' name index is incomplete");
}

void StoreImpl::read_tree_assocs(TreeData& t, double scale, const TreeIndex& ix) {
  NamePool& names = t.names;
  const std::vector<TreeIndex::RawUser>& users = ix.users;
  const IdIndex& user_by_id = ix.user_by_id;
  const IdIndex& acc_by_id = ix.acc_by_id;
  const std::vector<uint32_t>& user_rank = ix.user_rank;
  const std::vector<uint32_t>& acc_new = ix.acc_new;
  const std::vector<uint32_t>& acc_rank = ix.acc_rank;
  // ---- associations: one scan, then ordered by user, account, partition ----
  {
    sql::StmtUse st(prep(st_tree_assoc_bound_, "SELECT max(id) - min(id) + 1 FROM assocs"));
    if (st->step()) t.assocs.reserve(static_cast<size_t>(std::clamp<int64_t>(st->i64(0), 0, int64_t{1} << 24)));
  }
  std::unordered_map<std::string, uint32_t> part_names;  // partition associations are rare
  std::vector<uint32_t> per_user(t.users.size() + 1, 0);
  {
    sql::StmtUse st(prep_binary(st_tree_assocs_,
        "SELECT id, user_id, account_id, partition, shares, shares_parent, priority, raw_usage,"
        " usage_time FROM assocs"));
    while (st->step()) {
      const uint32_t u = user_by_id.find(st->i64(1));
      const uint32_t a = acc_by_id.find(st->i64(2));
      if (u == IdIndex::kNone || a == IdIndex::kNone)  // foreign keys forbid it
        throw StoreError(path_ + ": corrupt store: association " + std::to_string(st->i64(0)) +
                         " names a missing user or account");
      TreeAssoc r;
      r.id = st->i64(0);
      r.user = user_rank[u];
      r.account = acc_new[a];
      const std::string_view part = st->view(3);
      if (!part.empty()) {
        auto it = part_names.find(std::string(part));
        if (it == part_names.end()) it = part_names.emplace(std::string(part), names.add(part)).first;
        r.partition = it->second;
      }
      r.shares = static_cast<uint32_t>(st->i64(4));
      r.shares_parent = st->i64(5) != 0;
      r.priority = static_cast<uint32_t>(st->i64(6));
      r.raw_usage = st->real(7) * scale;
      r.usage_time = st->i64(8);
      r.is_default = users[u].has_default && users[u].default_id == st->i64(2);
      ++per_user[r.user + 1];
      t.assocs.push_back(r);
    }
  }
  // A counting sort by user rank (in place, by cycles), then each user's few
  // associations by account name and partition.
  for (size_t u = 0; u + 1 < per_user.size(); ++u) per_user[u + 1] += per_user[u];
  {
    std::vector<uint32_t> dest(t.assocs.size());
    std::vector<uint32_t> fill(per_user.begin(), per_user.end() - 1);
    for (size_t i = 0; i < t.assocs.size(); ++i) dest[i] = fill[t.assocs[i].user]++;
    for (size_t i = 0; i < t.assocs.size(); ++i)
      while (dest[i] != i) {
        std::swap(t.assocs[i], t.assocs[dest[i]]);
        std::swap(dest[i], dest[dest[i]]);
      }
  }
  for (size_t u = 0; u + 1 < per_user.size(); ++u) {
    if (per_user[u + 1] - per_user[u] < 2) continue;
    std::sort(t.assocs.begin() + per_user[u], t.assocs.begin() + per_user[u + 1],
              [&](const TreeAssoc& x, const TreeAssoc& y) {
                if (x.account != y.account) return acc_rank[x.account] < acc_rank[y.account];
                return names[x.partition] < names[y.partition];
              });
  }
}

// Journalled charges, QOS, partitions, decay state: read fresh every time.
void StoreImpl::read_tree_tail(TreeData& t, double scale) {
  {
    // Journalled job-end charges not yet folded into the rows count too.
    sql::StmtUse st(prep(st_journal_sum_,
        "SELECT assoc_id, sum(amount) FROM charge_journal GROUP BY assoc_id"));
    IdIndex by_id;
    bool built = false;
    while (st->step()) {
      if (!built) {
        by_id.build(t.assocs.size(), [&](size_t i) { return t.assocs[i].id; });
        built = true;
      }
      const uint32_t k = by_id.find(st->i64(0));
      if (k != IdIndex::kNone) t.assocs[k].raw_usage += st->real(1) * scale;
    }
  }
  {
    sql::StmtUse st(prep(st_load_qos_,
        "SELECT id, name, priority, usage_factor FROM qos ORDER BY name"));
    while (st->step())
      t.qos.push_back(QosRec{st->i64(0), st->text(1), static_cast<uint32_t>(st->i64(2)),
                             st->real(3)});
  }
  {
    sql::StmtUse st(prep(st_load_parts_,
        "SELECT id, name, job_factor, billing_weights, tres_totals, is_default"
        " FROM partitions ORDER BY name"));
    while (st->step())
      t.partitions.push_back(PartitionRec{st->i64(0), st->text(1),
                                          static_cast<uint32_t>(st->i64(2)), st->text(3),
                                          st->text(4), st->i64(5) != 0});
  }
  {
    sql::StmtUse st(prep(st_load_decay_,
        "SELECT last_decay, last_reset FROM decay_state WHERE id = 1"));
    if (st->step()) t.decay = DecayState{st->i64(0), st->i64(1)};
  }
}

// ---- the hierarchy cache (table tree_cache, schema v7) ----
// One blob: a header, the name pool, then the accounts, users and
// associations as load_tree holds them, usage zeroed.  apply_admin (every
// hierarchy write) and migrations clear it; load_tree writes it inside its
// own read snapshot, so it never describes rows other than the ones read
// (write_cache_in_snapshot: how each backend makes sure).  Both backends
// keep it: SQLite reads and writes it through its incremental blob API,
// PostgreSQL as one BYTEA value in binary form.  Anything unexpected
// (another build's layout, a bad index, association rows that do not match
// it one to one) is a miss.
namespace {
struct CacheHeader {
  uint32_t magic = 0x4d465443;  // "MFTC"
  uint32_t format = 1;
  uint32_t sizes[4] = {sizeof(TreeAccount), sizeof(TreeUser), sizeof(TreeAssoc), sizeof(CacheHeader*)};
  uint64_t chars = 0, begins = 0, accounts = 0, users = 0, assocs = 0;
};

class BlobHandle {
 public:
  ~BlobHandle() {
    if (b_) sqlite3_blob_close(b_);
  }
  sqlite3_blob* b_ = nullptr;
};

// A bool read from the blob holds 0 or 1 (looked at as a byte: any other
// value would make reading it as a bool undefined).
bool bool_ok(const bool& b) { return *reinterpret_cast<const unsigned char*>(&b) <= 1; }

// The cache's bytes: SQLite's open blob, or PostgreSQL's value in memory.
class CacheSource {
 public:
  explicit CacheSource(sqlite3_blob* b) : b_(b), size_(static_cast<uint64_t>(sqlite3_blob_bytes(b))) {}
  explicit CacheSource(std::string_view m) : mem_(m), size_(m.size()) {}
  uint64_t size() const { return size_; }
  bool read(void* dst, uint64_t n, uint64_t* off) const {
    if (n == 0) return true;
    if (n > INT32_MAX || *off + n > size_) return false;
    if (b_) {
      if (sqlite3_blob_read(b_, dst, static_cast<int>(n), static_cast<int>(*off)) != SQLITE_OK) return false;
    } else {
      std::memcpy(dst, mem_.data() + *off, n);
    }
    *off += n;
    return true;
  }

 private:
  sqlite3_blob* b_ = nullptr;
  std::string_view mem_;
  uint64_t size_;
};

// Every index in range, so a damaged blob can only be a miss.
bool cache_indices_ok(const TreeData& t, const CacheHeader& got) {
  const NamePool& nm = t.names;
  if (nm.begin[0] != 0 || nm.begin[1] != 0) return false;
  for (size_t i = 1; i < nm.begin.size(); ++i)
    if (nm.begin[i] < nm.begin[i - 1] || nm.begin[i] > got.chars) return false;
  const uint32_t n_names = nm.size();
  for (size_t i = 0; i < t.accounts.size(); ++i) {
    const TreeAccount& a = t.accounts[i];
    if (a.name >= n_names || a.description >= n_names || !bool_ok(a.shares_parent) || (i == 0) != (a.parent == -1) ||
        (i > 0 && (a.parent < 0 || static_cast<size_t>(a.parent) >= i)))
      return false;
  }
  for (const TreeUser& u : t.users)
    if (u.name >= n_names || !bool_ok(u.admin) || u.default_account < -1 ||
        u.default_account >= static_cast<int64_t>(got.accounts))
      return false;
  for (size_t k = 0; k < t.assocs.size(); ++k) {
    const TreeAssoc& a = t.assocs[k];
    if (a.user >= got.users || a.account >= got.accounts || a.partition >= n_names || !bool_ok(a.shares_parent) ||
        !bool_ok(a.is_default) ||
        (k > 0 && a.user < t.assocs[k - 1].user))
      return false;
  }
  return true;
}

// The hierarchy from the cache's bytes (false: a miss).
bool decode_cache(const CacheSource& src, TreeData& t) {
  CacheHeader want, got;
  uint64_t off = 0;
  if (!src.read(&got, sizeof got, &off) || got.magic != want.magic || got.format != want.format ||
      std::memcmp(got.sizes, want.sizes, sizeof want.sizes) != 0)
    return false;
  const uint64_t total = src.size();  // < 2^31
  if (got.begins < 2 || got.begins > total || got.chars > total || got.accounts > total || got.users > total ||
      got.assocs > total || got.accounts == 0)
    return false;
  const uint64_t need = sizeof got + got.chars + got.begins * 4 + got.accounts * sizeof(TreeAccount) +
                        got.users * sizeof(TreeUser) + got.assocs * sizeof(TreeAssoc);
  if (need != total) return false;
  t.names.chars.resize(got.chars);
  t.names.begin.resize(got.begins);
  t.accounts.resize(got.accounts);
  t.users.resize(got.users);
  t.assocs.resize(got.assocs);
  if (!src.read(t.names.chars.data(), got.chars, &off) || !src.read(t.names.begin.data(), got.begins * 4, &off) ||
      !src.read(t.accounts.data(), got.accounts * sizeof(TreeAccount), &off) ||
      !src.read(t.users.data(), got.users * sizeof(TreeUser), &off) ||
      !src.read(t.assocs.data(), got.assocs * sizeof(TreeAssoc), &off))
    return false;
  return cache_indices_ok(t, got);
}

// The blob's bytes in order, through put(const void*, uint64_t).
template <class Put>
void encode_cache(const TreeData& t, const CacheHeader& h, Put&& put) {
  put(&h, sizeof h);
  put(t.names.chars.data(), h.chars);
  put(t.names.begin.data(), h.begins * 4);
  put(t.accounts.data(), h.accounts * sizeof(TreeAccount));
  put(t.users.data(), h.users * sizeof(TreeUser));
  std::vector<TreeAssoc> chunk;  // usage is not part of the cache
  for (size_t i = 0; i < t.assocs.size(); i += 4096) {
    chunk.assign(t.assocs.begin() + i, t.assocs.begin() + std::min(t.assocs.size(), i + 4096));
    for (TreeAssoc& a : chunk) {
      a.raw_usage = 0;
      a.usage_time = 0;
    }
    put(chunk.data(), chunk.size() * sizeof(TreeAssoc));
  }
}
}  // namespace

bool StoreImpl::read_cached_hierarchy(TreeData& t, double scale) {
  if (db_.is_pg()) {
    sql::StmtUse st(prep_binary(st_cache_get_, "SELECT data FROM tree_cache WHERE id = 1"));
    if (!st->step() || st->is_null(0) || !decode_cache(CacheSource(st->blob(0)), t)) return false;
  } else {
    {
      sql::StmtUse st(prep(st_cache_present_, "SELECT data IS NOT NULL FROM tree_cache WHERE id = 1"));
      if (!st->step() || st->i64(0) == 0) return false;
    }
    BlobHandle h;
    if (sqlite3_blob_open(db_.lite(), "main", "tree_cache", "data", 1, /*write=*/0, &h.b_) != SQLITE_OK) return false;
    if (!decode_cache(CacheSource(h.b_), t)) return false;
  }
  return read_cached_usage(t, scale);
}

// Usage, from the rows: every cached association exactly once.
bool StoreImpl::read_cached_usage(TreeData& t, double scale) {
  IdIndex by_id;
  by_id.build(t.assocs.size(), [&](size_t i) { return t.assocs[i].id; });
  std::vector<uint8_t> seen(t.assocs.size(), 0);
  size_t rows = 0;
  // Rows come in rowid order, the records are in user order: the writes
  // jump, so they go in batches whose targets are prefetched first.
  struct Pending {
    uint32_t k;
    double usage;
    int64_t time;
  };
  constexpr size_t kBatch = 32;
  Pending batch[kBatch];
  size_t nb = 0;
  auto flush = [&] {
    for (size_t i = 0; i < nb; ++i) {
      t.assocs[batch[i].k].raw_usage = batch[i].usage;
      t.assocs[batch[i].k].usage_time = batch[i].time;
    }
    nb = 0;
  };
  sql::StmtUse st(prep_binary(st_cache_usage_, "SELECT id, raw_usage, usage_time FROM assocs"));
  while (st->step()) {
    const uint32_t k = by_id.find(st->i64(0));
    if (k == IdIndex::kNone || seen[k]) return false;
    seen[k] = 1;
    ++rows;
    __builtin_prefetch(&t.assocs[k], 1);
    batch[nb++] = Pending{k, st->real(1) * scale, st->i64(2)};
    if (nb == kBatch) flush();
  }
  flush();
  return rows == t.assocs.size();
}

// Every hierarchy write clears it.  The row is always written, even when
// already empty: on PostgreSQL that is what makes a load whose snapshot
// predates this write fail to write the cache of the older rows
// (write_cache_in_snapshot).
void StoreImpl::clear_tree_cache() {
  sql::StmtUse st(prep(st_cache_clear_, "UPDATE tree_cache SET data = NULL WHERE id = 1"));
  st->run();
}

void StoreImpl::write_cached_hierarchy(const TreeData& t) {
  CacheHeader h;
  h.chars = t.names.chars.size();
  h.begins = t.names.begin.size();
  h.accounts = t.accounts.size();
  h.users = t.users.size();
  h.assocs = t.assocs.size();
  const uint64_t total = sizeof h + h.chars + h.begins * 4 + h.accounts * sizeof(TreeAccount) +
                         h.users * sizeof(TreeUser) + h.assocs * sizeof(TreeAssoc);
  if (total > INT32_MAX) return;  // too big for one blob: no cache
  if (db_.is_pg()) {
    std::string bytes;
    bytes.reserve(total);
    encode_cache(t, h, [&](const void* p, uint64_t n) { bytes.append(static_cast<const char*>(p), n); });
    sql::StmtUse st(prep(st_cache_put_, "UPDATE tree_cache SET data = ?1 WHERE id = 1"));
    st->bind_blob(1, bytes).run();
    return;
  }
  {
    sql::StmtUse st(prep(st_cache_reserve_, "UPDATE tree_cache SET data = zeroblob(?1) WHERE id = 1"));
    st->bind(1, static_cast<int64_t>(total)).run();
  }
  BlobHandle b;
  if (sqlite3_blob_open(db_.lite(), "main", "tree_cache", "data", 1, /*write=*/1, &b.b_) != SQLITE_OK)
    sql::fail(db_, "tree cache");
  int off = 0;
  encode_cache(t, h, [&](const void* p, uint64_t n) {
    if (n && sqlite3_blob_write(b.b_, p, static_cast<int>(n), off) != SQLITE_OK) sql::fail(db_, "tree cache");
    off += static_cast<int>(n);
  });
}

// The cache written in load_tree's own read snapshot, or not at all (next
// load).  SQLite: a read transaction cannot become a write one once
// another connection has written since its snapshot, or while one holds
// the write lock: the write fails at once (no busy wait) and is skipped.
// PostgreSQL (REPEATABLE READ): the cache row is locked first, NOWAIT; an
// admin write that cleared the cache after this snapshot (clear_tree_cache
// always writes the row) makes that lock fail, as does one clearing it
// now; one that clears it later waits for this write and then clears it.
// A failure rolls back to a savepoint: the load's transaction goes on.
void StoreImpl::write_cache_in_snapshot(const TreeData& t) {
  if (db_.is_pg()) {
    sql::exec(db_, "SAVEPOINT mfprio_tree_cache");
    try {
      sql::StmtUse lock(prep(st_cache_lock_, "SELECT 1 FROM tree_cache WHERE id = 1 FOR UPDATE NOWAIT"));
      lock->run();
      write_cached_hierarchy(t);
      sql::exec(db_, "RELEASE SAVEPOINT mfprio_tree_cache");
    } catch (const StoreError&) {
      sql::exec(db_, "ROLLBACK TO SAVEPOINT mfprio_tree_cache");
    }
    return;
  }
  sqlite3_busy_timeout(db_.lite(), 0);
  try {
    write_cached_hierarchy(t);
  } catch (const StoreError&) {
  }
  sqlite3_busy_timeout(db_.lite(), 10000);
}

TreeData StoreImpl::load_tree() {
  TreeData t;
  CacheForScan small_cache(db_);
  sql::Txn txn(db_, /*write=*/false);  // one consistent snapshot
  changed_by_others();  // what we load now is the baseline
  const double scale = usage_scale();
  const bool hit = read_cached_hierarchy(t, scale);
  if (!hit) {
    t = TreeData{};
    read_hierarchy(t, /*descriptions=*/false, scale);
  }
  read_tree_tail(t, scale);
  if (!hit && !read_only_) write_cache_in_snapshot(t);
  txn.commit();
  changed_by_others();  // our own cache write is not another's change
  return t;
}

StoreData StoreImpl::load(const LoadOptions& opts) {
  StoreData d;
  // The full cache here: the families that load() every pass (Grid Engine)
  // and the CLI's one-shot reads gain nothing from a small one.
  sql::Txn txn(db_, /*write=*/false);  // one consistent snapshot
  changed_by_others();  // what we load now is the baseline
  const double scale = usage_scale();
  {
    TreeData t;
    read_tree(t, /*descriptions=*/true);
    const NamePool& nm = t.names;
    d.accounts.reserve(t.accounts.size());
    for (const TreeAccount& a : t.accounts) {
      AccountRec r;
      r.id = a.id;
      r.name = nm[a.name];
      if (a.parent >= 0) r.parent = nm[t.accounts[static_cast<size_t>(a.parent)].name];
      r.shares_parent = a.shares_parent;
      r.shares = a.shares;
      r.priority = a.priority;
      r.description = nm[a.description];
      d.accounts.push_back(std::move(r));
    }
    d.users.reserve(t.users.size());
    for (const TreeUser& u : t.users)
      d.users.push_back(UserRec{std::string(nm[u.name]),
                                u.default_account >= 0
                                    ? std::string(nm[t.accounts[static_cast<size_t>(u.default_account)].name])
                                    : std::string(),
                                u.admin});
    d.assocs.reserve(t.assocs.size());
    for (const TreeAssoc& a : t.assocs) {
      UserAssocRec r;
      r.id = a.id;
      r.user = d.users[a.user].name;
      r.account = d.accounts[a.account].name;
      r.partition = nm[a.partition];
      r.shares_parent = a.shares_parent;
      r.shares = a.shares;
      r.priority = a.priority;
      r.is_default = a.is_default;
      r.raw_usage = a.raw_usage;
      r.usage_time = a.usage_time;
      d.assocs.push_back(std::move(r));
    }
    d.qos = std::move(t.qos);
    d.partitions = std::move(t.partitions);
    d.decay = t.decay;
  }
  IdIndex assoc_by_id;
  bool indexed = false;
  auto index_of = [&](int64_t id) -> UserAssocRec* {
    if (!indexed) {
      assoc_by_id.build(d.assocs.size(), [&](size_t i) { return d.assocs[i].id; });
      indexed = true;
    }
    const uint32_t k = assoc_by_id.find(id);
    return k == IdIndex::kNone ? nullptr : &d.assocs[k];
  };
  if (opts.tres_usage) {
    {
      sql::StmtUse st(prep(st_load_tres_usage_,
          "SELECT t.assoc_id, r.name, t.usage FROM assoc_tres_usage t JOIN tres r ON r.id = t.tres_id"));
      while (st->step())
        if (UserAssocRec* r = index_of(st->i64(0)))  // the FK makes a miss unreachable
          r->tres_usage.emplace_back(st->text(1), st->real(2) * scale);
    }
    // Journalled TRES amounts (schema 10: packed, one text a row).
    std::unordered_map<int64_t, std::string> tres_names;  // read when the journal holds any
    sql::StmtUse st(prep(st_journal_sum_tres_, "SELECT assoc_id, tres FROM charge_journal WHERE tres <> ''"));
    while (st->step()) {
      UserAssocRec* r = index_of(st->i64(0));
      if (!r) continue;
      if (tres_names.empty()) {
        sql::StmtUse n(prep(st_load_tres_ids_, "SELECT id, name FROM tres"));
        while (n->step()) tres_names.emplace(n->i64(0), n->text(1));
      }
      const bool whole = unpack_tres(st->view(1), [&](int64_t tid, double amount) {
        const auto name = tres_names.find(tid);
        if (name == tres_names.end()) return;  // TRES rows are never deleted
        auto it = std::find_if(r->tres_usage.begin(), r->tres_usage.end(),
                               [&](const auto& e) { return e.first == name->second; });
        if (it == r->tres_usage.end()) r->tres_usage.emplace_back(name->second, amount * scale);
        else it->second += amount * scale;
      });
      if (!whole) throw StoreError(path_ + ": a charge journal row holds unreadable TRES amounts");
    }
    for (UserAssocRec& a : d.assocs)
      if (a.tres_usage.size() > 1) std::sort(a.tres_usage.begin(), a.tres_usage.end());
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
  {
    sql::StmtUse st(prep(st_load_settings_, "SELECT key, value FROM settings ORDER BY key"));
    while (st->step()) d.settings.emplace_back(st->text(0), st->text(1));
  }
  if (opts.tres_usage) {
    sql::StmtUse st(prep(st_load_ge_usage_,
        "SELECT kind, name, start, seconds, usage FROM usage_windows WHERE family = 'gridengine'"
        " AND kind IN ('cpu', 'mem', 'io') AND seconds = 0 ORDER BY name, kind"));
    while (st->step())
      d.gridengine_usage.push_back(WindowRow{st->text(0), st->text(1), st->i64(2), st->i64(3), st->real(4)});
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
  if (!ins->step()) sql::fail(db_, "insert tres \"" + name + "\"");
  return ins->i64(0);
}

bool StoreImpl::may_write(uint32_t uid) {
  if (uid == 0) return true;  // root can rewrite the file anyway
  // A PostgreSQL store has no owner file: its grants decide (the role's).
  if (db_.is_pg()) return true;
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

double DecayRate::factor(int64_t elapsed) const {
  if (elapsed <= 0 || base >= 1.0) return 1.0;
  if (!(base > 0.0)) return 0.0;
  const double units = static_cast<double>(elapsed) / unit_seconds;
  return base == 0.5 ? std::exp2(-units) : std::pow(base, units);
}

std::unique_ptr<Store> Store::open(const std::string& path) { return open(path, OpenOptions{}); }

std::unique_ptr<Store> Store::open(const std::string& path, const OpenOptions& opts) {
  return std::make_unique<detail::StoreImpl>(path, opts);
}

// PostgreSQL: the shared list every cluster's creation adds to (store_schema.cpp:
// pg_create), read without opening any cluster's schema; a database no
// cluster was made in has none.  SQLite: the file's one cluster.
std::vector<std::string> Store::list_clusters(const std::string& location) {
  std::vector<std::string> out;
  if (!is_server_store(location)) {
    auto s = open(location, OpenOptions{true, false, {}, false});
    const std::string named = s->load().setting(kSettingCluster);
    out.push_back(named.empty() ? std::string(kDefaultCluster) : named);
    return out;
  }
  sql::PgSession ses;
  ses.uri = location;
  ses.shown = store_location_shown(location);
  ses.schema = "mfprio";
  ses.read_only = true;
  sql::Conn db;
  db.set_pg(sql::pg_connect(ses), ses.shown);
  sql::Txn read(db, /*write=*/false);
  {
    sql::Stmt st(db, "SELECT to_regclass('mfprio.clusters') IS NOT NULL");
    if (!st.step() || st.i64(0) == 0) return out;
  }
  sql::Stmt st(db, "SELECT name FROM mfprio.clusters ORDER BY name");
  while (st.step()) out.push_back(st.text(0));
  return out;
}

}  // namespace mfprio::acct

namespace mfprio::acct::detail {
// PRAGMA data_version changes when another connection commits to the file;
// our own commits leave it alone, so this sees exactly the admin's edits.
bool StoreImpl::changed_by_others() {
  if (db_.is_pg()) return sql::pg_changed_by_others(db_.pg());  // store_meta.changes
  sql::StmtUse st(prep(st_data_version_, "PRAGMA data_version"));
  const int64_t v = st->step() ? st->i64(0) : 0;
  const bool changed = seen_data_version_ >= 0 && v != seen_data_version_;
  seen_data_version_ = v;
  return changed;
}
}  // namespace mfprio::acct::detail
