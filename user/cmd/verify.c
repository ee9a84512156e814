// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace verify [--repair] FILE: decode and check every frame, found both
 * by scanning the blocks and through the directory, and replay every loop
 * stream; --repair first rebuilds the directory of a file whose writer died.
 */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "vmtrace/trace.h"
#include "commands.h"
#include "util/cmd_util.h"

/*
 * Every block read by a scan and every frame decoded; then the directory
 * read and every frame decoded through it. The two must list the same frames.
 */
static int verify_file(const char *path)
{
	uint64_t entries = 0, scanned_frames;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	int ret;

	ret = vmt_trace_open(&t, path, VMT_TRACE_OPEN_SCAN, &err);
	if (ret) {
		fprintf(stderr, "vmtrace verify: %s\n", err.message);
		/* -EINVAL: a trace set, whose files are verified one by one */
		if (ret != -EINVAL)
			fprintf(stderr, "vmtrace verify: 'vmtrace verify --repair %s' keeps the blocks before the bad one\n",
				path);
		return 1;
	}
	if (vmt_trace_check(t)) {
		fprintf(stderr, "vmtrace verify: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	scanned_frames = vmt_trace_nr_frames(t);
	vmt_trace_close(t);
	t = open_or_say("verify", path, 0);
	if (!t)
		return 1;
	if (vmt_trace_check(t)) {
		fprintf(stderr, "vmtrace verify: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	if (vmt_trace_check_loops(t)) {
		fprintf(stderr, "vmtrace verify: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		return 1;
	}
	if (vmt_trace_nr_frames(t) != scanned_frames) {
		fprintf(stderr, "vmtrace verify: %s: the directory lists %llu frames, the file holds %llu\n",
			path, (unsigned long long)vmt_trace_nr_frames(t),
			(unsigned long long)scanned_frames);
		vmt_trace_close(t);
		return 1;
	}
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		entries += st.entries;
	}
	printf("%s: ok: %llu frames decoded and checked, %llu entries in %u streams\n", path,
	       (unsigned long long)vmt_trace_frames_decoded(t), (unsigned long long)entries,
	       vmt_trace_nr_streams(t));
	vmt_trace_close(t);
	return 0;
}

void usage_verify(FILE *out)
{
	fputs("usage: vmtrace verify [--repair] FILE\n"
	      "  check every frame of a trace file, and replay its loop streams\n"
	      "  --repair         rebuild the directory of a file whose writer died\n", out);
}

int cmd_verify(int argc, char **argv)
{
	static const struct option options[] = {
		{ "repair", no_argument, NULL, 'r' },
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_repair_report report;
	struct vmt_trace_error err;
	int opt, repair = 0;

	while ((opt = getopt_long(argc, argv, "", options, NULL)) != -1) {
		if (opt != 'r') {
			usage_verify(stderr);
			return 2;
		}
		repair = 1;
	}
	if (optind != argc - 1) {
		usage_verify(stderr);
		return 2;
	}
	if (repair) {
		if (vmt_trace_repair(argv[optind], &report, &err)) {
			fprintf(stderr, "vmtrace verify: %s\n", err.message);
			return 1;
		}
		printf("%s: repaired: kept %llu frames of %llu streams up to byte %llu; cut %llu bytes (%s)\n",
		       argv[optind], (unsigned long long)report.frames,
		       (unsigned long long)report.streams, (unsigned long long)report.data_end,
		       (unsigned long long)report.dropped_bytes, report.reason);
	}
	return verify_file(argv[optind]);
}
