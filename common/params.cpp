// params.cpp - see params.hpp.
#include "params.hpp"

#include <cctype>
#include <sstream>

#include "bounded_read.hpp"
#include "strings.hpp"

namespace mfprio {
namespace {

std::string where(const ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": PriorityParameters: "; }

}  // namespace

std::map<std::string, std::string> priority_parameters(const ConfPair& p,
                                                       std::initializer_list<const char*> known,
                                                       const std::string& reader) {
  std::map<std::string, std::string> out;
  std::string item;
  std::istringstream in(p.value);
  while (std::getline(in, item, ',')) {
    item = trim_space(item);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) throw ConfigError(where(p) + "'" + item + "' is not NAME=VALUE");
    const std::string k = lower(trim_space(item.substr(0, eq)));
    bool ok = false;
    std::string names;
    for (const char* n : known) {
      ok = ok || k == n;
      names += (names.empty() ? "" : " and ") + std::string(n) + "=PATH";
    }
    if (!ok) throw ConfigError(where(p) + "unknown key '" + k + "' (" + reader + " reads " + names + ")");
    if (out.count(k)) throw ConfigError(where(p) + "'" + k + "' given twice");
    const std::string v = trim_space(item.substr(eq + 1));
    if (v.empty()) throw ConfigError(where(p) + "'" + k + "' has no path");
    out[k] = v;
  }
  return out;
}

std::string conf_relative_path(const ConfPair& p, const std::string& path) {
  if (path.empty() || path[0] == '/') return path;
  const size_t slash = p.file.rfind('/');
  return slash == std::string::npos ? path : p.file.substr(0, slash + 1) + path;
}

std::string read_parameter_file(const ConfPair& p, const std::string& name, const std::string& path,
                                std::string* full) {
  const std::string resolved = conf_relative_path(p, path);
  try {
    std::string text = read_bounded(resolved, kConfBounds);
    if (full) *full = resolved;
    return text;
  } catch (const ReadError& e) {
    throw ConfigError(where(p) + name + "=" + e.what());
  }
}

}  // namespace mfprio
