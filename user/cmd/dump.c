// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace dump [--order written|time] [--diff] [filter options] FILE: a
 * trace file's records, one a line, in record_print.c's format (dump-raw's)
 * or record_diff.c's difference-encoded text. With --follow, a file still
 * being written, its records as their frames complete (dump_follow()).
 */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/cmd_util.h"
#include "util/filter_options.h"
#include "util/record_diff.h"
#include "util/record_print.h"

static const char dump_usage[] =
	"usage: vmtrace dump [--order written|time] [--diff] [filter options] FILE\n"
	"       vmtrace dump --follow [--diff] FILE\n"
	"  one record a line, in the order they were written (default) or by time\n"
	"  --follow         FILE is still being written (record's, a relay's): print\n"
	"                   each frame's records as the frame completes, stream by\n"
	"                   stream, until the writer finishes the file (a record whose\n"
	"                   data is not in yet waits for it); the same lines as dump,\n"
	"                   in another order\n"
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

struct follow {
	struct vmt_trace *t;
	struct record_diff *diff;
	uint64_t *printed;		/* per stream: entries printed */
	uint32_t nr_streams;
	struct vmt_record *waiting;	/* records whose data is not in yet */
	size_t nr_waiting, waiting_cap;
};

/* Print @rec, or keep it until its data is in (unless @last): 0 or -errno. */
static int follow_print(struct follow *f, const struct vmt_record *rec, bool last)
{
	static unsigned char data[VMT_MAX_DATA_LEN];
	int len = rec->hdr.data_len ? vmt_trace_record_data(f->t, rec, data, sizeof(data)) : 0;

	if (len < 0 && !last && (len == -ERANGE || len == -ENOENT)) {
		if (f->nr_waiting == f->waiting_cap) {
			size_t cap = f->waiting_cap ? 2 * f->waiting_cap : 64;
			struct vmt_record *w = realloc(f->waiting, cap * sizeof(*w));

			if (!w)
				return -ENOMEM;
			f->waiting = w;
			f->waiting_cap = cap;
		}
		f->waiting[f->nr_waiting++] = *rec;
		return 0;
	}
	if (f->diff)
		return record_diff_print(f->diff, stdout, rec) ? -ENOMEM : 0;
	print_record(stdout, rec, len >= 0 ? data : NULL);
	return 0;
}

/* The records of every frame completed since the last round. */
static int follow_round(struct follow *f, bool last)
{
	size_t n = f->nr_waiting;
	int err = 0;

	if (vmt_trace_nr_streams(f->t) > f->nr_streams) {
		uint32_t nr = vmt_trace_nr_streams(f->t);
		uint64_t *p = realloc(f->printed, nr * sizeof(*p));

		if (!p)
			return -ENOMEM;
		memset(p + f->nr_streams, 0, (nr - f->nr_streams) * sizeof(*p));
		f->printed = p;
		f->nr_streams = nr;
	}
	/* Those that waited for their data first, in the order they came. */
	f->nr_waiting = 0;
	for (size_t i = 0; i < n && !err; i++)
		err = follow_print(f, &f->waiting[i], last);
	for (uint32_t s = 0; s < f->nr_streams && !err; s++) {
		struct vmt_trace_stream_stats st;
		struct vmt_record rec;

		if (vmt_trace_stream(f->t, s)->kind != VMT_STREAM_RECORDS)
			continue;
		err = vmt_trace_stream_stats(f->t, s, &st);
		for (; !err && f->printed[s] < st.entries; f->printed[s]++) {
			err = vmt_trace_read(f->t, s, f->printed[s], &rec);
			if (!err)
				err = follow_print(f, &rec, last);
		}
	}
	fflush(stdout);
	return err;
}

static int dump_follow(const char *path, bool diff)
{
	struct follow f = { 0 };
	struct vmt_trace_error e;
	int done = 0, err;

	err = vmt_trace_open(&f.t, path, VMT_TRACE_OPEN_GROWING, &e);
	if (err) {
		fprintf(stderr, "vmtrace dump: %s\n", e.message);
		return 1;
	}
	if (diff) {
		f.diff = record_diff_new();
		if (!f.diff) {
			vmt_trace_close(f.t);
			return 1;
		}
		record_diff_header(stdout);
	}
	while (!err) {
		done = vmt_trace_follow(f.t);
		if (done < 0) {
			err = done;
			break;
		}
		err = follow_round(&f, done);
		if (done)
			break;
		usleep(100 * 1000);
	}
	if (err)
		fprintf(stderr, "vmtrace dump: %s: %s\n", path,
			err == -ENOMEM ? strerror(ENOMEM) : vmt_trace_error_message(f.t));
	record_diff_free(f.diff);
	free(f.printed);
	free(f.waiting);
	vmt_trace_close(f.t);
	return err ? 1 : 0;
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
		{ "follow", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		FILTER_LONG_OPTIONS,
		FILTER_RANGE_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	enum vmt_trace_order order = VMT_ORDER_WRITTEN;
	struct filter_options filter = { 0 };
	struct vmt_trace_cursor *cursor;
	struct vmt_trace *t;
	bool diff = false, follow = false, other = false;
	int opt, n;

	while ((opt = getopt_long(argc, argv, "h" FILTER_SHORT_OPTIONS, options, NULL)) != -1) {
		if (opt == 'O' && !strcmp(optarg, "written")) {
			order = VMT_ORDER_WRITTEN;
			other = true;
		} else if (opt == 'O' && !strcmp(optarg, "time")) {
			order = VMT_ORDER_TIME;
			other = true;
		} else if (opt == 'f') {
			follow = true;
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
			other = true;
		}
	}
	if (optind != argc - 1) {
		usage_dump(stderr);
		return 2;
	}
	if (follow && other) {
		fprintf(stderr, "vmtrace dump: --follow takes --diff alone: no --order, no filter\n");
		return 2;
	}
	if (follow)
		return dump_follow(argv[optind], diff);
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
