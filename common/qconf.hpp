// qconf.hpp - readers for the three texts a Grid Engine admin already has:
// `qconf -ssconf` (scheduler configuration), `qconf -sc` (the complex table)
// and `qconf -sstree` (the share tree).  sge_schedd_conf.c:sconf_create_default,
// sge_urgency.c (complex urgency), sgeee.c:sge_calc_node_targets (share tree), sge_support.c:decay_usage (usage weights and decay).
//
// Entry points: parse_sched_conf, parse_complexes, parse_share_tree, and
// parse_ge_value (a request or complex value -> number, by complex type).
//
// Invariants:
// - Every parser validates the whole text first and only then fills *out;
//   on failure *out is untouched and *why says "file:line: key 'k' value 'v': reason".
// - Keys not given keep the code's built-in defaults (SchedConf{} ==
//   sconf_create_default of Grid Engine, reference "Defaults"); the installed
//   template's set is SchedConf::installed_defaults().
// - Pure: no I/O, no globals.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mfprio::gridengine {

// usage_weight_list: cpu=1,mem=0,io=0 by default (sgeee.c:sge_calc_node_targets node usage).
struct UsageWeights {
  double cpu = 1.0;
  double mem = 0.0;
  double io = 0.0;
};

// One halflife_decay_list entry: a usage type and its halftime in MINUTES
// (negative = drop that usage at once, 0 = never decay).  sge_support.c:decay_usage.
struct HalflifeEntry {
  std::string name;  // cpu, mem, io, finished_jobs (others are kept verbatim)
  double minutes = 0;
};

struct SchedConf {
  // sgeee.c:sge_do_priority final priority.  Code defaults (sconf_create_default).
  double weight_ticket = 0.5;
  double weight_urgency = 0.5;
  double weight_priority = 0.0;
  // sge_urgency.c urgency.
  double weight_waiting_time = 0.278;
  double weight_deadline = 3600000.0;
  // sgeee.c tickets (stored by Grid Engine as unsigned integers).
  double weight_tickets_share = 0;
  double weight_tickets_functional = 0;
  double weight_user = 0.25;
  double weight_project = 0.25;
  double weight_department = 0.25;
  double weight_job = 0.25;
  double compensation_factor = 5.0;
  // sge_support.c:decay_usage usage.
  double halftime = 168;  // hours; 0 = no decay
  std::vector<HalflifeEntry> halflife_decay_list;  // empty = "none"
  UsageWeights usage_weight_list;
  bool share_override_tickets = true;
  bool share_functional_shares = true;
  uint32_t max_functional_jobs_to_schedule = 200;
  uint32_t max_pending_tasks_per_job = 50;  // read; array tasks are not modelled
  std::string policy_hierarchy = "OFS";     // letters from O, F, S; "" = NONE
  bool report_pjob_tickets = true;
  // Every other `name value` line, in file order (schedule_interval, params, ...).
  std::vector<std::pair<std::string, std::string>> other;

  static SchedConf code_defaults() { return SchedConf{}; }
  // inst_schedd_normal.conf: what an installed cluster starts with.
  static SchedConf installed_defaults();
};

// sge_support.c (calculate_decay_constant): the per-minute decay constant of a
// halftime given in MINUTES, 1 - ln2/minutes; 1 when 0 (no decay), 0 when
// negative (drop at once).  Usage decays by constant^(elapsed seconds / 60).
double decay_constant_per_minute(double halftime_minutes);
// The constant of usage type `type` (cpu, mem, io, ...): its
// halflife_decay_list entry, else the halftime (hours).
double type_decay_constant(const SchedConf& c, const std::string& type);

bool parse_sched_conf(const std::string& text, const std::string& file, SchedConf* out,
                      std::string* why);

// ---- complexes (qconf -sc) ---------------------------------------------------------
enum class ComplexType { Int, Double, Time, Memory, Bool, String, CString, ResString, Host };

