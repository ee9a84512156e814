// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for a trace's blocks as a relay carries them
 * (vmt_trace_writer_set_sink(), vmt_trace_writer_open_blocks(),
 * vmt_trace_writer_append_block(), VMT_TRACE_OPEN_GROWING and
 * vmt_trace_follow()). The oracle is the file an ordinary writer makes
 * from the same records: the blocks its sink got, written again by a
 * writer of encoded blocks, make that file byte for byte; a frame left out
 * leaves exactly its entries out; a block damaged is refused and changes
 * nothing; a writer killed halfway resumes into the same file; a follower
 * sees each block once it is whole.
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
#include <unistd.h>
#include <cmocka.h>

#include "base/bytes.h"
#include "vmtrace/trace.h"

#include "temp_file.h"

#define MAX_BLOCKS 4096

struct blocks {
	uint8_t *data[MAX_BLOCKS];
	size_t len[MAX_BLOCKS];
	unsigned int n;
};

static int keep_block(void *ctx, const void *block, size_t len)
{
	struct blocks *b = ctx;

	if (b->n == MAX_BLOCKS)
		return -ENOSPC;
	b->data[b->n] = malloc(len);
	if (!b->data[b->n])
		return -ENOMEM;
	memcpy(b->data[b->n], block, len);
	b->len[b->n++] = len;
	return 0;
}

static void free_blocks(struct blocks *b)
{
	for (unsigned int i = 0; i < b->n; i++)
		free(b->data[i]);
	b->n = 0;
}

static struct vmt_record make_record(uint64_t i)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = 1000 + 10 * i;
	r.hdr.pid = 7;
	r.hdr.tid = 7;
	r.hdr.cpu = (uint16_t)(i % 2);
	r.hdr.type = i % 5 == 4 ? VMT_REC_EVICT : VMT_REC_REFERENCE;
	r.ref.vaddr = 0x10000 + 4096 * (i % 97);
	r.ref.pfn = i;
	return r;
}

/* @n records into @file (NULL: none) with 4 KiB frames, every block to @b. */
static void write_trace(const char *file, struct blocks *b, unsigned int workers, uint64_t n)
{
	struct vmt_trace_writer_options o = { .codec = VMT_CODEC_ZSTD, .frame_bytes = 4096,
					      .workers = workers };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_create(&w, file, &o, &err), 0);
	vmt_trace_writer_set_sink(w, keep_block, b);
	for (uint64_t i = 0; i < n; i++) {
		struct vmt_record r = make_record(i);

		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

static uint8_t *read_file(const char *file, size_t *size)
{
	FILE *f = fopen(file, "rb");
	uint8_t *data;
	long n;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	rewind(f);
	data = malloc((size_t)n + 1);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	*size = (size_t)n;
	return data;
}

/* The blocks through a writer of encoded blocks into @out, @skip left out (-1: none). */
static void rewrite(const struct blocks *b, const char *out, int skip)
{
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_open_blocks(&w, out, 0, &err), 0);
	for (unsigned int i = 0; i < b->n; i++) {
		if ((int)i == skip)
			continue;
		assert_int_equal(vmt_trace_writer_append_block(w, b->data[i], b->len[i]), 0);
	}
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

static uint64_t total_entries(const char *file, uint32_t kind)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	uint64_t sum = 0;

	assert_int_equal(vmt_trace_open(&t, file, 0, &err), 0);
	assert_int_equal(vmt_trace_check(t), 0);
	for (uint32_t s = 0; s < vmt_trace_nr_streams(t); s++) {
		struct vmt_trace_stream_stats st;

		assert_int_equal(vmt_trace_stream_stats(t, s, &st), 0);
		if (vmt_trace_stream(t, s)->kind == kind)
			sum += st.entries;
	}
	vmt_trace_close(t);
	return sum;
}

/* The sink's blocks, written again, are the file byte for byte, with workers or without. */
static void test_blocks_make_the_file(void **state)
{
	char copy[80];

	(void)state;
	snprintf(copy, sizeof(copy), "%s.copy", path);
	for (unsigned int workers = 0; workers <= 2; workers += 2) {
		struct blocks b = { .n = 0 };
		size_t a_size, c_size;
		uint8_t *a, *c;

		write_trace(path, &b, workers, 3000);
		assert_true(b.n > 10);
		rewrite(&b, copy, -1);
		a = read_file(path, &a_size);
		c = read_file(copy, &c_size);
		assert_int_equal(a_size, c_size);
		assert_memory_equal(a, c, a_size);
		free(a);
		free(c);
		free_blocks(&b);
	}
	unlink(copy);
}

/* With no file the sink gets the same blocks. */
static void test_sink_without_file(void **state)
{
	struct blocks with = { .n = 0 }, without = { .n = 0 };

	(void)state;
	write_trace(path, &with, 0, 2000);
	write_trace(NULL, &without, 0, 2000);
	assert_int_equal(with.n, without.n);
	for (unsigned int i = 0; i < with.n; i++) {
		assert_int_equal(with.len[i], without.len[i]);
		assert_memory_equal(with.data[i], without.data[i], with.len[i]);
	}
	free_blocks(&with);
	free_blocks(&without);
}

