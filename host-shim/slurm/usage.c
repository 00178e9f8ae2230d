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

#include "mfprio_slurm_usage.h"

/* Held (after the slurmctld lock the caller holds, before the assoc_mgr
 * lock) by the pass, priority_p_job_end and priority_p_reconfig: the pass
 * and a reconfigure both hold only the job read lock. */
static pthread_mutex_t us_mutex = PTHREAD_MUTEX_INITIALIZER;

static struct {
	time_t last;        /* the last pass (0: none yet) */
	bool recovered;     /* `last` came from the state file: the first pass
			       gives back the run seconds slurmctld reserved
			       again at recovery for the time before it */
	struct {
		uint32_t job_id;
		time_t start;   /* a requeued job ends again with another start */
		time_t end;
	} *done;            /* ends accounted (pruned when long past) */
	size_t done_count, done_cap;
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
	return (hl && hl != NO_VAL) ? 1.0 - log(2.0) / (double) hl : 1.0;
}

/* ---- the state file: the last pass's time ------------------------------- */

void mfs_usage_init(const char *state_dir)
{
	FILE *f;
	long long t = 0;

	memset(&us, 0, sizeof(us));
	if (!state_dir || !*state_dir)
		return;
	snprintf(us.path, sizeof(us.path), "%s/mfprio-slurm-usage", state_dir);
	if ((f = fopen(us.path, "r"))) {
		if (fscanf(f, "last_pass %lld", &t) == 1 && t > 0) {
			us.last = (time_t) t;
			us.recovered = true;
		}
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
	fprintf(f, "last_pass %lld\n", (long long) us.last);
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
static double billable_of(job_record_t *job_ptr)
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
				       slurm_conf.priority_flags, true);
}

/* The job's usage over [from, to] and the run seconds given back: `release`
 * seconds of its reservation (what it ran, or at its end all that is
 * left).  assoc_mgr write lock held (assoc, qos). */
static void charge(job_record_t *job_ptr, time_t from, time_t to,
		   uint64_t release)
{
	int ntres = (int) g_tres_count;
	double t = difftime(to, from), uf = 1.0, billable;
	double td;
	add_t dec, nodec;
	long double dec_tres[ntres > 0 ? ntres : 1], nodec_tres[ntres > 0 ? ntres : 1];
	uint64_t run[ntres > 0 ? ntres : 1];
	slurmdb_qos_rec_t *qos = job_ptr->qos_ptr, *part_qos = NULL;
	slurmdb_assoc_rec_t *a;

	if (t < 0)
		t = 0;
	td = t * pow(decay_per_second(), t);
	if (qos && qos->usage_factor >= 0)
		uf = qos->usage_factor;
	billable = billable_of(job_ptr);
	memset(&dec, 0, sizeof(dec));
	memset(&nodec, 0, sizeof(nodec));
	memset(run, 0, sizeof(run));
	memset(dec_tres, 0, sizeof(dec_tres));
	memset(nodec_tres, 0, sizeof(nodec_tres));
	dec.tres = dec_tres;
	nodec.tres = nodec_tres;
	dec.usage = (long double) billable * td * uf;
	nodec.usage = (long double) billable * t * uf;
	dec.wall = (long double) td * uf;
	nodec.wall = (long double) t * uf;
	for (int i = 0; job_ptr->tres_alloc_cnt && i < ntres; i++) {
		uint64_t n = job_ptr->tres_alloc_cnt[i];
		if (!n || n == NO_CONSUME_VAL64)
			continue;
		dec.tres[i] = (long double) n * td * uf;
		nodec.tres[i] = (long double) n * t * uf;
		run[i] = (uint64_t) ((double) release * uf) * n;
	}
	if (qos)
		apply_qos(qos, &dec, &nodec, run, ntres);
	if (job_ptr->part_ptr && job_ptr->part_ptr->qos_ptr &&
	    job_ptr->part_ptr->qos_ptr != qos)
		part_qos = job_ptr->part_ptr->qos_ptr;
	if (part_qos)
		apply_qos(part_qos, &dec, &nodec, run, ntres);
	for (a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr)
		apply(a->usage, &dec, run, ntres);
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

/* A job's end: its last interval, then all that is left of its reservation. */
static void end_locked(job_record_t *job_ptr)
{
	time_t from = job_ptr->start_time > us.last ? job_ptr->start_time :
		us.last;
	time_t to = job_ptr->end_time > from ? job_ptr->end_time : from;
	uint64_t left = reserved_in(job_ptr, from, (time_t) INT64_MAX);

	charge(job_ptr, from, to, left);
	mark_done(job_ptr);
}

void mfs_usage_job_end(job_record_t *job_ptr)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};

	if (!job_ptr->start_time || !job_ptr->assoc_ptr ||
	    !assoc_mgr_assoc_list)
		return;
	slurm_mutex_lock(&us_mutex);
	if (!done(job_ptr)) {
		assoc_mgr_lock(&locks);
		end_locked(job_ptr);
		assoc_mgr_unlock(&locks);
	}
	slurm_mutex_unlock(&us_mutex);
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

