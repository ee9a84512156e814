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
 *     picks: encoded and decoded, they come back access for access;
 *   - the input taken as a loop set (loop_sets.c): found or refused with
 *     -EBADMSG; and the encoded accesses made the template of a set of two
 *     whose member's instructions start elsewhere and run on other CPUs:
 *     the member, replayed through the set, comes back moved and on them.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "codec/loop_sets.h"

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

/* The input as a set's bytes: a member, not one, or refused. */
static void set_bounded(const uint8_t *data, size_t size)
{
	struct vmt_loop_set_member m;
	char msg[128];

	for (uint32_t id = 0; id < 4; id++) {
		int ret = vmt_loop_set_find(data, size, id, &m, msg, sizeof(msg));

		if (ret < 0 && ret != -EBADMSG && ret != -ENOMEM)
			abort();
		if (ret == 1 && (!m.rank || m.rank >= m.nr_ranks))
			abort();
		vmt_loop_set_member_free(&m);
	}
}

/*
 * @bytes, the descriptors of @in[@n], as rank 0 of a set whose rank 1 has
 * instruction k's addresses moved by @move x (k + 1) and on CPU k + 2.
 */
static void set_round_trip(const struct vmt_loop_access *in, size_t n, const uint8_t *bytes,
			   size_t len, uint64_t move)
{
	struct vmt_loop_key_base *keys, *other;
	struct vmt_loop_set_member m;
	struct vmt_loop_decoder *d;
	struct vmt_loop_access a;
	uint8_t *canon = malloc(len + 1), *set;
	size_t canon_len, set_len;
	struct vmt_loop_access seen[16];	/* an instruction: its ip and cpu here */
	uint32_t nr_keys;
	char msg[128];
	struct bytes b = { bytes, len, 0 };

	if (!canon || vmt_loop_canon(bytes, len, canon, &canon_len, &keys, &nr_keys))
		abort();
	if (canon_len > len || nr_keys > 16)
		abort();
	other = calloc(nr_keys + 1, sizeof(*other));
	if (!other)
		abort();
	for (uint32_t k = 0; k < nr_keys; k++)
		other[k] = (struct vmt_loop_key_base){ keys[k].addr + move * (k + 1), (uint16_t)(k + 2) };
	if (vmt_loop_set_encode((struct vmt_loop_set_rank[]){ { 7, keys }, { 9, other } }, 2,
				nr_keys, &set, &set_len))
		abort();
	if (vmt_loop_set_find(set, set_len, 9, &m, msg, sizeof(msg)) != 1 ||
	    m.template_stream != 7 || m.rank != 1 || m.nr_keys != nr_keys ||
	    vmt_loop_set_find(set, set_len, 7, &(struct vmt_loop_set_member){ 0 }, msg,
			      sizeof(msg)) != 0)
		abort();
	if (vmt_loop_decoder_create(&d, source, &b))
		abort();
	vmt_loop_decoder_rebase(d, m.nr_keys, m.shift, m.cpu);
	/* Instructions are numbered in order of first access: find each one's. */
	nr_keys = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t k = 0;

		while (k < nr_keys && (seen[k].ip != in[i].ip || seen[k].cpu != in[i].cpu))
			k++;
		if (k == nr_keys)
			seen[nr_keys++] = in[i];
		if (vmt_loop_decoder_next(d, &a) != 1 || a.ip != in[i].ip ||
		    a.addr != in[i].addr + move * (k + 1) || a.cpu != k + 2)
			abort();
	}
	if (vmt_loop_decoder_next(d, &a) != 0)
		abort();
	vmt_loop_decoder_free(d);
	vmt_loop_set_member_free(&m);
	free(set);
	free(other);
	free(keys);
	free(canon);
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
	set_bounded(data, size);
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
	set_round_trip(in, n, o.p, o.n, (uint64_t)data[0] << 12);
	free(o.p);
	return 0;
}
