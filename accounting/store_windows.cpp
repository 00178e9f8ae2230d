// store_windows.cpp - windowed usage (store.hpp: WindowCycle, WindowRow).
//
// apply_windows(), one IMMEDIATE transaction: multiply the family's rows by
// the decay factor, drop rows whose window has ended before drop_before,
// then for each charge: from = max(start, the family ledger's
// charged_until), split [from, until) at multiples of window_seconds, add
// seconds x rate to each credential's row of each window, and move the
// ledger to `until` (only the last keep_windows windows up to `until` are
// written: older ones age out before the clock gets there).  A charge already made (until <= charged_until) adds
// nothing, so a job is never charged twice, whatever the caller repeats.
//
// The charges cost a few statements whatever their number (each a round
// trip on PostgreSQL), not a few per job, as store_charge.cpp's
// (store_batch.hpp, sql::ListStmt):
//   1. the family's window_ledger rows of every job of the batch, in one read;
//   2. the owners named (WindowCharge::owner_user ...), each once, in one read;
//   3. the charges worked out in memory, in order, a job's ledger state
//      carried from one of its charges to the next (a job charged twice in
//      one pass starts its second charge where the first ended, as if the
//      first's ledger row had been written and read back), every
//      (credential, window) row's usage summed over the batch;
//   4. the writes, many rows a statement: one add-upsert row per
//      (kind, name, start, seconds), one ledger row per job.
// All inside the caller's one transaction: all or nothing.
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <string>
#include <utility>

#include "store_impl.hpp"

