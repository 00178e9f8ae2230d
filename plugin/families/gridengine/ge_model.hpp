// ge_model.hpp - the inputs of one Grid Engine pricing pass: the jobs (pending
// and running) and the Model (configuration, complexes, share tree with decayed
// usage, functional shares and override tickets).  Plain structs, no logic.
// reference/gridengine.md §2 (what urgency reads), §3 (what tickets read).
//
// Invariants the pricing checks (price_queue fails with the job id otherwise):
// posix_priority in -1023..1024; PE ranges non-empty with 1 <= min <= max;
// every hard request names a known complex, numeric complexes get numbers.
#pragma once

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
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
};

}  // namespace mfprio::gridengine
