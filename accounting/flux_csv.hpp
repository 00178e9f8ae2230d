// flux_csv.hpp - reading flux-accounting's `flux account export-db` CSV files
// into plain records (the lead turns them into the store import).
//
// Formats accepted (each checked against flux-accounting's exporter):
//   * With a header row naming the columns, as every version since 2024
//     writes them: the newest export-db writes every table as <table>.csv
//     (`SELECT *`, header = the table's column names: bank_table.csv,
//     association_table.csv, queue_table.csv); the one before wrote banks.csv
//     and users.csv with a header of the chosen columns.  Column names are
//     matched case-insensitively and CamelCase is accepted (ParentBank =
//     parent_bank, UserID = userid); unknown columns are ignored.
//   * Without a header, the older fixed orders documented in
//     flux-account-export-db(1):
//       users.csv: Username,UserID,Bank,Shares,MaxRunningJobs,MaxActiveJobs,MaxNodes,Queues
//       banks.csv: Bank,ParentBank,Shares
//     A first row is a header when every field is a column-like word and one
//     of them is the key column (bank / username / queue).
// CSV syntax: RFC 4180 as Python's csv module writes it: ',' separators,
// double-quoted fields with "" escapes (a user's queue list "batch,debug" is
// quoted), CRLF or LF line ends, blank lines skipped.
// Empty fields take flux-accounting's defaults (pop-db / create_db).
// Errors name file:line and the column, and nothing is returned on error.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio::flux {

struct BankRecord {
  std::string name;
  std::string parent;  // "" for the root bank
  int64_t shares = 1;
  double priority = 0.0;
  bool active = true;
  double job_usage = 0.0;
  int line = 0;  // where the record starts in its file
};

struct UserRecord {
  std::string username;
  int64_t userid = 65534;
  std::string bank;
  std::string default_bank;  // "" when the file has no such column
  int64_t shares = 1;
  bool active = true;
  double job_usage = 0.0;
  double fairshare = 0.5;
  int64_t max_running_jobs = 5;
  int64_t max_active_jobs = 7;
  int64_t max_nodes = 2147483647;
  int64_t max_cores = 2147483647;
  std::vector<std::string> queues;    // permitted queues ("" -> none)
  std::vector<std::string> projects;  // default "*"
  std::string default_project = "*";
  int line = 0;
  // Whether the file gave them: a job_usage field that is not empty, a
  // queues column (an empty field: no queue).  Not given, an import keeps
  // the stored value (accounting/README.md: an omitted field keeps its stored value).
  bool has_job_usage = false;
  bool has_queues = false;
};

struct QueueRecord {
  std::string name;
  int64_t priority = 0;
  int line = 0;
};

// `text` is the file's content, `file` its name for messages.
bool read_banks_csv(const std::string& text, const std::string& file, std::vector<BankRecord>* out,
                    std::string* why);
bool read_users_csv(const std::string& text, const std::string& file, std::vector<UserRecord>* out,
                    std::string* why);
// queue_table.csv (header required: the queue list never had a headerless export).
bool read_queues_csv(const std::string& text, const std::string& file, std::vector<QueueRecord>* out,
                     std::string* why);

// priority_factor_weight_table.csv (factor,weight) and config_table.csv
// (key,value) of the newest export-db; a header row is required.
struct FactorRecord {
  std::string name;  // fairshare, queue, bank, urgency
  int64_t weight = 0;
  int line = 0;
};
struct ConfigRecord {
  std::string name;  // the key: priority_decay_half_life, decay_factor, ...
  std::string value;
  int line = 0;
};
bool read_factors_csv(const std::string& text, const std::string& file, std::vector<FactorRecord>* out,
                      std::string* why);
bool read_config_csv(const std::string& text, const std::string& file, std::vector<ConfigRecord>* out,
                     std::string* why);

// The CSV layer, exposed for tests: records with the line each starts on.
struct CsvRecord {
  std::vector<std::string> fields;
  int line = 0;
};
bool split_csv(const std::string& text, const std::string& file, std::vector<CsvRecord>* out,
               std::string* why);

}  // namespace mfprio::flux
