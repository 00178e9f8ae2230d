// test_simulate_e2e.cpp - `mfprio-host simulate` end to end: the built
// binary (MFPRIO_HOST_BIN), the real priority_basic.so and
// priority_multifactor.so (MFPRIO_PLUGIN_BUILDDIR) and the real traces of
// tests/data/traces (MFPRIO_TRACES_DIR; a missing plugin or trace fails).
//
// The scheduler's invariants are checked from `--trace-decisions FILE`
// (host-shim/README.md, "Policy lab"): the checker below keeps its own
// machine (running jobs, processors in use) from the submit/start/end lines
// and recomputes every EASY reservation from the running jobs' estimated
// ends, so a backfill that would delay the head job is caught independently
// of the simulator's own arithmetic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>

#include "run_process.hpp"
#include "test_util.hpp"

using mfprio::test::ProcessResult;
using mfprio::test::run_process;
using mfprio::test::TempDir;

namespace {

using mfprio::test::has;

std::string slurp(const std::string& path) {
  std::ifstream f(path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

// One policy's decisions, replayed on a machine of `procs` processors.
struct DecisionCheck {
  int64_t procs = 0;
  struct Job {
    int64_t submit = -1, cpus = 0, start = -1, end = -1, est_end = 0;
  };
  std::map<uint64_t, Job> jobs;
  std::map<uint64_t, std::pair<int64_t, int64_t>> running;  // id -> (cpus, estimated end)
  int64_t used = 0, peak = 0;
  std::vector<uint64_t> start_order;
  // the current pass's reservation
  int64_t res_t = -1, shadow = 0, extra = 0;
  uint64_t res_id = 0;
  std::map<uint64_t, unsigned> passed_over;  // backfills while the job held the reservation
  uint64_t backfills = 0, reservations = 0;
  std::vector<std::string> errors;

  void fail(const std::string& line, const std::string& why) {
    if (errors.size() < 10) errors.push_back(why + " at '" + line + "'");
  }

  void line(const std::string& l) {
    std::istringstream in(l);
    std::string kind;
    in >> kind;
    long long t = 0;
    unsigned long long id = 0;
    long long cpus = 0;
    if (kind == "submit") {
      in >> t >> id >> cpus;
      Job& j = jobs[id];
      if (j.submit >= 0) fail(l, "submitted twice");
      j.submit = t;
      j.cpus = cpus;
    } else if (kind == "start") {
      long long submit = 0, est_end = 0;
      unsigned bypass = 0;
      std::string how;
      in >> t >> id >> cpus >> submit >> est_end >> how >> bypass;
      // Every backfill while this job held the reservation passed it over.
      if (bypass < passed_over[id]) fail(l, "bypass_count " + std::to_string(bypass) + " < " + std::to_string(passed_over[id]));
      Job& j = jobs[id];
      if (j.submit < 0) fail(l, "started before its submit line");
      if (j.start >= 0) fail(l, "started twice");
      if (t < j.submit) fail(l, "started before its submit time");
      j.start = t;
      j.est_end = est_end;
      used += cpus;
      peak = std::max(peak, used);
      if (used > procs) fail(l, "more processors in use than the machine has");
      running[id] = {cpus, est_end};
      start_order.push_back(id);
      if (how == "backfill") {
        ++backfills;
        if (res_t != t) fail(l, "backfill without a reservation in this pass");
        ++passed_over[res_id];
        if (est_end > shadow) {  // runs past the shadow time: only on spare processors
          if (cpus > extra) fail(l, "backfill delays the reserved head job");
          extra -= cpus;
        }
      }
    } else if (kind == "end") {
      in >> t >> id >> cpus;
      Job& j = jobs[id];
      if (j.start < 0) fail(l, "ended before it started");
      if (j.end >= 0) fail(l, "ended twice");
      j.end = t;
      used -= cpus;
      running.erase(id);
    } else if (kind == "reserve") {
      long long shadow_l = 0, extra_l = 0;
      in >> t >> id >> cpus >> shadow_l >> extra_l;
      ++reservations;
      // Recompute: the earliest time the running jobs' estimated ends free `cpus`.
      std::vector<std::pair<int64_t, int64_t>> ends;
      for (const auto& [rid, r] : running) ends.push_back({r.second, r.first});
      std::sort(ends.begin(), ends.end());
      int64_t avail = procs - used, when = -1, spare = 0;
      if (cpus <= avail) fail(l, "reservation for a job that fits now");
      // The shadow time: the first estimated end by which enough processors
      // are free; spare: what is free then (every job ending by then) beyond the head's.
      for (const auto& [e, c] : ends) {
        if (when < 0) {
          avail += c;
          if (avail >= cpus) when = e;
        } else if (e == when) {
          avail += c;
        }
      }
      if (when >= 0) {
        spare = avail - cpus;
        when = std::max<int64_t>(when, t);
      }
      if (when != shadow_l || spare != extra_l)
        fail(l, "reservation differs from the recomputed one (shadow " + std::to_string(when) + ", extra " +
                    std::to_string(spare) + ")");
      res_t = t;
      res_id = id;
      shadow = when;
      extra = spare;
    }
  }

  void finish() {
    for (const auto& [id, j] : jobs) {
      if (j.start < 0 || j.end < 0) {
        fail("job " + std::to_string(id), "never started or never ended");
        break;
      }
    }
    if (used != 0) fail("end of trace", "processors still in use");
  }
};

// Parses a decisions file into one check per policy.
std::vector<DecisionCheck> check_decisions(const std::string& path, int64_t procs) {
  std::vector<DecisionCheck> out;
  std::ifstream f(path);
  std::string l;
  while (std::getline(f, l)) {
    if (l.rfind("policy ", 0) == 0) {
      if (!out.empty()) out.back().finish();
      out.emplace_back();
      out.back().procs = procs;
      continue;
    }
    if (!out.empty()) out.back().line(l);
  }
  if (!out.empty()) out.back().finish();
  return out;
}

// An independent EASY-backfill scheduler (Lifka 1995; Mu'alem & Feitelson
// 2001), written from the definition, not from simulate.cpp: jobs in
// arrival order (submit time, then job id); at every arrival or end, start
// jobs from the head while they fit; when the head does not, reserve it at
// the shadow time (the earliest estimated end, start + requested time, by
// which the free processors plus those of every job estimated to end by
// then cover it); a later job starts now when it fits and either ends (by
// its estimate) by the shadow time or uses only processors the head leaves
// spare then.  A job runs min(run time, requested time); its estimate is
// the requested time, else the run time.  Returns each job's wait by id.
struct RefJob {
  uint64_t id = 0;
  int64_t submit = 0, run = 0, est = 0, cpus = 0;
};

std::map<uint64_t, int64_t> easy_reference(std::vector<RefJob> jobs, int64_t procs, bool backfill) {
  // (submit, id) is a total order: a plain sort is already stable here.
  std::sort(jobs.begin(), jobs.end(), [](const RefJob& a, const RefJob& b) {
    return a.submit != b.submit ? a.submit < b.submit : a.id < b.id;
  });
  struct Run {
    size_t job;
    int64_t start;
  };
  std::vector<size_t> queue;
  std::vector<Run> running;
  std::map<uint64_t, int64_t> wait;
  int64_t free = procs;
  size_t next = 0;
  while (next < jobs.size() || !running.empty()) {
    int64_t t = INT64_MAX;
    if (next < jobs.size()) t = jobs[next].submit;
    for (const Run& r : running) t = std::min(t, r.start + jobs[r.job].run);
    for (size_t k = running.size(); k-- > 0;)
      if (running[k].start + jobs[running[k].job].run == t) {
        free += jobs[running[k].job].cpus;
        running.erase(running.begin() + static_cast<long>(k));
      }
    for (; next < jobs.size() && jobs[next].submit == t; ++next) queue.push_back(next);
    auto start = [&](size_t q) {
      const size_t j = queue[q];
      free -= jobs[j].cpus;
      running.push_back({j, t});
      wait[jobs[j].id] = t - jobs[j].submit;
      queue.erase(queue.begin() + static_cast<long>(q));
    };
    while (!queue.empty() && jobs[queue[0]].cpus <= free) start(0);
    if (queue.empty() || !backfill) continue;
    // The head's reservation.
    const int64_t need = jobs[queue[0]].cpus;
    std::vector<int64_t> ends;
    for (const Run& r : running) ends.push_back(r.start + jobs[r.job].est);
    std::sort(ends.begin(), ends.end());
    int64_t shadow = INT64_MAX;
    for (int64_t e : ends) {
      int64_t at = free;
      for (const Run& r : running)
        if (r.start + jobs[r.job].est <= e) at += jobs[r.job].cpus;
      if (at >= need) {
        shadow = e;
        break;
      }
    }
    int64_t spare = free - need;
    for (const Run& r : running)
      if (r.start + jobs[r.job].est <= shadow) spare += jobs[r.job].cpus;
    for (size_t q = 1; q < queue.size();) {
      const RefJob& c = jobs[queue[q]];
      const bool by_shadow = t + c.est <= shadow;
      if (c.cpus <= free && (by_shadow || c.cpus <= spare)) {
        if (!by_shadow) spare -= c.cpus;
        start(q);
      } else {
        ++q;
      }
    }
  }
  return wait;
}

// The jobs of an SWF text as simulate takes them: processors field 5, else
// field 8; records with an unknown run time, size or user, or bigger than
// the machine, left out.
std::vector<RefJob> ref_jobs(const std::string& swf_text, int64_t procs) {
  std::vector<RefJob> out;
  std::istringstream in(swf_text);
  std::string l;
  while (std::getline(in, l)) {
    if (l.empty() || l[0] == ';') continue;
    std::istringstream f(l);
    std::vector<double> v;
    for (double x; f >> x;) v.push_back(x);
    if (v.size() < 18) continue;
    const int64_t run = static_cast<int64_t>(v[3]), req = static_cast<int64_t>(v[8]);
    const int64_t cpus = v[4] > 0 ? static_cast<int64_t>(v[4]) : static_cast<int64_t>(v[7]);
    if (run < 0 || cpus <= 0 || v[11] < 0 || cpus > procs) continue;
    RefJob j;
    j.id = static_cast<uint64_t>(v[0]);
    j.submit = static_cast<int64_t>(v[1]);
    j.run = req > 0 ? std::min(run, req) : run;
    j.est = req > 0 ? req : run;
    j.cpus = cpus;
    out.push_back(j);
  }
  return out;
}

// Random edge cases: equal submit times, jobs the size of the machine,
// requested times shorter than the run (killed), unknown requested times,
// zero-second jobs, bursts and idle gaps.  std::mt19937's raw outputs only
// (its distributions differ between standard libraries).
std::string random_swf(uint32_t seed, int64_t procs, int jobs) {
  std::mt19937 rng(seed);
  auto below = [&](uint32_t n) { return static_cast<int64_t>(rng() % n); };
  std::ostringstream o;
  o << "; MaxProcs: " << procs << "\n";
  int64_t t = 0;
  for (int i = 1; i <= jobs; ++i) {
    // Times in steps of `q` (odd seeds: 100 s) so that estimated ends and
    // shadow times often coincide.
    const int64_t q = seed % 2 ? 100 : 1;
    const int64_t gap = below(4) == 0 ? 0 : below(10) == 0 ? 5000 + below(20000) : below(300);
    t += gap / q * q;
    const int64_t cpus = below(6) == 0 ? procs : 1 + below(static_cast<uint32_t>(procs));
    const int64_t run = below(20) == 0 ? 0 : (1 + below(below(3) == 0 ? 20000 : 2000)) / q * q;
    const int64_t kind = below(5);
    const int64_t req = kind == 0 ? -1 : kind == 1 ? std::max<int64_t>(1, run / 2) : run + below(3000) / q * q;
    o << i << " " << t << " -1 " << run << " " << cpus << " -1 -1 " << cpus << " " << req << " -1 1 " << 1 + below(5)
      << " 1 -1 -1 -1 -1 -1\n";
  }
  return o.str();
}

// simulate's starts under basic (every job in submit order) against the
// reference, job by job.
void expect_same_waits(const std::vector<DecisionCheck>& checks, const std::map<uint64_t, int64_t>& want,
                       const std::string& what) {
  ASSERT_EQ(checks.size(), 1u) << what;
  const DecisionCheck& c = checks[0];
  for (const std::string& e : c.errors) ADD_FAILURE() << what << ": " << e;
  ASSERT_EQ(c.jobs.size(), want.size()) << what;
  size_t differ = 0;
  for (const auto& [id, w] : want) {
    const auto it = c.jobs.find(id);
    ASSERT_NE(it, c.jobs.end()) << what << ": job " << id;
    const int64_t got = it->second.start - it->second.submit;
    if (got != w && differ++ < 5)
      ADD_FAILURE() << what << ": job " << id << " waits " << got << " s in simulate, " << w << " s by the reference";
  }
  EXPECT_EQ(differ, 0u) << what;
}

class SimulateE2E : public testing::Test {
 protected:
  void SetUp() override {
    plugin_dir = mfprio::test::env_or_die("MFPRIO_PLUGIN_BUILDDIR");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_multifactor.so");
    MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_basic.so");
  }
  ProcessResult host(std::vector<std::string> args) { return mfprio::test::run_host(std::move(args)); }
  std::string conf(const std::string& name, const std::string& body) {
    return dir.write(name + ".conf", "PluginDir=" + plugin_dir + "\n" + body);
  }
  std::string basic() { return conf("basic", "PriorityType=priority/basic\n"); }
  // Multifactor with usage that never decays (the replay --no-decay rule:
  // a half-life of ~31,700 years removes < 1e-10 over a trace), so the
  // charged total must equal the trace's processor-seconds.
  std::string multifactor_nodecay() {
    return conf("mf_nodecay",
                "PriorityType=priority/multifactor\nPriorityWeightFairshare=100000\nPriorityWeightAge=1000\n"
                "PriorityDecayHalfLife=999999999999-0\n");
  }

  TempDir dir;
  std::string plugin_dir;
};

TEST_F(SimulateE2E, Hpc2nEasyBackfillKeepsEveryInvariantUnderMultifactor) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::string dec = dir.path() + "/decisions.txt";
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", multifactor_nodecay(), "--trace-decisions", dec});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "simulate: hpc2n.swf.gz: 3170 records, 3145 jobs simulated, 25 skipped; 240 processors"))
      << r.out;
  std::vector<DecisionCheck> checks = check_decisions(dec, 240);
  ASSERT_EQ(checks.size(), 1u);
  const DecisionCheck& c = checks[0];
  EXPECT_EQ(c.jobs.size(), 3145u);
  EXPECT_EQ(c.start_order.size(), 3145u);
  EXPECT_GT(c.backfills, 0u);     // the trace does exercise backfill
  EXPECT_GT(c.reservations, 0u);
  EXPECT_LE(c.peak, 240);
  for (const std::string& e : c.errors) ADD_FAILURE() << e;
}

TEST_F(SimulateE2E, Hpc2nBasicWithoutBackfillStartsJobsInSubmitOrder) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::string dec = dir.path() + "/decisions.txt";
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--backfill", "none", "--trace-decisions", dec});
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<DecisionCheck> checks = check_decisions(dec, 240);
  ASSERT_EQ(checks.size(), 1u);
  const DecisionCheck& c = checks[0];
  for (const std::string& e : c.errors) ADD_FAILURE() << e;
  EXPECT_EQ(c.backfills, 0u);
  EXPECT_EQ(c.reservations, 0u);
  ASSERT_EQ(c.start_order.size(), 3145u);
  // FIFO: starts in (submit time, job id) order.
  for (size_t k = 1; k < c.start_order.size(); ++k) {
    const auto& a = c.jobs.at(c.start_order[k - 1]);
    const auto& b = c.jobs.at(c.start_order[k]);
    const bool in_order = a.submit < b.submit || (a.submit == b.submit && c.start_order[k - 1] < c.start_order[k]);
    ASSERT_TRUE(in_order) << "job " << c.start_order[k] << " started before job " << c.start_order[k - 1];
  }
}

TEST_F(SimulateE2E, Hpc2nTwoPoliciesGiveByteIdenticalJsonAndChargeEveryProcessorSecond) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::vector<std::string> args = {"simulate", "--swf", swf, "--conf", multifactor_nodecay(), "--conf", basic(),
                                         "--json"};
  ProcessResult a = host(args);
  ASSERT_EQ(a.status, 0) << a.err;
  ProcessResult b = host(args);
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_EQ(a.out, b.out);
  EXPECT_TRUE(has(a.err, "simulate: 2 policies, 3145 jobs, elapsed ")) << a.err;
  // The multifactor policy charged exactly the jobs' processors x run time.
  const size_t cpu_at = a.out.find("\"cpu_seconds\": ", a.out.find("\"overall\""));
  const size_t usage_at = a.out.find("\"charged_usage\": ");
  ASSERT_NE(cpu_at, std::string::npos) << a.out;
  ASSERT_NE(usage_at, std::string::npos) << a.out;
  const double cpu = std::strtod(a.out.c_str() + cpu_at + 15, nullptr);
  const double usage = std::strtod(a.out.c_str() + usage_at + 17, nullptr);
  ASSERT_GT(cpu, 1e8);
  EXPECT_LT(std::fabs(usage - cpu) / cpu, 1e-9) << "charged " << usage << " vs " << cpu;
  // basic keeps no usage: its charged_usage is null.
  EXPECT_TRUE(has(a.out, "\"charged_usage\": null")) << a.out;
  EXPECT_TRUE(has(a.out, "\"target_rule\": \"norm_shares\"")) << a.out;
  EXPECT_TRUE(has(a.out, "\"target_rule\": \"equal\"")) << a.out;
}

