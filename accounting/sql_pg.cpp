// sql_pg.cpp - the PostgreSQL half of sql.hpp, through libpq.
//
// A PgConn is one server connection whose search_path is its cluster's
// schema.  A PgStmt is prepared (PQprepare) on its first step and again
// after a reconnect; each step of a fresh execution sends the bound values
// as text (PQexecPrepared): integers in decimal, doubles as %.17g so every
// value round-trips exactly (a BYTEA's bytes as they are, binary), and
// reads the rows from the PGresult: as text, or binary for a statement
// marked so (pg_binary_rows: the load's big reads and the tree cache's
// blob), decoded by the column's type.  A statement in array mode
// (pg_arrays: ListStmt's PostgreSQL form) collects each parameter's values
// into one array literal ({1,2,NULL}; text double-quoted), so a list of rows
// is one execution of one plan.
//
// Faults: a failed statement throws StoreError naming the URI without its
// password and the server's message.  A connection that dropped (server
// restart, pg_terminate_backend) fails the call that finds it (the server
// rolled its transaction back: nothing half-applied); the next call outside
// a transaction reconnects and re-prepares.
#include <libpq-fe.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sql.hpp"

namespace mfprio::acct::sql {

class PgConn {
 public:
  PgSession s;
  PGconn* c = nullptr;
  uint64_t generation = 1;  // bumped by each reconnect: statements re-prepare
  uint64_t next_name = 0;
  bool in_txn = false, write_txn = false;
  int64_t changes = 0;
  int64_t seen_counter = -1;  // store_meta.changes as this connection last saw or wrote it
  bool others = false;        // another connection committed in between
  // Pipeline mode (pg_send): what was sent and not yet read back, in order
  // (for messages); read, and the pipeline left, before anything else runs.
  std::vector<std::string> sent;
};

class PgStmt {
 public:
  PgConn* c = nullptr;
  std::string text;  // translated
  std::string name;
  uint64_t prepared = 0;  // the connection generation it was prepared in; 0: not yet
  std::vector<std::string> vals;
  std::vector<char> set;  // 0: NULL
  std::vector<int> formats;  // per value: 0 text, 1 binary (a BYTEA's bytes)
  bool binary = false;       // rows in binary form (pg_binary_rows)
  int arrays = 0;            // parameters 1..arrays are arrays being filled (pg_arrays)
  std::string scratch;       // a text-form BYTEA, decoded (pg_blob)
  PGresult* res = nullptr;
  int row = -1, rows = 0;
};

namespace {

void no_notices(void*, const char*) {}

// The server's message on one line.
std::string one_line(const char* m) {
  std::string s = m ? m : "";
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  for (char& ch : s)
    if (ch == '\n') ch = ' ';
  return s;
}

[[noreturn]] void throw_err(PgConn* c, const std::string& what, const PGresult* r) {
  std::string msg = c->s.shown + ": " + what + ": " + one_line(r ? PQresultErrorMessage(r) : PQerrorMessage(c->c));
  if (PQstatus(c->c) != CONNECTION_OK)
    msg += " (the connection to the server was lost: nothing of this call was applied; the next call reconnects)";
  throw StoreError(msg);
}

void set_session(PgConn* c) {
  PQsetNoticeProcessor(c->c, no_notices, nullptr);
  // The schema name was checked ([a-z0-9_]); quoted all the same.
  std::string sql = "SET search_path = \"" + c->s.schema + "\"; SET extra_float_digits = 3";
  if (c->s.read_only) sql += "; SET default_transaction_read_only = on";
  PGresult* r = PQexec(c->c, sql.c_str());
  const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK;
  if (!ok) {
    const std::string m = one_line(PQresultErrorMessage(r));
    PQclear(r);
    throw StoreError(c->s.shown + ": session setup: " + m);
  }
  PQclear(r);
}

// Outside a transaction, a dropped connection is made again here.
void ensure(PgConn* c) {
  if (PQstatus(c->c) == CONNECTION_OK) return;
  if (c->in_txn) throw_err(c, "connection lost", nullptr);
  PQreset(c->c);
  if (PQstatus(c->c) != CONNECTION_OK)
    throw StoreError(c->s.shown + ": cannot reconnect: " + one_line(PQerrorMessage(c->c)));
  ++c->generation;
  set_session(c);
}

void pipe_enter(PgConn* c) {
  if (PQpipelineStatus(c->c) == PQ_PIPELINE_OFF && PQenterPipelineMode(c->c) != 1)
    throw_err(c, "entering pipeline mode", nullptr);
}

// The results of everything sent (the first result of each, in order; null
// where the connection ended first), then the pipeline's end.  The caller
// clears them.
std::vector<PGresult*> read_sent(PgConn* c) {
  std::vector<PGresult*> out;
  if (c->sent.empty()) return out;
  bool live = PQpipelineSync(c->c) == 1;
  for (size_t i = 0; i < c->sent.size(); ++i) {
    PGresult* first = nullptr;
    while (live) {
      PGresult* x = PQgetResult(c->c);
      if (!x) break;
      if (!first) first = x;
      else PQclear(x);
      if (PQstatus(c->c) != CONNECTION_OK) live = false;
    }
    out.push_back(first);
  }
  if (live) PQclear(PQgetResult(c->c));  // PGRES_PIPELINE_SYNC
  PQexitPipelineMode(c->c);              // fails only on a dead connection, which PQreset restarts
  return out;
}

bool ok(const PGresult* r) {
  if (!r) return false;
  const ExecStatusType st = PQresultStatus(r);
  return st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
}

// Throws for the first of `rs` that failed, naming what was sent (every
// result cleared, the sent list emptied either way).
void check_sent(PgConn* c, std::vector<PGresult*>& rs) {
  std::vector<std::string> what;
  what.swap(c->sent);
  size_t bad = rs.size();
  for (size_t i = 0; i < rs.size() && bad == rs.size(); ++i)
    if (!ok(rs[i])) bad = i;
  if (bad == rs.size()) {
    for (PGresult* r : rs) PQclear(r);
    return;
  }
  try {
    throw_err(c, what[bad], rs[bad]);
  } catch (...) {
    for (PGresult* r : rs) PQclear(r);
    throw;
  }
}

// Reads back what was sent; its first failure throws.
void flush_sent(PgConn* c) {
  if (c->sent.empty()) return;
  std::vector<PGresult*> rs = read_sent(c);
  check_sent(c, rs);
}

PGresult* run_text(PgConn* c, const char* sql) {
  flush_sent(c);
  ensure(c);
  PGresult* r = PQexec(c->c, sql);
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    const std::string head = std::string(sql).substr(0, 60);
    try {
      throw_err(c, "\"" + head + "\"", r);
    } catch (...) {
      PQclear(r);
      throw;
    }
  }
  return r;
}

int64_t parse_i64(const char* v) {
  if (!v || !*v) return 0;
  if (v[0] == 't' && !v[1]) return 1;  // a boolean result (IS NOT NULL, EXISTS)
  if (v[0] == 'f' && !v[1]) return 0;
  return std::strtoll(v, nullptr, 10);
}

}  // namespace

