// maui_cfg.hpp - the settings of the maui/moab priority family and the reader
// of the admin's maui.cfg / moab.cfg text.
//
// Purpose: turn the priority and fair-share parameters of a maui.cfg (Maui
// 3.x) or moab.cfg (Moab 5.x) into typed values, so that pricing
// (maui_priority.hpp) and fair share (maui_fairshare.hpp) never look at text.
//
// Entry points:
//   Config::defaults(flavor)   the out-of-the-box settings (Maui 3.2
//                              src/MPar.c, MParSetDefaults: FIFO by queue time)
//   parse_maui_cfg(...)        read a whole file's text; validate everything,
//                              and only then fill *out
//   parse_maui_time(...)       Maui's duration syntax (MTime.c:MUTimeFromString)
//   component_info / sub_info  the static tables: names, parameter names,
//                              which component a sub-component belongs to
//
// Invariants:
//   * A Config always holds every weight and cap of every component and
//     sub-component of both flavors (the Moab-only ones stay at their
//     defaults when the flavor is Maui and are never priced there).
//   * Weights and caps are integers (Maui stores them as `long`); a cap <= 0
//     means "no cap" (MPriority.c).
//   * parse_maui_cfg either succeeds and overwrites *out completely, or fails
//     with *why = "file:line: PARAMETER 'value': reason" and leaves *out
//     untouched.
//   * Parameters that are not about priority or fair share are not errors:
//     they are kept in Config::ignored (one entry per occurrence) so the
//     plugin can log them once.
//
// Pure: no I/O, no globals; the caller reads the file and hands over its text.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

