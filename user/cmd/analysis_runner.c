// SPDX-License-Identifier: GPL-2.0
/* The body every analysis command shares: see analysis_runner.h. */
#include <stdio.h>
#include <string.h>

#include "analysis_runner.h"

int run_analysis(const struct analysis_runner *r, const char *path, struct analysis_options *o)
{
	struct vmt_analysis *analyses[2] = { NULL, NULL };
	unsigned int n = o->per_process ? 2 : 1;
	struct vmt_analyze_stats stats;
	struct vmt_trace *t;
	int ret = 1, err;

	t = analysis_open(r->cmd, path, o);
	if (!t)
		return 1;
	err = r->create(r->ctx, 0, &analyses[0]);
	if (!err && o->per_process)
		err = vmt_per_process_create(&analyses[1], r->create, r->ctx);
	if (err) {
		fprintf(stderr, "vmtrace %s: %s\n", r->cmd, strerror(-err));
		goto out;
	}
	if (analysis_run(r->cmd, t, o, analyses, n, &stats))
		goto out;
	r->print_header(r->ctx, path, &stats);
	r->print(r->ctx, analyses[0], NULL);
	for (unsigned int i = 0; o->per_process && i < vmt_per_process_count(analyses[1]); i++) {
		uint32_t pid;
		struct vmt_analysis *sub = vmt_per_process_get(analyses[1], i, &pid);
		char name[16];

		snprintf(name, sizeof(name), "%u", pid);
		r->print(r->ctx, sub, name);
	}
	ret = o->plot ? r->plot(r->ctx, analyses[0]) : 0;
out:
	vmt_analysis_destroy(analyses[0]);
	vmt_analysis_destroy(analyses[1]);
	vmt_trace_close(t);
	return ret;
}
