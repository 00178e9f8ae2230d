/*
 * abi_misuse.c - the ABI misuse suite: a plain C99 host that
 * dlopens a real plugin and calls every operation wrongly.  Every call must
 * return a status from the header's list, errmsg() must stay a bounded
 * C string (<= 4 KiB), and nothing may crash (a crash fails the test:
 * meson sees the signal).
 *
 *   abi_misuse PLUGIN.so [MFPRIO_ACCT SAMPLE_ACCOUNTS.json]
 *
 * With MFPRIO_ACCT and the sample accounts the store is filled first (for
 * the store-backed families), so that valid jobs exist to be misused.
 *
 * What is misused: every pointer argument NULL; struct_size 0, too small
 * and too large (host table, job records, factors, stats); counts 0 and
 * SIZE_MAX (with NULL and with a real one-element array); NaN, inf and
 * negative values in every numeric field of mfprio_job_t and the host
 * table's TRES; forged and stale handles; calls before init, after fini,
 * and init twice; 1 MB strings as names (job fields, conf keys and values).
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfprio/mfprio.h"

#define ERRMSG_MAX 4096

static int failures = 0;
static int calls = 0;
static mfprio_ops_t ops;

#define CHECK(cond, ...)                                                  \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "abi_misuse:%d: check failed: %s: ", __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                 \
            fprintf(stderr, "\n");                                        \
            failures++;                                                   \
        }                                                                 \
    } while (0)

/* Every call goes through here: a known status and a bounded message. */
static int status_ok(int rc) { return rc <= 0 && rc >= MFPRIO_ENOTSUP; }

static int checked(int rc, int line, const char *what) {
    const char *m = ops.errmsg();
    calls++;
    if (!status_ok(rc)) {
        fprintf(stderr, "abi_misuse:%d: %s: status %d is not an MFPRIO_* status\n", line, what, rc);
        failures++;
    }
    if (!m) {
        fprintf(stderr, "abi_misuse:%d: %s: errmsg() is NULL\n", line, what);
        failures++;
    } else if (strlen(m) > ERRMSG_MAX) {
        fprintf(stderr, "abi_misuse:%d: %s: errmsg() is %lu bytes\n", line, what, (unsigned long)strlen(m));
        failures++;
    } else if (rc != MFPRIO_OK && m[0] == '\0') {
        fprintf(stderr, "abi_misuse:%d: %s: failed (%d) without a message\n", line, what, rc);
        failures++;
    }
    return rc;
}
#define CALL(expr) checked((expr), __LINE__, #expr)
/* A call that must fail (any error status). */
#define REFUSED(expr) CHECK(CALL(expr) != MFPRIO_OK, "accepted")

