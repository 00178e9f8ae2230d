/*
 * usage.c - see mfprio_slurm_usage.h.  GPL-2.0-or-later (Slurm's headers).
 *
 * The rules (as priority/multifactor keeps them in Slurm 22.05; written here
 * from the rules, not from its code):
 *   - every PriorityDecayHalfLife H, usage halves: each pass multiplies the
 *     raw usage, TRES usage and group wall of every association and every QOS
 *     (but QOS flagged NoDecay) by d^t, d = 1 - ln 2 / H, t the seconds
 *     since the last pass (H = 0: no decay);
 *   - a running job adds, for the seconds t it ran since the last pass (or its
 *     start), t * d^t times its billable TRES (and times each allocated TRES
 *     count, and t * d^t to the group wall) to its QOS, its partition's QOS
 *     when that is another, and its association and every parent up to root,
 *     each scaled by the job QOS's UsageFactor (a NoDecay QOS gets t, not
 *     t * d^t);
 *   - with AccountingStorageEnforce=limits, slurmctld reserves
 *     TRES x TimeLimit seconds of each job in GrpTRESRunMins when the job
 *     starts; each pass gives back the seconds the job ran (no further than
 *     its time limit), and the end gives back all that is left; the TRES
 *     usage is kept only then too.
 *   - PriorityUsageResetPeriod: at the first pass at or after a period's
 *     boundary (mfprio_slurm_reset.h), every association's and QOS's raw
 *     usage, TRES usage and group wall are set to 0 before the pass's
 *     decay; NOW does it at the first pass after each start and
 *     reconfigure; the last reset's time is kept in the state file;
 *   - after each pass, the share numbers sshare shows (NormUsage,
 *     EffectvUsage, LevelFS, the users' FairShare) are computed from the
 *     raw usage and shares as the configured algorithm (PriorityFlags: Fair
 *     Tree, NO_FAIR_TREE's classic, DEPTH_OBLIVIOUS) defines them
 *     (shares.cpp, plugin/core); root's EffectvUsage is 1, its NormUsage
 *     (and Fair Tree's LevelFS of root) unset, as multifactor leaves them.
 * A job's end is accounted once: by priority_p_job_end where slurmctld calls
 * it, else by the pass that finds the job ended (whichever comes first; the
 * other finds it in the list of ends accounted).  An end gives back what is
 * left of the reservation from the last pass (or the start) on, so a job
 * whose end time lies before the last pass (it ran at that pass) still gets
 * it all back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/read_config.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "mfprio_slurm_reset.h"
#include "mfprio_slurm_shares.h"
#include "mfprio_slurm_usage.h"

/* The bookkeeping's own state.  us_mutex is held only for short
 * stretches and never while waiting for another lock: inside the job lock
 * the caller holds (the pass's collect, priority_p_job_end) and by
 * mfs_usage_save.  The time up to which the give-backs are applied
 * (`applied`) is read and written only under the assoc_mgr write lock. */
static pthread_mutex_t us_mutex = PTHREAD_MUTEX_INITIALIZER;
/* priority_p_reconfig happened: PriorityUsageResetPeriod is read again
 * (NOW resets again), as priority/multifactor does. */
static bool us_reconfigured;

/* One job's interval, collected under the job read lock and applied after
 * it, by the ids (a record may be gone by then: its part is dropped, as
 * slurmctld drops a deleted association's usage). */
typedef struct {
	uint32_t job_id, assoc_id, qos_id, part_qos_id;
	time_t from, to;
	uint64_t release;   /* reservation seconds given back */
	uint64_t before;    /* after a restart: the seconds before the last
			       pass, given back too (slurmctld reserved them
			       again) */
	double billable;
	uint64_t *tres;     /* allocated counts (g_tres_count), owned */
	int ntres;
} pend_t;

