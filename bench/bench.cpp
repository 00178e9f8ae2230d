// bench.cpp - mfprio-bench: the figures of the README's performance table.
//
// Runs Google Benchmark over the real plugin (dlopen'ed priority_multifactor.so
// on a real SQLite store in a temp dir), the core fair-share algorithms, and
// the store, then prints one table: the median of the repetitions of each
// figure, its target and PASS/MISS.  See bench/README.md for what each figure
// measures.  Never a timed assertion: a MISS is printed, the exit status is 0.
//
// Own flags (removed before Google Benchmark sees the rest):
//   --quick            small sizes (10^4 assocs, 10^5 pending, 10^3 running), 3 reps
//   --assocs=N         user associations in the plugin's store (default 100000)
//   --pending=N        pending job records (default 1000000)
//   --running=N        running jobs charged per cycle (default 10000)
//   --reps=N           repetitions per figure (default 5); the median is reported
//   --no-sweep         skip the fair-share sweep over depth x size
//   --tmp=DIR          where the temp stores go (default /tmp)
//   --keep             keep the temp dir (big.db, small.db) for inspection
//   --families=LIST    only these family figures (maui,gridengine,flux); "none": no
//                      family and no process figure
//   --cold-only        only the cold start of the site-shaped trees (processes)
//   --no-processes     no figure of mfprio-host as a process (sshare/decay, the
//                      site-shaped cold starts): the in-process figures alone
// Environment: MFPRIO_BENCH_PG (a libpq URI) adds the store figures on that
// PostgreSQL server beside SQLite's (register_pg); unset, one line says so.
#include <benchmark/benchmark.h>
#include <sqlite3.h>
#ifdef MFPRIO_BENCH_HAVE_PG
#include <libpq-fe.h>
#endif
#include <malloc.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "families.hpp"
#include "generator.hpp"
#include "plugin_host.hpp"
#include "process.hpp"
#include "share_tree.hpp"
#include "store.hpp"

namespace mb = mfprio::bench;
using Clock = std::chrono::steady_clock;

namespace {

struct Options {
  size_t assocs = 100000;
  size_t small_assocs = 1000;
  size_t pending = 1000000;
  size_t running = 10000;
  size_t job_ends = 2000;   // job_end calls per repetition
  int reps = 5;
  bool quick = false;
  bool sweep = true;
  bool keep = false;        // keep the temp dir (stores) for inspection
  std::string families;     // --families=LIST: only these family figures ("none": no family, no process figure)
  bool cold_only = false;   // --cold-only: only the cold start of the site-shaped trees
  bool processes = true;    // --no-processes: no mfprio-host process figure
  std::string tmp = "/tmp";
};

double secs(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }

// Heap bytes in use (every arena, plus mmapped chunks).
size_t heap_in_use() {
  struct mallinfo2 mi = mallinfo2();
  return mi.uordblks + mi.hblkhd;
}

// Resident set size in bytes (/proc/self/statm, second field).
size_t rss_bytes() {
  FILE* f = std::fopen("/proc/self/statm", "r");
  if (!f) return 0;
  unsigned long size = 0, resident = 0;
  if (std::fscanf(f, "%lu %lu", &size, &resident) != 2) resident = 0;
  std::fclose(f);
  return resident * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

// Medians captured from Google Benchmark, by benchmark name: real time in ns,
// and each counter.
struct Median {
  double ns = NAN;      // wall
  double cpu_ns = NAN;  // this thread's CPU time
  std::map<std::string, double> counters;
};
std::map<std::string, Median> g_median;

class CapturingReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run>& runs) override {
    for (const Run& r : runs) {
      const bool median = r.run_type == Run::RT_Aggregate && r.aggregate_name == "median";
      const bool single = r.run_type == Run::RT_Iteration;
      if (!median && !single) continue;
      if (r.error_occurred) continue;
      Median m;
      m.ns = r.GetAdjustedRealTime() * (1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit));
      m.cpu_ns = r.GetAdjustedCPUTime() * (1e9 / benchmark::GetTimeUnitMultiplier(r.time_unit));
      for (const auto& [k, c] : r.counters) m.counters[k] = c.value;
      auto& slot = g_median[r.run_name.function_name];
      // A median replaces single runs; single runs only fill an empty slot.
      if (median || std::isnan(slot.ns)) slot = m;
    }
    ConsoleReporter::ReportRuns(runs);
  }
};

// Everything the benchmarks share.
struct Ctx {
  Options opt;
  std::string dir;
  std::unique_ptr<mb::PluginHost> plugin;
  std::shared_ptr<const mb::Hierarchy> hier, small_hier, comparison, random5;
  std::string store, small_store;
  mfprio::ShareTree comparison_tree, random5_tree;
  mb::JobSet pending, running;
  std::vector<uint32_t> prios;
  // Pre-benchmark measurements.
  double store_build_s = 0, resolve_ns = 0;
  double heap_small = 0, heap_big = 0, rss_small = 0, rss_big = 0;
  double per_job_plugin_bytes = 0;
  uint64_t next_job_id = 0;
  // Performance II figures measured outside Google Benchmark (families.cpp,
  // process.cpp): a pristine copy of the big store to start them from.
  std::string base_copy;
  std::vector<mb::FamilyFigure> families;
  mb::ProcessFigure proc;
  std::vector<mb::ColdFigure> cold;  // site-shaped: opt.assocs, then 10^6 (not with --quick)
};
Ctx* g = nullptr;

void build_store(const std::string& path, const mb::Hierarchy& h) {
  std::filesystem::remove(path);
  auto st = mfprio::acct::Store::open(path);
  st->apply_admin(mb::to_admin_changes(h));
}

void fail_state(benchmark::State& st, const std::exception& e) { st.SkipWithError(e.what()); }

// ---- fair share (core) ----------------------------------------------------
void bm_fair_share(benchmark::State& st, const mfprio::ShareTree* tree, mfprio::FairShareAlgo algo) {
  mfprio::FairShareParams params;
  params.algo = algo;
  for (auto _ : st) {
    mfprio::ShareResult out;  // fresh, as every published snapshot has its own
    mfprio::compute_fair_share(*tree, params, out);
    benchmark::DoNotOptimize(out.fairshare.data());
  }
  st.counters["nodes"] = static_cast<double>(tree->size());
}

// ---- ABI -------------------------------------------------------------------
// The memory floor: read the job records set_priority reads (fields spread
// over every cache line of each record), nothing else.
void bm_memory_floor(benchmark::State& st) {
  const std::vector<mfprio_job_t>& jobs = g->pending.jobs;
  for (auto _ : st) {
    uint64_t sum = 0;
    for (const mfprio_job_t& j : jobs)
      sum += j.struct_size + j.state + static_cast<uint64_t>(j.submit_time) + j.cpus + j.mem_mb +
             static_cast<uint64_t>(j.nice) + j.tres_count + j.handle.assoc;
    benchmark::DoNotOptimize(sum);
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * jobs.size()));
}

void bm_batch(benchmark::State& st) {
  const auto& jobs = g->pending.jobs;
  auto& ops = g->plugin->ops;
  for (auto _ : st) {
    const int rc = ops.set_priority_batch(jobs.data(), jobs.size(), g->plugin->now, g->prios.data(), nullptr);
    if (rc != MFPRIO_OK) {
      st.SkipWithError(ops.errmsg());
      break;
    }
    benchmark::DoNotOptimize(g->prios.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * jobs.size()));
}

// One call through the ABI on a hot set of 1024 records: the call's own cost.
void bm_one_call(benchmark::State& st) {
  const auto& jobs = g->pending.jobs;
  auto fn = g->plugin->ops.set_priority;
  const int64_t now = g->plugin->now;
  const size_t mask = std::min<size_t>(1024, jobs.size()) - 1;  // jobs.size() >= 1024
  size_t i = 0;
  uint32_t p = 0;
  for (auto _ : st) {
    fn(&jobs[i], now, &p);
    benchmark::DoNotOptimize(p);
    i = (i + 1) & mask;
  }
}

