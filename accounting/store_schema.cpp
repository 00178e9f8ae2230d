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

#include <cctype>
#include <utility>

#include "sql.hpp"

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

// v9: the job-end path's tables without foreign keys: charge_journal and
// ledger.  Their rows were checked one by one against assocs (and tres),
// which on PostgreSQL also locked each association row (FOR KEY SHARE: WAL
// written, pages dirtied, at every job end).  The charge path checks an
// association id given by the caller itself (store_charge.cpp: one
// statement for the batch; a name or a ledger row gives one that exists);
// deleting an association still deletes its journal and ledger rows (a
// trigger instead of ON DELETE CASCADE); TRES rows are never deleted.
// Every row is kept, seq included (a trigger of that name already there, in
// a store taken back to an older version by hand, is replaced).  PostgreSQL
// runs kV9Pg instead (same outcome: the constraints dropped in place, so
// the tables keep their grants).
constexpr const char* kV9 = R"sql(
DROP TRIGGER IF EXISTS assoc_rows_gone;
CREATE TABLE charge_journal_v9 (
  seq      INTEGER PRIMARY KEY,
  assoc_id INTEGER NOT NULL,
  tres_id  INTEGER,
  amount   REAL NOT NULL CHECK (amount >= 0)
);
INSERT INTO charge_journal_v9(seq, assoc_id, tres_id, amount) SELECT seq, assoc_id, tres_id, amount FROM charge_journal;
DROP TABLE charge_journal;
ALTER TABLE charge_journal_v9 RENAME TO charge_journal;
CREATE TABLE ledger_v9 (
  job_id        INTEGER PRIMARY KEY,
  assoc_id      INTEGER NOT NULL,
  charged_until INTEGER NOT NULL,
  ended         INTEGER NOT NULL DEFAULT 0 CHECK (ended IN (0, 1))
);
INSERT INTO ledger_v9(job_id, assoc_id, charged_until, ended) SELECT job_id, assoc_id, charged_until, ended FROM ledger;
DROP TABLE ledger;
ALTER TABLE ledger_v9 RENAME TO ledger;
CREATE INDEX ledger_open ON ledger(ended);
CREATE INDEX ledger_assoc ON ledger(assoc_id);
CREATE TRIGGER assoc_rows_gone AFTER DELETE ON assocs BEGIN
  DELETE FROM charge_journal WHERE assoc_id = OLD.id;
  DELETE FROM ledger WHERE assoc_id = OLD.id;
END;
)sql";
constexpr const char* kV9Pg = R"sql(
ALTER TABLE charge_journal DROP CONSTRAINT charge_journal_assoc_id_fkey,
  DROP CONSTRAINT charge_journal_tres_id_fkey;
ALTER TABLE ledger DROP CONSTRAINT ledger_assoc_id_fkey;
CREATE OR REPLACE FUNCTION assoc_rows_gone() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS
$$ BEGIN
  DELETE FROM charge_journal WHERE assoc_id = OLD.id;
  DELETE FROM ledger WHERE assoc_id = OLD.id;
  RETURN NULL;
END $$;
DROP TRIGGER IF EXISTS assoc_rows_gone ON assocs;
CREATE TRIGGER assoc_rows_gone AFTER DELETE ON assocs FOR EACH ROW EXECUTE FUNCTION assoc_rows_gone();
)sql";

// v10: the charge journal as one row per association and batch: amount is
// the billing usage, tres the batch's TRES amounts packed into one text
// (store_batch.hpp: pack_tres, "id:amount id:amount ...", each amount the
// shortest text that reads back as the same double), written and read by
// the store only.  Was one row per association and TRES besides (~4 rows
// an association: PostgreSQL's job_end_batch spent most of its insert on
// them).  The journal in place is folded into the usage rows first
// (kV10Fold, both backends), as the next pass would have done (every amount
// kept, now in assocs.raw_usage and assoc_tres_usage), so no row of the old
// form remains.  Also: ledger_open indexes only the open jobs (open_ledger's
// WHERE ended = 0, in job order): an ended job's row, most of the ledger,
// no longer has an entry to write.  SQLite makes the table anew (no DROP
// COLUMN before SQLite 3.35; the trigger as v9 made it); PostgreSQL runs
// kV10Pg, which keeps the table, so its grants stay.
constexpr const char* kV10Fold = R"sql(
UPDATE assocs SET raw_usage = raw_usage + j.s
  FROM (SELECT assoc_id, sum(amount) AS s FROM charge_journal WHERE tres_id IS NULL GROUP BY assoc_id) AS j
  WHERE assocs.id = j.assoc_id;
INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage)
  SELECT assoc_id, tres_id, sum(amount) FROM charge_journal WHERE tres_id IS NOT NULL GROUP BY assoc_id, tres_id
  ON CONFLICT(assoc_id, tres_id) DO UPDATE SET usage = assoc_tres_usage.usage + excluded.usage;
DELETE FROM charge_journal;
)sql";
constexpr const char* kV10 = R"sql(
DROP TRIGGER IF EXISTS assoc_rows_gone;
DROP TABLE charge_journal;
CREATE TABLE charge_journal (
  seq      INTEGER PRIMARY KEY,
  assoc_id INTEGER NOT NULL,
  amount   REAL NOT NULL CHECK (amount >= 0),
  tres     TEXT NOT NULL DEFAULT ''
);
CREATE TRIGGER assoc_rows_gone AFTER DELETE ON assocs BEGIN
  DELETE FROM charge_journal WHERE assoc_id = OLD.id;
  DELETE FROM ledger WHERE assoc_id = OLD.id;
END;
DROP INDEX ledger_open;
CREATE INDEX ledger_open ON ledger(job_id) WHERE ended = 0;
)sql";
constexpr const char* kV10Pg = R"sql(
ALTER TABLE charge_journal DROP COLUMN tres_id, ADD COLUMN tres TEXT COLLATE "C" NOT NULL DEFAULT '';
DROP INDEX ledger_open;
CREATE INDEX ledger_open ON ledger(job_id) WHERE ended = 0;
)sql";

constexpr const char* kMigrations[] = {kV1, kV2, kV3, kV4, kV5, kV6, kV7, kV8, kV9, kV10};
static_assert(sizeof(kMigrations) / sizeof(kMigrations[0]) == kSchemaVersion);

int user_version(sql::Conn& db) {
  sql::Stmt st(db, "PRAGMA user_version");
  return st.step() ? static_cast<int>(st.i64(0)) : 0;
}

bool word_at(const std::string& s, size_t i, const std::string& w) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  return s.compare(i, w.size(), w) == 0 && (i == 0 || !ident(s[i - 1])) &&
         (i + w.size() >= s.size() || !ident(s[i + w.size()]));
}

[[noreturn]] void newer(const std::string& where, int v) {
  throw StoreError(where + ": schema version " + std::to_string(v) + " is newer than this build understands (" +
                   std::to_string(kSchemaVersion) + ")");
}

// PostgreSQL: the cluster schema's version, -1 when the schema is missing.
int pg_version(sql::Conn& db, const std::string& schema) {
  {
    sql::Stmt st(db, "SELECT 1 FROM pg_namespace WHERE nspname = ?1");
    st.bind(1, schema);
    if (!st.step()) return -1;
  }
  sql::Stmt st(db, "SELECT version FROM store_meta WHERE id = 1");
  if (!st.step()) throw StoreError(db.name() + ": schema " + schema + " holds no mfprio store (no store_meta row)");
  return static_cast<int>(st.i64(0));
}

