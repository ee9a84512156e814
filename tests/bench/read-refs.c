// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-read-refs [-j N] TRACE: one pass of vmt_analyze() over TRACE with an
 * analysis that does nothing but add up the references' keys: what every
 * analysis command pays to read, decode and order the trace and make its
 * references (struct vmt_ref) before doing anything with them. The floor
 * scripts/bench-analyses measures the analyses against. Prints the
 * references and the sum. -j: frames decoded on N threads
 * (vmt_trace_set_threads(); default 1), for scripts/bench-parallel.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/analysis.h"

struct sum {
	struct vmt_analysis analysis;
	uint64_t sum;
};

static int sum_reference(struct vmt_analysis *a, const struct vmt_ref *ref)
{
	((struct sum *)a)->sum += ref->key;
	return 0;
}

static const struct vmt_analysis_ops sum_ops = { .name = "sum", .reference = sum_reference };

int main(int argc, char **argv)
{
	struct sum s = { .analysis = { .ops = &sum_ops } };
	struct vmt_analysis *a = &s.analysis;
	struct vmt_ref_options options = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_PAGE };
	struct vmt_analyze_stats stats;
	struct vmt_trace_error err;
	struct vmt_trace *trace;
	const char *path = argv[1];
	unsigned int threads = 1;
	int ret;

	if (argc == 4 && !strcmp(argv[1], "-j")) {
		threads = (unsigned int)strtoul(argv[2], NULL, 10);
		path = argv[3];
	} else if (argc != 2) {
		fprintf(stderr, "usage: vmt-read-refs [-j N] TRACE\n");
		return 2;
	}
	ret = vmt_trace_open(&trace, path, 0, &err);
	if (ret) {
		fprintf(stderr, "vmt-read-refs: %s: cannot open (%d)\n", path, ret);
		return 1;
	}
	ret = vmt_trace_set_threads(trace, threads);
	if (!ret)
		ret = vmt_analyze(trace, &options, &a, 1, &stats);
	if (ret) {
		fprintf(stderr, "vmt-read-refs: %s: %s\n", path, vmt_trace_error_message(trace));
		vmt_trace_close(trace);
		return 1;
	}
	printf("%llu references, keys sum to %llx\n", (unsigned long long)stats.references,
	       (unsigned long long)s.sum);
	vmt_trace_close(trace);
	return 0;
}
