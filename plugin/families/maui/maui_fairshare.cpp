// maui_fairshare.cpp - window arithmetic, the ledger and the FS deltas
// (MFS.c; model and invariants in maui_fairshare.hpp).
//
// Differences from Maui worth knowing when reading this:
//   * Maui charges each scheduling iteration's interval wholly to slot 0 at
//     the time it runs; charge_interval() puts each second into the window it
//     belongs to, so an interval straddling a boundary is split.  The totals
//     agree; only the split across the boundary differs.
//   * Maui keeps its windows in files FS.<start>; the ledger here is memory
//     only: persisting it is the store's job.
#include "maui_fairshare.hpp"

#include <algorithm>
#include <cmath>

namespace mfprio::maui {

int64_t fs_window_index(int64_t t, int64_t interval) {
  int64_t q = t / interval;
  if ((t % interval) != 0 && (t < 0)) --q;  // floor for negative t
  return q;
}

int64_t fs_window_start(int64_t index, int64_t interval) { return index * interval; }

void fs_split_interval(int64_t start, int64_t until, int64_t interval,
                       std::vector<WindowPiece>* out) {
  out->clear();
  int64_t t = start;
  while (t < until) {
    const int64_t w = fs_window_index(t, interval);
    const int64_t end = std::min(until, fs_window_start(w + 1, interval));
    out->push_back({w, end - t});
    t = end;
  }
}

double fs_roll(FsWindows* w, int64_t k) {
  if (k <= 0) return 0.0;
  auto& s = *w;
  double dropped = 0.0;
  if (k >= kMaxFsDepth) {
    for (double& v : s) { dropped += v; v = 0.0; }
    return dropped;
  }
  const int kk = static_cast<int>(k);
  for (int i = kMaxFsDepth - kk; i < kMaxFsDepth; ++i) dropped += s[i];
  for (int i = kMaxFsDepth - 1; i >= kk; --i) s[i] = s[i - kk];
  for (int i = 0; i < kk; ++i) s[i] = 0.0;
  return dropped;
}

double fs_decayed_total(const FsWindows& w, int depth, double decay) {
  depth = std::clamp(depth, 1, kMaxFsDepth);
  double sum = w[0];
  double f = 1.0;
  for (int i = 1; i < depth; ++i) {
    f *= decay;
    sum += w[i] * f;
  }
  return sum;
}

double fs_charge_amount(FsPolicy policy, double procs, double pe, double utilized_ps,
                        double seconds) {
  switch (policy) {
    case FsPolicy::None: return 0.0;
    case FsPolicy::DedicatedPS: return procs * seconds;
    case FsPolicy::DedicatedPES: return pe * seconds;
    case FsPolicy::UtilizedPS: return utilized_ps >= 0.0 ? utilized_ps : procs * seconds;
  }
  return 0.0;
}

double fs_delta(double usage, double total, const FsTarget& target, bool percent) {
  if (!(target.value > 0.0) || !(total > 0.0)) return 0.0;
  const double pct = 100.0 * usage / total;
  double d = percent ? 1.0 - pct / target.value : target.value - pct;
  switch (target.mode) {
    case TargetMode::Target: break;
    case TargetMode::Floor: d = std::max(d, 0.0); break;
    case TargetMode::Ceiling: d = std::min(d, 0.0); break;
    case TargetMode::CapAbsolute:
    case TargetMode::CapRelative: d = 0.0; break;  // enforced as a hard cap elsewhere
  }
  return d;
}

// ---- FsLedger -----------------------------------------------------------------

FsLedger::FsLedger(int64_t interval, int64_t now)
    : interval_(interval > 0 ? interval : 1), current_(fs_window_index(now, interval_)) {}

void FsLedger::roll_all(int64_t k, double* dropped) {
  *dropped += fs_roll(&total_, k);
  for (auto& m : by_name_)
    for (auto& [name, w] : m) fs_roll(&w, k);
}

double FsLedger::advance_to(int64_t now) {
  const int64_t w = fs_window_index(now, interval_);
  double dropped = 0.0;
  if (w > current_) {
    roll_all(w - current_, &dropped);
    current_ = w;
  }
  return dropped;
}

bool FsLedger::charge_at(const CredNames& who, int64_t t, double amount) {
  const int64_t w = fs_window_index(t, interval_);
  if (w > current_) advance_to(t);
  const int64_t slot = current_ - w;
  if (slot >= kMaxFsDepth) return false;
  total_[slot] += amount;
  for (int k = 0; k < kCredKinds; ++k) {
    if (who.name[k].empty()) continue;
    auto& m = by_name_[k];
    auto it = m.find(std::string(who.name[k]));
    if (it == m.end()) it = m.emplace(std::string(who.name[k]), FsWindows{}).first;
    it->second[slot] += amount;
  }
  return true;
}

double FsLedger::charge_interval(const CredNames& who, int64_t start, int64_t until,
                                 double rate) {
  std::vector<WindowPiece> pieces;
  fs_split_interval(start, until, interval_, &pieces);
  double refused = 0.0;
  for (const WindowPiece& p : pieces) {
    const double amount = rate * static_cast<double>(p.seconds);
    if (!charge_at(who, fs_window_start(p.window, interval_), amount)) refused += amount;
  }
  return refused;
}

const FsWindows* FsLedger::windows(CredKind k, const std::string& name) const {
  const auto& m = by_name_[static_cast<int>(k)];
  auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

FsUsage FsLedger::decayed(int depth, double decay) const {
  FsUsage u;
  u.total = fs_decayed_total(total_, depth, decay);
  for (int k = 0; k < kCredKinds; ++k)
    for (const auto& [name, w] : by_name_[k])
      u.by_name[k][name] = fs_decayed_total(w, depth, decay);
  return u;
}

// ---- FsView -------------------------------------------------------------------

double FsView::delta(CredKind k, const std::string& name) const {
  if (!enabled || name.empty()) return 0.0;
  const auto& m = entries[static_cast<int>(k)];
  auto it = m.find(name);
  return it == m.end() ? absent_delta[static_cast<int>(k)] : it->second.delta;
}

FsTarget target_in_force(const Config& cfg, CredKind k, const std::string& name) {
  const CredCfg* c = cfg.find(k, name);
  if (c && c->fs_target.value > 0.0) return c->fs_target;
  const FsTarget& dflt = cfg.default_cred[static_cast<int>(k)].fs_target;
  if (dflt.value > 0.0) return dflt;
  return FsTarget{};
}

FsView build_fs_view(const Config& cfg, const FsUsage& usage) {
  FsView v;
  v.total = usage.total;
  v.enabled = cfg.fs_policy != FsPolicy::None && usage.total > 0.0;
  if (!v.enabled) return v;
  for (int k = 0; k < kCredKinds; ++k) {
    const FsTarget& dflt = cfg.default_cred[k].fs_target;
    auto add = [&](const std::string& name, double u) {
      FsEntry e;
      e.usage = u;
      e.percent = 100.0 * u / usage.total;
      e.target = target_in_force(cfg, static_cast<CredKind>(k), name);
      e.delta = fs_delta(u, usage.total, e.target, cfg.fs_percent);
      v.entries[k][name] = e;
    };
    for (const auto& [name, u] : usage.by_name[k]) add(name, u);
    for (const auto& [name, c] : cfg.creds[k])
      if (!v.entries[k].count(name)) add(name, 0.0);
    v.absent_delta[k] = fs_delta(0.0, usage.total, dflt, cfg.fs_percent);
  }
  return v;
}

}  // namespace mfprio::maui
