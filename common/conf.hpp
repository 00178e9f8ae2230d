// conf.hpp - slurm.conf syntax: Key=Value pairs, keys case-insensitive,
// '#' comments, several pairs on one line, "Include other.conf" (relative to
// the including file's directory), quoted values.  Syntax only: what a key
// means is for whoever reads it (the host for PriorityType and PluginDir, the
// plugin for its Priority* keys).  Later pairs override earlier ones.
//
// Details (conf.cpp): a line ending in '\' continues on the next line (the
// pair keeps the first line's number); values may be "double" or 'single'
// quoted, and a quoted part may sit inside a longer value (Key=a"b c");
// '#' starts a comment unless quoted or written '\#'; "Include PATH"
// (keyword any case, PATH may be quoted) is resolved against the including
// file's directory unless absolute; include loops and nesting deeper than
// 16 files are errors, and so are an Include target that is not a regular
// file (/dev/zero, a FIFO), a logical line longer than 64 KiB and more than
// 16 MiB read in one load; messages quote at most 60 bytes of a line.
// Every pair keeps the file it was written in.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace mfprio {

// ASCII case-insensitive equality, as conf keys compare.
bool iequals(std::string_view a, std::string_view b);

struct ConfError : std::runtime_error {
  using std::runtime_error::runtime_error;  // "file:line: message"
};
// A known key with a bad value (thrown by whoever reads the key: the host's
// settings, a family's settings parser).  The same type as a syntax error.
using ConfigError = ConfError;

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
  // Appends a pair after all others, so it overrides them (replay --no-decay).
  void add(ConfPair p) { pairs_.push_back(std::move(p)); }

 private:
  class Parser;  // conf.cpp
  std::vector<ConfPair> pairs_;
};

// The store-location rule, the one place it is written: the last
// AccountingStorageLoc pair wins; a relative path is taken against the
// directory of the file that wrote it (never the working directory).
// Returns "" when the key is absent; *origin (may be null) gets "file:line".
// Throws ConfigError when the value is empty.
std::string store_location(const std::vector<ConfPair>& pairs, std::string* origin);

}  // namespace mfprio
