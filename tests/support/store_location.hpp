// store_location.hpp - where a test's store lives, on the backend the run
// selects (issue 21): the same test code runs on SQLite and on PostgreSQL.
//
//   MFPRIO_TEST_BACKEND  unset, "" or "sqlite": a file in the test's TempDir;
//                        "postgresql": a fresh database on the server of
//                        MFPRIO_TEST_PG (a libpq URI of a database on which
//                        the test role may CREATE DATABASE: the one
//                        tests/support/pg_server.sh prints).  Anything else,
//                        or "postgresql" without MFPRIO_TEST_PG, throws: the
//                        test fails naming what is missing, it never skips.
//
// store_location(dir, "acct.db") stands where dir.file("acct.db") stood: on
// SQLite it is exactly that path; on PostgreSQL the first call for a
// (dir, name) creates a database (CREATE DATABASE ... TEMPLATE, a template
// made once per server holding the default cluster's migrated schema: such
// a store exists, empty, before the test first opens it) and returns its
// URI, later calls the same URI, so a test that reopens "its file" reopens
// its database.  PgTestServer::get().database_for(key) gives an empty
// database instead (tests of what Store::open makes on a server).  The databases a test
// made are dropped (WITH (FORCE)) when the test ends (a GoogleTest listener);
// those made outside a test (a suite's SetUp) at exit.
//
// Measured on this machine (2 cores shared, PostgreSQL 15, fsync off), psql's
// start included: CREATE DATABASE from the template 88 ms at load 2.7, 150
// ms at load 15 (STRATEGY WAL_LOG; FILE_COPY checkpoints: 76 ms idle but
// 1.1 s at load 15), DROP ... WITH (FORCE) 70-110 ms; the schema's
// migrations on a fresh database ~420 ms, which the template saves.
#pragma once

#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "store.hpp"
#include "tempdir.hpp"

namespace mfprio::test {

enum class StoreBackend { sqlite, postgresql };

// The backend of this run (MFPRIO_TEST_BACKEND); throws on an unknown name.
inline StoreBackend store_backend() {
  const char* b = std::getenv("MFPRIO_TEST_BACKEND");
  const std::string s = b ? b : "";
  if (s.empty() || s == "sqlite") return StoreBackend::sqlite;
  if (s == "postgresql") return StoreBackend::postgresql;
  throw std::runtime_error("MFPRIO_TEST_BACKEND=" + s + ": not a store backend (sqlite or postgresql)");
}
inline bool on_postgresql() { return store_backend() == StoreBackend::postgresql; }

// A libpq URI with its database name replaced by `db` (the authority and the
// query, e.g. host=/socket/dir, kept).
inline std::string pg_uri_with_db(const std::string& uri, const std::string& db) {
  std::string::size_type p = uri.find("://");
  if (p == std::string::npos) throw std::runtime_error("MFPRIO_TEST_PG=" + uri + ": not a postgresql:// URI");
  p += 3;
  const std::string::size_type auth_end = uri.find_first_of("/?", p);
  const std::string head = uri.substr(0, auth_end == std::string::npos ? uri.size() : auth_end);
  std::string query;
  if (auth_end != std::string::npos) {
    const std::string::size_type q = uri.find('?', auth_end);
    if (q != std::string::npos) query = uri.substr(q);
  }
  return head + "/" + db + query;
}

// The process's connection to the test server and the databases it made.
class PgTestServer {
 public:
  static PgTestServer& get() {
    static PgTestServer s;
    return s;
  }
  // The server's URI (MFPRIO_TEST_PG); throws naming the variable when unset.
  static std::string base_uri() {
    const char* u = std::getenv("MFPRIO_TEST_PG");
    if (!u || !*u)
      throw std::runtime_error(
          "MFPRIO_TEST_BACKEND=postgresql needs a PostgreSQL server: MFPRIO_TEST_PG is not set (./dev test "
          "starts one; by hand: tests/support/pg_server.sh start DIR, then export MFPRIO_TEST_PG=<the URI it "
          "prints>)");
    return u;
  }

