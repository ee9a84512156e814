// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the frame codecs (user/lib/codec/codec.c, codec_generic.c,
 * codec_vpc.c, codec_model.c): every codec gives back exactly what it was given, on
 * record-like and on random data, and malformed payloads are refused
 * without crashing.
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
#include "codec/codec.h"

struct codec_case {
	unsigned int codec, stage2;
	const char *name;
};

static const struct codec_case codecs[] = {
	{ VMT_CODEC_NONE, 0, "none" },
	{ VMT_CODEC_ZSTD, 0, "zstd" },
	{ VMT_CODEC_XZ, 0, "xz" },
	{ VMT_CODEC_VPC, VMT_CODEC_ZSTD, "vpc+zstd" },
	{ VMT_CODEC_VPC, VMT_CODEC_XZ, "vpc+xz" },
	{ VMT_CODEC_VPC, VMT_CODEC_NONE, "vpc+none" },
	{ VMT_CODEC_MODEL, 0, "model" },
};

#define NR_CODECS (sizeof(codecs) / sizeof(codecs[0]))

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Records as a traced loop makes them: a few ips, strided addresses, rising time. */
static struct vmt_record *synthetic_records(size_t n)
{
	struct vmt_record *r = calloc(n ? n : 1, sizeof(*r));
	uint64_t time = 1000;

	assert_non_null(r);
	for (size_t i = 0; i < n; i++) {
		unsigned int site = (unsigned int)(i % 3);

		time += 100 + rng() % 50;
		r[i].hdr.time_ns = time;
		r[i].hdr.pid = 42;
		r[i].hdr.tid = 42 + (uint32_t)(i / 500);
		r[i].hdr.type = VMT_REC_REFERENCE;
		r[i].hdr.cpu = 1;
		r[i].ref.ip = 0x401000 + 0x10 * site;
		r[i].ref.vaddr = 0x7f0000000000ull + site * 0x100000 + (i / 3) * 4096;
		r[i].ref.pfn = 0x1000 + i;
		r[i].ref.error_code = site == 2 ? 6 : 4;
		r[i].ref.access = site == 2 ? VMT_ACCESS_WRITE : VMT_ACCESS_READ;
		if (rng() % 50 == 0)
			r[i].ref.vaddr = rng();
	}
	return r;
}

static struct vmt_record *random_records(size_t n)
{
	struct vmt_record *r = calloc(n ? n : 1, sizeof(*r));
	uint64_t *words = (uint64_t *)r;

	assert_non_null(r);
	for (size_t i = 0; i < n * 8; i++)
		words[i] = rng();
	return r;
}

static void round_trip(const struct codec_case *c, const void *data, size_t size)
{
	struct vmt_buf out = { 0 };
	uint8_t *back = malloc(size ? size : 1);

	assert_non_null(back);
	assert_int_equal(vmt_codec_compress(c->codec, c->stage2, 0, sizeof(struct vmt_record),
					    data, size, &out), 0);
	memset(back, 0xa5, size);
	assert_int_equal(vmt_codec_decompress(c->codec, c->stage2, sizeof(struct vmt_record),
					      out.data, out.size, back, size, 0), 0);
	assert_memory_equal(back, data, size);
	vmt_buf_free(&out);
	free(back);
}

static void test_round_trip_synthetic(void **state)
{
	static const size_t counts[] = { 1, 2, 7, 1000, 5000 };

	(void)state;
	rng_state = 0x1234567;
	for (size_t k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
		struct vmt_record *r = synthetic_records(counts[k]);

		for (size_t c = 0; c < NR_CODECS; c++)
			round_trip(&codecs[c], r, counts[k] * sizeof(*r));
		free(r);
	}
}

static void test_round_trip_random(void **state)
{
	(void)state;
	rng_state = 0xfeedface;
	for (int trial = 0; trial < 20; trial++) {
		size_t n = 1 + rng() % 300;
		struct vmt_record *r = random_records(n);

		for (size_t c = 0; c < NR_CODECS; c++)
			round_trip(&codecs[c], r, n * sizeof(*r));
		free(r);
	}
}

/* Extremes a predictor's arithmetic must wrap through: zeros, all ones, alternation. */
static void test_round_trip_extremes(void **state)
{
	struct vmt_record r[64];
	uint64_t *words = (uint64_t *)r;

	(void)state;
	for (size_t i = 0; i < sizeof(r) / 8; i++)
		words[i] = i % 2 ? UINT64_MAX : (i % 3 ? 0 : 0x8000000000000000ull);
	for (size_t c = 0; c < NR_CODECS; c++)
		round_trip(&codecs[c], r, sizeof(r));
	memset(r, 0, sizeof(r));
	for (size_t c = 0; c < NR_CODECS; c++)
		round_trip(&codecs[c], r, sizeof(r));
}

