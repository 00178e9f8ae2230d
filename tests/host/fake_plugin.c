/*
 * fake_plugin.c - a test fixture: a small, deterministic mfprio plugin used
 * to test the host (loader checks, host table, views) without the real
 * engine.  Compiled several times with different macros:
 *   FAKE_TYPE          plugin_type string (default "priority/fake")
 *   FAKE_VERSION       plugin_version (default MFPRIO_ABI_VERSION)
 *   FAKE_OMIT_OPS      leave out decay, job_end and job_end_batch (a "corrupted" plugin)
 *   FAKE_OMIT_VERSION  leave out plugin_version
 *
 * Its numbers (see fake_factors): age = (now - eligible) / 1 day capped at 1,
 * weight 1000; fairshare 0.5, weight 500; jobsize = cpus / cluster CPUs,
 * weight 100; partition "high" 1.0 else 0.5, weight 200; qos "high" 1.0 else
 * 0, weight 300; each TRES = count / cluster total, weight 1000; plus
 * site_factor, minus nice; held = 0; below 1 = 1.  User "ghost" does not
 * exist (ENOENT); a negative nice without NICE_ADMIN is EPERM.
 * Conf key FakeInitFail=yes makes init fail with ECONF naming file:line.
 */
#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <mfprio/mfprio.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef FAKE_TYPE
#define FAKE_TYPE "priority/fake"
#endif
#ifndef FAKE_VERSION
#define FAKE_VERSION MFPRIO_ABI_VERSION
#endif

const char plugin_name[] = "fake priority plugin (host tests)";
const char plugin_type[] = FAKE_TYPE;
#ifndef FAKE_OMIT_VERSION
const uint32_t plugin_version = FAKE_VERSION;
#endif

static __thread char g_err[512];
static int g_inited;
static mfprio_host_t g_host;
static char *g_info; /* built at init: the conf and totals as the plugin saw them */
static uint64_t g_resolves, g_factor_calls, g_jobs_charged;
static uint32_t g_generation = 1;
static int64_t g_last_decay;

static void set_err(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g_err, sizeof g_err, fmt, ap);
    va_end(ap);
}

static void logf_(int level, const char *fmt, ...) {
    char buf[512];
    va_list ap;
    if (!g_host.log) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    g_host.log(g_host.log_arg, level, buf);
}

static int64_t clock_now(void) { return g_host.clock ? g_host.clock(g_host.clock_arg) : 0; }

/* Appends text to a growing heap string. */
typedef struct {
    char *s;
    size_t len, cap;
} sbuf;

static void sb_add(sbuf *b, const char *fmt, ...) {
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = (b->cap ? b->cap * 2 : 256) + (size_t)n;
        char *p = realloc(b->s, cap);
        if (!p) return;
        b->s = p;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

static void sb_str(sbuf *b, const char *s) {
    sb_add(b, "\"");
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') sb_add(b, "\\%c", *s);
        else if ((unsigned char)*s < 0x20) sb_add(b, "\\u%04x", *s);
        else sb_add(b, "%c", *s);
    }
    sb_add(b, "\"");
}

