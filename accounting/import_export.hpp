// import_export.hpp - the JSON face of the store: import, export, charge batches.
//
// Entry points:
//   import_json_file(store, file)  validate a whole file, then write it in one
//                                  transaction (adds/updates listed records)
//   plan_import(current, text, label) the validation half, for tests
//   export_json(data)              the same format, one record per line
//   read_charges_jsonl(file)       `charge --file` input, one object per line
// Errors are AdminError with one line: `import FILE: users[3] (name "bob"):
// unknown account "zz"`, or `import FILE:LINE:COL: <jansson's message>`.
// The store proper (store.cpp) does not depend on this file or on jansson.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "admin.hpp"
#include "store.hpp"

namespace mfprio::acct {

struct ImportStats {
  size_t accounts = 0, users = 0, qos = 0, partitions = 0, queues = 0;
};

AdminChanges plan_import(const StoreData& current, const std::string& text,
                         const std::string& label, ImportStats* stats = nullptr);
ImportStats import_json_file(Store& store, const std::string& file);

std::string export_json(const StoreData& d);
// One section ("accounts", "queues", "users", "qos", "partitions") as a JSON array.
std::string export_section_json(const StoreData& d, const std::string& section);
// Whole-tree view for `show tree --json`: nested accounts with users and
// derived account usage.
std::string tree_json(const StoreData& d);

// One `charge` request (CLI flags or one JSONL line).
struct ChargeSpec {
  uint64_t job = 0;
  std::string user, account, partition, qos;
  int64_t start = 0, end = 0;
  std::optional<double> rate;  // billable TRES per second, before the QOS factor
  std::optional<double> cpus;
  bool ended = true;
  std::string where;           // "FILE:LINE" or "command line", for messages
};
std::vector<ChargeSpec> read_charges_jsonl(const std::string& file);

}  // namespace mfprio::acct
