// test_store_pg.cpp - what only a PostgreSQL store has (issue 21): the open
// error naming the URI without its password, a terminated backend (the
// call fails cleanly, the next reconnects), statement_timeout, a schema
// newer than the program, clusters as schemas that do not see each other,
// and writers of one cluster serialised (a decay pass applied once, a job
// end charged once, whichever Store runs it).  Against the real server of
// MFPRIO_TEST_PG (tests/support/pg_server.sh); without it every test here
// fails saying so.
#include <gtest/gtest.h>
#include <libpq-fe.h>
#include <unistd.h>

#include <atomic>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "acct_cli.hpp"
#include "store.hpp"
#include "store_location.hpp"
#include "store_schema.hpp"
#include "test_util.hpp"

namespace mfprio::acct {
namespace {

using test::TempDir;
using mfprio::test::PgDropAtTestEnd;
using mfprio::test::PgTestServer;

// A fresh database of the test server (dropped at the test's end).
std::string fresh_db(const TempDir& dir) {
  PgDropAtTestEnd::install();
  return PgTestServer::get().database_for(dir.file("pg"));
}

// A plain libpq connection of the test's own, to act on the server.
class Admin {
 public:
  explicit Admin(const std::string& uri) : c_(PQconnectdb(uri.c_str())) {
    EXPECT_EQ(CONNECTION_OK, PQstatus(c_)) << PQerrorMessage(c_);
    run("SET client_min_messages = warning");
  }
  ~Admin() { PQfinish(c_); }
  std::string run(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    const ExecStatusType st = PQresultStatus(r);
    EXPECT_TRUE(st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) << sql << ": " << PQerrorMessage(c_);
    std::string v = st == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    return v;
  }

 private:
  PGconn* c_;
};

OpenOptions cluster_opts(const std::string& name) {
  OpenOptions o;
  o.cluster = name;
  return o;
}

// root -> a (user u), b (user v): usage 0.
AdminChanges small_tree() {
  AdminChanges ch;
  ch.accounts = {test::account("a", "root", 1), test::account("b", "root", 1)};
  ch.assocs = {test::assoc("u", "a"), test::assoc("v", "b")};
  return ch;
}

Charge job_end(uint64_t id, const std::string& user, const std::string& account, int64_t start, int64_t end) {
  Charge c;
  c.job_id = id;
  c.user = user;
  c.account = account;
  c.start_time = start;
  c.until = end;
  c.rate = 1.0;
  c.ended = true;
  return c;
}

double usage_of(Store& s, const std::string& user) {
  for (const auto& a : s.load().assocs)
    if (a.user == user) return a.raw_usage;
  ADD_FAILURE() << "no association of " << user;
  return -1;
}

TEST(StorePg, ConnectionRefusedNamesTheUriWithoutItsPassword) {
  // Port 1 on loopback: nothing listens there.
  const std::string uri = "postgresql://alice:s3cret@127.0.0.1:1/acct?password=0ther&connect_timeout=5";
  try {
    Store::open(uri);
    FAIL() << "opened";
  } catch (const StoreError& e) {
    const std::string m = e.what();
    EXPECT_NE(std::string::npos, m.find("postgresql://alice@127.0.0.1:1/acct?connect_timeout=5")) << m;
    EXPECT_NE(std::string::npos, m.find("cannot connect")) << m;
    EXPECT_EQ(std::string::npos, m.find("s3cret")) << m;
    EXPECT_EQ(std::string::npos, m.find("0ther")) << m;
  }
}

TEST(StorePg, ABadClusterNameIsRefusedBeforeAnythingIsMade) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  for (const char* bad : {"Upper", "a-b", "x;drop", "0123456789012345678901234567890123456789012345678"}) {
    try {
      Store::open(uri, cluster_opts(bad));
      FAIL() << bad;
    } catch (const StoreError& e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find("cluster name")) << e.what();
    }
  }
  Admin admin(uri);
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'mfprio%'"));
}

TEST(StorePg, AReadOnlyOpenOfAMissingClusterCreatesNothing) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  OpenOptions ro = cluster_opts("nope");
  ro.read_only = true;
  ro.create = false;
  try {
    Store::open(uri, ro);
    FAIL() << "opened";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("no store for cluster 'nope'")) << e.what();
  }
  Admin admin(uri);
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM pg_namespace WHERE nspname = 'mfprio_nope'"));
}