static struct {
	time_t collected;   /* the last pass's time: intervals start here */
	time_t applied;     /* give-backs applied up to here (assoc lock) */
	bool recovered;     /* `collected` came from the state file */
	time_t last_reset;  /* PriorityUsageResetPeriod's last reset (or the
			       first start: the state file keeps it) */
	int reset_period;   /* MFS_RESET_*; NOW becomes NONE once done */
	bool shares_error;  /* the share numbers' error was logged once */
	bool reconfigured;  /* a reconfigure gave back what ran before
			       `applied`: the pending `before`s are done */
	struct {
		uint32_t job_id;
		time_t start;   /* a requeued job ends again with another start */
		time_t end;
	} *done;            /* ends accounted (pruned when long past) */
	size_t done_count, done_cap;
	pend_t *pend;       /* collected, not applied yet (the pass thread) */
	size_t npend, pend_cap;
	char path[4096];
} us;

static bool limits(void)
{
	return (slurm_conf.accounting_storage_enforce &
		ACCOUNTING_ENFORCE_LIMITS) != 0;
}

static double decay_per_second(void)
{
	uint32_t hl = slurm_conf.priority_decay_hl;
	/* priority/multifactor's constant: 0.693, not ln 2 (the two differ
	 * in the fifth digit; UsageRaw is compared with Slurm's own) */
	return (hl && hl != NO_VAL) ? 1.0 - 0.693 / (double) hl : 1.0;
}

/* ---- the state file: the last pass's time, the last reset's ------------ */

static int reset_period_of(uint16_t p)
{
	switch (p) {
	case PRIORITY_RESET_NOW: return MFS_RESET_NOW;
	case PRIORITY_RESET_DAILY: return MFS_RESET_DAILY;
	case PRIORITY_RESET_WEEKLY: return MFS_RESET_WEEKLY;
	case PRIORITY_RESET_MONTHLY: return MFS_RESET_MONTHLY;
	case PRIORITY_RESET_QUARTERLY: return MFS_RESET_QUARTERLY;
	case PRIORITY_RESET_YEARLY: return MFS_RESET_YEARLY;
	default: return MFS_RESET_NONE;
	}
}

void mfs_usage_init(const char *state_dir)
{
	FILE *f;
	long long t = 0;

	long long r = 0;

	memset(&us, 0, sizeof(us));
	us.reset_period = reset_period_of(slurm_conf.priority_reset_period);
	us.last_reset = time(NULL);
	if (!state_dir || !*state_dir)
		return;
	snprintf(us.path, sizeof(us.path), "%s/mfprio-slurm-usage", state_dir);
	if ((f = fopen(us.path, "r"))) {
		if (fscanf(f, "last_pass %lld", &t) == 1 && t > 0) {
			us.collected = us.applied = (time_t) t;
			us.recovered = true;
		}
		/* a file of an older adapter has no last_reset line */
		if (fscanf(f, " last_reset %lld", &r) == 1 && r > 0)
			us.last_reset = (time_t) r;
		fclose(f);
	}
}

static void save(void)
{
	char tmp[4200];
	FILE *f;

	if (!us.path[0])
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", us.path);
	if (!(f = fopen(tmp, "w"))) {
		error("priority/mfprio: %s: %m", tmp);
		return;
	}
	fprintf(f, "last_pass %lld\nlast_reset %lld\n", (long long) us.collected,
		(long long) __atomic_load_n(&us.last_reset, __ATOMIC_RELAXED));
	if (fclose(f) != 0 || rename(tmp, us.path) != 0) {
		error("priority/mfprio: %s: %m", us.path);
		unlink(tmp);
	}
}

/* ---- one job's interval ------------------------------------------------- */

typedef struct {
	long double usage;      /* billable x t x d^t (or x t: NoDecay) */
	long double wall;
	long double *tres;      /* per TRES index, x t x d^t (g_tres_count) */
} add_t;

/* Adds a (the decayed or the undecayed form) to one usage record and gives
 * back `run` TRES-seconds (floor 0). */
