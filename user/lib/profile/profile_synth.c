// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vmt_profile_synth(): a synthetic trace from a profile.
 *
 * Each thread walks its instruction graph: the pattern buffer's
 * instructions first, then, after each instruction, one of those that
 * followed it. Each instruction walks its own stride runs the same way:
 * its first address, then run after run, a run @run accesses each @stride
 * from the last (an address that leaves the instruction's span wraps
 * round inside it), or, for an instruction that indexes by its data
 * (anchored(), below), from where its kind's last run began. An access in
 * no kept run gets a line by reuse
 * distance: a distance bin as the schedule below says, a distance in it
 * drawn at random, and the
 * line at that depth of the thread's LRU stack of synthetic lines, or the
 * nearest of the instruction's span (a first touch, or a distance deeper
 * than the stack: a line of the span not yet touched); of a sweep, an
 * instruction that never stepped back in the trace (or never ahead), a
 * line not behind it.
 *
 * Which edge a walk takes is set by a schedule (pick(), below) that keeps
 * each edge's count and the stretch of the run it was taken in; the
 * threads take each slice of the trace (1/1024 of it) in the runs they
 * took it in, or, where more than 16 runs (threads at once), share it
 * as they did by smooth weighted round robin (nginx's). The seed drives
 * the draws within a reuse bin and the untouched lines.
 *
 * Outline, in file order (about 1,100 lines): smooth weighted round robin
 * (swrr()); the schedule of a node's edges (sched_*(), pick(), note()); a
 * thread's lines by a dense index (struct lines, snap()); its LRU stack of
 * lines (lru_*(): a bit a time, a 16-way tree of sums over words of bits);
 * one thread's generator (anchored(): which instructions begin a run where
 * its kind's last began; gen_init(); may_take(): a sweep's lines, not behind
 * it; random_line(), gen_next(): each
 * instruction's state what most accesses touch, struct gen_hot, and the
 * rest); the slices, and vmt_profile_synth(), which hands the writer its
 * records BATCH at a time.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile/profile_model.h"

#define LINE_SHIFT	6
#define NO_LINE		UINT64_MAX
/*
 * Depths looked at either side of a drawn one for a line of the
 * instruction's span (random_line()). 256 made a first touch of many
 * draws whose own lines lay deeper, in a stack of other instructions'
 * lines: xz's buffer reads, 263 lines in a run of 1.4 M accesses that the
 * trace never touched so, and L2 2.4 to 3.2 points high on average.
 */
#define SPAN_LOOK	65536
#define NEW_LINE_TRIES	65536	/* lines looked at for an untouched one */
#define ANCHOR_KINDS	32	/* anchored(): kinds of runs, as many as profile keeps by default */
#define ANCHOR_FOLLOWED	4	/* anchored(): kinds that follow one kind, at least */
#define ANCHOR_SPREAD	8.0	/* anchored(): kinds that follow a kind in effect, at most */

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* ---- Smooth weighted round robin ---- */

/* The edge taken from @e, whose running weights are @cur; -1 with no edge. */
static int64_t swrr(const struct pm_edges *e, int64_t *cur)
{
	int64_t total = 0;
	uint32_t best = 0;

	if (!e->n)
		return -1;
	for (uint32_t i = 0; i < e->n; i++) {
		cur[i] += (int64_t)e->e[i].count;
		total += (int64_t)e->e[i].count;
		if (cur[i] > cur[best])
			best = i;
	}
	cur[best] -= total;
	return e->e[best].to;
}

/* ---- The schedule of a node's edges ---- */

/*
 * The edge taken the next time a node is left: the one due soonest, an
 * edge being due count times, its takings spread evenly from the visit of
 * its first to that of its last (at @scale, the synthetic trace's length
 * over the original's, as many more times and visits), the rarer first
 * when two are due at once. So an edge taken once at the end is taken at
 * the end; a loop's exit, taken every 64th visit, is taken every 64th
 * visit while its body takes the rest; a sweep's jump back comes at its
 * visit: trip counts, periods and phases survive, where a walk drawn at
 * random (or a round robin blind to time) would make them geometric.
 */
/*
 * A node's schedule, for a node of more than one edge: each edge's
 * takings and due visit (a taking moves only its own edge's, so the
 * others are not worked out again); for one of more than HEAP_MIN edges
 * (a reuse histogram's bins, a call's returns), also a binary heap of the
 * edges by (due, count, index), the order pick() takes them in. A taking
 * moves its edge's due only later: the soonest is the top again after one
 * sift down, where a scan looks at every edge every time.
 */
#define HEAP_MIN	8

struct sched {
	int64_t *taken;		/* NULL (and the rest): one edge or none */
	double *due;
	uint32_t *heap, *pos;	/* the heap's edges; each edge's place in it; NULL: pick() scans */
};

/* Edge @d's next taking (it was taken @taken times), in the original's units, and the visit it is due at. */
static double due_of(const struct pm_edge *d, int64_t taken, double scale)
{
	/* At scale 1 (the default) the divide and the multiply change nothing: skipped. */
	double j = scale == 1.0 ? (double)taken : (double)taken / scale, due;

	if (j >= (double)d->count)
		due = HUGE_VAL;	/* all taken: only if every edge is */
	else if (d->count == 1)
		due = (double)d->first;
	else
		due = (double)d->first + j * (double)(d->last - d->first) / (double)(d->count - 1);
	return scale == 1.0 ? due : due * scale;
}

