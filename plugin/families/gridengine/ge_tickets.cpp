// ge_tickets.cpp - share-tree, functional and override tickets (see ge_tickets.hpp;
// sgeee.c): the pass's ids, the working share tree and its targets, the
// running jobs' tickets (both passes) and compute_tickets, which runs the
// policy steps (ge_override.cpp, ge_functional.cpp, ge_share_sort.cpp) on
// the pending jobs.  The pass's shared types are in ge_tickets_pass.hpp.
#include "ge_tickets.hpp"
#include "ge_tickets_pass.hpp"
#include "tree_walk.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace mfprio::gridengine {
using namespace detail;
namespace {

constexpr double kMinUsage = 1.0;  // SGE_MIN_USAGE, scaled by oltt (sgeee.c:sge_calc_node_targets)

const TicketObject* lookup(const std::map<std::string, TicketObject>& m, const std::string& k) {
  if (k.empty()) return nullptr;
  auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}

}  // namespace

// With Model::names, ids below the table's size are the table's (a job's
// own id, else its name looked up there) and the pass numbers only names
// outside the table; without it every name is numbered in the pass.  Ids
// stand for names only through equality: no result depends on their values.
// Also the running and the pending jobs' indices, ascending.
void detail::intern_ids(const TicketJob* jobs, size_t n, const Model& m, size_t kept, TicketScratch::Arrays* a) {
  Ids& ids = a->ids;  // a reused one keeps its capacity: every entry is set below
  std::vector<uint32_t>*running = &a->running, *pending = &a->pending;
  // The flat records kept: as many as the arrays hold made with these tables.
  kept = m.names && a->flat_names == m.names ? std::min({kept, n, a->flat_made}) : 0;
  const bool same_lists = kept == n && a->flat_made == n;  // the same jobs: the same index lists
  a->flat_made = 0;  // (until this pass's are made)
  a->flat_names = m.names;
  a->flat_kept = kept;
  a->flat_all = same_lists;
  ids.job.resize(n);
  ids.uo.clear();
  ids.po.clear();
  ids.dobj.clear();
  ids.uname.clear();
  ids.pname.clear();
  const NameTables* t = m.names.get();
  auto seed = [](const NameTable& table, std::vector<const TicketObject*>& out) {
    out.resize(table.size());
    for (size_t i = 0; i < table.size(); ++i) out[i] = table.has_object[i] ? &table.objects[i] : nullptr;
  };
  auto seed_names = [](const NameTable& table, std::vector<std::string_view>& out) {
    out.resize(table.size());
    for (size_t i = 0; i < table.size(); ++i) out[i] = table.names[i];
  };
  // The id of "" in the projects' and departments' tables (a job naming none).
  uint32_t no_project = kNoName, no_department = kNoName;
  if (t) {
    seed(t->users, ids.uo);
    seed(t->projects, ids.po);
    seed(t->departments, ids.dobj);
    seed_names(t->users, ids.uname);
    seed_names(t->projects, ids.pname);
    no_project = t->projects.find(std::string());
    no_department = t->departments.find(std::string());
  }
  // The job's id and whether it names something ("" names nothing).
  auto one = [&](std::unordered_map<std::string_view, uint32_t>& names, const NameTable* table, uint32_t id,
                 uint32_t none_id, std::string_view name, const std::map<std::string, TicketObject>& objects,
                 std::vector<const TicketObject*>& out, std::vector<std::string_view>* out_names, bool* named) {
    if (table) {
      if (id < table->size()) {
        *named = id != none_id;
        return id;
      }
      const uint32_t at = table->find(std::string(name));
      if (at != kNoName) {
        *named = !name.empty();
        return at;
      }
    }
    *named = !name.empty();
    auto [it, added] = names.try_emplace(name, static_cast<uint32_t>(out.size()));
    if (added) {
      out.push_back(lookup(objects, std::string(name)));
      if (out_names) out_names->push_back(name);
    }
    return it->second;
  };
  std::unordered_map<std::string_view, uint32_t> un, pn, dn;
  const uint32_t nu = t ? static_cast<uint32_t>(t->users.size()) : 0;
  const uint32_t np = t ? static_cast<uint32_t>(t->projects.size()) : 0;
  const uint32_t nd = t ? static_cast<uint32_t>(t->departments.size()) : 0;
  if (!same_lists) {
    running->clear();
    pending->clear();
    for (size_t j = 0; j < kept; ++j) (ids.job[j].running ? running : pending)->push_back(static_cast<uint32_t>(j));
  }
  for (size_t j = kept; j < n; ++j) {
    const TicketJob& jb = jobs[j];
    LJob& l = ids.job[j];
    (jb.running ? running : pending)->push_back(static_cast<uint32_t>(j));
    l.submit = jb.submit_time;
    l.id = jb.id;
    l.js = jb.job_share;
    l.ot = jb.override_tickets;
    l.dilute = jb.dilute;
    l.running = jb.running;
    if (jb.user < nu && jb.project < np && jb.department < nd) {  // all three given: as one() takes them
      l.u = jb.user;
      l.p = jb.project;
      l.d = jb.department;
      l.has_p = jb.project != no_project;
      l.has_d = jb.department != no_department;
      continue;
    }
    bool named = false;
    l.u = one(un, t ? &t->users : nullptr, jb.user, kNoName, jb.user_name, m.users, ids.uo, &ids.uname, &named);
    l.p = one(pn, t ? &t->projects : nullptr, jb.project, no_project, jb.project_name, m.projects, ids.po,
              &ids.pname, &l.has_p);
    l.d = one(dn, t ? &t->departments : nullptr, jb.department, no_department, jb.department_name, m.departments,
              ids.dobj, nullptr, &l.has_d);
  }
  // The fshares by id (a job's read from flat arrays, not through its objects).
  auto flat = [](const std::vector<const TicketObject*>& objects, std::vector<double>& fs, std::vector<double>& ot) {
    fs.resize(objects.size());
    ot.resize(objects.size());
    for (size_t i = 0; i < objects.size(); ++i) {
      fs[i] = objects[i] ? objects[i]->fshare : 0.0;
      ot[i] = objects[i] ? objects[i]->oticket : 0.0;
    }
  };
  flat(ids.uo, ids.ufs, ids.uot);
  flat(ids.po, ids.pfs, ids.pot);
  flat(ids.dobj, ids.dfs, ids.dot);
  ids.uflags.resize(ids.uo.size());
  for (size_t u = 0; u < ids.uo.size(); ++u)
    ids.uflags[u] = static_cast<uint8_t>((ids.ufs[u] > 0 ? Ids::kPositiveShare : 0) |
                                         (ids.uot[u] > 0 ? Ids::kPositiveOt : 0));
  a->flat_made = n;
}

