// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace faults [-a] -- COMMAND [ARGS...]
 *
 * Runs COMMAND and counts its user page faults with a BPF program on the
 * exceptions:page_fault_user tracepoint (bpf/faults.bpf.c). With -a, counts
 * every process's while COMMAND runs. Exits with COMMAND's status.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "vmtrace/vmtrace.h"
#include "commands.h"
#include "util/spawn.h"
#include "faults.skel.h"

#define TOP_PROCESSES 20

struct pid_count {
	__u32 pid;
	struct vmt_bpf_fault_count count;
};

static void print_count(__u32 pid, const struct vmt_bpf_fault_count *c)
{
	printf("pid %u: %llu user page faults (%llu writes, %llu instruction fetches, %llu not present)\n",
	       pid, (unsigned long long)c->faults, (unsigned long long)c->writes,
	       (unsigned long long)c->instruction, (unsigned long long)c->not_present);
}

static int by_faults_desc(const void *a, const void *b)
{
	const struct pid_count *x = a, *y = b;

	return x->count.faults < y->count.faults ? 1 : x->count.faults > y->count.faults ? -1 : 0;
}

static int print_all(int map_fd)
{
	struct pid_count *all = NULL, *grown;
	size_t n = 0, cap = 0;
	__u32 key, next;
	__u32 *prev = NULL;

	while (bpf_map_get_next_key(map_fd, prev, &next) == 0) {
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			grown = realloc(all, cap * sizeof(*all));
			if (!grown) {
				free(all);
				return -ENOMEM;
			}
			all = grown;
		}
		if (bpf_map_lookup_elem(map_fd, &next, &all[n].count) == 0)
			all[n++].pid = next;
		key = next;
		prev = &key;
	}
	qsort(all, n, sizeof(*all), by_faults_desc);
	for (size_t i = 0; i < n && i < TOP_PROCESSES; i++)
		print_count(all[i].pid, &all[i].count);
	if (n > TOP_PROCESSES)
		printf("(%zu more processes)\n", n - TOP_PROCESSES);
	free(all);
	return 0;
}

void usage_faults(FILE *out)
{
	fputs("usage: vmtrace faults [-a] -- COMMAND [ARGS...]\n"
	      "  run COMMAND and count its user page faults with a BPF program\n"
	      "  -a               count every process's faults, not only COMMAND's\n", out);
}

int cmd_faults(int argc, char **argv)
{
	struct faults_bpf *skel;
	struct vmt_bpf_fault_count count;
	int all = 0, go_fd = -1, err, status, opt;
	pid_t pid;
	__u32 key;

	while ((opt = getopt(argc, argv, "+a")) != -1) {
		if (opt != 'a') {
			usage_faults(stderr);
			return 2;
		}
		all = 1;
	}
	if (optind >= argc) {
		usage_faults(stderr);
		return 2;
	}

	pid = spawn_held(argv + optind, &go_fd);
	if (pid < 0) {
		fprintf(stderr, "vmtrace faults: fork: %s\n", strerror((int)-pid));
		return 1;
	}
	skel = faults_bpf__open();
	if (!skel) {
		err = -errno;
		goto out_kill;
	}
	skel->rodata->target_tgid = all ? 0 : (__u32)pid;
	err = faults_bpf__load(skel);
	if (!err)
		err = faults_bpf__attach(skel);
	if (err)
		goto out_destroy;

	err = spawn_release(go_fd);
	go_fd = -1;
	if (err)
		goto out_destroy;
	status = spawn_wait(pid);
	faults_bpf__detach(skel);

	if (all) {
		err = print_all(bpf_map__fd(skel->maps.fault_counts));
	} else {
		key = (__u32)pid;
		memset(&count, 0, sizeof(count));
		/* No entry: the command never faulted in user mode. */
		bpf_map_lookup_elem(bpf_map__fd(skel->maps.fault_counts), &key, &count);
		print_count(key, &count);
	}
	faults_bpf__destroy(skel);
	if (err) {
		fprintf(stderr, "vmtrace faults: reading the counts: %s\n", strerror(-err));
		return 1;
	}
	return status;

out_destroy:
	faults_bpf__destroy(skel);
out_kill:
	if (go_fd >= 0)
		spawn_abandon(pid, go_fd);
	else
		spawn_wait(pid);
	fprintf(stderr, "vmtrace faults: loading the BPF program: %s\n", strerror(-err));
	return 1;
}
