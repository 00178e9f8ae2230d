// qconf.cpp - see qconf.hpp.
// See qconf.hpp for the contract; sge_schedd_conf.c:sconf_create_default for
// the default values and sge_urgency.c, sgeee.c for what each key feeds.
#include "qconf.hpp"

#include "numbers.hpp"
#include "strings.hpp"

#include "slurm_conf.hpp"  // edit_distance, the one "did you mean" measure

#include <cctype>
#include <cerrno>
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

namespace mfprio::gridengine {
namespace {

std::vector<std::string> split_ws(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  std::string w;
  while (in >> w) out.push_back(w);
  return out;
}

std::vector<std::string> split_any(std::string_view s, std::string_view seps) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (seps.find(c) != std::string_view::npos) {
      out.push_back(trim_blank(cur));
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  out.push_back(trim_blank(cur));
  return out;
}

// qconf's numbers: numbers.hpp's rules for qconf text.
bool to_double(std::string_view text, double* out) { return parse_real(text, out); }
bool to_int64(std::string_view text, int64_t* out) { return parse_i64(text, out); }

bool to_bool(std::string_view text, bool* out) {
  std::string s = lower(std::string(text));
  if (s == "true" || s == "1") { *out = true; return true; }
  if (s == "false" || s == "0") { *out = false; return true; }
  return false;
}

std::string where(const std::string& file, int line) {
  return file + ":" + std::to_string(line);
}

std::string bad(const std::string& file, int line, const std::string& key,
                const std::string& value, const std::string& reason) {
  return where(file, line) + ": key '" + key + "' value '" + value + "': " + reason;
}

// Text lines with their 1-based numbers; a trailing backslash joins the next
// line (qconf wraps long lists that way).
std::vector<std::pair<int, std::string>> logical_lines(const std::string& text) {
  std::vector<std::pair<int, std::string>> out;
  std::istringstream in(text);
  std::string raw, acc;
  int lineno = 0, start = 0;
  while (std::getline(in, raw)) {
    ++lineno;
    if (acc.empty()) start = lineno;
    std::string t = trim_blank(raw);
    if (!t.empty() && t.back() == '\\') {
      t.pop_back();
      acc += t;
      continue;
    }
    acc += t;
    out.emplace_back(start, acc);
    acc.clear();
  }
  if (!acc.empty()) out.emplace_back(start, acc);
  return out;
}

// ---- sched_conf value readers --------------------------------------------------------
enum class Kind { NonNegDouble, AnyDouble, UInt, Bool, UsageWeights, Halflife, Hierarchy };

struct KeyDef {
  const char* name;
  Kind kind;
};

const KeyDef kKeys[] = {
    {"weight_ticket", Kind::AnyDouble},
    {"weight_urgency", Kind::AnyDouble},
    {"weight_priority", Kind::AnyDouble},
    {"weight_waiting_time", Kind::AnyDouble},
    {"weight_deadline", Kind::AnyDouble},
    {"weight_tickets_share", Kind::UInt},
    {"weight_tickets_functional", Kind::UInt},
    {"weight_user", Kind::NonNegDouble},
    {"weight_project", Kind::NonNegDouble},
    {"weight_department", Kind::NonNegDouble},
    {"weight_job", Kind::NonNegDouble},
    {"compensation_factor", Kind::NonNegDouble},
    {"halftime", Kind::UInt},
    {"halflife_decay_list", Kind::Halflife},
    {"usage_weight_list", Kind::UsageWeights},
    {"share_override_tickets", Kind::Bool},
    {"share_functional_shares", Kind::Bool},
    {"max_functional_jobs_to_schedule", Kind::UInt},
    {"max_pending_tasks_per_job", Kind::UInt},
    {"policy_hierarchy", Kind::Hierarchy},
    {"report_pjob_tickets", Kind::Bool},
};

bool read_usage_weights(const std::string& v, UsageWeights* w, std::string* reason) {
  UsageWeights out{0, 0, 0};
  std::set<std::string> seen;
  for (const auto& item : split_any(v, ",:")) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos) { *reason = "expected type=weight"; return false; }
    std::string name = lower(trim_blank(item.substr(0, eq)));
    double x;
    if (!to_double(trim_blank(item.substr(eq + 1)), &x) || x < 0) {
      *reason = "weight of '" + name + "' is not a non-negative number";
      return false;
    }
    if (!seen.insert(name).second) { *reason = "'" + name + "' given twice"; return false; }
    if (name == "cpu") out.cpu = x;
    else if (name == "mem") out.mem = x;
    else if (name == "io") out.io = x;
    else { *reason = "unknown usage type '" + name + "' (cpu, mem, io)"; return false; }
  }
  *w = out;
  return true;
}

