/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * A hash map from u64 keys to u64 values, open addressing with linear
 * probing, grown to stay at most half full: the analyses' table of the
 * units (pages, frames, lines) they have seen. Entries are never removed.
 * A key and its value sit side by side: a lookup in a table larger than
 * the caches costs one cache miss, not two.
 */
#ifndef VMTRACE_INTERNAL_U64_MAP_H
#define VMTRACE_INTERNAL_U64_MAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct vmt_u64_slot {
	uint64_t key;		/* VMT_U64_MAP_EMPTY: a free slot */
	uint64_t value;
};

struct vmt_u64_map {
	struct vmt_u64_slot *slots;
	size_t mask;		/* slots - 1 */
	size_t count;		/* keys held, the empty key's included */
	bool has_empty_key;	/* the key VMT_U64_MAP_EMPTY is held ... */
	uint64_t empty_key_value;	/* ... with this value */
};

#define VMT_U64_MAP_EMPTY	UINT64_MAX

/* 0 or -ENOMEM. */
int vmt_u64_map_init(struct vmt_u64_map *map);
void vmt_u64_map_free(struct vmt_u64_map *map);
/* @key's value, or NULL when it is not held. */
uint64_t *vmt_u64_map_get(struct vmt_u64_map *map, uint64_t key);
/*
 * @key's value, added with value 0 (and *@added set) when it was not held;
 * NULL when memory runs out. The pointer lasts until the next put.
 */
uint64_t *vmt_u64_map_put(struct vmt_u64_map *map, uint64_t key, bool *added);
/*
 * Every key in turn: start *@pos at 0; 1 with *@key and *@value set, 0 at
 * the end. Not in any useful order.
 */
int vmt_u64_map_next(const struct vmt_u64_map *map, size_t *pos, uint64_t *key, uint64_t *value);

#endif /* VMTRACE_INTERNAL_U64_MAP_H */
