// acct_cli.cpp - mfprio-acct: argument parsing, add/modify/delete, import,
// export, charge.  (`show` renders in acct_show.cpp.)  add/modify/delete
// print their changes first and, without -i, ask before writing (confirm()).
//
// Call order for a write: parse everything (usage errors exit 2) -> open the
// store read-only and check may_write(getuid()) (refused: exit 1, file not
// touched) -> reopen read-write -> build changes on a Model of the store and
// validate them fully -> one Store transaction.
#include "bounded_read.hpp"
#include "acct_cli.hpp"

#include <poll.h>
#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include "admin.hpp"
#include "conf_loc.hpp"
#include "import_export.hpp"
#include "import_flux.hpp"
#include "import_qconf.hpp"
#include "sacctmgr_dump.hpp"
#include "store_loc.hpp"
#include "import_sge_usage.hpp"
#include "import_sstree.hpp"
#include "numbers.hpp"
#include "strings.hpp"

namespace mfprio::acct {
namespace {

using cli::Format;
using cli::UsageError;

constexpr const char* kUsage = R"(usage: mfprio-acct [OPTIONS] (--db PATH | --conf FILE) COMMAND ...

Options (anywhere on the line, as sacctmgr's):
  -i, --immediate    commit add/modify/delete without asking
  -n, --noheader     no header line in show output
  -p, --parsable     show: '|' after every field (the last too)
  -P, --parsable2    show: '|' between fields
  -Q, --quiet        print no messages other than errors
      --json         show: JSON (mfprio's views)
  -h, --help         this help; after a command, that command's help
  -V, --version      print the version
  --db PATH          the store; --conf FILE reads AccountingStorageLoc= from a slurm.conf

Commands (sacctmgr's words and synonyms; keys case-insensitive):
  add|create     account|user|qos|partition|queue NAME[,NAME..] KEY=VALUE ...
  modify|update  ENTITY [where] CONDITION ... set KEY=VALUE ...
  delete|remove  ENTITY NAME[,NAME..] | [where] CONDITION ...
  show|list      associations|accounts|users|qos|partitions|queues|tree [format=F,..] [where] [FILTER ..]
  show decay / modify decay [set] last_decay=T [last_reset=T]
  import FILE.json | import-flux ... | import-sstree FILE | import-qconf ... | import-sge-usage ...
  export | charge ...
  dump CLUSTER [file=F] / load file=F   the tree in sacctmgr's flat-file format
  grants admin=ROLE controller=ROLE [apply]   PostgreSQL: the two roles' grants (printed, or applied)
  migrate --to LOCATION   copy the whole store into a new one (SQLite file or postgresql:// URI)
Run `mfprio-acct COMMAND --help` for a command's keys.
--db may be a PostgreSQL URI (postgresql://...); cluster=NAME on the line picks the cluster.

Writes need the store file's owner, uid 0, or a user with AdminLevel=Administrator.
Exit status: 0 ok, 1 refused, failed or not confirmed, 2 usage error.
)";

constexpr const char* kHelpAdd = R"(usage: mfprio-acct [-i] (--db PATH | --conf FILE) add|create ENTITY NAME[,NAME..] KEY=VALUE ...
  add account NAME[,..] [Parent=P] [Fairshare=N|parent] [Priority=N] [Description=TEXT]
  add user NAME[,..] Account=A[,B..] [Partition=P[,Q..]] [Fairshare=N|parent] [Priority=N]
           [DefaultAccount=A] [AdminLevel=Administrator|None] [Queues=Q[,Q..]]
  add qos NAME[,..] [Priority=N] [UsageFactor=X]
  add partition NAME[,..] [PriorityJobFactor=N] [TRESBillingWeights=LIST] [TRES=LIST] [Default=yes|no]
  add queue NAME[,..] [Priority=N]      a Flux queue (priority/flux), signed 32-bit priority
The names may also be given as Name=A,B.  Cluster= (one cluster per store) and, for
accounts, Organization= are accepted and not kept.  Each change is printed first; without
-i the command asks "Would you like to commit changes?" (see accounting/README.md).
)";

constexpr const char* kHelpModify = R"(usage: mfprio-acct [-i] (--db PATH | --conf FILE) modify|update ENTITY [where] CONDITION ... set KEY=VALUE ...
  modify account [where] Name=A[,B..] set [Parent=P] [Fairshare=N|parent] [Priority=N] [Description=TEXT]
  modify user [where] Name=U[,..] [Account=A[,..]] [Partition=P[,..]] set [Fairshare=N|parent]
           [Priority=N] [Queues=Q,..] [DefaultAccount=A] [AdminLevel=Administrator|None]
  modify qos|partition|queue [where] Name=N[,..] set KEY=VALUE ...
  modify association [where] User=U [Account=A] [Partition=P] set ...   (= modify user)
  modify decay [set] last_decay=T [last_reset=T]   repair the decay pass times (admin only)
A bare word before `set` is a name.  Without `set`, Name/Account/Partition select and the
other keys are the new values.  Fairshare/Priority/Queues change the selected associations,
DefaultAccount/AdminLevel the user.
)";

constexpr const char* kHelpDelete = R"(usage: mfprio-acct [-i] (--db PATH | --conf FILE) delete|remove ENTITY [where] NAME[,..] | Name=N[,..] ...
  delete account|qos|partition|queue NAME[,..]
  delete user NAME[,..] [Account=A[,..] [Partition=P[,..]]]   without Account=: the whole user
  delete association User=U Account=A [Partition=P]
An account with sub-accounts or users is refused.
)";

constexpr const char* kHelpShow = R"(usage: mfprio-acct [-n] [-p|-P|--json] (--db PATH | --conf FILE) show|list VIEW [format=F[%W],..] [where] [FILTER ..]
  show associations [tree] [User=U,..] [Account=A,..] [Partition=P,..]
      sacctmgr's columns: Cluster Account User Partition Share Priority GrpJobs GrpTRES GrpSubmit
      GrpWall GrpTRESMins MaxJobs MaxTRES MaxTRESPerNode MaxSubmit MaxWall MaxTRESMins QOS
      Def QOS GrpTRESRunMins (limits and QOS are empty: mfprio keeps none); also ParentName,
      RawUsage, Queues.  `tree` indents Account by depth.  Cluster: ClusterName from --conf,
      else the cluster `load` read.
  show cluster [Name=C]                    sacctmgr's columns: Cluster ControlHost ControlPort RPC
      Share GrpJobs GrpTRES GrpSubmit MaxJobs MaxTRES MaxSubmit MaxWall QOS Def QOS; ControlHost,
      ControlPort (SlurmctldHost, SlurmctldPort), NodeCount and TRES (NodeName lines) come from
      --conf, Share is root's; RPC, QOS and the limits are empty.
  show users [Name=U,..] [Account=A,..]   fields User Account Partition Share Priority Default
      DefaultAccount AdminLevel RawUsage Queues
  show accounts [Name=A,..]                fields Account ParentName Share Priority Description Organization
  show qos [Name=Q,..]                     fields Name Priority UsageFactor
  show partitions|queues [Name=N,..]       fields Name PriorityJobFactor TRESBillingWeights TRES Default | Name Priority
  show tree                                Account User Partition Shares RawUsage, depth-first
  show decay                               last_decay, last_reset (epoch seconds) and the usage scale
format= takes field names or prefixes (Fairshare = Share), %W sets a width (negative: left).
)";

constexpr const char* kHelpOther = R"(usage: mfprio-acct (--db PATH | --conf FILE) COMMAND ...
  import FILE.json          add/update the listed records, one transaction
  import-flux --banks BANKS.csv --users USERS.csv [--queues QUEUES.csv]
              [--weights priority_factor_weight_table.csv] [--config config_table.csv]
              [--parameters-out FILE]
                            flux-accounting's export-db files: banks (the root bank's
                            shares too), users, queues in one transaction; the weights
                            and config tables as the flux family's PriorityParameters
                            line, printed or written to FILE (for the conf to Include);
                            --weights/--config alone write no store
  import-sstree FILE        a Grid Engine share tree (qconf -sstree text), one transaction
  import-qconf [--users FILE] [--projects FILE] [--usersets FILE] [--global FILE]
                            Grid Engine users, projects and departments with their fshare
                            and oticket, from qconf -suser / -sprj / -su text (each may
                            repeat), one transaction (an ACL-only userset is passed over,
                            noted); --global: qconf -sconf text, whose auto_user_fshare and
                            auto_user_oticket (enforce_user auto) go to every user without a
                            user object, now and whenever the store creates one
  import-sge-usage [--share-mon FILE] [--spool PATH]... [--sched-conf FILE] [--decayed]
                            Grid Engine usage (cpu, mem, io) of users, users in projects
                            and projects with the time it was measured: sge_share_mon -c 1
                            output (--decayed: it ran with -u), or the qmaster's spooled
                            users/projects (files, or a spool directory holding users/ and
                            projects/); carried to the store's decay clock with
                            sched_conf's halftimes (default 168 h)
  export                    the whole store as JSON on stdout
  migrate --to LOCATION     every row of the store (hierarchy, usage and its scale, journal,
                            ledgers, windows, decay state, settings) into a new store:
                            a file that does not exist yet, or a postgresql:// URI whose
                            cluster holds nothing yet (else refused, nothing written)
  dump CLUSTER [file=F]     the tree in sacctmgr's dump format (stdout without file=)
  load file=F               a sacctmgr dump file: the tree, shares, priorities, default
                            accounts, AdminLevel; QOS and limits are read, noted, not kept;
                            one transaction
  charge --job ID --user U [--account A] [--partition P] [--qos Q]
         --start T --end T (--rate R | --cpus N) [--running]
  charge --file CHARGES.jsonl   all lines in one transaction
These batch commands write at once (no confirmation).  T is epoch seconds or
YYYY-MM-DDTHH:MM:SS (UTC).
)";