static void apply(slurmdb_assoc_usage_t *u, const add_t *a,
		  const uint64_t *run, int ntres)
{
	u->usage_raw += a->usage;
	u->grp_used_wall += (double) a->wall;
	if (!limits())
		return;
	for (int i = 0; i < ntres; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		u->usage_tres_raw[i] += a->tres[i];
		u->grp_used_tres_run_secs[i] =
			run[i] > u->grp_used_tres_run_secs[i] ? 0 :
			u->grp_used_tres_run_secs[i] - run[i];
	}
}

static void apply_qos(slurmdb_qos_rec_t *q, const add_t *dec,
		      const add_t *nodec, const uint64_t *run, int ntres)
{
	const add_t *a = (q->flags & QOS_FLAG_NO_DECAY) ? nodec : dec;

	q->usage->usage_raw += a->usage;
	q->usage->grp_used_wall += (double) a->wall;
	if (!limits())
		return;
	for (int i = 0; i < ntres; i++) {
		if (i == TRES_ARRAY_ENERGY)
			continue;
		q->usage->usage_tres_raw[i] += a->tres[i];
		q->usage->grp_used_tres_run_secs[i] =
			run[i] > q->usage->grp_used_tres_run_secs[i] ? 0 :
			q->usage->grp_used_tres_run_secs[i] - run[i];
	}
}

/* The job's billable TRES as slurmctld has it (computed when the job
 * started); computed here, without writing the job record (only the job
 * read lock is held), when slurmctld has not. */
static double billable_of(job_record_t *job_ptr, bool assoc_locked)
{
	part_record_t *part = job_ptr->part_ptr;

	if (!fuzzy_equal(job_ptr->billable_tres, NO_VAL))
		return job_ptr->billable_tres;
	if (!job_ptr->tres_alloc_cnt)
		return 0.0;
	if (!part || !part->billing_weights)
		return (double) job_ptr->total_cpus;
	return assoc_mgr_tres_weighted(job_ptr->tres_alloc_cnt,
				       part->billing_weights,
				       slurm_conf.priority_flags, assoc_locked);
}

/* Seconds of the reservation [start, start + limit) inside [from, to]. */
static uint64_t reserved_in(job_record_t *job_ptr, time_t from, time_t to)
{
	uint64_t limit_end, f = (uint64_t) from, t = (uint64_t) to;

	/* what slurmctld reserved: TimeLimit as it is (INFINITE too) */
	limit_end = (uint64_t) job_ptr->start_time +
		(uint64_t) job_ptr->time_limit * 60;
	if (t > limit_end)
		t = limit_end;
	return t > f ? t - f : 0;
}

/* The interval [from, to] of a job, `release` seconds of its reservation
 * given back; the job's records under its lock. */
static void pend_of(pend_t *p, job_record_t *job_ptr, time_t from, time_t to,
		    uint64_t release, bool assoc_locked)
{
	int ntres = (int) g_tres_count;

	memset(p, 0, sizeof(*p));
	p->job_id = job_ptr->job_id;
	p->assoc_id = job_ptr->assoc_id;
	p->qos_id = job_ptr->qos_ptr ? job_ptr->qos_ptr->id : 0;
	if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr &&
	    job_ptr->part_ptr->qos_ptr != job_ptr->qos_ptr)
		p->part_qos_id = job_ptr->part_ptr->qos_ptr->id;
	p->from = from;
	p->to = to > from ? to : from;
	p->release = release;
	p->billable = billable_of(job_ptr, assoc_locked);
	if (job_ptr->tres_alloc_cnt && ntres > 0) {
		p->tres = xcalloc(ntres, sizeof(uint64_t));
		memcpy(p->tres, job_ptr->tres_alloc_cnt,
		       ntres * sizeof(uint64_t));
		p->ntres = ntres;
	}
}

static void pend_free(pend_t *p)
{
	xfree(p->tres);
}

/* Applies one interval to the QOS and association records given.
 * assoc_mgr write lock held (assoc, qos; tres read). */
