// test_ge_util.hpp - builders for Grid Engine test jobs and models.
#pragma once

#include <string>

#include "ge_model.hpp"
#include "qconf.hpp"

namespace getest {
using namespace mfprio::gridengine;

inline constexpr int64_t kNow = 1'700'000'000;

struct JobB {
  Job j;
  explicit JobB(uint32_t id, std::string user = "alice") {
    j.id = id;
    j.user = std::move(user);
    j.submit_time = kNow;
  }
  JobB& waited(double seconds) { j.submit_time = kNow - static_cast<int64_t>(seconds); return *this; }
  JobB& submitted(int64_t t) { j.submit_time = t; return *this; }
  JobB& running() { j.running = true; return *this; }
  JobB& project(std::string p) { j.project = std::move(p); return *this; }
  JobB& dept(std::string d) { j.department = std::move(d); return *this; }
  JobB& pe(uint32_t n) { return pe_range(n, n); }
  JobB& pe_range(uint32_t lo, uint32_t hi, std::string urgency_slots = "min", uint32_t pe_slots = 0) {
    PeRequest p;
    p.name = "mpi";
    p.ranges.push_back({lo, hi});
    p.urgency_slots = std::move(urgency_slots);
    p.pe_slots = pe_slots;
    j.pe = p;
    return *this;
  }
  JobB& req(const std::string& k, double v) { j.hard_requests[k] = RequestValue::num(v); return *this; }
  JobB& req(const std::string& k, const std::string& v) { j.hard_requests[k] = RequestValue::str(v); return *this; }
  JobB& posix(int p) { j.posix_priority = p; return *this; }
  JobB& js(double s) { j.job_share = s; return *this; }
  JobB& ot(double t) { j.override_tickets = t; return *this; }
  JobB& deadline_in(int64_t s) { j.deadline = kNow + s; return *this; }
  operator Job() const { return j; }
};

inline ShareTreeSpec tree_from(const std::string& text) {
  ShareTreeSpec t;
  std::string why;
  if (!parse_share_tree(text, "test.sstree", &t, &why)) throw std::runtime_error(why);
  return t;
}

inline ComplexTable complexes_from(const std::string& text) {
  ComplexTable t;
  std::string why;
  if (!parse_complexes(text, "test.sc", &t, &why)) throw std::runtime_error(why);
  return t;
}

}  // namespace getest