// A host that calls set_priority once per record over the whole array.
void bm_call_loop(benchmark::State& st) {
  const auto& jobs = g->pending.jobs;
  auto fn = g->plugin->ops.set_priority;
  for (auto _ : st) {
    const int64_t now = g->plugin->now;
    for (size_t i = 0; i < jobs.size(); ++i) fn(&jobs[i], now, &g->prios[i]);
    benchmark::DoNotOptimize(g->prios.data());
  }
  st.SetItemsProcessed(static_cast<int64_t>(st.iterations() * jobs.size()));
}

// ---- store and plugin ------------------------------------------------------
void bm_store_load(benchmark::State& st) {
  try {
    auto store = mfprio::acct::Store::open(g->store);
    size_t n = 0;
    for (auto _ : st) {
      // What the plugin's init loads: everything but the per-TRES usage,
      // which only export needs (see Engine::reload).
      mfprio::acct::StoreData d = store->load(mfprio::acct::LoadOptions{/*tres_usage=*/false});
      n = d.assocs.size();
      benchmark::DoNotOptimize(d.assocs.data());
    }
    st.counters["assocs"] = static_cast<double>(n);
  } catch (const std::exception& e) {
    fail_state(st, e);
  }
}

// init (open, load, build, fair share) + one decay pass with no running job
// (decays every usage row in one transaction, fair share again, publish).
void bm_cold_recompute(benchmark::State& st) {
  auto& P = *g->plugin;
  try {
    double init_s = 0, decay_s = 0;
    for (auto _ : st) {
      st.PauseTiming();  // fini is not part of the figure
      P.fini();
      P.now += 300;
      st.ResumeTiming();
      const auto t0 = Clock::now();
      P.init(g->store);
      const auto t1 = Clock::now();
      P.check(P.ops.decay(P.now, nullptr, 0), "decay");
      const auto t2 = Clock::now();
      st.SetIterationTime(secs(t0, t2));
      init_s += secs(t0, t1);
      decay_s += secs(t1, t2);
    }
    st.counters["init_ms"] = init_s * 1e3 / static_cast<double>(st.iterations());
    st.counters["decay_ms"] = decay_s * 1e3 / static_cast<double>(st.iterations());
  } catch (const std::exception& e) {
    fail_state(st, e);
  }
}

// decay with no running job: the per-cycle fixed cost (decay rows, fair share).
void bm_decay_idle(benchmark::State& st) {
  auto& P = *g->plugin;
  for (auto _ : st) {
    P.now += 300;
    const int rc = P.ops.decay(P.now, nullptr, 0);
    if (rc) {
      st.SkipWithError(P.ops.errmsg());
      break;
    }
  }
}

// The calc period: charge the running jobs, decay, fair share, publish, then
// re-prioritize every pending record in one batch.
void bm_full_cycle(benchmark::State& st) {
  auto& P = *g->plugin;
  const auto& run = g->running.jobs;
  const auto& pend = g->pending.jobs;
  double decay_s = 0, batch_s = 0;
  for (auto _ : st) {
    P.now += 300;
    const auto t0 = Clock::now();
    int rc = P.ops.decay(P.now, run.data(), run.size());
    const auto t1 = Clock::now();
    if (rc == MFPRIO_OK) rc = P.ops.set_priority_batch(pend.data(), pend.size(), P.now, g->prios.data(), nullptr);
    const auto t2 = Clock::now();
    if (rc) {
      st.SkipWithError(P.ops.errmsg());
      break;
    }
    st.SetIterationTime(secs(t0, t2));
    decay_s += secs(t0, t1);
    batch_s += secs(t1, t2);
  }
  st.counters["decay_ms"] = decay_s * 1e3 / static_cast<double>(std::max<int64_t>(1, st.iterations()));
  st.counters["batch_ms"] = batch_s * 1e3 / static_cast<double>(std::max<int64_t>(1, st.iterations()));
}

// The disk's flush: rewrite one 4 KiB page of a file next to the stores and
// fdatasync it (measured right before the job-end figures, whose commits
// each wait on one such flush).
void bm_fdatasync(benchmark::State& st) {
  const std::string path = g->dir + "/fsync.probe";
  FILE* f = std::fopen(path.c_str(), "w+");
  if (!f) {
    st.SkipWithError("cannot create the fsync probe");
    return;
  }
  const int fd = fileno(f);
  std::vector<char> page(4096, 'x');
  int i = 0;
  for (auto _ : st) {
    if (pwrite(fd, page.data(), page.size(), off_t(i++ % 16) * 4096) != ssize_t(page.size()) || fdatasync(fd) != 0) {
      st.SkipWithError("fdatasync probe failed");
      break;
    }
  }
  std::fclose(f);
  std::filesystem::remove(path);
}

// One durable job-end charge: its own transaction (WAL, synchronous=FULL: the
// WAL is fsynced before the call returns).
void bm_job_end(benchmark::State& st, const std::vector<mfprio_job_t>* jobs_from) {
  auto& P = *g->plugin;
  const auto& run = *jobs_from;
  size_t i = 0;
  for (auto _ : st) {
    mfprio_job_t j = run[i];
    j.job_id = g->next_job_id++;
    i = (i + 1) % run.size();
    const int rc = P.ops.job_end(&j, P.now);
    if (rc) {
      st.SkipWithError(P.ops.errmsg());
      break;
    }
  }
}

// Durable job-end charges in batches of 100 (job_end_batch: one transaction
// per batch), as a controller ending many jobs under one lock hold would.
constexpr size_t kEndBatch = 100;
// `prepare` (PostgreSQL: put the plugin on that store) runs untimed before each batch.
void bm_job_end_batch(benchmark::State& st, const std::vector<mfprio_job_t>* jobs_from, void (*prepare)()) {
  auto& P = *g->plugin;
  const auto& run = *jobs_from;
  std::vector<mfprio_job_t> jobs(kEndBatch);
  std::vector<int64_t> ends(kEndBatch, P.now);
  size_t i = 0;
  for (auto _ : st) {
    st.PauseTiming();
    if (prepare) {
      try {
        prepare();
      } catch (const std::exception& e) {
        st.SkipWithError(e.what());
        break;
      }
    }
    for (mfprio_job_t& j : jobs) {
      j = run[i];
      j.job_id = g->next_job_id++;
      i = (i + 1) % run.size();
    }
    st.ResumeTiming();
    const int rc = P.ops.job_end_batch(jobs.data(), jobs.size(), ends.data());
    if (rc) {
      st.SkipWithError(P.ops.errmsg());
      break;
    }
  }
}

// ---- cold recompute without the tree cache, and at 10^6 associations -------
// (perf-cold).  The plugin keeps one runtime per process, so these borrow
// the shared PluginHost and leave it initialized on the 10^5 store.

// Clears the store's tree cache (schema v7) as a hierarchy write would.
void clear_tree_cache(const std::string& store) {
  sqlite3* h = nullptr;
  if (sqlite3_open(store.c_str(), &h) != SQLITE_OK ||
      sqlite3_exec(h, "UPDATE tree_cache SET data = NULL", nullptr, nullptr, nullptr) != SQLITE_OK) {
    const std::string msg = h ? sqlite3_errmsg(h) : "cannot open";
    sqlite3_close(h);
    throw std::runtime_error(store + ": clear tree cache: " + msg);
  }
  sqlite3_close(h);
}

