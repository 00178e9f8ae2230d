// families.cpp - the per-family batch figures (families.hpp).
//
// Each family gets a copy of the multifactor store (the same accounts,
// users and associations) plus what it reads besides: Grid Engine functional
// shares, projects, departments and override tickets (ticket_objects); Flux
// queues and the queues each association may use.  Usage comes from one
// decay pass charging the running jobs (windows for Maui and Flux, decayed
// cpu/mem/io for Grid Engine).  The conf is a realistic one per family:
// Maui fair share + credentials + service + resource components, Grid
// Engine's sample sched_conf (share tree, functional and override tickets,
// urgency) and complexes, Flux's accounting formula with a bank weight.
//
// Timing: one warm-up call, then `reps` rounds of (memory floor, batch) on
// the same record array; the medians of each are reported (wall and this
// thread's CPU time).
#include "families.hpp"

#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <sstream>

#include "plugin_host.hpp"
#include "store.hpp"

namespace mfprio::bench {

uint64_t memory_floor_pass(const mfprio_job_t* jobs, size_t count) {
  uint64_t sum = 0;
  for (size_t i = 0; i < count; ++i) {
    const mfprio_job_t& j = jobs[i];
    sum += j.struct_size + j.state + static_cast<uint64_t>(j.submit_time) + j.cpus + j.mem_mb +
           static_cast<uint64_t>(j.nice) + j.tres_count + j.handle.assoc;
  }
  return sum;
}

namespace {

using Clock = std::chrono::steady_clock;
using Conf = std::vector<std::pair<std::string, std::string>>;

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path);
  f << text;
  if (!f) throw std::runtime_error(path + ": cannot write");
}

// A copy of the multifactor store for one family (the source is closed, so
// its WAL was checkpointed into the main file).
std::string copy_store(const FamilyInputs& in, const std::string& family) {
  const std::string path = in.dir + "/" + family + ".db";
  std::filesystem::remove(path);
  std::filesystem::copy_file(in.base_store, path);
  return path;
}

// ---- Maui ------------------------------------------------------------------
std::string maui_cfg(const Hierarchy& h) {
  std::ostringstream o;
  o << "# mfprio-bench: every priority component in use\n"
       "QUEUETIMEWEIGHT 1\nXFACTORWEIGHT 100\nXFMINWCLIMIT 00:02:00\nBYPASSWEIGHT 10\nSERVICEWEIGHT 1\n"
       "RESWEIGHT 1\nPROCWEIGHT 10\nMEMWEIGHT 1\nNODEWEIGHT 100\n"
       "CREDWEIGHT 1\nUSERWEIGHT 1\nGROUPWEIGHT 1\nACCOUNTWEIGHT 1\nQOSWEIGHT 1\nCLASSWEIGHT 1\n"
       "FSPOLICY DEDICATEDPS\nFSINTERVAL 24:00:00\nFSDEPTH 7\nFSDECAY 0.80\nFSWEIGHT 1\n"
       "FSUSERWEIGHT 10\nFSGROUPWEIGHT 2\nFSACCOUNTWEIGHT 5\nFSQOSWEIGHT 1\nFSCLASSWEIGHT 1\n"
       "USERCFG[DEFAULT] FSTARGET=10\nGROUPCFG[DEFAULT] FSTARGET=20\nACCOUNTCFG[DEFAULT] FSTARGET=5\n"
       "CLASSCFG[debug] PRIORITY=1000 FSTARGET=10\nCLASSCFG[batch] PRIORITY=10 FSTARGET=60\n"
       "CLASSCFG[gpu] PRIORITY=100 FSTARGET=20\nCLASSCFG[long] PRIORITY=1 FSTARGET=10\n"
       "QOSCFG[high] PRIORITY=1000 FSTARGET=30\nQOSCFG[low] PRIORITY=0\nQOSCFG[normal] PRIORITY=100\n";
  // Per-credential lines for a slice of the site (1 user in 100, 1 account in 10).
  for (size_t u = 0; u < h.users.size(); u += 100)
    o << "USERCFG[" << h.users[u] << "] PRIORITY=" << (u % 500) << " FSTARGET=" << (5 + u % 30) << "\n";
  for (size_t a = 1; a < h.accounts.size(); a += 10)
    o << "ACCOUNTCFG[" << h.accounts[a].name << "] PRIORITY=" << (a % 200) << " FSTARGET=" << (1 + a % 40)
      << "\n";
  return o.str();
}

