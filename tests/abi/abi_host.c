/*
 * abi_host.c - a resource-manager host written in plain C99, compiled with
 * -std=c99 -pedantic -Wall -Wextra -Werror against the installed header only.
 * It proves ABI v2 is usable from C: dlopen, identity symbols, the five
 * required operations, the optional ones when the plugin has them (their
 * mfprio_ops_t members stay NULL otherwise), and the generic views (named
 * terms, family-named share columns) without knowing any family.
 *
 *   abi_host --fifo PLUGIN.so
 *       self-test of priority/basic; exit 0 when every check passes.
 *   abi_host PLUGIN.so CONF.kv JOBS.txt NOW
 *       init with the Key=Value lines of CONF.kv (one pair a line), then
 *       print "<job id> <partition> <priority>" for each job line of JOBS.txt:
 *       id user account partition qos submit eligible nodes cpus mem_mb
 *       time_limit_min nice   ('-' for an empty string).
 *       Every job is resolved first (job_resolve, when provided), the queue
 *       priced once (prioritize, when provided: every job pending, none
 *       running), then set_priority per job, in file order.
 *   abi_host --describe PLUGIN.so CONF.kv JOBS.txt NOW
 *       the same init and jobs, then a generic description: which optional
 *       operations the plugin has, the terms of the first job's breakdown
 *       (job_factors) and the share table's columns and rows (share_table):
 *         op <name> yes|no
 *         job <id> priority <p> terms <n>
 *         term <i> <name> label=<label> parent=<p> flags=<hex> width=<w> factor=<f> weight=<w> contribution=<c>
 *         columns <n> rows <n>
 *         column <i> <name> label=<label> decimals=<d> width=<w> flags=<hex>
 *         row <i> parent=<p> depth=<d> <cell>|<cell>|...
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mfprio/mfprio.h"

static int failures = 0;
#define CHECK(cond, ...)                                        \
    do {                                                        \
        if (!(cond)) {                                          \
            fprintf(stderr, "abi_host: check failed: %s: ", #cond); \
            fprintf(stderr, __VA_ARGS__);                       \
            fprintf(stderr, "\n");                              \
            failures++;                                         \
        }                                                       \
    } while (0)

static const char *const op_names[] = {MFPRIO_OPS_SYMBOLS};

static void *load(const char *path, mfprio_ops_t *ops, const char **type) {
    void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    size_t i;
    const uint32_t *version;
    if (!dl) {
        fprintf(stderr, "abi_host: %s\n", dlerror());
        return NULL;
    }
    version = (const uint32_t *)dlsym(dl, "plugin_version");
    *type = (const char *)dlsym(dl, "plugin_type");
    if (!version || !*type || !dlsym(dl, "plugin_name")) {
        fprintf(stderr, "abi_host: %s: missing identity symbol\n", path);
        dlclose(dl);
        return NULL;
    }
    if (*version != MFPRIO_ABI_VERSION) {
        fprintf(stderr, "abi_host: %s: ABI %u, host %u\n", path, (unsigned)*version,
                (unsigned)MFPRIO_ABI_VERSION);
        dlclose(dl);
        return NULL;
    }
    memset(ops, 0, sizeof *ops);
    for (i = 0; i < MFPRIO_OPS_COUNT; i++) {
        void *sym = dlsym(dl, op_names[i]);
        if (!sym && i < MFPRIO_OPS_REQUIRED) {
            fprintf(stderr, "abi_host: %s: missing required symbol %s\n", path, op_names[i]);
            dlclose(dl);
            return NULL;
        }
        /* POSIX: a data pointer from dlsym may be copied into a function pointer. */
        memcpy((char *)ops + i * sizeof(void (*)(void)), &sym, sizeof sym);
    }
    if (!ops->free_string && (ops->job_factors_json || ops->share_table_json || ops->plugin_info_json)) {
        fprintf(stderr, "abi_host: %s: a *_json operation without free_string\n", path);
        dlclose(dl);
        return NULL;
    }
    if (ops->share_table && !ops->share_table_free) {
        fprintf(stderr, "abi_host: %s: share_table without share_table_free\n", path);
        dlclose(dl);
        return NULL;
    }
    return dl;
}

/* Whether the optional operation number i is present. */
static int has_op(const mfprio_ops_t *ops, size_t i) {
    void *sym;
    memcpy(&sym, (const char *)ops + i * sizeof(void (*)(void)), sizeof sym);
    return sym != NULL;
}

