// store_admin.cpp - Store::apply_admin: the write half of add/modify/delete/import.
//
// Entry point: StoreImpl::apply_admin(changes), one IMMEDIATE transaction.
// Order inside: deletions, accounts (insert/update, then link parents so the
// batch may list children before parents), users, associations (+ per-TRES
// usage when set_usage), default accounts, QOS, partitions; with
// deletions_last the deletions come at the end instead.
// Invariant: shape checks (cycles, unknown names, defaults) were done by
// admin.cpp on the merged picture; here the schema's CHECKs and foreign keys
// are the backstop, and any failure rolls the whole batch back.
#include <ctime>
#include <string>

#include "store_impl.hpp"
#include "store_schema.hpp"
#include "strings.hpp"

namespace mfprio::acct::detail {
namespace {

std::string quoted(const std::string& s) { return "\"" + s + "\""; }

}  // namespace

void StoreImpl::apply_admin(const AdminChanges& ch) {
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  try {
    apply_admin_txn(ch);
  } catch (...) {
    tres_ids_.clear();  // a rolled-back insert may have cached an id that no longer exists
    throw;
  }
}

void StoreImpl::apply_admin_txn(const AdminChanges& ch) {
  sql::Txn txn(db_);
  clear_tree_cache();  // the hierarchy may change: load_tree reads the rows again
  // Usage is stored divided by the decay scale (see apply_cycle).
  const double inv_scale = 1.0 / usage_scale();
  admin_settings(ch);
  auto_user_ = auto_user_tickets(&auto_fshare_, &auto_oticket_);
  if (!ch.deletions_last) admin_deletes(ch);
  admin_accounts(ch);
  for (const UserRec& u : ch.users) {
    auto_user_object(u.name);
    sql::StmtUse st(prep(st_up_user_,
        "INSERT INTO users(name, admin) VALUES (?1, ?2)"
        " ON CONFLICT(name) DO UPDATE SET admin = excluded.admin"));
    st->bind(1, u.name).bind(2, u.admin).run();
    row_written();
  }
  // Queues before the associations that name them.
  for (const QueueRec& q : ch.queues) {
    sql::StmtUse st(prep(st_up_queue_,
        "INSERT INTO queues(name, priority) VALUES (?1, ?2)"
        " ON CONFLICT(name) DO UPDATE SET priority = excluded.priority"));
    try {
      st->bind(1, q.name).bind(2, q.priority).run();
    } catch (const StoreError& e) {
      throw StoreError("queue " + quoted(q.name) + ": " + e.what());
    }
    row_written();
  }
  for (const AssocWrite& w : ch.assocs) admin_assoc(w, inv_scale);
  admin_rest(ch);
  if (ch.deletions_last) admin_deletes(ch);
  txn.commit();
}

std::string StoreImpl::grants(const std::string& admin, const std::string& controller, bool apply) {
  if (!db_.is_pg())
    throw StoreError(path_ + ": an SQLite store has no roles: its file's owner and mode, and the users marked "
                             "AdminLevel=Administrator, decide who writes");
  const std::string sql = pg_grants("mfprio_" + cluster_, admin, controller);
  if (!apply) return sql;
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  sql::Txn txn(db_);
  sql::exec(db_, sql.c_str());
  txn.commit();
  return sql;
}

void StoreImpl::admin_settings(const AdminChanges& ch) {
  for (const auto& [key, value] : ch.settings) {
    if (value.empty()) {
      sql::StmtUse st(prep(st_del_setting_, "DELETE FROM settings WHERE key = ?1"));
      st->bind(1, key).run();
    } else {
      sql::StmtUse st(prep(st_up_setting_,
          "INSERT INTO settings(key, value) VALUES (?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
      st->bind(1, key).bind(2, value).run();
    }
    row_written();
  }
}

namespace {
// A setting's value as a ticket count; false when unset or not one.
bool ticket_count(const std::string& v, uint32_t* out) {
  uint64_t n = 0;
  if (!parse_u64(v, UINT32_MAX, &n)) return false;
  *out = static_cast<uint32_t>(n);
  return true;
}
}  // namespace

bool StoreImpl::auto_user_tickets(uint32_t* fshare, uint32_t* oticket) {
  auto get = [&](const char* key) {
    sql::StmtUse st(prep(st_get_setting_, "SELECT value FROM settings WHERE key = ?1"));
    st->bind(1, key);
    return st->step() ? st->text(0) : std::string();
  };
  const std::string f = get(kSettingAutoUserFshare), o = get(kSettingAutoUserOticket);
  if (f.empty() && o.empty()) return false;
  *fshare = 0;
  *oticket = 0;
  if (!f.empty() && !ticket_count(f, fshare)) throw StoreError(std::string(kSettingAutoUserFshare) + ": '" + f + "' is not a ticket count");
  if (!o.empty() && !ticket_count(o, oticket)) throw StoreError(std::string(kSettingAutoUserOticket) + ": '" + o + "' is not a ticket count");
  return true;
}

void StoreImpl::auto_user_object(const std::string& user) {
  if (!auto_user_) return;
  {
    sql::StmtUse st(prep(st_user_exists_, "SELECT 1 FROM users WHERE name = ?1"));
    st->bind(1, user);
    if (st->step()) return;  // not created by this write
  }
  sql::StmtUse st(prep(st_auto_ticket_,
      "INSERT INTO ticket_objects(kind, name, fshare, oticket) VALUES ('user', ?1, ?2, ?3)"
      " ON CONFLICT(kind, name) DO NOTHING"));
  st->bind(1, user).bind(2, static_cast<int64_t>(auto_fshare_)).bind(3, static_cast<int64_t>(auto_oticket_)).run();
  row_written();
}

// The deletions: associations, users, accounts, QOS, queues, partitions.
void StoreImpl::admin_deletes(const AdminChanges& ch) {
  for (const AssocKey& k : ch.delete_assocs) {
    sql::StmtUse st(prep(st_del_assoc_,
        "DELETE FROM assocs WHERE user_id = (SELECT id FROM users WHERE name = ?1)"
        " AND account_id = (SELECT id FROM accounts WHERE name = ?2) AND partition = ?3"));
    st->bind(1, k.user).bind(2, k.account).bind(3, k.partition).run();
    if (db_.changes() == 0)
      throw StoreError("no association user " + quoted(k.user) + " account " + quoted(k.account) +
                       (k.partition.empty() ? "" : " partition " + quoted(k.partition)));
    row_written();
  }
  for (const std::string& u : ch.delete_users) {
    sql::StmtUse st(prep(st_del_user_, "DELETE FROM users WHERE name = ?1"));
    st->bind(1, u).run();
    if (db_.changes() == 0) throw StoreError("no user " + quoted(u));
    row_written();
  }
  for (const std::string& a : ch.delete_accounts) {
    if (a == "root") throw StoreError("the root account cannot be deleted");
    sql::StmtUse st(prep(st_del_account_, "DELETE FROM accounts WHERE name = ?1"));
    try {
      st->bind(1, a).run();
    } catch (const StoreError&) {
      throw StoreError("account " + quoted(a) + " still has sub-accounts or users");
    }
    if (db_.changes() == 0) throw StoreError("no account " + quoted(a));
    row_written();
  }
  for (const std::string& q : ch.delete_qos) {
    sql::StmtUse st(prep(st_del_qos_, "DELETE FROM qos WHERE name = ?1"));
    st->bind(1, q).run();
    if (db_.changes() == 0) throw StoreError("no qos " + quoted(q));
  }
  for (const std::string& q : ch.delete_queues) {
    sql::StmtUse st(prep(st_del_queue_, "DELETE FROM queues WHERE name = ?1"));
    st->bind(1, q).run();
    if (db_.changes() == 0) throw StoreError("no queue " + quoted(q));
  }
  for (const std::string& p : ch.delete_partitions) {
    sql::StmtUse st(prep(st_del_part_, "DELETE FROM partitions WHERE name = ?1"));
    st->bind(1, p).run();
    if (db_.changes() == 0) throw StoreError("no partition " + quoted(p));
  }
}

void StoreImpl::admin_accounts(const AdminChanges& ch) {
  // New accounts start under root; the second loop sets the real parent once
  // every account of the batch exists.
  for (const AccountRec& a : ch.accounts) {
    sql::StmtUse st(prep(st_up_account_,
        "INSERT INTO accounts(name, parent_id, shares, shares_parent, priority, description)"
        " VALUES (?1, CASE WHEN ?1 = 'root' THEN NULL"
        "  ELSE (SELECT id FROM accounts WHERE name = 'root') END, ?2, ?3, ?4, ?5)"
        " ON CONFLICT(name) DO UPDATE SET shares = excluded.shares,"
        " shares_parent = excluded.shares_parent, priority = excluded.priority,"
        " description = excluded.description"));
    st->bind(1, a.name).bind(2, a.shares).bind(3, a.shares_parent).bind(4, a.priority);
    st->bind(5, a.description).run();
    row_written();
  }
  for (const AccountRec& a : ch.accounts) {
    if (a.name == "root") continue;
    sql::StmtUse st(prep(st_link_account_,
        "UPDATE accounts SET parent_id = (SELECT id FROM accounts WHERE name = ?2)"
        " WHERE name = ?1"));
    try {
      st->bind(1, a.name).bind(2, a.parent).run();
    } catch (const StoreError&) {
      throw StoreError("account " + quoted(a.name) + ": unknown parent " + quoted(a.parent));
    }
  }
}

// One association (its user made if missing), its queues, and with
// set_usage its usage (the journal's pending charges for it dropped).
void StoreImpl::admin_assoc(const AssocWrite& w, double inv_scale) {
  const UserAssocRec& r = w.rec;
  auto_user_object(r.user);
  {
    sql::StmtUse st(prep(st_ensure_user_,
        "INSERT INTO users(name) VALUES (?1) ON CONFLICT(name) DO NOTHING"));
    st->bind(1, r.user).run();
  }
  int64_t id = 0;
  {
    sql::StmtUse st(prep(st_up_assoc_,
        "INSERT INTO assocs(user_id, account_id, partition, shares, shares_parent, priority,"
        " raw_usage, usage_time) VALUES ((SELECT id FROM users WHERE name = ?1),"
        " (SELECT id FROM accounts WHERE name = ?2), ?3, ?4, ?5, ?6, ?7,"
        " CASE WHEN ?8 THEN CAST(?9 AS BIGINT) ELSE 0 END)"
        " ON CONFLICT(user_id, account_id, partition) DO UPDATE SET"
        " shares = excluded.shares, shares_parent = excluded.shares_parent,"
        " priority = excluded.priority,"
        " raw_usage = CASE WHEN ?8 THEN excluded.raw_usage ELSE assocs.raw_usage END,"
        " usage_time = CASE WHEN ?8 THEN excluded.usage_time ELSE assocs.usage_time END"
        " RETURNING id"));
    st->bind(1, r.user).bind(2, r.account).bind(3, r.partition).bind(4, r.shares);
    st->bind(5, r.shares_parent).bind(6, r.priority);
    st->bind(7, w.set_usage ? r.raw_usage * inv_scale : 0.0);
    st->bind(8, w.set_usage);
    // usage_time < 0: the time of the write (epoch seconds, as the clock says now).
    st->bind(9, r.usage_time < 0 ? static_cast<int64_t>(std::time(nullptr)) : r.usage_time);
    try {
      if (!st->step()) throw StoreError("no row");
    } catch (const StoreError& e) {
      throw StoreError("user " + quoted(r.user) + " account " + quoted(r.account) + ": " +
                       e.what());
    }
    id = st->i64(0);
  }
  if (w.set_queues) {
    sql::StmtUse clr(prep(st_clear_assoc_queues_, "DELETE FROM assoc_queues WHERE assoc_id = ?1"));
    clr->bind(1, id).run();
    for (const std::string& q : r.queues) {
      sql::StmtUse st(prep(st_add_assoc_queue_,
          "INSERT INTO assoc_queues(assoc_id, queue) VALUES (?1, ?2) ON CONFLICT DO NOTHING"));
      try {
        st->bind(1, id).bind(2, q).run();
      } catch (const StoreError&) {
        throw StoreError("user " + quoted(r.user) + " account " + quoted(r.account) + ": unknown queue " +
                         quoted(q));
      }
    }
  }
  if (w.set_usage) {
    // The usage given replaces whatever the journal still holds for it.
    sql::StmtUse drop(prep(st_journal_drop_assoc_, "DELETE FROM charge_journal WHERE assoc_id = ?1"));
    drop->bind(1, id).run();
    sql::StmtUse del(prep(st_clear_assoc_tres_,
        "DELETE FROM assoc_tres_usage WHERE assoc_id = ?1"));
    del->bind(1, id).run();
    for (const auto& [name, usage] : r.tres_usage) {
      int64_t tid = tres_id(name);
      sql::StmtUse st(prep(st_set_assoc_tres_,
          "INSERT INTO assoc_tres_usage(assoc_id, tres_id, usage) VALUES (?1, ?2, ?3)"));
      st->bind(1, id).bind(2, tid).bind(3, usage * inv_scale).run();
    }
  }
  row_written();
}

// Default accounts, QOS, partitions, windowed usage, ticket objects.
void StoreImpl::admin_rest(const AdminChanges& ch) {
  for (const UserRec& u : ch.users) {
    sql::StmtUse st(prep(st_user_default_,
        "UPDATE users SET default_account_id = (SELECT id FROM accounts WHERE name = ?2)"
        " WHERE name = ?1"));
    st->bind(1, u.name);
    if (u.default_account.empty())
      st->bind_null(2);
    else
      st->bind(2, u.default_account);
    st->run();
  }

  for (const QosRec& q : ch.qos) {
    sql::StmtUse st(prep(st_up_qos_,
        "INSERT INTO qos(name, priority, usage_factor) VALUES (?1, ?2, ?3)"
        " ON CONFLICT(name) DO UPDATE SET priority = excluded.priority,"
        " usage_factor = excluded.usage_factor"));
    st->bind(1, q.name).bind(2, q.priority).bind(3, q.usage_factor).run();
  }
  for (const PartitionRec& p : ch.partitions) {
    sql::StmtUse st(prep(st_up_part_,
        "INSERT INTO partitions(name, job_factor, billing_weights, tres_totals, is_default)"
        " VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(name) DO UPDATE SET"
        " job_factor = excluded.job_factor, billing_weights = excluded.billing_weights,"
        " tres_totals = excluded.tres_totals, is_default = excluded.is_default"));
    st->bind(1, p.name).bind(2, p.job_factor).bind(3, p.billing_weights);
    st->bind(4, p.tres_totals).bind(5, p.is_default).run();
    if (p.is_default) {
      sql::StmtUse clr(prep(st_clear_default_part_,
          "UPDATE partitions SET is_default = 0 WHERE name <> ?1"));
      clr->bind(1, p.name).run();
    }
  }
  for (const WindowRow& w : ch.windows) {
    put_window(ch.windows_family, w);
    row_written();
  }
  for (const auto& [kind, name] : ch.delete_ticket_objects) {
    sql::StmtUse st(prep(st_del_ticket_, "DELETE FROM ticket_objects WHERE kind = ?1 AND name = ?2"));
    st->bind(1, kind).bind(2, name).run();
    row_written();
  }
  for (const TicketObjectRec& t : ch.ticket_objects) {
    sql::StmtUse st(prep(st_up_ticket_,
        "INSERT INTO ticket_objects(kind, name, fshare, oticket) VALUES (?1, ?2, ?3, ?4)"
        " ON CONFLICT(kind, name) DO UPDATE SET fshare = excluded.fshare, oticket = excluded.oticket"));
    st->bind(1, t.kind).bind(2, t.name).bind(3, static_cast<int64_t>(t.fshare))
        .bind(4, static_cast<int64_t>(t.oticket)).run();
    row_written();
  }
}

}  // namespace mfprio::acct::detail
