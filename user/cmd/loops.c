// SPDX-License-Identifier: GPL-2.0
/*
 * vmtrace loops TRACE -o OUT [--window S] [--keep times,values] [codec options]
 * vmtrace loops --show FILE [--min-share P]
 *
 * Loop compression (issue 32, after ScalaMemTrace): OUT is TRACE with each
 * thread's exact accesses as loop descriptors (a VMT_STREAM_LOOPS stream a
 * thread, docs/FORMAT.md "Loop descriptors"), every other record as the
 * writer's codec writes it, and threads whose loops differ only in their
 * bases as one loop set (codec/loop_sets.h). Readers replay the
 * descriptors, so dump, export and the analyses read OUT as they read
 * TRACE. --show prints a loop file's descriptors as a tree of loops.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/trace.h"
#include "codec/loop_codec.h"
#include "trace/loop_reader.h"
#include "commands.h"
#include "util/analysis_command.h"
#include "util/cmd_util.h"
#include "util/ip_places.h"
#include "util/writer_options.h"

enum { LOOPS_OPT_WINDOW = 0x300, LOOPS_OPT_KEEP, LOOPS_OPT_SHOW, LOOPS_OPT_MIN_SHARE };

void usage_loops(FILE *out)
{
	fputs("usage: vmtrace loops TRACE -o OUT [--window S] [--keep times,values] [codec options]\n"
	      "       vmtrace loops --show FILE [--min-share P]\n"
	      "  each thread's exact accesses as loops (RSDs nested into PRSDs, after\n"
	      "  ScalaMemTrace), lossless; every other record as the codec writes it;\n"
	      "  threads whose loops differ only in their bases kept once (a loop set)\n"
	      "  -o OUT             the loop-compressed trace (not TRACE itself)\n"
	      "  --window S         elements the encoder looks back over (1..65536, default 256):\n"
	      "                     a loop whose body folds to N elements needs S >= 2N;\n"
	      "                     time and memory grow with S\n"
	      "  --keep WHAT        keep the accesses' times, values or both (times,values);\n"
	      "                     by default both are dropped (times read as 0)\n"
	      "  --show FILE        the loop tree of each thread: trip counts, strides,\n"
	      "                     instructions (their mappings, by the VMA records) and each\n"
	      "                     loop's share of the accesses\n"
	      "  --min-share P      with --show: loops of less than P% of a thread's\n"
	      "                     accesses counted, not printed (default 1)\n", out);
	fputs(writer_options_usage, out);
}

static int parse_keep(const char *arg, unsigned int *keep)
{
	char *copy = strdup(arg), *save = NULL;

	if (!copy)
		return -1;
	*keep = 0;
	for (char *w = strtok_r(copy, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		if (!strcmp(w, "times")) {
			*keep |= VMT_LOOPS_KEEP_TIMES;
		} else if (!strcmp(w, "values")) {
			*keep |= VMT_LOOPS_KEEP_VALUES;
		} else {
			fprintf(stderr, "vmtrace loops: --keep %s: not times or values\n", w);
			free(copy);
			return -1;
		}
	}
	free(copy);
	return 0;
}

static const char *keep_text(unsigned int keep)
{
	switch (keep & (VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES)) {
	case VMT_LOOPS_KEEP_TIMES:
		return "times kept, values dropped";
	case VMT_LOOPS_KEEP_VALUES:
		return "times dropped (read as 0), values kept";
	case VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES:
		return "times and values kept";
	}
	return "times and values dropped (times read as 0, in written order)";
}

/* Every record of @t, in written order, data included, to @w; the counts. */
static int copy_records(struct vmt_trace *t, struct vmt_trace_writer *w, uint64_t *exact,
			uint64_t *other)
{
	static uint8_t data[VMT_MAX_DATA_LEN];
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *r;
	struct vmt_trace_session session;
	uint32_t stream;
	int ret;

	if (!vmt_trace_session(t, &session) && vmt_trace_writer_add_session(w, &session) < 0) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_writer_error_message(w));
		return 1;
	}
	if (vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &cursor)) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
		return 1;
	}
	while ((ret = vmt_trace_cursor_next(cursor, &r, &stream)) == 1) {
		int len = vmt_trace_record_data(t, r, data, sizeof(data));

		if (len < 0) {
			ret = len;
			break;
		}
		if (vmt_trace_writer_append_record_data(w, r, len ? data : NULL)) {
			fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_writer_error_message(w));
			vmt_trace_cursor_free(cursor);
			return 1;
		}
		*(r->hdr.type == VMT_REC_EXACT ? exact : other) += 1;
	}
	vmt_trace_cursor_free(cursor);
	if (ret < 0) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
		return 1;
	}
	return 0;
}

