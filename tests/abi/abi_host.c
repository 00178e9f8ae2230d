/*
 * abi_host.c - a resource-manager host written in plain C99, compiled with
 * -std=c99 -pedantic -Wall -Wextra -Werror against the installed header only.
 * It proves the ABI is usable from C: dlopen, identity symbols, every
 * operation through mfprio_ops_t.
 *
 *   abi_host --fifo PLUGIN.so
 *       self-test of priority/basic; exit 0 when every check passes.
 *   abi_host PLUGIN.so CONF.kv JOBS.txt NOW
 *       init with the Key=Value lines of CONF.kv (one pair a line), print
 *       "<job id> <partition> <priority>" for each job line of JOBS.txt:
 *       id user account partition qos submit eligible nodes cpus mem_mb
 *       time_limit_min nice   ('-' for an empty string)
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

static void *load(const char *path, mfprio_ops_t *ops, const char **type) {
    static const char *const names[] = {MFPRIO_OPS_SYMBOLS};
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
        return NULL;
    }
    if (*version != MFPRIO_ABI_VERSION) {
        fprintf(stderr, "abi_host: %s: ABI %u, host %u\n", path, (unsigned)*version,
                (unsigned)MFPRIO_ABI_VERSION);
        return NULL;
    }
    for (i = 0; i < MFPRIO_OPS_COUNT; i++) {
        void *sym = dlsym(dl, names[i]);
        if (!sym) {
            fprintf(stderr, "abi_host: %s: missing symbol %s\n", path, names[i]);
            return NULL;
        }
        /* POSIX: a data pointer from dlsym may be copied into a function pointer. */
        memcpy((char *)ops + i * sizeof(void (*)(void)), &sym, sizeof sym);
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
    {
        mfprio_job_t two[2];
        job_init(&two[0], 10);
        job_init(&two[1], 11);
        CHECK(ops.set_priority_batch(two, 2, 0, batch, st) == MFPRIO_OK, "%s", ops.errmsg());
        CHECK(st[0] == 0 && st[1] == 0 && batch[1] == batch[0] - 1, "batch FIFO %u %u",
              (unsigned)batch[0], (unsigned)batch[1]);
    }
    memset(&f, 0, sizeof f);
    f.struct_size = sizeof f;
    CHECK(ops.job_factors(&b, 0, &f) == MFPRIO_OK && f.priority == pb, "factors agree");
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

static int run_jobs(const char *path, const char *conf, const char *jobs, long long now) {
    static mfprio_kv_t kv[256];
    static char lines[256][512];
    size_t n = 0;
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
    jf = fopen(jobs, "r");
    if (!jf) {
        perror(jobs);
        return 1;
    }
    while (fgets(line, sizeof line, jf)) {
        char user[64], account[64], part[64], qos[64];
        unsigned long long id, mem;
        long long submit, elig;
        unsigned nodes, cpus, tl;
        int nice;
        mfprio_job_t j;
        uint32_t prio = 0;
        if (sscanf(line, "%llu %63s %63s %63s %63s %lld %lld %u %u %llu %u %d", &id, user, account,
                   part, qos, &submit, &elig, &nodes, &cpus, &mem, &tl, &nice) != 12)
            continue;
        job_init(&j, id);
        j.user = user;
        j.account = field(account);
        j.partition = field(part);
        j.qos = field(qos);
        j.submit_time = submit;
        j.eligible_time = elig;
        j.min_nodes = nodes;
        j.cpus = cpus;
        j.mem_mb = mem;
        j.time_limit_min = tl;
        j.nice = nice;
        if (ops.job_resolve(&j) != MFPRIO_OK || ops.set_priority(&j, now, &prio) != MFPRIO_OK) {
            fprintf(stderr, "abi_host: job %llu: %s\n", id, ops.errmsg());
            rc = 1;
            continue;
        }
        printf("%llu %s %u\n", id, part, (unsigned)prio);
    }
    fclose(jf);
    ops.fini();
    dlclose(dl);
    return rc;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--fifo") == 0) return fifo_selftest(argv[2]);
    if (argc == 5) return run_jobs(argv[1], argv[2], argv[3], atoll(argv[4]));
    fprintf(stderr, "usage: abi_host --fifo PLUGIN.so | abi_host PLUGIN.so CONF.kv JOBS.txt NOW\n");
    return 2;
}
