// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for what vmtrace hmtt's figures and its interleaving a
 * process read from libvmtrace (user/lib/analysis/analysis_interleave.c,
 * _v2p.c): each process's runs, run lengths, name and the slice kept, on
 * a sequence worked by hand and against a brute-force recomputation on a
 * seeded random interleaving; the pages' last frames, on a built mapping
 * and against a plain model on random sightings.
 */
#include <errno.h>
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

#define PAGE	4096

/* A COMM (or TASK) record of thread @tid of process @pid, naming it @name. */
static struct vmt_record name_rec(uint64_t time, uint16_t type, uint32_t pid, uint32_t tid,
				  const char *name)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = pid;
	r.hdr.tid = tid;
	r.hdr.type = type;
	if (type == VMT_REC_TASK)
		strncpy(r.task.comm, name, VMT_COMM_LEN);
	else
		strncpy(r.comm.comm, name, VMT_COMM_LEN);
	return r;
}

static void analyze(const struct vmt_record *recs, size_t n, struct vmt_analysis *a)
{
	struct vmt_ref_options o = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_PAGE };
	struct vmt_trace *t = write_trace_and_open(path, recs, n, 64 * 7, NULL);

	assert_int_equal(vmt_analyze(t, &o, &a, 1, NULL), 0);
	vmt_trace_close(t);
}

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* ---- Interleaving a process: by hand ---- */

/* Process @p is (pid, references, runs, longest, median, short runs, name). */
static void assert_process(const struct vmt_interleave_process *p, uint32_t pid,
			   uint64_t references, uint64_t runs, uint64_t longest, uint64_t median,
			   uint64_t short_runs, const char *name)
{
	assert_int_equal(p->pid, pid);
	assert_int_equal(p->references, references);
	assert_int_equal(p->runs, runs);
	assert_int_equal(p->longest, longest);
	assert_int_equal(p->median, median);
	assert_int_equal(p->short_runs, short_runs);
	assert_true(p->mean > (double)references / (double)runs - 1e-9 &&
		    p->mean < (double)references / (double)runs + 1e-9);
	assert_string_equal(p->comm, name);
}

/*
 * pids 1 1 1 | 2 2 | 1 | 3 3 3 3 | 1 | 2 x 40, the i-th reference at page
 * i + 1 (the last 40 at page 1):
 *   pid 1: runs 3, 1, 1: 5 references, median 1 (of 1 1 3), 3 short
 *   pid 2: runs 2, 40: 42 references, median 2 (the lower middle), 1 short
 *          (40 is not fewer than 40)
 *   pid 3: run 4: 4 references, median 4, 1 short
 * Names: pid 1 "one" (COMM); pid 2 TASK "two" then COMM "deux" (the last);
 * a COMM of pid 3's thread 33 (not its leader) names nothing.
 */