/* Opaque (non-record) data through the generic codecs, odd sizes included. */
static void test_generic_odd_sizes(void **state)
{
	uint8_t data[1001], back[1001];
	struct vmt_buf out = { 0 };

	(void)state;
	rng_state = 99;
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (uint8_t)(i % 17 ? i / 7 : rng());
	for (unsigned int codec = VMT_CODEC_NONE; codec <= VMT_CODEC_XZ; codec++) {
		for (size_t size = 1; size <= sizeof(data); size += 125) {
			assert_int_equal(vmt_codec_compress(codec, 0, 0, 1, data, size, &out), 0);
			assert_int_equal(vmt_codec_decompress(codec, 0, 1, out.data, out.size, back,
							      size, 0), 0);
			assert_memory_equal(back, data, size);
		}
	}
	/* VPC and the model codec are for records only. */
	assert_int_equal(vmt_codec_compress(VMT_CODEC_VPC, VMT_CODEC_ZSTD, 0, 1, data, 10, &out),
			 -EINVAL);
	assert_int_equal(vmt_codec_compress(VMT_CODEC_MODEL, 0, 0, 1, data, 10, &out), -EINVAL);
	vmt_buf_free(&out);
}

/* The predictors earn their keep on record-like data. */
static void test_vpc_beats_its_second_stage(void **state)
{
	struct vmt_buf vpc = { 0 }, plain = { 0 };
	struct vmt_record *r;
	size_t n = 4000;

	(void)state;
	rng_state = 77;
	r = synthetic_records(n);
	assert_int_equal(vmt_codec_compress(VMT_CODEC_VPC, VMT_CODEC_ZSTD, 0, sizeof(*r), r,
					    n * sizeof(*r), &vpc), 0);
	assert_int_equal(vmt_codec_compress(VMT_CODEC_ZSTD, 0, 0, sizeof(*r), r, n * sizeof(*r),
					    &plain), 0);
	assert_true(vpc.size < plain.size);
	assert_true(vpc.size * 20 < n * sizeof(*r));
	vmt_buf_free(&vpc);
	vmt_buf_free(&plain);
	free(r);
}

/* Every prefix of a payload, and a payload asked for the wrong size, is refused. */
static void test_truncated_and_wrong_size_payloads(void **state)
{
	struct vmt_record *r, *back;
	struct vmt_buf out = { 0 };
	size_t n = 40, size;

	(void)state;
	rng_state = 5;
	r = synthetic_records(n);
	back = calloc(n + 1, sizeof(*back));
	assert_non_null(back);
	size = n * sizeof(*r);
	for (size_t c = 0; c < NR_CODECS; c++) {
		const struct codec_case *cc = &codecs[c];

		assert_int_equal(vmt_codec_compress(cc->codec, cc->stage2, 0, sizeof(*r), r, size,
						    &out), 0);
		for (size_t cut = 0; cut < out.size; cut++)
			assert_int_equal(vmt_codec_decompress(cc->codec, cc->stage2, sizeof(*r),
							      out.data, cut, back, size, 0), -EBADMSG);
		assert_int_equal(vmt_codec_decompress(cc->codec, cc->stage2, sizeof(*r), out.data,
						      out.size, back, size - sizeof(*r), 0), -EBADMSG);
		assert_int_equal(vmt_codec_decompress(cc->codec, cc->stage2, sizeof(*r), out.data,
						      out.size, back, size + sizeof(*r), 0), -EBADMSG);
	}
	vmt_buf_free(&out);
	free(back);
	free(r);
}

/* A flipped byte decodes to something or is refused; it never reads out of bounds. */
static void test_flipped_bytes_never_crash(void **state)
{
	struct vmt_record *r, *back;
	struct vmt_buf out = { 0 };
	size_t n = 30, size;

	(void)state;
	rng_state = 11;
	r = synthetic_records(n);
	size = n * sizeof(*r);
	back = malloc(size);
	assert_non_null(back);
	for (size_t c = 0; c < NR_CODECS; c++) {
		const struct codec_case *cc = &codecs[c];

		assert_int_equal(vmt_codec_compress(cc->codec, cc->stage2, 0, sizeof(*r), r, size,
						    &out), 0);
		for (size_t i = 0; i < out.size; i++) {
			int err;

			out.data[i] ^= 0x41;
			err = vmt_codec_decompress(cc->codec, cc->stage2, sizeof(*r), out.data,
						   out.size, back, size, 0);
			assert_true(err == 0 || err == -EBADMSG);
			out.data[i] ^= 0x41;
		}
	}
	vmt_buf_free(&out);
	free(back);
	free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_synthetic),
		cmocka_unit_test(test_round_trip_random),
		cmocka_unit_test(test_round_trip_extremes),
		cmocka_unit_test(test_generic_odd_sizes),
		cmocka_unit_test(test_vpc_beats_its_second_stage),
		cmocka_unit_test(test_truncated_and_wrong_size_payloads),
		cmocka_unit_test(test_flipped_bytes_never_crash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