// The cluster's schema, its bookkeeping table (version; the change counter
// sql.hpp's write transactions bump) and its line in the shared list of
// clusters (schema mfprio, for mfprio-acct show cluster).
void pg_create(sql::Conn& db, const MigrateOptions& o) {
  // Every creator takes this lock too: two clusters made at once do not
  // race on the shared schema.
  sql::exec(db, "SELECT pg_advisory_xact_lock(7236828750624404338)");
  const std::string sql = "CREATE SCHEMA \"" + o.schema + "\";"
      " CREATE TABLE store_meta (id BIGINT PRIMARY KEY CHECK (id = 1), version BIGINT NOT NULL,"
      " changes BIGINT NOT NULL);"
      " INSERT INTO store_meta VALUES (1, 0, 0);"
      " CREATE SCHEMA IF NOT EXISTS mfprio;"
      " CREATE TABLE IF NOT EXISTS mfprio.clusters (name TEXT COLLATE \"C\" PRIMARY KEY);";
  sql::exec(db, sql.c_str());
  sql::Stmt st(db, "INSERT INTO mfprio.clusters(name) VALUES (?1) ON CONFLICT DO NOTHING");
  st.bind(1, o.cluster).run();
}

int migrate_pg(sql::Conn& db, const MigrateOptions& o) {
  int v;
  {
    sql::Txn read(db, /*write=*/false);
    v = pg_version(db, o.schema);
  }
  if (v == kSchemaVersion) return v;
  if (v > kSchemaVersion) newer(db.name() + " cluster '" + o.cluster + "'", v);
  if (v < 0 && (o.read_only || !o.create))
    throw StoreError(db.name() + ": no store for cluster '" + o.cluster + "' in this database (schema " +
                     o.schema + " is missing; mfprio-acct cluster=" + o.cluster + " import, or a plugin's first "
                     "start, creates it)");
  if (o.read_only)
    throw SchemaUpgradeNeeded(db.name() + " cluster '" + o.cluster + "': store needs a schema upgrade (" +
                              std::to_string(v) + " -> " + std::to_string(kSchemaVersion) +
                              "); open it once read-write");
  sql::Txn txn(db);
  v = pg_version(db, o.schema);  // again under the lock: another may have migrated
  if (v < 0) {
    pg_create(db, o);
    v = 0;
  }
  if (v > kSchemaVersion) newer(db.name() + " cluster '" + o.cluster + "'", v);
  const int from = v;
  for (; v < kSchemaVersion; ++v) {
    if (kMigrations[v] == kV10) sql::exec(db, kV10Fold);  // no type to spell: the same text
    if (kMigrations[v] == kV9) sql::exec(db, kV9Pg);
    else if (kMigrations[v] == kV10) sql::exec(db, kV10Pg);
    else if (*kMigrations[v]) sql::exec(db, pg_ddl(kMigrations[v]).c_str());
    // The tree cache's blob is written whole at a start and read whole at
    // the next: stored out of line uncompressed (pglz would cost more at
    // each write than it saves at a read).  Storage only: same schema.
    if (kMigrations[v] == kV7) sql::exec(db, "ALTER TABLE tree_cache ALTER COLUMN data SET STORAGE EXTERNAL");
    sql::Stmt st(db, "UPDATE store_meta SET version = ?1 WHERE id = 1");
    st.bind(1, v + 1).run();
  }
  if (from != v) sql::exec(db, "UPDATE tree_cache SET data = NULL");
  txn.commit();
  return v;
}

}  // namespace

std::string pg_ddl(const char* sqlite_text) {
  static const std::pair<std::string, std::string> kWords[] = {
      {"INTEGER PRIMARY KEY", "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"},
      {"INTEGER", "BIGINT"},
      {"REAL", "DOUBLE PRECISION"},
      {"BLOB", "BYTEA"},
      {"TEXT", "TEXT COLLATE \"C\""},  // byte order, as SQLite compares and sorts
      {"WITHOUT ROWID", ""},
  };
  const std::string in = sqlite_text;
  std::string out;
  for (size_t i = 0; i < in.size();) {
    bool hit = false;
    for (const auto& [from, to] : kWords)
      if (word_at(in, i, from)) {
        out += to;
        i += from.size();
        hit = true;
        break;
      }
    if (!hit) out += in[i++];
  }
  return out;
}

