/*
 * mfprio_slurm_reset.h - PriorityUsageResetPeriod's boundaries (reset.c):
 * when Slurm's own usage bookkeeping (usage.c) clears the associations' and
 * QOS' raw usage, as priority/multifactor does: DAILY at midnight, WEEKLY
 * on Sunday 00:00, MONTHLY on the 1st at 00:00, QUARTERLY on January,
 * April, July and October 1st at 00:00, YEARLY on January 1st at 00:00, in
 * the controller's local time (calendar days: a day with a daylight-saving
 * change is 23 or 25 hours long).  NOW clears once at each slurmctld start
 * and `scontrol reconfigure`; NONE never.  Pure: no Slurm header, no I/O
 * (mfprio's code under mfprio's licence; tests/slurm/test_reset.cpp).
 */
#ifndef MFPRIO_SLURM_RESET_H
#define MFPRIO_SLURM_RESET_H

#include <stdbool.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The periods, in the order of Slurm's PRIORITY_RESET_* values. */
enum {
	MFS_RESET_NONE,
	MFS_RESET_NOW,
	MFS_RESET_DAILY,
	MFS_RESET_WEEKLY,
	MFS_RESET_MONTHLY,
	MFS_RESET_QUARTERLY,
	MFS_RESET_YEARLY
};

/* The first boundary of `period` after `after` (local time); 0 for NONE,
 * NOW and an unknown period. */
time_t mfs_reset_next(int period, time_t after);

/* A pass at `now`, the last reset (or the bookkeeping's first start) at
 * `last`: true when a boundary lies in (last, now]; *at is then the latest
 * such boundary (the new last reset: boundaries missed while slurmctld was
 * down give one reset, not one per boundary). */
bool mfs_reset_due(int period, time_t last, time_t now, time_t *at);

#ifdef __cplusplus
}
#endif
#endif
