// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-cachesim-bench TRACE [REPEAT]: the cache simulator's speed, for
 * scripts/bench-cachesim; a line "NAME VALUE" a figure, medians of REPEAT
 * (default 3) runs:
 *
 *   records          exact records in the trace
 *   read-s           one pass of vmt_analyze() over it, an analysis that
 *                    only counts the records: reading and decoding alone
 *   sim2-s           a two-level LRU hierarchy (L1 32k:8:64, LL 8M:16:64)
 *                    over the accesses held in memory: simulation alone
 *   sim2-nc-s        the same without the three Cs (--no-classify)
 *   psnap1-s         PSnAP's hierarchy 1 alone, in memory
 *   psnap-s          all ten PSnAP hierarchies in one pass, in memory
 *   plain-s          a plain two-level LRU simulator written for this bench
 *                    (an array of sets, a stamp a way, nothing else) over
 *                    the same accesses: the peer for sim2
 *   plain-l1-misses, sim2-l1-misses  the L1 misses each counted (the same
 *                    when both simulate the same thing)
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <vmtrace/cachesim.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return v[n / 2];
}

/* An analysis that keeps every exact record as an access (or only counts them). */
struct collect {
	struct vmt_analysis base;
	struct vmt_cache_access *a;
	size_t n, room;
	bool keep;
};

static int collect_record(struct vmt_analysis *analysis, const struct vmt_record *rec)
{
	struct collect *c = (struct collect *)analysis;
	struct vmt_cache_access *a;

	if (rec->hdr.type != VMT_REC_EXACT)
		return 0;
	if (!c->keep) {
		c->n++;
		return 0;
	}
	if (c->n == c->room) {
		size_t room = c->room ? 2 * c->room : 1 << 20;
		void *p = realloc(c->a, room * sizeof(*c->a));

		if (!p)
			return -ENOMEM;
		c->a = p;
		c->room = room;
	}
	a = &c->a[c->n++];
	memset(a, 0, sizeof(*a));
	a->addr = rec->exact.addr;
	a->ip = rec->exact.ip;
	a->size = rec->exact.size ? rec->exact.size : 1;
	a->pid = rec->hdr.pid;
	a->tid = rec->hdr.tid;
	a->access = rec->exact.access;
	return 0;
}

static int nothing(struct vmt_analysis *analysis, const struct vmt_ref *ref)
{
	(void)analysis;
	(void)ref;
	return 0;
}

static const struct vmt_analysis_ops collect_ops = {
	.name = "collect", .reference = nothing, .record = collect_record,
};

static int read_trace(const char *path, struct collect *c)
{
	struct vmt_ref_options ro = { 0 };
	struct vmt_analysis *an = &c->base;
	struct vmt_trace *t;
	struct vmt_trace_error terr;
	int ret = vmt_trace_open(&t, path, 0, &terr);

	if (ret) {
		fprintf(stderr, "vmt-cachesim-bench: %s: %s\n", path, terr.message);
		return ret;
	}
	c->base.ops = &collect_ops;
	ret = vmt_analyze(t, &ro, &an, 1, NULL);
	vmt_trace_close(t);
	return ret;
}

/* Seconds to simulate @n accesses in the hierarchies; the first row's misses in *@l1. */
static double simulate(const struct vmt_hierarchy_config *h, unsigned int nr,
		       const struct vmt_cache_access *a, size_t n, bool classify, uint64_t *l1)
{
	struct vmt_cachesim_options o = { .no_classify = !classify };
	struct vmt_trace_error err;
	struct vmt_cachesim *sim;
	struct vmt_cachesim_row *rows;
	size_t nrows, i;
	double t0, t;

	if (vmt_cachesim_create(&sim, h, nr, &o, &err)) {
		fprintf(stderr, "vmt-cachesim-bench: %s\n", err.message);
		exit(1);
	}
	t0 = now();
	for (i = 0; i < n; i++)
		if (vmt_cachesim_access(sim, &a[i]))
			exit(1);
	t = now() - t0;
	if (l1 && !vmt_cachesim_rows(sim, &rows, &nrows)) {
		*l1 = 0;
		for (i = 0; i < nrows; i++)
			if (!strcmp(rows[i].level, "L1D") || !strcmp(rows[i].level, "L1I") ||
			    !strcmp(rows[i].level, "L1"))
				*l1 += rows[i].counts.misses;
		free(rows);
	}
	vmt_cachesim_destroy(sim);
	return t;
}

/* The plain simulator: one LRU cache, sets of ways with a stamp each. */
struct plain {
	uint64_t *tag, *stamp, clock;
	unsigned int sets, ways, shift;
};