// KEY=VALUE words, keys lowercased, in order.
using KV = std::vector<std::pair<std::string, std::string>>;

KV parse_kv(const std::vector<std::string>& words, size_t from, size_t to) {
  KV kv;
  for (size_t i = from; i < to; ++i) {
    size_t eq = words[i].find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("expected KEY=VALUE, got \"" + words[i] + "\"");
    kv.emplace_back(lower(words[i].substr(0, eq)), words[i].substr(eq + 1));
  }
  return kv;
}

void only_keys(const KV& kv, std::initializer_list<const char*> ok, const std::string& what) {
  for (const auto& [k, v] : kv) {
    bool known = false;
    for (const char* o : ok) known = known || k == o;
    if (!known) throw UsageError(what + ": unknown key \"" + k + "\"");
  }
}

// Arguments: numbers.hpp's rules for slurm.conf values, as sacctmgr's.
uint64_t parse_uint(const std::string& key, const std::string& v, uint64_t max) {
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0])))
    throw UsageError(key + "=" + v + ": not a non-negative integer");
  uint64_t n = 0;
  if (!parse_u64(v, max, &n)) throw UsageError(key + "=" + v + ": not an integer in 0.." + std::to_string(max));
  return n;
}

double parse_real(const std::string& key, const std::string& v) {
  double d = 0;
  if (!mfprio::parse_real(v, &d) || d < 0) throw UsageError(key + "=" + v + ": not a non-negative number");
  return d;
}

void parse_shares(const std::string& v, uint32_t& shares, bool& parent) {
  if (lower(v) == "parent") {
    parent = true;
    return;
  }
  if (!v.empty() && v[0] == '-') throw UsageError("fairshare=" + v + ": negative shares");
  shares = static_cast<uint32_t>(parse_uint("fairshare", v, UINT32_MAX));
  parent = false;
}

int64_t parse_int32(const std::string& key, const std::string& v) {
  int64_t n = 0;
  if (!parse_i64(v, &n, INT32_MIN, INT32_MAX))
    throw UsageError(key + "=" + v + ": not an integer in -2147483648..2147483647");
  return n;
}

bool parse_yes_no(const std::string& key, const std::string& v) {
  std::string l = lower(v);
  if (l == "yes" || l == "true" || l == "1") return true;
  if (l == "no" || l == "false" || l == "0") return false;
  throw UsageError(key + "=" + v + ": expected yes or no");
}

bool parse_admin_level(const std::string& v) {
  std::string l = lower(v);
  if (l == "administrator" || l == "admin") return true;
  if (l == "none") return false;
  throw UsageError("adminlevel=" + v + ": expected Administrator or None");
}

int64_t parse_time(const std::string& opt, const std::string& v) {
  if (!v.empty() && std::all_of(v.begin(), v.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }))
    return static_cast<int64_t>(parse_uint(opt, v, INT64_MAX));
  struct tm tm {};
  const char* end = strptime(v.c_str(), "%Y-%m-%dT%H:%M:%S", &tm);
  if (!end || *end) throw UsageError(opt + " " + v + ": expected epoch seconds or YYYY-MM-DDTHH:MM:SS");
  return static_cast<int64_t>(timegm(&tm));
}

void need_name(const std::string& kind, const std::string& name) {
  if (auto p = name_problem(name); !p.empty()) throw UsageError(kind + ": " + p);
}

