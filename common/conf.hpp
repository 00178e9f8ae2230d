// conf.hpp - slurm.conf syntax: Key=Value pairs, keys case-insensitive,
// '#' comments, several pairs on one line, "Include other.conf" (relative to
// the including file's directory), quoted values.  Syntax only: what a key
// means is for whoever reads it (the host for PriorityType and PluginDir, the
// plugin for its Priority* keys).  Later pairs override earlier ones.
//
// Details (conf.cpp), checked against Slurm's own reader (parse_config.c):
// an odd number of '\' ending a line (blanks after them allowed) joins the
// next line to it with nothing in between (the pair keeps the first line's
// number); blanks around '=' are allowed ("UsePam = 1", "MailProg= /x": the
// value is the next word); values may be "double" or 'single'
// quoted, and a quoted part may sit inside a longer value (Key=a"b c");
// '#' starts a comment unless quoted or written '\#'; "Include PATH"
// (keyword any case, PATH may be quoted) is resolved against the including
// file's directory unless absolute, and each "%c" in PATH stands for the
// ClusterName set before that line, lower-cased (an error when there is
// none), as Slurm does; include loops and nesting deeper than
// 16 files are errors, and so are an Include target that is not a regular
// file (/dev/zero, a FIFO), a logical line longer than 64 KiB and more than
// 16 MiB read in one load (the conf numbers of bounded_read.hpp); a UTF-8
// byte-order mark opening a file is skipped; messages quote at most 60
// bytes of a line.
// Every pair keeps the file it was written in.  Errors do not stop the
// reading: each bad line is skipped and every error is reported at the end,
// together, as one ConfError whose message has one "file:line: why" per line
// (a size bound still stops the reading where it is hit).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "strings.hpp"  // iequals: conf keys compare ASCII case-insensitively

namespace mfprio {

struct ConfError : std::runtime_error {
  using std::runtime_error::runtime_error;  // "file:line: message", one per line
};

// Collects "file:line: why" messages so a reader can report every error of
// a run at once; throw_if_any() throws them as one ConfError, one per line,
// in the order added, a message repeated word for word kept once.
class ConfErrors {
 public:
  void add(const std::string& msg);
  bool empty() const { return items_.empty(); }
  const std::vector<std::string>& items() const { return items_; }
  std::string joined() const;
  void throw_if_any() const;
  // Orders the messages by where they point: files in the order first
  // named, lines ascending within a file (stable; messages naming no
  // "file:line" keep their order after the others).
  void sort_by_position();

 private:
  std::vector<std::string> items_;
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

// The store-location rule, the one place it is written (mfprio-acct --conf,
// mfprio-host and every family use it): the last AccountingStorageLoc pair
// wins; a relative path is taken against the directory of the file that
// wrote it (never the working directory).  When the key is absent (a
// slurmdbd site has none) the store is "mfprio.db" in StateSaveLocation
// (the directory slurmctld keeps its state in; relative the same way) when
// that key is set, else "mfprio.db" beside the file that wrote the conf's
// first pair (slurm.conf itself unless it opens with an Include), when that
// is a file that exists.  Returns "" when none of these applies (no pairs,
// or a host that names no real file).  *origin (may be null) gets
// "file:line" of the key used, or "default: ..." saying which rule applied.
// Throws ConfigError naming file:line and the key when a value is empty.
std::string store_location(const std::vector<ConfPair>& pairs, std::string* origin);
// Whether AccountingStorageLoc is written (for a family whose store is optional).
bool store_location_given(const std::vector<ConfPair>& pairs);
inline constexpr const char* kDefaultStoreName = "mfprio.db";
// The cluster a store is opened for: the last ClusterName, trimmed and
// lower-cased as slurmctld registers it; "" when absent (the store's
// default cluster).  A PostgreSQL store keeps each cluster in its own
// schema (accounting/store.hpp: OpenOptions::cluster).
std::string store_cluster(const std::vector<ConfPair>& pairs);

}  // namespace mfprio
