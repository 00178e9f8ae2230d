// simulate_map.hpp - `simulate --map FILE`: the trace's names put onto a
// site's.  A trace names users u<N>, accounts g<N> (its group ids) and
// partitions p<N> (else queues q<N>); a site's conf and accounts document use
// their own names, so without a map a multi-partition site refuses the first
// job ("unknown partition 'p1'") and two sites' confs see the same names.
//
// The file, one rule a line ('#' starts a comment; blank lines ignored):
//   user      TRACE SITE
//   account   TRACE SITE      (also: group)
//   partition TRACE SITE      (also: queue, class)
// TRACE "*" maps every name of that kind that has no rule of its own.  A name
// with no rule keeps its trace name.  "user * auto" (and `--map auto`, a map
// of that one rule): every trace user without a rule of its own keeps its
// name and is put in one of the --accounts document's leaf accounts, drawn
// with probability proportional to its shares (std::mt19937 seeded with
// --seed, users in trace order), and added to the document there.  Errors: FILE:LINE: why (unknown kind,
// not three words, a TRACE given twice); nothing is simulated then.
#pragma once

#include <map>
#include <cstdint>
#include <string>
#include <vector>

namespace mfprio::host {

struct SimMap {
  std::string file;
  std::map<std::string, std::string> users, accounts, partitions;
  std::string any_user, any_account, any_partition;  // the "*" rules ("" none)
  std::map<std::string, std::string> user_account;  // "user * auto": the account drawn for each user

  // The site's name for a trace name of that kind (the name itself when unmapped).
  const std::string& user(const std::string& n) const { return pick(users, any_user, n); }
  const std::string& account(const std::string& n) const { return pick(accounts, any_account, n); }
  const std::string& partition(const std::string& n) const { return pick(partitions, any_partition, n); }

 private:
  static const std::string& pick(const std::map<std::string, std::string>& m, const std::string& any,
                                 const std::string& n) {
    auto it = m.find(n);
    if (it != m.end()) return it->second;
    return any.empty() || n.empty() ? n : any;
  }
};

// Parses the map file's text; throws std::runtime_error "FILE:LINE: why".
SimMap parse_sim_map(const std::string& text, const std::string& file);

// "user * auto": draws an account for each of `users` (trace names, in trace
// order) without a rule of its own and returns the accounts document with
// those users added (default account, 1 share).  Throws std::runtime_error
// naming `label` when the document has no leaf account with shares.
std::string spread_users(SimMap* map, const std::vector<std::string>& users, const std::string& accounts_json,
                         const std::string& label, uint64_t seed);

}  // namespace mfprio::host