bool read_halflife(const std::string& v, std::vector<HalflifeEntry>* list, std::string* reason) {
  std::vector<HalflifeEntry> out;
  if (lower(v) == "none" || v.empty()) { *list = out; return true; }
  std::set<std::string> seen;
  for (const auto& item : split_any(v, ":,")) {
    if (item.empty()) continue;
    auto eq = item.find('=');
    if (eq == std::string::npos) { *reason = "expected type=minutes"; return false; }
    HalflifeEntry e;
    e.name = trim_blank(item.substr(0, eq));
    if (e.name.empty()) { *reason = "empty usage type"; return false; }
    if (!to_double(trim_blank(item.substr(eq + 1)), &e.minutes)) {
      *reason = "halftime of '" + e.name + "' is not a number";
      return false;
    }
    if (!seen.insert(e.name).second) { *reason = "'" + e.name + "' given twice"; return false; }
    out.push_back(e);
  }
  *list = out;
  return true;
}

bool read_hierarchy(const std::string& v, std::string* out, std::string* reason) {
  const std::string u = upper(v);
  if (u == "NONE") { out->clear(); return true; }
  std::set<char> seen;
  for (char c : u) {
    if (c != 'O' && c != 'F' && c != 'S') {
      *reason = std::string("policy letter '") + c + "' is not O, F or S";
      return false;
    }
    if (!seen.insert(c).second) { *reason = std::string("letter '") + c + "' given twice"; return false; }
  }
  if (u.empty()) { *reason = "empty (use NONE)"; return false; }
  *out = u;
  return true;
}

bool apply_key(SchedConf& c, const KeyDef& k, const std::string& v, std::string* reason) {
  double d = 0;
  bool b = false;
  const std::string n = k.name;
  switch (k.kind) {
    case Kind::AnyDouble:
    case Kind::NonNegDouble:
      if (!to_double(v, &d)) { *reason = "not a number"; return false; }
      if (k.kind == Kind::NonNegDouble && d < 0) { *reason = "must be >= 0"; return false; }
      break;
    case Kind::UInt: {
      int64_t i;
      if (!to_int64(v, &i) || i < 0 || i > 4294967295LL) {
        // Grid Engine prints these as integers; accept "100.0" style too.
        if (!to_double(v, &d) || d < 0 || d > 4294967295.0 || d != std::floor(d)) {
          *reason = "not an unsigned integer";
          return false;
        }
      } else {
        d = static_cast<double>(i);
      }
      break;
    }
    case Kind::Bool:
      if (!to_bool(v, &b)) { *reason = "not a boolean (true/false)"; return false; }
      break;
    case Kind::UsageWeights:
      return read_usage_weights(v, &c.usage_weight_list, reason);
    case Kind::Halflife:
      return read_halflife(v, &c.halflife_decay_list, reason);
    case Kind::Hierarchy:
      return read_hierarchy(v, &c.policy_hierarchy, reason);
  }
  if (n == "weight_ticket") c.weight_ticket = d;
  else if (n == "weight_urgency") c.weight_urgency = d;
  else if (n == "weight_priority") c.weight_priority = d;
  else if (n == "weight_waiting_time") c.weight_waiting_time = d;
  else if (n == "weight_deadline") c.weight_deadline = d;
  else if (n == "weight_tickets_share") c.weight_tickets_share = d;
  else if (n == "weight_tickets_functional") c.weight_tickets_functional = d;
  else if (n == "weight_user") c.weight_user = d;
  else if (n == "weight_project") c.weight_project = d;
  else if (n == "weight_department") c.weight_department = d;
  else if (n == "weight_job") c.weight_job = d;
  else if (n == "compensation_factor") c.compensation_factor = d;
  else if (n == "halftime") c.halftime = d;
  else if (n == "share_override_tickets") c.share_override_tickets = b;
  else if (n == "share_functional_shares") c.share_functional_shares = b;
  else if (n == "max_functional_jobs_to_schedule") c.max_functional_jobs_to_schedule = static_cast<uint32_t>(d);
  else if (n == "max_pending_tasks_per_job") c.max_pending_tasks_per_job = static_cast<uint32_t>(d);
  else if (n == "report_pjob_tickets") c.report_pjob_tickets = b;
  return true;
}

}  // namespace