namespace {

// First-match indexes of a share tree (a depth-first search of the whole
// tree per job made a pass O(jobs x nodes)).  A look-up is the first node
// in the preorder below the scope (children in order) whose name and kind
// (project or not) match and that is no user copy, not entering project
// subtrees unless asked; the first entry a preorder walk inserts for a name
// is exactly that node.  User copies (added while jobs are mapped, after
// the tree's own nodes) have no children and never match, so the tree's
// own index (Model::tree_index) serves every pass over it.
bool is_user_copy(const ShareNodeState& n) { return n.user_copy; }
bool is_user_copy(const ShareTreeNodeSpec&) { return false; }
template <typename Node>
void index_walk(const std::vector<Node>& nodes, int from, bool enter_projects, bool want_project,
                std::unordered_map<std::string, int>* out) {
  std::vector<int> stack;  // preorder, children in order
  const auto push_children = [&](const Node& n) {
    for (auto it = n.children.rbegin(); it != n.children.rend(); ++it) stack.push_back(static_cast<int>(*it));
  };
  push_children(nodes[static_cast<size_t>(from)]);
  while (!stack.empty()) {
    const int c = stack.back();
    stack.pop_back();
    const Node& n = nodes[static_cast<size_t>(c)];
    const bool is_project = n.type == NodeType::Project;
    if (is_project == want_project && !is_user_copy(n)) out->emplace(n.name, c);
    if (is_project && !enter_projects) continue;
    push_children(n);
  }
}

}  // namespace

struct TreeIndex {
  std::unordered_map<std::string, int> projects, outside;
  std::unordered_map<int, std::unordered_map<std::string, int>> inside;  // per project node (scope)
};

std::shared_ptr<const TreeIndex> index_share_tree(const ShareTreeSpec& tree) {
  auto t = std::make_shared<TreeIndex>();
  const auto& nodes = tree.nodes;
  if (nodes.empty()) return t;
  index_walk(nodes, 0, /*enter_projects=*/true, /*want_project=*/true, &t->projects);
  index_walk(nodes, 0, /*enter_projects=*/false, /*want_project=*/false, &t->outside);
  for (size_t k = 0; k < nodes.size(); ++k)
    if (nodes[k].type == NodeType::Project)
      index_walk(nodes, static_cast<int>(k), /*enter_projects=*/true, /*want_project=*/false,
                 &t->inside[static_cast<int>(k)]);
  return t;
}

