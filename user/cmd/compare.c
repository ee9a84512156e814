// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace compare A B [--preset NAME] [--loops] [--surface] [--plot FILE]
 *
 * What a person asks of a synthetic trace (`vmtrace synth`) against the
 * trace it was profiled from: the hit rate of each level of each hierarchy
 * (PSnAP's ten by default) in both and the difference, the mean and worst
 * difference a level; with --loops the same per loop (A's loops, found as
 * `vmtrace profile` finds them); with --surface PSnAP's locality surfaces
 * of both, side by side (--plot: drawn by gnuplot, two maps side by side).
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/cachesim.h"
#include "vmtrace/profile.h"
#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"

enum { COMPARE_OPT_PRESET = 0x300, COMPARE_OPT_LOOPS, COMPARE_OPT_SURFACE, COMPARE_OPT_PLOT };

#define MAX_HIERARCHIES	32

void usage_compare(FILE *out)
{
	fputs("usage: vmtrace compare A B [--preset NAME] [--loops] [--surface] [--plot FILE]\n"
	      "  hit rates of A's and B's exact accesses (B: a synthetic trace of A's profile)\n"
	      "  at each level of each hierarchy, their differences, and the mean and worst\n"
	      "  difference a level\n"
	      "  --preset NAME    the hierarchies (default psnap: PSnAP's ten; `vmtrace\n"
	      "                   cachesim --help` lists them)\n"
	      "  --loops          the same per loop of A (as `vmtrace profile` finds them)\n"
	      "  --surface        PSnAP's locality surfaces of both: the share of accesses at\n"
	      "                   each stride and reuse distance\n"
	      "  --plot FILE      the two surfaces drawn side by side by gnuplot into FILE\n"
	      "                   (.svg or .png)\n", out);
}

struct sim_result {
	struct vmt_cachesim_row *rows;
	size_t nrows;
	uint64_t accesses;
};

/* A's loops: thread index and loop -> a number 1.. (0: outside every loop). */
struct loop_map {
	struct vmt_profile *p;
	uint32_t *base;		/* per thread: the number of its loop 0 */
	uint32_t n;		/* numbers given, 0 included */
};

static uint32_t loop_number(const struct loop_map *m, uint32_t tid, uint64_t ip)
{
	int t = vmt_profile_thread_of(m->p, tid), l;

	if (t < 0)
		return 0;
	l = vmt_profile_loop_of(m->p, (uint32_t)t, ip);
	return l < 0 ? 0 : m->base[t] + (uint32_t)l;
}

static int simulate(const char *path, const struct vmt_hierarchy_config *h, unsigned int nh,
		    const struct loop_map *loops, struct sim_result *res)
{
	struct vmt_cachesim_options o = { .cores = 1, .per_thread = loops != NULL };
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *r;
	struct vmt_trace_error err;
	struct vmt_cachesim *sim;
	struct vmt_trace *t;
	uint32_t stream;
	int ret;

	t = open_or_say("compare", path, 0);
	if (!t)
		return 1;
	vmt_trace_skip_values(t);	/* no decoding threads yet: it cannot fail */
	if (vmt_cachesim_create(&sim, h, nh, &o, &err)) {
		fprintf(stderr, "vmtrace compare: %s\n", err.message);
		vmt_trace_close(t);
		return 1;
	}
	res->accesses = 0;
	ret = vmt_trace_cursor_create(t, VMT_ORDER_TIME, &cursor);
	while (!ret && (ret = vmt_trace_cursor_next(cursor, &r, &stream)) == 1) {
		struct vmt_cache_access a;

		ret = 0;
		/* Data accesses, as profiles hold: instruction fetches left out. */
		if (r->hdr.type != VMT_REC_EXACT || r->exact.access == VMT_ACCESS_EXEC)
			continue;
		/*
		 * With --loops each access is counted under its loop's number in
		 * the tid's place: the simulator keeps its rows per tid, and tags
		 * its lines by pid, so the number changes no hit or miss.
		 */
		a = (struct vmt_cache_access){
			.addr = r->exact.addr, .ip = r->exact.ip,
			.size = r->exact.size ? r->exact.size : 1, .pid = r->hdr.pid,
			.tid = loops ? loop_number(loops, r->hdr.tid, r->exact.ip) : r->hdr.tid,
			.access = r->exact.access,
		};
		ret = vmt_cachesim_access(sim, &a);
		res->accesses++;
	}
	if (cursor)
		vmt_trace_cursor_free(cursor);
	if (ret < 0) {
		fprintf(stderr, "vmtrace compare: %s: %s\n", path,
			ret == -ENOMEM ? "out of memory" : vmt_trace_error_message(t));
		vmt_cachesim_destroy(sim);
		vmt_trace_close(t);
		return 1;
	}
	vmt_trace_close(t);
	if (!res->accesses) {
		fprintf(stderr, "vmtrace compare: %s: no exact accesses\n", path);
		vmt_cachesim_destroy(sim);
		return 1;
	}
	ret = vmt_cachesim_rows(sim, &res->rows, &res->nrows);
	vmt_cachesim_destroy(sim);
	if (ret) {
		fprintf(stderr, "vmtrace compare: out of memory\n");
		return 1;
	}
	return 0;
}

static const struct vmt_cachesim_row *find_row(const struct sim_result *s, unsigned int h,
					       const char *level, uint32_t id)
{
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].hierarchy == h && !s->rows[i].tlb && s->rows[i].id == id &&
		    !strcmp(s->rows[i].level, level))
			return &s->rows[i];
	return NULL;
}

