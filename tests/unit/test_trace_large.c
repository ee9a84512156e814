// SPDX-License-Identifier: GPL-2.0
/*
 * A large trace (2 GiB by default; VMT_TEST_LARGE_MIB to change it) in
 * /tmp, removed after: opening it decodes no frame, and reaching an entry
 * by index or by time decodes exactly the one frame that holds it, however
 * far into the file, and never a frame of another stream. Frames decoded
 * are counted by vmt_trace_frames_decoded(); no timing is checked.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "vmtrace/trace.h"

#include "temp_file.h"

#define FRAME_RECORDS	16384		/* 1 MiB frames of 64-byte records */
#define BATCH		FRAME_RECORDS

static uint64_t nr_records;		/* in stream 0; stream 1 holds one frame */

static uint64_t time_of(uint64_t i)
{
	return 1000 + 10 * i;
}

static void fill(struct vmt_record *r, uint64_t i, uint16_t cpu)
{
	memset(r, 0, sizeof(*r));
	r->hdr.time_ns = time_of(i);
	r->hdr.pid = 42;
	r->hdr.cpu = cpu;
	r->hdr.type = VMT_REC_REFERENCE;
	r->ref.vaddr = 0x7f0000000000ull + 4096 * i;
	r->ref.ip = 0x401000 + i % 13;
}

/* Codec none: the file is as large as the records, and quick to write. */
static int write_large_file(void)
{
	struct vmt_trace_writer_options o = { .frame_bytes = FRAME_RECORDS * 64,
					      .codec = VMT_CODEC_NONE };
	struct vmt_trace_stream_info info = { .entry_size = 64, .kind = VMT_STREAM_RECORDS,
					      .record_type = VMT_REC_REFERENCE, .time_offset = 0 };
	const char *mib = getenv("VMT_TEST_LARGE_MIB");
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_record *batch;

	nr_records = (mib ? strtoull(mib, NULL, 0) : 2048) * (1 << 20) / 64;
	nr_records -= nr_records % FRAME_RECORDS;
	batch = malloc(BATCH * sizeof(*batch));
	if (!batch || vmt_trace_writer_create(&w, path, &o, &err))
		return -1;
	snprintf(info.name, sizeof(info.name), "ref.cpu0");
	if (vmt_trace_writer_add_stream(w, &info) != 0)
		return -1;
	info.cpu = 1;
	snprintf(info.name, sizeof(info.name), "ref.cpu1");
	if (vmt_trace_writer_add_stream(w, &info) != 1)
		return -1;
	for (uint64_t i = 0; i < nr_records; i += BATCH) {
		for (uint64_t k = 0; k < BATCH; k++)
			fill(&batch[k], i + k, 0);
		if (vmt_trace_writer_append(w, 0, batch, BATCH))
			return -1;
		/* Stream 1's one frame comes halfway through the file. */
		if (i == nr_records / 2 / BATCH * BATCH) {
			for (uint64_t k = 0; k < BATCH; k++)
				fill(&batch[k], i + k, 1);
			if (vmt_trace_writer_append(w, 1, batch, BATCH))
				return -1;
		}
	}
	free(batch);
	return vmt_trace_writer_close(w, &err) ? -1 : 0;
}

static int write_large(void **state)
{
	if (setup(state))
		return -1;
	if (write_large_file()) {
		teardown(state);
		return -1;
	}
	return 0;
}

static struct vmt_trace *open_large(void)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;

	if (vmt_trace_open(&t, path, 0, &err))
		fail_msg("open: %s", err.message);
	return t;
}

/* Entries spread over the file, each in a frame of its own, the last one included. */
static uint64_t spread(unsigned int k)
{
	static const uint64_t parts[] = { 0, 977, 500, 1, 999, 250, 750, 333, 1000 };
	uint64_t i = nr_records / 1000 * parts[k % 9];

	return i < nr_records ? i : nr_records - 1;
}