/* The loop streams' and sets' bytes, threads and sets of the trace at @path, for the summary. */
static int loop_bytes(const char *path, uint64_t *bytes, uint32_t *threads, uint32_t *sets,
		      uint32_t *in_sets)
{
	struct vmt_trace_loops_thread *list;
	struct vmt_trace *t = open_or_say("loops", path, 0);
	int err;

	if (!t)
		return 1;
	err = vmt_trace_loops(t, &list, threads);
	*bytes = 0;
	*sets = *in_sets = 0;
	for (uint32_t i = 0; !err && i < vmt_trace_nr_streams(t); i++) {
		uint32_t kind = vmt_trace_stream(t, i)->kind;
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		if (kind == VMT_STREAM_LOOPS || kind == VMT_STREAM_LOOPSET)
			*bytes += st.entries;
		*sets += kind == VMT_STREAM_LOOPSET;
	}
	for (uint32_t i = 0; !err && *sets && i < *threads; i++) {
		struct vmt_loop_reader *r;
		uint32_t from, rank, ranks;

		err = vmt_loop_reader_open(t, &list[i], &r);
		*in_sets += !err && vmt_loop_reader_set(r, &from, &rank, &ranks);
		vmt_loop_reader_free(r);
	}
	if (err)
		fprintf(stderr, "vmtrace loops: %s: %s\n", path, vmt_trace_error_message(t));
	free(list);
	vmt_trace_close(t);
	return err ? 1 : 0;
}

static int compress(const char *in_path, const char *out_path,
		    const struct vmt_trace_writer_options *wopts)
{
	uint64_t exact = 0, other = 0, bytes = 0;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	char a[32], b[32];
	uint32_t threads = 0, sets = 0, in_sets = 0;
	int status;

	if (same_file(in_path, out_path)) {
		fprintf(stderr, "vmtrace loops: -o %s is the input itself\n", out_path);
		return 1;
	}
	t = open_or_say("loops", in_path, 0);
	if (!t)
		return 1;
	if (vmt_trace_writer_create(&w, out_path, wopts, &err)) {
		fprintf(stderr, "vmtrace loops: %s\n", err.message);
		vmt_trace_close(t);
		return 1;
	}
	status = copy_records(t, w, &exact, &other);
	vmt_trace_close(t);
	if (status) {
		vmt_trace_writer_abandon(w);
		unlink(out_path);
		return status;
	}
	if (vmt_trace_writer_close(w, &err)) {
		fprintf(stderr, "vmtrace loops: %s: %s\n", out_path, err.message);
		unlink(out_path);
		return 1;
	}
	if (loop_bytes(out_path, &bytes, &threads, &sets, &in_sets))
		return 1;
	printf("[ vmtrace loops: wrote %s (%lld bytes): %s exact accesses of %u thread%s as %s bytes "
	       "of loop descriptors (window %u; %llu bytes as records), %llu other records; %s ]\n",
	       out_path, file_size(out_path), fmt_count(exact, a), threads, threads == 1 ? "" : "s",
	       fmt_count(bytes, b), wopts->loops_window,
	       (unsigned long long)exact * sizeof(struct vmt_record), (unsigned long long)other,
	       keep_text(wopts->loops_keep));
	if (sets)
		printf("[ vmtrace loops: %u threads in %u loop set%s: the same loops at other bases, "
		       "a set's descriptors written once ]\n", in_sets + sets, sets, sets == 1 ? "" : "s");
	return 0;
}

/* ---- --show ----------------------------------------------------------- */

static const char *access_name(uint8_t access)
{
	switch (access) {
	case VMT_ACCESS_READ:
		return "read";
	case VMT_ACCESS_WRITE:
		return "write";
	case VMT_ACCESS_RMW:
		return "rmw";
	case VMT_ACCESS_EXEC:
		return "exec";
	}
	return "?";
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

/* The instructions of a thread's loops, and their mappings (at most MAX_PLACES). */
#define MAX_PLACES	4096
struct places {
	struct ip_place *p;
	size_t n;
};

static void add_place(struct places *pl, uint32_t pid, uint64_t ip)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].ip == ip)
			return;
	if (pl->n < MAX_PLACES)
		pl->p[pl->n++] = (struct ip_place){ .pid = pid, .ip = ip };
}

