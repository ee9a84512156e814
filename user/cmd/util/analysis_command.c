// SPDX-License-Identifier: GPL-2.0
/* What every analysis command shares: see analysis_command.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/pack.h"
#include "analysis_command.h"
#include "cmd_util.h"
#include "ranks.h"

const char analysis_options_usage[] =
	"  --space virtual|physical  count virtual pages of each process (default), or frames\n"
	"  --unit page|line   4 KiB pages (2 MiB where huge; default), or 64-byte lines\n"
	"  --addr START-END   only addresses in [START, END) (virtual, or physical)\n"
	"  --source faults|exact  the references: the pages the tracer saw referenced, or\n"
	"                   every exact access (loads, stores, fetches; virtual only), each\n"
	"                   in its first byte's unit; default: exact when the trace holds\n"
	"                   exact accesses and no references (exact mode's, lackey's, din's,\n"
	"                   cachesim --emit's), else faults\n"
	"  --per-process      each process on its own, and all together\n"
	"  --csv              comma-separated values, a header line first\n"
	"  --plot FILE        draw it with gnuplot into FILE (.svg or .png)\n";

/* 0 when @arg is @first, 1 when it is @second; -1 having said it is neither. */
static int parse_choice(const char *cmd, const char *option, const char *arg,
			const char *first, const char *second)
{
	if (strcmp(arg, first) && strcmp(arg, second)) {
		fprintf(stderr, "vmtrace %s: %s: '%s' is neither %s nor %s\n", cmd, option, arg,
			first, second);
		return -1;
	}
	return !strcmp(arg, second);
}

int parse_analysis_option(const char *cmd, int opt, const char *arg, struct analysis_options *o)
{
	int taken = parse_filter_option(cmd, opt, arg, &o->filter);
	int choice;

	if (taken)
		return taken;
	switch (opt) {
	case ANALYSIS_OPT_SPACE:
		choice = parse_choice(cmd, "--space", arg, "virtual", "physical");
		if (choice < 0)
			return -1;
		o->ref.space = choice ? VMT_REF_PHYSICAL : VMT_REF_VIRTUAL;
		return 1;
	case ANALYSIS_OPT_UNIT:
		choice = parse_choice(cmd, "--unit", arg, "page", "line");
		if (choice < 0)
			return -1;
		o->ref.unit = choice ? VMT_REF_LINE : VMT_REF_PAGE;
		return 1;
	case ANALYSIS_OPT_ADDR:
		return parse_addr_range(cmd, "--addr", arg, &o->ref.addr_lo, &o->ref.addr_hi) ? -1 : 1;
	case ANALYSIS_OPT_SOURCE:
		choice = parse_choice(cmd, "--source", arg, "faults", "exact");
		if (choice < 0)
			return -1;
		o->ref.source = choice ? VMT_REF_EXACT : VMT_REF_FAULTS;
		o->source_given = true;
		return 1;
	case ANALYSIS_OPT_PER_PROCESS:
		o->per_process = true;
		return 1;
	case ANALYSIS_OPT_CSV:
		o->csv = true;
		return 1;
	case ANALYSIS_OPT_PLOT: {
		const char *dot = strrchr(arg, '.');

		if (!dot || (strcmp(dot, ".svg") && strcmp(dot, ".png"))) {
			fprintf(stderr, "vmtrace %s: --plot: '%s' ends in neither .svg nor .png\n",
				cmd, arg);
			return -1;
		}
		/* gnuplot gets it in single quotes. */
		if (strchr(arg, '\'')) {
			fprintf(stderr, "vmtrace %s: --plot: a file name with a quote in it\n", cmd);
			return -1;
		}
		o->plot = arg;
		return 1;
	}
	}
	return 0;
}

int parse_analysis_command_line(const struct analysis_command_line *l, int argc, char **argv,
				struct analysis_options *o, const char **path)
{
	char short_options[32];
	int opt, taken;