namespace {

// The scheduler keys Grid Engine 6.2-8.x prints that mfprio does not read:
// passed over, never taken for misspellings.
bool other_sched_key(const std::string& k) {
  static const char* const kOther[] = {
      "algorithm", "schedule_interval", "maxujobs", "queue_sort_method", "job_load_adjustments",
      "load_adjustment_decay_time", "load_formula", "schedd_job_info", "flush_submit_sec",
      "flush_finish_sec", "params", "reprioritize_interval", "max_reservation", "default_duration"};
  for (const char* o : kOther)
    if (k == o) return true;
  return false;
}

// The key a name within edit distance 2 of a key we read stands for
// (common/slurm_conf.hpp's edit_distance), or nullptr.
const char* misspelled_sched_key(const std::string& key) {
  if (other_sched_key(key)) return nullptr;
  const char* best = nullptr;
  size_t best_d = 3;
  for (const auto& k : kKeys) {
    const size_t d = edit_distance(key, k.name);
    if (d < best_d) {
      best_d = d;
      best = k.name;
    }
  }
  return best;
}

}  // namespace

SchedConf SchedConf::installed_defaults() {
  SchedConf c;
  c.weight_ticket = 0.01;
  c.weight_urgency = 0.1;
  c.weight_priority = 1.0;
  c.weight_waiting_time = 0.0;
  return c;
}

bool parse_sched_conf(const std::string& text, const std::string& file, SchedConf* out,
                      std::string* why) {
  SchedConf c;  // code defaults
  std::set<std::string> seen;
  for (const auto& [lineno, line] : logical_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    size_t sp = line.find_first_of(" \t");
    std::string key = line.substr(0, sp);
    std::string value = sp == std::string::npos ? "" : trim_blank(line.substr(sp));
    if (!seen.insert(key).second) {
      *why = bad(file, lineno, key, value, "key given twice");
      return false;
    }
    const KeyDef* def = nullptr;
    for (const auto& k : kKeys)
      if (key == k.name) def = &k;
    if (def == nullptr) {
      const char* near = misspelled_sched_key(key);
      if (near) {
        *why = bad(file, lineno, key, value, std::string("unknown scheduler key (did you mean ") + near + "?)");
        return false;
      }
      c.other.emplace_back(key, value);
      continue;
    }
    std::string reason;
    if (!apply_key(c, *def, value, &reason)) {
      *why = bad(file, lineno, key, value, reason);
      return false;
    }
  }
  *out = std::move(c);
  return true;
}

// ---- complexes -------------------------------------------------------------------------
bool complex_is_numeric(ComplexType t) {
  switch (t) {
    case ComplexType::Int:
    case ComplexType::Double:
    case ComplexType::Time:
    case ComplexType::Memory:
    case ComplexType::Bool:
      return true;
    default:
      return false;
  }
}

const char* complex_type_name(ComplexType t) {
  switch (t) {
    case ComplexType::Int: return "INT";
    case ComplexType::Double: return "DOUBLE";
    case ComplexType::Time: return "TIME";
    case ComplexType::Memory: return "MEMORY";
    case ComplexType::Bool: return "BOOL";
    case ComplexType::String: return "STRING";
    case ComplexType::CString: return "CSTRING";
    case ComplexType::ResString: return "RESTRING";
    case ComplexType::Host: return "HOST";
  }
  return "?";
}

void ComplexTable::reindex() {
  by_name_.clear();
  by_shortcut_.clear();
  for (uint32_t i = 0; i < entries.size(); ++i) {
    by_name_.emplace(entries[i].name, i);
    if (!entries[i].shortcut.empty()) by_shortcut_.emplace(entries[i].shortcut, i);
  }
  indexed_ = entries.size();
}

