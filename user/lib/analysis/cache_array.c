// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ways of a cache and its replacement policies, a removable hash table
 * of lines, and the fully associative LRU cache the three Cs need.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/cachesim.h"
#include "analysis/cache_array.h"

static uint64_t splitmix64(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

int cs_array_init(struct cs_array *a, uint32_t sets, uint32_t ways, uint8_t policy, uint64_t seed)
{
	uint64_t n = (uint64_t)sets * ways;

	memset(a, 0, sizeof(*a));
	a->sets = sets;
	a->ways = ways;
	a->policy = policy;
	a->set_mask = (sets & (sets - 1)) == 0 ? sets - 1 : 0;
	if (sets == 1)
		a->set_mask = 0;	/* line % 1 is 0 all the same */
	a->rng = seed;
	a->line = calloc(n, sizeof(*a->line));
	a->pid = calloc(n, sizeof(*a->pid));
	a->stamp = calloc(n, sizeof(*a->stamp));
	a->state = calloc(n, 1);
	if (policy == VMT_CACHE_PLRU && ways > 1)
		a->plru = calloc((uint64_t)sets * (ways - 1), 1);
	if (!a->line || !a->pid || !a->stamp || !a->state ||
	    (policy == VMT_CACHE_PLRU && ways > 1 && !a->plru)) {
		cs_array_free(a);
		return -ENOMEM;
	}
	return 0;
}

void cs_array_free(struct cs_array *a)
{
	free(a->line);
	free(a->pid);
	free(a->stamp);
	free(a->state);
	free(a->plru);
	memset(a, 0, sizeof(*a));
}

/*
 * Tree-PLRU: node i's children are 2i + 1 and 2i + 2, the ways the leaves
 * in order; a bit 0 points left. Touching a way points every bit on its
 * path away from it.
 *
 *            node 0            4 ways: way 2 touched sets node 0 to 0
 *           /      \           (the left half is older) and node 2 to 1
 *       node 1    node 2       (way 3, its sibling, is the older one).
 *       /  \      /  \
 *     w0   w1   w2   w3
 */
static void plru_touch(struct cs_array *a, uint32_t set, uint32_t way)
{
	uint8_t *bits = a->plru + (uint64_t)set * (a->ways - 1);
	uint32_t node = 0, lo = 0, n = a->ways;

	while (n > 1) {
		uint32_t half = n / 2;
		bool right = way >= lo + half;

		bits[node] = right ? 0 : 1;
		node = 2 * node + (right ? 2 : 1);
		if (right)
			lo += half;
		n = half;
	}
}

static uint32_t plru_victim(const struct cs_array *a, uint32_t set)
{
	const uint8_t *bits = a->plru + (uint64_t)set * (a->ways - 1);
	uint32_t node = 0, lo = 0, n = a->ways;

	while (n > 1) {
		uint32_t half = n / 2;
		bool right = bits[node];

		node = 2 * node + (right ? 2 : 1);
		if (right)
			lo += half;
		n = half;
	}
	return lo;
}

static uint8_t rrpv(uint8_t state)
{
	return state >> CS_RRPV_SHIFT & CS_RRPV_MAX;
}

static void set_rrpv(uint8_t *state, uint8_t v)
{
	*state = (uint8_t)((*state & ~(CS_RRPV_MAX << CS_RRPV_SHIFT)) | v << CS_RRPV_SHIFT);
}

void cs_array_touch(struct cs_array *a, uint32_t set, uint32_t way)
{
	uint64_t i = (uint64_t)set * a->ways + way;

	switch (a->policy) {
	case VMT_CACHE_LRU:
		a->stamp[i] = ++a->clock;
		break;
	case VMT_CACHE_PLRU:
		if (a->ways > 1)
			plru_touch(a, set, way);
		break;
	case VMT_CACHE_SRRIP:
		set_rrpv(&a->state[i], 0);
		break;
	default:	/* FIFO and random: a hit changes nothing */
		break;
	}
}

static uint32_t victim(struct cs_array *a, uint32_t set)
{
	uint64_t base = (uint64_t)set * a->ways;
	uint32_t w, best = 0;

	switch (a->policy) {
	case VMT_CACHE_RANDOM:
		return (uint32_t)(splitmix64(&a->rng) % a->ways);
	case VMT_CACHE_PLRU:
		return a->ways > 1 ? plru_victim(a, set) : 0;
	case VMT_CACHE_SRRIP:
		for (;;) {
			for (w = 0; w < a->ways; w++)
				if (rrpv(a->state[base + w]) == CS_RRPV_MAX)
					return w;
			for (w = 0; w < a->ways; w++)
				set_rrpv(&a->state[base + w], rrpv(a->state[base + w]) + 1);
		}
	default:	/* LRU and FIFO: the oldest stamp */
		for (w = 1; w < a->ways; w++)
			if (a->stamp[base + w] < a->stamp[base + best])
				best = w;
		return best;
	}
}

uint32_t cs_array_fill(struct cs_array *a, uint32_t set, uint64_t line, uint32_t pid,
		       uint8_t dirty, uint64_t *old_line, uint32_t *old_pid, uint8_t *old_state)
{
	uint64_t base = (uint64_t)set * a->ways;
	uint32_t w;

	for (w = 0; w < a->ways; w++)
		if (!(a->state[base + w] & CS_VALID))
			break;
	if (w == a->ways)
		w = victim(a, set);
	a->last_valid = false;
	*old_state = a->state[base + w] & CS_VALID ? a->state[base + w] : 0;
	*old_line = a->line[base + w];
	*old_pid = a->pid[base + w];
	a->line[base + w] = line;
	a->pid[base + w] = pid;
	a->state[base + w] = CS_VALID | (dirty ? CS_DIRTY : 0);
	switch (a->policy) {
	case VMT_CACHE_LRU:
	case VMT_CACHE_FIFO:
		a->stamp[base + w] = ++a->clock;
		break;
	case VMT_CACHE_PLRU:
		if (a->ways > 1)
			plru_touch(a, set, w);
		break;
	case VMT_CACHE_SRRIP:
		set_rrpv(&a->state[base + w], CS_RRPV_MAX - 1);
		break;
	default:
		break;
	}
	return w;
}

uint8_t cs_array_remove(struct cs_array *a, uint32_t set, uint32_t way)
{
	uint64_t i = (uint64_t)set * a->ways + way;
	uint8_t old = a->state[i];

	a->last_valid = false;
	a->state[i] = 0;
	a->stamp[i] = 0;
	return old;
}

/* ---- The table ---- */

static uint64_t table_hash(uint64_t line, uint32_t pid)
{
	uint64_t h = (line ^ (uint64_t)pid << 47) * UINT64_C(0x9e3779b97f4a7c15);

	return h ^ h >> 29;
}

int cs_table_init(struct cs_table *t, uint64_t expect)
{
	uint64_t n = 16, i;

	while (n < expect * 2)
		n *= 2;
	t->slots = malloc(n * sizeof(*t->slots));
	if (!t->slots)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		t->slots[i].value = CS_TABLE_FREE;
	t->mask = n - 1;
	t->count = 0;
	return 0;
}

void cs_table_free(struct cs_table *t)
{
	free(t->slots);
	memset(t, 0, sizeof(*t));
}

struct cs_table_slot *cs_table_get(struct cs_table *t, uint64_t line, uint32_t pid)
{
	uint64_t i = table_hash(line, pid) & t->mask;

	for (;; i = (i + 1) & t->mask) {
		struct cs_table_slot *s = &t->slots[i];

		if (s->value == CS_TABLE_FREE)
			return NULL;
		if (s->line == line && s->pid == pid)
			return s;
	}
}

static int table_grow(struct cs_table *t)
{
	struct cs_table old = *t;
	uint64_t i;
	bool added;

	if (cs_table_init(t, (old.mask + 1)))
		return (*t = old), -ENOMEM;
	for (i = 0; i <= old.mask; i++)
		if (old.slots[i].value != CS_TABLE_FREE)
			cs_table_put(t, old.slots[i].line, old.slots[i].pid, old.slots[i].value,
				     &added);
	free(old.slots);
	return 0;
}

struct cs_table_slot *cs_table_put(struct cs_table *t, uint64_t line, uint32_t pid, uint32_t value,
				   bool *added)
{
	uint64_t i;

	if ((t->count + 1) * 2 > t->mask + 1 && table_grow(t))
		return NULL;
	for (i = table_hash(line, pid) & t->mask;; i = (i + 1) & t->mask) {
		struct cs_table_slot *s = &t->slots[i];

		if (s->value == CS_TABLE_FREE) {
			s->line = line;
			s->pid = pid;
			s->value = value;
			t->count++;
			*added = true;
			return s;
		}
		if (s->line == line && s->pid == pid) {
			*added = false;
			return s;
		}
	}
}

/*
 * Linear probing's removal without tombstones: the entries after the hole,
 * up to a free slot, move back into it when their home is not between the
 * hole and where they are.
 */
void cs_table_remove(struct cs_table *t, struct cs_table_slot *slot)
{
	uint64_t hole = (uint64_t)(slot - t->slots), i = hole;

	for (;;) {
		uint64_t home;

		i = (i + 1) & t->mask;
		if (t->slots[i].value == CS_TABLE_FREE)
			break;
		home = table_hash(t->slots[i].line, t->slots[i].pid) & t->mask;
		/* Moves back when home is not in (hole, i], cyclically. */
		if ((i > hole && (home <= hole || home > i)) ||
		    (i < hole && home <= hole && home > i)) {
			t->slots[hole] = t->slots[i];
			hole = i;
		}
	}
	t->slots[hole].value = CS_TABLE_FREE;
	t->count--;
}

/* ---- The fully associative LRU cache ---- */

int cs_fa_lru_init(struct cs_fa_lru *f, uint32_t capacity)
{
	memset(f, 0, sizeof(*f));
	f->nodes = malloc((uint64_t)capacity * sizeof(*f->nodes));
	if (!f->nodes || cs_table_init(&f->index, capacity < 1024 ? capacity : 1024)) {
		free(f->nodes);
		return -ENOMEM;
	}
	f->capacity = capacity;
	f->head = f->tail = CS_NO_WAY;
	return 0;
}

void cs_fa_lru_free(struct cs_fa_lru *f)
{
	cs_table_free(&f->index);
	free(f->nodes);
	memset(f, 0, sizeof(*f));
}

static void fa_unlink(struct cs_fa_lru *f, uint32_t n)
{
	struct cs_fa_node *node = &f->nodes[n];

	if (node->prev != CS_NO_WAY)
		f->nodes[node->prev].next = node->next;
	else
		f->head = node->next;
	if (node->next != CS_NO_WAY)
		f->nodes[node->next].prev = node->prev;
	else
		f->tail = node->prev;
}

static void fa_push_front(struct cs_fa_lru *f, uint32_t n)
{
	f->nodes[n].prev = CS_NO_WAY;
	f->nodes[n].next = f->head;
	if (f->head != CS_NO_WAY)
		f->nodes[f->head].prev = n;
	f->head = n;
	if (f->tail == CS_NO_WAY)
		f->tail = n;
}

int cs_fa_lru_access(struct cs_fa_lru *f, uint64_t line, uint32_t pid)
{
	struct cs_table_slot *s = cs_table_get(&f->index, line, pid);
	uint32_t n;
	bool added;

	if (s) {
		n = s->value;
		if (f->head != n) {
			fa_unlink(f, n);
			fa_push_front(f, n);
		}
		return 1;
	}
	if (f->used < f->capacity) {
		n = f->used++;
	} else {
		n = f->tail;
		fa_unlink(f, n);
		cs_table_remove(&f->index, cs_table_get(&f->index, f->nodes[n].line,
							f->nodes[n].pid));
	}
	f->nodes[n].line = line;
	f->nodes[n].pid = pid;
	if (!cs_table_put(&f->index, line, pid, n, &added))
		return -ENOMEM;
	fa_push_front(f, n);
	return 0;
}
