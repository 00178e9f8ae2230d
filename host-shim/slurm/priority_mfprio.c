/*
 * priority_mfprio.c - priority/mfprio: a Slurm 22.05 priority plugin that
 * hands pricing, decay and job ends to an mfprio family (priority_NAME.so,
 * loaded with dlopen through mfprio.h only).  GPL-2.0-or-later: it includes
 * Slurm's internal headers (see LICENSE in this folder).
 *
 * Threads and locks (the order Slurm requires: slurmctld locks, then
 * assoc_mgr locks, never the other way):
 *   - priority_p_set runs under the job write lock: it builds the job's
 *     records and asks the family's snapshot (set_priority: no I/O, no lock).
 *   - the pass thread, every PriorityCalcPeriod: copies pending, running and
 *     recently ended jobs under the job read lock; with no slurmctld lock
 *     held, charges the ended jobs (job_end_batch: the family's ledger charges
 *     each job once), decays (charges the running jobs, publishes a snapshot)
 *     and prices the pending queue (prioritize); then stores the priorities
 *     (priority_array for multi-partition jobs) under the job write lock.
 *   - priority_p_job_end (job write lock held) keeps Slurm's own usage
 *     bookkeeping (usage.c, memory only) and wakes the pass early: ends are
 *     found by the pass's scan of job_list (ended jobs stay there MinJobAge
 *     seconds), so every end reaches the family, also where slurmctld never
 *     calls priority_p_job_end (no slurmdbd).
 *   - with slurmdbd, the pass first hands the family slurmdbd's tree when it
 *     changed (accounts.c: assoc_mgr read lock, copy, unlock, set_accounts);
 *     Slurm's usage bookkeeping (usage.c) notes the running and ended jobs'
 *     intervals under the job read lock and applies them after it, under
 *     the assoc_mgr write lock alone.
 * Held (priority 0) and admin-set (scontrol update priority=) jobs are left
 * alone, as under Slurm's multifactor.
 */
#include <dlfcn.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/run_in_daemon.h"
#include "src/common/slurm_priority.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/common/xstring.h"
#include "src/slurmctld/locks.h"
#include "src/slurmctld/slurmctld.h"

#include <mfprio/mfprio.h>

#include "mfprio_slurm_accounts.h"
#include "mfprio_slurm_conf.h"
#include "mfprio_slurm_jobs.h"
#include "mfprio_slurm_usage.h"

#ifndef MFPRIO_PLUGINDIR
#error "MFPRIO_PLUGINDIR (mfprio's install directory of the family plugins) must be defined"
#endif

/* slurmctld's data, defined here for the client processes (sshare, sprio)
 * that load this plugin too: data relocations are resolved at dlopen, and in
 * slurmctld the executable's definitions win. */
List job_list = NULL;
time_t last_job_update = 0;

const char plugin_name[] = "Priority mfprio plugin (mfprio families inside slurmctld)";
const char plugin_type[] = "priority/mfprio";
const uint32_t plugin_version = SLURM_VERSION_NUMBER;

static const char *const ops_symbols[] = {MFPRIO_OPS_SYMBOLS};

