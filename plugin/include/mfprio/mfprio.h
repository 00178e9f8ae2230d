/*
 * mfprio.h - the whole contract between a batch resource manager (the host)
 * and an mfprio priority plugin (priority_<family>.so: basic, multifactor,
 * and every family added later).  ABI version 2.
 *
 * C99, no C++ types, usable from C and C++.  A host compiles against this
 * header only and talks to a plugin through dlopen()/dlsym().
 *
 * Families speak their own vocabulary through generic shapes, so neither
 * this header nor a host changes when a family is added:
 *   - a job's priority is explained as a list of named terms (mfprio_term_t:
 *     "age", "fairshare", Moab's "SERV.QUEUETIME", Grid Engine's "wtcontr"),
 *     each with its factor, weight, contribution and whether a cap bound it;
 *   - the share view is a table whose columns the family names
 *     (mfprio_share_table_t), rows in tree order with parent and depth;
 *   - the job record carries what every family reads, plus free-form
 *     attributes (mfprio_attr_t) for what only one family knows.
 *
 * Operations: init, fini, set_priority, decay and errmsg are REQUIRED; every
 * other operation is OPTIONAL (its symbol may be missing) and a host works
 * with whatever a plugin provides (MFPRIO_OPS_REQUIRED below).  A plugin that
 * provides a *_json operation provides free_string too.
 *
 * Call order (one control thread does all of these, never concurrently):
 *     dlopen -> check plugin_name / plugin_type / plugin_version
 *            -> init(host)            once; non-zero status = plugin unusable
 *            -> decay(now, running)   every calc period
 *            -> job_end(job, end)     when a job finishes
 *               (job_end_batch: many finished jobs, one transaction)
 *            -> set_accounts(tree)    when the host's account tree changed
 *               (optional: hosts that keep the associations themselves)
 *            -> fini()                once, before dlclose
 * Any thread, also while the control thread is inside decay():
 *     set_priority, set_priority_batch, prioritize, job_resolve,
 *     job_factors, job_factors_json, share_table, share_table_json,
 *     plugin_stats, plugin_info_json, errmsg, free_string, share_table_free.
 * These read an immutable snapshot that decay() replaces atomically, so a
 * reader never waits for a decay pass and never sees half of one.
 * prioritize() also publishes the normalization of its pass atomically;
 * set_priority/job_factors between passes use the last pass's.
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

/* Incremented on every incompatible change of this header.  A host refuses a
 * plugin whose plugin_version differs (v1 plugins: rebuild against v2). */
#define MFPRIO_ABI_VERSION 2u

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
#define MFPRIO_ENOTSUP (-9)  /* the family does not provide this operation */

/* ---- bounds ------------------------------------------------------------ */
/* A plugin cannot see how long a host's array is, so counts above these are
 * refused with MFPRIO_EINVAL before any element is read (a count of
 * SIZE_MAX is a host bug, not a request to read memory).  errmsg() is at
 * most MFPRIO_ERRMSG_MAX bytes (long names in it are cut). */
#define MFPRIO_MAX_RECORDS (1u << 24)  /* job records in one call */
/* Times (seconds since the epoch): every `now`, end time and record time
 * field must lie in [0, MFPRIO_TIME_MAX] (9999-12-31T23:59:59Z); anything
 * else is refused with EINVAL before any arithmetic is done on it. */
#define MFPRIO_TIME_MAX INT64_C(253402300799)
#define MFPRIO_MAX_LIST 4096u          /* TRES or attributes of one job; cluster TRES */
#define MFPRIO_MAX_CONF (1u << 20)     /* conf pairs in the host table */
#define MFPRIO_ERRMSG_MAX 4096u

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
#define MFPRIO_JOBF_NICE_ADMIN 0x1u     /* nice was set by an admin (may be < 0) */
#define MFPRIO_JOBF_DEPENDENT 0x2u      /* waiting on a dependency */
#define MFPRIO_JOBF_SOFT_VIOLATION 0x4u /* violates a soft policy limit (Maui SPVIOLATION) */
#define MFPRIO_JOBF_URGENCY 0x8u        /* `urgency` is set; without it the urgency is 16 */
#define MFPRIO_JOBF_BLOCKED 0x10u       /* blocked by a scheduling policy (not a hold) */
#define MFPRIO_JOBF_USER_PRIORITY_ADMIN 0x20u /* user_priority > 0 was set by an admin */

