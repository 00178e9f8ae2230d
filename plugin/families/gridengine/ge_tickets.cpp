// ge_tickets.cpp - share-tree, functional and override tickets (see ge_tickets.hpp;
// sgeee.c).
#include "ge_tickets.hpp"
#include "stable_order.hpp"
#include "tree_walk.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_map>

namespace mfprio::gridengine {
namespace {

constexpr double kMinUsage = 1.0;  // SGE_MIN_USAGE, scaled by oltt (sgeee.c:sge_calc_node_targets)

constexpr uint32_t kNoId = UINT32_MAX;

// A job as the ticket steps read it: its ids and numbers in one flat
// record (no step reads a Job's strings, maps or PE request; sorts and
// picks in category or tree order touch 56 bytes a job, not a whole Job).
struct LJob {
  int64_t submit = 0;
  uint64_t id = 0;
  double js = 0;          // -js
  double ot = 0;          // -ot
  uint32_t u = 0, p = 0, d = 0;  // the pass's user, project, department ids
  uint32_t dilute = 1;    // dilute_slots: max(1, min of the first PE range)
  bool running = false, has_p = false, has_d = false;
};

struct Ids {
  std::vector<LJob> job;  // per job
  std::vector<const TicketObject*> uo, po, dobj;  // per id, nullptr = none
  std::vector<std::string_view> uname, pname;     // per id: the user's, the project's name
  std::vector<double> ufs, pfs, dfs;              // per id: its object's fshare, 0 = none
  std::vector<double> uot, pot, dot;              // per id: its object's override tickets, 0 = none
};

const TicketObject* lookup(const std::map<std::string, TicketObject>& m, const std::string& k) {
  if (k.empty()) return nullptr;
  auto it = m.find(k);
  return it == m.end() ? nullptr : &it->second;
}

// With Model::names, ids below the table's size are the table's (a job's
// own id, else its name looked up there) and the pass numbers only names
// outside the table; without it every name is numbered in the pass.  Ids
// stand for names only through equality: no result depends on their values.
// Also the running and the pending jobs' indices, ascending.
void intern_ids(const TicketJob* jobs, size_t n, const Model& m, Ids* out, std::vector<size_t>* running,
                std::vector<size_t>* pending) {
  Ids& ids = *out;  // a reused one keeps its capacity: every entry is set below
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
  running->clear();
  pending->clear();
  for (size_t j = 0; j < n; ++j) {
    const TicketJob& jb = jobs[j];
    LJob& l = ids.job[j];
    (jb.running ? running : pending)->push_back(j);
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
}

// An equality key of up to five words (ids, and doubles by their bits with
// -0 as +0: the values are never NaN, so equal bits <=> equal values).
struct Key5 {
  uint64_t w[5] = {0, 0, 0, 0, 0};
  bool operator==(const Key5& o) const {
    return w[0] == o.w[0] && w[1] == o.w[1] && w[2] == o.w[2] && w[3] == o.w[3] && w[4] == o.w[4];
  }
};
uint64_t dbits(double v) {
  if (v == 0) return 0;
  uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

// Key5 -> index, open addressing (linear probing, at most half full,
// doubled when it would pass that): no allocation per key.
class FlatIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  FlatIndex() { rehash(64); }
  // Empty, room for n keys without a rehash (a reused index keeps its table).
  void reset(size_t n) {
    size_t cap = 64;
    while (cap < 2 * (n + 1)) cap *= 2;
    if (slots_.size() < cap) {
      slots_.assign(cap, Slot{});
      mask_ = cap - 1;
    } else {
      for (Slot& e : slots_) e.val = kEmpty;
    }
    size_ = 0;
  }
  // Room for `more` keys beyond those held without a rehash on the way.
  void reserve(size_t more) {
    size_t cap = slots_.size();
    while (2 * (size_ + more + 1) > cap) cap *= 2;
    if (cap > slots_.size()) rehash(cap);
  }
  // k's place fetched into the cache ahead of its insert (a table larger
  // than the caches: a run of inserts overlaps their misses).
  void prefetch(const Key5& k) const { __builtin_prefetch(&slots_[slot(k)]); }
  // The index of k, inserting v when absent (*added says which).
  uint32_t insert(const Key5& k, uint32_t v, bool* added) {
    if (2 * (size_ + 1) > slots_.size()) rehash(slots_.size() * 2);
    size_t i = slot(k);
    for (; slots_[i].val != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].key == k) {
        *added = false;
        return slots_[i].val;
      }
    slots_[i] = Slot{k, v};
    ++size_;
    *added = true;
    return v;
  }

 private:
  // A key and its value side by side: a probe reads one place (at 10^6
  // keys the table is far larger than the caches).
  struct Slot {
    Key5 key;
    uint32_t val = kEmpty;
  };
  size_t slot(const Key5& k) const {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    for (uint64_t x : k.w) {
      h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
      h *= 0xBF58476D1CE4E5B9ull;
    }
    h ^= h >> 31;
    return static_cast<size_t>(h) & mask_;
  }
  void rehash(size_t cap) {
    std::vector<Slot> old(cap);
    old.swap(slots_);
    mask_ = cap - 1;
    for (const Slot& e : old) {
      if (e.val == kEmpty) continue;
      size_t j = slot(e.key);
      while (slots_[j].val != kEmpty) j = (j + 1) & mask_;
      slots_[j] = e;
    }
  }
  std::vector<Slot> slots_;
  size_t mask_ = 0, size_ = 0;
};

// (a, b) -> index, open addressing (linear probing, at most half full,
// doubled when it would pass that) in a table kept between passes, whose
// used slots are cleared by begin(): a pass costs the keys it holds.
class BlockIndex {
 public:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  // Empty, room for n keys without a rehash.
  void begin(size_t n) {
    for (uint32_t i : used_) slots_[i].val = kEmpty;
    used_.clear();
    size_t cap = 16;
    while (cap < 2 * n) cap *= 2;
    if (slots_.size() < cap) slots_.assign(cap, Slot{});
    mask_ = slots_.size() - 1;
  }
  uint32_t insert(uint64_t a, uint64_t b, uint32_t v, bool* added) {
    uint64_t h = (a ^ (b * 0x9E3779B97F4A7C15ull)) * 0xBF58476D1CE4E5B9ull;
    size_t i = static_cast<size_t>(h ^ (h >> 29)) & mask_;
    for (; slots_[i].val != kEmpty; i = (i + 1) & mask_)
      if (slots_[i].a == a && slots_[i].b == b) {
        *added = false;
        return slots_[i].val;
      }
    if (2 * (used_.size() + 1) > slots_.size()) {
      grow();
      return insert(a, b, v, added);
    }
    slots_[i] = Slot{a, b, v};
    used_.push_back(static_cast<uint32_t>(i));
    *added = true;
    return v;
  }

 private:
  struct Slot {
    uint64_t a = 0, b = 0;
    uint32_t val = kEmpty;
  };
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    mask_ = slots_.size() - 1;
    used_.clear();
    for (const Slot& e : old) {
      if (e.val == kEmpty) continue;
      bool added = false;
      insert(e.a, e.b, e.val, &added);
    }
  }
  std::vector<Slot> slots_;
  std::vector<uint32_t> used_;
  size_t mask_ = 0;
};

// ---- per-object counters for functional and override tickets ------------------------
// Flat, by id; references to values stay valid (the functional pass keeps some).
struct Counts {
  std::vector<double> user, project, dept;
  explicit Counts(const Ids& i) : user(i.uo.size()), project(i.po.size()), dept(i.dobj.size()) {}
  double& u(const LJob& j) { return user[j.u]; }
  double& p(const LJob& j) { return project[j.p]; }
  double& d(const LJob& j) { return dept[j.d]; }
  // The job's objects count one more job (a job without a project or
  // department counts for none).
  void add(const LJob& j) {
    user[j.u] += 1;
    if (j.has_p) project[j.p] += 1;
    if (j.has_d) dept[j.d] += 1;
  }
};

// ---- the working share tree ----------------------------------------------------------
struct WorkTree {
  std::vector<ShareNodeState> nodes;
  std::vector<int> job_node;     // per job, -1 = none
  std::vector<uint32_t> direct;  // per node, its jobs (running and pending): counted as they are mapped
};

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

// The tree's reachable nodes in preorder (children in order) and each
// one's nearest project ancestor (or itself), -1 if none.
struct TreeShape {
  std::vector<int> preorder, project_of;
};
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

// What a state's passes share about its tree: the shape, and per (user id,
// project id) of the names' tables the job's leaf (find_job_leaf), kept
// while the model's names and tree index are the same objects (both held
// here, so neither can be freed and another made at its address).  Ids
// outside the tables (numbered by one pass) are looked up per pass.
struct LeafHit {
  uint32_t project;
  int leaf;
  bool is_default;
};
struct TreeCache {
  std::shared_ptr<const NameTables> names;
  std::shared_ptr<const TreeIndex> index;
  bool kept = false;
  TreeShape shape;
  std::vector<std::vector<LeafHit>> by_user;  // per user id, sorted by project id
  // Per job position, the last pass's (user id, its LeafHit) from by_user,
  // user kNoId: none (a queue like the last finds its jobs' leaves in job
  // order, not in per-user vectors at random).
  struct JobLeaf {
    uint32_t user;
    LeafHit hit;
  };
  std::vector<JobLeaf> last;
  FlatIndex found;                            // this pass's other (user, project) -> leaves[]
  std::vector<std::pair<int, bool>> leaves;
};

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
// their own sibling copy (EE:sge_set_job_refs).
void build_work_tree(size_t n_jobs, const Model& m, const Ids& ids, TreeCache& cache, WorkTree* out) {
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
    cache.names = keep ? m.names : nullptr;
    cache.index = keep ? m.tree_index : nullptr;
    cache.kept = keep;
  }
  reset_nodes(spec, cache.shape, w.nodes);
  w.job_node.assign(n_jobs, -1);
  w.direct.assign(w.nodes.size(), 0);
  if (w.nodes.empty()) return;
  std::unordered_map<uint64_t, int> copies;  // (default leaf, user id) -> the user's copy
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
  for (size_t j = 0; j < n_jobs; ++j) {
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
    if (leaf >= 0 && is_default) {
      const uint64_t key = (static_cast<uint64_t>(leaf) << 32) | l.u;
      auto it = copies.find(key);
      if (it == copies.end()) {
        ShareNodeState c = w.nodes[leaf];
        c.name = ids.uname[l.u];
        c.user_copy = true;
        c.children.clear();
        const int idx = static_cast<int>(w.nodes.size());
        const int parent = c.parent;
        w.nodes.push_back(std::move(c));
        if (parent >= 0) w.nodes[parent].children.push_back(idx);
        w.direct.push_back(0);
        it = copies.emplace(key, idx).first;
      }
      leaf = it->second;
    }
    w.job_node[j] = leaf;
    if (leaf >= 0) ++w.direct[static_cast<size_t>(leaf)];
  }
  node_usage(m, cache.shape, w.nodes);
}

