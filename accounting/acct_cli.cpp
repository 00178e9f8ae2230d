// acct_cli.cpp - mfprio-acct: argument parsing, add/modify/delete, import,
// export, charge.  (`show` renders in acct_show.cpp.)
//
// Call order for a write: parse everything (usage errors exit 2) -> open the
// store read-only and check may_write(getuid()) (refused: exit 1, file not
// touched) -> reopen read-write -> build changes on a Model of the store and
// validate them fully -> one Store transaction.
#include "acct_cli.hpp"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <map>
#include <optional>
#include <set>

#include "admin.hpp"
#include "conf_loc.hpp"
#include "import_export.hpp"
#include "import_flux.hpp"
#include "import_sstree.hpp"

namespace mfprio::acct {
namespace {

using cli::Format;
using cli::UsageError;

constexpr const char* kHelp = R"(usage: mfprio-acct (--db PATH | --conf FILE) COMMAND ...

  add account NAME [Parent=P] [Fairshare=N|parent] [Priority=N] [Description=TEXT]
  add user NAME Account=A[,B..] [Partition=P] [Fairshare=N|parent] [Priority=N]
           [DefaultAccount=A] [AdminLevel=Administrator|None] [Queues=Q[,Q..]]
  add qos NAME [Priority=N] [UsageFactor=X]
  add partition NAME [PriorityJobFactor=N] [TRESBillingWeights=LIST] [TRES=LIST]
           [Default=yes|no]
  add queue NAME [Priority=N]          a Flux queue (priority/flux)
  modify account|qos|partition|queue NAME [set] KEY=VALUE ...
  modify user NAME [Account=A] [Partition=P] set KEY=VALUE ...
  delete account|qos|partition|queue NAME
  delete user NAME [Account=A [Partition=P]]
  show tree|accounts|users|qos|partitions|queues [-P | --json]
  show decay [-P | --json]     last_decay, last_reset (epoch seconds) and the usage scale
  modify decay [set] last_decay=T [last_reset=T]
                               repair the decay pass times (T: epoch or YYYY-MM-DDTHH:MM:SS;
                               admin only; one transaction; usage is not changed)
  import FILE.json          add/update the listed records, one transaction
  import-flux --banks BANKS.csv --users USERS.csv [--queues QUEUES.csv]
                            flux-accounting's export-db files, one transaction
  import-sstree FILE        a Grid Engine share tree (qconf -sstree text) as
                            accounts with shares and user leaves, one transaction
  export                    the whole store as JSON on stdout
  charge --job ID --user U [--account A] [--partition P] [--qos Q]
         --start T --end T (--rate R | --cpus N) [--running]
  charge --file CHARGES.jsonl   all lines in one transaction

Keys are case-insensitive.  T is epoch seconds or YYYY-MM-DDTHH:MM:SS (UTC).
Writes need the store file's owner, uid 0, or a user with AdminLevel=Administrator.
Exit status: 0 ok, 1 refused or failed, 2 usage error.
)";

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

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

uint64_t parse_uint(const std::string& key, const std::string& v, uint64_t max) {
  if (v.empty() || !std::isdigit(static_cast<unsigned char>(v[0])))
    throw UsageError(key + "=" + v + ": not a non-negative integer");
  errno = 0;
  char* end = nullptr;
  unsigned long long n = std::strtoull(v.c_str(), &end, 10);
  if (errno || *end || n > max)
    throw UsageError(key + "=" + v + ": not an integer in 0.." + std::to_string(max));
  return n;
}

double parse_real(const std::string& key, const std::string& v) {
  char* end = nullptr;
  double d = std::strtod(v.c_str(), &end);
  if (v.empty() || *end || !std::isfinite(d) || d < 0)
    throw UsageError(key + "=" + v + ": not a non-negative number");
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
  errno = 0;
  char* end = nullptr;
  const long long n = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || errno || *end || n < INT32_MIN || n > INT32_MAX)
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
    else if (k == "usagefactor") q.usage_factor = parse_real(k, v);
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

// Applies `verb kind name args` to the model; returns what to write.
AdminChanges plan_admin(Model& m, const std::string& verb, const std::string& kind,
                        const std::string& name, const std::vector<std::string>& args) {
  AdminChanges ch;
  const std::string what = verb + " " + kind + " " + name;
  need_name(what, name);
  // modify: words before "set" select, words after it are the new values.
  size_t set_at = args.size();
  for (size_t i = 0; i < args.size(); ++i)
    if (lower(args[i]) == "set") set_at = i;
  KV where = verb == "modify" && set_at < args.size() ? parse_kv(args, 0, set_at) : KV{};
  KV kv = parse_kv(args, set_at < args.size() ? set_at + 1 : 0, args.size());
  if (verb == "modify" && set_at == args.size() && kind == "user") {
    KV values;
    for (auto& p : kv) (p.first == "account" || p.first == "partition" ? where : values).push_back(p);
    kv = values;
  }
  if (verb == "modify" && kv.empty()) throw UsageError(what + ": nothing to set");

  if (kind == "account") {
    only_keys(kv, {"parent", "fairshare", "shares", "priority", "description"}, what);
    if (!where.empty()) throw UsageError(what + ": accounts take no selector before \"set\"");
    auto it = m.accounts.find(name);
    if (verb == "add") {
      if (it != m.accounts.end()) throw AdminError(what + ": account already exists");
      AccountRec a;
      a.name = name;
      a.parent = "root";
      account_fields(kv, a);
      m.accounts[name] = a;
    } else if (verb == "modify") {
      if (it == m.accounts.end()) throw AdminError(what + ": no such account");
      if (name == "root" && has(kv, "parent")) throw AdminError(what + ": root has no parent");
      account_fields(kv, it->second);
    } else {
      if (it == m.accounts.end()) throw AdminError(what + ": no such account");
      if (name == "root") throw AdminError(what + ": the root account cannot be deleted");
      if (m.has_children(name)) throw AdminError(what + ": account has sub-accounts; delete or move them first");
      if (m.has_assocs_under(name)) throw AdminError(what + ": account has users; delete them first");
      ch.delete_accounts.push_back(name);
      return ch;
    }
    if (auto p = m.parent_problem(name); !p.empty()) throw AdminError(what + ": " + p);
    ch.accounts.push_back(m.accounts[name]);
  } else if (kind == "user") {
    only_keys(kv, {"account", "partition", "fairshare", "shares", "priority", "defaultaccount",
                   "adminlevel", "queues"}, what);
    only_keys(where, {"account", "partition"}, what);
    std::set<std::string> touched{name};
    if (verb == "delete") {
      if (!has(kv, "account")) {
        if (!m.users.count(name)) throw AdminError(what + ": no such user");
        ch.delete_users.push_back(name);
        return ch;
      }
      AssocTuple key{name, get(kv, "account"), get(kv, "partition")};
      if (!m.assocs.erase(key)) throw AdminError(what + ": no such association");
      ch.delete_assocs.push_back(AssocKey{name, get(kv, "account"), get(kv, "partition")});
      m.finish_users(touched, ch.users);
      return ch;
    }
    const bool existed = m.users.count(name) > 0;
    if (verb == "modify" && !existed) throw AdminError(what + ": no such user");
    UserRec& u = m.users[name];
    u.name = name;
    if (has(kv, "adminlevel")) u.admin = parse_admin_level(get(kv, "adminlevel"));
    std::vector<UserAssocRec*> targets;
    if (verb == "add") {
      if (!has(kv, "account")) throw UsageError(what + ": Account= is required");
      std::string part = get(kv, "partition");
      if (!part.empty()) need_name(what, part);
      for (const std::string& acct : split_commas(get(kv, "account"))) {
        if (!m.accounts.count(acct)) throw AdminError(what + ": unknown account \"" + acct + "\"");
        AssocTuple key{name, acct, part};
        if (m.assocs.count(key))
          throw AdminError(what + ": user already has an association with account \"" + acct + "\"");
        UserAssocRec& r = m.assocs[key];
        r.user = name;
        r.account = acct;
        r.partition = part;
        targets.push_back(&r);
      }
    } else {  // modify
      if (has(kv, "account") || has(kv, "partition"))
        throw UsageError(what + ": Account=/Partition= select associations; put them before \"set\"");
      for (auto it = m.assocs.lower_bound(AssocTuple{name, "", ""});
           it != m.assocs.end() && std::get<0>(it->first) == name; ++it) {
        if (has(where, "account") && it->second.account != get(where, "account")) continue;
        if (has(where, "partition") && it->second.partition != get(where, "partition")) continue;
        targets.push_back(&it->second);
      }
      bool assoc_keys = has(kv, "fairshare") || has(kv, "shares") || has(kv, "priority") || has(kv, "queues");
      if (targets.empty() && (assoc_keys || !where.empty()))
        throw AdminError(what + ": no matching association");
      if (!assoc_keys) targets.clear();
    }
    // Queues=a,b: the Flux queues the association may use ("" = none).
    std::optional<std::vector<std::string>> queues;
    if (has(kv, "queues")) {
      queues.emplace();
      const std::string list = get(kv, "queues");
      for (const std::string& q : list.empty() ? std::vector<std::string>{} : split_commas(list)) {
        if (!m.queues.count(q)) throw AdminError(what + ": unknown queue \"" + q + "\"");
        if (std::find(queues->begin(), queues->end(), q) != queues->end())
          throw UsageError(what + ": queue \"" + q + "\" listed twice");
        queues->push_back(q);
      }
      std::sort(queues->begin(), queues->end());
    }
    for (UserAssocRec* r : targets) {
      for (const auto& [k, v] : kv) {
        if (k == "fairshare" || k == "shares") parse_shares(v, r->shares, r->shares_parent);
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
  } else if (kind == "qos") {
    only_keys(kv, {"priority", "usagefactor"}, what);
    auto it = m.qos.find(name);
    if (verb == "delete") {
      if (it == m.qos.end()) throw AdminError(what + ": no such qos");
      ch.delete_qos.push_back(name);
      return ch;
    }
    if (verb == "add" && it != m.qos.end()) throw AdminError(what + ": qos already exists");
    if (verb == "modify" && it == m.qos.end()) throw AdminError(what + ": no such qos");
    QosRec q = verb == "add" ? QosRec{0, name, 0, 1.0} : it->second;
    qos_fields(kv, q);
    ch.qos.push_back(q);
  } else if (kind == "partition") {
    only_keys(kv, {"priorityjobfactor", "tresbillingweights", "tres", "default"}, what);
    auto it = m.partitions.find(name);
    if (verb == "delete") {
      if (it == m.partitions.end()) throw AdminError(what + ": no such partition");
      ch.delete_partitions.push_back(name);
      return ch;
    }
    if (verb == "add" && it != m.partitions.end()) throw AdminError(what + ": partition already exists");
    if (verb == "modify" && it == m.partitions.end()) throw AdminError(what + ": no such partition");
    PartitionRec p = verb == "add" ? PartitionRec{0, name, 1, "", "", false} : it->second;
    partition_fields(kv, p);
    ch.partitions.push_back(p);
  } else if (kind == "queue") {
    only_keys(kv, {"priority"}, what);
    auto it = m.queues.find(name);
    if (verb == "delete") {
      if (it == m.queues.end()) throw AdminError(what + ": no such queue");
      ch.delete_queues.push_back(name);
      return ch;
    }
    if (verb == "add" && it != m.queues.end()) throw AdminError(what + ": queue already exists");
    if (verb == "modify" && it == m.queues.end()) throw AdminError(what + ": no such queue");
    QueueRec q = verb == "add" ? QueueRec{name, 0} : it->second;
    if (has(kv, "priority")) q.priority = parse_int32("priority", get(kv, "priority"));
    ch.queues.push_back(q);
  } else {
    throw UsageError(verb + ": unknown kind \"" + kind + "\" (account, user, qos, partition, queue)");
  }
  return ch;
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

// Opens for writing after checking the caller may write.  The check runs on a
// read-only handle so that a refused caller never gets to modify the file.
std::unique_ptr<Store> open_for_write(const std::string& db, bool create) {
  struct stat sb;
  if (::stat(db.c_str(), &sb) == 0) {
    auto ro = Store::open(db, OpenOptions{true, false});
    uid_t uid = getuid();
    if (!ro->may_write(uid))
      throw AdminError("refused: uid " + std::to_string(uid) + " (" + user_name(uid) +
                       ") is neither the owner of " + db + " nor an Administrator in it");
  } else if (!create) {
    throw AdminError(db + ": no such store");
  }
  return Store::open(db, OpenOptions{false, create});
}

int run(const std::vector<std::string>& args, std::ostream& out) {
  std::string db, conf;
  size_t i = 0;
  for (; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      out << kHelp;
      return 0;
    }
    auto value = [&](const std::string& opt) {
      if (a.size() > opt.size() && a.compare(0, opt.size() + 1, opt + "=") == 0)
        return a.substr(opt.size() + 1);
      if (i + 1 >= args.size()) throw UsageError(opt + " needs a value");
      return args[++i];
    };
    if (a == "--db" || a.rfind("--db=", 0) == 0) db = value("--db");
    else if (a == "--conf" || a.rfind("--conf=", 0) == 0) conf = value("--conf");
    else if (!a.empty() && a[0] == '-') throw UsageError("unknown option \"" + a + "\"");
    else break;
  }
  if (i >= args.size()) throw UsageError("no command (see --help)");
  if (!db.empty() && !conf.empty()) throw UsageError("give --db or --conf, not both");
  if (db.empty() && conf.empty()) throw UsageError("give --db PATH or --conf FILE");
  if (db.empty()) db = storage_loc_from_conf(conf);

  const std::string cmd = lower(args[i]);
  std::vector<std::string> rest(args.begin() + static_cast<long>(i) + 1, args.end());
  if ((cmd == "show" || cmd == "list") && rest.size() >= 1 && lower(rest[0]) == "decay") {
    Format fmt = Format::Table;
    for (size_t k = 1; k < rest.size(); ++k) {
      if (rest[k] == "-P" || rest[k] == "--parsable2" || rest[k] == "--parsable") fmt = Format::Parsable;
      else if (rest[k] == "--json") fmt = Format::Json;
      else throw UsageError("show decay: unexpected \"" + rest[k] + "\"");
    }
    auto s = Store::open(db, OpenOptions{true, false});
    cli::show_decay(s->decay_info(), fmt, out);
    return 0;
  }
  if (cmd == "modify" && rest.size() >= 1 && lower(rest[0]) == "decay") {
    // modify decay [set] last_decay=T [last_reset=T]: repair the pass times
    // (e.g. after a clock jump made the plugin refuse a decay pass).
    size_t from = 1;
    if (from < rest.size() && lower(rest[from]) == "set") ++from;
    KV kv = parse_kv(rest, from, rest.size());
    only_keys(kv, {"last_decay", "last_reset"}, "modify decay");
    std::optional<int64_t> last_decay, last_reset;
    for (const auto& [k, v] : kv) (k == "last_decay" ? last_decay : last_reset) = parse_time(k, v);
    if (!last_decay) throw UsageError("modify decay: last_decay=T is required");
    auto s = open_for_write(db, false);
    const DecayState st{*last_decay, last_reset.value_or(s->decay_state().last_reset)};
    s->set_decay_state(st);
    return 0;
  }
  if (cmd == "show" || cmd == "list") {
    Format fmt = Format::Table;
    std::string what;
    for (const auto& r : rest) {
      if (r == "-P" || r == "--parsable2" || r == "--parsable") fmt = Format::Parsable;
      else if (r == "--json") fmt = Format::Json;
      else if (what.empty() && r[0] != '-') what = lower(r);
      else throw UsageError("show: unexpected \"" + r + "\"");
    }
    if (what.empty()) throw UsageError("show: what? (tree, accounts, users, qos, partitions, queues)");
    if (what == "account") what = "accounts";
    if (what == "user") what = "users";
    if (what == "partition") what = "partitions";
    if (what == "queue") what = "queues";
    static const std::set<std::string> views{"tree", "accounts", "users", "qos", "partitions", "queues"};
    if (!views.count(what)) throw UsageError("show: unknown view \"" + what + "\"");
    auto s = Store::open(db, OpenOptions{true, false});
    cli::show(s->load(), what, fmt, out);
    return 0;
  }
  if (cmd == "export") {
    if (!rest.empty()) throw UsageError("export takes no arguments");
    auto s = Store::open(db, OpenOptions{true, false});
    out << export_json(s->load());
    return 0;
  }
  if (cmd == "import") {
    if (rest.size() != 1) throw UsageError("import needs exactly one FILE");
    auto s = open_for_write(db, true);
    ImportStats st = import_json_file(*s, rest[0]);
    out << "imported " << st.accounts << " accounts, " << st.users << " users, " << st.qos
        << " qos, " << st.partitions << " partitions, " << st.queues << " queues\n";
    return 0;
  }
  if (cmd == "import-flux") {
    FluxCsvFiles files;
    for (size_t k = 0; k < rest.size(); ++k) {
      const std::string& f = rest[k];
      if (f != "--banks" && f != "--users" && f != "--queues")
        throw UsageError("import-flux: unknown argument \"" + f + "\"");
      if (k + 1 >= rest.size()) throw UsageError("import-flux: " + f + " needs a FILE");
      (f == "--banks" ? files.banks : f == "--users" ? files.users : files.queues) = rest[++k];
    }
    if (files.banks.empty() || files.users.empty())
      throw UsageError("import-flux needs --banks BANKS.csv and --users USERS.csv");
    auto s = open_for_write(db, true);
    ImportStats st = import_flux_files(*s, files);
    out << "imported " << st.accounts << " banks, " << st.queues << " queues, " << st.users
        << " users\n";
    return 0;
  }
  if (cmd == "import-sstree") {
    if (rest.size() != 1) throw UsageError("import-sstree needs exactly one FILE");
    auto s = open_for_write(db, true);
    SstreeStats st = import_sstree_file(*s, rest[0]);
    out << "imported " << st.accounts << " accounts, " << st.users << " user leaves, " << st.projects
        << " projects\n";
    return 0;
  }
  if (cmd == "charge") {
    std::vector<ChargeSpec> specs;
    if (!rest.empty() && rest[0] == "--file") {
      if (rest.size() != 2) throw UsageError("charge --file takes one FILE");
      specs = read_charges_jsonl(rest[1]);
    } else {
      specs.push_back(charge_flags(rest, 0));
    }
    auto s = open_for_write(db, false);
    StoreData d = s->load();
    Model m(d);
    CycleUpdate up;  // decay_factor 1, no reset, decay state untouched
    up.charges.reserve(specs.size());
    for (const auto& c : specs) up.charges.push_back(resolve_charge(d, m, c));
    CycleResult r = s->apply_cycle(up);
    double total = 0;
    size_t fresh = 0;
    for (double a : r.added) total += a, fresh += a > 0;
    if (specs.size() == 1)
      out << "job " << specs[0].job << ": charged " << total << "\n";
    else
      out << "charged " << fresh << " of " << specs.size() << " jobs, usage " << total << "\n";
    return 0;
  }
  if (cmd == "add" || cmd == "modify" || cmd == "delete" || cmd == "remove") {
    std::string verb = cmd == "remove" ? "delete" : cmd;
    if (rest.size() < 2) throw UsageError(verb + ": needs KIND NAME (see --help)");
    std::string kind = lower(rest[0]);
    if (kind == "accounts") kind = "account";
    if (kind == "users") kind = "user";
    if (kind == "partitions") kind = "partition";
    if (kind == "queues") kind = "queue";
    if (kind != "account" && kind != "user" && kind != "qos" && kind != "partition" && kind != "queue")
      throw UsageError(verb + ": unknown kind \"" + rest[0] + "\" (account, user, qos, partition, queue)");
    std::vector<std::string> kv(rest.begin() + 2, rest.end());
    // Syntax is checked before the store is touched: usage errors exit 2.
    {
      Model empty(StoreData{});
      empty.accounts["root"];
      try {
        plan_admin(empty, verb, kind, rest[1], kv);
      } catch (const AdminError&) {
        // Needs the real store to judge; checked again below.
      }
    }
    auto s = open_for_write(db, verb == "add");
    Model m(s->load());
    AdminChanges ch = plan_admin(m, verb, kind, rest[1], kv);
    s->apply_admin(ch);
    return 0;
  }
  throw UsageError("unknown command \"" + args[i] + "\" (see --help)");
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