static void test_processes_by_hand(void **state)
{
	static const uint32_t pids[] = { 1, 1, 1, 2, 2, 1, 3, 3, 3, 3, 1 };
	const struct vmt_interleave_process *p;
	const struct vmt_interleave_length *l;
	const struct vmt_interleave_ref *s;
	struct vmt_record recs[64];
	struct vmt_analysis *a;
	size_t n = 0;

	(void)state;
	recs[n++] = name_rec(1, VMT_REC_COMM, 1, 1, "one");
	recs[n++] = name_rec(2, VMT_REC_TASK, 2, 2, "two");
	recs[n++] = name_rec(3, VMT_REC_COMM, 3, 33, "thread");
	for (unsigned int i = 0; i < sizeof(pids) / sizeof(pids[0]); i++, n++)
		recs[n] = ref_rec(100 + n, pids[i], 0x1000 * (i + 1), 0);
	recs[n] = name_rec(100 + n, VMT_REC_COMM, 2, 2, "deux");
	n++;
	for (unsigned int i = 0; i < 40; i++, n++)
		recs[n] = ref_rec(100 + n, 2, 0x1000, 0);

	assert_int_equal(vmt_interleave_create(&a), 0);
	assert_int_equal(vmt_interleave_keep_slice(a, 2, 5), 0);
	analyze(recs, n, a);
	assert_int_equal(vmt_interleave_processes(a, &p), 3);
	assert_process(&p[0], 1, 5, 3, 3, 1, 3, "one");
	assert_process(&p[1], 2, 42, 2, 40, 2, 1, "deux");
	assert_process(&p[2], 3, 4, 1, 4, 4, 1, "");

	assert_int_equal(vmt_interleave_process_lengths(a, 0, &l), 2);
	assert_int_equal(l[0].length, 1);
	assert_int_equal(l[0].runs, 2);
	assert_int_equal(l[1].length, 3);
	assert_int_equal(l[1].runs, 1);
	assert_int_equal(vmt_interleave_process_lengths(a, 1, &l), 2);
	assert_int_equal(l[0].length, 2);
	assert_int_equal(l[1].length, 40);
	assert_int_equal(vmt_interleave_process_lengths(a, 3, &l), 0);
	assert_null(l);

	/* References 2..6: pids 1 2 2 1 3, at pages 3..7. */
	assert_int_equal(vmt_interleave_slice(a, &s), 5);
	for (unsigned int i = 0; i < 5; i++) {
		assert_int_equal(s[i].index, 2 + i);
		assert_int_equal(s[i].pid, pids[2 + i]);
		assert_int_equal(s[i].addr, 0x1000 * (3 + i));
	}
	vmt_analysis_destroy(a);

	/* A slice that runs past the end: 48..57 of 51 keeps 48, 49, 50; one past it, none. */
	assert_int_equal(vmt_interleave_create(&a), 0);
	assert_int_equal(vmt_interleave_keep_slice(a, 48, 10), 0);
	analyze(recs, n, a);
	assert_int_equal(vmt_interleave_slice(a, &s), 3);
	assert_int_equal(s[2].index, 50);
	assert_int_equal(s[2].pid, 2);
	vmt_analysis_destroy(a);
	assert_int_equal(vmt_interleave_create(&a), 0);
	assert_int_equal(vmt_interleave_keep_slice(a, 51, 1), 0);
	analyze(recs, n, a);
	assert_int_equal(vmt_interleave_slice(a, &s), 0);
	vmt_analysis_destroy(a);

	/* Without a slice asked for, none kept. */
	assert_int_equal(vmt_interleave_create(&a), 0);
	analyze(recs, n, a);
	assert_int_equal(vmt_interleave_slice(a, &s), 0);
	vmt_analysis_destroy(a);
}

/* ---- Interleaving a process: a random interleaving against brute force ---- */

#define RANDOM_REFS	20000
#define RANDOM_PIDS	5

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * The definition, plainly: cut @pids into maximal runs of one pid, and for
 * @pid list its runs' lengths, sorted, in @lengths (*@nr of them).
 */
static void brute_runs(const uint32_t *pids, size_t n, uint32_t pid, uint64_t *lengths,
		       size_t *nr)
{
	*nr = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j < n && pids[j] == pids[i])
			j++;
		if (pids[i] == pid)
			lengths[(*nr)++] = j - i;
		i = j;
	}
	qsort(lengths, *nr, sizeof(*lengths), compare_u64);
}

/*
 * Seeded interleavings of 5 processes, each reference's process the last
 * one's with a chance (a different stickiness each seed: short runs to
 * long ones), pids in a scattered order: each process's numbers and its
 * run-length distribution against brute_runs(), and a random slice
 * against the sequence itself.
 */