int init(const mfprio_host_t *host) {
    size_t i;
    sbuf b = {0};
    if (!host || host->struct_size < sizeof(mfprio_host_t) || host->abi_version != MFPRIO_ABI_VERSION) {
        set_err("init: bad host table");
        return MFPRIO_EINVAL;
    }
    for (i = 0; i < host->conf_count; ++i) {
        const mfprio_kv_t *kv = &host->conf[i];
        if (strcasecmp(kv->key, "FakeInitFail") == 0 && strcasecmp(kv->value, "yes") == 0) {
            set_err("%s:%u: FakeInitFail: init refused on request", kv->file, kv->line);
            return MFPRIO_ECONF;
        }
    }
    g_host = *host;
    sb_add(&b, "{\"type\":");
    sb_str(&b, plugin_type);
    sb_add(&b, ",\"clock\":%lld,\"cluster_nodes\":%u,\"cluster_cpus\":%u,\"cluster_mem_mb\":%llu,\"cluster_tres\":{",
           (long long)clock_now(), host->cluster_nodes, host->cluster_cpus,
           (unsigned long long)host->cluster_mem_mb);
    for (i = 0; i < host->cluster_tres_count; ++i) {
        sb_add(&b, i ? "," : "");
        sb_str(&b, host->cluster_tres[i].name);
        sb_add(&b, ":%g", host->cluster_tres[i].count);
    }
    sb_add(&b, "},\"weights\":{\"age\":1000,\"assoc\":0,\"fairshare\":500,\"jobsize\":100,\"partition\":200,"
               "\"qos\":300,\"tres\":\"GRES/gpu=1000\"},\"conf\":[");
    for (i = 0; i < host->conf_count; ++i) {
        const mfprio_kv_t *kv = &host->conf[i];
        sb_add(&b, i ? ",{\"key\":" : "{\"key\":");
        sb_str(&b, kv->key);
        sb_add(&b, ",\"value\":");
        sb_str(&b, kv->value);
        sb_add(&b, ",\"file\":");
        sb_str(&b, kv->file);
        sb_add(&b, ",\"line\":%u}", kv->line);
    }
    sb_add(&b, "]}");
    if (!b.s) {
        set_err("init: out of memory");
        return MFPRIO_ENOMEM;
    }
    g_info = b.s;
    g_inited = 1;
    logf_(MFPRIO_LOG_INFO, "fake init: %zu conf pairs, %u nodes, %u cpus", host->conf_count, host->cluster_nodes,
          host->cluster_cpus);
    logf_(MFPRIO_LOG_DEBUG, "fake debug: clock %lld", (long long)clock_now());
    logf_(MFPRIO_LOG_WARNING, "fake warning: this is a test plugin");
    return MFPRIO_OK;
}

int fini(void) {
    logf_(MFPRIO_LOG_INFO, "fake fini: resolves=%llu factors=%llu", (unsigned long long)g_resolves,
          (unsigned long long)g_factor_calls);
    free(g_info);
    g_info = NULL;
    g_inited = 0;
    return MFPRIO_OK;
}

int job_resolve(mfprio_job_t *job) {
    if (!g_inited) {
        set_err("job_resolve before init");
        return MFPRIO_ESTATE;
    }
    if (!job || job->struct_size < sizeof(mfprio_job_t) || !job->user) {
        set_err("job_resolve: bad record");
        return MFPRIO_EINVAL;
    }
    ++g_resolves;
    if (strcmp(job->user, "ghost") == 0) {
        set_err("job %llu: unknown user 'ghost'", (unsigned long long)job->job_id);
        return MFPRIO_ENOENT;
    }
    job->handle.generation = g_generation;
    job->handle.assoc = (uint32_t)strlen(job->user);
    return MFPRIO_OK;
}

static double tres_total(const char *name) {
    size_t i;
    for (i = 0; i < g_host.cluster_tres_count; ++i)
        if (strcmp(g_host.cluster_tres[i].name, name) == 0) return g_host.cluster_tres[i].count;
    return 0;
}

static int fake_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *f) {
    uint32_t i;
    double sum;
    if (!job || job->handle.generation == 0) {
        set_err("job %llu: not resolved (call job_resolve first)", job ? (unsigned long long)job->job_id : 0ull);
        return MFPRIO_EINVAL;
    }
    if (job->nice < 0 && !(job->flags & MFPRIO_JOBF_NICE_ADMIN)) {
        set_err("job %llu: negative nice %d needs an admin", (unsigned long long)job->job_id, job->nice);
        return MFPRIO_EPERM;
    }
    memset(f, 0, sizeof *f);
    f->struct_size = sizeof *f;
    f->age = job->eligible_time ? (double)(now - job->eligible_time) / 86400.0 : 0;
    if (f->age < 0) f->age = 0;
    if (f->age > 1) f->age = 1;
    f->fairshare = 0.5;
    f->jobsize = g_host.cluster_cpus ? (double)job->cpus / g_host.cluster_cpus : 0;
    if (f->jobsize > 1) f->jobsize = 1;
    f->partition = job->partition && strcmp(job->partition, "high") == 0 ? 1.0 : 0.5;
    f->qos = job->qos && strcmp(job->qos, "high") == 0 ? 1.0 : 0.0;
    f->w_age = 1000 * f->age;
    f->w_fairshare = 500 * f->fairshare;
    f->w_jobsize = 100 * f->jobsize;
    f->w_partition = 200 * f->partition;
    f->w_qos = 300 * f->qos;
    for (i = 0; i < job->tres_count && i < MFPRIO_MAX_TRES_FACTORS; ++i) {
        double total = tres_total(job->tres[i].name);
        mfprio_tres_factor_t *t = &f->tres[f->tres_count++];
        snprintf(t->name, sizeof t->name, "%s", job->tres[i].name);
        t->factor = total > 0 ? job->tres[i].count / total : 0;
        if (t->factor > 1) t->factor = 1;
        t->weighted = 1000 * t->factor;
        f->w_tres += t->weighted;
    }
    f->site = job->site_factor;
    f->nice = job->nice;
    sum = f->w_age + f->w_fairshare + f->w_jobsize + f->w_partition + f->w_qos + f->w_tres + (double)f->site -
          (double)f->nice;
    f->unclamped = sum;
    if (job->state == MFPRIO_JOB_HELD) {
        f->priority = 0;
    } else if (sum < 1) {
        f->priority = 1;
        f->clamped = MFPRIO_CLAMP_LOW;
    } else if (sum > 4294967295.0) {
        f->priority = 4294967295u;
        f->clamped = MFPRIO_CLAMP_HIGH;
    } else {
        f->priority = (uint32_t)floor(sum);
    }
    return MFPRIO_OK;
}