std::vector<std::string> split_commas(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (true) {
    size_t c = s.find(',', pos);
    out.push_back(s.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return out;
}

// ---- add / modify / delete: build AdminChanges on a Model -----------------

void account_fields(const KV& kv, AccountRec& a) {
  for (const auto& [k, v] : kv) {
    if (k == "parent") a.parent = v;
    else if (k == "fairshare" || k == "shares") parse_shares(v, a.shares, a.shares_parent);
    else if (k == "priority") a.priority = static_cast<uint32_t>(parse_uint(k, v, UINT32_MAX));
    else if (k == "description") {
      if (auto p = description_problem(v); !p.empty()) throw UsageError("account " + a.name + ": " + p);
      a.description = v;
    }
  }
}

void qos_fields(const KV& kv, QosRec& q) {
  for (const auto& [k, v] : kv) {
    if (k == "priority") q.priority = static_cast<uint32_t>(parse_uint(k, v, UINT32_MAX));
    else if (k == "usagefactor") {
      q.usage_factor = parse_real(k, v);
      if (!usage_factor_problem(q.usage_factor).empty())
        throw UsageError(k + "=" + v + ": not a number in 0.." + std::to_string(static_cast<int64_t>(kMaxUsageFactor)));
    }
  }
}

void partition_fields(const KV& kv, PartitionRec& p) {
  for (const auto& [k, v] : kv) {
    if (k == "priorityjobfactor") p.job_factor = static_cast<uint32_t>(parse_uint(k, v, 65533));
    else if (k == "tresbillingweights") p.billing_weights = v;
    else if (k == "tres") p.tres_totals = v;
    else if (k == "default") p.is_default = parse_yes_no(k, v);
  }
  if (auto e = tres_weights_problem(p.billing_weights); !e.empty()) throw UsageError(e);
  if (auto e = tres_counts_problem(p.tres_totals); !e.empty()) throw UsageError(e);
}

std::string get(const KV& kv, const char* key) {
  std::string v;
  for (const auto& [k, val] : kv)
    if (k == key) v = val;
  return v;
}
bool has(const KV& kv, const char* key) {
  for (const auto& [k, v] : kv)
    if (k == key) return true;
  return false;
}

// sacctmgr's spellings of a key -> the one word used below.
std::string canon_key(const std::string& kind, const std::string& k) {
  static const std::map<std::string, std::string> alias = {
      {"shares", "fairshare"},      {"share", "fairshare"},        {"names", "name"},
      {"users", "user"},            {"accounts", "account"},       {"acct", "account"},
      {"partitions", "partition"},  {"clusters", "cluster"},       {"defaultacct", "defaultaccount"},
      {"admin", "adminlevel"},      {"descr", "description"},      {"desc", "description"},
      {"org", "organization"},      {"parentname", "parent"},
  };
  auto it = alias.find(k);
  std::string c = it == alias.end() ? k : it->second;
  if (kind == "user" && c == "default") c = "defaultaccount";
  return c;
}

// Which associations a user command selects (empty list = any).
struct Cond {
  std::vector<std::string> accounts, partitions;
  bool by_account = false, by_partition = false;
  bool match(const UserAssocRec& r) const {
    return (!by_account || std::find(accounts.begin(), accounts.end(), r.account) != accounts.end()) &&
           (!by_partition || std::find(partitions.begin(), partitions.end(), r.partition) != partitions.end());
  }
};

// What a command will change, printed before it is made, in sacctmgr's
// manner: a section line (" Adding Account(s)") and indented items.
struct Echo {
  std::vector<std::pair<std::string, std::vector<std::string>>> sections;
  void add(const std::string& head, const std::string& line) {
    for (auto& [h, lines] : sections)
      if (h == head) {
        if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
        return;
      }
    sections.push_back({head, {line}});
  }
  std::string text() const {
    std::string s;
    for (const auto& [h, lines] : sections) {
      s += " " + h + "\n";
      for (const auto& l : lines) s += "  " + l + "\n";
    }
    return s;
  }
};

std::string assoc_line(const std::string& user, const std::string& account, const std::string& part) {
  return "A = " + account + " U = " + user + (part.empty() ? "" : " P = " + part);
}

// " Settings" lines for the value keys of a command.
void echo_settings(const KV& kv, Echo& echo) {
  static const std::map<std::string, std::string> shown = {
      {"parent", "Parent"},           {"fairshare", "Fairshare"},
      {"priority", "Priority"},       {"description", "Description"},
      {"defaultaccount", "DefaultAccount"}, {"adminlevel", "AdminLevel"},
      {"queues", "Queues"},           {"usagefactor", "UsageFactor"},
      {"priorityjobfactor", "PriorityJobFactor"}, {"tresbillingweights", "TRESBillingWeights"},
      {"tres", "TRES"},               {"default", "Default"},
      {"last_decay", "last_decay"},   {"last_reset", "last_reset"},
  };
  for (const auto& [k, v] : kv) {
    auto it = shown.find(k);
    if (it != shown.end()) echo.add("Settings", it->second + " = " + v);
    else if (k == "organization") echo.add("Settings", "Organization = " + v + " (not kept by mfprio)");
  }
}

// `verb account NAME`.
AdminChanges plan_account(Model& m, const std::string& verb, const std::string& name, const KV& kv, Echo& echo,
                          const std::string& what) {
  AdminChanges ch;
  only_keys(kv, {"parent", "fairshare", "priority", "description", "organization", "cluster"}, what);
  auto it = m.accounts.find(name);
  if (verb == "add") {
    if (it != m.accounts.end()) throw AdminError(what + ": account already exists");
    AccountRec a;
    a.name = name;
    a.parent = "root";
    account_fields(kv, a);
    m.accounts[name] = a;
    echo.add("Adding Account(s)", name);
  } else if (verb == "modify") {
    if (it == m.accounts.end()) throw AdminError(what + ": no such account");
    if (name == "root" && has(kv, "parent")) throw AdminError(what + ": root has no parent");
    account_fields(kv, it->second);
    echo.add("Modified accounts...", name);
  } else {
    if (it == m.accounts.end()) throw AdminError(what + ": no such account");
    if (name == "root") throw AdminError(what + ": the root account cannot be deleted");
    if (m.has_children(name)) throw AdminError(what + ": account has sub-accounts; delete or move them first");
    if (m.has_assocs_under(name)) throw AdminError(what + ": account has users; delete them first");
    m.accounts.erase(it);
    ch.delete_accounts.push_back(name);
    echo.add("Deleting accounts...", name);
    return ch;
  }
  if (auto p = m.parent_problem(name); !p.empty()) throw AdminError(what + ": " + p);
  ch.accounts.push_back(m.accounts[name]);
  return ch;
}

// `delete user NAME`: the user and all its associations, or (with
// Account=/Partition=) the associations selected.
AdminChanges plan_user_delete(Model& m, const std::string& name, const Cond& cond, Echo& echo,
                              const std::string& what) {
  AdminChanges ch;
  if (!m.users.count(name) && m.assocs_of(name).empty()) throw AdminError(what + ": no such user");
  if (!cond.by_account && !cond.by_partition) {
    for (const auto* r : m.assocs_of(name)) echo.add("Deleting user associations...", assoc_line(name, r->account, r->partition));
    for (auto it = m.assocs.lower_bound(AssocTuple{name, "", ""});
         it != m.assocs.end() && std::get<0>(it->first) == name;)
      it = m.assocs.erase(it);
    m.users.erase(name);
    ch.delete_users.push_back(name);
    echo.add("Deleting users...", name);
    return ch;
  }
  for (auto it = m.assocs.lower_bound(AssocTuple{name, "", ""});
       it != m.assocs.end() && std::get<0>(it->first) == name;) {
    if (!cond.match(it->second)) {
      ++it;
      continue;
    }
    ch.delete_assocs.push_back(AssocKey{name, it->second.account, it->second.partition});
    echo.add("Deleting user associations...", assoc_line(name, it->second.account, it->second.partition));
    it = m.assocs.erase(it);
  }
  if (ch.delete_assocs.empty()) throw AdminError(what + ": no matching association");
  std::set<std::string> touched{name};
  m.finish_users(touched, ch.users);
  return ch;
}

// `add user NAME Account=A[,B] [Partition=P[,Q]]`: the new associations.
std::vector<UserAssocRec*> add_user_assocs(Model& m, const std::string& name, const KV& kv, bool existed,
                                           Echo& echo, const std::string& what) {
  std::vector<UserAssocRec*> targets;
  if (!has(kv, "account")) throw UsageError(what + ": Account= is required");
  std::vector<std::string> parts{""};
  if (has(kv, "partition") && !get(kv, "partition").empty()) parts = split_commas(get(kv, "partition"));
  for (const std::string& p : parts)
    if (!p.empty()) need_name(what + ": Partition", p);
  if (!existed) echo.add("Adding User(s)", name);
  for (const std::string& acct : split_commas(get(kv, "account"))) {
    need_name(what + ": Account", acct);
    if (!m.accounts.count(acct)) throw AdminError(what + ": unknown account \"" + acct + "\"");
    for (const std::string& part : parts) {
      AssocTuple key{name, acct, part};
      if (m.assocs.count(key))
        throw AdminError(what + ": user already has an association with account \"" + acct + "\"" +
                         (part.empty() ? "" : " partition \"" + part + "\""));
      UserAssocRec& r = m.assocs[key];
      r.user = name;
      r.account = acct;
      r.partition = part;
      targets.push_back(&r);
      echo.add("Associations", assoc_line(name, acct, part));
    }
  }
  return targets;
}

// `modify user NAME [Account=..] [Partition=..] set ...`: the associations
// whose values change (none when only user keys are set).
std::vector<UserAssocRec*> modify_user_targets(Model& m, const std::string& name, const Cond& cond, const KV& kv,
                                               Echo& echo, const std::string& what) {
  std::vector<UserAssocRec*> targets;
  if (has(kv, "account") || has(kv, "partition"))
    throw UsageError(what + ": Account=/Partition= select associations; put them before \"set\"");
  for (auto it = m.assocs.lower_bound(AssocTuple{name, "", ""});
       it != m.assocs.end() && std::get<0>(it->first) == name; ++it)
    if (cond.match(it->second)) targets.push_back(&it->second);
  bool assoc_keys = has(kv, "fairshare") || has(kv, "priority") || has(kv, "queues");
  if (targets.empty() && (assoc_keys || cond.by_account || cond.by_partition))
    throw AdminError(what + ": no matching association");
  if (!assoc_keys) targets.clear();
  for (const UserAssocRec* r : targets)
    echo.add("Modified user associations...", assoc_line(name, r->account, r->partition));
  if (has(kv, "defaultaccount") || has(kv, "adminlevel")) echo.add("Modified users...", name);
  return targets;
}

// Queues=a,b: the Flux queues the association may use ("" = none), sorted;
// nullopt without the key.
std::optional<std::vector<std::string>> queue_list(const Model& m, const KV& kv, const std::string& what) {
  std::optional<std::vector<std::string>> queues;
  if (!has(kv, "queues")) return queues;
  queues.emplace();
  const std::string list = get(kv, "queues");
  for (const std::string& q : list.empty() ? std::vector<std::string>{} : split_commas(list)) {
    if (!m.queues.count(q)) throw AdminError(what + ": unknown queue \"" + q + "\"");
    if (std::find(queues->begin(), queues->end(), q) != queues->end())
      throw UsageError(what + ": queue \"" + q + "\" listed twice");
    queues->push_back(q);
  }
  std::sort(queues->begin(), queues->end());
  return queues;
}

// `verb user NAME`.
AdminChanges plan_user(Model& m, const std::string& verb, const std::string& name, const Cond& cond, const KV& kv,
                       Echo& echo, const std::string& what) {
  only_keys(kv, {"account", "partition", "fairshare", "priority", "defaultaccount", "adminlevel", "queues",
                 "cluster"}, what);
  if (verb == "delete") return plan_user_delete(m, name, cond, echo, what);
  AdminChanges ch;
  std::set<std::string> touched{name};
  const bool existed = m.users.count(name) > 0;
  if (verb == "modify" && !existed) throw AdminError(what + ": no such user");
  if (has(kv, "adminlevel")) parse_admin_level(get(kv, "adminlevel"));  // usage errors first
  UserRec& u = m.users[name];
  u.name = name;
  if (has(kv, "adminlevel")) u.admin = parse_admin_level(get(kv, "adminlevel"));
  const std::vector<UserAssocRec*> targets = verb == "add" ? add_user_assocs(m, name, kv, existed, echo, what)
                                                           : modify_user_targets(m, name, cond, kv, echo, what);
  const std::optional<std::vector<std::string>> queues = queue_list(m, kv, what);
  for (UserAssocRec* r : targets) {
    for (const auto& [k, v] : kv) {
      if (k == "fairshare") parse_shares(v, r->shares, r->shares_parent);
      else if (k == "priority") r->priority = static_cast<uint32_t>(parse_uint(k, v, UINT32_MAX));
    }
    if (queues) r->queues = *queues;
    ch.assocs.push_back(AssocWrite{*r, false, queues.has_value()});
  }
  if (has(kv, "defaultaccount")) {
    std::string d = get(kv, "defaultaccount");
    bool mine = false;
    for (const auto* r : m.assocs_of(name)) mine = mine || r->account == d;
    if (!mine) throw AdminError(what + ": DefaultAccount \"" + d + "\" is not one of the user's accounts");
    u.default_account = d;
  }
  m.finish_users(touched, ch.users);
  return ch;
}

// `verb qos|partition|queue NAME`: the three flat tables.
AdminChanges plan_flat(Model& m, const std::string& verb, const std::string& kind, const std::string& name,
                       const KV& kv, Echo& echo, const std::string& what) {
  AdminChanges ch;
  if (kind == "qos") {
    only_keys(kv, {"priority", "usagefactor", "cluster"}, what);
    auto it = m.qos.find(name);
    if (verb == "delete") {
      if (it == m.qos.end()) throw AdminError(what + ": no such qos");
      m.qos.erase(it);
      ch.delete_qos.push_back(name);
      echo.add("Deleting QOS(s)...", name);
      return ch;
    }
    if (verb == "add" && it != m.qos.end()) throw AdminError(what + ": qos already exists");
    if (verb == "modify" && it == m.qos.end()) throw AdminError(what + ": no such qos");
    QosRec q = verb == "add" ? QosRec{0, name, 0, 1.0} : it->second;
    qos_fields(kv, q);
    m.qos[name] = q;
    ch.qos.push_back(q);
    echo.add(verb == "add" ? "Adding QOS(s)" : "Modified qos...", name);
  } else if (kind == "partition") {
    only_keys(kv, {"priorityjobfactor", "tresbillingweights", "tres", "default", "cluster"}, what);
    auto it = m.partitions.find(name);
    if (verb == "delete") {
      if (it == m.partitions.end()) throw AdminError(what + ": no such partition");
      m.partitions.erase(it);
      ch.delete_partitions.push_back(name);
      echo.add("Deleting partitions...", name);
      return ch;
    }
    if (verb == "add" && it != m.partitions.end()) throw AdminError(what + ": partition already exists");
    if (verb == "modify" && it == m.partitions.end()) throw AdminError(what + ": no such partition");
    PartitionRec p = verb == "add" ? PartitionRec{0, name, 1, "", "", false} : it->second;
    partition_fields(kv, p);
    m.partitions[name] = p;
    ch.partitions.push_back(p);
    echo.add(verb == "add" ? "Adding Partition(s)" : "Modified partitions...", name);
  } else {
    only_keys(kv, {"priority", "cluster"}, what);
    auto it = m.queues.find(name);
    if (verb == "delete") {
      if (it == m.queues.end()) throw AdminError(what + ": no such queue");
      m.queues.erase(it);
      ch.delete_queues.push_back(name);
      echo.add("Deleting queues...", name);
      return ch;
    }
    if (verb == "add" && it != m.queues.end()) throw AdminError(what + ": queue already exists");
    if (verb == "modify" && it == m.queues.end()) throw AdminError(what + ": no such queue");
    QueueRec q = verb == "add" ? QueueRec{name, 0} : it->second;
    if (has(kv, "priority")) q.priority = parse_int32("priority", get(kv, "priority"));
    m.queues[name] = q;
    ch.queues.push_back(q);
    echo.add(verb == "add" ? "Adding Queue(s)" : "Modified queues...", name);
  }
  return ch;
}

// Applies `verb kind name` to the model; returns what to write.  `kv` holds
// the new values (canonical keys), `cond` the association selection of a
// user command.  A delete echoes no settings.
AdminChanges plan_one(Model& m, const std::string& verb, const std::string& kind, const std::string& name,
                      const Cond& cond, const KV& kv, Echo& echo) {
  const std::string what = verb + " " + kind + " " + name;
  need_name(verb + " " + kind, name);
  if (kind != "user" && (cond.by_account || cond.by_partition))
    throw UsageError(what + ": Account=/Partition= select user associations only");
  AdminChanges ch;
  if (kind == "account") ch = plan_account(m, verb, name, kv, echo, what);
  else if (kind == "user") ch = plan_user(m, verb, name, cond, kv, echo, what);
  else if (kind == "qos" || kind == "partition" || kind == "queue") ch = plan_flat(m, verb, kind, name, kv, echo, what);
  else throw UsageError(verb + ": unknown entity \"" + kind + "\" (account, user, qos, partition, queue)");
  if (verb != "delete") echo_settings(kv, echo);
  return ch;
}

template <class T>
void append(std::vector<T>& to, std::vector<T>& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
}

// `verb kind WORDS...` -> the changes for every named record, checked on
// the model in order (a later name sees the earlier ones' changes).
//   bare words (before `set`)  names, comma lists allowed
//   where                      optional; marks the start of the conditions
//   KEY=VALUE before set       conditions (modify, delete) or values (add)
//   set                        the values follow (modify)
// A modify without `set` takes Name/Account/Partition as conditions and
// every other key as a value (mfprio's older form `modify account A Fairshare=5`).
AdminChanges plan_command(Model& m, const std::string& verb, std::string kind,
                          const std::vector<std::string>& words, Echo& echo) {
  std::vector<std::string> names;
  KV before, after;
  bool seen_set = false;
  for (const std::string& w : words) {
    const std::string lw = lower(w);
    if (lw == "set") {
      if (verb != "modify") throw UsageError(verb + " " + kind + ": \"set\" belongs to modify");
      if (seen_set) throw UsageError(verb + " " + kind + ": \"set\" given twice");
      seen_set = true;
      continue;
    }
    if (lw == "where") {
      if (seen_set) throw UsageError(verb + " " + kind + ": \"where\" must come before \"set\"");
      if (verb == "add") throw UsageError("add " + kind + ": \"where\" belongs to modify and delete");
      continue;
    }
    const size_t eq = w.find('=');
    if (eq == std::string::npos) {
      if (seen_set) throw UsageError(verb + " " + kind + ": expected KEY=VALUE after \"set\", got \"" + w + "\"");
      for (const std::string& n : split_commas(w)) names.push_back(n);
      continue;
    }
    if (eq == 0) throw UsageError(verb + " " + kind + ": expected KEY=VALUE, got \"" + w + "\"");
    (seen_set ? after : before).emplace_back(lower(w.substr(0, eq)), w.substr(eq + 1));
  }
  if (kind == "association") {
    if (verb == "add") throw UsageError("add association: use add user NAME Account=A [Partition=P]");
    kind = "user";
    for (auto& [k, v] : before)
      if (k == "user" || k == "users") k = "name";
  }
  for (auto& [k, v] : before) k = canon_key(kind, k);
  for (auto& [k, v] : after) k = canon_key(kind, k);
  Cond cond;
  KV values;
  // A selector names what it selects: an empty Account= or Partition= (or an
  // empty item in its list) is refused, the same for both, rather than
  // matching nothing (Account) or every association without a partition in
  // every account (Partition).
  auto selector = [&](const std::string& k, const std::string& v) {
    const auto l = split_commas(v);
    for (const std::string& item : l)
      if (item.empty())
        throw UsageError(k + "=" + v + ": empty name (leave " + k +
                         " out to select every one; list names to select some)");
    return l;
  };
  auto condition = [&](const std::string& k, const std::string& v) {
    if (k == "name" || (kind == "user" && k == "user")) {
      for (const std::string& n : split_commas(v)) names.push_back(n);
    } else if (kind == "user" && k == "account") {
      cond.by_account = true;
      const auto l = selector("Account", v);
      cond.accounts.insert(cond.accounts.end(), l.begin(), l.end());
    } else if (kind == "user" && k == "partition") {
      cond.by_partition = true;
      const auto l = selector("Partition", v);
      cond.partitions.insert(cond.partitions.end(), l.begin(), l.end());
    } else if (k == "cluster") {
      // One cluster per store: any cluster name selects it.
    } else {
      return false;
    }
    return true;
  };
  if (verb == "add") {
    for (auto& [k, v] : before)
      if (k == "name") for (const std::string& n : split_commas(v)) names.push_back(n);
      else values.emplace_back(k, v);
  } else if (verb == "delete") {
    for (auto& [k, v] : before)
      if (!condition(k, v)) throw UsageError("delete " + kind + ": unknown condition \"" + k + "\"");
  } else if (seen_set) {
    for (auto& [k, v] : before)
      if (!condition(k, v)) throw UsageError("modify " + kind + ": unknown condition \"" + k + "\"");
    values = after;
  } else {
    for (auto& [k, v] : before)
      if (!condition(k, v)) values.emplace_back(k, v);
  }
  if (names.empty()) throw UsageError(verb + " " + kind + ": no name given (NAME or Name=...)");
  if (verb == "modify" && values.empty()) throw UsageError(verb + " " + kind + ": nothing to set");
  for (const std::string& n : names)
    if (std::count(names.begin(), names.end(), n) > 1)
      throw UsageError(verb + " " + kind + ": name \"" + n + "\" given twice");
  AdminChanges all;
  for (const std::string& n : names) {
    AdminChanges ch = plan_one(m, verb, kind, n, cond, values, echo);
    append(all.delete_accounts, ch.delete_accounts);
    append(all.delete_users, ch.delete_users);
    append(all.delete_assocs, ch.delete_assocs);
    append(all.delete_qos, ch.delete_qos);
    append(all.delete_partitions, ch.delete_partitions);
    append(all.delete_queues, ch.delete_queues);
    append(all.accounts, ch.accounts);
    append(all.assocs, ch.assocs);
    append(all.users, ch.users);
    append(all.qos, ch.qos);
    append(all.partitions, ch.partitions);
    append(all.queues, ch.queues);
  }
  // A record planned twice (e.g. an account whose child was added after it)
  // is written once, in its final state.
  std::vector<AccountRec> accts;
  for (auto it = all.accounts.rbegin(); it != all.accounts.rend(); ++it)
    if (std::none_of(accts.begin(), accts.end(), [&](const AccountRec& a) { return a.name == it->name; }))
      accts.insert(accts.begin(), *it);
  all.accounts = accts;
  std::vector<UserRec> users;
  for (auto it = all.users.rbegin(); it != all.users.rend(); ++it)
    if (std::none_of(users.begin(), users.end(), [&](const UserRec& u) { return u.name == it->name; }))
      users.insert(users.begin(), *it);
  all.users = users;
  return all;
}

// ---- charge ------------------------------------------------------------------

Charge resolve_charge(const StoreData& d, const Model& m, const ChargeSpec& c) {
  std::string who = c.where + ": job " + std::to_string(c.job);
  std::string account = c.account;
  if (account.empty()) {
    auto u = m.users.find(c.user);
    if (u == m.users.end() || u->second.default_account.empty())
      throw AdminError(who + ": user \"" + c.user + "\" has no default account");
    account = u->second.default_account;
  }
  auto it = m.assocs.find(AssocTuple{c.user, account, c.partition});
  if (it == m.assocs.end()) it = m.assocs.find(AssocTuple{c.user, account, ""});
  if (it == m.assocs.end())
    throw AdminError(who + ": no association for user \"" + c.user + "\" account \"" + account + "\"");
  double factor = 1.0;
  if (!c.qos.empty()) {
    auto q = m.qos.find(c.qos);
    if (q == m.qos.end()) throw AdminError(who + ": unknown qos \"" + c.qos + "\"");
    factor = q->second.usage_factor;
  }
  if (c.end < c.start) throw AdminError(who + ": end is before start");
  if (!c.rate && !c.cpus) throw AdminError(who + ": give a rate or a cpu count");
  Charge ch;
  ch.job_id = c.job;
  ch.assoc_id = it->second.id;
  ch.start_time = c.start;
  ch.until = c.end;
  ch.rate = (c.rate ? *c.rate : *c.cpus) * factor;
  if (c.cpus) ch.tres.emplace_back("cpu", *c.cpus * factor);
  ch.ended = c.ended;
  (void)d;
  return ch;
}

ChargeSpec charge_flags(const std::vector<std::string>& a, size_t from) {
  ChargeSpec c;
  c.where = "charge";
  bool job = false, user = false, start = false, end = false;
  for (size_t i = from; i < a.size(); ++i) {
    const std::string& f = a[i];
    if (f == "--running") {
      c.ended = false;
      continue;
    }
    if (i + 1 >= a.size()) throw UsageError("charge: " + f + " needs a value");
    const std::string& v = a[++i];
    if (f == "--job") c.job = parse_uint("--job", v, UINT64_MAX), job = true;
    else if (f == "--user") c.user = v, user = true;
    else if (f == "--account") c.account = v;
    else if (f == "--partition") c.partition = v;
    else if (f == "--qos") c.qos = v;
    else if (f == "--start") c.start = parse_time(f, v), start = true;
    else if (f == "--end") c.end = parse_time(f, v), end = true;
    else if (f == "--rate") c.rate = parse_real(f, v);
    else if (f == "--cpus") c.cpus = parse_real(f, v);
    else throw UsageError("charge: unknown option \"" + f + "\"");
  }
  if (!job || !user || !start || !end)
    throw UsageError("charge: --job, --user, --start and --end are required");
  if (c.rate && c.cpus) throw UsageError("charge: give --rate or --cpus, not both");
  if (!c.rate && !c.cpus) throw UsageError("charge: give --rate or --cpus");
  return c;
}

// ---- dispatch ------------------------------------------------------------------

std::string user_name(uid_t uid) {
  struct passwd pw;
  struct passwd* found = nullptr;
  std::vector<char> buf(16384);
  if (getpwuid_r(uid, &pw, buf.data(), buf.size(), &found) == 0 && found) return found->pw_name;
  return "?";
}

// Global options, as sacctmgr has them, wherever they stand on the line.
struct Options {
  std::string db, conf;
  // The store's cluster (store.hpp: OpenOptions::cluster): cluster= on the
  // line (cluster_given), else the --conf's ClusterName, else "" (the
  // default cluster).
  std::string cluster;
  bool cluster_given = false;
  bool immediate = false, noheader = false, quiet = false, help = false, version = false;
  cli::Format fmt = cli::Format::Table;
};

// A store of an older schema is upgraded here, as the plugin's start
// would (the same migrations, one transaction), by its owner or root only:
// who may write it is recorded inside it, in a schema not yet read.
void upgrade_schema(const Options& o, const std::string& db, const struct stat& sb) {
  const uid_t uid = getuid();
  if (uid != 0 && uid != sb.st_uid)
    throw AdminError(db + ": the store needs a schema upgrade, which only its owner (uid " +
                     std::to_string(sb.st_uid) + ") or root may make; uid " + std::to_string(uid) + " (" +
                     user_name(uid) + ") is neither");
  Store::open(db, OpenOptions{false, false, o.cluster, o.cluster_given});  // migrates
}

// Opens read-only (show, export), upgrading an older schema first.  A
// PostgreSQL store has no owner file: the server's grants decide who may
// upgrade it.
std::unique_ptr<Store> open_for_read(const Options& o, const std::string& db) {
  try {
    return Store::open(db, OpenOptions{true, false, o.cluster, o.cluster_given});
  } catch (const SchemaUpgradeNeeded&) {
    if (is_server_store(db)) {
      Store::open(db, OpenOptions{false, false, o.cluster, o.cluster_given});
    } else {
      struct stat sb;
      if (::stat(db.c_str(), &sb) != 0) throw;
      upgrade_schema(o, db, sb);
    }
    return Store::open(db, OpenOptions{true, false, o.cluster, o.cluster_given});
  }
}

// Opens for writing after checking the caller may write.  The check runs on a
// read-only handle so that a refused caller never gets to modify the file.
// PostgreSQL: the server's grants to the connecting role are the check.
std::unique_ptr<Store> open_for_write(const Options& o, const std::string& db, bool create) {
  if (is_server_store(db)) return Store::open(db, OpenOptions{false, create, o.cluster, o.cluster_given});
  struct stat sb;
  if (::stat(db.c_str(), &sb) == 0) {
    std::unique_ptr<Store> ro;
    try {
      ro = Store::open(db, OpenOptions{true, false, o.cluster, o.cluster_given});
    } catch (const SchemaUpgradeNeeded&) {
      upgrade_schema(o, db, sb);
      ro = Store::open(db, OpenOptions{true, false, o.cluster, o.cluster_given});
    }
    uid_t uid = getuid();
    if (!ro->may_write(uid))
      throw AdminError("refused: uid " + std::to_string(uid) + " (" + user_name(uid) +
                       ") is neither the owner of " + db + " nor an Administrator in it");
  } else if (!create) {
    throw AdminError(db + ": no such store");
  }
  return Store::open(db, OpenOptions{false, create, o.cluster, o.cluster_given});
}



// Takes the global options out of `args`; the rest (the command words, and
// the options of charge/import-flux, which those commands check) stay.
std::vector<std::string> take_options(const std::vector<std::string>& args, Options& o) {
  std::vector<std::string> words;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    auto value = [&](const std::string& opt) {
      if (a.size() > opt.size() && a.compare(0, opt.size() + 1, opt + "=") == 0) return a.substr(opt.size() + 1);
      if (i + 1 >= args.size()) throw UsageError(opt + " needs a value");
      return args[++i];
    };
    if (a == "--db" || a.rfind("--db=", 0) == 0) o.db = value("--db");
    else if (a == "--conf" || a.rfind("--conf=", 0) == 0) o.conf = value("--conf");
    else if (a == "--immediate") o.immediate = true;
    else if (a == "--noheader") o.noheader = true;
    else if (a == "--parsable") o.fmt = Format::Parsable;
    else if (a == "--parsable2") o.fmt = Format::Parsable2;
    else if (a == "--json") o.fmt = Format::Json;
    else if (a == "--quiet") o.quiet = true;
    else if (a == "--help" || a == "--usage") o.help = true;
    else if (a == "--version") o.version = true;
    else if (a.size() >= 2 && a[0] == '-' && a[1] != '-' &&
             a.find_first_not_of("hinpPQV", 1) == std::string::npos) {
      for (char c : a.substr(1)) {
        if (c == 'h') o.help = true;
        else if (c == 'i') o.immediate = true;
        else if (c == 'n') o.noheader = true;
        else if (c == 'p') o.fmt = Format::Parsable;
        else if (c == 'P') o.fmt = Format::Parsable2;
        else if (c == 'Q') o.quiet = true;
        else if (c == 'V') o.version = true;
      }
    } else {
      words.push_back(a);
    }
  }
  return words;
}

bool abbrev(const std::string& word, const char* full, size_t min) {
  const std::string f = lower(full);
  const std::string w = lower(word);
  return w.size() >= min && w.size() <= f.size() && f.compare(0, w.size(), w) == 0;
}

// sacctmgr's command words and synonyms (prefixes as sacctmgr takes them).
std::string canon_verb(const std::string& w) {
  if (abbrev(w, "add", 3) || abbrev(w, "create", 3)) return "add";
  if (abbrev(w, "modify", 1) || abbrev(w, "update", 1)) return "modify";
  if (abbrev(w, "delete", 3) || abbrev(w, "remove", 3)) return "delete";
  if (abbrev(w, "show", 3) || abbrev(w, "list", 3)) return "show";
  return lower(w);
}

// Entity words: singular or plural, or a prefix of at least the shown length.
std::string canon_entity(const std::string& w) {
  const std::string l = lower(w);
  if (abbrev(l, "accounts", 2) || l == "acct") return "account";
  if (abbrev(l, "associations", 2) || l == "assoc") return "association";
  if (abbrev(l, "users", 1)) return "user";
  if (l == "qos" || l == "qoses") return "qos";
  if (abbrev(l, "partitions", 4)) return "partition";
  if (abbrev(l, "queues", 3)) return "queue";
  if (l == "tree") return "tree";
  if (l == "decay") return "decay";
  if (abbrev(l, "clusters", 2)) return "cluster";
  return l;
}

void print_help(const std::vector<std::string>& words, std::ostream& out) {
  const std::string verb = words.empty() ? "" : canon_verb(words[0]);
  if (verb == "add") out << kHelpAdd;
  else if (verb == "modify") out << kHelpModify;
  else if (verb == "delete") out << kHelpDelete;
  else if (verb == "show") out << kHelpShow;
  else if (verb == "import" || verb == "import-flux" || verb == "import-sstree" || verb == "import-qconf" ||
           verb == "import-sge-usage" ||
           verb == "export" || verb == "dump" || verb == "load" || verb == "migrate" ||
           verb == "charge")
    out << kHelpOther;
  else out << kUsage;
}

enum class Answer { Yes, No, None };

// sacctmgr's question: "Would you like to commit changes? (You have 30
// seconds to decide)" then "(N/y): ".  On a terminal a wrong answer asks
// again; elsewhere the first line is the answer.  y/yes commits; n/no or an
// empty line declines (No); end of input or 30 s without an answer is None.
Answer confirm(std::ostream& out) {
  out << "Would you like to commit changes? (You have 30 seconds to decide)\n";
  const bool tty = isatty(STDIN_FILENO) == 1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (true) {
    out << "(N/y): " << std::flush;
    std::string line;
    bool eof = false, timeout = false;
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) {
        timeout = true;
        break;
      }
      pollfd p{STDIN_FILENO, POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) {
        timeout = true;
        break;
      }
      char c;
      const ssize_t n = r < 0 ? -1 : ::read(STDIN_FILENO, &c, 1);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        eof = true;
        break;
      }
      if (c == '\n') break;
      if (line.size() < 256) line += c;
    }
    if (timeout) {
      out << "timeout\n";
      return Answer::None;
    }
    if (eof && line.empty()) {
      out << "\n";
      return Answer::None;
    }
    if (!tty) out << "\n";
    const std::string a = lower(trim_space(line));
    if (a == "y" || a == "yes") return Answer::Yes;
    if (a.empty() || a == "n" || a == "no" || !tty || eof) return Answer::No;
    out << "Y or N please\n";
  }
}

