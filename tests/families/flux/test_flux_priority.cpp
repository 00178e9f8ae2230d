// Golden tests of flux_priority: flux-accounting's formula (its
// src/plugins/mf_priority.cpp), flux-core's hold/expedite (flux-core priority-default.c), the design page's factors.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "count_allocations.hpp"  // NoAllocationWithoutTerms: the binary counts operator new
#include "flux_priority.hpp"

namespace mfprio::flux {
namespace {

// A small model: bank A (priority 2.5), queues batch (2), debug (5), std (0);
// alice@A may use batch and std.
struct ModelBuilder {
  Model m;
  ModelBuilder() {
    m.banks = {{"A", 2.5}};
    m.queues = {{"batch", 2}, {"debug", 5}, {"std", 0}};
    Association a;
    a.user = "alice";
    a.bank = "A";
    a.bank_index = 0;
    a.fairshare = 0.5;
    a.queues = {0, 2};
    m.assocs.push_back(a);
  }
  ModelBuilder& params(const std::string& p) {
    std::string why;
    EXPECT_TRUE(parse_flux_parameters(p, &m.settings, &why)) << why;
    return *this;
  }
  ModelBuilder& fairshare(double f) {
    m.assocs[0].fairshare = f;
    return *this;
  }
  Model build() {
    prepare_model(&m);
    return m;
  }
};

Job job(int urgency = 16, int32_t queue = kNone) {
  Job j;
  j.id = 42;
  j.assoc = 0;
  j.urgency = urgency;
  j.queue = queue;
  return j;
}

TEST(FluxAccounting, DefaultWeightsFairShareHalfGives50000) {
  const Model m = ModelBuilder().build();
  const Result r = price(m, job(), 0, nullptr);
  EXPECT_EQ(r.priority, 50000u);  // 100000 * 0.5 + 0 + 0 * 2.5 + 1000 * 0
  EXPECT_DOUBLE_EQ(r.total_unclamped, 50000.0);
  EXPECT_FALSE(r.clamped_low);
  EXPECT_FALSE(r.clamped_high);
}

TEST(FluxAccounting, DefaultWeightsWithQueueAndUrgency) {
  const Model m = ModelBuilder().fairshare(0.666667).build();
  // 100000*0.666667 + 10000*2 + 0*2.5 + 1000*(20-16) = 66666.7 + 20000 + 4000
  EXPECT_EQ(price(m, job(20, 0), 0, nullptr).priority, 90667u);
}

TEST(FluxAccounting, BankWeightMultipliesBankPriority) {
  const Model m = ModelBuilder().params("bank=100").fairshare(0.0).build();
  EXPECT_EQ(price(m, job(), 0, nullptr).priority, 250u);
}

TEST(FluxAccounting, Urgency0IsHeldWhateverTheFactors) {
  const Model m = ModelBuilder().fairshare(1.0).build();
  std::vector<Term> terms;
  const Result r = price(m, job(0, 0), 0, &terms);
  EXPECT_EQ(r.priority, 0u);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].name, "urgency");
  EXPECT_TRUE(terms[0].bound);
}

TEST(FluxAccounting, Urgency31IsExpeditedToMax) {
  const Model m = ModelBuilder().fairshare(0.0).build();
  const Result r = price(m, job(31), 0, nullptr);
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_FALSE(r.clamped_high);
}

TEST(FluxAccounting, NegativeSumBecomesZero) {
  const Model m = ModelBuilder().fairshare(0.0).build();
  const Result r = price(m, job(1), 0, nullptr);  // 1000 * (1 - 16)
  EXPECT_EQ(r.priority, 0u);
  EXPECT_TRUE(r.clamped_low);
  EXPECT_DOUBLE_EQ(r.total_unclamped, -15000.0);
}

TEST(FluxAccounting, HalvesRoundAwayFromZeroLikeCRound) {
  // Only the bank term: weight 1, bank priority 2.5 -> 3 (banker's would give 2).
  Model m = ModelBuilder().params("fairshare=0,queue=0,urgency=0,bank=1").build();
  ASSERT_EQ(m.banks[0].priority, 2.5);
  const std::vector<std::pair<double, uint32_t>> cases = {{2.5, 3}, {0.5, 1}, {3.5, 4}, {2.4999, 2}};
  for (const auto& [bank_priority, want] : cases) {
    m.banks[0].priority = bank_priority;
    EXPECT_EQ(price(m, job(), 0, nullptr).priority, want) << "bank priority " << bank_priority;
  }
  m.banks[0].priority = -0.5;  // round(-0.5) = -1 -> 0
  const Result r = price(m, job(), 0, nullptr);
  EXPECT_EQ(r.priority, 0u);
  EXPECT_TRUE(r.clamped_low);
}