namespace {

// The look-ups of one pass: the model's tree index, or (none) one built
// here, project scopes on first use.
class LeafIndex {
 public:
  LeafIndex(const std::vector<ShareNodeState>& nodes, const TreeIndex* given) : nodes_(nodes), given_(given) {
    if (nodes.empty() || given_) return;
    index_walk(nodes_, 0, /*enter_projects=*/true, /*want_project=*/true, &own_.projects);
    index_walk(nodes_, 0, /*enter_projects=*/false, /*want_project=*/false, &own_.outside);
  }
  // A project node anywhere below the root.
  int project(const std::string& name) const { return get(index().projects, name); }
  // A non-project node: below project `scope` (projects entered), or (not
  // in a project) below the root outside every project subtree.
  int user(int scope, bool in_project, const std::string& name) {
    if (!in_project) return get(index().outside, name);
    if (given_) {
      auto it = given_->inside.find(scope);
      return it == given_->inside.end() ? -1 : get(it->second, name);
    }
    auto it = own_.inside.find(scope);
    if (it == own_.inside.end()) {
      it = own_.inside.emplace(scope, std::unordered_map<std::string, int>{}).first;
      index_walk(nodes_, scope, /*enter_projects=*/true, /*want_project=*/false, &it->second);
    }
    return get(it->second, name);
  }

 private:
  const TreeIndex& index() const { return given_ ? *given_ : own_; }
  static int get(const std::unordered_map<std::string, int>& m, const std::string& name) {
    auto it = m.find(name);
    return it == m.end() ? -1 : it->second;
  }
  const std::vector<ShareNodeState>& nodes_;
  const TreeIndex* given_;
  TreeIndex own_;
};

// sgeee.c:sge_calc_node_targets / SUP:search_userprj_node: a job with a
// project: the project's node, then the user's leaf (or `default`) inside it,
// and no node at all when the tree has no node for a project that exists
// (`is_project`: a project object; search_userprj_node searches only project
// nodes for it: the real 8.1.9 gives such a job 0 share tickets,
// tests/data/ge); a job without a project, or whose account is no project at
// all (a host's account, which qsub -P would refuse): the user (or `default`)
// outside project subtrees.  Returns the node and whether it is a `default` leaf.
std::pair<int, bool> find_job_leaf(const std::vector<ShareNodeState>& nodes, LeafIndex& index,
                                   const std::string& user, const std::string& project, bool is_project) {
  int scope = 0;
  bool in_project = false;
  if (!project.empty()) {
    int p = nodes[0].type == NodeType::Project && nodes[0].name == project ? 0 : index.project(project);
    if (p < 0 && is_project) return {-1, false};
    if (p >= 0) {
      scope = p;
      in_project = true;
    }
  }
  int u = index.user(scope, in_project, user);
  if (u >= 0 && nodes[u].children.empty()) return {u, false};
  int d = index.user(scope, in_project, "default");
  if (d >= 0 && nodes[d].children.empty()) return {d, true};
  if (in_project && nodes[scope].children.empty()) return {scope, false};
  return {-1, false};
}

void shape_tree(const std::vector<ShareTreeNodeSpec>& spec, TreeShape* out) {
  out->preorder.clear();
  out->project_of.assign(spec.size(), -1);
  if (spec.empty()) return;
  std::vector<int> stack = {0};
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    out->preorder.push_back(n);
    const ShareTreeNodeSpec& node = spec[static_cast<size_t>(n)];
    if (node.type == NodeType::Project) out->project_of[static_cast<size_t>(n)] = n;
    else if (node.parent >= 0) out->project_of[static_cast<size_t>(n)] = out->project_of[static_cast<size_t>(node.parent)];
    for (auto it = node.children.rbegin(); it != node.children.rend(); ++it) stack.push_back(static_cast<int>(*it));
  }
}

// The tree's nodes as the pass starts them (a reused vector keeps its
// nodes' strings and vectors: every field set here or by count_jobs).
void reset_nodes(const std::vector<ShareTreeNodeSpec>& spec, const TreeShape& shape, std::vector<ShareNodeState>& nodes) {
  nodes.resize(spec.size());
  for (size_t i = 0; i < spec.size(); ++i) {
    auto& n = nodes[i];
    n.name = spec[i].name;
    n.type = spec[i].type;
    n.shares = spec[i].shares;
    n.parent = spec[i].parent;
    n.children.clear();
    for (size_t c : spec[i].children) n.children.push_back(static_cast<int>(c));
    n.user_copy = false;
    const int up = shape.project_of[i];
    if (up >= 0) n.project = spec[static_cast<size_t>(up)].name;
    else n.project.clear();
    n.usage = 0;
  }
}