// Prints the changes, asks unless -i, and reports whether to write.  A
// declined change exits 0 (as sacctmgr); no answer at all exits 1.
bool commit_ok(const Options& o, const Echo& echo, std::ostream& out) {
  if (!o.quiet || !o.immediate) out << echo.text();
  if (o.immediate) return true;
  const Answer a = confirm(out);
  if (a == Answer::Yes) return true;
  out << " Changes Discarded\n";
  if (a == Answer::None)
    throw AdminError("no answer (end of input or 30 s): nothing changed; give -i to commit without asking");
  return false;
}

// import-flux: the store from the bank/user/queue tables; the flux family's
// PriorityParameters line from the weights and config tables (printed, or
// written to --parameters-out for the conf to Include).  Everything is read
// and checked before anything is written.
int cmd_import_flux(const Options& o, const std::string& db, const std::vector<std::string>& rest,
                    std::ostream& out) {
  FluxCsvFiles files;
  std::string params_out;
  for (size_t k = 0; k < rest.size(); ++k) {
    const std::string& f = rest[k];
    std::string* dst = f == "--banks" ? &files.banks : f == "--users" ? &files.users : f == "--queues" ? &files.queues
                       : f == "--weights" ? &files.weights : f == "--config" ? &files.config
                       : f == "--parameters-out" ? &params_out : nullptr;
    if (!dst) throw UsageError("import-flux: unknown argument \"" + f + "\"");
    if (k + 1 >= rest.size()) throw UsageError("import-flux: " + f + " needs a FILE");
    *dst = rest[++k];
  }
  const bool tables = !files.banks.empty() || !files.users.empty() || !files.queues.empty();
  const bool settings = !files.weights.empty() || !files.config.empty();
  if ((tables || !settings) && (files.banks.empty() || files.users.empty()))
    throw UsageError("import-flux needs --banks BANKS.csv and --users USERS.csv, or --weights / --config");
  if (!params_out.empty() && !settings) throw UsageError("import-flux: --parameters-out needs --weights or --config");
  std::string line;
  std::vector<std::string> notes;
  if (settings) line = flux_parameters_line(files, &notes);
  if (tables) {
    auto s = open_for_write(o, db, true);
    ImportStats st = import_flux_files(*s, files);
    if (!o.quiet)
      out << "imported " << st.accounts << " banks, " << st.queues << " queues, " << st.users << " users\n";
  }
  if (!settings) return 0;
  // A conf fragment: the notes are comments, so the text can be Included as is.
  std::ostringstream frag;
  frag << "# flux-accounting's priority weights and usage settings, by mfprio-acct import-flux from "
       << (files.weights.empty() ? files.config : files.weights + (files.config.empty() ? "" : " and " + files.config))
       << "\n# Include this in the conf that says PriorityType=priority/flux.\n";
  for (const std::string& n : notes) frag << "# " << n << "\n";
  frag << line << "\n";
  if (params_out.empty()) {
    out << frag.str();
    return 0;
  }
  std::ofstream f(params_out, std::ios::trunc);
  f << frag.str();
  f.close();
  if (!f) throw AdminError("import-flux: --parameters-out " + params_out + ": cannot write");
  if (!o.quiet) out << "wrote " << params_out << ": " << line << "\n";
  return 0;
}

