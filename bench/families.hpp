// families.hpp - the per-family batch figures of mfprio-bench: for
// priority_maui.so, priority_gridengine.so and priority_flux.so, the batch
// pricing of every pending record (set_priority_batch; Grid Engine: the
// whole-queue prioritize(pending, running) pass) against the memory floor
// of the same record array, measured in the same run (bench/README.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "generator.hpp"
#include "mfprio/mfprio.h"

namespace mfprio::bench {

// The memory floor: read the fields set_priority reads, spread over every
// cache line of each record, nothing else (the sum is returned so the loop
// cannot be dropped).
uint64_t memory_floor_pass(const mfprio_job_t* jobs, size_t count);

struct FamilyInputs {
  std::string base_store;   // the multifactor store (accounts, users, associations): copied per family
  std::string dir;          // where the family stores and conf files go
  const Hierarchy* hier = nullptr;
  std::vector<mfprio_job_t>* pending = nullptr;  // family fields (group, attrs) are filled in place
  const std::vector<mfprio_job_t>* running = nullptr;
  int64_t now = 0;
  int reps = 5;
  std::string only;         // non-empty: a comma-separated list of the families to run
};

struct FamilyFigure {
  std::string family;       // "maui", "gridengine", "flux"
  std::string what;         // the call measured
  double batch_ns = 0, batch_cpu_ns = 0;   // medians, whole call
  double floor_ns = 0, floor_cpu_ns = 0;   // medians, the read loop over the same records
  // Whole-queue families: the CPU median of passes each made after the first
  // priced record changed (its submit time a second earlier each time): no
  // job's pass state is kept past it (batch_*: the same queue again, every
  // job's kept).
  double changed_cpu_ns = 0;
  // Whole-queue families: the CPU median of passes each made after a usage
  // pass (a decay charging the running jobs, 60 s on, untimed): the state is
  // a new one each time, the queue the same (what a controller's calc-period
  // loop does between two passes when no job started, ended or was submitted).
  double after_usage_cpu_ns = 0;
  size_t records = 0;       // records priced (pending)
  size_t failed = 0;        // records that got a non-OK status (priority 0)
  double setup_s = 0;       // store copy + family rows + init + first decay
  std::string error;        // non-empty: the figure could not be taken
};

// Runs each family in turn (one plugin loaded at a time); never throws: a
// family that fails says why in its FamilyFigure::error.
std::vector<FamilyFigure> run_family_figures(const FamilyInputs& in);

}  // namespace mfprio::bench