TEST_F(SimulateE2E, NasaTraceUnderBasicKeepsEveryInvariant) {
  MFPRIO_REQUIRE_TRACE(swf, "NASA-iPSC-1993-3.1-cln.swf.gz");
  const std::string dec = dir.path() + "/decisions.txt";
  const std::string svg = dir.path() + "/nasa.svg";
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--trace-decisions", dec, "--csv", "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out.rfind("policy,conf,plugin_type,scope,name,jobs,", 0), 0u) << r.out;
  EXPECT_TRUE(has(r.out, "basic,")) << r.out;
  std::vector<DecisionCheck> checks = check_decisions(dec, 128);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].jobs.size(), 18239u);
  for (const std::string& e : checks[0].errors) ADD_FAILURE() << e;
  const std::string text = slurp(svg);
  EXPECT_EQ(text.rfind("<?xml", 0), 0u);
  EXPECT_TRUE(has(text, "<polyline")) << "no lines in the plot";
  EXPECT_TRUE(has(text, "</svg>"));
}

// The JSON of two policies on a real trace, byte for byte against the file
// kept in tests/data/sim, gzipped (made before the simulator became a class,
// issue 24; since then only new members were added, "partitions" and
// "timeline", the old ones checked equal with jq): the event loop, pricing, backfill, recording and the store's
// durability may be reorganised, never change a start or a usage.  The conf paths are printed as given: only their
// directory is cut here.
std::string golden_json(const std::string& out, const std::string& dir) {
  std::string s = out;
  const std::string prefix = "\"conf\": \"" + dir + "/";
  for (size_t at; (at = s.find(prefix)) != std::string::npos;) s.replace(at, prefix.size(), "\"conf\": \"");
  return s;
}

