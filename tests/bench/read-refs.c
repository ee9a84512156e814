// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-read-refs TRACE: one pass of vmt_analyze() over TRACE with an
 * analysis that does nothing but add up the references' keys: what every
 * analysis command pays to read, decode and order the trace and make its
 * references (struct vmt_ref) before doing anything with them. The floor
 * scripts/bench-analyses measures the analyses against. Prints the
 * references and the sum.
 */
#include <stdio.h>
#include <stdlib.h>

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
	int ret;

	if (argc != 2) {
		fprintf(stderr, "usage: vmt-read-refs TRACE\n");
		return 2;
	}
	ret = vmt_trace_open(&trace, argv[1], 0, &err);
	if (ret) {
		fprintf(stderr, "vmt-read-refs: %s: cannot open (%d)\n", argv[1], ret);
		return 1;
	}
	ret = vmt_analyze(trace, &options, &a, 1, &stats);
	if (ret) {
		fprintf(stderr, "vmt-read-refs: %s: %s\n", argv[1], vmt_trace_error_message(trace));
		vmt_trace_close(trace);
		return 1;
	}
	printf("%llu references, keys sum to %llx\n", (unsigned long long)stats.references,
	       (unsigned long long)s.sum);
	vmt_trace_close(trace);
	return 0;
}