/* A record frame left out: its entries alone are missing, the file reads clean. */
static void test_frame_left_out(void **state)
{
	struct blocks b = { .n = 0 };
	char copy[80];
	int skip = -1;

	(void)state;
	snprintf(copy, sizeof(copy), "%s.copy", path);
	write_trace(path, &b, 0, 3000);
	/* The third frame of a record stream (streams' ids: from the blocks). */
	for (unsigned int i = 0, seen = 0; i < b.n && skip < 0; i++)
		if (!memcmp(b.data[i], "VMTF", 4) && vmt_get32(b.data[i] + 4) >= 1 && ++seen == 3)
			skip = (int)i;
	assert_true(skip > 0);
	rewrite(&b, copy, skip);
	assert_int_equal(total_entries(copy, VMT_STREAM_RECORDS) +
			 vmt_get32(b.data[skip] + 24),
			 total_entries(path, VMT_STREAM_RECORDS));
	free_blocks(&b);
	unlink(copy);
}

/* A damaged or misplaced block is refused, and the writer goes on as before. */
static void test_bad_blocks_refused(void **state)
{
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct blocks b = { .n = 0 };
	unsigned int first_frame = 0;
	char copy[80];
	uint8_t *bad;

	(void)state;
	snprintf(copy, sizeof(copy), "%s.copy", path);
	write_trace(path, &b, 0, 1000);
	while (memcmp(b.data[first_frame], "VMTF", 4))
		first_frame++;
	assert_int_equal(vmt_trace_writer_open_blocks(&w, copy, 0, &err), 0);
	/* A frame before its stream's block. */
	assert_int_equal(vmt_trace_writer_append_block(w, b.data[first_frame],
						       b.len[first_frame]), -EBADMSG);
	/* The second stream's block first. */
	assert_int_equal(vmt_trace_writer_append_block(w, b.data[1], b.len[1]), -EBADMSG);
	assert_int_equal(vmt_trace_writer_blocks(w), 0);
	for (unsigned int i = 0; i < first_frame; i++)
		assert_int_equal(vmt_trace_writer_append_block(w, b.data[i], b.len[i]), 0);
	bad = malloc(b.len[first_frame]);
	assert_non_null(bad);
	/* A payload byte flipped, the header's checksum, a length that disagrees, a cut. */
	for (int how = 0; how < 4; how++) {
		memcpy(bad, b.data[first_frame], b.len[first_frame]);
		if (how == 0)
			bad[b.len[first_frame] - 1] ^= 1;
		else if (how == 1)
			bad[30] ^= 1;
		assert_int_equal(vmt_trace_writer_append_block(w, bad, b.len[first_frame] -
							       (how == 2 ? 1 : how == 3 ? 70 : 0)),
				 -EBADMSG);
		assert_int_equal(vmt_trace_writer_blocks(w), first_frame);
	}
	assert_int_equal(vmt_trace_writer_append_block(w, "VMTX", 4), -EBADMSG);
	free(bad);
	for (unsigned int i = first_frame; i < b.n; i++)
		assert_int_equal(vmt_trace_writer_append_block(w, b.data[i], b.len[i]), 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(total_entries(copy, VMT_STREAM_RECORDS),
			 total_entries(path, VMT_STREAM_RECORDS));
	free_blocks(&b);
	unlink(copy);
}

/*
 * A writer killed halfway, with half a block after: a follower sees the
 * whole blocks only; the writer resumed after them makes the same file,
 * and the follower sees it grow and end.
 */
static void test_resume_and_follow(void **state)
{
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct blocks b = { .n = 0 };
	struct vmt_trace *t;
	unsigned int half, frames = 0;
	size_t a_size, c_size;
	char copy[80];
	uint8_t *a, *c;
	FILE *f;

	(void)state;
	snprintf(copy, sizeof(copy), "%s.copy", path);
	write_trace(path, &b, 0, 3000);
	half = b.n / 2;
	for (unsigned int i = 0; i < half; i++)
		frames += !memcmp(b.data[i], "VMTF", 4);
	assert_int_equal(vmt_trace_writer_open_blocks(&w, copy, 0, &err), 0);
	for (unsigned int i = 0; i < half; i++)
		assert_int_equal(vmt_trace_writer_append_block(w, b.data[i], b.len[i]), 0);
	vmt_trace_writer_abandon(w);
	f = fopen(copy, "ab");
	assert_non_null(f);
	assert_int_equal(fwrite(b.data[half], 1, b.len[half] / 2, f), b.len[half] / 2);
	fclose(f);

	assert_int_equal(vmt_trace_open(&t, copy, VMT_TRACE_OPEN_GROWING, &err), 0);
	assert_int_equal(vmt_trace_nr_frames(t), frames);
	assert_int_equal(vmt_trace_follow(t), 0);
	assert_int_equal(vmt_trace_nr_frames(t), frames);

	assert_int_equal(vmt_trace_writer_open_blocks(&w, copy, 1, &err), 0);
	assert_int_equal(vmt_trace_writer_blocks(w), half);
	for (unsigned int i = half; i < b.n; i++)
		assert_int_equal(vmt_trace_writer_append_block(w, b.data[i], b.len[i]), 0);
	assert_int_equal(vmt_trace_writer_flush(w), 0);
	assert_int_equal(vmt_trace_follow(t), 0);
	frames = 0;
	for (unsigned int i = 0; i < b.n; i++)
		frames += !memcmp(b.data[i], "VMTF", 4);
	assert_int_equal(vmt_trace_nr_frames(t), frames);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_follow(t), 1);
	assert_int_equal(vmt_trace_check(t), 0);
	vmt_trace_close(t);

	a = read_file(path, &a_size);
	c = read_file(copy, &c_size);
	assert_int_equal(a_size, c_size);
	assert_memory_equal(a, c, a_size);
	free(a);
	free(c);
	free_blocks(&b);
	unlink(copy);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_blocks_make_the_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sink_without_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_left_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_blocks_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resume_and_follow, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
