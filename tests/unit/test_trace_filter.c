// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for cursors through a filter (vmt_trace_set_filter() in
 * user/lib/trace/trace_reader.c, applied in trace_cursor.c): record type, pid,
 * CPU, time range, address and ip ranges, alone and together, in written and time order, with
 * exact counts and records; a time range decodes only the frames it needs;
 * the summary counts through the filter.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/trace.h"

#include "temp_file.h"

#define NR_RECORDS 3000

/*
 * Record @i: time 1000 + 10 i, pid 100 + i % 3, CPU (i / 5) % 2, an
 * eviction every seventh record (i % 7 == 6), a reference otherwise.
 * With @one_stream, every record is a reference on CPU 0.
 */
static struct vmt_record make_record(uint64_t i, bool one_stream)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = 1000 + 10 * i;
	r.hdr.pid = 100 + (uint32_t)(i % 3);
	r.hdr.tid = r.hdr.pid;
	r.hdr.cpu = one_stream ? 0 : (uint16_t)((i / 5) % 2);
	r.hdr.type = !one_stream && i % 7 == 6 ? VMT_REC_EVICT : VMT_REC_REFERENCE;
	r.ref.vaddr = 0x10000 + 4096 * (i % 97);
	r.ref.ip = 0x400000 + 4 * (i % 5);
	return r;
}

/* 50 records a frame. */
static void write_trace(bool one_stream)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 50, .codec = VMT_CODEC_VPC };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	for (uint64_t i = 0; i < NR_RECORDS; i++) {
		struct vmt_record r = make_record(i, one_stream);

		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

static struct vmt_trace *open_trace(void)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;

	if (vmt_trace_open(&t, path, 0, &err))
		fail_msg("open: %s", err.message);
	return t;
}

/* What the filter passes, said once more the plain way. */
static bool expected(const struct vmt_trace_filter *f, const struct vmt_record *r)
{
	bool pid = !f->nr_pids, cpu = !f->nr_cpus;

	for (uint32_t k = 0; k < f->nr_pids; k++)
		pid |= f->pids[k] == r->hdr.pid;
	bool addr = !f->nr_addrs, ip = !f->nr_ips;

	for (uint32_t k = 0; k < f->nr_cpus; k++)
		cpu |= f->cpus[k] == r->hdr.cpu;
	/* The generator writes references and evictions only: each has an address, a reference an ip. */
	for (uint32_t k = 0; k < f->nr_addrs; k++)
		addr |= r->ref.vaddr >= f->addrs[k].start && r->ref.vaddr < f->addrs[k].end;
	for (uint32_t k = 0; k < f->nr_ips && r->hdr.type == VMT_REC_REFERENCE; k++)
		ip |= r->ref.ip >= f->ips[k].start && r->ref.ip < f->ips[k].end;
	return (!f->types || (f->types >> r->hdr.type & 1)) && pid && cpu && addr && ip &&
	       (!f->time_range || (r->hdr.time_ns >= f->from_time && r->hdr.time_ns <= f->to_time));
}

/*
 * Read through @f in @order: the records the generator's filter passes, in
 * generator order (written order is the generator's; so is time order, since
 * its times increase). Returns how many.
 */
static uint64_t check_filtered(struct vmt_trace *t, const struct vmt_trace_filter *f,
			       enum vmt_trace_order order, bool one_stream)
{
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	uint64_t i = 0, n = 0;
	uint32_t stream;
	int ret;

	assert_int_equal(vmt_trace_set_filter(t, f), 0);
	assert_int_equal(vmt_trace_cursor_create(t, order, &c), 0);
	while ((ret = vmt_trace_cursor_next(c, &rec, &stream)) == 1) {
		struct vmt_record want;

		do {
			assert_true(i < NR_RECORDS);
			want = make_record(i++, one_stream);
		} while (!expected(f, &want));
		assert_memory_equal(rec, &want, sizeof(want));
		assert_int_equal(vmt_trace_stream(t, stream)->cpu, want.hdr.cpu);
		n++;
	}
	assert_int_equal(ret, 0);
	for (; i < NR_RECORDS; i++) {
		struct vmt_record r = make_record(i, one_stream);

		assert_false(expected(f, &r));
	}
	vmt_trace_cursor_free(c);
	return n;
}

static void check_both_orders(const struct vmt_trace_filter *f, uint64_t want)
{
	static const enum vmt_trace_order orders[] = { VMT_ORDER_WRITTEN, VMT_ORDER_TIME };

	for (size_t k = 0; k < 2; k++) {
		struct vmt_trace *t = open_trace();

		assert_int_equal(check_filtered(t, f, orders[k], false), want);
		vmt_trace_close(t);
	}
}

static void test_no_filter(void **state)
{
	struct vmt_trace_filter f = { 0 };

	(void)state;
	write_trace(false);
	check_both_orders(&f, NR_RECORDS);
}

