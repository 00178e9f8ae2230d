/*
 * fake_plugin.c - a test fixture: a small, deterministic mfprio plugin (ABI
 * v2) used to test the host (loader checks, host table, views, optional
 * operations) without the real engine.  Compiled several times:
 *   FAKE_TYPE             plugin_type string (default "priority/fake")
 *   FAKE_VERSION          plugin_version (default MFPRIO_ABI_VERSION)
 *   FAKE_OMIT_DECAY       leave out decay, a required operation (a "corrupted" plugin)
 *   FAKE_OMIT_VERSION     leave out plugin_version
 *   FAKE_REQUIRED_ONLY    only init, fini, set_priority, decay, errmsg
 *   FAKE_OMIT_FREE_STRING every operation but free_string (json ops without it: corrupt)
 * By default it exports exactly the v2 symbols: identity + all 19 operations
 * (set_accounts checks its struct size and accepts any tree).
 *
 * Its terms (see fake_factors), in Slurm's sprio order: site (RAW, the
 * site_factor); age = (now - eligible) / 1 day capped at 1, weight 1000;
 * assoc 0, weight 0; fairshare 0.5, weight 500; jobsize = cpus / cluster
 * CPUs, weight 100; partition "high" 1.0 else 0.5, weight 200; qosname (TEXT,
 * LONG: the job's QOS); qos "high" 1.0 else 0, weight 300; nice (RAW, LONG,
 * width 11: minus nice); tres (LIST, width 20): each TRES = count / cluster
 * total, weight 1000, as a child term.  Held = 0; below 1 = 1.  User "ghost"
 * does not exist (ENOENT); a negative nice without NICE_ADMIN is EPERM.
 * prioritize() prices each pending job alone and logs (info) how many
 * pending and running jobs it was given.  Conf key FakeInitFail=yes makes
 * init fail with ECONF naming file:line.
 */
#define MFPRIO_PLUGIN_IMPLEMENTATION
#include <mfprio/mfprio.h>

#include <math.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifdef FAKE_REQUIRED_ONLY
#define FAKE_NO_OPTIONAL 1
#endif

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
static uint64_t g_resolves, g_factor_calls, g_jobs_charged, g_prioritize_calls;
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

/* The term layout (name, label, flags, width), also published in plugin_info_json. */
static const struct {
    const char *name, *label;
    uint32_t flags, width;
} k_terms[] = {
    {"site", "SITE", MFPRIO_TERMF_RAW, 0},
    {"age", "AGE", 0, 0},
    {"assoc", "ASSOC", MFPRIO_TERMF_ZERO_WEIGHT, 0},
    {"fairshare", "FAIRSHARE", 0, 0},
    {"jobsize", "JOBSIZE", 0, 0},
    {"partition", "PARTITION", 0, 0},
    {"qosname", "QOSNAME", MFPRIO_TERMF_TEXT | MFPRIO_TERMF_LONG, 0},
    {"qos", "QOS", 0, 0},
    {"nice", "NICE", MFPRIO_TERMF_RAW | MFPRIO_TERMF_LONG, 11},
    {"tres", "TRES", MFPRIO_TERMF_LIST, 20},
};
#define K_NTERMS (sizeof k_terms / sizeof k_terms[0])

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
    sb_add(&b, "{\"plugin_type\":");
    sb_str(&b, plugin_type);
    sb_add(&b, ",\"abi_version\":%u,\"type\":", (unsigned)MFPRIO_ABI_VERSION);
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
               "\"qos\":300,\"tres\":\"GRES/gpu=1000\"},\"terms\":[");
    for (i = 0; i < K_NTERMS; ++i) {
        sb_add(&b, i ? ",{\"name\":" : "{\"name\":");
        sb_str(&b, k_terms[i].name);
        sb_add(&b, ",\"label\":");
        sb_str(&b, k_terms[i].label);
        sb_add(&b, ",\"flags\":%u,\"width\":%u,\"parent\":-1}", k_terms[i].flags, k_terms[i].width);
    }
    sb_add(&b, "],\"conf\":[");
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
    if (!g_inited) {
        set_err("fini before init");
        return MFPRIO_ESTATE;
    }
    logf_(MFPRIO_LOG_INFO, "fake fini: resolves=%llu factors=%llu prioritize=%llu", (unsigned long long)g_resolves,
          (unsigned long long)g_factor_calls, (unsigned long long)g_prioritize_calls);
    free(g_info);
    g_info = NULL;
    g_inited = 0;
    return MFPRIO_OK;
}

