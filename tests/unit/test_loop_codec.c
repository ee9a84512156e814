// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for loop compression (user/lib/codec/loop_codec.c): streams
 * of accesses (empty, one access, loop nests with strides, interleaved
 * instructions, irregular stretches, and random programs mixing them) go
 * through the encoder at several windows and come back from the decoder
 * access for access, and from a brute-force oracle too: a second decoder,
 * written here from docs/FORMAT.md's "Loop descriptors" alone, that reads
 * each element into a tree and expands it by recursion. A loop nest's
 * descriptors stay the same size whatever its trip counts; an irregular
 * stream costs no more than the same stream as literals (window 1); cut
 * and flipped bytes are refused or decode to something, never crash.
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

#include "codec/loop_codec.h"

static uint64_t rng_state;

static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* ---- Streams of accesses ------------------------------------------------ */

struct stream {
	struct vmt_loop_access *a;
	size_t n, cap;
};

static void put(struct stream *s, uint64_t ip, uint64_t addr, uint8_t access, uint16_t size)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 1024;
		s->a = realloc(s->a, s->cap * sizeof(*s->a));
		assert_non_null(s->a);
	}
	s->a[s->n++] = (struct vmt_loop_access){
		.addr = addr, .ip = ip, .size = size, .access = access, .cpu = (uint16_t)(ip & 1),
		.flags = (uint8_t)((ip >> 4) & 1),
	};
}

/* for i, for j: (for k: load A[i][k], load B[k][j]); store C[i][j], as -O0 code adds locals. */
static void matmul(struct stream *s, uint64_t n)
{
	const uint64_t a = 0x10000000, b = 0x20000000, c = 0x30000000, stack = 0x7ffd0000;

	for (uint64_t i = 0; i < n; i++)
		for (uint64_t j = 0; j < n; j++) {
			put(s, 0x401000, stack + 8, 2, 8);
			for (uint64_t k = 0; k < n; k++) {
				put(s, 0x401010, stack + 16, 1, 4);
				put(s, 0x401014, a + 8 * (i * n + k), 1, 8);
				put(s, 0x401018, b + 8 * (k * n + j), 1, 8);
				put(s, 0x40101c, stack + 16, 3, 4);
			}
			put(s, 0x401020, c + 8 * (i * n + j), 2, 8);
		}
}

/* A 5-point stencil over an n x n grid, then a triad: two nests one after the other. */
static void stencil_triad(struct stream *s, uint64_t n)
{
	const uint64_t in = 0x50000000, out = 0x60000000, w = 8 * (n + 2);

	for (uint64_t i = 1; i <= n; i++)
		for (uint64_t j = 1; j <= n; j++) {
			put(s, 0x402000, in + i * w + 8 * j, 1, 8);
			put(s, 0x402004, in + (i - 1) * w + 8 * j, 1, 8);
			put(s, 0x402008, in + (i + 1) * w + 8 * j, 1, 8);
			put(s, 0x40200c, in + i * w + 8 * (j - 1), 1, 8);
			put(s, 0x402010, in + i * w + 8 * (j + 1), 1, 8);
			put(s, 0x402014, out + i * w + 8 * j, 2, 8);
		}
	for (uint64_t i = 0; i < n * n; i++) {
		put(s, 0x403000, 0x70000000 + 8 * i, 1, 8);
		put(s, 0x403004, 0x71000000 + 8 * i, 1, 8);
		put(s, 0x403008, 0x72000000 + 8 * i, 2, 8);
	}
}

/* Random addresses over a few instructions: a pointer chase, a hash table. */
static void irregular(struct stream *s, size_t n, unsigned int instructions)
{
	for (size_t i = 0; i < n; i++)
		put(s, 0x404000 + 4 * (rng() % instructions), rng() & 0xffffffffff8ull, 1, 8);
}

/* A random program: nests of random depth, trip counts, strides and bodies, and noise. */
static void random_nest(struct stream *s, unsigned int depth, uint64_t base)
{
	unsigned int body = 1 + rng() % 4;
	uint64_t trips = 1 + rng() % 5, stride = (rng() % 5) * 8 - 8;

	for (uint64_t t = 0; t < trips; t++)
		for (unsigned int b = 0; b < body; b++) {
			if (depth && rng() % 3 == 0)
				random_nest(s, depth - 1, base + t * stride + 0x1000 * b);
			else if (rng() % 17 == 0)
				put(s, 0x405000 + 4 * (rng() % 3), rng(), 1, (uint16_t)(rng() % 3));
			else
				put(s, 0x406000 + 4 * b + 64 * depth, base + t * stride + 8 * b,
				    (uint8_t)(1 + b % 3), 8);
		}
}