TEST_F(SimulateE2E, JsonOfTwoPoliciesIsByteIdenticalToTheKeptReport) {
  struct Case {
    const char* trace;
    const char* golden;
    std::vector<std::string> extra;
  };
  const std::vector<Case> cases = {{"hpc2n.swf.gz", "hpc2n_mf7_basic.json.gz", {}},
                                   {"NASA-iPSC-1993-3.1-cln.swf.gz", "nasa_mf7_basic_nobackfill.json.gz",
                                    {"--backfill", "none"}}};
  const std::string mf7 = conf("mf7", "PriorityType=priority/multifactor\nPriorityWeightFairshare=100000\n"
                                      "PriorityWeightAge=1000\nPriorityDecayHalfLife=7-0\n");
  const std::string fifo = basic();
  for (const Case& c : cases) {
    MFPRIO_REQUIRE_TRACE(swf, c.trace);
    std::vector<std::string> args = {"simulate", "--swf", swf, "--conf", mf7, "--conf", fifo, "--json"};
    args.insert(args.end(), c.extra.begin(), c.extra.end());
    ProcessResult r = host(args);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string want_path = mfprio::test::env_or_die("MFPRIO_TEST_DATA") + "/sim/" + c.golden;
    ASSERT_TRUE(std::filesystem::exists(want_path)) << want_path;
    const std::string got = golden_json(r.out, dir.path());
    const ProcessResult unzipped = run_process({"/bin/sh", "-c", "exec gzip -dc \"$0\"", want_path});
    ASSERT_EQ(unzipped.status, 0) << unzipped.err;
    const std::string& want = unzipped.out;
    EXPECT_EQ(got.size(), want.size()) << c.trace;
    EXPECT_TRUE(got == want) << c.trace << ": the report differs from " << want_path;
  }
}