// init + decay as bm_cold_recompute, on `store`; `no_cache`: the first start
// after a hierarchy change (reads every row, writes the cache).
void cold_recompute_on(benchmark::State& st, const std::string& store, bool no_cache) {
  auto& P = *g->plugin;
  try {
    double init_s = 0;
    for (auto _ : st) {
      P.fini();
      if (no_cache) clear_tree_cache(store);
      P.now += 300;
      const auto t0 = Clock::now();
      P.init(store);
      const auto t1 = Clock::now();
      P.check(P.ops.decay(P.now, nullptr, 0), "decay");
      st.SetIterationTime(secs(t0, Clock::now()));
      init_s += secs(t0, t1);
    }
    st.counters["init_ms"] = init_s * 1e3 / static_cast<double>(st.iterations());
    P.init(g->store);
  } catch (const std::exception& e) {
    fail_state(st, e);
  }
}

void bm_cold_recompute_no_cache(benchmark::State& st) { cold_recompute_on(st, g->store, true); }

constexpr size_t kMillion = 1000000;
struct MillionStore {
  std::string path;
  size_t assocs = 0;
  double build_s = 0, rss_per_assoc = NAN, heap_per_assoc = NAN;
};
MillionStore g_million;

// Memory per association on the 10^6 store: init on it vs nothing loaded,
// after a first init wrote the tree cache.  Done by the figure's first
// repetition: re-initializing the plugin gives a new layout, whose handles
// the records resolved at setup would not match (the batch figures run
// before this one).
void measure_million_memory() {
  auto& P = *g->plugin;
  P.fini();
  P.init(g_million.path);  // the first start: writes the tree cache
  P.fini();
  malloc_trim(0);
  const size_t h0 = heap_in_use(), r0 = rss_bytes();
  P.init(g_million.path);
  g_million.heap_per_assoc = (double(heap_in_use()) - double(h0)) / double(g_million.assocs);
  g_million.rss_per_assoc = (double(rss_bytes()) - double(r0)) / double(g_million.assocs);
}

void bm_cold_recompute_million(benchmark::State& st) {
  try {
    if (std::isnan(g_million.rss_per_assoc)) measure_million_memory();
  } catch (const std::exception& e) {
    fail_state(st, e);
    return;
  }
  cold_recompute_on(st, g_million.path, false);
}

// The 10^6 store (depth 4, as the 10^5 one) and the figure's registration.
// Not with --quick.
void register_million(Ctx& c) {
  if (c.opt.quick) return;
  std::fprintf(stderr, "mfprio-bench: building the 10^6-association store ...\n");
  mb::TreeParams tp;
  tp.depth = 4;
  tp.assocs = kMillion;
  tp.seed = 43;
  g_million.path = c.dir + "/million.db";
  {
    const mb::Hierarchy h = mb::make_random_tree(tp);
    g_million.assocs = h.assocs.size();
    const auto t0 = Clock::now();
    build_store(g_million.path, h);
    g_million.build_s = secs(t0, Clock::now());
  }
  benchmark::RegisterBenchmark("plugin/cold_recompute_1m", bm_cold_recompute_million)
      ->Repetitions(c.opt.reps)->ReportAggregatesOnly(true)
      ->Unit(benchmark::kMillisecond)->Iterations(1)->UseManualTime();
}

// ---- PostgreSQL (MFPRIO_BENCH_PG) ---------------------------------------------
// The store figures again on a PostgreSQL server (issue 21 item 8): the same
// 10^5 tree, built in a database of its own (mfprio_bench_<pid>, made on the
// server MFPRIO_BENCH_PG names and dropped at the end).  Registered after
// every SQLite figure: the plugin keeps one runtime per process, so these
// re-init it on the PostgreSQL store and the last one (cold recompute, via
// cold_recompute_on) puts it back on the SQLite store.
struct PgBench {
  std::string base_uri;  // MFPRIO_BENCH_PG ("" = no PostgreSQL figures)
  std::string db, uri;   // the bench's own database and its URI
  double build_s = 0;
  std::string settings;  // the server's fsync / synchronous_commit / full_page_writes
  bool attached = false; // the plugin runs on the PostgreSQL store
  std::vector<mfprio_job_t> running;  // the running jobs, resolved on it
};
PgBench g_pg;

#ifdef MFPRIO_BENCH_HAVE_PG
// `uri` with its database name replaced by `db` (authority and query kept).
std::string pg_uri_with_db(const std::string& uri, const std::string& db) {
  std::string::size_type p = uri.find("://");
  if (p == std::string::npos) throw std::runtime_error("MFPRIO_BENCH_PG=" + uri + ": not a postgresql:// URI");
  p += 3;
  const std::string::size_type auth_end = uri.find_first_of("/?", p);
  std::string query;
  if (auth_end != std::string::npos) {
    const std::string::size_type q = uri.find('?', auth_end);
    if (q != std::string::npos) query = uri.substr(q);
  }
  return uri.substr(0, auth_end == std::string::npos ? uri.size() : auth_end) + "/" + db + query;
}

// One libpq connection of the bench's own (database setup, the lock figure).
class PgConn {
 public:
  explicit PgConn(const std::string& uri) : c_(PQconnectdb(uri.c_str())) {
    if (PQstatus(c_) != CONNECTION_OK) {
      const std::string msg = PQerrorMessage(c_);
      PQfinish(c_);
      throw std::runtime_error("MFPRIO_BENCH_PG: cannot connect: " + msg);
    }
    PQclear(PQexec(c_, "SET client_min_messages = warning"));
  }
  ~PgConn() { PQfinish(c_); }
  PgConn(const PgConn&) = delete;
  PgConn& operator=(const PgConn&) = delete;
  // Runs `sql`; the first value of its last result ("" if none).
  std::string exec(const std::string& sql) {
    PGresult* r = PQexec(c_, sql.c_str());
    const ExecStatusType s = PQresultStatus(r);
    std::string v = s == PGRES_TUPLES_OK && PQntuples(r) > 0 ? PQgetvalue(r, 0, 0) : "";
    PQclear(r);
    if (s != PGRES_COMMAND_OK && s != PGRES_TUPLES_OK)
      throw std::runtime_error("MFPRIO_BENCH_PG: " + sql + ": " + PQerrorMessage(c_));
    return v;
  }

 private:
  PGconn* c_;
};

void pg_drop_db() {
  if (g_pg.db.empty()) return;
  try {
    PgConn(g_pg.base_uri).exec("DROP DATABASE IF EXISTS " + g_pg.db + " WITH (FORCE)");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mfprio-bench: %s (drop it by hand)\n", e.what());
  }
}

// Puts the plugin on the PostgreSQL store (once): init, the running jobs
// resolved there, one decay charging them (their ledger rows: steady state).
void pg_attach() {
  auto& P = *g->plugin;
  if (g_pg.attached) return;
  P.fini();
  P.init(g_pg.uri);
  g_pg.running = g->running.jobs;
  for (auto& j : g_pg.running) P.check(P.ops.job_resolve(&j), "job_resolve (PostgreSQL)");
  P.now += 300;
  P.check(P.ops.decay(P.now, g_pg.running.data(), g_pg.running.size()), "decay (PostgreSQL)");
  g_pg.attached = true;
}

// The PostgreSQL twins of decay_idle / full cycle's decay / job_end(_batch).
void bm_pg_decay(benchmark::State& st, bool with_running) {
  auto& P = *g->plugin;
  try {
    for (auto _ : st) {
      if (!g_pg.attached) {
        st.PauseTiming();
        pg_attach();
        st.ResumeTiming();
      }
      P.now += 300;
      P.check(with_running ? P.ops.decay(P.now, g_pg.running.data(), g_pg.running.size())
                           : P.ops.decay(P.now, nullptr, 0), "decay");
    }
  } catch (const std::exception& e) {
    fail_state(st, e);
  }
}

void bm_pg_job_end_batch(benchmark::State& st) { bm_job_end_batch(st, &g_pg.running, pg_attach); }

