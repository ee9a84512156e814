// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * LRU stack distances in O(log n) a reference (analysis/stack_distance.h).
 *
 * Time advances by one at each reference. Each unit keeps the time of its
 * last reference, and a Fenwick tree over times holds a 1 at each of those
 * times and a 0 everywhere else: a time whose unit has been referenced
 * again since no longer counts. The units referenced since a unit's last
 * time are then exactly the 1s after that time:
 *
 *   references   a  b  c  b  a  d  [c]
 *   time         1  2  3  4  5  6   7
 *   tree         0  0  1  1  1  1       c's last time is 3: after it, 1s at
 *                      ^  `--3 1s--'    4 (b), 5 (a), 6 (d): distance 3
 *
 * so a distance is (units held) - (1s up to the last time), a prefix sum,
 * and the reference moves the unit's 1 from its last time to now: three
 * walks of log2(times) steps each.
 *
 * When time reaches the tree's end, the units are renumbered in the order
 * of their last times (1...units, found by one scan of the times in
 * order), and the tree restarts at twice the units: it grows with the units
 * held, not with the trace's length, and renumbering costs O(n) once every
 * n or more references.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stack_distance.h"
#include "base/grow_array.h"

#define INITIAL_TIMES	1024

static uint32_t tree_prefix(const uint32_t *tree, uint32_t t)
{
	uint32_t sum = 0;

	for (; t; t &= t - 1)
		sum += tree[t];
	return sum;
}

static void tree_add(uint32_t *tree, uint32_t times, uint32_t t, uint32_t delta)
{
	for (; t <= times; t += t & -t)
		tree[t] += delta;	/* unsigned: -1 as delta wraps to a decrement */
}

int vmt_stack_distance_init(struct vmt_stack_distance *sd)
{
	memset(sd, 0, sizeof(*sd));
	sd->tree = calloc(INITIAL_TIMES + 1, sizeof(*sd->tree));
	if (!sd->tree)
		return -ENOMEM;
	if (vmt_u64_map_init(&sd->ids)) {
		free(sd->tree);
		/* Freeable after all: the map's failed init leaves its pointers behind. */
		memset(sd, 0, sizeof(*sd));
		return -ENOMEM;
	}
	sd->times = INITIAL_TIMES;
	return 0;
}

void vmt_stack_distance_free(struct vmt_stack_distance *sd)
{
	vmt_u64_map_free(&sd->ids);
	free(sd->last);
	free(sd->tree);
	memset(sd, 0, sizeof(*sd));
}

/*
 * Times 1..@live for the @live units whose 1s the tree holds, in the order
 * of their last times, and a tree of 2 * @live + 2 times (at least the
 * first size) with 1s at 1..@live. The unit being referenced, whose 1 was
 * just taken out, has its last time cleared (0) by the caller, which gives
 * it a new one. Linear in the times: each unit is written at its last time
 * in a table of times (reusing the old tree's memory, which the prefix sums
 * are not needed for), and a scan of that table in order gives the new times.
 */
static int renumber(struct vmt_stack_distance *sd, uint32_t live)
{
	uint64_t times = 2 * (uint64_t)live + 2;
	uint32_t *tree, *owner = sd->tree, rank = 0;
	uint32_t i;

	if (times < INITIAL_TIMES)
		times = INITIAL_TIMES;
	if (times >= UINT32_MAX)
		return -EOVERFLOW;
	tree = malloc((times + 1) * sizeof(*tree));
	if (!tree)
		return -ENOMEM;
	/* owner[t]: 1 + the unit whose last time is t, 0 for none. */
	memset(owner, 0, (sd->times + 1) * sizeof(*owner));
	for (i = 0; i < sd->room; i++)
		if (sd->last[i])
			owner[sd->last[i]] = i + 1;
	for (uint64_t t = 1; t <= sd->times; t++)
		if (owner[t])
			sd->last[owner[t] - 1] = ++rank;
	/* A Fenwick node t sums the times (t - lowbit(t), t]: here, how many are <= live. */
	tree[0] = 0;
	for (uint64_t t = 1; t <= times; t++) {
		uint64_t low = t - (t & -t), high = t < live ? t : live;

		tree[t] = high > low ? high - low : 0;
	}
	free(sd->tree);
	sd->tree = tree;
	sd->times = times;
	sd->now = live;
	return 0;
}

/*
 * The 1s in (@lo, @hi]: prefix(@hi) - prefix(@lo), the two walks down
 * taken together until they meet (their common rest cancels).
 */
static uint32_t tree_range(const uint32_t *tree, uint32_t lo, uint32_t hi)
{
	uint32_t sum = 0;

	while (hi != lo) {
		if (hi > lo) {
			sum += tree[hi];
			hi &= hi - 1;
		} else {
			sum -= tree[lo];
			lo &= lo - 1;
		}
	}
	return sum;
}

/*
 * The 1 at time @from moved to @to (@from < @to): the two walks up taken
 * together until they meet (past that, -1 and +1 cancel).
 */
static void tree_move(uint32_t *tree, uint32_t times, uint32_t from, uint32_t to)
{
	while (from != to) {
		if (from < to) {
			if (from > times)
				break;
			tree[from]--;
			from += from & -from;
		} else {
			if (to > times)
				break;
			tree[to]++;
			to += to & -to;
		}
	}
}

int vmt_stack_distance_access_unit(struct vmt_stack_distance *sd, uint32_t id, bool added,
				   uint64_t *distance)
{
	uint32_t live = sd->units;
	int err;

	if (!added && sd->now != sd->times) {
		/* The common case: its 1 moves from its last time to the next. */
		uint32_t last = sd->last[id];

		*distance = tree_range(sd->tree, last, sd->now);
		tree_move(sd->tree, sd->times, last, sd->now + 1);
		sd->last[id] = ++sd->now;
		return 0;
	}
	if (added) {
		uint64_t room = sd->room;

		/* New times 0: not held. */
		err = id >= UINT32_C(1) << 31 ? -EOVERFLOW :
		      vmt_grow_array((void **)&sd->last, &room, id + 1, sizeof(*sd->last));
		if (err)
			return err;
		sd->room = room;
		*distance = VMT_STACK_DISTANCE_COLD;
	} else {
		uint32_t last = sd->last[id];

		*distance = sd->units - tree_prefix(sd->tree, last);
		tree_add(sd->tree, sd->times, last, -1);
		live--;
	}
	if (sd->now == sd->times) {
		sd->last[id] = 0;	/* its 1 is out (or never in): no time to renumber */
		err = renumber(sd, live);
		if (err)
			return err;
	}
	sd->now++;
	tree_add(sd->tree, sd->times, sd->now, 1);
	sd->last[id] = sd->now;
	if (added)
		sd->units++;
	return 0;
}

void vmt_stack_distance_remove_unit(struct vmt_stack_distance *sd, uint32_t id)
{
	tree_add(sd->tree, sd->times, sd->last[id], -1);
	sd->last[id] = 0;
	sd->units--;
}

int vmt_stack_distance_access(struct vmt_stack_distance *sd, uint64_t key, uint64_t *distance,
			      uint32_t *id)
{
	uint64_t *slot;
	bool added;

	slot = vmt_u64_map_put(&sd->ids, key, &added);
	if (!slot)
		return -ENOMEM;
	if (added) {
		if (sd->ids.count > UINT32_MAX)
			return -EOVERFLOW;
		*slot = sd->ids.count - 1;
	}
	*id = *slot;
	return vmt_stack_distance_access_unit(sd, *id, added, distance);
}