TEST(FluxAccounting, HugeWeightsClampHighAndSaySo) {
  const Model m = ModelBuilder().params("fairshare=2147483647,queue=2147483647").fairshare(1.0).build();
  const Result r = price(m, job(16, 0), 0, nullptr);  // 2147483647 * (1 + 2)
  EXPECT_EQ(r.priority, 4294967295u);
  EXPECT_TRUE(r.clamped_high);
  EXPECT_DOUBLE_EQ(r.total_unclamped, 3.0 * 2147483647.0);
}

TEST(FluxAccounting, UnknownQueueCountsZeroAndIsAdmitted) {
  const Model m = ModelBuilder().build();
  EXPECT_EQ(price(m, job(16, kUnknown), 0, nullptr).priority, 50000u);
  std::string why;
  EXPECT_TRUE(check_job(m, job(16, kUnknown), &why)) << why;
  EXPECT_TRUE(check_job(m, job(16, kNone), &why)) << why;
}

TEST(FluxAccounting, QueueNotPermittedIsRefusedNamingJobUserBankQueue) {
  const Model m = ModelBuilder().build();
  std::string why;
  EXPECT_FALSE(check_job(m, job(16, 1), &why));
  EXPECT_NE(why.find("job 42"), std::string::npos) << why;
  EXPECT_NE(why.find("alice"), std::string::npos) << why;
  EXPECT_NE(why.find("bank A"), std::string::npos) << why;
  EXPECT_NE(why.find("debug"), std::string::npos) << why;
  // Priced anyway (never trusted): the queue counts 0 and is marked bound.
  std::vector<Term> terms;
  EXPECT_EQ(price(m, job(16, 1), 0, &terms).priority, 50000u);
  EXPECT_EQ(terms[1].name, "queue");
  EXPECT_TRUE(terms[1].bound);
}

TEST(FluxAccounting, CheckJobRefusesBadUrgencyAndAssociation) {
  const Model m = ModelBuilder().build();
  std::string why;
  EXPECT_FALSE(check_job(m, job(32), &why));
  EXPECT_NE(why.find("urgency 32"), std::string::npos) << why;
  Job j = job();
  j.assoc = 5;
  EXPECT_FALSE(check_job(m, j, &why));
  EXPECT_NE(why.find("no such user association"), std::string::npos) << why;
}

TEST(FluxAccounting, TermsNameTheFourFactorsAndSumToTheTotal) {
  const Model m = ModelBuilder().params("bank=10").fairshare(0.25).build();
  std::vector<Term> terms;
  const Result r = price(m, job(18, 0), 0, &terms);
  ASSERT_EQ(terms.size(), 4u);
  const char* names[] = {"fairshare", "queue", "bank", "urgency"};
  double sum = 0;
  for (size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(terms[i].name, names[i]);
    EXPECT_EQ(terms[i].parent, -1);
    EXPECT_DOUBLE_EQ(terms[i].contribution, terms[i].factor * terms[i].weight);
    sum += terms[i].contribution;
  }
  EXPECT_DOUBLE_EQ(sum, r.total_unclamped);
  EXPECT_EQ(r.priority, 25000u + 20000u + 25u + 2000u);
}

TEST(FluxAccounting, NoAllocationWithoutTerms) {
  const Model am = ModelBuilder().build();
  const Model dm = ModelBuilder().params("mode=design,wait_time=1,qos=1,job_size=1,user=1").build();
  const long before = mfprio::test::allocations();
  uint64_t acc = 0;
  for (int u = 0; u < 32; ++u) {
    acc += price(am, job(u, 0), 100, nullptr).priority;
    acc += price(dm, job(u, 1), 100, nullptr).priority;
  }
  EXPECT_EQ(mfprio::test::allocations(), before);
  EXPECT_GT(acc, 0u);
}

// ---- design mode: each factor alone (weight 1000, others 0) at 0, 0.5, 1.

