// params.hpp - the PriorityParameters=NAME=VALUE[,NAME=VALUE...] list that
// the families reading an admin's native files take (priority/maui:
// config=PATH; priority/gridengine: sched_conf=PATH,complexes=PATH), the
// rule that a path named there is relative to the conf file that wrote it,
// and floor division for time windows (a window index of a time before the
// epoch rounds down, not toward zero).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <string>

#include "conf.hpp"

namespace mfprio {

// Parses p.value as comma-separated NAME=VALUE items (spaces around items
// ignored, names lowercased).  Throws ConfigError "file:line:
// PriorityParameters: ..." for an item without '=', an unknown name (the
// message lists `known` and says who reads them), a name given twice and an
// empty value.
std::map<std::string, std::string> priority_parameters(const ConfPair& p,
                                                       std::initializer_list<const char*> known,
                                                       const std::string& reader);

// `path` as written in pair p: unchanged when absolute, else against the
// directory of the file that wrote p (never the working directory).
std::string conf_relative_path(const ConfPair& p, const std::string& path);

// Reads the file named by p's item `name` (path resolved as above) whole,
// under the conf bounds of bounded_read.hpp; *full gets the resolved path.
// Throws ConfigError "file:line: PriorityParameters: NAME=PATH: cannot
// read: why" (or the bound it is over).
std::string read_parameter_file(const ConfPair& p, const std::string& name, const std::string& path,
                                std::string* full);

// Floor division for a positive `len`: floor_div(-1, 10) == -1.
inline int64_t floor_div(int64_t t, int64_t len) {
  int64_t q = t / len;
  if ((t % len) != 0 && t < 0) --q;
  return q;
}

}  // namespace mfprio