// Count jobs into the tree: every job (`direct`: each node's, as
// build_work_tree counted them; running: the running jobs' indices,
// ascending), or with `running_only` (pass 2) the running ones alone.
void count_jobs(std::vector<ShareNodeState>& nodes, const std::vector<size_t>& running,
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

// ---- functional shares of a job's objects ------------------------------------------
// By the pass's ids (intern_ids: a job's ids as given, other names one look-up
// each); the ticket objects are looked up once per id.
struct FShares {
  double user = 0, project = 0, dept = 0, job = 0;
};

FShares object_fshares(uint32_t u, uint32_t p, uint32_t d, double js, const Ids& ids) {
  return FShares{ids.ufs[u], ids.pfs[p], ids.dfs[d], js};
}
FShares object_fshares(const LJob& j, const Ids& ids) { return object_fshares(j.u, j.p, j.d, j.js, ids); }

// EE:get_functional_weighting_parameters: weights of the categories flagged
// in use, renormalised; all 1 when none is usable.
std::array<double, 4> functional_weights(const SchedConf& c, bool u, bool p, bool d, bool j) {
  std::array<double, 4> w{u ? c.weight_user : 0, p ? c.weight_project : 0,
                          d ? c.weight_department : 0, j ? c.weight_job : 0};
  double sum = w[0] + w[1] + w[2] + w[3];
  if (!(sum > 0)) {
    w = {1, 1, 1, 1};
    sum = 4;
  }
  for (auto& x : w) x /= sum;
  return w;
}

double functional_value(const std::array<double, 4>& w, const FShares& share, const FShares& sum,
                        double F) {
  double t = 0;
  if (sum.user != 0) t += w[0] * share.user * F / sum.user;
  if (sum.project != 0) t += w[1] * share.project * F / sum.project;
  if (sum.dept != 0) t += w[2] * share.dept * F / sum.dept;
  if (sum.job != 0) t += w[3] * share.job * F / sum.job;
  return t;
}

// calc_intern_pending_job_functional_tickets: the value of a pending job with
// object shares `share` as if it started now, against the sums + 0.001.
// Shared fshares: each object's share over its running count + 1 (u, p, d:
// the counts; nullptr: not divided); else the shares join the sums.
double pending_functional_value(const std::array<double, 4>& w, FShares share, const FShares& sum, const double* u,
                                const double* p, const double* d, bool shared, double F) {
  FShares s{sum.user + 0.001, sum.project + 0.001, sum.dept + 0.001, sum.job + 0.001};
  if (shared) {
    if (u) share.user /= *u + 1;
    if (p) share.project /= *p + 1;
    if (d) share.dept /= *d + 1;
  } else {
    s.user += share.user;
    s.project += share.project;
    s.dept += share.dept;
  }
  s.job += share.job;
  return functional_value(w, share, s, F);
}

struct PolicyStep {
  char policy;
  bool dependent;
};

// CONF:sconf_ph_fill_array: listed letters first (dependent), then the others.
std::vector<PolicyStep> policy_order(const std::string& ph) {
  std::vector<PolicyStep> out;
  for (char c : ph) out.push_back({c, true});
  for (char c : std::string("OFS"))
    if (ph.find(c) == std::string::npos) out.push_back({c, false});
  return out;
}

// std::merge's result (b's element first only when it is less than a's),
// without a branch on the comparison (the levels merge keys that interleave
// at random, which a branch mispredicts half the time), from both ends at
// once: the front takes the least heads (a's on ties), the back the
// greatest tails (b's on ties), two independent chains of loads and
// selects.  The front and back never take the same element (a's last one
// goes back only when b's last is less, and then b's head is less too).
template <typename T, typename Less>
void merge_runs(const T* a, const T* ae, const T* b, const T* be, T* d, Less less) {
  if (a == ae || b == be) {
    d = std::copy(a, ae, d);
    std::copy(b, be, d);
    return;
  }
  T* de = d + (ae - a) + (be - b);
  const T* ra = ae - 1;  // the unconsumed: a's [a, ra], b's [b, rb]
  const T* rb = be - 1;
  auto pick = [](const T* x, const T* y, uintptr_t take_y) {
    const uintptr_t px = reinterpret_cast<uintptr_t>(x), py = reinterpret_cast<uintptr_t>(y);
    return reinterpret_cast<const T*>(px ^ ((px ^ py) & (0 - take_y)));  // a select, not a branch
  };
  while (a <= ra && b <= rb) {
    const uintptr_t front_b = less(*b, *a);   // 0 or 1
    const uintptr_t back_a = less(*rb, *ra);
    *d++ = *pick(a, b, front_b);
    *--de = *pick(rb, ra, back_a);
    a += 1 - front_b;
    b += front_b;
    ra -= back_a;
    rb -= 1 - back_a;
  }
  if (a <= ra) std::copy(a, ra + 1, d);
  else if (b <= rb) std::copy(b, rb + 1, d);
}

// A stable sort that uses the runs already in v: the share-tree levels sort
// the concatenation of their children's lists, each still in its own order
// and, when the keys are independent, in the new one.  Maximal
// non-descending runs are merged pairwise (left first on ties), which is
// stable: the result is exactly stable_order's.  Runs mostly of one
// element: stable_order itself; more than `max_runs` runs (a merge pass per
// doubling): `many_runs(v, n)`, which must give the same stable order.
template <typename T, typename Less, typename ManyRuns>
void natural_order(T* v, size_t n, std::vector<T>& buf, std::vector<size_t>& runs, Less less, size_t max_runs,
                   ManyRuns many_runs) {
  if (n < 2) return;
  runs.clear();
  runs.push_back(0);
  for (size_t i = 1; i < n; ++i)
    if (less(v[i], v[i - 1])) runs.push_back(i);
  runs.push_back(n);
  if (runs.size() == 2) return;
  if (runs.size() - 1 > max_runs) {
    many_runs(v, n);
    return;
  }
  if (runs.size() > n / 2 + 2) {
    mfprio::stable_order(v, v + n, less);
    return;
  }
  if (buf.size() < n) buf.resize(n);
  T* src = v;
  T* dst = buf.data();
  while (runs.size() > 2) {  // boundaries: runs.size() - 1 runs
    // The merged runs' boundaries overwrite the first half of `runs` (w <
    // k: an entry is read before any write reaches it): no allocation.
    size_t k = 0, w = 0;
    for (; k + 2 < runs.size(); k += 2) {
      merge_runs(src + runs[k], src + runs[k + 1], src + runs[k + 1], src + runs[k + 2], dst + runs[k], less);
      runs[w++] = runs[k];
    }
    if (k + 1 < runs.size()) {  // an odd run out: copied
      std::copy(src + runs[k], src + runs[k + 1], dst + runs[k]);
      runs[w++] = runs[k];
    }
    runs[w++] = n;
    runs.resize(w);
    std::swap(src, dst);
  }
  if (src != v) std::copy(src, src + n, v);
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
// A job as the share-tree sorts see it: flat, so no sort reads a Job and
// no level's assignment reads or writes a per-job array.  The order a level
// sorts on is (key desc, id asc) = (k asc, id asc), k = order_key(key);
// running and pending jobs are kept apart (running first at every level).
struct SRec {
  uint64_t k;
  uint64_t id;
  double base;     // the prior tickets the key adds to (0 when independent, and for running jobs)
  uint32_t idx;
  uint32_t slots;  // dilute_slots
};
// An unsigned key whose ascending order is the descending order of the
// (never NaN) doubles, -0 as +0.
uint64_t order_key(double v) {
  uint64_t b = dbits(v);
  b = (b >> 63) ? ~b : (b | (1ull << 63));  // ascending in v
  return ~b;
}
// (k, id) ascending, one 128-bit comparison (no branch).
bool srec_less(const SRec& a, const SRec& b) {
  using u128 = unsigned __int128;
  return ((static_cast<u128>(a.k) << 64) | a.id) < ((static_cast<u128>(b.k) << 64) | b.id);
}

// A sort record of the radix path: a record's k and its position in the
// range (16 bytes: half an SRec's traffic per pass); the ids are read
// from the range only where two keys tie.
struct KPos {
  uint64_t k;
  uint64_t pos;
};

// srec_less's stable order by radix, most significant byte of k first:
// a byte equal in every record of a range is no pass; a range is scattered
// stably by its byte into the other buffer and each bucket sorted on by the
// next byte; a bucket of at most 48 records, or of one key, is
// stable_order'd (by (k, id), or by id; `src`: the records the positions
// are in).  Stable at every step: exactly stable_order(srec_less)'s
// result.  For the upper share-tree levels of a dependent step, whose
// children's lists are cut into many short runs by the prior tickets (a
// merge sort's log2(runs) passes over 32-byte records; the doubles' top
// bytes split such a range into small buckets in two or three passes).
// The records are in a (b: scratch); the result goes to b when `into_b`,
// else stays in a.
void radix_order(KPos* a, KPos* b, size_t n, int byte, bool into_b, const SRec* src) {
  for (;; --byte) {
    if (n <= 48 || byte < 0) {
      if (byte < 0) {
        mfprio::stable_order(a, a + n, [src](const KPos& x, const KPos& y) { return src[x.pos].id < src[y.pos].id; });
      } else {
        mfprio::stable_order(a, a + n, [src](const KPos& x, const KPos& y) {
          return x.k < y.k || (x.k == y.k && src[x.pos].id < src[y.pos].id);
        });
      }
      if (into_b) std::copy(a, a + n, b);
      return;
    }
    const int shift = 8 * byte;
    std::array<uint32_t, 257> at{};
    for (size_t i = 0; i < n; ++i) ++at[((a[i].k >> shift) & 255) + 1];
    if (at[((a[0].k >> shift) & 255) + 1] == n) continue;  // one bucket: the next byte
    for (size_t d = 1; d <= 256; ++d) at[d] += at[d - 1];
    std::array<uint32_t, 256> fill;
    std::copy(at.begin(), at.end() - 1, fill.begin());
    for (size_t i = 0; i < n; ++i) b[fill[(a[i].k >> shift) & 255]++] = a[i];
    for (size_t d = 0; d < 256; ++d)
      if (at[d + 1] > at[d]) radix_order(b + at[d], a + at[d], at[d + 1] - at[d], byte - 1, !into_b, src);
    return;
  }
}
// The radix path of the share-tree levels: (k, position) pairs sorted,
// then the records gathered in their order; from[k] (when given) = the
// sorted k-th record's position before.
void radix_share_order(SRec* v, size_t n, std::vector<SRec>& buf, std::vector<KPos>& kp, uint32_t* from) {
  if (buf.size() < n) buf.resize(n);
  if (kp.size() < 2 * n) kp.resize(2 * n);
  for (size_t i = 0; i < n; ++i) kp[i] = KPos{v[i].k, i};
  radix_order(kp.data(), kp.data() + n, n, 7, false, v);
  for (size_t i = 0; i < n; ++i) buf[i] = v[kp[i].pos];
  if (from)
    for (size_t i = 0; i < n; ++i) from[i] = static_cast<uint32_t>(kp[i].pos);
  std::copy(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n), v);
}
// How the share-tree levels sort: merges for a few runs, radix for many.
constexpr size_t kRadixMinRuns = 64, kRadixMinLen = 1024;
void share_order(SRec* v, size_t n, std::vector<SRec>& buf, std::vector<size_t>& runs, std::vector<KPos>& kp,
                 bool radix) {
  natural_order(v, n, buf, runs, srec_less, radix && n >= kRadixMinLen ? kRadixMinRuns : SIZE_MAX,
                [&buf, &kp](SRec* x, size_t m) { radix_share_order(x, m, buf, kp, nullptr); });
}
// Whether share_order takes its radix path (counting runs up to there).
bool takes_radix(const SRec* v, size_t n, bool radix) {
  if (!radix || n < kRadixMinLen) return false;
  size_t runs = 1;
  for (size_t i = 1; i < n && runs <= kRadixMinRuns; ++i) runs += srec_less(v[i], v[i - 1]);
  return runs > kRadixMinRuns;
}
// One node on the share sort's walk and its next child.
struct ShareSortFrame {
  int node;
  size_t next;
};

// A functional category while grouping and picking: its size, its bucket
// (the block of its user's jobs, build_categories) and its first job in its
// order (prior desc when dependent, then submit, id), found in one pass over
// its members; the members' ordered list is made only for a bucket the
// picks take from (gather).
struct CatRec {
  double prior = 0;  // its first job's prior, 0 when independent
  int64_t submit = 0;
  uint64_t id = 0;
  uint32_t head = 0, n = 0, bucket = 0;  // head: the first job's index
};

// A heap entry: a category's (or group's) value and its next job's submit
// and id (ties broken without reading the jobs); `at`: the pick its value
// was computed at.
struct FCand {
  double v;
  int64_t submit;
  uint64_t id;
  size_t c;
  size_t at;
};
inline bool fworse(const FCand& a, const FCand& b) {
  if (a.v != b.v) return a.v < b.v;
  if (a.submit != b.submit) return b.submit < a.submit;
  return b.id < a.id;
}
// fworse as the heaps' comparator object (inlined; a function pointer is
// called through at every comparison).
struct FWorse {
  bool operator()(const FCand& a, const FCand& b) const { return fworse(a, b); }
};
constexpr size_t kRest = SIZE_MAX;   // FCand::c of the entry standing for the categories not yet in a heap
constexpr size_t kStale = SIZE_MAX;  // FCand::at of an entry computed at no pick

// Per category, once: its objects' fshares (the same for every member:
// they are the category's key) and where its objects' counts live (the
// counts' vectors do not grow).  A zero fshare stays 0 whatever its count,
// so only the non-zero ones, which name the category's own objects, need one.
struct CatInfo {
  FShares share;
  const double *u = nullptr, *p = nullptr, *d = nullptr;
  uint32_t user = 0;
};

// A category's key past its user: the project and department (kNoId: not
// in the key) and -js.
struct SubKey {
  uint32_t p, d;
  double js;
};
// A member as the grouping reads it, bucket by bucket: what its category's
// order compares (prior 0 when independent), its index, its sub key (then
// its category).
struct MRec {
  double prior;
  int64_t submit;
  uint64_t id;
  uint32_t j, sub;
};

// A pending override round's heap entry: a category's value (stale until
// recomputed) and its next job's id.
struct OCand {
  double v;
  uint64_t id;
  size_t c;
};
inline bool oworse(const OCand& a, const OCand& b) {
  if (a.v != b.v) return a.v < b.v;
  return a.id > b.id;
}

struct TiedScratch;  // TiedGroups' containers, kept between passes (defined with it)

// The categories' members in order, category by category (filled only for
// the buckets the picks took from): category c = flat[off[c], off[c + 1]).
struct Cats {
  std::vector<uint32_t> flat;
  std::vector<uint32_t> off;
};
}  // namespace