struct DesignFixture {
  Model m;
  explicit DesignFixture(const std::string& weights) {
    std::string why;
    std::string p = "mode=design," + weights;
    if (weights.find("fairshare=") == std::string::npos) p += ",fairshare=0";
    if (weights.find("queue=") == std::string::npos) p += ",queue=0";
    EXPECT_TRUE(parse_flux_parameters(p, &m.settings, &why)) << why;
    m.queues = {{"low", 0}, {"mid", 5}, {"high", 10}};
    m.qos = {{"standby", 0}, {"normal", 50}, {"expedite", 100}};
    m.cluster_nodes = 10;
    Association a;
    a.user = "bob";
    a.bank = "B";
    a.queues = {0, 1, 2};
    m.assocs.push_back(a);
    prepare_model(&m);
  }
  uint32_t at(const Job& j, int64_t now = 0, std::vector<Term>* t = nullptr) const {
    return price(m, j, now, t).priority;
  }
};

// Prices job() with `field` set to each case's value in turn; each must give
// the case's priority.
template <typename T>
void expect_priced(const DesignFixture& f, T Job::*field, const std::vector<std::pair<T, uint32_t>>& cases) {
  Job j = job();
  for (const auto& [value, want] : cases) {
    j.*field = value;
    EXPECT_EQ(f.at(j), want) << "with " << value;
  }
}

TEST(FluxDesign, WaitTimeFactorCappedAtMaxWait) {
  const DesignFixture f("wait_time=1000,max_wait=10");  // 600 s
  Job j = job();
  j.submit_time = 1000;
  EXPECT_EQ(f.at(j, 1000), 0u);
  EXPECT_EQ(f.at(j, 1300), 500u);
  EXPECT_EQ(f.at(j, 1600), 1000u);
  std::vector<Term> t;
  EXPECT_EQ(f.at(j, 99999, &t), 1000u);  // no further increase
  EXPECT_EQ(t[0].name, "wait_time");
  EXPECT_TRUE(t[0].bound);
}

TEST(FluxDesign, FairShareFactor) {
  DesignFixture f("fairshare=1000");
  const std::vector<std::pair<double, uint32_t>> cases = {{0.0, 0}, {0.5, 500}, {1.0, 1000}};
  for (const auto& [fairshare, want] : cases) {
    f.m.assocs[0].fairshare = fairshare;
    EXPECT_EQ(f.at(job()), want) << "fair-share " << fairshare;
  }
}

TEST(FluxDesign, QosFactorIsPriorityOverLargest) {
  const DesignFixture f("qos=1000");
  expect_priced(f, &Job::qos, {{0, 0}, {1, 500}, {2, 1000}, {kUnknown, 0}});
}

TEST(FluxDesign, QueueFactorIsPriorityOverLargest) {
  const DesignFixture f("queue=1000");
  for (int q = 0; q < 3; ++q) EXPECT_EQ(f.at(job(16, q)), static_cast<uint32_t>(500 * q));
}

TEST(FluxDesign, JobSizeFactorFavorLarge) {
  const DesignFixture f("job_size=1000");
  expect_priced(f, &Job::nodes, {{0, 0}, {5, 500}, {10, 1000}, {20, 1000}});
}

TEST(FluxDesign, JobSizeFactorFavorSmall) {
  const DesignFixture f("job_size=1000,job_size_favor=small");
  expect_priced(f, &Job::nodes, {{10, 0}, {5, 500}, {0, 1000}});
}

TEST(FluxDesign, UserFactorCanOnlyLower) {
  const DesignFixture f("user=1000");
  expect_priced(f, &Job::user_factor, {{0.0, 0}, {0.5, 500}, {1.0, 1000}});
  Job j = job();
  j.user_factor = 2.0;  // cannot raise
  std::vector<Term> t;
  EXPECT_EQ(f.at(j, 0, &t), 1000u);
  EXPECT_EQ(t.back().name, "user");
  EXPECT_TRUE(t.back().bound);
}

TEST(FluxDesign, SixTermsInTheSeedsOrderAndHoldStillWins) {
  const DesignFixture f("wait_time=1,qos=1,job_size=1,user=1");
  std::vector<Term> t;
  f.at(job(), 0, &t);
  const char* names[] = {"wait_time", "fairshare", "qos", "queue", "job_size", "user"};
  ASSERT_EQ(t.size(), 6u);
  for (size_t i = 0; i < 6; ++i) EXPECT_EQ(t[i].name, names[i]);
  EXPECT_EQ(f.at(job(0)), 0u);
  EXPECT_EQ(f.at(job(31)), 4294967295u);
}

}  // namespace
}  // namespace mfprio::flux
