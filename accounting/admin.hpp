// admin.hpp - validation of admin changes against the whole picture.
//
// Entry points:
//   Model(StoreData)        a mutable, name-indexed copy of the store
//   Model::parent_problem() why an account's parent chain is broken, or ""
//   Model::finish_users()   gives touched users a valid default account
//   name_problem()          why a record name is unusable, or ""
// Used by import (import_export.cpp) and the CLI (acct_cli.cpp): they apply
// the requested records to a Model, ask it what is wrong (naming the record
// in their own words), and only then hand an AdminChanges to the Store.
// No SQLite, no JSON here.
#pragma once

#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "store.hpp"

namespace mfprio::acct {

// A rejected request; what() is one line naming the record.
struct AdminError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using AssocTuple = std::tuple<std::string, std::string, std::string>;  // user, account, partition

struct Model {
  explicit Model(const StoreData& d);

  std::unordered_map<std::string, AccountRec> accounts;  // includes root
  std::map<AssocTuple, UserAssocRec> assocs;             // ordered: a user's rows are adjacent
  std::unordered_map<std::string, UserRec> users;
  std::unordered_map<std::string, QosRec> qos;
  std::unordered_map<std::string, PartitionRec> partitions;
  std::map<std::string, QueueRec> queues;                 // Flux queues

  // "" if `name`'s parent chain reaches root, else e.g. `unknown parent "x"`
  // or `parent cycle a -> b -> a`.
  std::string parent_problem(const std::string& name) const;
  std::vector<const UserAssocRec*> assocs_of(const std::string& user) const;
  bool has_children(const std::string& account) const;
  bool has_assocs_under(const std::string& account) const;
  // For each user in `touched`: keep a default account that still has an
  // association, else take the first association's account ("" if none).
  // Appends the resulting UserRecs to `out`.
  void finish_users(const std::set<std::string>& touched, std::vector<UserRec>& out);
};

// One line of the hierarchy view (`show tree`): depth-first from root, each
// account's user associations (by user) before its sub-accounts (by name).
// An account's usage is the sum of the user associations below it.
struct TreeRow {
  int depth = 0;
  const AccountRec* account = nullptr;  // set for account rows
  const UserAssocRec* assoc = nullptr;  // set for user rows
  double usage = 0;
};
std::vector<TreeRow> tree_rows(const StoreData& d);

// "" if usable as an account/user/qos/partition name, else why not.  The one
// name rule (mfprio-acct, import, and so what the plugin loads): 1-128 bytes
// of valid UTF-8 (no overlong forms, surrogates or code points past
// U+10FFFF), no control character (C0, DEL, C1, U+2028/9), no invisible
// format character (Unicode category Cf: U+200B, U+FEFF, ...), and, since names
// are printed in `|`-separated and key=value output, no whitespace or |=,".
// No leading '-' (it would read as a command-line option).
// The message quotes the name with non-ASCII bytes as \xNN.
std::string name_problem(const std::string& name);

// "" if usable as an account's Description, else why not.  Refused, not
// escaped: at most 1024 bytes of valid UTF-8 without control characters
// (so no newline) and without '|', so a `show -P` row stays one line of
// fields whatever an admin typed.
std::string description_problem(const std::string& text);

// The largest QOS UsageFactor and billing weight (per unit, after a
// K/M/G suffix) the store takes: usage charged with them stays far inside a
// double for any job a cluster runs (1e308 made every decay pass fail).
inline constexpr double kMaxUsageFactor = 1e6;
inline constexpr double kMaxBillingWeight = 1e6;
// "" if `f` may be a QOS UsageFactor (0..kMaxUsageFactor), else why not.
std::string usage_factor_problem(double f);

// "" if `s` is a TRES list the plugin loads (common/tres.hpp: the one
// parser; names checked, no name twice, finite non-negative numbers, at
// most kMaxBillingWeight each), else why not.
std::string tres_weights_problem(const std::string& s);  // TRESBillingWeights
std::string tres_counts_problem(const std::string& s);   // partition TRES totals

// The root account as an importer sets its shares (flux's root bank,
// sacctmgr's cluster line): the stored root's other fields kept.
inline AccountRec root_with_shares(const StoreData& current, uint32_t shares) {
  AccountRec root;
  for (const AccountRec& a : current.accounts)
    if (a.name == "root") root = a;
  root.name = "root";
  root.parent.clear();
  root.shares_parent = false;
  root.shares = shares;
  return root;
}

}  // namespace mfprio::acct
