// maui_cfg.cpp - reading maui.cfg / moab.cfg into a Config (see maui_cfg.hpp).
//
// The syntax is the one Maui's config reader accepts (src/MConfig.c,
// MCfgAdjustBuffer/MCfgGetVal): one parameter per line, `NAME VALUE` or
// `NAME=VALUE`, an optional `[index]` right after the name, `#` starting a
// comment anywhere on a line, and a backslash joining the next line.  The
// credential parameters (USERCFG, GROUPCFG, ACCOUNTCFG, QOSCFG, CLASSCFG)
// carry a whitespace-separated `KEY=VALUE` list; `[DEFAULT]` names the
// fallback credential of that kind (MPriority.c, MFS.c).
//
// Case: parameter names, attribute keys and keyword values (FSPOLICY,
// JOBPRIOACCRUALPOLICY, booleans) are matched case-insensitively; credential
// names inside [] are case-sensitive (they are Unix/RM names).  Maui's own
// reader matches parameter names case-sensitively and silently skips a
// lower-case one (mfprio-maui(5), DELIBERATE DIFFERENCES).
//
// Numbers: weights, caps and PRIORITY are decimal integers (Moab's doc:
// "Non-integer values are not supported"); durations use parse_maui_time;
// FSDECAY, XFTARGET and FSTARGET are decimals.  A value Maui would half-read
// (strtol stopping at junk) is an error here, naming file:line.
//
// Two passes are not needed: everything is parsed into a local Config that
// replaces *out only when the whole text is valid.
#include "maui_cfg.hpp"

