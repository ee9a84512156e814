/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * LRU stack distances computed in parts, joined (lru_merge.c): PARDA's
 * way (Niu et al., "PARDA: A Fast Parallel Reuse Distance Analysis
 * Algorithm", IPDPS 2012). A trace cut by time into parts, each part's
 * distances are computed alone (stack_distance.h); a reference whose unit
 * the part had not seen before is cold there, and only those need the
 * parts before it. The merge keeps what the parts so far leave behind, the
 * units by the time of their last reference, and takes the parts in time
 * order: for each, its first references are given their distances, then
 * its units are put on top.
 *
 *   the parts so far, oldest last reference first:   a  d  b  c
 *   the next part's references:                      c  b  e  c  a
 *   its first references:  c: 0 of its own before it, 0 newer left  -> 0
 *                          b: 1 (c),  0 newer left (c was taken)     -> 1
 *                          e: no part before had it                  -> cold
 *                          a: 3 (c b e), 1 newer left (d)            -> 4
 *   then, oldest first:    what the part did not take (d), then its own units
 *                          by their last references in it (b e c a)
 *
 * A part's i-th first reference x is preceded, within the part, by the i
 * units of its earlier first references, and, before the part, by the
 * units newer than x's last reference that the part has not referenced
 * yet: its distance is i plus those, counted in a Fenwick tree over the
 * merged units' places from which each taken unit is removed.
 */
#ifndef VMTRACE_INTERNAL_LRU_MERGE_H
#define VMTRACE_INTERNAL_LRU_MERGE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/stack_distance.h"
#include "base/u64_map.h"

/* A unit a part leaves behind: its key, and the time of its last reference. */
struct vmt_lru_unit {
	uint64_t key;
	uint64_t last;
};

struct vmt_lru_merge {
	struct vmt_lru_unit *units;	/* the parts so far's, oldest last reference first */
	size_t nr, room;
};

void vmt_lru_merge_init(struct vmt_lru_merge *m);
void vmt_lru_merge_free(struct vmt_lru_merge *m);
/*
 * The next part: its @nr_firsts first references' keys in order (each key
 * once), whose distances go to @distances (VMT_STACK_DISTANCE_COLD when no
 * part before had the unit) and the times of their units' last references
 * before the part to @previous (0 when cold; NULL: not wanted); then its
 * @nr_units units, each key once, oldest last reference first, all after
 * every unit so far. 0, -ENOMEM, or -EBADMSG for a key twice among
 * @firsts (the merge is then as it was).
 */
int vmt_lru_merge_part(struct vmt_lru_merge *m, const uint64_t *firsts, size_t nr_firsts,
		       uint64_t *distances, uint64_t *previous, const struct vmt_lru_unit *units,
		       size_t nr_units);

/*
 * What a part leaves for the merge, from its stack (@sd): its units' keys in
 * order of first reference (*@firsts) and its units oldest last reference
 * first (*@by_last, their last references numbered @offset + 1 on), both
 * malloc()ed, sd->units of each. 0 or -ENOMEM.
 */
int vmt_lru_units_of(const struct vmt_stack_distance *sd, uint64_t offset, uint64_t **firsts,
		     struct vmt_lru_unit **by_last);

#endif /* VMTRACE_INTERNAL_LRU_MERGE_H */