const Complex* ComplexTable::find(std::string_view n) const {
  if (indexed_ != 0 && indexed_ == entries.size()) {
    const std::string key(n);
    if (auto it = by_name_.find(key); it != by_name_.end()) return &entries[it->second];
    if (auto it = by_shortcut_.find(key); it != by_shortcut_.end()) return &entries[it->second];
    return nullptr;
  }
  for (const auto& c : entries)
    if (c.name == n) return &c;
  for (const auto& c : entries)
    if (!c.shortcut.empty() && c.shortcut == n) return &c;
  return nullptr;
}

ComplexTable ComplexTable::builtin() {
  ComplexTable t;
  Complex s;
  s.name = "slots";
  s.shortcut = "s";
  s.type = ComplexType::Int;
  s.relop = "<=";
  s.requestable = "YES";
  s.consumable = "YES";
  s.default_value = "1";
  s.urgency = 1000;  // source/dist/util/resources/centry/slots (reference "Defaults")
  t.entries.push_back(s);
  t.reindex();
  return t;
}

bool parse_ge_value(ComplexType t, std::string_view text, double* out) {
  std::string s = trim_blank(text);
  if (s.empty()) return false;
  switch (t) {
    case ComplexType::Bool: {
      bool b;
      if (!to_bool(s, &b)) return false;
      *out = b ? 1.0 : 0.0;
      return true;
    }
    case ComplexType::Time: {
      auto parts = split_any(s, ":");
      if (parts.size() > 3) return false;
      double total = 0;
      for (const auto& p : parts) {
        double x = 0;
        if (!p.empty() && !to_double(p, &x)) return false;
        total = total * 60 + x;
      }
      *out = total;
      return true;
    }
    case ComplexType::Int:
    case ComplexType::Double:
    case ComplexType::Memory: {
      double mult = 1;
      char last = s.back();
      switch (last) {
        case 'k': mult = 1e3; break;
        case 'm': mult = 1e6; break;
        case 'g': mult = 1e9; break;
        case 'K': mult = 1024.0; break;
        case 'M': mult = 1024.0 * 1024; break;
        case 'G': mult = 1024.0 * 1024 * 1024; break;
        default: break;
      }
      if (mult != 1) s.pop_back();
      double x;
      if (!to_double(s, &x)) {
        std::string l = lower(s);
        if (mult == 1 && (l == "infinity" || l == "inf")) { *out = HUGE_VAL; return true; }
        return false;
      }
      *out = x * mult;
      return true;
    }
    default:
      return false;
  }
}

namespace {

// The columns of a `qconf -sc` table.  Son of Grid Engine 6.2-8.1 prints the
// eight we read; Univa/Altair Grid Engine 8.x adds more after `urgency`
// (`aapre`, later others).  The `#name shortcut ...` header line, when
// present, says where each column is, and columns we do not read are passed
// over by name; without a header a row has the eight columns or nine (the
// eight and UGE 8.x's aapre).
constexpr const char* kComplexColumns[8] = {"name",       "shortcut", "type",    "relop",
                                            "requestable", "consumable", "default", "urgency"};
constexpr const char* kComplexFormats =
    "expected 8 columns (Son of Grid Engine 6.2-8.1: name shortcut type relop requestable "
    "consumable default urgency), 9 (Univa/Altair Grid Engine 8.x: the same and aapre), or a "
    "'#name shortcut type ...' header line naming the columns";

struct ComplexColumns {
  int pos[8] = {0, 1, 2, 3, 4, 5, 6, 7};
  size_t width = 0;  // 0: no header seen (8 or 9 columns)
  int header_line = 0;

  // A comment line: the header when its first word is `name`.
  bool header(const std::string& line, int lineno, const std::string& file, std::string* why) {
    auto words = split_ws(line.substr(1));
    if (words.empty() || words[0] != "name") return true;
    int found[8];
    for (int k = 0; k < 8; ++k) {
      found[k] = -1;
      for (size_t i = 0; i < words.size(); ++i)
        if (words[i] == kComplexColumns[k]) found[k] = static_cast<int>(i);
      if (found[k] < 0) {
        *why = where(file, lineno) + ": complex header has no '" + kComplexColumns[k] +
               "' column; " + kComplexFormats;
        return false;
      }
    }
    std::copy(found, found + 8, pos);
    width = words.size();
    header_line = lineno;
    return true;
  }