static void job_init(mfprio_job_t *j, uint64_t id) {
    memset(j, 0, sizeof *j);
    j->struct_size = sizeof *j;
    j->job_id = id;
    j->user = "alice";
    j->cpus = 1;
    j->min_nodes = 1;
}

static int fifo_selftest(const char *path) {
    mfprio_ops_t ops;
    const char *type = NULL;
    mfprio_host_t host;
    mfprio_job_t a, b, c, held, bad;
    uint32_t pa = 0, pb = 0, pc = 0, ph = 1, again = 0, batch[2];
    int st[2];
    mfprio_factors_t f;
    void *dl = load(path, &ops, &type);
    if (!dl) return 1;
    CHECK(strcmp(type, "priority/basic") == 0, "type %s", type);
    memset(&host, 0, sizeof host);
    host.struct_size = sizeof host;
    host.abi_version = MFPRIO_ABI_VERSION;
    CHECK(ops.set_priority(NULL, 0, &pa) == MFPRIO_ESTATE, "call before init must fail");
    CHECK(strlen(ops.errmsg()) > 0, "a failed call leaves a message");
    CHECK(ops.init(&host) == MFPRIO_OK, "init: %s", ops.errmsg());
    job_init(&a, 1);
    job_init(&b, 2);
    job_init(&c, 3);
    c.nice = 100;
    CHECK(ops.set_priority(&a, 0, &pa) == MFPRIO_OK, "%s", ops.errmsg());
    CHECK(ops.set_priority(&b, 0, &pb) == MFPRIO_OK, "%s", ops.errmsg());
    CHECK(ops.set_priority(&c, 0, &pc) == MFPRIO_OK, "%s", ops.errmsg());
    CHECK(pa == 0xffff0000u - 1, "first job %u", (unsigned)pa);
    CHECK(pb == pa - 1, "FIFO: second %u after %u", (unsigned)pb, (unsigned)pa);
    CHECK(pc == pb - 1 - 100, "nice 100 lowers by 100: %u", (unsigned)pc);
    CHECK(ops.set_priority(&a, 0, &again) == MFPRIO_OK && again == pa, "same job, same answer");
    job_init(&held, 4);
    held.state = MFPRIO_JOB_HELD;
    CHECK(ops.set_priority(&held, 0, &ph) == MFPRIO_OK && ph == 0, "held job gets 0, got %u", (unsigned)ph);
    job_init(&bad, 5);
    bad.nice = -10;
    CHECK(ops.set_priority(&bad, 0, &pa) == MFPRIO_EPERM, "negative nice without admin refused");
    CHECK(strstr(ops.errmsg(), "job 5") != NULL, "message names the job: %s", ops.errmsg());
    bad.flags = MFPRIO_JOBF_NICE_ADMIN;
    CHECK(ops.set_priority(&bad, 0, &pa) == MFPRIO_OK, "admin nice allowed");
    if (ops.set_priority_batch) {
        mfprio_job_t two[2];
        job_init(&two[0], 10);
        job_init(&two[1], 11);
        CHECK(ops.set_priority_batch(two, 2, 0, batch, st) == MFPRIO_OK, "%s", ops.errmsg());
        CHECK(st[0] == 0 && st[1] == 0 && batch[1] == batch[0] - 1, "batch FIFO %u %u",
              (unsigned)batch[0], (unsigned)batch[1]);
    }
    if (ops.job_factors) {
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        CHECK(ops.job_factors(&b, 0, &f) == MFPRIO_OK && f.priority == pb, "factors agree");
        CHECK(f.term_count <= MFPRIO_MAX_TERMS, "term_count %u", (unsigned)f.term_count);
    }
    a.struct_size = 8;
    CHECK(ops.set_priority(&a, 0, &pa) == MFPRIO_EINVAL, "short struct refused");
    CHECK(ops.fini() == MFPRIO_OK, "fini");
    CHECK(ops.fini() == MFPRIO_ESTATE, "second fini refused");
    dlclose(dl);
    printf("%d passed, %d failed\n", failures ? 0 : 1, failures ? 1 : 0);
    return failures ? 1 : 0;
}

