// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the SAD reduction (user/lib/analysis/sad_reduce.c) and the trace's
 * session stream (user/lib/trace/trace_session.c). The judge is a brute-force
 * LRU simulation written here: the reduced trace's fault count equals the
 * original's at every memory size M >= R, on random, loop, phase and
 * multi-process traces, globally and per process; below R a case built
 * for it differs. The reduced trace keeps every other record (and its
 * data), and its ref_index names the original reference each kept one is.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/analysis.h"

#include "temp_file.h"
#include "trace_file.h"

static char out_path[80];

static struct vmt_record ref(uint64_t time, uint32_t pid, uint64_t page)
{
	struct vmt_record r = reference_record(time, pid, 0x400000 + page * 4096 + (time % 4096));

	r.hdr.cpu = (uint16_t)(pid % 2);
	return r;
}

/* A trace being built: references and, now and then, a VMA record with data. */
struct gen {
	struct vmt_record *recs;
	size_t n, room;
	uint64_t time, rng;
	size_t vmas;
};

static void add(struct gen *g, const struct vmt_record *r)
{
	if (g->n == g->room) {
		g->room = g->room ? g->room * 2 : 1024;
		g->recs = realloc(g->recs, g->room * sizeof(*g->recs));
		assert_non_null(g->recs);
	}
	g->recs[g->n++] = *r;
}

/* The VMA record and its one DATA chunk, as a ring holds them. */
static void add_vma(struct gen *g, uint32_t pid)
{
	struct vmt_record v, d;

	memset(&v, 0, sizeof(v));
	v.hdr.time_ns = g->time++;
	v.hdr.pid = v.hdr.tid = pid;
	v.hdr.cpu = (uint16_t)(pid % 2);
	v.hdr.type = VMT_REC_VMA;
	v.hdr.data_len = 8;
	v.vma.start = 0x400000;
	v.vma.end = 0x800000;
	v.vma.op = VMT_VMA_MAP;
	v.vma.kind = VMT_VMA_FILE;
	d = v;
	d.hdr.type = VMT_REC_DATA;
	memset(d.raw, 0, sizeof(d.raw));
	memcpy(d.raw, "/bin/foo", 8);
	add(g, &v);
	add(g, &d);
	g->vmas++;
}

static void add_ref(struct gen *g, uint32_t pid, uint64_t page)
{
	struct vmt_record r = ref(g->time++, pid, page);

	add(g, &r);
	if (g->n % 97 == 0)
		add_vma(g, pid);
}

static uint64_t rnd(struct gen *g, uint64_t below)
{
	g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (g->rng >> 33) % below;
}

enum pattern { RANDOM, LOOPS, PHASES, PIDS, NR_PATTERNS };
static const char *const pattern_names[] = { "random", "loops", "phases", "pids" };

static void generate(struct gen *g, enum pattern p)
{
	memset(g, 0, sizeof(*g));
	g->time = 1000;
	g->rng = 12345 + p;
	switch (p) {
	case RANDOM:		/* 3000 uniform references over 100 pages */
		for (int i = 0; i < 3000; i++)
			add_ref(g, 7, rnd(g, 100));
		break;
	case LOOPS:		/* loops over 5, 12, 70 pages, 20 times each */
		for (int l = 0; l < 3; l++) {
			static const int sizes[] = { 5, 12, 70 };

			for (int rep = 0; rep < 20; rep++)
				for (int i = 0; i < sizes[l]; i++)
					add_ref(g, 7, (uint64_t)i + 1000 * (uint64_t)l);
		}
		break;
	case PHASES:		/* 6 phases, each random over its own 3..40 pages, with a shared hot page */
		for (int ph = 0; ph < 6; ph++) {
			uint64_t size = 3 + rnd(g, 38);

			for (int i = 0; i < 500; i++)
				add_ref(g, 7, rnd(g, 4) ? 100 * (uint64_t)ph + rnd(g, size) : 9999);
		}
		break;
	case PIDS:		/* 3 processes interleaved at random, each with its own locality */
		for (int i = 0; i < 3000; i++) {
			uint32_t pid = 100 + (uint32_t)rnd(g, 3);

			add_ref(g, pid, pid == 100 ? rnd(g, 10) : pid == 101 ? (uint64_t)(i % 30) :
				rnd(g, 200));
		}
		break;
	default:
		break;
	}
}

/* A trace's references in written order: their records, and how many. */
static struct vmt_record *references(struct vmt_trace *t, size_t *n, size_t *others)
{
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	struct vmt_record *out = NULL;
	size_t room = 0;
	uint32_t stream;

