// store_schema.cpp - the schema (as migrations) of the accounting store.
//
// Entry point: detail::migrate(), called by Store::open.
// Invariants:
//   - Migration i (1-based) takes user_version i-1 to i; never edit a shipped
//     migration, append a new one.
//   - Only user associations carry usage (assocs.raw_usage, assoc_tres_usage);
//     account usage is derived by the engine, so decay and charges conserve it.
//   - Shares are stored as a count plus a shares_parent flag (FairShare=parent).
#include "store_schema.hpp"

#include <string>

#include "sqlite_util.hpp"

namespace mfprio::acct::detail {
namespace {

// Migration 1: the initial schema.
constexpr const char* kV1 = R"sql(
CREATE TABLE accounts (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL UNIQUE,
  parent_id     INTEGER REFERENCES accounts(id) ON DELETE RESTRICT,
  shares        INTEGER NOT NULL DEFAULT 1 CHECK (shares >= 0 AND shares <= 4294967295),
  shares_parent INTEGER NOT NULL DEFAULT 0 CHECK (shares_parent IN (0, 1)),
  priority      INTEGER NOT NULL DEFAULT 0 CHECK (priority >= 0 AND priority <= 4294967295),
  description   TEXT NOT NULL DEFAULT '',
  CHECK ((parent_id IS NULL) = (name = 'root'))
);
CREATE INDEX accounts_parent ON accounts(parent_id);
INSERT INTO accounts(name, parent_id, shares, description) VALUES ('root', NULL, 1, 'the cluster');

CREATE TABLE users (
  id                 INTEGER PRIMARY KEY,
  name               TEXT NOT NULL UNIQUE,
  default_account_id INTEGER REFERENCES accounts(id) ON DELETE SET NULL,
  admin              INTEGER NOT NULL DEFAULT 0 CHECK (admin IN (0, 1))
);

CREATE TABLE assocs (
  id            INTEGER PRIMARY KEY,
  user_id       INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  account_id    INTEGER NOT NULL REFERENCES accounts(id) ON DELETE RESTRICT,
  partition     TEXT NOT NULL DEFAULT '',
  shares        INTEGER NOT NULL DEFAULT 1 CHECK (shares >= 0 AND shares <= 4294967295),
  shares_parent INTEGER NOT NULL DEFAULT 0 CHECK (shares_parent IN (0, 1)),
  priority      INTEGER NOT NULL DEFAULT 0 CHECK (priority >= 0 AND priority <= 4294967295),
  raw_usage     REAL NOT NULL DEFAULT 0 CHECK (raw_usage >= 0),
  UNIQUE (user_id, account_id, partition)
);
CREATE INDEX assocs_account ON assocs(account_id);

CREATE TABLE tres (
  id   INTEGER PRIMARY KEY,
  name TEXT NOT NULL UNIQUE
);
INSERT INTO tres(name) VALUES ('cpu'), ('mem'), ('energy'), ('node'), ('billing');

CREATE TABLE assoc_tres_usage (
  assoc_id INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,
  tres_id  INTEGER NOT NULL REFERENCES tres(id) ON DELETE RESTRICT,
  usage    REAL NOT NULL DEFAULT 0 CHECK (usage >= 0),
  PRIMARY KEY (assoc_id, tres_id)
) WITHOUT ROWID;

CREATE TABLE qos (
  id           INTEGER PRIMARY KEY,
  name         TEXT NOT NULL UNIQUE,
  priority     INTEGER NOT NULL DEFAULT 0 CHECK (priority >= 0 AND priority <= 4294967295),
  usage_factor REAL NOT NULL DEFAULT 1.0 CHECK (usage_factor >= 0)
);
INSERT INTO qos(name) VALUES ('normal');

CREATE TABLE partitions (
  id              INTEGER PRIMARY KEY,
  name            TEXT NOT NULL UNIQUE,
  job_factor      INTEGER NOT NULL DEFAULT 1 CHECK (job_factor >= 0 AND job_factor <= 65533),
  billing_weights TEXT NOT NULL DEFAULT '',
  tres_totals     TEXT NOT NULL DEFAULT '',
  is_default      INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1))
);

-- job_id holds the 64-bit job id bit-cast to a signed integer.
CREATE TABLE ledger (
  job_id        INTEGER PRIMARY KEY,
  assoc_id      INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,
  charged_until INTEGER NOT NULL,
  ended         INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1))
);
CREATE INDEX ledger_open ON ledger(ended);
CREATE INDEX ledger_assoc ON ledger(assoc_id);

CREATE TABLE decay_state (
  id         INTEGER PRIMARY KEY CHECK (id = 1),
  last_decay INTEGER NOT NULL DEFAULT 0,
  last_reset INTEGER NOT NULL DEFAULT 0
);
INSERT INTO decay_state(id) VALUES (1);
)sql";

// v2: usage is stored divided by a global decay scale, so a decay pass
// updates one row instead of every association: true usage = stored x scale.
constexpr const char* kV2 = R"sql(
ALTER TABLE decay_state ADD COLUMN scale REAL NOT NULL DEFAULT 1.0 CHECK (scale > 0);
)sql";

// v3: the charge journal (CycleUpdate::defer_usage).  amount is in stored
// units (divided by the decay scale, which only moves after a fold);
// tres_id NULL is the billing usage, else that TRES's usage.
constexpr const char* kV3 = R"sql(
CREATE TABLE charge_journal (
  seq      INTEGER PRIMARY KEY,
  assoc_id INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,
  tres_id  INTEGER REFERENCES tres(id),
  amount   REAL NOT NULL CHECK (amount >= 0)
);
)sql";

