// maui_fairshare.hpp - fair share as Maui keeps it: usage in clock-aligned
// windows, decayed per window, turned into per-credential deltas against
// targets (MFS.c).
//
// Model:
//   * Time is cut into windows of FSINTERVAL seconds aligned to the epoch:
//     window index w(t) = floor(t / FSINTERVAL) (Maui aligns to
//     `now - now % FSINTERVAL`, the same boundaries for t >= 0).
//   * Each credential (user, group, account, QOS, class) and the total keep an
//     FsWindows array: slot 0 is the current, still-filling window, slot i the
//     window i intervals older.  Every array has kMaxFsDepth (24, Maui's
//     MAX_MFSDEPTH) slots whatever FSDEPTH is, so raising FSDEPTH later (up to
//     24) finds the history Maui would have had; usage older than 24 windows
//     drops out (fs_roll returns how much, so nothing vanishes silently).
//   * Decayed usage u = sum_{i=0}^{FSDEPTH-1} slot[i] * FSDECAY^i: the current
//     window weighs 1 and counts towards FSDEPTH (MFS:MFSCalcFactor).
//   * Per credential: delta = target - 100*u/TOTAL (percentage points), or with
//     a '%' FSPOLICY delta = 1 - (100*u/TOTAL)/target; then '+' keeps only
//     delta >= 0, '-' only delta <= 0, '^'/'%' give 0.  A credential without a
//     target > 0 uses the DEFAULT credential's; with neither the delta is 0.
//     Nothing is computed (all 0) when FSPOLICY is NONE or TOTAL <= 0.
//
// Entry points (all pure):
//   fs_window_index, fs_window_start, fs_split_interval   window arithmetic
//   fs_roll, fs_decayed_total                             one window array
//   fs_charge_amount                                      FSPOLICY -> amount
//   fs_delta                                              one credential
//   FsLedger                                              the per-credential store
//   build_fs_view -> FsView                               what pricing reads
// Call order for a host: FsLedger::advance_to(now) each iteration, charge the
// running jobs (charge_interval), then decayed() and build_fs_view() to make
// the FsView that goes into the pricing Model.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "maui_cfg.hpp"

namespace mfprio::maui {

// slot[0] = current window, slot[i] = i windows before it.
using FsWindows = std::array<double, kMaxFsDepth>;

// floor(t / interval), correct for negative t.  interval > 0.
int64_t fs_window_index(int64_t t, int64_t interval);
// The first second of window `index`.
int64_t fs_window_start(int64_t index, int64_t interval);

struct WindowPiece {
  int64_t window;   // window index
  int64_t seconds;  // part of the interval inside that window
};
// Cuts [start, until) at window boundaries, oldest piece first, appending to
// *out (cleared first).  Nothing when until <= start.  The seconds sum to
// until - start.
void fs_split_interval(int64_t start, int64_t until, int64_t interval,
                       std::vector<WindowPiece>* out);

// Moves every slot k windows older (k >= 0): slot i goes to i + k, slots
// 0..k-1 become 0.  Returns the usage pushed beyond the last slot.
double fs_roll(FsWindows* w, int64_t k);

// sum_{i < depth} w[i] * decay^i; depth is clamped to [1, kMaxFsDepth].
double fs_decayed_total(const FsWindows& w, int depth, double decay);

// What `seconds` of a running job cost under FSPOLICY (MFS.c):
// DEDICATEDPS procs*seconds, DEDICATEDPES pe*seconds, UTILIZEDPS the measured
// utilised proc-seconds (utilized_ps; when negative = not measured, the
// dedicated proc-seconds are charged instead), NONE 0.
double fs_charge_amount(FsPolicy policy, double procs, double pe, double utilized_ps,
                        double seconds);

// One credential's FS sub-factor from its decayed usage, the decayed total,
// the target in force (already resolved against DEFAULT) and the '%' flag.
// 0 when target.value <= 0 or total <= 0.
double fs_delta(double usage, double total, const FsTarget& target, bool percent);

// The FSTARGET in force for a credential: its own *CFG[name] target when > 0,
// else the kind's DEFAULT one when > 0, else none (value 0).
FsTarget target_in_force(const Config& cfg, CredKind k, const std::string& name);

// The names of one job's credentials, indexed by CredKind; "" = none.
struct CredNames {
  std::array<std::string_view, kCredKinds> name{};
};

// Decayed usage per credential plus the total.
struct FsUsage {
  std::array<std::unordered_map<std::string, double>, kCredKinds> by_name;
  double total = 0.0;
};

class FsLedger {
 public:
  // Starts empty with the window holding `now` as current.
  FsLedger(int64_t interval, int64_t now);

  int64_t interval() const { return interval_; }
  int64_t current_window() const { return current_; }

  // Rolls every array forward so the window holding `now` is slot 0.  A `now`
  // in an older window changes nothing (the clock never runs backwards here).
  // Returns the usage dropped past the last slot (summed over the total array
  // only, so it is counted once).
  double advance_to(int64_t now);

  // Adds `amount` to the window holding t for each named credential and the
  // total.  A t in a newer window first advances the ledger; a t older than
  // the kept slots is refused (returns false, nothing charged).
  bool charge_at(const CredNames& who, int64_t t, double amount);

  // Charges rate * seconds for [start, until), each piece into its own window.
  // Returns the amount refused (pieces older than the kept slots).
  double charge_interval(const CredNames& who, int64_t start, int64_t until, double rate);

  // nullptr when that credential was never charged.
  const FsWindows* windows(CredKind k, const std::string& name) const;
  const FsWindows& total() const { return total_; }

  FsUsage decayed(int depth, double decay) const;

 private:
  void roll_all(int64_t k, double* dropped);

  int64_t interval_;
  int64_t current_;
  FsWindows total_{};
  std::array<std::unordered_map<std::string, FsWindows>, kCredKinds> by_name_;
};

// One credential as pricing (and an sshare-like view) sees it.
struct FsEntry {
  double usage = 0.0;     // decayed usage
  double percent = 0.0;   // 100 * usage / total
  FsTarget target;        // in force (own or DEFAULT); value 0 = none
  double delta = 0.0;     // the FS sub-factor
};

struct FsView {
  bool enabled = false;   // FSPOLICY != NONE and total > 0
  double total = 0.0;
  std::array<std::unordered_map<std::string, FsEntry>, kCredKinds> entries;
  // The sub-factor of a named credential with neither usage nor a *CFG line:
  // usage 0 against the DEFAULT target.
  std::array<double, kCredKinds> absent_delta{};

  // The FS sub-factor for a job's credential; "" (no such credential) gives 0.
  double delta(CredKind k, const std::string& name) const;
};

FsView build_fs_view(const Config& cfg, const FsUsage& usage);

}  // namespace mfprio::maui
