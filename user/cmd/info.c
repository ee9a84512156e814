// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace info FILE: a trace file's streams (name, kind, entry size,
 * entries, frames, time span) and its record count, from its directory.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "vmtrace/analysis.h"
#include "commands.h"
#include "util/cmd_util.h"

static const char *kind_name(uint32_t kind)
{
	static const char *const names[] = { "opaque", "records", "order", "data", "loops", "loopset" };

	return kind < sizeof(names) / sizeof(names[0]) ? names[kind] : "?";
}

/*
 * A loop-compressed trace's threads (vmtrace loops): their records, and
 * what was kept beside the descriptors. The exact records they replay.
 */
static uint64_t print_loops(struct vmt_trace *t)
{
	struct vmt_trace_loops_thread *threads;
	uint64_t records = 0;
	uint32_t n;

	if (vmt_trace_loops(t, &threads, &n)) {
		printf("loops: %s\n", vmt_trace_error_message(t));
		return 0;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct vmt_trace_loops_thread *th = &threads[i];

		printf("loops: stream %u: thread %u/%u, %llu exact accesses, window %u; times %s, values %s\n",
		       th->stream_id, th->pid, th->tid, (unsigned long long)th->records, th->window,
		       th->keep & VMT_LOOPS_KEEP_TIMES ? "kept" : "dropped (read as 0)",
		       th->keep & VMT_LOOPS_KEEP_VALUES ? "kept" : "dropped");
		records += th->records;
	}
	free(threads);
	return records;
}

/* New lines after the table: the session's settings, the reduction if any. */
static void print_settings(struct vmt_trace *t)
{
	struct vmt_trace_reduction reduction;
	struct vmt_trace_session s;
	char text[192];
	int err = vmt_trace_session(t, &s);

	printf("session: %s", describe_session(err, &s, text, sizeof(text)));
	if (!err)
		printf("; events 0x%x; %u pid%s%s%s; started at %llu ns; realtime offset %lld ns\n",
		       s.events, s.nr_pids, s.nr_pids == 1 ? "" : "s",
		       s.session_flags & VMT_SESSION_TARGETS_COMMAND ? " (a command)" : "",
		       s.flags & VMT_CONFIG_SYSTEM_WIDE ? " (system-wide)" : "",
		       (unsigned long long)s.start_time_ns, (long long)s.realtime_offset_ns);
	else
		printf("\n");
	if (!vmt_trace_reduction(t, &reduction))
		printf("reduction: %s\n", describe_reduction(&reduction, text, sizeof(text)));
}

void usage_info(FILE *out)
{
	fputs("usage: vmtrace info FILE\n"
	      "  a trace file's streams, frames and compression; of a trace set (a set\n"
	      "  file: docs/FORMAT.md), its files and how much each one's times moved\n", out);
}

int cmd_info(int argc, char **argv)
{
	uint64_t total_entries = 0;
	struct vmt_trace *t;

	if (argc != 2 || argv[1][0] == '-') {
		usage_info(stderr);
		return 2;
	}
	t = open_or_say("info", argv[1], 0);
	if (!t)
		return 1;
	if (vmt_trace_set_files(t)) {
		uint64_t shift;
		const char *file;

		printf("%s: vmtrace trace set of %u files, format version %u at least, %u streams, %llu frames\n",
		       argv[1], vmt_trace_set_files(t), vmt_trace_format_version(t),
		       vmt_trace_nr_streams(t), (unsigned long long)vmt_trace_nr_frames(t));
		for (unsigned int k = 0; (file = vmt_trace_set_file(t, k, &shift)); k++) {
			printf("  %s: %lld bytes", file, file_size(file));
			if (shift)
				printf(", its times %llu ns later (after the file before it)",
				       (unsigned long long)shift);
			printf("\n");
		}
	} else {
		printf("%s: vmtrace trace, format version %u, %lld bytes, %u streams, %llu frames\n",
		       argv[1], vmt_trace_format_version(t), file_size(argv[1]),
		       vmt_trace_nr_streams(t), (unsigned long long)vmt_trace_nr_frames(t));
	}
	printf("%-4s %-14s %-8s %6s %12s %8s  %s\n", "id", "name", "kind", "size", "entries",
	       "frames", "time");
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		const struct vmt_trace_stream_info *info = vmt_trace_stream(t, i);
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		printf("%-4u %-14s %-8s %6u %12llu %8llu", i, info->name, kind_name(info->kind),
		       info->entry_size, (unsigned long long)st.entries,
		       (unsigned long long)st.frames);
		if (info->time_offset != VMT_TRACE_NO_TIME && st.entries)
			printf("  %llu..%llu%s", (unsigned long long)st.first_time,
			       (unsigned long long)st.last_time, st.time_sorted ? "" : " (unsorted)");
		printf("\n");
		if (info->kind == VMT_STREAM_RECORDS)
			total_entries += st.entries;
	}
	total_entries += print_loops(t);
	printf("records: %llu\n", (unsigned long long)total_entries);
	print_settings(t);
	vmt_trace_close(t);
	return 0;
}