// Numeric types add value x urgency x slots; string types add urgency once (sge_urgency.c).
bool complex_is_numeric(ComplexType t);
const char* complex_type_name(ComplexType t);

struct Complex {
  std::string name;
  std::string shortcut;
  ComplexType type = ComplexType::Int;
  std::string relop;         // ==, <, >, <=, >=, !=, EXCL
  std::string requestable;   // YES, NO, FORCED
  std::string consumable;    // YES, NO, JOB
  std::string default_value;
  int64_t urgency = 0;       // integer, as Grid Engine parses it (sge_urgency.c)
};

struct ComplexTable {
  std::vector<Complex> entries;
  // By full name, then by shortcut (the first entry that has it); nullptr
  // when unknown.  Hashed once reindex() has seen the entries (urgency asks
  // per job and request; a site's `qconf -sc` lists 40-50 complexes), a
  // scan while entries were added since.
  const Complex* find(std::string_view name_or_shortcut) const;
  void reindex();
  // The one built-in complex that matters for urgency: slots, INT, urgency 1000.
  static ComplexTable builtin();

 private:
  std::unordered_map<std::string, uint32_t> by_name_, by_shortcut_;
  size_t indexed_ = 0;  // entries.size() when reindex() ran
};

bool parse_complexes(const std::string& text, const std::string& file, ComplexTable* out,
                     std::string* why);

// A value as Grid Engine reads it for a complex of type t: INT/DOUBLE/MEMORY with
// k/m/g (x1000) and K/M/G (x1024) suffixes, TIME as [[h:]m:]s, BOOL as
// TRUE/FALSE/1/0.  String types are not numbers (returns false).
bool parse_ge_value(ComplexType t, std::string_view text, double* out);

// ---- share tree (qconf -sstree) ----------------------------------------------------
enum class NodeType { User = 0, Project = 1 };

struct ShareTreeNodeSpec {
  uint32_t id = 0;
  std::string name;
  NodeType type = NodeType::User;
  uint32_t shares = 0;
  std::vector<size_t> children;  // indices into ShareTreeSpec::nodes
  int parent = -1;               // index, -1 for the root
  int line = 0;                  // the line of its id= (0: not read from text)
};

// nodes[0] is the root when the tree is non-empty; every node is reachable
// from it; each node has exactly one parent; sibling names are unique.
// parse_share_tree links children by id; when every id is 0 (8.1.9's
// qconf -sstree after a qmaster restart) by the records' depth-first order,
// as qconf -Mstree does, the ids then being that order (root 0).  ids 0
// given twice among non-zero ones are an error.
struct ShareTreeSpec {
  std::vector<ShareTreeNodeSpec> nodes;
  bool empty() const { return nodes.empty(); }
};

bool parse_share_tree(const std::string& text, const std::string& file, ShareTreeSpec* out,
                      std::string* why);

// ---- users, projects, usersets (qconf -suser, -sprj, -su) -------------------------
// One object per `name` line and the `key value` lines after it, as qconf
// prints them (several objects may follow each other: `qconf -suser a,b`).
// What the ticket policies read: fshare and oticket (non-negative integers,
// 0 when absent); a userset's `type` (ACL, DEPT or "ACL DEPT"/"ACL,DEPT").
// Other keys (delete_time, default_project, acl, xacl, entries, ...) are
// passed over.  Errors name file:line: a key before any `name`, a name given
// twice, a bad number.
enum class QconfObjectKind { User, Project, Userset };
struct QconfObject {
  std::string name;
  uint32_t fshare = 0;
  uint32_t oticket = 0;
  bool department = false;  // a userset whose type includes DEPT
  int line = 0;             // the `name` line
};
bool parse_qconf_objects(const std::string& text, const std::string& file, QconfObjectKind kind,
                         std::vector<QconfObject>* out, std::string* why);

}  // namespace mfprio::gridengine
