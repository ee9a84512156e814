// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace cachesim TRACE: the trace's accesses through simulated cache
 * hierarchies and TLBs, several in one pass (docs/analysis/cachesim.md):
 * the hierarchies from --cache/--tlb, --config files and --preset names,
 * then one pass of libvmtrace's simulator, then a table (or CSV rows) a
 * hierarchy, the top instructions, a picture. Under MPI the hierarchies
 * are dealt out among the processes (run_dealt()).
 *
 * Outline, in the file's order: the usage and options (parse_cs_option()); --emit's
 * trace of the bus view (emit_begin(), emit_line(), emit_end()); the
 * numbers as people read them (kib(), geometry(), ratio()); the outputs
 * (print_csv(), print_header(), print_table(), print_top()) from the
 * results (take_results()); the results of several processes packed,
 * joined in one process's order (run_dealt()); the picture (plot()); the
 * options' checks; and the command (cmd_cachesim()).
 */
#include <errno.h>
#include <getopt.h>
#include <unistd.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/cachesim.h"
#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/ip_places.h"
#include "util/ranks.h"
#include "util/writer_options.h"
#include "base/pack.h"

#define MAX_HIERARCHIES	64

enum {
	CS_OPT_CACHE = 0x300, CS_OPT_TLB, CS_OPT_CONFIG, CS_OPT_PRESET, CS_OPT_CORES,
	CS_OPT_CORE_BY, CS_OPT_SEED, CS_OPT_PER_THREAD, CS_OPT_TOP, CS_OPT_BY_MARKER,
	CS_OPT_PREFETCH, CS_OPT_NO_CLASSIFY, CS_OPT_BATCH, CS_OPT_EMIT,
};

void usage_cachesim(FILE *out)
{
	unsigned int i;
	const char *name, *summary;

	fputs("usage: vmtrace cachesim [options] FILE\n"
	      "  the trace's accesses (exact records; or one a fault of a page-protection trace)\n"
	      "  through simulated caches and TLBs, every hierarchy in one pass\n"
	      "  --cache NAME=SIZE:ASSOC:LINE[:POLICY]\n"
	      "                     a cache level, from the core outward (SIZE with k, M, G;\n"
	      "                     ASSOC ways or 'full'; POLICY lru (default), fifo, random,\n"
	      "                     plru, srrip)\n"
	      "  --tlb NAME=ENTRIES:ASSOC[:POLICY]  a TLB level, from the core outward\n"
	      "  --prefetch         a next-line prefetcher in the --cache levels (default off)\n"
	      "  --config FILE      hierarchies from a file (docs/analysis/cachesim.md)\n"
	      "  --preset NAME      a preset's hierarchies, as often as wanted:\n",
	      out);
	for (i = 0; (name = vmt_hierarchy_preset_name(i, &summary)); i++)
		fprintf(out, "                       %-11s %s\n", name, summary);
	fputs("                     (none of the three: --preset cachegrind)\n"
	      "  --cores N          N cores with private caches (default 1): a record's core\n"
	      "                     is its CPU modulo N\n"
	      "  --core-by thread|cpu  each thread its own core in turn, or by CPU (default)\n"
	      "  --seed N           the random policy's seed (default 1)\n"
	      "  --per-thread       each thread's rows too (--per-process: each process's)\n"
	      "  --by-marker        a row set a phase between markers\n"
	      "  --top N            the N instructions with the most last-level misses\n"
	      "  --no-classify      leave out the three Cs (compulsory, capacity, conflict)\n"
	      "  -j, --threads N    threads that simulate, hierarchies dealt out among them\n"
	      "                     (default: one per CPU; the counts are the same)\n"
	      "  --batch N          accesses handed to the threads at a time (default 65536)\n"
	      "  --emit FILE        the bus view: a trace of what leaves the last level for\n"
	      "                     memory, one hierarchy's only, a line an exact record, in\n"
	      "                     the order of the accesses that caused them, with their\n"
	      "                     pid, tid, cpu, ip and time: each miss's fill (a read,\n"
	      "                     flag bus_fill), each dirty line's write-back (a write,\n"
	      "                     bus_writeback; at a write-through level each write\n"
	      "                     going on), each prefetch (a read, bus_prefetch); a\n"
	      "                     fill's victim's write-back comes after it. The writer's\n"
	      "                     options below choose its codec\n",
	      out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
	fputs(writer_options_usage, out);
}

/* --emit: the bus view of the one hierarchy, written as the simulation goes. */
struct cs_emit {
	const char *path;	/* NULL: no --emit */
	struct vmt_trace_writer_options wopts;
	struct vmt_trace_writer *w;
	uint64_t fills, writebacks, prefetches;
};

struct cs_run {
	struct analysis_options o;
	struct vmt_hierarchy_config h[MAX_HIERARCHIES];
	unsigned int nr_h;
	/* the --cache and --tlb hierarchy, "custom": its index, or -1 */
	int custom;
	bool prefetch;
	struct vmt_cachesim_options so;
	struct cs_emit emit;
};

static struct vmt_hierarchy_config *custom(struct cs_run *run)
{
	if (run->custom < 0) {
		if (run->nr_h == MAX_HIERARCHIES)
			return NULL;
		run->custom = (int)run->nr_h++;
		memset(&run->h[run->custom], 0, sizeof(run->h[0]));
		snprintf(run->h[run->custom].name, sizeof(run->h[0].name), "custom");
	}
	return &run->h[run->custom];
}

/* The whole of the file at @path, in *@len bytes (malloc()ed); NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "r");
	char *text = NULL;
	size_t room = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == room) {
			char *p = realloc(text, room ? 2 * room : 4096);

			if (!p) {
				free(text);
				fclose(f);
				errno = ENOMEM;
				return NULL;
			}
			text = p;
			room = room ? 2 * room : 4096;
		}
		got = fread(text + n, 1, room - n, f);
		n += got;
	} while (got);
	if (ferror(f)) {
		free(text);
		fclose(f);
		errno = EIO;
		return NULL;
	}
	fclose(f);
	*len = n;
	return text;
}

static int add_config_file(struct cs_run *run, const char *path)
{
	struct vmt_trace_error err = { { 0 } };
	unsigned int nr = 0, i;
	const char *base = strrchr(path, '/');
	char *text;
	size_t len;
	int ret;

	text = read_file(path, &len);
	if (!text) {
		fprintf(stderr, "vmtrace cachesim: %s: %s\n", path, strerror(errno));
		return -1;
	}
	ret = vmt_hierarchy_parse(text, len, &run->h[run->nr_h], MAX_HIERARCHIES - run->nr_h,
				  &nr, &err);
	free(text);
	if (ret) {
		unsigned int at;
		int n = 0;

		/* "line 7: what" as "FILE:7: what", as compilers name a line. */
		if (ret != -ENOSPC && sscanf(err.message, "line %u: %n", &at, &n) == 1 && n)
			fprintf(stderr, "vmtrace cachesim: %s:%u: %s\n", path, at, err.message + n);
		else
			fprintf(stderr, "vmtrace cachesim: %s: %s\n", path,
				ret == -ENOSPC ? "more hierarchies than 64" : err.message);
		return -1;
	}
	/* A file's hierarchy without a name of its own is named after the file. */
	base = base ? base + 1 : path;
	for (i = 0; i < nr; i++)
		if (!strcmp(run->h[run->nr_h + i].name, "config"))
			snprintf(run->h[run->nr_h + i].name, sizeof(run->h[0].name), "%.*s",
				 (int)strcspn(base, "."), base);
	run->nr_h += nr;
	return 1;
}

