// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for trace files (user/lib/trace/trace_*.c): what is written reads
 * back, with every codec and at every frame boundary; records appended many
 * at a time make the file one at a time makes; seeking by index and
 * time; repair after a writer dies at any byte of its last frame; and a
 * clear error for every corrupted header field.
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
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "format/trace_format.h"

#include "temp_file.h"

/* Record @i of a deterministic sequence over two CPUs and two record types. */
static struct vmt_record make_record(uint64_t i)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = 1000 + 10 * i;
	r.hdr.pid = 7;
	r.hdr.tid = 7 + (uint32_t)(i % 2);
	r.hdr.cpu = (uint16_t)((i / 5) % 2);
	r.hdr.type = i % 7 == 6 ? VMT_REC_EVICT : VMT_REC_REFERENCE;
	r.ref.vaddr = 0x10000 + 4096 * (i % 97);
	r.ref.ip = 0x400000 + 4 * (i % 5);
	r.ref.pfn = i * 3;
	r.ref.access = VMT_ACCESS_READ;
	return r;
}

static void write_records(const struct vmt_trace_writer_options *o, uint64_t n)
{
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	assert_int_equal(vmt_trace_writer_create(&w, path, o, &err), 0);
	for (uint64_t i = 0; i < n; i++) {
		struct vmt_record r = make_record(i);

		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
}

static struct vmt_trace *open_ok(unsigned int flags)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	int ret = vmt_trace_open(&t, path, flags, &err);

	if (ret)
		fail_msg("open: %s", err.message);
	return t;
}

/* Reading in written order gives back records 0..n-1. */
static void check_written_order(struct vmt_trace *t, uint64_t n)
{
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	uint64_t i = 0;
	uint32_t stream;
	int ret;

	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	while ((ret = vmt_trace_cursor_next(c, &rec, &stream)) == 1) {
		struct vmt_record want = make_record(i++);

		assert_memory_equal(rec, &want, sizeof(want));
		assert_int_equal(vmt_trace_stream(t, stream)->cpu, want.hdr.cpu);
		assert_int_equal(vmt_trace_stream(t, stream)->record_type, want.hdr.type);
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, n);
	vmt_trace_cursor_free(c);
}

static void test_round_trip_every_codec(void **state)
{
	static const unsigned int codecs[] = { VMT_CODEC_NONE, VMT_CODEC_ZSTD, VMT_CODEC_XZ,
					       VMT_CODEC_VPC };

	(void)state;
	for (size_t k = 0; k < 4; k++) {
		for (unsigned int stage2 = VMT_CODEC_ZSTD; stage2 <= VMT_CODEC_XZ; stage2++) {
			struct vmt_trace_writer_options o = {
				.frame_bytes = 64 * 50, .codec = codecs[k], .stage2 = stage2,
			};
			struct vmt_trace *t;

			write_records(&o, 1234);
			t = open_ok(0);
			assert_int_equal(vmt_trace_check(t), 0);
			check_written_order(t, 1234);
			vmt_trace_close(t);
			t = open_ok(VMT_TRACE_OPEN_SCAN);
			check_written_order(t, 1234);
			vmt_trace_close(t);
		}
	}
}

/*
 * Records for vmt_trace_writer_append_records(): runs of exact accesses on
 * one CPU, references and evictions over two CPUs, markers with their data
 * in DATA records after them (one cut short by a record of its CPU, one
 * whose data never comes, followed by markers without), and a DATA record
 * no marker owns.
 */