/* Flux urgency: 0 holds the job, 31 expedites it, 16 is the default. */
#define MFPRIO_URGENCY_HOLD 0u
#define MFPRIO_URGENCY_DEFAULT 16u
#define MFPRIO_URGENCY_EXPEDITE 31u

/* Filled by job_resolve(); lets set_priority skip name look-ups.  The host
 * zeroes it when it creates the record and never interprets it.  A stale
 * handle (from an older layout: the family's numbering of who exists, which
 * a decay pass keeps and a hierarchy change replaces; or one whose indices no
 * longer name the record's own user, account, partition or QOS) is detected
 * and the record is resolved again by name. */
typedef struct mfprio_handle {
    uint32_t generation;      /* the layout's id when resolved (not
                                 mfprio_stats_t.generation, which counts
                                 publishes) */
    uint32_t assoc;
    uint16_t partition;
    uint16_t qos;             /* MFPRIO_NO_QOS: the job has no QOS */
} mfprio_handle_t;

#define MFPRIO_NO_QOS 0xffffu

/* A family-specific job attribute: Grid Engine's "department" or a hard
 * resource request "mem_free" = "4G"; the family's reference says which
 * names it reads.  Unknown names are ignored. */
typedef struct mfprio_attr {
    const char *name;
    const char *value;
} mfprio_attr_t;

/* One job in one partition.  A job eligible for several partitions is
 * given to the plugin as one record per partition.  Each family reads the
 * fields its policy uses and ignores the rest; zero is always a valid
 * "not given" (urgency is read only with MFPRIO_JOBF_URGENCY). */
typedef struct mfprio_job {  /* 176 bytes on LP64 */
    uint32_t struct_size;     /* sizeof(mfprio_job_t) */
    uint16_t state;           /* MFPRIO_JOB_* */
    uint16_t flags;           /* MFPRIO_JOBF_* */
    uint64_t job_id;
    const char *user;
    const char *group;        /* NULL or "": none given */
    const char *account;      /* NULL or "": the user's default.  Moab account,
                                 Grid Engine project, Flux bank */
    const char *partition;    /* NULL or "": the default.  Maui/Moab class,
                                 Grid Engine queue, Flux queue */
    const char *qos;          /* NULL or "": "normal" when it exists */
    int64_t submit_time;
    int64_t eligible_time;    /* 0: not yet eligible (held, dependency) */
    int64_t start_time;       /* running jobs: when it (last) started */
    int64_t deadline;         /* 0: none */
    uint32_t min_nodes;
    uint32_t cpus;
    uint64_t mem_mb;
    uint32_t time_limit_min;  /* requested walltime; 0: unlimited/unknown */
    int32_t nice;             /* > 0 lowers priority; < 0 needs NICE_ADMIN */
    int32_t site_factor;      /* admin-set, added as is */
    uint32_t prev_priority;   /* for PriorityFlags=INCR_ONLY; 0 = none */
    uint32_t bypass_count;    /* times backfill started a lower job ahead of it */
    uint32_t start_count;     /* times it was started (requeues + 1) */
    int32_t user_priority;    /* Moab USERPRIO / Grid Engine POSIX priority;
                                 > 0 needs MFPRIO_JOBF_USER_PRIORITY_ADMIN */
    uint8_t urgency;          /* Flux urgency 0..31, with MFPRIO_JOBF_URGENCY */
    uint8_t reserved_[3];     /* zero */
    const mfprio_tres_t *tres; /* extra TRES requested: "gres/gpu" = 2 ... */
    uint32_t tres_count;
    uint32_t attr_count;
    const mfprio_attr_t *attrs; /* family-specific attributes (see above) */
    mfprio_handle_t handle;
} mfprio_job_t;

/* ---- the factor breakdown: named terms ------------------------------- */

#define MFPRIO_NAME_MAX 48        /* resolved names in mfprio_factors_t */
#define MFPRIO_TERM_NAME_MAX 32
#define MFPRIO_TERM_LABEL_MAX 16
#define MFPRIO_MAX_TERMS 64