double json_number(const std::string& doc, size_t policy, const std::string& key) {
  size_t at = 0;
  for (size_t k = 0; k <= policy; ++k) at = doc.find("\"overall\"", at + 1);
  at = doc.find("\"" + key + "\": ", at);
  if (at == std::string::npos) return -1;
  return std::strtod(doc.c_str() + at + key.size() + 4, nullptr);
}

// Three 4-processor jobs on 4 processors: u1's two (1000 s, 50 s) at 0 and
// 1 s, u2's (50 s) at 2 s.  FIFO (basic) runs them in submit order; fair
// share (multifactor) runs u2's before u1's second, u1 having been charged
// by the passes while its first job ran.  The measures by hand (the man
// page's formulas): FIFO waits 0, 999, 1048; multifactor 0, 1049, 998.
TEST_F(SimulateE2E, MeasuresOfASmallTraceMatchTheirFormulas) {
  const std::string swf = dir.write("three.swf",
                                    "; MaxProcs: 4\n"
                                    "1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    "2 1 -1 50 4 -1 -1 4 50 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    "3 2 -1 50 4 -1 -1 4 50 -1 1 2 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--conf", multifactor_nodecay(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string& j = r.out;
  // basic = FIFO
  EXPECT_NEAR(json_number(j, 0, "wait_mean"), (0 + 999 + 1048) / 3.0, 1e-6);
  EXPECT_DOUBLE_EQ(json_number(j, 0, "wait_max"), 1048);
  EXPECT_DOUBLE_EQ(json_number(j, 0, "wait_p99"), 1048);
  EXPECT_DOUBLE_EQ(json_number(j, 0, "wait_p50"), 999);
  EXPECT_DOUBLE_EQ(json_number(j, 0, "later_than_fifo"), 0);
  // bounded slowdowns 1, (999 + 50) / 50, (1048 + 50) / 50
  EXPECT_NEAR(json_number(j, 0, "bounded_slowdown_p50"), 20.98, 1e-9);
  EXPECT_NEAR(json_number(j, 0, "bounded_slowdown_p95"), 21.96, 1e-9);
  // users' mean waits: u1 (0 + 999) / 2, u2 1048; Jain (sum x)^2 / (n sum x^2)
  const double a = 499.5, b = 1048;
  EXPECT_NEAR(json_number(j, 0, "jain_user_wait"), (a + b) * (a + b) / (2 * (a * a + b * b)), 1e-9);
  EXPECT_DOUBLE_EQ(json_number(j, 0, "worst_user_wait_mean"), 1048);
  // multifactor: u1's second job starts 50 s later than under FIFO
  EXPECT_DOUBLE_EQ(json_number(j, 1, "wait_max"), 1049);
  EXPECT_NEAR(json_number(j, 1, "later_than_fifo"), 1 / 3.0, 1e-9);
  EXPECT_DOUBLE_EQ(json_number(j, 1, "worst_user_wait_mean"), 998);
  EXPECT_TRUE(has(j, "\"worst_user\": \"u2\"")) << j;
  // classes: all three are 4-processor jobs; run-time classes <=10m and 10m-1h
  EXPECT_TRUE(has(j, "\"name\": \"2-4 cpus\",")) << j;
  EXPECT_TRUE(has(j, "\"name\": \"<=10m\",")) << j;
  EXPECT_TRUE(has(j, "\"name\": \"10m-1h\",")) << j;
}

TEST_F(SimulateE2E, SmallTraceTextReportAndUsageErrors) {
  // Two 4-processor jobs on a 4-processor machine: the second waits 100 s.
  const std::string swf = dir.write("small.swf",
                                    "; MaxProcs: 4\n"
                                    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    "2 0 -1 50 4 -1 -1 4 100 -1 1 2 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic()});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "2 jobs simulated, 0 skipped; 4 processors; backfill easy")) << r.out;
  EXPECT_TRUE(has(r.out, "wait mean")) << r.out;
  EXPECT_TRUE(has(r.out, "50s")) << r.out;  // mean of 0 and 100 s
  EXPECT_TRUE(has(r.out, "makespan")) << r.out;
  // --procs below a job's size: that job is skipped.
  r = host({"simulate", "--swf", swf, "--conf", basic(), "--procs", "2"});
  ASSERT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.err, "no job to simulate")) << r.err;
  r = host({"simulate", "--swf", swf});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "simulate needs at least one --conf FILE")) << r.err;
  r = host({"simulate", "--swf", swf, "--conf", basic(), "--json", "--csv"});
  EXPECT_EQ(r.status, 2);
  r = host({"simulate", "--swf", swf, "--conf", basic(), "--backfill", "conservative"});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "--backfill: 'conservative' is not easy or none")) << r.err;
}