// modify decay [set] last_decay=T [last_reset=T]: repair the pass times
// (e.g. after a clock jump made the plugin refuse a decay pass).
int cmd_modify_decay(const Options& o, std::string db, const std::vector<std::string>& rest, std::ostream& out) {
  size_t from = 1;
  if (from < rest.size() && lower(rest[from]) == "set") ++from;
  KV kv = parse_kv(rest, from, rest.size());
  only_keys(kv, {"last_decay", "last_reset"}, "modify decay");
  std::optional<int64_t> last_decay, last_reset;
  for (const auto& [k, v] : kv) (k == "last_decay" ? last_decay : last_reset) = parse_time(k, v);
  if (!last_decay) throw UsageError("modify decay: last_decay=T is required");
  if (db.empty()) db = storage_loc_from_conf(o.conf);
  auto s = open_for_write(o, db, false);
  const DecayState st{*last_decay, last_reset.value_or(s->decay_state().last_reset)};
  Echo echo;
  echo.add("Modified decay state...", "last_decay = " + std::to_string(st.last_decay) +
                                          " last_reset = " + std::to_string(st.last_reset));
  if (!commit_ok(o, echo, out)) return 0;
  s->set_decay_state(st);
  return 0;
}

// show VIEW [format=..] [where] [FILTER ..]
int cmd_show(const Options& o, std::string db, const std::string& entity, const std::vector<std::string>& rest,
             cli::ShowOptions so, std::ostream& out) {
  if (rest.empty())
    throw UsageError("show: what? (associations, accounts, users, qos, partitions, queues, cluster, tree, decay)");
  static const std::map<std::string, std::string> views{
      {"account", "accounts"}, {"user", "users"}, {"qos", "qos"}, {"partition", "partitions"},
      {"queue", "queues"}, {"tree", "tree"}, {"association", "associations"}, {"cluster", "cluster"}};
  auto v = views.find(entity);
  if (v == views.end()) throw UsageError("show: unknown view \"" + rest[0] + "\"");
  const std::string what = v->second;
  for (size_t k = 1; k < rest.size(); ++k) {
    const std::string& w = rest[k];
    const std::string lw = lower(w);
    const size_t eq = w.find('=');
    if (eq == std::string::npos) {
      if (lw == "where") continue;
      if (what == "associations" && lw == "tree") so.tree = true;
      else if (abbrev(lw, "withdeleted", 5)) continue;  // mfprio keeps no deleted records
      else if (what != "associations" && what != "tree" && what != "decay")
        for (const std::string& n : split_commas(w)) so.names.push_back(n);
      else throw UsageError("show " + what + ": unexpected \"" + w + "\"");
      continue;
    }
    const std::string key = canon_key(what == "users" ? "user" : what, lower(w.substr(0, eq)));
    const std::vector<std::string> list = split_commas(w.substr(eq + 1));
    auto& into = key == "format" ? so.format
                 : key == "user" ? so.users
                 : key == "account" ? so.accounts
                 : key == "partition" ? so.partitions
                 : key == "name" ? so.names
                                 : so.names;
    if (key == "cluster") continue;  // the store's cluster (store_cluster_of)
    if (key != "format" && key != "user" && key != "account" && key != "partition" && key != "name")
      throw UsageError("show " + what + ": unknown condition \"" + w.substr(0, eq) + "\"");
    if (key == "format" && so.fmt == Format::Json) throw UsageError("show " + what + ": format= with --json");
    if ((key == "user" || key == "partition") && what != "associations" && what != "users")
      throw UsageError("show " + what + ": no " + key + "= condition here");
    into.insert(into.end(), list.begin(), list.end());
  }
  if (!o.conf.empty()) {
    const ConfCluster c = cluster_from_conf(o.conf);
    so.cluster = c.name;
    so.control_host = c.control_host;
    so.control_port = c.control_port;
    so.cluster_tres = c.tres;
    so.node_count = c.nodes ? std::to_string(c.nodes) : "";
  }
  if (db.empty()) db = storage_loc_from_conf(o.conf);
  // PostgreSQL without cluster=: every cluster of the database, as
  // sacctmgr shows every cluster of its database.
  if (is_server_store(db) && !o.cluster_given && (what == "associations" || what == "cluster")) {
    std::vector<StoreData> data;
    std::vector<std::string> names;
    for (const std::string& c : Store::list_clusters(db)) {
      if (what == "cluster" && !so.names.empty() && std::find(so.names.begin(), so.names.end(), c) == so.names.end())
        continue;
      Options one = o;
      one.cluster = c;
      one.cluster_given = true;
      data.push_back(open_for_read(one, db)->load());
      names.push_back(c);
    }
    std::vector<cli::ClusterData> cs;
    for (size_t i = 0; i < data.size(); ++i) cs.push_back(cli::ClusterData{names[i], &data[i]});
    so.cluster = o.cluster;  // the conf's ClusterName: its host, port and TRES
    cli::show_clusters(cs, what, so, out);
    return 0;
  }
  auto s = open_for_read(o, db);
  const StoreData d = s->load();
  // PostgreSQL: the cluster opened (cluster=, ClusterName); an SQLite file
  // shows the conf's ClusterName, else what a load recorded.
  if (!o.cluster.empty() && is_server_store(db)) so.cluster = o.cluster;
  if (so.cluster.empty()) so.cluster = d.setting(kSettingCluster);  // sacctmgr load's Cluster line
  cli::show(d, what, so, out);
  return 0;
}

