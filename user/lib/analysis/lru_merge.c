// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* LRU stack distances of parts, joined in time order (analysis/lru_merge.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/lru_merge.h"

void vmt_lru_merge_init(struct vmt_lru_merge *m)
{
	memset(m, 0, sizeof(*m));
}

void vmt_lru_merge_free(struct vmt_lru_merge *m)
{
	free(m->units);
	memset(m, 0, sizeof(*m));
}

/* The count of 1s at places 1..@p (Fenwick tree, 1-based). */
static size_t prefix(const uint32_t *tree, size_t p)
{
	size_t sum = 0;

	for (; p; p &= p - 1)
		sum += tree[p];
	return sum;
}

static void take(uint32_t *tree, size_t n, size_t p)
{
	for (; p <= n; p += p & -p)
		tree[p]--;
}

int vmt_lru_merge_part(struct vmt_lru_merge *m, const uint64_t *firsts, size_t nr_firsts,
		       uint64_t *distances, uint64_t *previous, const struct vmt_lru_unit *units,
		       size_t nr_units)
{
	size_t n = m->nr, left = n, kept = 0;
	struct vmt_u64_map places;
	uint32_t *tree = NULL;
	bool *taken = NULL;
	int err = -ENOMEM;

	if (vmt_u64_map_init(&places))
		return -ENOMEM;
	tree = malloc((n + 1) * sizeof(*tree));
	taken = calloc(n ? n : 1, sizeof(*taken));
	if (!tree || !taken)
		goto out;
	/* Every place holds a 1: tree[p] covers the (p & -p) places up to p. */
	for (size_t p = 1; p <= n; p++)
		tree[p] = (uint32_t)(p & -p);
	for (size_t p = 0; p < n; p++) {
		bool added;
		uint64_t *v = vmt_u64_map_put(&places, m->units[p].key, &added);

		if (!v)
			goto out;
		*v = p + 1;
	}
	for (size_t i = 0; i < nr_firsts; i++) {
		uint64_t *v = vmt_u64_map_get(&places, firsts[i]);

		if (!v) {
			distances[i] = VMT_STACK_DISTANCE_COLD;
			if (previous)
				previous[i] = 0;
			continue;
		}
		if (taken[*v - 1]) {
			err = -EBADMSG;	/* a key twice among the firsts */
			goto out;
		}
		/* The part's i earlier units, and the older parts' newer units it has not taken. */
		distances[i] = i + (left - prefix(tree, *v));
		if (previous)
			previous[i] = m->units[*v - 1].last;
		take(tree, n, *v);
		taken[*v - 1] = true;
		left--;
	}
	/* What is left, in its order, then the part's units on top. */
	if (left + nr_units > m->room) {
		size_t room = left + nr_units;
		struct vmt_lru_unit *grown = realloc(m->units, (room ? room : 1) * sizeof(*grown));

		if (!grown)
			goto out;
		m->units = grown;
		m->room = room;
	}
	for (size_t p = 0; p < n; p++)
		if (!taken[p])
			m->units[kept++] = m->units[p];
	if (nr_units)
		memcpy(m->units + kept, units, nr_units * sizeof(*units));
	m->nr = kept + nr_units;
	err = 0;
out:
	vmt_u64_map_free(&places);
	free(tree);
	free(taken);
	return err;
}

static int older_first(const void *a, const void *b)
{
	const struct vmt_lru_unit *x = a, *y = b;

	return x->last < y->last ? -1 : x->last > y->last;
}

int vmt_lru_units_of(const struct vmt_stack_distance *sd, uint64_t offset, uint64_t **firsts,
		     struct vmt_lru_unit **by_last)
{
	size_t n = sd->units, pos = 0;
	uint64_t key, id;

	*firsts = malloc((n ? n : 1) * sizeof(**firsts));
	*by_last = malloc((n ? n : 1) * sizeof(**by_last));
	if (!*firsts || !*by_last) {
		free(*firsts);
		free(*by_last);
		return -ENOMEM;
	}
	/* A unit's number is its place in the order of first reference. */
	while (vmt_u64_map_next(&sd->ids, &pos, &key, &id)) {
		(*firsts)[id] = key;
		(*by_last)[id] = (struct vmt_lru_unit){ .key = key, .last = sd->last[id] };
	}
	qsort(*by_last, n, sizeof(**by_last), older_first);
	for (size_t i = 0; i < n; i++)
		(*by_last)[i].last = offset + i + 1;
	return 0;
}