static void apply_pend(const pend_t *p, bool with_before,
		       slurmdb_qos_rec_t *qos, slurmdb_qos_rec_t *part_qos,
		       slurmdb_assoc_rec_t *assoc)
{
	int ntres = p->ntres < (int) g_tres_count ? p->ntres :
		(int) g_tres_count;
	double t = difftime(p->to, p->from), uf = 1.0, td;
	add_t dec, nodec;
	long double dec_tres[ntres > 0 ? ntres : 1], nodec_tres[ntres > 0 ? ntres : 1];
	uint64_t run[ntres > 0 ? ntres : 1];
	uint64_t release = p->release + (with_before ? p->before : 0);

	if (t < 0)
		t = 0;
	td = t * pow(decay_per_second(), t);
	if (qos && qos->usage_factor >= 0)
		uf = qos->usage_factor;
	memset(&dec, 0, sizeof(dec));
	memset(&nodec, 0, sizeof(nodec));
	memset(run, 0, sizeof(run));
	memset(dec_tres, 0, sizeof(dec_tres));
	memset(nodec_tres, 0, sizeof(nodec_tres));
	dec.tres = dec_tres;
	nodec.tres = nodec_tres;
	dec.usage = (long double) p->billable * td * uf;
	nodec.usage = (long double) p->billable * t * uf;
	dec.wall = (long double) td * uf;
	nodec.wall = (long double) t * uf;
	for (int i = 0; p->tres && i < ntres; i++) {
		uint64_t n = p->tres[i];
		if (!n || n == NO_CONSUME_VAL64)
			continue;
		dec.tres[i] = (long double) n * td * uf;
		nodec.tres[i] = (long double) n * t * uf;
		run[i] = (uint64_t) ((double) release * uf) * n;
	}
	if (qos)
		apply_qos(qos, &dec, &nodec, run, ntres);
	if (part_qos && part_qos != qos)
		apply_qos(part_qos, &dec, &nodec, run, ntres);
	for (; assoc && assoc->usage; assoc = assoc->usage->parent_assoc_ptr)
		apply(assoc->usage, &dec, run, ntres);
}

static bool done(job_record_t *job_ptr)
{
	for (size_t i = 0; i < us.done_count; i++)
		if (us.done[i].job_id == job_ptr->job_id &&
		    us.done[i].start == job_ptr->start_time)
			return true;
	return false;
}

static void mark_done(job_record_t *job_ptr)
{
	if (us.done_count == us.done_cap) {
		us.done_cap = us.done_cap ? 2 * us.done_cap : 64;
		us.done = xrealloc(us.done, us.done_cap * sizeof(*us.done));
	}
	us.done[us.done_count].job_id = job_ptr->job_id;
	us.done[us.done_count].start = job_ptr->start_time;
	us.done[us.done_count].end = job_ptr->end_time;
	us.done_count++;
}

/* A job's end: its last interval from the last pass (or its start), and all
 * that is left of its reservation.  us_mutex held. */
static void end_of(pend_t *p, job_record_t *job_ptr, bool assoc_locked)
{
	time_t from = job_ptr->start_time > us.collected ?
		job_ptr->start_time : us.collected;

	pend_of(p, job_ptr, from, job_ptr->end_time,
		reserved_in(job_ptr, from, (time_t) INT64_MAX), assoc_locked);
	mark_done(job_ptr);
}

void mfs_usage_job_end(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};
	pend_t p;
	bool todo;

	if (!job_ptr->start_time || !job_ptr->assoc_ptr ||
	    !assoc_mgr_assoc_list)
		return;
	slurm_mutex_lock(&us_mutex);
	todo = !done(job_ptr);
	if (todo)
		end_of(&p, job_ptr, false);
	slurm_mutex_unlock(&us_mutex);
	if (!todo)
		return;
	/* the job write lock is held: its pointers are the records' */
	assoc_mgr_lock(&locks);
	apply_pend(&p, false, job_ptr->qos_ptr,
		   job_ptr->part_ptr ? job_ptr->part_ptr->qos_ptr : NULL,
		   job_ptr->assoc_ptr);
	assoc_mgr_unlock(&locks);
	pend_free(&p);
}