static void random_program(struct stream *s, unsigned int parts)
{
	for (unsigned int p = 0; p < parts; p++)
		random_nest(s, rng() % 4, (rng() & 0xffff) << 12);
}

/* ---- Encoding and decoding ---------------------------------------------- */

struct bytes {
	uint8_t *p;
	size_t n, cap, pos;
	size_t chunk;	/* what the source hands out at most a call */
};

static int sink(void *arg, const uint8_t *data, size_t n)
{
	struct bytes *b = arg;

	if (b->n + n > b->cap) {
		b->cap = 2 * (b->n + n) + 64;
		b->p = realloc(b->p, b->cap);
		assert_non_null(b->p);
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	return 0;
}

static int source(void *arg, uint8_t *buf, size_t max)
{
	struct bytes *b = arg;
	size_t n = b->n - b->pos;

	if (b->chunk && n > b->chunk)
		n = b->chunk;
	if (n > max)
		n = max;
	if (!n)
		return 0;
	memcpy(buf, b->p + b->pos, n);
	b->pos += n;
	return (int)n;
}

static struct bytes encode(const struct stream *s, uint32_t window,
			   struct vmt_loop_encoder_stats *stats)
{
	struct vmt_loop_encoder *e;
	struct bytes b = { 0 };

	assert_int_equal(vmt_loop_encoder_create(&e, window, sink, &b), 0);
	for (size_t i = 0; i < s->n; i++)
		assert_int_equal(vmt_loop_encoder_add(e, &s->a[i]), 0);
	assert_int_equal(vmt_loop_encoder_finish(e), 0);
	if (stats)
		vmt_loop_encoder_stats(e, stats);
	vmt_loop_encoder_free(e);
	return b;
}

static bool same_access(const struct vmt_loop_access *a, const struct vmt_loop_access *b)
{
	return a->addr == b->addr && a->ip == b->ip && a->size == b->size && a->cpu == b->cpu &&
	       a->access == b->access && a->kernel_mode == b->kernel_mode && a->flags == b->flags;
}

/* The oracle: docs/FORMAT.md's descriptors read into trees and expanded by recursion. */
struct onode {
	int leaf;
	struct vmt_loop_access access;
	uint64_t count, nbody, nleaves;
	struct onode **body;
	uint64_t *stride;
};

struct oracle {
	const uint8_t *p;
	size_t n, pos;
	struct vmt_loop_access keys[4096];
	size_t nkeys;
};

static uint64_t o_varint(struct oracle *o)
{
	uint64_t v = 0;

	for (int shift = 0;; shift += 7) {
		assert_true(o->pos < o->n);
		v |= (uint64_t)(o->p[o->pos] & 0x7f) << shift;
		if (!(o->p[o->pos++] & 0x80))
			return v;
	}
}

static int64_t o_zigzag(struct oracle *o)
{
	uint64_t v = o_varint(o);

	return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static struct onode *o_element(struct oracle *o)
{
	struct onode *n = calloc(1, sizeof(*n));
	uint64_t head = o_varint(o);

	assert_non_null(n);
	if ((head & 3) == 1) {
		n->count = head >> 2;
		n->nbody = o_varint(o);
		n->body = calloc(n->nbody, sizeof(*n->body));
		for (uint64_t i = 0; i < n->nbody; i++) {
			n->body[i] = o_element(o);
			n->nleaves += n->body[i]->nleaves;
		}
		n->stride = calloc(n->nleaves + 1, sizeof(*n->stride));
		for (uint64_t i = 0; i < n->nleaves; i++)
			n->stride[i] = (uint64_t)o_zigzag(o);
		return n;
	}
	n->leaf = 1;
	n->nleaves = 1;
	if (head == 2) {
		struct vmt_loop_access *k = &o->keys[o->nkeys++];

		memset(k, 0, sizeof(*k));
		k->ip = o_varint(o);
		k->access = o->p[o->pos++];
		k->size = (uint16_t)o_varint(o);
		k->flags = o->p[o->pos++];
		k->kernel_mode = o->p[o->pos++];
		k->cpu = (uint16_t)o_varint(o);
		head = (o->nkeys - 1) << 2;
	}
	assert_true((head >> 2) < o->nkeys);
	o->keys[head >> 2].addr += (uint64_t)o_zigzag(o);
	n->access = o->keys[head >> 2];
	return n;
}

static void o_expand(const struct onode *n, const uint64_t *add, struct stream *out)
{
	if (n->leaf) {
		put(out, 0, 0, 0, 0);
		out->a[out->n - 1] = n->access;
		out->a[out->n - 1].addr += add[0];
		return;
	}
	uint64_t *moved = malloc((n->nleaves + 1) * sizeof(*moved));

	for (uint64_t i = 0; i < n->count; i++) {
		uint64_t at = 0;

		for (uint64_t j = 0; j < n->nleaves; j++)
			moved[j] = add[j] + i * n->stride[j];
		for (uint64_t b = 0; b < n->nbody; b++) {
			o_expand(n->body[b], moved + at, out);
			at += n->body[b]->nleaves;
		}
	}
	free(moved);
}

static void o_free(struct onode *n)
{
	for (uint64_t i = 0; i < n->nbody; i++)
		o_free(n->body[i]);
	free(n->body);
	free(n->stride);
	free(n);
}

static void check_oracle(const struct bytes *b, const struct stream *s)
{
	struct oracle *o = calloc(1, sizeof(*o));
	struct stream out = { 0 };

	o->p = b->p;
	o->n = b->n;
	while (o->pos < o->n) {
		struct onode *n = o_element(o);
		uint64_t *zero = calloc(n->nleaves + 1, sizeof(*zero));

		o_expand(n, zero, &out);
		free(zero);
		o_free(n);
	}
	assert_int_equal(out.n, s->n);
	for (size_t i = 0; i < s->n; i++)
		assert_true(same_access(&out.a[i], &s->a[i]));
	free(out.a);
	free(o);
}

/* Encode @s with @window, decode it both ways, check both; the encoded size. */
static size_t round_trip(const struct stream *s, uint32_t window)
{
	struct vmt_loop_encoder_stats st;
	struct bytes b = encode(s, window, &st);
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	size_t i = 0;
	int ret;

	assert_int_equal(st.accesses, s->n);
	assert_int_equal(st.bytes, b.n);
	b.chunk = 1 + rng() % 5000;
	assert_int_equal(vmt_loop_decoder_create(&d, source, &b), 0);
	while ((ret = vmt_loop_decoder_next(d, &a)) == 1) {
		assert_true(i < s->n);
		if (!same_access(&a, &s->a[i]))
			fail_msg("access %zu of %zu differs (window %u): addr %#llx, not %#llx", i,
				 s->n, window, (unsigned long long)a.addr,
				 (unsigned long long)s->a[i].addr);
		i++;
	}
	assert_int_equal(ret, 0);
	assert_int_equal(i, s->n);
	vmt_loop_decoder_free(d);
	check_oracle(&b, s);
	free(b.p);
	return b.n;
}

static const uint32_t windows[] = { 1, 2, 3, 8, 64, 256, 4096 };

static void test_empty_and_one(void **state)
{
	struct stream s = { 0 };

	(void)state;
	for (size_t w = 0; w < sizeof(windows) / sizeof(*windows); w++)
		assert_int_equal(round_trip(&s, windows[w]), 0);
	put(&s, 0xffffffffffffffffull, 0xfffffffffffffff8ull, 4, 65535);
	s.a[0].kernel_mode = 1;
	s.a[0].cpu = 65535;
	s.a[0].flags = 7;
	for (size_t w = 0; w < sizeof(windows) / sizeof(*windows); w++)
		round_trip(&s, windows[w]);
	free(s.a);
}

/* Loop nests: exact at every window, and the same size whatever their trip counts. */
static void test_loop_nests(void **state)
{
	size_t size[4];

	(void)state;
	for (unsigned int k = 0; k < 4; k++) {
		struct stream s = { 0 };

		matmul(&s, 8u << k);
		size[k] = round_trip(&s, 0);
		for (size_t w = 0; k < 2 && w < sizeof(windows) / sizeof(*windows); w++)
			round_trip(&s, windows[w]);
		print_message("matmul n=%u: %zu accesses, %zu bytes\n", 8u << k, s.n, size[k]);
		free(s.a);
	}
	/* Only the counts' varints grow. */
	assert_true(size[3] <= size[1] + 8);
	assert_true(size[3] < 300);
	for (unsigned int k = 0; k < 3; k++) {
		struct stream s = { 0 };

		stencil_triad(&s, 16u << k);
		size[k] = round_trip(&s, 0);
		print_message("stencil+triad n=%u: %zu accesses, %zu bytes\n", 16u << k, s.n,
			      size[k]);
		free(s.a);
	}
	assert_true(size[2] <= size[0] + 8);
}

/* Irregular stretches stay literals: no larger than window 1's literals. */
static void test_irregular(void **state)
{
	struct stream s = { 0 };
	size_t literal, folded;

	(void)state;
	rng_state = 0x1234567;
	irregular(&s, 20000, 5);
	literal = round_trip(&s, 1);
	folded = round_trip(&s, 0);
	print_message("irregular: %zu bytes as literals, %zu with loops\n", literal, folded);
	assert_true(folded * 100 <= literal * 101);
	/* Mixed: a loop nest in the middle of noise folds, the noise does not grow. */
	matmul(&s, 16);
	irregular(&s, 20000, 5);
	folded = round_trip(&s, 0);
	assert_true(folded * 100 <= literal * 2 * 101);
	free(s.a);
}

/* Random programs, at every window: exact, by the decoder and the oracle. */
static void test_random_programs(void **state)
{
	(void)state;
	for (unsigned int seed = 1; seed <= 300; seed++) {
		struct stream s = { 0 };

		rng_state = 0x9e3779b97f4a7c15ull * seed;
		random_program(&s, 1 + seed % 7);
		round_trip(&s, windows[seed % (sizeof(windows) / sizeof(*windows))]);
		round_trip(&s, 0);
		free(s.a);
	}
}

/* The element view: its counts add up to the stream, and a nest is one element. */
static void test_elements(void **state)
{
	struct stream s = { 0 };
	struct bytes b;
	struct vmt_loop_decoder *d;
	struct vmt_loop_element el;
	uint64_t total = 0, elements = 0;
	int ret;

	(void)state;
	matmul(&s, 24);
	b = encode(&s, 0, NULL);
	assert_int_equal(vmt_loop_decoder_create(&d, source, &b), 0);
	while ((ret = vmt_loop_decoder_next_element(d, &el)) == 1) {
		total += el.accesses;
		elements++;
		if (el.nr_loops) {
			assert_int_equal(el.loops[0].count, 24);
			assert_int_equal(el.loops[0].accesses, el.accesses);
		}
	}
	assert_int_equal(ret, 0);
	assert_int_equal(total, s.n);
	assert_true(elements <= 3);
	vmt_loop_decoder_free(d);
	free(b.p);
	free(s.a);
}

/* Cut and flipped bytes: refused with a message, or decoded to something; bounded work. */
static void test_damaged(void **state)
{
	struct stream s = { 0 };
	struct bytes good;

	(void)state;
	rng_state = 99;
	random_program(&s, 6);
	matmul(&s, 5);
	good = encode(&s, 0, NULL);
	for (unsigned int round = 0; round < 2000; round++) {
		struct bytes b = good;
		struct vmt_loop_decoder *d;
		struct vmt_loop_access a;
		uint64_t n = 0;
		int ret;

		b.p = malloc(good.n);
		memcpy(b.p, good.p, good.n);
		if (round % 2)
			b.n = rng() % good.n;
		else
			for (int f = 0; f < 3; f++)
				b.p[rng() % b.n] ^= (uint8_t)(1u << (rng() % 8));
		b.pos = 0;
		assert_int_equal(vmt_loop_decoder_create(&d, source, &b), 0);
		while ((ret = vmt_loop_decoder_next(d, &a)) == 1 && n < 4 * s.n)
			n++;
		if (ret < 0) {
			assert_int_equal(ret, -EBADMSG);
			assert_non_null(strstr(vmt_loop_decoder_error(d), "loop descriptors: "));
		}
		vmt_loop_decoder_free(d);
		free(b.p);
	}
	free(good.p);
	free(s.a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty_and_one),
		cmocka_unit_test(test_loop_nests),
		cmocka_unit_test(test_irregular),
		cmocka_unit_test(test_random_programs),
		cmocka_unit_test(test_elements),
		cmocka_unit_test(test_damaged),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
