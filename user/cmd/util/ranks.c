// SPDX-License-Identifier: GPL-2.0
/* The processes one command runs as (ranks.h); alone unless vmtrace-mpi says otherwise. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ranks.h"

static unsigned int my_rank, nr_ranks = 1;
static const struct ranks_ops *ops;

void ranks_install(unsigned int rank, unsigned int size, const struct ranks_ops *o)
{
	my_rank = rank;
	nr_ranks = size;
	ops = o;
}

unsigned int ranks_rank(void)
{
	return my_rank;
}

unsigned int ranks_size(void)
{
	return nr_ranks;
}

int ranks_gather(const void *data, size_t size, void ***datas, size_t **sizes)
{
	if (ops)
		return ops->gather(data, size, datas, sizes);
	/* Alone: a copy of the one part. */
	*datas = malloc(sizeof(**datas));
	*sizes = malloc(sizeof(**sizes));
	if (*datas)
		**datas = malloc(size ? size : 1);
	if (!*datas || !*sizes || !**datas) {
		if (*datas)
			free(**datas);
		free(*datas);
		free(*sizes);
		return -ENOMEM;
	}
	memcpy(**datas, data, size);
	**sizes = size;
	return 0;
}

int ranks_agree(int status)
{
	return ops ? ops->agree(status) : status;
}

int ranks_narrow(const char *cmd, struct vmt_trace *t, const struct vmt_trace_filter *filter)
{
	struct vmt_trace_filter f = filter ? *filter : (struct vmt_trace_filter){ 0 };
	uint64_t *bounds, from, to;

	if (nr_ranks == 1)
		return 0;
	bounds = malloc((nr_ranks + 1) * sizeof(*bounds));
	if (!bounds) {
		fprintf(stderr, "vmtrace %s: out of memory\n", cmd);
		return -1;
	}
	if (vmt_trace_time_parts(t, nr_ranks, bounds)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, vmt_trace_error_message(t));
		free(bounds);
		return -1;
	}
	from = bounds[my_rank];
	to = my_rank + 1 == nr_ranks ? UINT64_MAX : bounds[my_rank + 1] - 1;
	free(bounds);
	if (my_rank + 1 < nr_ranks && from == to + 1)
		return 1;	/* [from, from): empty */
	/* Within the command's own --from and --to. */
	if (f.time_range) {
		from = f.from_time > from ? f.from_time : from;
		to = f.to_time < to ? f.to_time : to;
		if (from > to)
			return 1;
	}
	f.time_range = 1;
	f.from_time = from;
	f.to_time = to;
	if (vmt_trace_set_filter(t, &f)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, vmt_trace_error_message(t));
		return -1;
	}
	return 0;
}

int ranks_alone(const char *cmd)
{
	if (nr_ranks == 1)
		return 0;
	if (!my_rank)
		fprintf(stderr, "vmtrace %s: does not split its work among processes: run it alone, not under mpirun (%u processes)\n",
			cmd, nr_ranks);
	return -1;
}
