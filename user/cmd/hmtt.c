// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace hmtt TRACE [--window T] [--plot F]
 *            [--section dma,v2p,interleave,scr,dram,prefetch,traffic]
 *
 * HMTT's analyses (libvmtrace's: user/lib/analysis/analysis_dma.c, _v2p.c,
 * _interleave.c, _scr.c, _dram.c, _prefetch.c, _traffic.c), one pass over
 * the trace, a table or two a section: DMA traffic against the CPU's
 * references per interval and DMA request sizes, by device too
 * (util/hmtt_traffic.c prints those and the traffic section: CPU and DMA
 * reads and writes, bandwidth, kernel and user mode, untranslatable
 * traffic); how pages and frames were mapped and how often virtually
 * adjacent pages are physically adjacent; the runs of one process's
 * references in the merged stream; the stream coverage rate on virtual and
 * on physical addresses; row-buffer hits, bank-level parallelism and
 * address-bit changes through a DRAM address map; a sequential prefetcher's
 * prefetch rate (scr and prefetch: util/hmtt_streams.c). Interleaving a
 * process and the figures (--plot) are util/hmtt_plot.c's (the tables':
 * util/hmtt_figures.c).
 * docs/analysis/hmtt.md defines each.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/hmtt_plot.h"
#include "util/hmtt_streams.h"
#include "util/hmtt_traffic.h"

#define CMD			"hmtt"
#define DEFAULT_DRAM_WINDOW	32	/* as SCR's */
#define DEFAULT_DRAM_MAP	"ddr4-2ch"

enum section {
	SECTION_DMA		= 1 << 0,
	SECTION_V2P		= 1 << 1,
	SECTION_INTERLEAVE	= 1 << 2,
	SECTION_SCR		= 1 << 3,
	SECTION_DRAM		= 1 << 4,
	SECTION_PREFETCH	= 1 << 5,
	SECTION_TRAFFIC		= 1 << 6,
	/* dram when asked for: its numbers are those of a DRAM map taken on trust */
	SECTION_DEFAULT		= ((1 << 4) - 1) | SECTION_PREFETCH | SECTION_TRAFFIC,
};

static const char *const section_names[] = {
	"dma", "v2p", "interleave", "scr", "dram", "prefetch", "traffic",
};
#define NR_SECTIONS (sizeof(section_names) / sizeof(section_names[0]))

enum {
	HMTT_OPT_WINDOW = 0x300,
	HMTT_OPT_SECTION,
	HMTT_OPT_DRAM_MAP,
	HMTT_OPT_DRAM_WINDOW,
	HMTT_OPT_PLOT_SLICE,
};

struct hmtt_command {
	unsigned int sections;
	struct hmtt_streams_options streams;	/* scr's and prefetch's */
	uint64_t window_ns;
	struct vmt_dram_map dram_map;
	char dram_map_text[512];	/* a preset's name and its bits, or the bits given */
	unsigned int dram_window;
	bool space_given;		/* --space: dram's is physical unless it says virtual */
	enum vmt_ref_space dram_space;
	uint64_t slice_first, slice_count;	/* --plot-slice; count 0: not given */
	struct vmt_trace *trace;	/* dma's device names are its data */
};

