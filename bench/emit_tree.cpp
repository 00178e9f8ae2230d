// emit_tree.cpp - mfprio-bench-tree: writes the comparison shape of the
// benchmarks (generator.hpp make_comparison_tree: root -> 20 departments ->
// 50 groups each, users spread evenly, Zipf usage) for the side-by-side with
// flux-accounting (bench/compare_flux.py):
//   DIR/mfprio.db        an mfprio store (Store::apply_admin, as the bench builds its own)
//   DIR/bank_table.csv   bank, parent_bank, shares, job_usage (a bank's usage = its users' sum)
//   DIR/association_table.csv  username, userid, bank, default_bank, shares, job_usage
// The CSV column names are flux-accounting's; compare_flux.py loads them
// into its schema.  Deterministic: the same N gives the same files.
//
// usage: mfprio-bench-tree DIR [N]   (N user associations, default 100000)
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <vector>

#include "generator.hpp"
#include "store.hpp"

namespace mb = mfprio::bench;

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: mfprio-bench-tree DIR [N]\n");
    return 2;
  }
  const std::string dir = argv[1];
  char* end = nullptr;
  const unsigned long n = argc == 3 ? std::strtoul(argv[2], &end, 10) : 100000;
  if (argc == 3 && (!end || *end || n == 0 || n > 10000000)) {
    std::fprintf(stderr, "mfprio-bench-tree: N '%s': expected 1..10000000 associations\n", argv[2]);
    return 2;
  }
  try {
    std::filesystem::create_directories(dir);
    const mb::Hierarchy h = mb::make_comparison_tree(n, 1);
    const std::string db = dir + "/mfprio.db";
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(db + suffix);
    mfprio::acct::Store::open(db)->apply_admin(mb::to_admin_changes(h));

    std::vector<double> bank_usage(h.accounts.size(), 0.0);
    for (const mb::AssocSpec& a : h.assocs)
      for (int32_t b = static_cast<int32_t>(a.account); b >= 0; b = h.accounts[size_t(b)].parent)
        bank_usage[size_t(b)] += a.usage;
    const std::string banks = dir + "/bank_table.csv", users = dir + "/association_table.csv";
    FILE* f = std::fopen(banks.c_str(), "w");
    if (!f) throw std::runtime_error(banks + ": cannot write");
    std::fprintf(f, "bank,parent_bank,shares,job_usage\n");
    for (size_t i = 0; i < h.accounts.size(); ++i) {
      const mb::AccountSpec& a = h.accounts[i];
      std::fprintf(f, "%s,%s,%u,%.17g\n", a.name.c_str(),
                   a.parent < 0 ? "" : h.accounts[size_t(a.parent)].name.c_str(), a.shares, bank_usage[i]);
    }
    if (std::fclose(f) != 0) throw std::runtime_error(banks + ": write failed");
    f = std::fopen(users.c_str(), "w");
    if (!f) throw std::runtime_error(users + ": cannot write");
    std::fprintf(f, "username,userid,bank,default_bank,shares,job_usage\n");
    for (const mb::AssocSpec& a : h.assocs) {
      const std::string& bank = h.accounts[a.account].name;
      const std::string& def = h.accounts[h.assocs[h.user_first_assoc[a.user]].account].name;
      std::fprintf(f, "%s,%u,%s,%s,%u,%.17g\n", h.users[a.user].c_str(), 100000 + a.user, bank.c_str(),
                   def.c_str(), a.shares, a.usage);
    }
    if (std::fclose(f) != 0) throw std::runtime_error(users + ": write failed");
    std::printf("mfprio-bench-tree: %s: %zu banks, %zu associations (%s)\n", dir.c_str(), h.accounts.size(),
                h.assocs.size(), h.label.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mfprio-bench-tree: %s\n", e.what());
    return 1;
  }
  return 0;
}
