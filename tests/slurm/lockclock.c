/*
 * lockclock.c - a measurement aid for bench_locks.py (issue 20, item 8):
 * Slurm's own priority/multifactor, compiled from the installed version's
 * source package with -Dlock_slurmctld=lockclock_lock
 * -Dunlock_slurmctld=lockclock_unlock, takes its slurmctld locks through
 * these two functions, which log how long each job write lock was held;
 * compiled with -Dpriority_p_set=lockclock_priority_p_set_inner, its
 * priority_p_set is timed by the wrapper below (one clock pair around the
 * call, as the adapter times its own), the mean logged every 1000 calls.
 * Nothing of Slurm's code is changed or kept: bench_locks.py compiles the
 * plugin's unmodified files into the build tree.  GPL-2.0-or-later, like
 * host-shim/slurm (it includes Slurm's headers).
 */
#include <time.h>

#include "src/common/log.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

static double lockclock_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static double lockclock_cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static __thread double lockclock_t0, lockclock_c0;

void lockclock_lock(slurmctld_lock_t l)
{
	lock_slurmctld(l);
	if (l.job == WRITE_LOCK) {
		lockclock_t0 = lockclock_us();
		lockclock_c0 = lockclock_cpu_us();
	}
}

void lockclock_unlock(slurmctld_lock_t l)
{
	if (l.job == WRITE_LOCK)
		info("lockclock: job write lock held %.0f us (thread CPU %.0f us)",
		     lockclock_us() - lockclock_t0,
		     lockclock_cpu_us() - lockclock_c0);
	unlock_slurmctld(l);
}

extern uint32_t lockclock_priority_p_set_inner(uint32_t last_prio,
						job_record_t *job_ptr);

static unsigned long lockclock_calls;
static double lockclock_set_us;

/* priority_p_set runs under the job write lock: calls are serialised. */
extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	double t0 = lockclock_us();
	uint32_t prio = lockclock_priority_p_set_inner(last_prio, job_ptr);

	lockclock_set_us += lockclock_us() - t0;
	if (++lockclock_calls == 1000) {
		info("lockclock: priority_p_set: %lu calls, mean %.1f us",
		     lockclock_calls, lockclock_set_us / lockclock_calls);
		lockclock_calls = 0;
		lockclock_set_us = 0.0;
	}
	return prio;
}
