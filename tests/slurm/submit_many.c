/*
 * submit_many.c - a measurement aid for bench_locks.py (issue 20, item 8):
 * submits N batch jobs to the cluster of SLURM_CONF through libslurm's
 * slurm_submit_batch_job, from T threads, with no sbatch process per job
 * (sbatch costs ~18 ms of process start and option parsing per job here,
 * so 10^5 jobs took over 30 minutes; the RPC alone is what slurmctld sees).
 *
 *   submit_many N THREADS USER[,USER...]
 *
 * Run as root (SlurmUser): each job is submitted for one of the users (by
 * uid and gid), round robin.  Job i: partition "debug,batch" when i % 10 ==
 * 0, else "batch" (odd i) or "debug"; 1 + i % 4 tasks; 10 + i % 50
 * minutes; the script `sleep 60`, output to /dev/null, in /tmp (the same
 * queue bench_locks.py built with sbatch).  Prints the count submitted and
 * failed; exit 1 when any submission failed (the first error is printed).
 * GPL-2.0-or-later, like host-shim/slurm (it includes Slurm's headers).
 */
#include <pthread.h>
#include <pwd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "slurm/slurm.h"
#include "slurm/slurm_errno.h"

static struct {
	long n;
	long next;
	long failed;
	int first_errno;
	long first_job;
	uid_t uid[16];
	gid_t gid[16];
	int users;
	pthread_mutex_t mutex;
} g = {.mutex = PTHREAD_MUTEX_INITIALIZER, .first_job = -1};

static long take(void)
{
	long i;

	pthread_mutex_lock(&g.mutex);
	i = g.next < g.n ? g.next++ : -1;
	pthread_mutex_unlock(&g.mutex);
	return i;
}

static void *worker(void *arg)
{
	char *env[] = {"PATH=/usr/bin:/bin", "HOME=/tmp"};
	char script[] = "#!/bin/sh\nsleep 60\n";
	long i;

	(void) arg;
	while ((i = take()) >= 0) {
		job_desc_msg_t d;
		submit_response_msg_t *resp = NULL;
		int u = (int) (i % g.users);
		char name[32];

		slurm_init_job_desc_msg(&d);
		snprintf(name, sizeof(name), "bench%ld", i);
		d.name = name;
		d.script = script;
		d.environment = env;
		d.env_size = 2;
		d.user_id = g.uid[u];
		d.group_id = g.gid[u];
		d.work_dir = "/tmp";
		d.std_out = "/dev/null";
		d.partition = i % 10 == 0 ? "debug,batch" :
			(i % 2 ? "batch" : "debug");
		d.num_tasks = (uint32_t) (1 + i % 4);
		d.min_cpus = d.num_tasks;
		d.min_nodes = 1;
		d.time_limit = (uint32_t) (10 + i % 50);
		if (slurm_submit_batch_job(&d, &resp) != SLURM_SUCCESS) {
			pthread_mutex_lock(&g.mutex);
			if (!g.failed++) {
				g.first_errno = slurm_get_errno();
				g.first_job = i;
			}
			pthread_mutex_unlock(&g.mutex);
		}
		if (resp)
			slurm_free_submit_response_response_msg(resp);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t th[64];
	int threads;
	char *users, *save = NULL, *tok;

	if (argc != 4) {
		fprintf(stderr, "usage: submit_many N THREADS USER[,USER...]\n");
		return 2;
	}
	g.n = atol(argv[1]);
	threads = atoi(argv[2]);
	if (g.n < 0 || threads < 1 || threads > 64) {
		fprintf(stderr, "submit_many: N >= 0 and 1 <= THREADS <= 64\n");
		return 2;
	}
	users = strdup(argv[3]);
	for (tok = strtok_r(users, ",", &save); tok && g.users < 16;
	     tok = strtok_r(NULL, ",", &save)) {
		struct passwd *pw = getpwnam(tok);
		if (!pw) {
			fprintf(stderr, "submit_many: no user %s\n", tok);
			return 2;
		}
		g.uid[g.users] = pw->pw_uid;
		g.gid[g.users] = pw->pw_gid;
		g.users++;
	}
	free(users);
	if (!g.users) {
		fprintf(stderr, "submit_many: no user given\n");
		return 2;
	}
	slurm_init(NULL);
	for (int t = 0; t < threads; t++)
		pthread_create(&th[t], NULL, worker, NULL);
	for (int t = 0; t < threads; t++)
		pthread_join(th[t], NULL);
	printf("submitted %ld, failed %ld\n", g.n - g.failed, g.failed);
	if (g.failed)
		fprintf(stderr, "submit_many: job %ld: %s\n", g.first_job,
			slurm_strerror(g.first_errno));
	slurm_fini();
	return g.failed ? 1 : 0;
}