// Every per-job and per-node array of a pass (see ge_tickets.hpp): each
// step sets what it reads before reading it.
struct TicketScratch::Arrays {
  Ids ids;
  WorkTree w;
  TreeCache tree;                        // build_work_tree: shape and (user, project) -> leaf
  std::vector<double> leaf_running_js, prior;
  std::vector<size_t> running, pending;
  // pending_override
  FlatIndex ot_index;
  std::vector<uint32_t> ot_member, ot_cat, ot_off, ot_flat, ot_head;
  std::vector<OCand> ot_heap;
  // FunctionalPicks
  BlockIndex cat_index;  // (project, department, -js) -> sub key
  std::vector<uint32_t> cat_bucket, cat_sub, user_off, user_fill;  // per pending job its bucket, sub key; per bucket its range
  std::vector<uint32_t> cat_of, sub_slot, bucket_cat0;  // per job its category (kNoId: none); per sub key; per bucket its first category
  std::vector<SubKey> subs;
  std::vector<MRec> mrecs;                                  // the members bucket by bucket
  std::vector<uint8_t> gathered;                            // per bucket: its categories' lists are made
  std::vector<TicketJob> job_form;       // the Job form's TicketJobs
  std::vector<CatRec> cat_recs;
  std::vector<CatInfo> cat_info;
  std::vector<FCand> cat_rank, rank_by_cat;  // per category its first-pick value; rank_by_cat, rank_in: in_category_order
  std::vector<uint8_t> rank_in;
  std::vector<double> last_eval;
  std::vector<std::pair<uint32_t, double>> keep;
  std::unique_ptr<TiedScratch> tied = std::make_unique<TiedScratch>();  // TiedGroups' containers
  Cats cats;
  std::vector<uint32_t> head, gather_fill;
  // ShareSort
  std::vector<uint32_t> doff, direct, fill, rfill;
  std::vector<double> st;                // per job: pass-1 share tickets (ShareSort; pass 2 puts the running jobs')
  std::vector<double> ft, ot, p1;        // per job: functional, override tickets, a running job's pass-1 total
  std::vector<int8_t> bound_memo;        // per node: path_compensated (running_pass2)
  std::vector<SRec> all, all_running, sort_buf;
  std::vector<size_t> sort_runs;
  std::vector<ShareSortFrame> frames;
  // Per node, the last pass's order of its pending (running) range: the
  // sorted k-th record was at position order[node][k] before the sort.
  std::vector<std::vector<uint32_t>> order, rorder;
  std::vector<uint32_t> saved_idx;
  std::vector<KPos> sort_kpos;  // the radix path's two halves
};


namespace {

// ---- one pass: the state the policy steps share --------------------------------------
struct Pass {
  Pass(const TicketJob* js, size_t count, const Model& model, const TicketOptions& o,
       TicketScratch::Arrays& arrays, TicketResult& out)
      : m(model), conf(model.conf), topt(o), WS(conf.weight_tickets_share),
        F(conf.weight_tickets_functional), n(count), shared_f(conf.share_functional_shares), s(arrays),
        ids(interned(js, count, model, arrays)), w(arrays.w), r(out), leaf_running_js(arrays.leaf_running_js),
        run_cnt(ids), running(arrays.running), pending(arrays.pending), prior(arrays.prior) {}
  static const Ids& interned(const TicketJob* js, size_t count, const Model& model, TicketScratch::Arrays& a) {
    intern_ids(js, count, model, &a.ids, &a.running, &a.pending);
    return a.ids;
  }
  const Model& m;
  const SchedConf& conf;
  const TicketOptions& topt;
  const double WS, F;
  const size_t n;
  const bool shared_f;
  TicketScratch::Arrays& s;
  const Ids& ids;
  WorkTree& w;
  bool use_tree = false;
  TicketResult& r;
  std::vector<double>& leaf_running_js;  // per node: the -js of its running jobs
  Counts run_cnt;                        // running jobs per user, project, department
  FShares run_sum;                       // running jobs' functional shares
  std::vector<size_t>& running;          // the jobs' indices by kind, ascending
  std::vector<size_t>& pending;
  std::vector<double>& prior;            // tickets of earlier dependent policies
  // Per job, what running_pass2 writes into the result's JobTickets (each
  // step writes 8 bytes a job, not into 48-byte records).
  std::vector<double>&ft = s.ft, &ot = s.ot, &p1 = s.p1, &st = s.st;
  bool share_ran = false;                // ShareSort set st for every job

