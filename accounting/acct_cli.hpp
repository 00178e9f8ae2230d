// acct_cli.hpp - mfprio-acct, the sacctmgr-like admin CLI, as a library call.
//
// Entry point: run_cli(args, out, err) -> exit status (0 ok, 1 refused,
// failed or not confirmed, 2 usage error).  acct_main.cpp only forwards argv.
// Every error is one line on `err` starting "mfprio-acct: ".  Syntax:
// accounting/README.md.
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

// Table: aligned columns; Parsable: sacctmgr -p (`|` after every field,
// the last too); Parsable2: sacctmgr -P (`|` between fields); Json: --json.
enum class Format { Table, Parsable, Parsable2, Json };

// `show WHAT ...` options (acct_show.cpp).
struct ShowOptions {
  Format fmt = Format::Table;
  bool header = true;                  // -n clears it
  std::vector<std::string> format;     // format=a,b%20 items, as typed ("" = the view's default)
  std::vector<std::string> users, accounts, partitions, names;  // where filters (empty = all)
  bool tree = false;                   // show assoc tree: indent Account by depth
  // The cluster (show assoc's Cluster column, show cluster): from --conf
  // (cluster_from_conf), else the store's (sacctmgr load's Cluster line).
  std::string cluster, control_host, control_port, cluster_tres, node_count;
};

// `show WHAT` (acct_show.cpp).  what: tree, accounts, users, qos,
// partitions, queues, associations.
void show(const StoreData& d, const std::string& what, const ShowOptions& o, std::ostream& out);
// One cluster's data, for the views that list clusters.
struct ClusterData {
  std::string name;
  const StoreData* data;
};
// `show associations` / `show cluster` over several clusters (a PostgreSQL
// store's, in the order given): one table, each row's Cluster its own;
// o.cluster names the cluster the conf's host, port and TRES describe.
void show_clusters(const std::vector<ClusterData>& cs, const std::string& what, const ShowOptions& o,
                   std::ostream& out);
// `show decay` (acct_show.cpp).
void show_decay(const DecayInfo& d, const ShowOptions& o, std::ostream& out);

}  // namespace cli
}  // namespace mfprio::acct
