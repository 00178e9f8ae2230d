// layout.hpp - view layouts: how a family's admins expect sprio and sshare
// to look, chosen by the name the plugin declares, never by its type.
//
// A plugin names its layout in plugin_info_json (an additive key; older
// plugins have none and get the generic layout of views.hpp):
//   "view": {"layout": NAME,
//            "terms": {SLOT: term name, ...},          the layout's slots -> the family's terms
//            "weights": {term name: weight, ...},      including the TRES term's weight as written
//            "share_columns": {FIELD: column, ...},    the layout's share fields -> share_table columns
//            other members: booleans the layout reads (e.g. "level_fs")}
// The layout module NAME (host-shim/layout_<name>.cpp, listed once in
// layout.cpp) renders its system's columns from those names; an unknown
// NAME falls back to the generic layout.  The host never compares plugin
// types and reads no family's conf keys: all it knows of a family is here.
#pragma once

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cli.hpp"
#include "views.hpp"

namespace mfprio::host {

// plugin_info_json's "view" object, parsed.
struct ViewInfo {
  std::string layout;                               // "" when none is declared
  std::map<std::string, std::string> terms;         // slot -> term name
  std::map<std::string, std::string> share_columns; // share field -> share_table column name
  std::map<std::string, bool> flags;                // the view's boolean members
  Weights weights;  // "view"."weights", else the top-level "weights" (older plugins)
  bool flag(const std::string& key, bool otherwise) const;
};

// From a plugin_info_json document ("" or invalid JSON: an empty ViewInfo).
ViewInfo parse_view_info(const std::string& info_json);

// plugin_info_json's "conf_names": the names the family's own files
// configure, by kind ("partitions", "accounts", "users", ...), each an array
// of strings (a plugin built before that form gave one comma-separated
// string: read too); empty when the family declares none.
std::map<std::string, std::vector<std::string>> parse_conf_names(const std::string& info_json);

class Layout {
 public:
  virtual ~Layout() = default;
  virtual const char* name() const = 0;
  // sprio's text for `rows` (already filtered and in order) into *out.
  // false: the layout has no such view for these options (the generic
  // layout prints it).
  virtual bool sprio(const std::vector<SprioRow>& rows, const Options& o, const ViewInfo& v,
                     std::string* out) const = 0;
  // sshare of the plugin's table (the rows `keep` accepts; nullptr: all)
  // written to `out`.  false: the generic layout prints it.
  virtual bool sshare(const mfprio_share_table_t& table, const Options& o, const ViewInfo& v,
                      const std::function<bool(const mfprio_share_row_t&)>& keep, std::FILE* out) const = 0;
  // Sorts sprio rows by a -S spec.  Throws std::invalid_argument naming a bad key.
  virtual void sort(std::vector<SprioRow>* rows, const std::string& spec, const ViewInfo& v) const = 0;
  // Checks -o / -S of `o` before anything is loaded.  Throws
  // std::invalid_argument with the reason.
  virtual void check(const Options& o) const = 0;
  // What sprio --helpformat / sshare -e list for this layout's -o.
  virtual std::string helpformat(Command c) const = 0;
  // The job views sprio --view NAME prints (sprio() gets o.view set); none by default.
  virtual std::vector<std::string> views() const { return {}; }
};

// The layout named `name`, or nullptr (the generic layout).
const Layout* find_layout(const std::string& name);
// The layout whose syntax sprio -o/-S and sshare -o/-m take (any family
// given those options is printed by it).
const Layout& format_layout();
// Every layout's name, for docs and tests.
std::vector<std::string> layout_names();

}  // namespace mfprio::host
