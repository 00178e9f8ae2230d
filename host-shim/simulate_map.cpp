// simulate_map.cpp - see simulate_map.hpp.
#include "simulate_map.hpp"

#include <jansson.h>

#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "conf.hpp"
#include "json_util.hpp"
#include "slurm_conf.hpp"
#include "tres.hpp"

namespace mfprio::host {

SimMap parse_sim_map(const std::string& text, const std::string& file) {
  SimMap m;
  m.file = file;
  std::istringstream in(text);
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string x; words >> x;) w.push_back(x);
    if (w.empty()) continue;
    const std::string where = file + ":" + std::to_string(n) + ": ";
    if (w.size() != 3) throw std::runtime_error(where + "expected KIND TRACE SITE, got " + std::to_string(w.size()) + " words");
    std::map<std::string, std::string>* pairs = nullptr;
    std::string* any = nullptr;
    if (w[0] == "user") pairs = &m.users, any = &m.any_user;
    else if (w[0] == "account" || w[0] == "group") pairs = &m.accounts, any = &m.any_account;
    else if (w[0] == "partition" || w[0] == "queue" || w[0] == "class") pairs = &m.partitions, any = &m.any_partition;
    else throw std::runtime_error(where + "'" + w[0] + "' is not user, account, group, partition, queue or class");
    if (w[1] == "*" && w[2] == "auto" && pairs == &m.accounts)
      throw std::runtime_error(where + "auto spreads users and partitions only (user * auto, partition * auto)");
    if (w[1] == "*") {
      if (!any->empty() || (pairs == &m.partitions && m.auto_partitions))
        throw std::runtime_error(where + w[0] + " * is given twice");
      if (pairs == &m.partitions && w[2] == "auto") m.auto_partitions = true;
      else *any = w[2];
    } else if (!pairs->emplace(w[1], w[2]).second) {
      throw std::runtime_error(where + w[0] + " '" + w[1] + "' is given twice");
    }
  }
  return m;
}

size_t weighted_draw(std::mt19937_64& rng, const std::vector<double>& weights, double sum) {
  // (rng() >> 11) / 2^53 in [0, 1): the same draw on every platform
  const double x = static_cast<double>(rng() >> 11) * 0x1.0p-53 * sum;
  double acc = 0;
  size_t k = 0;
  while (k + 1 < weights.size() && x >= acc + weights[k]) acc += weights[k++];
  return k;
}

namespace {

// The PartitionName lines of one conf and their processors (the machine's
// when a line has no Nodes= or the node lines cannot be read).
std::vector<SitePartition> conf_partitions(const std::string& path, double procs) {
  std::vector<SitePartition> out;
  Conf conf;
  try {
    conf = Conf::load(path);
  } catch (const std::exception&) {
    return out;  // run_policy names the problem
  }
  const std::vector<ConfRecord> parts = conf_records(conf.pairs(), "PartitionName");
  std::vector<NodeLine> nodes;
  std::vector<ConfRecord> node_records, nodesets;
  HostIndex hosts;
  bool sized = true;
  try {
    node_records = conf_records(conf.pairs(), "NodeName");
    nodesets = conf_records(conf.pairs(), "NodeSet");
    nodes = node_lines(node_records);
    hosts = index_hosts(nodes);
  } catch (const std::exception&) {
    sized = false;
  }
  for (const ConfRecord& r : parts) {
    SitePartition p;
    p.name = r.name();
    p.cpus = procs;
    NodeTotals t;
    try {
      if (sized && partition_totals(r, nodes, hosts, nodesets, &t) && t.cpus > 0) p.cpus = static_cast<double>(t.cpus);
    } catch (const std::exception&) {
    }
    if (!p.name.empty()) out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

SitePartitions site_partitions(const std::vector<std::string>& confs, const std::string& accounts_json,
                               const std::string& accounts_label, double procs) {
  SitePartitions site;
  auto add = [&](const SitePartition& p) {
    for (const SitePartition& q : site.all)
      if (q.name == p.name) return;
    site.all.push_back(p);
  };
  for (const std::string& c : confs) {
    SiteSource src{c, "partition", true, {}};
    for (const SitePartition& p : conf_partitions(c, procs)) {
      src.names.push_back(p.name);
      add(p);
    }
    site.sources.push_back(std::move(src));
  }
  json_error_t err;
  JsonPtr doc(accounts_json.empty() ? nullptr : json_loads(accounts_json.c_str(), 0, &err));
  if (!doc) return site;
  for (const char* kind : {"partitions", "queues"}) {
    SiteSource src{accounts_label, kind[0] == 'p' ? "partition" : "queue", false, {}};
    size_t i;
    json_t* e;
    json_array_foreach(json_object_get(doc.get(), kind), i, e) {
      const char* name = json_string_value(json_object_get(e, "name"));
      if (!name || !*name) continue;
      SitePartition p{name, procs};
      std::vector<std::pair<std::string, double>> counts;
      std::string why;
      const char* tres = json_string_value(json_object_get(e, "tres"));
      if (tres && parse_tres_counts(tres, &counts, &why))
        for (const auto& [res, n] : counts)
          if (res == "cpu" && n > 0) p.cpus = n;
      src.names.push_back(p.name);
      add(p);
    }
    site.sources.push_back(std::move(src));
  }
  return site;
}

std::string spread_users(SimMap* map, const std::vector<std::string>& users, const std::string& accounts_json,
                         const std::string& label, uint64_t seed) {
  json_error_t err;
  JsonPtr doc(json_loads(accounts_json.c_str(), 0, &err));
  if (!doc) throw std::runtime_error(label + ":" + std::to_string(err.line) + ": " + err.text);
  // Leaf accounts (no account names them as parent) and their shares.
  std::set<std::string> parents;
  size_t i;
  json_t* a;
  json_array_foreach(json_object_get(doc.get(), "accounts"), i, a) {
    const char* up = json_string_value(json_object_get(a, "parent"));
    if (up) parents.insert(up);
  }
  std::vector<std::pair<std::string, double>> leaves;
  double total = 0;
  json_array_foreach(json_object_get(doc.get(), "accounts"), i, a) {
    const char* name = json_string_value(json_object_get(a, "name"));
    const json_t* sh = json_object_get(a, "shares");
    const double shares = json_is_integer(sh) ? static_cast<double>(json_integer_value(sh)) : sh ? 0.0 : 1.0;
    if (!name || parents.count(name) || shares <= 0) continue;
    leaves.emplace_back(name, shares);
    total += shares;
  }
  if (leaves.empty()) throw std::runtime_error(label + ": --map auto: no leaf account with shares to put users in");
  std::vector<double> weights;
  for (const auto& leaf : leaves) weights.push_back(leaf.second);
  std::mt19937_64 rng(seed);
  json_t* list = json_object_get(doc.get(), "users");
  if (!json_is_array(list)) {
    list = json_array();
    json_object_set_new(doc.get(), "users", list);
  }
  std::set<std::string> done;
  for (const std::string& u : users) {
    if (map->users.count(u) || !done.insert(u).second) continue;
    const size_t k = weighted_draw(rng, weights, total);
    map->user_account[u] = leaves[k].first;
    json_t* e = json_object();
    json_object_set_new(e, "name", json_string(u.c_str()));
    json_object_set_new(e, "account", json_string(leaves[k].first.c_str()));
    json_object_set_new(e, "shares", json_integer(1));
    json_object_set_new(e, "default", json_true());
    json_array_append_new(list, e);
  }
  return json_dump_string(doc.get(), JSON_INDENT(2) | JSON_PRESERVE_ORDER);
}

}  // namespace mfprio::host
