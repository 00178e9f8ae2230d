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
// writes its arrays in job order or record order, not a job at random.
// Invariants: deterministic (ties broken by submit time then job id); tickets >= 0.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ge_model.hpp"

namespace mfprio::gridengine {

struct ShareNodeState {
  std::string name;
  NodeType type = NodeType::User;
  uint32_t shares = 0;
  int parent = -1;
  std::vector<int> children;
  bool user_copy = false;   // a per-user copy of a `default` leaf (sgeee.c:sge_calc_node_targets)
  std::string project;      // nearest project ancestor (or itself), "" if none
  double usage = 0;         // combined, decayed (sgeee.c:sge_calc_node_targets node usage)
  uint32_t jobs = 0;        // jobs counted in this pass in the subtree
  uint32_t direct_jobs = 0; // jobs attached to this node itself (leaves)
  uint32_t direct_running = 0;
  bool active = false;
  double ltt = 0, oltt = 0, stt = 0, ostt = 0, shr = 0;
  bool compensated = false;  // the compensation factor changed this node's shr
};

struct JobTickets {
  double stckt = 0, ftckt = 0, otckt = 0, tckts = 0;
  double pass1_tckts = 0;     // running jobs: the pass-1 total (counts for max_tix)
  int share_node = -1;        // index into TicketResult::nodes, -1 = no share-tree node
  bool share_bound = false;   // a node on the job's path was compensated (sgeee.c:sge_calc_node_targets)
};

struct TicketResult {
  std::vector<JobTickets> jobs;               // parallel to the input jobs
  std::vector<ShareNodeState> nodes;          // pass 1: running + pending jobs active
  std::vector<ShareNodeState> nodes_running;  // pass 2: running jobs only
  double max_tix = 0;
};

// Per node of model.tree: the combined decayed usage of a project node (its
// project's) or a leaf (the user's, within its nearest project ancestor if
// any), 0 for other inner nodes (theirs is the sum of their children's, with
// the pass's user copies).  For Model::own_usage.
std::vector<double> own_node_usage(const Model& model);

// The look-ups that map a job to its share-tree leaf (first match below a
// scope by name and kind), for Model::tree_index.
std::shared_ptr<const TreeIndex> index_share_tree(const ShareTreeSpec& tree);

// Targets for the active nodes of `nodes` (root = index 0); inactive nodes get 0.
void compute_share_targets(std::vector<ShareNodeState>& nodes, double compensation_factor);

// A job's ids in Model::names (from its handle); kNoName: by name.  An id
// is used only when it is in range and names the job's own name.
struct JobNameIds {
  uint32_t user = kNoName, project = kNoName, department = kNoName;
};

// The ticket pass's per-job and per-node arrays, kept between passes by a
// caller that runs many (the policy's pass): reused, they keep their
// capacity, so a pass over a queue like the last allocates and faults in
// almost nothing.  It also keeps what depends only on the state: while a
// pass's Model has the same names and tree index objects as the last one
// (Model::names, tree_index with tree_index_of == &tree; the scratch holds
// both, so no other can be made at their address), each (user id, project
// id)'s share-tree leaf and the tree's shape are reused.  Each share-tree
// node's last sorted order is kept too, and taken only where it is
// checked to be the order still.  One pass at a time per scratch.
class TicketScratch {
 public:
  TicketScratch();
  ~TicketScratch();
  TicketScratch(const TicketScratch&) = delete;
  TicketScratch& operator=(const TicketScratch&) = delete;
  struct Arrays;  // ge_tickets_pass.hpp
  std::unique_ptr<Arrays> a;
};

// A job as the ticket pass reads it: flat, no strings of its own.  Its
// user, project and department are ids in Model::names' tables (users,
// projects, departments) where the caller knows them: such an id must be
// below its table's size and name the job's own name (the caller checked
// it); kNoName, or any id when Model::names is null: the pass reads the
// name in the view beside it (and numbers it, once per pass, when it is in
// no table).  A view must stay valid through the call; "" = none (project,
// department).
struct TicketJob {
  uint64_t id = 0;
  int64_t submit_time = 0;
  double job_share = 0;         // -js
  double override_tickets = 0;  // qalter -ot
  uint32_t dilute = 1;          // dilute_slots: max(1, min of the first PE range); 1 for a sequential job
  bool running = false;
  uint32_t user = kNoName, project = kNoName, department = kNoName;
  std::string_view user_name, project_name, department_name;
};

// max(1, the first range's min): a parallel job's weight in the share
// tree's dilution (sgeee.c); 1 without a PE request.
uint32_t dilute_slots(const Job& job);

// The TicketJob of `job` (its views point into it): ids from `ids` where
// they are in range and name the job's own names, else found in `names`
// (null: none), else kNoName.
TicketJob ticket_job(const Job& job, const NameTables* names, const JobNameIds* ids = nullptr);

// How the pass computes (never what): tests compare the forms.
struct TicketOptions {
  const std::vector<JobNameIds>* name_ids = nullptr;  // the Job form: parallel to the jobs, or null

  // Functional picks: one heap entry per group of categories whose values
  // are equal at every pick (false: one per category, the plain lazy heap).
  bool group_tied_categories = true;

  // Functional picks: categories enter the picks' heap in two batches, the
  // best this many first (0: 4 * max_functional_jobs_to_schedule, at least
  // 1024), all the others when their entry tops the heap.
  size_t functional_batch = 0;

  // Share-tree levels whose lists arrive cut into many runs sorted by radix
  // (false: merges of the runs alone).
  bool radix_share_levels = true;

  TicketScratch* scratch = nullptr;  // null: the pass's own arrays
};

// The pass over jobs[0, n) into *out, whose vectors (and nodes' strings)
// are reused; out->jobs is parallel to the jobs.
void compute_tickets(const TicketJob* jobs, size_t n, const Model& model, const TicketOptions& options,
                     TicketResult* out);

// The Job form: each job's ticket_job (with options.name_ids), then the pass.
TicketResult compute_tickets(const std::vector<Job>& jobs, const Model& model, const TicketOptions& options = {});
void compute_tickets(const std::vector<Job>& jobs, const Model& model, const TicketOptions& options,
                     TicketResult* out);

}  // namespace mfprio::gridengine