static int parse_cs_option(void *ctx, int opt, const char *arg)
{
	struct cs_run *run = ctx;
	struct vmt_trace_error err = { { 0 } };
	struct vmt_hierarchy_config *h;
	unsigned int nr;
	long long v;
	int ret;

	switch (opt) {
	case CS_OPT_CACHE:
	case CS_OPT_TLB:
		h = custom(run);
		if (!h) {
			fprintf(stderr, "vmtrace cachesim: more hierarchies than %d\n",
				MAX_HIERARCHIES);
			return -1;
		}
		ret = opt == CS_OPT_CACHE ? vmt_hierarchy_add_cache_spec(h, arg, &err) :
		      vmt_hierarchy_add_tlb_spec(h, arg, &err);
		if (ret) {
			fprintf(stderr, "vmtrace cachesim: %s %s: %s\n",
				opt == CS_OPT_CACHE ? "--cache" : "--tlb", arg, err.message);
			return -1;
		}
		return 1;
	case CS_OPT_CONFIG:
		return add_config_file(run, arg);
	case CS_OPT_PRESET:
		ret = vmt_hierarchy_preset(arg, &run->h[run->nr_h], MAX_HIERARCHIES - run->nr_h,
					   &nr);
		if (ret) {
			fprintf(stderr, "vmtrace cachesim: --preset %s: %s\n", arg,
				ret == -ENOENT ? "no such preset (vmtrace cachesim --help lists them)"
					       : "more hierarchies than 64");
			return -1;
		}
		run->nr_h += nr;
		return 1;
	case CS_OPT_CORES:
		v = parse_number("cachesim", "--cores", arg, 1, VMT_CACHE_MAX_CORES);
		if (v < 0)
			return -1;
		run->so.cores = (unsigned int)v;
		return 1;
	case CS_OPT_CORE_BY:
		if (strcmp(arg, "thread") && strcmp(arg, "cpu")) {
			fprintf(stderr, "vmtrace cachesim: --core-by: '%s' is neither thread nor cpu\n",
				arg);
			return -1;
		}
		run->so.core_by_thread = !strcmp(arg, "thread");
		return 1;
	case CS_OPT_SEED:
		v = parse_number("cachesim", "--seed", arg, 0, LLONG_MAX);
		if (v < 0)
			return -1;
		run->so.seed = (uint64_t)v;
		return 1;
	case CS_OPT_PER_THREAD:
		run->so.per_thread = true;
		return 1;
	case CS_OPT_TOP:
		v = parse_number("cachesim", "--top", arg, 1, 100000);
		if (v < 0)
			return -1;
		run->so.top = (unsigned int)v;
		return 1;
	case CS_OPT_BY_MARKER:
		run->so.by_marker = true;
		return 1;
	case CS_OPT_PREFETCH:
		run->prefetch = true;
		return 1;
	case CS_OPT_NO_CLASSIFY:
		run->so.no_classify = true;
		return 1;
	case CS_OPT_BATCH:
		v = parse_number("cachesim", "--batch", arg, 1, 1 << 24);
		if (v < 0)
			return -1;
		run->so.batch = (unsigned int)v;
		return 1;
	case CS_OPT_EMIT:
		run->emit.path = arg;
		return 1;
	case 'j':
		v = parse_number("cachesim", "--threads", arg, 1, 256);
		if (v < 0)
			return -1;
		/* The same threads decode the trace (the filter's -j). */
		run->so.threads = run->o.filter.threads = (unsigned int)v;
		return 1;
	}
	return parse_writer_option("cachesim", opt, arg, &run->emit.wopts);
}

