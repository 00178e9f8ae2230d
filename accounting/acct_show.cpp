// acct_show.cpp - `mfprio-acct show tree|accounts|users|qos|partitions|queues|
// associations|decay`.
//
// Every view is a table of named fields.  Without format= the mfprio views
// keep their own columns (aligned, or -p/-P); `show associations` and any
// format= list print sacctmgr's way: each field in a fixed width (the
// field's default or `%N` from format=; right-aligned, a negative width
// left-aligns; a longer value is cut and ends in '+'), a space after every
// field, a dashes line under the header.  Field names in format= match
// case-insensitively by prefix (at least the field's minimum length, as
// sacctmgr does), first match in the view's list wins.  -p puts `|` after
// every field, -P between fields; -n drops the header.  Numbers in -p/-P
// keep 17 digits so that scripts see what the store holds.
#include <strings.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include "acct_cli.hpp"
#include "admin.hpp"
#include "import_export.hpp"

namespace mfprio::acct::cli {
namespace {

using Row = std::vector<std::string>;

std::string num(double v, bool exact) {
  char buf[40];
  std::snprintf(buf, sizeof buf, exact ? "%.17g" : "%.6g", v);
  return buf;
}

std::string shares_str(uint32_t s, bool parent) { return parent ? "parent" : std::to_string(s); }

// One field of a view: the name format= matches (`full`, at least `min`
// characters of it), the header, the default width, and the row column.
struct Field {
  const char* full;
  size_t min;
  const char* header;
  int width;
  size_t col;
};

struct Column {
  std::string header;
  int width;   // < 0: left-aligned
  size_t col;
};

bool abbrev(const std::string& word, const char* full, size_t min) {
  const size_t n = std::char_traits<char>::length(full);
  return word.size() >= min && word.size() <= n && strncasecmp(word.c_str(), full, word.size()) == 0;
}

// format=a,b%12 -> columns; unknown names are usage errors listing the fields.
std::vector<Column> pick(const std::vector<Field>& fields, const std::vector<std::string>& items,
                         const std::string& view) {
  std::vector<Column> out;
  for (const std::string& item : items) {
    std::string name = item;
    int width = 0;
    bool has_width = false;
    if (size_t pct = item.find('%'); pct != std::string::npos) {
      name = item.substr(0, pct);
      const std::string w = item.substr(pct + 1);
      char* end = nullptr;
      long v = std::strtol(w.c_str(), &end, 10);
      if (w.empty() || *end || v == 0 || v < -1000 || v > 1000)
        throw UsageError("show " + view + ": format item \"" + item + "\": width must be a non-zero integer");
      width = static_cast<int>(v);
      has_width = true;
    }
    const Field* f = nullptr;
    for (const Field& c : fields)
      if (abbrev(name, c.full, c.min)) {
        f = &c;
        break;
      }
    if (!f) {
      std::string known;
      std::set<std::string> seen;
      for (const Field& c : fields)
        if (seen.insert(c.header).second) known += (known.empty() ? "" : ", ") + std::string(c.full);
      throw UsageError("show " + view + ": unknown field \"" + name + "\" in format= (" + known + ")");
    }
    out.push_back(Column{f->header, has_width ? width : f->width, f->col});
  }
  return out;
}

// sacctmgr's layout (see the file comment).
void print_fixed(const std::vector<Column>& cols, const std::vector<Row>& rows, const ShowOptions& o,
                 std::ostream& out) {
  // A header is cut to the width; a value that does not fit ends in '+'.
  auto cell = [&](const std::string& v, int width, bool head = false) {
    const size_t w = static_cast<size_t>(std::abs(width));
    std::string s = v.size() <= w ? v : head ? v.substr(0, w) : v.substr(0, w - 1) + "+";
    std::string pad(w - s.size(), ' ');
    return (width < 0 ? s + pad : pad + s) + " ";
  };
  if (o.header) {
    std::string h, d;
    for (const Column& c : cols) {
      h += cell(c.header, c.width, true);
      d += std::string(static_cast<size_t>(std::abs(c.width)), '-') + " ";
    }
    out << h << '\n' << d << '\n';
  }
  for (const Row& r : rows) {
    std::string line;
    for (const Column& c : cols) line += cell(r[c.col], c.width);
    out << line << '\n';
  }
}

void print_parsable(const Row& header, const std::vector<Row>& rows, const ShowOptions& o,
                    std::ostream& out) {
  const bool ending = o.fmt == Format::Parsable;
  auto line = [&](const Row& r) {
    for (size_t i = 0; i < r.size(); ++i) {
      out << r[i];
      if (ending || i + 1 < r.size()) out << '|';
    }
    out << '\n';
  };
  if (o.header) line(header);
  for (const Row& r : rows) line(r);
}

// mfprio's own table: columns as wide as their widest cell, two spaces apart.
void print_aligned(const Row& header, const std::vector<Row>& rows, const ShowOptions& o,
                   std::ostream& out) {
  std::vector<size_t> w(header.size());
  for (size_t i = 0; i < header.size(); ++i) w[i] = header[i].size();
  for (const auto& r : rows)
    for (size_t i = 0; i < r.size(); ++i) w[i] = std::max(w[i], r[i].size());
  auto line = [&](const Row& r) {
    std::string s;
    for (size_t i = 0; i < r.size(); ++i) {
      s += r[i];
      if (i + 1 < r.size()) s += std::string(w[i] - r[i].size() + 2, ' ');
    }
    while (!s.empty() && s.back() == ' ') s.pop_back();
    out << s << '\n';
  };
  if (o.header) {
    line(header);
    Row dashes;
    for (size_t x : w) dashes.push_back(std::string(x, '-'));
    line(dashes);
  }
  for (const auto& r : rows) line(r);
}

// A view: its fields, its rows (every column), and the default columns.
struct View {
  std::vector<Field> fields;
  std::vector<Row> rows;
  std::vector<Column> defaults;  // mfprio's own columns (legacy layout)
  bool sacctmgr_default = false; // default columns are printed sacctmgr's way
  bool dedupe = false;           // drop a row equal to the one before (after picking)
};

void render(const View& v, const ShowOptions& o, const std::string& what, std::ostream& out) {
  const bool own = o.format.empty() && !v.sacctmgr_default;
  std::vector<Column> cols = o.format.empty() ? v.defaults : pick(v.fields, o.format, what);
  std::vector<Row> rows;
  for (const Row& r : v.rows) {
    Row p;
    for (const Column& c : cols) p.push_back(r[c.col]);
    if (v.dedupe && !rows.empty() && rows.back() == p) continue;
    rows.push_back(std::move(p));
  }
  Row header;
  std::vector<Row> identity;
  for (const Column& c : cols) header.push_back(c.header);
  if (o.fmt == Format::Parsable || o.fmt == Format::Parsable2) {
    print_parsable(header, rows, o, out);
    return;
  }
  if (own) {
    print_aligned(header, rows, o, out);
    return;
  }
  std::vector<Column> idx;
  for (size_t i = 0; i < cols.size(); ++i) idx.push_back(Column{cols[i].header, cols[i].width, i});
  print_fixed(idx, rows, o, out);
}

bool wanted(const std::vector<std::string>& list, const std::string& v) {
  return list.empty() || std::find(list.begin(), list.end(), v) != list.end();
}

// ---- the views ---------------------------------------------------------------

enum AssocCol : size_t {
  kCluster, kAccount, kUser, kPartition, kShare, kPriority, kEmpty, kParent, kRawUsage, kQueues,
  kAssocCols
};

View assoc_view(const std::vector<ClusterData>& cs, const ShowOptions& o) {
  View v;
  // sacctmgr's names and widths; the limit columns exist (mfprio keeps no
  // limits) so that a format= written for sacctmgr runs; they are empty.
  v.fields = {
      {"Account", 3, "Account", o.tree ? -20 : 10, kAccount},
      {"Acct", 4, "Account", o.tree ? -20 : 10, kAccount},
      {"Clusters", 2, "Cluster", 10, kCluster},
      {"DefaultQOS", 8, "Def QOS", 9, kEmpty},
      {"FairShare", 2, "Share", 9, kShare},
      {"GrpJobs", 4, "GrpJobs", 7, kEmpty},
      {"GrpSubmitJobs", 4, "GrpSubmit", 9, kEmpty},
      {"GrpTRES", 7, "GrpTRES", 13, kEmpty},
      {"GrpTRESMins", 7, "GrpTRESMins", 13, kEmpty},
      {"GrpTRESRunMins", 7, "GrpTRESRunMins", 13, kEmpty},
      {"GrpWall", 4, "GrpWall", 11, kEmpty},
      {"MaxJobs", 4, "MaxJobs", 7, kEmpty},
      {"MaxSubmitJobs", 4, "MaxSubmit", 9, kEmpty},
      {"MaxTRES", 7, "MaxTRES", 13, kEmpty},
      {"MaxTRESMinsPerJob", 8, "MaxTRESMins", 13, kEmpty},
      {"MaxTRESPerNode", 11, "MaxTRESPerNode", 14, kEmpty},
      {"MaxWallDurationPerJob", 4, "MaxWall", 11, kEmpty},
      {"ParentName", 7, "Par Name", 10, kParent},
      {"Partition", 4, "Partition", 10, kPartition},
      {"Priority", 3, "Priority", 10, kPriority},
      {"QOSLevel", 3, "QOS", 20, kEmpty},
      {"Queues", 3, "Queues", 20, kQueues},
      {"RawUsage", 3, "RawUsage", 11, kRawUsage},
      {"Share", 1, "Share", 9, kShare},
      {"User", 1, "User", 10, kUser},
  };
  const bool exact = o.fmt != Format::Table;
  for (const ClusterData& c : cs) {
    for (const TreeRow& t : tree_rows(*c.data)) {
      Row r(kAssocCols);
      const std::string& account = t.account ? t.account->name : t.assoc->account;
      if (!wanted(o.accounts, account)) continue;
      if (!o.users.empty() && (!t.assoc || !wanted(o.users, t.assoc->user))) continue;
      if (!o.partitions.empty() && (!t.assoc || !wanted(o.partitions, t.assoc->partition))) continue;
      r[kAccount] = (o.tree ? std::string(static_cast<size_t>(t.depth), ' ') : "") + account;
      if (t.account) {
        r[kShare] = shares_str(t.account->shares, t.account->shares_parent);
        r[kPriority] = t.account->priority ? std::to_string(t.account->priority) : "";
        r[kParent] = t.account->parent;
      } else {
        r[kUser] = t.assoc->user;
        r[kPartition] = t.assoc->partition;
        r[kShare] = shares_str(t.assoc->shares, t.assoc->shares_parent);
        r[kPriority] = t.assoc->priority ? std::to_string(t.assoc->priority) : "";
        r[kParent] = account;  // a user association's parent is its account
        for (const auto& q : t.assoc->queues) r[kQueues] += (r[kQueues].empty() ? "" : ",") + q;
      }
      r[kRawUsage] = num(t.usage, exact);
      r[kCluster] = c.name;
      v.rows.push_back(std::move(r));
    }
  }
  // sacctmgr 22.05's default columns for `show associations`.
  v.defaults = pick(v.fields,
                    {"Cluster", "Account", "User", "Partition", "Share", "Priority", "GrpJobs", "GrpTRES",
                     "GrpSubmit", "GrpWall", "GrpTRESMins", "MaxJobs", "MaxTRES", "MaxTRESPerNode",
                     "MaxSubmit", "MaxWall", "MaxTRESMins", "QOS", "DefaultQOS", "GrpTRESRunMins"},
                    "associations");
  v.sacctmgr_default = true;
  return v;
}

View users_view(const StoreData& d, const ShowOptions& o) {
  enum : size_t { U, A, P, S, PR, DEF, DACCT, ADMIN, RAW, Q, N };
  View v;
  v.fields = {{"Account", 3, "Account", 10, A},      {"AdminLevel", 2, "Admin", 9, ADMIN},
              {"Default", 7, "Default", 7, DEF},      {"DefaultAccount", 8, "Def Acct", 10, DACCT},
              {"FairShare", 2, "Share", 9, S},        {"Partition", 4, "Partition", 10, P},
              {"Priority", 3, "Priority", 10, PR},    {"Queues", 3, "Queues", 20, Q},
              {"RawUsage", 3, "RawUsage", 11, RAW},   {"Share", 1, "Share", 9, S},
              {"User", 1, "User", 10, U}};
  const bool exact = o.fmt != Format::Table;
  std::unordered_map<std::string, const UserRec*> users;
  for (const auto& u : d.users) users[u.name] = &u;
  auto keep = [&](const std::string& user, const std::string& account, const std::string& part, bool assoc) {
    return wanted(o.names, user) && wanted(o.users, user) &&
           (o.accounts.empty() || (assoc && wanted(o.accounts, account))) &&
           (o.partitions.empty() || (assoc && wanted(o.partitions, part)));
  };
  for (const auto& r : d.assocs) {
    if (!keep(r.user, r.account, r.partition, true)) continue;
    const UserRec* u = users.count(r.user) ? users[r.user] : nullptr;
    std::string queues;
    for (const auto& q : r.queues) queues += (queues.empty() ? "" : ",") + q;
    Row row(N);
    row[U] = r.user;
    row[A] = r.account;
    row[P] = r.partition;
    row[S] = shares_str(r.shares, r.shares_parent);
    row[PR] = std::to_string(r.priority);
    row[DEF] = r.is_default ? "yes" : "no";
    row[DACCT] = u ? u->default_account : "";
    row[ADMIN] = u && u->admin ? "Administrator" : "None";
    row[RAW] = num(r.raw_usage, exact);
    row[Q] = queues;
    v.rows.push_back(std::move(row));
  }
  for (const auto& u : d.users)  // users without associations (no default account)
    if (u.default_account.empty() && keep(u.name, "", "", false)) {
      Row row(N);
      row[U] = u.name;
      row[ADMIN] = u.admin ? "Administrator" : "None";
      v.rows.push_back(std::move(row));
    }
  v.defaults = {{"User", 0, U},       {"Account", 0, A},  {"Partition", 0, P},
                {"Shares", 0, S},     {"Priority", 0, PR}, {"Default", 0, DEF},
                {"AdminLevel", 0, ADMIN}, {"RawUsage", 0, RAW}, {"Queues", 0, Q}};
  v.dedupe = true;  // format=User,DefaultAccount: one line per user
  return v;
}

View accounts_view(const StoreData& d, const ShowOptions& o) {
  enum : size_t { A, PAR, S, PR, DESC, ORG, N };
  View v;
  v.fields = {{"Account", 3, "Account", 10, A},   {"Acct", 4, "Account", 10, A},
              {"Description", 3, "Descr", 20, DESC}, {"FairShare", 2, "Share", 9, S},
              {"Name", 2, "Account", 10, A},      {"Organization", 1, "Org", 20, ORG},
              {"Parent", 6, "Par Name", 10, PAR}, {"ParentName", 7, "Par Name", 10, PAR},
              {"Priority", 3, "Priority", 10, PR}, {"Share", 1, "Share", 9, S}};
  for (const auto& a : d.accounts) {
    if (!wanted(o.names, a.name) || !wanted(o.accounts, a.name)) continue;
    v.rows.push_back({a.name, a.parent, shares_str(a.shares, a.shares_parent), std::to_string(a.priority),
                      a.description, ""});
  }
  v.defaults = {{"Account", 0, A}, {"Parent", 0, PAR}, {"Shares", 0, S}, {"Priority", 0, PR},
                {"Description", 0, DESC}};
  return v;
}

View qos_view(const StoreData& d, const ShowOptions& o) {
  View v;
  v.fields = {{"Name", 2, "Name", 10, 0}, {"Priority", 3, "Priority", 10, 1}, {"UsageFactor", 6, "UsageFactor", 11, 2}};
  for (const auto& q : d.qos)
    if (wanted(o.names, q.name))
      v.rows.push_back({q.name, std::to_string(q.priority), num(q.usage_factor, o.fmt != Format::Table)});
  v.defaults = {{"Name", 0, 0}, {"Priority", 0, 1}, {"UsageFactor", 0, 2}};
  return v;
}

View partitions_view(const StoreData& d, const ShowOptions& o) {
  View v;
  v.fields = {{"Default", 3, "Default", 7, 4},
              {"Name", 2, "Name", 10, 0},
              {"PriorityJobFactor", 9, "PriorityJobFactor", 17, 1},
              {"TRES", 4, "TRES", 20, 3},
              {"TRESBillingWeights", 5, "TRESBillingWeights", 20, 2}};
  for (const auto& p : d.partitions)
    if (wanted(o.names, p.name))
      v.rows.push_back({p.name, std::to_string(p.job_factor), p.billing_weights, p.tres_totals,
                        p.is_default ? "yes" : "no"});
  v.defaults = {{"Name", 0, 0}, {"PriorityJobFactor", 0, 1}, {"TRESBillingWeights", 0, 2}, {"TRES", 0, 3},
                {"Default", 0, 4}};
  return v;
}

View queues_view(const StoreData& d, const ShowOptions& o) {
  View v;
  v.fields = {{"Name", 2, "Name", 10, 0}, {"Priority", 3, "Priority", 10, 1}};
  for (const auto& q : d.queues)
    if (wanted(o.names, q.name)) v.rows.push_back({q.name, std::to_string(q.priority)});
  v.defaults = {{"Name", 0, 0}, {"Priority", 0, 1}};
  return v;
}

// sacctmgr's `show cluster`: its fields, those mfprio knows filled (the name,
// the controller's host and port and the cluster's TRES from the conf, the
// root's share); RPC, QOS and the limits exist for format= and are empty.
// The conf's host, port, nodes and TRES are its ClusterName's only.
View cluster_view(const std::vector<ClusterData>& cs, const ShowOptions& o) {
  enum : size_t { C, HOST, PORT, RPC, S, NODES, TRES, EMPTY, N };
  View v;
  v.fields = {{"Classification", 5, "Class", 9, EMPTY}, {"Cluster", 2, "Cluster", 10, C},
              {"ClusterNodes", 8, "Cluster Nodes", 20, EMPTY}, {"ControlHost", 8, "ControlHost", 15, HOST},
              {"ControlPort", 8, "ControlPort", 12, PORT}, {"DefaultQOS", 3, "Def QOS", 9, EMPTY},
              {"FairShare", 1, "Share", 9, S},          {"Flags", 2, "Flags", 20, EMPTY},
              {"GrpJobs", 4, "GrpJobs", 7, EMPTY},       {"GrpSubmitJobs", 4, "GrpSubmit", 9, EMPTY},
              {"GrpTRES", 4, "GrpTRES", 13, EMPTY},      {"MaxJobs", 4, "MaxJobs", 7, EMPTY},
              {"MaxSubmitJobs", 4, "MaxSubmit", 9, EMPTY}, {"MaxTRES", 4, "MaxTRES", 13, EMPTY},
              {"MaxWallDurationPerJob", 4, "MaxWall", 11, EMPTY}, {"NodeCount", 2, "NodeCount", 9, NODES},
              {"QOSLevel", 3, "QOS", 20, EMPTY},         {"RPC", 1, "RPC", 5, RPC},
              {"Share", 1, "Share", 9, S},               {"TRES", 4, "TRES", 30, TRES}};
  for (const ClusterData& c : cs) {
    if (c.name.empty() || !wanted(o.names, c.name)) continue;
    const AccountRec* root = nullptr;
    for (const auto& a : c.data->accounts)
      if (a.name == "root") root = &a;
    const bool conf = strcasecmp(c.name.c_str(), o.cluster.c_str()) == 0;
    Row r(N);
    r[C] = c.name;
    r[HOST] = conf ? o.control_host : "";
    r[PORT] = r[HOST].empty() ? "" : o.control_port;
    r[S] = root ? shares_str(root->shares, root->shares_parent) : "1";
    r[NODES] = conf ? o.node_count : "";
    r[TRES] = conf ? o.cluster_tres : "";
    v.rows.push_back(std::move(r));
  }
  // sacctmgr 22.05's default columns for `show cluster`.
  v.defaults = pick(v.fields,
                    {"Cluster", "ControlHost", "ControlPort", "RPC", "Share", "GrpJobs", "GrpTRES", "GrpSubmit",
                     "MaxJobs", "MaxTRES", "MaxSubmit", "MaxWall", "QOS", "DefaultQOS"},
                    "cluster");
  v.sacctmgr_default = true;
  return v;
}

View tree_view(const StoreData& d, const ShowOptions& o) {
  View v;
  v.fields = {{"Account", 3, "Account", -20, 0}, {"FairShare", 2, "Shares", 9, 3},
              {"Partition", 4, "Partition", 10, 2}, {"RawUsage", 3, "RawUsage", 11, 4},
              {"Shares", 1, "Shares", 9, 3},   {"User", 1, "User", 10, 1}};
  const bool exact = o.fmt != Format::Table;
  for (const TreeRow& r : tree_rows(d)) {
    // Indentation shows depth in the table; -p/-P have separate columns instead.
    std::string pad = o.fmt == Format::Table ? std::string(static_cast<size_t>(r.depth), ' ') : "";
    if (r.account)
      v.rows.push_back({pad + r.account->name, "", "", shares_str(r.account->shares, r.account->shares_parent),
                        num(r.usage, exact)});
    else
      v.rows.push_back({pad + r.assoc->account, r.assoc->user, r.assoc->partition,
                        shares_str(r.assoc->shares, r.assoc->shares_parent), num(r.usage, exact)});
  }
  v.defaults = {{"Account", 0, 0}, {"User", 0, 1}, {"Partition", 0, 2}, {"Shares", 0, 3}, {"RawUsage", 0, 4}};
  return v;
}

}  // namespace

void show(const StoreData& d, const std::string& what, const ShowOptions& o, std::ostream& out) {
  if (o.fmt == Format::Json) {
    if (what == "tree") out << tree_json(d);
    else if (what == "associations" || what == "cluster")
      throw UsageError("show " + what + ": no --json (use -p or -P)");
    else out << export_section_json(d, what);
    return;
  }
  if (what == "associations" || what == "cluster") {
    show_clusters({ClusterData{o.cluster, &d}}, what, o, out);
    return;
  }
  View v;
  if (what == "users") v = users_view(d, o);
  else if (what == "accounts") v = accounts_view(d, o);
  else if (what == "qos") v = qos_view(d, o);
  else if (what == "partitions") v = partitions_view(d, o);
  else if (what == "queues") v = queues_view(d, o);
  else if (what == "tree") v = tree_view(d, o);
  else throw UsageError("show: unknown view \"" + what + "\"");
  render(v, o, what, out);
}

void show_clusters(const std::vector<ClusterData>& cs, const std::string& what, const ShowOptions& o,
                   std::ostream& out) {
  if (o.fmt == Format::Json) throw UsageError("show " + what + ": no --json (use -p or -P)");
  if (what == "associations") render(assoc_view(cs, o), o, what, out);
  else if (what == "cluster") render(cluster_view(cs, o), o, what, out);
  else throw UsageError("show " + what + ": not a view of clusters");
}

void show_decay(const DecayInfo& d, const ShowOptions& o, std::ostream& out) {
  const bool exact = o.fmt != Format::Table;
  if (o.fmt == Format::Json) {
    out << "{\"last_decay\": " << d.last_decay << ", \"last_reset\": " << d.last_reset
        << ", \"scale\": " << num(d.scale, true) << "}\n";
    return;
  }
  View v;
  v.fields = {{"LastDecay", 5, "LastDecay", 10, 0}, {"LastReset", 5, "LastReset", 10, 1}, {"Scale", 1, "Scale", 10, 2}};
  v.rows = {{std::to_string(d.last_decay), std::to_string(d.last_reset), num(d.scale, exact)}};
  v.defaults = {{"LastDecay", 0, 0}, {"LastReset", 0, 1}, {"Scale", 0, 2}};
  render(v, o, "decay", out);
}

}  // namespace mfprio::acct::cli