#include "slurm_conf.hpp"  // edit_distance, the one "did you mean" measure

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace mfprio::maui {

namespace {

// ---- static tables ---------------------------------------------------------

constexpr ComponentInfo kComponentTable[kComponents] = {
    {Component::Serv, "SERV", "service", "SERVICEWEIGHT", "SERVICEWCAP", "SERVICECAP"},
    {Component::Targ, "TARG", "target service", "TARGETWEIGHT", "TARGETCAP", nullptr},
    {Component::Cred, "CRED", "credentials", "CREDWEIGHT", "CREDCAP", nullptr},
    {Component::Attr, "ATTR", "job attributes", "ATTRWEIGHT", "ATTRCAP", nullptr},
    {Component::Fs, "FS", "fair share", "FSWEIGHT", "FSCAP", nullptr},
    {Component::Res, "RES", "requested resources", "RESWEIGHT", "RESCAP", nullptr},
    {Component::Usage, "USAGE", "consumed resources", "USAGEWEIGHT", "USAGECAP", nullptr},
};

using C = Component;
constexpr SubInfo kSubTable[kSubs] = {
    {Sub::QueueTime, C::Serv, "SERV.QUEUETIME", "effective queue time (minutes)",
     "QUEUETIMEWEIGHT", nullptr, "QUEUETIMECAP", nullptr, false, true},
    {Sub::XFactor, C::Serv, "SERV.XFACTOR", "expansion factor",
     "XFACTORWEIGHT", nullptr, "XFACTORCAP", nullptr, false, true},
    {Sub::SpViolation, C::Serv, "SERV.SPVIOLATION", "soft policy violation (0/1)",
     "SPVIOLATIONWEIGHT", nullptr, "SPVIOLATIONCAP", nullptr, false, true},
    {Sub::Bypass, C::Serv, "SERV.BYPASS", "backfill bypass count",
     "BYPASSWEIGHT", nullptr, "BYPASSCAP", nullptr, false, true},
    {Sub::StartCount, C::Serv, "SERV.STARTCOUNT", "start count",
     "STARTCOUNTWEIGHT", nullptr, "STARTCOUNTCAP", nullptr, true, true},
    {Sub::Deadline, C::Serv, "SERV.DEADLINE", "deadline proximity",
     "DEADLINEWEIGHT", nullptr, "DEADLINECAP", nullptr, true, true},
    {Sub::UserPrio, C::Serv, "SERV.USERPRIO", "user-specified priority",
     "USERPRIOWEIGHT", nullptr, "USERPRIOCAP", nullptr, true, true},

    {Sub::TargetQueueTime, C::Targ, "TARG.QUEUETIME", "queue-time target",
     "TARGETQUEUETIMEWEIGHT", nullptr, "TARGETQUEUETIMECAP", nullptr, false, true},
    {Sub::TargetXFactor, C::Targ, "TARG.XFACTOR", "expansion-factor target",
     "TARGETXFACTORWEIGHT", nullptr, "TARGETXFACTORCAP", nullptr, false, true},

    {Sub::CredUser, C::Cred, "CRED.USER", "user priority",
     "USERWEIGHT", nullptr, "USERCAP", nullptr, false, true},
    {Sub::CredGroup, C::Cred, "CRED.GROUP", "group priority",
     "GROUPWEIGHT", nullptr, "GROUPCAP", nullptr, false, true},
    {Sub::CredAccount, C::Cred, "CRED.ACCOUNT", "account priority",
     "ACCOUNTWEIGHT", nullptr, "ACCOUNTCAP", nullptr, false, true},
    {Sub::CredQos, C::Cred, "CRED.QOS", "QOS priority",
     "QOSWEIGHT", nullptr, "QOSCAP", nullptr, false, true},
    {Sub::CredClass, C::Cred, "CRED.CLASS", "class priority",
     "CLASSWEIGHT", nullptr, "CLASSCAP", nullptr, false, true},

    {Sub::AttrAttr, C::Attr, "ATTR.ATTR", "attribute priority",
     "ATTRATTRWEIGHT", nullptr, "ATTRATTRCAP", nullptr, false, true},
    {Sub::AttrState, C::Attr, "ATTR.STATE", "state priority",
     "ATTRSTATEWEIGHT", nullptr, "ATTRSTATECAP", nullptr, false, true},
    {Sub::AttrGres, C::Attr, "ATTR.GRES", "generic resource priority",
     "ATTRGRESWEIGHT", nullptr, "ATTRGRESCAP", nullptr, true, true},

    {Sub::FsUser, C::Fs, "FS.USER", "user fair-share delta",
     "FSUSERWEIGHT", nullptr, "FSUSERCAP", nullptr, false, true},
    {Sub::FsGroup, C::Fs, "FS.GROUP", "group fair-share delta",
     "FSGROUPWEIGHT", nullptr, "FSGROUPCAP", nullptr, false, true},
    {Sub::FsAccount, C::Fs, "FS.ACCOUNT", "account fair-share delta",
     "FSACCOUNTWEIGHT", nullptr, "FSACCOUNTCAP", nullptr, false, true},
    {Sub::FsQos, C::Fs, "FS.QOS", "QOS fair-share delta",
     "FSQOSWEIGHT", nullptr, "FSQOSCAP", nullptr, false, true},
    {Sub::FsClass, C::Fs, "FS.CLASS", "class fair-share delta",
     "FSCLASSWEIGHT", nullptr, "FSCLASSCAP", nullptr, false, true},
    {Sub::FsGUser, C::Fs, "FS.GUSER", "global user fair share",
     "FSGUSERWEIGHT", nullptr, "FSGUSERCAP", nullptr, true, true},
    {Sub::FsGGroup, C::Fs, "FS.GGROUP", "global group fair share",
     "FSGGROUPWEIGHT", nullptr, "FSGGROUPCAP", nullptr, true, true},
    {Sub::FsGAccount, C::Fs, "FS.GACCOUNT", "global account fair share",
     "FSGACCOUNTWEIGHT", nullptr, "FSGACCOUNTCAP", nullptr, true, true},
    {Sub::FsJpu, C::Fs, "FS.JPU", "user's active jobs",
     "FSJPUWEIGHT", nullptr, "FSJPUCAP", nullptr, true, true},
    {Sub::FsPpu, C::Fs, "FS.PPU", "user's active processors",
     "FSPPUWEIGHT", nullptr, "FSPPUCAP", nullptr, true, true},
    {Sub::FsPspu, C::Fs, "FS.PSPU", "user's active processor-seconds",
     "FSPSPUWEIGHT", nullptr, "FSPSPUCAP", nullptr, true, true},
    {Sub::WcAccuracy, C::Fs, "FS.WCACCURACY", "user's wallclock accuracy",
     "WCACCURACYWEIGHT", nullptr, "WCACCURACYCAP", nullptr, true, true},

    {Sub::Node, C::Res, "RES.NODE", "nodes requested",
     "NODEWEIGHT", nullptr, "NODECAP", nullptr, false, true},
    {Sub::Proc, C::Res, "RES.PROC", "processors requested",
     "PROCWEIGHT", nullptr, "PROCCAP", nullptr, false, true},
    {Sub::Mem, C::Res, "RES.MEM", "memory requested (MB)",
     "MEMWEIGHT", nullptr, "MEMCAP", nullptr, false, true},
    {Sub::Swap, C::Res, "RES.SWAP", "swap requested (MB)",
     "SWAPWEIGHT", nullptr, "SWAPCAP", nullptr, false, true},
    {Sub::Disk, C::Res, "RES.DISK", "disk requested (MB)",
     "DISKWEIGHT", nullptr, "DISKCAP", nullptr, false, true},
    {Sub::Ps, C::Res, "RES.PS", "processor-seconds requested",
     "PSWEIGHT", nullptr, "PSCAP", nullptr, false, true},
    {Sub::Pe, C::Res, "RES.PE", "processor equivalents requested",
     "PEWEIGHT", nullptr, "PECAP", nullptr, false, true},
    {Sub::Walltime, C::Res, "RES.WALLTIME", "walltime requested (seconds)",
     "WALLTIMEWEIGHT", nullptr, "WALLTIMECAP", nullptr, false, true},
    {Sub::UProc, C::Res, "RES.UPROC", "(never counted)",
     "UPROCWEIGHT", nullptr, "UPROCCAP", nullptr, false, false},
    {Sub::UJob, C::Res, "RES.UJOB", "(never counted)",
     "UJOBWEIGHT", nullptr, "UJOBCAP", nullptr, false, false},

    {Sub::Consumed, C::Usage, "USAGE.CONSUMED", "processor-seconds consumed",
     "CONSUMEDWEIGHT", "USAGECONSUMEDWEIGHT", "CONSUMEDCAP", "USAGECONSUMEDCAP", false, true},
    {Sub::ExecutionTime, C::Usage, "USAGE.EXECUTIONTIME", "seconds since start",
     "USAGEEXECUTIONTIMEWEIGHT", "EXECUTIONTIMEWEIGHT", "USAGEEXECUTIONTIMECAP",
     "EXECUTIONTIMECAP", false, true},
    {Sub::Remaining, C::Usage, "USAGE.REMAINING", "processor-seconds remaining",
     "REMAININGWEIGHT", "USAGEREMAININGWEIGHT", "REMAININGCAP", "USAGEREMAININGCAP", false, true},
    {Sub::Percent, C::Usage, "USAGE.PERCENT", "elapsed per remaining walltime (%)",
     "PERCENTWEIGHT", "USAGEPERCENTWEIGHT", "PERCENTCAP", "USAGEPERCENTCAP", false, true},
};

constexpr const char* kCredParams[kCredKinds] = {"USERCFG", "GROUPCFG", "ACCOUNTCFG",
                                                 "QOSCFG", "CLASSCFG"};

// ---- small text helpers ----------------------------------------------------

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

bool is_space(char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; }

std::string trim(const std::string& s) {
  size_t b = 0, e = s.size();
  while (b < e && is_space(s[b])) ++b;
  while (e > b && is_space(s[e - 1])) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split_ws(const std::string& s) {
  std::vector<std::string> out;
  size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && is_space(s[i])) ++i;
    size_t b = i;
    while (i < s.size() && !is_space(s[i])) ++i;
    if (i > b) out.push_back(s.substr(b, i - b));
  }
  return out;
}

// Decimal integer with optional sign, nothing else.
bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  size_t i = (s[0] == '+' || s[0] == '-') ? 1 : 0;
  if (i == s.size()) return false;
  for (size_t k = i; k < s.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(s[k]))) return false;
  errno = 0;
  char* end = nullptr;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno == ERANGE || *end != '\0') return false;
  *v = x;
  return true;
}

