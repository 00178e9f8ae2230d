// priority_basic.cpp - priority/basic: first come, first served.
//
// Slurm's FIFO rule (REFERENCE §1.1): each new job gets the previous new
// job's priority minus one (never below 1), then its nice is subtracted.  The
// first job starts just under 0xffff0000, Slurm's top priority.  A job seen
// before keeps the priority it was given, so asking twice gives one answer.
// Held jobs get 0.  No accounting store, no fair share, no usage.
//
// State: one Fifo object between init and fini, guarded by a mutex (basic
// keeps a job table, so unlike multifactor its set_priority takes a lock).
#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "edge.hpp"
#include "mfprio/mfprio.h"

extern "C" {
const char plugin_name[] = "Priority BASIC plugin (mfprio)";
const char plugin_type[] = "priority/basic";
const uint32_t plugin_version = MFPRIO_ABI_VERSION;
}

namespace {

using mfprio::edge::fail;
using mfprio::edge::guarded;

constexpr uint32_t kTopPriority = 0xffff0000u;

struct Fifo {
  std::mutex mu;
  uint32_t last = kTopPriority;
  std::unordered_map<uint64_t, uint32_t> base;  // job id -> priority before nice
  int64_t last_decay = 0;
};

std::unique_ptr<Fifo> g_fifo;  // exactly one between init and fini

int check_job(const mfprio_job_t* job) {
  if (!job) return fail(MFPRIO_EINVAL, "job is NULL");
  if (job->struct_size < sizeof(mfprio_job_t))
    return fail(MFPRIO_EINVAL, "job " + std::to_string(job->job_id) + ": struct_size " +
                                   std::to_string(job->struct_size) + " is smaller than " +
                                   std::to_string(sizeof(mfprio_job_t)));
  if (job->nice < 0 && !(job->flags & MFPRIO_JOBF_NICE_ADMIN))
    return fail(MFPRIO_EPERM, "job " + std::to_string(job->job_id) + ": nice " +
                                  std::to_string(job->nice) +
                                  " would raise the priority; only an admin may set a negative nice");
  return MFPRIO_OK;
}

uint32_t fifo_priority(Fifo& f, const mfprio_job_t& job) {
  if (job.state == MFPRIO_JOB_HELD) return 0;
  uint32_t base;
  {
    std::lock_guard<std::mutex> lock(f.mu);
    auto it = f.base.find(job.job_id);
    if (it == f.base.end()) {
      if (f.last >= 2) f.last--;
      it = f.base.emplace(job.job_id, f.last).first;
    }
    base = it->second;
  }
  const int64_t p = static_cast<int64_t>(base) - job.nice;
  if (p < 1) return 1;
  if (p > 0xffffffffLL) return 0xffffffffu;
  return static_cast<uint32_t>(p);
}

int not_ready() { return fail(MFPRIO_ESTATE, "priority/basic: called before init or after fini"); }

}  // namespace

