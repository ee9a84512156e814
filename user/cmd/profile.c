// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace profile TRACE -o PROFILE [--max-runs N] [-j N]
 * vmtrace profile --show PROFILE
 *
 * A memory profile after PSnAP (issue 33; vmtrace/profile.h says what it
 * holds, docs/analysis/profile.md what it keeps and loses): a few kilobytes
 * from which `vmtrace synth` makes a trace that hits caches as TRACE does.
 * --show prints a profile's threads, loops, regions and PSnAP's stride
 * histograms.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/profile.h"
#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/filter_options.h"

enum { PROFILE_OPT_MAX_RUNS = 0x300, PROFILE_OPT_SHOW };

void usage_profile(FILE *out)
{
	fputs("usage: vmtrace profile TRACE -o PROFILE [--max-runs N] [-j N]\n"
	      "       vmtrace profile --show PROFILE\n"
	      "  a memory profile of TRACE's exact accesses (after PSnAP): per thread, its\n"
	      "  instructions' stride runs and their order, its regions and working sets, its\n"
	      "  loops with PSnAP's stride histograms; `vmtrace synth` makes a trace of it\n"
	      "  -o PROFILE       where to write it\n"
	      "  --max-runs N     stride runs kept an instruction (1..4096, default 32); the\n"
	      "                   rest are drawn by reuse distance\n"
	      "  -j, --jobs N     decode the trace's frames on N threads (default: one a CPU;\n"
	      "                   the profile is the same whatever N): the profiling itself\n"
	      "                   is one thread's, the decoding of the frames ahead the others'\n"
	      "  --show PROFILE   print a profile: threads, loops, regions, stride histograms\n",
	      out);
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static int show(const char *path)
{
	struct vmt_trace_error err;
	struct vmt_profile *p;

	if (vmt_profile_read(&p, path, &err)) {
		fprintf(stderr, "vmtrace profile: %s\n", err.message);
		return 1;
	}
	printf("# %s: %u thread%s\n", path, vmt_profile_nr_threads(p),
	       vmt_profile_nr_threads(p) == 1 ? "" : "s");
	for (uint32_t k = 0; k < vmt_profile_nr_threads(p); k++) {
		struct vmt_profile_thread t;
		char a[32];

		vmt_profile_thread(p, k, &t);
		printf("thread %u (pid %u): %s accesses, %u instructions, %u stride runs kept, "
		       "%.1f%% of accesses drawn by reuse distance, %u loops, %.1f%% outside "
		       "loops, %u regions\n", t.tid, t.pid, fmt_count(t.accesses, a), t.insns,
		       t.tokens, pct(t.random, t.accesses), t.loops, pct(t.outside_loops, t.accesses),
		       t.regions);
		for (uint32_t r = 0; r < t.regions; r++) {
			struct vmt_profile_region g;

			vmt_profile_region(p, k, r, &g);
			printf("  region %u: 0x%llx-0x%llx, %llu lines touched, %llu accesses\n", r,
			       (unsigned long long)g.lo, (unsigned long long)g.hi,
			       (unsigned long long)g.lines, (unsigned long long)g.accesses);
		}
		for (uint32_t l = 0; l < t.loops; l++) {
			struct vmt_profile_loop lp;

			vmt_profile_loop(p, k, l, &lp);
			printf("  loop %u: ip 0x%llx-0x%llx, %u instructions, %llu accesses (%.1f%%)\n",
			       l, (unsigned long long)lp.ip_lo, (unsigned long long)lp.ip_hi, lp.insns,
			       (unsigned long long)lp.accesses, pct(lp.accesses, t.accesses));
			for (uint32_t i = 0; i < lp.regions; i++) {
				struct vmt_profile_loop_region lr;

				vmt_profile_loop_region(p, k, l, i, &lr);
				printf("    region %u: %llu accesses, working set %llu lines; strides",
				       lr.region, (unsigned long long)lr.accesses,
				       (unsigned long long)lr.lines);
				for (unsigned int b = 0; b < VMT_PROFILE_STRIDE_BINS; b++)
					if (lr.strides[b])
						printf(" %s:%llu", vmt_profile_stride_bin_name(b),
						       (unsigned long long)lr.strides[b]);
				printf("\n");
			}
		}
	}
	vmt_profile_free(p);
	return 0;
}

static int make(const char *in, const char *out, const struct vmt_profile_options *o,
		unsigned int threads)
{
	struct vmt_trace_error err;
	struct vmt_profile *p;
	struct vmt_trace *t;
	uint64_t accesses = 0, random = 0, outside = 0;
	uint32_t insns = 0, loops = 0, regions = 0, tokens = 0;
	long long size, trace_size;
	char a[32];
	int ret;

	if (same_file(in, out)) {
		fprintf(stderr, "vmtrace profile: -o %s is the input itself\n", out);
		return 1;
	}
	t = open_or_say("profile", in, 0);
	if (!t)
		return 1;
	/*
	 * A profile holds no values: frames that keep them apart decode faster
	 * without (before the decoding threads start, so it cannot fail).
	 */
	vmt_trace_skip_values(t);
	if (set_decode_threads("profile", t, threads)) {
		vmt_trace_close(t);
		return 1;
	}
	ret = vmt_profile_build(t, o, &p, &err);
	vmt_trace_close(t);
	if (ret) {
		fprintf(stderr, "vmtrace profile: %s: %s\n", in, err.message);
		return 1;
	}
	if (vmt_profile_write(p, out, &err)) {
		fprintf(stderr, "vmtrace profile: %s\n", err.message);
		vmt_profile_free(p);
		return 1;
	}
	for (uint32_t k = 0; k < vmt_profile_nr_threads(p); k++) {
		struct vmt_profile_thread th;

		vmt_profile_thread(p, k, &th);
		accesses += th.accesses;
		random += th.random;
		outside += th.outside_loops;
		insns += th.insns;
		loops += th.loops;
		regions += th.regions;
		tokens += th.tokens;
	}
	size = file_size(out);
	trace_size = file_size(in);
	printf("[ vmtrace profile: wrote %s (%lld bytes): %s exact accesses of %u thread%s; %u "
	       "instructions, %u stride runs kept, %.1f%% of accesses drawn by reuse distance; "
	       "%u loops (%.1f%% of accesses outside), %u regions ]\n", out, size,
	       fmt_count(accesses, a), vmt_profile_nr_threads(p),
	       vmt_profile_nr_threads(p) == 1 ? "" : "s", insns, tokens, pct(random, accesses),
	       loops, pct(outside, accesses), regions);
	printf("[ vmtrace profile: %.4f%% of the accesses as 64-byte records (%llu bytes), "
	       "1/%.0f of %s (%lld bytes) ]\n",
	       pct((uint64_t)size, accesses * sizeof(struct vmt_record)),
	       (unsigned long long)(accesses * sizeof(struct vmt_record)),
	       size > 0 ? (double)trace_size / (double)size : 0.0, in, trace_size);
	vmt_profile_free(p);
	return 0;
}

int cmd_profile(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "max-runs", required_argument, NULL, PROFILE_OPT_MAX_RUNS },
		{ "show", no_argument, NULL, PROFILE_OPT_SHOW },
		{ "jobs", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_profile_options o = { .max_tokens = 32 };
	const char *out = NULL;
	bool show_mode = false;
	unsigned int threads = 0;
	long long n;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:hj:", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case PROFILE_OPT_MAX_RUNS:
			n = parse_number("profile", "--max-runs", optarg, 1, 4096);
			if (n < 0)
				return 2;
			o.max_tokens = (unsigned int)n;
			break;
		case PROFILE_OPT_SHOW:
			show_mode = true;
			break;
		case 'j':
			n = parse_number("profile", "-j", optarg, 1, VMT_TRACE_MAX_THREADS);
			if (n < 0)
				return 2;
			threads = (unsigned int)n;
			break;
		case 'h':
			usage_profile(stdout);
			return 0;
		default:
			usage_profile(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		usage_profile(stderr);
		return 2;
	}
	if (show_mode)
		return show(argv[optind]);
	if (!out) {
		fprintf(stderr, "vmtrace profile: say where: -o PROFILE\n");
		return 2;
	}
	return make(argv[optind], out, &o, threads);
}
