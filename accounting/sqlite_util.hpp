// sqlite_util.hpp - small RAII layer over the SQLite C API, private to accounting/.
//
// Entry points:
//   Db            owns a sqlite3* (closed by its deleter)
//   Stmt          owns a prepared sqlite3_stmt*, with typed bind/column helpers
//   StmtUse       scope guard: resets a cached statement and clears its bindings
//   Txn           BEGIN IMMEDIATE ... COMMIT; rolls back in its destructor unless
//                 committed, so an exception anywhere leaves the file unchanged
//
// Invariants: values reach SQL only through sqlite3_bind_*; every SQLite error
// becomes a StoreError whose text names the file and SQLite's message.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "store.hpp"

namespace mfprio::acct::sql {

struct DbCloser {
  void operator()(sqlite3* db) const noexcept { sqlite3_close_v2(db); }
};
struct StmtFinalizer {
  void operator()(sqlite3_stmt* st) const noexcept { sqlite3_finalize(st); }
};
using DbPtr = std::unique_ptr<sqlite3, DbCloser>;
using StmtPtr = std::unique_ptr<sqlite3_stmt, StmtFinalizer>;

[[noreturn]] inline void fail(sqlite3* db, const std::string& what) {
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  std::string msg = (file && *file) ? std::string(file) + ": " : std::string();
  msg += what;
  if (db) {
    msg += ": ";
    msg += sqlite3_errmsg(db);
  }
  throw StoreError(msg);
}

inline void check(sqlite3* db, int rc, const char* what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) fail(db, what);
}

// Runs SQL text that carries no values (schema, pragmas, BEGIN/COMMIT).
inline void exec(sqlite3* db, const char* sql) {
  char* err = nullptr;
  int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
  if (rc != SQLITE_OK) {
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    const char* file = sqlite3_db_filename(db, "main");
    throw StoreError(std::string(file ? file : "") + ": " + msg + " (in: " +
                     std::string(sql).substr(0, 60) + ")");
  }
}

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, std::string_view sql) : db_(db) {
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                                SQLITE_PREPARE_PERSISTENT, &st, nullptr);
    if (rc != SQLITE_OK) fail(db, "prepare \"" + std::string(sql.substr(0, 60)) + "\"");
    st_.reset(st);
  }
  sqlite3_stmt* get() const { return st_.get(); }
  explicit operator bool() const { return st_ != nullptr; }

  Stmt& bind(int i, int64_t v) { return chk(sqlite3_bind_int64(st_.get(), i, v)); }
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, uint32_t v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, bool v) { return bind(i, static_cast<int64_t>(v ? 1 : 0)); }
  Stmt& bind(int i, double v) { return chk(sqlite3_bind_double(st_.get(), i, v)); }
  Stmt& bind(int i, std::string_view v) {
    return chk(sqlite3_bind_text(st_.get(), i, v.data(), static_cast<int>(v.size()),
                                 SQLITE_TRANSIENT));
  }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind_null(int i) { return chk(sqlite3_bind_null(st_.get(), i)); }

  // True while a row is available; false when done.  Errors throw.
  bool step() {
    int rc = sqlite3_step(st_.get());
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    fail(db_, "step \"" + std::string(sqlite3_sql(st_.get())).substr(0, 60) + "\"");
  }
  void run() {
    while (step()) {
    }
  }
  void reset() {
    sqlite3_reset(st_.get());
    sqlite3_clear_bindings(st_.get());
  }

  int64_t i64(int c) const { return sqlite3_column_int64(st_.get(), c); }
  double real(int c) const { return sqlite3_column_double(st_.get(), c); }
  bool is_null(int c) const { return sqlite3_column_type(st_.get(), c) == SQLITE_NULL; }
  // The column's bytes, valid until the next step/reset (no copy).
  std::string_view view(int c) const {
    const unsigned char* p = sqlite3_column_text(st_.get(), c);
    return p ? std::string_view(reinterpret_cast<const char*>(p),
                                static_cast<size_t>(sqlite3_column_bytes(st_.get(), c)))
             : std::string_view();
  }
  std::string text(int c) const {
    const unsigned char* p = sqlite3_column_text(st_.get(), c);
    return p ? std::string(reinterpret_cast<const char*>(p),
                           static_cast<size_t>(sqlite3_column_bytes(st_.get(), c)))
             : std::string();
  }

 private:
  Stmt& chk(int rc) {
    if (rc != SQLITE_OK) fail(db_, "bind");
    return *this;
  }
  sqlite3* db_ = nullptr;
  StmtPtr st_;
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

// A write transaction.  IMMEDIATE takes the write lock up front so the busy
// timeout covers lock waits instead of failing later at the first write.
class Txn {
 public:
  explicit Txn(sqlite3* db, bool write = true) : db_(db) {
    exec(db_, write ? "BEGIN IMMEDIATE" : "BEGIN");
  }
  ~Txn() {
    if (db_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT");
    db_ = nullptr;
  }
  Txn(const Txn&) = delete;
  Txn& operator=(const Txn&) = delete;

 private:
  sqlite3* db_;
};

}  // namespace mfprio::acct::sql