// ---- Grid Engine -------------------------------------------------------------
const char* kGeSchedConf =
    "algorithm default\nschedule_interval 0:0:15\nmaxujobs 0\nqueue_sort_method load\n"
    "job_load_adjustments np_load_avg=0.50\nload_adjustment_decay_time 0:7:30\nload_formula np_load_avg\n"
    "schedd_job_info false\nflush_submit_sec 0\nflush_finish_sec 0\nparams none\nreprioritize_interval 0:0:0\n"
    "halftime 168\nusage_weight_list cpu=1.000000,mem=0.000000,io=0.000000\ncompensation_factor 5.000000\n"
    "weight_user 0.250000\nweight_project 0.250000\nweight_department 0.250000\nweight_job 0.250000\n"
    "weight_tickets_functional 10000\nweight_tickets_share 10000\nshare_override_tickets TRUE\n"
    "share_functional_shares TRUE\nmax_functional_jobs_to_schedule 200\nreport_pjob_tickets TRUE\n"
    "max_pending_tasks_per_job 50\nhalflife_decay_list none\npolicy_hierarchy OFS\nweight_ticket 0.010000\n"
    "weight_waiting_time 100.000000\nweight_deadline 3600000.000000\nweight_urgency 0.100000\n"
    "weight_priority 1.000000\nmax_reservation 0\ndefault_duration INFINITY\n";
const char* kGeComplexes =
    "#name shortcut type relop requestable consumable default urgency\n"
    "arch a RESTRING == YES NO NONE 0\nh_rt h_rt TIME <= YES NO 0:0:0 0\n"
    "mem_free mf MEMORY <= YES NO 0 0\nmatlab ml BOOL == YES YES 0 5000\nslots s INT <= YES YES 1 1000\n"
    "tq tq RESTRING == YES NO NONE 40000\nuq uq RESTRING == YES NO NONE 80000\n";

constexpr int kDepartments = 10;
// Per-job attribute sets: a department each, some with a resource request.
struct GeAttrs {
  std::vector<std::string> names;
  std::vector<std::vector<mfprio_attr_t>> sets;
  GeAttrs() {
    for (int d = 0; d < kDepartments; ++d) names.push_back("dept" + std::to_string(d));
    for (int d = 0; d < kDepartments; ++d) {
      sets.push_back({{"department", names[size_t(d)].c_str()}});
      sets.push_back({{"department", names[size_t(d)].c_str()}, {"requests.h_rt", "24:00:00"}});
      sets.push_back({{"department", names[size_t(d)].c_str()}, {"requests.tq", "true"}});
    }
  }
};

acct::AdminChanges ge_tickets(const Hierarchy& h) {
  acct::AdminChanges ch;
  for (size_t u = 0; u < h.users.size(); ++u)
    ch.ticket_objects.push_back({"user", h.users[u], uint32_t(1 + u % 10), uint32_t(u % 100 == 0 ? 500 : 0)});
  for (int d = 0; d < kDepartments; ++d)
    ch.ticket_objects.push_back({"department", "dept" + std::to_string(d), uint32_t(10 + d), 0});
  // One account in 20 is a project (a project node of the share tree).
  for (size_t a = 1; a < h.accounts.size(); a += 20)
    ch.ticket_objects.push_back({"project", h.accounts[a].name, uint32_t(1 + a % 50), 0});
  return ch;
}

// ---- Flux --------------------------------------------------------------------
acct::AdminChanges flux_queues(const Hierarchy& h) {
  acct::AdminChanges ch;
  ch.queues = {{"batch", 0}, {"debug", 100}, {"gpu", 50}, {"long", 10}};
  ch.assocs.reserve(h.assocs.size());
  for (const AssocSpec& a : h.assocs) {
    acct::AssocWrite w;
    w.rec.user = h.users[a.user];
    w.rec.account = h.accounts[a.account].name;
    w.rec.shares = a.shares;
    w.rec.shares_parent = a.shares_parent;
    w.rec.is_default = h.user_first_assoc[a.user] == uint32_t(&a - h.assocs.data());
    // Every association may use batch/long; 2 in 3 debug; 1 in 2 gpu (a job in a
    // queue its association may not use is refused: counted as failed).
    w.rec.queues = {"batch", "long"};
    if (a.user % 3) w.rec.queues.push_back("debug");
    if (a.user % 2 == 0) w.rec.queues.push_back("gpu");
    w.set_queues = true;
    ch.assocs.push_back(std::move(w));
  }
  return ch;
}