/* Evictions: i % 7 == 6 for i < 3000, 6, 13, ..., 2995. */
static void test_filter_type(void **state)
{
	struct vmt_trace_filter f = { .types = 1u << VMT_REC_EVICT };

	(void)state;
	write_trace(false);
	check_both_orders(&f, 428);
	f.types = 1u << VMT_REC_REFERENCE | 1u << VMT_REC_EVICT;
	check_both_orders(&f, NR_RECORDS);
	f.types = 1u << VMT_REC_LOST;
	check_both_orders(&f, 0);
}

static void test_filter_pid_and_cpu(void **state)
{
	static const uint32_t pid101[] = { 101 }, pids[] = { 100, 102, 555 }, cpu1[] = { 1 };
	struct vmt_trace_filter f = { .nr_pids = 1, .pids = pid101 };

	(void)state;
	write_trace(false);
	check_both_orders(&f, 1000);
	f = (struct vmt_trace_filter){ .nr_pids = 3, .pids = pids };
	check_both_orders(&f, 2000);
	f = (struct vmt_trace_filter){ .nr_cpus = 1, .cpus = cpu1 };
	check_both_orders(&f, 1500);
	/* pid 101 on CPU 1: i % 3 == 1 and (i / 5) % 2 == 1, 500 of the 3000. */
	f = (struct vmt_trace_filter){ .nr_pids = 1, .pids = pid101, .nr_cpus = 1, .cpus = cpu1 };
	check_both_orders(&f, 500);
}

/* Records 500..1499: times 6000..15990; the ends included. */
static void test_filter_time_range(void **state)
{
	static const uint32_t pid100[] = { 100 };
	struct vmt_trace_filter f = { .time_range = 1, .from_time = 6000, .to_time = 15990 };

	(void)state;
	write_trace(false);
	check_both_orders(&f, 1000);
	f.from_time = 5991;
	f.to_time = 15999;
	check_both_orders(&f, 1000);
	f.from_time = 0;
	f.to_time = 999;
	check_both_orders(&f, 0);
	f.from_time = 30990;	/* the last record's time */
	f.to_time = UINT64_MAX;
	check_both_orders(&f, 1);
	f.from_time = 6000;
	f.to_time = 15990;
	f.types = 1u << VMT_REC_REFERENCE;
	f.nr_pids = 1;
	f.pids = pid100;
	/* i in 500..1499 with i % 3 == 0 (333), less those with i % 7 == 6 (i % 21 == 6: 48). */
	check_both_orders(&f, 285);
}

/*
 * One record stream of 60 frames, 50 records each. Records 500..1499 are
 * frames 10..29: seeking their start decodes frame 10, seeking the first
 * record after them frame 30, and reading them frames 10..29 again: 22
 * frames. In written order, the order stream's one frame besides. The
 * same with frames decoded ahead on threads (vmt_trace_set_threads()):
 * none ahead of a seek, and none past the range.
 */
static void test_time_range_decodes_its_frames(void **state)
{
	static const unsigned int threads[] = { 1, 2, 3 };

	(void)state;
	write_trace(true);
	for (unsigned int i = 0; i < 3; i++) {
		struct vmt_trace_filter f = { .time_range = 1, .from_time = 6000, .to_time = 15990 };
		struct vmt_trace *t;

		t = open_trace();
		assert_int_equal(vmt_trace_set_threads(t, threads[i]), 0);
		assert_int_equal(vmt_trace_nr_frames(t), 61);
		assert_int_equal(check_filtered(t, &f, VMT_ORDER_TIME, true), 1000);
		assert_int_equal(vmt_trace_frames_decoded(t), 22);
		vmt_trace_close(t);

		t = open_trace();
		assert_int_equal(vmt_trace_set_threads(t, threads[i]), 0);
		assert_int_equal(check_filtered(t, &f, VMT_ORDER_WRITTEN, true), 1000);
		assert_int_equal(vmt_trace_frames_decoded(t), 23);
		vmt_trace_close(t);

		/* Without a filter: every frame. */
		t = open_trace();
		assert_int_equal(vmt_trace_set_threads(t, threads[i]), 0);
		f = (struct vmt_trace_filter){ 0 };
		assert_int_equal(check_filtered(t, &f, VMT_ORDER_TIME, true), NR_RECORDS);
		assert_int_equal(vmt_trace_frames_decoded(t), 60);
		vmt_trace_close(t);
	}
}

/*
 * Address and ip ranges: vaddr 0x10000 + 4096 (i % 97), ip 0x400000 +
 * 4 (i % 5); an eviction (i % 7 == 6) has an address and no ip.
 */
