// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for loop streams in trace files (user/lib/trace/loop_writer.c,
 * loop_reader.c, and the cursor's reading of them): records of three
 * threads, their exact accesses in loop nests and noise, interleaved with
 * markers carrying data and wide accesses whose value is in the data, are
 * written with loops_window set and read back in written order: every
 * record comes back in its place, the exact ones without time and value by
 * default and byte for byte with VMT_LOOPS_KEEP_TIMES | VALUES; the "loops"
 * stream lists the threads; filters by type and pid pass what they should;
 * a cursor asked for time order reads a timeless loop file in written order.
 * Loop sets: eight threads of a row-split matrix multiply, taking turns
 * access by access, are kept as one thread's descriptors and a set (the
 * others' streams empty), one of them with a base off the line and one on
 * two CPUs, and read back record for record; a thread of other counts
 * stays out of the set. vmt_trace_cursor_read() gives in batches what
 * vmt_trace_cursor_next() gives one at a time.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/trace.h"

#include "temp_file.h"

#define NR_RECORDS	20000

struct rec {
	struct vmt_record r;
	uint8_t data[64];
};

static struct rec recs[NR_RECORDS];
static size_t nr_recs;

static uint64_t rng_state = 77;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static void add_exact(uint32_t tid, uint64_t ip, uint64_t addr, uint16_t size)
{
	struct rec *x = &recs[nr_recs];

	assert_true(nr_recs < NR_RECORDS);

	memset(x, 0, sizeof(*x));
	x->r.hdr.time_ns = 1000 + nr_recs;
	x->r.hdr.pid = 100;
	x->r.hdr.tid = tid;
	x->r.hdr.cpu = (uint16_t)(tid % 2);
	x->r.hdr.type = VMT_REC_EXACT;
	x->r.exact.addr = addr;
	x->r.exact.ip = ip;
	x->r.exact.size = size;
	x->r.exact.access = (uint8_t)(1 + ip % 3);
	x->r.exact.flags = (uint8_t)(ip & 4);
	if (size > sizeof(x->r.exact.value)) {
		x->r.hdr.data_len = size;
		for (unsigned int i = 0; i < size; i++)
			x->data[i] = (uint8_t)(nr_recs + i);
	} else {
		for (unsigned int i = 0; i < size; i++)
			x->r.exact.value[i] = (uint8_t)(nr_recs * 7 + i);
	}
	nr_recs++;
}

static void add_marker(uint32_t tid)
{
	struct rec *x = &recs[nr_recs++];

	memset(x, 0, sizeof(*x));
	x->r.hdr.time_ns = 1000 + nr_recs;
	x->r.hdr.pid = 100;
	x->r.hdr.tid = tid;
	x->r.hdr.type = VMT_REC_MARKER;
	x->r.marker.id = tid;
	x->r.hdr.data_len = (uint32_t)snprintf((char *)x->data, sizeof(x->data), "mark %zu", nr_recs);
}

/* Three threads taking turns: loop nests, noise, wide accesses and markers. */
static void make_records(void)
{
	nr_recs = 0;
	for (unsigned int round = 0; nr_recs < NR_RECORDS - 200; round++) {
		uint32_t tid = 100 + round % 3;

		if (round % 5 == 0)
			add_marker(tid);
		for (unsigned int i = 0; i < 8 && nr_recs < NR_RECORDS - 200; i++)
			for (unsigned int j = 0; j < 6; j++) {
				add_exact(tid, 0x401000 + 16 * tid, 0x10000 * tid + 64 * round + 8 * j, 8);
				add_exact(tid, 0x401004, 0x7ff0, 4);
			}
		if (round % 7 == 0)
			add_exact(tid, 0x402000, 0x20000 + 32 * round, 32);
		if (round % 3 == 0)
			add_exact(tid, 0x403000 + 4 * (rng() % 3), rng(), 8);
	}
}