static size_t make_mixed_records(struct vmt_record *out)
{
	static const char text[] = "a marker's text, longer than one DATA record holds";
	size_t n = 0;

	for (uint64_t i = 0; i < 2000; i++) {
		struct vmt_record r = make_record(i);

		if (i % 300 < 180) {
			/* Exact accesses, their CPU changing every 60. */
			memset(&r.ref, 0, sizeof(r.ref));
			r.hdr.type = VMT_REC_EXACT;
			r.hdr.cpu = (uint16_t)(i / 60 % 2);
			r.exact.addr = 0x10000 + 8 * i;
			r.exact.ip = 0x400000 + 4 * (i % 3);
			r.exact.size = 8;
			r.exact.access = VMT_ACCESS_READ;
		}
		out[n++] = r;
		if (i % 250 == 100 || i % 250 == 200) {
			struct vmt_record m = r, d;
			size_t len = i % 250 == 100 ? sizeof(text) - 1 : 20;

			memset(&m.marker, 0, sizeof(m.marker));
			m.hdr.type = VMT_REC_MARKER;
			m.hdr.data_len = (uint32_t)len;
			out[n++] = m;
			/* The second marker's DATA: one chunk of two, then another record. */
			for (size_t off = 0; off < len && (i % 250 == 100 || !off); off += VMT_DATA_CHUNK) {
				size_t k = len - off < VMT_DATA_CHUNK ? len - off : VMT_DATA_CHUNK;

				d = m;
				d.hdr.type = VMT_REC_DATA;
				d.hdr.data_len = (uint32_t)(k < 10 ? k : 10);
				memset(&d.data, 0, sizeof(d.data));
				memcpy(d.data.bytes, text + off, d.hdr.data_len);
				out[n++] = d;
			}
		}
		if (i % 250 == 150) {
			/* A marker whose data never comes, two without data after it. */
			struct vmt_record m = r;

			memset(&m.marker, 0, sizeof(m.marker));
			m.hdr.type = VMT_REC_MARKER;
			m.hdr.data_len = 12;
			out[n++] = m;
			m.hdr.data_len = 0;
			out[n++] = m;
			out[n++] = m;
		}
		if (i == 1500) {
			struct vmt_record d = r;

			d.hdr.type = VMT_REC_DATA;
			d.hdr.data_len = 4;
			memset(&d.data, 0, sizeof(d.data));
			out[n++] = d;
		}
	}
	return n;
}

/* The bytes of the file at @file, *@size of them. */
static uint8_t *read_whole(const char *file, size_t *size)
{
	FILE *f = fopen(file, "rb");
	uint8_t *buf;
	long len;

	assert_non_null(f);
	assert_int_equal(fseek(f, 0, SEEK_END), 0);
	len = ftell(f);
	assert_true(len > 0);
	rewind(f);
	buf = malloc((size_t)len);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)len, f), (size_t)len);
	fclose(f);
	*size = (size_t)len;
	return buf;
}

/*
 * vmt_trace_writer_append_records() in pieces of any size writes the file
 * vmt_trace_writer_append_record() writes one record at a time (the
 * oracle), with each codec, with loop streams, at every frame boundary.
 */
static void test_append_records_as_one_by_one(void **state)
{
	static const size_t pieces[] = { 1, 2, 7, 64, 1000, 5000 };
	struct vmt_record *recs = calloc(4000, sizeof(*recs));
	size_t n, one_size, size;
	uint8_t *one, *many;
	char other[80];

	(void)state;
	assert_non_null(recs);
	n = make_mixed_records(recs);
	assert_true(n > 2000 && n < 4000);
	snprintf(other, sizeof(other), "%s.b", path);
	for (int conf = 0; conf < 4; conf++) {
		struct vmt_trace_writer_options o = {
			.frame_bytes = 64 * 37,
			.codec = conf == 1 ? VMT_CODEC_MODEL : conf == 2 ? VMT_CODEC_ZSTD :
				 VMT_CODEC_NONE,
			.loops_window = conf == 3 ? 64 : 0,
		};
		struct vmt_trace_writer *w;
		struct vmt_trace_error err;

		assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
		for (size_t i = 0; i < n; i++)
			assert_int_equal(vmt_trace_writer_append_record(w, &recs[i]), 0);
		assert_int_equal(vmt_trace_writer_close(w, &err), 0);
		one = read_whole(path, &one_size);
		for (size_t k = 0; k < sizeof(pieces) / sizeof(pieces[0]); k++) {
			assert_int_equal(vmt_trace_writer_create(&w, other, &o, &err), 0);
			for (size_t i = 0; i < n; i += pieces[k])
				assert_int_equal(vmt_trace_writer_append_records(w, &recs[i],
							n - i < pieces[k] ? n - i : pieces[k]), 0);
			assert_int_equal(vmt_trace_writer_close(w, &err), 0);
			many = read_whole(other, &size);
			assert_int_equal(size, one_size);
			assert_memory_equal(many, one, size);
			free(many);
		}
		free(one);
	}
	unlink(other);
	free(recs);
}