  // T = ostt(leaf)*WS split by -js (truncated) or evenly over `divisor` jobs.
  double running_share_tickets(const std::vector<ShareNodeState>& nodes, size_t j, uint32_t divisor) const {
    const int leaf = w.job_node[j];
    if (leaf < 0) return 0.0;
    const double T = nodes[leaf].ostt * WS;
    const double sum_js = leaf_running_js[leaf];
    if (sum_js > 0) return std::floor(ids.job[j].js * T / sum_js);  // (u_long) truncation
    return divisor > 0 ? T / divisor : 0.0;
  }
  // The job's functional shares, divided by its objects' job counts (+ extra) when shared.
  FShares job_fshare(const LJob& j, Counts& cnt, double extra) const {
    FShares f = object_fshares(j, ids);
    if (shared_f) {
      f.user = f.user / std::max(1.0, cnt.u(j) + extra);
      if (j.has_p) f.project = f.project / std::max(1.0, cnt.p(j) + extra);
      if (j.has_d) f.dept = f.dept / std::max(1.0, cnt.d(j) + extra);
    }
    return f;
  }
  // the objects' override tickets (over their job counts + extra when shared) plus -ot.
  double override_value(const LJob& j, const Counts& cnt, double extra, bool shared) const {
    double t = 0;
    auto add = [&](double oticket, const std::vector<double>& counts, uint32_t id) {
      if (!(oticket > 0)) return;
      if (!shared) t += oticket;
      else if (counts[id] + extra > 0) t += oticket / (counts[id] + extra);
    };
    add(ids.uot[j.u], cnt.user, j.u);
    if (j.has_p) add(ids.pot[j.p], cnt.project, j.p);
    if (j.has_d) add(ids.dot[j.d], cnt.dept, j.d);
    return t + j.ot;
  }
};

// Share-tree pass 1 (running + pending jobs active), the running jobs'
// functional and override tickets (the same in both passes) and their
// pass-1 totals.
void running_tickets(Pass& p) {
  const std::vector<LJob>& lj = p.ids.job;
  const size_t n = p.n;
  build_work_tree(n, p.m, p.ids, p.s.tree, &p.w);
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

// One read of the pending jobs, in pending order, for the shared override
// rounds and the functional categories, before the policy steps (none of it
// reads a prior): per job its functional bucket (its user with a
// user share, else the no-user-share bucket; UINT32_MAX and cat_of kNoId:
// in no category) and sub key (FunctionalPicks::build_categories), the
// buckets' counts; the override categories' members and counts
// (pending_override).
void scan_pending(Pass& p) {
  const bool fun = p.F > 0, ovr = p.conf.share_override_tickets;
  const std::vector<LJob>& jobs = p.ids.job;
  const Ids& ids = p.ids;
  const std::vector<size_t>& pending = p.pending;
  TicketScratch::Arrays& s = p.s;
  const uint32_t none = static_cast<uint32_t>(ids.uo.size());
  s.user_off.assign(static_cast<size_t>(none) + 2, 0);
  s.cat_bucket.resize(pending.size());
  s.cat_sub.resize(pending.size());
  s.cat_of.resize(p.n);
  s.subs.clear();
  s.cat_index.begin(64);
  uint64_t last_pd = 0, last_js = 0;
  uint32_t last_sub = kNoId;
  s.ot_index.reset(s.ot_off.size());
  s.ot_member.clear();
  s.ot_cat.clear();
  s.ot_off.assign(1, 0);
  auto ot_id = [](double oticket, uint32_t id) { return oticket > 0 ? id : kNoId; };
  for (size_t q = 0; q < pending.size(); ++q) {
    const size_t j = pending[q];
    const LJob& l = jobs[j];
    if (ovr) {  // the job's objects that carry override tickets, and -ot
      const uint32_t u = ot_id(ids.uot[l.u], l.u);
      const uint32_t pr = !l.has_p ? kNoId : ot_id(ids.pot[l.p], l.p);
      const uint32_t d = !l.has_d ? kNoId : ot_id(ids.dot[l.d], l.d);
      if (u != kNoId || pr != kNoId || d != kNoId || l.ot > 0) {
        bool added = false;
        const uint32_t c =
            s.ot_index.insert(Key5{{dbits(l.ot), u, pr, d, 0}}, static_cast<uint32_t>(s.ot_off.size() - 1), &added);
        if (added) s.ot_off.push_back(0);
        ++s.ot_off[c + 1];
        s.ot_member.push_back(static_cast<uint32_t>(j));
        s.ot_cat.push_back(c);
      }
    }
    if (!fun) continue;
    const FShares f = object_fshares(l, ids);
    if (!(f.user > 0) && !(f.project > 0) && !(f.dept > 0) && !(f.job > 0)) {
      s.cat_bucket[q] = UINT32_MAX;
      s.cat_of[j] = kNoId;
      continue;
    }
    const uint32_t b = f.user > 0 ? l.u : none;
    s.cat_bucket[q] = b;
    ++s.user_off[b + 1];
    const uint64_t pd = (static_cast<uint64_t>(f.project > 0 ? l.p : kNoId) << 32) | (f.dept > 0 ? l.d : kNoId);
    const uint64_t js = dbits(f.job);
    if (pd != last_pd || js != last_js || last_sub == kNoId) {
      bool added = false;
      last_sub = s.cat_index.insert(pd, js, static_cast<uint32_t>(s.subs.size()), &added);
      if (added) s.subs.push_back(SubKey{f.project > 0 ? l.p : kNoId, f.dept > 0 ? l.d : kNoId, f.job});
      last_pd = pd;
      last_js = js;
    }
    s.cat_sub[q] = last_sub;
  }
}

// Pending override tickets.  Shared: 8.1.9's
// calculate_pending_shared_override_tickets.  Pending jobs form categories
// (their -ot and those of their user, project and department objects that
// carry override tickets; jobs with none take no part and keep 0), each
// ordered by prior tickets desc (when dependent), submit, job id, else by
// job id.  Each round evaluates every category's first job as if started
// next (an object's tickets over its job count + 1, plus -ot; the prior is
// NOT part of the value), picks the largest, ties to the lower job id, and
// counts the winner as running (its otckt is that value).  Values only fall
// as counts grow, so a lazy max-heap over the categories gives the same
// picks as evaluating every head each round.
void pending_override(Pass& p, const PolicyStep& step) {
  const std::vector<LJob>& jobs = p.ids.job;
  if (!p.conf.share_override_tickets) {
    for (size_t j : p.pending) p.ot[j] = p.override_value(jobs[j], p.run_cnt, 0, false);
  } else {
    // The categories' members (scan_pending, before the steps; a category is
    // a range of ot_flat, its members in pending order before their sort).
    std::vector<uint32_t>&member = p.s.ot_member, &cat = p.s.ot_cat, &off = p.s.ot_off, &flat = p.s.ot_flat;
    const size_t ncats = off.size() - 1;
    for (size_t c = 0; c < ncats; ++c) off[c + 1] += off[c];
    std::vector<uint32_t>& head = p.s.ot_head;  // first each category's fill point, then its next member
    head.assign(off.begin(), off.end() - 1);
    flat.resize(member.size());
    for (size_t k = 0; k < member.size(); ++k) flat[head[cat[k]]++] = member[k];
    const bool dep = step.dependent;
    const auto less = [&](uint32_t a, uint32_t b) {
      if (dep && p.prior[a] != p.prior[b]) return p.prior[a] > p.prior[b];
      if (dep && jobs[a].submit != jobs[b].submit) return jobs[a].submit < jobs[b].submit;
      return jobs[a].id < jobs[b].id;
    };
    for (size_t c = 0; c < ncats; ++c) {
      const auto first = flat.begin() + off[c], last = flat.begin() + off[c + 1];
      if (!std::is_sorted(first, last, less)) mfprio::stable_order(first, last, less);
    }
    Counts cnt = p.run_cnt;
    head.assign(off.begin(), off.end() - 1);
    std::vector<OCand>& heap = p.s.ot_heap;
    heap.clear();
    auto value_of = [&](size_t j) { return p.override_value(jobs[j], cnt, 1, true); };
    for (size_t c = 0; c < ncats; ++c) {
      heap.push_back(OCand{value_of(flat[off[c]]), jobs[flat[off[c]]].id, c});
      std::push_heap(heap.begin(), heap.end(), oworse);
    }
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), oworse);
      const OCand c = heap.back();
      heap.pop_back();
      const size_t j = flat[head[c.c]];
      const double v = value_of(j);
      if (v != c.v) {
        heap.push_back(OCand{v, c.id, c.c});
        std::push_heap(heap.begin(), heap.end(), oworse);
        continue;
      }
      p.ot[j] = v;
      cnt.add(jobs[j]);
      if (++head[c.c] < off[c.c + 1]) {
        const size_t nj = flat[head[c.c]];
        heap.push_back(OCand{value_of(nj), jobs[nj].id, c.c});
        std::push_heap(heap.begin(), heap.end(), oworse);
      }
    }
    // Jobs in no category keep otckt 0, and prior + 0 is prior (priors are
    // sums of tickets >= 0, never -0): only the categories' jobs add.
    if (step.dependent)
      for (const uint32_t j : flat) p.prior[j] += p.ot[j];
    return;
  }
  if (step.dependent)
    for (size_t j : p.pending) p.prior[j] += p.ot[j];
}

// ---- pending functional tickets -----------------------------------------------

// EE functional pending pass: categories, greedy picks.  Only the picks
// need a category's members in order, and at most
// max_functional_jobs_to_schedule of them are taken: a category is kept as
// its size and first job; the picks' heaps start from the categories'
// values at the first pick (upper bounds of their later ones) and take the
// best of them first, the rest standing as one entry (their best value, then
// a bound at each pick's sums), so while no category of the rest can win
// none is in a heap; when one may, all of the rest join, in category order.
class FunctionalPicks {
 public:
  FunctionalPicks(Pass& p, const PolicyStep& step)
      : p_(p), jobs_(p.ids.job), ids_(p.ids), step_(step), wp_(functional_weights(p.conf, true, true, true, true)),
        cnt_(p.run_cnt), sum_(p.run_sum), recs_(p.s.cat_recs), info_(p.s.cat_info), rank_(p.s.cat_rank),
        cats_(p.s.cats), head_(p.s.head) {}
  void run() {
    build_categories();
    max_picks_ = std::min<size_t>(p_.conf.max_functional_jobs_to_schedule, members_);
    head_.assign(recs_.size(), 0);
    if (max_picks_ > 0) {
      rank_categories();
      if (!p_.topt.group_tied_categories) pick_each();
      else pick_grouped();
    }
    finish();
  }

