// store_charge.cpp - the usage pass's scalar half: apply_cycle (reset,
// decay, charges), the journal's fold, the pass clock (PassClock).
//
// A cycle's charges cost a few statements whatever their number (each a
// round trip on PostgreSQL), not a few per job:
//   1. the ledger rows of every job of the batch, in one read (an IN list:
//      sql::ListStmt);
//   2. the associations of the jobs not in the ledger, by name, in one read
//      (a join on VALUES rows), and the ids a caller gave checked, in one
//      read (none when every charge is named or known);
//   3. the charges worked out in memory, in order, a job's ledger state
//      carried from one of its charges to the next (a job charged twice in
//      one cycle starts its second charge where the first ended, as if the
//      first's ledger row had been written and read back);
//   4. the writes, coalesced: one row per association (UPDATE ... FROM
//      VALUES), per association and TRES (a multi-row upsert) and per job
//      (the ledger), or as many journal rows (deferred), many rows a
//      statement (on PostgreSQL one statement a table: arrays, unnest).
// All of it inside the caller's one transaction: all or nothing, and the
// ledger row that says how far a job is charged commits with its usage, so a
// job is charged once whatever the caller repeats.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>
#include <utility>

#include "stable_order.hpp"
#include "store_impl.hpp"

namespace mfprio::acct::detail {

void StoreImpl::fold_journal() {
  {
    sql::StmtUse any(prep(st_journal_any_, "SELECT EXISTS (SELECT 1 FROM charge_journal)"));
    if (!any->step() || any->i64(0) == 0) return;  // the usual case: nothing journalled
  }
  sql::StmtUse a(prep(st_journal_fold_assoc_,
      "UPDATE assocs SET raw_usage = raw_usage + j.s FROM"
      " (SELECT assoc_id, sum(amount) AS s FROM charge_journal GROUP BY assoc_id) AS j WHERE assocs.id = j.assoc_id"));
  a->run();
  // The TRES amounts (schema 10: packed, a row's text) summed here, one
  // upsert for them all.
  tres_sums_.clear();
  tres_idx_.clear();
  {
    sql::StmtUse t(prep(st_journal_tres_, "SELECT assoc_id, tres FROM charge_journal WHERE tres <> ''"));
    while (t->step()) {
      const int64_t assoc = t->i64(0);
      if (!unpack_tres(t->view(1), [&](int64_t tid, double amount) { add_tres_sum(assoc, tid, amount); }))
        throw StoreError(path_ + ": a charge journal row of association " + std::to_string(assoc) +
                         " holds unreadable TRES amounts");
    }
  }
  ls_charge_tres_.send(db_, tres_sums_.size(), [&](sql::Stmt& st, int p, size_t i) {
    const TresSum& t = tres_sums_[i];
    st.bind(p, t.assoc_id).bind(p + 1, t.tres_id).bind(p + 2, t.amount);
  });
  tres_sums_.clear();
  tres_idx_.clear();
  sql::StmtUse c(prep(st_journal_clear_, "DELETE FROM charge_journal"));
  c->run();
}

void StoreImpl::add_tres_sum(int64_t assoc_id, int64_t tres_id, double amount) {
  const auto [t, fresh] =
      tres_idx_.emplace(std::make_pair(assoc_id, tres_id), static_cast<uint32_t>(tres_sums_.size()));
  if (fresh) tres_sums_.push_back(TresSum{assoc_id, tres_id, 0.0});
  tres_sums_[t->second].amount += amount;
}

// Usage is stored as value / scale (decay_state.scale): a decay pass only
// multiplies the scale, so it touches one row whatever the store's size.
// When the scale gets tiny the rows are rewritten with the scale folded in.
constexpr double kRenormalizeBelow = 1e-100;

CycleResult StoreImpl::apply_cycle(const CycleUpdate& up) {
  check_cycle(up);
  try {
    sql::Txn txn(db_);
    CycleResult res = cycle_in_txn(up);
    txn.commit();
    charge_committed();
    return res;
  } catch (...) {
    drop_buffers();
    throw;
  }
}

void StoreImpl::drop_buffers() {
  tres_ids_.clear();  // a rolled-back insert may have cached an id that no longer exists
  ledger_buf_.clear();  // rolled back with the transaction
}

void StoreImpl::check_cycle(const CycleUpdate& up) {
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  if (up.pass) check_pass(*up.pass, up.decay_factor, up.new_state.has_value() || up.defer_usage);
  if (!(up.decay_factor >= 0.0 && up.decay_factor <= 1.0))
    throw StoreError(path_ + ": decay factor " + std::to_string(up.decay_factor) +
                     " is outside [0, 1]");
  if (up.defer_usage && (up.reset || up.decay_factor != 1.0))
    throw StoreError(path_ + ": a deferred cycle cannot reset or decay usage");
}

CycleResult StoreImpl::cycle_in_txn(const CycleUpdate& up) {
  ledger_buf_.clear();
  CycleResult res;
  res.added.reserve(up.charges.size());
  const double old_scale = scale_and_token(up.charges);
  double scale = old_scale;
  // Journalled charges join the rows before any reset or decay touches them.
  if (!up.defer_usage) fold_journal();
  double factor = up.decay_factor;
  bool reset = up.reset;
  std::optional<DecayState> new_state = up.new_state;
  if (up.pass) {
    res.pass = decide_pass(*up.pass, up.reset, /*windows=*/false);
    factor = res.pass.decay_factor;
    reset = res.pass.reset;
    if (res.pass.applied) new_state = res.pass.state;
  }
  if (reset || factor == 0.0) {
    sql::StmtUse a(prep(st_reset_assoc_, "UPDATE assocs SET raw_usage = 0"));
    a->run();
    sql::StmtUse t(prep(st_reset_tres_, "UPDATE assoc_tres_usage SET usage = 0"));
    t->run();
    scale = 1.0;
  } else if (factor != 1.0) {
    scale *= factor;
    if (scale < kRenormalizeBelow) {
      sql::StmtUse a(prep(st_decay_assoc_, "UPDATE assocs SET raw_usage = raw_usage * ?1"));
      a->bind(1, scale).run();
      sql::StmtUse t(prep(st_decay_tres_, "UPDATE assoc_tres_usage SET usage = usage * ?1"));
      t->bind(1, scale).run();
      scale = 1.0;
    }
  }
  charge_all(up, 1.0 / scale, res);
  if (scale != old_scale) {
    sql::StmtUse st(prep(st_scale_put_, "UPDATE decay_state SET scale = ?1 WHERE id = 1"));
    st->bind(1, scale).run();
  }
  if (new_state) {
    sql::StmtUse st(prep(st_decay_state_,
        "UPDATE decay_state SET last_decay = ?1, last_reset = ?2 WHERE id = 1"));
    st->bind(1, new_state->last_decay).bind(2, new_state->last_reset).run();
  }
  return res;
}

namespace {
// A charge's association by name, as one key: user, account, partition.
void name_key(const Charge& c, std::string* k) {
  k->assign(c.user);
  k->push_back('\0');
  k->append(c.account);
  k->push_back('\0');
  k->append(c.partition);
}
}  // namespace

// Step 1: the ledger rows of the batch's jobs (job_state_), unless
// scale_and_token read them already (PostgreSQL: with the scale, one round
// trip).
void StoreImpl::read_ledger_batch(const std::vector<Charge>& charges) {
  if (ledger_read_) {
    ledger_read_ = false;
    return;
  }
  batch_job_ids(charges);
  ls_ledger_get_.run(
      db_, batch_ids_.size(), [&](sql::Stmt& st, int p, size_t i) { st.bind(p, batch_ids_[i]); },
      [&](sql::Stmt& st) { job_state_[st.i64(0)] = JobState{st.i64(1), st.i64(2), -1, true}; });
}

void StoreImpl::batch_job_ids(const std::vector<Charge>& charges) {
  job_state_.clear();
  batch_ids_.clear();
  for (const Charge& c : charges) batch_ids_.push_back(static_cast<int64_t>(c.job_id));
  std::sort(batch_ids_.begin(), batch_ids_.end());
  batch_ids_.erase(std::unique(batch_ids_.begin(), batch_ids_.end()), batch_ids_.end());
}

// The scale and, in the same statement on PostgreSQL, the change counter:
// the transaction's first statement (it travels with BEGIN and the lock, so
// it sees every writer that committed before this one got the lock).  On
// PostgreSQL a batch's ledger rows come with them (step 1 in the same round
// trip).
double StoreImpl::scale_and_token(const std::vector<Charge>& charges) {
  txn_token_ = StoreToken{};
  ledger_read_ = false;
  if (db_.is_pg() && !charges.empty()) {
    batch_job_ids(charges);
    double scale = 1.0;
    ls_ledger_token_.run(
        db_, batch_ids_.size(), [&](sql::Stmt& st, int p, size_t i) { st.bind(p, batch_ids_[i]); },
        [&](sql::Stmt& st) {
          if (st.i64(0) == 0) {
            job_state_[st.i64(1)] = JobState{st.i64(2), st.i64(3), -1, true};
          } else {
            txn_token_ = StoreToken{st.i64(1), 0};
            scale = st.real(4);
          }
        });
    ledger_read_ = true;
    return scale;
  }
  if (db_.is_pg()) {
    sql::StmtUse st(prep(st_scale_token_,
        "SELECT d.scale, m.changes FROM decay_state d, store_meta m WHERE d.id = 1 AND m.id = 1"));
    if (!st->step()) return 1.0;
    txn_token_.a = st->i64(1);
    txn_token_.b = 0;
    return st->real(0);
  }
  {
    sql::StmtUse st(prep(st_data_version_, "PRAGMA data_version"));
    if (st->step()) txn_token_.a = st->i64(0);
  }
  txn_token_.b = sqlite3_total_changes64(db_.lite());
  return usage_scale();
}

StoreImpl::StoreToken StoreImpl::committed_token() {
  if (db_.is_pg()) return StoreToken{sql::pg_counter(db_.pg()), 0};
  // data_version moves only with other connections' commits; the changes
  // counted are this connection's, this transaction's included.
  return StoreToken{txn_token_.a, sqlite3_total_changes64(db_.lite())};
}

// After the commit of a charge transaction that found the cache current
// (or emptied it): its own writes (usage, ledger, journal, a new TRES) leave
// every name's association as it was, so the cache holds for the state
// this commit made.  Any other write moves the token past it.
void StoreImpl::charge_committed() {
  if (name_cache_token_ == txn_token_) name_cache_token_ = committed_token();
}

// Step 2: the association of each charge named by its user that the ledger
// does not place (charge_name_[i]: its index in name_assoc_, or kNoName):
// from the name cache when the store is as it was when the cache was
// filled, else (and for names it does not hold) in one read.
void StoreImpl::resolve_names_batch(const std::vector<Charge>& charges) {
  if (!(name_cache_token_ == txn_token_) || name_cache_.size() > (size_t{1} << 20)) {
    name_cache_.clear();
    name_cache_token_ = txn_token_;
  }
  name_idx_.clear();
  name_rows_.clear();
  name_assoc_.clear();
  name_miss_.clear();
  charge_name_.assign(charges.size(), kNoName);
  std::string key;
  for (size_t i = 0; i < charges.size(); ++i) {
    const Charge& c = charges[i];
    if (c.user.empty() || job_state_.count(static_cast<int64_t>(c.job_id))) continue;
    name_key(c, &key);
    const auto [it, fresh] = name_idx_.emplace(key, static_cast<uint32_t>(name_rows_.size()));
    if (fresh) {
      const auto hit = name_cache_.find(key);
      name_assoc_.push_back(hit != name_cache_.end() ? hit->second : 0);  // 0: no such association
      if (hit == name_cache_.end()) name_miss_.push_back(it->second);
      name_rows_.push_back(&c);
    }
    charge_name_[i] = it->second;
  }
  ls_assoc_by_name_.run(
      db_, name_miss_.size(),
      [&](sql::Stmt& st, int p, size_t i) {
        const uint32_t row = name_miss_[i];
        const Charge& c = *name_rows_[row];
        st.bind(p, static_cast<int64_t>(row)).bind(p + 1, c.user).bind(p + 2, c.account).bind(p + 3, c.partition);
      },
      [&](sql::Stmt& st) {
        const int64_t k = st.i64(0);
        if (k < 0 || static_cast<size_t>(k) >= name_assoc_.size() || st.is_null(1)) return;
        const int64_t id = st.i64(1);
        name_assoc_[static_cast<size_t>(k)] = id;
        if (id <= 0) return;
        name_key(*name_rows_[static_cast<size_t>(k)], &key);
        name_cache_[key] = id;  // a missing association is not kept: looked up again
      });
}

// Step 2b: the association ids the caller gave (a charge neither in the
// ledger nor named by its user) must exist: one statement for the batch,
// none when every charge is named or known (the plugins name them).  The
// ledger and the journal have no foreign key (schema 9).
void StoreImpl::check_given_assocs(const std::vector<Charge>& charges) {
  given_ids_.clear();
  for (size_t i = 0; i < charges.size(); ++i)
    if (charge_name_[i] == kNoName && !job_state_.count(static_cast<int64_t>(charges[i].job_id)))
      given_ids_.push_back(charges[i].assoc_id);
  if (given_ids_.empty()) return;
  std::sort(given_ids_.begin(), given_ids_.end());
  given_ids_.erase(std::unique(given_ids_.begin(), given_ids_.end()), given_ids_.end());
  size_t found = 0;
  ls_assoc_exists_.run(
      db_, given_ids_.size(), [&](sql::Stmt& st, int p, size_t i) { st.bind(p, given_ids_[i]); },
      [&](sql::Stmt&) { ++found; });
  if (found == given_ids_.size()) return;
  for (const Charge& c : charges) {  // name the first charge whose association is missing
    if (!std::binary_search(given_ids_.begin(), given_ids_.end(), c.assoc_id)) continue;
    sql::StmtUse st(prep(st_assoc_exists_, "SELECT 1 FROM assocs WHERE id = ?1"));
    st->bind(1, c.assoc_id);
    if (!st->step())
      throw StoreError(path_ + ": job " + std::to_string(c.job_id) + ": unknown association id " +
                       std::to_string(c.assoc_id));
  }
  throw StoreError(path_ + ": an association of the batch is missing");
}

// Steps 3 and 4 (see the top of this file).
void StoreImpl::charge_all(const CycleUpdate& up, double inv_scale, CycleResult& res) {
  ledger_buf_.clear();
  assoc_sums_.clear();
  assoc_idx_.clear();
  tres_sums_.clear();
  tres_idx_.clear();
  if (up.charges.empty()) return;
  read_ledger_batch(up.charges);
  resolve_names_batch(up.charges);
  check_given_assocs(up.charges);
  for (size_t i = 0; i < up.charges.size(); ++i) {
    const Charge& c = up.charges[i];
    if (!(c.rate >= 0.0) || c.rate > 1e15)
      throw StoreError(path_ + ": job " + std::to_string(c.job_id) + ": bad rate " +
                       std::to_string(c.rate));
    // until - start must not overflow: times run from 1970 to year 9999.
    if (c.start_time < 0 || c.until < 0 || c.start_time > kMaxChargeTime || c.until > kMaxChargeTime)
      throw StoreError(path_ + ": job " + std::to_string(c.job_id) + ": charge time before 1970 or after 9999");
    const int64_t job = static_cast<int64_t>(c.job_id);
    int64_t from = c.start_time;
    int64_t ledger_assoc = c.assoc_id;
    auto known = job_state_.find(job);
    if (known != job_state_.end()) {
      from = std::max(from, known->second.until);
      ledger_assoc = known->second.assoc_id;  // a job stays on the association it was first charged to
    } else if (charge_name_[i] != kNoName) {
      ledger_assoc = name_assoc_[charge_name_[i]];
      if (ledger_assoc == 0) {  // deleted while the job ran: nothing to charge to
        res.added.push_back(0);
        res.assoc_ids.push_back(0);
        ++res.dropped;
        continue;
      }
    }
    double added = 0;
    const int64_t secs = c.until - from;
    if (secs > 0) {
      added = static_cast<double>(secs) * c.rate;
      // Summed per association and per association and TRES, deferred or
      // not: the journal gets the same few rows the usage would.
      const auto [a, fresh] = assoc_idx_.emplace(ledger_assoc, static_cast<uint32_t>(assoc_sums_.size()));
      if (fresh) assoc_sums_.push_back(AssocSum{ledger_assoc, 0.0, c.job_id});
      assoc_sums_[a->second].amount += added * inv_scale;
      for (const auto& [name, per_sec] : c.tres) {
        if (per_sec == 0.0) continue;  // nothing to add: no row written
        add_tres_sum(ledger_assoc, tres_id(name), static_cast<double>(secs) * per_sec * inv_scale);
      }
    }
    // The job's ledger row, one per job (its charges' latest until, ended
    // if any said so), written even when nothing was due (a zero-length
    // first charge).
    JobState& s = known != job_state_.end() ? known->second
                                            : job_state_.emplace(job, JobState{c.until, ledger_assoc, -1, false}).first->second;
    s.until = std::max(s.until, c.until);
    if (s.ledger_row < 0) {
      s.ledger_row = static_cast<int32_t>(ledger_buf_.size());
      ledger_buf_.push_back(LedgerRow{job, s.assoc_id, c.until, c.ended, s.existed});
    } else {
      LedgerRow& l = ledger_buf_[static_cast<size_t>(s.ledger_row)];
      l.until = std::max(l.until, c.until);
      l.ended = l.ended || c.ended;
    }
    res.added.push_back(added);
    res.assoc_ids.push_back(ledger_assoc);
  }
  if (up.defer_usage) write_journal();
  else write_usage_sums();
  flush_ledger();
}

// The non-deferred usage: one row per association, then per association
// and TRES.  Every association named must exist (an admin tool's assoc_id
// may not): the first charge naming a missing one is reported.
void StoreImpl::write_usage_sums() {
  const int64_t changed = ls_charge_assoc_.run(db_, assoc_sums_.size(), [&](sql::Stmt& st, int p, size_t i) {
    st.bind(p, assoc_sums_[i].assoc_id).bind(p + 1, assoc_sums_[i].amount);
  });
  if (changed != static_cast<int64_t>(assoc_sums_.size())) {
    for (const AssocSum& a : assoc_sums_) {
      sql::StmtUse st(prep(st_assoc_exists_, "SELECT 1 FROM assocs WHERE id = ?1"));
      st->bind(1, a.assoc_id);
      if (!st->step())
        throw StoreError(path_ + ": job " + std::to_string(a.first_job) + ": unknown association id " +
                         std::to_string(a.assoc_id));
    }
    throw StoreError(path_ + ": " + std::to_string(changed) + " association rows charged, " +
                     std::to_string(assoc_sums_.size()) + " expected");
  }
  ls_charge_tres_.send(db_, tres_sums_.size(), [&](sql::Stmt& st, int p, size_t i) {
    const TresSum& t = tres_sums_[i];
    st.bind(p, t.assoc_id).bind(p + 1, t.tres_id).bind(p + 2, t.amount);
  });
}

// The deferred usage: the same sums as journal rows, one per association
// (schema 10: amount the billing usage, tres its TRES amounts packed),
// appended.  The journal has no foreign key (schema 9): the batch's ledger
// rows, written in the same transaction, reject an unknown association, and
// deleting an association deletes its journal rows.
void StoreImpl::write_journal() {
  const size_t na = assoc_sums_.size();
  if (journal_tres_.size() < na) journal_tres_.resize(na);
  for (size_t i = 0; i < na; ++i) journal_tres_[i].clear();
  for (const TresSum& t : tres_sums_) {
    const auto a = assoc_idx_.find(t.assoc_id);  // every TRES sum's association has its billing sum
    if (a != assoc_idx_.end()) pack_tres(&journal_tres_[a->second], t.tres_id, t.amount);
  }
  ls_journal_put_.send(db_, na, [&](sql::Stmt& st, int p, size_t i) {
    st.bind(p, assoc_sums_[i].assoc_id).bind(p + 1, assoc_sums_[i].amount).bind(p + 2, journal_tres_[i]);
  });
}

// The jobs new to the ledger, then those already in it (store_impl.hpp:
// ls_ledger_put_, ls_ledger_update_).
void StoreImpl::flush_ledger() {
  const auto old_rows = mfprio::stable_split(ledger_buf_.begin(), ledger_buf_.end(),
                                             [](const LedgerRow& r) { return !r.existed; });
  const size_t fresh = static_cast<size_t>(old_rows - ledger_buf_.begin());
  auto bind = [&](size_t first) {
    return [this, first](sql::Stmt& st, int p, size_t i) {
      const LedgerRow& r = ledger_buf_[first + i];
      st.bind(p, r.job_id).bind(p + 1, r.assoc_id).bind(p + 2, r.until).bind(p + 3, r.ended);
      row_written();  // the crash-test hook: dies inside the open transaction
    };
  };
  ls_ledger_put_.send(db_, fresh, bind(0));
  ls_ledger_update_.send(db_, ledger_buf_.size() - fresh, bind(fresh));
  ledger_buf_.clear();
}
void StoreImpl::check_pass(const PassClock& p, double decay_factor, bool explicit_state) const {
  if (p.now < 0 || p.now > kMaxChargeTime)
    throw StoreError(path_ + ": pass time " + std::to_string(p.now) + " before 1970 or after 9999");
  if (decay_factor != 1.0 || explicit_state)
    throw StoreError(path_ + ": a decay pass takes its factor and times from the store (no explicit factor, "
                             "state or deferred usage)");
  if (!(p.rate.unit_seconds > 0) || std::isnan(p.rate.base))
    throw StoreError(path_ + ": bad decay rate");
}

// The one multi-host rule (store.hpp: PassClock), read inside the pass's
// transaction.
PassApplied StoreImpl::decide_pass(const PassClock& p, bool force_reset, bool windows) {
  PassApplied a;
  const DecayState d = decay_state_in_txn();
  a.state = d;
  a.previous = d.last_decay;
  if (d.last_decay > 0 && p.now <= d.last_decay) return a;  // already passed: nothing, times kept
  a.applied = true;
  a.decay_factor = d.last_decay > 0 ? p.rate.factor(p.now - d.last_decay) : 1.0;
  a.reset = force_reset || (p.reset_if_before > 0 && d.last_reset > 0 && d.last_reset < p.reset_if_before);
  a.state.last_decay = p.now;
  if (windows || a.reset || d.last_reset == 0) a.state.last_reset = p.now;
  return a;
}

}  // namespace mfprio::acct::detail