static const char hmtt_usage[] =
	"usage: vmtrace hmtt [options] TRACE\n"
	"  HMTT's analyses: DMA traffic against the CPU's references, virtual to physical\n"
	"  mappings, interleaving of processes' references, stream coverage rate (SCR),\n"
	"  DRAM row buffers, bank parallelism and address-bit changes, a sequential\n"
	"  prefetcher's prefetch rate; DMA by device; CPU and DMA reads and writes,\n"
	"  bandwidth, kernel and user mode, untranslatable physical traffic (traffic)\n"
	"  --section S[,S]    dma, v2p, interleave, scr, dram, prefetch, traffic (default:\n"
	"                     all but dram, whose figures stand on an assumed DRAM map)\n"
	"  --window T         dma and traffic: intervals of T (ns, or with a unit: 500us,\n"
	"                     10ms, 2s); default: the whole trace as one\n"
	"  --scr-window W[,W] scr: streams within a window of W references (3..1024,\n"
	"                     default 32, as HMTT's; up to 8 windows), each in three\n"
	"                     views: virtual, physical-process (physical addresses, a\n"
	"                     window a process) and physical (one window: the bus);\n"
	"                     SCR lost to virtual memory = virtual - physical-process,\n"
	"                     to interleaving = physical-process - physical (points,\n"
	"                     and in percent of the first); strides at the first W\n"
	"  --dram-map M       dram: the address map, a preset (ddr4-1ch, ddr4-2ch, the\n"
	"                     default, ddr5-2ch) or fields' bits, as\n"
	"                     'ch=6;rank=16;bg=7,8;bank=9^13,10^14;row=17-32;col=0-5,11-15'\n"
	"  --dram-window W    dram: bank parallelism over W consecutive accesses (2..65536,\n"
	"                     default 32)\n"
	"  --prefetch-trackers N  prefetch: the modelled prefetcher's stream trackers\n"
	"                     (1..1024, default 8, LRU); a stream is confirmed at 3\n"
	"                     contiguous lines, then prefetched D lines ahead\n"
	"  --prefetch-degree D    prefetch: D (1..64, default 2); rate = prefetches /\n"
	"                     (demand accesses not served + prefetches), on the merged\n"
	"                     stream and on each process's alone\n"
	"  --space virtual|physical  dma, interleave and traffic: which references count\n"
	"                     (physical: those with a frame); scr measures both; dram\n"
	"                     and prefetch read physical addresses unless --space\n"
	"                     virtual is given\n"
	"  --unit page|line   dma's CPU bytes and scr's strides: pages (default) or lines;\n"
	"                     dram and prefetch read lines\n"
	"  --addr START-END   only references in [START, END) of the pass's space (--space);\n"
	"                     scr, dram and prefetch bounded in that space alone\n"
	"  --source faults|exact  the references: the pages the tracer saw referenced, or\n"
	"                     every exact access (default: exact on a trace of exact\n"
	"                     records alone)\n"
	"  --per-process      dma, v2p, scr, dram, prefetch and traffic of each process\n"
	"                     too (after all of them), in the order of their first\n"
	"                     references; interleave is all's\n"
	"  --csv              comma-separated values, a header line a table, tables apart\n"
	"                     by an empty line; with --per-process, each process's tables\n"
	"                     come after a table 'pid' of one row, its pid\n";

void usage_hmtt(FILE *out)
{
	fputs(hmtt_usage, out);
	fputs(hmtt_plot_usage, out);
	fputs(filter_options_usage, out);
}

static int parse_sections(const char *arg, unsigned int *sections)
{
	char copy[256], *item, *save = NULL;
	unsigned int i;

	if (strlen(arg) >= sizeof(copy)) {
		fprintf(stderr, "vmtrace %s: --section: list too long\n", CMD);
		return -1;
	}
	strcpy(copy, arg);
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		for (i = 0; i < NR_SECTIONS; i++)
			if (!strcmp(item, section_names[i]))
				break;
		if (i == NR_SECTIONS) {
			fprintf(stderr, "vmtrace %s: --section: unknown section '%s' (dma, v2p, interleave, scr, dram, prefetch, traffic)\n",
				CMD, item);
			return -1;
		}
		*sections |= 1u << i;
	}
	if (!*sections) {
		fprintf(stderr, "vmtrace %s: --section: no section named\n", CMD);
		return -1;
	}
	return 0;
}

/* "lo" or "lo..hi", with thousands separators. */
static const char *fmt_range(uint64_t lo, uint64_t hi, char buf[80])
{
	char c[2][32];

	if (lo == hi)
		snprintf(buf, 80, "%s", fmt_count(lo, c[0]));
	else
		snprintf(buf, 80, "%s..%s", fmt_count(lo, c[0]), fmt_count(hi, c[1]));
	return buf;
}

static void print_dma_interval(const struct analysis_options *o, const char *when,
			       const struct vmt_dma_interval *iv)
{
	char c[6][32];
	double read_pct, write_pct;

	vmt_dma_interval_shares(iv, &read_pct, &write_pct);
	if (o->csv) {
		printf("%s,%llu,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f\n", when,
		       (unsigned long long)iv->references, (unsigned long long)iv->cpu_bytes,
		       (unsigned long long)iv->read_bytes, (unsigned long long)iv->write_bytes,
		       (unsigned long long)iv->bidirectional_bytes,
		       (unsigned long long)iv->coherent_bytes, read_pct, write_pct);
		return;
	}
	printf("  %10s %14s %16s %16s %16s %14s %14s %7.2f %7.2f\n", when,
	       fmt_count(iv->references, c[0]), fmt_count(iv->cpu_bytes, c[1]),
	       fmt_count(iv->read_bytes, c[2]), fmt_count(iv->write_bytes, c[3]),
	       fmt_count(iv->bidirectional_bytes, c[4]), fmt_count(iv->coherent_bytes, c[5]),
	       read_pct, write_pct);
}

