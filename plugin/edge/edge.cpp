// edge.cpp - every extern "C" body of mfprio.h, written once for all
// families.  Each body runs in edge::guarded (no exception escapes), checks
// its arguments, and hands the work to the one Runtime (and through it the
// family's Policy) that lives between init and fini.  JSON views are made
// here with jansson from the generic terms and share columns (edge_json.cpp);
// families never see JSON.
//
// Linked whole into every priority_<family>.so; the family's own file
// defines plugin_name/plugin_type/plugin_version and make_policy()
// (plugin_main.hpp).  A family's export map may leave out the optional
// operations it does not provide.
//
// Thread-safety (see mfprio.h): init/fini/decay/job_end on the control
// thread; everything else on any thread, reading the published state.
#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <cmath>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "edge.hpp"
#include "edge_json.hpp"
#include "share_block.hpp"
#include "mfprio/mfprio.h"
#include "runtime.hpp"
#include "store.hpp"

namespace {

using mfprio::Runtime;
using mfprio::edge::fail;
using mfprio::edge::guarded;

std::unique_ptr<Runtime> g_rt;  // exactly one between init and fini

int not_ready(const char* where) {
  return fail(MFPRIO_ESTATE, std::string(where) + ": " + plugin_type + " is not initialised");
}

// The checks (policy.hpp: check_record / check_job), with errmsg set.
int check_record(const mfprio_job_t* job, const char* where) {
  std::string why;
  if (int rc = mfprio::check_record(job, where, &why)) return fail(rc, why);
  return MFPRIO_OK;
}

int check_job(const mfprio_job_t* job, const char* where) {
  std::string why;
  if (int rc = mfprio::check_job(job, where, &why)) return fail(rc, why);
  return MFPRIO_OK;
}

// A count no host array can have (SIZE_MAX): refused before reading.
int too_many(const char* where, size_t count) {
  return fail(MFPRIO_EINVAL, std::string(where) + ": count " + std::to_string(count) + " is above " +
                                 std::to_string(MFPRIO_MAX_RECORDS) + " records");
}

// Charging (decay, job_end) and running jobs: the shape only; a running
// job's nice does not change what it is charged.
int check_records(const mfprio_job_t* jobs, size_t count, const char* where) {
  for (size_t i = 0; i < count; ++i)
    if (int rc = check_record(&jobs[i], where)) return rc;
  return MFPRIO_OK;
}

// One job through the checked path; `explain` may be null.
// `now` (or an end time) outside 0..MFPRIO_TIME_MAX: refused before any
// family does arithmetic on it.
int bad_time(int64_t t, const char* where, const char* what) {
  return fail(MFPRIO_EINVAL, std::string(where) + ": " + what + " " + std::to_string(t) + " is outside 0.." +
                                 std::to_string(MFPRIO_TIME_MAX));
}

int one_priority(const mfprio_job_t* job, int64_t now, uint32_t* prio, mfprio::Explain* explain,
                 const char* where) {
  if (!mfprio::time_ok(now)) return bad_time(now, where, "now");
  if (int rc = check_job(job, where)) return rc;
  auto st = g_rt->current();
  auto pass = g_rt->last_pass();
  uint32_t clamp = MFPRIO_CLAMP_NONE;
  std::string why;
  if (int rc = g_rt->policy().price(*st, pass.get(), *job, now, explain, prio, &clamp, &why))
    return fail(rc, why);
  g_rt->count_clamp(clamp, job->job_id);
  return MFPRIO_OK;
}

// job_factors' working copy: the whole breakdown is computed here and copied
// out only on success (a failed call changes nothing).
int explained(const mfprio_job_t* job, int64_t now, mfprio_factors_t* f, size_t capacity,
              const char* where) {
  std::memset(f, 0, sizeof *f);
  f->struct_size = sizeof *f;
  mfprio::Explain ex(f, capacity);
  uint32_t p = 0;
  if (int rc = one_priority(job, now, &p, &ex, where)) return rc;
  f->priority = p;
  return MFPRIO_OK;
}

}  // namespace