static void plain_init(struct plain *p, uint64_t size, unsigned int ways, unsigned int line)
{
	p->ways = ways;
	p->sets = (unsigned int)(size / line / ways);
	p->shift = (unsigned int)__builtin_ctz(line);
	p->tag = calloc((size_t)p->sets * ways, sizeof(*p->tag));
	p->stamp = calloc((size_t)p->sets * ways, sizeof(*p->stamp));
	p->clock = 0;
	if (!p->tag || !p->stamp)
		exit(1);
}

/* 1 on a miss. Tags are line + 1, so that 0 is an empty way. */
static int plain_ref(struct plain *p, uint64_t line)
{
	uint64_t *tag = p->tag + (size_t)(line % p->sets) * p->ways;
	uint64_t *stamp = p->stamp + (size_t)(line % p->sets) * p->ways;
	unsigned int w, lru = 0;

	for (w = 0; w < p->ways; w++) {
		if (tag[w] == line + 1) {
			stamp[w] = ++p->clock;
			return 0;
		}
		if (stamp[w] < stamp[lru])
			lru = w;
	}
	tag[lru] = line + 1;
	stamp[lru] = ++p->clock;
	return 1;
}

static double plain_run(const struct vmt_cache_access *a, size_t n, uint64_t *l1_misses)
{
	struct plain i1, d1, ll;
	uint64_t misses = 0;
	double t0, t;
	size_t k;

	plain_init(&i1, 32768, 8, 64);
	plain_init(&d1, 32768, 8, 64);
	plain_init(&ll, 8 << 20, 16, 64);
	t0 = now();
	for (k = 0; k < n; k++) {
		struct plain *l1 = a[k].access & VMT_ACCESS_EXEC ? &i1 : &d1;
		uint64_t first = a[k].addr >> 6, last = (a[k].addr + a[k].size - 1) >> 6, line;
		int miss = 0;

		for (line = first; line <= last; line++)
			if (plain_ref(l1, line)) {
				miss = 1;
				plain_ref(&ll, line);
			}
		misses += miss;
	}
	t = now() - t0;
	*l1_misses = misses;
	free(i1.tag), free(i1.stamp), free(d1.tag), free(d1.stamp), free(ll.tag), free(ll.stamp);
	return t;
}

int main(int argc, char **argv)
{
	struct vmt_hierarchy_config two = { .name = "two" }, psnap[10], psnap1[1];
	struct vmt_trace_error err;
	struct collect count = { .keep = false }, keep = { .keep = true };
	double read_s[9], s2[9], s2nc[9], p1[9], p10[9], plain[9];
	uint64_t l1_sim = 0, l1_plain = 0;
	unsigned int nr;
	int repeat = argc > 2 ? atoi(argv[2]) : 3, r;

	if (argc < 2 || argc > 3 || repeat < 1 || repeat > 9) {
		fprintf(stderr, "usage: vmt-cachesim-bench TRACE [REPEAT 1..9]\n");
		return 2;
	}
	if (vmt_hierarchy_add_cache_spec(&two, "L1=32k:8:64", &err) ||
	    vmt_hierarchy_add_cache_spec(&two, "LL=8M:16:64", &err) ||
	    vmt_hierarchy_preset("psnap", psnap, 10, &nr) ||
	    vmt_hierarchy_preset("psnap1", psnap1, 1, &nr)) {
		fprintf(stderr, "vmt-cachesim-bench: the hierarchies: %s\n", err.message);
		return 1;
	}
	if (read_trace(argv[1], &keep))
		return 1;
	for (r = 0; r < repeat; r++) {
		double t0 = now();

		count.n = 0;
		if (read_trace(argv[1], &count))
			return 1;
		read_s[r] = now() - t0;
		s2[r] = simulate(&two, 1, keep.a, keep.n, true, &l1_sim);
		s2nc[r] = simulate(&two, 1, keep.a, keep.n, false, NULL);
		p1[r] = simulate(psnap1, 1, keep.a, keep.n, true, NULL);
		p10[r] = simulate(psnap, 10, keep.a, keep.n, true, NULL);
		plain[r] = plain_run(keep.a, keep.n, &l1_plain);
	}
	printf("records %zu\n", keep.n);
	printf("read-s %.3f\n", median(read_s, repeat));
	printf("sim2-s %.3f\n", median(s2, repeat));
	printf("sim2-nc-s %.3f\n", median(s2nc, repeat));
	printf("psnap1-s %.3f\n", median(p1, repeat));
	printf("psnap-s %.3f\n", median(p10, repeat));
	printf("plain-s %.3f\n", median(plain, repeat));
	printf("sim2-l1-misses %llu\n", (unsigned long long)l1_sim);
	printf("plain-l1-misses %llu\n", (unsigned long long)l1_plain);
	free(keep.a);
	return 0;
}