static char *big_string(size_t n, char c) {
    char *s = (char *)malloc(n + 1);
    if (!s) abort();
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

static void *load(const char *path) {
    static const char *const names[] = {MFPRIO_OPS_SYMBOLS};
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    size_t i;
    if (!dl) {
        fprintf(stderr, "abi_misuse: %s\n", dlerror());
        return NULL;
    }
    memset(&ops, 0, sizeof ops);
    for (i = 0; i < MFPRIO_OPS_COUNT; i++) {
        void *sym = dlsym(dl, names[i]);
        if (!sym && i < MFPRIO_OPS_REQUIRED) {
            fprintf(stderr, "abi_misuse: %s: missing symbol %s\n", path, names[i]);
            return NULL;
        }
        memcpy((char *)&ops + i * sizeof(void (*)(void)), &sym, sizeof sym);
    }
    return dl;
}

static void job_init(mfprio_job_t *j, uint64_t id) {
    memset(j, 0, sizeof *j);
    j->struct_size = sizeof *j;
    j->job_id = id;
    j->user = "alice";
    j->cpus = 1;
    j->min_nodes = 1;
    j->submit_time = 1700000000;
    j->eligible_time = 1700000000;
}

/* Every operation on one job record, each expected to return some status
 * (which one depends on the family); the record may be nonsense. */
static void all_job_calls(const mfprio_job_t *j, int64_t now) {
    uint32_t p = 0, ps[1];
    int st[1];
    mfprio_factors_t f;
    char *json = NULL;
    mfprio_job_t copy;
    CALL(ops.set_priority(j, now, &p));
    if (ops.set_priority_batch) CALL(ops.set_priority_batch(j, 1, now, ps, st));
    if (ops.prioritize) CALL(ops.prioritize(j, 1, j, 1, now, ps, st));
    if (ops.job_resolve) {
        memcpy(&copy, j, sizeof copy);
        CALL(ops.job_resolve(&copy));
    }
    if (ops.job_factors) {
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        CALL(ops.job_factors(j, now, &f));
        CHECK(f.term_count <= MFPRIO_MAX_TERMS, "term_count %u", (unsigned)f.term_count);
    }
    if (ops.job_factors_json) {
        json = NULL;
        if (CALL(ops.job_factors_json(j, now, &json)) == MFPRIO_OK) {
            CHECK(json != NULL, "no JSON");
            if (ops.free_string) ops.free_string(json);
        }
    }
}

/* Charging calls change the store; run them only where the caller wants. */
static void charge_calls(const mfprio_job_t *j, int64_t now) {
    int64_t end[1];
    end[0] = now;
    CALL(ops.decay(now, j, 1));
    if (ops.job_end) CALL(ops.job_end(j, now));
    if (ops.job_end_batch) CALL(ops.job_end_batch(j, 1, end));
}

static void every_op_refused_state(const char *when) {
    uint32_t p = 0;
    mfprio_job_t j;
    mfprio_factors_t f;
    mfprio_stats_t s;
    mfprio_share_table_t *t = NULL;
    char *json = NULL;
    int64_t end = 0;
    job_init(&j, 1);
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    memset(&s, 0, sizeof s);
    s.struct_size = sizeof s;
    CHECK(CALL(ops.set_priority(&j, 0, &p)) == MFPRIO_ESTATE, "%s: set_priority", when);
    CHECK(CALL(ops.set_priority(NULL, 0, NULL)) == MFPRIO_ESTATE, "%s: set_priority(NULL)", when);
    CHECK(CALL(ops.decay(0, NULL, 0)) == MFPRIO_ESTATE, "%s: decay", when);
    CHECK(CALL(ops.decay(0, NULL, SIZE_MAX)) != MFPRIO_OK, "%s: decay SIZE_MAX", when);
    CHECK(CALL(ops.fini()) == MFPRIO_ESTATE, "%s: fini", when);
    if (ops.job_resolve) CHECK(CALL(ops.job_resolve(&j)) == MFPRIO_ESTATE, "%s", when);
    if (ops.set_priority_batch) CHECK(CALL(ops.set_priority_batch(&j, 1, 0, &p, NULL)) == MFPRIO_ESTATE, "%s", when);
    if (ops.prioritize) CHECK(CALL(ops.prioritize(&j, 1, NULL, 0, 0, &p, NULL)) == MFPRIO_ESTATE, "%s", when);
    if (ops.job_end) CHECK(CALL(ops.job_end(&j, 0)) == MFPRIO_ESTATE, "%s", when);
    if (ops.job_end_batch) CHECK(CALL(ops.job_end_batch(&j, 1, &end)) == MFPRIO_ESTATE, "%s", when);
    if (ops.job_factors) CHECK(CALL(ops.job_factors(&j, 0, &f)) == MFPRIO_ESTATE, "%s", when);
    if (ops.job_factors_json) CHECK(CALL(ops.job_factors_json(&j, 0, &json)) == MFPRIO_ESTATE, "%s", when);
    if (ops.share_table) CHECK(CALL(ops.share_table(&t)) == MFPRIO_ESTATE, "%s", when);
    if (ops.share_table_json) CHECK(CALL(ops.share_table_json(&json)) == MFPRIO_ESTATE, "%s", when);
    if (ops.plugin_stats) CHECK(CALL(ops.plugin_stats(&s)) == MFPRIO_ESTATE, "%s", when);
    if (ops.set_accounts) {
        mfprio_accounts_t a;
        memset(&a, 0, sizeof a);
        a.struct_size = sizeof a;
        CHECK(CALL(ops.set_accounts(&a)) == MFPRIO_ESTATE, "%s: set_accounts", when);
        CHECK(CALL(ops.set_accounts(NULL)) == MFPRIO_ESTATE, "%s: set_accounts(NULL)", when);
    }
    if (ops.plugin_info_json) CALL(ops.plugin_info_json(&json));  /* may answer without init */
    if (ops.share_table_free) ops.share_table_free(NULL);
    if (ops.free_string) ops.free_string(NULL);
}

static mfprio_kv_t conf[8];
static size_t conf_n = 0;

static void host_init(mfprio_host_t *h) {
    memset(h, 0, sizeof *h);
    h->struct_size = sizeof *h;
    h->abi_version = MFPRIO_ABI_VERSION;
    h->conf = conf;
    h->conf_count = conf_n;
    h->cluster_nodes = 4;
    h->cluster_cpus = 96;
    h->cluster_mem_mb = 1u << 20;
}

static void init_misuse(void) {
    mfprio_host_t h;
    unsigned char big[sizeof(mfprio_host_t) + 256];
    mfprio_tres_t tres[2];
    mfprio_kv_t kv[3];
    char *huge = big_string(1u << 20, 'k');
    const double bad[] = {NAN, INFINITY, -INFINITY, -1.0};
    size_t i;

    REFUSED(ops.init(NULL));
    host_init(&h);
    h.struct_size = 0;
    REFUSED(ops.init(&h));
    h.struct_size = 4;
    REFUSED(ops.init(&h));
    h.struct_size = sizeof h - 1;
    REFUSED(ops.init(&h));
    host_init(&h);
    h.abi_version = 1;
    REFUSED(ops.init(&h));
    host_init(&h);
    h.abi_version = UINT32_MAX;
    REFUSED(ops.init(&h));
    /* conf: NULL with a count, count SIZE_MAX, NULL members, huge strings. */
    host_init(&h);
    h.conf = NULL;
    h.conf_count = 3;
    REFUSED(ops.init(&h));
    host_init(&h);
    h.conf_count = SIZE_MAX;
    REFUSED(ops.init(&h));
    for (i = 0; i < 3; i++) {
        host_init(&h);
        kv[0].key = "PriorityWeightAge";
        kv[0].value = "10";
        kv[0].file = "x.conf";
        kv[0].line = 1;
        if (i == 0) kv[0].key = NULL;
        if (i == 1) kv[0].value = NULL;
        if (i == 2) kv[0].file = NULL;
        h.conf = kv;
        h.conf_count = 1;
        CALL(ops.init(&h)); /* NULL file may be accepted; NULL key/value refused */
        if (i < 2) CHECK(ops.fini() == MFPRIO_ESTATE, "init with a NULL key or value was accepted");
        else ops.fini();
    }
    host_init(&h);
    kv[0].key = huge;
    kv[0].value = "1";
    kv[0].file = "x.conf";
    kv[0].line = 1;
    kv[1].key = "PriorityWeightAge";
    kv[1].value = huge;
    kv[1].file = huge;
    kv[1].line = UINT32_MAX;
    h.conf = kv;
    h.conf_count = 2;
    CALL(ops.init(&h));
    ops.fini();
    /* cluster TRES: NULL with a count, SIZE_MAX, bad numbers, NULL/huge names. */
    host_init(&h);
    h.cluster_tres = NULL;
    h.cluster_tres_count = 3;
    REFUSED(ops.init(&h));
    host_init(&h);
    tres[0].name = "gres/gpu";
    tres[0].count = 8;
    h.cluster_tres = tres;
    h.cluster_tres_count = SIZE_MAX;
    REFUSED(ops.init(&h));
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        host_init(&h);
        tres[0].name = "gres/gpu";
        tres[0].count = bad[i];
        h.cluster_tres = tres;
        h.cluster_tres_count = 1;
        REFUSED(ops.init(&h));
    }
    host_init(&h);
    tres[0].name = NULL;
    tres[0].count = 1;
    h.cluster_tres = tres;
    h.cluster_tres_count = 1;
    REFUSED(ops.init(&h));
    host_init(&h);
    tres[0].name = huge;
    h.cluster_tres = tres;
    CALL(ops.init(&h));
    ops.fini();
    /* A host table larger than the plugin's: accepted, the tail ignored. */
    host_init(&h);
    memset(big, 0xa5, sizeof big);
    h.struct_size = sizeof big;
    memcpy(big, &h, sizeof h);
    CHECK(CALL(ops.init((const mfprio_host_t *)(void *)big)) == MFPRIO_OK, "larger host table: %s", ops.errmsg());
    ops.fini();
    free(huge);
}