int set_priority(const mfprio_job_t *job, int64_t now, uint32_t *priority) {
    mfprio_factors_t f;
    int rc = fake_factors(job, now, &f);
    if (rc == MFPRIO_OK) *priority = f.priority;
    return rc;
}

int set_priority_batch(const mfprio_job_t *jobs, size_t count, int64_t now, uint32_t *priorities, int *statuses) {
    size_t i;
    int first = MFPRIO_OK;
    for (i = 0; i < count; ++i) {
        int rc = set_priority(&jobs[i], now, &priorities[i]);
        if (rc != MFPRIO_OK) priorities[i] = 0;
        if (statuses) statuses[i] = rc;
        if (rc != MFPRIO_OK && first == MFPRIO_OK) first = rc;
    }
    return first;
}

#ifndef FAKE_OMIT_OPS
int decay(int64_t now, const mfprio_job_t *running, size_t count) {
    size_t i;
    if (!g_inited) {
        set_err("decay before init");
        return MFPRIO_ESTATE;
    }
    if (now < g_last_decay) {
        set_err("decay: now %lld is before the last decay %lld", (long long)now, (long long)g_last_decay);
        return MFPRIO_EINVAL;
    }
    for (i = 0; i < count; ++i)
        if (running[i].handle.generation == 0) {
            set_err("decay: job %llu not resolved", (unsigned long long)running[i].job_id);
            return MFPRIO_EINVAL;
        }
    g_jobs_charged += count;
    g_last_decay = now;
    ++g_generation;
    return MFPRIO_OK;
}

int job_end(const mfprio_job_t *job, int64_t end_time) {
    if (end_time < job->start_time) {
        set_err("job %llu: end %lld is before start %lld", (unsigned long long)job->job_id, (long long)end_time,
                (long long)job->start_time);
        return MFPRIO_EINVAL;
    }
    ++g_jobs_charged;
    return MFPRIO_OK;
}

int job_end_batch(const mfprio_job_t *jobs, size_t count, const int64_t *end_times) {
    size_t i;
    for (i = 0; i < count; i++)
        if (end_times[i] < jobs[i].start_time) return job_end(&jobs[i], end_times[i]);
    g_jobs_charged += count;
    return MFPRIO_OK;
}
#endif

int job_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *out) {
    mfprio_factors_t f;
    int rc;
    ++g_factor_calls;
    if (!out || out->struct_size < sizeof(mfprio_factors_t)) {
        set_err("job_factors: bad out struct");
        return MFPRIO_EINVAL;
    }
    rc = fake_factors(job, now, &f);
    if (rc == MFPRIO_OK) *out = f;
    return rc;
}

int job_factors_json(const mfprio_job_t *job, int64_t now, char **json) {
    mfprio_factors_t f;
    sbuf b = {0};
    int rc;
    ++g_factor_calls;
    rc = fake_factors(job, now, &f);
    if (rc != MFPRIO_OK) return rc;
    sb_add(&b, "{\"priority\":%u,\"factors\":{\"age\":%.7f,\"fairshare\":%.7f,\"jobsize\":%.7f,"
               "\"partition\":%.7f,\"qos\":%.7f},\"site\":%lld,\"nice\":%lld}",
           f.priority, f.age, f.fairshare, f.jobsize, f.partition, f.qos, (long long)f.site, (long long)f.nice);
    *json = b.s;
    return b.s ? MFPRIO_OK : MFPRIO_ENOMEM;
}