/* A line leaving the last level (vmt_cachesim_bus()): an exact record of it. */
static int emit_line(void *ctx, const struct vmt_cachesim_bus *b)
{
	struct cs_emit *e = ctx;
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = VMT_REC_EXACT;
	r.hdr.time_ns = b->cause->time;
	r.hdr.pid = b->cause->pid;
	r.hdr.tid = b->cause->tid;
	r.hdr.cpu = b->cause->cpu;
	r.exact.addr = b->addr;
	r.exact.ip = b->cause->ip;
	r.exact.size = (uint16_t)b->size;	/* check_options(): at most 32 KiB */
	r.exact.access = b->access;
	r.exact.flags = b->flags;
	if (b->flags & VMT_EXACT_BUS_FILL)
		e->fills++;
	else if (b->flags & VMT_EXACT_BUS_PREFETCH)
		e->prefetches++;
	else
		e->writebacks++;
	return vmt_trace_writer_append_record(e->w, &r);
}

/* The writer of --emit's trace, and @sim's bus view going to it: 0, or 1 having said why not. */
static int emit_begin(struct cs_emit *e, struct vmt_cachesim *sim)
{
	struct vmt_trace_error err = { { 0 } };

	if (vmt_trace_writer_create(&e->w, e->path, &e->wopts, &err)) {
		fprintf(stderr, "vmtrace cachesim: --emit %s: %s\n", e->path, err.message);
		e->w = NULL;
		return 1;
	}
	if (vmt_cachesim_bus(sim, 0, emit_line, e)) {
		fprintf(stderr, "vmtrace cachesim: --emit: %s\n", strerror(EINVAL));
		return 1;
	}
	return 0;
}

/* The trace closed when the simulation went well (@ok), else left out; 0, or 1 having said why. */
static int emit_end(struct cs_emit *e, bool ok)
{
	struct vmt_trace_error err = { { 0 } };

	if (!e->w)
		return 0;
	if (!ok) {
		vmt_trace_writer_abandon(e->w);
		e->w = NULL;
		unlink(e->path);
		return 0;
	}
	ok = !vmt_trace_writer_close(e->w, &err);
	e->w = NULL;
	if (!ok) {
		fprintf(stderr, "vmtrace cachesim: --emit %s: %s\n", e->path, err.message);
		unlink(e->path);
		return 1;
	}
	return 0;
}

static const char *kib(uint64_t bytes, char buf[32])
{
	if (bytes >= 1048576 && bytes % 1048576 == 0)
		snprintf(buf, 32, "%" PRIu64 "M", bytes / 1048576);
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, 32, "%" PRIu64 "k", bytes / 1024);
	else
		snprintf(buf, 32, "%" PRIu64, bytes);
	return buf;
}

/* A level's geometry as its spec says it: "32k:8:64 lru" or "64:4 lru" for a TLB. */
static void geometry(const struct vmt_hierarchy_config *h, const char *level, bool tlb,
		     char *buf, size_t size)
{
	char sz[32], ways[16];
	unsigned int i;

	buf[0] = 0;
	if (tlb) {
		for (i = 0; i < h->nr_tlbs; i++) {
			const struct vmt_tlb_config *t = &h->tlbs[i];

			if (strcmp(t->name, level))
				continue;
			snprintf(ways, sizeof(ways), t->assoc ? "%u" : "full", t->assoc);
			snprintf(buf, size, "%u:%s %s", t->entries, ways,
				 vmt_cache_policy_name(t->policy));
		}
		return;
	}
	for (i = 0; i < h->nr_caches; i++) {
		const struct vmt_cache_config *c = &h->caches[i];
		size_t n = strlen(c->name);

		/* "L1I" and "L1D" are the halves of "L1". */
		if (strncmp(c->name, level, n) || (level[n] && (c->kind != VMT_CACHE_UNIFIED ||
								 level[n + 1])))
			continue;
		snprintf(ways, sizeof(ways), c->assoc ? "%u" : "full", c->assoc);
		snprintf(buf, size, "%s:%s:%u %s%s%s%s%s", kib(c->size, sz), ways, c->line,
			 vmt_cache_policy_name(c->policy), c->shared ? " shared" : "",
			 c->inclusion == VMT_CACHE_INCLUSIVE ? " inclusive" :
			 c->inclusion == VMT_CACHE_EXCLUSIVE ? " exclusive" : "",
			 c->write == VMT_CACHE_WRITE_THROUGH ? " write-through" : "",
			 c->prefetch ? " prefetch" : "");
	}
}

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

/* The instructions of the row set that starts at row @i: its instruction cache's accesses. */
static uint64_t instructions(const struct vmt_cachesim_row *rows, size_t n, size_t i)
{
	size_t k;

	for (k = i; k < n && rows[k].id == rows[i].id && rows[k].phase == rows[i].phase &&
		    rows[k].hierarchy == rows[i].hierarchy; k++)
		if (rows[k].fetch)
			return rows[k].counts.accesses;
	return 0;
}

