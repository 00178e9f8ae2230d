/*
 * mfprio_slurm_jobs.h - Slurm job records as mfprio job records (jobs.c):
 * the one place that reads job_record_t for the family.  GPL-2.0-or-later
 * (includes Slurm's headers through the callers' types).
 *
 * A batch is one pass's copy of job_list: pending records (one per
 * partition of a multi-partition job, in part_ptr_list order), running and
 * suspended records, and records of jobs that ended since the last pass;
 * every string is owned by the batch, so the family is called with no
 * slurmctld lock held.
 */
#ifndef MFPRIO_SLURM_JOBS_H
#define MFPRIO_SLURM_JOBS_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <mfprio/mfprio.h>

typedef struct mfs_batch mfs_batch_t;
struct job_record;

mfs_batch_t *mfs_batch_create(void);
void mfs_batch_free(mfs_batch_t *b);
/* Under the job read lock (and partition read lock): copies the records. */
void mfs_batch_scan(mfs_batch_t *b, void *job_list, time_t ends_since, time_t now);
size_t mfs_batch_pending_count(const mfs_batch_t *b);
size_t mfs_batch_running_count(const mfs_batch_t *b);
size_t mfs_batch_end_count(const mfs_batch_t *b);
const mfprio_job_t *mfs_batch_running(const mfs_batch_t *b);
/* Pending record i: its job id and, at a job's first record, how many
 * records (partitions) the job has. */
uint32_t mfs_batch_job_id(const mfs_batch_t *b, size_t i);
size_t mfs_batch_part_count(const mfs_batch_t *b, size_t i);
/* No lock held: the family charges the ended jobs (job_end_batch, else
 * job_end per job; a refused batch is retried job by job so one bad record
 * does not hold back the others).  The first failing status. */
int mfs_batch_charge_ends(mfs_batch_t *b, const mfprio_ops_t *ops);
/* No lock held: prices the pending records (prioritize with the running
 * jobs, else set_priority_batch, else set_priority). */
int mfs_batch_price(mfs_batch_t *b, const mfprio_ops_t *ops, int64_t now);
/* Under the job write lock: writes the priorities of the job whose first
 * pending record is i (priority_array for a multi-partition job). */
void mfs_store_job(mfs_batch_t *b, size_t i, struct job_record *job_ptr);
/* No lock held: writes DIR/mfprio-pass.jsonl (atomically): one line per
 * pending record in mfprio-host's job format with "_priority", "_pass_time"
 * and "_family" added, then the running records ("state": "running"). */
void mfs_batch_publish(const mfs_batch_t *b, const char *dir, const char *family, int64_t now);
/* Under the job write lock (priority_p_set): the job's priority now from
 * the family's snapshot; fills priority_array of a multi-partition job. */
uint32_t mfs_price_now(struct job_record *job_ptr, const mfprio_ops_t *ops, int64_t now);

/* Under the job read lock: sprio's records (pending, not held, not
 * admin-set jobs; one per partition) matching the request, priced at `now`
 * (the last pass's time): the family's top-level terms named age, assoc,
 * fairshare, jobsize, partition, qos fill those columns, SITE holds the rest
 * so that the columns add up to the priority.  A List of
 * priority_factors_object_t (void * here: Slurm's types stay in jobs.c). */
void *mfs_factors_list(void *job_list, void *req, const mfprio_ops_t *ops, int64_t now);

#endif