PgConn* pg_connect(const PgSession& s) {
  auto* c = new PgConn;
  c->s = s;
  c->c = PQconnectdb(s.uri.c_str());
  if (!c->c || PQstatus(c->c) != CONNECTION_OK) {
    const std::string m = c->c ? one_line(PQerrorMessage(c->c)) : std::string("out of memory");
    pg_close(c);
    throw StoreError(s.shown + ": cannot connect to the PostgreSQL server: " + m);
  }
  try {
    set_session(c);
  } catch (...) {
    pg_close(c);
    throw;
  }
  return c;
}

void pg_close(PgConn* c) noexcept {
  if (!c) return;
  if (c->c) PQfinish(c->c);
  delete c;
}

void pg_exec(PgConn* c, const char* sql) { PQclear(run_text(c, sql)); }

void pg_begin(PgConn* c, bool write) {
  if (write && c->s.read_only) throw StoreError(c->s.shown + ": store opened read-only");
  if (!write) {
    pg_exec(c, "BEGIN ISOLATION LEVEL REPEATABLE READ");
    c->in_txn = true;
    c->write_txn = false;
    return;
  }
  // Writers of one cluster one at a time (store.hpp: PassClock): the lock is
  // the transaction's, released by its COMMIT or ROLLBACK (or the server,
  // when the connection drops).  Sent without waiting (pipeline mode): the
  // two travel with the transaction's first statement, whose results wait
  // for theirs (a failure of either is thrown there, by pg_commit at the
  // latest).
  flush_sent(c);
  ensure(c);
  pipe_enter(c);
  const std::string lock = "SELECT pg_advisory_xact_lock(" + std::to_string(c->s.lock_key) + ")";
  for (const char* q : {"BEGIN", lock.c_str()}) {
    if (PQsendQueryParams(c->c, q, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1) throw_err(c, "\"BEGIN\"", nullptr);
    c->sent.push_back(std::string("\"") + q + "\"");
  }
  c->in_txn = true;
  c->write_txn = true;
}

// A write transaction's counter bump and its COMMIT go in the pipeline
// after whatever was sent (pg_send): one round trip for all of it.  The
// server skips everything after a failed statement (the COMMIT included);
// every result is read before the first failure is reported, and a failure
// leaves in_txn set: Txn rolls back.
void pg_commit(PgConn* c) {
  bool rolled_back = false;
  if (c->write_txn) {
    ensure(c);
    pipe_enter(c);
    static const char* const kCounter = "UPDATE store_meta SET changes = changes + 1 WHERE id = 1 RETURNING changes";
    for (const char* q : {kCounter, "COMMIT"}) {
      if (PQsendQueryParams(c->c, q, 0, nullptr, nullptr, nullptr, nullptr, 0) != 1)
        throw_err(c, "\"COMMIT\"", nullptr);
      c->sent.push_back(q == kCounter ? "\"UPDATE store_meta\"" : "\"COMMIT\"");
    }
    std::vector<PGresult*> rs = read_sent(c);
    const PGresult* counter = rs[rs.size() - 2];
    const PGresult* commit = rs.back();
    const int64_t v = ok(counter) && PQntuples(counter) == 1 ? parse_i64(PQgetvalue(counter, 0, 0)) : 0;
    rolled_back = ok(commit) && std::strcmp(PQcmdStatus(const_cast<PGresult*>(commit)), "ROLLBACK") == 0;
    check_sent(c, rs);  // the first failure, if any, throws
    if (c->seen_counter >= 0 && v != c->seen_counter + 1) c->others = true;
    c->seen_counter = v;
  } else {
    PGresult* r = run_text(c, "COMMIT");
    rolled_back = std::strcmp(PQcmdStatus(r), "ROLLBACK") == 0;
    PQclear(r);
  }
  // COMMIT of a transaction the server already aborted answers ROLLBACK.
  c->in_txn = false;
  if (rolled_back) throw StoreError(c->s.shown + ": the transaction was rolled back by the server");
}

void pg_rollback(PgConn* c) noexcept {
  if (!c->sent.empty()) {
    std::vector<PGresult*> rs = read_sent(c);  // what it says no longer matters
    for (PGresult* r : rs) PQclear(r);
    c->sent.clear();
  }
  const bool was = c->in_txn;
  c->in_txn = false;
  if (!was || PQstatus(c->c) != CONNECTION_OK) return;
  PQclear(PQexec(c->c, "ROLLBACK"));
}

int64_t pg_changes(const PgConn* c) { return c->changes; }

bool pg_changed_by_others(PgConn* c) {
  PGresult* r = run_text(c, "SELECT changes FROM store_meta WHERE id = 1");
  const int64_t v = PQntuples(r) == 1 ? parse_i64(PQgetvalue(r, 0, 0)) : 0;
  PQclear(r);
  const bool changed = c->others || (c->seen_counter >= 0 && v != c->seen_counter);
  c->others = false;
  c->seen_counter = v;
  return changed;
}

int64_t pg_counter(const PgConn* c) { return c->seen_counter; }

void pg_fail(PgConn* c, const std::string& what) { throw_err(c, what, nullptr); }

std::string pg_translate(std::string_view sql) {
  std::string out;
  out.reserve(sql.size() + 8);
  int anon = 0;
  char quote = 0;
  for (size_t i = 0; i < sql.size(); ++i) {
    const char ch = sql[i];
    if (quote) {
      out += ch;
      if (ch == quote) quote = 0;
      continue;
    }
    if (ch == '\'' || ch == '"') {
      quote = ch;
      out += ch;
    } else if (ch == '?') {
      out += '$';
      if (i + 1 < sql.size() && sql[i + 1] >= '0' && sql[i + 1] <= '9') continue;  // ?N: the digits follow
      out += std::to_string(++anon);
    } else {
      out += ch;
    }
  }
  return out;
}

PgStmt* pg_prepare(PgConn* c, std::string_view sql) {
  auto* s = new PgStmt;
  s->c = c;
  s->text = pg_translate(sql);
  s->name = "mfprio_" + std::to_string(++c->next_name);
  return s;
}

void pg_free(PgStmt* s) noexcept {
  if (!s) return;
  if (s->res) PQclear(s->res);
  delete s;
}

namespace {
// Array mode: one more element of array parameter i, in the text form of
// an array ({a,b,NULL}, closed by execute); text elements double-quoted.
void append(PgStmt* s, int i, std::string_view v, bool is_set, bool quote) {
  std::string& a = s->vals[static_cast<size_t>(i) - 1];
  if (a.size() > 1) a += ',';
  if (!is_set) {
    a += "NULL";
    return;
  }
  if (!quote) {
    a += v;
    return;
  }
  a += '"';
  for (char ch : v) {
    if (ch == '"' || ch == '\\') a += '\\';
    a += ch;
  }
  a += '"';
}

void put(PgStmt* s, int i, std::string v, bool is_set, int format = 0, bool quote = false) {
  if (i < 1 || i > 65535) throw StoreError(s->c->s.shown + ": bind: parameter index " + std::to_string(i));
  if (i <= s->arrays) {
    if (format != 0) throw StoreError(s->c->s.shown + ": bind: a BYTEA in an array parameter");
    return append(s, i, v, is_set, quote);
  }
  const size_t k = static_cast<size_t>(i);
  if (s->vals.size() < k) {
    s->vals.resize(k);
    s->set.resize(k, 0);
    s->formats.resize(k, 0);
  }
  s->vals[k - 1] = std::move(v);
  s->set[k - 1] = is_set;
  s->formats[k - 1] = format;
}

void prepare(PgStmt* s) {
  PgConn* c = s->c;
  if (s->prepared != c->generation) {
    flush_sent(c);  // a synchronous call: not inside a pipeline
    PGresult* r = PQprepare(c->c, s->name.c_str(), s->text.c_str(), 0, nullptr);
    if (PQresultStatus(r) != PGRES_COMMAND_OK) {
      try {
        throw_err(c, "prepare \"" + s->text.substr(0, 60) + "\"", r);
      } catch (...) {
        PQclear(r);
        throw;
      }
    }
    PQclear(r);
    s->prepared = c->generation;
  }
}

// The bound values as libpq takes them (array parameters closed).
struct Params {
  std::vector<const char*> vals;
  std::vector<int> lengths;
  explicit Params(PgStmt* s) : vals(s->vals.size()), lengths(s->vals.size()) {
    if (s->arrays)
      for (int i = 0; i < s->arrays; ++i) s->vals[static_cast<size_t>(i)] += '}';
    for (size_t i = 0; i < vals.size(); ++i) {
      vals[i] = s->set[i] ? s->vals[i].c_str() : nullptr;
      lengths[i] = static_cast<int>(s->vals[i].size());
    }
  }
};

// After statements sent without waiting (pg_begin, pg_send), the
// statement joins the pipeline and their results are read with its own, in
// the same round trip; the first failure among them is the one reported.
void execute(PgStmt* s) {
  PgConn* c = s->c;
  ensure(c);
  prepare(s);
  const Params p(s);
  PGresult* r = nullptr;
  if (c->sent.empty()) {
    r = PQexecPrepared(c->c, s->name.c_str(), static_cast<int>(p.vals.size()), p.vals.data(), p.lengths.data(),
                       s->formats.data(), s->binary ? 1 : 0);
  } else {
    if (PQsendQueryPrepared(c->c, s->name.c_str(), static_cast<int>(p.vals.size()), p.vals.data(),
                            p.lengths.data(), s->formats.data(), s->binary ? 1 : 0) != 1)
      throw_err(c, "step \"" + s->text.substr(0, 60) + "\"", nullptr);
    c->sent.push_back("step \"" + s->text.substr(0, 60) + "\"");
    std::vector<PGresult*> rs = read_sent(c);
    r = rs.back();
    rs.pop_back();
    c->sent.pop_back();
    try {
      check_sent(c, rs);
    } catch (...) {
      PQclear(r);
      throw;
    }
    if (!r) throw_err(c, "step \"" + s->text.substr(0, 60) + "\"", nullptr);
  }
  const ExecStatusType st = PQresultStatus(r);
  if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
    try {
      throw_err(c, "step \"" + s->text.substr(0, 60) + "\"", r);
    } catch (...) {
      PQclear(r);
      throw;
    }
  }
  const char* n = PQcmdTuples(r);
  c->changes = n && *n ? std::strtoll(n, nullptr, 10) : 0;
  s->res = r;
  s->rows = st == PGRES_TUPLES_OK ? PQntuples(r) : 0;
  s->row = -1;
}
}  // namespace

