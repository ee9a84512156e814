// SPDX-License-Identifier: GPL-2.0
/*
 * `vmtrace hmtt`'s stream sections (hmtt_streams.h; docs/analysis/hmtt.md):
 * scr, the stream coverage rate at several windows in three views, what
 * virtual memory and interleaving take from it, and the strides of the
 * streams; prefetch, a modelled sequential prefetcher's prefetch rate on
 * the merged stream and on each process's alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hmtt_streams.h"
#include "analysis_command.h"
#include "cmd_util.h"

#define CMD	"hmtt"

void hmtt_streams_defaults(struct hmtt_streams_options *s)
{
	memset(s, 0, sizeof(*s));
	s->scr_windows[0] = HMTT_DEFAULT_SCR_WINDOW;
	s->nr_scr_windows = 1;
	s->prefetch_trackers = HMTT_DEFAULT_PREFETCH_TRACKERS;
	s->prefetch_degree = HMTT_DEFAULT_PREFETCH_DEGREE;
}

/* --scr-window W[,W...]: 0, or -1 having said why not. */
static int parse_scr_windows(struct hmtt_streams_options *s, const char *arg)
{
	unsigned int w[HMTT_MAX_SCR_WINDOWS], n = 0, i;
	const char *p = arg, *comma;
	char item[32];
	long long v;

	for (;;) {
		comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (!len) {
			fprintf(stderr, "vmtrace %s: --scr-window: an empty window in '%s'\n", CMD,
				arg);
			return -1;
		}
		if (n == HMTT_MAX_SCR_WINDOWS) {
			fprintf(stderr, "vmtrace %s: --scr-window: more than %u windows in '%s'\n",
				CMD, HMTT_MAX_SCR_WINDOWS, arg);
			return -1;
		}
		if (len >= sizeof(item)) {
			fprintf(stderr, "vmtrace %s: bad --scr-window '%.*s' (%d..%d)\n", CMD,
				(int)len, p, VMT_SCR_MIN_WINDOW, VMT_SCR_MAX_WINDOW);
			return -1;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		v = parse_number(CMD, "--scr-window", item, VMT_SCR_MIN_WINDOW,
				 VMT_SCR_MAX_WINDOW);
		if (v < 0)
			return -1;
		for (i = 0; i < n; i++) {
			if (w[i] == (unsigned int)v) {
				fprintf(stderr, "vmtrace %s: --scr-window: window %lld given twice\n",
					CMD, v);
				return -1;
			}
		}
		w[n++] = (unsigned int)v;
		if (!comma)
			break;
		p = comma + 1;
	}
	memcpy(s->scr_windows, w, sizeof(w));
	s->nr_scr_windows = n;
	return 0;
}

int hmtt_streams_option(struct hmtt_streams_options *s, int opt, const char *arg)
{
	long long n;

	switch (opt) {
	case HMTT_STREAMS_OPT_SCR_WINDOW:
		return parse_scr_windows(s, arg) ? -1 : 1;
	case HMTT_STREAMS_OPT_PREFETCH_TRACKERS:
		n = parse_number(CMD, "--prefetch-trackers", arg, 1, VMT_PREFETCH_MAX_TRACKERS);
		if (n < 0)
			return -1;
		s->prefetch_trackers = (unsigned int)n;
		return 1;
	case HMTT_STREAMS_OPT_PREFETCH_DEGREE:
		n = parse_number(CMD, "--prefetch-degree", arg, 1, VMT_PREFETCH_MAX_DEGREE);
		if (n < 0)
			return -1;
		s->prefetch_degree = (unsigned int)n;
		return 1;
	}
	return 0;
}

/*
 * A group: one analysis made of several, each handed every record (the
 * library's SCR and prefetcher read records alone) and finished in turn.
 * Under --per-process, each process's group is made alike, so the tables
 * read a group the same way whoever's it is.
 */
struct group {
	struct vmt_analysis analysis;
	unsigned int n;
	bool bounded;		/* scr's: --addr bounds the views of the pass's space alone */
	struct vmt_analysis *parts[];
};

static const struct group *to_group(const struct vmt_analysis *a)
{
	return (const struct group *)a;
}

static int group_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	struct group *g = (struct group *)a;
	int err;

	for (unsigned int i = 0; i < g->n; i++) {
		err = g->parts[i]->ops->reference(g->parts[i], ref);
		if (err)
			return err;
	}
	return 0;
}

