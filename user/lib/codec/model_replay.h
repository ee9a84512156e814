/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The model codec's picture of the tracer within one frame
 * (model_replay.c): every (pid, virtual page) the frame named, with the
 * frame it was last seen in, and each process's enabled set as the frame's
 * references built it, oldest first, so that an eviction is coded as its
 * place in that queue. Internal to libvmtrace; codec_model.c is its user.
 *
 * Only references seen in the frame are in a queue: a frame decodes alone,
 * so pages enabled before it are unknown to it, and their evictions are
 * coded in full. Encoder and decoder run the same replay, which need not
 * match the kernel's to be correct, only to predict well; it does match
 * kernel/protect/enabled_set.c's choices (tests/unit/test_replay_kernel.c).
 */
#ifndef VMTRACE_INTERNAL_MODEL_REPLAY_H
#define VMTRACE_INTERNAL_MODEL_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#define VMT_REPLAY_NONE		UINT32_MAX

/* A u64 key to a dense index 0, 1, ... in insertion order; open addressing. */
struct vmt_index {
	uint64_t *keys;
	uint32_t *slots;		/* index + 1; 0: empty */
	uint32_t mask, count, max;
};

int vmt_index_init(struct vmt_index *ix, uint32_t max);
void vmt_index_free(struct vmt_index *ix);
/* Forget every key. */
void vmt_index_clear(struct vmt_index *ix);

static inline uint32_t vmt_index_home(const struct vmt_index *ix, uint64_t key)
{
	key ^= key >> 31;
	key *= 0x9e3779b97f4a7c15ull;
	return (uint32_t)(key >> 32) & ix->mask;
}

/* @key's index, or VMT_REPLAY_NONE. */
static inline uint32_t vmt_index_find(const struct vmt_index *ix, uint64_t key)
{
	for (uint32_t i = vmt_index_home(ix, key); ix->slots[i]; i = (i + 1) & ix->mask)
		if (ix->keys[i] == key)
			return ix->slots[i] - 1;
	return VMT_REPLAY_NONE;
}

/*
 * @key's index, added if new (*added set); VMT_REPLAY_NONE when @max keys
 * are in already.
 */
static inline uint32_t vmt_index_add(struct vmt_index *ix, uint64_t key, bool *added)
{
	uint32_t i;

	*added = false;
	for (i = vmt_index_home(ix, key); ix->slots[i]; i = (i + 1) & ix->mask)
		if (ix->keys[i] == key)
			return ix->slots[i] - 1;
	if (ix->count == ix->max)
		return VMT_REPLAY_NONE;
	*added = true;
	ix->keys[i] = key;
	ix->slots[i] = ++ix->count;
	return ix->count - 1;
}

struct vmt_replay_page {
	uint64_t vpage;
	uint64_t pfn;
	uint32_t pid;
	uint32_t prev, next;		/* in its queue; VMT_REPLAY_NONE at the ends */
	uint32_t queue;			/* the queue it is in, when queued */
	uint32_t evicted_at;		/* its last eviction's number from 1; 0: none */
	uint64_t next_vpage;		/* the page referenced after it on its CPU, last time */
	bool has_next;
	bool queued;
	bool has_pfn;
	bool written;			/* a write reference since it was last queued */
	uint8_t passes;			/* eviction walks that passed it over, up to 3 */
	bool has_offset;
	uint16_t last_offset;		/* in the page, of its last reference */
};

/* A process's enabled set as the frame saw it: oldest at head. */
struct vmt_replay_queue {
	uint32_t head, tail, len;
};

struct vmt_replay {
	struct vmt_index page_index, queue_index;
	struct vmt_replay_page *pages;
	struct vmt_replay_queue *queues;
};

/* Room for @max_records records' pages and processes. 0 or -ENOMEM. */
int vmt_replay_init(struct vmt_replay *r, uint32_t max_records);
void vmt_replay_free(struct vmt_replay *r);
/* Forget every page and process: a new frame. */
void vmt_replay_clear(struct vmt_replay *r);

/* The page of (@pid, @vpage), or VMT_REPLAY_NONE. */
uint32_t vmt_replay_find_page(const struct vmt_replay *r, uint32_t pid, uint64_t vpage);
/* The same, added when new (*added set). */
uint32_t vmt_replay_page(struct vmt_replay *r, uint32_t pid, uint64_t vpage, bool *added);
/* @pid's queue, made when new; NULL when full (cannot happen within max_records). */
struct vmt_replay_queue *vmt_replay_queue(struct vmt_replay *r, uint32_t pid);
/*
 * Page @page to the newest end of @q, from where it was: a reference
 * enabled it, or (@requeue) an eviction walk passed over it.
 */
void vmt_replay_enqueue(struct vmt_replay *r, struct vmt_replay_queue *q, uint32_t page,
			bool requeue);

static inline void vmt_replay_admit(struct vmt_replay *r, struct vmt_replay_queue *q,
				    uint32_t page)
{
	vmt_replay_enqueue(r, q, page, false);
}
/* Page @page left the set, if it was in one. */
void vmt_replay_remove(struct vmt_replay *r, uint32_t page);
/* CLOCK's second chance: @page, passed over, moves to the newest end. */
static inline void vmt_replay_requeue(struct vmt_replay *r, struct vmt_replay_queue *q,
				      uint32_t page)
{
	vmt_replay_enqueue(r, q, page, true);
}

#endif /* VMTRACE_INTERNAL_MODEL_REPLAY_H */
