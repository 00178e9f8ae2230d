// import_flux.hpp - `mfprio-acct import-flux`: flux-accounting's
// `flux account export-db` CSV files into the store.
//
// Entry points:
//   flux_csv_import_json(...)  the CSV records as one import document (the
//                              JSON of import_export.hpp), for tests
//   import_flux_files(...)     read, validate, write in one transaction
// The CSV files are read by the flux family's pure reader (flux_csv.hpp);
// the records then go through the very validation of `import FILE.json`
// (plan_import), so what import-flux accepts is what the JSON import accepts
// and what the plugin loads.  Errors name FILE:LINE and, where the CSV layer
// knows it, the column.  Mapping (accounting/README.md, "import-flux"):
//   bank_table / banks.csv  -> accounts (root bank = "root"; priority must be
//                              a whole number >= 0; inactive banks skipped)
//   association_table / users.csv -> user associations (shares, default bank,
//                              queues, job_usage -> raw_usage at import time;
//                              inactive rows skipped)
//   queue_table.csv         -> queues (name, priority)
//   the root bank's row     -> the root account's shares and priority
//   priority_factor_weight_table.csv, config_table.csv -> not the store: the
//                              PriorityParameters line of the flux family
//                              (flux_parameters_line), printed or written to
//                              a file the conf can Include
#pragma once

#include <string>

#include "import_export.hpp"
#include "store.hpp"

namespace mfprio::acct {

struct FluxCsvFiles {
  std::string banks, users, queues;  // paths; queues may be ""
  std::string weights, config;       // priority_factor_weight_table.csv, config_table.csv; may be ""
};

// The flux family's PriorityParameters line for flux-accounting's weights
// and config tables (either text may be empty: flux-accounting's defaults
// are then left to the family): "PriorityParameters=mode=accounting,
// fairshare=N,...,decay_half_life=D-HH:MM:SS,...".  A factor or value the
// family cannot take is an AdminError naming FILE:LINE; config keys that are
// not priority settings are passed over, each noted in *notes.
std::string flux_parameters_line(const std::string& weights_text, const std::string& weights_file,
                                 const std::string& config_text, const std::string& config_file,
                                 std::vector<std::string>* notes);
std::string flux_parameters_line(const FluxCsvFiles& files, std::vector<std::string>* notes);

// The import document for the three files' contents, and, per record of
// the document, the FILE:LINE it came from (to name it in errors).
struct FluxImportDoc {
  std::string json;
  std::vector<std::string> account_where, queue_where, user_where;
  // The root bank's row (its shares and priority go to the root account).
  int64_t root_shares = -1;  // -1: no root bank in the file
  uint32_t root_priority = 0;
};
FluxImportDoc flux_csv_import_json(const std::string& banks_text, const std::string& banks_file,
                                   const std::string& users_text, const std::string& users_file,
                                   const std::string& queues_text, const std::string& queues_file);

// Validate fully against the store's current content, then one transaction.
ImportStats import_flux_files(Store& store, const FluxCsvFiles& files);

}  // namespace mfprio::acct