// The leadership check of every write transaction (sql_pg.cpp: the
// transaction's pg_advisory_xact_lock after BEGIN, the change counter
// bumped before COMMIT), on a connection of its own to the bench's
// database, uncontended: the two statements timed inside an open
// transaction, which is rolled back untimed.  Counter lock_us: the lock
// statement alone.
void bm_pg_leader_check(benchmark::State& st) {
  try {
    PgConn pc(g_pg.uri);
    pc.exec(std::string("SET search_path = mfprio_") + mfprio::acct::kDefaultCluster);
    double lock_s = 0;
    for (auto _ : st) {
      st.PauseTiming();
      pc.exec("BEGIN");
      st.ResumeTiming();
      const auto t0 = Clock::now();
      pc.exec("SELECT pg_advisory_xact_lock(7236828750624404339)");
      lock_s += secs(t0, Clock::now());
      benchmark::DoNotOptimize(pc.exec("UPDATE store_meta SET changes = changes + 1 WHERE id = 1 RETURNING changes"));
      st.PauseTiming();
      pc.exec("ROLLBACK");
      st.ResumeTiming();
    }
    st.counters["lock_us"] = lock_s * 1e6 / static_cast<double>(std::max<int64_t>(1, st.iterations()));
  } catch (const std::exception& e) {
    fail_state(st, e);
  }
}

void bm_pg_cold_recompute(benchmark::State& st) {
  g_pg.attached = false;  // cold_recompute_on ends on the SQLite store
  cold_recompute_on(st, g_pg.uri, false);
}

// The bench's database with the plugin's 10^5 tree, and the figures.
void register_pg(Ctx& c) {
  const char* env = std::getenv("MFPRIO_BENCH_PG");
  if (!env || !*env) return;
  g_pg.base_uri = env;
  std::fprintf(stderr, "mfprio-bench: building the %zu-association store on PostgreSQL ...\n", c.hier->assocs.size());
  {
    PgConn admin(g_pg.base_uri);
    g_pg.settings = "fsync=" + admin.exec("SHOW fsync") + ", synchronous_commit=" +
                    admin.exec("SHOW synchronous_commit") + ", full_page_writes=" + admin.exec("SHOW full_page_writes");
    g_pg.db = "mfprio_bench_" + std::to_string(getpid());
    admin.exec("DROP DATABASE IF EXISTS " + g_pg.db + " WITH (FORCE)");
    admin.exec("CREATE DATABASE " + g_pg.db);
  }
  g_pg.uri = pg_uri_with_db(g_pg.base_uri, g_pg.db);
  const auto t0 = Clock::now();
  mfprio::acct::Store::open(g_pg.uri)->apply_admin(mb::to_admin_changes(*c.hier));
  g_pg.build_s = secs(t0, Clock::now());
  const int reps = c.opt.reps;
  benchmark::RegisterBenchmark("pg/decay_idle", bm_pg_decay, false)
      ->Repetitions(reps)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::RegisterBenchmark("pg/decay_running", bm_pg_decay, true)
      ->Repetitions(reps)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond)->Iterations(1);
  benchmark::RegisterBenchmark("pg/job_end_batch", bm_pg_job_end_batch)
      ->Repetitions(reps)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond)
      ->Iterations(static_cast<int64_t>(std::max<size_t>(5, c.opt.job_ends / kEndBatch)));
  benchmark::RegisterBenchmark("pg/leader_check", bm_pg_leader_check)
      ->Repetitions(reps)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond)->Iterations(200);
  benchmark::RegisterBenchmark("pg/cold_recompute", bm_pg_cold_recompute)
      ->Repetitions(reps)->ReportAggregatesOnly(true)->Unit(benchmark::kMillisecond)->Iterations(1)->UseManualTime();
}
#else
void pg_drop_db() {}
void register_pg(Ctx&) {
  const char* env = std::getenv("MFPRIO_BENCH_PG");
  if (env && *env) throw std::runtime_error("MFPRIO_BENCH_PG is set but this build has no PostgreSQL (libpq not found)");
}
#endif

// ---- setup -----------------------------------------------------------------
void setup(Ctx& c) {
  char tmpl[4096];
  std::snprintf(tmpl, sizeof tmpl, "%s/mfprio-bench-XXXXXX", c.opt.tmp.c_str());
  if (!mkdtemp(tmpl)) throw std::runtime_error(c.opt.tmp + ": mkdtemp failed");
  c.dir = tmpl;
  c.store = c.dir + "/big.db";
  c.small_store = c.dir + "/small.db";

  std::fprintf(stderr, "mfprio-bench: generating inputs in %s ...\n", c.dir.c_str());
  mb::TreeParams tp;
  tp.depth = 4;
  tp.assocs = c.opt.assocs;
  tp.seed = 42;
  c.hier = std::make_shared<const mb::Hierarchy>(mb::make_random_tree(tp));
  tp.assocs = c.opt.small_assocs;
  c.small_hier = std::make_shared<const mb::Hierarchy>(mb::make_random_tree(tp));
  c.comparison = std::make_shared<const mb::Hierarchy>(mb::make_comparison_tree(c.opt.assocs, 1));
  mb::TreeParams t5;
  t5.depth = 5;
  t5.assocs = c.opt.assocs;
  t5.seed = 5;
  c.random5 = std::make_shared<const mb::Hierarchy>(mb::make_random_tree(t5));
  c.comparison_tree = mb::to_share_tree(*c.comparison);
  c.random5_tree = mb::to_share_tree(*c.random5);

  auto t0 = Clock::now();
  build_store(c.store, *c.hier);
  c.store_build_s = secs(t0, Clock::now());
  build_store(c.small_store, *c.small_hier);
  c.base_copy = c.dir + "/base.db";  // closed above, so the WAL is in the file
  std::filesystem::copy_file(c.store, c.base_copy);

  mb::JobParams jp;
  jp.count = c.opt.pending;
  c.pending = mb::make_jobs(c.hier, jp);
  mb::JobParams rp;
  rp.count = c.opt.running;
  rp.running = true;
  rp.seed = 8;
  rp.first_id = 100'000'000;
  c.running = mb::make_jobs(c.hier, rp);
  c.next_job_id = 200'000'000;
  c.prios.assign(c.pending.jobs.size(), 0);

  c.plugin = std::make_unique<mb::PluginHost>();
  auto& P = *c.plugin;
  P.now = jp.now;

  // Memory per association: live heap (and RSS) added by init, small vs big.
  malloc_trim(0);
  size_t h0 = heap_in_use(), r0 = rss_bytes();
  P.init(c.small_store);
  c.heap_small = double(heap_in_use()) - double(h0);
  c.rss_small = double(rss_bytes()) - double(r0);
  P.fini();
  malloc_trim(0);
  h0 = heap_in_use();
  r0 = rss_bytes();
  P.init(c.store);
  c.heap_big = double(heap_in_use()) - double(h0);
  c.rss_big = double(rss_bytes()) - double(r0);

  // The first decay pass sets last_decay, so later passes really decay.
  P.check(P.ops.decay(P.now, nullptr, 0), "decay");

  // Resolve every record once (the host keeps the handles).
  std::fprintf(stderr, "mfprio-bench: resolving %zu pending + %zu running records ...\n",
               c.pending.jobs.size(), c.running.jobs.size());
  t0 = Clock::now();
  for (auto& j : c.pending.jobs) P.check(P.ops.job_resolve(&j), "job_resolve");
  c.resolve_ns = secs(t0, Clock::now()) * 1e9 / double(c.pending.jobs.size());
  for (auto& j : c.running.jobs) P.check(P.ops.job_resolve(&j), "job_resolve");

  // Per-job plugin state: live heap before and after pricing every record.
  malloc_trim(0);
  const size_t hb = heap_in_use();
  P.check(P.ops.set_priority_batch(c.pending.jobs.data(), c.pending.jobs.size(), P.now, c.prios.data(), nullptr),
          "set_priority_batch");
  c.per_job_plugin_bytes = (double(heap_in_use()) - double(hb)) / double(c.pending.jobs.size());

  // Warm-up cycle: the running jobs get their ledger rows (later cycles update them).
  P.now += 300;
  P.check(P.ops.decay(P.now, c.running.jobs.data(), c.running.jobs.size()), "decay");
}

