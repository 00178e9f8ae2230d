/*
 * mfprio.h - the whole contract between a batch resource manager (the host)
 * and an mfprio priority plugin (priority_basic.so, priority_multifactor.so).
 *
 * C99, no C++ types, usable from C and C++.  A host compiles against this
 * header only and talks to a plugin through dlopen()/dlsym().
 *
 * Call order (one control thread does all of these, never concurrently):
 *     dlopen -> check plugin_name / plugin_type / plugin_version
 *            -> init(host)            once; non-zero status = plugin unusable
 *            -> decay(now, running)   every calc period
 *            -> job_end(job, end)     when a job finishes
 *               (job_end_batch: many finished jobs, one transaction)
 *            -> fini()                once, before dlclose
 * Any thread, also while the control thread is inside decay():
 *     set_priority, set_priority_batch, job_resolve, job_factors,
 *     job_factors_json, share_table, share_table_json, plugin_stats,
 *     plugin_info_json, errmsg, free_string, share_table_free.
 * These read an immutable snapshot that decay() replaces atomically, so a
 * reader never waits for a decay pass and never sees half of one.
 *
 * Statuses: every function returns MFPRIO_OK (0) or a negative MFPRIO_E*
 * code; results go through out-parameters.  After a failure errmsg() gives a
 * one-line message for the calling thread (naming the file:line, key, record
 * or job at fault).  A failed call changes nothing.
 *
 * Ownership: the plugin never keeps a pointer into host memory after a call
 * returns, except the host table's callbacks and their arguments, which must
 * stay valid until fini() returns.  Memory the plugin returns is freed with
 * the matching plugin function (free_string, share_table_free).
 *
 * Extension: every struct begins with its size (struct_size); the caller sets
 * it to sizeof() of the struct it was compiled with, and a plugin reads or
 * writes only fields that fit.  plugin_version is MFPRIO_ABI_VERSION.
 */
#ifndef MFPRIO_MFPRIO_H
#define MFPRIO_MFPRIO_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define MFPRIO_EXPORT __attribute__((visibility("default")))
#else
#define MFPRIO_EXPORT
#endif

/* Incremented on every incompatible change of this header. */
#define MFPRIO_ABI_VERSION 1u

/* ---- statuses -------------------------------------------------------- */
#define MFPRIO_OK 0
#define MFPRIO_EINVAL (-1)   /* bad argument or bad record (job, struct size) */
#define MFPRIO_ECONF (-2)    /* bad configuration key or value */
#define MFPRIO_ESTORE (-3)   /* accounting store unusable or write failed */
#define MFPRIO_ENOMEM (-4)   /* allocation failed */
#define MFPRIO_ESTATE (-5)   /* call out of order (before init, after fini) */
#define MFPRIO_ENOENT (-6)   /* unknown user, account, partition or QOS */
#define MFPRIO_EPERM (-7)    /* not allowed (negative nice without admin) */
#define MFPRIO_EINTERNAL (-8) /* a bug: an unexpected exception was caught */

/* ---- the host table given to init() ---------------------------------- */

/* One Key=Value pair of the configuration, in file order.  Keys compare
 * case-insensitively.  file/line say where the pair was written. */
typedef struct mfprio_kv {
    const char *key;
    const char *value;
    const char *file;
    uint32_t line;
} mfprio_kv_t;

/* Log levels for the host's sink. */
#define MFPRIO_LOG_ERROR 0
#define MFPRIO_LOG_WARNING 1
#define MFPRIO_LOG_INFO 2
#define MFPRIO_LOG_DEBUG 3

typedef void (*mfprio_log_fn)(void *arg, int level, const char *message);
/* Seconds since the Unix epoch, as the host sees time (replay may fake it). */
typedef int64_t (*mfprio_clock_fn)(void *arg);

/* A counted trackable resource: "cpu", "mem" (MB), "node", "gres/gpu", ... */
typedef struct mfprio_tres {
    const char *name;
    double count;
} mfprio_tres_t;