TEST(StorePg, ATerminatedBackendFailsTheCallCleanlyAndTheNextReconnects) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  auto s = Store::open(uri);
  s->apply_admin(small_tree());
  CycleUpdate up;
  up.charges = {job_end(1, "u", "a", 0, 100)};
  s->apply_cycle(up);
  Admin admin(uri);
  // Every other backend of this database: the store's connection.
  admin.run("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND "
            "pid <> pg_backend_pid()");
  up.charges = {job_end(2, "u", "a", 0, 50)};
  try {
    s->apply_cycle(up);
    FAIL() << "a call on the dropped connection went through";
  } catch (const StoreError& e) {
    EXPECT_NE(std::string::npos, std::string(e.what()).find("connection to the server was lost")) << e.what();
  }
  // Nothing of the failed call: another store sees job 1's charge only.
  EXPECT_DOUBLE_EQ(100.0, usage_of(*Store::open(uri), "u"));
  // The next call reconnects (statements prepared again) and goes through once.
  EXPECT_DOUBLE_EQ(50.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(0.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(150.0, usage_of(*s, "u"));
}

TEST(StorePg, AStatementTimeoutFromTheUriIsACleanStoreError) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Store::open(uri)->apply_admin(small_tree());
  const std::string timed = uri + (uri.find('?') == std::string::npos ? "?" : "&") +
                            "options=-c%20statement_timeout%3D300";
  auto s = Store::open(timed);
  CycleUpdate up;
  up.charges = {job_end(7, "v", "b", 0, 10)};
  {
    // Another session holds the ledger: the store's write waits past 300 ms.
    Admin blocker(uri);
    blocker.run("BEGIN; LOCK TABLE mfprio_default.ledger IN ACCESS EXCLUSIVE MODE");
    try {
      s->apply_cycle(up);
      FAIL() << "the blocked write returned";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find("statement timeout")) << e.what();
    }
    blocker.run("ROLLBACK");
  }
  EXPECT_DOUBLE_EQ(0.0, usage_of(*s, "v"));
  EXPECT_DOUBLE_EQ(10.0, s->apply_cycle(up).added[0]);
  EXPECT_DOUBLE_EQ(10.0, usage_of(*s, "v"));
}

TEST(StorePg, ASchemaNewerThanTheProgramIsRefused) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  EXPECT_EQ(detail::kSchemaVersion, Store::open(uri)->schema_version());
  Admin admin(uri);
  admin.run("UPDATE mfprio_default.store_meta SET version = 99");
  for (bool ro : {false, true}) {
    OpenOptions o;
    o.read_only = ro;
    try {
      Store::open(uri, o);
      FAIL() << "opened";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find("schema version 99 is newer")) << e.what();
    }
  }
  EXPECT_EQ("99", admin.run("SELECT version FROM mfprio_default.store_meta"));
}