/* Splits "Key=Value" lines into kv pairs (file and line kept). */
static int read_conf(const char *path, mfprio_kv_t *kv, char lines[][512], size_t max, size_t *n) {
    FILE *f = fopen(path, "r");
    unsigned lineno = 0;
    *n = 0;
    if (!f) {
        perror(path);
        return 1;
    }
    while (*n < max && fgets(lines[*n], 512, f)) {
        char *eq, *nl;
        lineno++;
        nl = strchr(lines[*n], '\n');
        if (nl) *nl = '\0';
        eq = strchr(lines[*n], '=');
        if (!eq || lines[*n][0] == '#') continue;
        *eq = '\0';
        kv[*n].key = lines[*n];
        kv[*n].value = eq + 1;
        kv[*n].file = path;
        kv[*n].line = lineno;
        (*n)++;
    }
    fclose(f);
    return 0;
}

static char *field(char *s) { return strcmp(s, "-") == 0 ? NULL : s; }

/* The jobs of JOBS.txt, kept for the whole run (the strings must outlive the calls). */
#define MAX_JOBS 4096
typedef struct {
    char user[64], account[64], part[64], qos[64];
} job_names;
static job_names names[MAX_JOBS];
static mfprio_job_t jobs[MAX_JOBS];
static int job_ok[MAX_JOBS];

static void print_cell(const mfprio_share_column_t *c, const mfprio_share_cell_t *cell) {
    if (cell->text || (c->flags & MFPRIO_COLF_TEXT)) printf("%s", cell->text ? cell->text : "");
    else printf("%.*f", c->decimals < 0 ? 0 : (int)c->decimals, cell->value);
}

/* Prints the generic description of the plugin (see the top comment). */
static int describe(const mfprio_ops_t *ops, const mfprio_job_t *first, long long now) {
    size_t i;
    int rc = 0;
    for (i = MFPRIO_OPS_REQUIRED; i < MFPRIO_OPS_COUNT; i++)
        printf("op %s %s\n", op_names[i], has_op(ops, i) ? "yes" : "no");
    if (first && ops->job_factors) {
        static mfprio_factors_t f;
        uint32_t t;
        memset(&f, 0, sizeof f);
        f.struct_size = sizeof f;
        if (ops->job_factors(first, now, &f) != MFPRIO_OK) {
            fprintf(stderr, "abi_host: job_factors: %s\n", ops->errmsg());
            rc = 1;
        } else {
            printf("job %llu priority %u terms %u\n", (unsigned long long)first->job_id, (unsigned)f.priority,
                   (unsigned)f.term_count);
            for (t = 0; t < f.term_count && t < MFPRIO_MAX_TERMS; t++) {
                const mfprio_term_t *x = &f.terms[t];
                printf("term %u %.*s label=%.*s parent=%d flags=0x%x width=%u factor=%.7f weight=%g "
                       "contribution=%.7f\n",
                       (unsigned)t, (int)MFPRIO_TERM_NAME_MAX, x->name, (int)MFPRIO_TERM_LABEL_MAX, x->label,
                       (int)x->parent, (unsigned)x->flags, (unsigned)x->width, x->factor, x->weight,
                       x->contribution);
            }
        }
    }
    if (ops->share_table) {
        mfprio_share_table_t *tab = NULL;
        if (ops->share_table(&tab) != MFPRIO_OK || !tab) {
            fprintf(stderr, "abi_host: share_table: %s\n", ops->errmsg());
            return 1;
        }
        printf("columns %u rows %lu\n", (unsigned)tab->column_count, (unsigned long)tab->row_count);
        for (i = 0; i < tab->column_count; i++) {
            const mfprio_share_column_t *c = &tab->columns[i];
            printf("column %lu %.*s label=%.*s decimals=%d width=%u flags=0x%x\n", (unsigned long)i,
                   (int)MFPRIO_TERM_NAME_MAX, c->name, (int)MFPRIO_TERM_LABEL_MAX, c->label, (int)c->decimals,
                   (unsigned)c->width, (unsigned)c->flags);
        }
        for (i = 0; i < tab->row_count; i++) {
            const mfprio_share_row_t *r = &tab->rows[i];
            uint32_t c;
            printf("row %lu parent=%d depth=%u ", (unsigned long)i, (int)r->parent, (unsigned)r->depth);
            for (c = 0; c < tab->column_count; c++) {
                if (c) printf("|");
                print_cell(&tab->columns[c], &r->cells[c]);
            }
            printf("\n");
        }
        ops->share_table_free(tab);
    }
    return rc;
}