static void write_trace(uint32_t window, unsigned int keep, unsigned int codec)
{
	struct vmt_trace_writer_options o = { .codec = codec, .loops_window = window,
					      .loops_keep = keep, .frame_bytes = 4096 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	for (size_t i = 0; i < nr_recs; i++)
		assert_int_equal(vmt_trace_writer_append_record_data(w, &recs[i].r,
								     recs[i].r.hdr.data_len ? recs[i].data : NULL), 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

/* What a record should read back as: time, value and data_len gone unless kept. */
static struct vmt_record expected(const struct vmt_record *r, unsigned int keep)
{
	struct vmt_record e = *r;

	if (e.hdr.type != VMT_REC_EXACT)
		return e;
	if (!(keep & VMT_LOOPS_KEEP_TIMES))
		e.hdr.time_ns = 0;
	if (!(keep & VMT_LOOPS_KEEP_VALUES)) {
		memset(e.exact.value, 0, sizeof(e.exact.value));
		e.hdr.data_len = 0;
	}
	return e;
}

static void read_back(unsigned int keep, enum vmt_trace_order order)
{
	struct vmt_trace *t;
	struct vmt_trace_error err;
	struct vmt_trace_cursor *c;
	const struct vmt_record *r;
	uint8_t data[64];
	uint32_t stream;
	size_t i = 0;
	int ret;

	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	assert_int_equal(vmt_trace_check(t), 0);
	assert_int_equal(vmt_trace_cursor_create(t, order, &c), 0);
	while ((ret = vmt_trace_cursor_next(c, &r, &stream)) == 1) {
		struct vmt_record want, got = *r;

		assert_true(i < nr_recs);
		want = expected(&recs[i].r, keep);
		if (want.hdr.data_len) {
			int len = vmt_trace_record_data(t, r, data, sizeof(data));

			assert_int_equal(len, want.hdr.data_len);
			assert_memory_equal(data, recs[i].data, len);
			/* data_off is the file's own. */
			got.raw[VMT_DATA_OFF_WORD] = want.raw[VMT_DATA_OFF_WORD];
		}
		if (memcmp(&got, &want, sizeof(got)))
			fail_msg("record %zu of %zu (type %u, keep %u) differs", i, nr_recs,
				 want.hdr.type, keep);
		i++;
	}
	if (ret < 0)
		fail_msg("%s", vmt_trace_error_message(t));
	assert_int_equal(i, nr_recs);
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
}

static void test_round_trip(void **state)
{
	static const unsigned int keeps[] = {
		0, VMT_LOOPS_KEEP_TIMES, VMT_LOOPS_KEEP_VALUES,
		VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES,
	};

	(void)state;
	make_records();
	for (unsigned int k = 0; k < 4; k++) {
		write_trace(k == 1 ? 3 : 256, keeps[k], k % 2 ? VMT_CODEC_ZSTD : VMT_CODEC_MODEL);
		read_back(keeps[k], VMT_ORDER_WRITTEN);
		/* Timeless: time order is written order. */
		if (!(keeps[k] & VMT_LOOPS_KEEP_TIMES))
			read_back(keeps[k], VMT_ORDER_TIME);
	}
}

static void test_listed_and_filtered(void **state)
{
	struct vmt_trace_loops_thread *threads;
	struct vmt_trace_filter f = { 0 };
	const uint32_t pid = 100;
	struct vmt_trace_cursor *c;
	const struct vmt_record *r;
	struct vmt_trace_error err;
	uint64_t exact = 0, markers = 0, listed = 0, want_markers = 0;
	struct vmt_trace *t;
	uint32_t n, stream;

	(void)state;
	make_records();
	write_trace(256, 0, VMT_CODEC_MODEL);
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	assert_int_equal(vmt_trace_loops(t, &threads, &n), 0);
	assert_int_equal(n, 3);
	for (uint32_t i = 0; i < n; i++) {
		assert_int_equal(threads[i].pid, 100);
		assert_int_equal(vmt_trace_stream(t, threads[i].stream_id)->kind, VMT_STREAM_LOOPS);
		assert_int_equal(threads[i].side_stream_id, VMT_TRACE_NO_TIME);
		listed += threads[i].records;
	}
	free(threads);
	for (size_t i = 0; i < nr_recs; i++) {
		exact += recs[i].r.hdr.type == VMT_REC_EXACT;
		want_markers += recs[i].r.hdr.type == VMT_REC_MARKER;
	}
	assert_int_equal(listed, exact);
	/* Exact accesses alone, of one pid. */
	f.types = 1u << VMT_REC_EXACT;
	f.nr_pids = 1;
	f.pids = &pid;
	assert_int_equal(vmt_trace_set_filter(t, &f), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	listed = 0;
	while (vmt_trace_cursor_next(c, &r, &stream) == 1) {
		assert_int_equal(r->hdr.type, VMT_REC_EXACT);
		listed++;
	}
	assert_int_equal(listed, exact);
	vmt_trace_cursor_free(c);
	/* Markers alone: the loop streams are passed over unread. */
	f.types = 1u << VMT_REC_MARKER;
	assert_int_equal(vmt_trace_set_filter(t, &f), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	while (vmt_trace_cursor_next(c, &r, &stream) == 1)
		markers++;
	assert_int_equal(markers, want_markers);
	assert_true(markers > 10);
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
}

#define SET_N		8	/* the multiply's N: a row a thread */
#define SET_THREADS	8

/* Thread @t's @step-th access of its row of C = A B (ijk), or 0 past its end. */
static int matmul_step(uint32_t t, unsigned int step, uint64_t *ip, uint64_t *addr)
{
	const uint64_t a = 0x100000, b = a + 8 * SET_N * SET_N, c = b + 8 * SET_N * SET_N;
	unsigned int j = step / (2 * SET_N + 1), k = step % (2 * SET_N + 1);
	uint64_t row = t, off = t == 5 ? 0x10000 : 0;	/* thread 5's C: off the line */

	if (j >= SET_N)
		return 0;
	if (k == 2 * SET_N) {
		*ip = 0x401020;
		*addr = c + off + 8 * (row * SET_N + j);
	} else if (k % 2 == 0) {
		*ip = 0x401000;
		*addr = a + 8 * (row * SET_N + k / 2);
	} else {
		*ip = 0x401010;
		*addr = b + 8 * (k / 2 * SET_N + j);
	}
	return 1;
}

static void make_set_records(void)
{
	unsigned int left = SET_THREADS + 1;

	nr_recs = 0;
	for (unsigned int step = 0; left; step++) {
		left = 0;
		for (uint32_t t = 0; t < SET_THREADS; t++) {
			uint64_t ip, addr;

			if (!matmul_step(t, step, &ip, &addr))
				continue;
			add_exact(300 + t, ip, addr, 8);
			/* Thread 3 runs its B loads on the other CPU. */
			recs[nr_recs - 1].r.hdr.cpu = (uint16_t)(t == 3 && ip == 0x401010 ? 0 : t % 2);
			left++;
		}
		/* A thread of other counts: half a row. */
		if (step < SET_N * (2 * SET_N + 1) / 2) {
			uint64_t ip, addr;

			matmul_step(0, step, &ip, &addr);
			add_exact(400, ip, addr + 0x800000, 8);
			left++;
		}
	}
}

static void test_sets(void **state)
{
	struct vmt_trace_loops_thread *threads;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	uint32_t n, sets = 0, empty = 0;
	uint64_t set_bytes = 0;

	(void)state;
	make_set_records();
	for (unsigned int k = 0; k < 2; k++) {
		unsigned int keep = k ? VMT_LOOPS_KEEP_TIMES | VMT_LOOPS_KEEP_VALUES : 0;

		write_trace(256, keep, VMT_CODEC_ZSTD);
		read_back(keep, VMT_ORDER_WRITTEN);
	}
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	assert_int_equal(vmt_trace_loops(t, &threads, &n), 0);
	assert_int_equal(n, SET_THREADS + 1);
	for (uint32_t i = 0; i < vmt_trace_nr_streams(t); i++) {
		struct vmt_trace_stream_stats st;

		vmt_trace_stream_stats(t, i, &st);
		if (vmt_trace_stream(t, i)->kind == VMT_STREAM_LOOPSET) {
			sets++;
			set_bytes = st.entries;
		}
		empty += vmt_trace_stream(t, i)->kind == VMT_STREAM_LOOPS && !st.entries;
	}
	free(threads);
	vmt_trace_close(t);
	/* One set of the eight; thread 400 and the set's first keep their bytes. */
	assert_int_equal(sets, 1);
	assert_int_equal(empty, SET_THREADS - 1);
	/* 3 steps and 7 members of a few bytes, two of them longer. */
	assert_true(set_bytes > 3 + 3 + 7 * 3 && set_bytes < 64);
}

/* vmt_trace_cursor_read(): in batches, the records and streams one at a time gives. */
static void test_batches(void **state)
{
	struct vmt_record batch[7];
	uint32_t streams[7], stream;
	struct vmt_trace_cursor *one, *many;
	const struct vmt_record *r;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	size_t total = 0;
	int n;

	(void)state;
	make_records();
	write_trace(256, VMT_LOOPS_KEEP_TIMES, VMT_CODEC_MODEL);
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &one), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &many), 0);
	while ((n = vmt_trace_cursor_read(many, batch, total % 2 ? streams : NULL, 7)) > 0) {
		for (int i = 0; i < n; i++) {
			assert_int_equal(vmt_trace_cursor_next(one, &r, &stream), 1);
			assert_memory_equal(&batch[i], r, sizeof(*r));
			if (total % 2)
				assert_int_equal(streams[i], stream);
		}
		total += (size_t)n;
	}
	assert_int_equal(n, 0);
	assert_int_equal(vmt_trace_cursor_next(one, &r, &stream), 0);
	assert_int_equal(total, nr_recs);
	vmt_trace_cursor_free(one);
	vmt_trace_cursor_free(many);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_listed_and_filtered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_batches, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