static void test_filter_ranges(void **state)
{
	static const struct vmt_trace_range page0[] = { { 0x10000, 0x10001 } },
		pages[] = { { 0x10000, 0x12000 }, { 0x10000 + 4096 * 96, 0x10000 + 4096 * 97 } },
		ip2[] = { { 0x400008, 0x40000c } }, none[] = { { 0x1, 0x2 } }, empty[] = { { 5, 5 } };
	struct vmt_trace_filter f = { .nr_addrs = 1, .addrs = page0 };
	struct vmt_trace *t;

	(void)state;
	write_trace(false);
	/* i % 97 == 0: 31 of 3000 (0, 97, ..., 2910), evictions among them. */
	check_both_orders(&f, 31);
	/* i % 97 in {0, 1, 96}: 31 + 31 + 30. */
	f = (struct vmt_trace_filter){ .nr_addrs = 2, .addrs = pages };
	check_both_orders(&f, 92);
	/* i % 5 == 2 (600), less the evictions among them (i % 35 == 27: 85). */
	f = (struct vmt_trace_filter){ .nr_ips = 1, .ips = ip2 };
	check_both_orders(&f, 515);
	f.nr_addrs = 1;
	f.addrs = page0;
	check_both_orders(&f, 5);
	f = (struct vmt_trace_filter){ .nr_addrs = 1, .addrs = none };
	check_both_orders(&f, 0);
	/* Ranges pass only records with addresses: a type filter of others passes none. */
	f = (struct vmt_trace_filter){ .nr_addrs = 2, .addrs = pages,
				       .types = 1u << VMT_REC_LOST | 1u << VMT_REC_EVICT };
	check_both_orders(&f, 14);
	t = open_trace();
	f = (struct vmt_trace_filter){ .nr_ips = 1, .ips = empty };
	assert_int_equal(vmt_trace_set_filter(t, &f), -EINVAL);
	assert_non_null(strstr(vmt_trace_error_message(t), "address range"));
	f = (struct vmt_trace_filter){ .nr_addrs = 1 };
	assert_int_equal(vmt_trace_set_filter(t, &f), -EINVAL);
	vmt_trace_close(t);
}

static void test_filter_lifetime_and_errors(void **state)
{
	static const uint32_t pid101[] = { 101 };
	struct vmt_trace_filter f = { .time_range = 1, .from_time = 10, .to_time = 9 };
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	struct vmt_trace *t;
	uint32_t stream, pid = 101;
	uint64_t n = 0;

	(void)state;
	write_trace(false);
	t = open_trace();
	assert_int_equal(vmt_trace_set_filter(t, &f), -EINVAL);
	assert_non_null(strstr(vmt_trace_error_message(t), "ends before it starts"));
	f = (struct vmt_trace_filter){ .nr_pids = 1 };
	assert_int_equal(vmt_trace_set_filter(t, &f), -EINVAL);

	/* A cursor keeps the filter it was created with. */
	f = (struct vmt_trace_filter){ .nr_pids = 1, .pids = &pid };
	assert_int_equal(vmt_trace_set_filter(t, &f), 0);
	pid = 102;	/* the trace took a copy */
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	assert_int_equal(vmt_trace_set_filter(t, NULL), 0);
	while (vmt_trace_cursor_next(c, &rec, &stream) == 1) {
		assert_int_equal(rec->hdr.pid, 101);
		n++;
	}
	assert_int_equal(n, 1000);
	vmt_trace_cursor_free(c);
	f = (struct vmt_trace_filter){ 0 };
	assert_int_equal(check_filtered(t, &f, VMT_ORDER_WRITTEN, false), NR_RECORDS);
	f = (struct vmt_trace_filter){ .nr_pids = 1, .pids = pid101 };
	assert_int_equal(check_filtered(t, &f, VMT_ORDER_WRITTEN, false), 1000);
	vmt_trace_close(t);
}

/* vmt_trace_summarize() counts through the trace's filter. */
static void test_summary_through_filter(void **state)
{
	static const uint32_t pid102[] = { 102 };
	struct vmt_trace_filter f = { .nr_pids = 1, .pids = pid102,
				      .types = 1u << VMT_REC_REFERENCE };
	struct vmt_trace_summary *s;
	struct vmt_trace *t;

	(void)state;
	write_trace(false);
	t = open_trace();
	assert_int_equal(vmt_trace_set_filter(t, &f), 0);
	assert_int_equal(vmt_trace_summarize(t, NULL, &s), 0);
	/* i % 3 == 2 (1000), less those with i % 7 == 6 (i % 21 == 20: 142). */
	assert_int_equal(s->records, 858);
	assert_int_equal(s->by_type[VMT_REC_REFERENCE], 858);
	assert_int_equal(s->by_type[VMT_REC_EVICT], 0);
	assert_int_equal(s->nr_processes, 1);
	assert_int_equal(s->processes[0].pid, 102);
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_filter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_type, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_pid_and_cpu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_time_range, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_range_decodes_its_frames, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_filter_ranges, setup, teardown),
		cmocka_unit_test_setup_teardown(test_filter_lifetime_and_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_through_filter, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