// Every table of a cluster's schema (schema 10), store_meta included.
constexpr const char* kTables[] = {"accounts", "users", "assocs", "tres", "assoc_tres_usage", "qos", "partitions",
                                   "ledger", "decay_state", "charge_journal", "usage_windows", "window_ledger",
                                   "queues", "assoc_queues", "ticket_objects", "tree_cache", "settings",
                                   "store_meta"};

// What a controller writes (store_charge.cpp, store_windows.cpp: the usage pass,
// job ends, the journal's fold; store.cpp: the tree cache): table and privileges, columns named
// where it updates only some.
constexpr std::pair<const char*, const char*> kControllerWrites[] = {
    {"assocs", "UPDATE (raw_usage)"},
    {"assoc_tres_usage", "INSERT, UPDATE (usage)"},
    {"charge_journal", "INSERT, DELETE"},
    {"ledger", "INSERT, UPDATE (charged_until, ended)"},
    {"usage_windows", "INSERT, UPDATE (usage), DELETE"},
    {"window_ledger", "INSERT, UPDATE (charged_until, ended)"},
    {"decay_state", "UPDATE (last_decay, last_reset, scale)"},
    {"store_meta", "UPDATE (changes)"},
    {"tres", "INSERT"},
    {"tree_cache", "UPDATE (data)"},  // the hierarchy cache a start writes (store.cpp: load_tree)
};

std::string pg_grants(const std::string& schema, const std::string& admin, const std::string& controller) {
  for (const std::string* r : {&admin, &controller}) {
    bool ok = !r->empty() && r->size() <= 63 && !((*r)[0] >= '0' && (*r)[0] <= '9');
    for (char c : *r) ok = ok && ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_');
    if (!ok) throw StoreError("role name '" + *r + "' is not 1 to 63 of a-z, 0-9 and _ (not starting with a digit)");
  }
  if (admin == controller) throw StoreError("the admin and the controller role must differ");
  const std::string s = "\"" + schema + "\"", a = "\"" + admin + "\"", c = "\"" + controller + "\"";
  std::string out = "-- mfprio store " + schema + ": admin role " + admin + ", controller role " + controller + "\n";
  out += "ALTER SCHEMA " + s + " OWNER TO " + a + ";\n";
  for (const char* t : kTables) out += "ALTER TABLE " + s + "." + t + " OWNER TO " + a + ";\n";
  out += "GRANT USAGE ON SCHEMA mfprio TO " + a + ", " + c + ";\n";
  out += "GRANT SELECT, INSERT ON mfprio.clusters TO " + a + ";\n";
  out += "GRANT SELECT ON mfprio.clusters TO " + c + ";\n";
  out += "REVOKE ALL ON ALL TABLES IN SCHEMA " + s + " FROM " + c + ";\n";
  out += "GRANT USAGE ON SCHEMA " + s + " TO " + c + ";\n";
  out += "GRANT SELECT ON ALL TABLES IN SCHEMA " + s + " TO " + c + ";\n";
  for (const auto& [table, what] : kControllerWrites)
    out += "GRANT " + std::string(what) + " ON " + s + "." + table + " TO " + c + ";\n";
  return out;
}

int migrate(sql::Conn& db, const MigrateOptions& o) {
  if (db.is_pg()) return migrate_pg(db, o);
  int v = user_version(db);
  if (v > kSchemaVersion) newer(db.name(), v);
  if (v == kSchemaVersion || o.read_only) {
    if (v != kSchemaVersion)
      throw SchemaUpgradeNeeded(db.name() + ": store needs a schema upgrade (" +
                                std::to_string(v) + " -> " + std::to_string(kSchemaVersion) +
                                "); open it once read-write");
    return v;
  }
  sql::Txn txn(db);
  // Re-read inside the write lock: another process may have migrated meanwhile.
  v = user_version(db);
  for (; v < kSchemaVersion; ++v) {
    if (kMigrations[v] == kV10) sql::exec(db, kV10Fold);
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