static void print_csv(const struct cs_run *run, const struct vmt_cachesim_row *rows, size_t n,
		      const struct vmt_cachesim_totals *tot)
{
	const char *idcol = run->so.per_thread ? "tid," : run->o.per_process ? "pid," : "";
	size_t i, first = 0;
	uint64_t insns = 0;

	printf("%s%shierarchy,level,accesses,hits,misses,miss_ratio,read_misses,write_misses,"
	       "fetch_misses,compulsory,capacity,conflict,writebacks,writebacks_in,"
	       "invalidations,back_invalidations,prefetches,mpki\n",
	       run->so.by_marker ? "phase," : "", idcol);
	for (i = 0; i < n; i++) {
		const struct vmt_cachesim_row *r = &rows[i];
		const struct vmt_cache_counts *c = &r->counts;

		if (i == 0 || r->hierarchy != rows[first].hierarchy || r->id != rows[first].id ||
		    r->phase != rows[first].phase) {
			first = i;
			insns = tot->fetches ? instructions(rows, n, i) : 0;
		}
		if (run->so.by_marker)
			printf("%u,", r->phase);
		if (*idcol) {
			if (r->id == VMT_CACHESIM_ALL)
				printf("all,");
			else
				printf("%u,", r->id);
		}
		printf("%s,%s,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%.6f,%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
		       ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
		       run->h[r->hierarchy].name, r->level, c->accesses, c->hits, c->misses,
		       ratio(c->misses, c->accesses), c->read_misses, c->write_misses,
		       c->fetch_misses, c->compulsory, c->capacity, c->conflict, c->writebacks,
		       c->writebacks_in, c->invalidations, c->back_invalidations, c->prefetches);
		if (tot->fetches)
			printf("%.3f", insns ? 1000.0 * (double)c->misses / (double)insns : 0.0);
		printf("\n");
	}
}

static void print_header(const struct cs_run *run, const char *path,
			 const struct vmt_cachesim_totals *t)
{
	char a[32], b[32], c[32], d[32], e[32];
	unsigned int i, k;
	bool any_prefetch = false;

	printf("# vmtrace cachesim: %s\n", path);
	if (t->exact_records)
		printf("# %s accesses from %s exact records (%s page-end parts joined)\n",
		       fmt_count(t->accesses, a), fmt_count(t->exact_records, b),
		       fmt_count(t->merged_splits, c));
	if (t->reference_records)
		printf("# %s%s accesses from %s page-protection references: one access a fault "
		       "(the first access to a page that had left the enabled set), not every "
		       "access\n", t->exact_records ? "and " : "", fmt_count(t->reference_records, a),
		       fmt_count(t->reference_records, b));
	printf("# %s reads, %s writes, %s read-modify-writes, %s instruction fetches\n",
	       fmt_count(t->reads, a), fmt_count(t->writes, b), fmt_count(t->rmws, c),
	       fmt_count(t->fetches, d));
	if (t->out_of_range || t->no_frame)
		printf("# passed over: %s outside --addr, %s without a frame\n",
		       fmt_count(t->out_of_range, e), fmt_count(t->no_frame, a));
	printf("# %u core%s%s; level 1 %s\n", run->so.cores ? run->so.cores : 1,
	       run->so.cores > 1 ? "s" : "",
	       run->so.cores > 1 ? (run->so.core_by_thread ? ", a thread each in turn" :
				    ", a record's CPU modulo the cores") : "",
	       t->fetches ? "split into instruction and data halves (the trace fetches)" :
			    "unified (no instruction fetch in the trace)");
	for (i = 0; i < run->nr_h; i++)
		for (k = 0; k < run->h[i].nr_caches; k++)
			any_prefetch |= run->h[i].caches[k].prefetch;
	printf("# next-line prefetcher: %s\n", any_prefetch ?
	       "on where a level says 'prefetch'" :
	       "off (drcachesim's is on by default: compare with it turned off)");
	if (run->emit.path)
		printf("# bus view in %s: %s fills, %s write-backs, %s prefetches\n",
		       run->emit.path, fmt_count(run->emit.fills, a),
		       fmt_count(run->emit.writebacks, b), fmt_count(run->emit.prefetches, c));
}

static void print_table(const struct cs_run *run, const struct vmt_cachesim_row *rows, size_t n,
			const struct vmt_cachesim_totals *tot)
{
	size_t i, first = 0;
	uint64_t insns = 0;
	char geo[96], acc[32], mis[32];

	for (i = 0; i < n; i++) {
		const struct vmt_cachesim_row *r = &rows[i];
		const struct vmt_cache_counts *c = &r->counts;

		if (i == 0 || r->hierarchy != rows[first].hierarchy || r->id != rows[first].id ||
		    r->phase != rows[first].phase) {
			first = i;
			insns = tot->fetches ? instructions(rows, n, i) : 0;
			printf("\n%s", run->h[r->hierarchy].name);
			if (r->id != VMT_CACHESIM_ALL)
				printf(", %s %u", run->so.per_thread ? "thread" : "process", r->id);
			if (run->so.by_marker)
				printf(", phase %u", r->phase);
			printf("\n%-6s %-32s %14s %12s %8s %10s %10s %10s %10s %10s %10s%s\n",
			       "level", "geometry", "accesses", "misses", "miss%", "rd misses",
			       "wr misses", "compulsory", "capacity", "conflict", "writebacks",
			       tot->fetches ? "       MPKI" : "");
		}
		geometry(&run->h[r->hierarchy], r->level, r->tlb, geo, sizeof(geo));
		printf("%-6s %-32s %14s %12s %7.3f%% %10" PRIu64 " %10" PRIu64 " %10" PRIu64
		       " %10" PRIu64 " %10" PRIu64 " %10" PRIu64,
		       r->level, geo, fmt_count(c->accesses, acc), fmt_count(c->misses, mis),
		       100 * ratio(c->misses, c->accesses), c->read_misses,
		       c->write_misses, c->compulsory, c->capacity, c->conflict, c->writebacks);
		if (tot->fetches)
			printf(" %10.3f", insns ? 1000.0 * (double)c->misses / (double)insns : 0.0);
		printf("\n");
		if (c->invalidations || c->back_invalidations || c->prefetches)
			printf("%-6s %s invalidations by other cores, %" PRIu64
			       " by an inclusive level, %" PRIu64 " prefetches\n", "",
			       fmt_count(c->invalidations, acc), c->back_invalidations,
			       c->prefetches);
	}
}

