// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * vmt_profile_build(): a profile from a trace's exact accesses, in two
 * passes in time order: pass 1 reads the trace and keeps each access's
 * instruction, line number and address (16 bytes, up to 64M accesses; the
 * thread where it changes), pass 2 goes over those (past 64M, it reads the
 * trace again, and its LRU stack numbers the lines).
 *
 * Pass 1, per thread: the instructions, each one's stride runs (a run ends
 * where the stride from its previous access changes) counted by (stride,
 * length), the lines touched, and the backward steps of the instruction
 * stream (from instruction a to b at or below it: a loop over [b, a]).
 * Between the passes: each instruction keeps its max_tokens runs that
 * cover the most accesses (a run must also be no chance repeat); the lines
 * become regions (a line within 256 bytes of the last joins its region,
 * PSnAP's rule) and runs of consecutive lines; each instruction joins the
 * narrowest loop around it that was taken twice or more.
 * Pass 2 replays the same runs and counts what follows what: run after run
 * (each instruction's stride ordering), instruction after instruction, and
 * the LRU reuse distance (the thread's 64-byte lines) of each access in a
 * run that was not kept; which thread ran in each slice of the trace; and,
 * per loop and region, PSnAP's stride histogram and working set.
 *
 * Outline, in order (about 1,430 lines):
 *   a hash table of (a, b, c) -> count      tok_add(): runs and backward
 *                                           steps, pass 1
 *   edges with counts                       edge_add_n(): count, first, last visit
 *   per-thread building state               struct run_state, bthread, builder
 *   pass 1                                  replay_add(), line_number(), pass1()
 *   between the passes                      radix_sort(), make_regions(),
 *                                           choose_tokens(), sort_insns(),
 *                                           make_loops()
 *   pass 2                                  end_run(), pend_bin(), pass2_access(),
 *                                           count_slice(), pass2()
 *   the driver                              run_pass(), finish_thread(),
 *                                           vmt_profile_build()
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stack_distance.h"
#include "base/grow_array.h"
#include "base/u64_map.h"
#include "profile/profile_model.h"

#define LINE_SHIFT	6
#define REGION_GAP	256	/* PSnAP: an address within 256 bytes of a region joins it */

/* ---- A hash table of (a, b, c) -> count ---- */

static uint64_t mix3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ULL ^ (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL ^
		     (c + 0x85ebca77c2b2ae63ULL) * 0x94d049bb133111ebULL;

	return h ^ (h >> 31);
}

/*
 * (instruction, stride, run) -> count: pass 1's runs, and its backward
 * steps (to instruction, 0, from instruction). 24 bytes a slot (a pointer
 * chase adds a run or so an access), a count of 0 marks a free one.
 */
struct tok {
	uint64_t stride, count;
	uint32_t insn, run;
};

struct tok_table {
	struct tok *slots;
	size_t mask, n;
};

static int tok_init(struct tok_table *t)
{
	t->mask = 1023;
	t->n = 0;
	t->slots = calloc(t->mask + 1, sizeof(*t->slots));
	return t->slots ? 0 : -ENOMEM;
}

static struct tok *tok_slot(struct tok *slots, size_t mask, uint32_t insn, uint64_t stride,
			    uint32_t run)
{
	size_t i = mix3(insn, stride, run) & mask;

	while (slots[i].count && (slots[i].stride != stride || slots[i].insn != insn ||
				  slots[i].run != run))
		i = (i + 1) & mask;
	return &slots[i];
}

/*
 * One more of (@insn, @stride, @run); *@hint is the slot where the caller
 * found its last key, tried first, and set to this key's.
 */
static int tok_add(struct tok_table *t, uint32_t insn, uint64_t stride, uint32_t run,
		   uint32_t *hint)
{
	struct tok *s;

	if (*hint <= t->mask) {
		s = &t->slots[*hint];
		if (s->count && s->stride == stride && s->insn == insn && s->run == run) {
			s->count++;
			return 0;
		}
	}

	if ((t->n + 1) * 4 > (t->mask + 1) * 3) {
		size_t mask = t->mask * 2 + 1;
		struct tok *slots = calloc(mask + 1, sizeof(*slots));

		if (!slots)
			return -ENOMEM;
		for (size_t i = 0; i <= t->mask; i++)
			if (t->slots[i].count)
				*tok_slot(slots, mask, t->slots[i].insn, t->slots[i].stride,
					  t->slots[i].run) = t->slots[i];
		free(t->slots);
		t->slots = slots;
		t->mask = mask;
	}
	s = tok_slot(t->slots, t->mask, insn, stride, run);
	if (!s->count) {
		*s = (struct tok){ stride, 0, insn, run };
		t->n++;
	}
	s->count++;
	if ((size_t)(s - t->slots) < UINT32_MAX)
		*hint = (uint32_t)(s - t->slots);
	return 0;
}

/* ---- Edges with counts ---- */

/*
 * @k visits of @e in a row, each to @to: each visit counts on its edge and,
 * when the edge's count passes the one before it, swaps the two (the
 * busiest first: the next search finds it sooner). The same edges in the
 * same order as @k single visits, the swaps' steps taken at once.
 */
static int edge_add_n(struct pm_edges *e, uint32_t to, uint64_t k)
{
	struct pm_edge *grown;
	uint32_t i = 0;

	if (!k)
		return 0;
	while (i < e->n && e->e[i].to != to)
		i++;
	if (i == e->n) {
		/* Powers of two: room for n + 1 when n is 0 or a power of two. */
		if (!(e->n & (e->n - 1)) || !e->n) {
			grown = realloc(e->e, (e->n ? e->n * 2 : 1) * sizeof(*grown));
			if (!grown)
				return -ENOMEM;
			e->e = grown;
		}
		e->e[e->n++] = (struct pm_edge){ to, 1, e->visits, e->visits };
		e->visits++;
		k--;
	}
	while (k) {
		/* Visits before the count passes the one before it's: all k, or d. */
		uint64_t d = k;

		if (i) {
			uint64_t prev = e->e[i - 1].count, cur = e->e[i].count;
			uint64_t pass = prev >= cur ? prev - cur + 1 : 1;

			d = pass < k ? pass : k;
		}
		e->e[i].count += d;
		e->visits += d;
		e->e[i].last = e->visits - 1;
		k -= d;
		if (i && e->e[i].count > e->e[i - 1].count) {
			struct pm_edge x = e->e[i];

			e->e[i] = e->e[i - 1];
			e->e[i - 1] = x;
			i--;
		}
	}
	return 0;
}

static int edge_add(struct pm_edges *e, uint32_t to)
{
	/* The busiest first: mostly the first. */
	if (e->n && e->e[0].to == to) {
		e->e[0].count++;
		e->e[0].last = e->visits++;
		return 0;
	}
	return edge_add_n(e, to, 1);
}

/* ---- Per-thread building state ---- */

#define PENDING_LIST	8

/* An instruction's place in its stride runs. */
struct run_state {
	uint64_t last;		/* its previous access's address */
	int64_t stride;
	uint32_t run;		/* accesses in the current run; 0: no access yet past the first */
	uint32_t token;		/* pass 2: the previous run's token; PM_NONE before the first */
	uint64_t pending_cold;	/* pass 2: first touches in the current run */
	/*
	 * pass 2: the reuse bins of the current run's accesses, as (bin,
	 * count) for its first PENDING_LIST bins: a run in no kept run is
	 * mostly an access or two. Past PENDING_LIST bins (touched is then
	 * PENDING_LIST + 1), every bin's count in spill, allocated the first
	 * time and kept.
	 */
	uint8_t bins[PENDING_LIST];
	uint32_t counts[PENDING_LIST];
	uint64_t *spill;
	uint8_t touched;
	uint8_t seen;		/* pass 2: its first access is past */
	uint32_t cell;		/* pass 2: the loop cell of its last access, + 1 (0: none) */
	uint32_t cell_region;	/* ... in this region */
	uint32_t region;	/* pass 2: its last access's region, PM_NONE if none */
	/* pass 1: the instruction that followed it last, + 1 (0: none yet) */
	uint32_t next;
	/* pass 1: its last access's line, and that line's number + 1 (0: none yet) */
	uint32_t line_id;
	uint64_t line;
	/* pass 1: the slots of its last run in tokens, of its last step back from it in back */
	uint32_t tok_hint, back_hint;
};

/* A loop's accesses in one region: PSnAP's strides and working set there. */
struct loop_state {
	uint32_t loop;
	uint64_t last;
	struct pm_loop_region lr;
};

struct bthread {
	struct pm_thread t;
	struct vmt_u64_map insn_of;	/* ip -> index + 1 (pass 1: order of first access) */
	uint64_t room;
	struct run_state *runs;
	uint32_t prev;			/* the last access's instruction; PM_NONE at first */
	/*
	 * Pass 1's lines, numbered in order of first access: line >> 4 ->
	 * block index + 1 in lines, each block the 16 lines' numbers + 1 (0:
	 * not met), 1 KiB of addresses in 64 bytes (a hash table's slots
	 * would take 32 bytes a line, scattered).
	 */
	struct vmt_u64_map line_blocks;
	uint32_t *lines;
	uint64_t lines_room, nblocks;
	uint32_t nlines;
	struct tok_table tokens;	/* (insn, stride, run) -> occurrences */
	struct tok_table back;		/* (b, 0, a) -> backward steps a -> b (pass 1's numbers) */
	uint32_t *order;		/* pass 2: pass 1's index -> sorted index */
	struct vmt_stack_distance sd;
	uint64_t sd_last_line;		/* pass 2: the last access's line, and its number */
	uint32_t sd_last_id;		/* (PM_NONE: none yet) */
	uint32_t sd_next;		/* pass 2: the number of the next line met first */
	uint64_t last_line;		/* pass 1: the last access's line, and its number */
	uint32_t last_line_id;		/* (PM_NONE: none yet) */
	uint32_t nruns;			/* pass 2: run states in runs */
	struct vmt_u64_map loop_cell;	/* (loop, region) -> index + 1 into cells */
	struct loop_state *cells;
	uint64_t cells_room, ncells;
	/* (loop << 42 | line) -> 1, for each line's loops past its first */
	struct vmt_u64_map loop_lines;
	/*
	 * A line's (its stack-distance number's) last loop and first loop,
	 * each + 1: a line met again in the loop that met it last is no news,
	 * and its first loop needs no place in loop_lines.
	 */
	struct line_loops {
		uint32_t last, first;
	} *line_loop;
	uint64_t line_loop_room;
	int sd_ready;
};

/*
 * One access as pass 1 met it: its instruction (pass 1's number), its
 * line (pass 1's number: the thread's lines in order of first access) and
 * its address; its thread is the one of the last thread switch at or before it.
 */
struct replay {
	uint32_t insn, line;
	uint64_t addr;
};

struct thread_switch {
	uint64_t at;			/* the replay's index where thread begins */
	uint32_t thread;
};

#define REPLAY_MAX	(UINT64_C(64) << 20)	/* accesses: 1 GiB */

struct builder {
	struct bthread *threads;
	uint32_t nthreads;
	uint64_t room;
	struct vmt_u64_map thread_of;	/* tid -> index + 1 */
	unsigned int max_tokens;
	struct vmt_trace_error *err;
	int pass;
	uint64_t index;			/* accesses so far, all threads' (pass 1, then pass 2) */
	uint64_t slice_len;
	uint64_t slice, slice_left;	/* pass 2: index's slice, and accesses left in it */
	uint32_t nslices;
	struct pm_edges *slices;	/* which thread ran when (pass 2) */
	uint8_t *mixed;
	/*
	 * Pass 1's accesses, kept for pass 2 while they fit in REPLAY_MAX
	 * (reading the trace again costs more than the pass's work); past
	 * it, freed, and pass 2 reads the trace again.
	 */
	struct replay *replay;
	uint64_t nreplay, replay_room;
	struct thread_switch *switches;
	uint64_t nswitches, switches_room;
	bool no_replay;
	/* The last access's thread: tid, and index + 1 (0: none yet). */
	uint32_t cur_tid, cur;
};

static void bthread_free(struct bthread *b)
{
	pm_thread_free(&b->t);
	vmt_u64_map_free(&b->insn_of);
	for (uint32_t i = 0; i < b->nruns; i++)
		free(b->runs[i].spill);
	free(b->runs);
	vmt_u64_map_free(&b->line_blocks);
	free(b->lines);
	free(b->tokens.slots);
	free(b->back.slots);
	free(b->order);
	if (b->sd_ready)
		vmt_stack_distance_free(&b->sd);
	vmt_u64_map_free(&b->loop_cell);
	free(b->cells);
	vmt_u64_map_free(&b->loop_lines);
	free(b->line_loop);
}

static struct bthread *thread_get(struct builder *bd, const struct vmt_record *r)
{
	bool added;
	uint64_t *slot;
	struct bthread *b;

	/* Mostly the last access's thread. */
	if (bd->cur && r->hdr.tid == bd->cur_tid)
		return &bd->threads[bd->cur - 1];
	slot = vmt_u64_map_put(&bd->thread_of, r->hdr.tid, &added);
	if (!slot)
		return NULL;
	if (!added) {
		bd->cur_tid = r->hdr.tid;
		bd->cur = (uint32_t)*slot;
		return &bd->threads[*slot - 1];
	}
	if (bd->pass == 2)
		return NULL;	/* cannot be: pass 2 reads what pass 1 read */
	if (vmt_grow_array((void **)&bd->threads, &bd->room, bd->nthreads + 1, sizeof(*b)))
		return NULL;
	b = &bd->threads[bd->nthreads];
	memset(b, 0, sizeof(*b));
	*slot = ++bd->nthreads;
	b->t.pid = r->hdr.pid;
	b->t.tid = r->hdr.tid;
	b->prev = PM_NONE;
	b->last_line_id = PM_NONE;
	b->sd_last_id = PM_NONE;
	bd->cur_tid = r->hdr.tid;
	bd->cur = bd->nthreads;
	b->t.pattern = malloc(PM_PATTERN * sizeof(*b->t.pattern));
	if (!b->t.pattern)
		return NULL;
	if (vmt_u64_map_init(&b->insn_of) || vmt_u64_map_init(&b->line_blocks) ||
	    tok_init(&b->tokens) || tok_init(&b->back) || vmt_u64_map_init(&b->loop_cell) ||
	    vmt_u64_map_init(&b->loop_lines))
		return NULL;
	return b;
}

/* ---- Pass 1 ---- */

/* Room for @n elements of @size in *@array, which has room for *@room: doubled, not zeroed. */
static int grow_raw(void **array, uint64_t *room, uint64_t n, size_t size)
{
	uint64_t want = *room ? *room : 1024;
	void *p;

	if (n <= *room)
		return 0;
	while (want < n)
		want *= 2;
	p = realloc(*array, want * size);
	if (!p)
		return -ENOMEM;
	*array = p;
	*room = want;
	return 0;
}

/* Keep an access of thread @k for pass 2: 0, or -ENOMEM past REPLAY_MAX or memory. */
static int replay_add(struct builder *bd, uint32_t k, uint32_t insn, uint32_t line,
		      uint64_t addr)
{
	if (bd->nreplay == REPLAY_MAX ||
	    grow_raw((void **)&bd->replay, &bd->replay_room, bd->nreplay + 1, sizeof(*bd->replay)))
		return -ENOMEM;
	if (!bd->nswitches || bd->switches[bd->nswitches - 1].thread != k) {
		if (grow_raw((void **)&bd->switches, &bd->switches_room, bd->nswitches + 1,
			     sizeof(*bd->switches)))
			return -ENOMEM;
		bd->switches[bd->nswitches++] = (struct thread_switch){ bd->nreplay, k };
	}
	bd->replay[bd->nreplay++] = (struct replay){ insn, line, addr };
	return 0;
}

#define LINE_BLOCK	16

/* Pass 1: the number + 1 of @b's line @line, given it if new; NULL: no memory. */
static uint32_t *line_number(struct bthread *b, uint64_t line)
{
	uint32_t *id;
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&b->line_blocks, line / LINE_BLOCK, &added);
	if (!slot)
		return NULL;
	if (added) {
		if (b->nlines == UINT32_MAX - 1 ||
		    vmt_grow_array((void **)&b->lines, &b->lines_room,
				   (b->nblocks + 1) * LINE_BLOCK, sizeof(*b->lines)))
			return NULL;
		*slot = ++b->nblocks;
	}
	id = &b->lines[(*slot - 1) * LINE_BLOCK + line % LINE_BLOCK];
	if (!*id) {
		if (b->nlines == UINT32_MAX - 1)
			return NULL;
		*id = ++b->nlines;
	}
	return id;
}

static int pass1(struct builder *bd, const struct vmt_record *r)
{
	const struct vmt_exact *e = &r->exact;
	struct bthread *b = thread_get(bd, r);
	struct pm_insn *in;
	struct run_state *rs;
	uint64_t *slot;
	uint32_t i;
	bool added;

	if (!b)
		return -ENOMEM;
	/* Mostly the instruction that followed the last one the last time. */
	if (b->prev != PM_NONE && b->runs[b->prev].next &&
	    b->t.insns[b->runs[b->prev].next - 1].ip == e->ip) {
		i = b->runs[b->prev].next - 1;
		goto known;
	}
	slot = vmt_u64_map_put(&b->insn_of, e->ip, &added);
	if (!slot)
		return -ENOMEM;
	if (added) {
		if (vmt_grow_array((void **)&b->t.insns, &b->room, b->t.ninsns + 1,
				   sizeof(*b->t.insns)))
			return -ENOMEM;
		/* The run states grow alongside: same room. */
		rs = realloc(b->runs, b->room * sizeof(*rs));
		if (!rs)
			return -ENOMEM;
		b->runs = rs;
		memset(&b->runs[b->t.ninsns], 0, sizeof(*rs));
		in = &b->t.insns[b->t.ninsns];
		in->ip = e->ip;
		in->first = in->lo = in->hi = e->addr;
		in->size = e->size ? e->size : 1;
		in->loop = PM_NONE;
		*slot = ++b->t.ninsns;
	}
	i = (uint32_t)(*slot - 1);
	if (b->prev != PM_NONE)
		b->runs[b->prev].next = i + 1;
known:
	in = &b->t.insns[i];
	rs = &b->runs[i];
	in->count++;
	in->reads += e->access == VMT_ACCESS_READ;
	in->writes += e->access == VMT_ACCESS_WRITE;
	in->rmws += e->access != VMT_ACCESS_READ && e->access != VMT_ACCESS_WRITE;
	if (e->addr < in->lo)
		in->lo = e->addr;
	if (e->addr > in->hi)
		in->hi = e->addr;
	if (in->count > 1) {
		int64_t stride = (int64_t)(e->addr - rs->last);

		in->back += e->addr < rs->last;
		in->ahead += e->addr > rs->last;
		if (rs->run && stride != rs->stride) {
			if (tok_add(&b->tokens, i, (uint64_t)rs->stride, rs->run, &rs->tok_hint))
				return -ENOMEM;
			rs->run = 0;
		}
		rs->stride = stride;
		rs->run++;
	}
	rs->last = e->addr;
	/*
	 * The thread's lines, numbered in order of first access: mostly the
	 * line of the thread's last access, or of the instruction's.
	 */
	if (b->last_line_id == PM_NONE || e->addr >> LINE_SHIFT != b->last_line) {
		b->last_line = e->addr >> LINE_SHIFT;
		if (rs->line_id && rs->line == b->last_line) {
			b->last_line_id = rs->line_id - 1;
		} else {
			uint32_t *id = line_number(b, b->last_line);

			if (!id)
				return -ENOMEM;
			b->last_line_id = *id - 1;
		}
	}
	rs->line = b->last_line;
	rs->line_id = b->last_line_id + 1;
	if (b->prev != PM_NONE && e->ip <= b->t.insns[b->prev].ip &&
	    tok_add(&b->back, i, 0, b->prev, &b->runs[b->prev].back_hint))
		return -ENOMEM;
	if (b->t.npattern < PM_PATTERN)
		b->t.pattern[b->t.npattern++] = i;
	if (!bd->no_replay && replay_add(bd, (uint32_t)(b - bd->threads), i, b->last_line_id,
					 e->addr)) {
		/* Too long (or no memory for it): pass 2 reads the trace again. */
		free(bd->replay);
		bd->replay = NULL;
		free(bd->switches);
		bd->switches = NULL;
		bd->no_replay = true;
	}
	b->prev = i;
	b->t.accesses++;
	bd->index++;
	return 0;
}

/* ---- Between the passes ---- */

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

/*
 * @a's @n keys in increasing order, in @a or in @tmp (as large): the one
 * returned. 11 bits a pass, least significant first, a pass skipped where
 * every key has the same digit.
 */
static uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, size_t n)
{
	uint64_t differ = 0;

	for (size_t k = 1; k < n; k++)
		differ |= a[k] ^ a[0];
	for (unsigned int shift = 0; shift < 64; shift += 11) {
		size_t count[2048] = { 0 }, sum = 0;
		uint64_t *swap;

		if (!(differ >> shift & 2047))
			continue;
		for (size_t k = 0; k < n; k++)
			count[a[k] >> shift & 2047]++;
		for (size_t d = 0; d < 2048; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t k = 0; k < n; k++)
			tmp[count[a[k] >> shift & 2047]++] = a[k];
		swap = a;
		a = tmp;
		tmp = swap;
	}
	return a;
}

/* The regions of @b's lines, and their working sets. */
static int make_regions(struct bthread *b)
{
	size_t n = b->nlines, nb = b->line_blocks.count, pos = 0, k = 0;
	uint64_t *keys = malloc(((n ? n : 1) + 2 * nb) * sizeof(*keys)), *blocks, *lines, key, value;
	struct pm_region *g;

	if (!keys)
		return -ENOMEM;
	/* The blocks in order, then each one's lines in order. */
	while (vmt_u64_map_next(&b->line_blocks, &pos, &key, &value))
		keys[n + k++] = key;
	blocks = radix_sort(keys + n, keys + n + nb, nb);
	lines = keys;
	k = 0;
	for (size_t j = 0; j < nb; j++) {
		const uint32_t *ids = &b->lines[(*vmt_u64_map_get(&b->line_blocks, blocks[j]) - 1) *
						LINE_BLOCK];

		for (unsigned int x = 0; x < LINE_BLOCK; x++)
			if (ids[x])
				lines[k++] = blocks[j] * LINE_BLOCK + x;
	}
	b->t.regions = calloc(n ? n : 1, sizeof(*b->t.regions));
	b->t.spans = calloc(n ? n : 1, sizeof(*b->t.spans));
	if (!b->t.regions || !b->t.spans) {
		free(keys);
		return -ENOMEM;
	}
	for (size_t j = 0; j < n; j++) {
		uint64_t lo = lines[j] << LINE_SHIFT;
		struct pm_span *sp = b->t.nspans ? &b->t.spans[b->t.nspans - 1] : NULL;

		if (sp && sp->lo + sp->n == lines[j])
			sp->n++;
		else
			b->t.spans[b->t.nspans++] = (struct pm_span){ lines[j], 1 };

		g = b->t.nregions ? &b->t.regions[b->t.nregions - 1] : NULL;
		/* Within 256 bytes of the region's last line's end: the same region. */
		if (!g || lo > g->hi + REGION_GAP) {
			g = &b->t.regions[b->t.nregions++];
			g->lo = lo;
		}
		g->hi = lo + (1 << LINE_SHIFT);
		g->lines++;
	}
	free(keys);
	vmt_u64_map_free(&b->line_blocks);
	free(b->lines);
	b->lines = NULL;
	return 0;
}

static uint32_t region_of(const struct pm_thread *t, uint64_t addr)
{
	uint32_t lo = 0, hi = t->nregions;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (t->regions[mid].hi <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < t->nregions && t->regions[lo].lo <= addr ? lo : PM_NONE;
}

/* Runs in the order they are kept: most accesses covered first, ties by stride and length. */
static bool tok_before(const struct tok *a, const struct tok *b)
{
	uint64_t ca = a->count * a->run, cb = b->count * b->run;

	if (ca != cb)
		return ca > cb;
	/* The same profile whatever the table's order. */
	if (a->stride != b->stride)
		return a->stride < b->stride;
	return a->run < b->run;
}

/*
 * Each instruction's kept runs: the max_tokens covering most accesses (see
 * within). The runs are grouped by instruction, and of each group only its
 * best max_tokens are put in order (a pointer chase has a kind a run).
 */
static int choose_tokens(struct builder *bd, struct bthread *b)
{
	uint32_t ninsns = b->t.ninsns, max = bd->max_tokens;
	struct tok *all = malloc((b->tokens.n ? b->tokens.n : 1) * sizeof(*all));
	struct tok *best = malloc(max * sizeof(*best));
	uint64_t *start = calloc((size_t)ninsns + 1, sizeof(*start));

	if (!all || !best || !start) {
		free(all);
		free(best);
		free(start);
		return -ENOMEM;
	}
	/* Grouped by instruction: start[i] is where instruction i's runs begin. */
	for (size_t s = 0; s <= b->tokens.mask; s++)
		if (b->tokens.slots[s].count)
			start[b->tokens.slots[s].insn + 1]++;
	for (uint32_t i = 0; i < ninsns; i++)
		start[i + 1] += start[i];
	for (size_t s = 0; s <= b->tokens.mask; s++)
		if (b->tokens.slots[s].count)
			all[start[b->tokens.slots[s].insn]++] = b->tokens.slots[s];
	/* Each start[i] is now where instruction i + 1's begin. */
	for (uint32_t i = 0; i < ninsns; i++) {
		struct pm_insn *in = &b->t.insns[i];
		uint64_t j = i ? start[i - 1] : 0, end = start[i], runs = 0, floor = 1;
		uint32_t nbest = 0;

		if (j == end)
			continue;
		for (uint64_t k = j; k < end; k++) {
			struct tok x = all[k];
			uint32_t y;

			runs += x.count;
			if (nbest == max && !tok_before(&x, &best[max - 1]))
				continue;
			/* Into best, in order: its last drops out when full. */
			y = nbest < max ? nbest++ : max - 1;
			for (; y && tok_before(&x, &best[y - 1]); y--)
				best[y] = best[y - 1];
			best[y] = x;
		}
		/*
		 * Every run is kept (up to max_tokens, the most accesses first):
		 * a loop nest's one jump back between sweeps is as much its
		 * pattern as its steps. But when most of an instruction's runs
		 * are unlike any other (more than 32 kinds, and more kinds than
		 * a quarter of its runs: a pointer chase, a hash table), its
		 * strides repeat now and then by chance, and kept they would
		 * walk it off its own lines: then a run must cover 2 accesses
		 * and 1/256 of the instruction's.
		 */
		if (end - j > 32 && (end - j) * 4 > runs)
			floor = in->count / 256 > 2 ? in->count / 256 : 2;
		in->tokens = calloc(nbest, sizeof(*in->tokens));
		if (!in->tokens) {
			free(all);
			free(best);
			free(start);
			return -ENOMEM;
		}
		for (uint32_t k = 0; k < nbest; k++) {
			if (best[k].count * best[k].run < floor)
				break;
			in->tokens[in->ntokens++] = (struct pm_token){
				.stride = (int64_t)best[k].stride, .run = best[k].run,
			};
		}
	}
	free(all);
	free(best);
	free(start);
	return 0;
}

/* Order the instructions by ip, renumbering what pass 1 numbered by first access. */
static int sort_insns(struct bthread *b)
{
	uint32_t n = b->t.ninsns, *by_ip = malloc(n * sizeof(*by_ip));
	struct pm_insn *sorted = malloc(n * sizeof(*sorted));
	struct run_state *runs = calloc(n, sizeof(*runs));

	b->order = malloc(n * sizeof(*b->order));
	if (!by_ip || !sorted || !runs || !b->order) {
		free(by_ip);
		free(sorted);
		free(runs);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++)
		by_ip[i] = i;
	for (uint32_t i = 0; i < n; i++)
		sorted[i] = b->t.insns[i];
	{
		uint64_t *keys = malloc(n * sizeof(*keys) * 2);

		if (!keys) {
			free(by_ip);
			free(sorted);
			free(runs);
			return -ENOMEM;
		}
		for (uint32_t i = 0; i < n; i++) {
			keys[2 * i] = b->t.insns[i].ip;
			keys[2 * i + 1] = i;
		}
		qsort(keys, n, 2 * sizeof(*keys), cmp_u64);
		for (uint32_t j = 0; j < n; j++)
			by_ip[j] = (uint32_t)keys[2 * j + 1];
		free(keys);
	}
	for (uint32_t j = 0; j < n; j++) {
		b->t.insns[j] = sorted[by_ip[j]];
		b->order[by_ip[j]] = j;
		runs[j].token = PM_NONE;
		runs[j].region = PM_NONE;
	}
	for (uint32_t k = 0; k < b->t.npattern; k++)
		b->t.pattern[k] = b->order[b->t.pattern[k]];
	free(by_ip);
	free(sorted);
	free(b->runs);
	b->runs = runs;
	b->nruns = n;
	b->prev = PM_NONE;
	return 0;
}

/* A loop's span of instructions: [lo, hi]. */
struct interval {
	uint64_t lo, hi;
};

static int cmp_width(const void *x, const void *y)
{
	const struct interval *a = x, *b = y;
	uint64_t wa = a->hi - a->lo, wb = b->hi - b->lo;

	if (wa != wb)
		return wa < wb ? -1 : 1;
	return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Union-find over instruction indices: the next one not yet in a loop. */
static uint32_t next_free(uint32_t *next, uint32_t i)
{
	uint32_t root = i;

	while (next[root] != root)
		root = next[root];
	while (next[i] != root) {
		uint32_t up = next[i];

		next[i] = root;
		i = up;
	}
	return root;
}

static int make_loops(struct bthread *b)
{
	struct pm_thread *t = &b->t;
	struct interval *iv = malloc((b->back.n ? b->back.n : 1) * sizeof(*iv));
	uint32_t *next = malloc((t->ninsns + 1) * sizeof(*next));
	size_t n = 0;

	if (!iv || !next) {
		free(iv);
		free(next);
		return -ENOMEM;
	}
	/* Instructions numbered by ip now: b->order maps pass 1's numbers. */
	for (size_t s = 0; s <= b->back.mask; s++)
		if (b->back.slots[s].count >= 2)
			iv[n++] = (struct interval){
				t->insns[b->order[b->back.slots[s].insn]].ip,
				t->insns[b->order[b->back.slots[s].run]].ip,
			};
	qsort(iv, n, sizeof(*iv), cmp_width);
	for (uint32_t i = 0; i <= t->ninsns; i++)
		next[i] = i;
	t->loops = calloc(n ? n : 1, sizeof(*t->loops));
	if (!t->loops) {
		free(iv);
		free(next);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		/* The first instruction at or above the loop's start. */
		uint32_t lo = 0, hi = t->ninsns, loop = PM_NONE;

		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;

			if (t->insns[mid].ip < iv[k].lo)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t i = next_free(next, lo); i < t->ninsns && t->insns[i].ip <= iv[k].hi;
		     i = next_free(next, i)) {
			if (loop == PM_NONE) {
				loop = t->nloops++;
				t->loops[loop].ip_lo = iv[k].lo;
				t->loops[loop].ip_hi = iv[k].hi;
			}
			t->insns[i].loop = loop;
			t->loops[loop].insns++;
			t->loops[loop].accesses += t->insns[i].count;
			next[i] = i + 1;
		}
	}
	free(iv);
	free(next);
	/* Loops in ip order, their instructions renumbered to match. */
	{
		uint32_t *rank = malloc((t->nloops ? t->nloops : 1) * sizeof(*rank));
		uint64_t *keys = malloc((t->nloops ? t->nloops : 1) * 2 * sizeof(*keys));
		struct pm_loop *sorted = malloc((t->nloops ? t->nloops : 1) * sizeof(*sorted));

		if (!rank || !keys || !sorted) {
			free(rank);
			free(keys);
			free(sorted);
			return -ENOMEM;
		}
		for (uint32_t l = 0; l < t->nloops; l++) {
			keys[2 * l] = t->loops[l].ip_lo;
			keys[2 * l + 1] = l;
		}
		qsort(keys, t->nloops, 2 * sizeof(*keys), cmp_u64);
		for (uint32_t j = 0; j < t->nloops; j++) {
			sorted[j] = t->loops[keys[2 * j + 1]];
			rank[keys[2 * j + 1]] = j;
		}
		memcpy(t->loops, sorted, t->nloops * sizeof(*sorted));
		for (uint32_t i = 0; i < t->ninsns; i++) {
			if (t->insns[i].loop != PM_NONE)
				t->insns[i].loop = rank[t->insns[i].loop];
			else
				t->outside_loops += t->insns[i].count;
		}
		free(rank);
		free(keys);
		free(sorted);
	}
	return 0;
}

/* ---- Pass 2 ---- */

static uint32_t token_of(const struct pm_insn *in, int64_t stride, uint32_t run)
{
	for (uint32_t k = 0; k < in->ntokens; k++)
		if (in->tokens[k].stride == stride && in->tokens[k].run == run)
			return k;
	return in->ntokens;	/* random */
}

/* What follows token @from (PM_NONE: the first run) is @to. */
static int follow(struct pm_insn *in, uint32_t from, uint32_t to)
{
	if (from == PM_NONE) {
		in->first_token = to;
		return 0;
	}
	return edge_add(from == in->ntokens ? &in->random_next : &in->tokens[from].next, to);
}

/* The run in @rs ended: its token follows the last, and if random, its accesses' reuse counts. */
static int end_run(struct pm_insn *in, struct run_state *rs)
{
	uint32_t tok = token_of(in, rs->stride, rs->run);
	int ret;

	if (tok < in->ntokens) {
		in->tokens[tok].count++;
		ret = follow(in, rs->token, tok);
	} else {
		ret = follow(in, rs->token, tok);
		/* Then each of its other accesses follows a random one: tok is ntokens. */
		if (!ret && rs->run > 1)
			ret = edge_add_n(&in->random_next, tok, rs->run - 1);
		in->random += rs->run;
		/* The run's accesses' distances, in the order of the bins: one run is one moment. */
		if (!ret)
			ret = edge_add_n(&in->reuse, PM_REUSE_COLD, rs->pending_cold);
		if (rs->touched <= PENDING_LIST) {
			/* Its few bins, in increasing order as below. */
			for (uint32_t x = 1; x < rs->touched; x++)
				for (uint32_t y = x; y && rs->bins[y - 1] > rs->bins[y]; y--) {
					uint8_t b = rs->bins[y];
					uint32_t c = rs->counts[y];

					rs->bins[y] = rs->bins[y - 1];
					rs->counts[y] = rs->counts[y - 1];
					rs->bins[y - 1] = b;
					rs->counts[y - 1] = c;
				}
			for (uint32_t x = 0; x < rs->touched && !ret; x++)
				ret = edge_add_n(&in->reuse, rs->bins[x], rs->counts[x]);
		} else {
			for (uint32_t bin = 0; bin < PM_REUSE_BINS && !ret; bin++)
				ret = edge_add_n(&in->reuse, bin, rs->spill[bin]);
		}
	}
	rs->token = tok;
	if (rs->touched > PENDING_LIST)
		memset(rs->spill, 0, PM_REUSE_BINS * sizeof(*rs->spill));
	rs->pending_cold = 0;
	rs->touched = 0;
	rs->run = 0;
	return ret;
}

/* An access of the current run of @rs at reuse bin @bin. */
static int pend_bin(struct run_state *rs, unsigned int bin)
{
	if (rs->touched <= PENDING_LIST) {
		for (uint32_t x = 0; x < rs->touched; x++) {
			if (rs->bins[x] == bin) {
				rs->counts[x]++;
				return 0;
			}
		}
		if (rs->touched < PENDING_LIST) {
			rs->bins[rs->touched] = (uint8_t)bin;
			rs->counts[rs->touched++] = 1;
			return 0;
		}
		/* A bin past the list's: every bin's count in spill from now on. */
		if (!rs->spill) {
			rs->spill = calloc(PM_REUSE_BINS, sizeof(*rs->spill));
			if (!rs->spill)
				return -ENOMEM;
		}
		for (uint32_t x = 0; x < PENDING_LIST; x++)
			rs->spill[rs->bins[x]] = rs->counts[x];
		rs->touched = PENDING_LIST + 1;
	}
	rs->spill[bin]++;
	return 0;
}

/*
 * An access of @b's instruction @first (pass 1's number) at @addr, in the
 * line pass 1 numbered @line (PM_NONE: not known, the LRU stack numbers it).
 */
static int pass2_access(struct bthread *b, uint32_t first, uint64_t addr, uint32_t line)
{
	struct pm_thread *t = &b->t;
	uint32_t i = b->order[first], id, region;
	struct pm_insn *in = &t->insns[i];
	struct run_state *rs;
	uint64_t *slot, distance;
	bool added;
	int ret;

	rs = &b->runs[i];
	if (b->sd_last_id != PM_NONE && addr >> LINE_SHIFT == b->sd_last_line) {
		/* The thread's last line again: nearest, and the stack stays as it is. */
		distance = 0;
		id = b->sd_last_id;
	} else {
		if (line != PM_NONE) {
			/* Pass 1 numbered the lines in the order pass 2 meets them first. */
			id = line;
			added = line == b->sd_next;
			b->sd_next += added;
			ret = vmt_stack_distance_access_unit(&b->sd, id, added, &distance);
		} else {
			ret = vmt_stack_distance_access(&b->sd, addr >> LINE_SHIFT, &distance, &id);
		}
		if (ret)
			return ret;
		b->sd_last_line = addr >> LINE_SHIFT;
		b->sd_last_id = id;
	}
	if (rs->seen) {
		int64_t stride = (int64_t)(addr - rs->last);

		if (rs->run && stride != rs->stride && (ret = end_run(in, rs)))
			return ret;
		rs->stride = stride;
		rs->run++;
		if (distance == VMT_STACK_DISTANCE_COLD)
			rs->pending_cold++;
		else if ((ret = pend_bin(rs, pm_reuse_bin(distance))))
			return ret;
	}
	rs->last = addr;
	rs->seen = 1;
	if (b->prev != PM_NONE && (ret = edge_add(&t->insns[b->prev].next, i)))
		return ret;
	b->prev = i;
	/* PSnAP's view: the loop's stride and working set in the access's region. */
	if (rs->region != PM_NONE && t->regions[rs->region].lo <= addr &&
	    addr < t->regions[rs->region].hi) {
		/* The region of its last access: an instruction stays in its region. */
		region = rs->region;
	} else {
		region = region_of(t, addr);
		rs->region = region;
	}
	if (in->loop != PM_NONE && region != PM_NONE) {
		struct loop_state *c;

		if (rs->cell && rs->cell_region == region) {
			/* The cell of its last access. */
			c = &b->cells[rs->cell - 1];
			added = false;
		} else {
			slot = vmt_u64_map_put(&b->loop_cell, (uint64_t)in->loop << 32 | region,
					       &added);
			if (!slot)
				return -ENOMEM;
			if (added) {
				if (vmt_grow_array((void **)&b->cells, &b->cells_room, b->ncells + 1,
						   sizeof(*b->cells)))
					return -ENOMEM;
				*slot = ++b->ncells;
			}
			rs->cell = (uint32_t)*slot;
			rs->cell_region = region;
			c = &b->cells[*slot - 1];
		}
		if (added) {
			c->loop = in->loop;
			c->lr.region = region;
		} else {
			c->lr.strides[vmt_profile_stride_bin((int64_t)(addr - c->last))]++;
		}
		c->last = addr;
		c->lr.accesses++;
		if (vmt_grow_array((void **)&b->line_loop, &b->line_loop_room, (uint64_t)id + 1,
				   sizeof(*b->line_loop)))
			return -ENOMEM;
		if (b->line_loop[id].last != in->loop + 1) {
			struct line_loops *ll = &b->line_loop[id];

			ll->last = in->loop + 1;
			if (!ll->first) {
				ll->first = in->loop + 1;
				c->lr.lines++;
			} else if (ll->first != in->loop + 1) {
				slot = vmt_u64_map_put(&b->loop_lines,
						       (uint64_t)in->loop << 42 | (addr >> LINE_SHIFT),
						       &added);
				if (!slot)
					return -ENOMEM;
				c->lr.lines += added;
			}
		}
	}
	if (region != PM_NONE)
		t->regions[region].accesses++;
	return 0;
}

/*
 * Pass 2's next access is thread @k's: count it in its slice, as a run of
 * its own, up to PM_SLICE_RUNS runs; past that, the slice is mixed, and
 * counts each thread's accesses once.
 */
static int count_slice(struct builder *bd, uint32_t k)
{
	uint64_t s;
	struct pm_edges *e;

	/* The slice: index / slice_len, kept without dividing. */
	if (bd->slice_left == 0) {
		bd->slice = bd->index / bd->slice_len;
		bd->slice_left = bd->slice_len - bd->index % bd->slice_len;
	}
	s = bd->slice;
	bd->slice_left--;
	bd->index++;
	e = &bd->slices[s];
	struct pm_edge *grown;

	if (e->n && e->e[e->n - 1].to == k) {
		e->e[e->n - 1].count++;
		return 0;
	}
	if (!bd->mixed[s] && e->n == PM_SLICE_RUNS) {
		/* Too many runs: each thread's sum in the place of its first run. */
		uint32_t n = 0;

		for (uint32_t i = 0; i < e->n; i++) {
			uint32_t j = 0;

			while (j < n && e->e[j].to != e->e[i].to)
				j++;
			if (j == n)
				e->e[n++] = e->e[i];
			else
				e->e[j].count += e->e[i].count;
		}
		e->n = n;
		bd->mixed[s] = 1;
	}
	for (uint32_t i = 0; bd->mixed[s] && i < e->n; i++) {
		if (e->e[i].to == k) {
			e->e[i].count++;
			return 0;
		}
	}
	grown = realloc(e->e, (e->n + 1) * sizeof(*grown));
	if (!grown)
		return -ENOMEM;
	e->e = grown;
	e->e[e->n++] = (struct pm_edge){ .to = k, .count = 1 };
	return 0;
}

static int pass2(struct builder *bd, const struct vmt_record *r)
{
	struct bthread *b = thread_get(bd, r);
	uint64_t *slot;
	int ret;

	if (!b)
		return -ENOMEM;
	if ((ret = count_slice(bd, (uint32_t)(b - bd->threads))))
		return ret;
	slot = vmt_u64_map_get(&b->insn_of, r->exact.ip);
	if (!slot)
		return -EIO;	/* the trace changed between the passes */
	return pass2_access(b, (uint32_t)(*slot - 1), r->exact.addr, PM_NONE);
}

/* ---- The driver ---- */

static int run_pass(struct builder *bd, struct vmt_trace *trace, int pass)
{
	struct vmt_trace_cursor *cursor;
	const struct vmt_record *r;
	uint32_t stream;
	int ret;

	bd->pass = pass;
	ret = vmt_trace_cursor_create(trace, VMT_ORDER_TIME, &cursor);
	if (ret) {
		pm_say(bd->err, "%s", vmt_trace_error_message(trace));
		return ret;
	}
	while ((ret = vmt_trace_cursor_next(cursor, &r, &stream)) == 1) {
		/* Data accesses: an instruction fetch (lackey's I lines) is no part of a profile. */
		if (r->hdr.type != VMT_REC_EXACT || r->exact.access == VMT_ACCESS_EXEC)
			continue;
		ret = pass == 1 ? pass1(bd, r) : pass2(bd, r);
		if (ret)
			break;
	}
	if (ret < 0)
		pm_say(bd->err, "%s", ret == -ENOMEM ? "out of memory" :
		    ret == -EIO ? "the trace changed between the profiler's two passes" :
		    vmt_trace_error_message(trace));
	vmt_trace_cursor_free(cursor);
	return ret < 0 ? ret : 0;
}

/* The end of pass 2: the last runs, and the loops' regions gathered from the cells. */
static int finish_thread(struct bthread *b)
{
	struct pm_thread *t = &b->t;
	int ret;

	for (uint32_t i = 0; i < t->ninsns; i++)
		if (b->runs[i].run && (ret = end_run(&t->insns[i], &b->runs[i])))
			return ret;
	for (uint64_t c = 0; c < b->ncells; c++) {
		struct pm_loop *lp = &t->loops[b->cells[c].loop];
		struct pm_loop_region *grown = realloc(lp->regions,
						       (lp->nregions + 1) * sizeof(*grown));

		if (!grown)
			return -ENOMEM;
		lp->regions = grown;
		lp->regions[lp->nregions++] = b->cells[c].lr;
	}
	/* Each loop's regions in address order, whatever order the cells came in. */
	for (uint32_t l = 0; l < t->nloops; l++) {
		struct pm_loop *lp = &t->loops[l];

		for (uint32_t x = 1; x < lp->nregions; x++)
			for (uint32_t y = x; y && lp->regions[y - 1].region > lp->regions[y].region; y--) {
				struct pm_loop_region tmp = lp->regions[y];

				lp->regions[y] = lp->regions[y - 1];
				lp->regions[y - 1] = tmp;
			}
	}
	return 0;
}

int vmt_profile_build(struct vmt_trace *trace, const struct vmt_profile_options *options,
		      struct vmt_profile **profile, struct vmt_trace_error *err)
{
	struct builder bd = { .err = err };
	struct vmt_profile *p = NULL;
	int ret;

	bd.max_tokens = options && options->max_tokens ? options->max_tokens : 32;
	if (vmt_u64_map_init(&bd.thread_of)) {
		pm_say(err, "out of memory");
		return -ENOMEM;
	}
	ret = run_pass(&bd, trace, 1);
	if (!ret && !bd.nthreads) {
		pm_say(err, "no exact accesses to profile (record with --exact)");
		ret = -ENODATA;
	}
	for (uint32_t k = 0; k < bd.nthreads && !ret; k++) {
		struct bthread *b = &bd.threads[k];

		/* Pass 1's last runs, which no change of stride ended. */
		for (uint32_t i = 0; i < b->t.ninsns && !ret; i++)
			if (b->runs[i].run)
				ret = tok_add(&b->tokens, i, (uint64_t)b->runs[i].stride,
					      b->runs[i].run, &b->runs[i].tok_hint);
		if (!ret)
			ret = make_regions(b);
		if (!ret)
			ret = choose_tokens(&bd, b);
		if (!ret)
			ret = sort_insns(b);
		if (!ret)
			ret = make_loops(b);
		if (!ret) {
			ret = vmt_stack_distance_init(&b->sd);
			b->sd_ready = !ret;
		}
		free(b->tokens.slots);
		b->tokens.slots = NULL;
		free(b->back.slots);
		b->back.slots = NULL;
		if (ret)
			pm_say(err, "out of memory");
	}
	if (!ret) {
		/* Slices of the trace: PM_SLICES, or fewer so that each has 64 accesses or more. */
		uint64_t n = bd.index / 64 < PM_SLICES ? bd.index / 64 : PM_SLICES;

		bd.nslices = n ? (uint32_t)n : 1;
		bd.slice_len = (bd.index + bd.nslices - 1) / bd.nslices;
		bd.nslices = (uint32_t)((bd.index + bd.slice_len - 1) / bd.slice_len);
		bd.index = 0;
		bd.slices = calloc(bd.nslices, sizeof(*bd.slices));
		bd.mixed = calloc(bd.nslices, sizeof(*bd.mixed));
		if (!bd.slices || !bd.mixed) {
			pm_say(err, "out of memory");
			ret = -ENOMEM;
		}
	}
	if (!ret && bd.no_replay) {
		ret = run_pass(&bd, trace, 2);
	} else if (!ret) {
		for (uint64_t w = 0; w < bd.nswitches && !ret; w++) {
			uint64_t end = w + 1 < bd.nswitches ? bd.switches[w + 1].at : bd.nreplay;
			uint32_t k = bd.switches[w].thread;
			struct bthread *b = &bd.threads[k];

			for (uint64_t x = bd.switches[w].at; x < end && !ret; x++) {
				const struct replay *rp = &bd.replay[x];

				ret = count_slice(&bd, k);
				if (!ret)
					ret = pass2_access(b, rp->insn, rp->addr, rp->line);
			}
		}
		if (ret)
			pm_say(err, "out of memory");
	}
	free(bd.replay);
	free(bd.switches);
	for (uint32_t k = 0; k < bd.nthreads && !ret; k++)
		if ((ret = finish_thread(&bd.threads[k])))
			pm_say(err, "out of memory");
	if (!ret) {
		p = calloc(1, sizeof(*p));
		if (p)
			p->threads = calloc(bd.nthreads, sizeof(*p->threads));
		if (!p || !p->threads) {
			free(p);
			p = NULL;
			pm_say(err, "out of memory");
			ret = -ENOMEM;
		}
	}
	if (!ret) {
		/* The threads in (pid, tid) order, the slices' thread numbers to match. */
		uint64_t *keys = malloc(bd.nthreads * 2 * sizeof(*keys));
		uint32_t *rank = malloc(bd.nthreads * sizeof(*rank));

		if (!keys || !rank) {
			pm_say(err, "out of memory");
			ret = -ENOMEM;
		} else {
			for (uint32_t k = 0; k < bd.nthreads; k++) {
				keys[2 * k] = (uint64_t)bd.threads[k].t.pid << 32 | bd.threads[k].t.tid;
				keys[2 * k + 1] = k;
			}
			qsort(keys, bd.nthreads, 2 * sizeof(*keys), cmp_u64);
			for (uint32_t j = 0; j < bd.nthreads; j++) {
				uint32_t k = (uint32_t)keys[2 * j + 1];

				p->threads[j] = bd.threads[k].t;
				memset(&bd.threads[k].t, 0, sizeof(bd.threads[k].t));
				rank[k] = j;
			}
			for (uint32_t sl = 0; sl < bd.nslices; sl++)
				for (uint32_t i = 0; i < bd.slices[sl].n; i++)
					bd.slices[sl].e[i].to = rank[bd.slices[sl].e[i].to];
			p->nthreads = bd.nthreads;
			p->slices = bd.slices;
			p->mixed = bd.mixed;
			p->nslices = bd.nslices;
			p->slice_len = bd.slice_len;
			bd.slices = NULL;
			bd.mixed = NULL;
			*profile = p;
		}
		free(keys);
		free(rank);
		if (ret)
			vmt_profile_free(p);
	}
	for (uint32_t sl = 0; bd.slices && sl < bd.nslices; sl++)
		free(bd.slices[sl].e);
	free(bd.slices);
	free(bd.mixed);
	for (uint32_t k = 0; k < bd.nthreads; k++)
		bthread_free(&bd.threads[k]);
	free(bd.threads);
	vmt_u64_map_free(&bd.thread_of);
	return ret;
}