struct Family {
  std::string name, so, what;
  Conf conf;
  std::function<void(acct::Store&)> add_rows;  // may be empty
  std::function<void(std::vector<mfprio_job_t>&)> fill_jobs;  // per-family fields
  bool whole_queue = false;  // prioritize(pending, running)
  bool resolve = false;      // job_resolve every pending record before timing (its handles restored after)
};

FamilyFigure run_one(const FamilyInputs& in, const Family& f) {
  FamilyFigure fig;
  fig.family = f.name;
  fig.what = f.what;
  try {
    const auto t0 = Clock::now();
    const std::string store = copy_store(in, f.name);
    if (f.add_rows) {
      auto st = acct::Store::open(store);
      f.add_rows(*st);
    }
    std::vector<mfprio_job_t>& jobs = *in.pending;
    const std::vector<mfprio_job_t>& run = *in.running;
    if (f.fill_jobs) f.fill_jobs(jobs);
    // MFPRIO_BENCH_VS=DIR: the same family's plugin from DIR as well, on a
    // copy of the same store, its calls alternating with this build's (A/B
    // figures that hold on a noisy machine: the pairs' ratios).
    const char* vs_dir = std::getenv("MFPRIO_BENCH_VS");
    std::unique_ptr<PluginHost> Q;
    if (vs_dir && *vs_dir) {
      const std::string vs_store = in.dir + "/" + f.name + "-vs.db";
      std::filesystem::remove(vs_store);
      std::filesystem::copy_file(store, vs_store);
      Q = std::make_unique<PluginHost>(std::string(vs_dir) + "/" + f.so, f.conf, /*bench_ops=*/false);
      Q->now = in.now;
      Q->init(vs_store);
      Q->check(Q->ops.decay(Q->now, run.data(), run.size()), "decay (vs)");
    }
    PluginHost P(plugin_path(f.so), f.conf, /*bench_ops=*/false);
    P.now = in.now;
    P.init(store);
    // Usage: one pass charging the running jobs (a day of running at most).
    P.check(P.ops.decay(P.now, run.data(), run.size()), "decay");
    fig.setup_s = std::chrono::duration<double>(Clock::now() - t0).count();
    // The family's own handles (as the multifactor figure's records carry
    // multifactor's): a record it cannot resolve keeps a zero handle.
    std::vector<mfprio_handle_t> saved;
    struct Restore {
      std::vector<mfprio_job_t>& jobs;
      std::vector<mfprio_handle_t>& saved;
      ~Restore() {
        for (size_t i = 0; i < saved.size(); ++i) jobs[i].handle = saved[i];
      }
    } restore{jobs, saved};
    if (f.resolve) {
      saved.reserve(jobs.size());
      for (mfprio_job_t& j : jobs) {
        saved.push_back(j.handle);
        j.handle = mfprio_handle_t{};
        P.ops.job_resolve(&j);
      }
    }
    if (f.whole_queue ? !P.ops.prioritize : !P.ops.set_priority_batch)
      throw std::runtime_error(f.so + " lacks " + (f.whole_queue ? "prioritize" : "set_priority_batch"));

    std::vector<uint32_t> prios(jobs.size());
    std::vector<int> statuses(jobs.size());
    auto call_on = [&](PluginHost& H, int* st) {
      return f.whole_queue
                 ? H.ops.prioritize(jobs.data(), jobs.size(), run.data(), run.size(), H.now, prios.data(), st)
                 : H.ops.set_priority_batch(jobs.data(), jobs.size(), H.now, prios.data(), st);
    };
    auto call = [&](int* st) { return call_on(P, st); };
    if (Q) call_on(*Q, nullptr);  // its warm-up (the records' handles are this build's)
    // Warm-up, and the count of records the family refuses (priority 0).
    call(statuses.data());
    // MFPRIO_BENCH_DUMP=DIR: every record's priority and status, one file per
    // family, to compare two builds' results on the same inputs (cmp).
    if (const char* dump = std::getenv("MFPRIO_BENCH_DUMP")) {
      std::ofstream d(std::string(dump) + "/" + f.name + ".prio");
      for (size_t i = 0; i < jobs.size(); ++i) d << jobs[i].job_id << ' ' << prios[i] << ' ' << statuses[i] << '\n';
    }
    fig.failed = size_t(std::count_if(statuses.begin(), statuses.end(), [](int s) { return s != MFPRIO_OK; }));
    fig.records = jobs.size();
    if (fig.failed == jobs.size()) throw std::runtime_error(std::string("every record failed: ") + P.ops.errmsg());

    std::vector<double> fw, fc, bw, bc, vc;
    uint64_t sink = 0;
    for (int r = 0; r < std::max(1, in.reps); ++r) {
      auto w0 = Clock::now();
      double c0 = thread_cpu_ns();
      sink += memory_floor_pass(jobs.data(), jobs.size());
      if (f.whole_queue) sink += memory_floor_pass(run.data(), run.size());
      fc.push_back(thread_cpu_ns() - c0);
      fw.push_back(std::chrono::duration<double, std::nano>(Clock::now() - w0).count());
      const auto timed = [&](PluginHost& H, std::vector<double>& cpu) {
        const double t0 = thread_cpu_ns();
        call_on(H, nullptr);
        cpu.push_back(thread_cpu_ns() - t0);
      };
      if (Q && r % 2 == 1) timed(*Q, vc);  // odd rounds: the other build first
      w0 = Clock::now();
      c0 = thread_cpu_ns();
      call(nullptr);
      bc.push_back(thread_cpu_ns() - c0);
      bw.push_back(std::chrono::duration<double, std::nano>(Clock::now() - w0).count());
      if (Q && r % 2 == 0) timed(*Q, vc);
    }
    // MFPRIO_BENCH_DUMP: the last timed pass's priorities too (a pass over
    // the same records after the first: what the plugin kept must not show).
    if (const char* dump = std::getenv("MFPRIO_BENCH_DUMP")) {
      std::ofstream d(std::string(dump) + "/" + f.name + ".last.prio");
      for (size_t i = 0; i < jobs.size(); ++i) d << jobs[i].job_id << ' ' << prios[i] << '\n';
    }
    if (Q) {
      std::vector<double> ratio;
      for (size_t k = 0; k < vc.size(); ++k) ratio.push_back(bc[k] / vc[k]);
      std::fprintf(stderr, "mfprio-bench: %s vs %s: this build %.1f ns/record, theirs %.1f (CPU medians of %zu), "
                   "this/theirs per pair: median %.3f, range %.3f-%.3f\n",
                   f.name.c_str(), vs_dir, median(bc) / double(jobs.size()), median(vc) / double(jobs.size()),
                   vc.size(), median(ratio), *std::min_element(ratio.begin(), ratio.end()),
                   *std::max_element(ratio.begin(), ratio.end()));
    }
    // The first record the family prices (not held, not refused), changed before each pass.
    size_t first_ok = 0;
    while (first_ok < jobs.size() && (statuses[first_ok] != MFPRIO_OK || jobs[first_ok].state == MFPRIO_JOB_HELD))
      ++first_ok;
    if (f.whole_queue && first_ok < jobs.size()) {
      mfprio_job_t& j0 = jobs[first_ok];
      // (one second on each time: a value none of the plugin's kept passes
      // saw; it keeps two, the one a reader may hold and the one it reuses)
      std::vector<double> cc;
      for (int r = 0; r < std::max(2, in.reps); ++r) {
        j0.submit_time -= 1;
        const double t0 = thread_cpu_ns();
        call(nullptr);
        cc.push_back(thread_cpu_ns() - t0);
      }
      j0.submit_time += static_cast<int64_t>(cc.size());  // back as it was
      fig.changed_cpu_ns = median(cc);
      call(nullptr);  // (the queue as it was: the pass that keeps its jobs again)
      std::vector<double> uc;
      for (int r = 0; r < std::max(2, in.reps / 3); ++r) {
        P.now += 60;
        P.check(P.ops.decay(P.now, run.data(), run.size()), "decay");
        const double t0 = thread_cpu_ns();
        call(nullptr);
        uc.push_back(thread_cpu_ns() - t0);
      }
      fig.after_usage_cpu_ns = median(uc);
    }
    if (sink == 42) std::fprintf(stderr, " ");  // keeps the floor loop
    fig.floor_ns = median(fw);
    fig.floor_cpu_ns = median(fc);
    fig.batch_ns = median(bw);
    fig.batch_cpu_ns = median(bc);
    P.fini();
    if (Q) Q->fini();
  } catch (const std::exception& e) {
    fig.error = e.what();
  }
  return fig;
}

}  // namespace