static void print_dma(const struct analysis_options *o, struct vmt_analysis *a, bool *first)
{
	const struct vmt_dma_size_bucket *sizes = vmt_dma_traffic_sizes(a);
	const struct vmt_dma_interval *ivs;
	struct vmt_dma_interval total;
	uint64_t requests = 0;
	size_t n = vmt_dma_traffic_intervals(a, &ivs), i;
	char when[32], c[6][32], range[80];

	vmt_dma_traffic_total(a, &total);
	print_table_title(o->csv, first, "DMA traffic against the CPU's references (HMTT's Table 3). A mapping's\n"
		    "size counts as the bytes it moves; a bidirectional one counts as a read and\n"
		    "a write (bidir); coherent memory is set aside, in neither. A CPU reference is\n"
		    "a page (or line) touched, not a byte count: cpu_bytes are references x unit.\n"
		    "read% and write%: DMA reads, writes of cpu_bytes + reads + writes.");
	if (o->csv)
		printf("start_s,references,cpu_bytes,dma_read_bytes,dma_write_bytes,bidirectional_bytes,coherent_bytes,read_pct,write_pct\n");
	else
		printf("  %10s %14s %16s %16s %16s %14s %14s %7s %7s\n", "start_s", "references",
		       "cpu_bytes", "dma_read", "dma_write", "bidir", "coherent", "read%",
		       "write%");
	for (i = 0; i < n; i++) {
		snprintf(when, sizeof(when), "%.3f", (ivs[i].start_ns - total.start_ns) / 1e9);
		print_dma_interval(o, when, &ivs[i]);
	}
	if (n > 1)
		print_dma_interval(o, "all", &total);

	print_table_title(o->csv, first, "DMA request sizes in bytes (scatter-gather: each segment alone)");
	if (o->csv)
		printf("size_lo,size_hi,map_page,map_sg,alloc,percent\n");
	else
		printf("  %27s %12s %12s %12s %8s\n", "size", "map_page", "map_sg", "alloc",
		       "percent");
	for (i = 0; i < VMT_DMA_SIZE_BUCKETS; i++)
		requests += sizes[i].map_page + sizes[i].map_sg + sizes[i].alloc;
	for (i = 0; i < VMT_DMA_SIZE_BUCKETS; i++) {
		const struct vmt_dma_size_bucket *b = &sizes[i];
		uint64_t all = b->map_page + b->map_sg + b->alloc;

		if (!all)
			continue;
		if (o->csv) {
			printf("%llu,%llu,%llu,%llu,%llu,%.4f\n", (unsigned long long)b->lo,
			       (unsigned long long)b->hi, (unsigned long long)b->map_page,
			       (unsigned long long)b->map_sg, (unsigned long long)b->alloc,
			       percent_of(all, requests));
			continue;
		}
		printf("  %27s %12s %12s %12s %7.2f%%\n", fmt_range(b->lo, b->hi, range),
		       fmt_count(b->map_page, c[2]),
		       fmt_count(b->map_sg, c[3]), fmt_count(b->alloc, c[4]),
		       percent_of(all, requests));
	}
	hmtt_print_dma_devices(o->csv, a, first);
}

/* A histogram of counts: "what" (a column's name) against how many. */
static void print_histogram(const struct analysis_options *o, const char *what,
			    const struct vmt_hist_bucket *b, size_t n, uint64_t all)
{
	uint64_t cumulative = 0;
	char c[3][32], range[80];
	size_t i;

	if (o->csv)
		printf("%s_lo,%s_hi,count,percent,cumulative_percent\n", what, what);
	else
		printf("  %27s %14s %8s %11s\n", what, "count", "percent", "cumulative");
	for (i = 0; i < n; i++) {
		cumulative += b[i].count;
		if (o->csv) {
			printf("%llu,%llu,%llu,%.4f,%.4f\n", (unsigned long long)b[i].lo,
			       (unsigned long long)b[i].hi, (unsigned long long)b[i].count,
			       percent_of(b[i].count, all), percent_of(cumulative, all));
			continue;
		}
		printf("  %27s %14s %7.2f%% %10.2f%%\n", fmt_range(b[i].lo, b[i].hi, range),
		       fmt_count(b[i].count, c[2]),
		       percent_of(b[i].count, all), percent_of(cumulative, all));
	}
}