static int run_jobs(const char *path, const char *conf, const char *jobfile, long long now, int describe_mode) {
    static mfprio_kv_t kv[256];
    static char lines[256][512];
    size_t n = 0, njobs = 0, k;
    mfprio_ops_t ops;
    const char *type = NULL;
    mfprio_host_t host;
    char line[1024];
    FILE *jf;
    int rc = 0;
    void *dl = load(path, &ops, &type);
    if (!dl || read_conf(conf, kv, lines, 256, &n)) return 1;
    memset(&host, 0, sizeof host);
    host.struct_size = sizeof host;
    host.abi_version = MFPRIO_ABI_VERSION;
    host.conf = kv;
    host.conf_count = n;
    host.cluster_nodes = 10;
    host.cluster_cpus = 240;
    host.cluster_mem_mb = 10 * 262144;
    if (ops.init(&host) != MFPRIO_OK) {
        fprintf(stderr, "abi_host: init: %s\n", ops.errmsg());
        return 1;
    }
    jf = fopen(jobfile, "r");
    if (!jf) {
        perror(jobfile);
        return 1;
    }
    while (njobs < MAX_JOBS && fgets(line, sizeof line, jf)) {
        job_names *nm = &names[njobs];
        unsigned long long id, mem;
        long long submit, elig;
        unsigned nodes, cpus, tl;
        int nice;
        mfprio_job_t *j = &jobs[njobs];
        if (sscanf(line, "%llu %63s %63s %63s %63s %lld %lld %u %u %llu %u %d", &id, nm->user, nm->account,
                   nm->part, nm->qos, &submit, &elig, &nodes, &cpus, &mem, &tl, &nice) != 12)
            continue;
        job_init(j, id);
        j->user = nm->user;
        j->account = field(nm->account);
        j->partition = field(nm->part);
        j->qos = field(nm->qos);
        j->submit_time = submit;
        j->eligible_time = elig;
        j->min_nodes = nodes;
        j->cpus = cpus;
        j->mem_mb = mem;
        j->time_limit_min = tl;
        j->nice = nice;
        job_ok[njobs] = !ops.job_resolve || ops.job_resolve(j) == MFPRIO_OK;
        if (!job_ok[njobs]) {
            fprintf(stderr, "abi_host: job %llu: %s\n", id, ops.errmsg());
            rc = 1;
        }
        njobs++;
    }
    fclose(jf);
    if (ops.prioritize) { /* the whole queue once, as a controller's calc period does */
        static mfprio_job_t queue[MAX_JOBS];
        static uint32_t prios[MAX_JOBS];
        static int statuses[MAX_JOBS];
        size_t q = 0;
        for (k = 0; k < njobs; k++)
            if (job_ok[k]) queue[q++] = jobs[k];
        if (q && ops.prioritize(queue, q, NULL, 0, now, prios, statuses) != MFPRIO_OK)
            fprintf(stderr, "abi_host: prioritize: %s\n", ops.errmsg()); /* set_priority names each job below */
    }
    for (k = 0; k < njobs; k++) {
        uint32_t prio = 0;
        if (!job_ok[k]) continue;
        if (ops.set_priority(&jobs[k], now, &prio) != MFPRIO_OK) {
            fprintf(stderr, "abi_host: job %llu: %s\n", (unsigned long long)jobs[k].job_id, ops.errmsg());
            rc = 1;
            continue;
        }
        if (!describe_mode) printf("%llu %s %u\n", (unsigned long long)jobs[k].job_id, names[k].part, (unsigned)prio);
    }
    if (describe_mode) {
        const mfprio_job_t *first = NULL;
        for (k = 0; k < njobs && !first; k++)
            if (job_ok[k]) first = &jobs[k];
        if (describe(&ops, first, now)) rc = 1;
    }
    if (ops.fini() != MFPRIO_OK) {
        fprintf(stderr, "abi_host: fini: %s\n", ops.errmsg());
        rc = 1;
    }
    dlclose(dl);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--fifo") == 0) return fifo_selftest(argv[2]);
    if (argc == 6 && strcmp(argv[1], "--describe") == 0)
        return run_jobs(argv[2], argv[3], argv[4], atoll(argv[5]), 1);
    if (argc == 5) return run_jobs(argv[1], argv[2], argv[3], atoll(argv[4]), 0);
    fprintf(stderr, "usage: abi_host --fifo PLUGIN.so | abi_host [--describe] PLUGIN.so CONF.kv JOBS.txt NOW\n");
    return 2;
}