/* Edge @a before edge @b: due sooner, or as soon and rarer, or as rare and first. */
static bool sched_before(const struct pm_edges *e, const struct sched *s, uint32_t a, uint32_t b)
{
	if (s->due[a] != s->due[b])
		return s->due[a] < s->due[b];
	if (e->e[a].count != e->e[b].count)
		return e->e[a].count < e->e[b].count;
	return a < b;
}

static void sift_down(const struct pm_edges *e, struct sched *s, uint32_t at)
{
	uint32_t x = s->heap[at];

	for (;;) {
		uint32_t c = 2 * at + 1;

		if (c >= e->n)
			break;
		if (c + 1 < e->n && sched_before(e, s, s->heap[c + 1], s->heap[c]))
			c++;
		if (!sched_before(e, s, s->heap[c], x))
			break;
		s->heap[at] = s->heap[c];
		s->pos[s->heap[at]] = at;
		at = c;
	}
	s->heap[at] = x;
	s->pos[x] = at;
}

/* The bytes of a schedule of @e: its arrays, carved from the generator's one block. */
static size_t sched_size(const struct pm_edges *e)
{
	size_t n = e->n, z = 0;

	if (n > 1)
		z += n * (sizeof(int64_t) + sizeof(double));
	if (n > HEAP_MIN)
		z += (2 * n * sizeof(uint32_t) + 7) & ~(size_t)7;
	return z;
}

/* A schedule of @e, its arrays carved from *@mem (zeroed, sched_size()) on. */
static void sched_init(struct sched *s, const struct pm_edges *e, double scale, uint8_t **mem)
{
	uint8_t *p = *mem;

	*mem += sched_size(e);
	memset(s, 0, sizeof(*s));
	if (e->n <= 1)
		return;
	s->taken = (int64_t *)p;
	p += e->n * sizeof(*s->taken);
	s->due = (double *)p;
	p += e->n * sizeof(*s->due);
	for (uint32_t i = 0; i < e->n; i++)
		s->due[i] = due_of(&e->e[i], 0, scale);
	if (e->n <= HEAP_MIN)
		return;
	s->heap = (uint32_t *)p;
	s->pos = s->heap + e->n;
	for (uint32_t i = 0; i < e->n; i++) {
		s->heap[i] = i;
		s->pos[i] = i;
	}
	for (uint32_t i = e->n / 2; i--;)
		sift_down(e, s, i);
}

/*
 * Edge @i of @e taken: counted, and its due (and place in the heap) moved
 * to its next. Of a node of one edge, whose schedule has nothing to choose,
 * nothing is kept.
 */
static void sched_take(const struct pm_edges *e, struct sched *s, uint32_t i, double scale)
{
	if (!s->due)
		return;
	s->taken[i]++;
	s->due[i] = due_of(&e->e[i], s->taken[i], scale);
	if (s->heap)
		sift_down(e, s, s->pos[i]);
}

static int64_t pick(const struct pm_edges *e, struct sched *s, double scale)
{
	double best_due = 0;
	int64_t best = -1;

	if (!e->n)
		return -1;
	if (e->n == 1)	/* one way on: a loop's body, a straight line */
		return e->e[0].to;
	if (s->heap) {
		best = s->heap[0];
	} else {
		for (uint32_t i = 0; i < e->n; i++) {
			double due = s->due[i];

			if (best < 0 || due < best_due ||
			    (due == best_due && e->e[i].count < e->e[best].count)) {
				best = i;
				best_due = due;
			}
		}
	}
	sched_take(e, s, (uint32_t)best, scale);
	return e->e[best].to;
}

/* The edge to @to was taken from outside the schedule (the pattern buffer's walk): count it. */
static void note(const struct pm_edges *e, struct sched *s, uint32_t to, double scale)
{
	for (uint32_t i = 0; s->due && i < e->n; i++) {
		if (e->e[i].to == to) {
			sched_take(e, s, i, scale);
			return;
		}
	}
}

/* ---- The thread's lines, by a dense index ---- */

/*
 * The synthetic trace touches only the lines of the thread's spans (snap()
 * moves any other address to the nearest of them), so a line is known by
 * its place among them: span k's lines are numbered from at[k] on. Arrays
 * indexed so replace a hash map's lookups.
 */
struct lines {
	const struct pm_thread *t;
	uint64_t *at;		/* span -> the index of its first line; [nspans]: all the lines */
};

static int lines_init(struct lines *x, const struct pm_thread *t)
{
	uint64_t n = 0;

	x->t = t;
	x->at = malloc(((size_t)t->nspans + 1) * sizeof(*x->at));
	if (!x->at)
		return -ENOMEM;
	for (uint32_t k = 0; k < t->nspans; k++) {
		x->at[k] = n;
		n += t->spans[k].n;
	}
	x->at[t->nspans] = n;
	return 0;
}

/* The span of @line, or, where it is in none, the first past it (nspans: none is). */
static uint32_t span_of(const struct pm_thread *t, uint64_t line)
{
	uint32_t lo = 0, hi = t->nspans;

	/* The first span that ends past the line. */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->spans[mid].lo + t->spans[mid].n <= line)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The line of index @i, and its span in *@span. */
static uint64_t line_of(const struct lines *x, uint64_t i, uint32_t *span)
{
	uint32_t lo = 0, hi = x->t->nspans - 1;

	/* The last span that starts at or before the index. */
	while (lo < hi) {
		uint32_t mid = hi - (hi - lo) / 2;

		if (x->at[mid] <= i)
			lo = mid;
		else
			hi = mid - 1;
	}
	*span = lo;
	return x->t->spans[lo].lo + (i - x->at[lo]);
}

/*
 * @addr's line, or the nearest line the thread touched (the same offset in
 * it): the address, its line's index in *@i. *@span: the span to try first
 * (a run stays in one), then the line's.
 */
