// sql.hpp - the store's SQL layer, private to accounting/: one connection
// type, prepared statements, transactions, over two backends.
//
// Entry points:
//   Conn          owns a connection: an sqlite3* (the embedded default) or a
//                 PostgreSQL connection (sql_pg.cpp, through libpq)
//   Stmt          a prepared statement with typed bind/column helpers
//   StmtUse       scope guard: resets a cached statement and clears its bindings
//   ListStmt      one statement over a list of rows (an IN list, VALUES rows),
//                 prepared per power-of-two row count: a batch in a few
//                 statements, not one per row (PostgreSQL, given its own
//                 text: one statement over array parameters; send(): a write
//                 sent in libpq's pipeline, read back with the next call)
//   Txn           a transaction; rolls back in its destructor unless committed,
//                 so an exception anywhere leaves the store unchanged
//   exec          SQL text that carries no values (schema, BEGIN/COMMIT)
//
// The SQLite path is inline (one predictable branch per call on the
// backend); the PostgreSQL path is out of line in sql_pg.cpp (sql_nopg.cpp
// when built without libpq: a PostgreSQL location is refused at open).
// Statement text is written once for both: `?N` / `?` placeholders become
// `$n` in the PostgreSQL prepare (pg_translate), and the few statements
// whose text must differ are chosen by the store (store_impl.hpp: Dialect).
//
// Invariants: values reach SQL only through bind (SQLite's bind calls, or
// libpq's parameter arrays); every error becomes a StoreError whose text
// names the store (the file, or the URI without its password) and the
// server's or SQLite's message.
#pragma once

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>

#include "store.hpp"

namespace mfprio::acct::sql {

// ---- PostgreSQL (sql_pg.cpp; sql_nopg.cpp refuses) -------------------------
class PgConn;
class PgStmt;
struct PgSession {
  std::string uri;         // the libpq URI, as given (may hold a password)
  std::string shown;       // the same without its password, for messages
  std::string schema;      // search_path: the cluster's schema (already checked)
  int64_t lock_key = 0;    // pg_advisory_xact_lock key of every write transaction
  bool read_only = false;  // every transaction READ ONLY
};
PgConn* pg_connect(const PgSession& s);  // throws StoreError naming s.shown
void pg_close(PgConn* c) noexcept;
void pg_exec(PgConn* c, const char* sql);
void pg_begin(PgConn* c, bool write);
void pg_commit(PgConn* c);
void pg_rollback(PgConn* c) noexcept;
int64_t pg_changes(const PgConn* c);
// The change counter (store_meta.changes): true when another connection
// committed since this one last looked or wrote; resets the flag.
bool pg_changed_by_others(PgConn* c);
// store_meta.changes as this connection's last write transaction left it
// (read back by its COMMIT's counter bump); -1 before the first.
int64_t pg_counter(const PgConn* c);
[[noreturn]] void pg_fail(PgConn* c, const std::string& what);
PgStmt* pg_prepare(PgConn* c, std::string_view sql);
void pg_free(PgStmt* s) noexcept;
void pg_bind_i64(PgStmt* s, int i, int64_t v);
void pg_bind_real(PgStmt* s, int i, double v);
void pg_bind_text(PgStmt* s, int i, std::string_view v);
void pg_bind_null(PgStmt* s, int i);
void pg_bind_blob(PgStmt* s, int i, std::string_view v);  // sent as binary (BYTEA)
void pg_binary_rows(PgStmt* s);  // rows come in binary form, decoded by column type
// Array mode (ListStmt's PostgreSQL form): parameters 1..n become arrays, and
// each bind of parameter i appends an element to array i (until pg_reset).
void pg_arrays(PgStmt* s, int n);
bool pg_step(PgStmt* s);
// Sends the statement in the connection's pipeline without waiting; its
// result is read (a failure thrown) by the connection's next call, the
// COMMIT's included (PQenterPipelineMode).
void pg_send(PgStmt* s);
void pg_reset(PgStmt* s);
int64_t pg_i64(const PgStmt* s, int c);
double pg_real(const PgStmt* s, int c);
bool pg_is_null(const PgStmt* s, int c);
std::string_view pg_view(const PgStmt* s, int c);
std::string_view pg_blob(PgStmt* s, int c);  // a BYTEA's bytes
// `?N` -> `$N`, `?` -> the next `$n`; quoted text ('...', "...") untouched.
std::string pg_translate(std::string_view sql);

// ---- the connection --------------------------------------------------------
class Conn {
 public:
  Conn() = default;
  ~Conn() { close(); }
  Conn(const Conn&) = delete;
  Conn& operator=(const Conn&) = delete;
  void set_lite(sqlite3* db, std::string name) {
    close();
    lite_ = db;
    name_ = std::move(name);
  }
  void set_pg(PgConn* c, std::string name) {
    close();
    pg_ = c;
    name_ = std::move(name);
  }
  sqlite3* lite() const { return lite_; }  // null on PostgreSQL
  PgConn* pg() const { return pg_; }       // null on SQLite
  bool is_pg() const { return pg_ != nullptr; }
  const std::string& name() const { return name_; }  // for messages: never a password
  // Rows changed by the last INSERT/UPDATE/DELETE.
  int64_t changes() const {
    if (pg_) [[unlikely]] return pg_changes(pg_);
    return sqlite3_changes(lite_);
  }
  void close() noexcept {
    if (lite_) sqlite3_close_v2(lite_);
    if (pg_) pg_close(pg_);
    lite_ = nullptr;
    pg_ = nullptr;
  }