void register_all(Ctx& c) {
  const int reps = c.opt.reps;
  const double mt = c.opt.quick ? 0.05 : 0.2;
  auto agg = [&](benchmark::internal::Benchmark* b) {
    b->Repetitions(reps)->ReportAggregatesOnly(true);
    return b;
  };
  using mfprio::FairShareAlgo;
  agg(benchmark::RegisterBenchmark("fairshare/fair_tree/comparison", bm_fair_share, &c.comparison_tree,
                                   FairShareAlgo::FairTree))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("fairshare/classic/comparison", bm_fair_share, &c.comparison_tree,
                                   FairShareAlgo::Classic))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("fairshare/fair_tree/random_d5", bm_fair_share, &c.random5_tree,
                                   FairShareAlgo::FairTree))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("fairshare/classic/random_d5", bm_fair_share, &c.random5_tree,
                                   FairShareAlgo::Classic))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  // The other two algorithms on the same tree (figures belong here, not in a
  // test that times and asserts nothing: tests/core's 10^5-user timing moved here).
  agg(benchmark::RegisterBenchmark("fairshare/depth_oblivious/random_d5", bm_fair_share, &c.random5_tree,
                                   FairShareAlgo::DepthOblivious))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("fairshare/ticket_based/random_d5", bm_fair_share, &c.random5_tree,
                                   FairShareAlgo::TicketBased))
      ->Unit(benchmark::kMillisecond)->MinTime(mt);
  if (c.opt.sweep) {
    // Fair Tree over depth 2..5 x 10^3..10^5 associations (trees built lazily).
    static std::vector<std::unique_ptr<mfprio::ShareTree>> trees;
    for (unsigned d = 2; d <= 5; ++d)
      for (size_t n : {size_t(1000), size_t(10000), size_t(100000)}) {
        if (n > c.opt.assocs) continue;
        mb::TreeParams tp;
        tp.depth = d;
        tp.assocs = n;
        tp.seed = 100 + d;
        trees.push_back(std::make_unique<mfprio::ShareTree>(mb::to_share_tree(mb::make_random_tree(tp))));
        const std::string name = "sweep/fair_tree/d" + std::to_string(d) + "/n" + std::to_string(n);
        benchmark::RegisterBenchmark(name.c_str(), bm_fair_share, trees.back().get(), FairShareAlgo::FairTree)
            ->Repetitions(3)->ReportAggregatesOnly(true)->Unit(benchmark::kMicrosecond)->MinTime(0.05);
      }
  }
  agg(benchmark::RegisterBenchmark("abi/memory_floor", bm_memory_floor))->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("abi/set_priority_batch", bm_batch))->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("abi/set_priority_one", bm_one_call))->Unit(benchmark::kNanosecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("abi/set_priority_loop", bm_call_loop))->Unit(benchmark::kMillisecond)->MinTime(mt);
  agg(benchmark::RegisterBenchmark("store/load", bm_store_load))->Unit(benchmark::kMillisecond)->Iterations(1);
  agg(benchmark::RegisterBenchmark("plugin/decay_idle", bm_decay_idle))->Unit(benchmark::kMillisecond)->Iterations(1);
  agg(benchmark::RegisterBenchmark("plugin/full_cycle", bm_full_cycle))
      ->Unit(benchmark::kMillisecond)->Iterations(1)->UseManualTime();
  agg(benchmark::RegisterBenchmark("store/fdatasync", bm_fdatasync))
      ->Unit(benchmark::kMicrosecond)->Iterations(c.opt.quick ? 50 : 200);
  agg(benchmark::RegisterBenchmark("plugin/job_end", bm_job_end, &c.running.jobs))
      ->Unit(benchmark::kMicrosecond)->Iterations(static_cast<int64_t>(c.opt.job_ends));
  agg(benchmark::RegisterBenchmark("plugin/job_end_batch", bm_job_end_batch, &c.running.jobs, nullptr))
      ->Unit(benchmark::kMicrosecond)->Iterations(static_cast<int64_t>(std::max<size_t>(5, c.opt.job_ends / kEndBatch)));
  agg(benchmark::RegisterBenchmark("plugin/cold_recompute", bm_cold_recompute))
      ->Unit(benchmark::kMillisecond)->Iterations(1)->UseManualTime();
  agg(benchmark::RegisterBenchmark("plugin/cold_recompute_no_cache", bm_cold_recompute_no_cache))
      ->Unit(benchmark::kMillisecond)->Iterations(1)->UseManualTime();
  register_million(c);
  register_pg(c);
}

// ---- Performance II: families, processes, the fsync floor ----------------------
#ifndef MFPRIO_HOST_BIN
#define MFPRIO_HOST_BIN "host-shim/mfprio-host"
#endif

void run_perf2(Ctx& c) {
  if (c.opt.families == "none") return;
  mb::FamilyInputs fi;
  fi.base_store = c.base_copy;
  fi.dir = c.dir;
  fi.hier = c.hier.get();
  fi.pending = &c.pending.jobs;
  fi.running = &c.running.jobs;
  fi.now = c.plugin->now;
  fi.reps = c.opt.reps;
  fi.only = c.opt.families;
  c.families = mb::run_family_figures(fi);
  if (!c.opt.processes) return;
  std::fprintf(stderr, "mfprio-bench: mfprio-host sshare / decay as processes ...\n");
  mb::ProcessInputs pi;
  const char* host = std::getenv("MFPRIO_HOST_BIN");
  pi.host_bin = host && *host ? host : MFPRIO_HOST_BIN;
  pi.plugin_dir = mb::plugin_dir();
  pi.base_store = c.base_copy;
  pi.dir = c.dir;
  pi.conf = mb::multifactor_conf();
  pi.now = c.plugin->now + 86400;
  pi.reps = c.opt.reps;
  c.proc = mb::run_process_figures(pi);
  if (!c.proc.error.empty()) std::fprintf(stderr, "mfprio-bench: processes: %s\n", c.proc.error.c_str());
}

#ifndef MFPRIO_FLOOR_BIN
#define MFPRIO_FLOOR_BIN "bench/mfprio-bench-sqlite-floor"
#endif
#ifndef MFPRIO_PEAK_BIN
#define MFPRIO_PEAK_BIN "bench/mfprio-bench-peak-rss"
#endif