static void print_v2p(const struct analysis_options *o, struct vmt_analysis *a, bool *first)
{
	const struct vmt_v2p_result *r = vmt_v2p_result(a);
	const struct vmt_hist_bucket *b;
	size_t n;
	char c[4][32];

	print_table_title(o->csv, first, "virtual to physical (4 KiB pages; a mapping: a page seen at a frame\n"
		    "other than its last, or again after an unmap)");
	if (o->csv) {
		printf("pages,page_mappings,remapped_pages,frames,frame_mappings,remapped_frames,adjacent_pairs,contiguous_pairs,contiguous_pct\n");
		printf("%llu,%llu,%llu,%llu,%llu,%llu,%llu,%llu,%.4f\n",
		       (unsigned long long)r->pages, (unsigned long long)r->page_mappings,
		       (unsigned long long)r->remapped_pages, (unsigned long long)r->frames,
		       (unsigned long long)r->frame_mappings,
		       (unsigned long long)r->remapped_frames,
		       (unsigned long long)r->adjacent_pairs,
		       (unsigned long long)r->contiguous_pairs, vmt_v2p_contiguity(a));
	} else {
		printf("  pages:  %14s seen with a frame, %s mappings, %s mapped more than once\n",
		       fmt_count(r->pages, c[0]), fmt_count(r->page_mappings, c[1]),
		       fmt_count(r->remapped_pages, c[2]));
		printf("  frames: %14s seen, %s mappings, %s mapped more than once\n",
		       fmt_count(r->frames, c[0]), fmt_count(r->frame_mappings, c[1]),
		       fmt_count(r->remapped_frames, c[2]));
		printf("  contiguity: %s of %s virtually adjacent pairs (vpn, vpn+1) are physically\n"
		       "  adjacent (pfn, pfn+1): %.2f%%\n", fmt_count(r->contiguous_pairs, c[0]),
		       fmt_count(r->adjacent_pairs, c[1]), vmt_v2p_contiguity(a));
	}
	print_table_title(o->csv, first, "pages by the times they were mapped");
	n = vmt_v2p_page_histogram(a, &b);
	print_histogram(o, "mappings", b, n, r->pages);
	print_table_title(o->csv, first, "frames by the times they were mapped");
	n = vmt_v2p_frame_histogram(a, &b);
	print_histogram(o, "mappings", b, n, r->frames);
}

static void print_interleave(const struct analysis_options *o, struct vmt_analysis *a,
			     bool *first)
{
	const struct vmt_interleave_result *r = vmt_interleave_result(a);
	const struct vmt_hist_bucket *b;
	size_t n = vmt_interleave_histogram(a, &b);
	char c[5][32];

	print_table_title(o->csv, first, "interleaving: runs of one process's references in the merged stream");
	if (o->csv) {
		printf("references,processes,runs,switches,mean,median,longest\n");
		printf("%llu,%llu,%llu,%llu,%.4f,%llu,%llu\n", (unsigned long long)r->references,
		       (unsigned long long)r->processes, (unsigned long long)r->runs,
		       (unsigned long long)r->switches, r->mean, (unsigned long long)r->median,
		       (unsigned long long)r->longest);
	} else {
		printf("  %s references of %s processes in %s runs (%s switches)\n",
		       fmt_count(r->references, c[0]), fmt_count(r->processes, c[1]),
		       fmt_count(r->runs, c[2]), fmt_count(r->switches, c[3]));
		printf("  run length: mean %.2f, median %s, longest %s\n", r->mean,
		       fmt_count(r->median, c[0]), fmt_count(r->longest, c[4]));
	}
	print_table_title(o->csv, first, "runs by length, of all the processes");
	print_histogram(o, "run_length", b, n, r->runs);
	hmtt_print_interleave_processes(o, a, first);
}

/* The fields that read address bit @bit, as "row+bg", or "-". */
static const char *bit_fields(const struct vmt_dram_map *map, unsigned int bit, char buf[32])
{
	static const char *const names[VMT_DRAM_NR_FIELDS] = {
		"ch", "rank", "bg", "bank", "row", "col",
	};
	size_t len = 0;

	strcpy(buf, "-");
	for (unsigned int f = 0; f < VMT_DRAM_NR_FIELDS; f++)
		if (vmt_dram_field_bits(map, f) >> bit & 1)
			len += (size_t)snprintf(buf + len, 32 - len, "%s%s", len ? "+" : "",
						names[f]);
	return buf;
}

