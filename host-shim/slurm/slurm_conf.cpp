// slurm_conf.cpp - see mfprio_slurm_conf.h.  The C++ half of the adapter: no
// Slurm header is included here, so it is mfprio's code under mfprio's
// licence, linked into priority_mfprio.so with the GPL half (LICENSE).
#include "mfprio_slurm_conf.h"

#include <cstdio>
#include <cstdlib>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "conf.hpp"
#include "params.hpp"
#include "slurm_conf.hpp"
#include "strings.hpp"

namespace {

const char* const kFamilies[] = {"basic", "multifactor", "maui", "moab", "gridengine", "flux"};

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string where(const mfprio::ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": " + p.key; }

}  // namespace

struct mfs_conf {
  std::string family, plugin_dir;
  unsigned pass_interval = 0;
  std::vector<mfprio::ConfPair> pairs;
  std::vector<mfprio_kv_t> kv;
  mfprio::NodeTotals totals;
  std::vector<mfprio_tres_t> tres;
};

namespace {

// Splits the PriorityParameters pair into the adapter's items and the
// family's rest; the family's pair is rewritten to the rest (or dropped).
void take_parameters(mfs_conf* c, const mfprio::ConfPair& p, std::vector<mfprio::ConfPair>* out) {
  std::string rest;
  for (const std::string& raw : mfprio::split_nonempty(p.value, ',')) {
    const std::string item = trim(raw);
    const size_t eq = item.find('=');
    const std::string name = lower(trim(item.substr(0, eq == std::string::npos ? item.size() : eq)));
    const std::string value = eq == std::string::npos ? std::string() : trim(item.substr(eq + 1));
    const bool ours = name == "family" || name == "mfprio_plugin_dir" || name == "mfprio_store" ||
                      name == "mfprio_pass_interval";
    if (ours && value.empty())
      throw mfprio::ConfigError(where(p) + ": " + name + "= needs a value");
    if (name == "family") {
      c->family = lower(value);
    } else if (name == "mfprio_plugin_dir") {
      c->plugin_dir = mfprio::conf_relative_path(p, value);
    } else if (name == "mfprio_pass_interval") {
      char* end = nullptr;
      const unsigned long v = std::strtoul(value.c_str(), &end, 10);
      if (*end || value[0] == '-' || v < 1 || v > 86400)
        throw mfprio::ConfigError(where(p) + ": mfprio_pass_interval=" + value +
                                  ": expected seconds between passes, 1 to 86400");
      c->pass_interval = static_cast<unsigned>(v);
    } else if (name == "mfprio_store") {
      out->push_back(mfprio::ConfPair{"AccountingStorageLoc", value, p.file, p.line});
    } else {
      rest += (rest.empty() ? "" : ",") + item;
    }
  }
  if (!rest.empty()) out->push_back(mfprio::ConfPair{p.key, rest, p.file, p.line});
}

mfs_conf* load(const char* path) {
  auto c = std::make_unique<mfs_conf>();
  const mfprio::Conf conf = mfprio::Conf::load(path);
  const mfprio::ConfPair* params = conf.find("PriorityParameters");
  if (!params)
    throw mfprio::ConfigError(std::string(path) +
                              ": PriorityParameters: priority/mfprio needs PriorityParameters=family=NAME,...");
  for (const mfprio::ConfPair& p : conf.pairs()) {
    if (&p == params) continue;
    if (mfprio::iequals(p.key, "PriorityParameters")) continue;  // an earlier, overridden one
    c->pairs.push_back(p);
  }
  take_parameters(c.get(), *params, &c->pairs);
  if (c->family.empty())
    throw mfprio::ConfigError(where(*params) + ": family= missing (one of basic, multifactor, maui, moab, "
                              "gridengine, flux)");
  bool known = false;
  for (const char* f : kFamilies) known = known || c->family == f;
  if (!known)
    throw mfprio::ConfigError(where(*params) + ": family=" + c->family +
                              ": unknown (one of basic, multifactor, maui, moab, gridengine, flux)");
  for (mfprio::ConfPair& p : c->pairs)
    if (mfprio::iequals(p.key, "PriorityType")) p.value = "priority/" + c->family;
  c->totals = mfprio::sum_nodes(mfprio::node_lines(mfprio::conf_records(c->pairs, "NodeName")));
  c->kv.reserve(c->pairs.size());
  for (const mfprio::ConfPair& p : c->pairs)
    c->kv.push_back(mfprio_kv_t{p.key.c_str(), p.value.c_str(), p.file.c_str(), p.line});
  for (const auto& g : c->totals.gres) c->tres.push_back(mfprio_tres_t{g.first.c_str(), g.second});
  return c.release();
}

}  // namespace

extern "C" mfs_conf_t* mfs_conf_load(const char* path, char* err, size_t errlen) {
  try {
    return load(path);
  } catch (const std::exception& e) {
    std::snprintf(err, errlen, "%s", e.what());
  } catch (...) {
    std::snprintf(err, errlen, "%s: unexpected error reading the conf", path);
  }
  return nullptr;
}

extern "C" void mfs_conf_free(mfs_conf_t* c) { delete c; }
extern "C" const char* mfs_conf_family(const mfs_conf_t* c) { return c->family.c_str(); }
extern "C" unsigned mfs_conf_pass_interval(const mfs_conf_t* c) { return c->pass_interval; }
extern "C" const char* mfs_conf_plugin_dir(const mfs_conf_t* c) { return c->plugin_dir.c_str(); }

extern "C" void mfs_conf_fill_host(const mfs_conf_t* c, mfprio_host_t* host) {
  host->conf = c->kv.data();
  host->conf_count = c->kv.size();
  host->cluster_nodes = static_cast<uint32_t>(c->totals.nodes);
  host->cluster_cpus = static_cast<uint32_t>(c->totals.cpus);
  host->cluster_mem_mb = c->totals.mem_mb;
  host->cluster_tres = c->tres.data();
  host->cluster_tres_count = c->tres.size();
}