void pg_bind_i64(PgStmt* s, int i, int64_t v) { put(s, i, std::to_string(v), true); }

void pg_bind_real(PgStmt* s, int i, double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  put(s, i, buf, true);
}

void pg_bind_text(PgStmt* s, int i, std::string_view v) {
  if (v.find('\0') != std::string_view::npos)
    throw StoreError(s->c->s.shown + ": a text value holds a NUL byte (PostgreSQL text cannot)");
  put(s, i, std::string(v), true, 0, /*quote=*/true);
}

void pg_bind_null(PgStmt* s, int i) { put(s, i, std::string(), false); }

void pg_bind_blob(PgStmt* s, int i, std::string_view v) {
  if (v.size() > INT32_MAX) throw StoreError(s->c->s.shown + ": a value of " + std::to_string(v.size()) + " bytes");
  put(s, i, std::string(v), true, 1);
}

void pg_binary_rows(PgStmt* s) { s->binary = true; }

void pg_arrays(PgStmt* s, int n) {
  s->arrays = n;
  s->vals.assign(static_cast<size_t>(n), std::string(1, '{'));
  s->set.assign(static_cast<size_t>(n), 1);
  s->formats.assign(static_cast<size_t>(n), 0);
}

void pg_send(PgStmt* s) {
  PgConn* c = s->c;
  ensure(c);
  prepare(s);
  pipe_enter(c);
  const Params p(s);
  if (PQsendQueryPrepared(c->c, s->name.c_str(), static_cast<int>(p.vals.size()), p.vals.data(), p.lengths.data(),
                          s->formats.data(), 0) != 1)
    throw_err(c, "step \"" + s->text.substr(0, 60) + "\"", nullptr);
  c->sent.push_back("step \"" + s->text.substr(0, 60) + "\"");
}