// Schema 9 drops the journal's and the ledger's foreign keys in place (a trigger deletes an
// association's rows instead): a version 8 cluster's journal rows are all
// kept and count as before.  (SQLite: test_store.cpp.)
TEST(StorePg, VersionEightJournalIsMigratedKeepingEveryAmount) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Store::open(uri)->apply_admin(small_tree());
  Admin admin(uri);
  admin.run("SET search_path = mfprio_default");
  const std::string u = admin.run("SELECT a.id FROM assocs a JOIN users s ON s.id = a.user_id WHERE s.name = 'u'");
  const std::string v = admin.run("SELECT a.id FROM assocs a JOIN users s ON s.id = a.user_id WHERE s.name = 'v'");
  const std::string cpu = admin.run("SELECT id FROM tres WHERE name = 'cpu'");
  // Back to version 8's journal (schema v3's constraints), holding rows.
  admin.run("DROP TRIGGER assoc_rows_gone ON assocs; DROP FUNCTION assoc_rows_gone();"
            " ALTER TABLE charge_journal DROP COLUMN tres, ADD COLUMN tres_id BIGINT;"
            " ALTER TABLE charge_journal ADD CONSTRAINT charge_journal_assoc_id_fkey FOREIGN KEY (assoc_id)"
            " REFERENCES assocs(id) ON DELETE CASCADE, ADD CONSTRAINT charge_journal_tres_id_fkey"
            " FOREIGN KEY (tres_id) REFERENCES tres(id);"
            " ALTER TABLE ledger ADD CONSTRAINT ledger_assoc_id_fkey FOREIGN KEY (assoc_id)"
            " REFERENCES assocs(id) ON DELETE CASCADE;"
            " INSERT INTO ledger VALUES (70, " + u + ", 500, 0), (71, " + v + ", 600, 0);"
            " INSERT INTO charge_journal(assoc_id, tres_id, amount) VALUES (" + u + ", NULL, 10), (" + u +
            ", NULL, 5), (" + u + ", " + cpu + ", 7), (" + v + ", NULL, 2.5), (" + v + ", " + cpu + ", 1);"
            " UPDATE store_meta SET version = 8");
  const std::string fks = "SELECT count(*) FROM pg_constraint WHERE conrelid IN ('charge_journal'::regclass,"
                          " 'ledger'::regclass) AND contype = 'f'";
  ASSERT_EQ("3", admin.run(fks));
  auto s = Store::open(uri);
  EXPECT_EQ(10, s->schema_version());
  EXPECT_EQ("0", admin.run(fks));
  EXPECT_EQ(2u, s->open_ledger().size());
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM charge_journal"));  // folded into the rows (schema 10)
  EXPECT_DOUBLE_EQ(15.0, usage_of(*s, "u"));
  EXPECT_DOUBLE_EQ(2.5, usage_of(*s, "v"));
  CycleUpdate up;
  up.defer_usage = true;
  up.charges = {job_end(1, "u", "a", 0, 4), job_end(2, "v", "b", 0, 4)};
  s->apply_cycle(up);
  EXPECT_EQ("2", admin.run("SELECT count(*) FROM charge_journal"));
  AdminChanges del;
  del.delete_users = {"v"};
  s->apply_admin(del);
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM charge_journal WHERE assoc_id = " + v));
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM ledger WHERE assoc_id = " + v));
  CycleUpdate fold;
  fold.decay_factor = 0.5;
  s->apply_cycle(fold);
  EXPECT_DOUBLE_EQ(9.5, usage_of(*s, "u"));
  EXPECT_EQ("3.5", admin.run("SELECT t.usage * d.scale FROM assoc_tres_usage t, decay_state d WHERE t.assoc_id = " +
                             u + " AND t.tres_id = " + cpu));  // stored / scale (schema 2)
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM charge_journal"));
}