bool parse_double(const std::string& s, double* v) {
  if (s.empty() || is_space(s[0])) return false;
  errno = 0;
  char* end = nullptr;
  double x = std::strtod(s.c_str(), &end);
  if (end == s.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(x)) return false;
  *v = x;
  return true;
}

bool parse_bool(const std::string& s, bool* v) {
  const std::string u = upper(s);
  if (u == "TRUE" || u == "YES" || u == "ON" || u == "1") { *v = true; return true; }
  if (u == "FALSE" || u == "NO" || u == "OFF" || u == "0") { *v = false; return true; }
  return false;
}

// `<number>[+|-|^|%]` (MFS.c, MFSTargetFromString).
bool parse_fs_target(const std::string& s, FsTarget* t) {
  if (s.empty()) return false;
  std::string num = s;
  TargetMode mode = TargetMode::Target;
  switch (s.back()) {
    case '+': mode = TargetMode::Floor; num.pop_back(); break;
    case '-': mode = TargetMode::Ceiling; num.pop_back(); break;
    case '^': mode = TargetMode::CapAbsolute; num.pop_back(); break;
    case '%': mode = TargetMode::CapRelative; num.pop_back(); break;
    default: break;
  }
  double v = 0;
  if (!parse_double(num, &v)) return false;
  t->value = v;
  t->mode = mode;
  return true;
}

// ---- the parameter directory ----------------------------------------------

enum class Kind {
  CompWeight, CompCap, SubWeight, SubCap,
  XfMinWcLimit, UseSystemQueueTime, AccrualPolicyP, PrioExceptions, NegPriority,
  FsPolicyP, FsInterval, FsDepth, FsDecay,
};

struct Param {
  Kind kind;
  int index;          // component or sub-component index
  bool moab_only;
};

