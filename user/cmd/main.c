// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace's main(). Started by mpirun as one of several processes (Open
 * MPI's OMPI_COMM_WORLD_SIZE, or PMI_SIZE as MPICH's launchers set it), it
 * becomes vmtrace-mpi, the same commands built with MPI (mpi_main.c), from
 * the folder it was run from; so vmtrace itself needs no MPI library.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"

static long mpi_processes(void)
{
	const char *size = getenv("OMPI_COMM_WORLD_SIZE");

	if (!size)
		size = getenv("PMI_SIZE");
	return size ? strtol(size, NULL, 10) : 1;
}

int main(int argc, char **argv)
{
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (mpi_processes() <= 1)
		return vmtrace_main(argc, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - sizeof("vmtrace-mpi"));
	slash = n > 0 ? memrchr(self, '/', (size_t)n) : NULL;
	if (slash) {
		strcpy(slash + 1, "vmtrace-mpi");
		execv(self, argv);
	}
	fprintf(stderr, "vmtrace: started by mpirun as one of %ld processes, but %s: %s (vmtrace-mpi is built where Open MPI's libopenmpi-dev is installed)\n",
		mpi_processes(), slash ? self : "/proc/self/exe", strerror(errno));
	return 1;
}