  // The database of `key` (a path in a test's TempDir): made on the first
  // call, the same URI after; dropped at the end of the current test.  Made
  // empty, or with_schema: holding the default cluster's migrated schema (a
  // store that exists, empty, as store_location gives it).
  std::string database_for(const std::string& key, bool with_schema = false) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = by_key_.find(key);
    if (it != by_key_.end()) return it->second;
    connect();
    const std::string tmpl = with_schema ? std::string(kTemplate) : std::string(kTemplate) + "_empty";
    ensure_template(tmpl, with_schema);
    static std::atomic<unsigned> counter{0};
    const auto ns = std::chrono::steady_clock::now().time_since_epoch().count();
    const std::string name = "mfprio_t" + std::to_string(getpid()) + "_" + std::to_string(counter++) + "_" +
                             std::to_string(static_cast<unsigned long long>(ns) % 1000000007ULL);
    exec("CREATE DATABASE " + name + " TEMPLATE " + tmpl + " STRATEGY WAL_LOG");
    made_.push_back(name);
    return by_key_[key] = pg_uri_with_db(base_uri(), name);
  }
  // Drops every database made since the last call (the test's), forcing
  // out any connection still open; errors are reported, not thrown.
  void drop_made() {
    std::lock_guard<std::mutex> lock(mu_);
    if (made_.empty() || !conn_) {
      by_key_.clear();
      return;
    }
    for (const auto& name : made_) {
      PGresult* r = PQexec(conn_, ("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").c_str());
      if (PQresultStatus(r) != PGRES_COMMAND_OK)
        ADD_FAILURE() << "dropping the test database " << name << ": " << PQerrorMessage(conn_);
      PQclear(r);
    }
    made_.clear();
    by_key_.clear();
  }
  ~PgTestServer() {
    if (!conn_) return;
    for (const auto& name : made_) PQclear(PQexec(conn_, ("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)").c_str()));
    PQfinish(conn_);
  }

 private:
  static constexpr const char* kTemplate = "mfprio_template";

  void connect() {
    if (conn_ && PQstatus(conn_) == CONNECTION_OK) return;
    if (conn_) PQfinish(conn_);
    const std::string uri = base_uri();
    conn_ = PQconnectdb(uri.c_str());
    if (PQstatus(conn_) != CONNECTION_OK) {
      const std::string msg = PQerrorMessage(conn_);
      PQfinish(conn_);
      conn_ = nullptr;
      throw std::runtime_error("the tests' PostgreSQL server (MFPRIO_TEST_PG=" + uri + "): " + msg);
    }
    PQclear(PQexec(conn_, "SET client_min_messages = warning"));
  }
  void exec(const std::string& sql) {
    PGresult* r = PQexec(conn_, sql.c_str());
    const bool ok = PQresultStatus(r) == PGRES_COMMAND_OK || PQresultStatus(r) == PGRES_TUPLES_OK;
    PQclear(r);
    if (!ok) throw std::runtime_error("the tests' PostgreSQL server: " + sql + ": " + PQerrorMessage(conn_));
  }
  // A template test databases are copied from, made once per server: an
  // empty database, and (with_schema) one where Store::open has made the
  // default cluster's schema (so a test's store opens without running the
  // migrations, ~0.4 s each).  Test processes race to make them: a session
  // advisory lock makes one of them do it while the others wait, then find it.
  void ensure_template(const std::string& tmpl, bool with_schema) {
    if (have_template_.count(tmpl)) return;
    exec("SELECT pg_advisory_lock(72021)");
    try {
      PGresult* r = PQexec(conn_, ("SELECT 1 FROM pg_database WHERE datname = '" + tmpl + "'").c_str());
      const bool exists = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
      PQclear(r);
      if (!exists) {
        exec("DROP DATABASE IF EXISTS " + tmpl + "_new WITH (FORCE)");  // a crashed maker's
        exec("CREATE DATABASE " + tmpl + "_new");
        if (with_schema) acct::Store::open(pg_uri_with_db(base_uri(), tmpl + "_new"));  // the schema, then closed
        exec("ALTER DATABASE " + tmpl + "_new RENAME TO " + tmpl);
      }
    } catch (...) {
      PQclear(PQexec(conn_, "SELECT pg_advisory_unlock(72021)"));
      throw;
    }
    exec("SELECT pg_advisory_unlock(72021)");
    have_template_.insert(tmpl);
  }

  std::mutex mu_;
  PGconn* conn_ = nullptr;
  std::set<std::string> have_template_;
  std::vector<std::string> made_;
  std::map<std::string, std::string> by_key_;
};

// Drops each test's databases when it ends (registered once per process).
class PgDropAtTestEnd : public ::testing::EmptyTestEventListener {
 public:
  void OnTestEnd(const ::testing::TestInfo&) override { PgTestServer::get().drop_made(); }
  static void install() {
    static const bool once = [] {
      ::testing::UnitTest::GetInstance()->listeners().Append(new PgDropAtTestEnd);
      return true;
    }();
    (void)once;
  }
};

// The store location `name` in `dir` on this run's backend (see the top).
inline std::string store_location(const TempDir& dir, const std::string& name) {
  if (!on_postgresql()) return dir.file(name);
  PgDropAtTestEnd::install();
  return PgTestServer::get().database_for(dir.file(name), true);
}

}  // namespace mfprio::test
