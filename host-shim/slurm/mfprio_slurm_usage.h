/*
 * mfprio_slurm_usage.h - Slurm's own usage bookkeeping (usage.c): what
 * priority/multifactor keeps in slurmctld's association manager for
 * accounting limits and sshare (association and QOS raw usage, TRES usage,
 * group wall, the running TRES-seconds of GrpTRESRunMins given back as jobs
 * run and at their end), kept the same way for the jobs the family is given.
 * The family's own usage (its store) is separate and unchanged by this.
 * GPL-2.0-or-later (usage.c includes Slurm's headers).
 */
#ifndef MFPRIO_SLURM_USAGE_H
#define MFPRIO_SLURM_USAGE_H

#include <time.h>

struct job_record;

/* init: reads the last pass's time and the last PriorityUsageResetPeriod
 * reset from STATE_DIR/mfprio-slurm-usage. */
void mfs_usage_init(const char *state_dir);
void mfs_usage_fini(void);
/* The pass, under the job read lock (and partition read lock): notes the
 * running jobs' intervals since the last pass and the ends found (ids and
 * counts copied; no assoc_mgr lock taken). */
void mfs_usage_collect(void *job_list, time_t now);
/* Then, no slurmctld lock held: takes the assoc_mgr write lock, decays every
 * association's and QOS's usage and applies what was collected (slurmctld's
 * other threads may hold assoc_mgr locks for a while: the job lock is not
 * held while waiting for it). */
void mfs_usage_apply(time_t now);
/* After the pass, no lock held: writes the state file (small, atomic). */
void mfs_usage_save(void);
/* priority_p_reconfig(assoc_clear), under the job read lock (and
 * partition read lock): slurmctld cleared every reservation and made the
 * running jobs' whole TRES x TimeLimit again; give back what each ran
 * before the last pass (the passes give back the rest). */
void mfs_usage_reconfig(void *job_list);
/* priority_p_reconfig: PriorityUsageResetPeriod is read again at the next
 * pass (NOW resets again). */
void mfs_usage_conf_changed(void);
/* priority_p_set_assoc_usage (assoc_mgr write lock held by the caller):
 * an association the last pass did not see gets its NormUsage now. */
struct slurmdb_assoc_rec;
void mfs_usage_assoc(struct slurmdb_assoc_rec *assoc);
/* priority_p_job_end, under the job write lock: the job's last interval and
 * the rest of its GrpTRESRunMins reservation (once per job). */
void mfs_usage_job_end(struct job_record *job_ptr);

#endif