static const char *place_of(const struct places *pl, uint64_t ip, char *buf, size_t size)
{
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].ip == ip && pl->p[i].found)
			return ip_place_text(&pl->p[i], buf, size);
	return "no mapping in the trace";
}

/*
 * One element's loops, those of @min_share % of @total or more, as a tree.
 * A loop's accesses are those of all its runs: its own count times those
 * of the loops around it. Its instructions' places in @pl.
 */
static void show_element(const struct vmt_loop_element *el, uint64_t total, double min_share,
			 uint64_t *hidden, const struct places *pl)
{
	char where[96];

	uint32_t stack[VMT_LOOP_MAX_DEPTH + 1], depth = 0, hide_depth = UINT32_MAX;
	double runs[VMT_LOOP_MAX_DEPTH + 1] = { 1.0 };

	for (uint32_t i = 0; i < el->nr_ops; i++) {
		const struct vmt_loop_op *op = &el->ops[i];

		if (op->type == VMT_LOOP_OP_BEGIN) {
			const struct vmt_loop_loop *l = &el->loops[op->index];
			double all = runs[depth] * (double)l->accesses;
			char n[32];

			stack[depth++] = op->index;
			runs[depth] = runs[depth - 1] * (double)l->count;
			if (hide_depth < depth)
				continue;
			if (share((uint64_t)all, total) < min_share) {
				hide_depth = depth;
				*hidden += (uint64_t)all;
				continue;
			}
			printf("%*sloop x%llu: %s accesses, %.2f%%\n", 2 * (int)depth, "",
			       (unsigned long long)l->count, fmt_count((uint64_t)all, n),
			       share((uint64_t)all, total));
		} else if (op->type == VMT_LOOP_OP_END) {
			if (hide_depth == depth)
				hide_depth = UINT32_MAX;
			depth--;
		} else if (depth && hide_depth > depth) {
			const struct vmt_loop_leaf *leaf = &el->leaves[op->index];

			printf("%*sip %#llx (%s) %s %u at %#llx, stride", 2 * (int)depth + 2, "",
			       (unsigned long long)leaf->access.ip,
			       place_of(pl, leaf->access.ip, where, sizeof(where)),
			       access_name(leaf->access.access), leaf->access.size,
			       (unsigned long long)leaf->access.addr);
			for (uint32_t d = depth; d--;) {
				const struct vmt_loop_loop *l = &el->loops[stack[d]];

				printf(" %+lld", (long long)l->stride[op->index - l->leaf_lo]);
			}
			printf("%s\n", leaf->access.kernel_mode ? " (kernel)" : "");
		}
	}
}

/* The instructions of @th's loops, placed in their mappings: 0, or -1 said. */
static int find_places(struct vmt_trace *t, const struct vmt_trace_loops_thread *th,
		       struct places *pl)
{
	struct vmt_loop_reader *r;
	struct vmt_loop_element el;
	int ret;

	pl->n = 0;
	if (vmt_loop_reader_open(t, th, &r)) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
		return -1;
	}
	while ((ret = vmt_loop_reader_next_element(r, &el)) == 1)
		for (uint32_t i = 0; el.nr_loops && i < el.nr_leaves; i++)
			add_place(pl, th->pid, el.leaves[i].access.ip);
	vmt_loop_reader_free(r);
	if (ret < 0) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
		return -1;
	}
	place_ips(t, pl->p, pl->n);
	vmt_trace_set_filter(t, NULL);
	return 0;
}

