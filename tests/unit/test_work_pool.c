// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the ordered worker pool (user/lib/base/work_pool.c) and the
 * trace writer that compresses on it: done() sees jobs in submission order
 * whatever order the workers finish them in, never two at once; a
 * submitter that finds the window full runs queued jobs itself; and a
 * writer with workers writes the same bytes as one without.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/trace.h"
#include "base/work_pool.h"

#define JOBS 2000

struct test_job {
	struct vmt_work work;
	uint64_t value;		/* what run() works out: value of the job's index */
	uint64_t index;
};

struct test_ctx {
	uint64_t done_order[JOBS];
	uint64_t done_values[JOBS];
	unsigned int nr_done;
	int in_done;		/* done() calls in progress */
	int overlapped;		/* done() calls that found another in progress */
};

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	return x;
}

/* Uneven work, so that later jobs often finish first. */
static void run_job(struct vmt_work *work, void *ctx)
{
	struct test_job *job = (struct test_job *)work;
	uint64_t v = job->index, rounds = mix(job->index) % 20000;

	(void)ctx;
	for (uint64_t i = 0; i < rounds; i++)
		v = mix(v);
	job->value = v;
	if (mix(job->index) % 7 == 0)
		usleep(200);
}

static void done_job(struct vmt_work *work, void *arg)
{
	struct test_ctx *ctx = arg;
	struct test_job *job = (struct test_job *)work;

	if (__atomic_fetch_add(&ctx->in_done, 1, __ATOMIC_SEQ_CST))
		ctx->overlapped++;
	ctx->done_order[ctx->nr_done] = job->index;
	ctx->done_values[ctx->nr_done] = job->value;
	ctx->nr_done++;
	__atomic_fetch_sub(&ctx->in_done, 1, __ATOMIC_SEQ_CST);
	free(job);
}

static uint64_t expected_value(uint64_t index)
{
	uint64_t v = index, rounds = mix(index) % 20000;

	for (uint64_t i = 0; i < rounds; i++)
		v = mix(v);
	return v;
}

static void run_pool(unsigned int threads, unsigned int window, bool caller_runs)
{
	static struct test_ctx ctx;
	struct vmt_work_pool *pool;

	memset(&ctx, 0, sizeof(ctx));
	assert_int_equal(vmt_work_pool_create(&pool, threads, window, caller_runs, run_job, done_job,
					      &ctx), 0);
	for (uint64_t i = 0; i < JOBS; i++) {
		struct test_job *job = calloc(1, sizeof(*job));

		assert_non_null(job);
		job->index = i;
		assert_int_equal(vmt_work_pool_submit(pool, &job->work), i);
		if (i == JOBS / 2) {
			vmt_work_pool_wait(pool);
			assert_int_equal(ctx.nr_done, JOBS / 2 + 1);
		}
	}
	vmt_work_pool_destroy(pool);
	assert_int_equal(ctx.nr_done, JOBS);
	assert_int_equal(ctx.overlapped, 0);
	for (uint64_t i = 0; i < JOBS; i++) {
		assert_int_equal(ctx.done_order[i], i);
		assert_int_equal(ctx.done_values[i], expected_value(i));
	}
}

static void test_pool_keeps_order(void **state)
{
	(void)state;
	for (int caller_runs = 0; caller_runs < 2; caller_runs++) {
		run_pool(4, 16, caller_runs);
		run_pool(3, 1, caller_runs);	/* a window of one: strictly one job at a time */
		run_pool(1, 8, caller_runs);
		run_pool(8, 3, caller_runs);
	}
}

/*
 * A submitter that finds the window full runs a queued job itself: the
 * worker's jobs wait, on the worker, until one has run on the submitting
 * thread (5 s at most), which must happen for the window (2) to drain.
 */
static pthread_t submitter;
static int gate_open, ran_on_submitter;

static void gated_job(struct vmt_work *work, void *ctx)
{
	(void)work;
	(void)ctx;
	if (pthread_equal(pthread_self(), submitter)) {
		__atomic_store_n(&ran_on_submitter, 1, __ATOMIC_SEQ_CST);
		__atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
		return;
	}
	/* At most 5 s: a pool whose submitter only waits would wait that long, then fail. */
	for (int i = 0; i < 50000 && !__atomic_load_n(&gate_open, __ATOMIC_SEQ_CST); i++)
		usleep(100);
	__atomic_store_n(&gate_open, 1, __ATOMIC_SEQ_CST);
}

static void free_job(struct vmt_work *work, void *ctx)
{
	(void)ctx;
	free(work);
}

static void test_pool_submitter_helps(void **state)
{
	struct vmt_work_pool *pool;

	(void)state;
	submitter = pthread_self();
	assert_int_equal(vmt_work_pool_create(&pool, 1, 2, true, gated_job, free_job, NULL), 0);
	for (int i = 0; i < 10; i++) {
		struct vmt_work *work = calloc(1, sizeof(*work));

		assert_non_null(work);
		vmt_work_pool_submit(pool, work);
	}
	vmt_work_pool_destroy(pool);
	assert_true(ran_on_submitter);
}

static void test_pool_bad_arguments(void **state)
{
	struct vmt_work_pool *pool = (void *)1;

	(void)state;
	assert_int_equal(vmt_work_pool_create(&pool, 0, 4, false, run_job, done_job, NULL), -EINVAL);
	assert_null(pool);
	assert_int_equal(vmt_work_pool_create(&pool, 2, 0, false, run_job, done_job, NULL), -EINVAL);
	assert_int_equal(vmt_work_pool_create(&pool, 2, 4, false, NULL, done_job, NULL), -EINVAL);
	vmt_work_pool_destroy(NULL);
}

