// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace dump [--order written|time] [--diff] [filter options] FILE: a
 * trace file's records, one a line, in record_print.c's format (dump-raw's)
 * or record_diff.c's difference-encoded text.
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/cmd_util.h"
#include "util/filter_options.h"
#include "util/record_diff.h"
#include "util/record_print.h"

static const char dump_usage[] =
	"usage: vmtrace dump [--order written|time] [--diff] [filter options] FILE\n"
	"  one record a line, in the order they were written (default) or by time\n"
	"  --diff           difference-encoded text, in the manner of Laplace's traces:\n"
	"                   '# vmtrace diff 1: dt pid tid cpu kind delta', then a line a\n"
	"                   record, 'DT PID TID CPU KIND DELTA':\n"
	"                   DT     ns since the previous line's record (signed; the first\n"
	"                          line's: its time)\n"
	"                   KIND   R, W or X (the access), then k if from kernel mode;\n"
	"                          E an eviction, then d if written while enabled;\n"
	"                          h after either: a huge page; L lost records (PID and TID\n"
	"                          are -, DELTA is the count); another type: its name\n"
	"                          as dump prints it (switch, fork, ...), DELTA 0\n"
	"                   DELTA  the address minus the same pid's previous one of\n"
	"                          the same kind (reference or eviction); signed decimal;\n"
	"                          a pid's first of each kind: the address\n";

/* 0, -ENOMEM, or another -errno with the message in the trace. */
static int dump_records(struct vmt_trace *t, struct vmt_trace_cursor *cursor, bool diff)
{
	static unsigned char data[VMT_MAX_DATA_LEN];
	struct record_diff *d = NULL;
	const struct vmt_record *rec;
	uint32_t stream;
	int n;

	if (diff) {
		d = record_diff_new();
		if (!d)
			return -ENOMEM;
		record_diff_header(stdout);
	}
	while ((n = vmt_trace_cursor_next(cursor, &rec, &stream)) > 0) {
		if (!d) {
			print_record(stdout, rec,
				     vmt_trace_record_data(t, rec, data, sizeof(data)) >= 0 ?
				     data : NULL);
		} else if (record_diff_print(d, stdout, rec)) {
			n = -ENOMEM;
			break;
		}
	}
	record_diff_free(d);
	return n;
}

void usage_dump(FILE *out)
{
	fputs(dump_usage, out);
	fputs(filter_options_usage, out);
	fputs(filter_range_options_usage, out);
}

int cmd_dump(int argc, char **argv)
{
	static const struct option options[] = {
		{ "order", required_argument, NULL, 'O' },
		{ "diff", no_argument, NULL, 'd' },
		{ "help", no_argument, NULL, 'h' },
		FILTER_LONG_OPTIONS,
		FILTER_RANGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	enum vmt_trace_order order = VMT_ORDER_WRITTEN;
	struct filter_options filter = { 0 };
	struct vmt_trace_cursor *cursor;
	struct vmt_trace *t;
	bool diff = false;
	int opt, n;

	while ((opt = getopt_long(argc, argv, "h" FILTER_SHORT_OPTIONS, options, NULL)) != -1) {
		if (opt == 'O' && !strcmp(optarg, "written")) {
			order = VMT_ORDER_WRITTEN;
		} else if (opt == 'O' && !strcmp(optarg, "time")) {
			order = VMT_ORDER_TIME;
		} else if (opt == 'd') {
			diff = true;
		} else if (opt == 'h') {
			usage_dump(stdout);
			return 0;
		} else {
			n = parse_filter_option("dump", opt, optarg, &filter);
			if (n < 0)
				return 2;
			if (!n) {
				usage_dump(stderr);
				return 2;
			}
		}
	}
	if (optind != argc - 1) {
		usage_dump(stderr);
		return 2;
	}
	t = open_or_say("dump", argv[optind], 0);
	if (!t)
		return 1;
	if (apply_filter_options("dump", t, &filter)) {
		vmt_trace_close(t);
		return 1;
	}
	if (vmt_trace_cursor_create(t, order, &cursor)) {
		fprintf(stderr, "vmtrace dump: %s\n", vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	n = dump_records(t, cursor, diff);
	if (n < 0)
		fprintf(stderr, "vmtrace dump: %s: %s\n", argv[optind],
			n == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(t));
	vmt_trace_cursor_free(cursor);
	vmt_trace_close(t);
	return n < 0 ? 1 : 0;
}