static uint64_t snap(const struct lines *x, uint64_t addr, uint32_t *span, uint64_t *i)
{
	const struct pm_thread *t = x->t;
	uint64_t line = addr >> LINE_SHIFT, off = addr & ((1 << LINE_SHIFT) - 1), to;
	uint32_t lo = *span;

	if (lo >= t->nspans || line < t->spans[lo].lo || line - t->spans[lo].lo >= t->spans[lo].n)
		lo = span_of(t, line);
	if (lo < t->nspans && t->spans[lo].lo <= line) {
		to = line;
	} else if (lo == t->nspans) {
		lo--;
		to = t->spans[lo].lo + t->spans[lo].n - 1;
	} else if (!lo || t->spans[lo].lo - line <= line - (t->spans[lo - 1].lo + t->spans[lo - 1].n - 1)) {
		to = t->spans[lo].lo;
	} else {
		lo--;
		to = t->spans[lo].lo + t->spans[lo].n - 1;
	}
	*span = lo;
	*i = x->at[lo] + (to - t->spans[lo].lo);
	return to == line ? addr : to << LINE_SHIFT | off;
}

/* ---- The thread's LRU stack of lines, by depth ---- */

/*
 * A bit at each line's last access time (in words of 64 times) and, over
 * the words' counts, a tree of 16-way nodes, each holding its children's
 * counts summed up to each child (so the child a rank falls in is the
 * number of sums below it: 16 compares at once, no chain of loads); the
 * line at depth d is the one whose time has (lines - d) bits up to it: the
 * tree finds its word, the word's bits the time. A binary (Fenwick) tree
 * took 10 to 12 dependent loads a look for the same, a third of a pointer
 * chase's synthesis. When time reaches the end the live times are
 * renumbered 1..lines and it restarts at twice that: memory grows with the
 * lines, not the accesses (analysis/stack_distance.c does the same, a bit
 * a time). Lines are their indices (struct lines). An access sets and
 * clears bits only, and lists the words it changed; the tree takes their
 * counts when next asked (lru_time_at()): a loop's accesses change the
 * same few words between two draws.
 */
#define NO_INDEX	UINT32_MAX
#define FAN_SHIFT	4
#define FAN		(1u << FAN_SHIFT)	/* a node's children */
#define MAX_LEVELS	8			/* 16^8 words: more than 2^32 times */

struct lru {
	uint32_t *time_of;		/* line -> its last time, 0: never touched */
	uint32_t *line_at;		/* time -> its line, or NO_INDEX */
	uint64_t *live;			/* bit t % 64 of word t / 64: time t is a line's last */
	uint32_t *sums[MAX_LEVELS];	/* level k's nodes: FAN sums each, over 16^(k+1) words */
	uint8_t *held;			/* each word's count in the tree, CHANGED: listed */
	uint32_t *changed;		/* the words changed since the tree took their counts */
	uint32_t nchanged;
	uint32_t cap, words, levels, now, lines;
};

#define CHANGED		0x80

/* Word @w's count changed by @delta (unsigned: -1 wraps to a decrement): each level's node. */
static void tree_add(struct lru *l, uint32_t w, uint32_t delta)
{
	for (uint32_t k = 0; k < l->levels; k++, w >>= FAN_SHIFT) {
		uint32_t *node = l->sums[k] + (w & ~(FAN - 1)), from = w & (FAN - 1);

		/* The sums from the child on: a fixed 16, which the compiler makes vector adds. */
		for (uint32_t j = 0; j < FAN; j++)
			node[j] += j >= from ? delta : 0;
	}
}

/* The bits of each byte of @x counted, the count of bytes 0..i in byte i. */
static uint64_t byte_counts_upto(uint64_t x)
{
	x -= (x >> 1) & 0x5555555555555555ULL;
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return x * 0x0101010101010101ULL;
}

#define BYTES_OF(b)	((b) * 0x0101010101010101ULL)	/* @b in every byte */
#define HIGH_BITS	BYTES_OF(0x80ULL)

/* The first byte of @upto (counts, each under 128) that is @k or more. */
static unsigned int first_reaching(uint64_t upto, uint32_t k)
{
	/* A byte's high bit stays set, k taken from it, where it is k or more (no borrows). */
	return (unsigned int)__builtin_ctzll(((upto | HIGH_BITS) - BYTES_OF((uint64_t)k)) &
					     HIGH_BITS) / 8;
}

/* The place of the @k-th set bit (from 1, from the lowest) of @x, which has k or more. */
static unsigned int select_bit(uint64_t x, uint32_t k)
{
	uint64_t upto = byte_counts_upto(x), bits, ones;
	unsigned int byte = first_reaching(upto, k), below;

	below = byte ? (unsigned int)(upto >> (8 * byte - 8)) & 0xff : 0;
	/* That byte's bits one a byte (byte i: bit i, as 0 or 1), and the same again. */
	bits = BYTES_OF((x >> (8 * byte)) & 0xff) & 0x8040201008040201ULL;
	ones = ((bits + BYTES_OF(0x7fULL)) & HIGH_BITS) >> 7;
	return 8 * byte + first_reaching(ones * BYTES_OF(1ULL), k - below);
}

static void lru_free_tree(struct lru *l)
{
	for (uint32_t k = 0; k < MAX_LEVELS; k++) {
		free(l->sums[k]);
		l->sums[k] = NULL;
	}
}