static struct {
	void *handle;
	mfprio_ops_t ops;
	mfprio_host_t host;
	mfs_conf_t *conf;
	char family[64];
	bool loaded;
	pthread_t thread;
	bool thread_running;
	pthread_mutex_t mutex;
	pthread_cond_t cond;
	bool stop;
	bool wake;
	unsigned pass_interval; /* seconds; 0: PriorityCalcPeriod */
	uint64_t set_calls, set_ns; /* priority_p_set since the last pass */
	int64_t last_pass; /* the last pass's time (sprio prices at it) */
	time_t ends_since; /* ended jobs with end_time >= this go to the family */
	bool with_dbd; /* AccountingStorageType=accounting_storage/slurmdbd */
	uint64_t accounts_sig; /* the last association tree the family took */
	bool accounts_waiting; /* slurmdbd's tree not loaded yet: pass again soon */
} st = {.mutex = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void family_log(void *arg, int level, const char *message)
{
	(void) arg;
	switch (level) {
	case MFPRIO_LOG_ERROR:
		error("%s: %s: %s", plugin_type, st.family, message);
		break;
	case MFPRIO_LOG_WARNING:
	case MFPRIO_LOG_INFO:
		info("%s: %s: %s", plugin_type, st.family, message);
		break;
	default:
		debug("%s: %s: %s", plugin_type, st.family, message);
	}
}

static const char *family_error(void)
{
	const char *m = st.ops.errmsg ? st.ops.errmsg() : NULL;
	return (m && *m) ? m : "(no message from the family)";
}

/* dlopen the family and check it as mfprio-host's loader does.  0 or -1
 * with the reason in err. */
static int load_family(const char *dir, char *err, size_t errlen)
{
	char path[4096], want[96];
	void *fns[MFPRIO_OPS_COUNT];
	const char *ptype;
	const uint32_t *pversion;

	snprintf(path, sizeof(path), "%s/priority_%s.so", dir, st.family);
	snprintf(want, sizeof(want), "priority/%s", st.family);
	st.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!st.handle) {
		snprintf(err, errlen, "cannot load family %s: %s", want,
			 dlerror());
		return -1;
	}
	ptype = dlsym(st.handle, "plugin_type");
	pversion = dlsym(st.handle, "plugin_version");
	if (!ptype || !pversion || strcmp(ptype, want) ||
	    *pversion != MFPRIO_ABI_VERSION) {
		snprintf(err, errlen,
			 "%s: not an mfprio ABI v%u plugin of type %s", path,
			 MFPRIO_ABI_VERSION, want);
		return -1;
	}
	for (size_t i = 0; i < MFPRIO_OPS_COUNT; i++) {
		fns[i] = dlsym(st.handle, ops_symbols[i]);
		if (!fns[i] && i < MFPRIO_OPS_REQUIRED) {
			snprintf(err, errlen, "%s: missing required symbol '%s'",
				 path, ops_symbols[i]);
			return -1;
		}
	}
	memcpy(&st.ops, fns, sizeof(fns));
	return 0;
}

/* ---- the pass ----------------------------------------------------------- */

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* The calling thread's CPU time: a lock's hold minus the time the thread
 * waited for a core (a loaded machine) is what the pass itself costs. */
static double cpu_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

/* Stores the pass's priorities under the job write lock; returns how long
 * the lock was held (microseconds), the thread's CPU time of it in *cpu. */
static double store_priorities(mfs_batch_t *b, double *cpu)
{
	slurmctld_lock_t lock = {NO_LOCK, WRITE_LOCK, NO_LOCK, READ_LOCK,
				 NO_LOCK};
	size_t n = mfs_batch_pending_count(b), i = 0;
	double t0;

	lock_slurmctld(lock);
	t0 = now_us();
	*cpu = cpu_us();
	while (i < n) {
		uint32_t job_id = mfs_batch_job_id(b, i);
		size_t parts = mfs_batch_part_count(b, i);
		job_record_t *job_ptr = find_job_record(job_id);
		if (job_ptr && IS_JOB_PENDING(job_ptr) && job_ptr->priority &&
		    !job_ptr->direct_set_prio)
			mfs_store_job(b, i, job_ptr);
		i += parts;
	}
	*cpu = cpu_us() - *cpu;
	t0 = now_us() - t0;
	unlock_slurmctld(lock);
	return t0;
}

/* A failed charge of ended jobs is sent again at the next pass when the
 * store failed; a refused record (the family names it) is not retried. */
static bool retry_ends(int rc)
{
	return rc == MFPRIO_ESTORE || rc == MFPRIO_ENOMEM ||
		rc == MFPRIO_ESTATE || rc == MFPRIO_EINTERNAL;
}

