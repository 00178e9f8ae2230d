// priority_multifactor.cpp - priority/multifactor: the extern "C" edge over
// mfprio::Engine.  Every body runs in edge::guarded (no exception escapes);
// JSON views are built here with jansson, the engine never sees JSON.
//
// Thread-safety (see mfprio.h): init/fini/decay/job_end on the control
// thread; everything else on any thread, reading the published snapshot.
#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <jansson.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "edge.hpp"
#include "engine.hpp"
#include "mfprio/mfprio.h"
#include "priority.hpp"

extern "C" {
const char plugin_name[] = "Priority MULTIFACTOR plugin (mfprio)";
const char plugin_type[] = "priority/multifactor";
const uint32_t plugin_version = MFPRIO_ABI_VERSION;
}

namespace {

using mfprio::Engine;
using mfprio::Snapshot;
using mfprio::edge::fail;
using mfprio::edge::guarded;

std::unique_ptr<Engine> g_engine;  // exactly one between init and fini

struct JsonDel {
  void operator()(json_t* j) const { json_decref(j); }
};
using Json = std::unique_ptr<json_t, JsonDel>;

int not_ready(const char* where) {
  return fail(MFPRIO_ESTATE, std::string(where) + ": priority/multifactor is not initialised");
}

int check_job(const mfprio_job_t* job, const char* where) {
  if (!job) return fail(MFPRIO_EINVAL, std::string(where) + ": job is NULL");
  if (job->struct_size < sizeof(mfprio_job_t))
    return fail(MFPRIO_EINVAL, std::string(where) + ": job " + std::to_string(job->job_id) +
                                   ": struct_size " + std::to_string(job->struct_size) +
                                   " is smaller than " + std::to_string(sizeof(mfprio_job_t)));
  return MFPRIO_OK;
}

// The job's handle, resolved again when it is stale.  Returns a status.
int handle_for(const Snapshot& snap, const mfprio_job_t& job, mfprio_handle_t* h) {
  if (job.handle.generation == snap.layout->id && job.handle.generation != 0 &&
      job.handle.assoc < snap.layout->assocs.size() && job.handle.partition < snap.layout->parts.size() &&
      (job.handle.qos == MFPRIO_NO_QOS || job.handle.qos < snap.layout->qos.size()) &&
      !(job.nice < 0 && !(job.flags & MFPRIO_JOBF_NICE_ADMIN))) {
    *h = job.handle;
    return MFPRIO_OK;
  }
  std::string why;
  int rc = mfprio::resolve_job(snap, job, h, &why);
  if (rc) return fail(rc, why);
  return MFPRIO_OK;
}

void count_clamp_log_first() {
  g_engine->log(MFPRIO_LOG_WARNING,
                "a batch priority was clamped to 4294967295 (the weights sum past 2^32-1; later "
                "clamps are counted per decay pass)");
}

// Counts a clamp.  The first high clamp is logged at once with its job; the
// rest are summed up once per decay pass (Engine::decay), so a site whose
// weights overflow for every job gets a count, not a flood.
void count_clamp(uint32_t clamp, uint64_t job_id) {
  if (clamp == MFPRIO_CLAMP_HIGH) {
    if (g_engine->clamped_high.fetch_add(1, std::memory_order_relaxed) == 0)
      g_engine->log(MFPRIO_LOG_WARNING, "job " + std::to_string(job_id) +
                                            ": priority clamped to 4294967295 (the weights sum past "
                                            "2^32-1; later clamps are counted per decay pass)");
  } else if (clamp == MFPRIO_CLAMP_LOW) {
    g_engine->clamped_low.fetch_add(1, std::memory_order_relaxed);
  }
}

int one_priority(const Snapshot& snap, const mfprio_job_t* job, int64_t now, uint32_t* prio,
                 mfprio_factors_t* out) {
  if (int rc = check_job(job, "set_priority")) return rc;
  mfprio_handle_t h;
  if (int rc = handle_for(snap, *job, &h)) return rc;
  uint32_t clamp;
  *prio = mfprio::job_priority(snap, *job, h, now, out, &clamp);
  if (clamp != MFPRIO_CLAMP_NONE) count_clamp(clamp, job->job_id);
  return MFPRIO_OK;
}

double finite_or(double v, double alt) { return std::isfinite(v) ? v : alt; }

json_t* factors_json(const mfprio_job_t& job, const mfprio_factors_t& f) {
  json_t* o = json_object();
  json_object_set_new(o, "job_id", json_integer(static_cast<json_int_t>(job.job_id)));
  json_object_set_new(o, "partition", json_string(job.partition ? job.partition : ""));
  json_object_set_new(o, "user", json_string(job.user ? job.user : ""));
  json_object_set_new(o, "account", json_string(f.account_name));
  json_object_set_new(o, "resolved_partition", json_string(f.partition_name));
  json_object_set_new(o, "qos", json_string(f.qos_name));
  json_object_set_new(o, "priority", json_integer(f.priority));
  // Each factor normalized (0..1, or raw with NO_NORMAL_*) and weighted.
  const struct {
    const char* name;
    double factor, weighted;
  } parts[] = {{"age", f.age, f.w_age},
               {"assoc", f.assoc, f.w_assoc},
               {"fairshare", f.fairshare, f.w_fairshare},
               {"jobsize", f.jobsize, f.w_jobsize},
               {"partition", f.partition, f.w_partition},
               {"qos", f.qos, f.w_qos}};
  json_t* n = json_object();
  json_t* w = json_object();
  for (const auto& p : parts) {
    json_object_set_new(n, p.name, json_real(p.factor));
    json_object_set_new(w, p.name, json_real(p.weighted));
  }
  json_object_set_new(w, "tres", json_real(f.w_tres));
  json_object_set_new(o, "factors", n);
  json_object_set_new(o, "weighted", w);
  json_t* t = json_array();
  for (uint32_t i = 0; i < f.tres_count; ++i) {
    json_t* e = json_object();
    json_object_set_new(e, "name", json_string(f.tres[i].name));
    json_object_set_new(e, "factor", json_real(f.tres[i].factor));
    json_object_set_new(e, "weighted", json_real(f.tres[i].weighted));
    json_array_append_new(t, e);
  }
  json_object_set_new(o, "tres", t);
  json_object_set_new(o, "site", json_integer(f.site));
  json_object_set_new(o, "nice", json_integer(f.nice));
  json_object_set_new(o, "unclamped", json_real(finite_or(f.unclamped, 0)));
  json_object_set_new(o, "clamped", json_string(f.clamped == MFPRIO_CLAMP_HIGH  ? "high"
                                                : f.clamped == MFPRIO_CLAMP_LOW ? "low"
                                                                                : "none"));
  return o;
}

char* dump(json_t* j) {
  Json owned(j);
  char* s = json_dumps(j, JSON_COMPACT | JSON_REAL_PRECISION(17));
  if (!s) throw std::bad_alloc();
  // jansson allocates with malloc by default, so free_string's free() matches.
  return s;
}

}  // namespace