static int lru_resize(struct lru *l, uint32_t cap)
{
	uint32_t words = cap / 64 + 1, levels = 0;
	uint32_t *line_at = malloc(((size_t)cap + 1) * sizeof(*line_at));
	uint64_t *live = calloc(words, sizeof(*live));
	uint32_t *sums[MAX_LEVELS] = { NULL };
	uint8_t *held = malloc(words);
	uint32_t *changed = malloc(words * sizeof(*changed));
	uint32_t t = 0;
	bool ok = line_at && live && held && changed;

	/* Levels up to a single node; each node's FAN sums, the last node's padded. */
	for (uint32_t n = words; ok && (levels == 0 || n > 1); levels++) {
		n = (n + FAN - 1) / FAN;
		sums[levels] = calloc((size_t)n * FAN, sizeof(uint32_t));
		ok = sums[levels] != NULL;
	}
	if (!ok) {
		free(line_at);
		free(live);
		free(held);
		free(changed);
		for (uint32_t k = 0; k < levels; k++)
			free(sums[k]);
		return -ENOMEM;
	}
	for (uint32_t old = 1; old <= l->now; old++) {
		if (l->line_at[old] == NO_INDEX)
			continue;
		line_at[++t] = l->line_at[old];
		l->time_of[line_at[t]] = t;
		live[t / 64] |= 1ULL << (t % 64);
	}
	for (uint32_t i = t + 1; i <= cap; i++)
		line_at[i] = NO_INDEX;
	free(l->line_at);
	free(l->live);
	lru_free_tree(l);
	free(l->held);
	free(l->changed);
	l->line_at = line_at;
	l->live = live;
	memcpy(l->sums, sums, sizeof(sums));
	l->held = held;
	l->changed = changed;
	l->nchanged = 0;
	l->cap = cap;
	l->words = words;
	l->levels = levels;
	l->now = t;
	/*
	 * Linear build: each level's totals (a node's last sum) are the next
	 * level's counts, summed up in its nodes in turn.
	 */
	for (uint32_t w = 0, c; w < words; w++) {
		held[w] = c = (uint8_t)(byte_counts_upto(live[w]) >> 56);
		sums[0][w] = c + (w % FAN ? sums[0][w - 1] : 0);
	}
	for (uint32_t k = 0, n = words; k < levels; k++) {
		uint32_t nodes = (n + FAN - 1) / FAN;

		for (uint32_t i = n; i < nodes * FAN; i++)	/* the padding: as the last sum */
			sums[k][i] = sums[k][i - 1] * (i % FAN != 0);
		for (uint32_t i = 0; k + 1 < levels && i < nodes; i++)
			sums[k + 1][i] = sums[k][i * FAN + FAN - 1] + (i % FAN ? sums[k + 1][i - 1] : 0);
		n = nodes;
	}
	return 0;
}

/* A stack for lines indexed below @nlines: -EFBIG when they are too many to index. */
static int lru_init(struct lru *l, uint64_t nlines)
{
	memset(l, 0, sizeof(*l));
	if (nlines >= NO_INDEX)
		return -EFBIG;
	l->time_of = calloc(nlines, sizeof(*l->time_of));
	if (!l->time_of)
		return -ENOMEM;
	return lru_resize(l, 1024);
}

static void lru_free(struct lru *l)
{
	free(l->time_of);
	free(l->line_at);
	free(l->live);
	lru_free_tree(l);
	free(l->held);
	free(l->changed);
}

/* Word @w's bits changed: listed, once, for the tree. */
static void lru_changed(struct lru *l, uint32_t w)
{
	if (!(l->held[w] & CHANGED)) {
		l->held[w] |= CHANGED;
		l->changed[l->nchanged++] = w;
	}
}

/* The changed words' counts into the tree. */
static void lru_sync(struct lru *l)
{
	for (uint32_t k = 0; k < l->nchanged; k++) {
		uint32_t w = l->changed[k];
		uint8_t n = (uint8_t)(byte_counts_upto(l->live[w]) >> 56);

		if (n != (l->held[w] & ~CHANGED))
			tree_add(l, w, (uint32_t)n - (l->held[w] & ~CHANGED));
		l->held[w] = n;
	}
	l->nchanged = 0;
}

static int lru_touch(struct lru *l, uint32_t line)
{
	uint32_t *t = &l->time_of[line];

	if (l->now == l->cap) {
		if (lru_resize(l, l->lines * 2 + 1024 > l->cap ? l->lines * 2 + 1024 : l->cap))
			return -ENOMEM;
	}
	if (!*t) {
		l->lines++;
	} else {
		l->live[*t / 64] &= ~(1ULL << (*t % 64));
		lru_changed(l, *t / 64);
		l->line_at[*t] = NO_INDEX;
	}
	*t = ++l->now;
	l->line_at[l->now] = line;
	l->live[l->now / 64] |= 1ULL << (l->now % 64);
	lru_changed(l, l->now / 64);
	return 0;
}

/* The time of the line at depth @d (0: the last touched), d < lines. */
static uint32_t lru_time_at(struct lru *l, uint64_t d)
{
	uint32_t want = l->lines - (uint32_t)d, pos = 0;

	if (l->nchanged)
		lru_sync(l);
	/* From the root down: the child the want-th live time is in, the sums before it taken. */
	for (uint32_t k = l->levels; k--;) {
		const uint32_t *node = l->sums[k] + pos * FAN;
		uint32_t j = 0;

		for (uint32_t i = 0; i < FAN; i++)
			j += node[i] < want;
		want -= j ? node[j - 1] : 0;
		pos = pos * FAN + j;
	}
	return pos * 64 + select_bit(l->live[pos], want);
}