	/* The filter's -j, unless the command's own options have it. */
	snprintf(short_options, sizeof(short_options), "%s%s", l->short_options,
		 strchr(l->short_options, 'j') ? "" : FILTER_SHORT_OPTIONS);
	while ((opt = getopt_long(argc, argv, short_options, l->options, NULL)) != -1) {
		if (opt == 'h') {
			l->usage(stdout);
			return 0;
		}
		taken = l->parse(l->ctx, opt, optarg);
		if (!taken)
			taken = parse_analysis_option(l->cmd, opt, optarg, o);
		if (taken < 0)
			return 2;
		if (!taken) {
			l->usage(stderr);
			return 2;
		}
	}
	if (optind != argc - 1) {
		l->usage(stderr);
		return 2;
	}
	*path = argv[optind];
	return -1;
}

/*
 * Exact accesses are the references of a trace that holds some and no
 * reference record: by its streams alone (a stream of mixed types, the
 * model codec's, holds references and evictions).
 */
static enum vmt_ref_source default_source(const struct vmt_trace *t)
{
	bool refs = false, exact = false;

	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		const struct vmt_trace_stream_info *s = vmt_trace_stream(t, i);
		struct vmt_trace_stream_stats st;

		if (vmt_trace_stream_stats(t, i, &st) || !st.entries)
			continue;
		if (s->kind == VMT_STREAM_LOOPS ||
		    (s->kind == VMT_STREAM_RECORDS && s->record_type == VMT_REC_EXACT))
			exact = true;
		if (s->kind == VMT_STREAM_RECORDS && (s->record_type == VMT_REC_REFERENCE ||
						      s->record_type == VMT_TRACE_ANY_TYPE))
			refs = true;
	}
	return exact && !refs ? VMT_REF_EXACT : VMT_REF_FAULTS;
}

struct vmt_trace *analysis_open(const char *cmd, const char *path, struct analysis_options *o)
{
	struct vmt_trace *t = open_or_say(cmd, path, 0);

	if (t && !o->source_given)
		o->ref.source = default_source(t);
	/* Before the decoding threads start (apply_filter_options()): it cannot fail. */
	if (t && o->skip_values)
		vmt_trace_skip_values(t);
	if (t && apply_filter_options(cmd, t, &o->filter)) {
		vmt_trace_close(t);
		return NULL;
	}
	if (t) {
		o->session_err = vmt_trace_session(t, &o->session);
		o->reduction_err = vmt_trace_reduction(t, &o->reduction);
	}
	return t;
}

/* This process's part: its stats, then each analysis packed. */
static int pack_part(const struct vmt_analyze_stats *stats, struct vmt_analysis *const *analyses,
		     unsigned int n, struct vmt_packer *p)
{
	int err = 0;

	vmt_pack_u64(p, stats->records);
	vmt_pack_u64(p, stats->references);
	vmt_pack_u64(p, stats->no_frame);
	vmt_pack_u64(p, stats->out_of_range);
	vmt_pack_u64(p, stats->first_ns);
	vmt_pack_u64(p, stats->last_ns);
	for (unsigned int i = 0; !err && i < n; i++) {
		void *data;
		size_t size;

		err = vmt_analysis_pack(analyses[i], &data, &size);
		if (!err)
			vmt_pack_bytes(p, data, size);
		if (!err)
			free(data);
	}
	return err ? err : p->err;
}

/*
 * A later process's part into @stats (unless split by units: each read
 * every record, and process 0's stats are the whole's) and @analyses.
 */