/* slurmdbd's associations to the family when they changed (the first pass
 * after a start sends them). */
static void sync_accounts(void)
{
	char msg[MFPRIO_ERRMSG_MAX + 64];
	int rc = mfs_accounts_sync(&st.ops, &st.accounts_sig, msg, sizeof(msg));

	__atomic_store_n(&st.accounts_waiting, rc == MFS_ACCOUNTS_NOT_LOADED,
			 __ATOMIC_RELAXED);
	if (rc == MFS_ACCOUNTS_SENT)
		info("%s: %s: slurmdbd's associations taken: %s", plugin_type,
		     st.family, msg);
	else if (rc == MFS_ACCOUNTS_REFUSED)
		error("%s: %s: slurmdbd's associations refused: %s",
		      plugin_type, st.family, msg);
}

static void run_pass(void)
{
	slurmctld_lock_t read_lock = {NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK,
				      NO_LOCK};
	mfs_batch_t *b = mfs_batch_create();
	double t_read, t_usage, t_family, t_write = 0.0, c_read, c_write = 0.0;
	time_t now;
	int rc = MFPRIO_OK;

	lock_slurmctld(read_lock);
	t_read = now_us();
	c_read = cpu_us();
	now = time(NULL);
	mfs_batch_scan(b, job_list, st.ends_since, now);
	t_usage = now_us();
	mfs_usage_collect(job_list, now);
	t_usage = now_us() - t_usage;
	c_read = cpu_us() - c_read;
	t_read = now_us() - t_read;
	unlock_slurmctld(read_lock);
	mfs_usage_apply(now);
	mfs_usage_save();

	/* no slurmctld lock from here until store_priorities */
	t_family = now_us();
	if (st.with_dbd)
		sync_accounts();
	if (mfs_batch_end_count(b)) {
		rc = mfs_batch_charge_ends(b, &st.ops);
		if (rc != MFPRIO_OK)
			error("%s: %s: job ends: %s", plugin_type, st.family,
			      family_error());
	}
	if (!retry_ends(rc))
		st.ends_since = now;
	rc = st.ops.decay((int64_t) now, mfs_batch_running(b),
			  mfs_batch_running_count(b));
	if (rc != MFPRIO_OK)
		error("%s: %s: decay: %s", plugin_type, st.family,
		      family_error());
	if (mfs_batch_pending_count(b)) {
		rc = mfs_batch_price(b, &st.ops, (int64_t) now);
		if (rc != MFPRIO_OK)
			debug("%s: %s: pricing: %s", plugin_type, st.family,
			      family_error());
	}
	t_family = now_us() - t_family;
	__atomic_store_n(&st.last_pass, (int64_t) now, __ATOMIC_RELAXED);
	if (mfs_batch_pending_count(b))
		t_write = store_priorities(b, &c_write);
	mfs_batch_publish(b, slurm_conf.state_save_location, st.family,
			  (int64_t) now);
	{
		uint64_t calls = __atomic_exchange_n(&st.set_calls, 0,
						     __ATOMIC_RELAXED);
		uint64_t ns = __atomic_exchange_n(&st.set_ns, 0,
						  __ATOMIC_RELAXED);
		debug("%s: pass: %zu pending records, %zu running, %zu ended; job read lock held %.0f us, family %.0f us (no lock), job write lock held %.0f us; priority_p_set since the last pass: %" PRIu64 " calls, mean %.1f us; Slurm's usage bookkeeping %.0f us of the read lock; the pass thread's CPU time under the read lock %.0f us, under the write lock %.0f us",
		      plugin_type, mfs_batch_pending_count(b),
		      mfs_batch_running_count(b), mfs_batch_end_count(b),
		      t_read, t_family, t_write, calls,
		      calls ? ns / 1e3 / calls : 0.0, t_usage, c_read,
		      c_write);
	}
	mfs_batch_free(b);
}