extern "C" {

MFPRIO_EXPORT int init(const mfprio_host_t* host) {
  return guarded("init", [&] {
    if (!host) return fail(MFPRIO_EINVAL, "init: host table is NULL");
    if (host->struct_size < sizeof(mfprio_host_t) || host->abi_version != MFPRIO_ABI_VERSION)
      return fail(MFPRIO_EINVAL, "init: host ABI version " + std::to_string(host->abi_version) +
                                     " (struct size " + std::to_string(host->struct_size) +
                                     "), plugin has " + std::to_string(MFPRIO_ABI_VERSION));
    if (host->conf_count && !host->conf) return fail(MFPRIO_EINVAL, "init: conf_count set but conf is NULL");
    if (g_engine) return fail(MFPRIO_ESTATE, "init: already initialised");
    std::unique_ptr<Engine> e;
    try {
      e = std::make_unique<Engine>(*host);
    } catch (const mfprio::ConfigError& err) {
      return fail(MFPRIO_ECONF, err.what());
    }
    try {
      e->open();
    } catch (const mfprio::acct::StoreError& err) {
      return fail(MFPRIO_ESTORE, "AccountingStorageLoc " + e->settings().store_path + " (" +
                                     e->settings().store_path_origin + "): " + err.what());
    } catch (const std::invalid_argument& err) {
      return fail(MFPRIO_ESTORE, "AccountingStorageLoc " + e->settings().store_path + ": " + err.what());
    }
    g_engine = std::move(e);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int fini(void) {
  return guarded("fini", [&] {
    if (!g_engine) return not_ready("fini");
    g_engine.reset();
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_resolve(mfprio_job_t* job) {
  return guarded("job_resolve", [&] {
    if (!g_engine) return not_ready("job_resolve");
    if (int rc = check_job(job, "job_resolve")) return rc;
    auto snap = g_engine->current();
    std::string why;
    mfprio_handle_t h;
    if (int rc = mfprio::resolve_job(*snap, *job, &h, &why)) return fail(rc, why);
    job->handle = h;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int set_priority(const mfprio_job_t* job, int64_t now, uint32_t* priority) {
  return guarded("set_priority", [&] {
    if (!g_engine) return not_ready("set_priority");
    if (!priority) return fail(MFPRIO_EINVAL, "set_priority: priority is NULL");
    auto snap = g_engine->current();
    return one_priority(*snap, job, now, priority, nullptr);
  });
}

MFPRIO_EXPORT int set_priority_batch(const mfprio_job_t* jobs, size_t count, int64_t now,
                                     uint32_t* priorities, int* statuses) {
  return guarded("set_priority_batch", [&] {
    if (!g_engine) return not_ready("set_priority_batch");
    if (count && (!jobs || !priorities)) return fail(MFPRIO_EINVAL, "set_priority_batch: NULL array");
    auto snap = g_engine->current();  // one snapshot for the whole batch
    struct Ctx {
      const Snapshot* snap;
      const mfprio_job_t* jobs;
      int64_t now;
      uint32_t* prios;
      bool failed = false;
      std::string first_msg;
    } ctx{snap.get(), jobs, now, priorities, false, {}};
    // Records the fast loop cannot take (stale handle, bad size, negative
    // nice) go through the checked path, which names the job on failure.
    auto slow = [](void* arg, size_t i) {
      Ctx& c = *static_cast<Ctx*>(arg);
      const int rc = one_priority(*c.snap, &c.jobs[i], c.now, &c.prios[i], nullptr);
      if (rc && !c.failed) {
        c.failed = true;
        c.first_msg = mfprio::edge::last_error();
      }
      return rc;
    };
    uint64_t clamped[2];
    const int first = mfprio::job_priority_batch(*snap, jobs, count, now, priorities, statuses, slow,
                                                 &ctx, clamped);
    if (clamped[0]) {
      const uint64_t before = g_engine->clamped_high.fetch_add(clamped[0], std::memory_order_relaxed);
      if (before == 0) count_clamp_log_first();
    }
    if (clamped[1]) g_engine->clamped_low.fetch_add(clamped[1], std::memory_order_relaxed);
    if (first) return fail(first, ctx.first_msg);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int decay(int64_t now, const mfprio_job_t* running, size_t count) {
  return guarded("decay", [&] {
    if (!g_engine) return not_ready("decay");
    if (count && !running) return fail(MFPRIO_EINVAL, "decay: running is NULL");
    std::string why;
    if (int rc = g_engine->decay(now, running, count, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end(const mfprio_job_t* job, int64_t end_time) {
  return guarded("job_end", [&] {
    if (!g_engine) return not_ready("job_end");
    if (int rc = check_job(job, "job_end")) return rc;
    std::string why;
    if (int rc = g_engine->job_end(job, &end_time, 1, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_end_batch(const mfprio_job_t* jobs, size_t count, const int64_t* end_times) {
  return guarded("job_end_batch", [&] {
    if (!g_engine) return not_ready("job_end_batch");
    if (count && (!jobs || !end_times)) return fail(MFPRIO_EINVAL, "job_end_batch: NULL array");
    for (size_t i = 0; i < count; ++i)
      if (int rc = check_job(&jobs[i], "job_end_batch")) return rc;
    std::string why;
    if (int rc = g_engine->job_end(jobs, end_times, count, &why)) return fail(rc, why);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors(const mfprio_job_t* job, int64_t now, mfprio_factors_t* out) {
  return guarded("job_factors", [&] {
    if (!g_engine) return not_ready("job_factors");
    if (!out || out->struct_size < sizeof(mfprio_factors_t))
      return fail(MFPRIO_EINVAL, "job_factors: out is NULL or its struct_size is too small");
    mfprio_factors_t f;
    std::memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    uint32_t p = 0;
    auto snap = g_engine->current();
    if (int rc = one_priority(*snap, job, now, &p, &f)) return rc;
    *out = f;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int job_factors_json(const mfprio_job_t* job, int64_t now, char** json) {
  return guarded("job_factors_json", [&] {
    if (!g_engine) return not_ready("job_factors_json");
    if (!json) return fail(MFPRIO_EINVAL, "job_factors_json: json is NULL");
    mfprio_factors_t f;
    std::memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    uint32_t p = 0;
    auto snap = g_engine->current();
    if (int rc = one_priority(*snap, job, now, &p, &f)) return rc;
    *json = dump(factors_json(*job, f));
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int share_table(mfprio_share_row_t** rows, size_t* count) {
  return guarded("share_table", [&] {
    if (!g_engine) return not_ready("share_table");
    if (!rows || !count) return fail(MFPRIO_EINVAL, "share_table: NULL out-parameter");
    auto snap = g_engine->current();
    const mfprio::Layout& L = *snap->layout;
    const size_t n = snap->tree.size();
    // One allocation: the rows, then every string they point at.
    size_t bytes = n * sizeof(mfprio_share_row_t);
    for (size_t i = 0; i < n; ++i)
      bytes += L.node_account[i].size() + L.node_user[i].size() + L.node_partition[i].size() + 3;
    char* block = static_cast<char*>(std::malloc(bytes ? bytes : 1));
    if (!block) throw std::bad_alloc();
    auto* r = reinterpret_cast<mfprio_share_row_t*>(block);
    char* pool = block + n * sizeof(mfprio_share_row_t);
    auto put = [&](const std::string& s) {
      char* p = pool;
      std::memcpy(pool, s.c_str(), s.size() + 1);
      pool += s.size() + 1;
      return p;
    };
    const mfprio::ShareResult& sr = snap->shares;
    for (size_t i = 0; i < n; ++i) {
      mfprio_share_row_t& row = r[i];
      std::memset(&row, 0, sizeof row);
      row.struct_size = sizeof row;
      row.parent = snap->tree.parent[i];
      row.depth = L.node_depth[i];
      row.is_user = snap->tree.is_user[i];
      row.account = put(L.node_account[i]);
      const char* u = put(L.node_user[i]);
      const char* p = put(L.node_partition[i]);
      row.user = row.is_user ? u : nullptr;
      row.partition = L.node_partition[i].empty() ? nullptr : p;
      row.shares_parent = snap->tree.shares_parent[i];
      row.raw_shares = static_cast<uint32_t>(snap->tree.shares[i]);
      row.priority = L.node_priority[i];
      row.norm_shares = sr.norm_shares[i];
      row.raw_usage = snap->tree.usage[i];
      row.norm_usage = sr.norm_usage[i];
      row.eff_usage = sr.eff_usage[i];
      row.level_fs = sr.level_fs[i];
      row.fairshare = sr.fairshare[i];
    }
    *rows = r;
    *count = n;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT void share_table_free(mfprio_share_row_t* rows) { std::free(rows); }

MFPRIO_EXPORT int share_table_json(char** json) {
  return guarded("share_table_json", [&] {
    if (!g_engine) return not_ready("share_table_json");
    if (!json) return fail(MFPRIO_EINVAL, "share_table_json: json is NULL");
    auto snap = g_engine->current();
    const mfprio::Layout& L = *snap->layout;
    const mfprio::ShareResult& sr = snap->shares;
    json_t* arr = json_array();
    for (size_t i = 0; i < snap->tree.size(); ++i) {
      json_t* o = json_object();
      json_object_set_new(o, "account", json_string(L.node_account[i].c_str()));
      if (snap->tree.is_user[i]) json_object_set_new(o, "user", json_string(L.node_user[i].c_str()));
      if (!L.node_partition[i].empty())
        json_object_set_new(o, "partition", json_string(L.node_partition[i].c_str()));
      json_object_set_new(o, "parent", json_integer(snap->tree.parent[i]));
      json_object_set_new(o, "depth", json_integer(L.node_depth[i]));
      if (snap->tree.shares_parent[i]) json_object_set_new(o, "raw_shares", json_string("parent"));
      else json_object_set_new(o, "raw_shares", json_integer(static_cast<json_int_t>(snap->tree.shares[i])));
      json_object_set_new(o, "norm_shares", json_real(sr.norm_shares[i]));
      json_object_set_new(o, "raw_usage", json_real(snap->tree.usage[i]));
      json_object_set_new(o, "norm_usage", json_real(sr.norm_usage[i]));
      json_object_set_new(o, "eff_usage", json_real(sr.eff_usage[i]));
      if (std::isfinite(sr.level_fs[i])) json_object_set_new(o, "level_fs", json_real(sr.level_fs[i]));
      else json_object_set_new(o, "level_fs", json_string("inf"));
      if (snap->tree.is_user[i]) json_object_set_new(o, "fairshare", json_real(sr.fairshare[i]));
      json_object_set_new(o, "priority", json_integer(L.node_priority[i]));
      json_array_append_new(arr, o);
    }
    *json = dump(arr);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_stats(mfprio_stats_t* out) {
  return guarded("plugin_stats", [&] {
    if (!g_engine) return not_ready("plugin_stats");
    if (!out || out->struct_size < sizeof(mfprio_stats_t))
      return fail(MFPRIO_EINVAL, "plugin_stats: out is NULL or its struct_size is too small");
    auto snap = g_engine->current();
    mfprio_stats_t s;
    std::memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    s.generation = static_cast<uint32_t>(snap->generation);
    s.last_decay = snap->last_decay;
    s.clamped_high = g_engine->clamped_high.load();
    s.clamped_low = g_engine->clamped_low.load();
    s.associations = snap->layout->assocs.size();
    s.jobs_charged = g_engine->jobs_charged.load();
    *out = s;
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT int plugin_info_json(char** json) {
  return guarded("plugin_info_json", [&] {
    if (!g_engine) return not_ready("plugin_info_json");
    if (!json) return fail(MFPRIO_EINVAL, "plugin_info_json: json is NULL");
    const mfprio::Settings& s = g_engine->settings();
    json_t* o = json_object();
    json_object_set_new(o, "plugin_type", json_string("priority/multifactor"));
    json_object_set_new(o, "abi_version", json_integer(MFPRIO_ABI_VERSION));
    json_t* w = json_object();
    json_object_set_new(w, "age", json_integer(s.w_age));
    json_object_set_new(w, "assoc", json_integer(s.w_assoc));
    json_object_set_new(w, "fairshare", json_integer(s.w_fairshare));
    json_object_set_new(w, "jobsize", json_integer(s.w_jobsize));
    json_object_set_new(w, "partition", json_integer(s.w_partition));
    json_object_set_new(w, "qos", json_integer(s.w_qos));
    json_t* t = json_object();
    for (const mfprio::TresWeight& tw : s.w_tres) json_object_set_new(t, tw.name.c_str(), json_real(tw.weight));
    json_object_set_new(w, "tres", t);
    json_object_set_new(o, "weights", w);
    json_object_set_new(o, "flags", json_string(s.flag_names().c_str()));
    const char* algo = "fair_tree";
    switch (s.algo()) {
      case mfprio::FairShareAlgo::Classic: algo = "classic"; break;
      case mfprio::FairShareAlgo::DepthOblivious: algo = "depth_oblivious"; break;
      case mfprio::FairShareAlgo::TicketBased: algo = "ticket_based"; break;
      default: break;
    }
    json_object_set_new(o, "fairshare_algorithm", json_string(algo));
    json_object_set_new(o, "decay_half_life", json_integer(s.decay_half_life));
    json_object_set_new(o, "calc_period", json_integer(s.calc_period));
    json_object_set_new(o, "max_age", json_integer(s.max_age));
    json_object_set_new(o, "favor_small", json_boolean(s.favor_small));
    json_object_set_new(o, "usage_reset_period", json_string(mfprio::reset_period_name(s.reset)));
    json_object_set_new(o, "dampening_factor", json_integer(s.dampening));
    json_object_set_new(o, "accounting_storage_loc", json_string(s.store_path.c_str()));
    json_object_set_new(o, "decay_arithmetic", json_string("usage * 2^(-elapsed/half_life)"));
    *json = dump(o);
    return MFPRIO_OK;
  });
}

MFPRIO_EXPORT const char* errmsg(void) { return mfprio::edge::last_error().c_str(); }

MFPRIO_EXPORT void free_string(char* s) { std::free(s); }

}  // extern "C"