static void test_empty_trace(void **state)
{
	struct vmt_trace_writer_options o = { 0 };
	struct vmt_trace *t;

	(void)state;
	write_records(&o, 0);
	t = open_ok(0);
	assert_int_equal(vmt_trace_nr_streams(t), 0);
	assert_int_equal(vmt_trace_nr_frames(t), 0);
	check_written_order(t, 0);
	vmt_trace_close(t);
}

/* An opaque stream: entries exactly filling frames, one over, one under. */
static void test_frame_boundaries(void **state)
{
	static const uint64_t counts[] = { 1, 9, 10, 11, 99, 100, 101 };

	(void)state;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct vmt_trace_writer_options o = { .frame_bytes = 10 * 12 + 5,
						      .codec = VMT_CODEC_ZSTD };
		struct vmt_trace_stream_info info = { .entry_size = 12, .time_offset = 4,
						      .name = "opaque" };
		struct vmt_trace_stream_stats st;
		struct vmt_trace_writer *w;
		struct vmt_trace_error err;
		struct vmt_trace *t;
		uint8_t e[12];

		assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
		assert_int_equal(vmt_trace_writer_add_stream(w, &info), 0);
		for (uint64_t i = 0; i < counts[k]; i++) {
			vmt_put32(e, (uint32_t)i);
			vmt_put64(e + 4, 5 * i);
			assert_int_equal(vmt_trace_writer_append(w, 0, e, 1), 0);
		}
		assert_int_equal(vmt_trace_writer_close(w, &err), 0);

		t = open_ok(0);
		assert_int_equal(vmt_trace_stream_stats(t, 0, &st), 0);
		assert_int_equal(st.entries, counts[k]);
		assert_int_equal(st.frames, (counts[k] + 9) / 10);
		assert_true(st.time_sorted);
		for (uint64_t i = counts[k]; i-- > 0;) {
			assert_int_equal(vmt_trace_read(t, 0, i, e), 0);
			assert_int_equal(vmt_get32(e), i);
			assert_int_equal(vmt_get64(e + 4), 5 * i);
		}
		assert_int_equal(vmt_trace_read(t, 0, counts[k], e), -ERANGE);
		assert_int_equal(vmt_trace_read(t, 1, 0, e), -EINVAL);
		vmt_trace_close(t);
	}
}

static void test_bad_writer_input(void **state)
{
	struct vmt_trace_writer_options o = { .codec = 9 };
	struct vmt_trace_stream_info info = { .entry_size = 0 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;

	(void)state;
	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), -EINVAL);
	assert_non_null(strstr(err.message, "codec 9"));
	assert_int_equal(vmt_trace_writer_create(&w, "/nonexistent/dir/x.vmt", NULL, &err),
			 -ENOENT);
	assert_non_null(strstr(err.message, "/nonexistent/dir/x.vmt"));
	assert_int_equal(vmt_trace_writer_create(&w, path, NULL, &err), 0);
	assert_int_equal(vmt_trace_writer_add_stream(w, &info), -EINVAL);
	info.entry_size = 8;
	info.time_offset = 4;
	assert_int_equal(vmt_trace_writer_add_stream(w, &info), -EINVAL);
	assert_non_null(strstr(vmt_trace_writer_error_message(w), "time offset"));
	assert_int_equal(vmt_trace_writer_append(w, 3, "x", 1), -EINVAL);
	vmt_trace_writer_abandon(w);
}