static void print_dram(const struct analysis_options *o, struct vmt_analysis *a,
		       const struct hmtt_command *c, bool *first)
{
	const struct vmt_dram_result *r = vmt_dram_result(a);
	const char *where;
	char title[1024], f[32], n[6][32];
	unsigned int bit, top = 47;
	uint64_t opened = r->misses + r->conflicts;

	if (c->dram_space == VMT_REF_PHYSICAL)
		where = "its physical address (its frame's)";
	else if (o->ref.source == VMT_REF_EXACT)
		where = "its virtual address, a stand-in for the physical one\n"
			"(exact accesses have no frame)";
	else
		where = "its virtual address, a stand-in for the physical one (--space virtual)";
	snprintf(title, sizeof(title), "DRAM: row buffers (open page), bank-level parallelism and address-bit changes\n"
		 "over the references in time order, each a 64-byte line at\n%s;\n"
		 "map %s", where, c->dram_map_text);
	print_table_title(o->csv, first, title);
	if (o->csv) {
		printf("space,accesses,no_frame,hits,misses,conflicts,hit_pct,miss_pct,conflict_pct,window,blp,max_banks,banks_touched,banks\n");
		printf("%s,%llu,%llu,%llu,%llu,%llu,%.4f,%.4f,%.4f,%u,%.4f,%llu,%llu,%llu\n",
		       c->dram_space == VMT_REF_PHYSICAL ? "physical" : "virtual",
		       (unsigned long long)r->references, (unsigned long long)r->no_frame,
		       (unsigned long long)r->hits, (unsigned long long)r->misses,
		       (unsigned long long)r->conflicts, percent_of(r->hits, r->references),
		       percent_of(r->misses, r->references), percent_of(r->conflicts, r->references),
		       r->window, vmt_dram_blp(a), (unsigned long long)r->max_banks,
		       (unsigned long long)r->banks_touched, (unsigned long long)r->banks);
	} else {
		printf("  %14s %14s %14s %14s %7s %7s %9s\n", "accesses", "hits", "misses",
		       "conflicts", "hit%", "miss%", "conflict%");
		printf("  %14s %14s %14s %14s %6.2f%% %6.2f%% %8.2f%%\n",
		       fmt_count(r->references, n[0]), fmt_count(r->hits, n[1]),
		       fmt_count(r->misses, n[2]), fmt_count(r->conflicts, n[3]),
		       percent_of(r->hits, r->references), percent_of(r->misses, r->references),
		       percent_of(r->conflicts, r->references));
		printf("  a miss: no row open in the bank yet; a conflict: another row open\n"
		       "  (%s of %s accesses open a row)\n", fmt_count(opened, n[0]),
		       fmt_count(r->references, n[1]));
		printf("  bank-level parallelism: %.2f distinct banks (at most %s) among %u\n"
		       "  consecutive accesses, on the mean; %s of the map's %s banks accessed\n",
		       vmt_dram_blp(a), fmt_count(r->max_banks, n[0]), r->window,
		       fmt_count(r->banks_touched, n[1]), fmt_count(r->banks, n[2]));
		if (r->no_frame)
			printf("  %s references without a frame passed over%s\n",
			       fmt_count(r->no_frame, n[0]), r->references ? "" :
			       ": none names one (--space virtual: virtual addresses as a stand-in)");
	}

	for (unsigned int fi = 0; fi < VMT_DRAM_NR_FIELDS; fi++) {
		uint64_t bits = vmt_dram_field_bits(&c->dram_map, fi);

		if (bits && 63 - (unsigned int)__builtin_clzll(bits) > top)
			top = 63 - (unsigned int)__builtin_clzll(bits);
	}
	snprintf(title, sizeof(title), "address bits changed between consecutive accesses (HMTT's figure), of\n"
		 "%s pairs; field: the map's fields that read the bit", fmt_count(r->pairs, n[0]));
	print_table_title(o->csv, first, title);
	if (o->csv)
		printf("bit,changes,pairs,change_pct,field\n");
	else
		printf("  %4s %14s %8s  %s\n", "bit", "changes", "percent", "field");
	for (bit = 6; bit <= top; bit++) {
		if (o->csv)
			printf("%u,%llu,%llu,%.4f,%s\n", bit, (unsigned long long)r->flips[bit],
			       (unsigned long long)r->pairs, percent_of(r->flips[bit], r->pairs),
			       bit_fields(&c->dram_map, bit, f));
		else
			printf("  %4u %14s %7.2f%%  %s\n", bit, fmt_count(r->flips[bit], n[0]),
			       percent_of(r->flips[bit], r->pairs), bit_fields(&c->dram_map, bit, f));
	}
}

/* The analysis of one section, made for vmt_analyze() or, per process, for a pid. */
struct hmtt_maker {
	unsigned int section;	/* a SECTION_* bit */
	enum vmt_ref_space space;	/* dram's and prefetch's */
	uint64_t window_ns;
	const struct hmtt_streams_options *streams;
	const struct vmt_ref_options *pass;	/* scr's: its unit, source and --addr */
	enum vmt_ref_source source;	/* dram's and prefetch's references: the pass's */
	const struct vmt_dram_map *dram_map;
	unsigned int dram_window;
	uint64_t addr_lo, addr_hi;	/* --addr, for scr and dram in its space */
	struct vmt_trace *trace;	/* dma's */
};

