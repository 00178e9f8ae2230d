// sacctmgr_dump.cpp - see sacctmgr_dump.hpp.
#include "sacctmgr_dump.hpp"

#include <jansson.h>

#include <cctype>
#include <map>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "admin.hpp"
#include "slurm_conf.hpp"  // edit_distance, the one "did you mean" measure

#include "json_util.hpp"
#include "numbers.hpp"
#include "strings.hpp"

namespace mfprio::acct {
namespace {

// 'x' -> x (sacctmgr quotes names and strings in single quotes).
std::string unquote(const std::string& v) {
  if (v.size() >= 2 && v.front() == '\'' && v.back() == '\'') return v.substr(1, v.size() - 2);
  return v;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string shares_text(uint32_t shares, bool parent) { return parent ? "parent" : std::to_string(shares); }

// Options sacctmgr's file format knows.  kept: the store keeps it.
struct OptionInfo {
  const char* name;
  bool kept;
};
constexpr OptionInfo kOptions[] = {
    {"fairshare", true},       {"shares", true},          {"priority", true},        {"description", true},
    {"defaultaccount", true},  {"partition", true},       {"adminlevel", true},      {"organization", false},
    {"qos", false},            {"defaultqos", false},     {"coordinator", false},    {"defaultwckey", false},
    {"wckeys", false},         {"grpjobs", false},        {"grpjobsaccrue", false},  {"grpsubmitjobs", false},
    {"grpsubmit", false},      {"grptres", false},        {"grptresmins", false},    {"grptresrunmins", false},
    {"grpwall", false},        {"grpwallduration", false}, {"grpcpus", false},       {"grpnodes", false},
    {"grpmem", false},         {"maxjobs", false},        {"maxjobsaccrue", false},  {"maxsubmitjobs", false},
    {"maxsubmit", false},      {"maxtres", false},        {"maxtrespernode", false}, {"maxtresperjob", false},
    {"maxtresmins", false},    {"maxtresminsperjob", false}, {"maxwall", false},    {"maxwallduration", false},
    {"maxwalldurationperjob", false}, {"maxnodesperjob", false}, {"maxcpusperjob", false},
    {"maxcpuminsperjob", false}, {"mintres", false},
};

const OptionInfo* find_option(const std::string& key, std::string* nearest) {
  size_t best = SIZE_MAX;
  for (const OptionInfo& o : kOptions) {
    if (key == o.name) return &o;
    const size_t d = edit_distance(key, o.name);
    if (d < best) {
      best = d;
      *nearest = o.name;
    }
  }
  return nullptr;
}

// "User - 'alice':Fairshare=2:DefaultAccount='theory'" -> kind, name, options.
struct Record {
  std::string kind;  // cluster, parent, account, user (lower case)
  std::string name;
  std::vector<std::pair<std::string, std::string>> options;  // lower-case key, unquoted value
};

// Splits at ':' outside single quotes.
std::vector<std::string> split_colons(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  bool q = false;
  for (char c : s) {
    if (c == '\'') q = !q;
    if (c == ':' && !q) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

bool parse_record(const std::string& line, Record* r, std::string* why) {
  const size_t dash = line.find(" - ");
  if (dash == std::string::npos) {
    *why = "expected 'Cluster - ', 'Parent - ', 'Account - ' or 'User - ' and a name";
    return false;
  }
  r->kind = lower(trim_space(line.substr(0, dash)));
  if (r->kind != "cluster" && r->kind != "parent" && r->kind != "account" && r->kind != "user") {
    *why = "'" + trim_space(line.substr(0, dash)) + "' is not Cluster, Parent, Account or User";
    return false;
  }
  const std::vector<std::string> parts = split_colons(line.substr(dash + 3));
  r->name = unquote(trim_space(parts[0]));
  if (r->name.empty()) {
    *why = "empty name";
    return false;
  }
  for (size_t i = 1; i < parts.size(); ++i) {
    const std::string p = trim_space(parts[i]);
    if (p.empty()) continue;
    const size_t eq = p.find('=');
    if (eq == std::string::npos || eq == 0) {
      *why = "option '" + p + "': expected KEY=VALUE";
      return false;
    }
    r->options.emplace_back(lower(trim_space(p.substr(0, eq))), unquote(trim_space(p.substr(eq + 1))));
  }
  return true;
}

// The account tree: children of each account in the store's order.
struct Tree {
  std::map<std::string, std::vector<const AccountRec*>> accounts;
  std::map<std::string, std::vector<const UserAssocRec*>> users;
};

void dump_children(const Tree& t, const std::map<std::string, const UserRec*>& users, const std::string& parent,
                   std::ostringstream& out) {
  auto a_it = t.accounts.find(parent);
  auto u_it = t.users.find(parent);
  const bool has_users = u_it != t.users.end() && !u_it->second.empty();
  const bool has_accounts = a_it != t.accounts.end() && !a_it->second.empty();
  if (!has_users && !has_accounts) return;
  out << "Parent - " << quoted(parent) << "\n";
  if (has_users)
    for (const UserAssocRec* a : u_it->second) {
      out << "User - " << quoted(a->user);
      auto u = users.find(a->user);
      if (u != users.end() && !u->second->default_account.empty())
        out << ":DefaultAccount=" << quoted(u->second->default_account);
      if (u != users.end() && u->second->admin) out << ":AdminLevel='Administrator'";
      if (!a->partition.empty()) out << ":Partition=" << quoted(a->partition);
      out << ":Fairshare=" << shares_text(a->shares, a->shares_parent);
      if (a->priority) out << ":Priority=" << a->priority;
      out << "\n";
    }
  if (has_accounts)
    for (const AccountRec* a : a_it->second) {
      out << "Account - " << quoted(a->name);
      if (!a->description.empty()) out << ":Description=" << quoted(a->description);
      out << ":Fairshare=" << shares_text(a->shares, a->shares_parent);
      if (a->priority) out << ":Priority=" << a->priority;
      out << "\n";
    }
  if (has_accounts)
    for (const AccountRec* a : a_it->second) dump_children(t, users, a->name, out);
}

}  // namespace

std::string sacctmgr_dump_text(const StoreData& d, const std::string& cluster) {
  Tree t;
  const AccountRec* root = nullptr;
  for (const AccountRec& a : d.accounts) {
    if (a.name == "root") root = &a;
    else t.accounts[a.parent].push_back(&a);
  }
  for (const UserAssocRec& a : d.assocs) t.users[a.account].push_back(&a);
  std::map<std::string, const UserRec*> users;
  for (const UserRec& u : d.users) users[u.name] = &u;
  std::ostringstream out;
  out << "# To edit this file start with a cluster line for the new cluster\n"
         "# Cluster - 'cluster_name':MaxNodesPerJob=50\n"
         "# Followed by Accounts you want in this fashion (root is created by default)...\n"
         "# Parent - 'root'\n"
         "# Account - 'cs':MaxNodesPerJob=5:MaxJobs=4:FairShare=399:Description='Computer Science'\n"
         "# Any of the options after a ':' can be left out and they can be in any order.\n"
         "# If you want to add any sub accounts just list the Parent THAT HAS ALREADY\n"
         "# BEEN CREATED before the account line in this fashion...\n"
         "# Parent - 'cs'\n"
         "# Account - 'test':MaxNodesPerJob=1:MaxJobs=1:FairShare=1:Description='Test Account'\n"
         "# To add users to a account add a line like this after a Parent - 'line'\n"
         "# User - 'lipari':MaxNodesPerJob=2:MaxJobs=3:FairShare=1\n"
         "# (written by mfprio-acct dump: the store keeps no QOS or limits)\n";
  out << "Cluster - " << quoted(cluster) << ":Fairshare=" << (root ? root->shares : 1) << "\n";
  dump_children(t, users, "root", out);
  return out.str();
}

AdminChanges plan_sacctmgr_load(const StoreData& current, const std::string& text, const std::string& file,
                                LoadStats* stats) {
  LoadStats st;
  JsonPtr doc(json_object());
  json_t* accounts = json_array();
  json_t* users = json_array();
  put(doc.get(), "accounts", accounts);
  put(doc.get(), "users", users);
  std::vector<std::string> account_where, user_where;
  std::map<std::string, std::string> not_kept;  // option -> first FILE:LINE
  std::map<std::string, std::string> default_of, admin_of;  // user -> value
  std::set<std::string> known_accounts = {"root"};
  for (const AccountRec& a : current.accounts) known_accounts.insert(a.name);
  int64_t root_shares = -1;
  std::string parent;
  bool cluster_seen = false;
  std::istringstream in(text);
  std::string raw;
  for (int lineno = 1; std::getline(in, raw); ++lineno) {
    const std::string at = file + ":" + std::to_string(lineno);
    const std::string line = trim_space(raw);
    if (line.empty() || line[0] == '#') continue;
    Record r;
    std::string why;
    if (!parse_record(line, &r, &why)) throw AdminError(at + ": " + why);
    if (!cluster_seen && r.kind != "cluster") throw AdminError(at + ": the first record must be 'Cluster - NAME'");
    if (r.kind == "cluster") {
      if (cluster_seen) throw AdminError(at + ": a second Cluster line (one cluster per file and store)");
      cluster_seen = true;
      st.cluster = r.name;
      parent = "root";
    } else if (r.kind == "parent") {
      if (!r.options.empty()) throw AdminError(at + ": a Parent line takes no options");
      if (!known_accounts.count(r.name))
        throw AdminError(at + ": Parent '" + r.name + "' is not an account listed before it (or in the store)");
      parent = r.name;
      continue;
    }
    JsonPtr rec(json_object());
    if (r.kind == "account") {
      if (r.name == "root") throw AdminError(at + ": Account 'root' is the Cluster line's");
      put(rec.get(), "name", json_string(r.name.c_str()));
      put(rec.get(), "parent", json_string(parent.c_str()));
      known_accounts.insert(r.name);
    } else if (r.kind == "user") {
      put(rec.get(), "name", json_string(r.name.c_str()));
      put(rec.get(), "account", json_string(parent.c_str()));
    }
    for (const auto& [key, value] : r.options) {
      std::string nearest;
      const OptionInfo* o = find_option(key, &nearest);
      if (!o) throw AdminError(at + ": option '" + key + "' is not one sacctmgr knows (did you mean " + nearest + "?)");
      if (!o->kept) {
        not_kept.emplace(o->name, at);
        continue;
      }
      const std::string k = o->name;
      // value captured by name: clang 14 cannot capture a structured binding.
      auto number = [&, &value = value](const char* what) -> json_int_t {
        int64_t v = 0;
        if (!parse_i64(value, &v, 0, 4294967295LL))  // numbers.hpp
          throw AdminError(at + ": " + what + "='" + value + "': expected an integer in 0..4294967295");
        return static_cast<json_int_t>(v);
      };
      if (k == "fairshare" || k == "shares") {
        const json_int_t n = lower(value) == "parent" ? -1 : number("Fairshare");
        if (r.kind == "cluster") {
          if (n < 0) throw AdminError(at + ": the root association cannot take Fairshare=parent");
          root_shares = n;
        } else {
          put(rec.get(), "shares", n < 0 ? json_string("parent") : json_integer(n));
        }
      } else if (r.kind == "cluster") {
        not_kept.emplace(k + " (on the Cluster line)", at);
      } else if (k == "priority") {
        put(rec.get(), "priority", json_integer(number("Priority")));
      } else if (k == "description" && r.kind == "account") {
        put(rec.get(), "description", json_string(value.c_str()));
      } else if (k == "partition" && r.kind == "user") {
        put(rec.get(), "partition", json_string(value.c_str()));
      } else if (k == "defaultaccount" && r.kind == "user") {
        if (auto [it, fresh] = default_of.emplace(r.name, value); !fresh && it->second != value)
          throw AdminError(at + ": DefaultAccount='" + value + "' but an earlier line of user '" + r.name +
                           "' says '" + it->second + "'");
      } else if (k == "adminlevel" && r.kind == "user") {
        const std::string l = lower(value);
        if (l != "administrator" && l != "operator" && l != "none")
          throw AdminError(at + ": AdminLevel='" + value + "': expected Administrator, Operator or None");
        if (l == "operator") not_kept.emplace("adminlevel=operator (kept as None)", at);
        admin_of[r.name] = l;
      } else {
        not_kept.emplace(k + " (on " + r.kind + " lines)", at);
      }
    }
    if (r.kind == "account") {
      if (json_array_append_new(accounts, rec.release()) != 0) throw std::bad_alloc();
      account_where.push_back(at);
    } else if (r.kind == "user") {
      if (json_array_append_new(users, rec.release()) != 0) throw std::bad_alloc();
      user_where.push_back(at);
    }
  }
  if (!cluster_seen) throw AdminError(file + ": no 'Cluster - NAME' line");
  // The default account and admin level, on each of the user's associations.
  size_t i;
  json_t* u;
  json_array_foreach(users, i, u) {
    const std::string name = json_string_value(json_object_get(u, "name"));
    const std::string account = json_string_value(json_object_get(u, "account"));
    if (auto d = default_of.find(name); d != default_of.end() && d->second == account) put(u, "default", json_true());
    if (auto a = admin_of.find(name); a != admin_of.end()) put(u, "admin", json_boolean(a->second == "administrator"));
  }
  for (const auto& [name, acct] : default_of) {
    bool found = false;
    json_array_foreach(users, i, u) found |= name == json_string_value(json_object_get(u, "name")) &&
                                              acct == json_string_value(json_object_get(u, "account"));
    if (!found) throw AdminError(file + ": user '" + name + "': DefaultAccount='" + acct + "' has no User line under Parent '" + acct + "'");
  }
  char* s = json_dumps(doc.get(), JSON_COMPACT | JSON_ENSURE_ASCII);
  if (!s) throw std::bad_alloc();
  const std::string json = s;
  free(s);
  ImportStats is;
  AdminChanges ch;
  try {
    ch = plan_import(current, json, "load", &is);
  } catch (const AdminError& e) {
    const std::string msg = e.what();
    static const std::regex rx(R"((accounts|users)\[(\d+)\])");
    std::smatch m;
    if (std::regex_search(msg, m, rx)) {
      const auto& w = m[1] == "accounts" ? account_where : user_where;
      const size_t k = std::stoul(m[2].str());
      if (k < w.size()) throw AdminError("load: " + w[k] + msg.substr(static_cast<size_t>(m.position(0) + m.length(0))));
    }
    throw;
  }
  if (root_shares >= 0) {
    ch.accounts.insert(ch.accounts.begin(), root_with_shares(current, static_cast<uint32_t>(root_shares)));
  }
  st.accounts = is.accounts;
  st.users = user_where.size();
  for (const auto& [opt, where] : not_kept)
    st.notes.push_back(where + ": " + opt + ": read, not kept (the store holds no QOS lists, limits or "
                       "organizations; the first line naming it)");
  if (stats) *stats = std::move(st);
  return ch;
}

}  // namespace mfprio::acct
