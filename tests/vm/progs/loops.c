// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-loops KERNEL N [THREADS|STEPS]: a loop kernel over data at a fixed
 * address (DATA, mapped with MAP_FIXED_NOREPLACE), so that `vmtrace record
 * --exact` can name the data before the program runs (tests/vm/guest/loops.sh,
 * loops-real.sh, profile.sh):
 *
 *   matmul N [THREADS]  C = A B over N x N doubles (ijk: B walked by column),
 *                       the rows of C split among THREADS threads (default 1),
 *                       thread t pinned to the t-th CPU it may run on (mod
 *                       their number), as an MPI rank stays on its core
 *   stencil N           4 sweeps of a 5-point Jacobi stencil over N x N doubles
 *   triad N             STREAM's triad, a[i] = b[i] + s c[i], over N doubles, 4 times
 *   chase N [ROUNDS]    ROUNDS (default 1) times N steps of a pointer chase
 *                       through N lines linked in one random cycle (Sattolo's
 *                       shuffle of a fixed LCG)
 *   nbody N [STEPS]     STEPS (default 2) steps of an all-pairs n-body
 *                       integration: N bodies, an array of structs of 7
 *                       doubles (x, y, z, vx, vy, vz, m: 56 bytes, so bodies
 *                       straddle lines), each step a kick (every body's
 *                       velocity from the softened gravity of all N, itself
 *                       included: O(N^2) reads of x, y, z and m) then a drift
 *                       (positions from velocities): symplectic Euler
 *
 * Prints "data START-END" (the bytes it used) and "result R", a value that
 * depends on every element (so that nothing is optimized away).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <emmintrin.h>	/* sqrt without libm: the programs are not linked with -lm */

#include "prog.h"

#define DATA		0x10000000000UL
#define DATA_MAX	(64UL << 20)

static double *data_map(size_t bytes)
{
	void *p;

	if (bytes > DATA_MAX) {
		fprintf(stderr, "vmt-loops: %zu bytes, more than the %lu at DATA\n", bytes, DATA_MAX);
		exit(2);
	}
	p = mmap((void *)DATA, bytes, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)DATA)
		die("mmap at DATA");
	printf("data %#lx-%#lx\n", DATA, DATA + bytes);
	return p;
}

struct matmul {
	const double *a, *b;
	double *c;
	long n, first, last;	/* rows [first, last) */
	int cpu;		/* where it runs, or -1: anywhere */
};

/* The @t-th CPU of those this process may run on (mod their number), or -1. */
static int nth_cpu(long t)
{
	cpu_set_t set;
	int count, seen = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	count = CPU_COUNT(&set);
	for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
		if (CPU_ISSET(cpu, &set) && seen++ == t % count)
			return cpu;
	return -1;
}

static void *matmul_rows(void *arg)
{
	struct matmul *m = arg;
	long n = m->n;

	if (m->cpu >= 0) {
		cpu_set_t one;

		CPU_ZERO(&one);
		CPU_SET(m->cpu, &one);
		if (sched_setaffinity(0, sizeof(one), &one))
			die("sched_setaffinity");
	}

	for (long i = m->first; i < m->last; i++)
		for (long j = 0; j < n; j++) {
			double s = 0;

			for (long k = 0; k < n; k++)
				s += m->a[i * n + k] * m->b[k * n + j];
			m->c[i * n + j] = s;
		}
	return NULL;
}

static double matmul(long n, long threads)
{
	double *a, *b, *c, sum = 0;
	struct matmul part[64];
	pthread_t tid[64];

	if (threads < 1 || threads > 64 || threads > n) {
		fprintf(stderr, "vmt-loops: 1 to 64 threads, and no more than N\n");
		exit(2);
	}
	/* The inputs are written before tracing matters: the same every run. */
	a = data_map(3 * n * n * sizeof(double));
	b = a + n * n;
	c = b + n * n;
	for (long i = 0; i < n * n; i++) {
		a[i] = (double)(i % 7);
		b[i] = (double)(i % 5);
	}
	for (long t = 0; t < threads; t++) {
		part[t] = (struct matmul){ a, b, c, n, n * t / threads, n * (t + 1) / threads,
					   nth_cpu(t) };
		if (pthread_create(&tid[t], NULL, matmul_rows, &part[t]))
			die("pthread_create");
	}
	for (long t = 0; t < threads; t++)
		pthread_join(tid[t], NULL);
	for (long i = 0; i < n * n; i++)
		sum += c[i];
	return sum;
}

static double stencil(long n)
{
	double *u = data_map(2 * n * n * sizeof(double)), *v = u + n * n, *t, sum = 0;

	for (long i = 0; i < n * n; i++)
		u[i] = v[i] = (double)(i % 11);
	for (int sweep = 0; sweep < 4; sweep++) {
		for (long i = 1; i < n - 1; i++)
			for (long j = 1; j < n - 1; j++)
				v[i * n + j] = 0.2 * (u[i * n + j] + u[(i - 1) * n + j] +
						      u[(i + 1) * n + j] + u[i * n + j - 1] +
						      u[i * n + j + 1]);
		t = u;
		u = v;
		v = t;
	}
	for (long i = 0; i < n * n; i++)
		sum += u[i];
	return sum;
}