namespace mfprio::acct::detail {
namespace {

// floor(t / len) * len for any sign of t.
int64_t window_start(int64_t t, int64_t len) {
  int64_t q = t / len;
  if ((t % len) != 0 && t < 0) --q;
  return q * len;
}

}  // namespace

void StoreImpl::check_window_row(const std::string& family, const WindowRow& w) const {
  if (!(w.usage >= 0) || std::isinf(w.usage))
    throw StoreError(path_ + ": " + family + " usage of " + w.kind + " '" + w.name + "' is not a finite number >= 0");
  if (w.seconds < 0) throw StoreError(path_ + ": window length below 0");
}

// One row set (an import): the usage replaces what the row had.
void StoreImpl::put_window(const std::string& family, const WindowRow& w) {
  check_window_row(family, w);
  sql::StmtUse st(prep(st_win_set_,
      "INSERT INTO usage_windows(family, kind, name, start, seconds, usage) VALUES (?1, ?2, ?3, ?4, ?5, ?6)"
      " ON CONFLICT(family, kind, name, start, seconds) DO UPDATE SET usage = excluded.usage"));
  st->bind(1, family).bind(2, w.kind).bind(3, w.name).bind(4, w.start).bind(5, w.seconds).bind(6, w.usage).run();
}

WindowResult StoreImpl::apply_windows(const WindowCycle& c) {
  check_windows(c);
  sql::Txn txn(db_);
  WindowResult res = windows_in_txn(c);
  txn.commit();
  return res;
}

// One pass's scalar and windowed rows in one transaction: the usage pass
// the plugin's runtime writes (at most one of them carries the PassClock).
PassResult StoreImpl::apply_pass(const PassWrite& w) {
  if (w.scalar && w.windows && w.scalar->pass && w.windows->pass)
    throw StoreError(path_ + ": a pass's scalar and windowed rows cannot both carry its clock");
  if (w.scalar) check_cycle(*w.scalar);
  if (w.windows) check_windows(*w.windows);
  PassResult res;
  try {
    sql::Txn txn(db_);
    if (w.scalar) res.scalar = cycle_in_txn(*w.scalar);
    if (w.windows) res.windows = windows_in_txn(*w.windows);
    txn.commit();
    if (w.scalar) charge_committed();
  } catch (...) {
    drop_buffers();
    throw;
  }
  return res;
}

void StoreImpl::check_windows(const WindowCycle& c) {
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  if (c.family.empty()) throw StoreError(path_ + ": windowed usage without a family");
  if (c.window_seconds < 0 || c.window_seconds > kMaxChargeTime)
    throw StoreError(path_ + ": window length below 0 or past year 9999");
  if (!(c.decay_factor >= 0.0 && c.decay_factor <= 1.0))
    throw StoreError(path_ + ": decay factor " + std::to_string(c.decay_factor) + " is outside [0, 1]");
  if (c.pass) {
    check_pass(*c.pass, c.decay_factor, c.new_state.has_value() || !c.kind_decay.empty());
    if (!c.kind_rates.empty() && c.pass->rate.base < 1.0)
      throw StoreError(path_ + ": per-kind decay rates and a family decay rate together");
  } else if (!c.kind_rates.empty()) {
    throw StoreError(path_ + ": per-kind decay rates without a pass");
  }
}

WindowResult StoreImpl::windows_in_txn(const WindowCycle& c) {
  WindowResult res;
  res.added.reserve(c.charges.size());
  if (!c.kind_decay.empty() && c.decay_factor != 1.0)
    throw StoreError(path_ + ": per-kind decay factors and a family decay factor together");
  double family_factor = c.decay_factor;
  std::vector<std::pair<std::string, double>> kind_factors = c.kind_decay;
  std::optional<DecayState> new_state = c.new_state;
  if (c.pass) {
    res.pass = decide_pass(*c.pass, false, /*windows=*/true);
    if (res.pass.applied) {
      new_state = res.pass.state;
      family_factor = res.pass.decay_factor;
      const int64_t elapsed = res.pass.previous > 0 ? c.pass->now - res.pass.previous : 0;
      for (const auto& [kind, rate] : c.kind_rates) kind_factors.emplace_back(kind, rate.factor(elapsed));
    }
  }
  if (family_factor != 1.0) {
    sql::StmtUse st(prep(st_win_decay_, "UPDATE usage_windows SET usage = usage * ?2 WHERE family = ?1"));
    st->bind(1, c.family).bind(2, family_factor).run();
  }
  for (const auto& [kind, f] : kind_factors) {
    if (!(f >= 0.0 && f <= 1.0))
      throw StoreError(path_ + ": decay factor of '" + kind + "' is outside [0, 1]");
    if (f == 1.0) continue;
    sql::StmtUse st(prep(st_win_decay_kind_,
        "UPDATE usage_windows SET usage = usage * ?3 WHERE family = ?1 AND kind = ?2"));
    st->bind(1, c.family).bind(2, kind).bind(3, f).run();
  }
  if (c.drop_before > std::numeric_limits<int64_t>::min() && c.window_seconds > 0) {
    sql::StmtUse st(prep(st_win_drop_,
        "DELETE FROM usage_windows WHERE family = ?1 AND seconds > 0 AND start + seconds <= ?2"));
    st->bind(1, c.family).bind(2, c.drop_before).run();
  }
  charge_windows(c, res);
  if (new_state) {
    sql::StmtUse st(prep(st_decay_state_,
        "UPDATE decay_state SET last_decay = ?1, last_reset = ?2 WHERE id = 1"));
    st->bind(1, new_state->last_decay).bind(2, new_state->last_reset).run();
  }
  return res;
}

void StoreImpl::check_window_charge(const WindowCharge& ch) const {
  if (!ch.credential_rates.empty() && ch.credential_rates.size() != ch.credentials.size())
    throw StoreError(path_ + ": job " + std::to_string(ch.job_id) + ": one rate per credential expected");
  for (double r : ch.credential_rates)
    if (!(r >= 0.0) || r > 1e15)
      throw StoreError(path_ + ": job " + std::to_string(ch.job_id) + ": bad rate " + std::to_string(r));
  if (!(ch.rate >= 0.0) || ch.rate > 1e15)
    throw StoreError(path_ + ": job " + std::to_string(ch.job_id) + ": bad rate " + std::to_string(ch.rate));
  // Window arithmetic (start + length, end - t) must not overflow.
  if (ch.start_time < 0 || ch.until < 0 || ch.start_time > kMaxChargeTime || ch.until > kMaxChargeTime)
    throw StoreError(path_ + ": job " + std::to_string(ch.job_id) + ": charge time before 1970 or after 9999");
}

// Step 1: the family's ledger rows of the batch's jobs (win_state_).
void StoreImpl::read_window_ledger(const WindowCycle& c) {
  win_state_.clear();
  batch_ids_.clear();
  for (const WindowCharge& ch : c.charges) batch_ids_.push_back(static_cast<int64_t>(ch.job_id));
  distinct_ids(batch_ids_);
  ls_win_ledger_get_.run(
      db_, batch_ids_.size(), [&](sql::Stmt& st, int p, size_t i) { st.bind(p, batch_ids_[i]).bind(p + 1, c.family); },
      [&](sql::Stmt& st) {
        if (!st.is_null(1)) win_state_[st.i64(0)] = WinJob{st.i64(1), -1};
      });
}

// A charge's usage of one (credential, window), added to the batch's row.
void StoreImpl::add_window_usage(const std::string& kind, const std::string& name, int64_t start, double usage) {
  win_key_.assign(kind);
  win_key_.push_back('\0');
  win_key_.append(name);
  auto cred = win_cred_idx_.find(win_key_);
  if (cred == win_cred_idx_.end()) {
    cred = win_cred_idx_.emplace(win_key_, static_cast<uint32_t>(win_creds_.size())).first;
    win_creds_.emplace_back(&kind, &name);
  }
  const auto [row, fresh] =
      win_row_idx_.emplace(std::make_pair(static_cast<int64_t>(cred->second), start),
                           static_cast<uint32_t>(win_rows_.size()));
  if (fresh) win_rows_.push_back(WinRow{cred->second, start, 0.0});
  win_rows_[row->second].usage += usage;
}

// Steps 2 to 4 (see the top of this file).
void StoreImpl::charge_windows(const WindowCycle& c, WindowResult& res) {
  win_ledger_buf_.clear();
  win_cred_idx_.clear();
  win_creds_.clear();
  win_rows_.clear();
  win_row_idx_.clear();
  names_.clear();
  if (c.charges.empty()) return;
  for (const WindowCharge& ch : c.charges) check_window_charge(ch);
  read_window_ledger(c);
  win_owner_.assign(c.charges.size(), kNoName);
  for (size_t i = 0; i < c.charges.size(); ++i) {
    const WindowCharge& ch = c.charges[i];
    if (!ch.owner_user.empty()) win_owner_[i] = names_.add(ch.owner_user, ch.owner_account, ch.owner_partition);
  }
  names_.resolve(db_, ls_assoc_by_name_);
  for (size_t i = 0; i < c.charges.size(); ++i) {
    const WindowCharge& ch = c.charges[i];
    // A charge owned by an association (Charge's rule), looked up at every
    // charge (the window ledger outlives a deleted association); gone
    // (deleted while its job ran): not charged, its ledger row untouched.
    if (win_owner_[i] != kNoName && names_.assoc(win_owner_[i]) == 0) {
      res.added.push_back(0);
      res.dropped_at.push_back(i);
      continue;
    }
    const int64_t job = static_cast<int64_t>(ch.job_id);
    int64_t from = ch.start_time;
    auto known = win_state_.find(job);
    if (known != win_state_.end()) from = std::max(from, known->second.until);
    // Windows before drop_before are dropped above and can never count
    // again: a job that started long ago is charged from there (a start in
    // 1970 would otherwise write one row per window since).
    if (c.window_seconds > 0 && c.drop_before > from) from = std::min(c.drop_before, ch.until);
    // Nor can the windows older than the kept history counted back from the
    // charge's own end: rows per charge are bounded by keep_windows.
    if (c.window_seconds > 0 && c.keep_windows > 0 && c.keep_windows - 1 < ch.until / c.window_seconds) {
      const int64_t oldest = window_start(ch.until, c.window_seconds) - (c.keep_windows - 1) * c.window_seconds;
      if (oldest > from) from = std::min(oldest, ch.until);
    }
    double added = 0;
    for (int64_t t = from; t < ch.until;) {
      const int64_t ws = c.window_seconds > 0 ? window_start(t, c.window_seconds) : 0;
      const int64_t end = c.window_seconds > 0 ? std::min(ch.until, ws + c.window_seconds) : ch.until;
      const double amount = static_cast<double>(end - t) * ch.rate;
      for (size_t k = 0; k < ch.credentials.size(); ++k) {
        const double a = ch.credential_rates.empty() ? amount
                                                     : static_cast<double>(end - t) * ch.credential_rates[k];
        add_window_usage(ch.credentials[k].first, ch.credentials[k].second, ws, a);
      }
      added += amount;
      t = end;
    }
    // The job's ledger row, one per job: its charges' latest until, ended
    // if any said so (the statement keeps the stored row's if later).
    WinJob& s = known != win_state_.end() ? known->second : win_state_.emplace(job, WinJob{ch.until, -1}).first->second;
    s.until = std::max(s.until, ch.until);
    if (s.ledger_row < 0) {
      s.ledger_row = static_cast<int32_t>(win_ledger_buf_.size());
      win_ledger_buf_.push_back(WinLedgerRow{job, ch.until, ch.ended});
    } else {
      WinLedgerRow& l = win_ledger_buf_[static_cast<size_t>(s.ledger_row)];
      l.until = std::max(l.until, ch.until);
      l.ended = l.ended || ch.ended;
    }
    res.added.push_back(added);
  }
  write_windows(c);
}

// Step 4: the window rows (added to the stored ones), then the ledger rows.
void StoreImpl::write_windows(const WindowCycle& c) {
  for (const WinRow& r : win_rows_) {
    const auto& [kind, name] = win_creds_[r.cred];
    check_window_row(c.family, WindowRow{*kind, *name, r.start, c.window_seconds, r.usage});
  }
  ls_win_add_.run(db_, win_rows_.size(), [&](sql::Stmt& st, int p, size_t i) {
    const WinRow& r = win_rows_[i];
    st.bind(p, c.family).bind(p + 1, *win_creds_[r.cred].first).bind(p + 2, *win_creds_[r.cred].second);
    st.bind(p + 3, r.start).bind(p + 4, c.window_seconds).bind(p + 5, r.usage);
    row_written();  // the crash-test hook: dies inside the open transaction
  });
  ls_win_ledger_put_.run(db_, win_ledger_buf_.size(), [&](sql::Stmt& st, int p, size_t i) {
    const WinLedgerRow& r = win_ledger_buf_[i];
    st.bind(p, c.family).bind(p + 1, r.job_id).bind(p + 2, r.until).bind(p + 3, r.ended);
  });
  win_ledger_buf_.clear();
}

std::vector<WindowRow> StoreImpl::load_windows(const std::string& family) {
  std::vector<WindowRow> out;
  sql::Txn txn(db_, /*write=*/false);
  sql::StmtUse st(prep(st_win_load_,
      "SELECT kind, name, start, seconds, usage FROM usage_windows WHERE family = ?1"));
  st->bind(1, family);
  while (st->step()) out.push_back(WindowRow{st->text(0), st->text(1), st->i64(2), st->i64(3), st->real(4)});
  return out;
}

DecayState StoreImpl::decay_state() {
  sql::Txn txn(db_, /*write=*/false);
  return decay_state_in_txn();
}

DecayState StoreImpl::decay_state_in_txn() {
  sql::StmtUse st(prep(st_win_state_get_, "SELECT last_decay, last_reset FROM decay_state WHERE id = 1"));
  DecayState d;
  if (st->step()) {
    d.last_decay = st->i64(0);
    d.last_reset = st->i64(1);
  }
  return d;
}

DecayInfo StoreImpl::decay_info() {
  sql::Txn txn(db_, /*write=*/false);
  const DecayState d = decay_state_in_txn();
  return DecayInfo{d.last_decay, d.last_reset, usage_scale()};
}

void StoreImpl::set_decay_state(const DecayState& s) {
  if (read_only_) throw StoreError(path_ + ": store opened read-only");
  if (s.last_decay < 0 || s.last_decay > kMaxChargeTime || s.last_reset < 0 || s.last_reset > kMaxChargeTime)
    throw StoreError(path_ + ": decay times must lie between 1970 and 9999");
  if (s.last_reset > s.last_decay)
    throw StoreError(path_ + ": last_reset " + std::to_string(s.last_reset) + " is after last_decay " +
                     std::to_string(s.last_decay));
  sql::Txn txn(db_);
  sql::StmtUse st(prep(st_decay_state_, "UPDATE decay_state SET last_decay = ?1, last_reset = ?2 WHERE id = 1"));
  st->bind(1, s.last_decay).bind(2, s.last_reset).run();
  txn.commit();
}

}  // namespace mfprio::acct::detail