static uint32_t lru_at(struct lru *l, uint64_t d)
{
	return l->line_at[lru_time_at(l, d)];
}

#define NEAR_WORDS	4	/* words looked at for the next live time before the tree is asked */

/* The time of the line at depth @d, the next deeper than the one at time @t. */
static uint32_t lru_time_below(struct lru *l, uint32_t t, uint64_t d)
{
	uint32_t w = t / 64;
	uint64_t bits = l->live[w] & ((1ULL << (t % 64)) - 1);

	for (uint32_t i = 0; !bits && i < NEAR_WORDS && w; i++)
		bits = l->live[--w];
	return bits ? w * 64 + 63 - (uint32_t)__builtin_clzll(bits) : lru_time_at(l, d);
}

/* The time of the line at depth @d, the next shallower than the one at time @t. */
static uint32_t lru_time_above(struct lru *l, uint32_t t, uint64_t d)
{
	uint32_t w = t / 64;
	uint64_t bits = l->live[w] & ~((2ULL << (t % 64)) - 1);

	for (uint32_t i = 0; !bits && i < NEAR_WORDS && w + 1 < l->words; i++)
		bits = l->live[++w];
	return bits ? w * 64 + (uint32_t)__builtin_ctzll(bits) : lru_time_at(l, d);
}

/* ---- One thread's generator ---- */

/*
 * An instruction's state: what most of its accesses read and write (a run
 * goes on, the next instruction is the one that always follows), in a
 * cache line of its own; the rest apart.
 */
struct gen_hot {
	uint64_t addr;
	uint64_t lo, hi;		/* its span, pm_insn's */
	int64_t stride;			/* the current run's */
	uint64_t ip;
	uint32_t left;			/* accesses left in the run */
	uint32_t span;			/* the span of its last line */
	uint32_t next;			/* the instruction that always follows it, or PM_NONE */
	uint16_t size;
	uint8_t started;
	uint8_t kind;			/* its accesses' one kind, or MIXED (mixed_kind()) */
} __attribute__((aligned(64)));

#define MIXED	0xff

struct gen_insn {
	uint32_t token;		/* the current run's token; PM_NONE: before the second access */
	struct sched *tok_cur;	/* each token's edges' schedule; [ntokens]: random's */
	struct sched next_cur;
	int64_t kind_cur[3];
	struct sched reuse_taken;	/* the reuse edges' schedule */
	uint64_t *tok_start;	/* anchored(): each kind's last run's first address, 0: none */
	uint64_t lines_lo, lines_hi;	/* the indices of the lines in [lo, hi]: [lines_lo, lines_hi) */
	int8_t dir;		/* +1: it never stepped back in the trace, -1: never ahead, else 0 */
};

struct gen {
	const struct pm_thread *t;
	struct gen_hot *hot;
	struct gen_insn *g;
	uint8_t *block;		/* the schedules' arrays */
	struct lines lines;
	struct lru lru;
	uint64_t rng, emitted;
	double scale;		/* the synthetic trace's length over the original's */
	bool reuse;		/* some access is drawn by reuse distance: keep the LRU stack */
	uint32_t cur;		/* the last instruction; PM_NONE before the first */
};

/* The lines of @t's spans below @line: the index of @line, or of the first past it. */
static uint64_t lines_below(const struct lines *x, uint64_t line)
{
	const struct pm_thread *t = x->t;
	uint32_t k = span_of(t, line);

	if (k < t->nspans && t->spans[k].lo <= line)
		return x->at[k] + (line - t->spans[k].lo);
	return x->at[k];
}

/*
 * Whether @in's runs begin where their kind's last run began rather than a
 * stride from its last access. A loop nest's runs follow each other in an
 * order the schedule replays exactly (a stencil's run is followed by 3
 * kinds at most: the next row, the next plane, the end), so strides from
 * the last address put every run where it was. An instruction that indexes
 * by its data (a probability tree, a match finder) has more kinds of runs
 * than the builder keeps, one followed by 4 kinds or more, and they come in
 * another order in the synthetic trace: a stride from where the last run
 * ended walks off at random, a drift that grows with the runs, onto lines
 * the instruction never touched (xz's L2 hit rates 5 to 7 points high).
 * Its runs mostly begin where their kind's last one did (the same node, the
 * same window), and from there they stay on its lines. But not where any
 * kind follows any other (a hash table's random buckets): there a kind
 * says nothing of where its run begins, and anchoring each kind at one
 * place would make a few lines of many. Hence the third condition: the
 * kinds that follow a kind, counted in effect (1 / the sum of their shares
 * squared, weighted by the kind's runs), at most 8 of the 32. And not a
 * sweep: an instruction whose kinds all step one way (xz's input, read
 * ahead in steps of 4 to 28 bytes) moves on, a run beginning where the
 * last one ended; anchored, it would stay on a few lines of its hundreds.
 * docs/analysis/profile.md has the programs it was measured on.
 */
static bool anchored(const struct pm_insn *in)
{
	double spread = 0, runs = 0;
	bool down = false, up = false;
	uint32_t most = 0;

	if (in->ntokens < ANCHOR_KINDS)
		return false;
	for (uint32_t k = 0; k < in->ntokens; k++) {
		const struct pm_edges *e = &in->tokens[k].next;
		double total = 0, squares = 0;

		down |= in->tokens[k].stride < 0;
		up |= in->tokens[k].stride > 0;
		most = e->n > most ? e->n : most;
		for (uint32_t j = 0; j < e->n; j++) {
			total += (double)e->e[j].count;
			squares += (double)e->e[j].count * (double)e->e[j].count;
		}
		if (total > 0) {
			spread += total * total / squares * total;
			runs += total;
		}
	}
	return down && up && most >= ANCHOR_FOLLOWED && runs > 0 && spread <= ANCHOR_SPREAD * runs;
}

