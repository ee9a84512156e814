// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace record-raw [-o FILE] [tracer options] (-p PID ... | -a | -- COMMAND [ARGS...])
 *
 * The smallest end-to-end reader: traces COMMAND or the running PIDs
 * (collect.c) and writes the raw 64-byte records to FILE (default
 * vmtrace.raw) as it drains them. `vmtrace record` writes a compressed,
 * seekable trace instead; this one proves the path and feeds the tests.
 * `dump-raw` prints such a file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/collect.h"
#include "commands.h"
#include "device/record_assembler.h"
#include "util/record_print.h"

static const char record_raw_usage[] =
	"usage: vmtrace record-raw [-o FILE] [-a] [-r RECORDS] [--overwrite] [--follow]\n"
	"                          [--protect [-n PAGES] [--policy fifo|clock] [--reprotect-ms MS]]\n"
	"                          (-p PID ... | -a | -- COMMAND [ARGS...])\n";

static int write_raw(void *ctx, const struct vmt_record *records, size_t n)
{
	return fwrite(records, sizeof(*records), n, ctx) == n ? 0 : -EIO;
}

void usage_record_raw(FILE *out)
{
	fputs(record_raw_usage, out);
	fputs(collect_options_usage, out);
}

int cmd_record_raw(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		COLLECT_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *path = "vmtrace.raw";
	struct collect_options copts;
	struct collect_sink sink = { .records = write_raw };
	const struct vmt_status *st;
	struct collector *c;
	int opt, taken, status;
	FILE *out;

	collect_options_init(&copts);
	while ((opt = getopt_long(argc, argv, "+o:" COLLECT_SHORT_OPTIONS, options, NULL)) != -1) {
		if (opt == 'o') {
			path = optarg;
			continue;
		}
		taken = collect_parse_option("record-raw", opt, optarg, &copts);
		if (taken < 0)
			return 2;
		if (!taken) {
			usage_record_raw(stderr);
			return 2;
		}
	}
	if (collect_check_options("record-raw", &copts, optind < argc)) {
		usage_record_raw(stderr);
		return 2;
	}
	c = collector_open("record-raw", &copts);
	if (!c)
		return 1;
	out = fopen(path, "wb");
	if (!out) {
		fprintf(stderr, "vmtrace record-raw: cannot write %s: %s\n", path, strerror(errno));
		collector_close(c);
		return 1;
	}
	sink.ctx = out;
	status = collector_run(c, optind < argc ? argv + optind : NULL, &sink);
	if (fclose(out) && status != 1) {
		fprintf(stderr, "vmtrace record-raw: closing %s: %s\n", path, strerror(errno));
		status = 1;
	}
	st = collector_status(c);
	if (st) {
		fprintf(stderr, "[ vmtrace record-raw: wrote %s (%llu records, %llu faults, %llu lost",
			path, (unsigned long long)collector_records(c),
			(unsigned long long)st->faults, (unsigned long long)st->lost);
		collector_print_lost(c, stderr);
		fprintf(stderr, ") ]\n");
		collector_print_counters(c, stderr);
	}
	collector_close(c);
	return status;
}

/*
 * A record with data waits for the DATA records that follow it on its CPU
 * (the kernel writes them together), then prints with them: the order
 * `vmtrace dump` gives a trace file made of the same records.
 */
static int raw_print_assembled(void *out, const struct vmt_record *rec, const uint8_t *data,
			       bool cut)
{
	(void)cut;
	print_record(out, rec, data);
	return 0;
}

/* One record of the raw file: printed now, held, or added to a held one. */
static int raw_dump_one(struct vmt_record_assembler *assembler, const struct vmt_record *rec)
{
	int ret = rec->hdr.cpu < VMT_MAX_CPUS ? vmt_record_assembler_add(assembler, rec)
					      : VMT_ASSEMBLY_NO_DATA;

	if (ret > 0)
		print_record(stdout, rec, NULL);
	return ret < 0 ? ret : 0;
}

/* vmtrace dump-raw FILE: one record a line. */
void usage_dump_raw(FILE *out)
{
	fputs("usage: vmtrace dump-raw FILE\n"
	      "  print a raw record file (record-raw's), one record a line\n", out);
}

int cmd_dump_raw(int argc, char **argv)
{
	struct vmt_record_assembler assembler;
	struct vmt_record rec;
	unsigned long long index = 0;
	int status = 0;
	size_t n;
	FILE *in;

	if (argc != 2 || argv[1][0] == '-') {
		usage_dump_raw(stderr);
		return 2;
	}
	in = fopen(argv[1], "rb");
	if (!in) {
		fprintf(stderr, "vmtrace dump-raw: cannot read %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	vmt_record_assembler_init(&assembler, raw_print_assembled, stdout);
	while ((n = fread(&rec, 1, sizeof(rec), in)) == sizeof(rec)) {
		if (raw_dump_one(&assembler, &rec)) {
			fprintf(stderr, "vmtrace dump-raw: out of memory\n");
			status = 1;
			break;
		}
		index++;
	}
	vmt_record_assembler_flush(&assembler);
	vmt_record_assembler_free(&assembler);
	if (!status && (ferror(in) || n)) {
		fprintf(stderr, "vmtrace dump-raw: %s: %s at record %llu (byte offset %llu)\n",
			argv[1], n ? "truncated record" : "read error", index,
			index * (unsigned long long)sizeof(rec));
		status = 1;
	}
	fclose(in);
	return status;
}
