// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Frames decoded ahead (frame_readahead.h). A few slots, each a frame
 * number, a state and a buffer, under one lock: the queue is the queued
 * slots in the order queued, and a worker takes the oldest. The lock is
 * held only to move a slot between states, never while a frame decodes:
 * a slot that is RUNNING belongs to the one thread decoding it.
 *
 * A slot decoded and never taken (the reader moved elsewhere, or stopped)
 * would hold its slot for good; queueing reclaims the oldest such slot
 * once as many frames have been queued after it as there are slots.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "trace/frame_readahead.h"

enum slot_state { SLOT_FREE, SLOT_QUEUED, SLOT_RUNNING, SLOT_DONE };

struct slot {
	uint64_t frame_no;
	uint64_t stamp;			/* when queued: the queue's order */
	enum slot_state state;
	struct vmt_frame_buf buf;
};

struct vmt_readahead {
	pthread_mutex_t lock;
	pthread_cond_t queued;		/* a slot was queued, or the pool stops */
	pthread_cond_t done;		/* a slot was decoded */
	struct slot *slots;
	unsigned int nr_slots;
	uint64_t next_stamp;
	uint64_t decoded;
	bool stopping;
	vmt_decode_fn decode;
	void *ctx;
	pthread_t *threads;
	unsigned int nr_threads;
};

/* Called with the lock held: the oldest queued slot, or NULL. */
static struct slot *oldest(struct vmt_readahead *ra, enum slot_state state)
{
	struct slot *best = NULL;

	for (unsigned int i = 0; i < ra->nr_slots; i++) {
		struct slot *s = &ra->slots[i];

		if (s->state == state && (!best || s->stamp < best->stamp))
			best = s;
	}
	return best;
}

/* Called with the lock held, which it drops while it decodes queued slot @s. */
static void run(struct vmt_readahead *ra, struct slot *s)
{
	s->state = SLOT_RUNNING;
	pthread_mutex_unlock(&ra->lock);
	s->buf.err = ra->decode(ra->ctx, s->frame_no, &s->buf);
	pthread_mutex_lock(&ra->lock);
	s->state = SLOT_DONE;
	ra->decoded++;
	pthread_cond_broadcast(&ra->done);
}

static void *worker(void *arg)
{
	struct vmt_readahead *ra = arg;
	struct slot *s = NULL;

	pthread_mutex_lock(&ra->lock);
	for (;;) {
		while (!ra->stopping && !(s = oldest(ra, SLOT_QUEUED)))
			pthread_cond_wait(&ra->queued, &ra->lock);
		if (ra->stopping)
			break;
		run(ra, s);
	}
	pthread_mutex_unlock(&ra->lock);
	return NULL;
}

int vmt_readahead_create(struct vmt_readahead **out, unsigned int threads, unsigned int slots,
			 vmt_decode_fn decode, void *ctx)
{
	struct vmt_readahead *ra = calloc(1, sizeof(*ra));
	int err = -ENOMEM;

	*out = NULL;
	if (!ra)
		return -ENOMEM;
	ra->slots = calloc(slots, sizeof(*ra->slots));
	ra->threads = calloc(threads, sizeof(*ra->threads));
	if (!ra->slots || !ra->threads)
		goto fail;
	ra->nr_slots = slots;
	ra->decode = decode;
	ra->ctx = ctx;
	if (pthread_mutex_init(&ra->lock, NULL))
		goto fail;
	if (pthread_cond_init(&ra->queued, NULL))
		goto fail_lock;
	if (pthread_cond_init(&ra->done, NULL))
		goto fail_queued;
	for (; ra->nr_threads < threads; ra->nr_threads++) {
		err = -pthread_create(&ra->threads[ra->nr_threads], NULL, worker, ra);
		if (err) {
			vmt_readahead_destroy(ra);
			return err;
		}
	}
	*out = ra;
	return 0;

fail_queued:
	pthread_cond_destroy(&ra->queued);
fail_lock:
	pthread_mutex_destroy(&ra->lock);
fail:
	free(ra->slots);
	free(ra->threads);
	free(ra);
	return err;
}

/* Called with the lock held: @frame_no's slot, or NULL. */
static struct slot *find(struct vmt_readahead *ra, uint64_t frame_no)
{
	for (unsigned int i = 0; i < ra->nr_slots; i++)
		if (ra->slots[i].state != SLOT_FREE && ra->slots[i].frame_no == frame_no)
			return &ra->slots[i];
	return NULL;
}

void vmt_readahead_queue(struct vmt_readahead *ra, uint64_t frame_no)
{
	struct slot *s;

	pthread_mutex_lock(&ra->lock);
	if (find(ra, frame_no))
		goto out;
	s = oldest(ra, SLOT_FREE);
	if (!s) {
		/* A decoded frame no one took while as many were queued after it (see the top). */
		s = oldest(ra, SLOT_DONE);
		if (!s || s->stamp + ra->nr_slots > ra->next_stamp)
			goto out;
	}
	s->frame_no = frame_no;
	s->stamp = ra->next_stamp++;
	s->state = SLOT_QUEUED;
	pthread_cond_signal(&ra->queued);
out:
	pthread_mutex_unlock(&ra->lock);
}

int vmt_readahead_take(struct vmt_readahead *ra, uint64_t frame_no, struct vmt_frame_buf *buf)
{
	struct vmt_frame_buf mine;
	struct slot *s;

	pthread_mutex_lock(&ra->lock);
	s = find(ra, frame_no);
	if (!s) {
		pthread_mutex_unlock(&ra->lock);
		return 0;
	}
	/*
	 * The reader would only wait: while a worker decodes its frame, it
	 * decodes the next one queued, and it decodes its own if no worker
	 * has begun it.
	 */
	while (s->state != SLOT_DONE) {
		struct slot *q = s->state == SLOT_QUEUED ? s : oldest(ra, SLOT_QUEUED);

		if (q)
			run(ra, q);
		else
			pthread_cond_wait(&ra->done, &ra->lock);
	}
	mine = *buf;
	*buf = s->buf;
	s->buf = mine;
	s->state = SLOT_FREE;
	pthread_mutex_unlock(&ra->lock);
	return 1;
}

uint64_t vmt_readahead_decoded(struct vmt_readahead *ra)
{
	uint64_t n;

	pthread_mutex_lock(&ra->lock);
	n = ra->decoded;
	pthread_mutex_unlock(&ra->lock);
	return n;
}

void vmt_frame_buf_free(struct vmt_frame_buf *buf)
{
	free(buf->data);
	vmt_buf_free(&buf->payload);
	memset(buf, 0, sizeof(*buf));
}

void vmt_readahead_destroy(struct vmt_readahead *ra)
{
	if (!ra)
		return;
	pthread_mutex_lock(&ra->lock);
	ra->stopping = true;
	pthread_cond_broadcast(&ra->queued);
	pthread_mutex_unlock(&ra->lock);
	for (unsigned int i = 0; i < ra->nr_threads; i++)
		pthread_join(ra->threads[i], NULL);
	for (unsigned int i = 0; i < ra->nr_slots; i++)
		vmt_frame_buf_free(&ra->slots[i].buf);
	pthread_cond_destroy(&ra->done);
	pthread_cond_destroy(&ra->queued);
	pthread_mutex_destroy(&ra->lock);
	free(ra->slots);
	free(ra->threads);
	free(ra);
}