const std::unordered_map<std::string, Param>& directory() {
  static const std::unordered_map<std::string, Param> dir = [] {
    std::unordered_map<std::string, Param> d;
    for (const auto& c : kComponentTable) {
      const int i = static_cast<int>(c.comp);
      d[c.weight_param] = {Kind::CompWeight, i, false};
      d[c.cap_param] = {Kind::CompCap, i, false};
      if (c.cap_alias) d[c.cap_alias] = {Kind::CompCap, i, false};
    }
    for (const auto& s : kSubTable) {
      const int i = static_cast<int>(s.sub);
      d[s.weight_param] = {Kind::SubWeight, i, s.moab_only};
      d[s.cap_param] = {Kind::SubCap, i, s.moab_only};
      if (s.weight_alias) d[s.weight_alias] = {Kind::SubWeight, i, s.moab_only};
      if (s.cap_alias) d[s.cap_alias] = {Kind::SubCap, i, s.moab_only};
    }
    d["XFMINWCLIMIT"] = {Kind::XfMinWcLimit, 0, false};
    d["USESYSTEMQUEUETIME"] = {Kind::UseSystemQueueTime, 0, false};
    d["JOBPRIOACCRUALPOLICY"] = {Kind::AccrualPolicyP, 0, false};
    d["JOBPRIOEXCEPTIONS"] = {Kind::PrioExceptions, 0, true};
    d["ENABLENEGJOBPRIORITY"] = {Kind::NegPriority, 0, false};
    d["FSPOLICY"] = {Kind::FsPolicyP, 0, false};
    d["FSINTERVAL"] = {Kind::FsInterval, 0, false};
    d["FSDEPTH"] = {Kind::FsDepth, 0, false};
    d["FSDECAY"] = {Kind::FsDecay, 0, false};
    return d;
  }();
  return dir;
}

// Names Maui's own parameter table holds that are spelled close to a priority
// parameter but are not read here (Maui 3.0's names and QOS-file keys): an
// unknown name near a priority parameter is a misspelling only when it is
// not one of these.
bool maui_name_not_read(const std::string& u) {
  static const char* const kNames[] = {
      "AFSWEIGHT", "GFSWEIGHT", "UFSWEIGHT", "QFSWEIGHT", "CFSWEIGHT", "DIRECTSPECWEIGHT",
      "SERVICETARGETWEIGHT", "QUEUETIMETARGETWEIGHT", "XFACTORTARGETWEIGHT", "QOSQTWEIGHT",
      "QOSXFWEIGHT", "QOSPRIORITY", "QOSTARGETQT", "QOSTARGETXF", "REJECTNEGPRIOJOBS",
      "RESDEPTH", "BACKFILLDEPTH", "RESERVATIONDEPTH", "SRDEPTH", "BFDEPTH"};
  for (const char* n : kNames)
    if (u == n) return true;
  return false;
}

// The priority parameter nearest to an unknown upper-case name, when it is
// within edit distance 2 (common/slurm_conf.hpp's edit_distance); "" else.
std::string nearest_priority_param(const std::string& u, Flavor flavor) {
  if (u.size() < 5 || maui_name_not_read(u)) return {};
  std::string best;
  size_t best_d = 3;
  for (const auto& [name, p] : directory()) {
    if (p.moab_only && flavor == Flavor::Maui) continue;
    const size_t d = edit_distance(u, name);
    if (d < best_d || (d == best_d && !best.empty() && name < best)) {
      best_d = d;
      best = name;
    }
  }
  return best;
}

// ---- one logical line -------------------------------------------------------

struct Logical {
  int line;           // 1-based number of its first physical line
  std::string text;   // comment removed, continuations joined
  std::string include;  // the file of a "#INCLUDE <file>" comment, if any
};

// Comments run from '#' to the end of the line; a backslash outside a
// comment swallows itself and the whitespace after it, newlines included,
// joining the next physical line (MCfgAdjustBuffer).
std::vector<Logical> logical_lines(const std::string& text) {
  std::vector<Logical> out;
  int line = 1;
  Logical cur{1, {}, {}};
  bool in_comment = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      in_comment = false;
      out.push_back(std::move(cur));
      cur = Logical{line, {}, {}};
      continue;
    }
    if (in_comment) continue;
    if (c == '#') {
      // Maui's reader appends "#INCLUDE <file>"; we only report it (no I/O).
      in_comment = true;
      if (text.compare(i, 8, "#INCLUDE") == 0) {
        const size_t eol = text.find('\n', i);
        cur.include = trim(text.substr(i + 8, eol == std::string::npos ? std::string::npos
                                                                        : eol - i - 8));
      }
      continue;
    }
    if (c == '\\') {
      cur.text.push_back(' ');
      while (i + 1 < text.size() && is_space(text[i + 1])) {
        if (text[i + 1] == '\n') ++line;
        ++i;
      }
      continue;
    }
    cur.text.push_back(c == '\r' || c == '\t' ? ' ' : c);
  }
  out.push_back(std::move(cur));
  return out;
}

class Parser {
 public:
  Parser(const std::string& file, Flavor flavor, Config* cfg)
      : file_(file), flavor_(flavor), cfg_(cfg) {}

