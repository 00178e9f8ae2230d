/*
 * reset.c - see mfprio_slurm_reset.h.  mfprio's code (no Slurm header).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* localtime_r under -std=c11 */
#endif
#include "mfprio_slurm_reset.h"

/* Local midnight of the calendar day `days` after t's day (mktime
 * normalises the day and the daylight-saving offset). */
static time_t midnight_plus(time_t t, int days)
{
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return 0;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_mday += days;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

/* 00:00 local on the 1st of the month `months` after t's month. */
static time_t first_of_month_plus(time_t t, int months)
{
	struct tm tm;

	if (!localtime_r(&t, &tm))
		return 0;
	tm.tm_sec = tm.tm_min = tm.tm_hour = 0;
	tm.tm_mday = 1;
	tm.tm_mon += months;
	tm.tm_isdst = -1;
	return mktime(&tm);
}

time_t mfs_reset_next(int period, time_t after)
{
	struct tm tm;

	if (!localtime_r(&after, &tm))
		return 0;
	switch (period) {
	case MFS_RESET_DAILY:
		return midnight_plus(after, 1);
	case MFS_RESET_WEEKLY:
		/* the next Sunday (wday 0); from a Sunday, the one after */
		return midnight_plus(after, 7 - tm.tm_wday);
	case MFS_RESET_MONTHLY:
		return first_of_month_plus(after, 1);
	case MFS_RESET_QUARTERLY:
		return first_of_month_plus(after, 3 - tm.tm_mon % 3);
	case MFS_RESET_YEARLY:
		return first_of_month_plus(after, 12 - tm.tm_mon);
	default:
		return 0;
	}
}

bool mfs_reset_due(int period, time_t last, time_t now, time_t *at)
{
	time_t b = mfs_reset_next(period, last), latest = 0;

	/* b > last always (a boundary is strictly after its start); the
	 * loop is bounded by the boundaries in (last, now] */
	while (b && b > last && b <= now) {
		latest = b;
		b = mfs_reset_next(period, b);
		if (b <= latest)
			break;
	}
	if (!latest)
		return false;
	*at = latest;
	return true;
}
