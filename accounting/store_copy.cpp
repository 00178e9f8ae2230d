// store_copy.cpp - Store::copy_to (mfprio-acct migrate): every row of one
// store into an empty one, SQLite or PostgreSQL either side.
//
// The copy is of rows, not of meanings: ids, the usage scale, the journal,
// both ledgers, the windows and the decay state arrive as they are, so the
// target prices, charges and decays exactly as the source would (a job the
// source charged is not charged again).  One read transaction on the source
// (one snapshot), one write transaction on the target: the target is left
// empty when anything fails.  The hierarchy cache (tree_cache) is not
// copied; the target rebuilds it at its first load.
#include <cstdint>
#include <string>
#include <vector>

#include "store_impl.hpp"
#include "store_schema.hpp"

namespace mfprio::acct::detail {
namespace {

// Every table of schema 10 but tree_cache, in an order where each row's
// foreign keys point at rows already written; column types: i(nteger),
// r(eal), t(ext), each possibly NULL.  A new migration must add its tables
// here (the static_assert below stops the build until it does).
static_assert(kSchemaVersion == 10, "store_copy.cpp: add the new schema version's tables to kTables");
struct Col {
  const char* name;
  char type;
};
struct Table {
  const char* name;
  std::vector<Col> cols;
  const char* identity;  // PostgreSQL: the identity column whose sequence follows the copied ids
};
const std::vector<Table>& tables() {
  static const std::vector<Table> t = {
      {"accounts", {{"id", 'i'}, {"name", 't'}, {"parent_id", 'i'}, {"shares", 'i'}, {"shares_parent", 'i'},
                    {"priority", 'i'}, {"description", 't'}}, "id"},
      {"users", {{"id", 'i'}, {"name", 't'}, {"default_account_id", 'i'}, {"admin", 'i'}}, "id"},
      {"assocs", {{"id", 'i'}, {"user_id", 'i'}, {"account_id", 'i'}, {"partition", 't'}, {"shares", 'i'},
                  {"shares_parent", 'i'}, {"priority", 'i'}, {"raw_usage", 'r'}, {"usage_time", 'i'}}, "id"},
      {"tres", {{"id", 'i'}, {"name", 't'}}, "id"},
      {"assoc_tres_usage", {{"assoc_id", 'i'}, {"tres_id", 'i'}, {"usage", 'r'}}, nullptr},
      {"qos", {{"id", 'i'}, {"name", 't'}, {"priority", 'i'}, {"usage_factor", 'r'}}, "id"},
      {"partitions", {{"id", 'i'}, {"name", 't'}, {"job_factor", 'i'}, {"billing_weights", 't'},
                      {"tres_totals", 't'}, {"is_default", 'i'}}, "id"},
      {"ledger", {{"job_id", 'i'}, {"assoc_id", 'i'}, {"charged_until", 'i'}, {"ended", 'i'}}, "job_id"},
      {"decay_state", {{"id", 'i'}, {"last_decay", 'i'}, {"last_reset", 'i'}, {"scale", 'r'}}, "id"},
      {"charge_journal", {{"seq", 'i'}, {"assoc_id", 'i'}, {"amount", 'r'}, {"tres", 't'}}, "seq"},
      {"usage_windows", {{"family", 't'}, {"kind", 't'}, {"name", 't'}, {"start", 'i'}, {"seconds", 'i'},
                         {"usage", 'r'}}, nullptr},
      {"window_ledger", {{"family", 't'}, {"job_id", 'i'}, {"charged_until", 'i'}, {"ended", 'i'}}, nullptr},
      {"queues", {{"name", 't'}, {"priority", 'i'}}, nullptr},
      {"assoc_queues", {{"assoc_id", 'i'}, {"queue", 't'}}, nullptr},
      {"ticket_objects", {{"kind", 't'}, {"name", 't'}, {"fshare", 'i'}, {"oticket", 'i'}}, nullptr},
      {"settings", {{"key", 't'}, {"value", 't'}}, nullptr},
  };
  return t;
}

struct Value {
  bool null = false;
  int64_t i = 0;
  double r = 0;
  std::string t;
};
using Row = std::vector<Value>;

std::string select_sql(const Table& t) {
  std::string cols;
  for (const Col& c : t.cols) cols += (cols.empty() ? "" : ", ") + std::string(c.name);
  return "SELECT " + cols + " FROM " + t.name + " ORDER BY " + t.cols[0].name;
}

std::string insert_sql(const Table& t) {
  std::string cols, marks;
  for (size_t k = 0; k < t.cols.size(); ++k) {
    cols += (k ? ", " : "") + std::string(t.cols[k].name);
    marks += (k ? ", ?" : "?") + std::to_string(k + 1);
  }
  return "INSERT INTO " + std::string(t.name) + " (" + cols + ") VALUES (" + marks + ")";
}

std::vector<Row> read_table(const sql::Conn& db, const Table& t) {
  sql::Stmt st(db, select_sql(t));
  std::vector<Row> rows;
  while (st.step()) {
    Row row(t.cols.size());
    for (size_t k = 0; k < t.cols.size(); ++k) {
      const int c = static_cast<int>(k);
      Value& v = row[k];
      v.null = st.is_null(c);
      if (v.null) continue;
      if (t.cols[k].type == 'i') v.i = st.i64(c);
      else if (t.cols[k].type == 'r') v.r = st.real(c);
      else v.t = st.text(c);
    }
    rows.push_back(std::move(row));
  }
  return rows;
}

// Accounts with every parent before its children (ids are kept, and a
// re-parented account may have an id below its parent's).
std::vector<Row> parents_first(std::vector<Row> rows, const std::string& where) {
  std::vector<Row> out;
  std::vector<int64_t> written;
  std::vector<bool> done(rows.size(), false);
  while (out.size() < rows.size()) {
    const size_t before = out.size();
    for (size_t k = 0; k < rows.size(); ++k) {
      if (done[k]) continue;
      const Value& parent = rows[k][2];
      bool ready = parent.null;
      for (int64_t id : written) ready = ready || id == parent.i;
      if (!ready) continue;
      written.push_back(rows[k][0].i);
      out.push_back(std::move(rows[k]));
      done[k] = true;
    }
    if (out.size() == before) throw StoreError(where + ": accounts whose parents form a cycle or are missing");
  }
  return out;
}

void write_table(const sql::Conn& db, const Table& t, const std::vector<Row>& rows) {
  sql::Stmt st(db, insert_sql(t));
  for (const Row& row : rows) {
    for (size_t k = 0; k < t.cols.size(); ++k) {
      const int c = static_cast<int>(k + 1);
      const Value& v = row[k];
      if (v.null) st.bind_null(c);
      else if (t.cols[k].type == 'i') st.bind(c, v.i);
      else if (t.cols[k].type == 'r') st.bind(c, v.r);
      else st.bind(c, v.t);
    }
    st.run();
    st.reset();
  }
}

// What a fresh store holds beyond its defaults (root, the default TRES
// types and QOS, the zero decay state): "" when nothing.
std::string non_empty(const sql::Conn& db) {
  const char* checks[][2] = {
      {"SELECT count(*) FROM accounts WHERE name <> 'root'", "accounts"},
      {"SELECT count(*) FROM users", "users"},
      {"SELECT count(*) FROM assocs", "associations"},
      {"SELECT count(*) FROM qos WHERE name <> 'normal'", "QOS"},
      {"SELECT count(*) FROM partitions", "partitions"},
      {"SELECT count(*) FROM ledger", "ledger rows"},
      {"SELECT count(*) FROM charge_journal", "journal rows"},
      {"SELECT count(*) FROM usage_windows", "usage windows"},
      {"SELECT count(*) FROM window_ledger", "window ledger rows"},
      {"SELECT count(*) FROM queues", "queues"},
      {"SELECT count(*) FROM ticket_objects", "ticket objects"},
      {"SELECT count(*) FROM settings", "settings"},
      {"SELECT count(*) FROM decay_state WHERE last_decay <> 0 OR last_reset <> 0", "decay passes"},
  };
  for (const auto& c : checks) {
    sql::Stmt st(db, c[0]);
    const int64_t n = st.step() ? st.i64(0) : 0;
    if (n > 0) return std::to_string(n) + " " + c[1];
  }
  return "";
}

}  // namespace

void StoreImpl::copy_to(Store& target_store) {
  auto* target = dynamic_cast<StoreImpl*>(&target_store);
  if (!target) throw StoreError(path_ + ": copy_to: the target is not a store");
  if (target->read_only_) throw StoreError(target->path_ + ": opened read-only: cannot copy into it");
  std::vector<std::vector<Row>> data;
  {
    sql::Txn read(db_, false);
    for (const Table& t : tables()) data.push_back(read_table(db_, t));
  }
  data[0] = parents_first(std::move(data[0]), path_);
  sql::Txn write(target->db_);
  if (const std::string what = non_empty(target->db_); !what.empty())
    throw StoreError(target->path_ + ": not an empty store (it holds " + what +
                     "): migrate copies into a new store only; nothing was written");
  const auto& ts = tables();
  for (size_t k = ts.size(); k-- > 0;)
    sql::exec(target->db_, ("DELETE FROM " + std::string(ts[k].name)).c_str());
  for (size_t k = 0; k < ts.size(); ++k) write_table(target->db_, ts[k], data[k]);
  if (target->db_.is_pg())
    for (const Table& t : ts) {
      if (!t.identity) continue;
      // The identity's next value after the copied ids (no values: names only).
      const std::string q = std::string("SELECT setval(pg_get_serial_sequence('") + t.name + "', '" + t.identity +
                            "'), (SELECT COALESCE(max(" + t.identity + "), 0) + 1 FROM " + t.name + "), false)";
      sql::exec(target->db_, q.c_str());
    }
  target->clear_tree_cache();
  write.commit();
  target->tres_ids_.clear();
}

}  // namespace mfprio::acct::detail