// sacctmgr dump CLUSTER [file=F]: the tree in sacctmgr's flat-file format.
int cmd_dump(const Options& o, const std::string& db, const std::vector<std::string>& rest, std::ostream& out) {
  std::string cluster, file;
  for (const std::string& a : rest) {
    if (lower(a.substr(0, 5)) == "file=") file = a.substr(5);
    else if (lower(a.substr(0, 8)) == "cluster=") cluster = a.substr(8);
    else if (cluster.empty()) cluster = a;
    else throw UsageError("dump: unexpected \"" + a + "\" (dump CLUSTER [file=F])");
  }
  if (cluster.empty()) throw UsageError("dump needs the cluster name (dump CLUSTER [file=F])");
  auto s = Store::open(db, OpenOptions{true, false, o.cluster, o.cluster_given});
  const std::string text = sacctmgr_dump_text(s->load(), cluster);
  if (file.empty()) {
    out << text;
    return 0;
  }
  std::ofstream f(file, std::ios::trunc);
  f << text;
  f.close();
  if (!f) throw AdminError("dump: file=" + file + ": cannot write");
  if (!o.quiet) out << "wrote " << file << "\n";
  return 0;
}

// sacctmgr load [file=]F: the tree from sacctmgr's flat-file format.
int cmd_load(const Options& o, const std::string& db, const std::vector<std::string>& rest, std::ostream& out) {
  std::string file;
  for (const std::string& a : rest) {
    const std::string f = lower(a.substr(0, 5)) == "file=" ? a.substr(5) : a;
    if (!file.empty()) throw UsageError("load takes one file (load file=F)");
    file = f;
  }
  if (file.empty()) throw UsageError("load needs file=F");
  std::string text;
  try {
    text = read_bounded(file, kImportBounds);  // the one bound rule for every file read
  } catch (const ReadError& e) {
    throw AdminError(std::string("load: file=") + e.what());
  }
  auto s = open_for_write(o, db, true);
  LoadStats st;
  AdminChanges ch = plan_sacctmgr_load(s->load(), text, file, &st);
  ch.settings.emplace_back(kSettingCluster, lower(st.cluster));  // show assoc's Cluster, show cluster
  s->apply_admin(ch);
  if (!o.quiet) {
    for (const std::string& n : st.notes) out << "note: " << n << "\n";
    out << "loaded cluster '" << st.cluster << "': " << st.accounts << " accounts, " << st.users
        << " user associations\n";
  }
  return 0;
}