// The cold start of a site-shaped tree (20 departments x 50 groups x users) as
// a process, at opt.assocs and (not with --quick) 10^6 associations: decay vs
// SQLite's read of the same store, peak RSS over an almost empty store's.
void run_cold(Ctx& c) {
  if (c.opt.families == "none" || !c.opt.processes) return;
  if (c.dir.empty()) {
    char tmpl[4096];
    std::snprintf(tmpl, sizeof tmpl, "%s/mfprio-bench-XXXXXX", c.opt.tmp.c_str());
    if (!mkdtemp(tmpl)) throw std::runtime_error(c.opt.tmp + ": mkdtemp failed");
    c.dir = tmpl;
  }
  const std::string empty = c.dir + "/site-empty.db";
  mb::TreeParams tp;
  tp.depth = 2;
  tp.assocs = 10;
  tp.seed = 11;
  const mb::Hierarchy eh = mb::make_random_tree(tp);
  build_store(empty, eh);
  std::vector<size_t> sizes{c.opt.assocs};
  if (!c.opt.quick && c.opt.assocs != kMillion) sizes.push_back(kMillion);
  const char* host = std::getenv("MFPRIO_HOST_BIN");
  const char* floor_bin = std::getenv("MFPRIO_FLOOR_BIN");
  for (size_t n : sizes) {
    std::fprintf(stderr, "mfprio-bench: site-shaped store, %zu assocs: decay / SQLite read as processes ...\n", n);
    mb::ColdInputs ci;
    ci.host_bin = host && *host ? host : MFPRIO_HOST_BIN;
    ci.floor_bin = floor_bin && *floor_bin ? floor_bin : MFPRIO_FLOOR_BIN;
    ci.peak_bin = MFPRIO_PEAK_BIN;
    ci.plugin_dir = mb::plugin_dir();
    ci.dir = c.dir;
    ci.tag = std::to_string(n);
    ci.base_store = c.dir + "/site-" + ci.tag + ".db";
    {
      const mb::Hierarchy h = mb::make_comparison_tree(n, 1);
      ci.assocs = h.assocs.size();
      build_store(ci.base_store, h);
    }
    ci.empty_store = empty;
    ci.empty_assocs = eh.assocs.size();
    ci.conf = mb::multifactor_conf();
    ci.now = 1'700'000'000 + 2 * 86400;
    ci.reps = c.opt.reps;
    c.cold.push_back(mb::run_cold_figures(ci));
    if (!c.cold.back().error.empty())
      std::fprintf(stderr, "mfprio-bench: cold start: %s\n", c.cold.back().error.c_str());
    std::filesystem::remove(ci.base_store);
  }
}

using AddRow = std::function<void(std::string, std::string, std::string, std::string, std::string)>;

std::string fmt(const char* f, double v);
std::string verdict(double v, double limit, bool strict = false);

// One row per family: batch / floor of the same records, target 3x.
void family_rows(const Ctx& c, const AddRow& add) {
  for (const mb::FamilyFigure& f : c.families) {
    if (!f.error.empty()) {
      add("family " + f.family + ": " + f.what, "error", "", "<= 3x floor", "n/a");
      add("  " + f.error.substr(0, 100), "", "", "", "");
      continue;
    }
    const double n = double(f.records);
    const double ratio = f.batch_ns / f.floor_ns;
    add("family " + f.family + ": " + f.what + " / memory floor", fmt("%.2fx", ratio),
        fmt("%.2fx", f.batch_cpu_ns / f.floor_cpu_ns), "<= 3x", verdict(ratio, 3, false));
    add("  " + f.family + ": " + f.what + fmt(", %.0f records", n) +
            (f.failed ? fmt(" (%.0f refused)", double(f.failed)) : std::string()),
        fmt("%.1f ns/job", f.batch_ns / n), fmt("%.1f", f.batch_cpu_ns / n), "", "");
    add("  " + f.family + ": memory floor, same records", fmt("%.1f ns/job", f.floor_ns / n),
        fmt("%.1f", f.floor_cpu_ns / n), "", "");
    if (f.changed_cpu_ns > 0)
      add("  " + f.family + ": the same, the first record changed before each pass (CPU)",
          fmt("%.1f ns/job", f.changed_cpu_ns / n), fmt("%.1f", f.changed_cpu_ns / n), "", "");
    if (f.after_usage_cpu_ns > 0)
      add("  " + f.family + ": the same, after a usage pass before each pass (CPU)",
          fmt("%.1f ns/job", f.after_usage_cpu_ns / n), fmt("%.1f", f.after_usage_cpu_ns / n), "", "");
  }
}

void process_rows(const Ctx& c, const AddRow& add) {
  const mb::ProcessFigure& p = c.proc;
  if (p.runs == 0 && p.error.empty()) return;  // not run (--families=none): no row, not a 0.00x
  if (!p.error.empty()) {
    add("mfprio-host sshare -a / mfprio-host decay (processes)", "error", "", "<= 1.3x", "n/a");
    add("  " + p.error.substr(0, 100), "", "", "", "");
    return;
  }
  add("mfprio-host sshare -a / decay --now T (processes, pairwise)", fmt("%.2fx", p.ratio),
      fmt("%.2fx", p.sshare_cpu_ms / p.decay_cpu_ms), "<= 1.3x", verdict(p.ratio, 1.3, false));
  add("  mfprio-host sshare -a" + fmt(" (%.0f lines", double(p.sshare_lines)) +
          fmt(", %.1f MB)", double(p.sshare_bytes) / 1e6),
      fmt("%.1f ms", p.sshare_ms), fmt("%.1f", p.sshare_cpu_ms), "", "");
  add("  mfprio-host decay --now T (cold recompute as a process)", fmt("%.1f ms", p.decay_ms),
      fmt("%.1f", p.decay_cpu_ms), "", "");
}

void cold_rows(const Ctx& c, const AddRow& add) {
  for (const mb::ColdFigure& f : c.cold) {
    const std::string n = std::to_string(f.assocs);
    if (!f.error.empty()) {
      add("site-shaped " + n + ": decay / SQLite read (processes)", "error", "", "<= 1.5x", "n/a");
      add("  " + f.error.substr(0, 100), "", "", "", "");
      continue;
    }
    add("site-shaped 20x50x users, " + n + " assocs: decay --now T / SQLite read (processes, pairwise)",
        fmt("%.2fx", f.ratio), fmt("%.2fx", f.decay_cpu_ms / f.floor_cpu_ms), "<= 1.5x", verdict(f.ratio, 1.5));
    add("  mfprio-host decay --now T (cold recompute as a process)", fmt("%.1f ms", f.decay_ms),
        fmt("%.1f", f.decay_cpu_ms), "", "");
    add("  SQLite read of every column (mfprio-bench-sqlite-floor)", fmt("%.1f ms", f.floor_ms),
        fmt("%.1f", f.floor_cpu_ms), "", "");
    add("  decay peak RSS per association over an almost empty store's" +
            fmt(" (%.1f MB", f.peak_kb * 1024 / 1e6) + fmt(" vs %.1f MB)", f.empty_peak_kb * 1024 / 1e6),
        fmt("%.0f B", f.bytes_per_assoc), "", "<= 200 B", verdict(f.bytes_per_assoc, 200));
  }
}

// ---- the table -------------------------------------------------------------
struct Row {
  std::string figure;
  std::string value;
  std::string cpu;
  std::string target;
  std::string verdict;
};

std::string loadavg() {
  char b[128] = "";
  if (FILE* f = std::fopen("/proc/loadavg", "r")) {
    if (!std::fgets(b, sizeof b, f)) b[0] = 0;
    std::fclose(f);
  }
  std::string s(b);
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}
std::string g_load_before;