/* set_accounts with bad shapes: every one refused (nothing written), none
 * crashes; a tree with NULL or huge names, repeated rows and unknown flags
 * names its row. */
static void accounts_misuse(void) {
    mfprio_accounts_t a;
    mfprio_assoc_t rows[3];
    mfprio_qos_rec_t q[1];
    char *huge;
    if (!ops.set_accounts) return;
    huge = big_string(1u << 20, 'x');
    REFUSED(ops.set_accounts(NULL));
    memset(&a, 0, sizeof a);
    REFUSED(ops.set_accounts(&a)); /* struct_size 0 */
    a.struct_size = sizeof a;
    a.flags = 0x80u;
    REFUSED(ops.set_accounts(&a)); /* unknown flag */
    a.flags = 0;
    a.assoc_count = 1; /* no array */
    a.assoc_size = sizeof(mfprio_assoc_t);
    REFUSED(ops.set_accounts(&a));
    a.assoc_count = SIZE_MAX;
    REFUSED(ops.set_accounts(&a));
    memset(rows, 0, sizeof rows);
    a.assocs = rows;
    a.assoc_count = 1;
    a.assoc_size = 0;
    REFUSED(ops.set_accounts(&a)); /* element size 0 */
    a.assoc_size = sizeof(mfprio_assoc_t);
    REFUSED(ops.set_accounts(&a)); /* account NULL */
    rows[0].account = huge;
    REFUSED(ops.set_accounts(&a)); /* a 1 MB name */
    rows[0].account = "acct\n1";
    REFUSED(ops.set_accounts(&a)); /* a control character */
    rows[0].account = "a1";
    rows[0].flags = 0x100u;
    REFUSED(ops.set_accounts(&a)); /* unknown row flag */
    rows[0].flags = 0;
    rows[1] = rows[0];
    a.assoc_count = 2;
    REFUSED(ops.set_accounts(&a)); /* repeated */
    rows[1].user = "u1";
    rows[1].account = "nowhere";
    REFUSED(ops.set_accounts(&a)); /* a user under an account the tree lacks */
    a.assoc_count = 1;
    a.flags = MFPRIO_ACCOUNTSF_QOS;
    a.qos = q;
    a.qos_count = 1;
    a.qos_size = sizeof(mfprio_qos_rec_t);
    memset(q, 0, sizeof q);
    q[0].name = "nq";
    q[0].usage_factor = NAN;
    REFUSED(ops.set_accounts(&a)); /* NaN UsageFactor */
    q[0].usage_factor = -1.0;
    REFUSED(ops.set_accounts(&a));
    q[0].name = NULL;
    q[0].usage_factor = 1.0;
    REFUSED(ops.set_accounts(&a));
    free(huge);
}