/* slurmctld reserved a running job's whole TRES x TimeLimit again (a
 * restart, or `scontrol reconfigure`, which clears and redoes every
 * reservation): give back what it ran before the last pass. */
static void give_back_before_last(job_record_t *job_ptr)
{
	add_t none;
	int ntres = (int) g_tres_count;
	long double zero[ntres > 0 ? ntres : 1];
	uint64_t run[ntres > 0 ? ntres : 1];
	uint64_t secs = reserved_in(job_ptr, job_ptr->start_time, us.last);
	slurmdb_assoc_rec_t *a;
	double uf = 1.0;

	if (!limits() || !secs)
		return;
	if (job_ptr->qos_ptr && job_ptr->qos_ptr->usage_factor >= 0)
		uf = job_ptr->qos_ptr->usage_factor;
	memset(&none, 0, sizeof(none));
	memset(run, 0, sizeof(run));
	memset(zero, 0, sizeof(zero));
	none.tres = zero;
	for (int i = 0; job_ptr->tres_alloc_cnt && i < ntres; i++)
		if (job_ptr->tres_alloc_cnt[i] &&
		    job_ptr->tres_alloc_cnt[i] != NO_CONSUME_VAL64)
			run[i] = (uint64_t) ((double) secs * uf) *
				job_ptr->tres_alloc_cnt[i];
	if (job_ptr->qos_ptr)
		apply_qos(job_ptr->qos_ptr, &none, &none, run, ntres);
	for (a = job_ptr->assoc_ptr; a && a->usage;
	     a = a->usage->parent_assoc_ptr)
		apply(a->usage, &none, run, ntres);
}

void mfs_usage_pass(void *list, time_t now)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};
	ListIterator it;
	job_record_t *job_ptr;
	time_t last;
	size_t keep = 0;

	if (!list || !assoc_mgr_assoc_list || !assoc_mgr_qos_list)
		return;
	slurm_mutex_lock(&us_mutex);
	if (us.last > now) {
		/* a clock set back, or a state file from elsewhere: the
		 * bookkeeping goes on from now (nothing charged twice) */
		error("priority/mfprio: %s: last pass %lld is after now (%lld): Slurm's usage bookkeeping restarts from now",
		      us.path, (long long) us.last, (long long) now);
		us.last = now;
		us.recovered = false;
	}
	last = us.last ? us.last : now;
	assoc_mgr_lock(&locks);
	decay_all(pow(decay_per_second(), difftime(now, last)));
	it = list_iterator_create((List) list);
	while ((job_ptr = list_next(it))) {
		if (!job_ptr->start_time || !job_ptr->assoc_ptr)
			continue;
		if (IS_JOB_RUNNING(job_ptr)) {
			time_t from = job_ptr->start_time > last ?
				job_ptr->start_time : last;
			if (us.recovered && job_ptr->start_time < last)
				give_back_before_last(job_ptr);
			if (from < now)
				charge(job_ptr, from, now,
				       reserved_in(job_ptr, from, now));
		} else if ((IS_JOB_FINISHED(job_ptr) ||
			    IS_JOB_COMPLETING(job_ptr)) &&
			   job_ptr->end_time > last &&
			   job_ptr->end_time <= now &&
			   !done(job_ptr)) {
			end_locked(job_ptr);
		}
	}
	list_iterator_destroy(it);
	assoc_mgr_unlock(&locks);
	/* an end is kept as accounted while slurmctld may still report it
	 * (the job stays in job_list MinJobAge seconds) */
	for (size_t i = 0; i < us.done_count; i++)
		if (us.done[i].end + 2 * (time_t) slurm_conf.min_job_age + 600 > now)
			us.done[keep++] = us.done[i];
	us.done_count = keep;
	us.last = now;
	us.recovered = false;
	slurm_mutex_unlock(&us_mutex);
}

void mfs_usage_save(void)
{
	slurm_mutex_lock(&us_mutex);
	save();
	slurm_mutex_unlock(&us_mutex);
}

void mfs_usage_reconfig(void *list)
{
	assoc_mgr_lock_t locks = {.assoc = WRITE_LOCK, .qos = WRITE_LOCK,
				  .tres = READ_LOCK};
	ListIterator it;
	job_record_t *job_ptr;

	if (!list || !assoc_mgr_assoc_list || !assoc_mgr_qos_list)
		return;
	slurm_mutex_lock(&us_mutex);
	if (us.last) {
		assoc_mgr_lock(&locks);
		it = list_iterator_create((List) list);
		while ((job_ptr = list_next(it)))
			if (IS_JOB_RUNNING(job_ptr) && job_ptr->assoc_ptr &&
			    job_ptr->start_time &&
			    job_ptr->start_time < us.last)
				give_back_before_last(job_ptr);
		list_iterator_destroy(it);
		assoc_mgr_unlock(&locks);
	}
	/* a reconfigure before the first pass after a restart: the pass need
	 * not give it back again */
	us.recovered = false;
	slurm_mutex_unlock(&us_mutex);
}

void mfs_usage_fini(void)
{
	xfree(us.done);
	us.done_count = us.done_cap = 0;
}