 private:
  // Grouped per user (counting sort on the dense user ids), then per user
  // by a small direct table: the picks do not depend on the categories'
  // order (a pick is the largest value, ties to the earlier job, and jobs
  // are distinct).  Key: the user id, then the project and department ids
  // (kNoId: not in the key; a positive fshare means a named object, so
  // kNoId never stands for a name) and -js, these three numbered once per
  // pass (a sub key: few distinct).  The jobs are read twice in pending
  // order, the second time into 32-byte records (MRec, bucket by bucket),
  // so no later step of the grouping reads a job at random.  Per category
  // its size, first job (CatRec) and CatInfo; per job its category (cat_of).
  void build_categories() {
    const std::vector<size_t>& pending = p_.pending;
    const uint32_t none = static_cast<uint32_t>(ids_.uo.size());  // the bucket of jobs with no user share
    std::vector<uint32_t>& off = p_.s.user_off;
    const std::vector<uint32_t>&bucket = p_.s.cat_bucket, &subq = p_.s.cat_sub;
    for (size_t b = 0; b <= none; ++b) off[b + 1] += off[b];
    members_ = off[static_cast<size_t>(none) + 1];
    std::vector<MRec>& recs = p_.s.mrecs;
    recs.resize(members_);
    std::vector<uint32_t>& fill = p_.s.user_fill;
    fill.assign(off.begin(), off.end() - 1);
    const bool dep = step_.dependent;
    const double* prior = p_.prior.data();
    for (size_t q = 0; q < pending.size(); ++q) {
      const uint32_t b = bucket[q];
      if (b == UINT32_MAX) continue;
      const size_t j = pending[q];
      recs[fill[b]++] = MRec{dep ? prior[j] : 0.0, jobs_[j].submit, jobs_[j].id, static_cast<uint32_t>(j), subq[q]};
    }
    categories(none);
  }
  // Per bucket: its categories, numbered in order of first member (a
  // direct table by sub key, its used slots cleared after the bucket).
  void categories(uint32_t none) {
    const std::vector<uint32_t>& off = p_.s.user_off;
    std::vector<MRec>& recs = p_.s.mrecs;
    std::vector<uint32_t>& cat_of = p_.s.cat_of;
    std::vector<uint32_t>& slot = p_.s.sub_slot;
    slot.assign(p_.s.subs.size(), kNoId);
    std::vector<uint32_t>& cat0 = p_.s.bucket_cat0;
    cat0.assign(static_cast<size_t>(none) + 2, 0);
    recs_.clear();
    info_.clear();
    // A negative or NaN fshare is not a key's (kNoId) but counts in the
    // value: then each category's first job's objects (in its order), as read.
    bool plain = true;
    for (const std::vector<double>* fs : {&ids_.ufs, &ids_.pfs, &ids_.dfs})
      for (const double x : *fs) plain = plain && x >= 0;
    for (uint32_t b = 0; b <= none; ++b) {
      cat0[b] = static_cast<uint32_t>(recs_.size());
      const uint32_t lo = off[b], hi = off[b + 1], c0 = cat0[b];
      for (uint32_t q = lo; q < hi; ++q) {
        MRec& x = recs[q];
        uint32_t& c = slot[x.sub];
        if (c == kNoId || c < c0) {  // a slot set in an earlier bucket is stale
          c = static_cast<uint32_t>(recs_.size());
          recs_.push_back(CatRec{x.prior, x.submit, x.id, x.j, 1, b});
          if (plain) info_.push_back(info_of(b == none ? kNoId : b, p_.s.subs[x.sub]));
        } else {
          CatRec& r = recs_[c];
          ++r.n;
          if (x.prior > r.prior || (x.prior == r.prior && (x.submit < r.submit || (x.submit == r.submit && x.id < r.id)))) {
            r.prior = x.prior;
            r.submit = x.submit;
            r.id = x.id;
            r.head = x.j;
          }
        }
        x.sub = c;  // from here on: its category
        cat_of[x.j] = c;
      }
    }
    cat0[static_cast<size_t>(none) + 1] = static_cast<uint32_t>(recs_.size());
    if (!plain)
      for (const CatRec& r : recs_) info_.push_back(info_of(jobs_[r.head]));
    cats_.off.resize(recs_.size() + 1);
    cats_.off[0] = 0;
    for (size_t c = 0; c < recs_.size(); ++c) cats_.off[c + 1] = cats_.off[c] + recs_[c].n;
    cats_.flat.resize(members_);
    p_.s.gathered.assign(static_cast<size_t>(none) + 1, 0);
  }
  // A category's CatInfo from its first job.
  CatInfo info_of(const LJob& l) {
    CatInfo ci;
    ci.share = object_fshares(l, ids_);
    ci.user = l.u;
    if (ci.share.user != 0) ci.u = &cnt_.user[l.u];
    if (ci.share.project != 0 && l.has_p) ci.p = &cnt_.project[l.p];
    if (ci.share.dept != 0 && l.has_d) ci.d = &cnt_.dept[l.d];
    return ci;
  }
  // The same from its key when every fshare is >= 0 (an object outside the
  // key has fshare 0, as has the user of the no-user-share bucket; a
  // positive fshare names an object: has_p, has_d).
  CatInfo info_of(uint32_t u, const SubKey& k) {
    CatInfo ci;
    ci.share = FShares{u == kNoId ? 0.0 : ids_.ufs[u], k.p == kNoId ? 0.0 : ids_.pfs[k.p],
                       k.d == kNoId ? 0.0 : ids_.dfs[k.d], k.js};
    ci.user = u == kNoId ? 0 : u;
    if (ci.share.user != 0) ci.u = &cnt_.user[u];
    if (ci.share.project != 0) ci.p = &cnt_.project[k.p];
    if (ci.share.dept != 0) ci.d = &cnt_.dept[k.d];
    return ci;
  }

  // The ordered members of bucket b's categories (at the first take from
  // one): prior tickets desc when dependent, then earlier (submit, id).
  void gather(uint32_t b) {
    std::vector<uint8_t>& done = p_.s.gathered;
    if (done[b]) return;
    done[b] = 1;
    const uint32_t c0 = p_.s.bucket_cat0[b], c1 = p_.s.bucket_cat0[b + 1];
    const std::vector<MRec>& recs = p_.s.mrecs;
    std::vector<uint32_t>& fill = p_.s.gather_fill;
    fill.assign(cats_.off.begin() + c0, cats_.off.begin() + c1);
    for (uint32_t q = p_.s.user_off[b]; q < p_.s.user_off[b + 1]; ++q) cats_.flat[fill[recs[q].sub - c0]++] = recs[q].j;
    const bool dep = step_.dependent;
    const double* prior = p_.prior.data();
    const auto less = [&](uint32_t a, uint32_t x) {
      if (dep && prior[a] != prior[x]) return prior[a] > prior[x];
      if (jobs_[a].submit != jobs_[x].submit) return jobs_[a].submit < jobs_[x].submit;
      return jobs_[a].id < jobs_[x].id;
    };
    for (uint32_t c = c0; c < c1; ++c) {
      const auto first = cats_.flat.begin() + cats_.off[c], last = cats_.flat.begin() + cats_.off[c + 1];
      // Members in pending order are often in this order already.
      if (last - first >= 2 && !std::is_sorted(first, last, less)) mfprio::stable_order(first, last, less);
    }
  }
  // Category c's next job (its first until a pick takes from it).
  size_t cur(size_t c) const { return head_[c] == 0 ? recs_[c].head : cats_.flat[cats_.off[c] + head_[c]]; }
  bool remaining(size_t c) const { return head_[c] < recs_[c].n; }

  // Per category its value at the first pick (rank_); the batches start
  // with the best 4 * max_picks (at least 1024).
  void rank_categories() {
    rank_.resize(recs_.size());
    for (size_t c = 0; c < recs_.size(); ++c) {
      const CatRec& r = recs_[c];
      rank_[c] = FCand{eval(c) + (step_.dependent ? r.prior : 0), r.submit, r.id, c, 0};
    }
    next_ = 0;
    batch_ = p_.topt.functional_batch ? p_.topt.functional_batch : std::max<size_t>(1024, 4 * max_picks_);
  }
  // The next batch of categories for a heap, rank_[*b, *e) (the first: the
  // best by rank; the second: all the others), and whether any are left
  // after it (*rest: their best value, submit and id, an upper bound of
  // theirs at any later pick, as values only fall and their next jobs stay
  // their first; rest_max_, rest_prior_ for rest_bound).  A second batch of
  // the best of the rest again would be ranked by the first pick's values,
  // which the bench's queue shows can be far from later ones (a first pick
  // in a department none of the running jobs had divides every department
  // term by ~10^4): its rest then tops the heap batch after batch.
  bool next_batch(size_t* b, size_t* e, FCand* rest) {
    const auto better = [](const FCand& a, const FCand& x) { return fworse(x, a); };
    // The first batch: the best by rank; the second: all the rest, in
    // category order (read in order, not at random).
    const bool first = next_ == 0;
    const size_t k = first ? std::min(batch_, rank_.size()) : rank_.size() - next_;
    const auto from = rank_.begin() + static_cast<std::ptrdiff_t>(next_);
    // nth_element leaves the best of the rest at the batch's end.
    if (next_ + k < rank_.size()) std::nth_element(from, from + static_cast<std::ptrdiff_t>(k), rank_.end(), better);
    if (!first) in_category_order(next_);
    *b = next_;
    next_ += k;
    *e = next_;
    if (next_ == rank_.size()) return false;
    rest_max_ = FShares{};
    rest_prior_ = 0;
    for (size_t q = next_; q < rank_.size(); ++q) {
      const size_t c = rank_[q].c;
      const FShares f = divided_share(c);
      rest_max_.user = std::max(rest_max_.user, f.user);
      rest_max_.project = std::max(rest_max_.project, f.project);
      rest_max_.dept = std::max(rest_max_.dept, f.dept);
      rest_max_.job = std::max(rest_max_.job, f.job);
      if (step_.dependent) rest_prior_ = std::max(rest_prior_, recs_[c].prior);
    }
    *rest = FCand{rank_[next_].v, rank_[next_].submit, rank_[next_].id, kRest, kStale};
    return true;
  }
  // rank_[from, end) in ascending category (each category is in rank_ once).
  void in_category_order(size_t from) {
    std::vector<FCand>& by_c = p_.s.rank_by_cat;
    std::vector<uint8_t>& in = p_.s.rank_in;
    by_c.resize(recs_.size());
    in.assign(recs_.size(), 0);
    for (size_t q = from; q < rank_.size(); ++q) {
      by_c[rank_[q].c] = rank_[q];
      in[rank_[q].c] = 1;
    }
    size_t q = from;
    for (size_t c = 0; c < recs_.size(); ++c)
      if (in[c]) rank_[q++] = by_c[c];
  }
  // Category c's shares as eval() divides them now (shared: an object's
  // fshare over its count + 1; the counts only grow, so later ones are
  // at most these).
  FShares divided_share(size_t c) const {
    const CatInfo& ci = info_[c];
    FShares f = ci.share;
    if (p_.shared_f) {
      if (ci.u) f.user /= *ci.u + 1;
      if (ci.p) f.project /= *ci.p + 1;
      if (ci.d) f.dept /= *ci.d + 1;
    }
    return f;
  }
  // The rest's entry at this pick: an upper bound of every remaining
  // category's value now (each term at its largest share among them over
  // the sums now, which only grow, plus their largest prior; a little
  // slack over rounding), winning every tie.  It tops the heap as computed
  // at this pick only when some category of the rest may beat the heap.
  FCand rest_bound(size_t pick) const {
    const double v = pending_functional_value(wp_, rest_max_, sum_, nullptr, nullptr, nullptr, p_.shared_f, p_.F);
    const double bound = (v + (step_.dependent ? rest_prior_ : 0)) * (1 + 1e-9) + 1e-300;
    return FCand{bound, std::numeric_limits<int64_t>::min(), 0, kRest, pick};
  }

