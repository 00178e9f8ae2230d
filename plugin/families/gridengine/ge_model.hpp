// ge_model.hpp - the inputs of one Grid Engine pricing pass: the jobs (pending
// and running) and the Model (configuration, complexes, share tree with decayed
// usage, functional shares and override tickets).  Plain structs, no logic.
// sge_urgency.c (what urgency reads), sgeee.c (what tickets read).
//
// Invariants the pricing checks (price_queue fails with the job id otherwise):
// posix_priority in -1023..1024; PE ranges non-empty with 1 <= min <= max;
// every hard request names a known complex, numeric complexes get numbers.
#pragma once

#include <cstring>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "qconf.hpp"
#include "ge_usage.hpp"

namespace mfprio::gridengine {

inline constexpr uint32_t kInfiniteSlots = std::numeric_limits<uint32_t>::max();

// One `-pe name n-m` id range; max = kInfiniteSlots for "n-".
struct SlotRange {
  uint32_t min = 1;
  uint32_t max = 1;
};

// A parallel-environment request and the PE's own urgency_slots / slots.
struct PeRequest {
  std::string name;
  std::vector<SlotRange> ranges;        // as requested, in order
  std::string urgency_slots = "min";    // min | max | avg | <integer>
  uint32_t pe_slots = 0;                // the PE's `slots` (caps max/avg)
};

// A hard `-l name=value` request: text as typed, or a number.
struct RequestValue {
  std::string text;
  double number = 0;
  bool is_number = false;
  static RequestValue num(double v) { return RequestValue{std::string(), v, true}; }
  static RequestValue str(std::string s) { return RequestValue{std::move(s), 0, false}; }
};

struct Job {
  uint64_t id = 0;
  std::string user;
  std::string project;     // "" = none
  std::string department;  // "" = none (Grid Engine: defaultdepartment)
  int64_t submit_time = 0;
  std::optional<int64_t> deadline;  // -dl, seconds
  int posix_priority = 0;           // -p, -1023..1024
  double job_share = 0;             // -js
  double override_tickets = 0;      // qalter -ot
  std::optional<PeRequest> pe;      // absent = sequential job, 1 slot
  std::map<std::string, RequestValue> hard_requests;  // -l (soft requests do not count)
  bool running = false;
};

// Functional shares and override tickets of a user, project or department.
struct TicketObject {
  double fshare = 0;
  double oticket = 0;
};

// The snapshot's user, project and department names, numbered (the ids
// job_resolve stores in a record's handle), with each name's ticket object.
// Built with the state and never changed after.
inline constexpr uint32_t kNoName = std::numeric_limits<uint32_t>::max();
struct NameTable {
  std::vector<std::string> names;        // id -> name
  std::vector<TicketObject> objects;     // id -> its ticket object (when has_object)
  std::vector<uint8_t> has_object;
  std::unordered_map<std::string, uint32_t> index;  // name -> id
  size_t size() const { return names.size(); }
  uint32_t find(const std::string& name) const {
    auto it = index.find(name);
    return it == index.end() ? kNoName : it->second;
  }
  // Adds `name` once; its object from `objects_by_name` when it has one.
  void add(const std::string& name, const std::map<std::string, TicketObject>& objects_by_name) {
    if (!index.emplace(name, static_cast<uint32_t>(names.size())).second) return;
    names.push_back(name);
    auto it = name.empty() ? objects_by_name.end() : objects_by_name.find(name);
    objects.push_back(it == objects_by_name.end() ? TicketObject{} : it->second);
    has_object.push_back(it != objects_by_name.end());
  }
};
struct NameTables {
  NameTable users, projects, departments;
  bool operator==(const NameTables& o) const {
    return users.names == o.users.names && projects.names == o.projects.names &&
           departments.names == o.departments.names;
  }
  // The same names with the same ticket objects (functional shares and
  // override tickets, bit for bit): one may stand for the other.
  bool same_objects(const NameTables& o) const {
    auto same = [](const NameTable& a, const NameTable& b) {
      if (a.names != b.names || a.has_object != b.has_object) return false;
      for (size_t i = 0; i < a.objects.size(); ++i)
        if (std::memcmp(&a.objects[i], &b.objects[i], sizeof(TicketObject)) != 0) return false;
      return true;
    };
    return same(users, o.users) && same(projects, o.projects) && same(departments, o.departments);
  }
};

// First-match look-ups of a share tree's nodes by name (index_share_tree, ge_tickets.hpp).
struct TreeIndex;

struct Model {
  SchedConf conf;
  ComplexTable complexes = ComplexTable::builtin();
  ShareTreeSpec tree;  // may be empty: no share-tree tickets
  // Decayed usage (see ge_usage.hpp): a user leaf outside any project node reads
  // user_usage; a user leaf below project node P reads user_project_usage[{user,P}];
  // a project node reads project_usage.
  std::map<std::string, Usage> user_usage;
  std::map<std::string, Usage> project_usage;
  std::map<std::pair<std::string, std::string>, Usage> user_project_usage;
  std::map<std::string, TicketObject> users;
  std::map<std::string, TicketObject> projects;
  std::map<std::string, TicketObject> departments;
  // Per tree node, its own usage when it is a project node or a leaf
  // (own_node_usage of this model, precomputed at load; empty: each pass
  // computes it).  Must agree with the usage maps above.
  std::vector<double> own_usage;
  // Names numbered for handles (null: a pass interns every job's names).
  // Must agree with users / projects / departments above.
  std::shared_ptr<const NameTables> names;
  // index_share_tree(tree), built once by a caller that keeps models (null:
  // each pass indexes the tree).  Used only while tree_index_of is &tree
  // (a copied Model, whose tree is another object, indexes its own).
  std::shared_ptr<const TreeIndex> tree_index;
  const ShareTreeSpec* tree_index_of = nullptr;
};

}  // namespace mfprio::gridengine
