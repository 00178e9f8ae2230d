// ge_sharemon.cpp - share-monitor rows (see ge_sharemon.hpp).
#include "ge_sharemon.hpp"

#include <string>

#include "tree_walk.hpp"

namespace mfprio::gridengine {

std::vector<ShareMonRow> share_monitor_rows(const PricingResult& pricing) {
  std::vector<ShareMonRow> rows;
  const auto& nodes = pricing.tickets.nodes;
  if (nodes.empty()) return rows;
  std::vector<double> tickets(nodes.size(), 0.0);
  for (size_t j = 0; j < pricing.jobs.size(); ++j)
    for (int k = pricing.tickets.jobs[j].share_node; k >= 0; k = nodes[k].parent)
      tickets[k] += pricing.jobs[j].stckt;
  const double root_usage = nodes[0].usage;
  // Preorder, each node's depth and total share from its parent's row.
  struct At {
    int n;
    uint32_t depth;
    double total;
    double child_total;  // total * level, set on entering
  };
  auto kids = [&](const At& a) {
    std::vector<At> out;
    for (int c : nodes[a.n].children) out.push_back(At{c, a.depth + 1, a.child_total, 0.0});
    return out;
  };
  walk_preorder(At{0, 0, 1.0, 0.0}, kids, [&](At& a) {
    const int n = a.n;
    const double total = a.total;
    const auto& s = nodes[n];
    ShareMonRow r;
    r.name = a.depth == 0 ? "/" : s.name;
    r.depth = a.depth;
    r.type = s.type == NodeType::Project ? "project" : (s.user_copy ? "user(default)" : "user");
    r.shares = s.shares;
    double level = 1.0;
    if (s.parent >= 0) {
      double sum = 0;
      for (int c : nodes[s.parent].children) sum += nodes[c].shares;
      level = sum > 0 ? s.shares / sum : 0.0;
    }
    r.level_pct = 100.0 * level;
    r.total_pct = 100.0 * total * level;
    a.child_total = total * level;
    r.long_target = s.active ? s.oltt : 0.0;
    r.short_target = s.active ? s.ostt : 0.0;
    r.usage = s.usage;
    r.actual_usage = root_usage > 0 ? s.usage / root_usage : 0.0;
    r.tickets = tickets[n];
    r.jobs = s.jobs;
    rows.push_back(r);
  });
  return rows;
}

}  // namespace mfprio::gridengine