  // The eight columns we read, in kComplexColumns order.
  bool pick(const std::vector<std::string>& row, int lineno, const std::string& file,
            std::vector<std::string>* f, std::string* why) const {
    const bool ok = width ? row.size() == width : (row.size() == 8 || row.size() == 9);
    if (!ok) {
      *why = where(file, lineno) + ": complex line has " + std::to_string(row.size()) + " fields, " +
             (width ? "the header on line " + std::to_string(header_line) + " names " +
                          std::to_string(width) + " columns"
                    : std::string(kComplexFormats));
      return false;
    }
    f->clear();
    for (int k = 0; k < 8; ++k) f->push_back(row[static_cast<size_t>(pos[k])]);
    return true;
  }
};

}  // namespace

bool parse_complexes(const std::string& text, const std::string& file, ComplexTable* out,
                     std::string* why) {
  static const std::map<std::string, ComplexType> kTypes = {
      {"INT", ComplexType::Int},       {"DOUBLE", ComplexType::Double},
      {"TIME", ComplexType::Time},     {"MEMORY", ComplexType::Memory},
      {"BOOL", ComplexType::Bool},     {"STRING", ComplexType::String},
      {"CSTRING", ComplexType::CString}, {"RESTRING", ComplexType::ResString},
      {"HOST", ComplexType::Host}};
  static const std::set<std::string> kRelops = {"==", "<", ">", "<=", ">=", "!=", "EXCL"};
  ComplexTable t;
  std::set<std::string> names, shortcuts;
  ComplexColumns cols;
  for (const auto& [lineno, line] : logical_lines(text)) {
    if (!line.empty() && line[0] == '#') {
      if (!cols.header(line, lineno, file, why)) return false;
      continue;
    }
    if (line.empty()) continue;
    auto row = split_ws(line);
    std::vector<std::string> f;
    if (!cols.pick(row, lineno, file, &f, why)) return false;
    Complex c;
    c.name = f[0];
    c.shortcut = f[1];
    auto it = kTypes.find(f[2]);
    if (it == kTypes.end()) {
      *why = bad(file, lineno, c.name + ".type", f[2], "unknown complex type");
      return false;
    }
    c.type = it->second;
    if (!kRelops.count(f[3])) {
      *why = bad(file, lineno, c.name + ".relop", f[3], "unknown relational operator");
      return false;
    }
    c.relop = f[3];
    std::string req = upper(f[4]);
    if (req == "Y") req = "YES";
    if (req == "N") req = "NO";
    if (req == "F") req = "FORCED";
    if (req != "YES" && req != "NO" && req != "FORCED") {
      *why = bad(file, lineno, c.name + ".requestable", f[4], "expected YES, NO or FORCED");
      return false;
    }
    c.requestable = req;
    std::string con = upper(f[5]);
    if (con == "Y") con = "YES";
    if (con == "N") con = "NO";
    if (con == "J") con = "JOB";
    if (con != "YES" && con != "NO" && con != "JOB") {
      *why = bad(file, lineno, c.name + ".consumable", f[5], "expected YES, NO or JOB");
      return false;
    }
    c.consumable = con;
    c.default_value = f[6];
    if (!to_int64(f[7], &c.urgency)) {
      *why = bad(file, lineno, c.name + ".urgency", f[7], "urgency must be an integer");
      return false;
    }
    if (!names.insert(c.name).second) {
      *why = bad(file, lineno, c.name, c.name, "complex name given twice");
      return false;
    }
    if (c.shortcut != "NONE" && !shortcuts.insert(c.shortcut).second) {
      *why = bad(file, lineno, c.name + ".shortcut", c.shortcut, "shortcut given twice");
      return false;
    }
    t.entries.push_back(std::move(c));
  }
  t.reindex();
  *out = std::move(t);
  return true;
}

