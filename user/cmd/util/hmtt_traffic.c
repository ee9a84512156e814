// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace hmtt's traffic tables (hmtt_traffic.h): DMA requests by device
 * and direction with their sizes' distribution (HMTT's Table 4 and Figure
 * 16), and the traffic section: CPU and DMA reads and writes (Table 3),
 * bytes per interval, kernel and user mode, and the untranslatable share
 * (Figure 17). docs/analysis/hmtt.md defines each figure.
 */
#include <stdio.h>
#include <string.h>

#include "analysis_command.h"
#include "hmtt_traffic.h"
#include "record_print.h"

static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0.0;
}

/* Whether CSV must quote @name: a comma, a quote, or a byte dump escapes. */
static bool needs_quotes(const char *name)
{
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		if (*p == ',' || *p == '"' || *p == '\\' || *p < 0x20 || *p > 0x7e)
			return true;
	return false;
}

/* A device's name as dump prints it (without dump's quotes); "-" when unnamed. */
static void print_device(bool csv, const char *name, int width)
{
	int len = (int)strlen(name);

	if (!*name) {
		printf("%-*s", width, "-");
		return;
	}
	if (csv && needs_quotes(name)) {
		putchar('"');
		print_escaped(stdout, name, (uint32_t)len, "\"\"");
		putchar('"');
		return;
	}
	print_escaped(stdout, name, (uint32_t)len, "\\\"");
	if (width > len)
		printf("%*s", width - len, "");
}

void hmtt_print_dma_devices(bool csv, const struct vmt_analysis *dma, bool *first)
{
	const struct vmt_dma_size_bucket *sizes = vmt_dma_traffic_sizes(dma);
	const struct vmt_dma_device *devs;
	size_t n = vmt_dma_traffic_devices(dma, &devs), i, b;
	uint64_t requests = 0, bytes = 0;
	int width = 6;
	char c[3][32], range[80];

	if (!n)
		return;
	for (i = 0; i < n; i++) {
		requests += devs[i].requests;
		bytes += devs[i].bytes;
		if ((int)strlen(devs[i].name) > width)
			width = (int)strlen(devs[i].name);
	}
	print_table_title(csv, first, "DMA requests by device and direction (HMTT's Table 4). A request is a call:\n"
		   "a map_page, or a map_sg's segments together (segments: the records); to_device:\n"
		   "the device reads memory, from_device: it writes; coherent allocations are none.\n"
		   "requests%, bytes%: of all devices' requests and bytes; avg: bytes / requests");
	if (csv)
		printf("device,direction,requests,segments,bytes,requests_pct,bytes_pct,avg_bytes\n");
	else
		printf("  %-*s %-13s %12s %12s %16s %9s %7s %14s\n", width, "device", "direction",
		       "requests", "segments", "bytes", "requests%", "bytes%", "avg");
	for (i = 0; i < n; i++) {
		const struct vmt_dma_device *d = &devs[i];

		if (csv) {
			print_device(true, d->name, 0);
			printf(",%s,%llu,%llu,%llu,%.4f,%.4f,%.2f\n", dma_dir_name(d->dir),
			       (unsigned long long)d->requests, (unsigned long long)d->segments,
			       (unsigned long long)d->bytes, percent_of(d->requests, requests),
			       percent_of(d->bytes, bytes), ratio(d->bytes, d->requests));
			continue;
		}
		printf("  ");
		print_device(false, d->name, width);
		printf(" %-13s %12s %12s %16s %8.2f%% %6.2f%% %14.1f\n", dma_dir_name(d->dir),
		       fmt_count(d->requests, c[0]), fmt_count(d->segments, c[1]),
		       fmt_count(d->bytes, c[2]), percent_of(d->requests, requests),
		       percent_of(d->bytes, bytes), ratio(d->bytes, d->requests));
	}

	print_table_title(csv, first, "DMA request sizes by device and direction (HMTT's Figure 16): requests\n"
		   "in power-of-two ranges of bytes, cumulative: of the device's in that direction");
	if (csv)
		printf("device,direction,size_lo,size_hi,requests,percent,cumulative_pct\n");
	else
		printf("  %-*s %-13s %27s %12s %8s %11s\n", width, "device", "direction", "size",
		       "requests", "percent", "cumulative");
	for (i = 0; i < n; i++) {
		const struct vmt_dma_device *d = &devs[i];
		uint64_t cumulative = 0;

		for (b = 0; b < VMT_DMA_SIZE_BUCKETS; b++) {
			if (!d->sizes[b])
				continue;
			cumulative += d->sizes[b];
			if (csv) {
				print_device(true, d->name, 0);
				printf(",%s,%llu,%llu,%llu,%.4f,%.4f\n", dma_dir_name(d->dir),
				       (unsigned long long)sizes[b].lo,
				       (unsigned long long)sizes[b].hi,
				       (unsigned long long)d->sizes[b],
				       percent_of(d->sizes[b], d->requests),
				       percent_of(cumulative, d->requests));
				continue;
			}
			printf("  ");
			print_device(false, d->name, width);
			snprintf(range, sizeof(range), "%s..%s", fmt_count(sizes[b].lo, c[0]),
				 fmt_count(sizes[b].hi, c[1]));
			printf(" %-13s %27s %12s %7.2f%% %10.2f%%\n", dma_dir_name(d->dir), range,
			       fmt_count(d->sizes[b], c[2]), percent_of(d->sizes[b], d->requests),
			       percent_of(cumulative, d->requests));
		}
	}
}