static int hmtt_make(void *ctx, uint32_t pid, struct vmt_analysis **a)
{
	const struct hmtt_maker *m = ctx;

	(void)pid;
	switch (m->section) {
	case SECTION_DMA: {
		int err = vmt_dma_traffic_create(a, m->window_ns);

		if (!err)
			vmt_dma_traffic_set_trace(*a, m->trace);
		return err;
	}
	case SECTION_TRAFFIC:
		return vmt_traffic_create(a, m->source, m->window_ns);
	case SECTION_V2P:
		return vmt_v2p_create(a);
	case SECTION_INTERLEAVE:
		return vmt_interleave_create(a);
	case SECTION_DRAM: {
		struct vmt_ref_options o = { .space = m->space, .source = m->source,
					     .addr_lo = m->addr_lo, .addr_hi = m->addr_hi };

		return vmt_dram_create(a, &o, m->dram_map, m->dram_window);
	}
	case SECTION_PREFETCH: {
		struct vmt_ref_options o = { .space = m->space, .source = m->source,
					     .addr_lo = m->addr_lo, .addr_hi = m->addr_hi };

		return hmtt_prefetch_create(a, m->streams, &o);
	}
	default:
		return hmtt_scr_create(a, m->streams, m->pass);
	}
}

/*
 * The analyses the sections need: one of each for all the processes, and
 * with --per-process one per process of each but interleave's (through
 * vmt_per_process_create(), in @per[]). scr's and prefetch's are each a
 * group of analyses (hmtt_streams.c).
 */
enum {
	HMTT_DMA, HMTT_V2P, HMTT_INTERLEAVE, HMTT_SCR, HMTT_DRAM, HMTT_PREFETCH, HMTT_TRAFFIC,
	HMTT_KINDS
};

struct hmtt_analyses {
	struct hmtt_maker makers[HMTT_KINDS];
	struct vmt_analysis *all[HMTT_KINDS], *per[HMTT_KINDS];
	struct vmt_analysis *list[2 * HMTT_KINDS];
	unsigned int n;
};

static int hmtt_create(struct hmtt_analyses *h, unsigned int sections,
		       const struct hmtt_command *c, const struct analysis_options *o)
{
	static const unsigned int kind_sections[HMTT_KINDS] = {
		SECTION_DMA, SECTION_V2P, SECTION_INTERLEAVE, SECTION_SCR, SECTION_DRAM,
		SECTION_PREFETCH, SECTION_TRAFFIC,
	};
	int err = 0;

	memset(h, 0, sizeof(*h));
	for (unsigned int k = 0; k < HMTT_KINDS && !err; k++) {
		struct hmtt_maker *m = &h->makers[k];

		if (!(sections & kind_sections[k]))
			continue;
		*m = (struct hmtt_maker){
			.section = kind_sections[k],
			.space = k == HMTT_DRAM || k == HMTT_PREFETCH ? c->dram_space :
				 VMT_REF_VIRTUAL,
			.window_ns = c->window_ns,
			.streams = &c->streams,
			.pass = &o->ref,
			.source = o->ref.source,
			.dram_map = &c->dram_map,
			.dram_window = c->dram_window,
			.trace = c->trace,
		};
		/* --addr is of the pass's space: it bounds dram and prefetch in that one. */
		if (m->space == o->ref.space) {
			m->addr_lo = o->ref.addr_lo;
			m->addr_hi = o->ref.addr_hi;
		}
		err = hmtt_make(m, 0, &h->all[k]);
		if (err)
			break;
		h->list[h->n++] = h->all[k];
		if (!o->per_process || k == HMTT_INTERLEAVE)
			continue;
		err = vmt_per_process_create(&h->per[k], hmtt_make, m);
		if (err)
			break;
		vmt_per_process_set_source(h->per[k], o->ref.source);
		h->list[h->n++] = h->per[k];
	}
	return err;
}

static void hmtt_destroy(struct hmtt_analyses *h)
{
	for (unsigned int i = 0; i < h->n; i++)
		vmt_analysis_destroy(h->list[i]);
}