// Usage, bottom-up (sgeee.c:sge_calc_node_targets SUP:sge_calc_node_usage):
// a project node its project's, a leaf (user copies too) its user's within
// its project, any other node the sum of its children's.
void node_usage(const Model& m, const TreeShape& shape, std::vector<ShareNodeState>& nodes) {
  const UsageWeights& uw = m.conf.usage_weight_list;
  const size_t spec_size = m.tree.nodes.size();
  const bool own = m.own_usage.size() == spec_size;
  auto usage_of = [&](size_t n) {
    auto& node = nodes[n];
    if (own && !node.user_copy && (node.type == NodeType::Project || node.children.empty()))
      return m.own_usage[n];  // precomputed: the same rule below
    if (node.type == NodeType::Project) {
      auto it = m.project_usage.find(node.name);
      return it == m.project_usage.end() ? 0.0 : combine_usage(it->second, uw);
    }
    if (node.children.empty()) {
      Usage u;
      if (!node.project.empty()) {
        auto it = m.user_project_usage.find({node.name, node.project});
        if (it != m.user_project_usage.end()) u = it->second;
      } else {
        auto it = m.user_usage.find(node.name);
        if (it != m.user_usage.end()) u = it->second;
      }
      return combine_usage(u, uw);
    }
    double sum = 0;
    for (int c : node.children) sum += nodes[static_cast<size_t>(c)].usage;
    return sum;
  };
  for (size_t n = spec_size; n < nodes.size(); ++n) nodes[n].usage = usage_of(n);  // copies: leaves
  for (auto it = shape.preorder.rbegin(); it != shape.preorder.rend(); ++it)
    nodes[static_cast<size_t>(*it)].usage = usage_of(static_cast<size_t>(*it));
}