/* term flags */
#define MFPRIO_TERMF_CAPPED 0x1u  /* a cap or clamp bound this term */
#define MFPRIO_TERMF_LONG 0x2u    /* views show it in the long format only */
#define MFPRIO_TERMF_RAW 0x4u     /* an amount added as is (site factor, nice):
                                     views print the contribution, never a factor */
#define MFPRIO_TERMF_TEXT 0x8u    /* no number: views print `text` */
#define MFPRIO_TERMF_LIST 0x10u   /* views print its children in its own column
                                     as name=value,... (Slurm's TRES column) */
#define MFPRIO_TERMF_ZERO_WEIGHT 0x20u /* its weight is 0: views may hide it */
#define MFPRIO_TERMF_DECIMAL 0x40u /* a fraction (Grid Engine's prio is about 0..1):
                                      views print 5 decimals, not an integer */
#define MFPRIO_TERMF_PRIORITY 0x80u /* the priority as the family's admins read it
                                       (Grid Engine's qstat prio): views print it as
                                       the PRIORITY column and the 32-bit ordering key
                                       only where asked (sprio -l KEY, --json) */

/* One term of a job's priority in the family's own vocabulary.  Top-level
 * terms (parent -1) add up, with their contributions, to the total; a term
 * with parent >= 0 is a part (subcomponent) of that term. */
typedef struct mfprio_term {
    char name[MFPRIO_TERM_NAME_MAX];   /* "age", "fairshare", "SERV.QUEUETIME" */
    char label[MFPRIO_TERM_LABEL_MAX]; /* column header: "AGE", "QTIME" */
    double factor;            /* the factor: normalized or raw as the family defines */
    double weight;            /* what the factor is multiplied by */
    double contribution;      /* what the term adds to the total (after caps) */
    int32_t parent;           /* index of the term it is part of; -1 = top level */
    uint32_t flags;           /* MFPRIO_TERMF_* */
    uint32_t width;           /* views: minimum column width (0: the host's default) */
    uint32_t reserved_;       /* zero */
    char text[MFPRIO_TERM_NAME_MAX];   /* TEXT terms: the value ("normal") */
} mfprio_term_t;

#define MFPRIO_CLAMP_NONE 0u
#define MFPRIO_CLAMP_LOW 1u   /* total below the family's minimum: raised */
#define MFPRIO_CLAMP_HIGH 2u  /* total above the family's maximum: lowered */

/* The breakdown of one job's priority: what sprio shows.  The plugin
 * writes at most (struct_size - offsetof(terms)) / sizeof(mfprio_term_t)
 * terms, so a host compiled with a larger MFPRIO_MAX_TERMS gets them all. */
typedef struct mfprio_factors {
    uint32_t struct_size;
    uint32_t priority;        /* what set_priority returns (after clamping) */
    double unclamped;         /* the total in the family's own scale, before
                                 clamping or mapping to 32 bits */
    uint32_t clamped;         /* MFPRIO_CLAMP_* */
    uint32_t term_count;      /* terms[0 .. term_count) are valid */
    /* What the job resolved to: the account (the user's default when the
     * job named none), the partition and the QOS ("" when none applies). */
    char account_name[MFPRIO_NAME_MAX];
    char partition_name[MFPRIO_NAME_MAX];
    char qos_name[MFPRIO_NAME_MAX];
    mfprio_term_t terms[MFPRIO_MAX_TERMS];
} mfprio_factors_t;

/* ---- the share view: a table whose columns the family names ---------- */

/* column flags */
#define MFPRIO_COLF_LONG 0x1u     /* long format only */
#define MFPRIO_COLF_TEXT 0x2u     /* cells are text (cell.text) */
#define MFPRIO_COLF_INDENT 0x4u   /* text indented by the row's depth (tree column) */
#define MFPRIO_COLF_LEFT 0x8u     /* left-aligned (default: right) */

typedef struct mfprio_share_column {
    char name[MFPRIO_TERM_NAME_MAX];   /* JSON key: "norm_shares" */
    char label[MFPRIO_TERM_LABEL_MAX]; /* header: "NormShares" */
    int32_t decimals;         /* digits after the point; -1: an integer */
    uint32_t width;           /* minimum text width */
    uint32_t flags;           /* MFPRIO_COLF_* */
} mfprio_share_column_t;

/* A cell: a number, or text when text != NULL ("" = blank). */
typedef struct mfprio_share_cell {
    double value;
    const char *text;
} mfprio_share_cell_t;

typedef struct mfprio_share_row {
    int32_t parent;           /* row index of the parent; -1 for a top row */
    uint32_t depth;           /* top rows 0 */
    uint32_t is_user;         /* a user (leaf) row */
    uint32_t reserved_;
    const char *account;      /* the row's account ("" when not a tree family) */
    const char *user;         /* NULL unless a user row */
    const char *partition;    /* NULL unless a partition association */
    const mfprio_share_cell_t *cells; /* column_count cells */
} mfprio_share_row_t;

/* Rows in tree order (parent before children, siblings by name).  One
 * allocation owned by the plugin: free with share_table_free. */
typedef struct mfprio_share_table {
    uint32_t struct_size;
    uint32_t column_count;
    size_t row_count;
    const mfprio_share_column_t *columns;
    const mfprio_share_row_t *rows;
} mfprio_share_table_t;

typedef struct mfprio_stats {
    uint32_t struct_size;
    uint32_t generation;      /* snapshot number, +1 per publish */
    int64_t last_decay;       /* time of the last decay pass */
    uint64_t clamped_high;    /* priorities clamped high so far */
    uint64_t clamped_low;     /* priorities raised to the minimum so far */
    uint64_t associations;
    uint64_t jobs_charged;    /* charges written by decay/job_end so far */
} mfprio_stats_t;

/* ---- the host's account tree (set_accounts) ------------------------- */

/* A host that keeps the associations itself (Slurm's slurmdbd, through
 * slurmctld's association manager) hands the family the whole tree with
 * set_accounts(); the family then prices from it, with no second hierarchy
 * kept by hand.  Each array comes with its element size (the caller's
 * sizeof), which the plugin uses as the stride, reading only the fields
 * that fit: elements may grow at their end like every struct here. */

/* assoc flags */
#define MFPRIO_ASSOCF_DEFAULT 0x1u       /* user rows: the user's default account */
#define MFPRIO_ASSOCF_SHARES_PARENT 0x2u /* Fairshare=parent: counts as its parent's */

/* One row of the tree: an account (user NULL or "") or a user's
 * association with an account (user set).  The root account is "root"; it
 * is implicit (a row for it may only set its shares and priority). */
typedef struct mfprio_assoc {
    const char *user;         /* NULL or "": an account row */
    const char *account;      /* account rows: the account; user rows: its account */
    const char *parent;       /* account rows: the parent account (NULL or "": root);
                                 user rows: ignored */
    const char *partition;    /* user rows: NULL or "": every partition */
    uint32_t shares;          /* raw shares (Slurm's Fairshare=N) */
    uint32_t priority;        /* association priority; 0: inherited */
    uint32_t flags;           /* MFPRIO_ASSOCF_* */
    uint32_t reserved_;       /* zero */
} mfprio_assoc_t;

typedef struct mfprio_qos_rec {
    const char *name;
    uint32_t priority;        /* the QOS's Priority */
    uint32_t reserved_;       /* zero */
    double usage_factor;      /* UsageFactor (>= 0; 1 when the host has none) */
} mfprio_qos_rec_t;

/* partition flags */
#define MFPRIO_PARTF_DEFAULT 0x1u        /* the default partition */

typedef struct mfprio_partition_rec {
    const char *name;
    uint32_t job_factor;      /* PriorityJobFactor, 0..65533 */
    uint32_t flags;           /* MFPRIO_PARTF_* */
    const char *billing_weights; /* TRESBillingWeights as written; NULL or "": none */
    const char *tres_totals;  /* "cpu=240,mem=491520,node=10"; NULL or "": the cluster's */
} mfprio_partition_rec_t;

/* accounts flags: which record kinds the call replaces besides the
 * associations (a kind not flagged is left as the family has it). */
#define MFPRIO_ACCOUNTSF_QOS 0x1u        /* qos[] is the whole QOS list */
#define MFPRIO_ACCOUNTSF_PARTITIONS 0x2u /* partitions[] is the whole partition list */

typedef struct mfprio_accounts {
    uint32_t struct_size;     /* sizeof(mfprio_accounts_t) */
    uint32_t flags;           /* MFPRIO_ACCOUNTSF_* */
    const mfprio_assoc_t *assocs;  /* account rows and user rows, any order */
    size_t assoc_count;
    uint32_t assoc_size;      /* sizeof(mfprio_assoc_t) */
    uint32_t qos_size;        /* sizeof(mfprio_qos_rec_t) */
    const mfprio_qos_rec_t *qos;
    size_t qos_count;
    const mfprio_partition_rec_t *partitions;
    size_t partition_count;
    uint32_t partition_size;  /* sizeof(mfprio_partition_rec_t) */
    uint32_t reserved_;       /* zero */
} mfprio_accounts_t;

/* ---- the operations -------------------------------------------------- */

typedef int (*mfprio_init_fn)(const mfprio_host_t *host);
typedef int (*mfprio_fini_fn)(void);
typedef int (*mfprio_job_resolve_fn)(mfprio_job_t *job);
typedef int (*mfprio_set_priority_fn)(const mfprio_job_t *job, int64_t now,
                                      uint32_t *priority);
typedef int (*mfprio_set_priority_batch_fn)(const mfprio_job_t *jobs, size_t count,
                                            int64_t now, uint32_t *priorities,
                                            int *statuses);
typedef int (*mfprio_prioritize_fn)(const mfprio_job_t *pending, size_t pending_count,
                                    const mfprio_job_t *running, size_t running_count,
                                    int64_t now, uint32_t *priorities, int *statuses);
typedef int (*mfprio_decay_fn)(int64_t now, const mfprio_job_t *running, size_t count);
typedef int (*mfprio_job_end_fn)(const mfprio_job_t *job, int64_t end_time);
typedef int (*mfprio_job_end_batch_fn)(const mfprio_job_t *jobs, size_t count,
                                       const int64_t *end_times);
typedef int (*mfprio_job_factors_fn)(const mfprio_job_t *job, int64_t now,
                                     mfprio_factors_t *out);
typedef int (*mfprio_job_factors_json_fn)(const mfprio_job_t *job, int64_t now,
                                          char **json);
typedef int (*mfprio_share_table_fn)(mfprio_share_table_t **table);
typedef void (*mfprio_share_table_free_fn)(mfprio_share_table_t *table);
typedef int (*mfprio_share_table_json_fn)(char **json);
typedef int (*mfprio_plugin_stats_fn)(mfprio_stats_t *out);
typedef int (*mfprio_plugin_info_json_fn)(char **json);
typedef const char *(*mfprio_errmsg_fn)(void);
typedef void (*mfprio_free_string_fn)(char *s);
typedef int (*mfprio_set_accounts_fn)(const mfprio_accounts_t *accounts);

#ifdef MFPRIO_PLUGIN_IMPLEMENTATION
/* Declarations for plugin authors; a host uses the typedefs above. */

/* Identity, as Slurm plugins have it. */
MFPRIO_EXPORT extern const char plugin_name[];
MFPRIO_EXPORT extern const char plugin_type[];      /* "priority/multifactor" */
MFPRIO_EXPORT extern const uint32_t plugin_version; /* MFPRIO_ABI_VERSION */

/* REQUIRED.  Validate the conf keys the family knows (unknown keys are
 * ignored), open the accounting store when the family keeps one, build the
 * first snapshot.  Control thread only.  ECONF names file:line and key;
 * ESTORE names the store path. */
MFPRIO_EXPORT int init(const mfprio_host_t *host);
/* REQUIRED.  Release everything.  Control thread; no other call running. */
MFPRIO_EXPORT int fini(void);
/* REQUIRED.  One job's priority at time `now`.  Any thread; no lock, no I/O
 * for the store-backed families.  Held jobs get 0.  A whole-queue family
 * uses the last prioritize() pass's normalization (none yet: this job
 * alone).  ENOENT/EPERM/EINVAL name the job. */
MFPRIO_EXPORT int set_priority(const mfprio_job_t *job, int64_t now, uint32_t *priority);
/* REQUIRED.  Charge the running jobs up to now, decay usage as the family
 * does, persist in one transaction, recompute shares, publish a new
 * snapshot.  Control thread only.  On failure nothing changed, or (when
 * the store committed and a later step failed) the plugin has converged to
 * the store's state: a pass is never applied twice. */
MFPRIO_EXPORT int decay(int64_t now, const mfprio_job_t *running, size_t count);
/* REQUIRED.  The calling thread's message for its last failed call ("" if
 * none).  Valid until that thread's next call into the plugin. */
MFPRIO_EXPORT const char *errmsg(void);

/* OPTIONAL.  Look up the job's association, partition and QOS once and
 * store handles in job->handle.  Any thread.  ENOENT names what is missing. */
MFPRIO_EXPORT int job_resolve(mfprio_job_t *job);
/* OPTIONAL.  set_priority for count records.  priorities[i] and, when
 * statuses is not NULL, statuses[i] are written for every record; a failed
 * record gets priority 0.  Returns MFPRIO_OK when every record succeeded,
 * else the first failing status (errmsg names that job). */
MFPRIO_EXPORT int set_priority_batch(const mfprio_job_t *jobs, size_t count, int64_t now,
                                     uint32_t *priorities, int *statuses);
/* OPTIONAL.  Price the whole pending queue in one pass, with the running
 * jobs given: families that normalize over all jobs or split a user's
 * tickets among their pending jobs need both.  priorities[i]/statuses[i]
 * are for pending[i], as in set_priority_batch.  The pass's normalization
 * is kept for set_priority/job_factors until the next pass.  Any thread. */
MFPRIO_EXPORT int prioritize(const mfprio_job_t *pending, size_t pending_count,
                             const mfprio_job_t *running, size_t running_count, int64_t now,
                             uint32_t *priorities, int *statuses);
/* OPTIONAL.  Charge a finished job's last interval, once per job id. */
MFPRIO_EXPORT int job_end(const mfprio_job_t *job, int64_t end_time);
/* OPTIONAL.  job_end for count jobs (end_times[i] for jobs[i]) in one
 * durable transaction: all are charged or, when any record is bad (errmsg
 * names it), none.  Control thread. */
MFPRIO_EXPORT int job_end_batch(const mfprio_job_t *jobs, size_t count, const int64_t *end_times);
/* OPTIONAL.  The breakdown of set_priority's answer as named terms. */
MFPRIO_EXPORT int job_factors(const mfprio_job_t *job, int64_t now, mfprio_factors_t *out);
/* OPTIONAL.  The same as a JSON object: {"job_id", "user", "account",
 * "partition", "qos", "priority", "unclamped", "clamped", "terms": [{"name",
 * "label", "factor", "weight", "contribution", "parent", "capped", ...}]};
 * free *json with free_string. */
MFPRIO_EXPORT int job_factors_json(const mfprio_job_t *job, int64_t now, char **json);
/* OPTIONAL.  The share table; free with share_table_free.  Any thread. */
MFPRIO_EXPORT int share_table(mfprio_share_table_t **table);
MFPRIO_EXPORT void share_table_free(mfprio_share_table_t *table);
/* OPTIONAL.  {"columns": [{"name", "label"}...], "rows": [{"parent",
 * "depth", "account", "user", <column name>: value...}]}; free_string. */
MFPRIO_EXPORT int share_table_json(char **json);
MFPRIO_EXPORT int plugin_stats(mfprio_stats_t *out);
/* OPTIONAL.  Weights (keyed by term name), flags and settings in force, as
 * a JSON object with at least "plugin_type", "abi_version", "weights".
 * A sub-term's weight is keyed by its own name beside its term's
 * ("SERV": 1, "SERV.QUEUETIME": 5); weights under a term that has none of
 * its own nest ("tres": {"cpu": 1000}).
 * Optional members a host reads (additive: an older host ignores them, an
 * older plugin without them gets the host's generic views):
 *   "terms": [{"name", "label", "flags", "width", "parent"}]  the top-level
 *       terms in column order, for a view with no job to show;
 *   "view": the view layout the family's admins know, by name:
 *       {"layout": "slurm-22.05",             the host's layout module
 *        "terms": {"A": "age", ...},          the layout's slots -> term names
 *        "weights": {"age": 1000, "tres": "CPU=2000,Mem=1000"},
 *                                             by term name, TRES as written
 *        "share_columns": {"RawUsage": "raw_usage", ...},
 *                                             the layout's share fields -> columns
 *        "level_fs": true,                    other members: layout options
 *        "sub_weight_product": true}          a sub-term's weight is its term's
 *                                             weight x its own (views say so)
 *       mfprio-host(1) lists the layouts and their slots;
 *   "no_decay_conf": {"KEY": "VALUE", ...}    conf pairs under which usage
 *       does not decay (a host's replay --no-decay appends them); absent: the
 *       family cannot turn its decay off;
 *   "share_header": text a share view prints above the table;
 *   "conf_names": {"partitions": ["a", "b"], "accounts": [...], "users": [...]}
 *       the names the family's own files configure, by kind, each an array
 *       of strings (Maui's CLASSCFG, ACCOUNTCFG, USERCFG, GROUPCFG, QOSCFG
 *       lines), for a host that checks a workload against them (simulate's
 *       warnings); a plugin built before the arrays gave each kind as one
 *       comma-separated string, which mfprio-host still reads. */
MFPRIO_EXPORT int plugin_info_json(char **json);
MFPRIO_EXPORT void free_string(char *s);
/* OPTIONAL.  The host's whole account tree replaces the family's: what
 * differs (accounts, user associations, users' default accounts, and QOS and
 * partitions when flagged) is written to the family's store in one
 * transaction, then a new snapshot is published (handles resolved before
 * are stale and resolved again).  Usage stays with every association that
 * stays, and a user's store AdminLevel with the user; an association the
 * tree no longer has is deleted with its usage.
 * The same tree again writes nothing.  A user with no row flagged
 * DEFAULT gets the first of its accounts by name.  Refused whole (EINVAL,
 * errmsg naming the row) for an unusable name, an unknown parent or a
 * parent cycle, a user row under an account the tree does not have, two
 * defaults for one user, a repeated row, a bad number or element size;
 * ENOTSUP when the family keeps no store; ESTORE when the write failed:
 * nothing changed (a tree that moves an account out of one it deletes is
 * written in the same one transaction, the moves before the deletions).
 * Control thread, as decay. */
MFPRIO_EXPORT int set_accounts(const mfprio_accounts_t *accounts);
#endif /* MFPRIO_PLUGIN_IMPLEMENTATION */

/* The names a host looks up with dlsym(), in the order of mfprio_ops_t.
 * The first MFPRIO_OPS_REQUIRED are required; the rest may be missing
 * (their members stay NULL). */
#define MFPRIO_OPS_SYMBOLS                                                       \
    "init", "fini", "set_priority", "decay", "errmsg",                          \
        "job_resolve", "set_priority_batch", "prioritize", "job_end",           \
        "job_end_batch", "job_factors", "job_factors_json", "share_table",      \
        "share_table_free", "share_table_json", "plugin_stats",                 \
        "plugin_info_json", "free_string", "set_accounts"

typedef struct mfprio_ops {
    /* required */
    mfprio_init_fn init;
    mfprio_fini_fn fini;
    mfprio_set_priority_fn set_priority;
    mfprio_decay_fn decay;
    mfprio_errmsg_fn errmsg;
    /* optional: NULL when the plugin does not provide it */
    mfprio_job_resolve_fn job_resolve;
    mfprio_set_priority_batch_fn set_priority_batch;
    mfprio_prioritize_fn prioritize;
    mfprio_job_end_fn job_end;
    mfprio_job_end_batch_fn job_end_batch;
    mfprio_job_factors_fn job_factors;
    mfprio_job_factors_json_fn job_factors_json;
    mfprio_share_table_fn share_table;
    mfprio_share_table_free_fn share_table_free;
    mfprio_share_table_json_fn share_table_json;
    mfprio_plugin_stats_fn plugin_stats;
    mfprio_plugin_info_json_fn plugin_info_json;
    mfprio_free_string_fn free_string;
    mfprio_set_accounts_fn set_accounts;
} mfprio_ops_t;

#define MFPRIO_OPS_COUNT 19
#define MFPRIO_OPS_REQUIRED 5

#ifdef __cplusplus
}
#endif
#endif /* MFPRIO_MFPRIO_H */
