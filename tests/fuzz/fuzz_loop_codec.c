// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for loop descriptors (user/lib/codec/loop_codec.c), the
 * bytes of a loop stream (VMT_STREAM_LOOPS), below the container's checksums:
 *
 *   - the input taken as descriptors: replayed access by access, and read
 *     element by element, each up to a bound: they decode or are refused
 *     with -EBADMSG, without a crash, a hang or a read out of bounds;
 *   - the input taken as accesses (3 bytes each: an instruction of 8, an
 *     address step of 32, a stride choice), at the window its first byte
 *     picks: encoded and decoded, they come back access for access.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"

#define MAX_ACCESSES	(1u << 16)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct bytes {
	const uint8_t *p;
	size_t n, pos;
};

static int source(void *arg, uint8_t *buf, size_t max)
{
	struct bytes *b = arg;
	size_t n = b->n - b->pos < max ? b->n - b->pos : max;

	if (n)
		memcpy(buf, b->p + b->pos, n);
	b->pos += n;
	return (int)n;
}

struct out {
	uint8_t *p;
	size_t n, cap;
};

static int sink(void *arg, const uint8_t *data, size_t n)
{
	struct out *o = arg;

	if (o->n + n > o->cap) {
		o->cap = 2 * (o->n + n);
		o->p = realloc(o->p, o->cap);
		if (!o->p)
			abort();
	}
	memcpy(o->p + o->n, data, n);
	o->n += n;
	return 0;
}

static void decode_bounded(const uint8_t *data, size_t size)
{
	struct bytes b = { data, size, 0 };
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	struct vmt_loop_element el;
	unsigned int n = 0;
	int ret;

	if (vmt_loop_decoder_create(&d, source, &b))
		return;
	while ((ret = vmt_loop_decoder_next(d, &a)) == 1 && ++n < MAX_ACCESSES)
		;
	if (ret < 0 && ret != -EBADMSG && ret != -ENOMEM)
		abort();
	vmt_loop_decoder_free(d);
	b.pos = 0;
	if (vmt_loop_decoder_create(&d, source, &b))
		return;
	for (n = 0; (ret = vmt_loop_decoder_next_element(d, &el)) == 1 && n < MAX_ACCESSES; n++)
		if (el.nr_ops != 2 * el.nr_loops + el.nr_leaves)
			abort();
	if (ret < 0 && ret != -EBADMSG && ret != -ENOMEM)
		abort();
	vmt_loop_decoder_free(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmt_loop_access in[MAX_ACCESSES];
	static const uint32_t windows[] = { 1, 2, 3, 4, 8, 16, 64, 256 };
	struct vmt_loop_encoder *e;
	struct out o = { 0 };
	struct bytes b;
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	uint64_t addr[8] = { 0 };
	size_t n;
	int ret;

	decode_bounded(data, size);
	if (!size)
		return 0;
	n = (size - 1) / 3;
	n = n < MAX_ACCESSES ? n : MAX_ACCESSES;
	for (size_t i = 0; i < n; i++) {
		const uint8_t *p = data + 1 + 3 * i;
		unsigned int k = p[0] & 7;

		/* Steps from a few values, so that loops form; now and then a jump. */
		addr[k] += (p[2] & 3) == 3 ? (uint64_t)p[1] << 40 : (uint64_t)(int8_t)(p[1] & 0x1f) * 8;
		in[i] = (struct vmt_loop_access){
			.addr = addr[k], .ip = 0x400000 + 4 * k, .size = (uint16_t)(1u << (k & 3)),
			.access = (uint8_t)(1 + (k & 1)), .cpu = (uint16_t)(p[2] >> 7),
		};
	}
	if (vmt_loop_encoder_create(&e, windows[data[0] & 7], sink, &o))
		abort();
	for (size_t i = 0; i < n; i++)
		if (vmt_loop_encoder_add(e, &in[i]))
			abort();
	if (vmt_loop_encoder_finish(e))
		abort();
	vmt_loop_encoder_free(e);
	b = (struct bytes){ o.p, o.n, 0 };
	if (vmt_loop_decoder_create(&d, source, &b))
		abort();
	for (size_t i = 0; i < n; i++) {
		if (vmt_loop_decoder_next(d, &a) != 1 || a.addr != in[i].addr || a.ip != in[i].ip ||
		    a.size != in[i].size || a.cpu != in[i].cpu || a.access != in[i].access ||
		    a.kernel_mode != in[i].kernel_mode || a.flags != in[i].flags)
			abort();
	}
	ret = vmt_loop_decoder_next(d, &a);
	if (ret != 0)
		abort();
	vmt_loop_decoder_free(d);
	free(o.p);
	return 0;
}