bool pg_step(PgStmt* s) {
  if (!s->res) execute(s);
  return ++s->row < s->rows;
}

void pg_reset(PgStmt* s) {
  if (s->res) PQclear(s->res);
  s->res = nullptr;
  s->rows = 0;
  s->row = -1;
  s->vals.clear();
  s->set.clear();
  s->formats.clear();
  s->arrays = 0;
  std::string().swap(s->scratch);
}

namespace {
// Binary rows (pg_binary_rows): numbers in network byte order, by the
// column's type; a type the store never reads this way is an error.
constexpr Oid kBool = 16, kInt8 = 20, kInt2 = 21, kInt4 = 23, kFloat4 = 700, kFloat8 = 701;

uint64_t be_bits(const char* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

[[noreturn]] void bad_type(const PgStmt* s, int c) {
  throw StoreError(s->c->s.shown + ": column " + std::to_string(c) + " of \"" + s->text.substr(0, 60) +
                   "\": type " + std::to_string(PQftype(s->res, c)) + " in binary rows");
}

int64_t bin_i64(const PgStmt* s, int c) {
  const char* v = PQgetvalue(s->res, s->row, c);
  const int n = PQgetlength(s->res, s->row, c);
  if (n == 0) return 0;  // NULL
  switch (PQftype(s->res, c)) {
    case kInt8: return n == 8 ? static_cast<int64_t>(be_bits(v, 8)) : 0;
    case kInt4: return n == 4 ? static_cast<int32_t>(static_cast<uint32_t>(be_bits(v, 4))) : 0;
    case kInt2: return n == 2 ? static_cast<int16_t>(static_cast<uint16_t>(be_bits(v, 2))) : 0;
    case kBool: return v[0] != 0;
    default: bad_type(s, c);
  }
}

double bin_real(const PgStmt* s, int c) {
  const char* v = PQgetvalue(s->res, s->row, c);
  const int n = PQgetlength(s->res, s->row, c);
  if (n == 0) return 0.0;  // NULL
  switch (PQftype(s->res, c)) {
    case kFloat8: {
      const uint64_t b = be_bits(v, 8);
      double d;
      std::memcpy(&d, &b, sizeof d);
      return n == 8 ? d : 0.0;
    }
    case kFloat4: {
      const uint32_t b = static_cast<uint32_t>(be_bits(v, 4));
      float f;
      std::memcpy(&f, &b, sizeof f);
      return n == 4 ? f : 0.0;
    }
    case kInt8: case kInt4: case kInt2: return static_cast<double>(bin_i64(s, c));
    default: bad_type(s, c);
  }
}
}  // namespace

int64_t pg_i64(const PgStmt* s, int c) {
  if (s->binary) return bin_i64(s, c);
  return parse_i64(PQgetvalue(s->res, s->row, c));
}

double pg_real(const PgStmt* s, int c) {
  if (s->binary) return bin_real(s, c);
  const char* v = PQgetvalue(s->res, s->row, c);
  return v && *v ? std::strtod(v, nullptr) : 0.0;
}

bool pg_is_null(const PgStmt* s, int c) { return PQgetisnull(s->res, s->row, c) != 0; }

std::string_view pg_view(const PgStmt* s, int c) {
  return std::string_view(PQgetvalue(s->res, s->row, c), static_cast<size_t>(PQgetlength(s->res, s->row, c)));
}

std::string_view pg_blob(PgStmt* s, int c) {
  if (s->binary) return pg_view(s, c);
  // Text form: \x and two hex digits a byte.
  const std::string_view t = pg_view(s, c);
  if (t.size() < 2 || t[0] != '\\' || t[1] != 'x') return t;
  auto hex = [](char h) { return h <= '9' ? h - '0' : (h | 0x20) - 'a' + 10; };
  s->scratch.resize((t.size() - 2) / 2);
  for (size_t i = 0; i < s->scratch.size(); ++i)
    s->scratch[i] = static_cast<char>(hex(t[2 + 2 * i]) << 4 | hex(t[3 + 2 * i]));
  return s->scratch;
}

}  // namespace mfprio::acct::sql
