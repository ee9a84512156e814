// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for vmt_trace_summarize() (user/lib/analysis/trace_summary.c), the
 * counts behind `vmtrace stats` and `vmtrace report`, on traces written
 * with the trace writer whose every count is known.
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

#include "vmtrace/trace.h"

#include "temp_file.h"
#include "trace_file.h"

static struct vmt_record ref(uint64_t time, uint32_t pid, uint16_t cpu, uint64_t vaddr, int write)
{
	struct vmt_record r = reference_record(time, pid, vaddr);

	r.hdr.cpu = cpu;
	r.ref.access = write ? VMT_ACCESS_WRITE : VMT_ACCESS_READ;
	return r;
}

/*
 * pid 10: 60 references over pages 0..5 of 0x10000 (page p touched p + 5
 *         times, each 3rd a write), on CPU 0, times 1000, 1010, ...
 * pid 20: 20 references to one page on CPU 3, times 2000 .. 2190, 2 evictions
 * and a LOST record of 9 on CPU 1 at time 5000 (the span's end).
 */
static void test_summary_counts(void **state)
{
	struct vmt_record recs[100];
	struct vmt_trace_summary_options o = { .time_buckets = 4, .top_pages = 3 };
	struct vmt_trace_summary *s;
	struct vmt_trace *t;
	size_t n = 0;
	uint64_t time = 1000, writes10 = 0, bucket_total = 0;

	(void)state;
	for (uint64_t p = 0; p < 6; p++)
		for (uint64_t k = 0; k < p + 5; k++, time += 10) {
			recs[n] = ref(time, 10, 0, 0x10000 + p * 4096 + k * 8, n % 3 == 0);
			writes10 += n % 3 == 0;
			n++;
		}
	assert_int_equal(n, 45);
	for (uint64_t k = 0; k < 15; k++, time += 10) {
		recs[n] = ref(time, 10, 0, 0x10000 + 5 * 4096, n % 3 == 0);
		writes10 += n % 3 == 0;
		n++;
	}
	for (uint64_t k = 0; k < 20; k++)
		recs[n++] = ref(2000 + 10 * k, 20, 3, 0x7000123, 0);
	for (int k = 0; k < 2; k++) {
		recs[n] = ref(2500 + (uint64_t)k, 20, 3, 0x9000, 0);
		recs[n++].hdr.type = VMT_REC_EVICT;
	}
	memset(&recs[n], 0, sizeof(recs[n]));
	recs[n].hdr.time_ns = 5000;
	recs[n].hdr.cpu = 1;
	recs[n].hdr.type = VMT_REC_LOST;
	recs[n++].lost.count = 9;

	t = write_trace_and_open(path, recs, n, 64 * 7, NULL);
	assert_int_equal(vmt_trace_summarize(t, &o, &s), 0);
	assert_int_equal(s->records, 83);
	assert_int_equal(s->by_type[VMT_REC_REFERENCE], 80);
	assert_int_equal(s->by_type[VMT_REC_EVICT], 2);
	assert_int_equal(s->by_type[VMT_REC_LOST], 1);
	assert_int_equal(s->lost, 9);
	assert_int_equal(s->nr_cpus, 4);
	assert_int_equal(s->by_cpu[0], 60);
	assert_int_equal(s->by_cpu[1], 1);
	assert_int_equal(s->by_cpu[2], 0);
	assert_int_equal(s->by_cpu[3], 22);
	assert_int_equal(s->lost_by_cpu[1], 9);
	assert_int_equal(s->first_time, 1000);
	assert_int_equal(s->last_time, 5000);

	assert_int_equal(s->nr_processes, 2);
	assert_int_equal(s->processes[0].pid, 10);
	assert_int_equal(s->processes[0].references, 60);
	assert_int_equal(s->processes[0].writes, writes10);
	assert_int_equal(s->processes[0].pages, 6);
	assert_int_equal(s->processes[0].evictions, 0);
	assert_int_equal(s->processes[0].first_time, 1000);
	assert_int_equal(s->processes[0].last_time, 1590);
	assert_int_equal(s->processes[1].pid, 20);
	assert_int_equal(s->processes[1].references, 20);
	assert_int_equal(s->processes[1].pages, 1);
	assert_int_equal(s->processes[1].evictions, 2);
	assert_int_equal(s->processes[1].records, 22);
	assert_int_equal(s->pages, 7);

	/* 4001 ns in 4 slices of 1001: [1000, 2001) [2001, 3002) ... */
	assert_int_equal(s->nr_buckets, 4);
	assert_int_equal(s->bucket_ns, 1001);
	assert_int_equal(s->bucket_references[0], 61);	/* pid 10's 60 and pid 20's at 2000 */
	assert_int_equal(s->bucket_references[1], 19);
	assert_int_equal(s->bucket_references[2], 0);
	assert_int_equal(s->bucket_references[3], 0);
	for (uint32_t i = 0; i < s->nr_buckets; i++)
		bucket_total += s->bucket_references[i];
	assert_int_equal(bucket_total, 80);

	/* pid 10's page 5: 10 + 15 references; then pid 20's 20; then pid 10's page 4: 9 */
	assert_int_equal(s->nr_top_pages, 3);
	assert_int_equal(s->top_pages[0].pid, 10);
	assert_int_equal(s->top_pages[0].address, 0x10000 + 5 * 4096);
	assert_int_equal(s->top_pages[0].references, 25);
	assert_int_equal(s->top_pages[1].pid, 20);
	assert_int_equal(s->top_pages[1].address, 0x7000000);
	assert_int_equal(s->top_pages[1].references, 20);
	assert_int_equal(s->top_pages[1].writes, 0);
	assert_int_equal(s->top_pages[2].address, 0x10000 + 4 * 4096);
	assert_int_equal(s->top_pages[2].references, 9);
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
}

static void test_summary_empty_trace(void **state)
{
	struct vmt_trace_summary *s;
	struct vmt_trace *t;

	(void)state;
	t = write_trace_and_open(path, NULL, 0, 64 * 7, NULL);
	assert_int_equal(vmt_trace_summarize(t, NULL, &s), 0);
	assert_int_equal(s->records, 0);
	assert_int_equal(s->nr_processes, 0);
	assert_int_equal(s->nr_top_pages, 0);
	assert_int_equal(s->first_time, 0);
	assert_int_equal(s->last_time, 0);
	assert_int_equal(s->nr_buckets, 10);
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
}

/* Many pages: the table grows, and the footprint stays exact. */
static void test_summary_many_pages(void **state)
{
	enum { N = 30000 };
	struct vmt_record *recs = calloc(N, sizeof(*recs));
	struct vmt_trace_summary *s;
	struct vmt_trace *t;

	(void)state;
	assert_non_null(recs);
	for (uint64_t i = 0; i < N; i++)
		recs[i] = ref(100 + i, 1 + (uint32_t)(i % 2), 0, (i % 10000) * 4096, 1);
	t = write_trace_and_open(path, recs, N, 64 * 7, NULL);
	assert_int_equal(vmt_trace_summarize(t, NULL, &s), 0);
	/* page k is touched by pid 1 when k is even, by pid 2 when odd: 3 times each */
	assert_int_equal(s->pages, 10000);
	assert_int_equal(s->processes[0].pages, 5000);
	assert_int_equal(s->processes[1].pages, 5000);
	assert_int_equal(s->top_pages[0].references, 3);
	assert_int_equal(s->top_pages[0].writes, 3);
	assert_int_equal(s->top_pages[0].pid, 1);
	assert_int_equal(s->top_pages[0].address, 0);
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
	free(recs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_summary_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_empty_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_many_pages, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
