// slurm_conf.cpp - see adapter_conf.hpp: priority/mfprio's PriorityParameters
// items and the family's pairs.  No Slurm header is included here, so it is
// mfprio's code under mfprio's licence, linked into priority_mfprio.so with
// the GPL half (LICENSE) and into mfprio-host (sprio --slurm).
#include "adapter_conf.hpp"

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "conf.hpp"
#include "params.hpp"
#include "strings.hpp"

namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(ch >= 'A' && ch <= 'Z' ? ch - 'A' + 'a' : ch);
  return s;
}

std::string trim(const std::string& s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

std::string where(const mfprio::ConfPair& p) { return p.file + ":" + std::to_string(p.line) + ": " + p.key; }

// Splits the PriorityParameters pair into the adapter's items and the
// family's rest; the family's pair is rewritten to the rest (or dropped).
void take_parameters(mfprio::slurm_adapter::AdapterConf* c, const mfprio::ConfPair& p,
                     std::vector<mfprio::ConfPair>* out) {
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

}  // namespace

namespace mfprio::slurm_adapter {

AdapterConf adapter_conf(const Conf& conf, const std::string& path) {
  AdapterConf c;
  const ConfPair* params = conf.find("PriorityParameters");
  if (!params)
    throw ConfigError(path + ": PriorityParameters: priority/mfprio needs PriorityParameters=family=NAME,...");
  c.params = *params;
  for (const ConfPair& p : conf.pairs()) {
    if (&p == params) continue;
    if (iequals(p.key, "PriorityParameters")) continue;  // an earlier, overridden one
    c.pairs.push_back(p);
  }
  take_parameters(&c, *params, &c.pairs);
  if (c.family.empty())
    throw ConfigError(where(*params) + ": family= missing (the mfprio family NAME of priority_NAME.so)");
  for (ConfPair& p : c.pairs)
    if (iequals(p.key, "PriorityType")) p.value = "priority/" + c.family;
  return c;
}

}  // namespace mfprio::slurm_adapter