static int show_thread(struct vmt_trace *t, const struct vmt_trace_loops_thread *th,
		       double min_share, struct places *pl)
{
	uint64_t literals = 0, hidden = 0, looped = 0, elements = 0;
	uint32_t from, rank, ranks;
	struct vmt_trace_stream_stats st;
	struct vmt_loop_reader *r;
	struct vmt_loop_element el;
	char n[32], b[32];
	int ret;

	vmt_trace_stream_stats(t, th->stream_id, &st);
	printf("thread %u/%u (stream %u): %s accesses in %s bytes of descriptors, window %u, %s\n",
	       th->pid, th->tid, th->stream_id, fmt_count(th->records, n),
	       fmt_count(st.entries, b), th->window, keep_text(th->keep));
	if (find_places(t, th, pl))
		return 1;
	if (vmt_loop_reader_open(t, th, &r)) {
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
		return 1;
	}
	if (vmt_loop_reader_set(r, &from, &rank, &ranks))
		printf("  the loops of stream %u at other bases: rank %u of %u in its loop set\n", from,
		       rank, ranks);
	while ((ret = vmt_loop_reader_next_element(r, &el)) == 1) {
		elements++;
		if (!el.nr_loops) {
			literals += el.accesses;
			continue;
		}
		looped += el.accesses;
		show_element(&el, th->records, min_share, &hidden, pl);
	}
	if (ret < 0)
		fprintf(stderr, "vmtrace loops: %s\n", vmt_trace_error_message(t));
	vmt_loop_reader_free(r);
	printf("  %llu elements: %.2f%% of the accesses in loops (%.2f%% in loops under %g%%, not shown), "
	       "%.2f%% literal\n", (unsigned long long)elements, share(looped, th->records),
	       share(hidden, th->records), min_share, share(literals, th->records));
	return ret < 0 ? 1 : 0;
}

static int show(const char *path, double min_share)
{
	struct vmt_trace_loops_thread *threads;
	struct vmt_trace *t = open_or_say("loops", path, 0);
	struct places pl = { calloc(MAX_PLACES, sizeof(*pl.p)), 0 };
	uint32_t n;
	int status = 0;

	if (!t || !pl.p) {
		if (t) {
			fprintf(stderr, "vmtrace loops: out of memory\n");
			vmt_trace_close(t);
		}
		free(pl.p);
		return 1;
	}
	if (vmt_trace_loops(t, &threads, &n)) {
		fprintf(stderr, "vmtrace loops: %s: %s\n", path, vmt_trace_error_message(t));
		vmt_trace_close(t);
		free(pl.p);
		return 1;
	}
	if (!n)
		printf("%s: no loop streams (vmtrace loops TRACE -o OUT writes them)\n", path);
	for (uint32_t i = 0; i < n && !status; i++)
		status = show_thread(t, &threads[i], min_share, &pl);
	free(threads);
	free(pl.p);
	vmt_trace_close(t);
	return status;
}

int cmd_loops(int argc, char **argv)
{
	static const struct option options[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "window", required_argument, NULL, LOOPS_OPT_WINDOW },
		{ "keep", required_argument, NULL, LOOPS_OPT_KEEP },
		{ "show", no_argument, NULL, LOOPS_OPT_SHOW },
		{ "min-share", required_argument, NULL, LOOPS_OPT_MIN_SHARE },
		{ "help", no_argument, NULL, 'h' },
		WRITER_LONG_OPTIONS,
		{ NULL, 0, NULL, 0 },
	};
	struct vmt_trace_writer_options wopts = {
		.codec = VMT_CODEC_MODEL, .loops_window = VMT_LOOP_WINDOW_DEFAULT,
	};
	const char *out_path = NULL;
	double min_share = 1.0;
	bool show_mode = false;
	long long n;
	char *end;
	int opt;

	optind = 1;
	while ((opt = getopt_long(argc, argv, "o:h", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			out_path = optarg;
			break;
		case LOOPS_OPT_WINDOW:
			n = parse_number("loops", "--window", optarg, 1, VMT_LOOP_WINDOW_MAX);
			if (n < 0)
				return 2;
			wopts.loops_window = (uint32_t)n;
			break;
		case LOOPS_OPT_KEEP:
			if (parse_keep(optarg, &wopts.loops_keep))
				return 2;
			break;
		case LOOPS_OPT_SHOW:
			show_mode = true;
			break;
		case LOOPS_OPT_MIN_SHARE:
			min_share = strtod(optarg, &end);
			if (*end || !(min_share >= 0 && min_share <= 100)) {
				fprintf(stderr, "vmtrace loops: --min-share %s: not a percentage\n",
					optarg);
				return 2;
			}
			break;
		case 'h':
			usage_loops(stdout);
			return 0;
		default:
			switch (parse_writer_option("loops", opt, optarg, &wopts)) {
			case 1:
				break;
			case 0:
				usage_loops(stderr);
				return 2;
			default:
				return 2;
			}
		}
	}
	if (optind != argc - 1) {
		usage_loops(stderr);
		return 2;
	}
	if (show_mode)
		return show(argv[optind], min_share);
	if (!out_path) {
		fprintf(stderr, "vmtrace loops: say where: -o OUT\n");
		return 2;
	}
	return compress(argv[optind], out_path, &wopts);
}