static void decay_all(double factor)
{
	ListIterator it;
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;
	int ntres = (int) g_tres_count;

	if (factor >= 1.0)
		return;
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		slurmdb_assoc_usage_t *u[2] = {a->usage, a->leaf_usage};
		for (int k = 0; k < 2; k++) {
			if (!u[k] || (k == 1 && u[1] == u[0]))
				continue;
			u[k]->usage_raw *= factor;
			u[k]->grp_used_wall *= factor;
			for (int i = 0; u[k]->usage_tres_raw && i < ntres; i++)
				u[k]->usage_tres_raw[i] *= factor;
		}
	}
	list_iterator_destroy(it);
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it))) {
		if ((q->flags & QOS_FLAG_NO_DECAY) || !q->usage)
			continue;
		q->usage->usage_raw *= factor;
		q->usage->grp_used_wall *= factor;
		for (int i = 0; q->usage->usage_tres_raw && i < ntres; i++)
			q->usage->usage_tres_raw[i] *= factor;
	}
	list_iterator_destroy(it);
}

static pend_t *pend_add(void)
{
	if (us.npend == us.pend_cap) {
		us.pend_cap = us.pend_cap ? 2 * us.pend_cap : 64;
		us.pend = xrealloc(us.pend, us.pend_cap * sizeof(*us.pend));
	}
	return &us.pend[us.npend++];
}

void mfs_usage_collect(void *list, time_t now)
{
	ListIterator it;
	job_record_t *job_ptr;
	time_t last;
	size_t keep = 0;

	if (!list || !assoc_mgr_assoc_list || !assoc_mgr_qos_list)
		return;
	slurm_mutex_lock(&us_mutex);
	if (us.collected > now) {
		/* a clock set back, or a state file from elsewhere: the
		 * bookkeeping goes on from now (nothing charged twice) */
		error("priority/mfprio: %s: last pass %lld is after now (%lld): Slurm's usage bookkeeping restarts from now",
		      us.path, (long long) us.collected, (long long) now);
		us.collected = now;
		us.recovered = false;
	}
	last = us.collected ? us.collected : now;
	it = list_iterator_create((List) list);
	while ((job_ptr = list_next(it))) {
		if (!job_ptr->start_time || !job_ptr->assoc_ptr)
			continue;
		if (IS_JOB_RUNNING(job_ptr)) {
			time_t from = job_ptr->start_time > last ?
				job_ptr->start_time : last;
			pend_t *p;
			if (from >= now && !(us.recovered &&
					     job_ptr->start_time < last))
				continue;
			p = pend_add();
			pend_of(p, job_ptr, from, now,
				reserved_in(job_ptr, from, now), false);
			if (us.recovered && job_ptr->start_time < last)
				p->before = reserved_in(job_ptr,
							job_ptr->start_time,
							last);
		} else if ((IS_JOB_FINISHED(job_ptr) ||
			    IS_JOB_COMPLETING(job_ptr)) &&
			   job_ptr->end_time > last &&
			   job_ptr->end_time <= now && !done(job_ptr)) {
			end_of(pend_add(), job_ptr, false);
		}
	}
	list_iterator_destroy(it);
	/* an end is kept as accounted while slurmctld may still report it
	 * (the job stays in job_list MinJobAge seconds) */
	for (size_t i = 0; i < us.done_count; i++)
		if (us.done[i].end + 2 * (time_t) slurm_conf.min_job_age + 600 > now)
			us.done[keep++] = us.done[i];
	us.done_count = keep;
	us.collected = now;
	us.recovered = false;
	slurm_mutex_unlock(&us_mutex);
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = (*(slurmdb_assoc_rec_t *const *) a)->id;
	uint32_t y = (*(slurmdb_assoc_rec_t *const *) b)->id;
	return x < y ? -1 : x > y;
}