  bool line(const Logical& l) {
    line_ = l.line;
    if (!l.include.empty()) ignore("#INCLUDE", l.include);
    const std::string s = trim(l.text);
    if (s.empty()) return true;

    // NAME, optional [index], then whitespace or '=' (MCfgAdjustBuffer turns
    // an '=' after the name into a blank).
    size_t i = 0;
    while (i < s.size() && !is_space(s[i]) && s[i] != '=' && s[i] != '[') ++i;
    const std::string name = s.substr(0, i);
    std::string index;
    bool has_index = false;
    if (i < s.size() && s[i] == '[') {
      const size_t close = s.find(']', i);
      if (close == std::string::npos)
        return fail(name, s.substr(i), "missing ']' after the index");
      index = trim(s.substr(i + 1, close - i - 1));
      has_index = true;
      i = close + 1;
    }
    while (i < s.size() && is_space(s[i])) ++i;
    if (i < s.size() && s[i] == '=') ++i;
    const std::string value = trim(s.substr(i));
    const std::string uname = upper(name);
    const std::string written = has_index ? name + "[" + index + "]" : name;

    if (has_index) {
      for (int k = 0; k < kCredKinds; ++k)
        if (uname == kCredParams[k]) return cred_line(static_cast<CredKind>(k), written, index, value);
      ignore(written, value);  // partition-indexed weights etc.: never read (MPriority.c)
      return true;
    }
    const auto& dir = directory();
    auto it = dir.find(uname);
    if (it == dir.end() || (it->second.moab_only && flavor_ == Flavor::Maui)) {
      const std::string near = it == dir.end() ? nearest_priority_param(uname, flavor_) : std::string();
      if (!near.empty())
        return fail(name, value, "unknown priority parameter (did you mean " + near + "?)");
      ignore(written, value);
      return true;
    }
    return param(it->second, name, value);
  }

  // After the last line: checks that need the whole file.
  void finish() {
    if (exceptions_line_ == 0 || cfg_->prio_exceptions == 0) return;
    line_ = exceptions_line_;
    if (cfg_->accrual != AccrualPolicy::Accrue && cfg_->accrual != AccrualPolicy::Reset) {
      warn("JOBPRIOEXCEPTIONS is read only with JOBPRIOACCRUALPOLICY ACCRUE or RESET (here " +
           cfg_->accrual_name + "): ignored");
      cfg_->prio_exceptions = 0;
      return;
    }
    const uint32_t holds = kExcBatchHold | kExcSystemHold | kExcUserHold | kExcDefer;
    if ((cfg_->prio_exceptions & holds) != 0 && (cfg_->prio_exceptions & holds) != holds)
      warn("JOBPRIOEXCEPTIONS: a job record does not say which kind of hold (or DEFER) kept it: "
           "a listed one counts for BATCHHOLD, SYSTEMHOLD, USERHOLD and DEFER alike");
    if (cfg_->accrual == AccrualPolicy::Accrue)
      warn("JOBPRIOEXCEPTIONS with ACCRUE: Moab pauses the queue time of a job while it violates a "
           "listed exception; a job record shows only the present, so its queue time is 0 while the "
           "violation lasts and counts again from submission (policies) or eligibility (holds, DEFER, "
           "DEPENDS) afterwards");
  }

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  bool fail(const std::string& what, const std::string& value, const std::string& reason) {
    errors_.push_back(file_ + ":" + std::to_string(line_) + ": " + what + " '" + value + "': " + reason);
    return false;
  }

  void warn(const std::string& text) {
    cfg_->warnings.push_back(file_ + ":" + std::to_string(line_) + ": " + text);
  }

  void ignore(const std::string& name, const std::string& value) {
    cfg_->ignored.push_back({file_, line_, name, value});
  }