/* The sections asked for, of one process or all of them (@a by HMTT_*). */
static void print_sections(const struct analysis_options *o, unsigned int sections,
			   struct vmt_analysis *const *a, const struct hmtt_command *c,
			   bool *first)
{
	if (sections & SECTION_DMA && vmt_dma_traffic_records(a[HMTT_DMA]))
		print_dma(o, a[HMTT_DMA], first);
	if (sections & SECTION_V2P)
		print_v2p(o, a[HMTT_V2P], first);
	if (sections & SECTION_INTERLEAVE && a[HMTT_INTERLEAVE])
		print_interleave(o, a[HMTT_INTERLEAVE], first);
	if (sections & SECTION_SCR)
		hmtt_scr_print(a[HMTT_SCR], &c->streams, o->ref.unit, o->csv, first);
	if (sections & SECTION_DRAM)
		print_dram(o, a[HMTT_DRAM], c, first);
	if (sections & SECTION_PREFETCH) {
		struct vmt_ref_options p = { .space = c->dram_space, .source = o->ref.source };

		hmtt_prefetch_print(a[HMTT_PREFETCH], &c->streams, &p, o->csv, first);
	}
	if (sections & SECTION_TRAFFIC)
		hmtt_print_traffic(o->csv, a[HMTT_TRAFFIC], first);
}

/* --per-process: each process's sections, in the order of its first reference. */
static void print_processes(const struct analysis_options *o, unsigned int sections,
			    const struct hmtt_analyses *h, const struct hmtt_command *c,
			    bool *first)
{
	const struct vmt_analysis *any = NULL;
	unsigned int k, i;
	char title[64];
	uint32_t pid;

	for (k = 0; k < HMTT_KINDS && !any; k++)
		any = h->per[k];
	for (i = 0; any && i < vmt_per_process_count(any); i++) {
		struct vmt_analysis *a[HMTT_KINDS] = { NULL };

		for (k = 0; k < HMTT_KINDS; k++)
			if (h->per[k])
				a[k] = vmt_per_process_get(h->per[k], i, &pid);
		snprintf(title, sizeof(title), "==== process %u ====", pid);
		print_table_title(o->csv, first, title);
		if (o->csv)
			printf("pid\n%u\n", pid);
		print_sections(o, sections & ~SECTION_INTERLEAVE, a, c, first);
	}
}

/* --dram-map: a preset's name or a map's bits; 0, or -1 having said why not. */
static int parse_dram_map(struct hmtt_command *c, const char *arg)
{
	char err[160], bits[400];
	const char *name;
	unsigned int i;

	if (!strchr(arg, '=')) {
		if (vmt_dram_map_preset(arg, &c->dram_map)) {
			fprintf(stderr, "vmtrace %s: --dram-map: no preset '%s' (", CMD, arg);
			for (i = 0; (name = vmt_dram_map_preset_name(i, NULL)); i++)
				fprintf(stderr, "%s%s", i ? ", " : "", name);
			fprintf(stderr, "; or bits, as 'ch=6;bank=13,14;row=15-30;col=0-5,7-12')\n");
			return -1;
		}
		vmt_dram_map_format(&c->dram_map, bits, sizeof(bits));
		snprintf(c->dram_map_text, sizeof(c->dram_map_text), "%s: %s", arg, bits);
		return 0;
	}
	if (vmt_dram_map_parse(arg, &c->dram_map, err, sizeof(err))) {
		fprintf(stderr, "vmtrace %s: --dram-map: %s\n", CMD, err);
		return -1;
	}
	vmt_dram_map_format(&c->dram_map, c->dram_map_text, sizeof(c->dram_map_text));
	return 0;
}

static int parse_hmtt_option(void *ctx, int opt, const char *arg)
{
	struct hmtt_command *c = ctx;
	long long n;

	switch (opt) {
	case HMTT_OPT_WINDOW:
		if (parse_duration(arg, true, &c->window_ns)) {
			fprintf(stderr, "vmtrace %s: --window: bad time '%s' (more than 0: ns, or 500us, 10ms, 2s)\n",
				CMD, arg);
			return -1;
		}
		return 1;
	case HMTT_OPT_SECTION:
		return parse_sections(arg, &c->sections) ? -1 : 1;
	case HMTT_OPT_DRAM_MAP:
		return parse_dram_map(c, arg) ? -1 : 1;
	case HMTT_OPT_DRAM_WINDOW:
		n = parse_number(CMD, "--dram-window", arg, VMT_DRAM_MIN_WINDOW,
				 VMT_DRAM_MAX_WINDOW);
		if (n < 0)
			return -1;
		c->dram_window = (unsigned int)n;
		return 1;
	case ANALYSIS_OPT_SPACE:
		c->space_given = true;
		return 0;	/* analysis_command.c's to read */
	case HMTT_OPT_PLOT_SLICE:
		return hmtt_parse_slice(CMD, arg, &c->slice_first, &c->slice_count) ? -1 : 1;
	}
	return hmtt_streams_option(&c->streams, opt, arg);
}

