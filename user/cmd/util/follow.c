// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting for a trace that is still being written (follow.h): the file
 * opened with VMT_TRACE_OPEN_GROWING and followed (vmt_trace_follow())
 * every 0.2 s; each time frames came, at most once a second, a line on
 * stderr with the records so far by type, from the stream statistics
 * alone (no frame is decoded).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "vmtrace/trace.h"
#include "follow.h"

const char follow_usage[] =
	"  --follow         FILE is still being written (record's, a relay's): say on\n"
	"                   stderr how many records of each type have come as frames\n"
	"                   complete, and once the writer finishes it, print what the\n"
	"                   command prints of the finished file\n";

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* "1234 records (1000 ref, 200 evict, 34 mem), 12 frames" */
static void say_progress(const char *cmd, const char *path, struct vmt_trace *t)
{
	uint64_t records = 0;
	char line[512];
	int n = 0;

	line[0] = '\0';
	for (uint32_t s = 0; s < vmt_trace_nr_streams(t); s++) {
		const struct vmt_trace_stream_info *info = vmt_trace_stream(t, s);
		struct vmt_trace_stream_stats st;
		const char *name;

		if (info->kind != VMT_STREAM_RECORDS || vmt_trace_stream_stats(t, s, &st) ||
		    !st.entries)
			continue;
		records += st.entries;
		name = info->record_type == VMT_TRACE_ANY_TYPE ? "mem" :
		       vmt_record_type_name(info->record_type);
		if (n >= 0 && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%s%llu %s.cpu%s",
				      n ? ", " : "", (unsigned long long)st.entries,
				      name ? name : "?", info->cpu == VMT_TRACE_ANY_CPU ? "*" :
				      "");
		if (info->cpu != VMT_TRACE_ANY_CPU && n >= 0 && (size_t)n < sizeof(line))
			n += snprintf(line + n, sizeof(line) - (size_t)n, "%u", info->cpu);
	}
	fprintf(stderr, "[ vmtrace %s: %s: %llu records so far (%s), %llu frames; following ]\n",
		cmd, path, (unsigned long long)records, line,
		(unsigned long long)vmt_trace_nr_frames(t));
}

int follow_until_finished(const char *cmd, const char *path)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	uint64_t frames = UINT64_MAX;
	double said = 0;
	int done = 0;

	if (vmt_trace_open(&t, path, VMT_TRACE_OPEN_GROWING, &err)) {
		fprintf(stderr, "vmtrace %s: %s\n", cmd, err.message);
		return 1;
	}
	while (!done) {
		done = vmt_trace_follow(t);
		if (done < 0) {
			fprintf(stderr, "vmtrace %s: %s: %s\n", cmd, path, vmt_trace_error_message(t));
			vmt_trace_close(t);
			return 1;
		}
		if (!done && vmt_trace_nr_frames(t) != frames && now_s() - said >= 1.0) {
			frames = vmt_trace_nr_frames(t);
			said = now_s();
			say_progress(cmd, path, t);
		}
		if (!done)
			usleep(200 * 1000);
	}
	vmt_trace_close(t);
	return 0;
}
