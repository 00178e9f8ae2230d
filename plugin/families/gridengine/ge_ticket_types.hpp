// ge_ticket_types.hpp - the ticket pass's inputs, results and options
// (TicketJob, TicketResult with its JobTickets and ShareNodeStates,
// TicketOptions, TicketScratch): what ge_tickets.hpp's functions take and
// give, and what the pass's internal header (ge_tickets_pass.hpp) builds on.
// The formulas and the costs are described in ge_tickets.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
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
  std::vector<JobTickets> jobs;               // parallel to the input jobs (empty: TicketOptions::job_tickets)
  std::vector<double> tckts;                  // parallel to the input jobs: each one's JobTickets::tckts
  std::vector<ShareNodeState> nodes;          // pass 1: running + pending jobs active
  std::vector<ShareNodeState> nodes_running;  // pass 2: running jobs only
  double max_tix = 0;
};

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

  // With a scratch: the first kept_jobs jobs are the scratch's last pass's
  // at the same places, each the same TicketJob, every id its table's
  // (below its size) in the same Model::names: their flat records are
  // kept (not read again).  The scratch checks the tables and how many it
  // holds; the caller vouches for the jobs (0: none kept).
  size_t kept_jobs = 0;

  // false (with a scratch): TicketResult::jobs is left empty (tckts and
  // max_tix are set) and job_tickets() gives a job's JobTickets from the
  // scratch, as the pass would have written them: a whole-queue pass asks
  // for one job's at a time, and 48 bytes a job written and read again
  // cost more than its totals.
  bool job_tickets = true;
};

}  // namespace mfprio::gridengine