static int qos_by_id(const void *a, const void *b)
{
	uint32_t x = (*(slurmdb_qos_rec_t *const *) a)->id;
	uint32_t y = (*(slurmdb_qos_rec_t *const *) b)->id;
	return x < y ? -1 : x > y;
}

/* The records of a list sorted by id (assoc_mgr lock held). */
static void **sorted(List list, size_t *n, int (*cmp)(const void *, const void *))
{
	void **v, *x;
	ListIterator it;
	size_t i = 0;

	*n = (size_t) list_count(list);
	v = xcalloc(*n ? *n : 1, sizeof(void *));
	it = list_iterator_create(list);
	while ((x = list_next(it)) && i < *n)
		v[i++] = x;
	list_iterator_destroy(it);
	*n = i;
	qsort(v, *n, sizeof(void *), cmp);
	return v;
}

static void *find_id(void **v, size_t n, uint32_t id, bool qos)
{
	size_t lo = 0, hi = n;

	if (!id)
		return NULL;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		uint32_t got = qos ? ((slurmdb_qos_rec_t *) v[mid])->id :
			((slurmdb_assoc_rec_t *) v[mid])->id;
		if (got == id)
			return v[mid];
		if (got < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static void zero_usage(slurmdb_assoc_usage_t *u, int ntres)
{
	u->usage_raw = 0;
	u->grp_used_wall = 0;
	for (int i = 0; u->usage_tres_raw && i < ntres; i++)
		u->usage_tres_raw[i] = 0;
}

/* PriorityUsageResetPeriod: clears every association's and QOS's usage
 * when a boundary passed (assoc_mgr write lock held). */
static void reset_if_due(time_t now)
{
	ListIterator it;
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;
	int ntres = (int) g_tres_count;
	time_t at = now;

	if (__atomic_exchange_n(&us_reconfigured, false, __ATOMIC_RELAXED))
		us.reset_period =
			reset_period_of(slurm_conf.priority_reset_period);
	/* the associations not loaded yet: a NOW is kept for a later pass */
	if (us.reset_period == MFS_RESET_NONE || !assoc_mgr_root_assoc)
		return;
	if (us.reset_period == MFS_RESET_NOW)
		us.reset_period = MFS_RESET_NONE; /* once per start/reconfigure */
	else if (!mfs_reset_due(us.reset_period, us.last_reset, now, &at))
		return;
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		if (a->usage)
			zero_usage(a->usage, ntres);
		if (a->leaf_usage && a->leaf_usage != a->usage)
			zero_usage(a->leaf_usage, ntres);
	}
	list_iterator_destroy(it);
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it))) {
		if (!q->usage)
			continue;
		q->usage->usage_raw = 0;
		q->usage->grp_used_wall = 0;
		for (int i = 0; q->usage->usage_tres_raw && i < ntres; i++)
			q->usage->usage_tres_raw[i] = 0;
	}
	list_iterator_destroy(it);
	__atomic_store_n(&us.last_reset, at, __ATOMIC_RELAXED);
	info("priority/mfprio: PriorityUsageResetPeriod: associations' and QOS' usage reset (at %lld)",
	     (long long) at);
}

/* Breadth first: depth, then slurmdbd's lft, then id (parents before
 * children; siblings in slurmdbd's order). */
typedef struct {
	slurmdb_assoc_rec_t *a;
	uint32_t depth;
} ranked_t;

static int by_depth(const void *x, const void *y)
{
	const ranked_t *a = x, *b = y;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	if (a->a->lft != b->a->lft)
		return a->a->lft < b->a->lft ? -1 : 1;
	return a->a->id < b->a->id ? -1 : a->a->id > b->a->id;
}

static size_t id_index(void **assocs, size_t n, slurmdb_assoc_rec_t *a)
{
	void **hit = a ? bsearch(&a, assocs, n, sizeof(void *), by_id) : NULL;
	return hit ? (size_t) (hit - assocs) : n;
}

/* The association tree, root first and every parent before its children,
 * in order[]; NULL when root is not the one top or a parent is missing
 * (the numbers then stay as they are).  assoc_mgr lock held; assocs sorted
 * by id. */
