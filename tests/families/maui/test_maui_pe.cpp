// test_maui_pe.cpp - golden tests for maui_pe.cpp (MJob.c:MJobGetPE).
#include <gtest/gtest.h>

#include "maui_pe.hpp"

namespace mfprio::maui {
namespace {

constexpr double kSix = 1e-6;

PeResources o2k() {  // the Administrator's Guide's 128-processor machine
  PeResources t;
  t.procs = 128;
  t.mem_mb = 65536;
  t.disk_mb = 1e6;
  t.swap_mb = 0;  // not configured: swap never counts
  return t;
}

TEST(ProcessorEquivalents, QuarterOfProcsHalfOfMemoryOn128ProcsIs64) {
  // Maui 3.2 Administrator's Guide §5.1.2.3: max(25%, 50%) * 128 = 64.
  EXPECT_NEAR(processor_equivalents_flat(32, 32768, 0, 0, o2k()), 64.0, kSix);
}

TEST(ProcessorEquivalents, PerTaskRequirementsGiveTheSameAsUniformTotals) {
  PeRequest r;
  r.tasks = 8;
  r.procs_per_task = 4;
  r.mem_mb_per_task = 4096;
  EXPECT_NEAR(processor_equivalents(&r, 1, o2k()), 64.0, kSix);
}

TEST(ProcessorEquivalents, MultipleRequirementsSumTheirOwnMaxima) {
  // Req 1: 16 procs, no memory -> 16.  Req 2: 1 task, 1 proc, 25% memory -> 32.
  PeRequest r[2];
  r[0].tasks = 16;
  r[0].procs_per_task = 1;
  r[1].tasks = 1;
  r[1].procs_per_task = 1;
  r[1].mem_mb_per_task = 16384;
  EXPECT_NEAR(processor_equivalents(r, 2, o2k()), 48.0, kSix);
}

TEST(ProcessorEquivalents, UnconfiguredResourceIsIgnoredAndNoProcsGivesZero) {
  // Swap total 0: a swap request does not count.
  EXPECT_NEAR(processor_equivalents_flat(4, 0, 1e9, 0, o2k()), 4.0, kSix);
  PeResources none;
  EXPECT_EQ(processor_equivalents_flat(4, 100, 0, 0, none), 0.0);
  EXPECT_EQ(processor_equivalents(nullptr, 0, o2k()), 0.0);
}

TEST(ProcessorEquivalents, DiskShareCanDominate) {
  EXPECT_NEAR(processor_equivalents_flat(1, 0, 0, 500000, o2k()), 64.0, kSix);
}

}  // namespace
}  // namespace mfprio::maui
