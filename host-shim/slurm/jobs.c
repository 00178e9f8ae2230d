/*
 * jobs.c - see mfprio_slurm_jobs.h.  GPL-2.0-or-later (Slurm's headers).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <strings.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "src/common/list.h"
#include "src/common/read_config.h"
#include "src/common/log.h"
#include "src/common/slurm_protocol_defs.h"
#include "src/common/xstring.h"
#include "src/common/uid.h"
#include "src/common/xmalloc.h"
#include "src/slurmctld/slurmctld.h"

#include "mfprio_slurm_jobs.h"

/* What a record owns besides its mfprio_job_t. */
typedef struct {
	char *user, *group, *account, *partition, *qos;
	uint32_t job_id;
	uint32_t parts; /* at a job's first pending record: its record count */
} meta_t;

typedef struct {
	mfprio_job_t *jobs;
	meta_t *meta;
	size_t count, cap;
} recs_t;

struct mfs_batch {
	recs_t pending, running, ended;
	int64_t *end_times;
	uint32_t *priorities;
	int *statuses;
};

/* ---- names ---------------------------------------------------------------- */

/* Group names, looked up once per gid and kept for the process's life (as
 * uid_to_string_cached keeps user names): priority_p_set runs under the job
 * write lock and should not ask NSS every time. */
static pthread_mutex_t group_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct {
	gid_t gid;
	char *name;
} *groups;
static size_t group_count;

static const char *group_name(gid_t gid)
{
	const char *found = NULL;

	slurm_mutex_lock(&group_mutex);
	for (size_t i = 0; i < group_count && !found; i++)
		if (groups[i].gid == gid)
			found = groups[i].name;
	if (!found && group_count < 4096) {
		char *name = gid_to_string_or_null(gid);
		void *grown = realloc(groups, (group_count + 1) * sizeof(*groups));
		if (grown) {
			groups = grown;
			groups[group_count].gid = gid;
			groups[group_count].name = strdup(name ? name : "");
			found = groups[group_count].name;
			group_count++;
		}
		xfree(name);
	}
	slurm_mutex_unlock(&group_mutex);
	return found ? found : "";
}

/* ---- one record ------------------------------------------------------------ */

static uint64_t tres_of(const uint64_t *cnt, int idx)
{
	if (!cnt || cnt[idx] == NO_VAL64 || cnt[idx] == NO_CONSUME_VAL64 ||
	    cnt[idx] == INFINITE64)
		return 0;
	return cnt[idx];
}

/* Fills j from the job in partition part; strings point into Slurm's
 * memory (the caller copies them when it keeps the record). */