namespace mfprio::maui {

// Which scheduler's rules to follow (the Moab differences come from Moab 5.1.2's
// documentation alone: no Moab source is public, so they are held with low confidence).
enum class Flavor { Maui, Moab };

// The seven components in Maui's fixed order (MPriority.c).
enum class Component : int { Serv, Targ, Cred, Attr, Fs, Res, Usage };
inline constexpr int kComponents = 7;

// Every sub-component, grouped by component in Maui's enum order.  Moab-only
// entries are marked in the table (sub_info().moab_only).  UPROC and UJOB are
// parsed but never counted (MPriority.c: outside the summed range).
enum class Sub : int {
  // SERV
  QueueTime, XFactor, SpViolation, Bypass, StartCount, Deadline, UserPrio,
  // TARG
  TargetQueueTime, TargetXFactor,
  // CRED
  CredUser, CredGroup, CredAccount, CredQos, CredClass,
  // ATTR
  AttrAttr, AttrState, AttrGres,
  // FS
  FsUser, FsGroup, FsAccount, FsQos, FsClass,
  FsGUser, FsGGroup, FsGAccount, FsJpu, FsPpu, FsPspu, WcAccuracy,
  // RES
  Node, Proc, Mem, Swap, Disk, Ps, Pe, Walltime, UProc, UJob,
  // USAGE
  Consumed, ExecutionTime, Remaining, Percent,
};
inline constexpr int kSubs = static_cast<int>(Sub::Percent) + 1;

struct ComponentInfo {
  Component comp;
  const char* term_name;     // "SERV", "TARG", ...
  const char* label;         // human words for views
  const char* weight_param;  // "SERVICEWEIGHT"
  const char* cap_param;     // "SERVICEWCAP" (sic, Maui's spelling)
  const char* cap_alias;     // another accepted spelling, or nullptr
};

struct SubInfo {
  Sub sub;
  Component comp;
  const char* term_name;     // "SERV.QUEUETIME", "FS.USER", "RES.PROC"
  const char* label;
  const char* weight_param;  // "QUEUETIMEWEIGHT"
  const char* weight_alias;  // Moab's doc spelling, or nullptr
  const char* cap_param;     // "QUEUETIMECAP"
  const char* cap_alias;
  bool moab_only;            // not a Maui parameter: ignored under Flavor::Maui
  bool counted;              // false for UPROC/UJOB (never summed)
};

const ComponentInfo& component_info(Component c);
const SubInfo& sub_info(Sub s);

// Credential kinds, in the order FS and CRED list them.
enum class CredKind : int { User, Group, Account, Qos, Class };
inline constexpr int kCredKinds = 5;
const char* cred_kind_param(CredKind k);  // "USERCFG", ...

// FSPOLICY (MFS.c): what a running job is charged per second.
// Maui 3.2 and Moab 5 also accept SDEDICATEDPES and PDEDICATEDPS, which their
// usage charge prices as DEDICATEDPS (Config::fs_policy_name keeps the word).
enum class FsPolicy { None, DedicatedPS, DedicatedPES, UtilizedPS };

// JOBPRIOACCRUALPOLICY (MPolicy.c).  Accrue and Reset are Moab's: queue
// time from submission except while the job violates one of the
// JOBPRIOEXCEPTIONS (Config::prio_exceptions; maui_fast.hpp's accrual_rule).
enum class AccrualPolicy { Always, QueuePolicy, FullPolicy, Accrue, Reset };

// JOBPRIOEXCEPTIONS values (Moab 5), as bits of Config::prio_exceptions.
enum PrioException : uint32_t {
  kExcBatchHold = 1u << 0, kExcDefer = 1u << 1, kExcDepends = 1u << 2, kExcHardPolicy = 1u << 3,
  kExcIdlePolicy = 1u << 4, kExcSoftPolicy = 1u << 5, kExcSystemHold = 1u << 6, kExcUserHold = 1u << 7,
};

// How an FSTARGET value is used (MFS.c: MFSTargetFromString).
enum class TargetMode {
  Target,       // plain number: delta counts both ways
  Floor,        // '+': only a positive delta (usage below target) counts
  Ceiling,      // '-': only a negative delta counts
  CapAbsolute,  // '^': a hard cap enforced elsewhere; 0 priority
  CapRelative,  // '%': idem
};

struct FsTarget {
  double value = 0.0;  // <= 0: no target (falls back to the DEFAULT one)
  TargetMode mode = TargetMode::Target;
};

// The attributes of one USERCFG[x] / GROUPCFG[x] / ... line (merged over all
// the lines naming x).  Fields that do not apply to a kind stay 0.
struct CredCfg {
  int64_t priority = 0;     // PRIORITY=; 0 means "not set" (MPriority.c falls back)
  FsTarget fs_target;       // FSTARGET=
  int64_t class_weight = 0; // GROUPCFG CLASSWEIGHT=: replaces CLASSWEIGHT if > 0
  int64_t fs_weight = 0;    // Moab GROUP/ACCOUNT/QOS FSWEIGHT=: added to FSWEIGHT
  int64_t qt_weight = 0;    // QOSCFG QTWEIGHT=: added to QUEUETIMEWEIGHT
  int64_t xf_weight = 0;    // QOSCFG XFWEIGHT=: added to XFACTORWEIGHT
  int64_t qt_target = 0;    // QOSCFG QTTARGET= (seconds)
  double xf_target = 0.0;   // QOSCFG XFTARGET=
};

// One parameter (or one *CFG attribute) that is not about priority.
struct IgnoredParam {
  std::string file;
  int line = 0;
  std::string name;   // as written, e.g. "RMCFG[base]" or "USERCFG[bob] MAXJOB"
  std::string value;
};

inline constexpr int kMaxFsDepth = 24;                 // MAX_MFSDEPTH
// The longest FSINTERVAL: a year and a day.  Window times (FSDEPTH windows
// back from any time a host may pass) then stay far inside int64, and a
// longer window would keep usage for decades.
inline constexpr int64_t kMaxFsInterval = 366 * 86400;
// With ENABLENEGJOBPRIORITY the 32-bit result is priority + kNegOffset:
// -1e9 -> 1, 0 -> 1000000001, 1e9 -> 2000000001 (0 stays "held").
inline constexpr int64_t kNegOffset = 1000000001;
inline constexpr int64_t kInfiniteTime = 2140000000;   // Maui's MAX_MTIME

static_assert(static_cast<int>(Sub::QueueTime) == 0, "sub_weight's initializer relies on it");

// A default-constructed Config holds Maui's defaults (= Config::defaults(Maui)).
struct Config {
  Flavor flavor = Flavor::Maui;