/* Times 1000, 1010, ...: every seek reads one frame of the stream it seeks in. */
static void test_seek_time(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 16, .codec = VMT_CODEC_VPC };
	struct vmt_trace_stream_stats st;
	struct vmt_record r;
	struct vmt_trace *t;
	uint32_t ref0 = UINT32_MAX;

	(void)state;
	write_records(&o, 3000);
	t = open_ok(0);
	for (uint32_t s = 0; s < vmt_trace_nr_streams(t); s++) {
		const struct vmt_trace_stream_info *info = vmt_trace_stream(t, s);

		if (info->kind == VMT_STREAM_RECORDS && info->cpu == 0 &&
		    info->record_type == VMT_REC_REFERENCE)
			ref0 = s;
	}
	assert_int_not_equal(ref0, UINT32_MAX);
	assert_int_equal(vmt_trace_stream_stats(t, ref0, &st), 0);
	assert_true(st.time_sorted);
	assert_true(st.frames > 10);

	assert_int_equal(vmt_trace_seek_time(t, ref0, 0), 0);
	assert_int_equal(vmt_trace_seek_time(t, ref0, st.first_time), 0);
	assert_int_equal(vmt_trace_seek_time(t, ref0, st.last_time + 1), st.entries);
	assert_int_equal(vmt_trace_seek_time(t, ref0, st.last_time), st.entries - 1);
	for (uint64_t time = 995; time < 1000 + 10 * 3000; time += 37) {
		uint64_t before = vmt_trace_frames_decoded(t);
		int64_t i = vmt_trace_seek_time(t, ref0, time);

		assert_true(i >= 0 && (uint64_t)i <= st.entries);
		assert_true(vmt_trace_frames_decoded(t) - before <= 1);
		if ((uint64_t)i < st.entries) {
			assert_int_equal(vmt_trace_read(t, ref0, (uint64_t)i, &r), 0);
			assert_true(r.hdr.time_ns >= time);
		}
		if (i > 0) {
			assert_int_equal(vmt_trace_read(t, ref0, (uint64_t)i - 1, &r), 0);
			assert_true(r.hdr.time_ns < time);
		}
	}
	/* The order stream has no times. */
	assert_int_equal(vmt_trace_seek_time(t, 0, 5), -EINVAL);
	vmt_trace_close(t);
}

/* A stream whose times go back: seeking scans, and finds the first entry at or after. */
static void test_seek_time_unsorted(void **state)
{
	static const uint64_t times[] = { 50, 10, 70, 20, 90, 30, 60 };
	struct vmt_trace_writer_options o = { .frame_bytes = 16 * 2, .codec = VMT_CODEC_NONE };
	struct vmt_trace_stream_info info = { .entry_size = 16, .time_offset = 8 };
	struct vmt_trace_stream_stats st;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;
	uint8_t e[16] = { 0 };

	(void)state;
	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	assert_int_equal(vmt_trace_writer_add_stream(w, &info), 0);
	for (size_t i = 0; i < 7; i++) {
		vmt_put64(e + 8, times[i]);
		assert_int_equal(vmt_trace_writer_append(w, 0, e, 1), 0);
	}
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	t = open_ok(0);
	assert_int_equal(vmt_trace_stream_stats(t, 0, &st), 0);
	assert_false(st.time_sorted);
	assert_int_equal(vmt_trace_seek_time(t, 0, 55), 2);
	assert_int_equal(vmt_trace_seek_time(t, 0, 5), 0);
	assert_int_equal(vmt_trace_seek_time(t, 0, 80), 4);
	assert_int_equal(vmt_trace_seek_time(t, 0, 91), 7);
	vmt_trace_close(t);
}

