// ge_pass.cpp - mfprio-bench-ge-pass: the time of one whole-queue pass
// (prioritize) over a job file, as mfprio-host sprio prices it.
//
//   mfprio-bench-ge-pass CONF JOBFILE NOW REPS
//
// Loads the conf's plugin the way mfprio-host does, reads the job records
// (the format of mfprio-host --job-file), resolves each once, hands the
// pending and held records with the running ones to prioritize() in
// submission order (price_queue in host-shim/main.cpp) once to warm up and
// then REPS times, timing each call alone (no parsing, resolving or
// printing).  Prints one JSON object: pending, running, the wall and this
// thread's CPU time of every repetition in ns, and the priorities of the
// last pass (a checksum, so that a pass cannot be optimised away).
// bench/ge_vs_sge.py runs it on the captured 8.1.9 queues.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <vector>

#include "conf.hpp"
#include "jobs_json.hpp"
#include "loader.hpp"
#include "settings.hpp"
#include "stable_order.hpp"

namespace {

using namespace mfprio::host;
using mfprio::Conf;
using mfprio::ConfPair;

double thread_cpu_ns() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) * 1e9 + double(ts.tv_nsec);
}

int run(const std::string& conf_path, const std::string& job_path, int64_t now, int reps) {
  Conf conf = Conf::load(conf_path);
  conf.add(ConfPair{"MfprioCreateStore", "no", conf_path, 0});
  const HostSettings settings = read_settings(conf, MFPRIO_PLUGIN_DIR);
  const JobFile jf = read_job_file(job_path);
  if (!jf.errors.empty()) {
    for (const std::string& e : jf.errors) std::fprintf(stderr, "mfprio-bench-ge-pass: %s\n", e.c_str());
    return 1;
  }
  std::vector<JobRecord> records = expand_records(jf.jobs);
  LogSink sink;
  Clock clock;
  clock.fixed = true;
  clock.now = now;
  std::unique_ptr<Plugin> plugin = Plugin::open(settings.priority_type, settings.plugin_dirs);
  plugin->init(conf, settings.cluster, &sink, &clock);
  const mfprio_ops_t& ops = plugin->ops();
  if (!ops.prioritize) {
    std::fprintf(stderr, "mfprio-bench-ge-pass: %s has no whole-queue pass (prioritize)\n", plugin->type().c_str());
    return 1;
  }
  std::vector<size_t> order(records.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  // The order mfprio-host sprio gives the plugin (host-shim's submission order).
  mfprio::stable_order(order, [&](size_t a, size_t b) { return submitted_before(*records[a].spec, *records[b].spec); });
  std::vector<mfprio_job_t> pend, running;
  for (size_t i : order) {
    JobRecord& r = records[i];
    if (ops.job_resolve) plugin->check(ops.job_resolve(&r.job), "job " + std::to_string(r.spec->id) + ": job_resolve");
    const uint32_t st = r.spec->state;
    if (st == MFPRIO_JOB_RUNNING) running.push_back(r.job);
    else if (st == MFPRIO_JOB_PENDING || st == MFPRIO_JOB_HELD) pend.push_back(r.job);
  }
  std::vector<uint32_t> prios(pend.size());
  std::vector<int> statuses(pend.size());
  auto pass = [&] {
    plugin->check(ops.prioritize(pend.empty() ? nullptr : pend.data(), pend.size(),
                                 running.empty() ? nullptr : running.data(), running.size(), now, prios.data(),
                                 statuses.data()),
                  "prioritize");
  };
  pass();  // warm-up: the store's rows and the pass's buffers
  std::vector<double> wall, cpu;
  for (int r = 0; r < reps; ++r) {
    const double c0 = thread_cpu_ns();
    const auto w0 = std::chrono::steady_clock::now();
    pass();
    wall.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - w0).count());
    cpu.push_back(thread_cpu_ns() - c0);
  }
  uint64_t sum = 0;
  size_t bad = 0;
  for (size_t k = 0; k < pend.size(); ++k) {
    sum = sum * 1099511628211u + prios[k];
    bad += statuses[k] != MFPRIO_OK;
  }
  std::printf("{\"pending\": %zu, \"running\": %zu, \"failed\": %zu, \"checksum\": %llu, \"wall_ns\": [", pend.size(),
              running.size(), bad, static_cast<unsigned long long>(sum));
  for (size_t r = 0; r < wall.size(); ++r) std::printf("%s%.0f", r ? ", " : "", wall[r]);
  std::printf("], \"cpu_ns\": [");
  for (size_t r = 0; r < cpu.size(); ++r) std::printf("%s%.0f", r ? ", " : "", cpu[r]);
  std::printf("]}\n");
  return bad ? 1 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 5) {
    std::fprintf(stderr, "usage: mfprio-bench-ge-pass CONF JOBFILE NOW REPS\n");
    return 2;
  }
  char* end = nullptr;
  const long long now = std::strtoll(argv[3], &end, 10);
  if (!*argv[3] || *end) {
    std::fprintf(stderr, "mfprio-bench-ge-pass: NOW '%s' is not a whole number of seconds\n", argv[3]);
    return 2;
  }
  const long reps = std::strtol(argv[4], &end, 10);
  if (!*argv[4] || *end || reps < 1 || reps > 1000) {
    std::fprintf(stderr, "mfprio-bench-ge-pass: REPS '%s' is not a number from 1 to 1000\n", argv[4]);
    return 2;
  }
  try {
    return run(argv[1], argv[2], now, int(reps));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mfprio-bench-ge-pass: %s\n", e.what());
    return 1;
  }
}
