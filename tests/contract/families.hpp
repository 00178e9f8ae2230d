// families.hpp - the six family plugins the contract suites run over, with
// what each one's contract lets a test expect of it (tests/contract).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace mfprio::test {

constexpr int64_t kHour = 3600;
constexpr int64_t T0 = 1'700'000'000 - (1'700'000'000 % kHour);

inline std::string sample(const std::string& rel) { return std::string(MFPRIO_SAMPLES) + "/" + rel; }

struct Family {
  const char* so;
  std::vector<std::string> conf;  // besides AccountingStorageLoc
  bool charges;                   // keeps usage in the store
  bool charges_assocs;            // charges a store association (else credentials by name)
  bool whole_queue;               // priced by prioritize
  bool layout_follows_store;      // a new association in the store is a new handle layout
  bool rereads;                   // its next state re-reads the store after the commit
};

inline std::vector<Family> families() {
  return {
      {"priority_basic.so", {}, false, false, false, false, false},
      {"priority_multifactor.so",
       {"PriorityWeightFairshare=100000", "PriorityDecayHalfLife=1:00:00", "PriorityFlags=NO_FAIR_TREE"},
       true, true, false, true, false},
      {"priority_maui.so", {"PriorityParameters=config=" + sample("maui.cfg")}, true, false, false, false, true},
      {"priority_moab.so", {"PriorityParameters=config=" + sample("maui.cfg")}, true, false, false, false, true},
      {"priority_gridengine.so",
       {"PriorityParameters=sched_conf=" + sample("gridengine/sched_conf") +
        ",complexes=" + sample("gridengine/complexes")},
       true, false, true, true, true},
      {"priority_flux.so", {"PriorityParameters=decay_half_life=1:00:00,reset_period=4:00:00"}, true, true, false,
       true, true},
  };
}

inline std::string family_name(const ::testing::TestParamInfo<Family>& info) {
  std::string n = info.param.so;
  n = n.substr(std::string("priority_").size());
  return n.substr(0, n.find('.'));
}

}  // namespace mfprio::test