// import-sge-usage [--share-mon FILE] [--spool PATH]... [--sched-conf FILE] [--decayed]
int cmd_import_sge_usage(const Options& o, const std::string& db, const std::vector<std::string>& rest,
                         std::ostream& out) {
  const SgeUsageOptions u = sge_usage_options(rest);
  auto s = open_for_write(o, db, true);
  SgeUsagePlan p = import_sge_usage(*s, u);
  if (!o.quiet)
    out << "imported the usage of " << p.users << " users, " << p.user_projects << " users in projects, "
        << p.projects << " projects at the store's decay time " << p.clock << (p.set_clock ? " (set)" : "")
        << "\n";
  return 0;
}

// import-qconf [--users FILE] [--projects FILE] [--usersets FILE] [--global FILE]
int cmd_import_qconf(const Options& o, const std::string& db, const std::vector<std::string>& rest,
                     std::ostream& out) {
  QconfFiles files;
  for (size_t k = 0; k < rest.size(); ++k) {
    const std::string& f = rest[k];
    auto* dst = f == "--users" ? &files.users : f == "--projects" ? &files.projects
                : f == "--usersets" ? &files.usersets : nullptr;
    if (!dst && f != "--global") throw UsageError("import-qconf: unknown argument \"" + f + "\"");
    if (k + 1 >= rest.size()) throw UsageError("import-qconf: " + f + " needs a FILE");
    if (dst) {
      dst->push_back(rest[++k]);
    } else if (files.global.empty()) {
      files.global = rest[++k];
    } else {
      throw UsageError("import-qconf: --global given twice (one qconf -sconf text)");
    }
  }
  if (files.users.empty() && files.projects.empty() && files.usersets.empty() && files.global.empty())
    throw UsageError("import-qconf needs --users, --projects, --usersets or --global FILE");
  auto s = open_for_write(o, db, true);
  QconfStats st = import_qconf_files(*s, files);
  if (!o.quiet) {
    for (const std::string& n : st.notes) out << "note: " << n << "\n";
    out << "imported " << st.users << " users, " << st.projects << " projects, " << st.departments
        << " departments\n";
    if (!files.global.empty()) out << "gave " << st.auto_users << " users without a user object auto_user_fshare/oticket\n";
  }
  return 0;
}

// charge JOB FLAGS.. | charge --file FILE.jsonl
int cmd_charge(const Options& o, const std::string& db, const std::vector<std::string>& rest, std::ostream& out) {
  std::vector<ChargeSpec> specs;
  if (!rest.empty() && rest[0] == "--file") {
    if (rest.size() != 2) throw UsageError("charge --file takes one FILE");
    specs = read_charges_jsonl(rest[1]);
  } else {
    specs.push_back(charge_flags(rest, 0));
  }
  auto s = open_for_write(o, db, false);
  StoreData d = s->load();
  Model m(d);
  CycleUpdate up;  // decay_factor 1, no reset, decay state untouched
  up.charges.reserve(specs.size());
  for (const auto& c : specs) up.charges.push_back(resolve_charge(d, m, c));
  CycleResult r = s->apply_cycle(up);
  double total = 0;
  size_t fresh = 0;
  for (double a : r.added) total += a, fresh += a > 0;
  if (o.quiet) return 0;
  if (specs.size() == 1)
    out << "job " << specs[0].job << ": charged " << total << "\n";
  else
    out << "charged " << fresh << " of " << specs.size() << " jobs, usage " << total << "\n";
  return 0;
}

