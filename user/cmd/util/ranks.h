/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ranks.c: the processes one command runs as. Alone, one; under MPI
 * (`mpirun -np K vmtrace ...`, which runs vmtrace-mpi: user/cmd/mpi_main.c)
 * K, numbered 0 to K-1, and rank 0 prints. A command that splits its work
 * narrows the trace to its rank's part by time (ranks_narrow()), packs
 * what it found, and rank 0 gathers the parts in rank order (ranks_gather())
 * and merges them; every rank learns whether any failed (ranks_agree()).
 */
#ifndef VMTRACE_CMD_RANKS_H
#define VMTRACE_CMD_RANKS_H

#include <stddef.h>

#include "vmtrace/trace.h"

/* How the processes talk: MPI's, installed by vmtrace-mpi's main(). */
struct ranks_ops {
	/*
	 * Every rank's @size bytes to rank 0: there, *@datas and *@sizes
	 * (malloc()ed, each part too) hold every rank's in rank order; on the
	 * others, NULL. 0 or -errno.
	 */
	int (*gather)(const void *data, size_t size, void ***datas, size_t **sizes);
	/* The greatest of every rank's @status, on every rank. */
	int (*agree)(int status);
};

void ranks_install(unsigned int rank, unsigned int size, const struct ranks_ops *ops);
unsigned int ranks_rank(void);
unsigned int ranks_size(void);
int ranks_gather(const void *data, size_t size, void ***datas, size_t **sizes);
int ranks_agree(int status);
/*
 * Make @t's filter @filter (the command's; NULL: none) narrowed to this
 * rank's part of the records by time (vmt_trace_time_parts()): 0, 1 when
 * the part is empty (read nothing), or -1 having said why not.
 */
int ranks_narrow(const char *cmd, struct vmt_trace *t, const struct vmt_trace_filter *filter);
/*
 * A command that does not split its work refuses to run as several
 * processes: 0 when alone, else -1 having said so (rank 0 alone says it).
 */
int ranks_alone(const char *cmd);

#endif