static const char *const kind_names[VMT_TRAFFIC_KINDS] = {
	"cpu_read", "cpu_write", "dma_read", "dma_write",
};

static const char *basis_name(enum vmt_traffic_basis b)
{
	return b == VMT_TRAFFIC_OBSERVED ? "observed" :
	       b == VMT_TRAFFIC_ESTIMATED ? "estimated" : "upper bound";
}

static void print_kinds(bool csv, const struct vmt_traffic_result *r, bool *first)
{
	uint64_t all = 0;
	char title[640], c[3][32];
	unsigned int k;

	for (k = 0; k < VMT_TRAFFIC_KINDS; k++)
		all += r->bytes[k];
	snprintf(title, sizeof(title), "memory traffic by kind (HMTT's Table 3): each kind's bytes and share of\n"
		 "the four's. CPU: %s reference records, %s exact accesses, %s bus records;\n"
		 "a read-modify-write is a read and a write, a bidirectional mapping a DMA read\n"
		 "and write. basis: observed, every access's bytes; estimated, a page touched\n"
		 "counted as its unit's bytes; upper bound, a mapping's size, the most a device moves",
		 fmt_count(r->fault_references, c[0]), fmt_count(r->exact_accesses, c[1]),
		 fmt_count(r->bus_records, c[2]));
	print_table_title(csv, first, title);
	if (csv)
		printf("kind,count,bytes,share_pct,basis\n");
	else
		printf("  %-10s %14s %18s %8s  %s\n", "kind", "count", "bytes", "share", "basis");
	for (k = 0; k < VMT_TRAFFIC_KINDS; k++) {
		if (csv)
			printf("%s,%llu,%llu,%.4f,%s\n", kind_names[k],
			       (unsigned long long)r->count[k], (unsigned long long)r->bytes[k],
			       percent_of(r->bytes[k], all), basis_name(r->basis[k]));
		else
			printf("  %-10s %14s %18s %7.2f%%  %s\n", kind_names[k],
			       fmt_count(r->count[k], c[0]), fmt_count(r->bytes[k], c[1]),
			       percent_of(r->bytes[k], all), basis_name(r->basis[k]));
	}
}

static void print_interval(bool csv, const char *when, const struct vmt_traffic_interval *iv)
{
	double seconds = (double)iv->duration_ns / 1e9;
	char c[8][32];
	unsigned int k;

	if (csv) {
		printf("%s,%.9f", when, seconds);
		for (k = 0; k < VMT_TRAFFIC_KINDS; k++)
			printf(",%llu", (unsigned long long)iv->bytes[k]);
		for (k = 0; k < VMT_TRAFFIC_KINDS; k++)
			printf(",%.1f", seconds > 0 ? (double)iv->bytes[k] / seconds : 0.0);
		putchar('\n');
		return;
	}
	printf("  %12s %12.6f", when, seconds);
	for (k = 0; k < VMT_TRAFFIC_KINDS; k++)
		printf(" %16s", fmt_count(iv->bytes[k], c[k]));
	for (k = 0; k < VMT_TRAFFIC_KINDS; k++) {
		fmt_bytes(seconds > 0 ? (double)iv->bytes[k] / seconds : 0.0, c[4 + k]);
		printf(" %12s/s", c[4 + k]);
	}
	putchar('\n');
}