static int gen_init(struct gen *gn, const struct pm_thread *t, uint64_t seed, double scale)
{
	size_t size = 0;
	uint8_t *mem;
	int ret;

	memset(gn, 0, sizeof(*gn));
	gn->t = t;
	gn->scale = scale;
	gn->cur = PM_NONE;
	gn->rng = seed ^ ((uint64_t)t->tid * 0xd1342543de82ef95ULL);
	gn->g = calloc(t->ninsns, sizeof(*gn->g));
	gn->hot = aligned_alloc(sizeof(*gn->hot), t->ninsns * sizeof(*gn->hot));
	if (!gn->g || !gn->hot || lines_init(&gn->lines, t))
		return -ENOMEM;
	ret = lru_init(&gn->lru, gn->lines.at[t->nspans]);
	if (ret)
		return ret;
	/* Every schedule in one block, each instruction's together. */
	for (uint32_t i = 0; i < t->ninsns; i++) {
		const struct pm_insn *in = &t->insns[i];

		size += ((size_t)in->ntokens + 1) * sizeof(struct sched) + sched_size(&in->next) +
			sched_size(&in->random_next) + sched_size(&in->reuse);
		for (uint32_t k = 0; k < in->ntokens; k++)
			size += sched_size(&in->tokens[k].next);
	}
	gn->block = calloc(1, size);
	if (!gn->block)
		return -ENOMEM;
	mem = gn->block;
	for (uint32_t i = 0; i < t->ninsns; i++) {
		const struct pm_insn *in = &t->insns[i];
		struct gen_insn *g = &gn->g[i];
		struct gen_hot *h = &gn->hot[i];

		memset(h, 0, sizeof(*h));
		if (anchored(in) && !(g->tok_start = calloc(in->ntokens, sizeof(*g->tok_start))))
			return -ENOMEM;
		h->lo = in->lo;
		h->hi = in->hi;
		h->ip = in->ip;
		h->size = (uint16_t)in->size;
		h->next = in->next.n == 1 ? in->next.e[0].to : PM_NONE;
		h->kind = in->reads == in->count ? VMT_ACCESS_READ :
			  in->writes == in->count ? VMT_ACCESS_WRITE :
			  in->rmws == in->count ? VMT_ACCESS_RMW : MIXED;
		g->token = PM_NONE;
		g->dir = !in->back && in->ahead ? 1 : !in->ahead && in->back ? -1 : 0;
		g->lines_lo = lines_below(&gn->lines, in->lo >> LINE_SHIFT);
		g->lines_hi = lines_below(&gn->lines, (in->hi >> LINE_SHIFT) + 1);
		g->tok_cur = (struct sched *)mem;
		mem += ((size_t)in->ntokens + 1) * sizeof(struct sched);
		sched_init(&g->next_cur, &in->next, scale, &mem);
		for (uint32_t k = 0; k <= in->ntokens; k++)
			sched_init(&g->tok_cur[k], k < in->ntokens ? &in->tokens[k].next :
				   &in->random_next, scale, &mem);
		gn->reuse |= in->reuse.n > 0;
		sched_init(&g->reuse_taken, &in->reuse, scale, &mem);
	}
	return 0;
}

static void gen_free(struct gen *gn)
{
	for (uint32_t i = 0; gn->g && i < gn->t->ninsns; i++)
		free(gn->g[i].tok_start);
	free(gn->g);
	free(gn->hot);
	free(gn->block);
	free(gn->lines.at);
	lru_free(&gn->lru);
}

/* Whether line @i is in @g's instruction's span. */
static bool in_span(const struct gen_insn *g, uint32_t i)
{
	return i >= g->lines_lo && i < g->lines_hi;
}

/* Whether line @i may take an access of @g's instruction, now at line @at: in its span, not behind a sweep. */
static bool may_take(const struct gen_insn *g, uint32_t i, uint64_t at)
{
	return in_span(g, i) && (g->dir > 0 ? i >= at : g->dir < 0 ? i <= at : true);
}

/*
 * A line for an access of @in in no kept run, by its reuse distances; its
 * span in *@hint. @addr: the instruction's last address.
 */