int cmd_hmtt(int argc, char **argv)
{
	static const struct option options[] = {
		ANALYSIS_LONG_OPTIONS,
		{ "window", required_argument, NULL, HMTT_OPT_WINDOW },
		{ "section", required_argument, NULL, HMTT_OPT_SECTION },
		HMTT_STREAMS_LONG_OPTIONS,
		{ "dram-map", required_argument, NULL, HMTT_OPT_DRAM_MAP },
		{ "dram-window", required_argument, NULL, HMTT_OPT_DRAM_WINDOW },
		{ "plot-slice", required_argument, NULL, HMTT_OPT_PLOT_SLICE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hmtt_command c = {
		.dram_window = DEFAULT_DRAM_WINDOW,
	};
	struct analysis_options o = { 0 };
	struct vmt_analyze_stats stats;
	struct hmtt_analyses h;
	unsigned int sections;
	struct vmt_trace *t;
	const char *path;
	bool first = true;
	int err, status;

	hmtt_streams_defaults(&c.streams);
	status = parse_analysis_command_line(&(struct analysis_command_line){
		CMD, "h", options, usage_hmtt, parse_hmtt_option, &c }, argc, argv, &o, &path);
	if (status >= 0)
		return status;
	status = 1;
	sections = c.sections;
	if (!sections)
		sections = SECTION_DEFAULT;
	if (!c.dram_map_text[0] && parse_dram_map(&c, DEFAULT_DRAM_MAP))
		return 1;
	if (hmtt_plot_check(CMD, o.plot, sections & ~SECTION_DRAM, &c.slice_count))
		return 2;
	t = analysis_open(CMD, path, &o);
	if (!t)
		return failed_before_run();
	c.trace = t;
	/* Physical addresses, unless asked for virtual ones or there are none (exact accesses). */
	c.dram_space = o.ref.source == VMT_REF_EXACT ||
		       (c.space_given && o.ref.space == VMT_REF_VIRTUAL) ?
		       VMT_REF_VIRTUAL : VMT_REF_PHYSICAL;
	/* --plot's v2p figure takes the processes' names from interleave's analysis. */
	err = hmtt_create(&h, sections | (o.plot && sections & SECTION_V2P ?
					  SECTION_INTERLEAVE : 0), &c, &o);
	if (!err && o.plot && sections & SECTION_INTERLEAVE)
		err = vmt_interleave_keep_slice(h.all[HMTT_INTERLEAVE], c.slice_first,
						c.slice_count);
	if (err) {
		fprintf(stderr, "vmtrace %s: %s\n", CMD, strerror(-err));
		failed_before_run();
		goto out;
	}
	err = analysis_run(CMD, t, &o, h.list, h.n, &stats);
	if (err == ANALYSIS_ELSEWHERE)
		status = 0;	/* another process prints */
	if (err)
		goto out;
	if (h.all[HMTT_DMA] && !vmt_dma_traffic_records(h.all[HMTT_DMA])) {
		fprintf(stderr, "vmtrace %s: %s: no DMA records%s (record with -e dma)\n", CMD,
			path, o.filter.used ? " pass the filters" : " in the trace");
		/* Asked for alone, the section has nothing to show: an error. */
		if (sections == SECTION_DMA)
			goto out;
		sections &= ~SECTION_DMA;
	}
	if (!o.csv) {
		analysis_print_header(stdout, path, &o, &stats);
		first = false;
	}
	print_sections(&o, sections, h.all, &c, &first);
	print_processes(&o, sections, &h, &c, &first);
	fflush(stdout);
	status = o.plot ? hmtt_plot(CMD, &(struct hmtt_figures){
		.path = o.plot, .names = h.all[HMTT_INTERLEAVE],
		.v2p = sections & SECTION_V2P ? h.all[HMTT_V2P] : NULL,
		.interleave = sections & SECTION_INTERLEAVE ? h.all[HMTT_INTERLEAVE] : NULL,
		.slice_first = c.slice_first, .slice_count = c.slice_count,
		.space = o.ref.space, .scr = h.all[HMTT_SCR], .streams = &c.streams,
		.unit = o.ref.unit, .prefetch = h.all[HMTT_PREFETCH], .dma = h.all[HMTT_DMA],
		.traffic = h.all[HMTT_TRAFFIC] }) : 0;
out:
	hmtt_destroy(&h);
	vmt_trace_close(t);
	return status;
}
