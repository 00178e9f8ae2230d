// test_util.hpp - shared helpers for the accounting tests: the tests' temp
// directory (tests/support/tempdir.hpp), and small builders for admin changes.
#pragma once

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "store.hpp"
#include "store_location.hpp"
#include "tempdir.hpp"

namespace mfprio::acct::test {

using mfprio::test::TempDir;

inline AccountRec account(const std::string& name, const std::string& parent, uint32_t shares) {
  AccountRec a;
  a.name = name;
  a.parent = parent;
  a.shares = shares;
  return a;
}

inline AssocWrite assoc(const std::string& user, const std::string& account, double usage = 0,
                        uint32_t shares = 1) {
  AssocWrite w;
  w.rec.user = user;
  w.rec.account = account;
  w.rec.shares = shares;
  w.rec.raw_usage = usage;
  w.set_usage = true;
  return w;
}

// A charge to every one of `credentials` at one rate, for a window pass.
inline WindowCharge window_charge(uint64_t job, int64_t start, int64_t until, double rate,
                                  std::vector<std::pair<std::string, std::string>> credentials) {
  WindowCharge c;
  c.job_id = job;
  c.start_time = start;
  c.until = until;
  c.rate = rate;
  c.credentials = std::move(credentials);
  return c;
}

// A window pass of `family` over windows of `seconds` (nothing decayed or dropped).
inline WindowCycle window_pass(const std::string& family, int64_t seconds) {
  WindowCycle w;
  w.family = family;
  w.window_seconds = seconds;
  return w;
}

inline UserRec user(const std::string& name, const std::string& def) {
  return UserRec{name, def, false};
}

// The Slurm documentation's example tree (Slurm's Classic Fairshare Algorithm page).
inline AdminChanges slurm_doc_tree() {
  AdminChanges ch;
  ch.accounts = {account("A", "root", 40), account("B", "A", 30), account("C", "A", 10),
                 account("D", "root", 60), account("E", "D", 25), account("F", "D", 35)};
  ch.assocs = {assoc("User1", "B", 20), assoc("User2", "C", 25), assoc("User3", "C", 0),
               assoc("User4", "E", 25), assoc("User5", "F", 0)};
  ch.users = {user("User1", "B"), user("User2", "C"), user("User3", "C"), user("User4", "E"),
              user("User5", "F")};
  return ch;
}

inline const UserAssocRec* find_assoc(const StoreData& d, const std::string& user,
                                      const std::string& account) {
  for (const auto& a : d.assocs)
    if (a.user == user && a.account == account) return &a;
  return nullptr;
}

// On a temporary (find_assoc(s->load(), ...)) a pointer would dangle once the
// full expression ends (ASan: heap-use-after-free); this overload returns a
// copy instead, so `find_assoc(s->load(), u, a)->raw_usage` stays safe and
// keeping the result as a pointer does not compile.
inline std::optional<UserAssocRec> find_assoc(StoreData&& d, const std::string& user, const std::string& account) {
  const UserAssocRec* r = find_assoc(static_cast<const StoreData&>(d), user, account);
  return r ? std::optional<UserAssocRec>(*r) : std::nullopt;
}

inline double total_usage(const StoreData& d) {
  double t = 0;
  for (const auto& a : d.assocs) t += a.raw_usage;
  return t;
}

}  // namespace mfprio::acct::test
