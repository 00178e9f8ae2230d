/*
 * mfprio_slurm_shares.h - the share numbers Slurm's association manager
 * shows in sshare (NormUsage, EffectvUsage, LevelFS, FairShare), computed
 * by mfprio's own fair-share algorithms (plugin/core: the classic,
 * depth-oblivious and Fair Tree rules of Slurm 22.05's priority/multifactor,
 * written from those rules), so that sshare under priority/mfprio shows
 * what it shows under priority/multifactor.  shares.cpp is mfprio's code
 * (no Slurm header); usage.c fills the nodes from assoc_mgr and writes the
 * results back.
 */
#ifndef MFPRIO_SLURM_SHARES_H
#define MFPRIO_SLURM_SHARES_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
	/* in */
	int32_t parent;       /* index of the direct parent; -1: root (node 0).
			       * A parent comes before its children. */
	uint8_t is_user;      /* a user association (a leaf) */
	uint8_t shares_parent; /* Fairshare=parent */
	double shares;        /* raw shares */
	double usage;         /* raw usage (accounts: summed from children) */
	/* out */
	double usage_norm;    /* usage / root's usage (capped at 1) */
	double usage_efctv;   /* the algorithm's effective usage */
	double level_fs;      /* Fair Tree's S / U (inf: no usage) */
	double fs_factor;     /* the algorithm's fair-share factor */
} mfs_share_node_t;

enum { MFS_SHARES_CLASSIC, MFS_SHARES_DEPTH_OBLIVIOUS, MFS_SHARES_FAIR_TREE };

/* Computes the out fields of nodes[0..n).  0, or -1 with a message in err
 * (a tree that breaks the order above). */
int mfs_shares_compute(mfs_share_node_t *nodes, size_t n, int algo,
		       double dampening, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif
#endif