/* ---- The writer with workers --------------------------------------------- */

static struct vmt_record make_record(uint64_t i)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = 5000 + 3 * i;
	r.hdr.pid = 100 + (uint32_t)(i % 3);
	r.hdr.tid = r.hdr.pid;
	r.hdr.cpu = (uint16_t)((i / 7) % 3);
	r.hdr.type = i % 11 == 10 ? VMT_REC_EVICT : VMT_REC_REFERENCE;
	r.ref.vaddr = 0x7f0000000000ull + 4096 * mix(i % 501) % (1 << 30);
	r.ref.ip = 0x400000 + 16 * (i % 13);
	r.ref.pfn = mix(i) & 0xfffff;
	r.ref.access = VMT_ACCESS_WRITE;
	if (i >= 12000 && i % 5 == 0) {
		/* Streams made late (a CPU each 1000 records): blocks queued after many frames. */
		r.hdr.type = VMT_REC_EXACT;
		r.hdr.cpu = (uint16_t)(i / 1000);
	}
	return r;
}

static void *read_file(const char *p, size_t *size)
{
	struct stat st;
	FILE *f = fopen(p, "rb");
	void *data;

	assert_non_null(f);
	assert_int_equal(fstat(fileno(f), &st), 0);
	*size = (size_t)st.st_size;
	data = malloc(*size + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, *size, f), *size);
	fclose(f);
	return data;
}

static void write_trace(const char *p, unsigned int codec, unsigned int workers,
			unsigned int max_queued, unsigned int caller_compresses, uint64_t n,
			struct vmt_trace_writer_stats *stats)
{
	struct vmt_trace_writer_options o = {
		.frame_bytes = 64 * 37, .codec = codec, .workers = workers,
		.max_queued = max_queued, .caller_compresses = caller_compresses,
	};
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_create(&w, p, &o, &err), 0);
	for (uint64_t i = 0; i < n; i++) {
		struct vmt_record r = make_record(i);

		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	assert_int_equal(vmt_trace_writer_flush(w), 0);
	vmt_trace_writer_stats(w, stats);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

static void test_writer_workers_same_bytes(void **state)
{
	static const unsigned int codecs[] = { VMT_CODEC_ZSTD, VMT_CODEC_VPC, VMT_CODEC_NONE };
	char serial[] = "/tmp/vmt-pool-a-XXXXXX", parallel[] = "/tmp/vmt-pool-b-XXXXXX";
	struct vmt_trace_writer_stats s1, s2;
	size_t size1, size2;
	void *a, *b;

	(void)state;
	close(mkstemp(serial));
	close(mkstemp(parallel));
	for (size_t k = 0; k < 3; k++) {
		write_trace(serial, codecs[k], 0, 0, 0, 20000, &s1);
		/* The second with the appending thread compressing too when the queue is full. */
		write_trace(parallel, codecs[k], 4, 2 + (unsigned int)k, k == 1, 20000, &s2);
		a = read_file(serial, &size1);
		b = read_file(parallel, &size2);
		assert_int_equal(size1, size2);
		assert_memory_equal(a, b, size1);
		free(a);
		free(b);
		assert_int_equal(s1.frames, s2.frames);
		assert_int_equal(s1.bytes, s2.bytes);
		/* 20000 records and the order stream's runs, all flushed */
		assert_true(s2.raw_bytes > 20000ull * 64);
		assert_int_equal(s1.raw_bytes, s2.raw_bytes);
		assert_int_equal(s1.stalls, 0);
	}
	unlink(serial);
	unlink(parallel);
}

static void test_writer_workers_limits(void **state)
{
	struct vmt_trace_writer_options o = { .workers = 257 };
	struct vmt_trace_writer *w = (void *)1;
	struct vmt_trace_error err;

	(void)state;
	assert_int_equal(vmt_trace_writer_create(&w, "/tmp/vmt-never-written", &o, &err), -EINVAL);
	assert_null(w);
	assert_non_null(strstr(err.message, "257 workers"));
}

/* A writer abandoned with frames still queued leaves them complete in the file. */
static void test_writer_workers_abandon(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 10, .workers = 2 };
	char p[] = "/tmp/vmt-pool-c-XXXXXX";
	struct vmt_trace_repair_report report;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	struct vmt_trace_stream_stats st;
	uint64_t refs = 0;

	(void)state;
	close(mkstemp(p));
	assert_int_equal(vmt_trace_writer_create(&w, p, &o, &err), 0);
	for (uint64_t i = 0; i < 1000; i++) {
		struct vmt_record r = make_record(i);

		r.hdr.cpu = 0;
		r.hdr.type = VMT_REC_REFERENCE;
		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	vmt_trace_writer_abandon(w);
	assert_int_equal(vmt_trace_repair(p, &report, &err), 0);
	assert_int_equal(vmt_trace_open(&t, p, 0, &err), 0);
	assert_int_equal(vmt_trace_check(t), 0);
	for (uint32_t s = 0; s < vmt_trace_nr_streams(t); s++) {
		assert_int_equal(vmt_trace_stream_stats(t, s, &st), 0);
		if (vmt_trace_stream(t, s)->kind == VMT_STREAM_RECORDS)
			refs += st.entries;
	}
	/* 100 full frames of 10, queued when abandoned, all reached the file. */
	assert_int_equal(refs, 1000);
	vmt_trace_close(t);
	unlink(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pool_keeps_order),
		cmocka_unit_test(test_pool_submitter_helps),
		cmocka_unit_test(test_pool_bad_arguments),
		cmocka_unit_test(test_writer_workers_same_bytes),
		cmocka_unit_test(test_writer_workers_limits),
		cmocka_unit_test(test_writer_workers_abandon),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