static int group_record(struct vmt_analysis *a, const struct vmt_record *rec)
{
	struct group *g = (struct group *)a;
	int err;

	for (unsigned int i = 0; i < g->n; i++) {
		if (!g->parts[i]->ops->record)
			continue;
		err = g->parts[i]->ops->record(g->parts[i], rec);
		if (err)
			return err;
	}
	return 0;
}

static int group_finish(struct vmt_analysis *a)
{
	struct group *g = (struct group *)a;
	int err;

	for (unsigned int i = 0; i < g->n; i++) {
		err = vmt_analysis_finish(g->parts[i]);
		if (err)
			return err;
	}
	return 0;
}

static void group_destroy(struct vmt_analysis *a)
{
	struct group *g = (struct group *)a;

	for (unsigned int i = 0; i < g->n; i++)
		vmt_analysis_destroy(g->parts[i]);
	free(g);
}

static const struct vmt_analysis_ops group_ops = {
	.name = "hmtt-streams",
	.reference = group_reference,
	.record = group_record,
	.finish = group_finish,
	.destroy = group_destroy,
};

static struct group *group_new(unsigned int n)
{
	struct group *g = calloc(1, sizeof(*g) + n * sizeof(g->parts[0]));

	if (g)
		g->analysis.ops = &group_ops;
	return g;
}

/* scr's three views, a window's parts in this order. */
enum { SCR_VIRTUAL, SCR_PHYSICAL_PROCESS, SCR_PHYSICAL, SCR_VIEWS };
static const char *const scr_views[SCR_VIEWS] = { "virtual", "physical-process", "physical" };
_Static_assert(SCR_VIEWS == HMTT_SCR_VIEWS, "hmtt_streams.h's count of scr's views");

int hmtt_scr_create(struct vmt_analysis **analysis, const struct hmtt_streams_options *s,
		    const struct vmt_ref_options *pass)
{
	static const struct {
		enum vmt_ref_space space;
		enum vmt_scr_rings rings;
	} views[SCR_VIEWS] = {
		{ VMT_REF_VIRTUAL, VMT_SCR_RINGS_PROCESS },
		{ VMT_REF_PHYSICAL, VMT_SCR_RINGS_PROCESS },
		{ VMT_REF_PHYSICAL, VMT_SCR_RINGS_MERGED },
	};
	struct group *g = group_new(SCR_VIEWS * s->nr_scr_windows);
	int err = 0;

	if (!g)
		return -ENOMEM;
	g->bounded = pass->addr_lo || pass->addr_hi;
	for (unsigned int w = 0; w < s->nr_scr_windows && !err; w++) {
		for (unsigned int v = 0; v < SCR_VIEWS && !err; v++) {
			struct vmt_ref_options o = { .space = views[v].space, .unit = pass->unit,
						     .source = pass->source };

			/* --addr is of the pass's space: it bounds the views in that one. */
			if (o.space == pass->space) {
				o.addr_lo = pass->addr_lo;
				o.addr_hi = pass->addr_hi;
			}
			err = vmt_scr_create_rings(&g->parts[g->n], &o, s->scr_windows[w],
						   views[v].rings);
			if (!err)
				g->n++;
		}
	}
	if (err) {
		group_destroy(&g->analysis);
		return err;
	}
	*analysis = &g->analysis;
	return 0;
}

/* prefetch's two views, in this order. */
enum { PREFETCH_MERGED, PREFETCH_PER_PROCESS, PREFETCH_VIEWS };
static const char *const prefetch_views[PREFETCH_VIEWS] = { "merged", "per-process" };
_Static_assert(PREFETCH_VIEWS == HMTT_PREFETCH_VIEWS, "hmtt_streams.h's count of prefetch's views");

int hmtt_prefetch_create(struct vmt_analysis **analysis, const struct hmtt_streams_options *s,
			 const struct vmt_ref_options *options)
{
	struct group *g = group_new(PREFETCH_VIEWS);
	int err = 0;

	if (!g)
		return -ENOMEM;
	for (unsigned int v = 0; v < PREFETCH_VIEWS && !err; v++) {
		struct vmt_prefetch_config config = {
			.trackers = s->prefetch_trackers,
			.degree = s->prefetch_degree,
			.per_process = v == PREFETCH_PER_PROCESS,
		};

		err = vmt_prefetch_create(&g->parts[g->n], options, &config);
		if (!err)
			g->n++;
	}
	if (err) {
		group_destroy(&g->analysis);
		return err;
	}
	*analysis = &g->analysis;
	return 0;
}

