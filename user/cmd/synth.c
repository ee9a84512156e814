// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace synth PROFILE -o TRACE [--seed S] [--accesses N] [-j N] [codec options]
 *
 * A synthetic trace of exact records from a profile (`vmtrace profile`):
 * as many accesses as the profiled trace had, or N; the same profile and
 * seed give the same records, and the same file whatever -j (N threads:
 * this one makes the records, the other N - 1 code the frames meanwhile, and
 * this one too when they fall behind).
 * Every analysis reads it.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "vmtrace/profile.h"
#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/writer_options.h"

enum { SYNTH_OPT_SEED = 0x300, SYNTH_OPT_ACCESSES };

void usage_synth(FILE *out)
{
	fputs("usage: vmtrace synth PROFILE -o TRACE [--seed S] [--accesses N] [-j N] [codec options]\n"
	      "  a synthetic trace of exact accesses from PROFILE (`vmtrace profile`)\n"
	      "  -o TRACE         the trace to write\n"
	      "  --seed S         the generator's seed (1..2^63, default 1): the same profile\n"
	      "                   and seed give the same trace\n"
	      "  --accesses N     accesses in all (default: as many as the profiled trace had),\n"
	      "                   shared among the threads as there\n"
	      "  -j N             threads: one makes the records (and compresses frames when\n"
	      "                   the others fall behind), N - 1 compress the frames meanwhile\n"
	      "                   (default: one a CPU; the file is the same whatever N)\n", out);
	fputs(writer_options_usage, out);
}

int cmd_synth(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "seed", required_argument, NULL, SYNTH_OPT_SEED },
		{ "accesses", required_argument, NULL, SYNTH_OPT_ACCESSES },
		{ "threads", required_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	/*
	 * A thread a CPU by default: coding the frames costs more than making
	 * the records (sqlite3's profile: 60% of synth's time), and the maker
	 * codes frames too when the others fall behind.
	 */
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	struct vmt_trace_writer_options wopts = {
		.codec = VMT_CODEC_MODEL,
		.workers = cpus > 1 ? (unsigned int)(cpus < 256 ? cpus : 256) - 1 : 0,
		.caller_compresses = 1,
	};
	struct vmt_profile_synth_options so = { .seed = 1 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_profile *p;
	const char *out = NULL;
	uint64_t written;
	long long n;
	char a[32];
	int opt, ret;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:j:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out = optarg;
			break;
		case 'j':
			n = parse_number("synth", "-j", optarg, 1, 256);
			if (n < 0)
				return 2;
			wopts.workers = (unsigned int)n - 1;
			break;
		case SYNTH_OPT_SEED:
			n = parse_number("synth", "--seed", optarg, 1, INT64_MAX);
			if (n < 0)
				return 2;
			so.seed = (uint64_t)n;
			break;
		case SYNTH_OPT_ACCESSES:
			n = parse_number("synth", "--accesses", optarg, 1, INT64_MAX);
			if (n < 0)
				return 2;
			so.accesses = (uint64_t)n;
			break;
		case 'h':
			usage_synth(stdout);
			return 0;
		default:
			switch (parse_writer_option("synth", opt, optarg, &wopts)) {
			case 1:
				break;
			case 0:
				usage_synth(stderr);
				return 2;
			default:
				return 2;
			}
		}
	}
	if (optind != argc - 1) {
		usage_synth(stderr);
		return 2;
	}
	if (!out) {
		fprintf(stderr, "vmtrace synth: say where: -o TRACE\n");
		return 2;
	}
	if (vmt_profile_read(&p, argv[optind], &err)) {
		fprintf(stderr, "vmtrace synth: %s\n", err.message);
		return 1;
	}
	if (vmt_trace_writer_create(&w, out, &wopts, &err)) {
		fprintf(stderr, "vmtrace synth: %s\n", err.message);
		vmt_profile_free(p);
		return 1;
	}
	ret = vmt_profile_synth(p, &so, w, &written, &err);
	vmt_profile_free(p);
	if (ret) {
		fprintf(stderr, "vmtrace synth: %s\n", err.message);
		vmt_trace_writer_abandon(w);
		unlink(out);
		return 1;
	}
	if (vmt_trace_writer_close(w, &err)) {
		fprintf(stderr, "vmtrace synth: %s: %s\n", out, err.message);
		unlink(out);
		return 1;
	}
	printf("[ vmtrace synth: wrote %s (%lld bytes): %s exact accesses, seed %llu ]\n", out,
	       file_size(out), fmt_count(written, a), (unsigned long long)so.seed);
	return 0;
}
