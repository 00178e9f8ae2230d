// import_flux.cpp - see import_flux.hpp.
#include "import_flux.hpp"

#include <jansson.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <memory>
#include <regex>
#include <set>
#include <sstream>

#include "admin.hpp"
#include "bounded_read.hpp"
#include "flux_csv.hpp"

#include "json_util.hpp"
#include "numbers.hpp"

namespace mfprio::acct {
namespace {

void append(json_t* arr, json_t* v) {
  if (!v || json_array_append_new(arr, v) != 0) throw std::bad_alloc();
}

std::string at(const std::string& file, int line) { return file + ":" + std::to_string(line); }

std::string slurp(const std::string& file, const char* option) {
  try {
    return read_bounded(file, kImportBounds);
  } catch (const ReadError& e) {
    throw AdminError(std::string("import-flux ") + option + " " + e.what());
  }
}

}  // namespace

FluxImportDoc flux_csv_import_json(const std::string& banks_text, const std::string& banks_file,
                                   const std::string& users_text, const std::string& users_file,
                                   const std::string& queues_text, const std::string& queues_file) {
  std::string why;
  std::vector<flux::BankRecord> banks;
  std::vector<flux::UserRecord> users;
  std::vector<flux::QueueRecord> queues;
  if (!flux::read_banks_csv(banks_text, banks_file, &banks, &why)) throw AdminError(why);
  if (!flux::read_users_csv(users_text, users_file, &users, &why)) throw AdminError(why);
  if (!queues_file.empty() && !flux::read_queues_csv(queues_text, queues_file, &queues, &why))
    throw AdminError(why);

  FluxImportDoc doc;
  JsonPtr root(json_object());
  JsonPtr accounts(json_array()), qarr(json_array()), uarr(json_array());
  std::set<std::string> inactive_banks;
  for (const flux::BankRecord& b : banks) {
    const std::string where = at(banks_file, b.line);
    if (!b.active) {
      inactive_banks.insert(b.name);
      continue;
    }
    if (!(b.priority >= 0) || b.priority != std::floor(b.priority) || b.priority > 4294967295.0) {
      std::ostringstream v;
      v << b.priority;
      throw AdminError(where + ": column 'priority': '" + v.str() +
                       "' is not a whole number in 0..4294967295 (the store keeps a bank's priority as one)");
    }
    if (b.parent.empty()) {
      // The store's tree has one root account, "root" (flux-accounting's
      // conventional name for its root bank): it takes the bank's shares
      // and priority.
      if (b.name != "root")
        throw AdminError(where + ": column 'bank': the root bank is '" + b.name +
                         "'; the store's root account is \"root\": rename it before importing");
      if (b.shares > 4294967295LL)
        throw AdminError(where + ": column 'shares': " + std::to_string(b.shares) + " is more than 4294967295");
      doc.root_shares = b.shares;
      doc.root_priority = static_cast<uint32_t>(b.priority);
      continue;
    }
    JsonPtr o(json_object());
    put(o.get(), "name", json_string(b.name.c_str()));
    put(o.get(), "parent", json_string(b.parent.c_str()));
    put(o.get(), "shares", json_integer(b.shares));
    if (b.priority > 0) put(o.get(), "priority", json_integer(static_cast<json_int_t>(b.priority)));
    append(accounts.get(), o.release());
    doc.account_where.push_back(where);
  }
  for (const flux::QueueRecord& q : queues) {
    JsonPtr o(json_object());
    put(o.get(), "name", json_string(q.name.c_str()));
    put(o.get(), "priority", json_integer(q.priority));
    append(qarr.get(), o.release());
    doc.queue_where.push_back(at(queues_file, q.line));
  }
  for (const flux::UserRecord& u : users) {
    // A disabled association, or one in a disabled bank, is not imported
    // (flux-accounting leaves both out of its priority plugin's data).
    if (!u.active || inactive_banks.count(u.bank)) continue;
    JsonPtr o(json_object());
    put(o.get(), "name", json_string(u.username.c_str()));
    put(o.get(), "account", json_string(u.bank.c_str()));
    put(o.get(), "shares", json_integer(u.shares));
    if (!u.default_bank.empty() && u.default_bank == u.bank) put(o.get(), "default", json_true());
    // A column the file does not have keeps the stored value (re-running
    // an import with a users file without job_usage or queues changes neither).
    if (u.has_job_usage) put(o.get(), "raw_usage", json_real(u.job_usage));
    if (u.has_queues) {
      JsonPtr qs(json_array());
      for (const std::string& q : u.queues)
        if (!q.empty()) append(qs.get(), json_string(q.c_str()));
      put(o.get(), "queues", qs.release());
    }
    append(uarr.get(), o.release());
    doc.user_where.push_back(at(users_file, u.line));
  }
  put(root.get(), "accounts", accounts.release());
  put(root.get(), "queues", qarr.release());
  put(root.get(), "users", uarr.release());
  char* s = json_dumps(root.get(), JSON_COMPACT | JSON_REAL_PRECISION(17) | JSON_ENSURE_ASCII);
  if (!s) throw std::bad_alloc();
  doc.json = s;
  free(s);
  return doc;
}

ImportStats import_flux_files(Store& store, const FluxCsvFiles& files) {
  const std::string banks = slurp(files.banks, "--banks");
  const std::string users = slurp(files.users, "--users");
  const std::string queues = files.queues.empty() ? std::string() : slurp(files.queues, "--queues");
  FluxImportDoc doc = flux_csv_import_json(banks, files.banks, users, files.users, queues, files.queues);
  ImportStats st;
  AdminChanges ch;
  const StoreData current = store.load();
  try {
    ch = plan_import(current, doc.json, "import-flux", &st);
  } catch (const AdminError& e) {
    // Name the CSV line instead of the generated record: "users[3] (name "x")"
    // -> "USERS.csv:5 (name "x")".
    const std::string msg = e.what();
    static const std::regex rec(R"((accounts|queues|users)\[(\d+)\])");
    std::smatch m;
    if (std::regex_search(msg, m, rec)) {
      const size_t i = std::stoul(m[2].str());
      const auto& where = m[1] == "accounts" ? doc.account_where
                          : m[1] == "queues" ? doc.queue_where
                                             : doc.user_where;
      if (i < where.size())
        throw AdminError("import-flux: " + where[i] + msg.substr(static_cast<size_t>(m.position(0) + m.length(0))));
    }
    throw;
  }
  if (doc.root_shares >= 0) {
    AccountRec root = root_with_shares(current, static_cast<uint32_t>(doc.root_shares));
    root.priority = doc.root_priority;
    ch.accounts.insert(ch.accounts.begin(), root);
  }
  try {
    store.apply_admin(ch);
  } catch (const StoreError& e) {
    throw AdminError(std::string("import-flux: ") + e.what());
  }
  return st;
}

namespace {

// Seconds as a Slurm time string ("D-HH:MM:SS"): what the flux family's
// duration keys read (a bare number there would be minutes).
std::string slurm_duration(int64_t s) {
  char b[64];
  std::snprintf(b, sizeof b, "%lld-%02lld:%02lld:%02lld", static_cast<long long>(s / 86400),
                static_cast<long long>(s % 86400 / 3600), static_cast<long long>(s % 3600 / 60),
                static_cast<long long>(s % 60));
  return b;
}

}  // namespace

std::string flux_parameters_line(const std::string& weights_text, const std::string& weights_file,
                                 const std::string& config_text, const std::string& config_file,
                                 std::vector<std::string>* notes) {
  std::string why;
  std::vector<flux::FactorRecord> factors;
  std::vector<flux::ConfigRecord> config;
  if (!weights_file.empty() && !flux::read_factors_csv(weights_text, weights_file, &factors, &why))
    throw AdminError(why);
  if (!config_file.empty() && !flux::read_config_csv(config_text, config_file, &config, &why))
    throw AdminError(why);
  std::string line = "PriorityParameters=mode=accounting";
  for (const flux::FactorRecord& f : factors) {
    const std::string where = at(weights_file, f.line);
    if (f.name != "fairshare" && f.name != "queue" && f.name != "bank" && f.name != "urgency")
      throw AdminError(where + ": factor '" + f.name +
                       "': not one of flux-accounting's priority factors (fairshare, queue, bank, urgency)");
    if (f.weight < -2147483648LL || f.weight > 2147483647LL)
      throw AdminError(where + ": factor '" + f.name + "': weight " + std::to_string(f.weight) +
                       " is out of range (a 32-bit int, as flux-accounting keeps it)");
    line += "," + f.name + "=" + std::to_string(f.weight);
  }
  for (const flux::ConfigRecord& c : config) {
    const std::string where = at(config_file, c.line);
    if (c.name == "priority_decay_half_life" || c.name == "priority_usage_reset_period") {
      int64_t secs = 0;  // numbers.hpp: a CSV integer
      if (!parse_i64(c.value, &secs) || secs <= 0)
        throw AdminError(where + ": key '" + c.name + "': '" + c.value + "' is not a number of seconds > 0");
      line += std::string(c.name == "priority_decay_half_life" ? ",decay_half_life=" : ",reset_period=") +
              slurm_duration(secs);
    } else if (c.name == "decay_factor" || c.name == "node_weight" || c.name == "core_weight" ||
               c.name == "gpu_weight") {
      double d = 0;  // numbers.hpp: a CSV real
      if (!parse_decimal(c.value, &d))
        throw AdminError(where + ": key '" + c.name + "': '" + c.value + "' is not a number");
      line += "," + c.name + "=" + c.value;
    } else if (notes) {
      notes->push_back(where + ": key '" + c.name + "' is not a priority setting mfprio reads: passed over");
    }
  }
  return line;
}

std::string flux_parameters_line(const FluxCsvFiles& files, std::vector<std::string>* notes) {
  const std::string w = files.weights.empty() ? std::string() : slurp(files.weights, "--weights");
  const std::string c = files.config.empty() ? std::string() : slurp(files.config, "--config");
  return flux_parameters_line(w, files.weights, c, files.config, notes);
}

}  // namespace mfprio::acct
