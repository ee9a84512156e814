// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Loop compression of one thread's exact accesses, after ScalaMemTrace's
 * intra-thread compression (Budanur, Mueller, Gamblin: "Memory Trace
 * Compression and Replay for SPMD Systems using Extended PRSDs"): RSDs
 * <count, base, stride, instruction> nested into PRSDs, found online.
 *
 * The encoder keeps a window of at most S top-level elements, the newest
 * last. An element is a leaf (one access: an instruction and its address)
 * or a loop: a count of 2 or more, a body of elements (its first
 * iteration) and, per leaf of the body, a stride that each iteration adds
 * to that leaf's address. After each access joins the window it folds
 * what it can, again until nothing changes:
 *
 *   extend   the k elements at the end repeat the body of the loop just
 *            before them, with every leaf at base + count x stride:
 *            the loop's count grows by one and they go;
 *   new loop the last 2k elements are two runs of k with the same shapes
 *            (instructions, nested counts and strides) pairwise: they
 *            become a loop of count 2, its strides the second run's
 *            addresses less the first's.
 *
 * The smallest k wins, extending before making a new loop. Shapes carry
 * a hash, so most candidates fail on one comparison; a hash match is
 * checked in full before anything is folded, so the result is lossless
 * whatever the hashes do. When the window holds more than S elements (or
 * more than 64 x S leaves and loops in all), its oldest element is
 * written out, and no later access can fold into it.
 *
 * What a loop needs to be found: its body, as the elements it folds to,
 * twice in the window: a loop of N elements a body needs S >= 2N. Inner
 * loops fold first, so a loop nest needs S of twice the widest body
 * counted in elements after folding (a matrix multiply's k loop is one
 * element of its j loop's body). A loop with a body past S/2 is written
 * out flat, as literals and inner loops. What S costs: each access
 * compares one hash with each of up to S elements (O(S) time an access),
 * and the window holds S elements (O(S) memory an encoder, one a thread).
 * Two counts keep an irregular stretch's accesses near O(1): the window's
 * loops by body length (an extension of k elements needs a loop of a body
 * of k, so the scan stops at the longest body) and its elements by hash
 * (a new loop needs an earlier element of the newest one's hash, so with
 * none the scan is skipped); and freed nodes are kept for the next ones.
 * An irregular stretch folds nothing and is written as literals: a leaf is
 * its instruction's number and its address less that instruction's last.
 *
 * Outline, in order:
 * - the encoder: instructions numbered (key_of()); nodes made and kept
 *   for reuse (node_new(), node_free()); the window's counts of loops by
 *   body length and of elements by hash (count_body(), count_hash()),
 *   kept as elements come and go (push(), cut_window()); shapes compared
 *   and folding (try_extend(), try_new_loop(), fold()); an element
 *   written out (write_leaf(), write_node(), emit_oldest()); its entry
 *   points;
 * - the decoder: bytes read (read_byte(), read_varint()), an element
 *   read into a program (read_key(), which a loop set's member rebases,
 *   read_leaf(), read_node(), load_element()), the program replayed
 *   (vmt_loop_decoder_next(), literals of known instructions without a
 *   program), its entry points.
 *
 * The decoder reads one top-level element at a time into a flat program
 * of leaves and loop begins and ends, and replays it access by access: at
 * a loop's end, its leaves' addresses move by their strides, or back to
 * their first iteration's when the loop is done. Memory: one element.
 *
 * The bytes (docs/FORMAT.md, "Loop descriptors"), elements one after
 * another, each a varint head:
 *
 *   head & 3 == 0   a leaf of instruction head >> 2 (numbered from 0 in
 *                   order of first appearance), then its address as the
 *                   zig-zag varint of its difference from the address
 *                   that instruction's last leaf had (0 at first)
 *   head == 2       a new instruction, numbered next: varint ip, u8
 *                   access, varint size, u8 flags, u8 kernel_mode, varint
 *                   cpu; then its leaf's address as above
 *   head & 3 == 1   a loop of count head >> 2 (2 or more): varint body
 *                   length (1 or more), the body's elements, then one
 *                   zig-zag varint stride per leaf of the body, in order
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codec/loop_codec.h"
#include "base/grow_array.h"
#include "base/varint.h"

/* ---- The encoder ------------------------------------------------------ */

struct node {
	uint64_t hash;		/* of the shape: instructions, counts, strides */
	uint64_t inner;		/* a loop's hash less its count */
	uint64_t count;		/* 0: a leaf */
	uint64_t addr;		/* a leaf's (first) address */
	uint32_t key;		/* a leaf's instruction */
	uint32_t nleaves, nnodes, depth;
	uint32_t nbody;
	struct node **body;
	uint64_t *stride;	/* nleaves */
	/* A small loop's body and strides, in place (an irregular stretch makes many). */
	struct node *small_body[2];
	uint64_t small_stride[2];
	struct node *next_spare;
};

struct enc_key {
	struct vmt_loop_access access;	/* addr: unused */
	uint64_t last;			/* the address its last written leaf had */
	uint32_t wire;			/* its number in the bytes; UINT32_MAX: not yet */
};

#define OUT_FLUSH	65536u

/*
 * A window's element, with what the scans for a fold compare, side by side
 * so that a scan reads one array: its hash, and for a loop a hash of its
 * body's length and last element's hash (0 for a leaf).
 */
struct slot {
	struct node *node;
	uint64_t hash;
	uint64_t ext;
};

struct vmt_loop_encoder {
	uint32_t window;
	uint64_t node_cap;
	struct slot *win;	/* win[head .. head + len), capacity 2 x window + 1 */
	uint32_t head, len;
	uint64_t win_nodes;
	/*
	 * The window's loops by body length, and the longest: only a loop of
	 * a body of k elements can take the last k as one more iteration, so
	 * fold() looks back no further than that (an irregular stretch's
	 * loops are of one or two elements).
	 */
	uint32_t *bodies;	/* [k]: loops of k elements in the window, k <= window */
	uint32_t max_body;
	/*
	 * The window's elements by hash & hmask: a new loop needs an earlier
	 * element of the newest one's hash, so when none is counted the scan
	 * for one is skipped (in an irregular stretch, most of the time), and
	 * when one is, the sum of their positions says where it is.
	 */
	uint32_t *hashes;
	uint64_t *hsum;		/* their positions (emitted + index), summed */
	uint64_t hmask;
	uint64_t emitted;	/* elements written out: the position of win[head] */
	struct enc_key *keys;
	uint32_t nr_keys, keys_cap, wire_keys;
	uint32_t *slots;	/* open addressing: key + 1, 0 empty */
	uint32_t nr_slots;
	uint8_t *out;
	size_t out_len, out_cap;
	vmt_loop_sink_fn sink;
	void *arg;
	struct vmt_loop_encoder_stats stats;
	struct node *spare;	/* nodes freed, for the next ones: no more than the window held */
};

static uint64_t mix(uint64_t h, uint64_t v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ull;
	return h ^ (h >> 29);
}

static uint64_t access_hash(const struct vmt_loop_access *a)
{
	uint64_t h = mix(a->ip, a->size);

	h = mix(h, (uint64_t)a->cpu << 24 | (uint64_t)a->access << 16 |
		   (uint64_t)a->kernel_mode << 8 | a->flags);
	return h ? h : 1;
}

static bool same_instruction(const struct vmt_loop_access *a, const struct vmt_loop_access *b)
{
	return a->ip == b->ip && a->size == b->size && a->cpu == b->cpu &&
	       a->access == b->access && a->kernel_mode == b->kernel_mode && a->flags == b->flags;
}

static int grow_slots(struct vmt_loop_encoder *e)
{
	uint32_t nr = e->nr_slots ? 2 * e->nr_slots : 1024;
	uint32_t *slots = calloc(nr, sizeof(*slots));

	if (!slots)
		return -ENOMEM;
	for (uint32_t k = 0; k < e->nr_keys; k++) {
		uint32_t i = (uint32_t)access_hash(&e->keys[k].access) & (nr - 1);

		while (slots[i])
			i = (i + 1) & (nr - 1);
		slots[i] = k + 1;
	}
	free(e->slots);
	e->slots = slots;
	e->nr_slots = nr;
	return 0;
}

/* The instruction of @a, numbered on first sight: its number or -errno. */
static int64_t key_of(struct vmt_loop_encoder *e, const struct vmt_loop_access *a)
{
	uint32_t i;

	if (2 * (e->nr_keys + 1) > e->nr_slots && grow_slots(e))
		return -ENOMEM;
	i = (uint32_t)access_hash(a) & (e->nr_slots - 1);
	for (; e->slots[i]; i = (i + 1) & (e->nr_slots - 1))
		if (same_instruction(&e->keys[e->slots[i] - 1].access, a))
			return e->slots[i] - 1;
	if (e->nr_keys == e->keys_cap) {
		uint32_t cap = e->keys_cap ? 2 * e->keys_cap : 256;
		struct enc_key *keys = realloc(e->keys, cap * sizeof(*keys));

		if (!keys)
			return -ENOMEM;
		e->keys = keys;
		e->keys_cap = cap;
	}
	e->keys[e->nr_keys] = (struct enc_key){ .access = *a, .wire = UINT32_MAX };
	e->slots[i] = e->nr_keys + 1;
	return e->nr_keys++;
}

/* A zeroed node, a spare one if there is one: NULL when out of memory. */
static struct node *node_new(struct vmt_loop_encoder *e)
{
	struct node *n = e->spare;

	if (!n)
		return calloc(1, sizeof(*n));
	e->spare = n->next_spare;
	memset(n, 0, sizeof(*n));
	return n;
}

/* @n and its body to the spares. */
static void node_free(struct vmt_loop_encoder *e, struct node *n)
{
	if (!n)
		return;
	for (uint32_t i = 0; i < n->nbody; i++)
		node_free(e, n->body[i]);
	if (n->body != n->small_body)
		free(n->body);
	if (n->stride != n->small_stride)
		free(n->stride);
	n->next_spare = e->spare;
	e->spare = n;
}

static struct node *elem(struct vmt_loop_encoder *e, uint32_t i)
{
	return e->win[e->head + i].node;
}

static uint64_t ext_hash(uint64_t last_hash, uint32_t k)
{
	return mix(last_hash, k) | 1;
}

/* A hash at window index @i comes into the window (@in) or leaves it. */
static void count_hash(struct vmt_loop_encoder *e, uint64_t hash, uint32_t i, bool in)
{
	e->hashes[hash & e->hmask] += in ? 1 : -1;
	e->hsum[hash & e->hmask] += in ? e->emitted + i : -(e->emitted + i);
}

/*
 * Node @n, at window index @i, comes into the window (@in) or leaves it:
 * its hash and body length counted.
 */
static void count_body(struct vmt_loop_encoder *e, const struct node *n, uint32_t i, bool in)
{
	count_hash(e, n->hash, i, in);
	if (!n->count)
		return;
	if (in) {
		e->bodies[n->nbody]++;
		if (n->nbody > e->max_body)
			e->max_body = n->nbody;
		return;
	}
	e->bodies[n->nbody]--;
	while (e->max_body && !e->bodies[e->max_body])
		e->max_body--;
}

/* @n as the window's newest element. */
static void push(struct vmt_loop_encoder *e, struct node *n)
{
	count_body(e, n, e->len, true);
	e->win[e->head + e->len++] = (struct slot){
		.node = n, .hash = n->hash,
		.ext = n->count ? ext_hash(n->body[n->nbody - 1]->hash, n->nbody) : 0,
	};
	e->win_nodes += n->nnodes;
}

/* Same instructions, counts, body lengths and strides, leaf for leaf. */
static bool same_shape(const struct node *a, const struct node *b)
{
	if (a->hash != b->hash || a->count != b->count || a->nleaves != b->nleaves)
		return false;
	if (!a->count)
		return a->key == b->key;
	if (a->nbody != b->nbody ||
	    memcmp(a->stride, b->stride, a->nleaves * sizeof(*a->stride)))
		return false;
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!same_shape(a->body[i], b->body[i]))
			return false;
	return true;
}

/* Whether @a's leaves are @b's moved by @times x @stride (from @*j on). */
static bool addresses_follow(const struct node *a, const struct node *b, const uint64_t *stride,
			     uint64_t times, uint32_t *j)
{
	if (!a->count)
		return a->addr == b->addr + times * stride[(*j)++];
	for (uint32_t i = 0; i < a->nbody; i++)
		if (!addresses_follow(a->body[i], b->body[i], stride, times, j))
			return false;
	return true;
}

/* @stride[*j..]: @a's leaf addresses less @b's. */
static void fill_strides(const struct node *a, const struct node *b, uint64_t *stride,
			 uint32_t *j)
{
	if (!a->count) {
		stride[(*j)++] = a->addr - b->addr;
		return;
	}
	for (uint32_t i = 0; i < a->nbody; i++)
		fill_strides(a->body[i], b->body[i], stride, j);
}

/* Drop the window's elements from @first on. */
static void cut_window(struct vmt_loop_encoder *e, uint32_t first)
{
	for (uint32_t i = first; i < e->len; i++) {
		e->win_nodes -= elem(e, i)->nnodes;
		count_body(e, elem(e, i), i, false);
		node_free(e, elem(e, i));
	}
	e->len = first;
}

/* The last @k elements as one more iteration of loop @p just before them. */
static bool try_extend(struct vmt_loop_encoder *e, struct node *p, uint32_t k)
{
	uint32_t first = e->len - k, j = 0;

	if (p->count >= (UINT64_C(1) << 62) - 1)
		return false;
	for (uint32_t i = 0; i < k; i++)
		if (!same_shape(elem(e, first + i), p->body[i]))
			return false;
	for (uint32_t i = 0; i < k; i++)
		if (!addresses_follow(elem(e, first + i), p->body[i], p->stride, p->count, &j))
			return false;
	p->count++;
	count_hash(e, p->hash, first - 1, false);
	p->hash = mix(p->inner, p->count);
	count_hash(e, p->hash, first - 1, true);
	e->win[e->head + first - 1].hash = p->hash;
	cut_window(e, first);
	return true;
}

/* The last 2k elements as a loop of two iterations: 1, 0 when they are not, or -ENOMEM. */
static int try_new_loop(struct vmt_loop_encoder *e, uint32_t k)
{
	uint32_t first = e->len - 2 * k, nleaves = 0, nnodes = 1, depth = 0, j = 0;
	struct node *loop;

	for (uint32_t i = 0; i < k; i++) {
		const struct node *a = elem(e, first + i), *b = elem(e, first + k + i);

		if (!same_shape(a, b))
			return 0;
		nleaves += a->nleaves;
		nnodes += a->nnodes;
		depth = a->depth > depth ? a->depth : depth;
	}
	if (depth + 1 >= VMT_LOOP_MAX_DEPTH || nnodes > VMT_LOOP_MAX_NODES)
		return 0;
	loop = node_new(e);
	if (!loop)
		return -ENOMEM;
	loop->body = k <= 2 ? loop->small_body : malloc(k * sizeof(*loop->body));
	loop->stride = nleaves <= 2 ? loop->small_stride : malloc(nleaves * sizeof(*loop->stride));
	if (!loop->body || !loop->stride) {
		node_free(e, loop);
		return -ENOMEM;
	}
	loop->count = 2;
	loop->nbody = k;
	loop->nleaves = nleaves;
	loop->nnodes = nnodes;
	loop->depth = depth + 1;
	for (uint32_t i = 0; i < k; i++)
		fill_strides(elem(e, first + k + i), elem(e, first + i), loop->stride, &j);
	loop->inner = mix(0x6c6f6f70, k);
	for (uint32_t i = 0; i < k; i++)
		loop->inner = mix(loop->inner, elem(e, first + i)->hash);
	for (uint32_t i = 0; i < nleaves; i++)
		loop->inner = mix(loop->inner, loop->stride[i]);
	loop->hash = mix(loop->inner, loop->count);
	for (uint32_t i = 0; i < k; i++) {
		loop->body[i] = elem(e, first + i);
		e->win_nodes -= loop->body[i]->nnodes;
		count_body(e, loop->body[i], first + i, false);
	}
	cut_window(e, first + k);	/* the second run */
	e->len = first;			/* the first is the loop's body now */
	push(e, loop);
	return 1;
}

/* Fold the end of the window until nothing more folds: 0 or -ENOMEM. */
static int fold(struct vmt_loop_encoder *e)
{
	for (;;) {
		uint32_t n = e->len;
		const struct slot *w = e->win + e->head;
		uint64_t last;
		uint32_t same;
		bool folded = false;

		if (n < 2)
			return 0;
		last = w[n - 1].hash;
		for (uint32_t k = 1; k < n && k <= e->max_body && !folded; k++)
			if (w[n - 1 - k].ext == ext_hash(last, k) && w[n - 1 - k].node->nbody == k)
				folded = try_extend(e, w[n - 1 - k].node, k);
		/*
		 * The newest is counted: with no other of its hash, no new loop;
		 * with one other, that one's the only place to try.
		 */
		same = e->hashes[last & e->hmask];
		if (same == 2) {
			uint64_t at = e->emitted + n - 1;
			uint64_t k = at - (e->hsum[last & e->hmask] - at);

			if (k && 2 * k <= n && w[n - 1 - k].hash == last) {
				int ret = try_new_loop(e, (uint32_t)k);

				if (ret < 0)
					return ret;
				folded = ret;
			}
		}
		for (uint32_t k = 1; 2 * k <= n && !folded && same > 2; k++) {
			if (w[n - 1 - k].hash == last) {
				int ret = try_new_loop(e, k);

				if (ret < 0)
					return ret;
				folded = ret;
			}
		}
		if (!folded)
			return 0;
	}
}

static int out_flush(struct vmt_loop_encoder *e)
{
	int err;

	if (!e->out_len)
		return 0;
	err = e->sink(e->arg, e->out, e->out_len);
	if (err)
		return err;
	e->stats.bytes += e->out_len;
	e->out_len = 0;
	return 0;
}

static int out_reserve(struct vmt_loop_encoder *e, size_t n)
{
	if (e->out_len + n > e->out_cap) {
		size_t cap = e->out_cap ? 2 * e->out_cap : OUT_FLUSH + 64;
		uint8_t *out;

		while (cap < e->out_len + n)
			cap *= 2;
		out = realloc(e->out, cap);
		if (!out)
			return -ENOMEM;
		e->out = out;
		e->out_cap = cap;
	}
	return 0;
}

static void put_varint(struct vmt_loop_encoder *e, uint64_t v)
{
	while (v >= 0x80) {
		e->out[e->out_len++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	e->out[e->out_len++] = (uint8_t)v;
}

static int write_leaf(struct vmt_loop_encoder *e, uint32_t key, uint64_t addr)
{
	struct enc_key *k = &e->keys[key];
	int err = out_reserve(e, 48);

	if (err)
		return err;
	if (k->wire == UINT32_MAX) {
		k->wire = e->wire_keys++;
		put_varint(e, 2);
		put_varint(e, k->access.ip);
		e->out[e->out_len++] = k->access.access;
		put_varint(e, k->access.size);
		e->out[e->out_len++] = k->access.flags;
		e->out[e->out_len++] = k->access.kernel_mode;
		put_varint(e, k->access.cpu);
	} else {
		put_varint(e, (uint64_t)k->wire << 2);
	}
	put_varint(e, vmt_zigzag(addr - k->last));
	k->last = addr;
	return 0;
}

static int write_node(struct vmt_loop_encoder *e, const struct node *n)
{
	int err;

	if (!n->count)
		return write_leaf(e, n->key, n->addr);
	err = out_reserve(e, 24);
	if (err)
		return err;
	e->stats.loops++;
	put_varint(e, n->count << 2 | 1);
	put_varint(e, n->nbody);
	for (uint32_t i = 0; i < n->nbody; i++) {
		err = write_node(e, n->body[i]);
		if (err)
			return err;
	}
	for (uint32_t i = 0; i < n->nleaves; i++) {
		err = out_reserve(e, 10);
		if (err)
			return err;
		put_varint(e, vmt_zigzag(n->stride[i]));
	}
	return 0;
}

/*
 * Write the window's oldest element out: 0 or -errno. Two iterations of
 * one or two accesses cost more as a loop (its head, body length and
 * strides) than as literals: they are written as literals.
 */
static int emit_oldest(struct vmt_loop_encoder *e)
{
	struct node *n = elem(e, 0);
	int err = 0;

	if (n->count == 2 && n->depth == 1 && n->nleaves <= 2) {
		for (uint64_t i = 0; !err && i < 2 * n->nbody; i++) {
			uint32_t j = (uint32_t)(i % n->nbody);

			err = write_leaf(e, n->body[j]->key,
					 n->body[j]->addr + (i / n->nbody) * n->stride[j]);
		}
		e->stats.elements += 2 * n->nbody;
		e->stats.literals += 2 * n->nbody;
	} else {
		err = write_node(e, n);
		e->stats.elements++;
		e->stats.literals += !n->count;
	}
	if (err)
		return err;
	e->win_nodes -= n->nnodes;
	count_body(e, n, 0, false);
	node_free(e, n);
	e->emitted++;
	e->head++;
	e->len--;
	if (e->head >= e->window) {
		memmove(e->win, e->win + e->head, e->len * sizeof(*e->win));
		e->head = 0;
	}
	return e->out_len >= OUT_FLUSH ? out_flush(e) : 0;
}

int vmt_loop_encoder_create(struct vmt_loop_encoder **encoder, uint32_t window,
			    vmt_loop_sink_fn sink, void *arg)
{
	struct vmt_loop_encoder *e;

	*encoder = NULL;
	if (window > VMT_LOOP_WINDOW_MAX)
		return -EINVAL;
	e = calloc(1, sizeof(*e));
	if (!e)
		return -ENOMEM;
	e->window = window ? window : VMT_LOOP_WINDOW_DEFAULT;
	e->node_cap = 64ull * e->window;
	if (e->node_cap > VMT_LOOP_MAX_NODES / 2)
		e->node_cap = VMT_LOOP_MAX_NODES / 2;
	e->win = calloc(2 * (size_t)e->window + 1, sizeof(*e->win));
	e->bodies = calloc((size_t)e->window + 2, sizeof(*e->bodies));
	for (e->hmask = 63; e->hmask < 4 * (uint64_t)e->window; e->hmask = 2 * e->hmask + 1)
		;
	e->hashes = calloc(e->hmask + 1, sizeof(*e->hashes));
	e->hsum = calloc(e->hmask + 1, sizeof(*e->hsum));
	e->sink = sink;
	e->arg = arg;
	if (!e->win || !e->bodies || !e->hashes || !e->hsum) {
		free(e->win);
		free(e->bodies);
		free(e->hashes);
		free(e->hsum);
		free(e);
		return -ENOMEM;
	}
	*encoder = e;
	return 0;
}

int vmt_loop_encoder_add(struct vmt_loop_encoder *e, const struct vmt_loop_access *access)
{
	int64_t key = key_of(e, access);
	struct node *n;
	int err;

	if (key < 0)
		return (int)key;
	/* Room first: the access joins a window of at most S - 1 older elements. */
	while (e->len && (e->len >= e->window || e->win_nodes >= e->node_cap)) {
		err = emit_oldest(e);
		if (err)
			return err;
	}
	n = node_new(e);
	if (!n)
		return -ENOMEM;
	n->key = (uint32_t)key;
	n->addr = access->addr;
	n->hash = mix(0x6c656166, n->key);
	n->nleaves = n->nnodes = 1;
	push(e, n);
	e->stats.accesses++;
	return fold(e);
}

int vmt_loop_encoder_finish(struct vmt_loop_encoder *e)
{
	int err = 0;

	while (!err && e->len)
		err = emit_oldest(e);
	return err ? err : out_flush(e);
}

void vmt_loop_encoder_stats(const struct vmt_loop_encoder *e, struct vmt_loop_encoder_stats *stats)
{
	*stats = e->stats;
	stats->keys = e->nr_keys;
}

void vmt_loop_encoder_free(struct vmt_loop_encoder *e)
{
	if (!e)
		return;
	cut_window(e, 0);
	while (e->spare) {
		struct node *n = e->spare;

		e->spare = n->next_spare;
		free(n);
	}
	free(e->win);
	free(e->bodies);
	free(e->hashes);
	free(e->hsum);
	free(e->keys);
	free(e->slots);
	free(e->out);
	free(e);
}

/* ---- The decoder ------------------------------------------------------ */

#define MAX_KEYS	(1u << 24)

struct vmt_loop_decoder {
	vmt_loop_source_fn source;
	void *arg;
	uint8_t in[4096];
	size_t in_pos, in_len;
	bool eof;
	struct vmt_loop_access *keys;	/* addr: the last leaf's */
	uint32_t nr_keys;
	/* The element being replayed. */
	struct vmt_loop_op *ops;
	uint32_t nr_ops;
	struct vmt_loop_leaf *leaves;
	uint32_t nr_leaves;
	struct vmt_loop_loop *loops;
	uint32_t nr_loops;
	uint64_t keys_cap, ops_cap, leaves_cap, loops_cap;
	uint64_t *strides;		/* every loop's, in turn */
	size_t *stride_at;		/* [loop]: its first in @strides */
	size_t nr_strides;
	uint64_t strides_cap, stride_at_cap;
	uint32_t pc;
	/* A loop set's member: each instruction's first address and CPU (vmt_loop_decoder_rebase()). */
	const uint64_t *rebase_addr;
	const uint16_t *rebase_cpu;
	uint32_t rebase_keys;
	bool rebased;
	char error[160];
};

static int bad(struct vmt_loop_decoder *d, const char *what)
{
	snprintf(d->error, sizeof(d->error), "loop descriptors: %s", what);
	return -EBADMSG;
}

/* 1 with the next byte, 0 at the end, or -errno. */
static int read_byte(struct vmt_loop_decoder *d, uint8_t *b)
{
	if (d->in_pos == d->in_len) {
		int n;

		if (d->eof)
			return 0;
		n = d->source(d->arg, d->in, sizeof(d->in));
		if (n < 0) {
			snprintf(d->error, sizeof(d->error), "loop descriptors: reading: error %d", n);
			return n;
		}
		if (!n) {
			d->eof = true;
			return 0;
		}
		d->in_pos = 0;
		d->in_len = (size_t)n;
	}
	*b = d->in[d->in_pos++];
	return 1;
}

/* 1 with a varint, 0 at the end when @may_end and none begins, or -errno. */
static int read_varint(struct vmt_loop_decoder *d, uint64_t *v, bool may_end)
{
	uint64_t value = 0;

	for (unsigned int shift = 0;; shift += 7) {
		uint8_t b;
		int ret = read_byte(d, &b);

		if (ret < 0)
			return ret;
		if (!ret)
			return shift == 0 && may_end ? 0 : bad(d, "cut short");
		if (shift == 63 && b > 1)
			return bad(d, "a varint past 64 bits");
		value |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
		if (shift == 63)
			return bad(d, "a varint past 64 bits");
	}
	*v = value;
	return 1;
}

static int read_u8(struct vmt_loop_decoder *d, uint8_t *b)
{
	int ret = read_byte(d, b);

	return ret < 0 ? ret : ret ? 1 : bad(d, "cut short");
}

/* Room for one more of an array: 0 or -ENOMEM. */
static int push_op(struct vmt_loop_decoder *d, uint32_t type, uint32_t index)
{
	if (vmt_grow_array((void **)&d->ops, &d->ops_cap, (uint64_t)d->nr_ops + 1, sizeof(*d->ops)))
		return -ENOMEM;
	d->ops[d->nr_ops++] = (struct vmt_loop_op){ .type = type, .index = index };
	return 0;
}

static int read_key(struct vmt_loop_decoder *d)
{
	struct vmt_loop_access k = { 0 };
	uint64_t ip, size, cpu;
	int ret;

	if (d->nr_keys >= MAX_KEYS)
		return bad(d, "too many instructions");
	if ((ret = read_varint(d, &ip, false)) < 0 || (ret = read_u8(d, &k.access)) < 0 ||
	    (ret = read_varint(d, &size, false)) < 0 || (ret = read_u8(d, &k.flags)) < 0 ||
	    (ret = read_u8(d, &k.kernel_mode)) < 0 || (ret = read_varint(d, &cpu, false)) < 0)
		return ret;
	if (size > UINT16_MAX || cpu > UINT16_MAX)
		return bad(d, "an instruction's size or cpu past 16 bits");
	k.ip = ip;
	k.size = (uint16_t)size;
	k.cpu = (uint16_t)cpu;
	if (d->rebased) {
		if (d->nr_keys >= d->rebase_keys)
			return bad(d, "more instructions than the loop set gives");
		k.addr = d->rebase_addr[d->nr_keys];	/* the first leaf's delta adds to it */
		k.cpu = d->rebase_cpu[d->nr_keys];
	}
	if (vmt_grow_array((void **)&d->keys, &d->keys_cap, (uint64_t)d->nr_keys + 1, sizeof(*d->keys)))
		return -ENOMEM;
	d->keys[d->nr_keys++] = k;
	return 0;
}

static int read_leaf(struct vmt_loop_decoder *d, uint64_t head)
{
	uint64_t key, delta;
	int ret;

	if ((head & 3) == 2) {
		if (head != 2)
			return bad(d, "a new instruction's head is not 2");
		ret = read_key(d);
		if (ret)
			return ret;
		key = d->nr_keys - 1;
	} else {
		key = head >> 2;
		if (key >= d->nr_keys)
			return bad(d, "a leaf of an instruction not yet given");
	}
	ret = read_varint(d, &delta, false);
	if (ret < 0)
		return ret;
	d->keys[key].addr += vmt_unzigzag(delta);
	if (vmt_grow_array((void **)&d->leaves, &d->leaves_cap, (uint64_t)d->nr_leaves + 1, sizeof(*d->leaves)))
		return -ENOMEM;
	d->leaves[d->nr_leaves] = (struct vmt_loop_leaf){ .access = d->keys[key] };
	return push_op(d, VMT_LOOP_OP_LEAF, d->nr_leaves++);
}

static int read_node(struct vmt_loop_decoder *d, uint64_t head, uint32_t depth)
{
	uint64_t nbody, stride;
	uint32_t l;
	int ret;

	if ((uint64_t)d->nr_leaves + d->nr_loops >= VMT_LOOP_MAX_NODES)
		return bad(d, "an element of too many leaves and loops");
	if ((head & 3) != 1)
		return (head & 3) == 3 ? bad(d, "an element of kind 3") : read_leaf(d, head);
	if (head >> 2 < 2)
		return bad(d, "a loop of fewer than 2 iterations");
	if (depth >= VMT_LOOP_MAX_DEPTH)
		return bad(d, "loops nested too deep");
	ret = read_varint(d, &nbody, false);
	if (ret < 0)
		return ret;
	if (!nbody || nbody > VMT_LOOP_MAX_NODES)
		return bad(d, "a loop body of no element, or too many");
	if (vmt_grow_array((void **)&d->loops, &d->loops_cap, (uint64_t)d->nr_loops + 1, sizeof(*d->loops)))
		return -ENOMEM;
	l = d->nr_loops++;
	d->loops[l] = (struct vmt_loop_loop){
		.count = head >> 2, .leaf_lo = d->nr_leaves, .begin_op = d->nr_ops, .depth = depth,
	};
	ret = push_op(d, VMT_LOOP_OP_BEGIN, l);
	for (uint64_t i = 0; !ret && i < nbody; i++) {
		uint64_t h;

		ret = read_varint(d, &h, false);
		if (ret >= 0)
			ret = read_node(d, h, depth + 1);
	}
	if (ret < 0 || (ret = push_op(d, VMT_LOOP_OP_END, l)))
		return ret;
	d->loops[l].leaf_hi = d->nr_leaves;
	if (vmt_grow_array((void **)&d->stride_at, &d->stride_at_cap, (uint64_t)l + 1, sizeof(*d->stride_at)))
		return -ENOMEM;
	d->stride_at[l] = d->nr_strides;
	for (uint32_t i = d->loops[l].leaf_lo; i < d->loops[l].leaf_hi; i++) {
		ret = read_varint(d, &stride, false);
		if (ret < 0)
			return ret;
		if (vmt_grow_array((void **)&d->strides, &d->strides_cap, (uint64_t)d->nr_strides + 1, sizeof(*d->strides)))
			return -ENOMEM;
		d->strides[d->nr_strides++] = vmt_unzigzag(stride);
	}
	return 0;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
	return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

static uint64_t sat_add(uint64_t a, uint64_t b)
{
	return a + b < a ? UINT64_MAX : a + b;
}

/* Each loop's accesses, all iterations: ops walked with a stack of sums. */
static uint64_t count_accesses(struct vmt_loop_decoder *d)
{
	uint64_t sums[VMT_LOOP_MAX_DEPTH + 1] = { 0 };
	uint32_t level = 0;

	for (uint32_t i = 0; i < d->nr_ops; i++) {
		const struct vmt_loop_op *op = &d->ops[i];
		struct vmt_loop_loop *l = &d->loops[op->index];

		if (op->type == VMT_LOOP_OP_LEAF) {
			sums[level] = sat_add(sums[level], 1);
		} else if (op->type == VMT_LOOP_OP_BEGIN) {
			sums[++level] = 0;
		} else {
			l->accesses = sat_mul(sums[level--], l->count);
			sums[level] = sat_add(sums[level], l->accesses);
		}
	}
	return sums[0];
}

/* The element of @head into the program: 1, or -errno. */
static int load_element(struct vmt_loop_decoder *d, uint64_t head, uint64_t *accesses)
{
	int ret;

	d->nr_ops = d->nr_leaves = d->nr_loops = 0;
	d->nr_strides = 0;
	d->pc = 0;
	ret = read_node(d, head, 0);
	if (ret) {
		d->nr_ops = 0;
		return ret;
	}
	for (uint32_t i = 0; i < d->nr_loops; i++)
		d->loops[i].stride = d->strides + d->stride_at[i];
	for (uint32_t i = 0; i < d->nr_leaves; i++)
		d->leaves[i].cur = d->leaves[i].access.addr;
	if (accesses)
		*accesses = count_accesses(d);
	return 1;
}

int vmt_loop_decoder_create(struct vmt_loop_decoder **decoder, vmt_loop_source_fn source,
			    void *arg)
{
	struct vmt_loop_decoder *d = calloc(1, sizeof(*d));

	*decoder = d;
	if (!d)
		return -ENOMEM;
	d->source = source;
	d->arg = arg;
	return 0;
}

int vmt_loop_decoder_next(struct vmt_loop_decoder *d, struct vmt_loop_access *access)
{
	for (;;) {
		const struct vmt_loop_op *op;

		if (d->pc >= d->nr_ops) {
			uint64_t head, delta;
			int ret = read_varint(d, &head, true);

			if (ret <= 0)
				return ret;
			/*
			 * A literal of an instruction already given, the most of
			 * an irregular stretch: replayed here, without a program.
			 */
			if ((head & 3) == 0 && head >> 2 < d->nr_keys) {
				struct vmt_loop_access *k = &d->keys[head >> 2];

				ret = read_varint(d, &delta, false);
				if (ret < 0)
					return ret;
				k->addr += vmt_unzigzag(delta);
				*access = *k;
				d->nr_ops = d->pc = 0;
				return 1;
			}
			ret = load_element(d, head, NULL);
			if (ret < 0)
				return ret;
		}
		op = &d->ops[d->pc];
		if (op->type == VMT_LOOP_OP_LEAF) {
			*access = d->leaves[op->index].access;
			access->addr = d->leaves[op->index].cur;
			d->pc++;
			return 1;
		}
		if (op->type == VMT_LOOP_OP_BEGIN) {
			d->loops[op->index].iter = 0;
			d->pc++;
			continue;
		}
		struct vmt_loop_loop *l = &d->loops[op->index];

		if (++l->iter < l->count) {
			for (uint32_t j = l->leaf_lo; j < l->leaf_hi; j++)
				d->leaves[j].cur += l->stride[j - l->leaf_lo];
			d->pc = l->begin_op + 1;
		} else {
			for (uint32_t j = l->leaf_lo; j < l->leaf_hi; j++)
				d->leaves[j].cur -= (l->count - 1) * l->stride[j - l->leaf_lo];
			d->pc++;
		}
	}
}

int vmt_loop_decoder_next_element(struct vmt_loop_decoder *d, struct vmt_loop_element *element)
{
	uint64_t accesses, head;
	int ret = read_varint(d, &head, true);

	if (ret <= 0)
		return ret;
	ret = load_element(d, head, &accesses);
	if (ret < 0)
		return ret;
	d->pc = d->nr_ops;	/* not replayed */
	*element = (struct vmt_loop_element){
		.ops = d->ops, .nr_ops = d->nr_ops,
		.leaves = d->leaves, .nr_leaves = d->nr_leaves,
		.loops = d->loops, .nr_loops = d->nr_loops,
		.accesses = accesses,
	};
	return 1;
}

void vmt_loop_decoder_rebase(struct vmt_loop_decoder *d, uint32_t nr_keys, const uint64_t *addr,
			     const uint16_t *cpu)
{
	d->rebase_addr = addr;
	d->rebase_cpu = cpu;
	d->rebase_keys = nr_keys;
	d->rebased = true;
}

const char *vmt_loop_decoder_error(const struct vmt_loop_decoder *d)
{
	return d->error;
}

void vmt_loop_decoder_free(struct vmt_loop_decoder *d)
{
	if (!d)
		return;
	free(d->keys);
	free(d->ops);
	free(d->leaves);
	free(d->loops);
	free(d->strides);
	free(d->stride_at);
	free(d);
}
