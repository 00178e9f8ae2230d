// plugin_host.hpp - a minimal host for the benchmarks: loads the real
// priority_multifactor.so with dlopen, fills mfprio_ops_t, and calls init with
// a fixed conf (the sample site's weights) pointing at a given store.  The
// clock is a variable the benchmark advances.
#pragma once

#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "generator.hpp"
#include "mfprio/mfprio.h"

#ifndef MFPRIO_PLUGIN_DIR
#define MFPRIO_PLUGIN_DIR "plugin"
#endif

namespace mfprio::bench {

// Where the plugin .so is: $MFPRIO_PLUGIN_BUILD_DIR, else the build tree.
inline std::string plugin_dir() {
  const char* dir = std::getenv("MFPRIO_PLUGIN_BUILD_DIR");
  return std::string(dir && *dir ? dir : MFPRIO_PLUGIN_DIR);
}
inline std::string plugin_path(const std::string& file = "priority_multifactor.so") {
  return plugin_dir() + "/" + file;
}

// The multifactor conf of the benchmarks (the sample site's weights).
inline std::vector<std::pair<std::string, std::string>> multifactor_conf() {
  return {
      {"PriorityType", "priority/multifactor"},
      {"PriorityDecayHalfLife", "7-0"},
      {"PriorityCalcPeriod", "5"},
      {"PriorityMaxAge", "7-0"},
      {"PriorityWeightAge", "1000"},
      {"PriorityWeightFairshare", "10000"},
      {"PriorityWeightJobSize", "1000"},
      {"PriorityWeightPartition", "1000"},
      {"PriorityWeightQOS", "2000"},
      {"PriorityWeightTRES", "CPU=500,Mem=250,GRES/gpu=3000"},
  };
}

class PluginHost {
 public:
  // `conf`: the family's keys (AccountingStorageLoc is added by init);
  // `bench_ops`: fail unless the optional operations the multifactor
  // benchmarks call are there (the family figures check their own).
  explicit PluginHost(const std::string& so = plugin_path(),
                      std::vector<std::pair<std::string, std::string>> conf = multifactor_conf(),
                      bool bench_ops = true)
      : family_conf_(std::move(conf)) {
    dl_ = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!dl_) throw std::runtime_error(std::string("dlopen: ") + dlerror());
    try {
      resolve_ops(so, bench_ops);
    } catch (...) {
      dlclose(dl_);
      throw;
    }
  }

 private:
  void resolve_ops(const std::string& so, bool bench_ops) {
    const uint32_t* version = static_cast<const uint32_t*>(dlsym(dl_, "plugin_version"));
    if (!version || *version != MFPRIO_ABI_VERSION)
      throw std::runtime_error(so + ": not a plugin for mfprio ABI v" + std::to_string(MFPRIO_ABI_VERSION));
    // ABI v2: the first MFPRIO_OPS_REQUIRED names are required, the others
    // optional (NULL when missing).  The benchmarks also call the optional
    // operations below, which priority_multifactor provides.
    const char* names[] = {MFPRIO_OPS_SYMBOLS};
    void** slots = reinterpret_cast<void**>(&ops);
    for (int i = 0; i < MFPRIO_OPS_COUNT; ++i) {
      slots[i] = dlsym(dl_, names[i]);
      if (!slots[i] && i < MFPRIO_OPS_REQUIRED) throw std::runtime_error(std::string("plugin lacks ") + names[i]);
    }
    const struct {
      const void* fn;
      const char* name;
    } used[] = {{reinterpret_cast<const void*>(ops.job_resolve), "job_resolve"},
                {reinterpret_cast<const void*>(ops.set_priority_batch), "set_priority_batch"},
                {reinterpret_cast<const void*>(ops.job_end), "job_end"},
                {reinterpret_cast<const void*>(ops.job_end_batch), "job_end_batch"}};
    for (const auto& u : used)
      if (bench_ops && !u.fn) throw std::runtime_error(so + ": the benchmarks need the optional operation " + u.name);
  }

 public:
  ~PluginHost() {
    if (inited_) ops.fini();
    if (dl_) dlclose(dl_);
  }
  PluginHost(const PluginHost&) = delete;
  PluginHost& operator=(const PluginHost&) = delete;

  // init() on `store`; throws with the plugin's message on failure.
  void init(const std::string& store) {
    if (inited_) fini();
    conf_ = family_conf_;
    conf_.emplace_back("AccountingStorageLoc", store);
    kv_.clear();
    for (size_t i = 0; i < conf_.size(); ++i)
      kv_.push_back({conf_[i].first.c_str(), conf_[i].second.c_str(), "bench.conf", uint32_t(i + 1)});
    SiteTotals site;
    gpu_ = {"gres/gpu", site.gpus};
    mfprio_host_t h{};
    h.struct_size = sizeof h;
    h.abi_version = MFPRIO_ABI_VERSION;
    h.conf = kv_.data();
    h.conf_count = kv_.size();
    h.clock = [](void* arg) { return *static_cast<int64_t*>(arg); };
    h.clock_arg = &now;
    h.cluster_nodes = site.nodes;
    h.cluster_cpus = site.cpus;
    h.cluster_mem_mb = site.mem_mb;
    h.cluster_tres = &gpu_;
    h.cluster_tres_count = 1;
    check(ops.init(&h), "init");
    inited_ = true;
  }
  void fini() {
    if (!inited_) return;
    inited_ = false;
    check(ops.fini(), "fini");
  }
  bool inited() const { return inited_; }

  void check(int rc, const char* what) const {
    if (rc != MFPRIO_OK)
      throw std::runtime_error(std::string(what) + ": status " + std::to_string(rc) + ": " + ops.errmsg());
  }

  mfprio_ops_t ops{};
  int64_t now = 1'700'000'000;

 private:
  void* dl_ = nullptr;
  bool inited_ = false;
  std::vector<std::pair<std::string, std::string>> family_conf_, conf_;
  std::vector<mfprio_kv_t> kv_;
  mfprio_tres_t gpu_{};
};

}  // namespace mfprio::bench