// Into *out: the nodes, each job's node.  Users caught by `default` get
// their own sibling copy (EE:sge_set_job_refs), made in job order.  The
// first `kept` jobs (their flat records the last pass's: Arrays::flat_kept)
// keep the nodes the last pass gave them when it used this cache: their
// copies are made again first, in the order it made them.
void build_work_tree(size_t n_jobs, size_t kept, const Model& m, const Ids& ids, TreeCache& cache, WorkTree* out) {
  WorkTree& w = *out;
  const auto& spec = m.tree.nodes;
  // The model's index of its tree, else one for this pass (it holds the
  // vector, not its elements: copies may be added).
  const bool own_index = m.tree_index && m.tree_index_of == &m.tree;
  const bool keep = own_index && m.names;
  if (!keep || !cache.kept || cache.names != m.names || cache.index != m.tree_index) {
    shape_tree(spec, &cache.shape);
    cache.by_user.clear();
    cache.last.clear();
    cache.nodes_made = 0;
    cache.copies.clear();
    cache.names = keep ? m.names : nullptr;
    cache.index = keep ? m.tree_index : nullptr;
    cache.kept = keep;
  }
  kept = std::min({kept, n_jobs, cache.nodes_made, w.job_node.size()});
  cache.nodes_made = 0;  // (until this pass's are made)
  reset_nodes(spec, cache.shape, w.nodes);
  w.job_node.resize(n_jobs);
  w.direct.assign(w.nodes.size(), 0);
  if (w.nodes.empty()) {
    w.job_node.assign(n_jobs, -1);
    return;
  }
  std::unordered_map<uint64_t, int> copies;  // (default leaf, user id) -> the user's copy
  // (record: listed in cache.copies, which holds the kept ones already)
  const auto copy_of = [&](int leaf, uint32_t u, bool record) {
    const uint64_t key = (static_cast<uint64_t>(leaf) << 32) | u;
    auto it = copies.find(key);
    if (it == copies.end()) {
      ShareNodeState c = w.nodes[leaf];
      c.name = ids.uname[u];
      c.user_copy = true;
      c.children.clear();
      const int idx = static_cast<int>(w.nodes.size());
      const int parent = c.parent;
      w.nodes.push_back(std::move(c));
      if (parent >= 0) w.nodes[parent].children.push_back(idx);
      w.direct.push_back(0);
      if (record) cache.copies.emplace_back(leaf, u);
      it = copies.emplace(key, idx).first;
    }
    return it->second;
  };
  // The kept jobs' copies (the first ones the last pass made), then their nodes counted.
  size_t made = 0;
  for (size_t j = 0; j < kept; ++j)
    if (w.job_node[j] >= static_cast<int>(spec.size()))
      made = std::max(made, static_cast<size_t>(w.job_node[j]) - spec.size() + 1);
  cache.copies.resize(made);
  for (const auto& [leaf, u] : cache.copies) copy_of(leaf, u, false);
  for (size_t j = 0; j < kept; ++j)
    if (const int node = w.job_node[j]; node >= 0) ++w.direct[static_cast<size_t>(node)];
  LeafIndex index(w.nodes, own_index ? m.tree_index.get() : nullptr);
  const uint32_t table_users = keep ? static_cast<uint32_t>(m.names->users.size()) : 0;
  const uint32_t table_projects = keep ? static_cast<uint32_t>(m.names->projects.size()) : 0;
  if (cache.by_user.size() < table_users) cache.by_user.resize(table_users);
  cache.last.resize(n_jobs, TreeCache::JobLeaf{kNoId, LeafHit{kNoId, -1, false}});
  bool found_reset = false;
  auto find = [&](const LJob& l) {
    return find_job_leaf(w.nodes, index, std::string(ids.uname[l.u]),
                         l.has_p ? std::string(ids.pname[l.p]) : std::string(), ids.po[l.p] != nullptr);
  };
  // The leaf depends on the job's user and project only: found once per pair.
  for (size_t j = kept; j < n_jobs; ++j) {
    const LJob& l = ids.job[j];
    std::pair<int, bool> hit;
    TreeCache::JobLeaf& memo = cache.last[j];
    if (l.u < table_users && l.p < table_projects) {
      if (memo.user != l.u || memo.hit.project != l.p) {
        std::vector<LeafHit>& v = cache.by_user[l.u];
        auto it =
            std::lower_bound(v.begin(), v.end(), l.p, [](const LeafHit& h, uint32_t p) { return h.project < p; });
        if (it == v.end() || it->project != l.p) {
          const auto [leaf, is_default] = find(l);
          it = v.insert(it, LeafHit{l.p, leaf, is_default});
        }
        memo = TreeCache::JobLeaf{l.u, *it};
      }
      hit = {memo.hit.leaf, memo.hit.is_default};
    } else {
      memo.user = kNoId;
      if (!found_reset) {
        cache.found.reset(1024);
        cache.leaves.clear();
        found_reset = true;
      }
      bool added = false;
      const uint32_t at =
          cache.found.insert(Key5{{l.u, l.p, 0, 0, 0}}, static_cast<uint32_t>(cache.leaves.size()), &added);
      if (added) cache.leaves.push_back(find(l));
      hit = cache.leaves[at];
    }
    auto [leaf, is_default] = hit;
    if (leaf >= 0 && is_default) leaf = copy_of(leaf, l.u, true);
    w.job_node[j] = leaf;
    if (leaf >= 0) ++w.direct[static_cast<size_t>(leaf)];
  }
  node_usage(m, cache.shape, w.nodes);
  cache.nodes_made = keep ? n_jobs : 0;
}

// Count jobs into the tree: every job (`direct`: each node's, as
// build_work_tree counted them; running: the running jobs' indices,
// ascending), or with `running_only` (pass 2) the running ones alone.
void count_jobs(std::vector<ShareNodeState>& nodes, const std::vector<uint32_t>& running,
                const std::vector<int>& job_node, const std::vector<uint32_t>& direct, bool running_only) {
  for (auto& n : nodes) {
    n.jobs = n.direct_jobs = n.direct_running = 0;
    n.active = false;
    n.ltt = n.oltt = n.stt = n.ostt = n.shr = 0;
    n.compensated = false;
  }
  if (!running_only)
    for (size_t i = 0; i < nodes.size(); ++i) nodes[i].direct_jobs = direct[i];
  for (const size_t j : running) {
    const int n = job_node[j];
    if (n < 0) continue;
    if (running_only) nodes[n].direct_jobs++;
    nodes[n].direct_running++;
  }
  // Each node's jobs up its path once (not once per job).
  for (size_t i = 0; i < nodes.size(); ++i)
    if (const uint32_t d = nodes[i].direct_jobs)
      for (int n = static_cast<int>(i); n >= 0; n = nodes[n].parent) nodes[n].jobs += d;
  for (auto& n : nodes) n.active = n.jobs > 0;
}

