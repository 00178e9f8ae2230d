/*
 * mfprio_slurm_conf.h - the adapter's conf side (slurm_conf.cpp), callable
 * from C: reads slurm.conf with mfprio's own reader (common/conf: Include,
 * file:line, the same pairs mfprio-host reads) and turns it into the host
 * table a family's init() gets.  Nothing here touches Slurm's structures.
 *
 * PriorityParameters=family=NAME[,mfprio_plugin_dir=DIR][,mfprio_store=PATH]
 *                    [,mfprio_pass_interval=SECONDS][,rest]
 *   family             the mfprio family: basic, multifactor, maui, moab,
 *                      gridengine, flux (priority_NAME.so)
 *   mfprio_plugin_dir  where priority_NAME.so is (default: mfprio's install
 *                      directory, compiled in)
 *   mfprio_pass_interval  seconds between the adapter's passes (default:
 *                      PriorityCalcPeriod, which Slurm keeps in whole
 *                      minutes; the family still reads PriorityCalcPeriod)
 *   mfprio_store       the family's SQLite store (AccountingStorageLoc for
 *                      the family; default: mfprio.db in StateSaveLocation)
 *   rest               the family's own PriorityParameters, in order
 * PriorityType is given to the family as priority/NAME; every other pair
 * as written, with its file and line.
 */
#ifndef MFPRIO_SLURM_CONF_H
#define MFPRIO_SLURM_CONF_H

#include <mfprio/mfprio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct mfs_conf mfs_conf_t;

/* Reads `path` (slurm.conf).  NULL on failure with a one-line message
 * naming file:line and key in err. */
mfs_conf_t *mfs_conf_load(const char *path, char *err, size_t errlen);
void mfs_conf_free(mfs_conf_t *c);
const char *mfs_conf_family(const mfs_conf_t *c);     /* "maui" */
const char *mfs_conf_plugin_dir(const mfs_conf_t *c); /* "" when not given */
unsigned mfs_conf_pass_interval(const mfs_conf_t *c);   /* 0 when not given */
/* Fills the conf pairs and cluster totals of *host (struct_size, abi
 * version, log and clock are the caller's).  Pointers stay valid until
 * mfs_conf_free. */
void mfs_conf_fill_host(const mfs_conf_t *c, mfprio_host_t *host);

#ifdef __cplusplus
}
#endif
#endif