// ---- share tree ----------------------------------------------------------------------
namespace {

// One id= record of a share-tree text, as read.
struct ShareRec {
  int line = 0;
  bool has_name = false, has_type = false, has_shares = false, has_children = false;
  ShareTreeNodeSpec node;
  std::vector<uint32_t> child_ids;
};

bool read_share_u32(const std::string& v, uint32_t* x) {
  int64_t i;
  if (!to_int64(v, &i) || i < 0 || i > 4294967295LL) return false;
  *x = static_cast<uint32_t>(i);
  return true;
}

// The records of the text, each field checked.
bool read_share_records(const std::string& text, const std::string& file, std::vector<ShareRec>& recs,
                        std::string* why) {
  auto read_u32 = read_share_u32;
  for (const auto& [lineno, line] : logical_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) {
      *why = where(file, lineno) + ": expected key=value, got '" + line + "'";
      return false;
    }
    std::string key = trim_blank(line.substr(0, eq));
    std::string value = trim_blank(line.substr(eq + 1));
    if (key == "id") {
      ShareRec r;
      r.line = lineno;
      if (!read_u32(value, &r.node.id)) {
        *why = bad(file, lineno, key, value, "node id must be an unsigned integer");
        return false;
      }
      recs.push_back(std::move(r));
      continue;
    }
    if (recs.empty()) {
      *why = bad(file, lineno, key, value, "record does not start with id=");
      return false;
    }
    ShareRec& r = recs.back();
    if (key == "name") {
      if (value.empty()) { *why = bad(file, lineno, key, value, "empty node name"); return false; }
      r.node.name = value;
      r.has_name = true;
    } else if (key == "type") {
      if (value == "0") r.node.type = NodeType::User;
      else if (value == "1") r.node.type = NodeType::Project;
      else { *why = bad(file, lineno, key, value, "type must be 0 (user) or 1 (project)"); return false; }
      r.has_type = true;
    } else if (key == "shares") {
      if (!read_u32(value, &r.node.shares)) {
        *why = bad(file, lineno, key, value, "shares must be an unsigned integer");
        return false;
      }
      r.has_shares = true;
    } else if (key == "childnodes") {
      r.has_children = true;
      if (value == "NONE" || value.empty()) continue;
      for (const auto& c : split_any(value, ",")) {
        uint32_t id;
        if (!read_u32(c, &id)) {
          *why = bad(file, lineno, key, value, "child id '" + c + "' is not an unsigned integer");
          return false;
        }
        r.child_ids.push_back(id);
      }
    } else {
      *why = bad(file, lineno, key, value, "unknown share-tree field");
      return false;
    }
  }
  return true;
}

// Each record's children when every id is 0: 8.1.9's qconf -sstree after a
// qmaster restart; the nodes get ids from the order.
bool share_children_by_order(const std::vector<ShareRec>& recs, const std::string& file,
                             std::vector<ShareTreeNodeSpec>& nodes, std::vector<std::vector<size_t>>& kids,
                             std::string* why) {
  // 8.1.9's qconf -sstree after a qmaster restart prints every id as 0 (and
  // every childnodes entry): its records are in depth-first order, each
  // node's children right after it, which is how qconf -Mstree reads them
  // (ids from that order, the root 0).
  std::vector<std::pair<size_t, size_t>> stack{{0, 0}};  // record, children taken
  size_t next = 1;
  while (!stack.empty()) {
    auto& [i, taken] = stack.back();
    if (taken == recs[i].child_ids.size()) {
      stack.pop_back();
      continue;
    }
    if (recs[i].child_ids[taken] != 0) {
      *why = bad(file, recs[i].line, "childnodes", std::to_string(recs[i].child_ids[taken]),
                 "every node id is 0 (a tree printed after a qmaster restart), so every child id must be 0");
      return false;
    }
    ++taken;
    if (next == recs.size()) {
      *why = bad(file, recs[i].line, "childnodes", std::to_string(recs[i].child_ids.size()) + " ids",
                 "lists more children than records follow (every id is 0: the records must be in qconf's "
                 "order, each node's children right after it)");
      return false;
    }
    const size_t c = next++;
    kids[i].push_back(c);
    stack.push_back({c, 0});
  }
  if (next != recs.size()) {
    *why = bad(file, recs[next].line, "id", "0",
               "record is no node's child (every id is 0: the records must be in qconf's order, each "
               "node's children right after it)");
    return false;
  }
  for (size_t i = 0; i < nodes.size(); ++i) nodes[i].id = static_cast<uint32_t>(i);
  return true;
}