typedef struct mfprio_host {
    uint32_t struct_size;          /* sizeof(mfprio_host_t) */
    uint32_t abi_version;          /* MFPRIO_ABI_VERSION of the host */
    const mfprio_kv_t *conf;       /* every pair of the conf, unknown keys too */
    size_t conf_count;
    mfprio_log_fn log;             /* may be NULL: messages are dropped */
    void *log_arg;
    mfprio_clock_fn clock;         /* may be NULL: the plugin uses time() */
    void *clock_arg;
    uint32_t cluster_nodes;        /* resource totals of the whole cluster */
    uint32_t cluster_cpus;
    uint64_t cluster_mem_mb;
    const mfprio_tres_t *cluster_tres; /* other totals (gres/gpu, ...) */
    size_t cluster_tres_count;
} mfprio_host_t;

/* ---- jobs ------------------------------------------------------------ */

#define MFPRIO_JOB_PENDING 0u
#define MFPRIO_JOB_RUNNING 1u
#define MFPRIO_JOB_SUSPENDED 2u
#define MFPRIO_JOB_HELD 3u       /* priority 0 */
#define MFPRIO_JOB_COMPLETED 4u

/* job flags */
#define MFPRIO_JOBF_NICE_ADMIN 0x1u  /* nice was set by an admin (may be < 0) */
#define MFPRIO_JOBF_DEPENDENT 0x2u   /* waiting on a dependency */

/* Filled by job_resolve(); lets set_priority skip name look-ups.  The host
 * zeroes it when it creates the record and never interprets it.  A stale
 * handle (from an older snapshot) is detected and resolved again. */
typedef struct mfprio_handle {
    uint32_t generation;
    uint32_t assoc;
    uint16_t partition;
    uint16_t qos;             /* MFPRIO_NO_QOS: the job has no QOS */
} mfprio_handle_t;

#define MFPRIO_NO_QOS 0xffffu

/* One job in one partition.  A job eligible for several partitions is
 * given to the plugin as one record per partition. */
typedef struct mfprio_job {  /* 128 bytes on LP64: two cache lines */
    uint32_t struct_size;     /* sizeof(mfprio_job_t) */
    uint16_t state;           /* MFPRIO_JOB_* */
    uint16_t flags;           /* MFPRIO_JOBF_* */
    uint64_t job_id;
    const char *user;
    const char *account;      /* NULL or "": the user's default account */
    const char *partition;    /* NULL or "": the default partition */
    const char *qos;          /* NULL or "": "normal" when it exists */
    int64_t submit_time;
    int64_t eligible_time;    /* 0: not yet eligible (held, dependency) */
    int64_t start_time;       /* running jobs: when it started */
    uint32_t min_nodes;
    uint32_t cpus;
    uint64_t mem_mb;
    uint32_t time_limit_min;  /* 0: unlimited/unknown */
    int32_t nice;             /* > 0 lowers priority; < 0 needs NICE_ADMIN */
    int32_t site_factor;      /* admin-set, added as is */
    uint32_t prev_priority;   /* for PriorityFlags=INCR_ONLY; 0 = none */
    const mfprio_tres_t *tres; /* extra TRES requested: "gres/gpu" = 2 ... */
    uint32_t tres_count;
    mfprio_handle_t handle;
} mfprio_job_t;

/* ---- views ----------------------------------------------------------- */

#define MFPRIO_MAX_TRES_FACTORS 16
#define MFPRIO_NAME_MAX 48

typedef struct mfprio_tres_factor {
    char name[MFPRIO_NAME_MAX];
    double factor;            /* normalized 0..1 (raw with NO_NORMAL_TRES) */
    double weighted;          /* weight * factor */
} mfprio_tres_factor_t;

#define MFPRIO_CLAMP_NONE 0u
#define MFPRIO_CLAMP_LOW 1u   /* sum < 1: raised to 1 */
#define MFPRIO_CLAMP_HIGH 2u  /* sum > 2^32-1: lowered to 2^32-1 */

/* The breakdown of one job's priority: what sprio shows. */
typedef struct mfprio_factors {
    uint32_t struct_size;
    uint32_t priority;
    double age, assoc, fairshare, jobsize, partition, qos;   /* factors */
    double w_age, w_assoc, w_fairshare, w_jobsize, w_partition, w_qos; /* weighted */
    double w_tres;            /* sum of tres[].weighted */
    int64_t site;
    int64_t nice;             /* the nice subtracted */
    double unclamped;         /* the sum before clamping */
    uint32_t clamped;         /* MFPRIO_CLAMP_* */
    uint32_t tres_count;
    mfprio_tres_factor_t tres[MFPRIO_MAX_TRES_FACTORS];
    /* What the job resolved to: the account (the user's default when the
     * job named none), the partition and the QOS ("" when none applies). */
    char account_name[MFPRIO_NAME_MAX];
    char partition_name[MFPRIO_NAME_MAX];
    char qos_name[MFPRIO_NAME_MAX];
} mfprio_factors_t;