TEST_F(SimulateE2E, AJobOfTenToTheNineSecondsSkipsIdlePassesAndChargesAllOfIt) {
  // One processor for 10^9 s: a pass every calc period (300 s) was 3.3
  // million passes and a share sample each (~13 GB).  Nothing is pending
  // while it runs: the passes are spread (about 1000), the usage is whole.
  const std::string swf = dir.write("long.swf",
                                    "; MaxProcs: 1\n"
                                    "1 0 -1 1000000000 1 -1 -1 1 1000000000 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    "2 1000000010 -1 10 1 -1 -1 1 20 -1 1 2 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", multifactor_nodecay(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const size_t passes_at = r.out.find("\"decay_passes\": ");
  const size_t usage_at = r.out.find("\"charged_usage\": ");
  ASSERT_NE(passes_at, std::string::npos) << r.out.substr(0, 2000);
  ASSERT_NE(usage_at, std::string::npos) << r.out.substr(0, 2000);
  const double passes = std::strtod(r.out.c_str() + passes_at + 16, nullptr);
  const double usage = std::strtod(r.out.c_str() + usage_at + 17, nullptr);
  EXPECT_GT(passes, 100);
  EXPECT_LT(passes, 1100);
  // The "no decay" half-life (~31,700 years) still takes ~8e-9 of 10^9 s.
  EXPECT_LT(std::fabs(usage - 1000000010.0) / 1e9, 2e-8) << usage;
}

TEST_F(SimulateE2E, AccountsFileGivesTheTargetSharesFromNormShares) {
  // u1 and u2 name no group: their default accounts in the import document
  // are "big" (3 shares) and "small" (1 share).
  const std::string swf = dir.write("two.swf",
                                    "; MaxProcs: 4\n"
                                    "1 0 -1 100 4 -1 -1 4 200 -1 1 1 -1 -1 -1 -1 -1 -1\n"
                                    "2 0 -1 100 4 -1 -1 4 200 -1 1 2 -1 -1 -1 -1 -1 -1\n");
  const std::string accounts = dir.write("acct.json", R"({"accounts": [
    {"name": "big", "parent": "root", "shares": 3}, {"name": "small", "parent": "root", "shares": 1}],
   "users": [{"name": "u1", "account": "big", "shares": 1, "default": true},
             {"name": "u2", "account": "small", "shares": 1, "default": true}]})");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", multifactor_nodecay(), "--conf", basic(), "--accounts",
                          accounts, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"name\": \"big\",")) << r.out;
  EXPECT_TRUE(has(r.out, "\"target_share\": 0.75")) << r.out;   // multifactor: norm_shares
  EXPECT_TRUE(has(r.out, "\"target_share\": 0.25")) << r.out;
  EXPECT_TRUE(has(r.out, "\"target_share\": 0.5")) << r.out;    // basic: equal shares
  EXPECT_TRUE(has(r.out, "\"delivered_share\": 0.5")) << r.out;
}

TEST_F(SimulateE2E, FifoEasyBackfillGivesEveryJobTheReferenceStartOnHpc2n) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  const std::string dec = dir.path() + "/decisions.txt";
  for (const char* mode : {"easy", "none"}) {
    ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--backfill", mode, "--trace-decisions", dec});
    ASSERT_EQ(r.status, 0) << r.err;
    const ProcessResult text = run_process({"/bin/sh", "-c", "exec gzip -dc \"$0\"", swf});
    ASSERT_EQ(text.status, 0) << text.err;
    const std::map<uint64_t, int64_t> want = easy_reference(ref_jobs(text.out, 240), 240, mode[0] == 'e');
    ASSERT_EQ(want.size(), 3145u);
    expect_same_waits(check_decisions(dec, 240), want, std::string("hpc2n, backfill ") + mode);
  }
}

TEST_F(SimulateE2E, FifoEasyBackfillGivesEveryJobTheReferenceStartOnRandomTraces) {
  const std::string dec = dir.path() + "/decisions.txt";
  const std::string conf_basic = basic();
  for (uint32_t seed = 1; seed <= 40; ++seed) {
    const int64_t procs = 1 + static_cast<int64_t>(seed % 7) * 9;
    const std::string text = random_swf(seed, procs, 150);
    const std::string swf = dir.write("random.swf", text);
    const bool easy = seed % 4 != 0;
    ProcessResult r = host({"simulate", "--swf", swf, "--conf", conf_basic, "--backfill", easy ? "easy" : "none",
                            "--trace-decisions", dec});
    ASSERT_EQ(r.status, 0) << "seed " << seed << ": " << r.err;
    expect_same_waits(check_decisions(dec, procs), easy_reference(ref_jobs(text, procs), procs, easy),
                      "seed " + std::to_string(seed));
    if (HasFailure()) {
      ADD_FAILURE() << "the trace of seed " << seed << ":\n" << text;
      return;
    }
  }
}