static void *pass_thread(void *arg)
{
	(void) arg;
	slurm_mutex_lock(&st.mutex);
	while (!st.stop) {
		struct timespec until;
		uint32_t period = st.pass_interval ?
			st.pass_interval : slurm_conf.priority_calc_period;

		slurm_mutex_unlock(&st.mutex);
		run_pass();
		slurm_mutex_lock(&st.mutex);
		if (period < 1)
			period = 1;
		/* slurmctld loads the associations after the plugin: until the
		 * family has them, the next pass is a few seconds away */
		if (__atomic_load_n(&st.accounts_waiting, __ATOMIC_RELAXED) &&
		    period > 5)
			period = 5;
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += period;
		while (!st.stop && !st.wake &&
		       pthread_cond_timedwait(&st.cond, &st.mutex, &until) == 0)
			;
		st.wake = false;
	}
	slurm_mutex_unlock(&st.mutex);
	return NULL;
}

/* ---- the plugin's life ------------------------------------------------ */

static void unload(void)
{
	if (st.loaded && st.ops.fini && st.ops.fini() != MFPRIO_OK)
		error("%s: %s: fini: %s", plugin_type, st.family,
		      family_error());
	st.loaded = false;
	if (st.handle)
		dlclose(st.handle);
	st.handle = NULL;
	if (st.conf)
		mfs_conf_free(st.conf);
	st.conf = NULL;
}

int init(void)
{
	char err[MFPRIO_ERRMSG_MAX + 256];
	const char *dir;
	int rc;

	/* sshare and sprio load the plugin in a client process: no family,
	 * no thread there. */
	if (!running_in_slurmctld())
		return SLURM_SUCCESS;

	st.conf = mfs_conf_load(slurm_conf.slurm_conf, err, sizeof(err));
	if (!st.conf)
		fatal("%s: %s", plugin_type, err);
	snprintf(st.family, sizeof(st.family), "%s",
		 mfs_conf_family(st.conf));
	st.pass_interval = mfs_conf_pass_interval(st.conf);
	dir = mfs_conf_plugin_dir(st.conf);
	if (!*dir)
		dir = MFPRIO_PLUGINDIR;
	if (load_family(dir, err, sizeof(err)))
		fatal("%s: %s (PriorityParameters=mfprio_plugin_dir=DIR names another directory)",
		      plugin_type, err);

	memset(&st.host, 0, sizeof(st.host));
	st.host.struct_size = sizeof(st.host);
	st.host.abi_version = MFPRIO_ABI_VERSION;
	st.host.log = family_log;
	mfs_conf_fill_host(st.conf, &st.host);
	rc = st.ops.init(&st.host);
	if (rc != MFPRIO_OK)
		fatal("%s: family %s refused its configuration: %s",
		      plugin_type, st.family, family_error());
	st.loaded = true;
	info("%s: family %s loaded from %s", plugin_type, st.family, dir);

	st.with_dbd = slurm_conf.accounting_storage_type &&
		!strcasecmp(slurm_conf.accounting_storage_type,
			    "accounting_storage/slurmdbd");
	st.accounts_sig = 0;
	mfs_usage_init(slurm_conf.state_save_location);
	if (st.with_dbd && !st.ops.set_accounts)
		info("%s: family %s has no set_accounts: its own store is the account tree, not slurmdbd's",
		     plugin_type, st.family);
	st.stop = false;
	st.ends_since = 0; /* the family's ledger drops repeats */
	slurm_thread_create(&st.thread, pass_thread, NULL);
	st.thread_running = true;
	return SLURM_SUCCESS;
}

int fini(void)
{
	if (st.thread_running) {
		slurm_mutex_lock(&st.mutex);
		st.stop = true;
		slurm_cond_signal(&st.cond);
		slurm_mutex_unlock(&st.mutex);
		pthread_join(st.thread, NULL);
		st.thread_running = false;
	}
	unload();
	mfs_usage_fini();
	return SLURM_SUCCESS;
}