  // calc_intern_pending_job_functional_tickets: category c's value as if
  // its next job started now.
  double eval(size_t c) const {
    const CatInfo& ci = info_[c];
    return pending_functional_value(wp_, ci.share, sum_, ci.u, ci.p, ci.d, p_.shared_f, p_.F);
  }
  double value_now(size_t c) const { return eval(c) + (step_.dependent ? p_.prior[cur(c)] : 0); }
  FCand fcand(double v, size_t c, size_t at) const {
    const LJob& jb = jobs_[cur(c)];
    return FCand{v, jb.submit, jb.id, c, at};
  }

  // The winner (job j of category best_c) counts as running; the sums take
  // it in (shared: an object's fshare once), and its tickets are recomputed
  // without the +0.001.
  void take(size_t best_c) {
    if (head_[best_c] == 0 && recs_[best_c].n > 1) gather(recs_[best_c].bucket);
    const size_t j = cur(best_c);
    ++head_[best_c];
    const LJob& jb = jobs_[j];
    const FShares f = object_fshares(jb, ids_);
    cnt_.add(jb);
    if (p_.shared_f) {
      if (cnt_.u(jb) == 1) sum_.user += f.user;
      if (jb.has_p && cnt_.p(jb) == 1) sum_.project += f.project;
      if (jb.has_d && cnt_.d(jb) == 1) sum_.dept += f.dept;
    } else {
      sum_.user += f.user;
      sum_.project += f.project;
      sum_.dept += f.dept;
    }
    sum_.job += f.job;
    const double ft = functional_value(wp_, p_.job_fshare(jb, cnt_, 0), sum_, p_.F);
    p_.ft[j] = ft;
    taken_.push_back(Taken{static_cast<uint32_t>(j), ft, p_.prior[j]});
  }
  // The last pick evaluates every category still holding jobs (the
  // winner's too): members never picked get that evaluation.
  void last_evals() {
    have_last_ = true;
    std::vector<double>& last = p_.s.last_eval;
    last.resize(recs_.size());
    for (size_t c = 0; c < recs_.size(); ++c)
      if (remaining(c)) last[c] = eval(c);
  }

  // Members never picked copy their category's last evaluation
  // (destribute_ftickets).  A later dependent policy sorts on these tickets
  // (8.1.9 sge_calc_tickets): every picked job's, and of a category that
  // still holds jobs every member's but its first remaining one's, which
  // keeps its prior for that sort (its ftckt is reported all the same).
  // Jobs in no category have 0 functional tickets.  In pending order: every
  // member's value and prior, then the picked jobs' and the first remaining
  // ones' put right.
  void finish() {
    const bool dep = step_.dependent;
    std::vector<double>& prior = p_.prior;
    std::vector<std::pair<uint32_t, double>>& keep = p_.s.keep;  // the first remaining jobs and their priors
    keep.clear();
    if (dep) {  // (an untaken category's first job's prior is in its CatRec)
      for (size_t c = 0; c < recs_.size(); ++c) {
        if (head_[c] == 0) keep.emplace_back(recs_[c].head, recs_[c].prior);
        else if (remaining(c)) keep.emplace_back(static_cast<uint32_t>(cur(c)), prior[cur(c)]);
      }
    }
    const std::vector<size_t>& pending = p_.pending;
    const std::vector<uint32_t>& cat_of = p_.s.cat_of;
    const std::vector<double>& last = p_.s.last_eval;
    for (const size_t j : pending) {
      const uint32_t c = cat_of[j];
      if (c == kNoId) continue;
      const double ft = have_last_ ? last[c] : 0.0;
      p_.ft[j] = ft;
      if (dep) prior[j] += ft;
    }
    for (const Taken& t : taken_) {
      p_.ft[t.j] = t.ft;
      if (dep) prior[t.j] = t.prior + t.ft;
    }
    for (const auto& [j, pr] : keep) prior[j] = pr;
  }

  // Each pick is the category with the largest value (ft + prior of its
  // next job), ties to the earlier job.  Every pick only adds to the sums
  // and counts (fshares and -js are >= 0), so no value ever grows: a lazy
  // max-heap of possibly stale values gives the same picks as evaluating
  // every category at each pick.  Pop the top; if its value was computed at
  // this pick it beats every other entry's stale (upper-bound) value; else
  // recompute it and push it back; the entry of the categories not yet in
  // the heap is replaced by the next batch.  One heap entry per category
  // (the reference for pick_grouped).
  void pick_each() {
    std::vector<FCand> fheap;
    auto add_batch = [&] {
      size_t b = 0, e = 0;
      FCand rest{};
      const bool more = next_batch(&b, &e, &rest);
      for (size_t k = b; k < e; ++k) fheap.push_back(rank_[k]);
      if (more) fheap.push_back(rest);
      std::make_heap(fheap.begin(), fheap.end(), FWorse{});
    };
    add_batch();
    for (size_t pick = 0; pick < max_picks_ && !fheap.empty(); ++pick) {
      for (;;) {
        std::pop_heap(fheap.begin(), fheap.end(), FWorse{});
        FCand& top = fheap.back();
        if (top.c == kRest) {
          if (top.at != pick) {  // stale: its bound at this pick first
            top = rest_bound(pick);
            std::push_heap(fheap.begin(), fheap.end(), FWorse{});
            continue;
          }
          fheap.pop_back();
          add_batch();
          continue;
        }
        if (top.at == pick) break;
        top.v = value_now(top.c);
        top.at = pick;
        std::push_heap(fheap.begin(), fheap.end(), FWorse{});
      }
      const size_t best_c = fheap.back().c;
      fheap.pop_back();
      if (pick + 1 == max_picks_) last_evals();
      take(best_c);
      // Its next job: a new value at the next pick (stale bound: +inf would
      // do; the current value is one, as values only fall).
      if (remaining(best_c)) {
        fheap.push_back(fcand(value_now(best_c), best_c, pick + 1));
        std::push_heap(fheap.begin(), fheap.end(), FWorse{});
      }
    }
  }

  void pick_grouped();
  friend class TiedGroups;

  struct Taken {
    uint32_t j;
    double ft, prior;  // its ftckt, its prior before the step
  };

  Pass& p_;
  const std::vector<LJob>& jobs_;
  const Ids& ids_;
  const PolicyStep step_;
  const std::array<double, 4> wp_;
  Counts cnt_;
  FShares sum_;
  std::vector<CatRec>& recs_;
  std::vector<CatInfo>& info_;
  std::vector<FCand>& rank_;
  Cats& cats_;
  std::vector<uint32_t>& head_;
  std::vector<Taken> taken_;
  FShares rest_max_;          // next_batch: the rest's largest divided shares,
  double rest_prior_ = 0;     // and their categories' first jobs' largest prior
  size_t members_ = 0, max_picks_ = 0, next_ = 0, batch_ = 0;
  bool have_last_ = false;
};

// The functional picks with tied categories grouped.  A category's value is
// a function of its user's fshare over (count + 1) (shared) or the fshare,
// its project and department objects (their counts are shared by every
// category naming them), its -js and its next job's prior: categories equal
// in these have bit-identical values at every pick, so one group entry
// stands for all of them, its best member the earliest next job (submit,
// id).  A pick moves only the winner (its next job) and the other categories
// of the winner's user (the user's count changed).  The groups sit in the
// same lazy max-heap as pick_each's; an entry is an upper bound of its
// group's (value, earliest job) and is exact when computed at this pick for
// the group's current best member.  A category joining a group may improve
// the group's best member: the join pushes a fresh upper bound (+inf) for
// that group.  Categories join in pick_each's batches (the rest one entry).
struct TiedMember {
  int64_t submit;
  uint64_t id;
  uint32_t c, gen;
};
struct TiedGroup {
  FShares base;  // user share already divided by its count + 1 (shared)
  const double *p = nullptr, *d = nullptr;
  double prior = 0;
  std::vector<TiedMember> members;  // heap; entries of moved categories are stale (gen)
};
// Reused by every pass: groups_[0, ngroups) are this pass's (the others
// keep their members' capacity).
struct TiedScratch {
  std::vector<TiedGroup> groups;
  FlatIndex group_of;  // (user share, project id, department id, -js, prior) -> group
  std::vector<uint32_t> gen;
  std::vector<FCand> gheap;
  std::vector<uint32_t> ucat_first, ucat_next;  // per user, per category: the joined categories reading its count
};

class TiedGroups {
 public:
  explicit TiedGroups(FunctionalPicks& f)
      : f_(f), groups_(f.p_.s.tied->groups), group_of_(f.p_.s.tied->group_of), gen_(f.p_.s.tied->gen),
        gheap_(f.p_.s.tied->gheap), ucat_first_(f.p_.s.tied->ucat_first), ucat_next_(f.p_.s.tied->ucat_next) {
    group_of_.reset(std::min(f.recs_.size(), 2 * f.batch_));
    gen_.assign(f.recs_.size(), 0);
    gheap_.clear();
    if (f.p_.shared_f) {
      ucat_first_.assign(f.ids_.uo.size(), kNoId);
      ucat_next_.resize(f.recs_.size());
    }
  }

