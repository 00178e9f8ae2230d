// conf_loc.cpp - see conf_loc.hpp.  The conf syntax (comments, quotes,
// several pairs a line, Include) and the store-location rule are common/'s
// (conf.hpp): one reader of slurm.conf for the whole project.  Only reads.
#include "conf_loc.hpp"

#include <cstdio>

#include "admin.hpp"
#include "conf.hpp"
#include "slurm_conf.hpp"
#include "strings.hpp"

namespace mfprio::acct {
namespace {

std::string storage_loc(const Conf& conf, const std::string& file) {
  // The one rule (conf.hpp), default location included.
  const std::string loc = store_location(conf.pairs(), nullptr);
  if (loc.empty())
    throw AdminError(file + ": no AccountingStorageLoc= or StateSaveLocation= key, and no conf file to place "
                            "the default store beside");
  return loc;
}

ConfCluster cluster_of(const Conf& conf) {
  ConfCluster c;
  if (const ConfPair* p = conf.find("ClusterName")) c.name = lower(trim_space(p->value));
  const ConfPair* host = nullptr;  // the first SlurmctldHost is the primary
  for (const ConfPair& p : conf.pairs())
    if (!host && (iequals(p.key, "SlurmctldHost") || iequals(p.key, "ControlMachine"))) host = &p;
  if (host) c.control_host = trim_space(host->value.substr(0, host->value.find('(')));
  c.control_port = "6817";
  if (const ConfPair* p = conf.find("SlurmctldPort")) c.control_port = trim_space(p->value.substr(0, p->value.find('-')));
  try {
    const NodeTotals n = sum_nodes(node_lines(conf_records(conf.pairs(), "NodeName")));
    c.nodes = n.nodes;
    if (n.nodes > 0) {
      c.tres = "cpu=" + std::to_string(n.cpus) + ",mem=" + std::to_string(n.mem_mb) + "M,node=" + std::to_string(n.nodes);
      for (const auto& [name, count] : n.gres) {
        char buf[40];
        std::snprintf(buf, sizeof buf, "%.15g", count);
        c.tres += "," + name + "=" + buf;
      }
    }
  } catch (const ConfigError& e) {
    throw AdminError(e.what());
  }
  return c;
}

}  // namespace

ConfCluster cluster_from_text(const std::string& text, const std::string& file) {
  try {
    return cluster_of(Conf::parse(text, file));
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

ConfCluster cluster_from_conf(const std::string& file) {
  try {
    return cluster_of(Conf::load(file));
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

std::string storage_loc_from_text(const std::string& text, const std::string& file) {
  try {
    return storage_loc(Conf::parse(text, file), file);
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

std::string store_cluster_from_conf(const std::string& file) {
  try {
    return store_cluster(Conf::load(file).pairs());
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

std::string storage_loc_from_conf(const std::string& file) {
  try {
    return storage_loc(Conf::load(file), file);
  } catch (const ConfError& e) {
    throw AdminError(e.what());
  }
}

}  // namespace mfprio::acct
