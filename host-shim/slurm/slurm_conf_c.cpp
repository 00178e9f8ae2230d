// slurm_conf_c.cpp - see mfprio_slurm_conf.h: the adapter's conf for its
// C side (the family's init table), over adapter_conf().  No Slurm header
// is included here: mfprio's code under mfprio's licence.
#include "mfprio_slurm_conf.h"

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "adapter_conf.hpp"
#include "conf.hpp"
#include "slurm_conf.hpp"

namespace {

const char* const kFamilies[] = {"basic", "multifactor", "maui", "moab", "gridengine", "flux"};

}  // namespace

struct mfs_conf {
  mfprio::slurm_adapter::AdapterConf a;
  std::vector<mfprio_kv_t> kv;
  mfprio::NodeTotals totals;
  std::vector<mfprio_tres_t> tres;
};

namespace {

mfs_conf* load(const char* path) {
  auto c = std::make_unique<mfs_conf>();
  c->a = mfprio::slurm_adapter::adapter_conf(mfprio::Conf::load(path), path);
  const mfprio::ConfPair& params = c->a.params;
  bool known = false;
  for (const char* f : kFamilies) known = known || c->a.family == f;
  if (!known)
    throw mfprio::ConfigError(params.file + ":" + std::to_string(params.line) + ": " + params.key + ": family=" +
                              c->a.family + ": unknown (one of basic, multifactor, maui, moab, gridengine, flux)");
  c->totals = mfprio::sum_nodes(mfprio::node_lines(mfprio::conf_records(c->a.pairs, "NodeName")));
  c->kv.reserve(c->a.pairs.size());
  for (const mfprio::ConfPair& p : c->a.pairs)
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
extern "C" const char* mfs_conf_family(const mfs_conf_t* c) { return c->a.family.c_str(); }
extern "C" unsigned mfs_conf_pass_interval(const mfs_conf_t* c) { return c->a.pass_interval; }
extern "C" const char* mfs_conf_plugin_dir(const mfs_conf_t* c) { return c->a.plugin_dir.c_str(); }

extern "C" void mfs_conf_fill_host(const mfs_conf_t* c, mfprio_host_t* host) {
  host->conf = c->kv.data();
  host->conf_count = c->kv.size();
  host->cluster_nodes = static_cast<uint32_t>(c->totals.nodes);
  host->cluster_cpus = static_cast<uint32_t>(c->totals.cpus);
  host->cluster_mem_mb = c->totals.mem_mb;
  host->cluster_tres = c->tres.data();
  host->cluster_tres_count = c->tres.size();
}