/* What the simulation found: rows in vmt_cachesim_rows()'s order, and each hierarchy's top. */
struct cs_results {
	struct vmt_cachesim_row *rows;
	size_t nr_rows;
	struct vmt_cachesim_top *top[MAX_HIERARCHIES];
	size_t nr_top[MAX_HIERARCHIES];
};

static void results_free(struct cs_results *r)
{
	free(r->rows);
	for (unsigned int h = 0; h < MAX_HIERARCHIES; h++)
		free(r->top[h]);
	memset(r, 0, sizeof(*r));
}

static void print_top(const struct cs_run *run, const struct cs_results *res,
		      struct vmt_trace *t)
{
	unsigned int h;

	for (h = 0; h < run->nr_h; h++) {
		const struct vmt_cachesim_top *top = res->top[h];
		struct ip_place *place;
		char where[96];
		size_t n = res->nr_top[h], i;

		if (!top)
			continue;
		place = calloc(n + 1, sizeof(*place));
		for (i = 0; place && i < n; i++) {
			place[i].pid = top[i].pid;
			place[i].ip = top[i].ip;
		}
		if (place)
			place_ips(t, place, n);
		printf("\n%s: the %zu instructions with the most last-level misses\n",
		       run->h[h].name, n);
		printf("%18s %8s %12s %12s  %s\n", "ip", "pid", "misses", "L1 misses",
		       "mapping+offset");
		for (i = 0; i < n; i++) {
			printf("%#18" PRIx64 " %8u %12" PRIu64 " %12" PRIu64 "  ", top[i].ip,
			       top[i].pid, top[i].misses, top[i].l1_misses);
			printf("%s\n", place ? ip_place_text(&place[i], where, sizeof(where))
					     : "(no mapping in the trace)");
		}
		free(place);
	}
}

/*
 * @sim's results into @res, its hierarchy @h being run->h[@global[h]]
 * (NULL: the same); 0 or -ENOMEM.
 */
static int take_results(const struct cs_run *run, const struct vmt_cachesim *sim,
			unsigned int nr_h, const unsigned int *global, struct cs_results *res)
{
	if (vmt_cachesim_rows(sim, &res->rows, &res->nr_rows))
		return -ENOMEM;
	for (size_t i = 0; global && i < res->nr_rows; i++)
		res->rows[i].hierarchy = global[res->rows[i].hierarchy];
	for (unsigned int h = 0; run->so.top && h < nr_h; h++) {
		unsigned int g = global ? global[h] : h;

		if (vmt_cachesim_top(sim, h, &res->top[g], &res->nr_top[g]))
			res->top[g] = NULL;
	}
	return 0;
}

/*
 * Under MPI (util/ranks.h), the hierarchies are dealt out: process r
 * simulates hierarchies r, r + K, r + 2K... over the whole trace (each
 * hierarchy's counts are its own, whoever else is simulated beside it), and
 * process 0 puts every process's rows back in one process's order: by
 * block (all, each thread or process, or each phase), then by hierarchy.
 * Rows and tops travel as the structures they are: every process runs the
 * same vmtrace-mpi.
 */
static int pack_results(const struct vmt_cachesim_totals *tot, const struct cs_results *res,
			unsigned int nr_h, struct vmt_packer *p)
{
	vmt_pack_bytes(p, tot, sizeof(*tot));
	vmt_pack_u64(p, res->nr_rows);
	for (size_t i = 0; i < res->nr_rows; i++)
		vmt_pack_bytes(p, &res->rows[i], sizeof(res->rows[i]));
	for (unsigned int h = 0; h < nr_h; h++) {
		vmt_pack_u64(p, res->top[h] ? res->nr_top[h] + 1 : 0);
		for (size_t i = 0; res->top[h] && i < res->nr_top[h]; i++)
			vmt_pack_bytes(p, &res->top[h][i], sizeof(res->top[h][i]));
	}
	return p->err;
}

/* Process @r's packed results: its rows (NULL: none) and the tops of its hierarchies into @res. */
static int unpack_results(const struct cs_run *run, const void *data, size_t size,
			  struct vmt_cachesim_row **rows, size_t *nr_rows, struct cs_results *res)
{
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	struct vmt_cachesim_totals tot;