static void fill_job(mfprio_job_t *j, job_record_t *job_ptr,
		     part_record_t *part, uint16_t state)
{
	struct job_details *d = job_ptr->details;
	const uint64_t *tres = (state == MFPRIO_JOB_PENDING ||
				!job_ptr->tres_alloc_cnt) ?
		job_ptr->tres_req_cnt : job_ptr->tres_alloc_cnt;
	uint32_t limit = job_ptr->time_limit;

	memset(j, 0, sizeof(*j));
	j->struct_size = sizeof(*j);
	j->state = state;
	j->job_id = job_ptr->job_id;
	j->user = job_ptr->user_name ? job_ptr->user_name :
		uid_to_string_cached((uid_t) job_ptr->user_id);
	j->group = group_name((gid_t) job_ptr->group_id);
	j->account = job_ptr->account;
	j->partition = part ? part->name : NULL;
	j->qos = job_ptr->qos_ptr ? job_ptr->qos_ptr->name : NULL;
	if (d) {
		time_t eligible = d->accrue_time ? d->accrue_time :
			d->begin_time;
		j->submit_time = d->submit_time;
		if (job_ptr->state_reason == WAIT_DEPENDENCY) {
			j->flags |= MFPRIO_JOBF_DEPENDENT;
			eligible = 0;
		}
		j->eligible_time = eligible;
		j->min_nodes = d->min_nodes;
		j->nice = (int32_t) ((int64_t) d->nice - NICE_OFFSET);
		if (j->nice < 0)
			j->flags |= MFPRIO_JOBF_NICE_ADMIN;
	}
	if (state != MFPRIO_JOB_PENDING)
		j->start_time = job_ptr->start_time;
	if (job_ptr->deadline)
		j->deadline = job_ptr->deadline;
	j->cpus = (uint32_t) tres_of(tres, TRES_ARRAY_CPU);
	if (!j->cpus && d)
		j->cpus = d->min_cpus;
	j->mem_mb = tres_of(tres, TRES_ARRAY_MEM);
	if (limit == NO_VAL && part)
		limit = part->max_time;
	j->time_limit_min = (limit == NO_VAL || limit == INFINITE) ? 0 : limit;
	j->site_factor = (int32_t) ((int64_t) job_ptr->site_factor - NICE_OFFSET);
	if (job_ptr->priority && job_ptr->priority != NO_VAL &&
	    job_ptr->priority != INFINITE)
		j->prev_priority = job_ptr->priority;
	j->start_count = job_ptr->restart_cnt +
		(state == MFPRIO_JOB_PENDING ? 0 : 1);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Appends a copy of the job in part (strings owned by the batch). */
static void add(recs_t *r, job_record_t *job_ptr, part_record_t *part,
		uint16_t state)
{
	mfprio_job_t *j;
	meta_t *m;

	if (r->count == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 256;
		r->jobs = xrealloc(r->jobs, cap * sizeof(*r->jobs));
		r->meta = xrealloc(r->meta, cap * sizeof(*r->meta));
		r->cap = cap;
	}
	j = &r->jobs[r->count];
	m = &r->meta[r->count];
	fill_job(j, job_ptr, part, state);
	m->user = dup_or_null(j->user);
	m->group = dup_or_null(j->group);
	m->account = dup_or_null(j->account);
	m->partition = dup_or_null(j->partition);
	m->qos = dup_or_null(j->qos);
	m->job_id = job_ptr->job_id;
	m->parts = 1;
	j->user = m->user;
	j->group = m->group;
	j->account = m->account;
	j->partition = m->partition;
	j->qos = m->qos;
	r->count++;
}

static void recs_free(recs_t *r)
{
	for (size_t i = 0; i < r->count; i++) {
		free(r->meta[i].user);
		free(r->meta[i].group);
		free(r->meta[i].account);
		free(r->meta[i].partition);
		free(r->meta[i].qos);
	}
	xfree(r->jobs);
	xfree(r->meta);
}

static int part_count(job_record_t *job_ptr)
{
	return job_ptr->part_ptr_list ? list_count(job_ptr->part_ptr_list) : 0;
}

/* ---- the batch ----------------------------------------------------------- */

mfs_batch_t *mfs_batch_create(void)
{
	return xmalloc(sizeof(mfs_batch_t));
}

void mfs_batch_free(mfs_batch_t *b)
{
	if (!b)
		return;
	recs_free(&b->pending);
	recs_free(&b->running);
	recs_free(&b->ended);
	xfree(b->end_times);
	xfree(b->priorities);
	xfree(b->statuses);
	xfree(b);
}

static void add_pending(mfs_batch_t *b, job_record_t *job_ptr)
{
	size_t first = b->pending.count;

	if (part_count(job_ptr) > 1) {
		ListIterator it = list_iterator_create(job_ptr->part_ptr_list);
		part_record_t *part;
		while ((part = list_next(it)))
			add(&b->pending, job_ptr, part, MFPRIO_JOB_PENDING);
		list_iterator_destroy(it);
	} else {
		add(&b->pending, job_ptr, job_ptr->part_ptr,
		    MFPRIO_JOB_PENDING);
	}
	b->pending.meta[first].parts = (uint32_t) (b->pending.count - first);
}

void mfs_batch_scan(mfs_batch_t *b, void *list, time_t ends_since,
		    time_t now)
{
	ListIterator it;
	job_record_t *job_ptr;

	if (!list)
		return;
	it = list_iterator_create((List) list);
	while ((job_ptr = list_next(it))) {
		if (IS_JOB_PENDING(job_ptr)) {
			/* held (0) and admin-set priorities stay as they are */
			if (!job_ptr->details || !job_ptr->priority ||
			    job_ptr->direct_set_prio)
				continue;
			add_pending(b, job_ptr);
		} else if (IS_JOB_RUNNING(job_ptr) ||
			   IS_JOB_SUSPENDED(job_ptr)) {
			if (job_ptr->start_time > now)
				continue;
			add(&b->running, job_ptr, job_ptr->part_ptr,
			    IS_JOB_RUNNING(job_ptr) ? MFPRIO_JOB_RUNNING :
			    MFPRIO_JOB_SUSPENDED);
		} else if (IS_JOB_FINISHED(job_ptr) && job_ptr->start_time &&
			   job_ptr->end_time >= job_ptr->start_time &&
			   job_ptr->end_time >= ends_since &&
			   job_ptr->end_time <= now) {
			add(&b->ended, job_ptr, job_ptr->part_ptr,
			    MFPRIO_JOB_COMPLETED);
			b->end_times = xrealloc(b->end_times,
						b->ended.count *
						sizeof(int64_t));
			b->end_times[b->ended.count - 1] = job_ptr->end_time;
		}
	}
	list_iterator_destroy(it);
}

size_t mfs_batch_pending_count(const mfs_batch_t *b) { return b->pending.count; }
size_t mfs_batch_running_count(const mfs_batch_t *b) { return b->running.count; }
size_t mfs_batch_end_count(const mfs_batch_t *b) { return b->ended.count; }
const mfprio_job_t *mfs_batch_running(const mfs_batch_t *b) { return b->running.jobs; }
uint32_t mfs_batch_job_id(const mfs_batch_t *b, size_t i) { return b->pending.meta[i].job_id; }
size_t mfs_batch_part_count(const mfs_batch_t *b, size_t i) { return b->pending.meta[i].parts; }

int mfs_batch_charge_ends(mfs_batch_t *b, const mfprio_ops_t *ops)
{
	int rc = MFPRIO_ENOTSUP, first = MFPRIO_OK;

	if (ops->job_end_batch)
		rc = ops->job_end_batch(b->ended.jobs, b->ended.count,
					b->end_times);
	if (rc == MFPRIO_OK)
		return rc;
	if (!ops->job_end)
		return rc;
	for (size_t i = 0; i < b->ended.count; i++) {
		int one = ops->job_end(&b->ended.jobs[i], b->end_times[i]);
		if (one != MFPRIO_OK && first == MFPRIO_OK)
			first = one;
	}
	return first;
}

static uint32_t usable(uint32_t p, int status)
{
	/* 0 is Slurm's hold: a priced (or unpriceable) job gets at least 1 */
	return (status != MFPRIO_OK || p < 1) ? 1 : p;
}

int mfs_batch_price(mfs_batch_t *b, const mfprio_ops_t *ops, int64_t now)
{
	size_t n = b->pending.count;
	int rc = MFPRIO_OK;

	b->priorities = xcalloc(n, sizeof(uint32_t));
	b->statuses = xcalloc(n, sizeof(int));
	if (ops->prioritize)
		rc = ops->prioritize(b->pending.jobs, n, b->running.jobs,
				     b->running.count, now, b->priorities,
				     b->statuses);
	else if (ops->set_priority_batch)
		rc = ops->set_priority_batch(b->pending.jobs, n, now,
					     b->priorities, b->statuses);
	else
		for (size_t i = 0; i < n; i++) {
			b->statuses[i] = ops->set_priority(&b->pending.jobs[i],
							   now,
							   &b->priorities[i]);
			if (b->statuses[i] != MFPRIO_OK && rc == MFPRIO_OK)
				rc = b->statuses[i];
		}
	for (size_t i = 0; i < n; i++)
		b->priorities[i] = usable(b->priorities[i], b->statuses[i]);
	return rc;
}

/* The job's priorities, one per record, into job_ptr. */
static void store(job_record_t *job_ptr, const uint32_t *prio, size_t parts)
{
	uint32_t best = 0;

	for (size_t k = 0; k < parts; k++)
		if (prio[k] > best)
			best = prio[k];
	if (parts > 1) {
		job_ptr->priority_array = xrealloc(job_ptr->priority_array,
						   parts * sizeof(uint32_t));
		memcpy(job_ptr->priority_array, prio, parts * sizeof(uint32_t));
	}
	job_ptr->priority = best;
}

void mfs_store_job(mfs_batch_t *b, size_t i, struct job_record *job_ptr)
{
	size_t parts = b->pending.meta[i].parts;
	int now_parts = part_count(job_ptr);

	/* the partitions changed since the copy: next pass */
	if ((parts > 1 || now_parts > 1) && (size_t) now_parts != parts)
		return;
	store(job_ptr, &b->priorities[i], parts);
}

uint32_t mfs_price_now(struct job_record *job_ptr, const mfprio_ops_t *ops,
		       int64_t now)
{
	uint32_t prio[64], p = 0;
	size_t parts = 0;
	mfprio_job_t j;
	int rc;

	if (part_count(job_ptr) > 1) {
		ListIterator it = list_iterator_create(job_ptr->part_ptr_list);
		part_record_t *part;
		while ((part = list_next(it)) && parts < 64) {
			fill_job(&j, job_ptr, part, MFPRIO_JOB_PENDING);
			rc = ops->set_priority(&j, now, &p);
			prio[parts++] = usable(p, rc);
		}
		list_iterator_destroy(it);
		if (parts == (size_t) part_count(job_ptr)) {
			store(job_ptr, prio, parts);
			return job_ptr->priority;
		}
		/* more partitions than slots: one priority for all */
		xfree(job_ptr->priority_array);
	}
	fill_job(&j, job_ptr, job_ptr->part_ptr, MFPRIO_JOB_PENDING);
	rc = ops->set_priority(&j, now, &p);
	if (rc != MFPRIO_OK)
		debug("priority/mfprio: %pJ: %s", job_ptr,
		      ops->errmsg ? ops->errmsg() : "");
	return usable(p, rc);
}

/* ---- the published pass --------------------------------------------------- */

static void put_str(FILE *f, const char *key, const char *s)
{
	if (!s || !*s)
		return;
	fprintf(f, ",\"%s\":\"", key);
	for (; *s; s++) {
		unsigned char c = (unsigned char) *s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* One record in mfprio-host's job format; priority < 0: none (running). */
static void put_job(FILE *f, const mfprio_job_t *j, int64_t priority,
		    const char *family, int64_t now)
{
	fprintf(f, "{\"id\":%" PRIu64, j->job_id);
	put_str(f, "user", j->user);
	put_str(f, "group", j->group);
	put_str(f, "account", j->account);
	put_str(f, "partition", j->partition);
	put_str(f, "qos", j->qos);
	if (j->state != MFPRIO_JOB_PENDING)
		fprintf(f, ",\"state\":\"running\",\"start\":%" PRId64,
			j->start_time);
	fprintf(f,
		",\"submit\":%" PRId64 ",\"eligible\":%" PRId64
		",\"nodes\":%u,\"cpus\":%u,\"mem\":%" PRIu64
		",\"time_limit\":%u,\"nice\":%d,\"site_factor\":%d"
		",\"dependent\":%s,\"start_count\":%u",
		j->submit_time, j->eligible_time, j->min_nodes, j->cpus,
		j->mem_mb, j->time_limit_min, j->nice, j->site_factor,
		(j->flags & MFPRIO_JOBF_DEPENDENT) ? "true" : "false",
		j->start_count);
	if (priority >= 0)
		fprintf(f, ",\"_priority\":%" PRId64, priority);
	fprintf(f, ",\"_pass_time\":%" PRId64, now);
	put_str(f, "_family", family);
	fputs("}\n", f);
}

void mfs_batch_publish(const mfs_batch_t *b, const char *dir,
		       const char *family, int64_t now)
{
	char path[4096], tmp[4200];
	FILE *f;

	if (!dir || !*dir)
		return;
	snprintf(path, sizeof(path), "%s/mfprio-pass.jsonl", dir);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w"))) {
		debug("priority/mfprio: %s: %m", tmp);
		return;
	}
	for (size_t i = 0; i < b->pending.count; i++)
		put_job(f, &b->pending.jobs[i],
			b->priorities ? (int64_t) b->priorities[i] : 0,
			family, now);
	/* the running jobs the pass gave the family (whole-queue families
	 * price the pending ones against them) */
	for (size_t i = 0; i < b->running.count; i++)
		put_job(f, &b->running.jobs[i], -1, family, now);
	if (fclose(f) != 0 || rename(tmp, path) != 0) {
		debug("priority/mfprio: %s: %m", path);
		unlink(tmp);
	}
}

/* ---- sprio: the family's terms in Slurm's columns ------------------------ */

static void factors_free(void *x)
{
	priority_factors_object_t *o = x;
	xfree(o->partition);
	xfree(o->priority_tres);
	xfree(o);
}

/* The Slurm column a top-level term fills, by its name (Slurm's own factor
 * names, as priority/multifactor's terms are called); NULL: none, its
 * contribution goes to SITE with the rest. */
static double *slurm_slot(priority_factors_object_t *o, const char *name)
{
	static const struct {
		const char *name;
		size_t off;
	} slots[] = {
		{"age", offsetof(priority_factors_object_t, priority_age)},
		{"assoc", offsetof(priority_factors_object_t, priority_assoc)},
		{"fairshare", offsetof(priority_factors_object_t, priority_fs)},
		{"jobsize", offsetof(priority_factors_object_t, priority_js)},
		{"partition", offsetof(priority_factors_object_t, priority_part)},
		{"qos", offsetof(priority_factors_object_t, priority_qos)},
	};
	for (size_t i = 0; i < sizeof(slots) / sizeof(slots[0]); i++)
		if (!strcasecmp(name, slots[i].name))
			return (double *) ((char *) o + slots[i].off);
	return NULL;
}

/* One record: the named columns from the terms, SITE the rest, so that
 * sprio's PRIORITY (the columns' sum, truncated) is the priority. */
static priority_factors_object_t *factors_of(const mfprio_job_t *j,
					     job_record_t *job_ptr,
					     const mfprio_ops_t *ops,
					     int64_t now)
{
	priority_factors_object_t *o = xmalloc(sizeof(*o));
	mfprio_factors_t *f = xmalloc(sizeof(*f));
	uint32_t prio = 0;
	double mapped = 0.0, rest;
	int rc;

	o->job_id = job_ptr->job_id;
	o->user_id = job_ptr->user_id;
	o->partition = xstrdup(j->partition);
	o->nice = NICE_OFFSET;
	f->struct_size = sizeof(*f);
	if (ops->job_factors && ops->job_factors(j, now, f) == MFPRIO_OK) {
		prio = f->priority;
		for (uint32_t t = 0; t < f->term_count && t < MFPRIO_MAX_TERMS; t++) {
			const mfprio_term_t *term = &f->terms[t];
			double *slot;
			if (term->parent != -1)
				continue;
			slot = slurm_slot(o, term->name);
			if (slot) {
				*slot += term->contribution;
				mapped += term->contribution;
			}
		}
	} else {
		rc = ops->set_priority(j, now, &prio);
		if (rc != MFPRIO_OK)
			prio = 0;
	}
	prio = usable(prio, prio ? MFPRIO_OK : -1);
	/* SITE takes the rest, rounded up: the sum is in [prio, prio + 1).
	 * SITE holds at most 2^31 - 1 (it is stored offset by NICE_OFFSET);
	 * beyond that (Grid Engine's 32-bit keys) NICE, which sprio
	 * subtracts, carries the excess as a negative nice. */
	rest = ceil((double) prio - mapped - 1e-9);
	if (rest > (double) INT32_MAX) {
		o->priority_site = (uint32_t) ((int64_t) NICE_OFFSET + INT32_MAX);
		o->nice = (uint32_t) ((int64_t) NICE_OFFSET -
				      (int64_t) (rest - (double) INT32_MAX));
	} else {
		o->priority_site = (uint32_t) ((int64_t) NICE_OFFSET +
					       (int64_t) rest);
	}
	xfree(f);
	return o;
}

static int match_u32(void *x, void *key)
{
	return *(uint32_t *) x == *(uint32_t *) key;
}

static bool wanted(priority_factors_request_msg_t *req, job_record_t *job_ptr,
		   const char *partition)
{
	uint32_t id = job_ptr->job_id, uid = job_ptr->user_id;

	if (!req)
		return true;
	if (req->job_id_list && list_count(req->job_id_list) &&
	    !list_find_first(req->job_id_list, match_u32, &id))
		return false;
	if (req->uid_list && list_count(req->uid_list) &&
	    !list_find_first(req->uid_list, match_u32, &uid))
		return false;
	if (req->partitions && *req->partitions) {
		bool found = false;
		char *copy = xstrdup(req->partitions), *save = NULL, *tok;
		for (tok = strtok_r(copy, ",", &save); tok && !found;
		     tok = strtok_r(NULL, ",", &save))
			found = partition && !strcmp(tok, partition);
		xfree(copy);
		if (!found)
			return false;
	}
	return true;
}

static void add_factors(List out, priority_factors_request_msg_t *req,
			job_record_t *job_ptr, part_record_t *part,
			const mfprio_ops_t *ops, int64_t now)
{
	mfprio_job_t j;

	if (!wanted(req, job_ptr, part ? part->name : NULL))
		return;
	fill_job(&j, job_ptr, part, MFPRIO_JOB_PENDING);
	list_append(out, factors_of(&j, job_ptr, ops, now));
}

void *mfs_factors_list(void *list, void *req_arg,
		       const mfprio_ops_t *ops, int64_t now)
{
	priority_factors_request_msg_t *req = req_arg;
	List out = list_create(factors_free);
	ListIterator it;
	job_record_t *job_ptr;

	if (!list)
		return out;
	it = list_iterator_create((List) list);
	while ((job_ptr = list_next(it))) {
		time_t eligible;

		/* pending, not held; admin-set priorities are not the family's */
		if (!IS_JOB_PENDING(job_ptr) || !job_ptr->priority ||
		    job_ptr->direct_set_prio || !job_ptr->details)
			continue;
		/* not eligible yet (a begin time ahead): sprio leaves it out,
		 * as under priority/multifactor (PriorityFlags=ACCRUE_ALWAYS:
		 * eligible from its submission) */
		eligible = (slurm_conf.priority_flags &
			    PRIORITY_FLAGS_ACCRUE_ALWAYS) ?
			job_ptr->details->submit_time :
			job_ptr->details->begin_time;
		if (!eligible || eligible > (time_t) now)
			continue;
		if (part_count(job_ptr) > 1) {
			ListIterator pit =
				list_iterator_create(job_ptr->part_ptr_list);
			part_record_t *part;
			while ((part = list_next(pit)))
				add_factors(out, req, job_ptr, part, ops, now);
			list_iterator_destroy(pit);
		} else {
			add_factors(out, req, job_ptr, job_ptr->part_ptr, ops,
				    now);
		}
	}
	list_iterator_destroy(it);
	return out;
}