bool path_compensated(const std::vector<ShareNodeState>& nodes, int n) {
  for (; n >= 0; n = nodes[n].parent)
    if (nodes[n].compensated) return true;
  return false;
}

// CONF:sconf_ph_fill_array: listed letters first (dependent), then the others.
std::vector<PolicyStep> policy_order(const std::string& ph) {
  std::vector<PolicyStep> out;
  for (char c : ph) out.push_back({c, true});
  for (char c : std::string("OFS"))
    if (ph.find(c) == std::string::npos) out.push_back({c, false});
  return out;
}

}  // namespace

std::vector<double> own_node_usage(const Model& m) {
  const auto& spec = m.tree.nodes;
  const UsageWeights& uw = m.conf.usage_weight_list;
  std::vector<double> out(spec.size(), 0.0);
  if (spec.empty()) return out;
  // Preorder from the root with the nearest project ancestor (or itself).
  std::vector<std::pair<size_t, const std::string*>> stack = {{0, nullptr}};
  static const std::string none;
  while (!stack.empty()) {
    const auto [n, up] = stack.back();
    stack.pop_back();
    const ShareTreeNodeSpec& node = spec[n];
    const std::string& project = node.type == NodeType::Project ? node.name : (up ? *up : none);
    if (node.type == NodeType::Project) {
      auto it = m.project_usage.find(node.name);
      out[n] = it == m.project_usage.end() ? 0.0 : combine_usage(it->second, uw);
    } else if (node.children.empty()) {
      Usage u;
      if (!project.empty()) {
        auto it = m.user_project_usage.find({node.name, project});
        if (it != m.user_project_usage.end()) u = it->second;
      } else {
        auto it = m.user_usage.find(node.name);
        if (it != m.user_usage.end()) u = it->second;
      }
      out[n] = combine_usage(u, uw);
    }
    for (size_t c : node.children) stack.push_back({c, &project});
  }
  return out;
}

void compute_share_targets(std::vector<ShareNodeState>& nodes, double cf) {
  if (nodes.empty()) return;
  auto& root = nodes[0];
  root.ltt = root.oltt = root.stt = root.ostt = 1.0;
  // Each active child's targets from its parent's, top-down over the
  // active nodes (a stack and one children list, reused: no allocation per node).
  std::vector<int> stack = {0}, act;
  while (!stack.empty()) {
    const int n = stack.back();
    stack.pop_back();
    act.clear();
    for (int c : nodes[n].children)
      if (nodes[c].active) act.push_back(c);
    if (act.empty()) continue;
    stack.insert(stack.end(), act.begin(), act.end());
    double sum_shares = 0;
    for (int c : act) sum_shares += nodes[c].shares;
    for (int c : act) {
      auto& k = nodes[c];
      k.ltt = sum_shares > 0 ? k.shares / sum_shares : 0.0;
      k.oltt = nodes[n].oltt * k.ltt;
      const double s = static_cast<double>(k.shares);
      k.shr = k.oltt > 0 ? s * s / std::max(k.usage, kMinUsage * k.oltt) : 0.0;
    }
    auto spread = [&] {
      double sum_shr = 0;
      for (int c : act) sum_shr += nodes[c].shr;
      for (int c : act) {
        auto& k = nodes[c];
        k.stt = sum_shr > 0 ? k.shr / sum_shr : 0.0;
        k.ostt = nodes[n].ostt * k.stt;
      }
    };
    spread();
    if (cf != 0) {
      bool changed = false;
      for (int c : act) {
        auto& k = nodes[c];
        if (k.oltt > 0 && k.ostt > cf * k.oltt) {
          const double s = static_cast<double>(k.shares);
          k.shr = s * s / (std::max(k.usage, kMinUsage * k.oltt) * (k.ostt / (cf * k.oltt)));
          k.compensated = true;
          changed = true;
        }
      }
      if (changed) spread();  // one pass only (sgeee.c:sge_calc_node_targets)
    }
  }
}