static double hit_rate(const struct vmt_cachesim_row *r)
{
	return r && r->counts.accesses ? 100.0 * (double)r->counts.hits /
					 (double)r->counts.accesses : NAN;
}

/* The distinct level names of A's rows, in the order met. */
static unsigned int level_names(const struct sim_result *a, char names[][VMT_CACHE_NAME_MAX + 1])
{
	unsigned int n = 0;

	for (size_t i = 0; i < a->nrows; i++) {
		unsigned int k = 0;

		if (a->rows[i].tlb || a->rows[i].id != VMT_CACHESIM_ALL)
			continue;
		while (k < n && strcmp(names[k], a->rows[i].level))
			k++;
		if (k == n && n < 8)
			snprintf(names[n++], VMT_CACHE_NAME_MAX + 1, "%s", a->rows[i].level);
	}
	return n;
}

struct level_stats {
	double sum, worst;
	unsigned int n, worst_h;
};

/* The table for rows of @id (VMT_CACHESIM_ALL: the whole traces); @print: each row too. */
static void table(const struct sim_result *a, const struct sim_result *b,
		  const struct vmt_hierarchy_config *h, unsigned int nh, uint32_t id, bool print,
		  char names[][VMT_CACHE_NAME_MAX + 1], unsigned int nl, struct level_stats *st)
{
	for (unsigned int l = 0; l < nl; l++)
		st[l] = (struct level_stats){ 0 };
	for (unsigned int k = 0; k < nh; k++) {
		for (unsigned int l = 0; l < nl; l++) {
			const struct vmt_cachesim_row *ra = find_row(a, k, names[l], id);
			const struct vmt_cachesim_row *rb = find_row(b, k, names[l], id);
			double ha = hit_rate(ra), hb = hit_rate(rb), d = hb - ha;

			if (!ra || !ra->counts.accesses)
				continue;
			if (print)
				printf("%-12s %-5s %12llu %12llu %8.2f %8.2f %+8.2f\n", h[k].name,
				       names[l], (unsigned long long)ra->counts.accesses,
				       (unsigned long long)(rb ? rb->counts.accesses : 0), ha, hb, d);
			if (isnan(d))
				d = 100.0;	/* B never reached this level: the whole rate is off */
			st[l].sum += fabs(d);
			st[l].n++;
			if (fabs(d) >= st[l].worst) {
				st[l].worst = fabs(d);
				st[l].worst_h = k;
			}
		}
	}
}

/* The two surfaces as maps side by side, the share of accesses in each cell shaded. */
static int plot_surfaces(const struct vmt_locality_surface s[2], const char *path)
{
	char *data = NULL, *script = NULL;
	size_t dlen = 0, slen = 0;
	FILE *d = open_memstream(&data, &dlen), *g = d ? open_memstream(&script, &slen) : NULL;
	int ret;

	if (!d || !g) {
		if (d)
			fclose(d);
		fprintf(stderr, "vmtrace compare: --plot: out of memory\n");
		return 1;
	}
	for (unsigned int r = 0; r < VMT_PROFILE_STRIDE_BINS; r++)
		for (unsigned int c = 0; c < VMT_SURFACE_REUSE_BINS; c++)
			fprintf(d, "%u %u %.4f %.4f\n", c, r,
				100.0 * (double)s[0].cell[r][c] / (double)s[0].accesses,
				100.0 * (double)s[1].cell[r][c] / (double)s[1].accesses);
	fclose(d);
	fputs("set xtics (", g);
	for (unsigned int c = 0; c < VMT_SURFACE_REUSE_BINS; c++)
		fprintf(g, "%s'%s' %u", c ? ", " : "", vmt_surface_reuse_bin_name(c), c);
	fputs(") rotate by -60 font ',8'\nset ytics (", g);
	for (unsigned int r = 0; r < VMT_PROFILE_STRIDE_BINS; r++)
		fprintf(g, "%s'%s' %u", r ? ", " : "", vmt_profile_stride_bin_name(r), r);
	fputs(") font ',8'\nset xlabel 'reuse distance (64-byte lines)'\n"
	      "set ylabel 'stride (bytes)'\nset cblabel '% of accesses'\n"
	      "set logscale cb\nset cbrange [0.01:100]\nset palette rgb 21,22,23\n"
	      "set xrange [-0.5:17.5]\nset yrange [-0.5:19.5]\n"
	      "set multiplot layout 1,2\n"
	      "set title 'A (the trace)'\n"
	      "plot DATA using 1:2:($3 > 0 ? $3 : NaN) with image notitle\n"
	      "set title 'B (the synthetic trace)'\n"
	      "plot DATA using 1:2:($4 > 0 ? $4 : NaN) with image notitle\n"
	      "unset multiplot\n", g);
	fclose(g);
	ret = plot_with_gnuplot("compare", path, script, data);
	free(data);
	free(script);
	return ret;
}