static void job_misuse(int store_backed) {
    mfprio_job_t j, jobs[2];
    unsigned char bigjob[sizeof(mfprio_job_t) + 256];
    mfprio_tres_t tres[1];
    mfprio_attr_t attrs[1];
    uint32_t p = 0, ps[2];
    int st[2];
    int64_t ends[2];
    char *huge = big_string(1u << 20, 'u');
    const double bad[] = {NAN, INFINITY, -INFINITY, -1.0, 1e308};
    const int64_t times[] = {INT64_MIN, -1, 0, INT64_MAX};
    size_t i, k;

    /* NULL pointers. */
    REFUSED(ops.set_priority(NULL, 0, &p));
    job_init(&j, 1);
    REFUSED(ops.set_priority(&j, 0, NULL));
    if (ops.set_priority_batch) {
        REFUSED(ops.set_priority_batch(NULL, 1, 0, ps, st));
        REFUSED(ops.set_priority_batch(&j, 1, 0, NULL, st));
        CALL(ops.set_priority_batch(&j, 1, 0, ps, NULL));
        CHECK(CALL(ops.set_priority_batch(NULL, 0, 0, NULL, NULL)) == MFPRIO_OK, "count 0");
        REFUSED(ops.set_priority_batch(NULL, SIZE_MAX, 0, ps, st));
        REFUSED(ops.set_priority_batch(&j, SIZE_MAX, 0, ps, st));
    }
    if (ops.prioritize) {
        REFUSED(ops.prioritize(NULL, 1, NULL, 0, 0, ps, st));
        REFUSED(ops.prioritize(&j, 1, NULL, 1, 0, ps, st));
        REFUSED(ops.prioritize(&j, 1, NULL, 0, 0, NULL, st));
        CALL(ops.prioritize(NULL, 0, NULL, 0, 0, NULL, NULL));
        REFUSED(ops.prioritize(&j, SIZE_MAX, NULL, 0, 0, ps, st));
        REFUSED(ops.prioritize(&j, 1, &j, SIZE_MAX, 0, ps, st));
    }
    if (ops.job_resolve) REFUSED(ops.job_resolve(NULL));
    if (ops.job_factors) REFUSED(ops.job_factors(&j, 0, NULL));
    if (ops.job_factors) {
        mfprio_factors_t f;
        memset(&f, 0, sizeof f);
        REFUSED(ops.job_factors(NULL, 0, &f));
        f.struct_size = 0;
        REFUSED(ops.job_factors(&j, 0, &f));
        f.struct_size = 8;
        REFUSED(ops.job_factors(&j, 0, &f));
        f.struct_size = (uint32_t)offsetof(mfprio_factors_t, terms) + 1; /* room for no term */
        CALL(ops.job_factors(&j, 0, &f)); /* must not write terms past struct_size (ASan) */
    }
    if (ops.job_factors) {
        /* Larger than the plugin's struct: the plugin writes only what fits its own. */
        unsigned char bigf[sizeof(mfprio_factors_t) + 1024];
        mfprio_factors_t *f = (mfprio_factors_t *)(void *)bigf;
        memset(bigf, 0, sizeof bigf);
        f->struct_size = sizeof bigf;
        CALL(ops.job_factors(&j, 0, f));
    }
    if (ops.job_factors_json) {
        char *json = NULL;
        REFUSED(ops.job_factors_json(&j, 0, NULL));
        REFUSED(ops.job_factors_json(NULL, 0, &json));
    }
    if (ops.share_table) REFUSED(ops.share_table(NULL));
    if (ops.share_table_json) REFUSED(ops.share_table_json(NULL));
    if (ops.plugin_info_json) REFUSED(ops.plugin_info_json(NULL));
    if (ops.plugin_stats) {
        unsigned char bigs[sizeof(mfprio_stats_t) + 64];
        mfprio_stats_t s;
        REFUSED(ops.plugin_stats(NULL));
        memset(&s, 0, sizeof s);
        s.struct_size = 0;
        REFUSED(ops.plugin_stats(&s));
        s.struct_size = sizeof s - 1;
        REFUSED(ops.plugin_stats(&s));
        memset(bigs, 0, sizeof bigs);
        ((mfprio_stats_t *)(void *)bigs)->struct_size = sizeof bigs;
        CHECK(CALL(ops.plugin_stats((mfprio_stats_t *)(void *)bigs)) == MFPRIO_OK, "larger stats: %s", ops.errmsg());
    }
    if (ops.share_table_free) ops.share_table_free(NULL);
    if (ops.free_string) ops.free_string(NULL);
    REFUSED(ops.decay(0, NULL, 1));
    REFUSED(ops.decay(1700000000, NULL, SIZE_MAX));
    if (ops.job_end) REFUSED(ops.job_end(NULL, 0));
    if (ops.job_end_batch) {
        job_init(&jobs[0], 100);
        REFUSED(ops.job_end_batch(NULL, 1, ends));
        REFUSED(ops.job_end_batch(jobs, 1, NULL));
        REFUSED(ops.job_end_batch(jobs, SIZE_MAX, ends));
        CALL(ops.job_end_batch(NULL, 0, NULL));
    }

    /* struct_size of the job record. */
    job_init(&j, 2);
    j.struct_size = 0;
    REFUSED(ops.set_priority(&j, 0, &p));
    j.struct_size = 8;
    REFUSED(ops.set_priority(&j, 0, &p));
    j.struct_size = sizeof j - 1;
    all_job_calls(&j, 0);
    REFUSED(ops.set_priority(&j, 0, &p));
    memset(bigjob, 0xff, sizeof bigjob);
    job_init(&j, 3);
    j.struct_size = sizeof bigjob;
    memcpy(bigjob, &j, sizeof j);
    all_job_calls((const mfprio_job_t *)(void *)bigjob, 1700000100);

    /* Names: NULL user, 1 MB strings in every name field, control bytes. */
    for (k = 0; k < 6; k++) {
        job_init(&j, 10 + k);
        switch (k) {
            case 0: j.user = NULL; break;
            case 1: j.user = huge; break;
            case 2: j.account = huge; break;
            case 3: j.partition = huge; break;
            case 4: j.qos = huge; break;
            default: j.group = huge; break;
        }
        all_job_calls(&j, 1700000100);
        /* A NULL user: refused by families that look users up; priority/basic
         * (FIFO) never reads it, so any status will do. */
        if (k == 0 && store_backed) REFUSED(ops.set_priority(&j, 0, &p));
    }
    job_init(&j, 20);
    j.user = "al\nice\x1b[2J";
    all_job_calls(&j, 1700000100);

    /* Every numeric field at its extremes. */
    for (i = 0; i < sizeof times / sizeof times[0]; i++) {
        for (k = 0; k < 5; k++) {
            job_init(&j, 30 + k);
            if (k == 0) j.submit_time = times[i];
            if (k == 1) j.eligible_time = times[i];
            if (k == 2) { j.state = MFPRIO_JOB_RUNNING; j.start_time = times[i]; }
            if (k == 3) j.deadline = times[i];
            all_job_calls(&j, k == 4 ? times[i] : 1700000100);
        }
    }
    for (k = 0; k < 16; k++) {
        job_init(&j, 40 + k);
        switch (k) {
            case 0: j.min_nodes = UINT32_MAX; break;
            case 1: j.cpus = UINT32_MAX; break;
            case 2: j.mem_mb = UINT64_MAX; break;
            case 3: j.time_limit_min = UINT32_MAX; break;
            case 4: j.nice = INT32_MIN; j.flags = MFPRIO_JOBF_NICE_ADMIN; break;
            case 5: j.nice = INT32_MAX; break;
            case 6: j.site_factor = INT32_MIN; break;
            case 7: j.site_factor = INT32_MAX; break;
            case 8: j.prev_priority = UINT32_MAX; break;
            case 9: j.bypass_count = UINT32_MAX; j.start_count = UINT32_MAX; break;
            case 10: j.user_priority = INT32_MIN; break;
            case 11: j.user_priority = INT32_MAX; j.flags = MFPRIO_JOBF_USER_PRIORITY_ADMIN; break;
            case 12: j.urgency = 255; j.flags = MFPRIO_JOBF_URGENCY; break;
            case 13: j.state = 0xffff; break;
            case 14: j.flags = 0xffff; break;
            default: j.job_id = UINT64_MAX; j.min_nodes = 0; j.cpus = 0; break;
        }
        all_job_calls(&j, 1700000100);
    }
    /* TRES requests: NaN/inf/negative counts, NULL array with a count, NULL
     * and huge names, UINT32_MAX count. */
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        job_init(&j, 60 + i);
        tres[0].name = "gres/gpu";
        tres[0].count = bad[i];
        j.tres = tres;
        j.tres_count = 1;
        all_job_calls(&j, 1700000100);
        if (i < 4) REFUSED(ops.set_priority(&j, 0, &p));
    }
    job_init(&j, 70);
    j.tres = NULL;
    j.tres_count = 5;
    all_job_calls(&j, 1700000100);
    REFUSED(ops.set_priority(&j, 0, &p));
    job_init(&j, 71);
    tres[0].name = "gres/gpu";
    tres[0].count = 1;
    j.tres = tres;
    j.tres_count = UINT32_MAX;
    REFUSED(ops.set_priority(&j, 0, &p));
    job_init(&j, 72);
    tres[0].name = NULL;
    j.tres = tres;
    j.tres_count = 1;
    all_job_calls(&j, 1700000100);
    tres[0].name = huge;
    all_job_calls(&j, 1700000100);
    /* Attributes: NULL array with a count, NULL and huge members. */
    job_init(&j, 80);
    j.attrs = NULL;
    j.attr_count = 3;
    all_job_calls(&j, 1700000100);
    REFUSED(ops.set_priority(&j, 0, &p));
    job_init(&j, 81);
    j.attrs = attrs;
    j.attr_count = UINT32_MAX;
    REFUSED(ops.set_priority(&j, 0, &p));
    j.attr_count = 1;
    attrs[0].name = NULL;
    attrs[0].value = "x";
    all_job_calls(&j, 1700000100);
    attrs[0].name = "department";
    attrs[0].value = NULL;
    all_job_calls(&j, 1700000100);
    attrs[0].name = huge;
    attrs[0].value = huge;
    all_job_calls(&j, 1700000100);

    /* Forged handles, then a stale one (resolved before a decay pass). */
    for (k = 0; k < 4; k++) {
        job_init(&j, 90 + k);
        j.handle.generation = k == 0 ? UINT32_MAX : (uint32_t)k;
        j.handle.assoc = k == 1 ? UINT32_MAX : 12345u;
        j.handle.partition = k == 2 ? 0xfffeu : 77u;
        j.handle.qos = k == 3 ? 0xfffeu : MFPRIO_NO_QOS;
        all_job_calls(&j, 1700000100);
    }
    if (ops.job_resolve) {
        job_init(&j, 95);
        if (CALL(ops.job_resolve(&j)) == MFPRIO_OK) {
            uint32_t before = 0, after = 0;
            CALL(ops.set_priority(&j, 1700000100, &before));
            CALL(ops.decay(1700000200, NULL, 0));
            CHECK(CALL(ops.set_priority(&j, 1700000200, &after)) == MFPRIO_OK, "stale handle: %s", ops.errmsg());
            j.handle.assoc ^= 0x5555u;
            CALL(ops.set_priority(&j, 1700000200, &after));
        }
    }

    /* Charging with bad records: refused, the store unchanged (no crash). */
    if (store_backed) {
        job_init(&j, 200);
        j.state = MFPRIO_JOB_RUNNING;
        j.start_time = INT64_MIN;
        charge_calls(&j, 1700000300);
        j.start_time = 1700000250;
        j.tres = tres;
        j.tres_count = 1;
        tres[0].name = "gres/gpu";
        tres[0].count = NAN;
        charge_calls(&j, 1700000300);
        j.tres = NULL;
        j.tres_count = 0;
        j.user = huge;
        charge_calls(&j, 1700000300);
        j.user = "alice";
        charge_calls(&j, INT64_MIN);
        charge_calls(&j, INT64_MAX);
    }
    free(huge);
}

