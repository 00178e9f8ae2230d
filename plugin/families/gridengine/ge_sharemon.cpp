// ge_sharemon.cpp - share-monitor rows (see ge_sharemon.hpp).
#include "ge_sharemon.hpp"

#include <functional>

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
  std::function<void(int, const std::string&, double)> visit = [&](int n, const std::string& path,
                                                                 double total) {
    const auto& s = nodes[n];
    ShareMonRow r;
    r.node = path;
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
    r.long_target = s.active ? s.oltt : 0.0;
    r.short_target = s.active ? s.ostt : 0.0;
    r.usage = s.usage;
    r.actual_usage = root_usage > 0 ? s.usage / root_usage : 0.0;
    r.tickets = tickets[n];
    r.jobs = s.jobs;
    rows.push_back(r);
    for (int c : s.children)
      visit(c, (path == "/" ? "" : path) + "/" + nodes[c].name, total * level);
  };
  visit(0, "/", 1.0);
  return rows;
}

}  // namespace mfprio::gridengine