/* @part of @of in percent: 0 when @of is 0. */
static double relative(double part, double of)
{
	return of != 0.0 ? 100.0 * part / of : 0.0;
}

static void print_scr_rates(const struct group *g, const struct hmtt_streams_options *s,
			    bool csv, bool *first)
{
	char c[2][32];

	print_table_title(csv, first, "stream coverage rate (SCR, after Mohan et al.): references in fixed-stride\n"
		    "streams within a window of W references, in three views:\n"
		    "  virtual:          virtual addresses, a window a process (the program's view)\n"
		    "  physical-process: physical addresses, a window a process (a memory controller\n"
		    "                    that knew each reference's process)\n"
		    "  physical:         physical addresses, one window over all processes merged\n"
		    "                    (the memory bus's view, HMTT's)");
	if (csv)
		printf("space,window,references,covered,scr_pct\n");
	else
		printf("  %6s %-16s %14s %14s %8s\n", "window", "space", "references", "in_streams",
		       "SCR");
	for (unsigned int w = 0; w < s->nr_scr_windows; w++) {
		for (unsigned int v = 0; v < SCR_VIEWS; v++) {
			const struct vmt_analysis *a = g->parts[w * SCR_VIEWS + v];
			const struct vmt_scr_result *r = vmt_scr_result(a);

			if (csv)
				printf("%s,%u,%llu,%llu,%.4f\n", scr_views[v], s->scr_windows[w],
				       (unsigned long long)r->references,
				       (unsigned long long)r->covered, vmt_scr_rate(a));
			else if (!r->references)
				printf("  %6u %-16s %14s %14s %8s%s\n", s->scr_windows[w],
				       scr_views[v], "0", "0", "-",
				       v ? "  (no reference names a frame)" : "");
			else
				printf("  %6u %-16s %14s %14s %7.2f%%\n", s->scr_windows[w],
				       scr_views[v], fmt_count(r->references, c[0]),
				       fmt_count(r->covered, c[1]), vmt_scr_rate(a));
		}
	}
}

/* What virtual memory and interleaving take from SCR, a row a window. */
static void print_scr_lost(const struct group *g, const struct hmtt_streams_options *s,
			   bool csv, bool *first)
{
	/* Without physical addresses there is nothing to compare. */
	if (!vmt_scr_result(g->parts[SCR_PHYSICAL])->references)
		return;
	/*
	 * Nor under --addr: its bounds select references in the pass's space
	 * alone, so the views would count different references.
	 */
	if (g->bounded) {
		if (!csv)
			printf("  (SCR lost: not under --addr, whose bounds select the references of\n"
			       "  the views in its space alone: the views count different references)\n");
		return;
	}
	print_table_title(csv, first, "SCR lost, in points of SCR, and in percent of the SCR it is lost from:\n"
		    "  to virtual memory: lost_vm = virtual - physical-process,\n"
		    "                     lost_vm% = lost_vm / virtual\n"
		    "  to interleaving:   lost_interleave = physical-process - physical,\n"
		    "                     lost_interleave% = lost_interleave / physical-process\n"
		    "  (HMTT's Figure 10 and 13(b); below 0: the later view finds more streams)");
	if (csv)
		printf("window,virtual_pct,physical_process_pct,physical_pct,lost_vm_points,lost_vm_pct,lost_interleave_points,lost_interleave_pct\n");
	else
		printf("  %6s %8s %9s %9s %8s %9s %16s %17s\n", "window", "virtual", "phys-proc",
		       "physical", "lost_vm", "lost_vm%", "lost_interleave", "lost_interleave%");
	for (unsigned int w = 0; w < s->nr_scr_windows; w++) {
		double v = vmt_scr_rate(g->parts[w * SCR_VIEWS + SCR_VIRTUAL]);
		double pp = vmt_scr_rate(g->parts[w * SCR_VIEWS + SCR_PHYSICAL_PROCESS]);
		double p = vmt_scr_rate(g->parts[w * SCR_VIEWS + SCR_PHYSICAL]);

		if (csv)
			printf("%u,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", s->scr_windows[w], v, pp, p,
			       v - pp, relative(v - pp, v), pp - p, relative(pp - p, pp));
		else
			printf("  %6u %7.2f%% %8.2f%% %8.2f%% %8.2f %8.2f%% %16.2f %16.2f%%\n",
			       s->scr_windows[w], v, pp, p, v - pp, relative(v - pp, v), pp - p,
			       relative(pp - p, pp));
	}
}