  std::array<int64_t, kComponents> comp_weight{1, 1, 1, 1, 1, 1, 1};
  std::array<int64_t, kComponents> comp_cap{};
  // A component weight written "N%": Maui stores weight 10 and this percent,
  // which pricing never reads (MPriority.c); -1 when not written that way.
  std::array<int64_t, kComponents> comp_weight_percent{-1, -1, -1, -1, -1, -1, -1};
  std::array<int64_t, kSubs> sub_weight{1};  // QUEUETIMEWEIGHT 1, every other 0
  std::array<int64_t, kSubs> sub_cap{};

  int64_t xf_min_wclimit = 120;        // XFMINWCLIMIT, seconds
  bool use_system_queue_time = false;  // USESYSTEMQUEUETIME
  AccrualPolicy accrual = AccrualPolicy::QueuePolicy;

  FsPolicy fs_policy = FsPolicy::None;
  bool fs_percent = false;             // FSPOLICY written with a trailing '%'
  int64_t fs_interval = 43200;         // FSINTERVAL, seconds
  int fs_depth = 8;                    // FSDEPTH, 1..kMaxFsDepth
  double fs_decay = 1.0;               // FSDECAY, 0..1

  std::array<std::unordered_map<std::string, CredCfg>, kCredKinds> creds;
  std::array<CredCfg, kCredKinds> default_cred;  // *CFG[DEFAULT]

  // JOBPRIOEXCEPTIONS (Moab, read with ACCRUE or RESET): PrioException bits.
  uint32_t prio_exceptions = 0;

  // ENABLENEGJOBPRIORITY (Moab 5): totals below 1 are kept (down to -1e9)
  // instead of clamped to 1; the ABI's result is then priority + kNegOffset.
  bool negative_priority = false;

  // The keywords as the file wrote them (upper case), for views.
  std::string fs_policy_name = "NONE";
  std::string accrual_name = "QUEUEPOLICY";

  std::vector<IgnoredParam> ignored;
  // "file:line: ..." notes on values read but not honoured exactly; the
  // plugin logs each one as a warning.
  std::vector<std::string> warnings;

  static Config defaults(Flavor flavor);

  int64_t weight(Component c) const { return comp_weight[static_cast<int>(c)]; }
  int64_t cap(Component c) const { return comp_cap[static_cast<int>(c)]; }
  int64_t weight(Sub s) const { return sub_weight[static_cast<int>(s)]; }
  int64_t cap(Sub s) const { return sub_cap[static_cast<int>(s)]; }
  // nullptr when the credential has no *CFG line (DEFAULT is not consulted).
  const CredCfg* find(CredKind k, const std::string& name) const;
};

// Reads the text of a maui.cfg (flavor Maui) or moab.cfg (flavor Moab).
// file_name is only used in messages.  Starts from Config::defaults(flavor).
// On error returns false, sets *why (if non-null) to every error of the file,
// one "file:line: ..." per line in file order, and leaves *out unchanged.
// An unknown parameter name close to a priority parameter's (edit distance
// <= 2) is an error with "did you mean"; other unknown names are ignored.
bool parse_maui_cfg(const std::string& text, const std::string& file_name,
                    Flavor flavor, Config* out, std::string* why);

// Maui's duration syntax (Maui 3.2 src/MTime.c, MUTimeFromString):
//   "INFINITY"           kInfiniteTime
//   "N"                  N seconds; C integer syntax (0x.. hex, leading 0 octal)
//   "A:B"                A hours, B minutes   (not minutes:seconds!)
//   "H:M:S", "D:H:M:S"   the obvious
// Fields are non-negative decimal integers.  Anything else (empty, trailing
// junk, five fields, absolute dates "HH:MM_MM/DD") is rejected.
bool parse_maui_time(const std::string& s, int64_t* seconds);

}  // namespace mfprio::maui