extern "C" {

MFPRIO_EXPORT int init(const mfprio_host_t* host) {
  return guarded("init", [&] {
    if (!host) return fail(MFPRIO_EINVAL, "init: host table is NULL");
    if (host->struct_size < sizeof(mfprio_host_t) || host->abi_version != MFPRIO_ABI_VERSION)
      return fail(MFPRIO_EINVAL, "init: host ABI version " + std::to_string(host->abi_version) +
                                     " (struct size " + std::to_string(host->struct_size) +
                                     "), plugin has " + std::to_string(MFPRIO_ABI_VERSION));
    if (g_fifo) return fail(MFPRIO_ESTATE, "init: already initialised");
    g_fifo = std::make_unique<Fifo>();
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int fini(void) {
  return guarded("fini", [&] {
    if (!g_fifo) return not_ready();
    g_fifo.reset();
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_resolve(mfprio_job_t* job) {
  return guarded("job_resolve", [&] {
    if (!g_fifo) return not_ready();
    return check_job(job);
  });
}

MFPRIO_EXPORT int set_priority(const mfprio_job_t* job, int64_t, uint32_t* priority) {
  return guarded("set_priority", [&] {
    if (!g_fifo) return not_ready();
    if (!priority) return fail(MFPRIO_EINVAL, "set_priority: priority is NULL");
    if (int rc = check_job(job)) return rc;
    *priority = fifo_priority(*g_fifo, *job);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int set_priority_batch(const mfprio_job_t* jobs, size_t count, int64_t,
                                     uint32_t* priorities, int* statuses) {
  return guarded("set_priority_batch", [&] {
    if (!g_fifo) return not_ready();
    if (count && (!jobs || !priorities)) return fail(MFPRIO_EINVAL, "set_priority_batch: NULL array");
    int first = MFPRIO_OK;
    std::string first_msg;
    for (size_t i = 0; i < count; ++i) {
      int rc = check_job(&jobs[i]);
      priorities[i] = rc ? 0 : fifo_priority(*g_fifo, jobs[i]);
      if (statuses) statuses[i] = rc;
      if (rc && first == MFPRIO_OK) {
        first = rc;
        first_msg = mfprio::edge::last_error();
      }
    }
    if (first) return fail(first, first_msg);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int decay(int64_t now, const mfprio_job_t*, size_t) {
  return guarded("decay", [&] {
    if (!g_fifo) return not_ready();
    g_fifo->last_decay = now;  // FIFO keeps no usage
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end(const mfprio_job_t* job, int64_t) {
  return guarded("job_end", [&] {
    if (!g_fifo) return not_ready();
    if (!job) return fail(MFPRIO_EINVAL, "job_end: job is NULL");
    std::lock_guard<std::mutex> lock(g_fifo->mu);
    g_fifo->base.erase(job->job_id);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end_batch(const mfprio_job_t* jobs, size_t count, const int64_t*) {
  return guarded("job_end_batch", [&] {
    if (!g_fifo) return not_ready();
    if (count && !jobs) return fail(MFPRIO_EINVAL, "job_end_batch: jobs is NULL");
    std::lock_guard<std::mutex> lock(g_fifo->mu);
    for (size_t i = 0; i < count; ++i) g_fifo->base.erase(jobs[i].job_id);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors(const mfprio_job_t* job, int64_t now, mfprio_factors_t* out) {
  return guarded("job_factors", [&] {
    if (!g_fifo) return not_ready();
    if (!out || out->struct_size < sizeof(mfprio_factors_t))
      return fail(MFPRIO_EINVAL, "job_factors: out is NULL or its struct_size is too small");
    uint32_t p = 0;
    if (int rc = set_priority(job, now, &p)) return rc;
    const uint32_t size = out->struct_size;
    std::memset(out, 0, sizeof *out);
    out->struct_size = size;
    out->priority = p;
    out->unclamped = p;
    out->nice = job->nice;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors_json(const mfprio_job_t* job, int64_t now, char** json) {
  return guarded("job_factors_json", [&] {
    if (!json) return fail(MFPRIO_EINVAL, "job_factors_json: json is NULL");
    uint32_t p = 0;
    if (int rc = set_priority(job, now, &p)) return rc;
    *json = mfprio::edge::dup_string("{\"job_id\":" + std::to_string(job->job_id) +
                                     ",\"priority\":" + std::to_string(p) +
                                     ",\"nice\":" + std::to_string(job->nice) + "}");
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int share_table(mfprio_share_row_t** rows, size_t* count) {
  return guarded("share_table", [&] {
    if (!g_fifo) return not_ready();
    if (!rows || !count) return fail(MFPRIO_EINVAL, "share_table: NULL out-parameter");
    *rows = nullptr;  // FIFO has no share tree
    *count = 0;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT void share_table_free(mfprio_share_row_t* rows) { std::free(rows); }

MFPRIO_EXPORT int share_table_json(char** json) {
  return guarded("share_table_json", [&] {
    if (!g_fifo) return not_ready();
    if (!json) return fail(MFPRIO_EINVAL, "share_table_json: json is NULL");
    *json = mfprio::edge::dup_string("[]");
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_stats(mfprio_stats_t* out) {
  return guarded("plugin_stats", [&] {
    if (!g_fifo) return not_ready();
    if (!out || out->struct_size < sizeof(mfprio_stats_t))
      return fail(MFPRIO_EINVAL, "plugin_stats: out is NULL or its struct_size is too small");
    const uint32_t size = out->struct_size;
    std::memset(out, 0, sizeof *out);
    out->struct_size = size;
    out->last_decay = g_fifo->last_decay;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_info_json(char** json) {
  return guarded("plugin_info_json", [&] {
    if (!g_fifo) return not_ready();
    if (!json) return fail(MFPRIO_EINVAL, "plugin_info_json: json is NULL");
    *json = mfprio::edge::dup_string(
        "{\"plugin_type\":\"priority/basic\",\"abi_version\":" + std::to_string(MFPRIO_ABI_VERSION) +
        ",\"weights\":{\"age\":0,\"assoc\":0,\"fairshare\":0,\"jobsize\":0,\"partition\":0,"
        "\"qos\":0,\"tres\":{}},\"flags\":\"\"}");
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT const char* errmsg(void) { return mfprio::edge::last_error().c_str(); }

MFPRIO_EXPORT void free_string(char* s) { std::free(s); }

}  // extern "C"