namespace {

// Share-tree pass 1 (running + pending jobs active), the running jobs'
// functional and override tickets (the same in both passes) and their
// pass-1 totals.
void running_tickets(Pass& p) {
  const std::vector<LJob>& lj = p.ids.job;
  const size_t n = p.n;
  build_work_tree(n, p.s.flat_kept, p.m, p.ids, p.s.tree, &p.w);
  p.use_tree = p.WS > 0 && !p.w.nodes.empty();
  count_jobs(p.w.nodes, p.running, p.w.job_node, p.w.direct, false);
  compute_share_targets(p.w.nodes, p.conf.compensation_factor);
  p.ft.assign(n, 0.0);
  p.ot.assign(n, 0.0);
  p.p1.assign(n, 0.0);

  // The running jobs only, in job order (the sums add in the same order).
  p.leaf_running_js.assign(p.w.nodes.size(), 0.0);
  for (const size_t k : p.running)
    if (p.w.job_node[k] >= 0) p.leaf_running_js[p.w.job_node[k]] += lj[k].js;

  for (const size_t k : p.running) p.run_cnt.add(lj[k]);
  for (const size_t k : p.running) {
    FShares f = p.job_fshare(lj[k], p.run_cnt, 0);
    p.run_sum.user += f.user;
    p.run_sum.project += f.project;
    p.run_sum.dept += f.dept;
    p.run_sum.job += f.job;
  }
  if (p.F > 0) {
    auto wr = functional_weights(p.conf, p.run_sum.user > 0, p.run_sum.project > 0, p.run_sum.dept > 0,
                                 p.run_sum.job > 0);
    for (const size_t j : p.running)
      p.ft[j] = functional_value(wr, p.job_fshare(lj[j], p.run_cnt, 0), p.run_sum, p.F);
  }
  for (const size_t j : p.running)
    p.ot[j] = p.override_value(lj[j], p.run_cnt, 0, p.conf.share_override_tickets);

  // Running jobs' pass-1 share tickets (divided over running + pending of the leaf).
  if (p.use_tree)
    for (const size_t j : p.running)
      if (p.w.job_node[j] >= 0)
        p.p1[j] = p.running_share_tickets(p.w.nodes, j, p.w.nodes[p.w.job_node[j]].direct_jobs);
  for (const size_t j : p.running) p.p1[j] += p.ft[j] + p.ot[j];
}

// Job j's JobTickets from the pass's per-job arrays (its total `tckts`):
// share_bound, a compensated node on its path, pass 1's nodes for a
// pending job (memo: per node, when given), pass 2's for a running one.
JobTickets assembled(const TicketScratch::Arrays& s, double tckts, size_t j, const std::vector<ShareNodeState>& pass1,
                     const std::vector<ShareNodeState>& pass2, std::vector<int8_t>* memo) {
  JobTickets t;
  const int node = s.w.job_node[j];
  t.share_node = node;
  t.stckt = s.st[j];
  t.ftckt = s.ft[j];
  t.otckt = s.ot[j];
  t.pass1_tckts = s.p1[j];
  t.tckts = tckts;
  if (node < 0) return t;
  if (s.ids.job[j].running) {
    t.share_bound = s.use_tree && path_compensated(pass2, node);
  } else if (s.share_ran) {
    int8_t b = memo ? (*memo)[static_cast<size_t>(node)] : -1;
    if (b < 0) b = path_compensated(pass1, node) ? 1 : 0;
    if (memo) (*memo)[static_cast<size_t>(node)] = b;
    t.share_bound = b == 1;
  }
  return t;
}

// Pass 2: the running jobs' share-tree tickets from running-only targets;
// every job's JobTickets written once (from the steps' per-job arrays),
// totals and max_tix.
void running_pass2(Pass& p) {
  std::vector<ShareNodeState>& p2 = p.r.nodes_running;
  p2 = p.w.nodes;  // copy-assigned: a reused result keeps its nodes' strings and vectors
  count_jobs(p2, p.running, p.w.job_node, p.w.direct, true);
  compute_share_targets(p2, p.conf.compensation_factor);
  std::vector<double>& st = p.st;
  if (!p.share_ran) st.assign(p.n, 0.0);
  for (const size_t j : p.running)
    st[j] = p.use_tree && p.w.job_node[j] >= 0 ? p.running_share_tickets(p2, j, p2[p.w.job_node[j]].direct_running)
                                                : 0.0;
  p.s.share_ran = p.share_ran;
  p.s.use_tree = p.use_tree;
  double max_tix = 0;
  p.r.tckts.resize(p.n);
  for (size_t j = 0; j < p.n; ++j) {
    const double t = st[j] + p.ft[j] + p.ot[j];
    p.r.tckts[j] = t;
    max_tix = std::max(max_tix, t);
  }
  for (const size_t j : p.running) max_tix = std::max(max_tix, p.p1[j]);
  p.r.max_tix = max_tix;
  if (!p.topt.job_tickets && p.topt.scratch) return;  // job_tickets() gives a job's when asked
  std::vector<int8_t>& memo = p.s.bound_memo;  // per node: path_compensated on pass 1's nodes
  memo.assign(p.share_ran ? p.w.nodes.size() : 0, -1);
  for (size_t j = 0; j < p.n; ++j) p.r.jobs[j] = assembled(p.s, p.r.tckts[j], j, p.w.nodes, p2, &memo);
}

}  // namespace

