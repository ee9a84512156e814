// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The model codec's enabled-set replay and page map (see
 * codec/model_replay.h). The kernel's set (kernel/protect/enabled_set.c) is a
 * queue: a faulting page joins the newest end, leaving its old place if it
 * had one; FIFO evicts from the oldest end, passing over the entries of the
 * current run; CLOCK moves an accessed entry to the newest end instead of
 * evicting it. The replay keeps the same queue of the pages this frame's
 * references enabled, per process; codec_model.c codes each eviction as a
 * walk from its oldest end and decides per frame whether passed-over
 * entries move to the newest end (CLOCK) or stay (FIFO's pinned runs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "codec/model_replay.h"

int vmt_index_init(struct vmt_index *ix, uint32_t max)
{
	uint32_t cells = 16;

	/*
	 * At most two thirds full, and a power of two: a 4 MiB frame's 65537
	 * keys take 131072 cells, not twice as many (the tables, cleared each
	 * frame, are much of what decoding touches).
	 */
	while (cells < (uint64_t)max + max / 2 + 2)
		cells *= 2;
	ix->keys = malloc(cells * sizeof(*ix->keys));
	ix->slots = calloc(cells, sizeof(*ix->slots));
	ix->mask = cells - 1;
	ix->count = 0;
	ix->max = max;
	if (!ix->keys || !ix->slots) {
		vmt_index_free(ix);
		return -ENOMEM;
	}
	return 0;
}

void vmt_index_free(struct vmt_index *ix)
{
	free(ix->keys);
	free(ix->slots);
	ix->keys = NULL;
	ix->slots = NULL;
}

void vmt_index_clear(struct vmt_index *ix)
{
	/* Nothing added since the last clear: every slot is empty (an exact frame's pages). */
	if (!ix->count)
		return;
	memset(ix->slots, 0, ((size_t)ix->mask + 1) * sizeof(*ix->slots));
	ix->count = 0;
}

void vmt_replay_clear(struct vmt_replay *r)
{
	vmt_index_clear(&r->page_index);
	vmt_index_clear(&r->queue_index);
}

int vmt_replay_init(struct vmt_replay *r, uint32_t max_records)
{
	uint32_t max = max_records + 1;

	*r = (struct vmt_replay){ 0 };
	r->pages = malloc(max * sizeof(*r->pages));
	r->queues = malloc(max * sizeof(*r->queues));
	if (!r->pages || !r->queues || vmt_index_init(&r->page_index, max) ||
	    vmt_index_init(&r->queue_index, max)) {
		vmt_replay_free(r);
		return -ENOMEM;
	}
	return 0;
}

void vmt_replay_free(struct vmt_replay *r)
{
	free(r->pages);
	free(r->queues);
	r->pages = NULL;
	r->queues = NULL;
	vmt_index_free(&r->page_index);
	vmt_index_free(&r->queue_index);
}

/* Virtual pages stay below 2^45 (57-bit addresses); a collision only predicts worse. */
static uint64_t page_key(uint32_t pid, uint64_t vpage)
{
	return vpage ^ (uint64_t)pid << 45 ^ (uint64_t)pid >> 19;
}

uint32_t vmt_replay_find_page(const struct vmt_replay *r, uint32_t pid, uint64_t vpage)
{
	return vmt_index_find(&r->page_index, page_key(pid, vpage));
}

uint32_t vmt_replay_page(struct vmt_replay *r, uint32_t pid, uint64_t vpage, bool *added)
{
	uint32_t i = vmt_index_add(&r->page_index, page_key(pid, vpage), added);

	if (i != VMT_REPLAY_NONE && *added)
		r->pages[i] = (struct vmt_replay_page){
			.vpage = vpage, .pid = pid,
			.prev = VMT_REPLAY_NONE, .next = VMT_REPLAY_NONE,
		};
	return i;
}

struct vmt_replay_queue *vmt_replay_queue(struct vmt_replay *r, uint32_t pid)
{
	bool added;
	uint32_t i = vmt_index_add(&r->queue_index, pid, &added);

	if (i == VMT_REPLAY_NONE)
		return NULL;
	if (added)
		r->queues[i] = (struct vmt_replay_queue){ VMT_REPLAY_NONE, VMT_REPLAY_NONE, 0 };
	return &r->queues[i];
}

void vmt_replay_remove(struct vmt_replay *r, uint32_t page)
{
	struct vmt_replay_page *p = &r->pages[page];
	struct vmt_replay_queue *q;

	if (!p->queued)
		return;
	q = &r->queues[p->queue];
	if (p->prev != VMT_REPLAY_NONE)
		r->pages[p->prev].next = p->next;
	else
		q->head = p->next;
	if (p->next != VMT_REPLAY_NONE)
		r->pages[p->next].prev = p->prev;
	else
		q->tail = p->prev;
	p->prev = p->next = VMT_REPLAY_NONE;
	p->queued = false;
	q->len--;
}

void vmt_replay_enqueue(struct vmt_replay *r, struct vmt_replay_queue *q, uint32_t page,
			bool requeue)
{
	struct vmt_replay_page *p = &r->pages[page];

	vmt_replay_remove(r, page);
	p->queue = (uint32_t)(q - r->queues);
	if (!requeue)
		p->passes = 0;
	p->prev = q->tail;
	p->next = VMT_REPLAY_NONE;
	if (q->tail != VMT_REPLAY_NONE)
		r->pages[q->tail].next = page;
	else
		q->head = page;
	q->tail = page;
	p->queued = true;
	q->len++;
}