static int show_surface(const char *a, const char *b, bool print, const char *plot)
{
	static struct vmt_locality_surface s[2];
	const char *paths[2] = { a, b };

	for (int i = 0; i < 2; i++) {
		struct vmt_trace_error err;
		struct vmt_trace *t = open_or_say("compare", paths[i], 0);

		if (!t)
			return 1;
		vmt_trace_skip_values(t);
		if (vmt_locality_surface(t, &s[i], &err)) {
			fprintf(stderr, "vmtrace compare: %s: %s\n", paths[i], err.message);
			vmt_trace_close(t);
			return 1;
		}
		vmt_trace_close(t);
	}
	if (plot && plot_surfaces(s, plot))
		return 1;
	if (!print)
		return 0;
	printf("\n# locality surfaces: %% of accesses at each stride (rows) and reuse distance "
	       "in lines (columns), A then B; cells under 0.01%% in both left blank\n");
	printf("%-7s %-8s", "stride", "trace");
	for (unsigned int c = 0; c < VMT_SURFACE_REUSE_BINS; c++)
		printf(" %7s", vmt_surface_reuse_bin_name(c));
	printf("\n");
	for (unsigned int r = 0; r < VMT_PROFILE_STRIDE_BINS; r++) {
		uint64_t row = 0;

		for (unsigned int c = 0; c < VMT_SURFACE_REUSE_BINS; c++)
			row += s[0].cell[r][c] + s[1].cell[r][c];
		if (!row)
			continue;
		for (int i = 0; i < 2; i++) {
			printf("%-7s %-8s", i ? "" : vmt_profile_stride_bin_name(r), i ? "B" : "A");
			for (unsigned int c = 0; c < VMT_SURFACE_REUSE_BINS; c++) {
				double pa = 100.0 * (double)s[0].cell[r][c] / (double)s[0].accesses;
				double pb = 100.0 * (double)s[1].cell[r][c] / (double)s[1].accesses;
				double v = i ? pb : pa;

				if (pa < 0.01 && pb < 0.01)
					printf(" %7s", "");
				else
					printf(" %7.2f", v);
			}
			printf("\n");
		}
	}
	return 0;
}