static void print_bandwidth(bool csv, const struct vmt_analysis *a, bool *first)
{
	const struct vmt_traffic_result *r = vmt_traffic_result(a);
	const struct vmt_traffic_interval *ivs;
	size_t n = vmt_traffic_intervals(a, &ivs), i;
	struct vmt_traffic_interval all = { .start_ns = r->start_ns };
	char when[32];

	print_table_title(csv, first, "bandwidth: each kind's bytes per interval, and per second of it (an\n"
		   "interval lasts the window; the last ends at the last record counted, + 1 ns)");
	if (csv)
		printf("start_s,duration_s,cpu_read_bytes,cpu_write_bytes,dma_read_bytes,dma_write_bytes,"
		       "cpu_read_bps,cpu_write_bps,dma_read_bps,dma_write_bps\n");
	else
		printf("  %12s %12s %16s %16s %16s %16s %14s %14s %14s %14s\n", "start_s",
		       "duration_s", "cpu_read", "cpu_write", "dma_read", "dma_write", "cpu_read",
		       "cpu_write", "dma_read", "dma_write");
	for (i = 0; i < n; i++) {
		snprintf(when, sizeof(when), "%.6f", (double)(ivs[i].start_ns - r->start_ns) / 1e9);
		print_interval(csv, when, &ivs[i]);
		for (unsigned int k = 0; k < VMT_TRAFFIC_KINDS; k++)
			all.bytes[k] += ivs[i].bytes[k];
	}
	all.duration_ns = r->end_ns - r->start_ns;
	if (n > 1)
		print_interval(csv, "all", &all);
}

static void print_modes(bool csv, const struct vmt_traffic_result *r, bool *first)
{
	static const char *const names[2] = { "user", "kernel" };
	uint64_t all = r->mode[0].references + r->mode[1].references;
	char c[5][32];

	print_table_title(csv, first, "references by mode (kernel_mode: a system call's copy, a fault the\n"
		   "kernel took on a user page): reads and writes of each, a read-modify-write in both");
	if (csv)
		printf("mode,references,share_pct,reads,writes,read_bytes,write_bytes\n");
	else
		printf("  %-7s %14s %8s %14s %14s %16s %16s\n", "mode", "references", "share",
		       "reads", "writes", "read_bytes", "write_bytes");
	for (unsigned int m = 0; m < 2; m++) {
		const struct vmt_traffic_mode *x = &r->mode[m];

		if (csv)
			printf("%s,%llu,%.4f,%llu,%llu,%llu,%llu\n", names[m],
			       (unsigned long long)x->references, percent_of(x->references, all),
			       (unsigned long long)x->reads, (unsigned long long)x->writes,
			       (unsigned long long)x->read_bytes,
			       (unsigned long long)x->write_bytes);
		else
			printf("  %-7s %14s %7.2f%% %14s %14s %16s %16s\n", names[m],
			       fmt_count(x->references, c[0]), percent_of(x->references, all),
			       fmt_count(x->reads, c[1]), fmt_count(x->writes, c[2]),
			       fmt_count(x->read_bytes, c[3]), fmt_count(x->write_bytes, c[4]));
	}
}

static void print_untranslatable_row(bool csv, const char *what, uint64_t count, uint64_t bad,
				     uint64_t left_out)
{
	char c[3][32];

	if (csv)
		printf("%s,%llu,%llu,%.4f,%llu\n", what, (unsigned long long)count,
		       (unsigned long long)bad, percent_of(bad, count), (unsigned long long)left_out);
	else
		printf("  %-15s %14s %14s %7.2f%% %14s\n", what, fmt_count(count, c[0]),
		       fmt_count(bad, c[1]), percent_of(bad, count), fmt_count(left_out, c[2]));
}

static void print_untranslatable(bool csv, const struct vmt_traffic_result *r, bool *first)
{
	uint64_t cpu_left = r->fault_references + r->exact_accesses + r->bus_records -
			    r->cpu_references;

	print_table_title(csv, first, "untranslatable physical traffic (HMTT's Figure 17, \"miss rate\"): of the\n"
		   "CPU references that name a frame (one each) and the DMA map records' 64-byte\n"
		   "lines at their physical address, those whose 4 KiB frame no (pid, virtual page)\n"
		   "was known mapped at, at the time (known: seen there in a reference, eviction or\n"
		   "PAGEMAP map record, not unmapped or seen elsewhere since). A reference record\n"
		   "names its page: no CPU reference is untranslatable. left_out: records without\n"
		   "a frame (exact accesses have none) or a physical address");
	if (csv)
		printf("traffic,count,untranslatable,untranslatable_pct,left_out\n");
	else
		printf("  %-15s %14s %14s %8s %14s\n", "traffic", "count", "untranslatable",
		       "share", "left_out");
	print_untranslatable_row(csv, "cpu_references", r->cpu_references, r->cpu_untranslatable,
				 cpu_left);
	print_untranslatable_row(csv, "dma_lines", r->dma_lines, r->dma_untranslatable,
				 r->dma_no_phys);
	print_untranslatable_row(csv, "all", r->cpu_references + r->dma_lines,
				 r->cpu_untranslatable + r->dma_untranslatable,
				 cpu_left + r->dma_no_phys);
}

void hmtt_print_traffic(bool csv, const struct vmt_analysis *traffic, bool *first)
{
	const struct vmt_traffic_result *r = vmt_traffic_result(traffic);

	print_kinds(csv, r, first);
	print_bandwidth(csv, traffic, first);
	print_modes(csv, r, first);
	print_untranslatable(csv, r, first);
}