std::string fmt(const char* f, double v) {
  char b[160];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

double med(const std::string& name) {
  auto it = g_median.find(name);
  return it == g_median.end() ? NAN : it->second.ns;
}
double cpu(const std::string& name) {
  auto it = g_median.find(name);
  return it == g_median.end() ? NAN : it->second.cpu_ns;
}
double counter(const std::string& name, const std::string& k) {
  auto it = g_median.find(name);
  if (it == g_median.end()) return NAN;
  auto c = it->second.counters.find(k);
  return c == it->second.counters.end() ? NAN : c->second;
}

std::string verdict(double v, double limit, bool strict) {
  if (std::isnan(v)) return "n/a";
  return (strict ? v < limit : v <= limit) ? "PASS" : "MISS";
}

void million_rows(const Ctx& c, std::vector<Row>* rows) {
  const double nc = med("plugin/cold_recompute_no_cache") / 1e6;
  rows->push_back({"  first start after a hierarchy change (no tree cache)", fmt("%.1f ms", nc),
                   fmt("%.1f", cpu("plugin/cold_recompute_no_cache") / 1e6), "", ""});
  if (c.opt.quick || g_million.path.empty()) return;
  const double ms = med("plugin/cold_recompute_1m") / 1e6;
  rows->push_back({"cold recompute: init (" + std::to_string(g_million.assocs) + " assocs) + decay",
                   fmt("%.1f ms", ms), fmt("%.1f", cpu("plugin/cold_recompute_1m") / 1e6), "< 1000 ms",
                   verdict(ms, 1000, true)});
  rows->push_back({"  of which init", fmt("%.1f ms", counter("plugin/cold_recompute_1m", "init_ms")), "", "", ""});
  rows->push_back({"  memory per association, 10^6 store (RSS; live heap)",
                   fmt("%.0f B", g_million.rss_per_assoc) + fmt("; %.0f B", g_million.heap_per_assoc), "",
                   "<= 200 B", verdict(g_million.rss_per_assoc, 200)});
  rows->push_back({"  10^6 store built in", fmt("%.1f s", g_million.build_s), "", "", ""});
}

// PostgreSQL beside SQLite (register_pg); one line when MFPRIO_BENCH_PG is unset.
void pg_rows(const Ctx& c, const AddRow& add) {
  if (g_pg.base_uri.empty()) {
    add("PostgreSQL figures: not measured (MFPRIO_BENCH_PG, a libpq URI, is not set)", "", "", "", "");
    return;
  }
  add("PostgreSQL (" + g_pg.settings + "), " + std::to_string(c.hier->assocs.size()) + " assocs" +
          fmt(", store built in %.1f s", g_pg.build_s),
      "", "", "", "");
  const double cold = med("pg/cold_recompute") / 1e6, sq = med("plugin/cold_recompute") / 1e6;
  add("  PG cold recompute: init + decay", fmt("%.1f ms", cold), fmt("%.1f", cpu("pg/cold_recompute") / 1e6), "", "");
  add("    of which init (open, load, build, fair share)", fmt("%.1f ms", counter("pg/cold_recompute", "init_ms")), "",
      "", "");
  add("  PG cold recompute / SQLite's", fmt("%.2fx", cold / sq), "", "<= 2x", verdict(cold / sq, 2));
  add("  PG decay with " + std::to_string(c.running.jobs.size()) + " running jobs",
      fmt("%.1f ms", med("pg/decay_running") / 1e6), fmt("%.1f", cpu("pg/decay_running") / 1e6), "", "");
  add("  PG decay with no running job", fmt("%.1f ms", med("pg/decay_idle") / 1e6),
      fmt("%.1f", cpu("pg/decay_idle") / 1e6), "", "");
  const double jb = 1e9 * kEndBatch / med("pg/job_end_batch");
  add("  PG job_end_batch: durable charges/s (100 a txn)", fmt("%.0f /s", jb),
      fmt("%.0f", 1e9 * kEndBatch / cpu("pg/job_end_batch")), ">= 50000 /s", verdict(-jb, -50000, false));
  add("  PG leadership check per write txn (xact lock + change counter)",
      fmt("%.1f us", med("pg/leader_check") / 1e3), fmt("%.1f", cpu("pg/leader_check") / 1e3), "", "");
  add("    of which the pg_advisory_xact_lock statement", fmt("%.1f us", counter("pg/leader_check", "lock_us")), "",
      "", "");
}

void print_rows(const Ctx& c, const std::vector<Row>& rows);

void print_table(const Ctx& c) {
  const double N = double(c.pending.jobs.size());
  std::vector<Row> rows;
  // add(figure, wall value, cpu value, target, verdict); "" where it does not apply.
  auto add = [&](std::string f, std::string v, std::string cp, std::string t, std::string vd) {
    rows.push_back({std::move(f), std::move(v), std::move(cp), std::move(t), std::move(vd)});
  };
  if (c.opt.cold_only) {
    cold_rows(c, add);
    print_rows(c, rows);
    return;
  }
  const std::string n_assoc = std::to_string(c.hier->assocs.size());
  const std::string n_pend = std::to_string(c.pending.jobs.size());
  const std::string n_run = std::to_string(c.running.jobs.size());

  const double floor_ns = med("abi/memory_floor") / N, floor_cpu = cpu("abi/memory_floor") / N;
  const double batch_ns = med("abi/set_priority_batch") / N, batch_cpu = cpu("abi/set_priority_batch") / N;
  add("batch set_priority, " + n_pend + " resolved records", fmt("%.1f ns/job", batch_ns), fmt("%.1f", batch_cpu), "",
      "");
  add("  memory floor (read the same records)", fmt("%.1f ns/job", floor_ns), fmt("%.1f", floor_cpu), "", "");
  add("family multifactor: set_priority_batch / memory floor", fmt("%.2fx", batch_ns / floor_ns), fmt("%.2fx", batch_cpu / floor_cpu), "<= 3x",
      verdict(batch_ns / floor_ns, 3));
  const double one = med("abi/set_priority_one");
  add("one set_priority call (ABI, hot record)", fmt("%.0f ns", one), fmt("%.0f", cpu("abi/set_priority_one")),
      "<= 300 ns", verdict(one, 300));
  add("  set_priority called once per record, all records", fmt("%.1f ns/job", med("abi/set_priority_loop") / N),
      fmt("%.1f", cpu("abi/set_priority_loop") / N), "", "");
  add("  job_resolve (name look-ups), per record", fmt("%.0f ns", c.resolve_ns), "", "", "");
  family_rows(c, add);

  const struct {
    const char* name;
    const char* label;
    bool target;
  } fs[] = {{"fairshare/fair_tree/comparison", "Fair Tree, comparison shape", true},
            {"fairshare/fair_tree/random_d5", "Fair Tree, random depth 5", true},
            {"fairshare/classic/comparison", "classic, comparison shape", false},
            {"fairshare/classic/random_d5", "classic, random depth 5", false},
            {"fairshare/depth_oblivious/random_d5", "depth-oblivious, random depth 5", false},
            {"fairshare/ticket_based/random_d5", "ticket-based, random depth 5", false}};
  for (const auto& f : fs) {
    const double ms = med(f.name) / 1e6;
    add(std::string(f.label) + fmt(", %.0f nodes", counter(f.name, "nodes")), fmt("%.2f ms", ms),
        fmt("%.2f", cpu(f.name) / 1e6), f.target ? "<= 10 ms" : "", f.target ? verdict(ms, 10) : "");
  }

  const double cold = med("plugin/cold_recompute") / 1e6;
  add("cold recompute: init (" + n_assoc + " assocs) + decay", fmt("%.1f ms", cold),
      fmt("%.1f", cpu("plugin/cold_recompute") / 1e6), "<= 80 ms", verdict(cold, 80));
  add("  of which init (open, load, build, fair share)", fmt("%.1f ms", counter("plugin/cold_recompute", "init_ms")),
      "", "", "");
  add("  of which decay (one txn: decay scale, fair share)",
      fmt("%.1f ms", counter("plugin/cold_recompute", "decay_ms")), "", "", "");
  million_rows(c, &rows);

  const double cyc = med("plugin/full_cycle") / 1e6;
  add("full cycle: charge " + n_run + " running, decay, FS, batch " + n_pend, fmt("%.1f ms", cyc),
      fmt("%.1f", cpu("plugin/full_cycle") / 1e6), "< 250 ms", verdict(cyc, 250, true));
  const double cyc_decay = counter("plugin/full_cycle", "decay_ms");
  add("  of which decay with charges", fmt("%.1f ms", cyc_decay), "", "", "");
  add("  of which set_priority_batch", fmt("%.1f ms", counter("plugin/full_cycle", "batch_ms")), "", "", "");
  const double idle = med("plugin/decay_idle") / 1e6;
  add("  decay with no running job", fmt("%.1f ms", idle), fmt("%.1f", cpu("plugin/decay_idle") / 1e6), "", "");

  const double je_us = med("plugin/job_end") / 1e3;
  const double je_rate = 1e6 / je_us;
  const double jb_rate = 1e9 * kEndBatch / med("plugin/job_end_batch");
  add("job_end_batch: durable charges/s (100 a txn)", fmt("%.0f /s", jb_rate),
      fmt("%.0f", 1e9 * kEndBatch / cpu("plugin/job_end_batch")), ">= 100000 /s",
      verdict(-jb_rate, -100000, false));
  add("job_end: durable charges/s (one txn each)", fmt("%.0f /s", je_rate),
      fmt("%.0f", 1e9 / cpu("plugin/job_end")), ">= 20000 /s", verdict(-je_rate, -20000, false));
  add("  job_end latency", fmt("%.1f us", je_us), fmt("%.1f", cpu("plugin/job_end") / 1e3), "", "");
  add("  fdatasync of one page on the stores' disk (the floor of a durable commit)",
      fmt("%.1f us", med("store/fdatasync") / 1e3), fmt("%.1f", cpu("store/fdatasync") / 1e3), "", "");
  const double batched = double(c.running.jobs.size()) / ((cyc_decay - idle) / 1e3);
  add("  charges/s batched in one decay txn", fmt("%.0f /s", batched), "", "", "");

  process_rows(c, add);
  cold_rows(c, add);
  pg_rows(c, add);

  const double load = med("store/load") / 1e6;
  add("Store::load of " + n_assoc + " assocs", fmt("%.1f ms", load), fmt("%.1f", cpu("store/load") / 1e6), "< 200 ms",
      verdict(load, 200, true));

  const double per_job = double(sizeof(mfprio_job_t)) + c.per_job_plugin_bytes;
  add("memory per pending job: sizeof(mfprio_job_t) + plugin",
      fmt("%.0f B", double(sizeof(mfprio_job_t))) + fmt(" + %.1f B", c.per_job_plugin_bytes), "", "<= 176 B",
      verdict(per_job, 176));
  const double dn = double(c.hier->assocs.size() - c.small_hier->assocs.size());
  if (dn > 0) {
    add("memory per association (live heap, init " + n_assoc + " vs " + std::to_string(c.small_hier->assocs.size()) +
            ")",
        fmt("%.0f B", (c.heap_big - c.heap_small) / dn), "", "", "");
    add("  RSS delta per association (statm)", fmt("%.0f B", (c.rss_big - c.rss_small) / dn), "", "<= 200 B",
        verdict((c.rss_big - c.rss_small) / dn, 200));
  }

  print_rows(c, rows);
}

// Prints the header lines and the table (print_table).
void print_rows(const Ctx& c, const std::vector<Row>& rows) {
  size_t w0 = 6, w1 = 4, w2 = 3, w3 = 6;
  for (const Row& r : rows) {
    w0 = std::max(w0, r.figure.size());
    w1 = std::max(w1, r.value.size());
    w2 = std::max(w2, r.cpu.size());
    w3 = std::max(w3, r.target.size());
  }
  std::printf("\nmfprio-bench: medians of %d repetitions%s (one thread; stores in %s)\n", c.opt.reps,
              c.opt.quick ? ", --quick sizes: targets are set for the full sizes" : "", c.opt.tmp.c_str());
  if (c.hier)
    std::printf("inputs: plugin store = %s (%zu accounts, %zu FairShare=parent accounts, %zu FairShare=parent "
                "assocs, %zu idle); %zu pending records, %zu running; store built in %.1f s\n",
                c.hier->label.c_str(), c.hier->accounts.size(), c.hier->fs_parent_accounts, c.hier->fs_parent_users,
                c.hier->idle_users, c.pending.jobs.size(), c.running.jobs.size(), c.store_build_s);
  std::printf("load average before: %s, after: %s (%ld CPUs online)\n", g_load_before.c_str(), loadavg().c_str(),
              sysconf(_SC_NPROCESSORS_ONLN));
  std::printf("wall = elapsed time (the figure judged); cpu = this thread's CPU time, same unit (differs from wall\n"
              "when the machine is shared or the call waits on I/O)\n\n");
  std::printf("%-*s  %*s  %*s  %-*s  %s\n", int(w0), "figure", int(w1), "wall", int(w2), "cpu", int(w3), "target",
              "result");
  std::printf("%s\n", std::string(w0 + w1 + w2 + w3 + 16, '-').c_str());
  for (const Row& r : rows)
    std::printf("%-*s  %*s  %*s  %-*s  %s\n", int(w0), r.figure.c_str(), int(w1), r.value.c_str(), int(w2),
                r.cpu.c_str(), int(w3), r.target.c_str(), r.verdict.c_str());
}

bool take_flag(const char* arg, const char* name, std::string* value) {
  const size_t n = std::strlen(name);
  if (std::strncmp(arg, name, n) != 0) return false;
  if (arg[n] == '=') {
    *value = arg + n + 1;
    return true;
  }
  if (arg[n] == 0) {
    value->clear();
    return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  Ctx c;
  Options& o = c.opt;
  bool sized = false;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    std::string v;
    if (take_flag(argv[i], "--quick", &v)) {
      o.quick = true;
    } else if (take_flag(argv[i], "--assocs", &v)) {
      o.assocs = std::stoul(v), sized = true;
    } else if (take_flag(argv[i], "--pending", &v)) {
      o.pending = std::stoul(v), sized = true;
    } else if (take_flag(argv[i], "--running", &v)) {
      o.running = std::stoul(v), sized = true;
    } else if (take_flag(argv[i], "--reps", &v)) {
      o.reps = std::max(1, std::stoi(v));
    } else if (take_flag(argv[i], "--no-sweep", &v)) {
      o.sweep = false;
    } else if (take_flag(argv[i], "--keep", &v)) {
      o.keep = true;
    } else if (take_flag(argv[i], "--families", &v)) {
      o.families = v;
    } else if (take_flag(argv[i], "--cold-only", &v)) {
      o.cold_only = true;
    } else if (take_flag(argv[i], "--no-processes", &v)) {
      o.processes = false;
    } else if (take_flag(argv[i], "--tmp", &v)) {
      o.tmp = v;
    } else if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
      std::printf(
          "usage: mfprio-bench [--quick] [--assocs=N] [--pending=N] [--running=N] [--reps=N]\n"
          "                    [--no-sweep] [--tmp=DIR] [--keep] [--families=maui,gridengine,flux|none]\n"
          "                    [--cold-only] [--no-processes]\n"
          "                    [Google Benchmark flags]\n");
      benchmark::PrintDefaultHelp();
      return 0;
    } else {
      rest.push_back(argv[i]);
    }
  }
  if (o.quick) {
    if (!sized) {
      o.assocs = 10000;
      o.pending = 100000;
      o.running = 1000;
    }
    o.reps = std::min(o.reps, 3);
    o.job_ends = 500;
  }
  o.pending = std::max<size_t>(o.pending, 1024);
  o.running = std::max<size_t>(o.running, 1);
  o.small_assocs = std::min(o.small_assocs, o.assocs);
  int bargc = static_cast<int>(rest.size());
  rest.push_back(nullptr);
  benchmark::Initialize(&bargc, rest.data());
  if (benchmark::ReportUnrecognizedArguments(bargc, rest.data())) return 2;

  g = &c;
  int status = 0;
  try {
    g_load_before = loadavg();
    if (!o.cold_only) {
      setup(c);
      register_all(c);
      CapturingReporter rep;
      benchmark::RunSpecifiedBenchmarks(&rep);
      run_perf2(c);
    }
    run_cold(c);
    print_table(c);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mfprio-bench: %s\n", e.what());
    status = 1;
  }
  c.plugin.reset();
  pg_drop_db();
  if (!c.dir.empty() && !o.keep) std::filesystem::remove_all(c.dir);
  if (o.keep) std::fprintf(stderr, "mfprio-bench: kept %s\n", c.dir.c_str());
  benchmark::Shutdown();
  return status;
}