/* The look-up job_resolve caches: done by name when the handle is zero. */
static int check_job(const mfprio_job_t *job) {
    if (!g_inited) {
        set_err("call before init");
        return MFPRIO_ESTATE;
    }
    if (!job || job->struct_size < sizeof(mfprio_job_t) || !job->user) {
        set_err("bad job record");
        return MFPRIO_EINVAL;
    }
    if (strcmp(job->user, "ghost") == 0) {
        set_err("job %llu: unknown user 'ghost'", (unsigned long long)job->job_id);
        return MFPRIO_ENOENT;
    }
    return MFPRIO_OK;
}

static double tres_total(const char *name) {
    size_t i;
    for (i = 0; i < g_host.cluster_tres_count; ++i)
        if (strcmp(g_host.cluster_tres[i].name, name) == 0) return g_host.cluster_tres[i].count;
    return 0;
}

static mfprio_term_t *add_term(mfprio_factors_t *f, uint32_t max, size_t layout, double factor, double weight,
                               double contribution, int32_t parent) {
    mfprio_term_t *t;
    if (f->term_count >= max) return NULL;
    t = &f->terms[f->term_count++];
    memset(t, 0, sizeof *t);
    snprintf(t->name, sizeof t->name, "%s", k_terms[layout].name);
    snprintf(t->label, sizeof t->label, "%s", k_terms[layout].label);
    t->factor = factor;
    t->weight = weight;
    t->contribution = contribution;
    t->parent = parent;
    t->flags = k_terms[layout].flags;
    t->width = k_terms[layout].width;
    return t;
}

/* Fills f (at most max terms); returns a status. */
static int fake_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *f, uint32_t max) {
    uint32_t i;
    double sum, age, jobsize, part, qos;
    int32_t tres_at;
    mfprio_term_t *t;
    int rc = check_job(job);
    if (rc != MFPRIO_OK) return rc;
    if (job->nice < 0 && !(job->flags & MFPRIO_JOBF_NICE_ADMIN)) {
        set_err("job %llu: negative nice %d needs an admin", (unsigned long long)job->job_id, job->nice);
        return MFPRIO_EPERM;
    }
    memset(f, 0, offsetof(mfprio_factors_t, terms));
    f->struct_size = sizeof *f;
    age = job->eligible_time ? (double)(now - job->eligible_time) / 86400.0 : 0;
    if (age < 0) age = 0;
    if (age > 1) age = 1;
    jobsize = g_host.cluster_cpus ? (double)job->cpus / g_host.cluster_cpus : 0;
    if (jobsize > 1) jobsize = 1;
    part = job->partition && strcmp(job->partition, "high") == 0 ? 1.0 : 0.5;
    qos = job->qos && strcmp(job->qos, "high") == 0 ? 1.0 : 0.0;
    sum = 1000 * age + 500 * 0.5 + 100 * jobsize + 200 * part + 300 * qos + (double)job->site_factor -
          (double)job->nice;
    add_term(f, max, 0, job->site_factor, 1, job->site_factor, -1);
    add_term(f, max, 1, age, 1000, 1000 * age, -1);
    add_term(f, max, 2, 0, 0, 0, -1);
    add_term(f, max, 3, 0.5, 500, 250, -1);
    add_term(f, max, 4, jobsize, 100, 100 * jobsize, -1);
    add_term(f, max, 5, part, 200, 200 * part, -1);
    if ((t = add_term(f, max, 6, 0, 0, 0, -1)) != NULL) snprintf(t->text, sizeof t->text, "%s", job->qos ? job->qos : "");
    add_term(f, max, 7, qos, 300, 300 * qos, -1);
    add_term(f, max, 8, job->nice, -1, -(double)job->nice, -1);
    tres_at = (int32_t)f->term_count;
    t = add_term(f, max, 9, 0, 1000, 0, -1);
    for (i = 0; i < job->tres_count; ++i) {
        double total = tres_total(job->tres[i].name);
        double factor = total > 0 ? job->tres[i].count / total : 0;
        mfprio_term_t *c;
        if (factor > 1) factor = 1;
        sum += 1000 * factor;
        if (t) t->contribution += 1000 * factor;
        if (t && (c = add_term(f, max, 9, factor, 1000, 1000 * factor, tres_at)) != NULL) {
            snprintf(c->name, sizeof c->name, "%s", job->tres[i].name);
            c->label[0] = '\0';
            c->flags = 0;
            c->width = 0;
        }
    }
    f->unclamped = sum;
    snprintf(f->qos_name, sizeof f->qos_name, "%s", job->qos ? job->qos : "");
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
    int rc = fake_factors(job, now, &f, MFPRIO_MAX_TERMS);
    if (rc == MFPRIO_OK) *priority = f.priority;
    return rc;
}

#ifndef FAKE_OMIT_DECAY
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
    for (i = 0; i < count; ++i) {
        int rc = check_job(&running[i]);
        if (rc != MFPRIO_OK) return rc;
    }
    g_jobs_charged += count;
    g_last_decay = now;
    ++g_generation;
    return MFPRIO_OK;
}
#endif