// Schema 10 (one journal row per association and batch, its TRES amounts
// packed): a version 9 cluster's journal, billing rows and TRES rows, is
// folded into the usage rows by the migration, every amount kept; the
// journal goes on in the new form (the table kept in place: its grants stay).
TEST(StorePg, VersionNineJournalIsMigratedKeepingEveryAmount) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Store::open(uri)->apply_admin(small_tree());
  Admin admin(uri);
  admin.run("SET search_path = mfprio_default");
  const std::string u = admin.run("SELECT a.id FROM assocs a JOIN users s ON s.id = a.user_id WHERE s.name = 'u'");
  const std::string v = admin.run("SELECT a.id FROM assocs a JOIN users s ON s.id = a.user_id WHERE s.name = 'v'");
  admin.run("INSERT INTO tres(name) VALUES ('cpu'), ('mem') ON CONFLICT DO NOTHING");
  const std::string cpu = admin.run("SELECT id FROM tres WHERE name = 'cpu'");
  const std::string mem = admin.run("SELECT id FROM tres WHERE name = 'mem'");
  admin.run("INSERT INTO assoc_tres_usage VALUES (" + u + ", " + cpu + ", 3)");  // the fold's upsert meets it
  admin.run("ALTER TABLE charge_journal DROP COLUMN tres, ADD COLUMN tres_id BIGINT;"
            " INSERT INTO charge_journal(assoc_id, tres_id, amount) VALUES (" + u + ", NULL, 10), (" + u +
            ", NULL, 5.25), (" + u + ", " + cpu + ", 7), (" + u + ", " + mem + ", 0.125), (" + u + ", " + cpu +
            ", 1), (" + v + ", NULL, 2.5), (" + v + ", " + cpu + ", 1);"
            " UPDATE store_meta SET version = 9");
  auto s = Store::open(uri);
  EXPECT_EQ(10, s->schema_version());
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM charge_journal"));
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM information_schema.columns WHERE table_schema = 'mfprio_default'"
                           " AND table_name = 'charge_journal' AND column_name = 'tres_id'"));
  EXPECT_EQ("1", admin.run("SELECT count(*) FROM pg_indexes WHERE schemaname = 'mfprio_default'"
                           " AND indexname = 'ledger_open' AND indexdef LIKE '%WHERE (ended = 0)'"));
  auto tres = [&](const std::string& user, const std::string& name) {
    for (const auto& a : s->load().assocs)
      if (a.user == user)
        for (const auto& [n, x] : a.tres_usage)
          if (n == name) return x;
    return 0.0;
  };
  EXPECT_DOUBLE_EQ(15.25, usage_of(*s, "u"));
  EXPECT_DOUBLE_EQ(2.5, usage_of(*s, "v"));
  EXPECT_DOUBLE_EQ(11.0, tres("u", "cpu"));
  EXPECT_DOUBLE_EQ(0.125, tres("u", "mem"));
  EXPECT_DOUBLE_EQ(1.0, tres("v", "cpu"));
  CycleUpdate up;  // a job end in the new form: one row, its TRES packed
  up.defer_usage = true;
  up.charges = {job_end(1, "u", "a", 0, 4)};
  up.charges[0].tres = {{"cpu", 2}, {"mem", 0.5}};
  s->apply_cycle(up);
  EXPECT_EQ("1", admin.run("SELECT count(*) FROM charge_journal"));
  EXPECT_DOUBLE_EQ(19.25, usage_of(*s, "u"));
  EXPECT_DOUBLE_EQ(19.0, tres("u", "cpu"));
  EXPECT_DOUBLE_EQ(2.125, tres("u", "mem"));
  CycleUpdate fold;
  fold.decay_factor = 0.5;
  s->apply_cycle(fold);
  EXPECT_EQ("0", admin.run("SELECT count(*) FROM charge_journal"));
  EXPECT_DOUBLE_EQ(19.25 * 0.5, usage_of(*s, "u"));
  EXPECT_DOUBLE_EQ(19.0 * 0.5, tres("u", "cpu"));
  EXPECT_DOUBLE_EQ(2.125 * 0.5, tres("u", "mem"));
  EXPECT_DOUBLE_EQ(1.25, usage_of(*s, "v"));
}

TEST(StorePg, TwoClustersInOneDatabaseDoNotSeeEachOther) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  auto x = Store::open(uri, cluster_opts("x"));
  auto y = Store::open(uri, cluster_opts("y"));
  x->apply_admin(small_tree());
  AdminChanges other;
  other.accounts = {test::account("c", "root", 3)};
  other.assocs = {test::assoc("u", "c", 5.0)};
  y->apply_admin(other);
  CycleUpdate up;
  up.charges = {job_end(1, "u", "a", 0, 100)};
  x->apply_cycle(up);
  up.charges = {job_end(1, "u", "c", 0, 30)};  // the same job id, the other cluster's ledger
  EXPECT_DOUBLE_EQ(30.0, y->apply_cycle(up).added[0]);
  const StoreData dx = x->load(), dy = y->load();
  ASSERT_EQ(3u, dx.accounts.size());  // root, a, b
  ASSERT_EQ(2u, dy.accounts.size());  // root, c
  EXPECT_EQ("c", dy.accounts[1].name);
  EXPECT_DOUBLE_EQ(100.0, test::find_assoc(dx, "u", "a")->raw_usage);
  EXPECT_DOUBLE_EQ(35.0, test::find_assoc(dy, "u", "c")->raw_usage);
  EXPECT_EQ(nullptr, test::find_assoc(dy, "u", "a"));
  // A write to one cluster is not a change of the other.
  y->changed_by_others();
  x->apply_admin(small_tree());
  EXPECT_FALSE(y->changed_by_others());
  Admin admin(uri);
  EXPECT_EQ("x,y", admin.run("SELECT string_agg(name, ',' ORDER BY name) FROM mfprio.clusters"));
}