// v4: windowed usage (store.hpp: WindowCycle) and its per-family job ledger.
constexpr const char* kV4 = R"sql(
CREATE TABLE usage_windows (
  family  TEXT NOT NULL,
  kind    TEXT NOT NULL,
  name    TEXT NOT NULL,
  start   INTEGER NOT NULL,
  seconds INTEGER NOT NULL CHECK (seconds >= 0),
  usage   REAL NOT NULL CHECK (usage >= 0),
  PRIMARY KEY (family, kind, name, start, seconds)
) WITHOUT ROWID;
CREATE TABLE window_ledger (
  family        TEXT NOT NULL,
  job_id        INTEGER NOT NULL,
  charged_until INTEGER NOT NULL,
  ended         INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1)),
  PRIMARY KEY (family, job_id)
) WITHOUT ROWID;
)sql";

// v5: Flux queues (priority/flux): the queue table, the queues each user
// association may use, and the time an association's raw_usage was last set
// by an import (the flux family counts that usage in the half-life bin
// holding that time).  A queue's priority is a signed 32-bit integer as
// flux-accounting keeps it.  Deleting a queue removes its permissions.
constexpr const char* kV5 = R"sql(
CREATE TABLE queues (
  name     TEXT PRIMARY KEY,
  priority INTEGER NOT NULL DEFAULT 0 CHECK (priority >= -2147483648 AND priority <= 2147483647)
) WITHOUT ROWID;
CREATE TABLE assoc_queues (
  assoc_id INTEGER NOT NULL REFERENCES assocs(id) ON DELETE CASCADE,
  queue    TEXT NOT NULL REFERENCES queues(name) ON DELETE CASCADE,
  PRIMARY KEY (assoc_id, queue)
) WITHOUT ROWID;
CREATE INDEX assoc_queues_queue ON assoc_queues(queue);
ALTER TABLE assocs ADD COLUMN usage_time INTEGER NOT NULL DEFAULT 0 CHECK (usage_time >= 0);
)sql";

// v6: Grid Engine's functional shares and override tickets per user,
// project and department (priority/gridengine).  A project named here is
// also what makes an account node of that name a project node of the share
// tree.
constexpr const char* kV6 = R"sql(
CREATE TABLE ticket_objects (
  kind    TEXT NOT NULL CHECK (kind IN ('user', 'project', 'department')),
  name    TEXT NOT NULL CHECK (name <> ''),
  fshare  INTEGER NOT NULL DEFAULT 0 CHECK (fshare >= 0 AND fshare <= 4294967295),
  oticket INTEGER NOT NULL DEFAULT 0 CHECK (oticket >= 0 AND oticket <= 4294967295),
  PRIMARY KEY (kind, name)
) WITHOUT ROWID;
)sql";

// v7: a cache of the hierarchy as Store::load_tree reads it (accounts,
// users, associations; no usage), so a restart with an unchanged hierarchy
// reads one blob and the usage column instead of every column of every row.
// Every admin write (Store::apply_admin) and every migration clears it.
constexpr const char* kV7 = R"sql(
CREATE TABLE tree_cache (
  id   INTEGER PRIMARY KEY CHECK (id = 1),
  data BLOB
);
INSERT INTO tree_cache(id) VALUES (1);
)sql";

// v8: the store's own settings, one value per key (store.hpp kSetting*):
// the cluster's name (sacctmgr load's Cluster line; show assoc, show
// cluster) and Grid Engine's auto_user_fshare / auto_user_oticket, given to
// every user the store creates without a user ticket object.
constexpr const char* kV8 = R"sql(
CREATE TABLE settings (
  key   TEXT PRIMARY KEY CHECK (key <> ''),
  value TEXT NOT NULL
) WITHOUT ROWID;
)sql";

constexpr const char* kMigrations[] = {kV1, kV2, kV3, kV4, kV5, kV6, kV7, kV8};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kSchemaVersion);

int user_version(sqlite3* db) {
  sql::Stmt st(db, "PRAGMA user_version");
  return st.step() ? static_cast<int>(st.i64(0)) : 0;
}

}  // namespace

int migrate(sqlite3* db, bool read_only) {
  int v = user_version(db);
  if (v > kSchemaVersion)
    sql::fail(nullptr, std::string(sqlite3_db_filename(db, "main")) + ": schema version " +
                           std::to_string(v) + " is newer than this build understands (" +
                           std::to_string(kSchemaVersion) + ")");
  if (v == kSchemaVersion || read_only) {
    if (v != kSchemaVersion)
      throw SchemaUpgradeNeeded(std::string(sqlite3_db_filename(db, "main")) + ": store needs a schema upgrade (" +
                                std::to_string(v) + " -> " + std::to_string(kSchemaVersion) +
                                "); open it once read-write");
    return v;
  }
  sql::Txn txn(db);
  // Re-read inside the write lock: another process may have migrated meanwhile.
  v = user_version(db);
  for (; v < kSchemaVersion; ++v) {
    if (*kMigrations[v]) sql::exec(db, kMigrations[v]);
    // PRAGMA takes no bound parameters; the value is our own integer constant.
    std::string bump = "PRAGMA user_version = " + std::to_string(v + 1);
    sql::exec(db, bump.c_str());
  }
  // A migration may change what the hierarchy reads as: rebuild the cache.
  sql::exec(db, "UPDATE tree_cache SET data = NULL");
  txn.commit();
  return v;
}

}  // namespace mfprio::acct::detail