 private:
  sqlite3* lite_ = nullptr;
  PgConn* pg_ = nullptr;
  std::string name_;
};

[[noreturn]] inline void fail(const Conn* db, const std::string& what) {
  if (db && db->is_pg()) pg_fail(db->pg(), what);
  std::string msg = (db && !db->name().empty()) ? db->name() + ": " : std::string();
  msg += what;
  if (db && db->lite()) {
    msg += ": ";
    msg += sqlite3_errmsg(db->lite());
  }
  throw StoreError(msg);
}
[[noreturn]] inline void fail(const Conn& db, const std::string& what) { fail(&db, what); }

// Runs SQL text that carries no values (schema, pragmas, BEGIN/COMMIT).
inline void exec(const Conn& db, const char* sql) {
  if (db.is_pg()) return pg_exec(db.pg(), sql);
  char* err = nullptr;
  int rc = sqlite3_exec(db.lite(), sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    throw StoreError(db.name() + ": " + msg + " (in: " + std::string(sql).substr(0, 60) + ")");
  }
}

struct StmtFinalizer {
  void operator()(sqlite3_stmt* st) const noexcept { sqlite3_finalize(st); }
};
struct PgStmtFree {
  void operator()(PgStmt* st) const noexcept { pg_free(st); }
};

class Stmt {
 public:
  Stmt() = default;
  Stmt(const Conn& db, std::string_view sql) : db_(&db) {
    if (db.is_pg()) {
      pg_.reset(pg_prepare(db.pg(), sql));
      return;
    }
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v3(db.lite(), sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                                &st, nullptr);
    if (rc != SQLITE_OK) fail(db, "prepare \"" + std::string(sql.substr(0, 60)) + "\"");
    st_.reset(st);
  }
  explicit operator bool() const { return st_ != nullptr || pg_ != nullptr; }

  Stmt& bind(int i, int64_t v) {
    if (pg_) [[unlikely]] return pg_bind_i64(pg_.get(), i, v), *this;
    return chk(sqlite3_bind_int64(st_.get(), i, v));
  }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, uint32_t v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, bool v) { return bind(i, static_cast<int64_t>(v ? 1 : 0)); }
  Stmt& bind(int i, double v) {
    if (pg_) [[unlikely]] return pg_bind_real(pg_.get(), i, v), *this;
    return chk(sqlite3_bind_double(st_.get(), i, v));
  }
  Stmt& bind(int i, std::string_view v) {
    if (pg_) [[unlikely]] return pg_bind_text(pg_.get(), i, v), *this;
    return chk(sqlite3_bind_text(st_.get(), i, v.data(), static_cast<int>(v.size()), SQLITE_TRANSIENT));
  }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind_null(int i) {
    if (pg_) [[unlikely]] return pg_bind_null(pg_.get(), i), *this;
    return chk(sqlite3_bind_null(st_.get(), i));
  }
  // Bytes (a BLOB / BYTEA); `v` must stay valid until the statement ran.
  Stmt& bind_blob(int i, std::string_view v) {
    if (pg_) [[unlikely]] return pg_bind_blob(pg_.get(), i, v), *this;
    return chk(sqlite3_bind_blob64(st_.get(), i, v.data(), v.size(), SQLITE_STATIC));
  }
  // PostgreSQL: this statement's rows come in binary form (no number
  // formatting on the server, no parsing here: the load's big reads);
  // SQLite's rows are binary anyway.  Set once, before the first step.
  Stmt& binary_rows() {
    if (pg_) pg_binary_rows(pg_.get());
    return *this;
  }
  // PostgreSQL only (ListStmt): parameters 1..n are arrays until the next
  // reset; each bind of parameter i appends one element to array i.
  Stmt& pg_arrays(int n) {
    pg_arrays_impl(n);
    return *this;
  }