// mfprio-acct in this process: status, stdout + stderr.
std::pair<int, std::string> acct(const std::string& uri, std::vector<std::string> args) {
  args.insert(args.begin(), {"--db", uri, "-i"});
  std::ostringstream out, err;
  const int rc = run_cli(args, out, err);
  return {rc, out.str() + err.str()};
}

TEST(StorePg, ListClustersNamesEveryClusterOfTheDatabase) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  EXPECT_TRUE(Store::list_clusters(uri).empty());  // no cluster made yet
  Store::open(uri, cluster_opts("y"));
  Store::open(uri, cluster_opts("x"));
  EXPECT_EQ((std::vector<std::string>{"x", "y"}), Store::list_clusters(uri));
  // An SQLite file: its one cluster, the one a load named, else the default.
  const std::string file = dir.file("one.db");
  Store::open(file);
  EXPECT_EQ((std::vector<std::string>{"default"}), Store::list_clusters(file));
  AdminChanges named;
  named.settings = {{kSettingCluster, "tux"}};
  Store::open(file)->apply_admin(named);
  EXPECT_EQ((std::vector<std::string>{"tux"}), Store::list_clusters(file));
}

// sacctmgr's `show cluster` and `show assoc` over a database of two
// clusters: every cluster without cluster=, only x's with cluster=x.
TEST(StorePg, ShowClusterAndShowAssocCoverEveryClusterUnlessOneIsNamed) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Store::open(uri, cluster_opts("x"))->apply_admin(small_tree());
  AdminChanges other;
  other.accounts = {test::account("c", "root", 3)};
  other.assocs = {test::assoc("w", "c")};
  Store::open(uri, cluster_opts("y"))->apply_admin(other);

  auto [rc, out] = acct(uri, {"-P", "-n", "show", "cluster", "format=Cluster,Share"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("x|1\ny|1\n", out);
  // With a conf: its ControlHost and port on its ClusterName's row only.
  const std::string conf = dir.file("slurm.conf");
  std::ofstream(conf) << "ClusterName=Y\nSlurmctldHost=ctl1\nAccountingStorageLoc=" << uri << "\n";
  std::ostringstream conf_out, conf_err;
  ASSERT_EQ(0, run_cli({"--conf", conf, "-P", "-n", "show", "cluster", "format=Cluster,ControlHost,ControlPort"},
                       conf_out, conf_err)) << conf_err.str();
  EXPECT_EQ("x||\ny|ctl1|6817\n", conf_out.str());
  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "cluster", "y", "format=Cluster"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("y\n", out);
  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "cluster", "cluster=y", "format=Cluster"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("y\n", out);

  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "assoc", "format=Cluster,Account,User"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("x|root|\nx|a|\nx|a|u\nx|b|\nx|b|v\ny|root|\ny|c|\ny|c|w\n", out);
  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "assoc", "cluster=y", "format=Cluster,Account,User"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("y|root|\ny|c|\ny|c|w\n", out);
  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "assoc", "user=u", "format=Cluster,User"});
  ASSERT_EQ(0, rc) << out;
  EXPECT_EQ("x|u\n", out);
  // A cluster the database does not hold: refused, naming it.
  std::tie(rc, out) = acct(uri, {"-P", "-n", "show", "assoc", "cluster=z"});
  EXPECT_NE(0, rc);
  EXPECT_NE(std::string::npos, out.find("no store for cluster 'z'")) << out;
}

TEST(StorePg, ChangedByOthersSeesAnotherConnectionsWriteNotItsOwn) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  auto a = Store::open(uri);
  auto b = Store::open(uri);
  a->apply_admin(small_tree());
  EXPECT_FALSE(b->changed_by_others());  // the baseline
  EXPECT_FALSE(a->changed_by_others());
  a->apply_admin(small_tree());
  EXPECT_FALSE(a->changed_by_others());  // its own
  EXPECT_TRUE(b->changed_by_others());
  EXPECT_FALSE(b->changed_by_others());
  // Another's write between two of ours is still seen.
  a->apply_admin(small_tree());
  b->apply_admin(small_tree());
  a->apply_admin(small_tree());
  EXPECT_TRUE(a->changed_by_others());
}