static const struct {
    int32_t parent;
    uint32_t depth, is_user;
    const char *account, *user;
    uint32_t shares_parent, raw_shares;
    double norm_shares, raw_usage, norm_usage, eff_usage, level_fs, fairshare;
} k_rows[] = {
    {-1, 0, 0, "root", NULL, 0, 0, 1.0, 1000.4, 1.0, 1.0, 0.0, 0.0},
    {0, 1, 0, "physics", NULL, 0, 40, 0.4, 600.0, 0.6, 0.6, 0.666667, 0.0},
    {1, 2, 1, "physics", "alice", 0, 1, 1.0, 600.0, 0.6, 0.6, 1.666667, 0.5},
    {1, 2, 1, "physics", "bob", 1, 0, 1.0, 0.0, 0.0, 0.6, INFINITY, 1.0},
    {0, 1, 0, "chem", NULL, 0, 60, 0.6, 400.6, 0.4, 0.4, 1.5, 0.0},
    {4, 2, 1, "chem", "carol", 0, 1, 1.0, 400.6, 0.4, 0.4, 1.0, 0.75},
};
#define K_NROWS (sizeof k_rows / sizeof k_rows[0])

int share_table(mfprio_share_row_t **rows, size_t *count) {
    size_t i;
    mfprio_share_row_t *r = calloc(K_NROWS, sizeof *r);
    if (!r) {
        set_err("share_table: out of memory");
        return MFPRIO_ENOMEM;
    }
    for (i = 0; i < K_NROWS; ++i) {
        r[i].struct_size = sizeof r[i];
        r[i].parent = k_rows[i].parent;
        r[i].depth = k_rows[i].depth;
        r[i].is_user = k_rows[i].is_user;
        r[i].account = k_rows[i].account;
        r[i].user = k_rows[i].user;
        r[i].shares_parent = k_rows[i].shares_parent;
        r[i].raw_shares = k_rows[i].raw_shares;
        r[i].norm_shares = k_rows[i].norm_shares;
        r[i].raw_usage = k_rows[i].raw_usage;
        r[i].norm_usage = k_rows[i].norm_usage;
        r[i].eff_usage = k_rows[i].eff_usage;
        r[i].level_fs = k_rows[i].level_fs;
        r[i].fairshare = k_rows[i].fairshare;
    }
    *rows = r;
    *count = K_NROWS;
    return MFPRIO_OK;
}

void share_table_free(mfprio_share_row_t *rows) { free(rows); }

int share_table_json(char **json) {
    size_t i;
    sbuf b = {0};
    sb_add(&b, "[");
    for (i = 0; i < K_NROWS; ++i) {
        sb_add(&b, i ? ",{\"account\":" : "{\"account\":");
        sb_str(&b, k_rows[i].account);
        if (k_rows[i].user) {
            sb_add(&b, ",\"user\":");
            sb_str(&b, k_rows[i].user);
        } else {
            sb_add(&b, ",\"user\":null");
        }
        sb_add(&b, ",\"fairshare\":%g}", k_rows[i].fairshare);
    }
    sb_add(&b, "]");
    *json = b.s;
    return b.s ? MFPRIO_OK : MFPRIO_ENOMEM;
}

int plugin_stats(mfprio_stats_t *out) {
    if (!out || out->struct_size < sizeof *out) {
        set_err("plugin_stats: bad out struct");
        return MFPRIO_EINVAL;
    }
    out->generation = g_generation;
    out->last_decay = g_last_decay;
    out->clamped_high = 0;
    out->clamped_low = 0;
    out->associations = K_NROWS;
    out->jobs_charged = g_jobs_charged;
    return MFPRIO_OK;
}

int plugin_info_json(char **json) {
    if (!g_info) {
        set_err("plugin_info_json before init");
        return MFPRIO_ESTATE;
    }
    *json = malloc(strlen(g_info) + 1);
    if (!*json) return MFPRIO_ENOMEM;
    memcpy(*json, g_info, strlen(g_info) + 1);
    return MFPRIO_OK;
}

const char *errmsg(void) { return g_err; }

void free_string(char *s) { free(s); }