// The plot as an image: rendered by a real SVG renderer (librsvg's
// rsvg-convert, Debian package librsvg2-bin; installed here when missing and
// run as root), the PNG must be valid, 1000 px wide and not blank.
TEST_F(SimulateE2E, PlotRendersToAValidNonEmptyPng) {
  MFPRIO_REQUIRE_TRACE(swf, "hpc2n.swf.gz");
  if (std::system("command -v rsvg-convert >/dev/null 2>&1") != 0 && geteuid() == 0)
    (void)std::system("apt-get install -y --no-install-recommends librsvg2-bin >/dev/null 2>&1");
  ASSERT_EQ(std::system("command -v rsvg-convert >/dev/null 2>&1"), 0)
      << "rsvg-convert (Debian package librsvg2-bin) is needed to look at the plot";
  const std::string svg = dir.path() + "/hpc2n.svg", png = dir.path() + "/hpc2n.png";
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", multifactor_nodecay(), "--conf", basic(), "--plot", svg});
  ASSERT_EQ(r.status, 0) << r.err;
  ProcessResult p = run_process({"/bin/sh", "-c", "exec rsvg-convert -f png -o \"$0\" \"$1\"", png, svg});
  ASSERT_EQ(p.status, 0) << p.err;
  const std::string img = slurp(png);
  ASSERT_GT(img.size(), 24u);
  EXPECT_EQ(img.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
  EXPECT_EQ(img.substr(12, 4), "IHDR");
  const auto be32 = [&](size_t at) {
    return (uint32_t(uint8_t(img[at])) << 24) | (uint32_t(uint8_t(img[at + 1])) << 16) |
           (uint32_t(uint8_t(img[at + 2])) << 8) | uint32_t(uint8_t(img[at + 3]));
  };
  EXPECT_EQ(be32(16), 1000u);  // width
  EXPECT_GT(be32(20), 600u);   // height: distributions, per-user panel, a row per policy
  EXPECT_GT(img.size(), 30000u) << "a nearly blank image";
}

// A site with two partitions and its own accounts: the trace's names (p1,
// g1, u1...) stop the run at the first job; --map puts them onto the site's,
// and the site's accounts no job uses are named in a warning.
TEST_F(SimulateE2E, MapPutsTheSampleTraceOntoAMultiPartitionSite) {
  const std::string src = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../..";
  const std::string swf = src + "/samples/trace.swf", accounts = src + "/samples/accounts.json";
  ASSERT_TRUE(std::filesystem::exists(swf)) << swf;
  const std::string site = conf("site", "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n"
                                        "PriorityWeightPartition=1000\nNodeName=n[01-04] CPUs=16\n"
                                        "PartitionName=batch Nodes=n[01-04] Default=YES PriorityJobFactor=1\n"
                                        "PartitionName=debug Nodes=n[01-02] PriorityJobFactor=10\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--procs", "64"});
  EXPECT_EQ(r.status, 1) << r.out;
  EXPECT_TRUE(has(r.err, "unknown partition 'p1'")) << r.err;
  const std::string map = dir.write("site.map",
                                    "# the sample trace on the sample site\n"
                                    "partition p1 batch\n"
                                    "user u1 alice\nuser u2 bob   # a comment\nuser u3 carol\n"
                                    "account g1 theory\ngroup g2 experiment\n");
  r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--procs", "64", "--map", map, "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.out, "\"name\": \"alice\",")) << r.out;
  EXPECT_TRUE(has(r.out, "\"name\": \"theory\",")) << r.out;
  EXPECT_FALSE(has(r.out, "\"name\": \"u1\",")) << r.out;
  EXPECT_TRUE(has(r.err, "account")) << r.err;
  EXPECT_TRUE(has(r.err, "no job of the trace uses")) << r.err;
  EXPECT_TRUE(has(r.err, "chemistry")) << r.err;
  // The site's partitions no job uses, one line per conf and for the document.
  EXPECT_TRUE(has(r.err, "simulate: warning: " + site + ": 1 partition no job of the trace uses (see --map): debug\n"))
      << r.err;
  EXPECT_TRUE(has(r.err, "simulate: warning: " + accounts + ": 2 partitions no job of the trace uses (see --map): gpu, debug\n"))
      << r.err;
  // A rule for a partition (class) no job of the trace names.
  const std::string map2 = dir.write("site2.map", "class p1 batch\nclass p9 debug\nuser * alice\naccount * theory\n");
  r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--procs", "64", "--map", map2});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "simulate: warning: " + map2 + ": 1 rule no job of the trace matches: partition p9\n")) << r.err;
  // Unmapped, the jobs name p1, which neither the conf nor the document defines.
  r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--procs", "64"});
  EXPECT_TRUE(has(r.err, "simulate: warning: " + site + ": 1 partition the jobs name that neither it nor " + accounts +
                             " defines (see --map): p1\n"))
      << r.err;
  // Bad map lines: FILE:LINE, exit 1, nothing simulated.
  for (const auto& [text, why] : std::vector<std::pair<std::string, std::string>>{
           {"user u1\n", "site.bad:1: expected KIND TRACE SITE, got 2 words"},
           {"\nnode n1 n2\n", "site.bad:2: 'node' is not user, account, group, partition, queue or class"},
           {"user u1 a\nuser u1 b\n", "site.bad:2: user 'u1' is given twice"},
           {"account * auto\n", "site.bad:1: auto spreads users and partitions only"},
           {"partition * auto\nqueue * batch\n", "site.bad:2: queue * is given twice"}}) {
    const std::string bad = dir.write("site.bad", text);
    r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--map", bad});
    EXPECT_EQ(r.status, 1) << text;
    EXPECT_TRUE(has(r.err, why)) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
  r = host({"simulate", "--swf", swf, "--conf", site, "--map", map});
  EXPECT_EQ(r.status, 2);
  EXPECT_TRUE(has(r.err, "simulate --map needs --accounts")) << r.err;
}

// --map auto: each trace user is put in a leaf account of the site's
// document (theory 30 shares, experiment 10; labs has "parent" shares, so
// none) by a seeded draw: the same seed gives the same report.
TEST_F(SimulateE2E, MapAutoSpreadsUsersOverTheSitesLeafAccounts) {
  const std::string accounts = mfprio::test::env_or_die("MFPRIO_TEST_SRCDIR") + "/../../samples/accounts.json";
  std::string text = "; MaxProcs: 16\n";
  for (int i = 1; i <= 40; ++i)  // 40 users, one 100 s job each
    text += std::to_string(i) + " " + std::to_string(i * 10) + " -1 100 4 -1 -1 4 100 -1 1 " + std::to_string(i) +
            " 1 -1 -1 -1 -1 -1\n";
  const std::string swf = dir.write("users.swf", text);
  const std::string mf = conf("mf", "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\n");
  const std::vector<std::string> args = {"simulate", "--swf", swf, "--conf", mf, "--accounts", accounts,
                                         "--map", "auto", "--seed", "7", "--csv"};
  ProcessResult a = host(args);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(host(args).out, a.out);
  size_t theory = 0, experiment = 0, other = 0;
  std::istringstream in(a.out);
  for (std::string l; std::getline(in, l);) {
    if (l.find(",account,") == std::string::npos) continue;
    std::vector<std::string> f;
    std::istringstream cs(l);
    for (std::string x; std::getline(cs, x, ',');) f.push_back(x);
    const size_t jobs = std::stoul(f.at(5));
    (f.at(4) == "theory" ? theory : f.at(4) == "experiment" ? experiment : other) += jobs;
  }
  EXPECT_EQ(theory + experiment, 40u) << a.out;
  EXPECT_EQ(other, 0u) << a.out;
  EXPECT_GT(theory, experiment) << a.out;  // 3:1 in expectation
  EXPECT_GT(experiment, 0u) << a.out;
  EXPECT_TRUE(has(a.err, "chemistry, labs")) << a.err;  // the accounts no job uses
}