uint32_t dilute_slots(const Job& j) {
  if (!j.pe || j.pe->ranges.empty()) return 1;
  return std::max<uint32_t>(1, j.pe->ranges.front().min);
}

TicketJob ticket_job(const Job& job, const NameTables* names, const JobNameIds* ids) {
  TicketJob t;
  t.id = job.id;
  t.submit_time = job.submit_time;
  t.job_share = job.job_share;
  t.override_tickets = job.override_tickets;
  t.dilute = dilute_slots(job);
  t.running = job.running;
  t.user_name = job.user;
  t.project_name = job.project;
  t.department_name = job.department;
  if (!names) return t;
  const JobNameIds none;
  const JobNameIds& h = ids ? *ids : none;
  auto id_of = [](const NameTable& table, uint32_t hint, const std::string& name) {
    if (hint < table.size() && table.names[hint] == name) return hint;
    return table.find(name);
  };
  t.user = id_of(names->users, h.user, job.user);
  t.project = id_of(names->projects, h.project, job.project);
  t.department = id_of(names->departments, h.department, job.department);
  return t;
}

JobTickets job_tickets(const TicketResult& r, const TicketScratch& scratch, size_t j) {
  return assembled(*scratch.a, r.tckts[j], j, r.nodes, r.nodes_running, nullptr);
}

TicketScratch::TicketScratch() : a(std::make_unique<Arrays>()) {}
TicketScratch::~TicketScratch() = default;

TicketResult compute_tickets(const std::vector<Job>& jobs, const Model& m, const TicketOptions& topt) {
  TicketResult r;
  compute_tickets(jobs, m, topt, &r);
  return r;
}

void compute_tickets(const std::vector<Job>& jobs, const Model& m, const TicketOptions& topt, TicketResult* out) {
  const std::vector<JobNameIds>* given = topt.name_ids && topt.name_ids->size() == jobs.size() ? topt.name_ids
                                                                                              : nullptr;
  // In the scratch when there is one (10^6 TicketJobs are ~100 MB: a fresh
  // vector per pass would be pages faulted in and zeroed every pass).
  std::vector<TicketJob> local;
  std::vector<TicketJob>& flat = topt.scratch ? topt.scratch->a->job_form : local;
  flat.resize(jobs.size());
  for (size_t j = 0; j < jobs.size(); ++j) flat[j] = ticket_job(jobs[j], m.names.get(), given ? &(*given)[j] : nullptr);
  compute_tickets(flat.data(), flat.size(), m, topt, out);
}

void compute_tickets(const TicketJob* jobs, size_t n, const Model& m, const TicketOptions& topt,
                     TicketResult* out) {
  std::unique_ptr<TicketScratch::Arrays> local;
  TicketScratch::Arrays* arrays = topt.scratch ? topt.scratch->a.get() : nullptr;
  if (!arrays) {
    local = std::make_unique<TicketScratch::Arrays>();
    arrays = local.get();
  }
  arrays->w.nodes = std::move(out->nodes);  // the last result's nodes, reused
  Pass p(jobs, n, m, topt, *arrays, *out);
  p.r.jobs.resize(topt.job_tickets || !topt.scratch ? p.n : 0);  // each set by running_pass2
  p.r.max_tix = 0;
  running_tickets(p);
  // ---- pending jobs, policy by policy ----
  p.prior.assign(p.n, 0.0);
  if (!p.pending.empty()) scan_pending(p);
  else p.s.scan_made = 0, p.s.scan_all_kept = false;
  for (const PolicyStep& step : policy_order(p.conf.policy_hierarchy)) {
    if (p.pending.empty()) break;
    if (step.policy == 'O') pending_override(p, step);
    else if (step.policy == 'F' && p.F > 0) functional_step(p, step);
    else if (step.policy == 'S' && p.use_tree) share_tree_step(p, step);
  }
  running_pass2(p);
  p.r.nodes = std::move(p.w.nodes);
}

}  // namespace mfprio::gridengine
