// accounts.cpp - see accounts.hpp.
#include "accounts.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "admin.hpp"
#include "tres.hpp"

namespace mfprio {

namespace {

using acct::AccountRec;
using acct::PartitionRec;
using acct::QosRec;
using acct::UserAssocRec;
using acct::UserRec;

const char* str(const char* s) { return s ? s : ""; }

// Element i of a host array whose stride is the host's element size: copied
// out (the stride need not keep the plugin's alignment).
template <class T>
T element(const void* base, uint32_t size, size_t i) {
  T out;
  std::memcpy(&out, static_cast<const char*>(base) + i * size, sizeof out);
  return out;
}

// One array's shape: its pointer, count and element size.
bool array_ok(const void* base, size_t count, uint32_t size, size_t need, const char* what, std::string* why) {
  if (count > MFPRIO_MAX_RECORDS) {
    *why = std::string("set_accounts: ") + what + " count " + std::to_string(count) + " is above " +
           std::to_string(MFPRIO_MAX_RECORDS);
    return false;
  }
  if (count && !base) {
    *why = std::string("set_accounts: ") + what + " is NULL with a count of " + std::to_string(count);
    return false;
  }
  if (count && size < need) {
    *why = std::string("set_accounts: ") + what + " element size " + std::to_string(size) + " is smaller than " +
           std::to_string(need);
    return false;
  }
  return true;
}

bool name_ok(const std::string& row, const char* field, const std::string& name, std::string* why) {
  const std::string problem = acct::name_problem(name);
  if (problem.empty()) return true;
  *why = row + ": " + field + ": " + problem;
  return false;
}

std::string assoc_label(size_t i, const mfprio_assoc_t& a) {
  std::string s = "set_accounts: assocs[" + std::to_string(i) + "]";
  if (a.user && *a.user) s += std::string(" user '") + a.user + "'";
  if (a.account) s += std::string(" account '") + a.account + "'";
  if (a.partition && *a.partition) s += std::string(" partition '") + a.partition + "'";
  return s;
}

// The account and user rows, checked one by one; the tree's shape after.
bool read_assocs(const mfprio_accounts_t& t, HostAccounts* w, std::string* why) {
  std::map<std::string, size_t> accounts;  // name -> row
  std::map<std::tuple<std::string, std::string, std::string>, size_t> assocs;
  std::map<std::string, std::string> defaults;  // user -> flagged account
  std::vector<size_t> user_rows;
  for (size_t i = 0; i < t.assoc_count; ++i) {
    const auto a = element<mfprio_assoc_t>(t.assocs, t.assoc_size, i);
    const std::string row = assoc_label(i, a);
    if (!a.account || !*a.account) return (*why = row + ": account is NULL or empty", false);
    if (!name_ok(row, "account", a.account, why)) return false;
    if (a.flags & ~(MFPRIO_ASSOCF_DEFAULT | MFPRIO_ASSOCF_SHARES_PARENT))
      return (*why = row + ": unknown flags " + std::to_string(a.flags), false);
    if (a.shares > 0x7fffffffu) return (*why = row + ": shares " + std::to_string(a.shares) + " is too large", false);
    if (a.priority > 0x7fffffffu)
      return (*why = row + ": priority " + std::to_string(a.priority) + " is too large", false);
    if (!a.user || !*a.user) {  // an account row
      if (a.partition && *a.partition) return (*why = row + ": an account row has a partition", false);
      if (a.flags & MFPRIO_ASSOCF_DEFAULT) return (*why = row + ": an account row cannot be a default", false);
      AccountRec r;
      r.name = a.account;
      r.parent = r.name == "root" ? "" : (a.parent && *a.parent ? a.parent : "root");
      if (r.name == "root" && a.parent && *a.parent)
        return (*why = row + ": the root account has no parent ('" + a.parent + "' given)", false);
      if (!r.parent.empty() && !name_ok(row, "parent", r.parent, why)) return false;
      r.shares = a.shares;
      r.shares_parent = (a.flags & MFPRIO_ASSOCF_SHARES_PARENT) != 0;
      r.priority = a.priority;
      if (!accounts.emplace(r.name, i).second)
        return (*why = row + ": repeats assocs[" + std::to_string(accounts[r.name]) + "]", false);
      w->accounts.push_back(std::move(r));
      continue;
    }
    if (!name_ok(row, "user", a.user, why)) return false;
    if (a.partition && *a.partition && !name_ok(row, "partition", a.partition, why)) return false;
    UserAssocRec r;
    r.user = a.user;
    r.account = a.account;
    r.partition = str(a.partition);
    r.shares = a.shares;
    r.shares_parent = (a.flags & MFPRIO_ASSOCF_SHARES_PARENT) != 0;
    r.priority = a.priority;
    auto [it, fresh] = assocs.emplace(std::make_tuple(r.user, r.account, r.partition), i);
    if (!fresh) return (*why = row + ": repeats assocs[" + std::to_string(it->second) + "]", false);
    if (a.flags & MFPRIO_ASSOCF_DEFAULT) {
      auto d = defaults.emplace(r.user, r.account);
      if (!d.second && d.first->second != r.account)
        return (*why = row + ": a second default account for user '" + r.user + "' (also '" + d.first->second +
                       "')", false);
    }
    user_rows.push_back(i);
    w->assocs.push_back(std::move(r));
  }
  // The shape: every parent chain reaches root; every user row's account is
  // in the tree.  Model is mfprio-acct's own checker of the same rule.
  acct::StoreData d;
  d.accounts = w->accounts;
  if (!accounts.count("root")) {
    AccountRec root;
    root.name = "root";
    d.accounts.push_back(root);
  }
  const acct::Model m(d);
  for (const AccountRec& a : w->accounts) {
    const std::string problem = m.parent_problem(a.name);
    if (!problem.empty())
      return (*why = assoc_label(accounts[a.name], element<mfprio_assoc_t>(t.assocs, t.assoc_size, accounts[a.name])) +
                     ": " + problem, false);
  }
  for (size_t k = 0; k < w->assocs.size(); ++k)
    if (!m.accounts.count(w->assocs[k].account))
      return (*why = assoc_label(user_rows[k], element<mfprio_assoc_t>(t.assocs, t.assoc_size, user_rows[k])) +
                     ": the tree has no account '" + w->assocs[k].account + "'", false);
  std::sort(w->assocs.begin(), w->assocs.end(), [](const UserAssocRec& a, const UserAssocRec& b) {
    return std::tie(a.user, a.account, a.partition) < std::tie(b.user, b.account, b.partition);
  });
  // Each user's default: the flagged account, else the store's rule (the
  // first of its associations).
  for (size_t i = 0; i < w->assocs.size();) {
    size_t j = i;
    while (j < w->assocs.size() && w->assocs[j].user == w->assocs[i].user) ++j;
    const auto flagged = defaults.find(w->assocs[i].user);
    const std::string chosen = flagged == defaults.end() ? "" : flagged->second;
    auto d = acct::default_association(w->assocs.begin() + static_cast<long>(i),
                                       w->assocs.begin() + static_cast<long>(j),
                                       [&](const UserAssocRec& r) { return r.account == chosen; });
    UserRec u;
    u.name = w->assocs[i].user;
    u.default_account = d->account;
    w->users.push_back(std::move(u));
    i = j;
  }
  return true;
}

// A QOS or partition record's label ("set_accounts: qos[2] 'high'") and its
// name's checks: given, usable, not repeated (`seen` holds the names before).
bool named_record(const char* array, size_t i, const char* name, std::set<std::string>* seen, std::string* row,
                  std::string* why) {
  *row = "set_accounts: " + std::string(array) + "[" + std::to_string(i) + "]" +
         (name ? std::string(" '") + name + "'" : std::string());
  if (!name) return (*why = *row + ": name is NULL", false);
  if (!name_ok(*row, "name", name, why)) return false;
  if (!seen->insert(name).second) return (*why = *row + ": repeated", false);
  return true;
}

bool read_qos(const mfprio_accounts_t& t, HostAccounts* w, std::string* why) {
  std::set<std::string> seen;
  for (size_t i = 0; i < t.qos_count; ++i) {
    const auto q = element<mfprio_qos_rec_t>(t.qos, t.qos_size, i);
    std::string row;
    if (!named_record("qos", i, q.name, &seen, &row, why)) return false;
    if (!(q.usage_factor >= 0) || !std::isfinite(q.usage_factor))
      return (*why = row + ": usage_factor must be a finite number >= 0", false);
    if (q.priority > 0x7fffffffu) return (*why = row + ": priority is too large", false);
    QosRec r;
    r.name = q.name;
    r.priority = q.priority;
    r.usage_factor = q.usage_factor;
    w->qos.push_back(std::move(r));
  }
  return true;
}

bool read_partitions(const mfprio_accounts_t& t, HostAccounts* w, std::string* why) {
  std::set<std::string> seen;
  int defaults = 0;
  for (size_t i = 0; i < t.partition_count; ++i) {
    const auto p = element<mfprio_partition_rec_t>(t.partitions, t.partition_size, i);
    std::string row;
    if (!named_record("partitions", i, p.name, &seen, &row, why)) return false;
    if (p.job_factor > 65533) return (*why = row + ": job_factor " + std::to_string(p.job_factor) + " is above 65533", false);
    if (p.flags & ~MFPRIO_PARTF_DEFAULT) return (*why = row + ": unknown flags " + std::to_string(p.flags), false);
    if ((p.flags & MFPRIO_PARTF_DEFAULT) && ++defaults > 1) return (*why = row + ": a second default partition", false);
    PartitionRec r;
    r.name = p.name;
    r.job_factor = p.job_factor;
    r.is_default = (p.flags & MFPRIO_PARTF_DEFAULT) != 0;
    r.billing_weights = str(p.billing_weights);
    r.tres_totals = str(p.tres_totals);
    std::string bad;
    std::vector<TresWeight> weights;
    std::vector<std::pair<std::string, double>> counts;
    if (!parse_tres_spec(r.billing_weights, &weights, &bad, false))
      return (*why = row + ": billing_weights: " + bad, false);
    if (!r.tres_totals.empty() && !parse_tres_counts(r.tres_totals, &counts, &bad))
      return (*why = row + ": tres_totals: " + bad, false);
    w->partitions.push_back(std::move(r));
  }
  return true;
}

}  // namespace

int read_accounts(const mfprio_accounts_t& t, HostAccounts* w, std::string* why) {
  if (t.struct_size < sizeof(mfprio_accounts_t)) {
    *why = "set_accounts: struct_size " + std::to_string(t.struct_size) + " is smaller than " +
           std::to_string(sizeof(mfprio_accounts_t));
    return MFPRIO_EINVAL;
  }
  if (t.flags & ~(MFPRIO_ACCOUNTSF_QOS | MFPRIO_ACCOUNTSF_PARTITIONS)) {
    *why = "set_accounts: unknown flags " + std::to_string(t.flags);
    return MFPRIO_EINVAL;
  }
  if (!array_ok(t.assocs, t.assoc_count, t.assoc_size, sizeof(mfprio_assoc_t), "assocs", why) ||
      !array_ok(t.qos, t.qos_count, t.qos_size, sizeof(mfprio_qos_rec_t), "qos", why) ||
      !array_ok(t.partitions, t.partition_count, t.partition_size, sizeof(mfprio_partition_rec_t), "partitions",
                why))
    return MFPRIO_EINVAL;
  w->qos_given = (t.flags & MFPRIO_ACCOUNTSF_QOS) != 0;
  w->partitions_given = (t.flags & MFPRIO_ACCOUNTSF_PARTITIONS) != 0;
  if (!read_assocs(t, w, why)) return MFPRIO_EINVAL;
  if (w->qos_given && !read_qos(t, w, why)) return MFPRIO_EINVAL;
  if (w->partitions_given && !read_partitions(t, w, why)) return MFPRIO_EINVAL;
  return MFPRIO_OK;
}

namespace {

// Accounts the store has and the tree does not, children before parents.
std::vector<std::string> gone_accounts(const acct::StoreData& have, const std::set<std::string>& keep) {
  std::unordered_map<std::string, const AccountRec*> by_name;
  for (const AccountRec& a : have.accounts) by_name[a.name] = &a;
  std::vector<std::pair<int, std::string>> gone;  // (depth, name)
  for (const AccountRec& a : have.accounts) {
    if (a.name == "root" || keep.count(a.name)) continue;
    int depth = 0;
    for (const AccountRec* p = &a; p && !p->parent.empty() && depth < 1 << 20; ++depth) {
      auto it = by_name.find(p->parent);
      p = it == by_name.end() ? nullptr : it->second;
    }
    gone.emplace_back(depth, a.name);
  }
  std::sort(gone.begin(), gone.end(), [](const auto& a, const auto& b) {
    return a.first != b.first ? a.first > b.first : a.second < b.second;
  });
  std::vector<std::string> out;
  for (auto& g : gone) out.push_back(std::move(g.second));
  return out;
}

void diff_tree_accounts(const acct::StoreData& have, const HostAccounts& want, acct::AdminChanges* out) {
  std::unordered_map<std::string, const AccountRec*> had;
  for (const AccountRec& a : have.accounts) had[a.name] = &a;
  std::set<std::string> keep{"root"};
  for (const AccountRec& a : want.accounts) {
    keep.insert(a.name);
    auto it = had.find(a.name);
    if (it != had.end() && it->second->parent == a.parent && it->second->shares == a.shares &&
        it->second->shares_parent == a.shares_parent && it->second->priority == a.priority)
      continue;
    AccountRec r = a;
    if (it != had.end()) r.description = it->second->description;
    out->accounts.push_back(std::move(r));
  }
  out->delete_accounts = gone_accounts(have, keep);
}

void diff_tree_assocs(const acct::StoreData& have, const HostAccounts& want, acct::AdminChanges* out) {
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, const UserAssocRec*> had, wanted;
  for (const UserAssocRec& r : have.assocs) had[Key{r.user, r.account, r.partition}] = &r;
  std::set<std::string> kept_users;
  for (const UserAssocRec& r : want.assocs) {
    wanted[Key{r.user, r.account, r.partition}] = &r;
    kept_users.insert(r.user);
    auto it = had.find(Key{r.user, r.account, r.partition});
    if (it != had.end() && it->second->shares == r.shares && it->second->shares_parent == r.shares_parent &&
        it->second->priority == r.priority)
      continue;
    acct::AssocWrite w;
    w.rec = r;
    out->assocs.push_back(std::move(w));
  }
  std::set<std::string> gone_users;
  for (const UserAssocRec& r : have.assocs)
    if (!kept_users.count(r.user)) gone_users.insert(r.user);
  out->delete_users.assign(gone_users.begin(), gone_users.end());
  for (const auto& [key, r] : had)
    if (!wanted.count(key) && kept_users.count(r->user))
      out->delete_assocs.push_back(acct::AssocKey{r->user, r->account, r->partition});
  // A user row is written whole (default account and admin flag): a changed
  // default keeps the store's AdminLevel, which the host's tree does not carry.
  std::unordered_map<std::string, const UserRec*> had_user;
  for (const UserRec& u : have.users) had_user[u.name] = &u;
  for (const UserRec& u : want.users) {
    auto it = had_user.find(u.name);
    if (it != had_user.end() && it->second->default_account == u.default_account) continue;
    UserRec w = u;
    if (it != had_user.end()) w.admin = it->second->admin;
    out->users.push_back(std::move(w));
  }
}

// A table of named records the tree replaces whole (QOS, partitions): the
// wanted ones the store lacks or has otherwise (`same` false) are upserted,
// the store's ones the tree lacks are deleted.
template <class Rec, class Same>
void diff_named(const std::vector<Rec>& have, const std::vector<Rec>& want, Same same, std::vector<Rec>* up,
                std::vector<std::string>* del) {
  std::map<std::string, const Rec*> had;
  for (const Rec& r : have) had[r.name] = &r;
  std::set<std::string> keep;
  for (const Rec& r : want) {
    keep.insert(r.name);
    auto it = had.find(r.name);
    if (it == had.end() || !same(*it->second, r)) up->push_back(r);
  }
  for (const auto& entry : had)
    if (!keep.count(entry.first)) del->push_back(entry.first);
}

void diff_records(const acct::StoreData& have, const HostAccounts& want, acct::AdminChanges* out) {
  if (want.qos_given)
    diff_named(have.qos, want.qos,
               [](const QosRec& a, const QosRec& b) {
                 return a.priority == b.priority && a.usage_factor == b.usage_factor;
               },
               &out->qos, &out->delete_qos);
  if (want.partitions_given)
    diff_named(have.partitions, want.partitions,
               [](const PartitionRec& a, const PartitionRec& b) {
                 return a.job_factor == b.job_factor && a.billing_weights == b.billing_weights &&
                        a.tres_totals == b.tres_totals && a.is_default == b.is_default;
               },
               &out->partitions, &out->delete_partitions);
}

}  // namespace

acct::AdminChanges diff_accounts(const acct::StoreData& have, const HostAccounts& want) {
  acct::AdminChanges out;
  diff_tree_accounts(have, want, &out);
  diff_tree_assocs(have, want, &out);
  diff_records(have, want, &out);
  // One transaction, the deletions after the upserts: a kept account under
  // one that goes is linked to its new parent before the old one is
  // deleted.  A diff never deletes a name it also writes, so the order
  // loses nothing the other way round.
  out.deletions_last = true;
  return out;
}

}  // namespace mfprio