static uint64_t random_line(struct gen *gn, const struct pm_insn *in, struct gen_insn *g,
			    uint64_t addr, uint32_t *hint)
{
	uint64_t first = in->lo >> LINE_SHIFT;
	uint64_t d = UINT64_MAX, at = g->dir ? lines_below(&gn->lines, addr >> LINE_SHIFT) : 0;

	int64_t bin = pick(&in->reuse, &g->reuse_taken, gn->scale);

	/* The distance bin the schedule says, a distance in it at random. */
	if (bin >= 0 && bin < PM_REUSE_COLD) {
		uint64_t lo, hi;

		pm_reuse_range((unsigned int)bin, &lo, &hi);
		d = lo + splitmix(&gn->rng) % (hi - lo + 1);
	}
	/*
	 * The line at that depth, or the nearest above or below it in the
	 * instruction's span: an access in no run falls in the span, and the
	 * stack holds other instructions' lines too. Of a sweep (gen_insn's
	 * dir), a line not behind it: xz's input is read by two instructions
	 * that never step back, their every L1 miss a first touch; drawn
	 * among the lines other instructions read again behind them, they
	 * went back 280 and 92 times and missed L1 on old lines.
	 */
	if (d != UINT64_MAX) {
		struct lru *l = &gn->lru;
		uint32_t deeper = 0, shallower = 0;	/* the times of the last looked at */

		/*
		 * d, then d + j and d - j for j = 1, 2 ... (d + SPAN_LOOK
		 * deepest, d - SPAN_LOOK + 1 shallowest): the nearest first,
		 * each the next live time from the last on its side.
		 */
		if (d < l->lines) {
			deeper = shallower = lru_time_at(l, d);
			if (may_take(g, l->line_at[deeper], at))
				return line_of(&gn->lines, l->line_at[deeper], hint);
		}
		for (uint64_t j = 1; j <= SPAN_LOOK && (d + j < l->lines || j <= d); j++) {
			if (d + j < l->lines) {
				deeper = lru_time_below(l, deeper, d + j);
				if (may_take(g, l->line_at[deeper], at))
					return line_of(&gn->lines, l->line_at[deeper], hint);
			}
			if (j < SPAN_LOOK && j <= d && d - j < l->lines) {
				shallower = shallower ? lru_time_above(l, shallower, d - j) :
					    lru_time_at(l, d - j);
				if (may_take(g, l->line_at[shallower], at))
					return line_of(&gn->lines, l->line_at[shallower], hint);
			}
		}
	}
	/*
	 * A first touch: a line of the span no access has touched yet, the
	 * first free one from a random line on (so that a span that fills up,
	 * as a chase's first round fills its nodes, still finds its last ones),
	 * of the lines the thread touched (which snap() keeps as they are): by
	 * their dense index, so that a span with holes (an instruction that
	 * reaches both the heap and the stack) finds them, not the holes. A
	 * sweep's: the first from its line on, its way.
	 */
	if (g->lines_hi > g->lines_lo) {
		const uint32_t *time_of = gn->lru.time_of;
		uint64_t n = g->lines_hi - g->lines_lo, i;

		if (g->dir)
			i = at < g->lines_lo ? g->lines_lo : at >= g->lines_hi ? g->lines_hi - 1 : at;
		else
			i = g->lines_lo + splitmix(&gn->rng) % n;
		for (uint64_t k = n < NEW_LINE_TRIES ? n : NEW_LINE_TRIES; k--;) {
			if (!time_of[i])
				return line_of(&gn->lines, i, hint);
			if (g->dir < 0)
				i = i == g->lines_lo ? g->lines_hi - 1 : i - 1;
			else if (++i == g->lines_hi)
				i = g->lines_lo;
		}
	}
	if (!gn->lru.lines)
		return first;
	return line_of(&gn->lines, lru_at(&gn->lru, gn->lru.lines - 1), hint);
}

/* @addr moved by @stride, wrapped round into [lo, hi]. */
static uint64_t step(const struct gen_hot *h, uint64_t addr, int64_t stride)
{
	uint64_t span = h->hi - h->lo + 1, a = addr + (uint64_t)stride;

	if (a >= h->lo && a <= h->hi)
		return a;
	if (stride >= 0)
		return h->lo + (a - h->lo) % span;
	return h->hi - (h->hi - a) % span;
}

/*
 * The kinds of @in's accesses in its proportions, by smooth weighted round
 * robin (of one kind, always that kind: gen_hot.kind).
 */
static uint8_t mixed_kind(const struct pm_insn *in, struct gen_insn *g)
{
	int64_t w[3] = { (int64_t)in->reads, (int64_t)in->writes, (int64_t)in->rmws };
	static const uint8_t kinds[3] = { VMT_ACCESS_READ, VMT_ACCESS_WRITE, VMT_ACCESS_RMW };
	int best = 0;

	for (int j = 0; j < 3; j++) {
		g->kind_cur[j] += w[j];
		if (g->kind_cur[j] > g->kind_cur[best])
			best = j;
	}
	g->kind_cur[best] -= (int64_t)in->count;
	return kinds[best];
}

/* The instruction after the last one. */
static uint32_t next_insn(struct gen *gn)
{
	const struct pm_thread *t = gn->t;
	uint32_t i;
	int64_t k;

	if (gn->emitted < t->npattern) {
		i = t->pattern[gn->emitted];
		if (gn->cur != PM_NONE)
			note(&t->insns[gn->cur].next, &gn->g[gn->cur].next_cur, i, gn->scale);
		return i;
	}
	if (gn->cur != PM_NONE && gn->hot[gn->cur].next != PM_NONE)
		return gn->hot[gn->cur].next;
	k = gn->cur == PM_NONE ? -1 :
	    pick(&t->insns[gn->cur].next, &gn->g[gn->cur].next_cur, gn->scale);
	return k < 0 ? (t->npattern ? t->pattern[0] : 0) : (uint32_t)k;
}

/* A run of instruction @i's over: the next one's first address, or one drawn by reuse distance. */
static void next_run(struct gen *gn, uint32_t i)
{
	const struct pm_insn *in = &gn->t->insns[i];
	struct gen_insn *g = &gn->g[i];
	struct gen_hot *h = &gn->hot[i];
	int64_t k = -1;

	if (g->token != PM_NONE)
		k = pick(g->token < in->ntokens ? &in->tokens[g->token].next :
			 &in->random_next, &g->tok_cur[g->token], gn->scale);
	if (k < 0)
		k = in->first_token == PM_NONE ? in->ntokens : in->first_token;
	g->token = (uint32_t)k;
	if (g->token < in->ntokens) {
		h->stride = in->tokens[g->token].stride;
		if (g->tok_start && g->tok_start[g->token])
			h->addr = g->tok_start[g->token];
		else
			h->addr = step(h, h->addr, h->stride);
		if (g->tok_start)
			g->tok_start[g->token] = h->addr;
		h->left = in->tokens[g->token].run - 1;
	} else {
		h->addr = random_line(gn, in, g, h->addr, &h->span) << LINE_SHIFT |
			  (in->first & ((1 << LINE_SHIFT) - 1));
	}
}

