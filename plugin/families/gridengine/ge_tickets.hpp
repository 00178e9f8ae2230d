// ge_tickets.hpp - Grid Engine tickets, Son of Grid Engine 8.1.9 flavour.
// Grid Engine source/libs/sched/sgeee.c (all of it; the pending share-tree
// tickets as 8.1.9 computes them).
//
//   tckts = stckt + ftckt + otckt
//   Share tree (sgeee.c:sge_calc_node_targets): only nodes with jobs below them are active; per active child
//     ltt = shares/sum(active sibling shares), oltt = oltt_parent*ltt,
//     shr = shares^2/max(usage, oltt), stt = shr/sum(shr), ostt = ostt_parent*stt,
//     then one compensation pass: a child with ostt > CF*oltt gets
//     shr = shares^2/(max(usage, oltt) * ostt/(CF*oltt)) and all stt/ostt are redone.
//   Running jobs (sgeee.c): T = ostt(leaf)*weight_tickets_share, split by -js
//     (truncated to an integer) or evenly over the leaf's jobs; pass 2 redoes the
//     targets and the split with running jobs only and its values are kept.
//   Pending jobs (sgeee.c, 8.1.9): every job hangs under its leaf; from the walk root
//     (the root, skipping single-child levels) every node sorts its subtree's jobs
//     (running first, key desc, id asc) and the k-th gets stt/dilute, dilute
//     growing by max(1, min of the job's first PE range); the value set at the top
//     level is the pending job's stckt.
//   Functional and override tickets shared among an object's jobs;
//   pending jobs greedily, policies in policy_hierarchy order, as 8.1.9's
//   sge_calc_tickets chains them: a dependent step sorts on the earlier steps'
//   tickets, except that a functional category left with jobs after
//   max_functional_jobs_to_schedule picks keeps its first remaining job's
//   ftckt out of that sum, and override rounds rank on override tickets alone
//   (the prior only orders each override category).
//   max_tix = the largest tckts over pending jobs (pass 1) and running jobs (both
//   passes); ntckts = tckts/max_tix, 0.5 for all when max_tix = 0 (sgeee.c:sge_do_priority).
//
// Entry point: compute_tickets (flat TicketJobs; the Job form wraps it).
// compute_share_targets is exposed for tests and the share monitor.
// Cost: a job's given ids are used as they are (ticket_job checks a handle's
// against the names), other names one hash look-up each; the (user,
// project) -> leaf map, the tree's preorder and project of each node kept
// per state in a reused TicketScratch (dense per user id; per job position
// the last pass's leaf, so a queue like the last reads it in job order);
// objects' fshares and override tickets in flat arrays by id; share tree
// O(nodes + jobs log jobs * depth) on 32-byte records laid out once in job
// order, each level merging the runs its children left (from both ends, no
// branch on the comparison), or, when they left many (a dependent step's
// prior tickets cut them), a most-significant-byte-first radix sort of the
// level's keys (stable, ties by id); pending override rounds only for jobs whose
// objects carry override tickets, a lazy heap over their (user, project,
// department) groups (one read of the pending jobs serving them and the
// functional step); functional categories grouped per user by a counting
// sort of 32-byte member records on user ids, then a small direct table per
// user on a per-pass sub key (no table over all jobs), a category kept as
// its size and first job; picks a lazy heap that takes the best categories
// by their first value (the rest one entry, bounded at each pick's sums,
// then all joined in category order),
// O(categories + pops log groups), categories whose values tie at every
// pick (same user share over count, project, department, -js, prior)
// grouped in one heap entry, a pick moving only the winner and its user's
// categories, members' lists made only for the users picked from.  Every per-job step reads and
// writes its arrays in job order or record order, not a job at random.  A whole-queue caller
// keeps only each job's total (TicketOptions::job_tickets false) and asks job_tickets() for the
// few jobs it explains.
// Invariants: deterministic (ties broken by submit time then job id); tickets >= 0.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ge_model.hpp"
#include "ge_ticket_types.hpp"

namespace mfprio::gridengine {

// Per node of model.tree: the combined decayed usage of a project node (its
// project's) or a leaf (the user's, within its nearest project ancestor if
// any), 0 for other inner nodes (theirs is the sum of their children's, with
// the pass's user copies).  For Model::own_usage.
std::vector<double> own_node_usage(const Model& model);

// The look-ups that map a job to its share-tree leaf (first match below a
// scope by name and kind), for Model::tree_index.
std::shared_ptr<const TreeIndex> index_share_tree(const ShareTreeSpec& tree);

// Job j's tickets of the last pass run on `scratch` with
// TicketOptions::job_tickets false (`r`: its result, j below its
// tckts.size()), equal to the JobTickets a pass with job_tickets writes.
JobTickets job_tickets(const TicketResult& r, const TicketScratch& scratch, size_t j);

// Targets for the active nodes of `nodes` (root = index 0); inactive nodes get 0.
void compute_share_targets(std::vector<ShareNodeState>& nodes, double compensation_factor);

// max(1, the first range's min): a parallel job's weight in the share
// tree's dilution (sgeee.c); 1 without a PE request.
uint32_t dilute_slots(const Job& job);

// The TicketJob of `job` (its views point into it): ids from `ids` where
// they are in range and name the job's own names, else found in `names`
// (null: none), else kNoName.
TicketJob ticket_job(const Job& job, const NameTables* names, const JobNameIds* ids = nullptr);

// The pass over jobs[0, n) into *out, whose vectors (and nodes' strings)
// are reused; out->jobs is parallel to the jobs.
void compute_tickets(const TicketJob* jobs, size_t n, const Model& model, const TicketOptions& options,
                     TicketResult* out);

// The Job form: each job's ticket_job (with options.name_ids), then the pass.
TicketResult compute_tickets(const std::vector<Job>& jobs, const Model& model, const TicketOptions& options = {});
void compute_tickets(const std::vector<Job>& jobs, const Model& model, const TicketOptions& options,
                     TicketResult* out);

}  // namespace mfprio::gridengine
