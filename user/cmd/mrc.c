// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace mrc TRACE [--policy lru,fifo,clock,opt] [--sizes LIST|auto]
 * [--sample RATE] [--sample-size N] [analysis options]: miss-ratio curves, the faults of a
 * memory of each size under each policy (libvmtrace's vmt_mrc_*()).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"

#define MAX_SIZES	256
#define MAX_SAMPLE_SIZE	(1 << 30)

static const char mrc_usage[] =
	"usage: vmtrace mrc [--policy P[,P]] [--sizes N[,N]|auto] [--sample RATE]\n"
	"                   [--sample-size N] [analysis options] [filter options] TRACE\n"
	"  page faults and miss ratios against memory size, in pages (lines with --unit line)\n"
	"  --policy P[,P]     lru (default; exact, every size in one pass), fifo, clock\n"
	"                     (second chance), opt (Belady's; keeps the whole reference\n"
	"                     sequence in memory, 8 bytes a reference)\n"
	"  --sizes N[,N]|auto memory sizes; auto (default): powers of two below the\n"
	"                     footprint, and the footprint\n"
	"  --sample RATE      LRU from a spatial sample (SHARDS) of this share of the\n"
	"                     units, in (0, 1]: approximate, faster, smaller\n"
	"  --sample-size N    LRU from a spatial sample of at most N units (SHARDS,\n"
	"                     fixed size), its rate lowered as the units come (from\n"
	"                     --sample's, or 1): memory bounded whatever the trace\n"
	"  --csv              policy,pages,references,faults,miss_ratio (--per-process:\n"
	"                     a pid column first, 'all' for all together)\n";

struct mrc_command {
	struct analysis_options o;
	struct vmt_mrc_options mrc;
	uint64_t sizes[MAX_SIZES];
	const char *unit;	/* "pages" or "lines" */
};

/* --policy: names into a set of bits; -1 having said what is wrong. */
static int parse_policies(const char *arg, unsigned int *policies)
{
	char copy[256], *item, *save = NULL;
	unsigned int p;

	if (strlen(arg) >= sizeof(copy)) {
		fprintf(stderr, "vmtrace mrc: --policy list too long\n");
		return -1;
	}
	strcpy(copy, arg);
	*policies = 0;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		for (p = 0; p < VMT_MRC_NR_POLICIES; p++)
			if (!strcmp(item, vmt_mrc_policy_name(p)))
				break;
		if (p == VMT_MRC_NR_POLICIES) {
			fprintf(stderr, "vmtrace mrc: --policy: unknown policy '%s' (lru, fifo, clock, opt)\n",
				item);
			return -1;
		}
		*policies |= 1u << p;
	}
	if (!*policies) {
		fprintf(stderr, "vmtrace mrc: --policy: no policy in '%s'\n", arg);
		return -1;
	}
	return 0;
}

/* --sizes: a list of sizes of at least 1, or auto; -1 having said what is wrong. */
static int parse_sizes(const char *arg, struct mrc_command *c)
{
	char copy[4096], *item, *save = NULL;
	long long n;

	if (!strcmp(arg, "auto")) {
		c->mrc.sizes = NULL;
		c->mrc.nr_sizes = 0;
		return 0;
	}
	if (strlen(arg) >= sizeof(copy)) {
		fprintf(stderr, "vmtrace mrc: --sizes list too long\n");
		return -1;
	}
	strcpy(copy, arg);
	c->mrc.nr_sizes = 0;
	for (item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (c->mrc.nr_sizes == MAX_SIZES) {
			fprintf(stderr, "vmtrace mrc: more than %u --sizes\n", MAX_SIZES);
			return -1;
		}
		n = parse_number("mrc", "size", item, 1, UINT32_MAX);
		if (n < 0)
			return -1;
		c->sizes[c->mrc.nr_sizes++] = n;
	}
	if (!c->mrc.nr_sizes) {
		fprintf(stderr, "vmtrace mrc: --sizes: no size in '%s'\n", arg);
		return -1;
	}
	c->mrc.sizes = c->sizes;
	return 0;
}

static int parse_rate(const char *arg, double *rate)
{
	char *end;

	*rate = strtod(arg, &end);
	if (end == arg || *end || !(*rate > 0 && *rate <= 1)) {
		fprintf(stderr, "vmtrace mrc: --sample: bad rate '%s' (in (0, 1], such as 0.01)\n",
			arg);
		return -1;
	}
	return 0;
}

static int create_mrc(void *ctx, uint32_t pid, struct vmt_analysis **analysis)
{
	(void)pid;
	return vmt_mrc_create(analysis, &((struct mrc_command *)ctx)->mrc);
}

static bool sampled(const struct mrc_command *c)
{
	return c->mrc.sample_rate < 1 || c->mrc.sample_size;
}