	vmt_unpack_bytes(&u, &tot, sizeof(tot));
	*nr_rows = vmt_unpack_max(&u, size / sizeof(**rows));
	*rows = calloc(*nr_rows + 1, sizeof(**rows));
	if (!*rows)
		return -ENOMEM;
	for (size_t i = 0; i < *nr_rows && !u.err; i++) {
		vmt_unpack_bytes(&u, &(*rows)[i], sizeof(**rows));
		if ((*rows)[i].hierarchy >= run->nr_h)
			u.err = -EBADMSG;
	}
	for (unsigned int h = 0; h < run->nr_h && !u.err; h++) {
		uint64_t n = vmt_unpack_max(&u, size / sizeof(struct vmt_cachesim_top) + 1);

		if (!n || u.err)
			continue;
		if (res->top[h]) {
			u.err = -EBADMSG;	/* two processes simulated it */
			break;
		}
		res->nr_top[h] = n - 1;
		res->top[h] = calloc(n, sizeof(*res->top[h]));
		if (!res->top[h])
			return -ENOMEM;
		for (size_t i = 0; i + 1 < n && !u.err; i++)
			vmt_unpack_bytes(&u, &res->top[h][i], sizeof(res->top[h][i]));
	}
	return u.err ? u.err : u.p != u.end ? -EBADMSG : 0;
}

static bool same_block(const struct vmt_cachesim_row *a, const struct vmt_cachesim_row *b)
{
	return a->id == b->id && a->phase == b->phase;
}

/* Every process's rows, in one process's order (see above), into @res. */
static int join_rows(const struct cs_run *run, struct vmt_cachesim_row **rows,
		     const size_t *nr_rows, unsigned int k, struct cs_results *res)
{
	size_t total = 0, *at = calloc(k, sizeof(*at)), n = 0;

	for (unsigned int r = 0; r < k; r++)
		total += nr_rows[r];
	res->rows = calloc(total + 1, sizeof(*res->rows));
	if (!at || !res->rows) {
		free(at);
		return -ENOMEM;
	}
	/* Process 0 simulates hierarchy 0, which has rows in every block. */
	for (size_t b = 0; b < nr_rows[0]; b++) {
		const struct vmt_cachesim_row *key = &rows[0][b];

		if (key->hierarchy || (b && same_block(key, &rows[0][b - 1])))
			continue;
		for (unsigned int h = 0; h < run->nr_h; h++) {
			unsigned int r = h % k;

			while (at[r] < nr_rows[r] && rows[r][at[r]].hierarchy == h &&
			       same_block(&rows[r][at[r]], key))
				res->rows[n++] = rows[r][at[r]++];
		}
	}
	free(at);
	res->nr_rows = n;
	return n == total ? 0 : -EBADMSG;
}

static int run_dealt(struct cs_run *run, const char *path, struct cs_results *res,
		     struct vmt_cachesim_totals *tot, struct vmt_trace **t)
{
	unsigned int k = ranks_size(), me = ranks_rank(), nr = 0, global[MAX_HIERARCHIES];
	struct vmt_hierarchy_config *mine = calloc(MAX_HIERARCHIES, sizeof(*mine));
	struct vmt_cachesim_row *rows[MAX_HIERARCHIES] = { NULL };
	size_t nr_rows[MAX_HIERARCHIES] = { 0 }, *sizes = NULL;
	struct vmt_trace_error err = { { 0 } };
	struct vmt_analysis *analysis = NULL;
	struct cs_results local = { 0 };
	struct vmt_cachesim *sim = NULL;
	struct vmt_analyze_stats stats;
	struct vmt_packer p = { 0 };
	void **parts = NULL;
	int status = 0, ret;

	memset(tot, 0, sizeof(*tot));
	for (unsigned int h = me; mine && h < run->nr_h; h += k) {
		mine[nr] = run->h[h];
		global[nr++] = h;
	}
	if (!mine || k > MAX_HIERARCHIES) {
		fprintf(stderr, "vmtrace cachesim: %s\n", mine ? "more processes than hierarchies can be" :
			strerror(ENOMEM));
		status = 1;
	} else if (nr) {
		if (vmt_cachesim_create(&sim, mine, nr, &run->so, &err)) {
			fprintf(stderr, "vmtrace cachesim: %s\n", err.message);
			status = 1;
		}
		if (!status && !(*t = analysis_open("cachesim", path, &run->o)))
			status = 1;
		if (!status && vmt_cachesim_analysis(sim, &analysis)) {
			fprintf(stderr, "vmtrace cachesim: %s\n", strerror(ENOMEM));
			status = 1;
		}
		/* --emit: one hierarchy, so this process (0) alone writes. */
		if (!status && run->emit.path && emit_begin(&run->emit, sim))
			status = 1;
		ret = status ? 0 : vmt_analyze(*t, &run->o.ref, &analysis, 1, &stats);
		if (ret) {
			fprintf(stderr, "vmtrace cachesim: %s\n",
				stats.analysis_error || ret == -ENOMEM ? strerror(-ret) :
				vmt_trace_error_message(*t));
			status = 1;
		}
		if (emit_end(&run->emit, !status))
			status = 1;
		if (!status) {
			vmt_cachesim_totals(sim, tot);
			status = take_results(run, sim, nr, global, &local) ? 1 : 0;
		}
	}
	if (!status && pack_results(tot, &local, run->nr_h, &p))
		status = 1;
	if (ranks_agree(status))
		goto out;
	status = 1;
	ret = ranks_gather(p.buf.data, p.buf.size, &parts, &sizes);
	if (ret) {
		fprintf(stderr, "vmtrace cachesim: gathering the results: %s\n", strerror(-ret));
		goto out;
	}
	if (!parts) {
		status = ANALYSIS_ELSEWHERE;
		goto out;
	}
	for (unsigned int r = 0; !ret && r < k; r++)
		ret = unpack_results(run, parts[r], sizes[r], &rows[r], &nr_rows[r], res);
	if (!ret)
		ret = join_rows(run, rows, nr_rows, k, res);
	if (ret)
		fprintf(stderr, "vmtrace cachesim: joining the results: %s\n", strerror(-ret));
	status = ret ? 1 : 0;
out:
	for (unsigned int r = 0; parts && r < k; r++)
		free(parts[r]);
	free(parts);
	free(sizes);
	for (unsigned int r = 0; r < MAX_HIERARCHIES; r++)
		free(rows[r]);
	results_free(&local);
	vmt_buf_free(&p.buf);
	vmt_analysis_destroy(analysis);
	vmt_cachesim_destroy(sim);
	free(mine);
	return status;
}

