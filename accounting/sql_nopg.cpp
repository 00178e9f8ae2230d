// sql_nopg.cpp - sql.hpp's PostgreSQL half in a build without libpq
// (meson -Dpostgresql=disabled, or libpq not found): a PostgreSQL location
// is refused at connect with one line; nothing else can be reached, since
// no PgConn is ever made.
#include <string>

#include "sql.hpp"

namespace mfprio::acct::sql {

PgConn* pg_connect(const PgSession& s) {
  throw StoreError(s.shown + ": this mfprio was built without PostgreSQL support (rebuild with libpq: "
                             "meson setup -Dpostgresql=enabled), so a postgresql:// store cannot be opened");
}
void pg_close(PgConn*) noexcept {}
[[noreturn]] static void unreachable() { throw StoreError("PostgreSQL support not built"); }
void pg_exec(PgConn*, const char*) { unreachable(); }
void pg_begin(PgConn*, bool) { unreachable(); }
void pg_commit(PgConn*) { unreachable(); }
void pg_rollback(PgConn*) noexcept {}
int64_t pg_changes(const PgConn*) { return 0; }
bool pg_changed_by_others(PgConn*) { unreachable(); }
int64_t pg_counter(const PgConn*) { return -1; }
void pg_fail(PgConn*, const std::string&) { unreachable(); }
std::string pg_translate(std::string_view sql) { return std::string(sql); }
PgStmt* pg_prepare(PgConn*, std::string_view) { unreachable(); }
void pg_free(PgStmt*) noexcept {}
void pg_bind_i64(PgStmt*, int, int64_t) { unreachable(); }
void pg_bind_real(PgStmt*, int, double) { unreachable(); }
void pg_bind_text(PgStmt*, int, std::string_view) { unreachable(); }
void pg_bind_null(PgStmt*, int) { unreachable(); }
void pg_bind_blob(PgStmt*, int, std::string_view) { unreachable(); }
void pg_binary_rows(PgStmt*) {}
void pg_arrays(PgStmt*, int) {}
void pg_send(PgStmt*) { unreachable(); }
bool pg_step(PgStmt*) { unreachable(); }
void pg_reset(PgStmt*) {}
int64_t pg_i64(const PgStmt*, int) { return 0; }
double pg_real(const PgStmt*, int) { return 0; }
bool pg_is_null(const PgStmt*, int) { return true; }
std::string_view pg_view(const PgStmt*, int) { return {}; }
std::string_view pg_blob(PgStmt*, int) { return {}; }

}  // namespace mfprio::acct::sql
