// settings.cpp - see settings.hpp.  Validate everything first, return a
// typed value; nothing here touches the plugin.
#include "settings.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>

#include "strings.hpp"
#include "timestr.hpp"
#include "tres.hpp"

namespace mfprio::host {
namespace {

std::string where(const ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": " + p.key + ": "; }

[[noreturn]] void fail(const ConfPair& p, const std::string& why) { throw SettingsError(where(p) + why); }

uint64_t u64_value(const ConfPair& p, uint64_t max) {
  uint64_t v = 0;
  if (!parse_u64(p.value, max, &v))
    fail(p, "'" + p.value + "' is not an unsigned integer (0.." + std::to_string(max) + ")");
  return v;
}

// "gres/gpu=8,license/x=2,mem=480G" -> pairs: the one TRES count list
// parser (common/tres.hpp: names lower-cased, K/M/G/T/P suffixes, a name
// given twice is an error).
std::vector<std::pair<std::string, double>> parse_tres_list(const ConfPair& p) {
  std::vector<std::pair<std::string, double>> out;
  std::string why;
  if (!parse_tres_counts(p.value, &out, &why)) fail(p, why);
  return out;
}

// Sums NodeName= lines (common/slurm_conf.hpp: NodeName=DEFAULT, host
// lists, CPUs/RealMemory/Gres), capped to the host table's widths.
ClusterTotals derive_from_nodes(const Conf& conf) {
  NodeTotals n;
  try {
    const std::vector<ConfRecord> records = conf_records(conf.pairs(), "NodeName");
    n = sum_nodes(node_lines(records));
  } catch (const ConfigError& e) {
    throw SettingsError(e.what());
  }
  ClusterTotals t;
  t.nodes = static_cast<uint32_t>(std::min<uint64_t>(n.nodes, std::numeric_limits<uint32_t>::max()));
  t.cpus = static_cast<uint32_t>(std::min<uint64_t>(n.cpus, std::numeric_limits<uint32_t>::max()));
  t.mem_mb = static_cast<double>(n.mem_mb);
  t.extra = n.gres;
  return t;
}

}  // namespace

std::vector<std::string> split_path_list(const std::string& s) { return split_nonempty(s, ':'); }

std::string plugin_file_name(const std::string& priority_type) {
  std::string f = priority_type;
  for (char& c : f)
    if (c == '/') c = '_';
  return f + ".so";
}

HostSettings read_settings(const Conf& conf, const std::string& default_plugindir,
                           const std::string& plugin_dir_override) {
  HostSettings s;
  if (const ConfPair* p = conf.find("PriorityType")) {
    const std::string& v = p->value;
    const std::string prefix = "priority/";
    bool ok = v.size() > prefix.size() && v.compare(0, prefix.size(), prefix) == 0;
    for (size_t i = prefix.size(); ok && i < v.size(); ++i)
      ok = std::isalnum(static_cast<unsigned char>(v[i])) || v[i] == '_' || v[i] == '-';
    if (!ok) fail(*p, "'" + v + "' is not a plugin type of the form priority/<name> (letters, digits, '_' or '-')");
    s.priority_type = v;
  }
  if (!plugin_dir_override.empty()) {
    s.plugin_dirs = split_path_list(plugin_dir_override);
  } else if (const ConfPair* p = conf.find("PluginDir")) {
    s.plugin_dirs = split_path_list(p->value);
    if (s.plugin_dirs.empty()) fail(*p, "empty directory list");
  } else {
    s.plugin_dirs = split_path_list(default_plugindir);
  }

  s.cluster = derive_from_nodes(conf);
  if (const ConfPair* p = conf.find("ClusterNodes"))
    s.cluster.nodes = static_cast<uint32_t>(u64_value(*p, std::numeric_limits<uint32_t>::max()));
  if (const ConfPair* p = conf.find("ClusterCPUs"))
    s.cluster.cpus = static_cast<uint32_t>(u64_value(*p, std::numeric_limits<uint32_t>::max()));
  if (const ConfPair* p = conf.find("ClusterMemMB"))
    s.cluster.mem_mb = static_cast<double>(u64_value(*p, std::numeric_limits<uint64_t>::max()));
  if (const ConfPair* p = conf.find("ClusterTRES")) s.cluster.extra = parse_tres_list(*p);
  return s;
}

int64_t conf_calc_period(const Conf& conf) {
  const ConfPair* p = conf.find("PriorityCalcPeriod");
  int64_t s = 0;
  std::string why;
  if (p && parse_time_string(p->value, &s, &why) && s > 0 && s != kTimeInfinite) return s;
  return 300;
}

}  // namespace mfprio::host
