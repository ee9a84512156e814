/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * LRU stack distances (Mattson et al.): for each reference, how many
 * distinct other units were referenced since the previous reference to the
 * same unit. An LRU memory of M units hits exactly the references whose
 * distance is below M, so one pass gives the LRU miss ratio of every size;
 * the same number is a reference's reuse distance.
 *
 * O(log n) a reference, n the units seen, with a Fenwick tree over
 * reference times (see stack_distance.c). Memory grows with the units,
 * not with the references.
 */
#ifndef VMTRACE_INTERNAL_STACK_DISTANCE_H
#define VMTRACE_INTERNAL_STACK_DISTANCE_H

#include <stdint.h>

#include "base/u64_map.h"

/* The distance of a unit's first reference: none (a cold miss in any memory). */
#define VMT_STACK_DISTANCE_COLD	UINT64_MAX

struct vmt_stack_distance {
	struct vmt_u64_map ids;	/* unit key -> its number, 0, 1, 2... in order of first reference */
	uint32_t *last;		/* a unit's number -> the time of its last reference (1...) */
	uint32_t *tree;		/* the Fenwick tree over times 1..@times */
	uint32_t times;		/* times the tree holds before it is renumbered */
	uint32_t now;		/* the last time given */
	uint32_t units;		/* units held: 1s in the tree */
	uint32_t room;		/* units @last holds; a time of 0: not held */
};

/* 0 or -ENOMEM. */
int vmt_stack_distance_init(struct vmt_stack_distance *sd);
void vmt_stack_distance_free(struct vmt_stack_distance *sd);
/*
 * A reference to @key: 0 with *@distance set (VMT_STACK_DISTANCE_COLD for
 * a first reference) and *@id the unit's number, or -ENOMEM, or
 * -EOVERFLOW past 2^32 - 2 units.
 */
int vmt_stack_distance_access(struct vmt_stack_distance *sd, uint64_t key, uint64_t *distance,
			      uint32_t *id);
/*
 * The same for a unit the caller numbers (@ids unused; @added: not held
 * before), so that units can leave: SHARDS with a fixed sample size evicts
 * units from the sample and reuses their numbers. The memory grows with the
 * largest number and with the units held, not with the units ever seen.
 */
int vmt_stack_distance_access_unit(struct vmt_stack_distance *sd, uint32_t id, bool added,
				   uint64_t *distance);
/* Unit @id, held, leaves: it no longer counts in the others' distances. */
void vmt_stack_distance_remove_unit(struct vmt_stack_distance *sd, uint32_t id);

#endif /* VMTRACE_INTERNAL_STACK_DISTANCE_H */
