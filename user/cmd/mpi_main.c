// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace-mpi's main(): the vmtrace commands as one of the processes of an
 * MPI job (`mpirun -np K vmtrace stats TRACE` runs it: main.c). The
 * commands that split their work (util/ranks.h) talk through the two
 * collective calls below; every rank makes each call, in the same order.
 * Built only where MPI is installed (the Makefile asks for mpicc).
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <mpi.h>

#include "commands.h"
#include "util/ranks.h"

static int mpi_agree(int status)
{
	int worst = status;

	MPI_Allreduce(&status, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	return worst;
}

/* The parts' sizes at rank 0, then their bytes (MPI counts are ints: 2 GiB in all). */
static int mpi_gather(const void *data, size_t size, void ***datas, size_t **sizes)
{
	int rank, nr, *counts = NULL, *offsets = NULL, err = 0;
	uint64_t mine = size, *all = NULL, total = 0;
	uint8_t *bytes = NULL;

	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nr);
	*datas = NULL;
	*sizes = NULL;
	if (!rank && !(all = malloc(nr * sizeof(*all))))
		err = -ENOMEM;
	MPI_Gather(&mine, 1, MPI_UINT64_T, all, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	if (!rank && !err) {
		counts = malloc(nr * sizeof(*counts));
		offsets = malloc(nr * sizeof(*offsets));
		for (int i = 0; i < nr; i++)
			total += all[i];
		if (!counts || !offsets)
			err = -ENOMEM;
		else if (total > INT_MAX)
			err = -EFBIG;
		else if (!(bytes = malloc(total ? total : 1)))
			err = -ENOMEM;
		for (int i = 0, at = 0; !err && i < nr; at += counts[i++]) {
			counts[i] = (int)all[i];
			offsets[i] = at;
		}
	}
	err = -mpi_agree(-err);
	if (!err)
		MPI_Gatherv(data, (int)size, MPI_BYTE, bytes, counts, offsets, MPI_BYTE, 0,
			    MPI_COMM_WORLD);
	if (!rank && !err) {
		*datas = calloc(nr, sizeof(**datas));
		*sizes = malloc(nr * sizeof(**sizes));
		for (int i = 0; *datas && *sizes && i < nr; i++) {
			(*datas)[i] = malloc(all[i] ? all[i] : 1);
			if (!(*datas)[i])
				break;
			memcpy((*datas)[i], bytes + offsets[i], all[i]);
			(*sizes)[i] = all[i];
		}
		if (!*datas || !*sizes || !(*datas)[nr - 1]) {
			for (int i = 0; *datas && i < nr; i++)
				free((*datas)[i]);
			free(*datas);
			free(*sizes);
			*datas = NULL;
			*sizes = NULL;
			err = -ENOMEM;
		}
	}
	free(all);
	free(counts);
	free(offsets);
	free(bytes);
	return err;
}

static const struct ranks_ops mpi_ops = { .gather = mpi_gather, .agree = mpi_agree };

int main(int argc, char **argv)
{
	int rank, nr, ret;

	if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
		return 1;
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nr);
	ranks_install((unsigned int)rank, (unsigned int)nr, &mpi_ops);
	ret = vmtrace_main(argc, argv);
	MPI_Finalize();
	return ret;
}