static void test_time_order_cursor(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 8, .codec = VMT_CODEC_ZSTD };
	struct vmt_trace_cursor *c;
	const struct vmt_record *rec;
	struct vmt_trace *t;
	uint64_t n = 0;
	uint32_t stream;

	(void)state;
	write_records(&o, 500);
	t = open_ok(0);
	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_TIME, &c), 0);
	while (vmt_trace_cursor_next(c, &rec, &stream) == 1) {
		struct vmt_record want = make_record(n++);

		/* make_record()'s times rise with the index: time order is index order. */
		assert_memory_equal(rec, &want, sizeof(want));
	}
	assert_int_equal(n, 500);
	vmt_trace_cursor_free(c);
	vmt_trace_close(t);
}

static uint64_t size_of(const char *p)
{
	struct stat st;

	assert_int_equal(stat(p, &st), 0);
	return (uint64_t)st.st_size;
}

static uint8_t *slurp(uint64_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data;

	assert_non_null(f);
	*size = size_of(path);
	data = malloc(*size);
	assert_non_null(data);
	assert_int_equal(fread(data, 1, *size, f), *size);
	fclose(f);
	return data;
}

static void spill(const uint8_t *data, uint64_t size)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(data, 1, size, f), size);
	fclose(f);
}

/* Walks a finished image's blocks: where its first and last frames are. */
static void find_frames(const uint8_t *image, uint64_t dir_offset, uint64_t *first,
			uint64_t *last)
{
	uint64_t first_frame = 0, last_frame = 0;

	for (uint64_t off = VMT_FILE_HEADER_SIZE; off < dir_offset;) {
		bool frame = !memcmp(image + off, VMT_MAGIC_FRAME, 4);

		if (frame && !first_frame)
			first_frame = off;
		if (frame)
			last_frame = off;
		off += frame ? VMT_FRAME_HEADER_SIZE + vmt_get32(image + off + 52)
			     : VMT_STREAM_BLOCK_SIZE;
	}
	assert_true(first_frame > VMT_FILE_HEADER_SIZE);
	if (first)
		*first = first_frame;
	if (last)
		*last = last_frame;
}

/*
 * The writer dies at every byte of its last frame (and with only the
 * directory missing): repair keeps every complete frame, and they read back.
 */
static void test_repair_at_every_byte_of_last_frame(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 10, .codec = VMT_CODEC_VPC };
	struct vmt_trace_repair_report report;
	struct vmt_trace_error err;
	uint64_t size, dir_offset, last_frame, nr_frames;
	struct vmt_trace *t;
	uint8_t *image;

	(void)state;
	write_records(&o, 95);
	image = slurp(&size);
	dir_offset = vmt_get64(image + size - VMT_TRAILER_SIZE + 8);
	t = open_ok(0);
	nr_frames = vmt_trace_nr_frames(t);
	vmt_trace_close(t);
	/* The last block before the directory is a frame (the order stream's). */
	find_frames(image, dir_offset, NULL, &last_frame);

	for (uint64_t cut = last_frame; cut <= dir_offset; cut++) {
		uint64_t kept = cut == dir_offset ? nr_frames : nr_frames - 1;

		spill(image, cut);
		assert_int_equal(vmt_trace_open(&t, path, 0, &err), -ENODATA);
		assert_non_null(strstr(err.message, "--repair"));
		assert_int_equal(vmt_trace_repair(path, &report, &err), 0);
		assert_int_equal(report.frames, kept);
		assert_int_equal(report.data_end, cut == dir_offset ? dir_offset : last_frame);
		assert_int_equal(report.dropped_bytes, cut - report.data_end);
		t = open_ok(0);
		assert_int_equal(vmt_trace_nr_frames(t), kept);
		assert_int_equal(vmt_trace_check(t), 0);
		if (cut == dir_offset)
			check_written_order(t, 95);
		vmt_trace_close(t);
	}
	/* A finished file repairs to itself. */
	spill(image, size);
	assert_int_equal(vmt_trace_repair(path, &report, &err), 0);
	assert_int_equal(size_of(path), size);
	free(image);
}