static double triad(long n)
{
	double *a = data_map(3 * n * sizeof(double)), *b = a + n, *c = b + n, sum = 0;

	for (long i = 0; i < n; i++) {
		b[i] = (double)i;
		c[i] = (double)(n - i);
	}
	for (int t = 0; t < 4; t++)
		for (long i = 0; i < n; i++)
			a[i] = b[i] + 3.0 * c[i];
	for (long i = 0; i < n; i++)
		sum += a[i];
	return sum;
}

struct node {
	struct node *next;
	long pad[7];
};

static double chase(long n, long rounds)
{
	struct node *nodes = (struct node *)data_map(n * sizeof(struct node)), *p;
	unsigned int *perm = malloc(n * sizeof(*perm));
	uint64_t x = 12345;
	long hops = 0;

	if (!perm)
		die("malloc");
	if (rounds < 1 || rounds > 1000) {
		fprintf(stderr, "vmt-loops: 1 to 1000 rounds\n");
		exit(2);
	}
	for (long i = 0; i < n; i++)
		perm[i] = (unsigned int)i;
	for (long i = n - 1; i > 0; i--) {	/* Sattolo: one cycle through every node */
		unsigned int t;
		long j;

		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		j = (long)((x >> 33) % (uint64_t)i);
		t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	for (long i = 0; i < n; i++)
		nodes[i].next = &nodes[perm[i]];
	free(perm);
	p = nodes;
	for (long i = 0; i < n * rounds; i++) {
		p = p->next;
		hops += p - nodes;
	}
	return (double)hops;
}

struct body {
	double x, y, z, vx, vy, vz, m;
};

static double inv_sqrt(double x)
{
	return 1.0 / _mm_cvtsd_f64(_mm_sqrt_sd(_mm_setzero_pd(), _mm_set_sd(x)));
}

static double nbody(long n, long steps)
{
	const double dt = 0.01, eps2 = 0.01;	/* time step, softening squared */
	struct body *b;
	double sum = 0;

	if (steps < 1 || steps > 1000) {
		fprintf(stderr, "vmt-loops: 1 to 1000 steps\n");
		exit(2);
	}
	b = (struct body *)data_map(n * sizeof(struct body));
	for (long i = 0; i < n; i++)	/* the same start every run: a lattice of sorts, at rest */
		b[i] = (struct body){ (double)(i % 7), (double)(i % 11), (double)(i % 13),
				      0, 0, 0, 1.0 + (double)(i % 3) };
	for (long s = 0; s < steps; s++) {
		/* Kick: the positions are only read until the drift. */
		for (long i = 0; i < n; i++) {
			double xi = b[i].x, yi = b[i].y, zi = b[i].z, ax = 0, ay = 0, az = 0;

			for (long j = 0; j < n; j++) {
				double dx = b[j].x - xi, dy = b[j].y - yi, dz = b[j].z - zi;
				double r = inv_sqrt(dx * dx + dy * dy + dz * dz + eps2);
				double f = b[j].m * r * r * r;

				ax += f * dx;
				ay += f * dy;
				az += f * dz;
			}
			b[i].vx += dt * ax;
			b[i].vy += dt * ay;
			b[i].vz += dt * az;
		}
		for (long i = 0; i < n; i++) {	/* drift */
			b[i].x += dt * b[i].vx;
			b[i].y += dt * b[i].vy;
			b[i].z += dt * b[i].vz;
		}
	}
	for (long i = 0; i < n; i++)
		sum += b[i].x + b[i].y + b[i].z + b[i].vx + b[i].vy + b[i].vz;
	return sum;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? strtol(argv[2], NULL, 0) : 0;
	double r;

	if (argc < 3 || n < 2 || n > 1 << 20) {
		fprintf(stderr, "usage: vmt-loops matmul|stencil|triad|chase|nbody N [THREADS|ROUNDS|STEPS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "matmul"))
		r = matmul(n, argc > 3 ? strtol(argv[3], NULL, 0) : 1);
	else if (!strcmp(argv[1], "stencil"))
		r = stencil(n);
	else if (!strcmp(argv[1], "triad"))
		r = triad(n);
	else if (!strcmp(argv[1], "chase"))
		r = chase(n, argc > 3 ? strtol(argv[3], NULL, 0) : 1);
	else if (!strcmp(argv[1], "nbody"))
		r = nbody(n, argc > 3 ? strtol(argv[3], NULL, 0) : 2);
	else {
		fprintf(stderr, "vmt-loops: unknown kernel '%s'\n", argv[1]);
		return 2;
	}
	printf("result %.17g\n", r);
	return 0;
}