static void test_open_reads_no_frame(void **state)
{
	struct vmt_trace_stream_stats st;
	struct vmt_trace *t;

	(void)state;
	t = open_large();
	assert_int_equal(vmt_trace_nr_frames(t), nr_records / FRAME_RECORDS + 1);
	assert_int_equal(vmt_trace_stream_stats(t, 0, &st), 0);
	assert_int_equal(st.entries, nr_records);
	assert_int_equal(st.first_time, time_of(0));
	assert_int_equal(st.last_time, time_of(nr_records - 1));
	assert_true(st.time_sorted);
	assert_int_equal(vmt_trace_frames_decoded(t), 0);
	vmt_trace_close(t);
}

static void test_seek_index_decodes_one_frame(void **state)
{
	struct vmt_trace *t;
	struct vmt_record r, want;

	(void)state;
	t = open_large();
	for (unsigned int k = 0; k < 9; k++) {
		uint64_t i = spread(k), before = vmt_trace_frames_decoded(t);

		assert_int_equal(vmt_trace_read(t, 0, i, &r), 0);
		fill(&want, i, 0);
		assert_memory_equal(&r, &want, sizeof(r));
		assert_int_equal(vmt_trace_frames_decoded(t) - before, 1);
		/* Its neighbour in the same frame costs nothing more. */
		i += i % FRAME_RECORDS ? -1 : 1;
		assert_int_equal(vmt_trace_read(t, 0, i, &r), 0);
		assert_int_equal(r.hdr.time_ns, time_of(i));
		assert_int_equal(vmt_trace_frames_decoded(t) - before, 1);
	}
	vmt_trace_close(t);
}

static void test_seek_time_decodes_one_frame(void **state)
{
	struct vmt_trace *t;
	struct vmt_record r;

	(void)state;
	t = open_large();
	for (unsigned int k = 0; k < 9; k++) {
		uint64_t i = spread(k), before = vmt_trace_frames_decoded(t);
		/* A time between entries i - 1 and i finds i. */
		int64_t found = vmt_trace_seek_time(t, 0, time_of(i) - (i ? 5 : 0));

		assert_int_equal(found, i);
		assert_int_equal(vmt_trace_frames_decoded(t) - before, 1);
		assert_int_equal(vmt_trace_read(t, 0, (uint64_t)found, &r), 0);
		assert_int_equal(r.hdr.time_ns, time_of(i));
		assert_int_equal(vmt_trace_frames_decoded(t) - before, 1);
	}
	/* Past the end: the directory says so, no frame read. */
	{
		uint64_t before = vmt_trace_frames_decoded(t);

		assert_int_equal(vmt_trace_seek_time(t, 0, time_of(nr_records)), nr_records);
		assert_int_equal(vmt_trace_frames_decoded(t), before);
	}
	vmt_trace_close(t);
}

/* A one-millisecond window in the middle: its frames, the seek's two, nothing else. */
static void test_time_range_reads_its_frames(void **state)
{
	uint64_t first = nr_records / 2 + 100, last = first + 99999;
	struct vmt_trace_filter f = { .time_range = 1, .from_time = time_of(first),
				      .to_time = time_of(last) };
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	struct vmt_trace *t;
	uint64_t n = 0, frames;
	uint32_t stream;
	int ret;

	(void)state;
	t = open_large();
	f.nr_cpus = 1;
	f.cpus = (const uint32_t[]){ 0 };
	assert_int_equal(vmt_trace_set_filter(t, &f), 0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_TIME, &c), 0);
	while ((ret = vmt_trace_cursor_next(c, &rec, &stream)) == 1) {
		assert_int_equal(rec->hdr.time_ns, time_of(first + n));
		n++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(n, last - first + 1);
	/*
	 * The frames holding first..last, the one after last (the end's seek),
	 * and first's frame once more: the end's seek took its place in the cache.
	 */
	frames = last / FRAME_RECORDS - first / FRAME_RECORDS + 1;
	assert_int_equal(vmt_trace_frames_decoded(t), frames + 2);
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_open_reads_no_frame),
		cmocka_unit_test(test_seek_index_decodes_one_frame),
		cmocka_unit_test(test_seek_time_decodes_one_frame),
		cmocka_unit_test(test_time_range_reads_its_frames),
	};

	return cmocka_run_group_tests(tests, write_large, teardown);
}
