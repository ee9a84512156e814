// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace seek: reach entries of a trace by index and by time through its
 * directory, and show what it took: how long opening took, and for each
 * seek the entry found and the frames decoded (vmt_trace_frames_decoded()),
 * so that anyone can see a seek read one frame of a large file, not all.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "commands.h"
#include "util/cmd_util.h"
#include "util/record_print.h"

#define MAX_SEEKS 64

static const char seek_usage[] =
	"usage: vmtrace seek [--stream ID] [--index I]... [--time NS]... [--random N [--seed S]] FILE\n"
	"  open FILE (the directory only), then reach entry I, or the first entry at or\n"
	"  after time NS, of one stream (default: the record stream with the most\n"
	"  entries); print each entry found and the frames decoded to find it\n"
	"  --random N       N random indices and N random times within the stream\n";

void usage_seek(FILE *out)
{
	fputs(seek_usage, out);
}

struct seek_plan {
	long long stream;
	uint64_t values[MAX_SEEKS];
	bool by_time[MAX_SEEKS];
	unsigned int nr;
	long long random;
	unsigned long long seed;
};

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The record stream with the most entries; -1 when there is none. */
static long long largest_record_stream(struct vmt_trace *t)
{
	uint64_t most = 0;
	long long best = -1;

	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;

		if (vmt_trace_stream(t, i)->kind != VMT_STREAM_RECORDS ||
		    vmt_trace_stream_stats(t, i, &st) || st.entries <= most)
			continue;
		most = st.entries;
		best = i;
	}
	return best;
}

static void print_entry(struct vmt_trace *t, uint32_t stream, const void *entry)
{
	static unsigned char data[VMT_MAX_DATA_LEN];

	if (vmt_trace_stream(t, stream)->kind == VMT_STREAM_RECORDS)
		print_record(stdout, entry,
			     vmt_trace_record_data(t, entry, data, sizeof(data)) >= 0 ? data : NULL);
	else
		printf("(a %u-byte entry)\n", vmt_trace_stream(t, stream)->entry_size);
}

/* One seek: 0, or -1 having said why it failed. */
static int seek_one(struct vmt_trace *t, uint32_t stream, uint64_t value, bool by_time)
{
	uint64_t before = vmt_trace_frames_decoded(t), index = value;
	_Alignas(8) unsigned char entry[4096];
	int64_t found;

	if (by_time) {
		found = vmt_trace_seek_time(t, stream, value);
		if (found < 0) {
			fprintf(stderr, "vmtrace seek: time %llu: %s\n", (unsigned long long)value,
				vmt_trace_error_message(t));
			return -1;
		}
		index = (uint64_t)found;
		printf("time %llu: index %llu", (unsigned long long)value,
		       (unsigned long long)index);
	} else {
		printf("index %llu", (unsigned long long)index);
	}
	if (vmt_trace_read(t, stream, index, entry)) {
		printf(": none (the stream ends before)");
	} else {
		printf(": ");
		print_entry(t, stream, entry);
		printf("  ");
	}
	printf("%llu frame%s decoded (%llu in all)\n",
	       (unsigned long long)(vmt_trace_frames_decoded(t) - before),
	       vmt_trace_frames_decoded(t) - before == 1 ? "" : "s",
	       (unsigned long long)vmt_trace_frames_decoded(t));
	return 0;
}

static uint64_t next_random(unsigned long long *state)
{
	*state = *state * 6364136223846793005ull + 1442695040888963407ull;
	return *state >> 11;
}