	*n = *others = 0;
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	while (vmt_trace_cursor_next(c, &rec, &stream) == 1) {
		if (rec->hdr.type != VMT_REC_REFERENCE) {
			char data[16];

			/* Every other record keeps its data. */
			assert_int_equal(vmt_trace_record_data(t, rec, data, sizeof(data)), 8);
			assert_memory_equal(data, "/bin/foo", 8);
			(*others)++;
			continue;
		}
		if (*n == room) {
			room = room ? room * 2 : 1024;
			out = realloc(out, room * sizeof(*out));
			assert_non_null(out);
		}
		out[(*n)++] = *rec;
	}
	vmt_trace_cursor_free(c);
	return out;
}

/*
 * Brute force: LRU faults of the references with @m pages of memory, one
 * memory for all (pid 0 asked) or for @pid's references alone. The stack
 * is an array, most recent first.
 */
static uint64_t lru_faults(const struct vmt_record *refs, size_t n, size_t m, uint32_t pid)
{
	uint64_t *stack = calloc(m + 1, sizeof(*stack)), faults = 0;
	size_t depth = 0;

	assert_non_null(stack);
	for (size_t i = 0; i < n; i++) {
		uint64_t page = (uint64_t)refs[i].hdr.pid << 40 | refs[i].ref.vaddr >> 12;
		size_t j;

		if (pid && refs[i].hdr.pid != pid)
			continue;
		for (j = 0; j < depth && stack[j] != page; j++)
			;
		if (j == depth) {
			faults++;
			if (depth < m)
				depth++;
			j = depth - 1;	/* the last one falls out (or the new slot) */
		}
		memmove(stack + 1, stack, j * sizeof(*stack));
		stack[0] = page;
	}
	free(stack);
	return faults;
}

/* Reduce @in into out_path; the stats of the pass. */
static void reduce(struct vmt_trace *in, uint64_t r, bool per_process, uint32_t queue,
		   struct vmt_sad_stats *st)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 30, .codec = VMT_CODEC_ZSTD };
	struct vmt_ref_options ro = { 0 };
	struct vmt_sad_options so = { .r = r, .per_process = per_process, .queue_records = queue };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_analysis *a;

	assert_int_equal(vmt_trace_writer_create(&w, out_path, &o, &err), 0);
	assert_int_equal(vmt_sad_create(&a, in, w, &ro, &so), 0);
	assert_int_equal(vmt_analyze(in, &ro, &a, 1, NULL), 0);
	vmt_sad_stats(a, st);
	vmt_analysis_destroy(a);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

/* A trace and its reduction, open, with the references of each. */
struct reduced {
	struct vmt_trace *in, *out;
	struct vmt_record *orig, *kept;
	size_t n_orig, n_kept, others_orig, others_kept;
	struct vmt_sad_stats stats;
};

static void reduced_open(struct reduced *x, const struct vmt_record *recs, size_t n, uint64_t r,
			 bool per_process, uint32_t queue)
{
	struct vmt_trace_error err;

	x->in = write_trace_and_open(path, recs, n, 64 * 50, NULL);
	reduce(x->in, r, per_process, queue, &x->stats);
	assert_int_equal(vmt_trace_open(&x->out, out_path, 0, &err), 0);
	x->orig = references(x->in, &x->n_orig, &x->others_orig);
	x->kept = references(x->out, &x->n_kept, &x->others_kept);
}

static void reduced_close(struct reduced *x)
{
	free(x->orig);
	free(x->kept);
	vmt_trace_close(x->out);
	vmt_trace_close(x->in);
}

static const uint32_t pids[] = { 7, 100, 101, 102 };

