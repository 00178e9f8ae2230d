// store_schema.hpp - the store's schema version and forward migrations (private).
//
// Entry point: migrate(db, options) right after open.  Returns the version
// the store is at afterwards.
// Invariant: the version = number of migrations applied (SQLite: PRAGMA
// user_version; PostgreSQL: the cluster schema's store_meta.version); the
// migrations run in one transaction together with the version bump, so a
// crash leaves the store at a whole version.  A store newer than this build
// is refused.  Both backends run the same migrations: PostgreSQL's text is
// SQLite's with its types spelled for PostgreSQL (pg_ddl), but for v9's and
// v10's, whose outcome is the same through PostgreSQL's own statements
// (store_schema.cpp).
#pragma once

#include <string>

#include "sql.hpp"

namespace mfprio::acct::detail {

inline constexpr int kSchemaVersion = 10;

struct MigrateOptions {
  bool read_only = false;
  bool create = true;      // PostgreSQL: create the cluster's schema when missing
  std::string cluster;     // PostgreSQL: its name (the clusters list) and schema
  std::string schema;
};

int migrate(sql::Conn& db, const MigrateOptions& opts);

// A migration's SQLite text for PostgreSQL (store_schema.cpp).
std::string pg_ddl(const char* sqlite_text);

// Store::grants' statements for the cluster schema `schema` (names checked).
std::string pg_grants(const std::string& schema, const std::string& admin, const std::string& controller);

}  // namespace mfprio::acct::detail