static int parse_seek_args(int argc, char **argv, struct seek_plan *p)
{
	static const struct option options[] = {
		{ "stream", required_argument, NULL, 's' },
		{ "index", required_argument, NULL, 'i' },
		{ "time", required_argument, NULL, 't' },
		{ "random", required_argument, NULL, 'r' },
		{ "seed", required_argument, NULL, 'S' },
		{ NULL, 0, NULL, 0 },
	};
	long long n;
	int opt;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		switch (opt) {
		case 's':
			p->stream = parse_number("seek", "stream", optarg, 0, UINT32_MAX);
			if (p->stream < 0)
				return -1;
			break;
		case 'i':
		case 't':
			if (p->nr == MAX_SEEKS) {
				fprintf(stderr, "vmtrace seek: more than %u seeks\n", MAX_SEEKS);
				return -1;
			}
			n = parse_number("seek", opt == 'i' ? "index" : "time", optarg, 0, INT64_MAX);
			if (n < 0)
				return -1;
			p->by_time[p->nr] = opt == 't';
			p->values[p->nr++] = (uint64_t)n;
			break;
		case 'r':
			p->random = parse_number("seek", "count", optarg, 1, MAX_SEEKS / 2);
			if (p->random < 0)
				return -1;
			break;
		case 'S':
			n = parse_number("seek", "seed", optarg, 0, INT64_MAX);
			if (n < 0)
				return -1;
			p->seed = (unsigned long long)n;
			break;
		default:
			usage_seek(stderr);
			return -1;
		}
	}
	if (optind != argc - 1) {
		usage_seek(stderr);
		return -1;
	}
	return 0;
}

/* --random: N indices, then N times, within the stream. */
static void plan_random(struct seek_plan *p, const struct vmt_trace_stream_stats *st,
			bool has_times)
{
	unsigned long long state = p->seed;

	for (long long k = 0; k < p->random && st->entries && p->nr < MAX_SEEKS; k++) {
		p->by_time[p->nr] = false;
		p->values[p->nr++] = next_random(&state) % st->entries;
	}
	for (long long k = 0; has_times && k < p->random && st->entries && p->nr < MAX_SEEKS; k++) {
		p->by_time[p->nr] = true;
		p->values[p->nr++] = st->first_time +
				     next_random(&state) % (st->last_time - st->first_time + 1);
	}
}

int cmd_seek(int argc, char **argv)
{
	struct seek_plan p = { .stream = -1, .seed = 1 };
	const struct vmt_trace_stream_info *info;
	struct vmt_trace_stream_stats st;
	struct vmt_trace *t;
	double start, opened;
	int status = 0;

	if (parse_seek_args(argc, argv, &p))
		return 2;
	start = now_ms();
	t = open_or_say("seek", argv[optind], 0);
	if (!t)
		return 1;
	opened = now_ms() - start;
	printf("%s: %lld bytes, %llu frames; opened in %.2f ms, %llu frames decoded\n",
	       argv[optind], file_size(argv[optind]), (unsigned long long)vmt_trace_nr_frames(t),
	       opened, (unsigned long long)vmt_trace_frames_decoded(t));
	if (p.stream < 0)
		p.stream = largest_record_stream(t);
	if (p.stream < 0 || p.stream >= vmt_trace_nr_streams(t)) {
		fprintf(stderr, "vmtrace seek: %s has no %s (%u streams)\n", argv[optind],
			p.stream < 0 ? "record stream" : "such stream", vmt_trace_nr_streams(t));
		vmt_trace_close(t);
		return 1;
	}
	info = vmt_trace_stream(t, (uint32_t)p.stream);
	vmt_trace_stream_stats(t, (uint32_t)p.stream, &st);
	printf("stream %lld (%s): %llu entries in %llu frames", p.stream, info->name,
	       (unsigned long long)st.entries, (unsigned long long)st.frames);
	if (info->time_offset != VMT_TRACE_NO_TIME && st.entries)
		printf(", times %llu..%llu%s", (unsigned long long)st.first_time,
		       (unsigned long long)st.last_time, st.time_sorted ? "" : " (not sorted)");
	printf("\n");
	plan_random(&p, &st, info->time_offset != VMT_TRACE_NO_TIME);
	for (unsigned int k = 0; k < p.nr && !status; k++)
		if (seek_one(t, (uint32_t)p.stream, p.values[k], p.by_time[k]))
			status = 1;
	vmt_trace_close(t);
	return status;
}