  bool param(const Param& p, const std::string& name, const std::string& value) {
    int64_t n = 0;
    switch (p.kind) {
      case Kind::CompWeight:
        if (!value.empty() && value.back() == '%' && p.index != static_cast<int>(Component::Attr)) {
          // Maui 3.2 src/MFS.c (MFSProcessOConfig, which handles every component
          // weight but ATTRWEIGHT): "FSWEIGHT 20%" stores weight 10 and a
          // percent that pricing never reads.
          if (!parse_int(value.substr(0, value.size() - 1), &n))
            return fail(name, value, "expected an integer weight or N%");
          cfg_->comp_weight[p.index] = 10;
          cfg_->comp_weight_percent[p.index] = n;
          return true;
        }
        if (!parse_int(value, &n)) return fail(name, value, "expected an integer weight");
        cfg_->comp_weight[p.index] = n;
        cfg_->comp_weight_percent[p.index] = -1;
        return true;
      case Kind::CompCap:
        if (!parse_int(value, &n)) return fail(name, value, "expected an integer cap");
        cfg_->comp_cap[p.index] = n;
        return true;
      case Kind::SubWeight:
        if (!parse_int(value, &n)) return fail(name, value, "expected an integer weight");
        cfg_->sub_weight[p.index] = n;
        return true;
      case Kind::SubCap:
        if (!parse_int(value, &n)) return fail(name, value, "expected an integer cap");
        cfg_->sub_cap[p.index] = n;
        return true;
      case Kind::XfMinWcLimit:
        if (!parse_maui_time(value, &n)) return fail(name, value, "expected a duration");
        cfg_->xf_min_wclimit = n;
        return true;
      case Kind::UseSystemQueueTime: {
        bool b = false;
        if (!parse_bool(value, &b)) return fail(name, value, "expected TRUE or FALSE");
        cfg_->use_system_queue_time = b;
        return true;
      }
      case Kind::AccrualPolicyP: return accrual(name, value);
      case Kind::PrioExceptions: return prio_exceptions(name, value);
      case Kind::NegPriority: {
        bool b = false;
        if (!parse_bool(value, &b)) return fail(name, value, "expected TRUE or FALSE");
        cfg_->negative_priority = b;
        return true;
      }
      case Kind::FsPolicyP: return fs_policy(name, value);
      case Kind::FsInterval:
        if (!parse_maui_time(value, &n) || n <= 0 || n > kMaxFsInterval)
          return fail(name, value, "expected a positive duration of at most 366 days");
        cfg_->fs_interval = n;
        return true;
      case Kind::FsDepth:
        if (!parse_int(value, &n) || n < 1) return fail(name, value, "expected an integer >= 1");
        cfg_->fs_depth = static_cast<int>(n > kMaxFsDepth ? kMaxFsDepth : n);  // MAX_MFSDEPTH
        return true;
      case Kind::FsDecay: {
        double d = 0;
        if (!parse_double(value, &d) || d < 0.0 || d > 1.0)
          return fail(name, value, "expected a number between 0 and 1");
        cfg_->fs_decay = d;
        return true;
      }
    }
    return fail(name, value, "internal: unhandled parameter");
  }

  // FSPOLICY (MFS.c).  Maui 3.2 and Moab 5 know NONE, DEDICATEDPS,
  // DEDICATEDPES, UTILIZEDPS, SDEDICATEDPES and PDEDICATEDPS; their usage
  // charge has no case for the last two, which are charged as DEDICATEDPS.
  // TRUE is the old spelling of DEDICATEDPS, FALSE of NONE.  PSDEDICATED
  // (the spelling of Maui's sample maui.cfg) is no value of theirs: Maui
  // keeps the policy it had (NONE unless set before), and so does mfprio,
  // with a warning.
  bool fs_policy(const std::string& name, const std::string& value) {
    std::string u = upper(value);
    bool percent = false;
    if (!u.empty() && u.back() == '%') { percent = true; u.pop_back(); }
    FsPolicy fp;
    bool on = false;
    if (u == "PSDEDICATED") {
      warn("FSPOLICY 'PSDEDICATED' is not a value Maui 3.2 or Moab reads: like Maui, the policy stays " +
           cfg_->fs_policy_name + (cfg_->fs_policy == FsPolicy::None ? " (fair share off)" : "") +
           "; write DEDICATEDPS to charge dedicated processor-seconds");
      if (percent) cfg_->fs_percent = true;  // Maui sets PercentBasedFS before the look-up
      return true;
    }
    if (parse_bool(u, &on)) {
      fp = on ? FsPolicy::DedicatedPS : FsPolicy::None;
      u = on ? "DEDICATEDPS" : "NONE";
    } else if (u == "NONE") fp = FsPolicy::None;
    else if (u == "DEDICATEDPS" || u == "SDEDICATEDPES" || u == "PDEDICATEDPS") fp = FsPolicy::DedicatedPS;
    else if (u == "DEDICATEDPES") fp = FsPolicy::DedicatedPES;
    else if (u == "UTILIZEDPS") fp = FsPolicy::UtilizedPS;
    else return fail(name, value,
                     "expected NONE, DEDICATEDPS, DEDICATEDPES, UTILIZEDPS, SDEDICATEDPES or "
                     "PDEDICATEDPS (optionally with '%')");
    cfg_->fs_policy = fp;
    cfg_->fs_policy_name = u;
    cfg_->fs_percent = percent;
    return true;
  }