/* Miss ratios a level, a cluster a hierarchy. */
static int plot(const struct cs_run *run, const struct vmt_cachesim_row *rows, size_t n)
{
	struct plot p;
	size_t i;

	if (plot_begin("cachesim", &p))
		return 1;
	fprintf(p.data, "hierarchy level ratio\n");
	for (i = 0; i < n; i++)
		if (rows[i].id == VMT_CACHESIM_ALL && rows[i].phase == 0)
			fprintf(p.data, "\"%s\" \"%s\" %.6f\n", run->h[rows[i].hierarchy].name,
				rows[i].level, ratio(rows[i].counts.misses, rows[i].counts.accesses));
	fprintf(p.script,
		"set ylabel 'miss ratio'\nset style fill solid 0.6\nset boxwidth 0.8\n"
		"set xtics rotate by -45\nset grid ytics\nunset key\n"
		"plot DATA using 0:3:xtic(sprintf('%%s %%s', strcol(1), strcol(2))) with boxes\n");
	return plot_end("cachesim", &p, run->o.plot);
}

static int check_options(struct cs_run *run)
{
	unsigned int i, k;

	if (run->o.ref.unit != VMT_REF_PAGE) {
		fprintf(stderr, "vmtrace cachesim: --unit: a cache's unit is its line\n");
		return -1;
	}
	if (run->so.per_thread && run->o.per_process) {
		fprintf(stderr, "vmtrace cachesim: --per-thread or --per-process, not both\n");
		return -1;
	}
	if (run->so.by_marker && (run->so.per_thread || run->o.per_process)) {
		fprintf(stderr, "vmtrace cachesim: --by-marker goes with neither --per-thread "
			"nor --per-process\n");
		return -1;
	}
	if (run->prefetch && run->custom < 0) {
		fprintf(stderr, "vmtrace cachesim: --prefetch is for the --cache levels "
			"(a config file says 'prefetch next-line')\n");
		return -1;
	}
	if (!run->nr_h && vmt_hierarchy_preset("cachegrind", run->h, MAX_HIERARCHIES,
					       &run->nr_h)) {
		fprintf(stderr, "vmtrace cachesim: no preset cachegrind\n");
		return -1;
	}
	if (run->prefetch)
		for (k = 0; k < run->h[run->custom].nr_caches; k++)
			run->h[run->custom].caches[k].prefetch = true;
	for (i = 0; i < run->nr_h; i++) {
		struct vmt_trace_error err = { { 0 } };

		if (vmt_hierarchy_check(&run->h[i], &err)) {
			fprintf(stderr, "vmtrace cachesim: %s: %s\n", run->h[i].name, err.message);
			return -1;
		}
	}
	if (run->emit.path && run->nr_h != 1) {
		fprintf(stderr, "vmtrace cachesim: --emit writes one hierarchy's bus view, and %u "
			"are given (one --preset such as psnap3 rather than psnap, one --config "
			"hierarchy, or the --cache levels alone)\n", run->nr_h);
		return -1;
	}
	for (k = 0; run->emit.path && k < run->h[0].nr_caches; k++) {
		if (run->h[0].caches[k].line > 32768) {
			fprintf(stderr, "vmtrace cachesim: --emit: %s's line of %u bytes is more than "
				"an exact record's size holds (32 KiB)\n", run->h[0].caches[k].name,
				run->h[0].caches[k].line);
			return -1;
		}
	}
	run->so.per_process = run->o.per_process;
	/* Caches see addresses, never data: --emit's lines carry no value. */
	run->o.skip_values = true;
	run->so.physical = run->o.ref.space == VMT_REF_PHYSICAL;
	run->so.addr_lo = run->o.ref.addr_lo;
	run->so.addr_hi = run->o.ref.addr_hi;
	return 0;
}

