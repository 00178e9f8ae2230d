// fuzz_import.cpp - libFuzzer: the accounting import (plan_import) against
// an in-memory picture of a store holding the sample hierarchy shape.
#include <string>

#include "admin.hpp"
#include "import_export.hpp"

using namespace mfprio::acct;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const StoreData current = [] {
    StoreData d;
    AccountRec root;
    root.name = "root";
    d.accounts.push_back(root);
    AccountRec a;
    a.name = "A";
    a.parent = "root";
    a.shares = 4;
    d.accounts.push_back(a);
    UserAssocRec u;
    u.user = "u";
    u.account = "A";
    u.raw_usage = 1e300;
    d.assocs.push_back(u);
    d.users.push_back(UserRec{"u", "A", false});
    return d;
  }();
  try {
    AdminChanges ch = plan_import(current, std::string(reinterpret_cast<const char*>(data), size), "fuzz.json");
    (void)ch;
  } catch (const AdminError&) {
  }
  return 0;
}