// --map auto spreads the jobs over the site's partitions too: batch (3
// nodes of 16 processors), debug (1 node) from the conf and gpu ("tres"
// cpu=32) from the accounts document, weights 48 : 16 : 32.  2000 jobs: each
// count within 4 standard deviations of its expectation (binomial), every
// partition used; the same seed gives the same report, another seed another
// draw.
TEST_F(SimulateE2E, MapAutoSpreadsJobsOverTheSitesPartitionsByProcessors) {
  std::string text = "; MaxProcs: 64\n";
  for (int i = 1; i <= 2000; ++i)
    text += std::to_string(i) + " " + std::to_string(i * 10) + " -1 5 1 -1 -1 1 5 -1 1 " + std::to_string(1 + i % 20) +
            " 1 -1 -1 -1 -1 -1\n";
  const std::string swf = dir.write("parts.swf", text);
  const std::string site = conf("site", "PriorityType=priority/basic\nNodeName=n[01-04] CPUs=16\n"
                                        "PartitionName=batch Nodes=n[01-03] Default=YES\nPartitionName=debug Nodes=n04\n");
  const std::string accounts = dir.write("acct.json", R"({"accounts": [
    {"name": "a", "parent": "root", "shares": 3}, {"name": "b", "parent": "root", "shares": 1}],
   "partitions": [{"name": "gpu", "tres": "cpu=32,gres/gpu=4"}]})");
  auto run = [&](const char* seed) {
    ProcessResult r = host({"simulate", "--swf", swf, "--conf", site, "--accounts", accounts, "--map", "auto", "--seed",
                            seed, "--csv"});
    EXPECT_EQ(r.status, 0) << r.err;
    std::map<std::string, double> jobs;  // partition -> jobs
    std::istringstream in(r.out);
    for (std::string l; std::getline(in, l);) {
      std::vector<std::string> f;
      std::istringstream cs(l);
      for (std::string x; std::getline(cs, x, ',');) f.push_back(x);
      if (f.size() > 5 && f[3] == "partition") jobs[f[4]] = std::stod(f[5]);
    }
    EXPECT_FALSE(has(r.err, "partition")) << r.err;  // every partition used, none unknown
    return std::make_pair(jobs, r.out);
  };
  const auto [a, a_out] = run("7");
  ASSERT_EQ(a.size(), 3u) << a_out;
  const double n = 2000, want[] = {48.0 / 96, 16.0 / 96, 32.0 / 96};
  const char* names[] = {"batch", "debug", "gpu"};
  for (int k = 0; k < 3; ++k) {
    ASSERT_TRUE(a.count(names[k])) << names[k] << "\n" << a_out;
    const double got = a.at(names[k]), mean = n * want[k], sd = std::sqrt(n * want[k] * (1 - want[k]));
    EXPECT_GT(got, 0) << names[k];
    EXPECT_LT(std::fabs(got - mean), 4 * sd) << names[k] << ": " << got << " jobs, expected " << mean;
  }
  const auto b = run("7");
  EXPECT_EQ(b.second, a_out);
  const auto c = run("8");
  EXPECT_NE(c.first, a) << "another seed, the same counts per partition";
}