static mfs_share_node_t *share_nodes(void **assocs, size_t n,
				     slurmdb_assoc_rec_t **order)
{
	mfs_share_node_t *nodes = xcalloc(n, sizeof(*nodes));
	ranked_t *r = xcalloc(n, sizeof(*r));
	uint32_t *pre = xcalloc(n, sizeof(*pre)); /* by id index */
	bool ok = true;

	for (size_t k = 0; k < n; k++) {
		slurmdb_assoc_rec_t *p = assocs[k];
		r[k].a = assocs[k];
		while (p && p->usage && p->usage->parent_assoc_ptr &&
		       r[k].depth <= n) {
			p = p->usage->parent_assoc_ptr;
			r[k].depth++;
		}
	}
	qsort(r, n, sizeof(*r), by_depth);
	for (size_t i = 0; i < n; i++) {
		order[i] = r[i].a;
		pre[id_index(assocs, n, r[i].a)] = (uint32_t) i;
	}
	for (size_t i = 0; i < n && ok; i++) {
		slurmdb_assoc_rec_t *a = order[i];
		mfs_share_node_t *x = &nodes[i];
		size_t k;
		ok = a->usage && (i == 0) == (a == assoc_mgr_root_assoc);
		if (!ok)
			break;
		x->parent = -1;
		if (i) {
			k = id_index(assocs, n, a->usage->parent_assoc_ptr);
			ok = k < n && pre[k] < i;
			x->parent = ok ? (int32_t) pre[k] : -1;
		}
		x->is_user = a->user ? 1 : 0;
		x->shares_parent = a->shares_raw == SLURMDB_FS_USE_PARENT;
		x->shares = x->shares_parent ? 0.0 : (double) a->shares_raw;
		x->usage = (double) a->usage->usage_raw;
	}
	xfree(r);
	xfree(pre);
	if (!ok)
		xfree(nodes);
	return nodes;
}

/* sshare's numbers for every association (assoc_mgr write lock held;
 * assocs sorted by id). */
static void update_shares(void **assocs, size_t n)
{
	slurmdb_assoc_rec_t **order;
	mfs_share_node_t *nodes;
	char err[256];
	uint16_t flags = slurm_conf.priority_flags;
	int algo = (flags & PRIORITY_FLAGS_FAIR_TREE) ? MFS_SHARES_FAIR_TREE :
		(flags & PRIORITY_FLAGS_DEPTH_OBLIVIOUS) ?
		MFS_SHARES_DEPTH_OBLIVIOUS : MFS_SHARES_CLASSIC;

	if (!n || !assoc_mgr_root_assoc)
		return;
	order = xcalloc(n, sizeof(*order));
	nodes = share_nodes(assocs, n, order);
	if (!nodes) {
		snprintf(err, sizeof(err),
			 "the association tree has no single root or a missing parent");
	} else if (mfs_shares_compute(nodes, n, algo,
				      (double) slurm_conf.fs_dampening_factor,
				      err, sizeof(err)) == 0) {
		for (size_t i = 0; i < n; i++) {
			slurmdb_assoc_usage_t *u = order[i]->usage;
			bool ft_root = !i && algo == MFS_SHARES_FAIR_TREE;
			/* root's NormUsage is never set (and Fair Tree's
			 * LevelFS of root): sshare prints them blank */
			u->usage_norm = !i ? (long double) NO_VAL :
				nodes[i].usage_norm;
			u->usage_efctv = i ? nodes[i].usage_efctv : 1.0;
			u->level_fs = ft_root ? (double) NO_VAL :
				nodes[i].level_fs;
			u->fs_factor = nodes[i].fs_factor;
		}
		us.shares_error = false;
		xfree(nodes);
		xfree(order);
		return;
	}
	if (!us.shares_error)
		error("priority/mfprio: sshare's share numbers not computed: %s",
		      err);
	us.shares_error = true;
	xfree(nodes);
	xfree(order);
}