extern "C" {

MFPRIO_EXPORT int init(const mfprio_host_t* host) {
  return guarded("init", [&] {
    if (!host) return fail(MFPRIO_EINVAL, "init: host table is NULL");
    if (host->abi_version != MFPRIO_ABI_VERSION || host->struct_size < sizeof(mfprio_host_t))
      return fail(MFPRIO_EINVAL, "init: host ABI version " + std::to_string(host->abi_version) +
                                     " (struct size " + std::to_string(host->struct_size) +
                                     "), plugin has " + std::to_string(MFPRIO_ABI_VERSION));
    if (g_rt) return fail(MFPRIO_ESTATE, "init: already initialised");
    std::unique_ptr<Runtime> rt;
    try {
      rt = std::make_unique<Runtime>(mfprio::make_policy(), *host);
    } catch (const mfprio::ConfigError& err) {
      return fail(MFPRIO_ECONF, err.what());
    } catch (const std::invalid_argument& err) {
      return fail(MFPRIO_EINVAL, std::string("init: host table: ") + err.what());
    }
    try {
      rt->open();
    } catch (const mfprio::acct::StoreError& err) {
      const std::string origin = rt->policy().store_origin();
      return fail(MFPRIO_ESTORE, "AccountingStorageLoc " + rt->policy().store_path() +
                                     (origin.empty() ? "" : " (" + origin + ")") + ": " + err.what());
    } catch (const std::invalid_argument& err) {
      return fail(MFPRIO_ESTORE, "AccountingStorageLoc " + rt->policy().store_path() + ": " + err.what());
    }
    g_rt = std::move(rt);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int fini(void) {
  return guarded("fini", [&] {
    if (!g_rt) return not_ready("fini");
    g_rt.reset();
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_resolve(mfprio_job_t* job) {
  return guarded("job_resolve", [&] {
    if (!g_rt) return not_ready("job_resolve");
    if (int rc = check_job(job, "job_resolve")) return rc;
    auto st = g_rt->current();
    std::string why;
    mfprio_handle_t h{};
    if (int rc = g_rt->policy().resolve(*st, *job, &h, &why)) return fail(rc, why);
    job->handle = h;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int set_priority(const mfprio_job_t* job, int64_t now, uint32_t* priority) {
  return guarded("set_priority", [&] {
    if (!g_rt) return not_ready("set_priority");
    if (!priority) return fail(MFPRIO_EINVAL, "set_priority: priority is NULL");
    return one_priority(job, now, priority, nullptr, "set_priority");
  });
}

MFPRIO_EXPORT int set_priority_batch(const mfprio_job_t* jobs, size_t count, int64_t now,
                                     uint32_t* priorities, int* statuses) {
  return guarded("set_priority_batch", [&] {
    if (!g_rt) return not_ready("set_priority_batch");
    if (count && (!jobs || !priorities)) return fail(MFPRIO_EINVAL, "set_priority_batch: NULL array");
    if (count > MFPRIO_MAX_RECORDS) return too_many("set_priority_batch", count);
    if (!mfprio::time_ok(now)) return bad_time(now, "set_priority_batch", "now");
    auto st = g_rt->current();  // one state for the whole batch
    auto pass = g_rt->last_pass();
    mfprio::ClampCounts clamps;
    mfprio::BatchError err;
    g_rt->policy().price_batch(*st, pass.get(), jobs, count, now, priorities, statuses, &clamps, &err);
    g_rt->count_clamps(clamps);
    if (err.status) return fail(err.status, err.message);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int prioritize(const mfprio_job_t* pending, size_t pending_count,
                             const mfprio_job_t* running, size_t running_count, int64_t now,
                             uint32_t* priorities, int* statuses) {
  return guarded("prioritize", [&] {
    if (!g_rt) return not_ready("prioritize");
    if (pending_count && (!pending || !priorities)) return fail(MFPRIO_EINVAL, "prioritize: NULL pending array");
    if (running_count && !running) return fail(MFPRIO_EINVAL, "prioritize: running is NULL");
    if (pending_count > MFPRIO_MAX_RECORDS) return too_many("prioritize (pending)", pending_count);
    if (running_count > MFPRIO_MAX_RECORDS) return too_many("prioritize (running)", running_count);
    if (!mfprio::time_ok(now)) return bad_time(now, "prioritize", "now");
    if (int rc = check_records(running, running_count, "prioritize (running)")) return rc;
    auto st = g_rt->current();
    mfprio::ClampCounts clamps;
    mfprio::BatchError err;
    auto pass = g_rt->policy().price_queue(*st, pending, pending_count, running, running_count, now,
                                           priorities, statuses, &clamps, &err);
    g_rt->set_last_pass(std::move(pass));
    g_rt->count_clamps(clamps);
    if (err.status) return fail(err.status, err.message);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int decay(int64_t now, const mfprio_job_t* running, size_t count) {
  return guarded("decay", [&] {
    if (!g_rt) return not_ready("decay");
    if (count && !running) return fail(MFPRIO_EINVAL, "decay: running is NULL");
    if (count > MFPRIO_MAX_RECORDS) return too_many("decay", count);
    if (!mfprio::time_ok(now)) return bad_time(now, "decay", "now");
    if (int rc = check_records(running, count, "decay")) return rc;
    std::string why;
    if (int rc = g_rt->decay(now, running, count, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end(const mfprio_job_t* job, int64_t end_time) {
  return guarded("job_end", [&] {
    if (!g_rt) return not_ready("job_end");
    if (int rc = check_record(job, "job_end")) return rc;
    if (!mfprio::time_ok(end_time)) return bad_time(end_time, "job_end", "end time");
    std::string why;
    if (int rc = g_rt->job_end(job, &end_time, 1, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end_batch(const mfprio_job_t* jobs, size_t count, const int64_t* end_times) {
  return guarded("job_end_batch", [&] {
    if (!g_rt) return not_ready("job_end_batch");
    if (count && (!jobs || !end_times)) return fail(MFPRIO_EINVAL, "job_end_batch: NULL array");
    if (count > MFPRIO_MAX_RECORDS) return too_many("job_end_batch", count);
    if (int rc = check_records(jobs, count, "job_end_batch")) return rc;
    for (size_t i = 0; i < count; ++i)
      if (!mfprio::time_ok(end_times[i])) return bad_time(end_times[i], "job_end_batch", "end time");
    std::string why;
    if (int rc = g_rt->job_end(jobs, end_times, count, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors(const mfprio_job_t* job, int64_t now, mfprio_factors_t* out) {
  return guarded("job_factors", [&] {
    if (!g_rt) return not_ready("job_factors");
    constexpr size_t kHead = offsetof(mfprio_factors_t, terms);
    if (!out || out->struct_size < kHead)
      return fail(MFPRIO_EINVAL, "job_factors: out is NULL or its struct_size is smaller than " +
                                     std::to_string(kHead));
    const size_t host_capacity = (out->struct_size - kHead) / sizeof(mfprio_term_t);
    const size_t capacity = host_capacity < MFPRIO_MAX_TERMS ? host_capacity : MFPRIO_MAX_TERMS;
    auto f = std::make_unique<mfprio_factors_t>();
    if (int rc = explained(job, now, f.get(), capacity, "job_factors")) return rc;
    const uint32_t host_size = out->struct_size;
    const size_t n = host_size < sizeof(mfprio_factors_t) ? host_size : sizeof(mfprio_factors_t);
    std::memcpy(out, f.get(), n);
    out->struct_size = host_size;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors_json(const mfprio_job_t* job, int64_t now, char** json) {
  return guarded("job_factors_json", [&] {
    if (!g_rt) return not_ready("job_factors_json");
    if (!json) return fail(MFPRIO_EINVAL, "job_factors_json: json is NULL");
    auto f = std::make_unique<mfprio_factors_t>();
    if (int rc = explained(job, now, f.get(), MFPRIO_MAX_TERMS, "job_factors_json")) return rc;
    *json = mfprio::edge::factors_json(*job, *f);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int share_table(mfprio_share_table_t** table) {
  return guarded("share_table", [&] {
    if (!g_rt) return not_ready("share_table");
    if (!table) return fail(MFPRIO_EINVAL, "share_table: table is NULL");
    if (!g_rt->policy().has_share_view())
      return fail(MFPRIO_ENOTSUP, std::string("share_table: ") + plugin_type + " has no share view");
    auto st = g_rt->current();
    mfprio::edge::ShareBlockWriter direct;
    if (g_rt->policy().share_block(*st, &direct)) {
      *table = direct.release();
      return MFPRIO_OK;
    }
    mfprio::ShareView v;
    g_rt->policy().share_view(*st, &v);
    *table = mfprio::edge::share_table_block(v);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT void share_table_free(mfprio_share_table_t* table) { std::free(table); }

MFPRIO_EXPORT int share_table_json(char** json) {
  return guarded("share_table_json", [&] {
    if (!g_rt) return not_ready("share_table_json");
    if (!json) return fail(MFPRIO_EINVAL, "share_table_json: json is NULL");
    if (!g_rt->policy().has_share_view())
      return fail(MFPRIO_ENOTSUP, std::string("share_table_json: ") + plugin_type + " has no share view");
    auto st = g_rt->current();
    mfprio::ShareView v;
    g_rt->policy().share_view(*st, &v);
    *json = mfprio::edge::share_json(v);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_stats(mfprio_stats_t* out) {
  return guarded("plugin_stats", [&] {
    if (!g_rt) return not_ready("plugin_stats");
    if (!out || out->struct_size < sizeof(mfprio_stats_t))
      return fail(MFPRIO_EINVAL, "plugin_stats: out is NULL or its struct_size is too small");
    auto st = g_rt->current();
    mfprio_stats_t s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.generation = static_cast<uint32_t>(st->publish_seq);
    s.last_decay = st->last_decay;
    s.clamped_high = g_rt->clamped_high.load();
    s.clamped_low = g_rt->clamped_low.load();
    s.associations = st->associations;
    s.jobs_charged = g_rt->jobs_charged.load();
    *out = s;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_info_json(char** json) {
  return guarded("plugin_info_json", [&] {
    if (!g_rt) return not_ready("plugin_info_json");
    if (!json) return fail(MFPRIO_EINVAL, "plugin_info_json: json is NULL");
    auto st = g_rt->current();
    mfprio::InfoView v;
    g_rt->policy().info(*st, &v);
    *json = mfprio::edge::info_json(plugin_type, v);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT const char* errmsg(void) {
  // Bounded (MFPRIO_ERRMSG_MAX): a message may quote a host string of any
  // length (a 1 MB user name); cut it here, once, for every message.
  std::string& m = mfprio::edge::last_error();
  if (m.size() > MFPRIO_ERRMSG_MAX) {
    size_t cut = MFPRIO_ERRMSG_MAX - 3;
    while (cut > 0 && (static_cast<unsigned char>(m[cut]) & 0xC0) == 0x80) --cut;  // not inside a UTF-8 sequence
    m.resize(cut);
    m += "...";
  }
  return m.c_str();
}

MFPRIO_EXPORT void free_string(char* s) { std::free(s); }

MFPRIO_EXPORT int set_accounts(const mfprio_accounts_t* accounts) {
  return guarded("set_accounts", [&] {
    if (!g_rt) return not_ready("set_accounts");
    if (!accounts) return fail(MFPRIO_EINVAL, "set_accounts: accounts is NULL");
    std::string why;
    if (int rc = g_rt->set_accounts(*accounts, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

}  // extern "C"