static int compare(const char *pa, const char *pb, const char *preset, bool per_loop,
		   bool surface, const char *plot)
{
	static struct vmt_hierarchy_config h[MAX_HIERARCHIES];
	char names[8][VMT_CACHE_NAME_MAX + 1];
	struct sim_result a = { 0 }, b = { 0 };
	struct loop_map loops = { 0 };
	struct level_stats st[8];
	unsigned int nh = 0, nl;
	char ca[32], cb[32];
	int status = 1;

	if (vmt_hierarchy_preset(preset, h, MAX_HIERARCHIES, &nh)) {
		fprintf(stderr, "vmtrace compare: --preset %s: no such preset (vmtrace cachesim "
			"--list-presets)\n", preset);
		return 2;
	}
	if (per_loop) {
		struct vmt_trace_error err;
		struct vmt_trace *t = open_or_say("compare", pa, 0);

		if (!t)
			return 1;
		vmt_trace_skip_values(t);
		if (vmt_profile_build(t, NULL, &loops.p, &err)) {
			fprintf(stderr, "vmtrace compare: %s: %s\n", pa, err.message);
			vmt_trace_close(t);
			return 1;
		}
		vmt_trace_close(t);
		loops.base = calloc(vmt_profile_nr_threads(loops.p), sizeof(*loops.base));
		if (!loops.base)
			goto out;
		loops.n = 1;
		for (uint32_t k = 0; k < vmt_profile_nr_threads(loops.p); k++) {
			struct vmt_profile_thread th;

			vmt_profile_thread(loops.p, k, &th);
			loops.base[k] = loops.n;
			loops.n += th.loops;
		}
	}
	if (simulate(pa, h, nh, per_loop ? &loops : NULL, &a) ||
	    simulate(pb, h, nh, per_loop ? &loops : NULL, &b))
		goto out;
	nl = level_names(&a, names);
	printf("# vmtrace compare: A %s (%s exact accesses), B %s (%s); preset %s: hit rates "
	       "(%%) a level, B - A\n", pa, fmt_count(a.accesses, ca), pb,
	       fmt_count(b.accesses, cb), preset);
	printf("%-12s %-5s %12s %12s %8s %8s %8s\n", "hierarchy", "level", "A accesses",
	       "B accesses", "A hit%", "B hit%", "diff");
	table(&a, &b, h, nh, VMT_CACHESIM_ALL, true, names, nl, st);
	printf("\n# per level, over the %u hierarchies: mean and worst |B - A| (points)\n", nh);
	for (unsigned int l = 0; l < nl; l++)
		if (st[l].n)
			printf("%-5s mean %6.2f  worst %6.2f (%s)\n", names[l], st[l].sum / st[l].n,
			       st[l].worst, h[st[l].worst_h].name);
	if (per_loop) {
		printf("\n# per loop of A: its share of A's accesses, then per level the mean and "
		       "worst |B - A| over the hierarchies (points)\n");
		printf("%-6s %-8s %-28s %8s", "thread", "loop", "ips", "share%");
		for (unsigned int l = 0; l < nl; l++)
			printf(" %6s-mean %6s-worst", names[l], names[l]);
		printf("\n");
		for (uint32_t k = 0; k < vmt_profile_nr_threads(loops.p); k++) {
			struct vmt_profile_thread th;

			vmt_profile_thread(loops.p, k, &th);
			for (uint32_t l = 0; l <= th.loops; l++) {
				/* l == th.loops: the accesses outside every loop (number 0) */
				uint32_t id = l < th.loops ? loops.base[k] + l : 0;
				struct vmt_profile_loop lp = { 0 };
				char ips[64];

				if (l < th.loops) {
					vmt_profile_loop(loops.p, k, l, &lp);
					snprintf(ips, sizeof(ips), "0x%llx-0x%llx",
						 (unsigned long long)lp.ip_lo,
						 (unsigned long long)lp.ip_hi);
				} else {
					if (k || !th.outside_loops)
						continue;	/* one row for every thread's */
					snprintf(ips, sizeof(ips), "outside loops");
				}
				table(&a, &b, h, nh, id, false, names, nl, st);
				char num[16] = "-";

				if (l < th.loops)
					snprintf(num, sizeof(num), "%u", l);
				printf("%-6u %-8s %-28s %8.2f", th.tid, num, ips,
				       100.0 * (double)(l < th.loops ? lp.accesses :
							th.outside_loops) / (double)a.accesses);
				for (unsigned int v = 0; v < nl; v++) {
					if (st[v].n)
						printf(" %11.2f %12.2f", st[v].sum / st[v].n,
						       st[v].worst);
					else
						printf(" %11s %12s", "-", "-");
				}
				printf("\n");
			}
		}
	}
	status = surface || plot ? show_surface(pa, pb, surface, plot) : 0;
out:
	free(a.rows);
	free(b.rows);
	free(loops.base);
	vmt_profile_free(loops.p);
	return status;
}

int cmd_compare(int argc, char **argv)
{
	static const struct option options[] = {
		{ "preset", required_argument, NULL, COMPARE_OPT_PRESET },
		{ "loops", no_argument, NULL, COMPARE_OPT_LOOPS },
		{ "surface", no_argument, NULL, COMPARE_OPT_SURFACE },
		{ "plot", required_argument, NULL, COMPARE_OPT_PLOT },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *preset = "psnap", *plot = NULL;
	bool per_loop = false, surface = false;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "h", options, NULL)) != -1) {
		switch (opt) {
		case COMPARE_OPT_PRESET:
			preset = optarg;
			break;
		case COMPARE_OPT_LOOPS:
			per_loop = true;
			break;
		case COMPARE_OPT_SURFACE:
			surface = true;
			break;
		case COMPARE_OPT_PLOT: {
			const char *dot = strrchr(optarg, '.');

			if (!dot || (strcmp(dot, ".svg") && strcmp(dot, ".png"))) {
				fprintf(stderr, "vmtrace compare: --plot: '%s' ends in neither .svg "
					"nor .png\n", optarg);
				return 2;
			}
			/* gnuplot gets it in single quotes. */
			if (strchr(optarg, '\'')) {
				fprintf(stderr, "vmtrace compare: --plot: a file name with a quote in it\n");
				return 2;
			}
			plot = optarg;
			break;
		}
		case 'h':
			usage_compare(stdout);
			return 0;
		default:
			usage_compare(stderr);
			return 2;
		}
	}
	if (optind != argc - 2) {
		usage_compare(stderr);
		return 2;
	}
	return compare(argv[optind], argv[optind + 1], preset, per_loop, surface, plot);
}