/* A writer that never closes: the frames it flushed are all there. */
static void test_repair_abandoned_writer(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 4, .codec = VMT_CODEC_XZ };
	struct vmt_trace_repair_report report;
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	(void)state;
	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	for (uint64_t i = 0; i < 200; i++) {
		struct vmt_record r = make_record(i);

		assert_int_equal(vmt_trace_writer_append_record(w, &r), 0);
	}
	assert_int_equal(vmt_trace_writer_flush(w), 0);
	vmt_trace_writer_abandon(w);
	assert_int_equal(vmt_trace_repair(path, &report, &err), 0);
	assert_string_equal(report.reason, "end of file");
	t = open_ok(0);
	check_written_order(t, 200);
	vmt_trace_close(t);
}

/* Open the damaged image; expect @errno_want and @needle in the message. */
static void expect_open_error(const uint8_t *image, uint64_t size, unsigned int flags,
			      int errno_want, const char *needle)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	int ret = vmt_trace_open_memory(&t, image, size, flags, &err);

	if (ret != errno_want || !strstr(err.message, needle))
		fail_msg("want %d '%s', got %d '%s'", errno_want, needle, ret,
			 ret ? err.message : "(opened)");
}

/* Open fine, then vmt_trace_check() must fail with @needle in the message. */
static void expect_check_error(const uint8_t *image, uint64_t size, unsigned int flags,
			       const char *needle)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	int ret = vmt_trace_open_memory(&t, image, size, flags, &err);

	if (ret) {
		if (!strstr(err.message, needle))
			fail_msg("open: want '%s', got '%s'", needle, err.message);
		return;
	}
	ret = vmt_trace_check(t);
	if (!ret || !strstr(vmt_trace_error_message(t), needle))
		fail_msg("check: want '%s', got %d '%s'", needle, ret, vmt_trace_error_message(t));
	vmt_trace_close(t);
}

static void test_every_header_byte_corrupted(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 10, .codec = VMT_CODEC_ZSTD };
	uint64_t size, dir_offset, dir_size, frame0;
	uint8_t *image;

	(void)state;
	write_records(&o, 40);
	image = slurp(&size);
	dir_offset = vmt_get64(image + size - VMT_TRAILER_SIZE + 8);
	dir_size = vmt_get64(image + size - VMT_TRAILER_SIZE + 16);
	find_frames(image, dir_offset, &frame0, NULL);

	for (uint64_t i = 0; i < VMT_FILE_HEADER_SIZE; i++) {
		image[i] ^= 0x10;
		if (i < 8)
			expect_open_error(image, size, 0, -EBADMSG, "wrong magic at byte 0");
		else if (i < 12)
			expect_open_error(image, size, 0, -EPROTO, "format version");
		else
			expect_open_error(image, size, 0, -EBADMSG, "file header checksum mismatch");
		image[i] ^= 0x10;
	}
	for (uint64_t i = 0; i < VMT_STREAM_BLOCK_SIZE; i++) {
		image[VMT_FILE_HEADER_SIZE + i] ^= 0x10;
		expect_open_error(image, size, VMT_TRACE_OPEN_SCAN, -EBADMSG, "at byte 64");
		image[VMT_FILE_HEADER_SIZE + i] ^= 0x10;
	}
	for (uint64_t i = 0; i < VMT_FRAME_HEADER_SIZE + 4; i++) {
		char needle[64];

		snprintf(needle, sizeof(needle), "frame 0 at byte %llu", (unsigned long long)frame0);
		image[frame0 + i] ^= 0x10;
		expect_check_error(image, size, 0, needle);
		/* A scan cannot know a block with a broken magic was a frame. */
		expect_check_error(image, size, VMT_TRACE_OPEN_SCAN, needle + strlen("frame 0 "));
		image[frame0 + i] ^= 0x10;
	}
	for (uint64_t i = 0; i < dir_size; i++) {
		image[dir_offset + i] ^= 0x10;
		expect_open_error(image, size, 0, -EBADMSG, "directory at byte");
		image[dir_offset + i] ^= 0x10;
	}
	for (uint64_t i = 0; i < VMT_TRAILER_SIZE; i++) {
		image[size - VMT_TRAILER_SIZE + i] ^= 0x10;
		expect_open_error(image, size, 0, i < 4 ? -ENODATA : -EBADMSG, "trailer at byte");
		image[size - VMT_TRAILER_SIZE + i] ^= 0x10;
	}
	/* Truncated anywhere: an error, never a crash. */
	for (uint64_t cut = 0; cut < size; cut++) {
		struct vmt_trace_error err;
		struct vmt_trace *t;

		assert_true(vmt_trace_open_memory(&t, image, cut, 0, &err) < 0);
		assert_true(err.message[0] != '\0');
	}
	free(image);
}