/* ---- Slurm's priority API ------------------------------------------------ */

extern uint32_t priority_p_set(uint32_t last_prio, job_record_t *job_ptr)
{
	(void) last_prio;
	if (job_ptr->direct_set_prio && job_ptr->priority > 0)
		return job_ptr->priority;
	uint32_t prio;
	double t0;

	if (!st.loaded)
		return 1;
	t0 = now_us();
	prio = mfs_price_now(job_ptr, &st.ops, (int64_t) time(NULL));
	__atomic_fetch_add(&st.set_ns, (uint64_t) ((now_us() - t0) * 1e3),
			   __ATOMIC_RELAXED);
	__atomic_fetch_add(&st.set_calls, 1, __ATOMIC_RELAXED);
	return prio;
}

static void wake_pass(void)
{
	if (!st.thread_running)
		return;
	slurm_mutex_lock(&st.mutex);
	st.wake = true;
	slurm_cond_signal(&st.cond);
	slurm_mutex_unlock(&st.mutex);
}

/* scontrol reconfigure: a pass now (the family keeps its settings). */
extern void priority_p_reconfig(bool assoc_clear)
{
	if (!st.loaded)
		return;
	if (assoc_clear) {
		/* slurmctld redid every GrpTRESRunMins reservation (called
		 * with no slurmctld lock held) */
		slurmctld_lock_t lock = {NO_LOCK, READ_LOCK, NO_LOCK,
					 READ_LOCK, NO_LOCK};
		lock_slurmctld(lock);
		mfs_usage_reconfig(job_list);
		unlock_slurmctld(lock);
	}
	mfs_usage_conf_changed();
	info("%s: reconfigure: a pass now; a change of PriorityParameters or the family's files takes effect at the next slurmctld start",
	     plugin_type);
	wake_pass();
}

/* assoc_mgr asks (sshare's request, a new association) with its write
 * lock held: the pass computes every association's share numbers
 * (usage.c); one it has not seen yet gets its NormUsage now. */
extern void priority_p_set_assoc_usage(slurmdb_assoc_rec_t *assoc)
{
	if (st.loaded)
		mfs_usage_assoc(assoc);
}

extern double priority_p_calc_fs_factor(long double usage_efctv,
					long double shares_norm)
{
	/* Slurm's classic fair-share factor, for sshare's client side:
	 * 2^(-(EffectvUsage / NormShares) / FairShareDampeningFactor) */
	double damp = slurm_conf.fs_dampening_factor ?
		(double) slurm_conf.fs_dampening_factor : 1.0;

	if (fuzzy_equal(usage_efctv, NO_VAL) || shares_norm <= 0.0L ||
	    usage_efctv < 0.0L)
		return 0.0;
	return pow(2.0, -((double) (usage_efctv / shares_norm) / damp));
}

extern List priority_p_get_priority_factors_list(
	priority_factors_request_msg_t *req_msg, uid_t uid)
{
	slurmctld_lock_t lock = {NO_LOCK, READ_LOCK, NO_LOCK, READ_LOCK,
				 NO_LOCK};
	List out;
	int64_t at = __atomic_load_n(&st.last_pass, __ATOMIC_RELAXED);

	(void) uid; /* PrivateData is not applied (see the man page) */
	if (!st.loaded)
		return list_create(NULL);
	lock_slurmctld(lock);
	out = mfs_factors_list(job_list, req_msg, &st.ops,
			       at ? at : (int64_t) time(NULL));
	unlock_slurmctld(lock);
	return out;
}

extern void priority_p_job_end(job_record_t *job_ptr)
{
	/* Under the job write lock: no I/O here.  Slurm's own bookkeeping
	 * (memory only) takes the job's end now, as priority/multifactor
	 * does; the family's charge waits for the pass, which finds the end
	 * in job_list: wake it so the charge is not a whole period late. */
	if (!st.loaded)
		return;
	mfs_usage_job_end(job_ptr);
	wake_pass();
}