void mfs_usage_apply(time_t now)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};
	void **assocs, **qos;
	size_t na, nq;
	bool with_before;

	if (!assoc_mgr_assoc_list || !assoc_mgr_qos_list)
		return;
	/* the pass thread alone adds to and empties us.pend */
	assoc_mgr_lock(&locks);
	reset_if_due(now);
	if (us.applied && now > us.applied)
		decay_all(pow(decay_per_second(), difftime(now, us.applied)));
	with_before = !us.reconfigured;
	assocs = sorted(assoc_mgr_assoc_list, &na, by_id);
	qos = sorted(assoc_mgr_qos_list, &nq, qos_by_id);
	for (size_t i = 0; i < us.npend; i++) {
		const pend_t *p = &us.pend[i];
		apply_pend(p, with_before, find_id(qos, nq, p->qos_id, true),
			   find_id(qos, nq, p->part_qos_id, true),
			   find_id(assocs, na, p->assoc_id, false));
	}
	if (now > us.applied)
		us.applied = now;
	us.reconfigured = false;
	update_shares(assocs, na);
	assoc_mgr_unlock(&locks);
	xfree(assocs);
	xfree(qos);
	for (size_t i = 0; i < us.npend; i++)
		pend_free(&us.pend[i]);
	us.npend = 0;
}

void mfs_usage_save(void)
{
	slurm_mutex_lock(&us_mutex);
	save();
	slurm_mutex_unlock(&us_mutex);
}

/* slurmctld reserved every running job's whole TRES x TimeLimit again (a
 * reconfigure clears and redoes every reservation): give back what each ran
 * before the give-backs applied so far; the passes give back the rest. */
void mfs_usage_reconfig(void *list)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};
	ListIterator it;
	job_record_t *job_ptr;

	if (!list || !assoc_mgr_assoc_list || !assoc_mgr_qos_list)
		return;
	assoc_mgr_lock(&locks);
	it = list_iterator_create((List) list);
	while (us.applied && (job_ptr = list_next(it))) {
		pend_t p;
		if (!IS_JOB_RUNNING(job_ptr) || !job_ptr->assoc_ptr ||
		    !job_ptr->start_time || job_ptr->start_time >= us.applied)
			continue;
		pend_of(&p, job_ptr, job_ptr->start_time, job_ptr->start_time,
			reserved_in(job_ptr, job_ptr->start_time, us.applied),
			true);
		apply_pend(&p, false, job_ptr->qos_ptr,
			   job_ptr->part_ptr ? job_ptr->part_ptr->qos_ptr : NULL,
			   job_ptr->assoc_ptr);
		pend_free(&p);
	}
	list_iterator_destroy(it);
	/* what a restart's first pass still has to give back is given */
	us.reconfigured = true;
	assoc_mgr_unlock(&locks);
}

void mfs_usage_fini(void)
{
	for (size_t i = 0; i < us.npend; i++)
		pend_free(&us.pend[i]);
	xfree(us.pend);
	xfree(us.done);
	memset(&us, 0, sizeof(us));
}

void mfs_usage_conf_changed(void)
{
	__atomic_store_n(&us_reconfigured, true, __ATOMIC_RELAXED);
}

/* priority_p_set_assoc_usage: an association the last pass did not see
 * (sshare asked before the next pass): its normalised usage now, its
 * effective usage that until the pass computes the tree's. */
void mfs_usage_assoc(slurmdb_assoc_rec_t *assoc)
{
	long double root = assoc_mgr_root_assoc && assoc_mgr_root_assoc->usage ?
		assoc_mgr_root_assoc->usage->usage_raw : 0.0L;

	if (!assoc || !assoc->usage || assoc == assoc_mgr_root_assoc)
		return;
	assoc->usage->usage_norm = root > 0.0L ?
		fminl(1.0L, assoc->usage->usage_raw / root) : 0.0L;
	if (fuzzy_equal(assoc->usage->usage_efctv, NO_VAL))
		assoc->usage->usage_efctv = assoc->usage->usage_norm;
}
