// acct_show.cpp - `mfprio-acct show tree|accounts|users|qos|partitions|queues`.
//
// Three renderings of one table: aligned columns (people), -P (`|` after every
// field, a header line, like sacctmgr -P; for scripts), --json (the export
// format's section, or a nested tree).  Numbers in -P keep 17 digits so that
// scripts see what the store holds.
#include <cstdio>
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

void print(const Row& header, const std::vector<Row>& rows, Format fmt, std::ostream& out) {
  if (fmt == Format::Parsable) {
    for (const auto& f : header) out << f << '|';
    out << '\n';
    for (const auto& r : rows) {
      for (const auto& f : r) out << f << '|';
      out << '\n';
    }
    return;
  }
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
  line(header);
  Row dashes;
  for (size_t x : w) dashes.push_back(std::string(x, '-'));
  line(dashes);
  for (const auto& r : rows) line(r);
}

}  // namespace

void show(const StoreData& d, const std::string& what, Format fmt, std::ostream& out) {
  bool exact = fmt == Format::Parsable;
  std::vector<Row> rows;
  if (what == "tree") {
    if (fmt == Format::Json) {
      out << tree_json(d);
      return;
    }
    for (const TreeRow& r : tree_rows(d)) {
      // Indentation shows depth in the table; -P has separate columns instead.
      std::string pad = fmt == Format::Table ? std::string(static_cast<size_t>(r.depth), ' ') : "";
      if (r.account)
        rows.push_back({pad + r.account->name, "", "",
                        shares_str(r.account->shares, r.account->shares_parent),
                        num(r.usage, exact)});
      else
        rows.push_back({pad + r.assoc->account, r.assoc->user, r.assoc->partition,
                        shares_str(r.assoc->shares, r.assoc->shares_parent),
                        num(r.usage, exact)});
    }
    print({"Account", "User", "Partition", "Shares", "RawUsage"}, rows, fmt, out);
    return;
  }
  if (fmt == Format::Json) {
    out << export_section_json(d, what);
    return;
  }
  if (what == "accounts") {
    for (const auto& a : d.accounts)
      rows.push_back({a.name, a.parent, shares_str(a.shares, a.shares_parent),
                      std::to_string(a.priority), a.description});
    print({"Account", "Parent", "Shares", "Priority", "Description"}, rows, fmt, out);
  } else if (what == "users") {
    std::unordered_map<std::string, bool> admin;
    for (const auto& u : d.users) admin[u.name] = u.admin;
    for (const auto& r : d.assocs) {
      std::string queues;
      for (const auto& q : r.queues) queues += (queues.empty() ? "" : ",") + q;
      rows.push_back({r.user, r.account, r.partition, shares_str(r.shares, r.shares_parent),
                      std::to_string(r.priority), r.is_default ? "yes" : "no",
                      admin[r.user] ? "Administrator" : "None", num(r.raw_usage, exact), queues});
    }
    for (const auto& u : d.users)  // users without associations (no default account)
      if (u.default_account.empty())
        rows.push_back({u.name, "", "", "", "", "", u.admin ? "Administrator" : "None", "", ""});
    print({"User", "Account", "Partition", "Shares", "Priority", "Default", "AdminLevel",
           "RawUsage", "Queues"}, rows, fmt, out);
  } else if (what == "qos") {
    for (const auto& q : d.qos)
      rows.push_back({q.name, std::to_string(q.priority), num(q.usage_factor, exact)});
    print({"Name", "Priority", "UsageFactor"}, rows, fmt, out);
  } else if (what == "partitions") {
    for (const auto& p : d.partitions)
      rows.push_back({p.name, std::to_string(p.job_factor), p.billing_weights, p.tres_totals,
                      p.is_default ? "yes" : "no"});
    print({"Name", "PriorityJobFactor", "TRESBillingWeights", "TRES", "Default"}, rows, fmt, out);
  } else if (what == "queues") {
    for (const auto& q : d.queues) rows.push_back({q.name, std::to_string(q.priority)});
    print({"Name", "Priority"}, rows, fmt, out);
  } else {
    throw UsageError("show: unknown view \"" + what + "\" (tree, accounts, users, qos, partitions, queues)");
  }
}

void show_decay(const DecayInfo& d, Format fmt, std::ostream& out) {
  const bool exact = fmt != Format::Table;
  if (fmt == Format::Json) {
    out << "{\"last_decay\": " << d.last_decay << ", \"last_reset\": " << d.last_reset
        << ", \"scale\": " << num(d.scale, true) << "}\n";
    return;
  }
  print({"LastDecay", "LastReset", "Scale"},
        {{std::to_string(d.last_decay), std::to_string(d.last_reset), num(d.scale, exact)}}, fmt, out);
}

}  // namespace mfprio::acct::cli