std::vector<FamilyFigure> run_family_figures(const FamilyInputs& in) {
  std::vector<FamilyFigure> out;
  const Hierarchy& h = *in.hier;

  // Maui: group = one of 50 groups by user (the record field the family reads).
  static std::vector<std::string> groups;
  if (groups.empty())
    for (int g = 0; g < 50; ++g) groups.push_back("grp" + std::to_string(g));
  Family maui;
  maui.name = "maui";
  maui.so = "priority_maui.so";
  maui.what = "set_priority_batch";
  maui.resolve = true;
  const std::string cfg = in.dir + "/maui.cfg";
  maui.conf = {{"PriorityType", "priority/maui"}, {"PriorityParameters", "config=" + cfg}};
  maui.fill_jobs = [&](std::vector<mfprio_job_t>& jobs) {
    write_file(cfg, maui_cfg(h));
    for (mfprio_job_t& j : jobs) j.group = groups[(j.job_id * 2654435761u >> 7) % groups.size()].c_str();
  };

  // Grid Engine: a department (and some resource requests) per job.
  static GeAttrs ge_attrs;
  Family ge;
  ge.name = "gridengine";
  ge.so = "priority_gridengine.so";
  ge.what = "prioritize(pending, running)";
  ge.whole_queue = true;
  ge.resolve = true;  // its handles: user, project and department ids
  const std::string sched = in.dir + "/sched_conf", cplx = in.dir + "/complexes";
  ge.conf = {{"PriorityType", "priority/gridengine"},
             {"PriorityParameters", "sched_conf=" + sched + ",complexes=" + cplx}};
  ge.add_rows = [&](acct::Store& st) {
    write_file(sched, kGeSchedConf);
    write_file(cplx, kGeComplexes);
    st.apply_admin(ge_tickets(h));
  };
  ge.fill_jobs = [&](std::vector<mfprio_job_t>& jobs) {
    for (mfprio_job_t& j : jobs) {
      const auto& set = ge_attrs.sets[(j.job_id * 40503u >> 5) % ge_attrs.sets.size()];
      j.attrs = set.data();
      j.attr_count = uint32_t(set.size());
    }
  };

  // Flux: queues = partitions; the bank weight on.
  Family flux;
  flux.name = "flux";
  flux.so = "priority_flux.so";
  flux.what = "set_priority_batch";
  flux.conf = {{"PriorityType", "priority/flux"},
               {"PriorityParameters", "mode=accounting,fairshare=100000,queue=10000,bank=1000,urgency=1000"}};
  flux.add_rows = [&](acct::Store& st) { st.apply_admin(flux_queues(h)); };
  flux.resolve = true;
  flux.fill_jobs = [](std::vector<mfprio_job_t>& jobs) {
    for (mfprio_job_t& j : jobs) {  // the other families' fields are ignored by flux: cleared anyway
      j.attrs = nullptr;
      j.attr_count = 0;
    }
  };

  for (const Family* f : {&maui, &ge, &flux}) {
    if (!in.only.empty() && ("," + in.only + ",").find("," + f->name + ",") == std::string::npos) continue;
    std::fprintf(stderr, "mfprio-bench: family %s ...\n", f->name.c_str());
    out.push_back(run_one(in, *f));
    if (!out.back().error.empty())
      std::fprintf(stderr, "mfprio-bench: family %s: %s\n", f->name.c_str(), out.back().error.c_str());
  }
  return out;
}

}  // namespace mfprio::bench
