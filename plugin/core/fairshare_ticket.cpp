// fairshare_ticket.cpp - the ticket-based fair-share factor
// (PriorityFlags=TICKET_BASED), after Slurm's "Ticket-Based Multifactor Priority Plugin"
// documentation page.
//
//   S, U   as in classic (assoc_mgr.c:assoc_mgr_normalize_assoc_shares; an account's U is its own normalized usage)
//   Ueff   = max(U, 0.01 * S)          (eff_usage)
//   F      = S / Ueff, 0 when S = 0    (per node; 100 at most; not stored,
//                                       it is norm_shares / eff_usage)
//   Tickets start at the root (we use 1, so `tickets` is the fraction of the
//   root's tickets) and flow down to *active* children only: a user is active
//   when tree.active[i] is set (it has pending jobs), an account when one of
//   its descendants is.  Within a sibling group
//       T = T_parent * S*F / sum over active siblings of S*F.
//   A user's fairshare = T_user / T_max, T_max over active users; inactive
//   users get 0; accounts get 0 (sshare shows no FairShare for accounts; their
//   tickets are in `tickets`, their F is norm_shares / eff_usage).
//
// Choices the "Ticket-Based Multifactor Priority Plugin" page leaves open:
//   - FairShare=parent nodes take S and Ueff (hence F) of their fair-share
//     parent (assoc_mgr.c:assoc_mgr_normalize_assoc_shares).  A FairShare=parent user competes in its parent's group
//     with that weight; a transparent account's children compete directly in
//     its parent's group and the transparent account shows the sum of their
//     tickets.
//   - If every active sibling has weight S*F = 0 (all zero shares) the parent's
//     tickets are split evenly among them: nobody has a claim, and dropping
//     the tickets would make T_max depend on shares that are all zero.
//
// Cost: O(n), one scratch byte per node for the activity flags.
#include <algorithm>
#include <vector>

#include "share_tree.hpp"

namespace mfprio {

namespace {

constexpr double kMinUsageFraction = 0.01;  // the ticket-based page's 0.01 * S floor on usage

}  // namespace

void fair_share_ticket(const ShareTree& tree, const ShareInputs& in, ShareResult& out) {
  const size_t n = tree.size();
  out.reset(n);
  fill_path_shares_and_usage(tree, in.usage, out);
  const auto& S = out.norm_shares;
  const auto& U = out.norm_usage;
  auto& Ueff = out.eff_usage;
  auto& T = out.tickets;

  Ueff[0] = std::max(U[0], kMinUsageFraction * S[0]);
  for (size_t i = 1; i < n; ++i) {
    Ueff[i] = tree.shares_parent[i] ? Ueff[static_cast<size_t>(tree.fs_parent[i])]
                                    : std::max(U[i], kMinUsageFraction * S[i]);
  }
  // S*F = S^2 / Ueff; Ueff >= 0.01 S > 0 whenever S > 0.
  auto weight = [&](size_t i) { return S[i] > 0.0 ? S[i] * (S[i] / Ueff[i]) : 0.0; };

  // Activity: users as given, accounts when any descendant user is active.
  std::vector<uint8_t> act(n, 0);
  for (size_t i = n; i-- > 1;) {
    if (tree.is_user[i]) act[i] = in.active[i] ? 1 : 0;
    if (act[i]) act[static_cast<size_t>(tree.parent[i])] = 1;
  }
  if (!act[0]) return;  // nobody is pending: no tickets, all fairshare 0

  T[0] = 1.0;
  for (size_t a = 0; a < n; ++a) {
    if (T[a] <= 0.0) continue;
    const uint32_t gb = tree.group_begin[a];
    const uint32_t ge = tree.group_begin[a + 1];
    double sum = 0.0;
    uint32_t active_members = 0;
    for (uint32_t j = gb; j < ge; ++j) {
      const uint32_t m = tree.group[j];
      if (!act[m]) continue;
      sum += weight(m);
      ++active_members;
    }
    if (active_members == 0) continue;  // only possible for a user (no group)
    for (uint32_t j = gb; j < ge; ++j) {
      const uint32_t m = tree.group[j];
      if (!act[m]) continue;
      T[m] = sum > 0.0 ? T[a] * (weight(m) / sum) : T[a] / active_members;
    }
  }
  // Transparent accounts show the tickets that passed through them.
  for (size_t i = n; i-- > 1;) {
    const auto p = static_cast<size_t>(tree.parent[i]);
    if (tree.transparent(p)) T[p] += T[i];
  }

  double t_max = 0.0;
  for (size_t i = 0; i < n; ++i)
    if (tree.is_user[i] && act[i]) t_max = std::max(t_max, T[i]);
  if (t_max <= 0.0) return;
  for (size_t i = 0; i < n; ++i)
    if (tree.is_user[i] && act[i]) out.fairshare[i] = std::min(1.0, T[i] / t_max);
}

}  // namespace mfprio
