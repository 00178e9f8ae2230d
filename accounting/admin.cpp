// admin.cpp - Model and the shape checks shared by import and the CLI.
//
// Invariant: nothing here writes the store; callers validate fully on a Model
// and only then call Store::apply_admin with the records they changed.
#include "admin.hpp"

#include "tres.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unordered_set>

namespace mfprio::acct {

Model::Model(const StoreData& d) {
  accounts.reserve(d.accounts.size());
  for (const auto& a : d.accounts) accounts.emplace(a.name, a);
  for (const auto& r : d.assocs) assocs.emplace(AssocTuple{r.user, r.account, r.partition}, r);
  users.reserve(d.users.size());
  for (const auto& u : d.users) users.emplace(u.name, u);
  for (const auto& q : d.qos) qos.emplace(q.name, q);
  for (const auto& p : d.partitions) partitions.emplace(p.name, p);
  for (const auto& q : d.queues) queues.emplace(q.name, q);
}

std::string Model::parent_problem(const std::string& name) const {
  std::vector<std::string> path{name};
  std::unordered_set<std::string> seen{name};
  std::string cur = name;
  while (cur != "root") {
    auto it = accounts.find(cur);
    if (it == accounts.end()) return "unknown account \"" + cur + "\"";
    const std::string& parent = it->second.parent;
    if (accounts.find(parent) == accounts.end()) return "unknown parent \"" + parent + "\"";
    path.push_back(parent);
    if (!seen.insert(parent).second) {
      std::string cyc;
      for (const auto& p : path) cyc += (cyc.empty() ? "" : " -> ") + p;
      return "parent cycle " + cyc;
    }
    cur = parent;
  }
  return "";
}

std::vector<const UserAssocRec*> Model::assocs_of(const std::string& user) const {
  std::vector<const UserAssocRec*> out;
  for (auto it = assocs.lower_bound(AssocTuple{user, "", ""});
       it != assocs.end() && std::get<0>(it->first) == user; ++it)
    out.push_back(&it->second);
  return out;
}

bool Model::has_children(const std::string& account) const {
  for (const auto& [n, a] : accounts)
    if (a.parent == account) return true;
  return false;
}

bool Model::has_assocs_under(const std::string& account) const {
  for (const auto& [k, r] : assocs)
    if (r.account == account) return true;
  return false;
}

void Model::finish_users(const std::set<std::string>& touched, std::vector<UserRec>& out) {
  for (const std::string& name : touched) {
    UserRec& u = users[name];
    u.name = name;
    auto mine = assocs_of(name);  // (account, partition) order
    auto d = default_association(mine.begin(), mine.end(),
                                 [&](const UserAssocRec* r) { return r->account == u.default_account; });
    u.default_account = d == mine.end() ? "" : (*d)->account;
    out.push_back(u);
  }
}

std::vector<TreeRow> tree_rows(const StoreData& d) {
  std::unordered_map<std::string, std::vector<const AccountRec*>> kids;
  std::unordered_map<std::string, std::vector<const UserAssocRec*>> users;
  for (const auto& a : d.accounts)
    if (!a.parent.empty()) kids[a.parent].push_back(&a);
  for (const auto& r : d.assocs) users[r.account].push_back(&r);
  std::vector<TreeRow> rows;
  rows.reserve(d.accounts.size() + d.assocs.size());
  // Iterative DFS (deep trees must not overflow the stack); returns the sum.
  struct Frame {
    size_t row;
    size_t next_kid;
  };
  const AccountRec* root = nullptr;
  for (const auto& a : d.accounts)
    if (a.parent.empty()) root = &a;
  if (!root) return rows;
  auto open = [&](const AccountRec* a, int depth) {
    rows.push_back(TreeRow{depth, a, nullptr, 0});
    size_t at = rows.size() - 1;
    for (const UserAssocRec* r : users[a->name]) {
      rows.push_back(TreeRow{depth + 1, nullptr, r, r->raw_usage});
      rows[at].usage += r->raw_usage;
    }
    return at;
  };
  std::vector<Frame> stack{{open(root, 0), 0}};
  while (!stack.empty()) {
    Frame& f = stack.back();
    const auto& ks = kids[rows[f.row].account->name];  // already sorted by name
    if (f.next_kid < ks.size()) {
      const AccountRec* k = ks[f.next_kid++];
      size_t at = open(k, rows[f.row].depth + 1);
      stack.push_back({at, 0});
    } else {
      double u = rows[f.row].usage;
      stack.pop_back();
      if (!stack.empty()) rows[stack.back().row].usage += u;
    }
  }
  return rows;
}

namespace {

// Length of the valid UTF-8 sequence at s[i] (1-4), or 0 when it is not one:
// overlong forms, surrogates and code points above U+10FFFF are refused.
// *cp gets the code point.
size_t utf8_sequence(const std::string& s, size_t i, uint32_t* cp) {
  const auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  const unsigned char c = b(i);
  size_t len;
  uint32_t v, min;
  if (c < 0x80) { *cp = c; return 1; }
  if ((c & 0xE0) == 0xC0) { len = 2; v = c & 0x1F; min = 0x80; }
  else if ((c & 0xF0) == 0xE0) { len = 3; v = c & 0x0F; min = 0x800; }
  else if ((c & 0xF8) == 0xF0) { len = 4; v = c & 0x07; min = 0x10000; }
  else return 0;
  if (i + len > s.size()) return 0;
  for (size_t k = 1; k < len; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    v = (v << 6) | (b(i + k) & 0x3F);
  }
  if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) return 0;
  *cp = v;
  return len;
}

// `name` for a message: printable ASCII kept, every other byte as \xNN, at
// most 64 bytes of it.
std::string quoted(const std::string& name) {
  static const char* hex = "0123456789abcdef";
  std::string out = "\"";
  for (size_t i = 0; i < name.size() && i < 64; ++i) {
    const unsigned char c = static_cast<unsigned char>(name[i]);
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  if (name.size() > 64) out += "...";
  return out + "\"";
}

}  // namespace

namespace {

// Unicode's format characters (general category Cf, Unicode 15): invisible,
// so two names that print alike could differ ("\u200Balice", a BOM glued to
// the first name of a CSV).
bool is_format_char(uint32_t cp) {
  static constexpr uint32_t kRanges[][2] = {
      {0x00AD, 0x00AD},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
      {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x180E, 0x180E},   {0x200B, 0x200F},   {0x202A, 0x202E},
      {0x2060, 0x2064},   {0x2066, 0x206F},   {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},   {0x110BD, 0x110BD},
      {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A}, {0xE0001, 0xE0001},
      {0xE0020, 0xE007F}};
  for (const auto& r : kRanges)
    if (cp >= r[0] && cp <= r[1]) return true;
  return false;
}

}  // namespace

std::string name_problem(const std::string& name) {
  if (name.empty()) return "empty name";
  if (name.size() > 128) return "name " + quoted(name) + " is longer than 128 bytes";
  // A leading '-' would read as a command-line option (mfprio-acct, sacctmgr).
  if (name[0] == '-') return "name " + quoted(name) + " starts with '-'";
  for (size_t i = 0; i < name.size();) {
    uint32_t cp = 0;
    const size_t len = utf8_sequence(name, i, &cp);
    if (len == 0) return "name " + quoted(name) + " is not valid UTF-8 (byte " + std::to_string(i + 1) + ")";
    // C0 and C1 control characters, DEL, and Unicode line/paragraph separators.
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
      return "name " + quoted(name) + " contains a control character";
    if (is_format_char(cp)) {
      char hex[16];
      std::snprintf(hex, sizeof hex, "U+%04X", static_cast<unsigned>(cp));
      return "name " + quoted(name) + " contains the invisible format character " + hex + " (byte " +
             std::to_string(i + 1) + ")";
    }
    if (len == 1 && (std::isspace(static_cast<unsigned char>(cp)) || cp == '|' || cp == '=' || cp == ',' ||
                     cp == '"'))
      return "name " + quoted(name) + " contains a space or one of |=,\"";
    i += len;
  }
  return "";
}

std::string description_problem(const std::string& text) {
  if (text.size() > 1024) return "description is longer than 1024 bytes";
  for (size_t i = 0; i < text.size();) {
    uint32_t cp = 0;
    const size_t len = utf8_sequence(text, i, &cp);
    if (len == 0) return "description is not valid UTF-8 (byte " + std::to_string(i + 1) + ")";
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029)
      return "description contains a control character (a newline or tab, byte " + std::to_string(i + 1) + ")";
    if (cp == '|') return "description contains '|' (the -P column separator)";
    i += len;
  }
  return "";
}