static int merge_part(const void *data, size_t size, struct vmt_analyze_stats *stats,
		      bool by_units, struct vmt_analysis *const *analyses, unsigned int n)
{
	struct vmt_unpacker u = { .p = data, .end = (const uint8_t *)data + size };
	struct vmt_analyze_stats later = { 0 };
	int err = 0;

	later.records = vmt_unpack_u64(&u);
	later.references = vmt_unpack_u64(&u);
	later.no_frame = vmt_unpack_u64(&u);
	later.out_of_range = vmt_unpack_u64(&u);
	later.first_ns = vmt_unpack_u64(&u);
	later.last_ns = vmt_unpack_u64(&u);
	if (!by_units)
		vmt_analyze_stats_merge(stats, &later);
	for (unsigned int i = 0; !err && !u.err && i < n; i++) {
		size_t len;
		const void *at = vmt_unpack_span(&u, &len);

		if (at)
			err = vmt_analysis_merge(analyses[i], at, len);
	}
	return err ? err : u.err ? u.err : u.p != u.end ? -EBADMSG : 0;
}

/*
 * As one of several processes (ranks.h): this process's part of the trace
 * (or, split by units, the whole trace and its share of the units)
 * analysed and packed; process 0 merges every part into its own, in
 * order, and finishes. 0 there, ANALYSIS_ELSEWHERE on the others, or 1
 * having said why not.
 */
static int run_parts(const char *cmd, struct vmt_trace *t, const struct analysis_options *o,
		     struct vmt_analysis *const *analyses, unsigned int n,
		     struct vmt_analyze_stats *stats)
{
	struct vmt_packer p = { 0 };
	void **parts = NULL;
	size_t *sizes = NULL;
	int err = 0, empty;

	memset(stats, 0, sizeof(*stats));
	empty = o->split_by_units ? 0 :
		ranks_narrow(cmd, t, o->filter.used ? &o->filter.filter : NULL);
	if (empty < 0)
		err = -EINVAL;
	else if (!empty)
		err = vmt_analyze_part(t, &o->ref, analyses, n, stats);
	if (!err)
		err = pack_part(stats, analyses, n, &p);
	if (err && err != -EINVAL)
		fprintf(stderr, "vmtrace %s: %s\n", cmd,
			stats->analysis_error || err == -ENOMEM ? strerror(-err) :
			vmt_trace_error_message(t));
	if (ranks_agree(err != 0)) {
		vmt_buf_free(&p.buf);
		return 1;
	}
	err = ranks_gather(p.buf.data, p.buf.size, &parts, &sizes);
	vmt_buf_free(&p.buf);
	if (err) {
		fprintf(stderr, "vmtrace %s: gathering the parts: %s\n", cmd, strerror(-err));
		return 1;
	}
	if (!parts)
		return ANALYSIS_ELSEWHERE;
	/* Process 0's own part is in its analyses already. */
	for (unsigned int i = 1; i < ranks_size(); i++) {
		if (!err)
			err = merge_part(parts[i], sizes[i], stats, o->split_by_units, analyses, n);
	}
	for (unsigned int i = 0; i < ranks_size(); i++)
		free(parts[i]);
	free(parts);
	free(sizes);
	for (unsigned int i = 0; !err && i < n; i++)
		err = vmt_analysis_finish(analyses[i]);
	if (err) {
		fprintf(stderr, "vmtrace %s: merging the parts: %s\n", cmd, strerror(-err));
		return 1;
	}
	return 0;
}

int failed_before_run(void)
{
	if (ranks_size() > 1)
		ranks_agree(1);
	return 1;
}

int analysis_run(const char *cmd, struct vmt_trace *t, const struct analysis_options *o,
		 struct vmt_analysis *const *analyses, unsigned int n,
		 struct vmt_analyze_stats *stats)
{
	bool parts = ranks_size() > 1;
	int err = 0;

