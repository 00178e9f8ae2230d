// slurm_conf.cpp - see slurm_conf.hpp.
#include "slurm_conf.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>
#include <stdexcept>
#include <unordered_map>

#include "strings.hpp"
#include "tres.hpp"

namespace mfprio {
namespace {

std::string at(const ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": "; }

[[noreturn]] void fail(const ConfPair& p, const std::string& why) { throw ConfigError(at(p) + p.key + ": " + why); }

uint64_t u64_value(const ConfPair& p, uint64_t max) {
  uint64_t v = 0;
  if (!parse_u64(p.value, max, &v))
    fail(p, "'" + p.value + "' is not an unsigned integer (0.." + std::to_string(max) + ")");
  return v;
}

// A node line's Gres= per node: "gpu:4", "gpu:a100:2,mps:100", "gpu" = 1,
// a "(S:0-1)" socket binding ignored.
std::vector<std::pair<std::string, double>> node_gres(const ConfPair& p) {
  std::map<std::string, double> sum;
  if (!p.value.empty() && !iequals(p.value, "(null)")) {
    size_t pos = 0;
    while (pos <= p.value.size()) {
      size_t comma = p.value.find(',', pos);
      if (comma == std::string::npos) comma = p.value.size();
      const std::string item = p.value.substr(pos, comma - pos);
      pos = comma + 1;
      if (item.empty()) fail(p, "empty item in '" + p.value + "'");
      const size_t c1 = item.find(':');
      const std::string name = item.substr(0, c1);
      double count = 1;
      if (c1 != std::string::npos) {
        const size_t c2 = item.rfind(':');
        std::string num = item.substr(c2 + 1);
        const size_t paren = num.find('(');
        if (paren != std::string::npos) num.resize(paren);
        uint64_t n = 0;
        if (parse_u64(num, std::numeric_limits<uint32_t>::max(), &n)) {
          count = static_cast<double>(n);
        } else if (c2 != c1) {
          fail(p, "'" + item + "' is not name[:type]:count");
        }  // else "gpu:a100" = one typed gres
      }
      sum["gres/" + lower(name)] += count;
    }
  }
  return {sum.begin(), sum.end()};
}

void add_gres(std::map<std::string, double>* to, const std::vector<std::pair<std::string, double>>& g,
              double times) {
  for (const auto& [n, c] : g) (*to)[n] += c * times;
}

}  // namespace

bool is_record_key(const std::string& key) {
  static const char* const kRecords[] = {"NodeName", "PartitionName", "NodeSet", "FrontendName", "DownNodes"};
  for (const char* k : kRecords)
    if (iequals(key, k)) return true;
  return false;
}

std::vector<ConfRecord> conf_records(const std::vector<ConfPair>& pairs, const char* kind) {
  std::vector<ConfRecord> out;
  std::map<std::string, const ConfPair*> defaults;
  for (size_t i = 0; i < pairs.size();) {
    size_t j = i + 1;  // the pairs of one logical line share file and line
    while (j < pairs.size() && pairs[j].line == pairs[i].line && pairs[j].file == pairs[i].file) ++j;
    if (iequals(pairs[i].key, kind)) {
      ConfRecord r;
      r.head = &pairs[i];
      r.attrs = defaults;
      for (size_t k = i + 1; k < j; ++k) r.attrs[lower(pairs[k].key)] = &pairs[k];
      if (iequals(pairs[i].value, "DEFAULT")) defaults = r.attrs;
      else out.push_back(std::move(r));
    }
    i = j;
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

std::vector<std::string> hostlist_expand(const std::string& list, size_t max) {
  if (hostlist_count(list) > max)  // validates the syntax too
    throw std::invalid_argument("host list '" + list + "' names more than " + std::to_string(max) + " hosts");
  std::vector<std::string> out;
  size_t i = 0;
  while (i < list.size()) {
    std::vector<std::string> names{std::string()};
    while (i < list.size() && list[i] != ',') {
      if (list[i] == '[') {
        const size_t close = list.find(']', i);
        const std::string body = list.substr(i + 1, close - i - 1);
        std::vector<std::string> parts;  // the numbers of this group, padded as written
        size_t p = 0;
        while (p <= body.size()) {
          size_t comma = body.find(',', p);
          if (comma == std::string::npos) comma = body.size();
          const std::string r = body.substr(p, comma - p);
          const size_t dash = r.find('-');
          const std::string a = r.substr(0, dash);
          const std::string b = dash == std::string::npos ? a : r.substr(dash + 1);
          uint64_t lo = 0, hi = 0;
          parse_u64(a, 1'000'000'000, &lo);
          parse_u64(b, 1'000'000'000, &hi);
          const size_t width = a.size();
          for (uint64_t v = lo; v <= hi; ++v) {
            std::string num = std::to_string(v);
            if (num.size() < width) num.insert(0, width - num.size(), '0');
            parts.push_back(std::move(num));
          }
          p = comma + 1;
        }
        std::vector<std::string> next;
        next.reserve(names.size() * parts.size());
        for (const std::string& n : names)
          for (const std::string& q : parts) next.push_back(n + q);
        names = std::move(next);
        i = close + 1;
      } else {
        for (std::string& n : names) n += list[i];
        ++i;
      }
    }
    for (std::string& n : names) out.push_back(std::move(n));
    if (i < list.size()) ++i;
  }
  return out;
}

std::vector<NodeLine> node_lines(const std::vector<ConfRecord>& records) {
  std::vector<NodeLine> out;
  out.reserve(records.size());
  for (const ConfRecord& r : records) {
    NodeLine n;
    n.record = &r;
    try {
      n.count = hostlist_count(r.name());
    } catch (const std::invalid_argument& e) {
      fail(*r.head, e.what());
    }
    auto get = [&](const char* key, uint64_t dflt, uint64_t max) -> uint64_t {
      const ConfPair* p = r.get(key);
      return p ? u64_value(*p, max) : dflt;
    };
    n.cpus = get("cpus", 0, std::numeric_limits<uint32_t>::max());
    if (n.cpus == 0)
      n.cpus = get("sockets", 1, 65535) * get("corespersocket", 1, 65535) * get("threadspercore", 1, 65535);
    n.mem_mb = get("realmemory", 1, std::numeric_limits<uint32_t>::max());
    if (const ConfPair* g = r.get("gres")) n.gres = node_gres(*g);
    out.push_back(std::move(n));
  }
  return out;
}

NodeTotals sum_nodes(const std::vector<NodeLine>& lines) {
  NodeTotals t;
  std::map<std::string, double> gres;
  for (const NodeLine& n : lines) {
    t.nodes += n.count;
    t.cpus += n.count * n.cpus;
    t.mem_mb += n.count * n.mem_mb;
    add_gres(&gres, n.gres, static_cast<double>(n.count));
  }
  t.gres.assign(gres.begin(), gres.end());
  return t;
}

namespace {
constexpr size_t kMaxHosts = 1u << 20;
}

HostIndex index_hosts(const std::vector<NodeLine>& nodes) {
  HostIndex line_of;
  size_t hosts = 0;
  for (size_t k = 0; k < nodes.size(); ++k) {
    hosts += nodes[k].count;
    if (hosts > kMaxHosts)
      fail(*nodes[k].record->head, "more than " + std::to_string(kMaxHosts) + " NodeName hosts in all");
    for (std::string& h : hostlist_expand(nodes[k].record->name(), kMaxHosts)) line_of[h] = k;
  }
  return line_of;
}

bool partition_totals(const ConfRecord& partition, const std::vector<NodeLine>& nodes, const HostIndex& line_of,
                      const std::vector<ConfRecord>& nodesets, NodeTotals* out) {
  const ConfPair* list = partition.get("nodes");
  if (!list) return false;
  *out = NodeTotals{};
  if (iequals(list->value, "ALL")) {
    *out = sum_nodes(nodes);
    return true;
  }
  std::vector<std::string> names;
  try {
    names = hostlist_expand(list->value, kMaxHosts);
  } catch (const std::invalid_argument& e) {
    fail(*list, e.what());
  }
  std::set<std::string> seen;
  std::map<std::string, double> gres;
  auto add_host = [&](const std::string& h) {
    if (!seen.insert(h).second) return;
    const NodeLine& n = nodes[line_of.at(h)];
    out->nodes += 1;
    out->cpus += n.cpus;
    out->mem_mb += n.mem_mb;
    add_gres(&gres, n.gres, 1.0);
  };
  for (const std::string& name : names) {
    if (line_of.count(name)) {
      add_host(name);
      continue;
    }
    const ConfRecord* set = nullptr;
    for (const ConfRecord& s : nodesets)
      if (s.name() == name) set = &s;
    if (!set) fail(*list, "'" + name + "' (partition " + partition.name() + ") is neither a NodeName host nor a NodeSet");
    if (const ConfPair* members = set->get("nodes")) {
      std::vector<std::string> hs;
      try {
        hs = iequals(members->value, "ALL") ? std::vector<std::string>() : hostlist_expand(members->value, kMaxHosts);
      } catch (const std::invalid_argument& e) {
        fail(*members, e.what());
      }
      if (iequals(members->value, "ALL"))
        for (const auto& [h, k] : line_of) add_host(h);
      for (const std::string& h : hs) {
        if (!line_of.count(h)) fail(*members, "'" + h + "' (NodeSet " + name + ") is not a NodeName host");
        add_host(h);
      }
    } else if (const ConfPair* feature = set->get("feature")) {
      // The hosts whose Features= (or Feature=) list holds it.
      for (const auto& [h, k] : line_of) {
        const ConfPair* f = nodes[k].record->get("features");
        if (!f) f = nodes[k].record->get("feature");
        if (!f) continue;
        size_t pos = 0;
        while (pos <= f->value.size()) {
          size_t comma = f->value.find(',', pos);
          if (comma == std::string::npos) comma = f->value.size();
          if (f->value.compare(pos, comma - pos, feature->value) == 0 && comma - pos == feature->value.size()) {
            add_host(h);
            break;
          }
          pos = comma + 1;
        }
      }
    }
  }
  out->gres.assign(gres.begin(), gres.end());
  return true;
}

const std::vector<const char*>& known_priority_keys() {
  static const std::vector<const char*> keys = {
      "PriorityCalcPeriod",        "PriorityDecayHalfLife",   "PriorityFavorSmall",
      "PriorityFlags",             "PriorityMaxAge",          "PriorityParameters",
      "PrioritySiteFactorParameters", "PrioritySiteFactorPlugin", "PriorityType",
      "PriorityUsageResetPeriod",  "PriorityWeightAge",       "PriorityWeightAssoc",
      "PriorityWeightFairshare",   "PriorityWeightJobSize",   "PriorityWeightPartition",
      "PriorityWeightQOS",         "PriorityWeightTRES",
      "PriorityMaxDecayGap",  // mfprio's own (plugin runtime)
  };
  return keys;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  const std::string x = lower(a), y = lower(b);
  std::vector<size_t> row(y.size() + 1);
  for (size_t j = 0; j <= y.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= x.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= y.size(); ++j) {
      const size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (x[i - 1] == y[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[y.size()];
}

void check_slurm_keys(const std::vector<ConfPair>& pairs, ConfErrors* errors) {
  // The cluster's own TRES names count as known.
  std::vector<std::string> cluster;
  for (const ConfPair& p : pairs)
    if (iequals(p.key, "AccountingStorageTRES") || iequals(p.key, "ClusterTRES"))
      for (std::string& n : tres_list_names(p.value)) cluster.push_back(std::move(n));

  auto check_tres = [&](const ConfPair& p, bool allow_negative) {
    std::vector<TresWeight> ws;
    std::string why;
    if (!parse_tres_spec(p.value, &ws, &why, allow_negative)) {
      errors->add(at(p) + p.key + ": " + why);
      return;
    }
    for (const TresWeight& w : ws)
      if (!tres_name_known(w.name, cluster))
        errors->add(at(p) + p.key + ": unknown TRES '" + w.name +
                    "' (known: cpu, mem, node, energy, billing, vmem, pages, fs/disk, gres/<name>, "
                    "license/<name>, bb/<name>, fs/<name>, ic/<name>, and AccountingStorageTRES's)");
  };

  bool in_record = false;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const ConfPair& p = pairs[i];
    const bool line_start = i == 0 || pairs[i - 1].line != p.line || pairs[i - 1].file != p.file;
    if (line_start) in_record = is_record_key(p.key);
    if (in_record) {
      // Only partition lines carry TRES weights.
      if (iequals(p.key, "TRESBillingWeights") && !line_start) {
        size_t h = i;
        while (h > 0 && pairs[h - 1].line == p.line && pairs[h - 1].file == p.file) --h;
        if (iequals(pairs[h].key, "PartitionName")) check_tres(p, false);
      }
      continue;
    }
    if (iequals(p.key, "PriorityWeightTRES")) check_tres(p, true);
    else if (iequals(p.key, "TRESBillingWeights")) check_tres(p, false);
    if (p.key.size() < 8 || !iequals(p.key.substr(0, 8), "priority")) continue;
    const auto& known = known_priority_keys();
    const char* best = nullptr;
    size_t best_d = SIZE_MAX;
    bool ok = false;
    for (const char* k : known) {
      if (iequals(p.key, k)) {
        ok = true;
        break;
      }
      const size_t d = edit_distance(p.key, k);
      if (d < best_d) {
        best_d = d;
        best = k;
      }
    }
    if (!ok)
      errors->add(at(p) + "unknown key '" + p.key + "' (did you mean " + best +
                  "?): Slurm refuses to start on an unknown key");
  }
}

}  // namespace mfprio