// Each record's children from the childnodes ids.
bool share_children_by_id(const std::vector<ShareRec>& recs, size_t zero_ids, const std::string& file,
                          std::vector<std::vector<size_t>>& kids, std::string* why) {
  std::map<uint32_t, size_t> by_id;
  for (size_t i = 0; i < recs.size(); ++i) {
    const ShareRec& r = recs[i];
    if (auto [it, fresh] = by_id.emplace(r.node.id, i); !fresh) {
      if (r.node.id == 0 && zero_ids < recs.size())
        *why = bad(file, r.line, "id", "0",
                   "node id 0 given twice (also at line " + std::to_string(recs[it->second].line) +
                       ") while other ids are not 0: either every id is 0 (qconf -sstree after a qmaster "
                       "restart) or every id is distinct");
      else
        *why = bad(file, r.line, "id", std::to_string(r.node.id), "node id given twice");
      return false;
    }
  }
  for (size_t i = 0; i < recs.size(); ++i)
    for (uint32_t cid : recs[i].child_ids) {
      auto it = by_id.find(cid);
      if (it == by_id.end()) {
        *why = bad(file, recs[i].line, "childnodes", std::to_string(cid), "no node has this id");
        return false;
      }
      kids[i].push_back(it->second);
    }
  return true;
}

// Parents and children linked; single parents, sibling names distinct, every
// node reachable from the root (no cycle).
bool link_share_tree(const std::vector<ShareRec>& recs, const std::vector<std::vector<size_t>>& kids,
                     const std::string& file, ShareTreeSpec& t, std::string* why) {
  for (size_t i = 0; i < recs.size(); ++i) {
    std::set<std::string> child_names;
    for (size_t c : kids[i]) {
      const std::string v = std::to_string(t.nodes[c].id);
      if (c == 0 || t.nodes[c].parent != -1) {
        *why = bad(file, recs[i].line, "childnodes", v, "node already has a parent (or is the root)");
        return false;
      }
      if (!child_names.insert(t.nodes[c].name).second) {
        *why = bad(file, recs[c].line, "name", t.nodes[c].name, "two siblings share this name");
        return false;
      }
      t.nodes[c].parent = static_cast<int>(i);
      t.nodes[i].children.push_back(c);
    }
  }
  for (size_t i = 1; i < t.nodes.size(); ++i) {
    if (t.nodes[i].parent == -1) {
      *why = bad(file, recs[i].line, "id", std::to_string(t.nodes[i].id),
                 "node is not reachable from the root (the first record)");
      return false;
    }
  }
  // Single parents + every non-root has one: a cycle would leave a node
  // unreachable from the root; check reachability explicitly.
  std::vector<char> seen(t.nodes.size(), 0);
  std::vector<size_t> stack{0};
  size_t reached = 0;
  while (!stack.empty()) {
    size_t n = stack.back();
    stack.pop_back();
    if (seen[n]) continue;
    seen[n] = 1;
    ++reached;
    for (size_t c : t.nodes[n].children) stack.push_back(c);
  }
  if (reached != t.nodes.size()) {
    for (size_t i = 0; i < seen.size(); ++i)
      if (!seen[i]) {
        *why = bad(file, recs[i].line, "id", std::to_string(t.nodes[i].id), "node is part of a cycle");
        return false;
      }
  }
  return true;
}

}  // namespace

bool parse_share_tree(const std::string& text, const std::string& file, ShareTreeSpec* out,
                      std::string* why) {
  std::vector<ShareRec> recs;
  if (!read_share_records(text, file, recs, why)) return false;
  ShareTreeSpec t;
  if (recs.empty()) { *out = t; return true; }
  for (const ShareRec& r : recs)
    if (!r.has_name || !r.has_shares) {
      *why = where(file, r.line) + ": node id=" + std::to_string(r.node.id) + " lacks " +
             (r.has_name ? "shares=" : "name=");
      return false;
    }
  t.nodes.resize(recs.size());
  for (size_t i = 0; i < recs.size(); ++i) {
    t.nodes[i] = recs[i].node;
    t.nodes[i].line = recs[i].line;
  }
  // Each node's children (record indices), from the ids or, when every id
  // is 0, from the order.
  std::vector<std::vector<size_t>> kids(recs.size());
  size_t zero_ids = 0;
  for (const ShareRec& r : recs) zero_ids += r.node.id == 0;
  const bool ok = zero_ids == recs.size() && recs.size() > 1
                      ? share_children_by_order(recs, file, t.nodes, kids, why)
                      : share_children_by_id(recs, zero_ids, file, kids, why);
  if (!ok || !link_share_tree(recs, kids, file, t, why)) return false;
  *out = std::move(t);
  return true;
}