  // JOBPRIOACCRUALPOLICY (MPolicy.c).  Maui 3.2: ALWAYS, QUEUEPOLICY,
  // FULLPOLICY.  Moab 5 adds ACCRUE and RESET (read with JOBPRIOEXCEPTIONS)
  // and QUEUEPOLICYRESET, FULLPOLICYRESET, QUEUEPOLICYUSER: a record's queue
  // time is already 0 while it is blocked, so the RESET forms price as
  // QUEUEPOLICY / FULLPOLICY; QUEUEPOLICYUSER (user limits only) as
  // QUEUEPOLICY with a warning (a record does not say whose limit blocks it).
  bool accrual(const std::string& name, const std::string& value) {
    const std::string u = upper(value);
    AccrualPolicy a;
    if (u == "ALWAYS") a = AccrualPolicy::Always;
    else if (u == "QUEUEPOLICY") a = AccrualPolicy::QueuePolicy;
    else if (u == "FULLPOLICY") a = AccrualPolicy::FullPolicy;
    else if (flavor_ == Flavor::Maui)
      return fail(name, value, "expected ALWAYS, QUEUEPOLICY or FULLPOLICY (Maui 3.2)");
    else if (u == "ACCRUE") a = AccrualPolicy::Accrue;
    else if (u == "RESET") a = AccrualPolicy::Reset;
    else if (u == "QUEUEPOLICYRESET") a = AccrualPolicy::QueuePolicy;
    else if (u == "FULLPOLICYRESET") a = AccrualPolicy::FullPolicy;
    else if (u == "QUEUEPOLICYUSER") {
      a = AccrualPolicy::QueuePolicy;
      warn("JOBPRIOACCRUALPOLICY 'QUEUEPOLICYUSER': a job record does not say whose limit blocks it: "
           "priced as QUEUEPOLICY (no queue time while blocked by any limit)");
    } else
      return fail(name, value,
                  "expected ACCRUE, ALWAYS, FULLPOLICY, FULLPOLICYRESET, QUEUEPOLICY, "
                  "QUEUEPOLICYRESET, QUEUEPOLICYUSER or RESET (Moab 5)");
    cfg_->accrual = a;
    cfg_->accrual_name = u;
    return true;
  }

  // JOBPRIOEXCEPTIONS (Moab 5): a comma- or blank-separated list of BATCHHOLD,
  // DEFER, DEPENDS, HARDPOLICY, IDLEPOLICY, SOFTPOLICY, SYSTEMHOLD, USERHOLD
  // or NONE.  finish() checks it against the accrual policy.
  bool prio_exceptions(const std::string& name, const std::string& value) {
    static const std::pair<const char*, uint32_t> kValues[] = {
        {"BATCHHOLD", kExcBatchHold},   {"DEFER", kExcDefer},           {"DEPENDS", kExcDepends},
        {"HARDPOLICY", kExcHardPolicy}, {"IDLEPOLICY", kExcIdlePolicy}, {"SOFTPOLICY", kExcSoftPolicy},
        {"SYSTEMHOLD", kExcSystemHold}, {"USERHOLD", kExcUserHold},     {"NONE", 0u}};
    std::string list = value;
    for (char& c : list) if (c == ',') c = ' ';
    uint32_t bits = 0;
    for (const std::string& w : split_ws(list)) {
      const std::string u = upper(w);
      bool found = false;
      for (const auto& [n, b] : kValues)
        if (u == n) { bits |= b; found = true; }
      if (!found)
        return fail(name, w,
                    "expected BATCHHOLD, DEFER, DEPENDS, HARDPOLICY, IDLEPOLICY, SOFTPOLICY, "
                    "SYSTEMHOLD, USERHOLD or NONE");
    }
    cfg_->prio_exceptions = bits;
    exceptions_line_ = line_;
    return true;
  }

  bool cred_line(CredKind kind, const std::string& written, const std::string& cname,
                 const std::string& value) {
    if (cname.empty()) return fail(written, value, "empty credential name");
    const int k = static_cast<int>(kind);
    // Validate into a copy; the Config is replaced only at the very end anyway,
    // but a copy keeps a bad line from half-applying to this credential.
    const bool is_default = cname == "DEFAULT";  // only upper case: "default" is a credential's name
    CredCfg c = is_default ? cfg_->default_cred[k] : CredCfg{};
    if (!is_default) {
      auto it = cfg_->creds[k].find(cname);
      if (it != cfg_->creds[k].end()) c = it->second;
    }
    bool relevant = false;
    for (const std::string& tok : split_ws(value)) {
      const size_t eq = tok.find('=');
      const std::string key = upper(eq == std::string::npos ? tok : tok.substr(0, eq));
      const std::string v = eq == std::string::npos ? std::string() : tok.substr(eq + 1);
      const std::string what = written + " " + key;
      const bool qos = kind == CredKind::Qos;
      const bool known = key == "PRIORITY" || key == "FSTARGET" ||
                         (qos && (key == "QTWEIGHT" || key == "XFWEIGHT" || key == "QTTARGET" ||
                                  key == "XFTARGET")) ||
                         (kind == CredKind::Group && key == "CLASSWEIGHT") ||
                         (flavor_ == Flavor::Moab && key == "FSWEIGHT" &&
                          (kind == CredKind::Group || kind == CredKind::Account || qos));
      if (!known) {
        cfg_->ignored.push_back({file_, line_, what, v});
        continue;
      }
      if (eq == std::string::npos) return fail(what, tok, "expected KEY=VALUE");
      relevant = true;
      int64_t n = 0;
      if (key == "PRIORITY") {
        if (!parse_int(v, &n)) return fail(what, v, "expected an integer priority");
        c.priority = n;
      } else if (key == "FSTARGET") {
        if (!parse_fs_target(v, &c.fs_target))
          return fail(what, v, "expected a number optionally followed by + - ^ or %");
      } else if (key == "QTWEIGHT" || key == "XFWEIGHT" || key == "CLASSWEIGHT" ||
                 key == "FSWEIGHT") {
        if (!parse_int(v, &n)) return fail(what, v, "expected an integer weight");
        (key == "QTWEIGHT" ? c.qt_weight
         : key == "XFWEIGHT" ? c.xf_weight
         : key == "CLASSWEIGHT" ? c.class_weight
                                : c.fs_weight) = n;
      } else if (key == "QTTARGET") {
        if (!parse_maui_time(v, &n)) return fail(what, v, "expected a duration");
        c.qt_target = n;
      } else {  // XFTARGET
        double d = 0;
        if (!parse_double(v, &d)) return fail(what, v, "expected a number");
        c.xf_target = d;
      }
    }
    if (is_default) cfg_->default_cred[k] = c;
    else if (relevant || cfg_->creds[k].count(cname)) cfg_->creds[k][cname] = c;
    return true;
  }