const char *errmsg(void) { return g_err; }

#ifndef FAKE_NO_OPTIONAL
int job_resolve(mfprio_job_t *job) {
    int rc = check_job(job);
    if (rc == MFPRIO_OK) ++g_resolves;
    if (rc != MFPRIO_OK) return rc;
    job->handle.generation = g_generation;
    job->handle.assoc = (uint32_t)strlen(job->user);
    return MFPRIO_OK;
}

int set_priority_batch(const mfprio_job_t *jobs, size_t count, int64_t now, uint32_t *priorities, int *statuses) {
    size_t i;
    int first = MFPRIO_OK;
    char msg[sizeof g_err] = "";
    for (i = 0; i < count; ++i) {
        int rc = set_priority(&jobs[i], now, &priorities[i]);
        if (rc != MFPRIO_OK) priorities[i] = 0;
        if (statuses) statuses[i] = rc;
        if (rc != MFPRIO_OK && first == MFPRIO_OK) {
            first = rc;
            memcpy(msg, g_err, sizeof msg);
        }
    }
    if (first != MFPRIO_OK) memcpy(g_err, msg, sizeof msg);
    return first;
}

int prioritize(const mfprio_job_t *pending, size_t pending_count, const mfprio_job_t *running, size_t running_count,
               int64_t now, uint32_t *priorities, int *statuses) {
    size_t i;
    if (!g_inited) {
        set_err("prioritize before init");
        return MFPRIO_ESTATE;
    }
    for (i = 0; i < running_count; ++i) {
        int rc = check_job(&running[i]);
        if (rc != MFPRIO_OK) return rc;
    }
    ++g_prioritize_calls;
    logf_(MFPRIO_LOG_INFO, "fake prioritize: %zu pending, %zu running", pending_count, running_count);
    return set_priority_batch(pending, pending_count, now, priorities, statuses);
}

int job_end(const mfprio_job_t *job, int64_t end_time) {
    int rc = check_job(job);
    if (rc != MFPRIO_OK) return rc;
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
    for (i = 0; i < count; i++) {
        int rc = check_job(&jobs[i]);
        if (rc != MFPRIO_OK) return rc;
        if (end_times[i] < jobs[i].start_time) {
            set_err("job %llu: end %lld is before start %lld", (unsigned long long)jobs[i].job_id,
                    (long long)end_times[i], (long long)jobs[i].start_time);
            return MFPRIO_EINVAL;
        }
    }
    g_jobs_charged += count;
    return MFPRIO_OK;
}

int job_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *out) {
    mfprio_factors_t f;
    size_t max;
    int rc;
    ++g_factor_calls;
    if (!out || out->struct_size < offsetof(mfprio_factors_t, terms)) {
        set_err("job_factors: bad out struct");
        return MFPRIO_EINVAL;
    }
    /* As many terms as the caller's struct holds (mfprio.h). */
    max = (out->struct_size - offsetof(mfprio_factors_t, terms)) / sizeof(mfprio_term_t);
    if (max > MFPRIO_MAX_TERMS) max = MFPRIO_MAX_TERMS;
    rc = fake_factors(job, now, &f, (uint32_t)max);
    if (rc != MFPRIO_OK) return rc;
    f.struct_size = out->struct_size;
    memcpy(out, &f, offsetof(mfprio_factors_t, terms) + f.term_count * sizeof(mfprio_term_t));
    return MFPRIO_OK;
}