/* One trace, one R: the guarantee at every M from R to past the footprint. */
static void check_reduction(const struct gen *g, uint64_t r, bool per_process, uint32_t queue,
			    double *ratio)
{
	struct vmt_trace_reduction red;
	struct reduced x;
	int ri;

	reduced_open(&x, g->recs, g->n, r, per_process, queue);
	assert_int_equal(x.others_orig, g->vmas);
	assert_int_equal(x.others_kept, g->vmas);
	assert_int_equal(x.stats.references, x.n_orig);
	assert_int_equal(x.stats.kept, x.n_kept);
	assert_true(x.n_kept <= x.n_orig);

	/* The parameters, and each kept reference's place in the original. */
	assert_int_equal(vmt_trace_reduction(x.out, &red), 0);
	assert_int_equal(red.method, VMT_REDUCTION_SAD);
	assert_int_equal(red.r, r);
	assert_int_equal(red.flags, per_process ? VMT_REDUCTION_PER_PROCESS : 0);
	assert_int_equal(red.references, x.n_orig);
	assert_int_equal(red.kept, x.n_kept);
	assert_int_equal(vmt_trace_session(x.out, &(struct vmt_trace_session){ 0 }), -ENOENT);
	ri = vmt_trace_find_stream(x.out, "ref_index");
	assert_true(ri >= 0);
	for (size_t i = 0; i < x.n_kept; i++) {
		struct vmt_trace_ref_index e;

		assert_int_equal(vmt_trace_read(x.out, (uint32_t)ri, i, &e), 0);
		assert_true(e.index < x.n_orig);
		assert_memory_equal(&x.orig[e.index], &x.kept[i], sizeof(x.kept[i]));
		assert_int_equal(e.time_ns, x.kept[i].hdr.time_ns);
	}
	assert_int_equal(vmt_trace_read(x.out, (uint32_t)ri, x.n_kept,
					&(struct vmt_trace_ref_index){ 0 }), -ERANGE);

	/* The judge: LRU faults at every M >= R, for all, or each process. */
	for (size_t m = r; m <= r + 210; m += m < r + 20 ? 1 : 19) {
		if (!per_process) {
			assert_int_equal(lru_faults(x.kept, x.n_kept, m, 0),
					 lru_faults(x.orig, x.n_orig, m, 0));
			continue;
		}
		for (size_t p = 0; p < sizeof(pids) / sizeof(pids[0]); p++)
			assert_int_equal(lru_faults(x.kept, x.n_kept, m, pids[p]),
					 lru_faults(x.orig, x.n_orig, m, pids[p]));
	}
	if (ratio)
		*ratio = x.n_kept ? (double)x.n_orig / (double)x.n_kept : 0.0;
	reduced_close(&x);
}

static void test_sad_exact_at_and_above_r(void **state)
{
	static const uint64_t rs[] = { 1, 2, 8, 64 };

	(void)state;
	for (int p = 0; p < NR_PATTERNS; p++) {
		struct gen g;

		generate(&g, (enum pattern)p);
		for (size_t i = 0; i < sizeof(rs) / sizeof(rs[0]); i++) {
			double global, per;

			check_reduction(&g, rs[i], false, 0, &global);
			check_reduction(&g, rs[i], true, 0, &per);
			/* For docs/analysis/reduce.md: what the tests measure. */
			print_message("  %-7s R=%-3llu %5zu records: ratio %6.2fx, per process %6.2fx\n",
				      pattern_names[p], (unsigned long long)rs[i], g.n, global, per);
		}
		free(g.recs);
	}
}

/* A queue of 64 records ends windows early; exactness holds all the same. */
static void test_sad_small_queue(void **state)
{
	struct gen g;
	struct vmt_trace *in;
	struct vmt_sad_stats st;

	(void)state;
	generate(&g, PIDS);
	check_reduction(&g, 64, false, 64, NULL);
	check_reduction(&g, 8, true, 64, NULL);
	in = write_trace_and_open(path, g.recs, g.n, 64 * 50, NULL);
	reduce(in, 64, false, 64, &st);
	assert_true(st.early_ends > 0);
	vmt_trace_close(in);
	free(g.recs);
}

/* Closed forms: a loop over R pages, n times, keeps 2 R; below R the counts differ. */
static void test_sad_loop_closed_form(void **state)
{
	struct gen g = { .time = 1 };
	struct reduced x;

	(void)state;
	for (int rep = 0; rep < 50; rep++)
		for (uint64_t i = 0; i < 8; i++) {
			struct vmt_record r = ref(g.time++, 7, i);

			add(&g, &r);
		}
	reduced_open(&x, g.recs, g.n, 8, false, 0);
	assert_int_equal(x.n_kept, 16);
	assert_int_equal(lru_faults(x.orig, x.n_orig, 8, 0), 8);
	assert_int_equal(lru_faults(x.kept, x.n_kept, 8, 0), 8);
	/* M = 7 < R: the loop misses every time, its reduction 16 times. */
	assert_int_equal(lru_faults(x.orig, x.n_orig, 7, 0), 400);
	assert_int_equal(lru_faults(x.kept, x.n_kept, 7, 0), 16);
	reduced_close(&x);
	free(g.recs);
}

/* "a b a b a" with R = 2 is "a b b a": 5 faults and 3 at M = 1, 2 and 2 at M = 2. */
static void test_sad_differs_below_r(void **state)
{
	static const uint64_t pages[] = { 0, 1, 0, 1, 0 };
	static const uint64_t want[] = { 0, 1, 3, 4 };
	struct vmt_record recs[5];
	struct reduced x;

	(void)state;
	for (int i = 0; i < 5; i++)
		recs[i] = ref(10 + (uint64_t)i, 7, pages[i]);
	reduced_open(&x, recs, 5, 2, false, 0);
	assert_int_equal(x.n_kept, 4);
	for (int i = 0; i < 4; i++)
		assert_memory_equal(&x.kept[i], &recs[want[i]], sizeof(recs[0]));
	assert_int_equal(lru_faults(x.orig, x.n_orig, 1, 0), 5);
	assert_int_equal(lru_faults(x.kept, x.n_kept, 1, 0), 3);
	assert_int_equal(lru_faults(x.orig, x.n_orig, 2, 0), 2);
	assert_int_equal(lru_faults(x.kept, x.n_kept, 2, 0), 2);
	reduced_close(&x);
}