/* One association of the share tree: what sshare shows.  Rows come in
 * tree order (parent before children, siblings by name). */
typedef struct mfprio_share_row {
    uint32_t struct_size;
    int32_t parent;           /* row index of the parent; -1 for root */
    uint32_t depth;           /* root 0 */
    uint32_t is_user;
    const char *account;      /* owned by the table */
    const char *user;         /* NULL on account rows */
    const char *partition;    /* NULL unless a partition association */
    uint32_t shares_parent;   /* FairShare=parent */
    uint32_t raw_shares;
    uint32_t priority;        /* association priority */
    double norm_shares, raw_usage, norm_usage, eff_usage, level_fs, fairshare;
} mfprio_share_row_t;

typedef struct mfprio_stats {
    uint32_t struct_size;
    uint32_t generation;      /* snapshot number, +1 per publish */
    int64_t last_decay;       /* time of the last decay pass */
    uint64_t clamped_high;    /* priorities clamped to 2^32-1 so far */
    uint64_t clamped_low;     /* priorities raised to 1 so far */
    uint64_t associations;
    uint64_t jobs_charged;    /* charges written by decay/job_end so far */
} mfprio_stats_t;

/* ---- the operations -------------------------------------------------- */

typedef int (*mfprio_init_fn)(const mfprio_host_t *host);
typedef int (*mfprio_fini_fn)(void);
typedef int (*mfprio_job_resolve_fn)(mfprio_job_t *job);
typedef int (*mfprio_set_priority_fn)(const mfprio_job_t *job, int64_t now,
                                      uint32_t *priority);
typedef int (*mfprio_set_priority_batch_fn)(const mfprio_job_t *jobs, size_t count,
                                            int64_t now, uint32_t *priorities,
                                            int *statuses);
typedef int (*mfprio_decay_fn)(int64_t now, const mfprio_job_t *running, size_t count);
typedef int (*mfprio_job_end_fn)(const mfprio_job_t *job, int64_t end_time);
typedef int (*mfprio_job_end_batch_fn)(const mfprio_job_t *jobs, size_t count,
                                       const int64_t *end_times);
typedef int (*mfprio_job_factors_fn)(const mfprio_job_t *job, int64_t now,
                                     mfprio_factors_t *out);
typedef int (*mfprio_job_factors_json_fn)(const mfprio_job_t *job, int64_t now,
                                          char **json);
typedef int (*mfprio_share_table_fn)(mfprio_share_row_t **rows, size_t *count);
typedef void (*mfprio_share_table_free_fn)(mfprio_share_row_t *rows);
typedef int (*mfprio_share_table_json_fn)(char **json);
typedef int (*mfprio_plugin_stats_fn)(mfprio_stats_t *out);
typedef int (*mfprio_plugin_info_json_fn)(char **json);
typedef const char *(*mfprio_errmsg_fn)(void);
typedef void (*mfprio_free_string_fn)(char *s);

#ifdef MFPRIO_PLUGIN_IMPLEMENTATION
/* Declarations for plugin authors; a host uses the typedefs above. */

/* Identity, as Slurm plugins have it. */
MFPRIO_EXPORT extern const char plugin_name[];
MFPRIO_EXPORT extern const char plugin_type[];      /* "priority/multifactor" */
MFPRIO_EXPORT extern const uint32_t plugin_version; /* MFPRIO_ABI_VERSION */

/* Validate the conf keys the plugin knows (unknown keys are ignored), open
 * the accounting store, build the first snapshot.  Control thread only.
 * ECONF names file:line and key; ESTORE names the store path. */
MFPRIO_EXPORT int init(const mfprio_host_t *host);
/* Release everything.  Control thread only; no other call may be running. */
MFPRIO_EXPORT int fini(void);
/* Look up the job's association, partition and QOS once and store handles
 * in job->handle.  Any thread.  ENOENT names the missing user/account/... */