  std::string file_;
  Flavor flavor_;
  Config* cfg_;
  int line_ = 0;
  int exceptions_line_ = 0;
  std::vector<std::string> errors_;
};

}  // namespace

const ComponentInfo& component_info(Component c) { return kComponentTable[static_cast<int>(c)]; }
const SubInfo& sub_info(Sub s) { return kSubTable[static_cast<int>(s)]; }
const char* cred_kind_param(CredKind k) { return kCredParams[static_cast<int>(k)]; }

Config Config::defaults(Flavor flavor) {
  // Maui 3.2 src/MPar.c, MParSetDefaults: every component weight
  // 1, every sub-component weight 0 except QUEUETIMEWEIGHT 1, no caps.
  Config c;
  c.flavor = flavor;
  c.comp_weight.fill(1);
  c.comp_cap.fill(0);
  c.comp_weight_percent.fill(-1);
  c.sub_weight.fill(0);
  c.sub_cap.fill(0);
  c.sub_weight[static_cast<int>(Sub::QueueTime)] = 1;
  // Maui's DEFAULT_XFMINWCLIMIT is 120 s; the Moab header seen says 0
  // (Moab's documentation only, low confidence).
  c.xf_min_wclimit = flavor == Flavor::Maui ? 120 : 0;
  return c;
}

const CredCfg* Config::find(CredKind k, const std::string& name) const {
  const auto& m = creds[static_cast<int>(k)];
  auto it = m.find(name);
  return it == m.end() ? nullptr : &it->second;
}

bool parse_maui_time(const std::string& in, int64_t* seconds) {
  const std::string s = trim(in);
  if (s.empty()) return false;
  if (s == "INFINITY") { *seconds = kInfiniteTime; return true; }
  if (s.find(':') == std::string::npos) {
    // Bare seconds, read like strtol(s, NULL, 0): 0x1F hex, 017 octal.  Maui
    // would stop at the first bad character; we reject the whole value.
    if (s[0] == '-' || s[0] == '+') return false;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(s.c_str(), &end, 0);
    if (end == s.c_str() || *end != '\0' || errno == ERANGE) return false;
    *seconds = v;
    return true;
  }
  std::vector<int64_t> f;
  size_t b = 0;
  while (true) {
    const size_t e = s.find(':', b);
    const std::string part = s.substr(b, e == std::string::npos ? std::string::npos : e - b);
    if (part.empty() || part.size() > 9) return false;
    for (char ch : part)
      if (!std::isdigit(static_cast<unsigned char>(ch))) return false;
    f.push_back(std::strtoll(part.c_str(), nullptr, 10));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  // MUTimeFromString: with fewer than four fields the fields are shifted so
  // the first is hours; hence "A:B" is hours:minutes.
  int64_t d = 0, h = 0, m = 0, sec = 0;
  switch (f.size()) {
    case 2: h = f[0]; m = f[1]; break;
    case 3: h = f[0]; m = f[1]; sec = f[2]; break;
    case 4: d = f[0]; h = f[1]; m = f[2]; sec = f[3]; break;
    default: return false;
  }
  *seconds = d * 86400 + h * 3600 + m * 60 + sec;
  return true;
}

bool parse_maui_cfg(const std::string& text, const std::string& file_name, Flavor flavor,
                    Config* out, std::string* why) {
  Config cfg = Config::defaults(flavor);
  Parser p(file_name, flavor, &cfg);
  for (const Logical& l : logical_lines(text)) p.line(l);  // every error of the file, in order
  if (!p.errors().empty()) {
    if (why) {
      why->clear();
      for (const std::string& e : p.errors()) *why += (why->empty() ? "" : "\n") + e;
    }
    return false;
  }
  p.finish();
  if (out) *out = std::move(cfg);
  return true;
}

}  // namespace mfprio::maui