  // True while a row is available; false when done.  Errors throw.
  bool step() {
    if (pg_) [[unlikely]] return pg_step(pg_.get());
    int rc = sqlite3_step(st_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "step \"" + std::string(sqlite3_sql(st_.get())).substr(0, 60) + "\"");
  }
  void run() {
    while (step()) {
    }
  }
  // A statement whose rows and change count nobody reads (a write): on
  // PostgreSQL sent without waiting for it (pg_send: it travels with the next
  // call, e.g. the COMMIT, and a failure is thrown there); on SQLite, run().
  void send() {
    if (pg_) [[unlikely]] return pg_send(pg_.get());
    run();
  }
  void reset() {
    if (pg_) [[unlikely]] return pg_reset(pg_.get());
    sqlite3_reset(st_.get());
    sqlite3_clear_bindings(st_.get());
  }

  int64_t i64(int c) const {
    if (pg_) [[unlikely]] return pg_i64(pg_.get(), c);
    return sqlite3_column_int64(st_.get(), c);
  }
  double real(int c) const {
    if (pg_) [[unlikely]] return pg_real(pg_.get(), c);
    return sqlite3_column_double(st_.get(), c);
  }
  bool is_null(int c) const {
    if (pg_) [[unlikely]] return pg_is_null(pg_.get(), c);
    return sqlite3_column_type(st_.get(), c) == SQLITE_NULL;
  }
  // The column's bytes, valid until the next step/reset (no copy).
  std::string_view view(int c) const {
    if (pg_) [[unlikely]] return pg_view(pg_.get(), c);
    const unsigned char* p = sqlite3_column_text(st_.get(), c);
    return p ? std::string_view(reinterpret_cast<const char*>(p),
                                static_cast<size_t>(sqlite3_column_bytes(st_.get(), c)))
             : std::string_view();
  }
  std::string text(int c) const { return std::string(view(c)); }
  // A BLOB / BYTEA column's bytes, valid until the next step/reset.
  std::string_view blob(int c) {
    if (pg_) [[unlikely]] return pg_blob(pg_.get(), c);
    const void* p = sqlite3_column_blob(st_.get(), c);
    return p ? std::string_view(static_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_.get(), c)))
             : std::string_view();
  }

 private:
  void pg_arrays_impl(int n) {
    if (!pg_) fail(db_, "array parameters on SQLite");
    sql::pg_arrays(pg_.get(), n);
  }
  Stmt& chk(int rc) {
    if (rc != SQLITE_OK) fail(db_, "bind");
    return *this;
  }
  const Conn* db_ = nullptr;
  std::unique_ptr<sqlite3_stmt, StmtFinalizer> st_;
  std::unique_ptr<PgStmt, PgStmtFree> pg_;
};

// Resets a cached statement on scope exit, whether it finished or threw.
class StmtUse {
 public:
  explicit StmtUse(Stmt& s) : s_(s) {}
  ~StmtUse() { s_.reset(); }
  StmtUse(const StmtUse&) = delete;
  StmtUse& operator=(const StmtUse&) = delete;
  Stmt* operator->() { return &s_; }
  Stmt& operator*() { return s_; }

 private:
  Stmt& s_;
};

// A statement over a list of rows of values, one text for both backends:
// `head`, then `row` (its `?` placeholders, `per_row` of them) k times,
// joined by ", ", then `tail` (head and tail hold no placeholder); prepared
// on first use for each k = 1, 2, 4, ... kMaxRows and kept.  run() sends n
// rows in chunks of kMaxRows, the last one padded up to a power of two with
// rows of NULLs: n rows cost ceil(n / kMaxRows) statements (one round trip
// each on PostgreSQL) instead of n.  The statement must make a NULL row do
// nothing: an IN list or a join on its first value matches nothing, an
// INSERT ... SELECT ... FROM (VALUES ...) drops it with WHERE column1 IS
// NOT NULL.  (PostgreSQL types a bare placeholder in VALUES as text: cast
// each, CAST(? AS BIGINT), which SQLite runs as the same value.)
//
// PostgreSQL form (`pg`, optional): one text for any n whose parameters
// ?1 .. ?per_row are arrays, one element per row (e.g. SELECT * FROM
// unnest(?1::bigint[], ?2::float8[])): the same bind callback fills them
// (Stmt::pg_arrays), and n rows cost one statement and one plan, whatever n.
// Without it PostgreSQL runs the VALUES form above.
class ListStmt {
 public:
  static constexpr int kMaxLog2 = 8;
  static constexpr size_t kMaxRows = size_t{1} << kMaxLog2;
  ListStmt(const char* head, const char* row, const char* tail, int per_row, const char* pg = nullptr)
      : head_(head), row_(row), tail_(tail), pg_(pg), per_row_(per_row) {}
  ListStmt(const ListStmt&) = delete;
  ListStmt& operator=(const ListStmt&) = delete;