MFPRIO_EXPORT int job_resolve(mfprio_job_t *job);
/* One job's priority at time `now`.  Any thread; no allocation, no lock,
 * no I/O.  Held jobs get 0.  ENOENT/EPERM/EINVAL name the job. */
MFPRIO_EXPORT int set_priority(const mfprio_job_t *job, int64_t now, uint32_t *priority);
/* The same for count records.  priorities[i] and, when statuses is not
 * NULL, statuses[i] are written for every record; a failed record gets
 * priority 0.  Returns MFPRIO_OK when every record succeeded, else the
 * first failing status (errmsg names that job). */
MFPRIO_EXPORT int set_priority_batch(const mfprio_job_t *jobs, size_t count, int64_t now,
                                     uint32_t *priorities, int *statuses);
/* Charge the running jobs up to now, decay usage, apply the reset period,
 * persist in one transaction, recompute fair share, publish a new snapshot.
 * Control thread only.  On failure the store and snapshot are unchanged. */
MFPRIO_EXPORT int decay(int64_t now, const mfprio_job_t *running, size_t count);
/* Charge a finished job's last interval, once per job id.  Control thread. */
MFPRIO_EXPORT int job_end(const mfprio_job_t *job, int64_t end_time);
/* job_end for count jobs (end_times[i] for jobs[i]) in one durable
 * transaction: all are charged or, when any record is bad (errmsg names
 * it), none.  Control thread.  A host that ends many jobs under one lock
 * hold should use this: one commit instead of count. */
MFPRIO_EXPORT int job_end_batch(const mfprio_job_t *jobs, size_t count, const int64_t *end_times);
/* The breakdown of set_priority's answer.  Any thread. */
MFPRIO_EXPORT int job_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *out);
/* The breakdown as a JSON object; free *json with free_string. */
MFPRIO_EXPORT int job_factors_json(const mfprio_job_t *job, int64_t now, char **json);
/* The association share table; free with share_table_free.  Any thread. */
MFPRIO_EXPORT int share_table(mfprio_share_row_t **rows, size_t *count);
MFPRIO_EXPORT void share_table_free(mfprio_share_row_t *rows);
/* The share table as a JSON array; free with free_string. */
MFPRIO_EXPORT int share_table_json(char **json);
MFPRIO_EXPORT int plugin_stats(mfprio_stats_t *out);
/* Weights, flags and settings in force, as a JSON object. */
MFPRIO_EXPORT int plugin_info_json(char **json);
/* The calling thread's message for its last failed call ("" if none).
 * Valid until that thread's next call into the plugin. */
MFPRIO_EXPORT const char *errmsg(void);
MFPRIO_EXPORT void free_string(char *s);
#endif /* MFPRIO_PLUGIN_IMPLEMENTATION */

/* The names a host looks up with dlsym(), in the order of mfprio_ops_t. */
#define MFPRIO_OPS_SYMBOLS                                                       \
    "init", "fini", "job_resolve", "set_priority", "set_priority_batch",        \
        "decay", "job_end", "job_factors", "job_factors_json", "share_table",   \
        "share_table_free", "share_table_json", "plugin_stats",                 \
        "plugin_info_json", "errmsg", "free_string", "job_end_batch"

/* The operations a host calls, filled from dlsym() in MFPRIO_OPS_SYMBOLS
 * order.  Every member is required: a plugin missing one is corrupt. */
typedef struct mfprio_ops {
    mfprio_init_fn init;
    mfprio_fini_fn fini;
    mfprio_job_resolve_fn job_resolve;
    mfprio_set_priority_fn set_priority;
    mfprio_set_priority_batch_fn set_priority_batch;
    mfprio_decay_fn decay;
    mfprio_job_end_fn job_end;
    mfprio_job_factors_fn job_factors;
    mfprio_job_factors_json_fn job_factors_json;
    mfprio_share_table_fn share_table;
    mfprio_share_table_free_fn share_table_free;
    mfprio_share_table_json_fn share_table_json;
    mfprio_plugin_stats_fn plugin_stats;
    mfprio_plugin_info_json_fn plugin_info_json;
    mfprio_errmsg_fn errmsg;
    mfprio_free_string_fn free_string;
    mfprio_job_end_batch_fn job_end_batch;
} mfprio_ops_t;

#define MFPRIO_OPS_COUNT 17

#ifdef __cplusplus
}
#endif
#endif /* MFPRIO_MFPRIO_H */