static int run(const char *path, const char *acct, const char *accounts, int nextra, char **extra) {
    char dir[] = "/tmp/mfprio-abi-misuse-XXXXXX";
    char db[256], cmd[1024];
    mfprio_host_t h;
    void *dl = load(path);
    if (!dl) return 1;
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    snprintf(db, sizeof db, "%s/acct.db", dir);
    if (acct && accounts) {
        snprintf(cmd, sizeof cmd, "'%s' --db '%s' import '%s' >/dev/null", acct, db, accounts);
        if (system(cmd) != 0) {
            fprintf(stderr, "abi_misuse: %s failed\n", cmd);
            return 1;
        }
    }
    conf[0].key = "AccountingStorageLoc";
    conf[0].value = db;
    conf[0].file = "misuse.conf";
    conf[0].line = 1;
    conf[1].key = "PriorityWeightFairshare";
    conf[1].value = "10000";
    conf[1].file = "misuse.conf";
    conf[1].line = 2;
    conf[2].key = "PriorityWeightAge";
    conf[2].value = "1000";
    conf[2].file = "misuse.conf";
    conf[2].line = 3;
    conf_n = 3;
    /* KEY=VALUE arguments after the store's: the family's own keys
     * (PriorityParameters=config=maui.cfg, ...). */
    for (int i = 0; i < nextra && conf_n < (int)(sizeof conf / sizeof conf[0]); ++i) {
        char *eq = strchr(extra[i], '=');
        if (!eq) {
            fprintf(stderr, "abi_misuse: '%s' is not KEY=VALUE\n", extra[i]);
            return 2;
        }
        *eq = '\0';
        conf[conf_n].key = extra[i];
        conf[conf_n].value = eq + 1;
        conf[conf_n].file = "misuse.conf";
        conf[conf_n].line = (uint32_t)(conf_n + 1);
        ++conf_n;
    }

    every_op_refused_state("before init");
    init_misuse();
    every_op_refused_state("after failed inits");
    host_init(&h);
    CHECK(CALL(ops.init(&h)) == MFPRIO_OK, "init: %s", ops.errmsg());
    CHECK(CALL(ops.init(&h)) == MFPRIO_ESTATE, "second init");
    job_misuse(acct != NULL);
    accounts_misuse();
    CHECK(CALL(ops.fini()) == MFPRIO_OK, "fini: %s", ops.errmsg());
    every_op_refused_state("after fini");
    /* init again after fini works. */
    CHECK(CALL(ops.init(&h)) == MFPRIO_OK, "init after fini: %s", ops.errmsg());
    CHECK(CALL(ops.fini()) == MFPRIO_OK, "fini");
    dlclose(dl);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "abi_misuse: could not remove %s\n", dir);
    fprintf(stderr, "abi_misuse: %s: %d calls, %d failed checks\n", path, calls, failures);
    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc != 2 && argc < 4) {
        fprintf(stderr, "usage: abi_misuse PLUGIN.so [MFPRIO_ACCT ACCOUNTS.json [KEY=VALUE ...]]\n");
        return 2;
    }
    return run(argv[1], argc >= 4 ? argv[2] : NULL, argc >= 4 ? argv[3] : NULL, argc > 4 ? argc - 4 : 0, argv + 4);
}
