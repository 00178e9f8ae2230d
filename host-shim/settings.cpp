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

bool parse_count(const std::string& s, double* out) {
  if (s.empty()) return false;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (errno != 0 || end != s.c_str() + s.size() || !std::isfinite(v) || v < 0) return false;
  *out = v;
  return true;
}

// "gres/gpu=8,license/x=2" -> pairs.  Names are lower-cased the way TRES
// names are written ("gres/gpu"); a name given twice is an error.
std::vector<std::pair<std::string, double>> parse_tres_list(const ConfPair& p) {
  std::vector<std::pair<std::string, double>> out;
  if (p.value.empty()) return out;
  size_t pos = 0;
  while (pos <= p.value.size()) {
    size_t comma = p.value.find(',', pos);
    if (comma == std::string::npos) comma = p.value.size();
    const std::string item = p.value.substr(pos, comma - pos);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      fail(p, "'" + item + "' is not name=count (e.g. gres/gpu=8)");
    std::string name = item.substr(0, eq);
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    double count = 0;
    if (!parse_count(item.substr(eq + 1), &count))
      fail(p, "count '" + item.substr(eq + 1) + "' of '" + name + "' is not a non-negative number");
    for (const auto& [n, c] : out)
      if (n == name) fail(p, "'" + name + "' given twice");
    out.emplace_back(std::move(name), count);
    pos = comma + 1;
  }
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
  t.mem_mb = n.mem_mb;
  t.tres = n.gres;
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
    s.cluster.mem_mb = u64_value(*p, std::numeric_limits<uint64_t>::max());
  if (const ConfPair* p = conf.find("ClusterTRES")) s.cluster.tres = parse_tres_list(*p);
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