  void run() {
    size_t b = 0, e = 0;
    FCand rest{};
    const bool more = f_.next_batch(&b, &e, &rest);
    for (size_t k = b; k < e; ++k) add(f_.rank_[k].c, false, /*bulk=*/true);
    for (size_t g = 0; g < ngroups_; ++g) std::make_heap(groups_[g].members.begin(), groups_[g].members.end(), later);
    gheap_.reserve(ngroups_ + 64);
    for (size_t g = 0; g < ngroups_; ++g) {
      const Member& m0 = groups_[g].members.front();
      gheap_.push_back(FCand{group_value(groups_[g]), m0.submit, m0.id, g, 0});
    }
    if (more) gheap_.push_back(rest);
    std::make_heap(gheap_.begin(), gheap_.end(), FWorse{});
    for (size_t pick = 0; pick < f_.max_picks_; ++pick) {
      size_t g = 0;
      const Member* m = top(pick, &g);
      if (!m) break;
      const size_t best_c = m->c;
      if (pick + 1 == f_.max_picks_) f_.last_evals();
      f_.take(best_c);
      ++gen_[best_c];
      // The group keeps its other members: a bound for them.
      push_bound(g);
      if (f_.p_.shared_f && f_.info_[best_c].u) {
        for (uint32_t c2 = ucat_first_[f_.info_[best_c].user]; c2 != kNoId; c2 = ucat_next_[c2]) {
          if (c2 == best_c || !f_.remaining(c2)) continue;
          ++gen_[c2];
          join(c2, true);
        }
      }
      if (f_.remaining(best_c)) join(best_c, true);
    }
  }

 private:
  using Member = TiedMember;
  using Group = TiedGroup;
  static bool later(const Member& a, const Member& b) {  // min-heap on (submit, id)
    if (a.submit != b.submit) return a.submit > b.submit;
    return a.id > b.id;
  }