static void test_sad_bad_r(void **state)
{
	struct vmt_record r = ref(1, 7, 0);
	struct vmt_trace_writer_options o = { 0 };
	struct vmt_ref_options ro = { 0 };
	struct vmt_sad_options so = { .r = 0 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_analysis *a;
	struct vmt_trace *in;

	(void)state;
	in = write_trace_and_open(path, &r, 1, 64 * 50, NULL);
	assert_int_equal(vmt_trace_writer_create(&w, out_path, &o, &err), 0);
	assert_int_equal(vmt_sad_create(&a, in, w, &ro, &so), -EINVAL);
	vmt_trace_writer_abandon(w);
	vmt_trace_close(in);
}

/*
 * The session stream: written, read back, copied into a reduction, shown
 * by `vmtrace info`; a trace without one gives -ENOENT.
 */
static void test_session(void **state)
{
	struct vmt_trace_session s = {
		.flags = VMT_CONFIG_PROTECT | VMT_CONFIG_FOLLOW, .enabled_pages = 64,
		.policy = VMT_POLICY_CLOCK, .events = VMT_EVENT_TASK, .nr_pids = 1,
		.start_time_ns = 123456789, .session_flags = VMT_SESSION_TARGETS_COMMAND,
	}, got;
	struct vmt_record recs[3] = { ref(1, 7, 0), ref(2, 7, 1), ref(3, 7, 0) };
	struct vmt_sad_stats st;
	struct vmt_trace *t, *out;
	struct vmt_trace_error err;
	char exe[PATH_MAX], cmd[PATH_MAX + 200], line[256];
	ssize_t len;
	FILE *p;
	bool seen = false;

	(void)state;
	t = write_trace_and_open(path, recs, 3, 64 * 50, NULL);
	assert_int_equal(vmt_trace_session(t, &got), -ENOENT);
	assert_int_equal(vmt_trace_reduction(t, &(struct vmt_trace_reduction){ 0 }), -ENOENT);
	vmt_trace_close(t);

	t = write_trace_with_session(path, recs, 3, 64 * 50, &s, NULL);
	memset(&got, 0xff, sizeof(got));
	assert_int_equal(vmt_trace_session(t, &got), 0);
	s.size = sizeof(s);
	assert_memory_equal(&got, &s, sizeof(s));
	reduce(t, 1, false, 0, &st);
	assert_int_equal(vmt_trace_open(&out, out_path, 0, &err), 0);
	memset(&got, 0, sizeof(got));
	assert_int_equal(vmt_trace_session(out, &got), 0);
	assert_memory_equal(&got, &s, sizeof(s));
	vmt_trace_close(out);
	vmt_trace_close(t);

	/* build/tests/test_sad_reduce -> build/bin/vmtrace */
	len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	assert_true(len > 0);
	exe[len] = '\0';
	*strrchr(exe, '/') = '\0';
	snprintf(cmd, sizeof(cmd), "%s/../bin/vmtrace info %s", exe, path);
	p = popen(cmd, "r");
	assert_non_null(p);
	while (fgets(line, sizeof(line), p))
		if (!strncmp(line, "session: protect: N=64 clock; ", 30))
			seen = true;
	assert_int_equal(pclose(p), 0);
	assert_true(seen);
}

static int setup_both(void **state)
{
	int fd;

	snprintf(out_path, sizeof(out_path), "/tmp/vmt-test-out-XXXXXX");
	fd = mkstemp(out_path);
	if (fd < 0)
		return -1;
	close(fd);
	return setup(state);
}

static int teardown_both(void **state)
{
	unlink(out_path);
	return teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sad_exact_at_and_above_r, setup_both,
						teardown_both),
		cmocka_unit_test_setup_teardown(test_sad_small_queue, setup_both, teardown_both),
		cmocka_unit_test_setup_teardown(test_sad_loop_closed_form, setup_both,
						teardown_both),
		cmocka_unit_test_setup_teardown(test_sad_differs_below_r, setup_both,
						teardown_both),
		cmocka_unit_test_setup_teardown(test_sad_bad_r, setup_both, teardown_both),
		cmocka_unit_test_setup_teardown(test_session, setup_both, teardown_both),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