/* "lo" or "lo..hi" */
static const char *fmt_stride(const struct vmt_scr_stride_bucket *b, char buf[80])
{
	char c[2][32];

	if (b->lo == b->hi)
		snprintf(buf, 80, "%s", fmt_count(b->lo, c[0]));
	else
		snprintf(buf, 80, "%s..%s", fmt_count(b->lo, c[0]), fmt_count(b->hi, c[1]));
	return buf;
}

/* The strides at the first window, a table of each view's non-empty buckets. */
static void print_scr_strides(const struct group *g, const struct hmtt_streams_options *s,
			      enum vmt_ref_unit unit, bool csv, bool *first)
{
	char title[512], c[3][32], range[80];

	snprintf(title, sizeof(title), "strides of the streams (HMTT's Figure 12(a)), at the window of %u: each\n"
		 "reference that completes a stream (the last of a triple) counted once, with\n"
		 "the stride of its triple whose middle reference is the latest, in %s;\n"
		 "by |stride|, forward (> 0) and backward (< 0); percent of the view's\n%s",
		 s->scr_windows[0], unit == VMT_REF_LINE ? "64-byte lines" : "4 KiB pages",
		 "completing references");
	print_table_title(csv, first, title);
	if (csv)
		printf("space,window,stride_lo,stride_hi,count,forward,backward,percent,cumulative_percent\n");
	else
		printf("  %-16s %23s %14s %14s %14s %8s %11s\n", "space", "|stride|", "count",
		       "forward", "backward", "percent", "cumulative");
	for (unsigned int v = 0; v < SCR_VIEWS; v++) {
		const struct vmt_analysis *a = g->parts[v];
		const struct vmt_scr_stride_bucket *b = vmt_scr_strides(a);
		uint64_t all = vmt_scr_result(a)->completing, cumulative = 0;

		if (!all && !csv)
			printf("  %-16s %23s\n", scr_views[v], "(no stream)");
		for (unsigned int i = 0; i < VMT_SCR_STRIDE_BUCKETS; i++) {
			uint64_t n = b[i].forward + b[i].backward;

			if (!n)
				continue;
			cumulative += n;
			if (csv)
				printf("%s,%u,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f\n", scr_views[v],
				       s->scr_windows[0], (unsigned long long)b[i].lo,
				       (unsigned long long)b[i].hi, (unsigned long long)n,
				       (unsigned long long)b[i].forward,
				       (unsigned long long)b[i].backward, percent_of(n, all),
				       percent_of(cumulative, all));
			else
				printf("  %-16s %23s %14s %14s %14s %7.2f%% %10.2f%%\n", scr_views[v],
				       fmt_stride(&b[i], range), fmt_count(n, c[0]),
				       fmt_count(b[i].forward, c[1]), fmt_count(b[i].backward, c[2]),
				       percent_of(n, all), percent_of(cumulative, all));
		}
	}
}

void hmtt_scr_print(const struct vmt_analysis *scr, const struct hmtt_streams_options *s,
		    enum vmt_ref_unit unit, bool csv, bool *first)
{
	const struct group *g = to_group(scr);

	print_scr_rates(g, s, csv, first);
	print_scr_lost(g, s, csv, first);
	print_scr_strides(g, s, unit, csv, first);
}

