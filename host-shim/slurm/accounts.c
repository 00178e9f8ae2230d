/*
 * accounts.c - see mfprio_slurm_accounts.h.  GPL-2.0-or-later (Slurm's
 * headers).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "slurm/slurm.h"
#include "slurm/slurmdb.h"
#include "src/common/assoc_mgr.h"
#include "src/common/list.h"
#include "src/common/log.h"
#include "src/common/xmalloc.h"

#include "mfprio_slurm_accounts.h"

/* ---- the signature: one walk under the read lock, no allocation -------- */

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *c = p;
	for (size_t i = 0; i < n; i++) {
		h ^= c[i];
		h *= UINT64_C(0x100000001b3); /* FNV-1a */
	}
	return h;
}

static uint64_t mix_str(uint64_t h, const char *s)
{
	return s ? mix(h, s, strlen(s) + 1) : mix(h, "\xff", 1);
}

static const char *parent_of(slurmdb_assoc_rec_t *a)
{
	if (a->usage && a->usage->parent_assoc_ptr)
		return a->usage->parent_assoc_ptr->acct;
	return a->parent_acct;
}

static uint64_t signature_locked(void)
{
	uint64_t h = UINT64_C(0xcbf29ce484222325);
	ListIterator it;
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;

	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it))) {
		h = mix(h, &a->id, sizeof(a->id));
		h = mix(h, &a->shares_raw, sizeof(a->shares_raw));
		h = mix(h, &a->priority, sizeof(a->priority));
		h = mix(h, &a->is_def, sizeof(a->is_def));
		h = mix_str(h, a->user);
		h = mix_str(h, a->acct);
		h = mix_str(h, a->partition);
		h = mix_str(h, parent_of(a));
	}
	list_iterator_destroy(it);
	if (assoc_mgr_qos_list) {
		it = list_iterator_create(assoc_mgr_qos_list);
		while ((q = list_next(it))) {
			h = mix(h, &q->id, sizeof(q->id));
			h = mix(h, &q->priority, sizeof(q->priority));
			h = mix(h, &q->usage_factor, sizeof(q->usage_factor));
			h = mix_str(h, q->name);
		}
		list_iterator_destroy(it);
	}
	return h;
}

/* ---- the copy: every string owned by the copy, so the family is called
 * with no lock held --------------------------------------------------------- */

typedef struct {
	mfprio_assoc_t *assocs;
	size_t assoc_count;
	mfprio_qos_rec_t *qos;
	size_t qos_count;
} tree_t;

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static uint32_t slurm_u32(uint32_t v)
{
	return (v == NO_VAL || v == INFINITE) ? 0 : v;
}

static void copy_locked(tree_t *t)
{
	ListIterator it;
	slurmdb_assoc_rec_t *a;
	slurmdb_qos_rec_t *q;
	size_t n = (size_t) list_count(assoc_mgr_assoc_list), i = 0;

	t->assocs = xcalloc(n ? n : 1, sizeof(*t->assocs));
	it = list_iterator_create(assoc_mgr_assoc_list);
	while ((a = list_next(it)) && i < n) {
		mfprio_assoc_t *m = &t->assocs[i++];
		m->user = dup_or_null(a->user);
		m->account = dup_or_null(a->acct);
		m->parent = a->user ? NULL : dup_or_null(parent_of(a));
		m->partition = dup_or_null(a->partition);
		if (a->shares_raw == SLURMDB_FS_USE_PARENT) {
			m->flags |= MFPRIO_ASSOCF_SHARES_PARENT;
			m->shares = 0;
		} else {
			m->shares = slurm_u32(a->shares_raw);
		}
		m->priority = slurm_u32(a->priority);
		if (a->user && a->is_def == 1)
			m->flags |= MFPRIO_ASSOCF_DEFAULT;
	}
	list_iterator_destroy(it);
	t->assoc_count = i;

	if (!assoc_mgr_qos_list)
		return;
	n = (size_t) list_count(assoc_mgr_qos_list);
	i = 0;
	t->qos = xcalloc(n ? n : 1, sizeof(*t->qos));
	it = list_iterator_create(assoc_mgr_qos_list);
	while ((q = list_next(it)) && i < n) {
		mfprio_qos_rec_t *m = &t->qos[i++];
		m->name = dup_or_null(q->name);
		m->priority = slurm_u32(q->priority);
		m->usage_factor = (q->usage_factor >= 0.0) ?
			q->usage_factor : 1.0;
	}
	list_iterator_destroy(it);
	t->qos_count = i;
}

static void tree_free(tree_t *t)
{
	for (size_t i = 0; i < t->assoc_count; i++) {
		xfree(t->assocs[i].user);
		xfree(t->assocs[i].account);
		xfree(t->assocs[i].parent);
		xfree(t->assocs[i].partition);
	}
	for (size_t i = 0; i < t->qos_count; i++)
		xfree(t->qos[i].name);
	xfree(t->assocs);
	xfree(t->qos);
}

int mfs_accounts_sync(const mfprio_ops_t *ops, uint64_t *last, char *err,
		      size_t errlen)
{
	assoc_mgr_lock_t locks = {.assoc = READ_LOCK, .qos = READ_LOCK};
	mfprio_accounts_t acc;
	tree_t t = {0};
	uint64_t sig;
	int rc;

	if (!ops->set_accounts)
		return MFS_ACCOUNTS_SAME;
	if (!assoc_mgr_assoc_list)
		return MFS_ACCOUNTS_NOT_LOADED;
	assoc_mgr_lock(&locks);
	/* not loaded yet (slurmdbd not reached, no saved state): never hand
	 * the family an empty tree, which would delete its accounts */
	if (!assoc_mgr_root_assoc || !list_count(assoc_mgr_assoc_list)) {
		assoc_mgr_unlock(&locks);
		return MFS_ACCOUNTS_NOT_LOADED;
	}
	sig = signature_locked();
	if (sig == *last) {
		assoc_mgr_unlock(&locks);
		return MFS_ACCOUNTS_SAME;
	}
	copy_locked(&t);
	assoc_mgr_unlock(&locks);

	/* no lock held from here */
	memset(&acc, 0, sizeof(acc));
	acc.struct_size = sizeof(acc);
	acc.flags = MFPRIO_ACCOUNTSF_QOS;
	acc.assocs = t.assocs;
	acc.assoc_count = t.assoc_count;
	acc.assoc_size = sizeof(mfprio_assoc_t);
	acc.qos = t.qos;
	acc.qos_count = t.qos_count;
	acc.qos_size = sizeof(mfprio_qos_rec_t);
	acc.partition_size = sizeof(mfprio_partition_rec_t);
	rc = ops->set_accounts(&acc);
	if (rc == MFPRIO_OK) {
		*last = sig;
		snprintf(err, errlen, "%zu associations, %zu QOS",
			 t.assoc_count, t.qos_count);
	} else {
		const char *m = ops->errmsg ? ops->errmsg() : "";
		snprintf(err, errlen, "%s", (m && *m) ? m : "(no message)");
		/* a refused tree is sent again only when slurmdbd's changes;
		 * a failed write (the store) at the next pass */
		if (rc == MFPRIO_EINVAL)
			*last = sig;
	}
	tree_free(&t);
	return rc == MFPRIO_OK ? MFS_ACCOUNTS_SENT : MFS_ACCOUNTS_REFUSED;
}