  // bind(Stmt&, int first, size_t i) binds row i (< n) at parameters first,
  // first + 1, ...; each(Stmt&) sees every result row.  Returns the rows the
  // statements changed (Conn::changes, summed).
  template <class Bind, class Each>
  int64_t run(const Conn& db, size_t n, Bind&& bind, Each&& each) {
    if (pg_ && db.is_pg()) {
      if (n == 0) return 0;
      if (!pg_st_) pg_st_ = Stmt(db, pg_);
      StmtUse st(pg_st_);
      st->pg_arrays(per_row_);
      for (size_t i = 0; i < n; ++i) bind(*st, 1, i);
      while (st->step()) each(*st);
      return db.changes();
    }
    int64_t changed = 0;
    for (size_t done = 0; done < n;) {
      const size_t rows = std::min(n - done, kMaxRows);
      int k = 0;
      while ((size_t{1} << k) < rows) ++k;
      const size_t slots = size_t{1} << k;
      StmtUse st(prep(db, k));
      for (size_t i = 0; i < slots; ++i) {
        const int first = static_cast<int>(i) * per_row_ + 1;
        if (i < rows) {
          bind(*st, first, done + i);
        } else {
          for (int p = 0; p < per_row_; ++p) st->bind_null(first + p);
        }
      }
      while (st->step()) each(*st);
      changed += db.changes();
      done += rows;
    }
    return changed;
  }
  template <class Bind>
  int64_t run(const Conn& db, size_t n, Bind&& bind) {
    return run(db, n, std::forward<Bind>(bind), [](Stmt&) {});
  }
  // run() for writes whose change count nobody reads: with a PostgreSQL
  // form, sent without waiting (Stmt::send); otherwise run().
  template <class Bind>
  void send(const Conn& db, size_t n, Bind&& bind) {
    if (!(pg_ && db.is_pg())) {
      run(db, n, std::forward<Bind>(bind));
      return;
    }
    if (n == 0) return;
    if (!pg_st_) pg_st_ = Stmt(db, pg_);
    StmtUse st(pg_st_);
    st->pg_arrays(per_row_);
    for (size_t i = 0; i < n; ++i) bind(*st, 1, i);
    st->send();
  }

 private:
  Stmt& prep(const Conn& db, int k) {
    Stmt& s = st_[k];
    if (!s) {
      std::string text = head_;
      for (size_t i = 0; i < (size_t{1} << k); ++i) {
        if (i) text += ", ";
        text += row_;
      }
      text += tail_;
      s = Stmt(db, text);
    }
    return s;
  }
  const char* head_;
  const char* row_;
  const char* tail_;
  const char* pg_;
  int per_row_;
  Stmt st_[kMaxLog2 + 1];
  Stmt pg_st_;
};

// A transaction.  A write one serialises writers: SQLite's BEGIN IMMEDIATE
// takes the write lock up front (so the busy timeout covers lock waits
// instead of failing later at the first write); PostgreSQL's takes the
// cluster's advisory lock (READ COMMITTED: every statement after it sees
// what the previous writer committed) and bumps the change counter at
// commit.  A read one is one snapshot (PostgreSQL: REPEATABLE READ).
class Txn {
 public:
  explicit Txn(const Conn& db, bool write = true) : db_(&db) {
    if (db.is_pg()) pg_begin(db.pg(), write);
    else exec(db, write ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  ~Txn() {
    if (!db_) return;
    if (db_->is_pg()) pg_rollback(db_->pg());
    else sqlite3_exec(db_->lite(), "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    if (db_->is_pg()) pg_commit(db_->pg());
    else exec(*db_, "COMMIT");
    db_ = nullptr;
  }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

 private:
  const Conn* db_;
};

}  // namespace mfprio::acct::sql