// The timeline (demand and utilization over time) of a small trace under
// FIFO on 4 processors, by hand.  Jobs (times from the trace's start):
//   1: g1, 4 cpus, 0..1000         2: g2, 2 cpus, submitted 0, runs 1000..1600
//   3: g2, 2 cpus, submitted 400, runs 1000..1600   4: g1, 4 cpus, submitted 1050, runs 1600..1700
// Passes while jobs wait, every 300 s: 0 (nothing delivered yet: no
// sample), 300, 600, 900, 1200, 1500, and the one after the last end, 1800.
// CPU time submitted: g1 4000 (+400 at 1050), g2 1200 (+1200 at 400).
// Delivered by 1200: g1 4000, g2 2 x 2 x 200 = 800; by 1500: g2 2000.
TEST_F(SimulateE2E, TimelineOfASmallTraceMatchesItsHandComputedValues) {
  const std::string swf = dir.write("timeline.swf",
                                    "; MaxProcs: 4\n; UnixStartTime: 1000000\n"
                                    "1 0 -1 1000 4 -1 -1 4 1000 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    "2 0 -1 600 2 -1 -1 2 600 -1 1 2 2 -1 -1 -1 -1 -1\n"
                                    "3 400 -1 600 2 -1 -1 2 600 -1 1 2 2 -1 -1 -1 -1 -1\n"
                                    "4 1050 -1 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  // scope/name/time -> the row's fields
  std::map<std::string, std::vector<std::string>> rows;
  std::istringstream in(r.out);
  std::string header;
  std::getline(in, header);
  EXPECT_TRUE(has(header, ",utilization,") && has(header, ",time,demand,demand_share")) << header;
  for (std::string l; std::getline(in, l);) {
    std::vector<std::string> f;
    std::istringstream cs(l + ",");
    for (std::string x; std::getline(cs, x, ',');) f.push_back(x);
    ASSERT_EQ(f.size(), 29u) << l;
    if (f[3] == "time" || f[3] == "time_account") rows[f[3] + "/" + f[4] + "/" + f[26]] = f;
  }
  // machine: t, utilization, demand ((running + pending processors) / 4)
  const std::vector<std::vector<std::string>> machine = {{"300", "1.000000", "1.500000"}, {"600", "1.000000", "2.000000"},
                                                         {"900", "1.000000", "2.000000"}, {"1200", "1.000000", "2.000000"},
                                                         {"1500", "1.000000", "2.000000"}, {"1800", "0.000000", "0.000000"}};
  // per account: t, name, delivered share, share of the processors, demand share
  const std::vector<std::vector<std::string>> accounts = {
      {"300", "g1", "1.000000", "1.000000", "0.769231"},  {"300", "g2", "0.000000", "0.000000", "0.230769"},
      {"600", "g1", "1.000000", "1.000000", "0.625000"},  {"600", "g2", "0.000000", "0.000000", "0.375000"},
      {"900", "g1", "1.000000", "1.000000", "0.625000"},  {"900", "g2", "0.000000", "0.000000", "0.375000"},
      {"1200", "g1", "0.833333", "0.000000", "0.647059"}, {"1200", "g2", "0.166667", "1.000000", "0.352941"},
      {"1500", "g1", "0.666667", "0.000000", "0.647059"}, {"1500", "g2", "0.333333", "1.000000", "0.352941"},
      {"1800", "g1", "0.647059", "0.000000", "0.647059"}, {"1800", "g2", "0.352941", "0.000000", "0.352941"}};
  EXPECT_EQ(rows.size(), machine.size() + accounts.size()) << r.out;
  for (const auto& m : machine) {
    const std::string key = "time//" + std::to_string(1000000 + std::stol(m[0]));
    ASSERT_TRUE(rows.count(key)) << key << "\n" << r.out;
    EXPECT_EQ(rows[key][13], m[1]) << key;
    EXPECT_EQ(rows[key][27], m[2]) << key;
  }
  for (const auto& a : accounts) {
    const std::string key = "time_account/" + a[1] + "/" + std::to_string(1000000 + std::stol(a[0]));
    ASSERT_TRUE(rows.count(key)) << key << "\n" << r.out;
    EXPECT_EQ(rows[key][11], a[2]) << key;
    EXPECT_EQ(rows[key][13], a[3]) << key;
    EXPECT_EQ(rows[key][28], a[4]) << key;
  }
  // JSON: the same samples, one array per measure.
  r = host({"simulate", "--swf", swf, "--conf", basic(), "--json"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string j = r.out;
  const size_t tl = j.find("\"timeline\": {");
  ASSERT_NE(tl, std::string::npos) << j;
  auto array_after = [&](const std::string& key, size_t from) {
    const size_t at = j.find("\"" + key + "\": [", from);
    if (at == std::string::npos) return std::string("(missing)");
    std::string out;
    for (size_t k = j.find('[', at) + 1; k < j.size() && j[k] != ']'; ++k)
      if (j[k] != ' ' && j[k] != '\n') out += j[k];
    return out;
  };
  EXPECT_EQ(array_after("t", tl), "1000300,1000600,1000900,1001200,1001500,1001800");
  EXPECT_EQ(array_after("utilization", tl), "1.0,1.0,1.0,1.0,1.0,0.0");
  EXPECT_EQ(array_after("demand", tl), "1.5,2.0,2.0,2.0,2.0,0.0");
  const size_t g2 = j.find("\"name\": \"g2\"", tl);
  ASSERT_NE(g2, std::string::npos) << j;
  EXPECT_EQ(array_after("utilization", g2), "0.0,0.0,0.0,1.0,1.0,0.0");
  EXPECT_EQ(array_after("demand_share", g2).substr(0, 15), "0.230769230769,");
}

// A site whose queues are in its accounts document (Flux's): the queue no
// job is mapped to is named, the one they are mapped to is not.
TEST_F(SimulateE2E, QueuesOfTheAccountsDocumentThatNoJobUsesAreNamed) {
  std::string text = "; MaxProcs: 8\n";
  for (int i = 1; i <= 20; ++i)  // queue 1 (field 15)
    text += std::to_string(i) + " " + std::to_string(i * 10) + " -1 5 1 -1 -1 1 5 -1 1 " + std::to_string(1 + i % 4) +
            " 1 -1 1 -1 -1 -1\n";
  const std::string swf = dir.write("queues.swf", text);
  const std::string accounts = dir.write("queues.json", R"({"accounts": [{"name": "a", "parent": "root", "shares": 1}],
    "queues": [{"name": "standby"}, {"name": "urgent"}]})");
  const std::string map = dir.write("queues.map", "user * auto\nqueue q1 urgent\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", basic(), "--accounts", accounts, "--map", map, "--csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(has(r.err, "simulate: warning: " + accounts + ": 1 queue no job of the trace uses (see --map): standby\n"))
      << r.err;
  EXPECT_FALSE(has(r.err, "urgent")) << r.err;
  EXPECT_TRUE(has(r.out, ",partition,urgent,20,")) << r.out;
}

}  // namespace

namespace {

// A family's own files may configure names too (Maui's CLASSCFG, USERCFG,
// ...; plugin_info_json's "conf_names"): those no job of the trace uses are
// named per kind, the used ones are not.
TEST_F(SimulateE2E, NamesTheFamilysOwnFileConfiguresThatNoJobUses) {
  MFPRIO_REQUIRE_PLUGIN(plugin_dir, "priority_maui.so");
  std::string text = "; MaxProcs: 8\n";
  for (int i = 1; i <= 12; ++i)  // queue 1 (field 15): partition q1; users u1..u3
    text += std::to_string(i) + " " + std::to_string(i * 10) + " -1 5 1 -1 -1 1 5 -1 1 " + std::to_string(1 + i % 3) +
            " 1 -1 1 -1 -1 -1\n";
  const std::string swf = dir.write("classes.swf", text);
  const std::string cfg = dir.write("maui.cfg",
                                    "QUEUETIMEWEIGHT 1\nCLASSCFG[q1] PRIORITY=10\nCLASSCFG[idle] PRIORITY=5\n"
                                    "CLASSCFG[DEFAULT] PRIORITY=1\nUSERCFG[u1] PRIORITY=2\nUSERCFG[zed] PRIORITY=3\n");
  const std::string maui = conf("maui", "PriorityType=priority/maui\nPriorityParameters=config=" + cfg + "\n");
  ProcessResult r = host({"simulate", "--swf", swf, "--conf", maui, "--csv"});
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string who = "simulate: warning: " + maui + " (priority/maui's own files): ";
  EXPECT_TRUE(has(r.err, who + "1 partition no job of the trace uses (see --map): idle\n")) << r.err;
  EXPECT_TRUE(has(r.err, who + "1 user no job of the trace uses (see --map): zed\n")) << r.err;
  EXPECT_FALSE(has(r.err, "DEFAULT")) << r.err;
  EXPECT_FALSE(has(r.err, ": q1")) << r.err;
}

}  // namespace
