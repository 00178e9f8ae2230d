// tres.cpp - see tres.hpp.
#include "tres.hpp"
#include "strings.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace mfprio {

std::string tres_lower(const std::string& s) { return lower(s); }

bool tres_name_known(const std::string& lower, const std::vector<std::string>& cluster) {
  static const char* const kPlain[] = {"cpu", "mem", "node", "energy", "billing", "vmem", "pages"};
  for (const char* k : kPlain)
    if (lower == k) return true;
  static const char* const kTyped[] = {"gres/", "license/", "bb/", "fs/", "ic/"};
  for (const char* t : kTyped) {
    const size_t n = std::char_traits<char>::length(t);
    if (lower.size() > n && lower.compare(0, n, t) == 0) return true;
  }
  return std::find(cluster.begin(), cluster.end(), lower) != cluster.end();
}

std::vector<std::string> tres_list_names(const std::string& list) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    std::string item = list.substr(pos, comma - pos);
    item = item.substr(0, item.find('='));
    item = trim_space(item);
    if (!item.empty()) out.push_back(tres_lower(item));
    pos = comma + 1;
  }
  return out;
}

namespace {

// The power of 1024 a trailing K/M/G/T/P stands for (any case), 0 for none.
int suffix_scale(const std::string& s) {
  if (s.empty()) return 0;
  switch (std::toupper(static_cast<unsigned char>(s.back()))) {
    case 'K': return 1;
    case 'M': return 2;
    case 'G': return 3;
    case 'T': return 4;
    case 'P': return 5;
    default: return 0;
  }
}

bool valid_name(const std::string& n) {
  if (n.empty()) return false;
  for (char c : n)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '/' || c == '_' || c == '-' ||
          c == ':' || c == '.'))
      return false;
  return true;
}

// A weight spec, or (counts) a list of counts: the same items, the
// messages in the words of what is parsed.
bool parse_items(const std::string& spec, std::vector<TresWeight>* out, std::string* why, bool allow_negative,
                 bool counts) {
  const char* noun = counts ? "count" : "weight";
  out->clear();
  const std::string s = trim_space(spec);
  if (s.empty()) return true;
  size_t pos = 0;
  while (pos <= s.size()) {
    size_t comma = s.find(',', pos);
    if (comma == std::string::npos) comma = s.size();
    const std::string item = trim_space(s.substr(pos, comma - pos));
    pos = comma + 1;
    const size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos) {
      if (why)
        *why = counts ? "TRES item '" + item + "' is not name=count (e.g. gres/gpu=8)"
                      : "TRES item '" + item + "' is not Name=Weight";
      return false;
    }
    TresWeight w;
    w.name = tres_lower(trim_space(item.substr(0, eq)));
    std::string num = trim_space(item.substr(eq + 1));
    if (!valid_name(w.name)) {
      if (why) *why = "bad TRES name '" + item.substr(0, eq) + "'";
      return false;
    }
    const int scale = suffix_scale(num);  // power of 1024 the suffix stands for
    if (scale) num.pop_back();
    errno = 0;
    char* end = nullptr;
    const double v = num.empty() ? NAN : std::strtod(num.c_str(), &end);
    if (num.empty() || end == num.c_str() || *end != '\0' || errno == ERANGE || !std::isfinite(v)) {
      if (why) *why = "bad " + std::string(noun) + " '" + item.substr(eq + 1) + "' for TRES '" + w.name + "'";
      return false;
    }
    if (v < 0 && !allow_negative) {
      if (why) *why = "negative " + std::string(noun) + " for TRES '" + w.name + "'";
      return false;
    }
    // Memory's base unit is the MB (scale 2), everything else counts units.
    const int base = (w.name == "mem") ? 2 : 0;
    w.weight = (scale == 0) ? v : v / std::pow(1024.0, scale - base);
    for (const TresWeight& o : *out)
      if (o.name == w.name) {
        if (why) *why = "TRES '" + w.name + "' given twice";
        return false;
      }
    w.kind = w.name == "cpu" ? TresKind::Cpu
             : w.name == "mem" ? TresKind::Mem
             : w.name == "node" ? TresKind::Node
                                : TresKind::Other;
    out->push_back(w);
    if (comma == s.size()) break;
  }
  return true;
}

}  // namespace

bool parse_tres_spec(const std::string& spec, std::vector<TresWeight>* out, std::string* why,
                     bool allow_negative) {
  return parse_items(spec, out, why, allow_negative, /*counts=*/false);
}

namespace {
// Node-level TRES take part in MAX_TRES's max; the rest are summed.
bool node_level(const std::string& n) {
  return n == "cpu" || n == "mem" || n == "node" || n.rfind("gres/", 0) == 0;
}
}  // namespace

double billable_tres(const std::vector<TresWeight>& weights, double cpu, double mem_mb,
                     double nodes, const std::vector<std::pair<std::string, double>>& extra,
                     bool max_tres) {
  if (weights.empty()) return cpu;
  double sum = 0, mx = 0, global = 0;
  for (const TresWeight& w : weights) {
    double count = 0;
    if (w.name == "cpu") count = cpu;
    else if (w.name == "mem") count = mem_mb;
    else if (w.name == "node") count = nodes;
    else
      for (const auto& e : extra)
        if (e.first == w.name) count = e.second;
    const double v = count * w.weight;
    sum += v;
    if (node_level(w.name)) mx = std::max(mx, v);
    else global += v;
  }
  return max_tres ? mx + global : sum;
}

}  // namespace mfprio

namespace mfprio {
bool parse_tres_counts(const std::string& spec, std::vector<std::pair<std::string, double>>* out,
                       std::string* why) {
  // Same item syntax as a weight spec; a suffix scales the count up instead.
  std::vector<TresWeight> items;
  out->clear();
  size_t pos = 0;
  std::string plain;  // the spec with suffixes removed, parsed as weights
  std::vector<int> scales;
  while (pos <= spec.size()) {
    size_t comma = spec.find(',', pos);
    if (comma == std::string::npos) comma = spec.size();
    std::string item = spec.substr(pos, comma - pos);
    while (!item.empty() && is_ascii_space(item.back())) item.pop_back();
    int scale = item.find('=') != std::string::npos ? suffix_scale(item) : 0;
    if (scale) item.pop_back();
    scales.push_back(scale);
    plain += (plain.empty() ? "" : ",") + item;
    if (comma == spec.size()) break;
    pos = comma + 1;
  }
  if (!parse_items(plain, &items, why, /*allow_negative=*/false, /*counts=*/true)) return false;
  for (size_t i = 0; i < items.size(); ++i) {
    const int base = items[i].name == "mem" ? 2 : 0;
    const double v = scales[i] ? items[i].weight * std::pow(1024.0, scales[i] - base) : items[i].weight;
    out->emplace_back(items[i].name, v);
  }
  return true;
}
}  // namespace mfprio