// One TRES parser for the store and the plugin (common/tres.hpp): a list the
// store accepts is one the plugin loads.  Billing weights are weights (no
// negatives); partition totals are counts.
std::string tres_weights_problem(const std::string& s) {
  std::vector<TresWeight> w;
  std::string why;
  if (!parse_tres_spec(s, &w, &why, /*allow_negative=*/false))
    return "TRESBillingWeights \"" + s + "\": " + why;
  for (const TresWeight& t : w)
    if (t.weight > kMaxBillingWeight)
      return "TRESBillingWeights \"" + s + "\": weight of TRES '" + t.name + "' is over " +
             std::to_string(static_cast<int64_t>(kMaxBillingWeight)) + " per unit";
  return "";
}

std::string usage_factor_problem(double f) {
  if (std::isfinite(f) && f >= 0 && f <= kMaxUsageFactor) return "";
  char v[32];
  std::snprintf(v, sizeof v, "%g", f);
  return std::string("usage_factor ") + v + " is not a number in 0.." +
         std::to_string(static_cast<int64_t>(kMaxUsageFactor));
}

std::string tres_counts_problem(const std::string& s) {
  std::vector<std::pair<std::string, double>> c;
  std::string why;
  if (!parse_tres_counts(s, &c, &why)) return "TRES totals \"" + s + "\": " + why;
  return "";
}

}  // namespace mfprio::acct