  // What a category's join reads (joining(): its group key now, base
  // shares and next job).
  struct Joining {
    Key5 key;
    FShares base;
    double prior = 0;
    int64_t submit = 0;
    uint64_t id = 0;
  };
  // A category's first join: listed under its user when its value reads
  // the user's count.
  uint32_t add(size_t c, bool bound, bool bulk = false, const Joining* x = nullptr) {
    if (f_.p_.shared_f && f_.info_[c].u) {
      const uint32_t u = f_.info_[c].user;
      ucat_next_[c] = ucat_first_[u];
      ucat_first_[u] = static_cast<uint32_t>(c);
    }
    return x ? join(c, *x, bound, bulk) : join(c, joining(c), bound, bulk);
  }
  void push_bound(size_t g) {
    gheap_.push_back(FCand{std::numeric_limits<double>::infinity(), 0, 0, g, kStale});
    std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
  }
  // Category c's group key now, its base shares and its next job (the
  // prior does not change during the picks).  A category not taken from
  // yet is read from its CatRec alone (a batch joins categories in order: no
  // job read at random); its project and department ids are its counts'
  // places.
  Joining joining(size_t c) const {
    const CatInfo& ci = f_.info_[c];
    Joining x;
    if (f_.head_[c] == 0) {
      const CatRec& r = f_.recs_[c];
      x.submit = r.submit;
      x.id = r.id;
      x.prior = r.prior;  // 0 when independent
    } else {
      const size_t j = f_.cur(c);
      x.submit = f_.jobs_[j].submit;
      x.id = f_.jobs_[j].id;
      x.prior = f_.step_.dependent ? f_.p_.prior[j] : 0.0;
    }
    x.base = ci.share;
    if (f_.p_.shared_f && ci.u) x.base.user /= *ci.u + 1;
    const uint64_t pid = ci.p ? static_cast<uint64_t>(ci.p - f_.cnt_.project.data()) : kNoId;
    const uint64_t did = ci.d ? static_cast<uint64_t>(ci.d - f_.cnt_.dept.data()) : kNoId;
    x.key = Key5{{dbits(x.base.user), pid, did, dbits(x.base.job), dbits(x.prior)}};
    return x;
  }
  // bound: push a fresh upper bound for the group (not while the first
  // groups are built: the heap is made once from them afterwards).
  uint32_t join(size_t c, bool bound) { return join(c, joining(c), bound, false); }
  // bulk: the member is appended only (the batch's joins make each touched
  // group's heap once, in linear time, after the batch).
  uint32_t join(size_t c, const Joining& x, bool bound, bool bulk) {
    const CatInfo& ci = f_.info_[c];
    bool added = false;
    const uint32_t gi = group_of_.insert(x.key, static_cast<uint32_t>(ngroups_), &added);
    if (added) {
      if (ngroups_ == groups_.size()) groups_.emplace_back();
      Group& g = groups_[ngroups_++];
      g.base = x.base;
      g.p = ci.p;
      g.d = ci.d;
      g.prior = x.prior;
      g.members.clear();
    }
    Group& g = groups_[gi];
    g.members.push_back(Member{x.submit, x.id, static_cast<uint32_t>(c), gen_[c]});
    if (!bulk) std::push_heap(g.members.begin(), g.members.end(), later);
    if (bound) push_bound(gi);
    return gi;
  }
  // The group's best live member, nullptr when it has none.
  const Member* best(Group& g) {
    while (!g.members.empty() && g.members.front().gen != gen_[g.members.front().c]) {
      std::pop_heap(g.members.begin(), g.members.end(), later);
      g.members.pop_back();
    }
    return g.members.empty() ? nullptr : &g.members.front();
  }
  // eval() for every member of the group (same operations, same operands:
  // the base's user share is divided already).
  double group_value(const Group& g) const {
    return pending_functional_value(f_.wp_, g.base, f_.sum_, nullptr, g.p, g.d, f_.p_.shared_f, f_.p_.F) +
           (f_.step_.dependent ? g.prior : 0);
  }
  // The next batch joins while pick `pick` is chosen (the rest's entry
  // topped the heap): each group it touched gets one entry, exact at this
  // pick for its best member (not a bound per category: a batch is up to
  // half the categories), then the rest's entry if any are left.
  void add_batch(size_t pick) {
    size_t b = 0, e = 0;
    FCand rest{};
    const bool more = f_.next_batch(&b, &e, &rest);
    touched_.clear();
    group_of_.reserve(e - b);
    // The group places of the categories this far on, fetched ahead (their
    // keys kept for their joins: nothing a join changes goes into a key).
    constexpr size_t kAhead = 8;
    std::array<Joining, kAhead> ahead;
    for (size_t k = b; k < std::min(b + kAhead, e); ++k) {
      ahead[k % kAhead] = joining(f_.rank_[k].c);
      group_of_.prefetch(ahead[k % kAhead].key);
    }
    for (size_t k = b; k < e; ++k) {
      const Joining x = ahead[k % kAhead];
      if (k + kAhead < e) {
        ahead[k % kAhead] = joining(f_.rank_[k + kAhead].c);
        group_of_.prefetch(ahead[k % kAhead].key);
      }
      const uint32_t gi = add(f_.rank_[k].c, false, /*bulk=*/true, &x);
      if (stamp_.size() < ngroups_) stamp_.resize(ngroups_, 0);
      if (stamp_[gi] != batch_stamp_ + 1) {
        stamp_[gi] = batch_stamp_ + 1;
        touched_.push_back(gi);
      }
    }
    ++batch_stamp_;
    for (const uint32_t gi : touched_) std::make_heap(groups_[gi].members.begin(), groups_[gi].members.end(), later);
    for (const uint32_t gi : touched_) {
      const Member* m = best(groups_[gi]);
      if (!m) continue;
      gheap_.push_back(FCand{group_value(groups_[gi]), m->submit, m->id, gi, pick});
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
    if (more) {
      gheap_.push_back(rest);
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
  }
  // This pick's winner: the group whose exact value tops the heap (*g), its
  // best member; the rest's entry on top joins the next batch.
  const Member* top(size_t pick, size_t* g) {
    while (!gheap_.empty()) {
      std::pop_heap(gheap_.begin(), gheap_.end(), FWorse{});
      const FCand t = gheap_.back();
      gheap_.pop_back();
      if (t.c == kRest) {
        if (t.at != pick) {  // stale: its bound at this pick first
          gheap_.push_back(f_.rest_bound(pick));
          std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
          continue;
        }
        add_batch(pick);
        continue;
      }
      *g = t.c;
      const Member* m = best(groups_[*g]);
      if (!m) continue;  // emptied: dropped
      if (t.at == pick && t.submit == m->submit && t.id == m->id) return m;
      gheap_.push_back(FCand{group_value(groups_[*g]), m->submit, m->id, *g, pick});
      std::push_heap(gheap_.begin(), gheap_.end(), FWorse{});
    }
    return nullptr;  // unreachable: max_picks <= pending jobs in categories
  }

  FunctionalPicks& f_;
  std::vector<Group>& groups_;
  size_t ngroups_ = 0;
  FlatIndex& group_of_;
  std::vector<uint32_t>& gen_;
  std::vector<FCand>& gheap_;
  std::vector<uint32_t>&ucat_first_, &ucat_next_;
  std::vector<uint32_t> touched_, stamp_;  // add_batch's groups (stamp_: per group, the batch that touched it + 1)
  uint32_t batch_stamp_ = 0;
};

void FunctionalPicks::pick_grouped() { TiedGroups(*this).run(); }

// ---- pending share-tree tickets: 8.1.9 sge_sort_job_nodes ----------------------

class ShareSort {
 public:
  ShareSort(Pass& p, const PolicyStep& step)
      : p_(p), w_(p.w), step_(step), begin_(p.s.doff), rbegin_(p.s.direct), st_(p.s.st), all_(p.s.all),
        run_(p.s.all_running), sort_buf_(p.s.sort_buf), sort_runs_(p.s.sort_runs), frames_(p.s.frames) {
    if (p.topt.scratch) {  // only a kept scratch sees a next pass
      p.s.order.resize(w_.nodes.size());
      p.s.rorder.resize(w_.nodes.size());
    }
  }

  void run() {
    count_direct_jobs();
    st_.assign(p_.n, 0.0);
    walk_root_ = 0;
    for (;;) {
      if (has_direct(walk_root_)) break;
      int only = -1, active = 0;
      for (int c : w_.nodes[walk_root_].children)
        if (w_.nodes[c].jobs > 0) ++active, only = c;
      if (active != 1) break;
      walk_root_ = only;
    }
    lay_out();
    walk([](int) {}, [&](int node) { leave(node); });
    // st_ holds every pending job's stckt now (0 outside the tree).
    p_.share_ran = true;
    if (step_.dependent)
      for (size_t j : p_.pending) p_.prior[j] += st_[j];
  }

 private:
  using Frame = ShareSortFrame;

  // Depth-first from the walk root over the nodes with jobs, children in
  // order (frames reused: no allocation per node).
  template <typename Enter, typename Leave>
  void walk(Enter&& enter, Leave&& leave) {
    frames_.clear();
    frames_.push_back(Frame{walk_root_, 0});
    enter(walk_root_);
    while (!frames_.empty()) {
      Frame& f = frames_.back();
      const std::vector<int>& kids = w_.nodes[f.node].children;
      while (f.next < kids.size() && w_.nodes[kids[f.next]].jobs == 0) ++f.next;
      if (f.next == kids.size()) {
        const int done = f.node;
        frames_.pop_back();
        leave(done);
        continue;
      }
      const int kid = kids[f.next++];
      frames_.push_back(Frame{kid, 0});
      enter(kid);
    }
  }

  // Per node, its direct pending and running jobs' counts (in begin_, rbegin_ until lay_out).
  void count_direct_jobs() {
    begin_.assign(w_.nodes.size() + 1, 0);
    rbegin_.assign(w_.nodes.size() + 1, 0);
    for (const size_t j : p_.pending)
      if (const int node = w_.job_node[j]; node >= 0) ++begin_[static_cast<size_t>(node)];
    for (const size_t j : p_.running)
      if (const int node = w_.job_node[j]; node >= 0) ++rbegin_[static_cast<size_t>(node)];
  }
  bool has_direct(int node) const {
    return begin_[static_cast<size_t>(node)] + rbegin_[static_cast<size_t>(node)] > 0;
  }
  // Every job in one array (running jobs in another) laid out as the lists
  // were concatenated: a node's range is its direct jobs (in job order),
  // then each active child's range in order.  Each node's direct range
  // begins at begin_[node] (rbegin_[node]); its whole range ends where the
  // next node in the walk's order begins, at its leaving.  The jobs are
  // read once, in job order.  The first key: -js, or (dependent) the prior
  // + 0.01 x -js (a running job's prior counts as 0).
  void lay_out() {
    size_t at = 0, rat = 0;
    walk(
        [&](int node) {
          const size_t k = static_cast<size_t>(node);
          const uint32_t c = begin_[k], rc = rbegin_[k];
          begin_[k] = static_cast<uint32_t>(at);
          rbegin_[k] = static_cast<uint32_t>(rat);
          at += c;
          rat += rc;
        },
        [](int) {});
    all_.resize(at);
    run_.resize(rat);
    std::vector<uint32_t>& fill = p_.s.fill;
    std::vector<uint32_t>& rfill = p_.s.rfill;
    fill.assign(begin_.begin(), begin_.end());
    rfill.assign(rbegin_.begin(), rbegin_.end());
    const std::vector<LJob>& jobs = p_.ids.job;
    for (size_t j = 0; j < p_.n; ++j) {
      const int node = w_.job_node[j];
      if (node < 0) continue;
      const LJob& l = jobs[j];
      const double base = step_.dependent && !l.running ? p_.prior[j] : 0.0;
      const double key = step_.dependent ? base + 0.01 * l.js : l.js;
      const SRec rec{order_key(key), l.id, base, static_cast<uint32_t>(j), l.dilute};
      if (l.running) run_[rfill[static_cast<size_t>(node)]++] = rec;
      else all_[fill[static_cast<size_t>(node)]++] = rec;
    }
    // Leaving a node, the arrays' fill is the end of its whole range.
    ends_ = 0;
    rends_ = 0;
  }
  // Leaving a node: its whole range is sorted (each child's sorted before)
  // and assigned: the k-th job of the sorted range (running ones first)
  // gets stt/dilute; its key becomes its base + that.  Only the walk root's
  // and its children's assignments can be a job's last, so only they are
  // written out.  Nodes leave in postorder, so a node's range ends where
  // the last node left ended, or at its own direct range's end.
  void leave(int node) {
    const size_t k = static_cast<size_t>(node);
    const size_t b = begin_[k], rb = rbegin_[k];
    const size_t e = std::max(ends_, static_cast<size_t>(p_.s.fill[k]));
    const size_t re = std::max(rends_, static_cast<size_t>(p_.s.rfill[k]));
    ends_ = e;
    rends_ = re;
    const bool assign = node != walk_root_ || has_direct_now(node);
    if (!assign || (e <= b && re <= rb)) return;
    const bool last = node == walk_root_ || w_.nodes[node].parent == walk_root_;
    // No later sort reads the keys: none after the walk root's, none after
    // its children's unless it has direct jobs (then it sorts their keys too).
    const bool keys_read = !(node == walk_root_ || (last && !has_direct_now(walk_root_)));
    double dilute = 1;
    const double stt = w_.nodes[node].stt;
    std::vector<uint32_t>* kept[2] = {nullptr, nullptr};
    if (p_.topt.scratch) kept[0] = &p_.s.rorder[k], kept[1] = &p_.s.order[k];
    int r = 0;
    for (auto [v, lo, hi] : {std::tuple<SRec*, size_t, size_t>{run_.data(), rb, re}, {all_.data(), b, e}}) {
      const SRec* sorted = order_range(v + lo, hi - lo, kept[r++]) - lo;
      for (size_t q = lo; q < hi; ++q) {
        SRec x = sorted[q];
        const double st = stt / dilute * p_.WS;
        if (keys_read) x.k = order_key(x.base + st);
        if (last) st_[x.idx] = st;
        dilute += x.slots;
        v[q] = x;
      }
    }
  }
  // v[0, n) in srec_less's stable order (share_order's).  With a kept
  // scratch, the node's order of the last pass (`last`: the sorted k-th
  // record's position before the sort) is tried first: the range gathered
  // through it and strictly ascending in (k, id) is the only order
  // srec_less allows (no two records equal: every sort, stable or not,
  // gives it).  Else (another length, keys or ids changed, a tie) the
  // range is sorted and its order kept for the next pass.  Returns the
  // sorted records: v, or the gathered ones in sort_buf_.
  const SRec* order_range(SRec* v, size_t n, std::vector<uint32_t>* last) {
    if (n < 2) return v;
    if (last && last->size() == n) {
      if (sort_buf_.size() < n) sort_buf_.resize(n);
      SRec* g = sort_buf_.data();
      const uint32_t* o = last->data();
      g[0] = v[o[0]];
      bool strict = true;
      for (size_t q = 1; q < n && (strict || (q & 63) != 0); ++q) {  // (a miss stops soon)
        g[q] = v[o[q]];
        strict &= srec_less(g[q - 1], g[q]);
      }
      if (strict) return g;
    }
    if (!last) {
      share_order(v, n, sort_buf_, sort_runs_, p_.s.sort_kpos, p_.topt.radix_share_levels);
      return v;
    }
    last->resize(n);
    if (takes_radix(v, n, p_.topt.radix_share_levels)) {  // (its pairs are the order)
      radix_share_order(v, n, sort_buf_, p_.s.sort_kpos, last->data());
      return v;
    }
    // Each record's idx holds its position while it is sorted (no sort reads idx).
    std::vector<uint32_t>& saved = p_.s.saved_idx;
    saved.resize(n);
    for (size_t q = 0; q < n; ++q) {
      saved[q] = v[q].idx;
      v[q].idx = static_cast<uint32_t>(q);
    }
    share_order(v, n, sort_buf_, sort_runs_, p_.s.sort_kpos, p_.topt.radix_share_levels);
    for (size_t q = 0; q < n; ++q) {
      (*last)[q] = v[q].idx;
      v[q].idx = saved[v[q].idx];
    }
    return v;
  }
  bool has_direct_now(int node) const {
    const size_t k = static_cast<size_t>(node);
    return p_.s.fill[k] > begin_[k] || p_.s.rfill[k] > rbegin_[k];
  }

  Pass& p_;
  const WorkTree& w_;
  const PolicyStep step_;
  std::vector<uint32_t>&begin_, &rbegin_;
  std::vector<double>& st_;
  int walk_root_ = 0;
  size_t ends_ = 0, rends_ = 0;
  std::vector<SRec>&all_, &run_, &sort_buf_;
  std::vector<size_t>& sort_runs_;
  std::vector<Frame>& frames_;
};

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
  // A pending job's share_bound: a compensated node on its pass-1 path.
  std::vector<int8_t>& memo = p.s.bound_memo;
  memo.assign(p.share_ran ? p.w.nodes.size() : 0, -1);
  double max_tix = 0;
  for (size_t j = 0; j < p.n; ++j) {
    JobTickets t;
    const int node = p.w.job_node[j];
    t.share_node = node;
    t.stckt = st[j];
    t.ftckt = p.ft[j];
    t.otckt = p.ot[j];
    t.pass1_tckts = p.p1[j];
    if (p.share_ran && node >= 0) {
      int8_t& b = memo[static_cast<size_t>(node)];
      if (b < 0) b = path_compensated(p.w.nodes, node) ? 1 : 0;
      t.share_bound = b == 1;
    }
    t.tckts = t.stckt + t.ftckt + t.otckt;
    max_tix = std::max(max_tix, t.tckts);
    p.r.jobs[j] = t;
  }
  for (const size_t j : p.running) {
    const int node = p.w.job_node[j];
    p.r.jobs[j].share_bound = p.use_tree && node >= 0 && path_compensated(p2, node);
    max_tix = std::max(max_tix, p.p1[j]);
  }
  p.r.max_tix = max_tix;
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
  p.r.jobs.resize(p.n);  // each set by running_tickets
  p.r.max_tix = 0;
  running_tickets(p);
  // ---- pending jobs, policy by policy ----
  p.prior.assign(p.n, 0.0);
  if (!p.pending.empty()) scan_pending(p);
  for (const PolicyStep& step : policy_order(p.conf.policy_hierarchy)) {
    if (p.pending.empty()) break;
    if (step.policy == 'O') pending_override(p, step);
    else if (step.policy == 'F' && p.F > 0) FunctionalPicks(p, step).run();
    else if (step.policy == 'S' && p.use_tree) ShareSort(p, step).run();
  }
  running_pass2(p);
  p.r.nodes = std::move(p.w.nodes);
}

}  // namespace mfprio::gridengine
