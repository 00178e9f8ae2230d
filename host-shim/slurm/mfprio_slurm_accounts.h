/*
 * mfprio_slurm_accounts.h - slurmdbd's associations handed to the family
 * (accounts.c): the one place that reads slurmctld's association manager
 * for it.  GPL-2.0-or-later (accounts.c includes Slurm's headers).
 *
 * Each pass: under the assoc_mgr read lock (assoc, qos) a signature of the
 * association and QOS lists (ids, names, parents, shares, priorities,
 * defaults, UsageFactor) is computed without allocating; when it differs
 * from the last tree the family took, the lists are copied, the lock is
 * released and the family's set_accounts gets the copy with no lock held.
 * QOS are sent (slurmdbd is their only source); partitions are not: the
 * family reads them from slurm.conf, which it is given.
 */
#ifndef MFPRIO_SLURM_ACCOUNTS_H
#define MFPRIO_SLURM_ACCOUNTS_H

#include <stddef.h>
#include <stdint.h>

#include <mfprio/mfprio.h>

#define MFS_ACCOUNTS_SAME 0     /* nothing sent: unchanged, or no op */
#define MFS_ACCOUNTS_NOT_LOADED 3 /* nothing sent: the association manager has not loaded yet */
#define MFS_ACCOUNTS_SENT 1     /* the family took the tree; err: a summary */
#define MFS_ACCOUNTS_REFUSED 2  /* the family refused it; err: its message */

/* No slurmctld lock held (takes the assoc_mgr read lock itself).  *last is
 * the signature of the last tree taken (0 at start). */
int mfs_accounts_sync(const mfprio_ops_t *ops, uint64_t *last, char *err,
		      size_t errlen);

#endif
