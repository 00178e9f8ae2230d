// conf.hpp - slurm.conf syntax: Key=Value pairs, keys case-insensitive,
// '#' comments, several pairs on one line, "Include other.conf" (relative to
// the including file's directory), quoted values.  Syntax only: what a key
// means is for whoever reads it (the host for PriorityType and PluginDir, the
// plugin for its Priority* keys).  Later pairs override earlier ones.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace mfprio::host {

struct ConfError : std::runtime_error {
  using std::runtime_error::runtime_error;  // "file:line: message"
};

struct ConfPair {
  std::string key;    // as written
  std::string value;  // unquoted
  std::string file;
  uint32_t line = 0;
};

class Conf {
 public:
  // Reads `path` and its includes.  Throws ConfError naming file:line.
  static Conf load(const std::string& path);
  // Parses text as if read from `file` (for tests and embedded defaults).
  static Conf parse(const std::string& text, const std::string& file);

  // The last pair for `key` (case-insensitive), or nullptr.
  const ConfPair* find(const std::string& key) const;
  const std::vector<ConfPair>& pairs() const { return pairs_; }

 private:
  std::vector<ConfPair> pairs_;
};

}  // namespace mfprio::host