/* The next access of thread @gn into @r. */
static int gen_next(struct gen *gn, struct vmt_record *r)
{
	uint32_t i = next_insn(gn);
	struct gen_hot *h = &gn->hot[i];
	uint64_t line;

	if (!h->started) {
		h->addr = gn->t->insns[i].first;
		h->started = 1;
	} else if (h->left) {
		h->addr = step(h, h->addr, h->stride);
		h->left--;
	} else {
		next_run(gn, i);
	}
	h->addr = snap(&gn->lines, h->addr, &h->span, &line);
	if (gn->reuse && lru_touch(&gn->lru, (uint32_t)line))
		return -ENOMEM;
	memset(r, 0, sizeof(*r));
	r->hdr.type = VMT_REC_EXACT;
	r->hdr.pid = gn->t->pid;
	r->hdr.tid = gn->t->tid;
	r->exact.addr = h->addr;
	r->exact.ip = h->ip;
	r->exact.size = h->size;
	r->exact.access = h->kind != MIXED ? h->kind : mixed_kind(&gn->t->insns[i], &gn->g[i]);
	gn->cur = i;
	gn->emitted++;
	return 0;
}

/* Records handed to the writer at once. */
#define BATCH	256

/* The slice of the profiled trace that access @x of the synthetic trace stands for. */
static uint64_t slice_of(const struct vmt_profile *p, uint64_t x, double scale)
{
	uint64_t at = (uint64_t)(((double)x + 0.5) / scale) / p->slice_len;

	return at < p->nslices ? at : p->nslices - 1;
}

/*
 * The first access past @x of a slice other than @x's (@at), or @n: from
 * the slice's end at @scale, then checked by slice_of() itself (rounding),
 * which never goes back as @x grows.
 */
static uint64_t slice_end(const struct vmt_profile *p, uint64_t x, uint64_t at, uint64_t n,
			  double scale)
{
	double guess = (double)((at + 1) * p->slice_len) * scale - 0.5;
	uint64_t end;

	if (at + 1 >= p->nslices)
		return n;
	end = guess <= (double)(x + 1) ? x + 1 : guess >= (double)n ? n : (uint64_t)guess;
	while (end > x + 1 && slice_of(p, end - 1, scale) != at)
		end--;
	while (end < n && slice_of(p, end, scale) == at)
		end++;
	return end;
}

int vmt_profile_synth(const struct vmt_profile *p, const struct vmt_profile_synth_options *options,
		      struct vmt_trace_writer *writer, uint64_t *written,
		      struct vmt_trace_error *err)
{
	uint64_t seed = options && options->seed ? options->seed : 1, total = 0, n;
	struct vmt_record *batch;
	double scale;
	struct gen *gens;
	int64_t *cur;
	int ret = 0;

	*written = 0;
	gens = calloc(p->nthreads, sizeof(*gens));
	cur = calloc((size_t)p->nthreads + 1, sizeof(*cur));
	batch = malloc(BATCH * sizeof(*batch));
	if (!gens || !cur || !batch) {
		ret = -ENOMEM;
		goto out;
	}
	for (uint32_t k = 0; k < p->nthreads; k++)
		total += p->threads[k].accesses;
	n = options && options->accesses ? options->accesses : total;
	scale = total ? (double)n / (double)total : 1.0;
	for (uint32_t k = 0; k < p->nthreads; k++)
		if ((ret = gen_init(&gens[k], &p->threads[k], seed, scale)))
			goto out;
	for (uint64_t x = 0, slice = UINT64_MAX, end = 0; x < n; x++) {
		struct vmt_record *r = &batch[x % BATCH];
		int64_t k;

		if (x == end) {
			/* A new slice: its runs in turn, or its threads round robin. */
			slice = slice_of(p, x, scale);
			end = slice_end(p, x, slice, n, scale);
			memset(cur, 0, ((size_t)p->nthreads + 1) * sizeof(*cur));
		}
		if (p->mixed[slice]) {
			k = swrr(&p->slices[slice], cur);
		} else {
			/* cur[0]: the run, cur[1]: accesses made of it. */
			const struct pm_edges *e = &p->slices[slice];

			while ((uint64_t)cur[0] + 1 < e->n &&
			       (double)cur[1] >= (double)e->e[cur[0]].count * scale) {
				cur[0]++;
				cur[1] = 0;
			}
			k = e->e[cur[0]].to;
			cur[1]++;
		}
		if ((ret = gen_next(&gens[k], r)))
			goto out;
		r->hdr.time_ns = x;
		if (x % BATCH == BATCH - 1 || x == n - 1) {
			/* The records made so far to the writer, in one call. */
			if ((ret = vmt_trace_writer_append_records(writer, batch, x % BATCH + 1))) {
				pm_say(err, "%s", vmt_trace_writer_error_message(writer));
				goto out_quiet;
			}
			*written = x + 1;
		}
	}
out:
	if (ret == -EFBIG)
		pm_say(err, "a thread touched more lines than synth indexes (at most %u)",
		       NO_INDEX - 1);
	else if (ret)
		pm_say(err, "out of memory");
out_quiet:
	for (uint32_t k = 0; gens && k < p->nthreads; k++)
		if (gens[k].t)
			gen_free(&gens[k]);
	free(gens);
	free(cur);
	free(batch);
	return ret;
}