int job_factors_json(const mfprio_job_t *job, int64_t now, char **json) {
    mfprio_factors_t f;
    sbuf b = {0};
    uint32_t i;
    int rc;
    ++g_factor_calls;
    rc = fake_factors(job, now, &f, MFPRIO_MAX_TERMS);
    if (rc != MFPRIO_OK) return rc;
    sb_add(&b, "{\"job_id\":%llu,\"priority\":%u,\"unclamped\":%.7f,\"clamped\":%u,\"terms\":[",
           (unsigned long long)job->job_id, f.priority, f.unclamped, f.clamped);
    for (i = 0; i < f.term_count; ++i) {
        const mfprio_term_t *t = &f.terms[i];
        sb_add(&b, i ? ",{\"name\":" : "{\"name\":");
        sb_str(&b, t->name);
        sb_add(&b, ",\"label\":");
        sb_str(&b, t->label);
        sb_add(&b, ",\"factor\":%.7f,\"weight\":%g,\"contribution\":%.7f,\"parent\":%d}", t->factor, t->weight,
               t->contribution, t->parent);
    }
    sb_add(&b, "]}");
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

/* The multifactor family's sshare columns (Slurm's sshare -l). */
static const mfprio_share_column_t k_cols[] = {
    {"account", "Account", -1, 20, MFPRIO_COLF_TEXT | MFPRIO_COLF_INDENT | MFPRIO_COLF_LEFT},
    {"user", "User", -1, 10, MFPRIO_COLF_TEXT},
    {"raw_shares", "RawShares", -1, 10, 0},
    {"norm_shares", "NormShares", 6, 11, 0},
    {"raw_usage", "RawUsage", -1, 11, 0},
    {"norm_usage", "NormUsage", 6, 11, MFPRIO_COLF_LONG},
    {"eff_usage", "EffectvUsage", 6, 13, 0},
    {"fairshare", "FairShare", 6, 10, 0},
    {"level_fs", "LevelFS", 6, 10, MFPRIO_COLF_LONG},
    {"grp_tres_mins", "GrpTRESMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG},
    {"tres_run_mins", "TRESRunMins", -1, 30, MFPRIO_COLF_TEXT | MFPRIO_COLF_LONG},
};
#define K_NCOLS (sizeof k_cols / sizeof k_cols[0])

/* One allocation: the table, its rows, then every row's cells. */
typedef struct {
    mfprio_share_table_t table;
    mfprio_share_row_t rows[K_NROWS];
    mfprio_share_cell_t cells[K_NROWS][K_NCOLS];
} fake_table;

int share_table(mfprio_share_table_t **out) {
    size_t i;
    fake_table *t;
    if (!out) {
        set_err("share_table: NULL out");
        return MFPRIO_EINVAL;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        set_err("share_table: out of memory");
        return MFPRIO_ENOMEM;
    }
    t->table.struct_size = sizeof t->table;
    t->table.column_count = K_NCOLS;
    t->table.row_count = K_NROWS;
    t->table.columns = k_cols;
    t->table.rows = t->rows;
    for (i = 0; i < K_NROWS; ++i) {
        mfprio_share_row_t *r = &t->rows[i];
        mfprio_share_cell_t *c = t->cells[i];
        const int root = k_rows[i].parent < 0;
        r->parent = k_rows[i].parent;
        r->depth = k_rows[i].depth;
        r->is_user = k_rows[i].is_user;
        r->account = k_rows[i].account;
        r->user = k_rows[i].user;
        r->cells = c;
        c[0].text = k_rows[i].account;
        c[1].text = k_rows[i].user ? k_rows[i].user : "";
        if (root) c[2].text = "";
        else if (k_rows[i].shares_parent) c[2].text = "parent";
        else c[2].value = k_rows[i].raw_shares;
        c[3].value = k_rows[i].norm_shares;
        c[4].value = k_rows[i].raw_usage;
        c[5].value = k_rows[i].norm_usage;
        c[6].value = k_rows[i].eff_usage;
        if (k_rows[i].is_user) c[7].value = k_rows[i].fairshare;
        else c[7].text = "";
        if (root) c[8].text = "";
        else c[8].value = k_rows[i].level_fs;
        c[9].text = "";
        c[10].text = "";
    }
    *out = &t->table;
    return MFPRIO_OK;
}

void share_table_free(mfprio_share_table_t *table) { free(table); /* the table is the block's first member */ }

int share_table_json(char **json) {
    size_t i;
    sbuf b = {0};
    sb_add(&b, "{\"columns\":[");
    for (i = 0; i < K_NCOLS; ++i) {
        sb_add(&b, i ? ",{\"name\":" : "{\"name\":");
        sb_str(&b, k_cols[i].name);
        sb_add(&b, ",\"label\":");
        sb_str(&b, k_cols[i].label);
        sb_add(&b, "}");
    }
    sb_add(&b, "],\"rows\":[");
    for (i = 0; i < K_NROWS; ++i) {
        sb_add(&b, i ? ",{\"parent\":%d,\"depth\":%u,\"account\":" : "{\"parent\":%d,\"depth\":%u,\"account\":",
               k_rows[i].parent, k_rows[i].depth);
        sb_str(&b, k_rows[i].account);
        if (k_rows[i].user) {
            sb_add(&b, ",\"user\":");
            sb_str(&b, k_rows[i].user);
        } else {
            sb_add(&b, ",\"user\":null");
        }
        sb_add(&b, ",\"fairshare\":%g}", k_rows[i].fairshare);
    }
    sb_add(&b, "]}");
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

#ifndef FAKE_OMIT_FREE_STRING
void free_string(char *s) { free(s); }
#endif

int set_accounts(const mfprio_accounts_t *accounts) {
    if (!accounts || accounts->struct_size < sizeof(*accounts)) {
        set_err("set_accounts: bad accounts");
        return MFPRIO_EINVAL;
    }
    return MFPRIO_OK;
}
#endif /* FAKE_NO_OPTIONAL */
