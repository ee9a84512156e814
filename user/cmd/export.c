// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace export --format raw|csv|din|perfetto [options] FILE: a trace
 * file's records in other tools' formats, written as they are read (memory
 * does not grow with the trace). raw, the kernel's ring records that convert
 * turns back into the same trace, is here; the others have a file each
 * (export_csv.c, export_din.c, export_perfetto.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "export_csv.h"
#include "export_din.h"
#include "export_perfetto.h"
#include "util/cmd_util.h"
#include "util/export_records.h"
#include "util/filter_options.h"

static int export_stream(struct vmt_trace *t, uint32_t stream, FILE *out)
{
	const struct vmt_trace_stream_info *info = vmt_trace_stream(t, stream);
	struct vmt_trace_stream_stats st;
	uint8_t entry[4096];

	vmt_trace_stream_stats(t, stream, &st);
	for (uint64_t i = 0; i < st.entries; i++) {
		if (vmt_trace_read(t, stream, i, entry))
			return EXPORT_TRACE_ERROR;
		if (fwrite(entry, info->entry_size, 1, out) != 1)
			return EXPORT_WRITE_ERROR;
	}
	return 0;
}

/* A record with the most data, and the DATA records that carry it. */
#define RAW_MAX_RECORDS (1 + (VMT_MAX_DATA_LEN + VMT_DATA_CHUNK - 1) / VMT_DATA_CHUNK)

struct raw_export {
	struct vmt_trace *trace;
	FILE *out;
};

/*
 * @rec as the kernel's ring carries it (include/uapi/linux/vmtrace.h,
 * vmt_ring_write_data() in kernel/ring/ring.c): data_off 0, and its data, when it
 * has some, in the DATA records right after it, each with @rec's header but
 * its own type and length (VMT_DATA_CHUNK bytes, fewer in the last), zero
 * past the length. The trace writer's assembler takes them back apart, so
 * convert makes the same trace of them and record-raw writes the same bytes.
 */
static int write_raw(void *ctx, const struct vmt_record *rec)
{
	static uint8_t data[VMT_MAX_DATA_LEN];
	static struct vmt_record ring[RAW_MAX_RECORDS];
	struct raw_export *x = ctx;
	const char *why;
	size_t n = 1;
	int len;

	ring[0] = *rec;
	if (rec->hdr.data_len) {
		len = vmt_trace_record_data(x->trace, rec, data, sizeof(data));
		if (len < 0) {
			why = len == -ENOENT   ? "the trace has no data stream"
			      : len == -ERANGE ? "past the data stream's end"
			      : len == -ENOSPC ? "more than a record can carry"
					       : vmt_trace_error_message(x->trace);
			fprintf(stderr,
				"vmtrace export: the %s record (type %u) at %llu ns on CPU %u: its %u bytes of data at offset %llu: %s\n",
				vmt_record_type_name(rec->hdr.type) ? vmt_record_type_name(rec->hdr.type)
								    : "unknown",
				rec->hdr.type, (unsigned long long)rec->hdr.time_ns,
				rec->hdr.cpu, rec->hdr.data_len,
				(unsigned long long)rec->raw[VMT_DATA_OFF_WORD], why);
			return EXPORT_SAID;
		}
		ring[0].raw[VMT_DATA_OFF_WORD] = 0;
		for (uint32_t off = 0; off < (uint32_t)len; off += VMT_DATA_CHUNK, n++) {
			uint32_t chunk = (uint32_t)len - off < VMT_DATA_CHUNK ? (uint32_t)len - off
									   : VMT_DATA_CHUNK;

			memset(&ring[n], 0, sizeof(ring[n]));
			ring[n].hdr = rec->hdr;
			ring[n].hdr.type = VMT_REC_DATA;
			ring[n].hdr.data_len = chunk;
			memcpy(ring[n].data.bytes, data + off, chunk);
		}
	}
	return fwrite(ring, sizeof(ring[0]), n, x->out) == n ? 0 : EXPORT_WRITE_ERROR;
}

static int64_t export_raw(struct vmt_trace *t, FILE *out, const struct export_options *o)
{
	struct raw_export x = { .trace = t, .out = out };

	(void)o;
	return export_each(t, VMT_ORDER_WRITTEN, write_raw, &x);
}

static const struct export_format {
	const char *name;
	int64_t (*write)(struct vmt_trace *t, FILE *out, const struct export_options *o);
} formats[] = {
	{ "raw", export_raw },
	{ "csv", export_csv },
	{ "din", export_din },
	{ "perfetto", export_perfetto },
};

static const char export_usage[] =
	"usage: vmtrace export --format FORMAT [options] [filter options] FILE [-o OUT]\n"
	"  the records (those the filter options pass) in another tool's format, written\n"
	"  as they are read; OUT is standard output when -o is left out, where it can be\n"
	"  --format raw       every record, in the order they were written, as the kernel's\n"
	"                     rings carry them: 64-byte records, a record's variable-size\n"
	"                     data (names, paths, marker texts) in the DATA records right\n"
	"                     after it (the format record-raw writes and convert reads:\n"
	"                     convert makes the same trace of it); -o needed\n"
	"    --stream ID      that stream's entries only, as the trace stores them (no\n"
	"                     filter options; records keep data_off, no DATA records)\n"
	"  --format csv       for pandas, DuckDB, sqlite3 and spreadsheets: one CSV file a\n"
	"                     record type, -o DIR holding TYPE.csv (ref.csv, switch.csv...)\n"
	"                     for each type there is; with --type naming one type, that\n"
	"                     type's table alone into -o FILE or standard output. A header\n"
	"                     line, then a row a record in the order they were written;\n"
	"                     the columns are time,cpu,pid,tid and the record type's\n"
	"                     fields by the names dump gives them (addr, access, next_pid,\n"
	"                     text...); integers in decimal, names as dump prints them (R,\n"
	"                     W, X; map, to_device...); paths, names and texts quoted, \"\"\n"
	"                     for a double quote, \\\\ and \\xNN as in dump\n"
	"  --format din       Dinero IV's din: 'LABEL ADDRESS' a line, one a reference or an\n"
	"                     exact access in time order (0 read, 1 write, 2 instruction\n"
	"                     fetch; the address in hex); an exact read-modify-write is a\n"
	"                     read line and a write line; no size (din has none: Dinero IV\n"
	"                     takes 4 bytes) and no process, so --pid picks one; convert\n"
	"                     --from din reads it back\n"
	"  --format perfetto  the Trace Event Format JSON ui.perfetto.dev and\n"
	"                     chrome://tracing open: processes and threads named from the\n"
	"                     task, exec and comm records; the tasks each CPU ran as slices\n"
	"                     on a track a CPU (process \"CPUs\"); markers as instant events;\n"
	"                     counters a time bucket: references, working set (pages) and\n"
	"                     references of each process, DMA bytes mapped by direction\n"
	"    --bucket T       the counters' bucket (ns, or 100us, 1ms, 1s...); default:\n"
	"                     the trace's time span over 1000\n"
	"    --max-references N  also the first N references as instant events (default\n"
	"                     0: none; the UI cannot hold millions)\n"
	"  A filter that passes no record is an error (exit 1).\n";

void usage_export(FILE *out)
{
	fputs(export_usage, out);
	fputs(filter_options_usage, out);
	fputs(filter_range_options_usage, out);
}

static const struct export_format *find_format(const char *name)
{
	for (size_t i = 0; i < sizeof(formats) / sizeof(formats[0]); i++)
		if (!strcmp(formats[i].name, name))
			return &formats[i];
	return NULL;
}

/* The record types' bits @types has: 1 for exactly one. */
static bool one_type(uint32_t types)
{
	return types && !(types & (types - 1));
}

static int64_t run_export(struct vmt_trace *t, const struct export_format *format,
			  long long stream, struct export_options *o)
{
	bool to_dir = format->write == export_csv && !one_type(o->types);
	FILE *out = stdout;
	int64_t ret;

	if (o->out_path && !to_dir) {
		out = fopen(o->out_path, "wb");
		if (!out) {
			fprintf(stderr, "vmtrace export: cannot write %s: %s\n", o->out_path,
				strerror(errno));
			return EXPORT_SAID;
		}
	}
	if (stream >= 0)
		ret = export_stream(t, (uint32_t)stream, out);
	else
		ret = format->write(t, to_dir ? NULL : out, o);
	if (!to_dir)
		ret = export_check_output(out, ret);
	if (out != stdout && fclose(out) && ret >= 0)
		ret = EXPORT_WRITE_ERROR;
	return ret;
}

int cmd_export(int argc, char **argv)
{
	static const struct option options[] = {
		{ "format", required_argument, NULL, 'F' },
		{ "stream", required_argument, NULL, 's' },
		{ "output", required_argument, NULL, 'o' },
		{ "bucket", required_argument, NULL, 'b' },
		{ "max-references", required_argument, NULL, 'm' },
		{ "help", no_argument, NULL, 'h' },
		FILTER_LONG_OPTIONS,
		FILTER_RANGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	const char *format_name = NULL, *path;
	struct filter_options filter = { 0 };
	const struct export_format *format;
	struct export_options o = { 0 };
	long long stream = -1, max_refs = -1;
	bool bucket_given = false, filtered;
	struct vmt_trace *t;
	int64_t ret;
	int opt, n;

	while ((opt = getopt_long(argc, argv, "o:h" FILTER_SHORT_OPTIONS, options, NULL)) != -1) {
		switch (opt) {
		case 'F':
			format_name = optarg;
			break;
		case 's':
			stream = parse_number("export", "stream", optarg, 0, UINT32_MAX);
			if (stream < 0)
				return 2;
			break;
		case 'o':
			o.out_path = optarg;
			break;
		case 'b':
			if (parse_duration(optarg, true, &o.bucket_ns)) {
				fprintf(stderr, "vmtrace export: --bucket '%s' is not a duration (1000, 100us, 1ms, 1s)\n",
					optarg);
				return 2;
			}
			bucket_given = true;
			break;
		case 'm':
			max_refs = parse_number("export", "max-references", optarg, 0, INT64_MAX);
			if (max_refs < 0)
				return 2;
			o.max_references = (uint64_t)max_refs;
			break;
		case 'h':
			usage_export(stdout);
			return 0;
		default:
			n = parse_filter_option("export", opt, optarg, &filter);
			if (n < 0)
				return 2;
			if (!n) {
				usage_export(stderr);
				return 2;
			}
		}
	}
	if (optind != argc - 1 || !format_name) {
		usage_export(stderr);
		return 2;
	}
	path = argv[optind];
	format = find_format(format_name);
	if (!format) {
		fprintf(stderr, "vmtrace export: unknown format '%s' (raw, csv, din or perfetto)\n",
			format_name);
		return 2;
	}
	o.types = filter.filter.types;
	o.to_time = UINT64_MAX;
	if (filter.filter.time_range) {
		o.from_time = filter.filter.from_time;
		o.to_time = filter.filter.to_time;
	}
	if (stream >= 0 && (format->write != export_raw || filter.used)) {
		fprintf(stderr, "vmtrace export: --stream goes with --format raw alone, without filter options\n");
		return 2;
	}
	if ((bucket_given || max_refs >= 0) && format->write != export_perfetto) {
		fprintf(stderr, "vmtrace export: --bucket and --max-references are --format perfetto's\n");
		return 2;
	}
	if (!o.out_path && format->write == export_raw) {
		fprintf(stderr, "vmtrace export: --format raw needs -o OUT (binary records)\n");
		return 2;
	}
	if (!o.out_path && format->write == export_csv && !one_type(o.types)) {
		fprintf(stderr, "vmtrace export: --format csv writes a file a record type: -o DIR, or --type naming one type\n");
		return 2;
	}
	filtered = filter.used;
	if (format->write == export_din) {
		/* din holds accesses alone: the other streams need not be decoded. */
		uint32_t accesses = 1u << VMT_REC_REFERENCE | 1u << VMT_REC_EXACT;

		if (o.types && !(o.types & accesses)) {
			fprintf(stderr, "vmtrace export: --format din writes references and exact accesses alone: --type leaves none\n");
			return 2;
		}
		filter.filter.types = o.types ? o.types & accesses : accesses;
		filter.used = true;
	}
	t = open_or_say("export", path, 0);
	if (!t)
		return 1;
	if (stream >= vmt_trace_nr_streams(t)) {
		fprintf(stderr, "vmtrace export: %s has no stream %lld (%u streams)\n", path, stream,
			vmt_trace_nr_streams(t));
		vmt_trace_close(t);
		return 1;
	}
	if (apply_filter_options("export", t, &filter)) {
		vmt_trace_close(t);
		return 1;
	}
	ret = run_export(t, format, stream, &o);
	if (ret == EXPORT_TRACE_ERROR)
		fprintf(stderr, "vmtrace export: %s: %s\n", path, vmt_trace_error_message(t));
	else if (ret == EXPORT_WRITE_ERROR)
		fprintf(stderr, "vmtrace export: writing %s: %s\n",
			o.out_path ? o.out_path : "standard output", strerror(errno));
	else if (ret == EXPORT_NO_MEMORY)
		fprintf(stderr, "vmtrace export: %s\n", strerror(ENOMEM));
	else if (ret == 0 && filtered)
		fprintf(stderr, "vmtrace export: no record of %s passes the filter options\n", path);
	vmt_trace_close(t);
	return ret > 0 || (ret == 0 && !filtered) ? 0 : 1;
}
