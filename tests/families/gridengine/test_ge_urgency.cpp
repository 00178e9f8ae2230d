// Urgency (ge_urgency.hpp, sge_urgency.c) and the sentences of "Understanding job priority".
#include <gtest/gtest.h>

#include <chrono>

#include "ge_priority.hpp"
#include "ge_urgency.hpp"
#include "test_ge_util.hpp"

using namespace getest;

namespace {
// The seed's site: 100 urgency per slot, t and u queues worth 40000 / 80000
// through string complexes, weight_waiting_time 0.278 (code defaults).
Model seed_site(int64_t slot_urgency) {
  Model m;
  m.complexes = complexes_from(
      "slots s INT <= YES YES 1 " + std::to_string(slot_urgency) + "\n"
      "tq tq STRING == YES NO NONE 40000\n"
      "uq uq STRING == YES NO NONE 80000\n");
  return m;
}

double urg(const Job& j, const Model& m) {
  UrgencyParts p;
  std::string why;
  EXPECT_TRUE(job_urgency(j, m, kNow, &p, &why)) << why;
  return p.urg;
}

// Hours an older job must wait to pass a new one (urgency difference / 0.278 per s).
double hours_to_pass(const Job& old_job, const Job& new_job, const Model& m) {
  return (urg(new_job, m) - urg(old_job, m)) / m.conf.weight_waiting_time / 3600.0;
}
}  // namespace

TEST(GeSeed004, S64JobPassesNewT2After33_77HoursAndU2After73_74Hours) {
  const Model m = seed_site(100);
  const Job s64 = JobB(1).pe(64);
  const Job t2 = JobB(2).pe(2).req("tq", "t2");
  const Job u2 = JobB(3).pe(2).req("uq", "u2");
  EXPECT_NEAR(hours_to_pass(s64, t2, m), 33.772982, 1e-6);
  EXPECT_NEAR(hours_to_pass(s64, u2, m), 73.741007, 1e-6);
  // And through the whole pass: just before 33.77 h the t2 job leads, just after the s64 job.
  for (double h : {33.77, 33.78}) {
    std::vector<Job> q = {JobB(1).pe(64).waited(h * 3600), JobB(2).pe(2).req("tq", "t2")};
    PricingResult r;
    std::string why;
    ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
    EXPECT_EQ(q[r.pending_order[0]].id, h < 33.773 ? 2u : 1u) << h;
  }
}

TEST(GeSeed004, SixteenCpuJobAfter16HoursMatchesNew32CpuJobOnlyWithDefault1000PerSlot) {
  const Model m = seed_site(1000);  // the built-in slots urgency
  EXPECT_NEAR(urg(JobB(1).pe(16).waited(16 * 3600), m), 32012.8, 1e-6);
  EXPECT_NEAR(urg(JobB(2).pe(32), m), 32000.0, 1e-6);
  // With the notes' 100 per slot the gap closes after 1.6 h, not 16 h.
  const Model m100 = seed_site(100);
  EXPECT_NEAR(hours_to_pass(JobB(1).pe(16), JobB(2).pe(32), m100), 1.598721, 1e-6);
}

TEST(GeUrgency, NumericRequestsCountPerSlotStringsOnce) {
  Model m = seed_site(100);
  m.complexes = complexes_from(
      "slots s INT <= YES YES 1 100\n"
      "h_vmem h_vmem MEMORY <= YES YES 0 2\n"
      "ib ib BOOL == YES NO 0 500\n"
      "tq tq STRING == YES NO NONE 40000\n");
  UrgencyParts p;
  std::string why;
  ASSERT_TRUE(job_urgency(JobB(1).pe(4).req("h_vmem", "1K").req("ib", "TRUE").req("tq", "x"), m,
                          kNow, &p, &why))
      << why;
  EXPECT_DOUBLE_EQ(p.rrcontr, 4 * 100 + 1024.0 * 2 * 4 + 1 * 500 * 4 + 40000);
  EXPECT_FALSE(job_urgency(JobB(2).req("gpu", 1.0), m, kNow, &p, &why));
  EXPECT_NE(why.find("job 2"), std::string::npos) << why;
  EXPECT_FALSE(job_urgency(JobB(3).req("h_vmem", "lots"), m, kNow, &p, &why));
}

TEST(GeUrgency, PeUrgencySlotsMinMaxAvgAndFixed) {
  EXPECT_EQ(urgency_slot_count(JobB(1)), 1u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe(8)), 8u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(2, 6, "min")), 2u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(2, 6, "max")), 6u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(2, kInfiniteSlots, "max", 64)), 64u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(2, 5, "avg")), 3u);  // (2+3+4+5)/4 = 3.5 -> 3
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(4, kInfiniteSlots, "avg", 8)), 6u);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(2, 6, "5")), 5u);
}

TEST(GeUrgency, AvgOverAnOpenRangeIsExactAndDoesNotVisitEverySlotId) {
  // "mpi 1-" allows ids 1..2^32-1; summing them one by one took seconds per
  // job per pass.  The mean is (1 + (2^32 - 1)) / 2.
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(1, kInfiniteSlots, "avg")), 2147483648u);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_LT(secs, 0.05);
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(3, kInfiniteSlots, "avg", 2)), 3u);  // no id allowed: min
  EXPECT_EQ(urgency_slot_count(JobB(1).pe_range(7, 7, "avg")), 7u);
}

TEST(GeUrgency, DeadlineContributionGrowsAndCapsAtWeightDeadline) {
  Model m;
  UrgencyParts p;
  std::string why;
  ASSERT_TRUE(job_urgency(JobB(1).deadline_in(3600), m, kNow, &p, &why));
  EXPECT_DOUBLE_EQ(p.dlcontr, 3600000.0 / 3600);
  EXPECT_FALSE(p.deadline_bound);
  ASSERT_TRUE(job_urgency(JobB(1).deadline_in(-50), m, kNow, &p, &why));
  EXPECT_DOUBLE_EQ(p.dlcontr, 3600000.0);
  EXPECT_TRUE(p.deadline_bound);
}

TEST(GeNormalize, EqualValuesGiveOneHalf) {
  EXPECT_DOUBLE_EQ(normalize(7, 7, 7), 0.5);
  EXPECT_DOUBLE_EQ(normalize(7, 7, 7 + 5e-6), 0.5);
  EXPECT_DOUBLE_EQ(normalize(5, 0, 10), 0.5);
  EXPECT_DOUBLE_EQ(normalize(10, 0, 10), 1.0);
  // In a pass: two identical jobs -> nurg 0.5; no tickets anywhere -> ntckts 0.5.
  Model m;
  std::vector<Job> q = {JobB(1), JobB(2)};
  PricingResult r;
  std::string why;
  ASSERT_TRUE(price_queue(q, m, kNow, &r, &why)) << why;
  for (const auto& p : r.jobs) {
    EXPECT_DOUBLE_EQ(p.nurg, 0.5);
    EXPECT_DOUBLE_EQ(p.ntckts, 0.5);
    EXPECT_DOUBLE_EQ(p.prio, 0.5 * 0.5 + 0.5 * 0.5);
    EXPECT_TRUE(p.terms[0].bound);
  }
}