/* One process's curves (@pid NULL: all together), as a table or CSV rows. */
static void print_curves(void *ctx, const struct vmt_analysis *a, const char *pid)
{
	const struct mrc_command *c = ctx;
	uint64_t refs = vmt_mrc_references(a), faults;
	char b1[32], b2[32], b3[32];

	if (!c->o.csv)
		printf("\n%s%s: footprint %s %s%s\n%-6s %12s %14s %14s %10s\n",
		       pid ? "pid " : "", pid ? pid : "all", fmt_count(vmt_mrc_footprint(a), b1),
		       c->unit, sampled(c) ? " (estimated from the sample)" : "",
		       "policy", c->unit, "references", "faults", "miss ratio");
	for (unsigned int p = 0; p < VMT_MRC_NR_POLICIES; p++) {
		for (unsigned int i = 0; !vmt_mrc_faults(a, p, i, &faults); i++) {
			uint64_t size = vmt_mrc_size(a, i);
			double ratio = refs ? (double)faults / refs : 0;

			if (c->o.csv && c->o.per_process)
				printf("%s,", pid ? pid : "all");
			if (c->o.csv)
				printf("%s,%llu,%llu,%llu,%.6f\n", vmt_mrc_policy_name(p),
				       (unsigned long long)size, (unsigned long long)refs,
				       (unsigned long long)faults, ratio);
			else
				printf("%-6s %12s %14s %14s %10.4f\n", vmt_mrc_policy_name(p),
				       fmt_count(size, b1), fmt_count(refs, b2),
				       fmt_count(faults, b3), ratio);
		}
	}
}

/* The curves of all together into --plot's file: miss ratio against size, a line a policy. */
static int plot_curves(void *ctx, const struct vmt_analysis *a,
		       const struct vmt_analysis *per_process)
{
	const struct mrc_command *c = ctx;
	unsigned int block = 0;
	uint64_t faults;
	struct plot p;

	(void)per_process;
	if (plot_begin("mrc", &p))
		return 1;
	fprintf(p.script, "set logscale x 2\nset xlabel 'memory (%s)'\nset ylabel 'miss ratio'\n"
		"set yrange [0:1.02]\nset key top right\nset grid\nplot", c->unit);
	for (unsigned int pol = 0; pol < VMT_MRC_NR_POLICIES; pol++) {
		if (vmt_mrc_faults(a, pol, 0, &faults))
			continue;
		for (unsigned int i = 0; !vmt_mrc_faults(a, pol, i, &faults); i++)
			fprintf(p.data, "%llu %.6f\n", (unsigned long long)vmt_mrc_size(a, i),
				(double)faults / vmt_mrc_references(a));
		fprintf(p.data, "\n\n");
		fprintf(p.script, "%s DATA index %u with linespoints title '%s'",
			block ? "," : "", block, vmt_mrc_policy_name(pol));
		block++;
	}
	return plot_end("mrc", &p, c->o.plot);
}

static void print_mrc_header(void *ctx, const char *path, const struct vmt_analyze_stats *stats)
{
	const struct mrc_command *c = ctx;

	if (c->o.csv) {
		printf("%spolicy,%s,references,faults,miss_ratio\n", c->o.per_process ? "pid," : "",
		       c->unit);
		return;
	}
	analysis_print_header(stdout, path, &c->o, stats);
	if (c->mrc.sample_size)
		printf("# LRU sampled (SHARDS, fixed size): at most %llu units, "
		       "from a rate of %g\n", (unsigned long long)c->mrc.sample_size,
		       c->mrc.sample_rate);
	else if (c->mrc.sample_rate < 1)
		printf("# LRU sampled (SHARDS) at a rate of %g\n", c->mrc.sample_rate);
}

void usage_mrc(FILE *out)
{
	fputs(mrc_usage, out);
	fputs(analysis_options_usage, out);
	fputs(filter_options_usage, out);
}

enum { MRC_OPT_POLICY = 0x300, MRC_OPT_SIZES, MRC_OPT_SAMPLE, MRC_OPT_SAMPLE_SIZE };

static int parse_mrc_option(void *ctx, int opt, const char *arg)
{
	struct mrc_command *c = ctx;

	switch (opt) {
	case MRC_OPT_POLICY:
		return parse_policies(arg, &c->mrc.policies) ? -1 : 1;
	case MRC_OPT_SIZES:
		return parse_sizes(arg, c) ? -1 : 1;
	case MRC_OPT_SAMPLE:
		return parse_rate(arg, &c->mrc.sample_rate) ? -1 : 1;
	case MRC_OPT_SAMPLE_SIZE: {
		long long n = parse_number("mrc", "--sample-size", arg, 1, MAX_SAMPLE_SIZE);

		c->mrc.sample_size = n > 0 ? n : 0;
		return n < 0 ? -1 : 1;
	}
	}
	return 0;
}

int cmd_mrc(int argc, char **argv)
{
	static const struct option options[] = {
		{ "policy", required_argument, NULL, MRC_OPT_POLICY },
		{ "sizes", required_argument, NULL, MRC_OPT_SIZES },
		{ "sample", required_argument, NULL, MRC_OPT_SAMPLE },
		{ "sample-size", required_argument, NULL, MRC_OPT_SAMPLE_SIZE },
		{ "help", no_argument, NULL, 'h' },
		ANALYSIS_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct mrc_command c = {
		.mrc = { .policies = 1u << VMT_MRC_LRU, .sample_rate = 1 },
	};
	const char *path;
	int status;

	status = parse_analysis_command_line(&(struct analysis_command_line){
		"mrc", "h", options, usage_mrc, parse_mrc_option, &c }, argc, argv, &c.o, &path);
	if (status >= 0)
		return status;
	if (c.mrc.sample_size && !(c.mrc.policies & 1u << VMT_MRC_LRU)) {
		fprintf(stderr,
			"vmtrace mrc: --sample-size samples LRU: --policy must include lru\n");
		return 2;
	}
	c.unit = c.o.ref.unit == VMT_REF_LINE ? "lines" : "pages";
	return run_analysis(&(struct analysis_runner){ "mrc", create_mrc, &c, print_mrc_header,
						       print_curves, plot_curves },
			    path, &c.o);
}
