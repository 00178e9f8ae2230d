// acct_cli.hpp - mfprio-acct, the sacctmgr-like admin CLI, as a library call.
//
// Entry point: run_cli(args, out, err) -> exit status (0 ok, 1 refused or
// failed, 2 usage error).  acct_main.cpp only forwards argv.  Every error is
// one line on `err` starting "mfprio-acct: ".  Syntax: accounting/README.md.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include "store.hpp"

namespace mfprio::acct {

int run_cli(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

namespace cli {

// A usage error (exit 2).
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Format { Table, Parsable, Json };

// `show WHAT` (acct_show.cpp).
void show(const StoreData& d, const std::string& what, Format fmt, std::ostream& out);
// `show decay` (acct_show.cpp).
void show_decay(const DecayInfo& d, Format fmt, std::ostream& out);

}  // namespace cli
}  // namespace mfprio::acct