/* Sizes that are nonsense but carry valid checksums. */
static void test_nonsense_sizes_with_valid_checksums(void **state)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 10, .codec = VMT_CODEC_NONE };
	uint64_t size, dir_offset, dir_size, frame0;
	uint8_t *image, *trailer;

	(void)state;
	write_records(&o, 40);
	image = slurp(&size);
	trailer = image + size - VMT_TRAILER_SIZE;
	dir_offset = vmt_get64(trailer + 8);
	dir_size = vmt_get64(trailer + 16);
	find_frames(image, dir_offset, &frame0, NULL);

	/* A frame claiming 2^31 raw bytes. */
	vmt_put32(image + frame0 + 48, 1u << 31);
	vmt_put32(image + frame0 + 60, vmt_crc32(image + frame0, 60));
	expect_check_error(image, size, 0, "nonsense sizes");
	vmt_put32(image + frame0 + 48, 10 * 64);
	/* A payload running past the directory. */
	vmt_put32(image + frame0 + 52, 1u << 20);
	vmt_put32(image + frame0 + 60, vmt_crc32(image + frame0, 60));
	expect_check_error(image, size, 0, "runs past byte");
	expect_check_error(image, size, VMT_TRACE_OPEN_SCAN, "runs past byte");
	vmt_put32(image + frame0 + 52, 10 * 64);
	/* A raw size that is not entries * entry size. */
	vmt_put32(image + frame0 + 48, 10 * 64 - 1);
	vmt_put32(image + frame0 + 60, vmt_crc32(image + frame0, 60));
	expect_check_error(image, size, 0, "entries of 64 bytes");
	vmt_put32(image + frame0 + 48, 10 * 64);
	/* A first time other than the directory's. */
	vmt_put64(image + frame0 + 32, vmt_get64(image + frame0 + 32) + 1);
	vmt_put32(image + frame0 + 60, vmt_crc32(image + frame0, 60));
	expect_check_error(image, size, 0, "header disagrees");
	free(image);
	image = slurp(&size);
	trailer = image + size - VMT_TRAILER_SIZE;

	/* A directory claiming 2^40 frames, its checksum made to match. */
	vmt_put64(image + dir_offset + 8, 1ull << 40);
	vmt_put32(trailer + 4, vmt_crc32(image + dir_offset, dir_size));
	vmt_put32(trailer + 28, vmt_crc32(trailer, 28));
	expect_open_error(image, size, 0, -EBADMSG, "nonsense counts");
	free(image);
	image = slurp(&size);
	trailer = image + size - VMT_TRAILER_SIZE;
	/* A directory placed past the end of the file. */
	vmt_put64(trailer + 8, size * 2);
	vmt_put32(trailer + 28, vmt_crc32(trailer, 28));
	expect_open_error(image, size, 0, -EBADMSG, "nonsense directory place");
	free(image);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip_every_codec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_append_records_as_one_by_one, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_trace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_frame_boundaries, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_writer_input, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_time, setup, teardown),
		cmocka_unit_test_setup_teardown(test_seek_time_unsorted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_time_order_cursor, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repair_at_every_byte_of_last_frame, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_repair_abandoned_writer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_every_header_byte_corrupted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nonsense_sizes_with_valid_checksums, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