static void test_processes_random(void **state)
{
	static const uint32_t pid_of[RANDOM_PIDS] = { 4242, 7, 1000000, 31, 555 };
	struct vmt_record *recs = malloc(RANDOM_REFS * sizeof(*recs));
	uint32_t *pids = malloc(RANDOM_REFS * sizeof(*pids));
	uint64_t *lengths = malloc(RANDOM_REFS * sizeof(*lengths));
	uint64_t *addrs = malloc(RANDOM_REFS * sizeof(*addrs));
	uint64_t seed = 35;

	(void)state;
	assert_non_null(recs);
	assert_non_null(pids);
	assert_non_null(lengths);
	assert_non_null(addrs);
	for (unsigned int round = 0; round < 4; round++) {
		static const unsigned int stay[] = { 0, 50, 90, 99 };	/* percent */
		const struct vmt_interleave_process *p;
		const struct vmt_interleave_length *l;
		const struct vmt_interleave_ref *s;
		uint64_t first = lcg(&seed) % RANDOM_REFS, count = 1 + lcg(&seed) % 3000;
		uint64_t all_runs = 0, want_slice;
		uint32_t order[RANDOM_PIDS];
		unsigned int nr_order = 0, cur = 0;
		struct vmt_analysis *a;
		size_t np, nr;

		for (size_t i = 0; i < RANDOM_REFS; i++) {
			if (!i || lcg(&seed) % 100 >= stay[round])
				cur = lcg(&seed) % RANDOM_PIDS;
			pids[i] = pid_of[cur];
			addrs[i] = (1 + lcg(&seed) % 100000) * PAGE;
			recs[i] = ref_rec(1000 + i, pids[i], addrs[i] + 8, 0);
		}
		/* The processes in the order of their first references. */
		for (size_t i = 0; i < RANDOM_REFS; i++) {
			unsigned int k = 0;

			while (k < nr_order && order[k] != pids[i])
				k++;
			if (k == nr_order)
				order[nr_order++] = pids[i];
		}

		assert_int_equal(vmt_interleave_create(&a), 0);
		assert_int_equal(vmt_interleave_keep_slice(a, first, count), 0);
		analyze(recs, RANDOM_REFS, a);
		np = vmt_interleave_processes(a, &p);
		assert_int_equal(np, nr_order);
		for (size_t k = 0; k < np; k++) {
			uint64_t refs = 0, short_runs = 0, cumulative = 0;
			size_t nl, at = 0;

			assert_int_equal(p[k].pid, order[k]);
			brute_runs(pids, RANDOM_REFS, order[k], lengths, &nr);
			for (size_t i = 0; i < nr; i++) {
				refs += lengths[i];
				short_runs += lengths[i] < VMT_INTERLEAVE_SHORT_RUN;
			}
			assert_process(&p[k], order[k], refs, nr, lengths[nr - 1],
				       lengths[(nr - 1) / 2], short_runs, "");
			all_runs += nr;
			/* The distinct lengths, each with its runs, in order. */
			nl = vmt_interleave_process_lengths(a, k, &l);
			for (size_t j = 0; j < nl; j++) {
				uint64_t same = 0;

				assert_true(at < nr);
				assert_int_equal(l[j].length, lengths[at]);
				while (at < nr && lengths[at] == l[j].length) {
					at++;
					same++;
				}
				assert_int_equal(l[j].runs, same);
				cumulative += l[j].runs;
			}
			assert_int_equal(at, nr);
			assert_int_equal(cumulative, nr);
		}
		assert_int_equal(vmt_interleave_result(a)->runs, all_runs);

		want_slice = first + count <= RANDOM_REFS ? count : RANDOM_REFS - first;
		assert_int_equal(vmt_interleave_slice(a, &s), want_slice);
		for (size_t i = 0; i < want_slice; i++) {
			assert_int_equal(s[i].index, first + i);
			assert_int_equal(s[i].pid, pids[first + i]);
			assert_int_equal(s[i].addr, addrs[first + i]);
			assert_int_equal(s[i].time_ns, 1000 + first + i);
		}
		vmt_analysis_destroy(a);
	}
	free(recs);
	free(pids);
	free(lengths);
	free(addrs);
}

/* ---- The pages' last frames ---- */

/*
 * test_analysis_hmtt.c's mapping: pid 1's pages 0x100..0x103 at frames
 * 0x5000..0x5003, 0x104..0x107 at 0x9000 down to 0x8ffd; 0x100 moves to
 * 0x7777 and back to 0x5000 (3 mappings); 0x103 unmapped and seen again
 * at 0x5003 (2); pid 2's 0x100 at 0x5001. Then an unmap of pid 3's page
 * 0x300, never seen (no page), and of pid 1's 0x105 (mapped no longer,
 * its last frame still 0x8ffe).
 */