// ---- usage decay constants (sge_support.c) -----------------------------------------------------
double decay_constant_per_minute(double halftime_minutes) {
  if (halftime_minutes < 0) return 0.0;
  if (halftime_minutes == 0) return 1.0;
  // SUP:calculate_decay_constant: rate per second ln2/(H s), times the 60 s interval.
  const double rate = std::log(2.0) / (halftime_minutes * 60.0);
  return 1.0 - rate * 60.0;
}

double type_decay_constant(const SchedConf& c, const std::string& type) {
  for (const HalflifeEntry& e : c.halflife_decay_list)
    if (e.name == type) return decay_constant_per_minute(e.minutes);
  return decay_constant_per_minute(c.halftime * 60.0);
}

// ---- users, projects, usersets ------------------------------------------------------
bool parse_qconf_objects(const std::string& text, const std::string& file, QconfObjectKind kind,
                         std::vector<QconfObject>* out, std::string* why) {
  std::vector<QconfObject> objs;
  std::map<std::string, int> seen;  // name -> line
  for (const auto& [lineno, line] : logical_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find_first_of(" \t");
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : trim_blank(line.substr(sp));
    if (key == "name") {
      if (value.empty() || value.find_first_of(" \t,") != std::string::npos) {
        *why = bad(file, lineno, key, value, "expected one name");
        return false;
      }
      if (auto [it, fresh] = seen.emplace(value, lineno); !fresh) {
        *why = bad(file, lineno, key, value, "already given at line " + std::to_string(it->second));
        return false;
      }
      QconfObject o;
      o.name = value;
      o.line = lineno;
      objs.push_back(std::move(o));
      continue;
    }
    if (objs.empty()) {
      *why = bad(file, lineno, key, value, "a key before the first 'name' line");
      return false;
    }
    QconfObject& o = objs.back();
    if (key == "fshare" || key == "oticket") {
      int64_t n = 0;
      if (!to_int64(value, &n) || n < 0 || n > 4294967295LL) {
        *why = bad(file, lineno, key, value, "expected an integer in 0..4294967295");
        return false;
      }
      (key == "fshare" ? o.fshare : o.oticket) = static_cast<uint32_t>(n);
    } else if (key == "type" && kind == QconfObjectKind::Userset) {
      std::string t = upper(value);
      for (char& c : t) if (c == ',') c = ' ';
      bool ok = !t.empty();
      o.department = false;
      for (const std::string& w : split_ws(t)) {
        if (w == "DEPT") o.department = true;
        else if (w != "ACL") ok = false;
      }
      if (!ok) {
        *why = bad(file, lineno, key, value, "expected ACL, DEPT or both");
        return false;
      }
    }
  }
  *out = std::move(objs);
  return true;
}

// ---- qconf -sconf -------------------------------------------------------------------
bool parse_global_conf(const std::string& text, const std::string& file, GlobalConf* out, std::string* why) {
  GlobalConf g;
  std::map<std::string, int> seen;  // key -> line
  for (const auto& [lineno, line] : logical_lines(text)) {
    if (line.empty() || line[0] == '#') continue;
    const size_t sp = line.find_first_of(" \t");
    const std::string key = line.substr(0, sp);
    const std::string value = sp == std::string::npos ? "" : trim_blank(line.substr(sp));
    if (key != "enforce_user" && key != "auto_user_fshare" && key != "auto_user_oticket") continue;
    if (auto [it, fresh] = seen.emplace(key, lineno); !fresh) {
      *why = bad(file, lineno, key, value, "already given at line " + std::to_string(it->second));
      return false;
    }
    if (key == "enforce_user") {
      g.enforce_user = lower(value);
      if (g.enforce_user != "true" && g.enforce_user != "false" && g.enforce_user != "auto") {
        *why = bad(file, lineno, key, value, "expected true, false or auto");
        return false;
      }
      continue;
    }
    int64_t n = 0;
    if (!to_int64(value, &n) || n < 0 || n > 4294967295LL) {
      *why = bad(file, lineno, key, value, "expected an integer in 0..4294967295");
      return false;
    }
    (key == "auto_user_fshare" ? g.auto_user_fshare : g.auto_user_oticket) = static_cast<uint32_t>(n);
  }
  *out = std::move(g);
  return true;
}

}  // namespace mfprio::gridengine