	for (unsigned int i = 0; parts && i < n; i++)
		parts = vmt_analysis_splits(analyses[i]);
	if (parts) {
		err = run_parts(cmd, t, o, analyses, n, stats);
		if (err)
			return err;
	} else if (ranks_rank() == 0) {
		err = vmt_analyze(t, &o->ref, analyses, n, stats);
	}
	/*
	 * Analyses that need every reference in one pass (FIFO, CLOCK, OPT, a
	 * sample's curve, hmtt's) run whole in process 0; the others wait for
	 * its word and print nothing.
	 */
	if (!parts && ranks_size() > 1 && ranks_agree(err != 0) && !err)
		return 1;
	if (!parts && ranks_rank() != 0)
		return ANALYSIS_ELSEWHERE;
	if (err) {
		/* An analysis's error is an errno alone; the reader's message says more. */
		fprintf(stderr, "vmtrace %s: %s\n", cmd,
			stats->analysis_error || err == -ENOMEM ? strerror(-err) :
			vmt_trace_error_message(t));
		return 1;
	}
	if (!stats->references) {
		bool filtered = o->filter.used || o->ref.addr_lo || o->ref.addr_hi;

		fprintf(stderr, "vmtrace %s: no %s%s%s\n", cmd,
			o->ref.source == VMT_REF_EXACT ? "exact accesses" : "references",
			filtered ? " pass the filters" : " in the trace",
			stats->no_frame ? " (none with a frame: --space physical)" : "");
		return 1;
	}
	return 0;
}

int run_analysis(const struct analysis_runner *r, const char *path, struct analysis_options *o)
{
	struct vmt_analysis *analyses[2] = { NULL, NULL };
	unsigned int n = o->per_process ? 2 : 1;
	struct vmt_analyze_stats stats;
	struct vmt_trace *t;
	int ret = 1, err;

	t = analysis_open(r->cmd, path, o);
	err = t ? r->create(r->ctx, 0, &analyses[0]) : -EINVAL;
	if (!err && o->per_process)
		err = vmt_per_process_create(&analyses[1], r->create, r->ctx);
	if (!err && o->per_process)
		vmt_per_process_set_source(analyses[1], o->ref.source);
	if (err) {
		if (t)
			fprintf(stderr, "vmtrace %s: %s\n", r->cmd, strerror(-err));
		/* The other processes learn of it in analysis_run(), where they wait. */
		failed_before_run();
		goto out;
	}
	err = analysis_run(r->cmd, t, o, analyses, n, &stats);
	if (err == ANALYSIS_ELSEWHERE)
		ret = 0;
	if (err)
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
	ret = o->plot ? r->plot(r->ctx, analyses[0], analyses[1]) : 0;
out:
	vmt_analysis_destroy(analyses[0]);
	vmt_analysis_destroy(analyses[1]);
	vmt_trace_close(t);
	return ret;
}

void analysis_print_header(FILE *out, const char *path, const struct analysis_options *o,
			   const struct vmt_analyze_stats *stats)
{
	char refs[32], settings[192];
	const char *unit;

	if (o->ref.unit == VMT_REF_LINE)
		unit = "64-byte lines";
	else
		unit = "pages (4 KiB, 2 MiB where huge)";
	fprintf(out, "# %s: %s %s, %.3f s; unit: %s %s\n", path,
		fmt_count(stats->references, refs),
		o->ref.source == VMT_REF_EXACT ? "exact accesses" : "references",
		(stats->last_ns - stats->first_ns) / 1e9,
		o->ref.space == VMT_REF_PHYSICAL ? "physical" : "virtual", unit);
	if (stats->no_frame)
		fprintf(out, "# %s references without a frame left out\n",
			fmt_count(stats->no_frame, refs));
	if (o->ref.addr_lo || o->ref.addr_hi)
		fprintf(out, "# addresses [0x%llx, 0x%llx) only: %s references outside left out\n",
			(unsigned long long)o->ref.addr_lo, (unsigned long long)o->ref.addr_hi,
			fmt_count(stats->out_of_range, refs));
	else if (stats->out_of_range)
		fprintf(out, "# %s exact accesses at 2^48 or above left out (a virtual unit holds 48 bits)\n",
			fmt_count(stats->out_of_range, refs));
	fprintf(out, "# %s\n", describe_session(o->session_err, &o->session, settings,
						  sizeof(settings)));
	if (!o->reduction_err)
		fprintf(out, "# %s\n", describe_reduction(&o->reduction, settings,
							  sizeof(settings)));
}