// The hierarchy cache on PostgreSQL (store.cpp: load_tree), as on SQLite:
// an admin write clears it, a start writes it, the next start reads it (an
// edit made behind the store's back to a cached column is not seen: the
// proof that the blob was read, as StoreTree's tests prove it on SQLite)
// with usage from the rows; a cache row locked by another transaction is
// skipped without waiting, and the load still answers from the rows.
TEST(StorePg, TheTreeCacheIsClearedWrittenAndReadAndALockedRowIsSkipped) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Admin su(uri);
  const std::string empty = "SELECT data IS NULL FROM mfprio_default.tree_cache WHERE id = 1";
  auto shares_of_u = [](const TreeData& t) {
    for (const TreeAssoc& a : t.assocs)
      if (t.names[t.users[a.user].name] == "u") return static_cast<int64_t>(a.shares);
    return int64_t{-1};
  };
  {
    auto s = Store::open(uri);
    s->apply_admin(small_tree());
    EXPECT_EQ("t", su.run(empty));
    // Kept out of line, uncompressed (written whole, read whole).
    EXPECT_EQ("e", su.run("SELECT attstorage FROM pg_attribute WHERE attname = 'data'"
                          " AND attrelid = 'mfprio_default.tree_cache'::regclass"));
    // Held by another transaction: skipped at once, the rows answer.
    Admin holder(uri);
    holder.run("BEGIN");
    holder.run("SELECT 1 FROM mfprio_default.tree_cache WHERE id = 1 FOR UPDATE");
    const TreeData rows = s->load_tree();
    EXPECT_EQ(2u, rows.assocs.size());
    EXPECT_EQ(1, shares_of_u(rows));
    holder.run("ROLLBACK");
    EXPECT_EQ("t", su.run(empty));
    s->load_tree();  // now written
    EXPECT_EQ("f", su.run(empty));
  }
  su.run("UPDATE mfprio_default.assocs SET shares = 77");  // behind the store's back
  auto s = Store::open(uri);
  CycleUpdate up;
  up.charges = {job_end(1, "u", "a", 100, 130)};
  s->apply_cycle(up);
  const TreeData cached = s->load_tree();
  EXPECT_EQ(1, shares_of_u(cached));  // from the blob
  for (const TreeAssoc& a : cached.assocs)  // usage from the rows
    EXPECT_DOUBLE_EQ(cached.names[cached.users[a.user].name] == "u" ? 30.0 : 0.0, a.raw_usage);
  AdminChanges other;  // a hierarchy write (not to u) clears it
  other.accounts = {test::account("c", "root", 1)};
  s->apply_admin(other);
  EXPECT_EQ("t", su.run(empty));
  EXPECT_EQ(77, shares_of_u(s->load_tree()));
}

// `uri` connecting as `role` (its user= parameter replaced or added).
std::string as_role(const std::string& uri, const std::string& role) {
  std::string out = uri;
  const size_t q = out.find('?');
  if (q == std::string::npos) return out + "?user=" + role;
  size_t u = out.find("user=", q);
  while (u != std::string::npos && out[u - 1] != '?' && out[u - 1] != '&') u = out.find("user=", u + 1);
  if (u == std::string::npos) return out + "&user=" + role;
  const size_t end = out.find('&', u);
  return out.replace(u, (end == std::string::npos ? out.size() : end) - u, "user=" + role);
}

