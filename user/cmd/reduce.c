// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace reduce --sad R TRACE -o OUT [--per-process] [filters] [codec options]
 *
 * Laplace's SAD reduction (vmt_sad_create(), sad_reduce.c): OUT is an
 * ordinary trace with fewer references whose LRU faults equal TRACE's at
 * every memory of R pages or more; each kept reference keeps its time,
 * and its place in TRACE's references is in OUT's "ref_index" stream.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/ranks.h"
#include "util/writer_options.h"

enum { REDUCE_OPT_SAD = 0x300 };

void usage_reduce(FILE *out)
{
	fputs("usage: vmtrace reduce --sad R TRACE -o OUT [--per-process] [filter options]\n"
	      "  a trace with fewer references whose LRU simulation takes exactly the\n"
	      "  faults of TRACE's at every memory of R pages (units) or more\n"
	      "  --sad R            SAD (safely allowed drop) reduction for memories >= R\n"
	      "  -o OUT             the reduced trace (not TRACE itself)\n", out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
	fputs(writer_options_usage, out);
}

static int reduce(const char *in_path, const char *out_path, struct vmt_trace *t,
		  struct analysis_options *o, const struct vmt_sad_options *sad_options,
		  const struct vmt_trace_writer_options *wopts)
{
	struct vmt_trace_writer *w;
	struct vmt_analyze_stats stats;
	struct vmt_analysis *sad;
	struct vmt_trace_error err;
	struct vmt_sad_stats st;
	char kept[32], refs[32];
	int ret;

	/*
	 * Under MPI, process 0 writes the one trace, whole (SAD's windows need
	 * every reference in order); the others wait for its word, as
	 * analysis_run() has it, and print nothing.
	 */
	if (ranks_rank() != 0)
		return ranks_agree(0) ? 1 : 0;
	if (vmt_trace_writer_create(&w, out_path, wopts, &err)) {
		fprintf(stderr, "vmtrace reduce: %s\n", err.message);
		return failed_before_run();
	}
	ret = vmt_sad_create(&sad, t, w, &o->ref, sad_options);
	if (ret) {
		fprintf(stderr, "vmtrace reduce: %s: %s\n", out_path,
			ret == -ENOMEM ? strerror(ENOMEM) : vmt_trace_writer_error_message(w));
		vmt_trace_writer_abandon(w);
		unlink(out_path);
		return failed_before_run();
	}
	ret = analysis_run("reduce", t, o, &sad, 1, &stats);
	if (ret) {
		vmt_analysis_destroy(sad);
		vmt_trace_writer_abandon(w);
		unlink(out_path);
		return ret;
	}
	vmt_sad_stats(sad, &st);
	vmt_analysis_destroy(sad);
	if (vmt_trace_writer_close(w, &err)) {
		fprintf(stderr, "vmtrace reduce: %s: %s\n", out_path, err.message);
		unlink(out_path);
		return 1;
	}
	analysis_print_header(stdout, in_path, o, &stats);
	printf("%s: SAD R=%llu%s: %s of %s references kept, reduction ratio %.2fx "
	       "(%.2f%% kept); %llu other records; %llu windows (%llu ended early)\n",
	       out_path, (unsigned long long)sad_options->r,
	       sad_options->per_process ? " per process" : "", fmt_count(st.kept, kept),
	       fmt_count(st.references, refs),
	       st.kept ? (double)st.references / (double)st.kept : 0.0,
	       st.references ? 100.0 * (double)st.kept / (double)st.references : 0.0,
	       (unsigned long long)st.records, (unsigned long long)st.windows,
	       (unsigned long long)st.early_ends);
	return 0;
}

struct reduce_command {
	struct vmt_sad_options sad;
	struct vmt_trace_writer_options wopts;
	const char *out_path;
};

static int parse_reduce_option(void *ctx, int opt, const char *arg)
{
	struct reduce_command *c = ctx;
	long long r;

	switch (opt) {
	case REDUCE_OPT_SAD:
		r = parse_number("reduce", "R (pages)", arg, 1, INT64_MAX);
		if (r < 0)
			return -1;
		c->sad.r = (uint64_t)r;
		return 1;
	case 'o':
		c->out_path = arg;
		return 1;
	}
	return parse_writer_option("reduce", opt, arg, &c->wopts);
}

int cmd_reduce(int argc, char **argv)
{
	static const struct option options[] = {
		{ "sad", required_argument, NULL, REDUCE_OPT_SAD },
		{ "output", required_argument, NULL, 'o' },
		ANALYSIS_LONG_OPTIONS,
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct reduce_command c = { .wopts = { .codec = VMT_CODEC_VPC } };
	struct vmt_sad_options *sad = &c.sad;
	const char *path, *out_path;
	struct analysis_options o = { 0 };
	struct vmt_trace *t;
	int status;

	/* "o:": no -h of its own (vmtrace reduce -h is vmtrace.c's). */
	status = parse_analysis_command_line(&(struct analysis_command_line){
		"reduce", "o:", options, usage_reduce, parse_reduce_option, &c }, argc, argv, &o,
		&path);
	if (status >= 0)
		return status;
	out_path = c.out_path;
	if (!sad->r || !out_path) {
		fprintf(stderr, "vmtrace reduce: %s\n",
			!sad->r ? "say how: --sad R" : "say where: -o OUT");
		return 2;
	}
	if (o.csv || o.plot) {
		fprintf(stderr, "vmtrace reduce: --csv and --plot are for the analyses that print tables\n");
		return 2;
	}
	if (same_file(path, out_path)) {
		fprintf(stderr, "vmtrace reduce: -o %s is the input itself\n", out_path);
		return 1;
	}
	sad->per_process = o.per_process;
	t = analysis_open("reduce", path, &o);
	if (!t)
		return failed_before_run();
	status = reduce(path, out_path, t, &o, sad, &c.wopts);
	vmt_trace_close(t);
	return status;
}
