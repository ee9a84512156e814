/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The cache simulator's building blocks (cache_array.c):
 *
 * - struct cs_array: the ways of a set-associative cache or TLB, each
 *   holding a line (a line address and its process) with a dirty bit, and
 *   the replacement policies' state (vmtrace/cachesim.h says what each
 *   policy does);
 * - struct cs_table: a hash table of (line, pid) keys, each with a u32
 *   value, that can remove keys (linear probing, backward-shift removal);
 * - struct cs_fa_lru: a fully associative LRU cache of N lines, in O(1) an
 *   access: what the three Cs compare a cache with.
 *
 * Lines are line addresses (address >> line shift); what a "line" is (a
 * cache line, a 4 KiB or 2 MiB page) is the caller's business.
 */
#ifndef VMTRACE_ANALYSIS_CACHE_ARRAY_H
#define VMTRACE_ANALYSIS_CACHE_ARRAY_H

#include <stdbool.h>
#include <stdint.h>

#define CS_NO_WAY	UINT32_MAX

struct cs_array {
	uint32_t sets, ways;
	uint64_t set_mask;	/* sets - 1 when sets is a power of two, else 0 */
	uint8_t policy;		/* enum vmt_cache_policy */
	uint64_t *line;		/* [set * ways + way] */
	uint32_t *pid;
	uint64_t *stamp;	/* LRU: the last access; FIFO: the fill */
	uint8_t *state;		/* bit 0 valid, bit 1 dirty; bits 2-3 SRRIP's RRPV */
	uint8_t *plru;		/* PLRU: ways - 1 tree bits a set */
	uint64_t clock;
	uint64_t rng;		/* the random policy's splitmix64 state */
	/*
	 * The line the last demand access found or filled, while nothing
	 * has filled or emptied a way since: another access to it changes
	 * no policy's state (it is the most recent already), so it is a hit
	 * with nothing to do but a write's.
	 */
	bool last_valid;
	uint32_t last_pid, last_set, last_way;
	uint64_t last_line;
};

#define CS_VALID	0x1
#define CS_DIRTY	0x2
#define CS_RRPV_SHIFT	2
#define CS_RRPV_MAX	3

/* 0 or -ENOMEM; @ways a power of two for PLRU (the caller checked). */
int cs_array_init(struct cs_array *a, uint32_t sets, uint32_t ways, uint8_t policy, uint64_t seed);
void cs_array_free(struct cs_array *a);

static inline uint32_t cs_array_set(const struct cs_array *a, uint64_t line)
{
	return (uint32_t)(a->set_mask ? line & a->set_mask : line % a->sets);
}

/* The way of @set holding (@line, @pid), or CS_NO_WAY. */
static inline uint32_t cs_array_find(const struct cs_array *a, uint32_t set, uint64_t line,
				     uint32_t pid)
{
	uint64_t base = (uint64_t)set * a->ways;
	uint32_t w;

	for (w = 0; w < a->ways; w++)
		if (a->line[base + w] == line && a->pid[base + w] == pid &&
		    (a->state[base + w] & CS_VALID))
			return w;
	return CS_NO_WAY;
}

/* (@line, @pid) at @way of @set is the last one accessed. */
static inline void cs_array_set_last(struct cs_array *a, uint64_t line, uint32_t pid, uint32_t set,
				     uint32_t way)
{
	a->last_valid = true;
	a->last_line = line;
	a->last_pid = pid;
	a->last_set = set;
	a->last_way = way;
}

static inline bool cs_array_is_last(const struct cs_array *a, uint64_t line, uint32_t pid)
{
	return a->last_valid && a->last_line == line && a->last_pid == pid;
}

/* A hit on @way of @set: the policy's bookkeeping. */
void cs_array_touch(struct cs_array *a, uint32_t set, uint32_t way);
/*
 * Put (@line, @pid) in @set, in its lowest empty way or the policy's
 * victim's; when a valid line was there, it is in *@old_line, *@old_pid
 * and *@old_state (0 when none). Returns the way.
 */
uint32_t cs_array_fill(struct cs_array *a, uint32_t set, uint64_t line, uint32_t pid,
		       uint8_t dirty, uint64_t *old_line, uint32_t *old_pid, uint8_t *old_state);
/* Empty @way of @set (invalidation); returns its state before. */
uint8_t cs_array_remove(struct cs_array *a, uint32_t set, uint32_t way);

struct cs_table_slot {
	uint64_t line;
	uint32_t pid;
	uint32_t value;		/* CS_TABLE_FREE: the slot is free */
};

#define CS_TABLE_FREE	UINT32_MAX

struct cs_table {
	struct cs_table_slot *slots;
	uint64_t mask;
	uint64_t count;
};

int cs_table_init(struct cs_table *t, uint64_t expect);
void cs_table_free(struct cs_table *t);
/* The slot of (@line, @pid), or NULL. */
struct cs_table_slot *cs_table_get(struct cs_table *t, uint64_t line, uint32_t pid);
/*
 * The slot of (@line, @pid), added with @value when it was not there
 * (*@added true); NULL when memory runs out. Valid until the next change.
 */
struct cs_table_slot *cs_table_put(struct cs_table *t, uint64_t line, uint32_t pid, uint32_t value,
				   bool *added);
void cs_table_remove(struct cs_table *t, struct cs_table_slot *slot);

/* A fully associative LRU cache of @capacity lines: a table and a list. */
struct cs_fa_node {
	uint64_t line;
	uint32_t pid;
	uint32_t prev, next;	/* CS_NO_WAY at the ends */
};

struct cs_fa_lru {
	struct cs_table index;	/* (line, pid) to its node */
	struct cs_fa_node *nodes;
	uint32_t capacity, used;
	uint32_t head, tail;	/* most and least recently used */
};

int cs_fa_lru_init(struct cs_fa_lru *f, uint32_t capacity);
void cs_fa_lru_free(struct cs_fa_lru *f);
/* An access: 1 a hit, 0 a miss (the line is then in, the LRU one out), -ENOMEM. */
int cs_fa_lru_access(struct cs_fa_lru *f, uint64_t line, uint32_t pid);

#endif /* VMTRACE_ANALYSIS_CACHE_ARRAY_H */
