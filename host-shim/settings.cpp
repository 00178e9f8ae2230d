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

#include <timestr.hpp>

namespace mfprio::host {
namespace {

std::string where(const ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": " + p.key + ": "; }

[[noreturn]] void fail(const ConfPair& p, const std::string& why) { throw SettingsError(where(p) + why); }

bool parse_u64(const std::string& s, uint64_t max, uint64_t* out) {
  if (s.empty() || s.size() > 20) return false;
  uint64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    const uint64_t d = static_cast<uint64_t>(c - '0');
    if (v > (max - d) / 10) return false;
    v = v * 10 + d;
  }
  *out = v;
  return true;
}

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

// Adds a node line's Gres= ("gpu:4", "gpu:a100:2,mps:100", "gpu" = 1) times
// `nodes` to `totals` under "gres/<name>".
void add_node_gres(const ConfPair& p, uint64_t nodes, std::map<std::string, double>* totals) {
  if (p.value.empty() || iequals(p.value, "(null)")) return;
  size_t pos = 0;
  while (pos <= p.value.size()) {
    size_t comma = p.value.find(',', pos);
    if (comma == std::string::npos) comma = p.value.size();
    const std::string item = p.value.substr(pos, comma - pos);
    pos = comma + 1;
    if (item.empty()) fail(p, "empty item in '" + p.value + "'");
    const size_t c1 = item.find(':');
    std::string name = item.substr(0, c1);
    double count = 1;
    if (c1 != std::string::npos) {
      const size_t c2 = item.rfind(':');
      std::string num = item.substr(c2 + 1);
      // Strip a "(S:0-1)" socket binding if present.
      const size_t paren = num.find('(');
      if (paren != std::string::npos) num.resize(paren);
      uint64_t n = 0;
      if (parse_u64(num, std::numeric_limits<uint32_t>::max(), &n)) {
        count = static_cast<double>(n);
      } else if (c2 != c1) {
        fail(p, "'" + item + "' is not name[:type]:count");
      }  // else "gpu:a100" = one typed gres
    }
    (*totals)["gres/" + name] += count * static_cast<double>(nodes);
  }
}

// Sums NodeName= lines.  Pairs written on one line belong to that node line.
// NodeName=DEFAULT sets values for the node lines after it.
ClusterTotals derive_from_nodes(const Conf& conf) {
  ClusterTotals t;
  std::map<std::string, double> gres;
  const auto& pairs = conf.pairs();
  std::map<std::string, const ConfPair*> defaults;  // lower-cased key -> pair
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i + 1;
    while (j < pairs.size() && pairs[j].line == pairs[i].line && pairs[j].file == pairs[i].file) ++j;
    if (!iequals(pairs[i].key, "NodeName")) {
      i = j;
      continue;
    }
    std::map<std::string, const ConfPair*> attrs = defaults;
    for (size_t k = i + 1; k < j; ++k) {
      std::string key = pairs[k].key;
      for (char& c : key) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      attrs[key] = &pairs[k];
    }
    if (iequals(pairs[i].value, "DEFAULT")) {
      defaults = attrs;
      i = j;
      continue;
    }
    uint64_t nodes = 0;
    try {
      nodes = hostlist_count(pairs[i].value);
    } catch (const std::invalid_argument& e) {
      fail(pairs[i], e.what());
    }
    auto get = [&](const char* key, uint64_t dflt, uint64_t max) -> uint64_t {
      auto it = attrs.find(key);
      return it == attrs.end() ? dflt : u64_value(*it->second, max);
    };
    uint64_t cpus = get("cpus", 0, std::numeric_limits<uint32_t>::max());
    if (cpus == 0)
      cpus = get("sockets", 1, 65535) * get("corespersocket", 1, 65535) * get("threadspercore", 1, 65535);
    const uint64_t mem = get("realmemory", 1, std::numeric_limits<uint32_t>::max());
    t.nodes = static_cast<uint32_t>(std::min<uint64_t>(t.nodes + nodes, std::numeric_limits<uint32_t>::max()));
    t.cpus = static_cast<uint32_t>(std::min<uint64_t>(t.cpus + nodes * cpus, std::numeric_limits<uint32_t>::max()));
    t.mem_mb += nodes * mem;
    if (auto it = attrs.find("gres"); it != attrs.end()) add_node_gres(*it->second, nodes, &gres);
    i = j;
  }
  for (auto& [name, count] : gres) t.tres.emplace_back(name, count);
  return t;
}

}  // namespace

std::vector<std::string> split_path_list(const std::string& s) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t colon = s.find(':', pos);
    if (colon == std::string::npos) colon = s.size();
    if (colon > pos) out.push_back(s.substr(pos, colon - pos));
    pos = colon + 1;
  }
  return out;
}

uint64_t hostlist_count(const std::string& list) {
  if (list.empty()) throw std::invalid_argument("empty host list");
  uint64_t total = 0;
  size_t i = 0;
  while (i < list.size()) {
    // One host expression: a prefix then optional [ranges] groups, up to a top-level ','.
    uint64_t hosts = 1;
    bool any = false;
    while (i < list.size() && list[i] != ',') {
      if (list[i] == '[') {
        const size_t close = list.find(']', i);
        if (close == std::string::npos) throw std::invalid_argument("unclosed '[' in host list '" + list + "'");
        const std::string body = list.substr(i + 1, close - i - 1);
        uint64_t n = 0;
        size_t p = 0;
        while (p <= body.size()) {
          size_t comma = body.find(',', p);
          if (comma == std::string::npos) comma = body.size();
          const std::string r = body.substr(p, comma - p);
          const size_t dash = r.find('-');
          uint64_t lo = 0, hi = 0;
          if (dash == std::string::npos) {
            if (!parse_u64(r, 1'000'000'000, &lo)) throw std::invalid_argument("bad range '" + r + "' in '" + list + "'");
            hi = lo;
          } else if (!parse_u64(r.substr(0, dash), 1'000'000'000, &lo) ||
                     !parse_u64(r.substr(dash + 1), 1'000'000'000, &hi) || hi < lo) {
            throw std::invalid_argument("bad range '" + r + "' in '" + list + "'");
          }
          n += hi - lo + 1;
          p = comma + 1;
        }
        hosts *= n;
        i = close + 1;
      } else if (list[i] == ']') {
        throw std::invalid_argument("unmatched ']' in host list '" + list + "'");
      } else {
        ++i;
      }
      any = true;
    }
    if (!any) throw std::invalid_argument("empty host name in '" + list + "'");
    total += hosts;
    if (i < list.size()) {
      ++i;  // ','
      if (i == list.size()) throw std::invalid_argument("empty host name in '" + list + "'");
    }
  }
  return total;
}

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
    if (!ok) fail(*p, "'" + v + "' is not a plugin type of the form priority/<name> (e.g. priority/multifactor)");
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