// mfprio-acct grants: the controller role charges usage and decays, and the
// server refuses it a share change; the admin role may make it.
TEST(StorePg, TheControllerRoleChargesUsageButCannotChangeShares) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  auto owner = Store::open(uri);
  owner->apply_admin(small_tree());
  const std::string sfx = std::to_string(getpid());
  const std::string admin_role = "mfprio_t_admin_" + sfx, ctl_role = "mfprio_t_ctl_" + sfx;
  Admin su(uri);
  su.run("CREATE ROLE " + admin_role + " LOGIN; CREATE ROLE " + ctl_role + " LOGIN");
  const std::string sql = owner->grants(admin_role, ctl_role, /*apply=*/true);
  EXPECT_NE(std::string::npos, sql.find("GRANT UPDATE (raw_usage) ON \"mfprio_default\".assocs")) << sql;
  {
    auto ctl = Store::open(as_role(uri, ctl_role));
    PassWrite w;
    CycleUpdate up;
    PassClock clock;
    clock.now = 5000;
    clock.rate = DecayRate{0.5, 100.0};
    up.pass = clock;
    up.charges = {job_end(1, "u", "a", 4900, 5000)};
    w.scalar = up;
    EXPECT_DOUBLE_EQ(100.0, ctl->apply_pass(w).scalar.added[0]);
    WindowCycle wc = test::window_pass("maui", 3600);
    wc.charges = {test::window_charge(2, 4000, 5000, 1.0, {{"user", "u"}})};
    EXPECT_DOUBLE_EQ(1000.0, ctl->apply_windows(wc).added[0]);
    AdminChanges shares;
    shares.accounts = {test::account("a", "root", 99)};
    try {
      ctl->apply_admin(shares);
      ADD_FAILURE() << "the controller role changed a share";
    } catch (const StoreError& e) {
      EXPECT_NE(std::string::npos, std::string(e.what()).find("permission denied")) << e.what();
    }
    auto adm = Store::open(as_role(uri, admin_role));
    adm->apply_admin(shares);
    EXPECT_EQ(99u, adm->load().accounts[1].shares);
    EXPECT_DOUBLE_EQ(100.0, usage_of(*adm, "u"));
  }
  // An SQLite store has no roles.
  EXPECT_THROW(Store::open(dir.file("lite.db"))->grants(admin_role, ctl_role, false), StoreError);
  EXPECT_THROW(owner->grants("Bad-Name", ctl_role, false), StoreError);
  owner.reset();
  su.run("REASSIGN OWNED BY " + admin_role + " TO CURRENT_USER; DROP OWNED BY " + admin_role + ", " + ctl_role +
         "; DROP ROLE " + admin_role + "; DROP ROLE " + ctl_role);
}

// Two controllers on one cluster, each with its own connection, run the
// same passes at once: each period's decay is applied once, each job end
// charged once, whoever gets there first.
TEST(StorePg, WritersOfOneClusterAreSerialisedDecayOnceChargeOnce) {
  TempDir dir;
  const std::string uri = fresh_db(dir);
  Store::open(uri)->apply_admin(small_tree());
  constexpr int kPeriods = 20;
  std::atomic<int> applied{0};
  std::atomic<int> errors{0};
  std::vector<double> charged(2, 0.0);
  auto controller = [&](int who) {
    try {
      auto s = Store::open(uri);
      for (int p = 1; p <= kPeriods; ++p) {
        PassWrite w;
        CycleUpdate up;
        PassClock clock;
        clock.now = 1000 + 100 * p;
        clock.rate = DecayRate{0.5, 100.0};  // halves per period
        up.pass = clock;
        up.charges = {job_end(static_cast<uint64_t>(p), "u", "a", clock.now - 100, clock.now)};
        w.scalar = up;
        const PassResult r = s->apply_pass(w);
        if (r.scalar.pass.applied) ++applied;
        charged[static_cast<size_t>(who)] += r.scalar.added[0];
      }
    } catch (const std::exception& e) {
      ++errors;
      ADD_FAILURE() << "controller " << who << ": " << e.what();
    }
  };
  std::thread t0(controller, 0), t1(controller, 1);
  t0.join();
  t1.join();
  EXPECT_EQ(0, errors.load());
  EXPECT_EQ(kPeriods, applied.load());  // one of the two applied each period's pass
  EXPECT_DOUBLE_EQ(100.0 * kPeriods, charged[0] + charged[1]);  // each job end once
  // The usage a single controller would have left: each job's 100 added in its
  // pass after that pass's decay (the first pass has no previous one).
  double expect = 0;
  for (int p = 1; p <= kPeriods; ++p) expect = (p == 1 ? 0 : expect * 0.5) + 100.0;
  EXPECT_NEAR(expect, usage_of(*Store::open(uri), "u"), 1e-9);
  EXPECT_EQ(1000 + 100 * kPeriods, Store::open(uri)->decay_state().last_decay);
}

}  // namespace
}  // namespace mfprio::acct