int cmd_cachesim(int argc, char **argv)
{
	static const struct option options[] = {
		{ "help", no_argument, NULL, 'h' },
		{ "cache", required_argument, NULL, CS_OPT_CACHE },
		{ "tlb", required_argument, NULL, CS_OPT_TLB },
		{ "config", required_argument, NULL, CS_OPT_CONFIG },
		{ "preset", required_argument, NULL, CS_OPT_PRESET },
		{ "cores", required_argument, NULL, CS_OPT_CORES },
		{ "core-by", required_argument, NULL, CS_OPT_CORE_BY },
		{ "seed", required_argument, NULL, CS_OPT_SEED },
		{ "per-thread", no_argument, NULL, CS_OPT_PER_THREAD },
		{ "top", required_argument, NULL, CS_OPT_TOP },
		{ "by-marker", no_argument, NULL, CS_OPT_BY_MARKER },
		{ "prefetch", no_argument, NULL, CS_OPT_PREFETCH },
		{ "no-classify", no_argument, NULL, CS_OPT_NO_CLASSIFY },
		{ "threads", required_argument, NULL, 'j' },
		{ "batch", required_argument, NULL, CS_OPT_BATCH },
		{ "emit", required_argument, NULL, CS_OPT_EMIT },
		ANALYSIS_LONG_OPTIONS,
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct cs_run *run = calloc(1, sizeof(*run));
	struct analysis_command_line line = {
		.cmd = "cachesim", .short_options = "hj:", .options = options,
		.usage = usage_cachesim, .parse = parse_cs_option, .ctx = run,
	};
	struct vmt_trace_error err = { { 0 } };
	struct vmt_trace_writer_options wopts;
	struct vmt_cachesim *sim = NULL;
	struct vmt_analysis *analysis = NULL;
	struct vmt_cachesim_totals tot;
	struct cs_results res = { 0 };
	struct vmt_analyze_stats stats;
	struct vmt_trace *t = NULL;
	const char *path;
	int ret;

	if (!run) {
		fprintf(stderr, "vmtrace cachesim: %s\n", strerror(ENOMEM));
		return 1;
	}
	run->custom = -1;
	run->so.threads = (unsigned int)sysconf(_SC_NPROCESSORS_ONLN);
	run->emit.wopts.codec = VMT_CODEC_MODEL;	/* convert's and record's */
	wopts = run->emit.wopts;
	ret = parse_analysis_command_line(&line, argc, argv, &run->o, &path);
	if (ret >= 0)
		goto out;
	ret = 2;
	if (check_options(run))
		goto out;
	if (!run->emit.path && memcmp(&wopts, &run->emit.wopts, sizeof(wopts))) {
		fprintf(stderr, "vmtrace cachesim: --codec, --stage2, --level and --frame-bytes "
			"are for --emit's trace\n");
		goto out;
	}
	if (run->emit.path && same_file(path, run->emit.path)) {
		fprintf(stderr, "vmtrace cachesim: --emit %s is the input itself\n", run->emit.path);
		goto out;
	}
	if (ranks_size() > 1) {
		ret = run_dealt(run, path, &res, &tot, &t);
		if (ret)
			goto out;
		ret = 1;
		goto simulated;
	}
	ret = vmt_cachesim_create(&sim, run->h, run->nr_h, &run->so, &err);
	if (ret) {
		fprintf(stderr, "vmtrace cachesim: %s\n", err.message);
		ret = ret == -EINVAL ? 2 : 1;
		goto out;
	}
	ret = 1;
	t = analysis_open("cachesim", path, &run->o);
	if (!t)
		goto out;
	if (vmt_cachesim_analysis(sim, &analysis)) {
		fprintf(stderr, "vmtrace cachesim: %s\n", strerror(ENOMEM));
		goto out;
	}
	if (run->emit.path && emit_begin(&run->emit, sim))
		goto out;
	ret = vmt_analyze(t, &run->o.ref, &analysis, 1, &stats);
	if (ret) {
		fprintf(stderr, "vmtrace cachesim: %s\n",
			stats.analysis_error || ret == -ENOMEM ? strerror(-ret) :
			vmt_trace_error_message(t));
		ret = 1;
		goto out;
	}
	ret = 1;
	if (emit_end(&run->emit, true))
		goto out;
	vmt_cachesim_totals(sim, &tot);
	if (take_results(run, sim, run->nr_h, NULL, &res)) {
		fprintf(stderr, "vmtrace cachesim: %s\n", strerror(ENOMEM));
		goto out;
	}
simulated:
	if (!tot.accesses) {
		/* The trace's filter (--pid, --type...) drops records before they are counted. */
		bool filtered = run->o.filter.used || run->o.ref.addr_lo || run->o.ref.addr_hi;

		fprintf(stderr, "vmtrace cachesim: %s: no accesses to simulate (%s)\n", path,
			tot.exact_records || tot.reference_records || filtered ?
			"none passed the filters" :
			"no exact record and no reference in the trace");
		goto out;
	}
	if (run->o.csv) {
		print_csv(run, res.rows, res.nr_rows, &tot);
	} else {
		print_header(run, path, &tot);
		print_table(run, res.rows, res.nr_rows, &tot);
		if (run->so.top)
			print_top(run, &res, t);
	}
	ret = run->o.plot ? plot(run, res.rows, res.nr_rows) : 0;
	if (fflush(stdout) || ferror(stdout)) {
		fprintf(stderr, "vmtrace cachesim: writing the results: %s\n", strerror(errno));
		ret = 1;
	}
out:
	if (ret == ANALYSIS_ELSEWHERE)
		ret = 0;
	emit_end(&run->emit, false);	/* a failed pass's: left out */
	results_free(&res);
	vmt_analysis_destroy(analysis);
	vmt_cachesim_destroy(sim);
	if (t)
		vmt_trace_close(t);
	free(run);
	return ret;
}