static void test_v2p_pages_by_hand(void **state)
{
	static const uint64_t down[4] = { 0x9000, 0x8fff, 0x8ffe, 0x8ffd };
	static const struct vmt_v2p_page want[] = {
		{ 1, 0x100, 0x5000, 3, true }, { 1, 0x101, 0x5001, 1, true },
		{ 1, 0x102, 0x5002, 1, true }, { 1, 0x103, 0x5003, 2, true },
		{ 1, 0x104, 0x9000, 1, true }, { 1, 0x105, 0x8fff, 1, false },
		{ 1, 0x106, 0x8ffe, 1, true }, { 1, 0x107, 0x8ffd, 1, true },
		{ 2, 0x100, 0x5001, 1, true },
	};
	struct vmt_record recs[32];
	struct vmt_v2p_page page;
	struct vmt_analysis *a;
	uint64_t time = 1000;
	size_t n = 0, pos = 0, i = 0;

	(void)state;
	recs[n++] = pagemap_rec(time++, 3, 0x300 * PAGE, 0x6000, VMT_PAGEMAP_UNMAP);
	for (unsigned int k = 0; k < 4; k++)
		recs[n++] = ref_rec(time++, 1, (0x100 + k) * PAGE + 8, 0x5000 + k);
	for (unsigned int k = 0; k < 4; k++)
		recs[n++] = pagemap_rec(time++, 1, (0x104 + k) * PAGE, down[k], VMT_PAGEMAP_MAP);
	recs[n++] = ref_rec(time++, 1, 0x100 * PAGE, 0x7777);
	recs[n++] = ref_rec(time++, 1, 0x100 * PAGE, 0x5000);
	recs[n++] = pagemap_rec(time++, 1, 0x103 * PAGE, 0x5003, VMT_PAGEMAP_UNMAP);
	recs[n++] = ref_rec(time++, 1, 0x103 * PAGE, 0x5003);
	recs[n++] = ref_rec(time++, 2, 0x100 * PAGE, 0x5001);
	recs[n++] = ref_rec(time++, 2, 0x200 * PAGE, 0);	/* no frame: not seen */
	recs[n++] = pagemap_rec(time++, 1, 0x105 * PAGE, 0x8fff, VMT_PAGEMAP_UNMAP);

	assert_int_equal(vmt_v2p_create(&a), 0);
	analyze(recs, n, a);
	assert_int_equal(vmt_v2p_result(a)->pages, 9);
	while (vmt_v2p_next_page(a, &pos, &page)) {
		assert_true(i < 9);
		assert_int_equal(page.pid, want[i].pid);
		assert_int_equal(page.vpn, want[i].vpn);
		assert_int_equal(page.pfn, want[i].pfn);
		assert_int_equal(page.mappings, want[i].mappings);
		assert_int_equal(page.mapped, want[i].mapped);
		i++;
	}
	assert_int_equal(i, 9);
	/* Past the end it stays there. */
	assert_int_equal(vmt_v2p_next_page(a, &pos, &page), 0);
	vmt_analysis_destroy(a);
}

/*
 * 5000 random sightings of 400 (pid, page) pairs at random frames: the
 * pages in the order first seen, each with its last frame, against a
 * plain list.
 */
static void test_v2p_pages_random(void **state)
{
	enum { SIGHTINGS = 5000, KEYS = 400 };
	struct vmt_record *recs = malloc(SIGHTINGS * sizeof(*recs));
	uint64_t order[KEYS], last[KEYS], seed = 1935;
	uint32_t key_pid[KEYS];
	uint64_t key_vpn[KEYS];
	size_t nr_order = 0, pos = 0, i = 0;
	struct vmt_v2p_page page;
	struct vmt_analysis *a;

	(void)state;
	assert_non_null(recs);
	for (unsigned int k = 0; k < KEYS; k++) {
		key_pid[k] = 1 + k % 3;
		key_vpn[k] = 0x1000 + lcg(&seed) % (1u << 30);
	}
	for (size_t s = 0; s < SIGHTINGS; s++) {
		unsigned int k = lcg(&seed) % KEYS;
		uint64_t pfn = 1 + lcg(&seed) % 100000;
		size_t j;

		recs[s] = ref_rec(10 + s, key_pid[k], key_vpn[k] * PAGE, pfn);
		for (j = 0; j < nr_order && order[j] != k; j++)
			;
		if (j == nr_order)
			order[nr_order++] = k;
		last[k] = pfn;
	}
	assert_int_equal(vmt_v2p_create(&a), 0);
	analyze(recs, SIGHTINGS, a);
	while (vmt_v2p_next_page(a, &pos, &page)) {
		uint64_t k;

		assert_true(i < nr_order);
		k = order[i++];
		assert_int_equal(page.pid, key_pid[k]);
		assert_int_equal(page.vpn, key_vpn[k]);
		assert_int_equal(page.pfn, last[k]);
	}
	assert_int_equal(i, nr_order);
	assert_int_equal(vmt_v2p_result(a)->pages, nr_order);
	vmt_analysis_destroy(a);
	free(recs);
}

/* ---- Bad input ---- */

static void test_bad_slice(void **state)
{
	struct vmt_analysis *a;

	(void)state;
	assert_int_equal(vmt_interleave_create(&a), 0);
	assert_int_equal(vmt_interleave_keep_slice(a, 0, 0), -EINVAL);
	assert_int_equal(vmt_interleave_keep_slice(a, 0, VMT_INTERLEAVE_MAX_SLICE + 1), -EINVAL);
	assert_int_equal(vmt_interleave_keep_slice(a, UINT64_MAX - 1, 2), -EINVAL);
	assert_int_equal(vmt_interleave_keep_slice(a, UINT64_MAX - 2, 2), 0);
	assert_int_equal(vmt_interleave_keep_slice(a, 0, VMT_INTERLEAVE_MAX_SLICE), 0);
	vmt_analysis_destroy(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_processes_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_processes_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2p_pages_by_hand, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v2p_pages_random, setup, teardown),
		cmocka_unit_test(test_bad_slice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