// add|modify|delete ENTITY ...
int cmd_admin(const Options& o, const std::string& db, const std::string& cmd, const std::string& entity,
              const std::vector<std::string>& rest, std::ostream& out) {
  if (rest.empty()) throw UsageError(cmd + ": needs ENTITY and a name (see " + cmd + " --help)");
  const std::string kind = entity;
  if (kind != "account" && kind != "user" && kind != "qos" && kind != "partition" && kind != "queue" &&
      kind != "association")
    throw UsageError(cmd + ": unknown entity \"" + rest[0] + "\" (account, user, qos, partition, queue" +
                     std::string(cmd == "add" ? ")" : ", association)"));
  std::vector<std::string> kv(rest.begin() + 1, rest.end());
  // Syntax is checked before the store is touched: usage errors exit 2.
  {
    Model empty(StoreData{});
    empty.accounts["root"];
    Echo ignored;
    try {
      plan_command(empty, cmd, kind, kv, ignored);
    } catch (const AdminError&) {
      // Needs the real store to judge; checked again below.
    }
  }
  auto s = open_for_write(o, db, cmd == "add");
  Model m(s->load());
  Echo echo;
  AdminChanges ch = plan_command(m, cmd, kind, kv, echo);
  if (!commit_ok(o, echo, out)) return 0;
  s->apply_admin(ch);
  return 0;
}

// migrate --to LOCATION: Store::copy_to into a new store.  A file the
// command created is removed again when the copy fails.
int cmd_migrate(const Options& o, const std::string& db, const std::vector<std::string>& rest, std::ostream& out) {
  std::string to;
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i] == "--to" && i + 1 < rest.size()) to = rest[++i];
    else if (rest[i].rfind("--to=", 0) == 0) to = rest[i].substr(5);
    else throw UsageError("migrate: unexpected \"" + rest[i] + "\" (migrate --to LOCATION)");
  }
  if (to.empty()) throw UsageError("migrate needs --to LOCATION (a new SQLite file or a postgresql:// URI)");
  if (to == db) throw UsageError("migrate --to names the store itself (" + db + ")");
  auto src = open_for_read(o, db);
  const bool is_file = !mfprio::is_server_store(to);
  struct stat sb;
  const bool existed = is_file && ::stat(to.c_str(), &sb) == 0;
  try {
    auto dst = open_for_write(o, to, true);
    src->copy_to(*dst);
    if (!o.quiet) out << "migrated " << src->path() << " to " << dst->path() << "\n";
  } catch (...) {
    if (is_file && !existed)
      for (const char* suffix : {"", "-wal", "-shm"}) ::unlink((to + suffix).c_str());
    throw;
  }
  return 0;
}

// The store's cluster: sacctmgr's cluster= (or clusters=) on the line, else
// the conf's ClusterName, else "" (store.hpp: the default cluster).  The
// word stays on the line: the commands take it as the filter or key it was.
std::string store_cluster_of(const std::vector<std::string>& words, const std::string& conf, bool* given) {
  std::string cluster;
  for (const std::string& w : words) {
    const std::string l = lower(w);
    for (const char* key : {"cluster=", "clusters="})
      if (l.rfind(key, 0) == 0) {
        const std::string v = lower(trim_space(w.substr(std::string(key).size())));
        if (v.empty() || v.find(',') != std::string::npos)
          throw UsageError("\"" + w + "\": one cluster per command (a store keeps each cluster apart)");
        if (!cluster.empty() && v != cluster) throw UsageError("two clusters on one line: '" + cluster + "' and '" + v + "'");
        cluster = v;
      }
  }
  *given = !cluster.empty();
  if (cluster.empty() && !conf.empty()) cluster = store_cluster_from_conf(conf);
  return cluster;
}

// grants admin=ROLE controller=ROLE [apply]: a PostgreSQL store's roles
// (store.hpp: Store::grants): prints the statements, or runs them.
int cmd_grants(const Options& o, const std::string& db, const std::vector<std::string>& rest, std::ostream& out) {
  std::string admin, controller;
  bool apply = false;
  for (const std::string& a : rest) {
    const std::string l = lower(a);
    if (l == "apply") apply = true;
    else if (l.rfind("admin=", 0) == 0) admin = a.substr(6);
    else if (l.rfind("controller=", 0) == 0) controller = a.substr(11);
    else if (l.rfind("cluster=", 0) == 0 || l.rfind("clusters=", 0) == 0) continue;  // the store's cluster
    else throw UsageError("grants: unexpected \"" + a + "\" (grants admin=ROLE controller=ROLE [apply])");
  }
  if (admin.empty() || controller.empty()) throw UsageError("grants needs admin=ROLE and controller=ROLE");
  auto s = apply ? open_for_write(o, db, false) : open_for_read(o, db);
  const std::string sql = s->grants(admin, controller, apply);
  if (!apply) out << sql;
  else if (!o.quiet) out << "granted: admin role " << admin << ", controller role " << controller << "\n";
  return 0;
}

int run(const std::vector<std::string>& args, std::ostream& out) {
  Options o;
  const std::vector<std::string> words = take_options(args, o);
  if (o.help) {
    print_help(words, out);
    return 0;
  }
  if (o.version) {
    out << "mfprio-acct " << MFPRIO_VERSION << "\n";
    return 0;
  }
  if (words.empty()) throw UsageError("no command (see --help)");
  for (const std::string& w : words)
    if (w.size() > 1 && w[0] == '-' && w.find('=') == std::string::npos) {
      const std::string c = lower(words[0]);
      if (c != "charge" && c != "import-flux" && c != "import-qconf" && c != "import-sge-usage" && c != "migrate")
        throw UsageError("unknown option \"" + w + "\" (see --help)");
    }
  if (!o.db.empty() && !o.conf.empty()) throw UsageError("give --db or --conf, not both");
  if (o.db.empty() && o.conf.empty()) throw UsageError("give --db PATH or --conf FILE");
  std::string db = o.db;
  o.cluster = store_cluster_of(words, o.conf, &o.cluster_given);

  const std::string cmd = canon_verb(words[0]);
  std::vector<std::string> rest(words.begin() + 1, words.end());
  const std::string entity = rest.empty() ? "" : canon_entity(rest[0]);
  cli::ShowOptions so;
  so.fmt = o.fmt;
  so.header = !o.noheader;

  if (cmd == "show" && entity == "decay") {
    if (rest.size() > 1) throw UsageError("show decay: unexpected \"" + rest[1] + "\"");
    if (db.empty()) db = storage_loc_from_conf(o.conf);
    auto s = open_for_read(o, db);
    cli::show_decay(s->decay_info(), so, out);
    return 0;
  }
  if (cmd == "modify" && entity == "decay") return cmd_modify_decay(o, db, rest, out);
  if (cmd == "show") return cmd_show(o, db, entity, rest, so, out);
  if (db.empty()) db = storage_loc_from_conf(o.conf);
  if (cmd == "dump") return cmd_dump(o, db, rest, out);
  if (cmd == "load") return cmd_load(o, db, rest, out);
  if (cmd == "export") {
    if (!rest.empty()) throw UsageError("export takes no arguments");
    auto s = open_for_read(o, db);
    out << export_json(s->load());
    return 0;
  }
  if (cmd == "import") {
    if (rest.size() != 1) throw UsageError("import needs exactly one FILE");
    auto s = open_for_write(o, db, true);
    ImportStats st = import_json_file(*s, rest[0]);
    if (!o.quiet)
      out << "imported " << st.accounts << " accounts, " << st.users << " users, " << st.qos << " qos, "
          << st.partitions << " partitions, " << st.queues << " queues\n";
    return 0;
  }
  if (cmd == "import-flux") return cmd_import_flux(o, db, rest, out);
  if (cmd == "import-qconf") return cmd_import_qconf(o, db, rest, out);
  if (cmd == "import-sge-usage") return cmd_import_sge_usage(o, db, rest, out);
  if (cmd == "import-sstree") {
    if (rest.size() != 1) throw UsageError("import-sstree needs exactly one FILE");
    auto s = open_for_write(o, db, true);
    SstreeStats st = import_sstree_file(*s, rest[0]);
    if (!o.quiet)
      out << "imported " << st.accounts << " accounts, " << st.users << " user leaves, " << st.projects
          << " projects\n";
    return 0;
  }
  if (cmd == "charge") return cmd_charge(o, db, rest, out);
  if (cmd == "grants") return cmd_grants(o, db, rest, out);
  if (cmd == "migrate") return cmd_migrate(o, db, rest, out);
  if (cmd == "add" || cmd == "modify" || cmd == "delete") return cmd_admin(o, db, cmd, entity, rest, out);
  throw UsageError("unknown command \"" + words[0] + "\" (see --help)");
}

}  // namespace

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  try {
    return run(args, out);
  } catch (const UsageError& e) {
    err << "mfprio-acct: " << e.what() << "\n";
    return 2;
  } catch (const std::bad_alloc&) {
    err << "mfprio-acct: out of memory\n";
    return 1;
  } catch (const std::exception& e) {
    err << "mfprio-acct: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace mfprio::acct