void hmtt_prefetch_print(const struct vmt_analysis *prefetch,
			 const struct hmtt_streams_options *s,
			 const struct vmt_ref_options *options, bool csv, bool *first)
{
	const char *const *views = prefetch_views;
	const struct group *g = to_group(prefetch);
	const char *where, *space = options->space == VMT_REF_PHYSICAL ? "physical" : "virtual";
	double rate[PREFETCH_VIEWS];
	char title[1024], c[8][32];

	if (options->space == VMT_REF_PHYSICAL)
		where = "its physical address (its frame's)";
	else if (options->source == VMT_REF_EXACT)
		where = "its virtual address, a stand-in for the physical one\n"
			"(exact accesses have no frame)";
	else
		where = "its virtual address, a stand-in for the physical one (--space virtual)";
	snprintf(title, sizeof(title), "prefetch rate (HMTT's formula (2) and Figure 13(c)): a sequential prefetcher\n"
		 "at the memory controller, modelled: %u trackers (LRU); a stream confirmed at %u\n"
		 "contiguous lines (+1 each), then prefetched %u line%s ahead; an access to a line\n"
		 "prefetched is served, not sent to DRAM; a repeat of a tracker's last line is\n"
		 "neither. rate = prefetches / dram_accesses, dram_accesses = demand + prefetches,\n"
		 "accuracy = served / prefetches, coverage = served / (accesses - repeats).\n"
		 "Each reference a 64-byte line at %s.\n"
		 "merged: every process's accesses through one table (the bus); per-process:\n"
		 "a table a process, each alone (as on a core of its own)",
		 s->prefetch_trackers, VMT_PREFETCH_CONFIRM, s->prefetch_degree,
		 s->prefetch_degree == 1 ? "" : "s", where);
	print_table_title(csv, first, title);
	if (csv)
		printf("view,space,trackers,degree,accesses,no_frame,repeats,served,demand,prefetches,dram_accesses,streams,prefetch_rate_pct,accuracy_pct,coverage_pct\n");
	else
		printf("  %-11s %14s %12s %14s %14s %14s %14s %7s %9s %9s\n", "view", "accesses",
		       "repeats", "served", "demand", "prefetches", "dram_accesses", "rate",
		       "accuracy", "coverage");
	for (unsigned int v = 0; v < PREFETCH_VIEWS; v++) {
		const struct vmt_prefetch_result *r = vmt_prefetch_result(g->parts[v]);
		uint64_t dram = r->demand + r->prefetches, asked = r->accesses - r->repeats;

		rate[v] = vmt_prefetch_rate(g->parts[v]);
		if (csv) {
			printf("%s,%s,%u,%u,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%.4f\n",
			       views[v], space, s->prefetch_trackers, s->prefetch_degree,
			       (unsigned long long)r->accesses, (unsigned long long)r->no_frame,
			       (unsigned long long)r->repeats, (unsigned long long)r->served,
			       (unsigned long long)r->demand, (unsigned long long)r->prefetches,
			       (unsigned long long)dram, (unsigned long long)r->streams, rate[v],
			       percent_of(r->served, r->prefetches), percent_of(r->served, asked));
			continue;
		}
		printf("  %-11s %14s %12s %14s %14s %14s %14s %6.2f%% %8.2f%% %8.2f%%\n", views[v],
		       fmt_count(r->accesses, c[0]), fmt_count(r->repeats, c[1]),
		       fmt_count(r->served, c[2]), fmt_count(r->demand, c[3]),
		       fmt_count(r->prefetches, c[4]), fmt_count(dram, c[5]), rate[v],
		       percent_of(r->served, r->prefetches), percent_of(r->served, asked));
	}
	if (csv)
		return;
	{
		const struct vmt_prefetch_result *r = vmt_prefetch_result(g->parts[PREFETCH_MERGED]);

		printf("  lost to interleaving: per-process rate - merged rate = %.2f points\n",
		       rate[PREFETCH_PER_PROCESS] - rate[PREFETCH_MERGED]);
		if (options->source != VMT_REF_EXACT)
			printf("  (reference records are pages touched, a line each: pages in order are\n"
			       "  64 lines apart, no +1 line stream; exact accesses, or cachesim --emit's\n"
			       "  bus traffic, give every line)\n");
		if (r->no_frame)
			printf("  %s references without a frame passed over%s\n",
			       fmt_count(r->no_frame, c[0]), r->accesses ? "" :
			       ": none names one (--space virtual: virtual addresses as a stand-in)");
	}
}

const char *hmtt_scr_view_name(unsigned int v)
{
	return scr_views[v];
}

const struct vmt_analysis *hmtt_scr_view(const struct vmt_analysis *scr, unsigned int w,
					 unsigned int v)
{
	return to_group(scr)->parts[w * SCR_VIEWS + v];
}

const char *hmtt_prefetch_view_name(unsigned int v)
{
	return prefetch_views[v];
}

const struct vmt_analysis *hmtt_prefetch_view(const struct vmt_analysis *prefetch,
					      unsigned int v)
{
	return to_group(prefetch)->parts[v];
}