void print_table_title(bool csv, bool *first, const char *title)
{
	if (!*first)
		putchar('\n');
	*first = false;
	if (!csv)
		printf("%s\n", title);
}

double percent_of(uint64_t part, uint64_t all)
{
	return all ? 100.0 * (double)part / (double)all : 0.0;
}

const char *fmt_count(uint64_t n, char buf[32])
{
	char digits[24];
	int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	int i, j = 0;

	for (i = 0; i < len; i++) {
		if (i && (len - i) % 3 == 0)
			buf[j++] = ',';
		buf[j++] = digits[i];
	}
	buf[j] = '\0';
	return buf;
}

const char *fmt_bytes(double bytes, char buf[32])
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	unsigned int u = 0;

	while (bytes >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		bytes /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, 32, "%.0f B", bytes);
	else
		snprintf(buf, 32, "%.*f %s", bytes < 10 ? 2 : bytes < 100 ? 1 : 0, bytes, units[u]);
	return buf;
}

int plot_with_gnuplot(const char *cmd, const char *path, const char *script, const char *data)
{
	char data_path[] = "/tmp/vmtrace-plot-XXXXXX";
	bool svg = strlen(path) > 4 && !strcmp(path + strlen(path) - 4, ".svg");
	size_t len = strlen(data);
	int fd, status, ret = 1;
	FILE *gp;

	fd = mkstemp(data_path);
	if (fd < 0) {
		fprintf(stderr, "vmtrace %s: --plot: a temporary file: %s\n", cmd, strerror(errno));
		return 1;
	}
	if (write(fd, data, len) != (ssize_t)len) {
		fprintf(stderr, "vmtrace %s: --plot: %s: %s\n", cmd, data_path, strerror(errno));
		goto out;
	}
	gp = popen("gnuplot 2>&1", "w");
	if (!gp) {
		fprintf(stderr, "vmtrace %s: --plot: cannot run gnuplot: %s\n", cmd,
			strerror(errno));
		goto out;
	}
	/* Neither path has a quote in it (parse_analysis_option(), mkstemp()). */
	fprintf(gp, "set terminal %s size 900,560 font 'sans,10'\n"
		"set output '%s'\nDATA = '%s'\n%s\n", svg ? "svg dynamic" : "png",
		path, data_path, script);
	status = pclose(gp);
	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "vmtrace %s: --plot: gnuplot failed%s\n", cmd,
			WIFEXITED(status) && WEXITSTATUS(status) == 127 ?
			" (not installed? apt-get install gnuplot-nox)" : "");
		goto out;
	}
	ret = 0;
out:
	close(fd);
	unlink(data_path);
	return ret;
}

int plot_begin(const char *cmd, struct plot *p)
{
	memset(p, 0, sizeof(*p));
	p->data = open_memstream(&p->data_text, &p->data_len);
	p->script = p->data ? open_memstream(&p->script_text, &p->script_len) : NULL;
	if (p->script)
		return 0;
	if (p->data)
		fclose(p->data);
	free(p->data_text);
	fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
	return 1;
}

int plot_end(const char *cmd, struct plot *p, const char *path)
{
	/* The texts are whole, and their pointers set, once the streams are closed. */
	bool data_ok = fclose(p->data) == 0, script_ok = fclose(p->script) == 0;
	int ret = 1;

	if (data_ok && script_ok)
		ret = plot_with_gnuplot(cmd, path, p->script_text, p->data_text);
	else
		fprintf(stderr, "vmtrace %s: --plot: %s\n", cmd, strerror(ENOMEM));
	free(p->data_text);
	free(p->script_text);
	return ret;
}
