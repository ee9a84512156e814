// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* The analyses' hash map of units: see base/u64_map.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/u64_map.h"

#define INITIAL_SLOTS	1024

/* A 64-bit mixer (splitmix64's finalizer): keys differ in their low bits. */
static size_t hash(uint64_t key)
{
	key ^= key >> 30;
	key *= UINT64_C(0xbf58476d1ce4e5b9);
	key ^= key >> 27;
	key *= UINT64_C(0x94d049bb133111eb);
	key ^= key >> 31;
	return key;
}

static int alloc_slots(struct vmt_u64_map *map, size_t slots)
{
	map->slots = malloc(slots * sizeof(*map->slots));
	if (!map->slots)
		return -ENOMEM;
	/* Every key VMT_U64_MAP_EMPTY (all ones): every slot free. */
	memset(map->slots, 0xff, slots * sizeof(*map->slots));
	map->mask = slots - 1;
	return 0;
}

int vmt_u64_map_init(struct vmt_u64_map *map)
{
	memset(map, 0, sizeof(*map));
	return alloc_slots(map, INITIAL_SLOTS);
}

void vmt_u64_map_free(struct vmt_u64_map *map)
{
	free(map->slots);
	memset(map, 0, sizeof(*map));
}

/* The slot of @key, or the free slot where it would go. */
static size_t find(const struct vmt_u64_map *map, uint64_t key)
{
	size_t i = hash(key) & map->mask;

	while (map->slots[i].key != key && map->slots[i].key != VMT_U64_MAP_EMPTY)
		i = (i + 1) & map->mask;
	return i;
}

uint64_t *vmt_u64_map_get(struct vmt_u64_map *map, uint64_t key)
{
	size_t i;

	if (key == VMT_U64_MAP_EMPTY)
		return map->has_empty_key ? &map->empty_key_value : NULL;
	i = find(map, key);
	return map->slots[i].key == key ? &map->slots[i].value : NULL;
}

static int grow(struct vmt_u64_map *map)
{
	struct vmt_u64_map old = *map;
	size_t i, j;

	if (alloc_slots(map, (old.mask + 1) * 2)) {
		*map = old;
		return -ENOMEM;
	}
	for (i = 0; i <= old.mask; i++) {
		if (old.slots[i].key == VMT_U64_MAP_EMPTY)
			continue;
		j = find(map, old.slots[i].key);
		map->slots[j] = old.slots[i];
	}
	free(old.slots);
	return 0;
}

uint64_t *vmt_u64_map_put(struct vmt_u64_map *map, uint64_t key, bool *added)
{
	size_t i;

	*added = false;
	if (key == VMT_U64_MAP_EMPTY) {
		if (!map->has_empty_key) {
			map->has_empty_key = true;
			map->empty_key_value = 0;
			map->count++;
			*added = true;
		}
		return &map->empty_key_value;
	}
	i = find(map, key);
	if (map->slots[i].key == key)
		return &map->slots[i].value;
	/* At most half full: probes stay short. */
	if ((map->count + 1) * 2 > map->mask + 1) {
		if (grow(map))
			return NULL;
		i = find(map, key);
	}
	map->slots[i].key = key;
	map->slots[i].value = 0;
	map->count++;
	*added = true;
	return &map->slots[i].value;
}

int vmt_u64_map_next(const struct vmt_u64_map *map, size_t *pos, uint64_t *key, uint64_t *value)
{
	while (*pos <= map->mask) {
		size_t i = (*pos)++;

		if (map->slots[i].key != VMT_U64_MAP_EMPTY) {
			*key = map->slots[i].key;
			*value = map->slots[i].value;
			return 1;
		}
	}
	if (*pos == map->mask + 1 && map->has_empty_key) {
		(*pos)++;
		*key = VMT_U64_MAP_EMPTY;
		*value = map->empty_key_value;
		return 1;
	}
	return 0;
}
