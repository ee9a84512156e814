// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Loop sets: ScalaMemTrace's extended PRSDs (EPRSDs), threads whose loops
 * differ only in their bases, kept once.
 *
 * Why the descriptors of such threads are the same bytes: the encoder
 * (loop_codec.c) folds on shapes (instructions, counts, strides) and
 * writes each leaf's address as its difference from its instruction's last
 * one, so moving every address of an instruction by the same amount
 * changes one number, that instruction's first address, written where it
 * is first given. Its CPU, given there too, is the other thing a thread
 * of the same loops may differ in. vmt_loop_canon() zeroes both: equal
 * canonical forms, equal accesses but for those.
 *
 * The set's bytes (docs/FORMAT.md, "Loop sets"), every number a varint,
 * "zig-zag" ones signed:
 *
 *   template stream, ranks R (2 or more), instructions K
 *   K zig-zag steps: what each instruction's base moves by a rank
 *   R - 1 members, rank 1 first, each:
 *     its loop stream;
 *     its CPUs: 0, then K of them (each instruction's), or c + 1 when
 *       every instruction ran on CPU c;
 *     E, then E pairs (instruction, zig-zag shift from the template's
 *       base) for the instructions off the line (shift != rank x step),
 *       in increasing order of instruction.
 *
 * The steps are rank 1's shifts, so a set of threads whose bases are
 * linear in their rank (a loop split by rows among threads, numbered in
 * order of creation) costs the template, K steps and a few bytes a
 * member; any other bases cost a pair an instruction.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "codec/loop_sets.h"
#include "base/grow_array.h"
#include "base/varint.h"


/* A varint at @in[*pos], *pos moved past it: 0 or -EBADMSG. */
static int get_varint(const uint8_t *in, size_t n, size_t *pos, uint64_t *v)
{
	const uint8_t *p = in + *pos;
	int err = vmt_get_varint(&p, in + n, v);

	*pos = (size_t)(p - in);
	return err;
}

/* ---- Canonical forms -------------------------------------------------- */

struct walk {
	const uint8_t *in;
	size_t n, pos;
	uint8_t *out;
	size_t out_n;
	struct vmt_loop_key_base *keys;
	uint32_t nr_keys;
	uint64_t keys_cap;
};

/* The next varint, copied to the canonical form: 0 or -EBADMSG. */
static int copy_varint(struct walk *w, uint64_t *v)
{
	size_t from = w->pos;
	int err = get_varint(w->in, w->n, &w->pos, v);

	if (!err) {
		memcpy(w->out + w->out_n, w->in + from, w->pos - from);
		w->out_n += w->pos - from;
	}
	return err;
}

static int copy_u8(struct walk *w)
{
	if (w->pos >= w->n)
		return -EBADMSG;
	w->out[w->out_n++] = w->in[w->pos++];
	return 0;
}

/* A new instruction's fields after its head: its CPU and first address zeroed, kept aside. */
static int walk_key(struct walk *w)
{
	uint64_t v, cpu, delta;
	int err;

	if ((err = copy_varint(w, &v)) || (err = copy_u8(w)) || (err = copy_varint(w, &v)) ||
	    (err = copy_u8(w)) || (err = copy_u8(w)) ||
	    (err = get_varint(w->in, w->n, &w->pos, &cpu)) ||
	    (err = get_varint(w->in, w->n, &w->pos, &delta)))
		return err;
	if (cpu > UINT16_MAX)
		return -EBADMSG;
	/* Zero takes one byte, no more than what it replaces: @out has room. */
	w->out[w->out_n++] = 0;
	w->out[w->out_n++] = 0;
	if (vmt_grow_array((void **)&w->keys, &w->keys_cap, (uint64_t)w->nr_keys + 1,
			   sizeof(*w->keys)))
		return -ENOMEM;
	w->keys[w->nr_keys++] = (struct vmt_loop_key_base){
		.addr = vmt_unzigzag(delta), .cpu = (uint16_t)cpu,
	};
	return 0;
}

/* One element, its leaves added to *@leaves: 0, -EBADMSG or -ENOMEM. */
static int walk_element(struct walk *w, uint32_t depth, uint64_t *leaves)
{
	uint64_t head, v, body = 0;
	int err;

	if (depth > VMT_LOOP_MAX_DEPTH)
		return -EBADMSG;
	err = copy_varint(w, &head);
	if (err)
		return err;
	switch (head & 3) {
	case 0:
		*leaves += 1;
		return copy_varint(w, &v);
	case 2:
		*leaves += 1;
		return head == 2 ? walk_key(w) : -EBADMSG;
	case 1:
		err = copy_varint(w, &v);
		/* Each element takes a byte or more: the input bounds the walk. */
		for (uint64_t i = 0; !err && i < v; i++)
			err = walk_element(w, depth + 1, &body);
		for (uint64_t i = 0; !err && i < body; i++)
			err = copy_varint(w, &v);
		*leaves += body;
		return err;
	}
	return -EBADMSG;
}

int vmt_loop_canon(const uint8_t *in, size_t n, uint8_t *canon, size_t *canon_n,
		   struct vmt_loop_key_base **keys, uint32_t *nr_keys)
{
	struct walk w = { .in = in, .n = n, .out = canon };
	uint64_t leaves = 0;
	int err = 0;

	while (!err && w.pos < n)
		err = walk_element(&w, 0, &leaves);
	if (err) {
		free(w.keys);
		return err;
	}
	*canon_n = w.out_n;
	*keys = w.keys;
	*nr_keys = w.nr_keys;
	return 0;
}

/* ---- Sets written ----------------------------------------------------- */

/* Bytes written to memory; a failed allocation sticks, said once at the end. */
struct out {
	uint8_t *p;
	size_t n;
	uint64_t cap;
	bool failed;
};

static void put(struct out *o, uint64_t v)
{
	if (o->failed || vmt_grow_array((void **)&o->p, &o->cap, o->n + 10, 1)) {
		o->failed = true;
		return;
	}
	do {
		o->p[o->n++] = (uint8_t)(v & 0x7f) | (v > 0x7f ? 0x80 : 0);
		v >>= 7;
	} while (v);
}

static bool one_cpu(const struct vmt_loop_key_base *keys, uint32_t nr_keys)
{
	for (uint32_t k = 1; k < nr_keys; k++)
		if (keys[k].cpu != keys[0].cpu)
			return false;
	return nr_keys > 0;
}

int vmt_loop_set_encode(const struct vmt_loop_set_rank *ranks, uint32_t nr_ranks,
			uint32_t nr_keys, uint8_t **out, size_t *out_n)
{
	const struct vmt_loop_key_base *base = ranks[0].keys, *one = ranks[1].keys;
	struct out o = { 0 };

	put(&o, ranks[0].stream_id);
	put(&o, nr_ranks);
	put(&o, nr_keys);
	for (uint32_t k = 0; k < nr_keys; k++)
		put(&o, vmt_zigzag(one[k].addr - base[k].addr));
	for (uint32_t r = 1; r < nr_ranks; r++) {
		const struct vmt_loop_key_base *keys = ranks[r].keys;
		uint32_t off = 0;

		put(&o, ranks[r].stream_id);
		if (one_cpu(keys, nr_keys)) {
			put(&o, (uint64_t)keys[0].cpu + 1);
		} else {
			put(&o, 0);
			for (uint32_t k = 0; k < nr_keys; k++)
				put(&o, keys[k].cpu);
		}
		for (uint32_t k = 0; k < nr_keys; k++)
			off += keys[k].addr - base[k].addr != r * (one[k].addr - base[k].addr);
		put(&o, off);
		for (uint32_t k = 0; off && k < nr_keys; k++) {
			if (keys[k].addr - base[k].addr == r * (one[k].addr - base[k].addr))
				continue;
			put(&o, k);
			put(&o, vmt_zigzag(keys[k].addr - base[k].addr));
		}
	}
	if (o.failed) {
		free(o.p);
		return -ENOMEM;
	}
	*out = o.p;
	*out_n = o.n;
	return 0;
}

/* ---- Sets read -------------------------------------------------------- */

#define MAX_RANKS	(1u << 16)	/* a trace's streams */
#define MAX_KEYS	(1u << 24)	/* the decoder's */

static int set_bad(char *msg, size_t msg_size, const char *what)
{
	snprintf(msg, msg_size, "loop set: %s", what);
	return -EBADMSG;
}

int vmt_loop_set_find(const uint8_t *in, size_t n, uint32_t stream_id,
		      struct vmt_loop_set_member *m, char *msg, size_t msg_size)
{
	uint64_t tmpl, ranks, keys, v, cpus, off, k, shift;
	uint64_t *step = NULL;
	size_t pos = 0;
	bool found = false;
	int err;

	memset(m, 0, sizeof(*m));
	if (get_varint(in, n, &pos, &tmpl) || get_varint(in, n, &pos, &ranks) ||
	    get_varint(in, n, &pos, &keys))
		return set_bad(msg, msg_size, "cut short");
	if (tmpl >= MAX_RANKS || ranks < 2 || ranks > MAX_RANKS || keys > MAX_KEYS ||
	    keys > n)	/* a step takes a byte or more */
		return set_bad(msg, msg_size, "a stream, rank count or instruction count out of range");
	step = calloc(keys + 1, sizeof(*step));
	if (!step)
		return -ENOMEM;
	for (uint64_t i = 0; i < keys; i++)
		if (get_varint(in, n, &pos, &step[i]))
			goto cut;
	for (uint64_t r = 1; r < ranks; r++) {
		bool me;

		if (get_varint(in, n, &pos, &v) || get_varint(in, n, &pos, &cpus))
			goto cut;
		if (v >= MAX_RANKS || v == tmpl || cpus > (uint64_t)UINT16_MAX + 1) {
			err = set_bad(msg, msg_size, "a member's stream or CPU out of range");
			goto fail;
		}
		me = !found && v == stream_id;
		if (me) {
			found = true;
			*m = (struct vmt_loop_set_member){
				.template_stream = (uint32_t)tmpl, .rank = (uint32_t)r,
				.nr_ranks = (uint32_t)ranks, .nr_keys = (uint32_t)keys,
				.shift = calloc(keys + 1, sizeof(*m->shift)),
				.cpu = calloc(keys + 1, sizeof(*m->cpu)),
			};
			if (!m->shift || !m->cpu) {
				err = -ENOMEM;
				goto fail;
			}
			for (uint64_t i = 0; i < keys; i++) {
				m->shift[i] = r * vmt_unzigzag(step[i]);
				m->cpu[i] = (uint16_t)(cpus - 1);
			}
		}
		for (uint64_t i = 0; !cpus && i < keys; i++) {
			if (get_varint(in, n, &pos, &v))
				goto cut;
			if (v > UINT16_MAX) {
				err = set_bad(msg, msg_size, "a CPU past 16 bits");
				goto fail;
			}
			if (me)
				m->cpu[i] = (uint16_t)v;
		}
		if (get_varint(in, n, &pos, &off))
			goto cut;
		if (off > keys) {
			err = set_bad(msg, msg_size, "more instructions off the line than there are");
			goto fail;
		}
		for (uint64_t i = 0, last = 0; i < off; i++, last = k + 1) {
			if (get_varint(in, n, &pos, &k) || get_varint(in, n, &pos, &shift))
				goto cut;
			if (k >= keys || k < last) {
				err = set_bad(msg, msg_size, "an instruction off the line out of order or range");
				goto fail;
			}
			if (me)
				m->shift[k] = vmt_unzigzag(shift);
		}
	}
	free(step);
	if (pos != n) {
		vmt_loop_set_member_free(m);
		return set_bad(msg, msg_size, "bytes after its last member");
	}
	return found;
cut:
	err = set_bad(msg, msg_size, "cut short");
fail:
	free(step);
	vmt_loop_set_member_free(m);
	return err;
}

void vmt_loop_set_member_free(struct vmt_loop_set_member *m)
{
	free(m->shift);
	free(m->cpu);
	memset(m, 0, sizeof(*m));
}
