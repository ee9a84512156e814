// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The ordered worker pool (base/work_pool.h). A finished job waits in a reorder
 * window of max_in_flight slots, indexed by its sequence number; whichever
 * thread finds the next job due in the window completes it, and any that
 * follow it, while the other workers keep running jobs. In a pool made
 * with caller_runs, a submitter that finds the window full, or a waiter,
 * runs queued jobs itself rather than sleep while one is queued: the
 * submitting thread is a worker too when it is ahead (synth's maker of
 * records, on a machine with a core for it and one for a worker, then
 * keeps both busy). Without, it only waits (a collector's drain loop goes
 * back to its rings as soon as a job is done, not after one of its own).
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>

#include "base/work_pool.h"

struct vmt_work_pool {
	pthread_mutex_t lock;
	pthread_cond_t work_ready;	/* a job was queued, or the pool stops */
	pthread_cond_t room;		/* a job was done */
	struct vmt_work *head, *tail;	/* queued, not running yet */
	struct vmt_work **finished;	/* the reorder window */
	unsigned int window;
	uint64_t next_sequence;		/* of the next job submitted */
	uint64_t next_done;		/* the job done() is due for */
	bool completing;		/* a worker is calling done() */
	bool stopping;
	bool caller_runs;		/* a waiting submitter runs queued jobs */
	uint64_t stalls;
	vmt_work_fn run, done;
	void *ctx;
	pthread_t *threads;
	unsigned int nr_threads;
};

/* Called with the lock held; drops it around each done(). */
static void complete_in_order(struct vmt_work_pool *pool)
{
	struct vmt_work *work;

	if (pool->completing)
		return;
	pool->completing = true;
	while ((work = pool->finished[pool->next_done % pool->window])) {
		pool->finished[pool->next_done % pool->window] = NULL;
		pthread_mutex_unlock(&pool->lock);
		pool->done(work, pool->ctx);
		pthread_mutex_lock(&pool->lock);
		pool->next_done++;
		pthread_cond_broadcast(&pool->room);
	}
	pool->completing = false;
}

/* With the lock held and a job queued: run the first one (the lock dropped), then complete. */
static void run_queued(struct vmt_work_pool *pool)
{
	struct vmt_work *work = pool->head;

	pool->head = work->next;
	if (!pool->head)
		pool->tail = NULL;
	pthread_mutex_unlock(&pool->lock);
	pool->run(work, pool->ctx);
	pthread_mutex_lock(&pool->lock);
	pool->finished[work->sequence % pool->window] = work;
	complete_in_order(pool);
}

static void *worker(void *arg)
{
	struct vmt_work_pool *pool = arg;

	pthread_mutex_lock(&pool->lock);
	for (;;) {
		while (!pool->head && !pool->stopping)
			pthread_cond_wait(&pool->work_ready, &pool->lock);
		if (!pool->head)
			break;
		run_queued(pool);
	}
	pthread_mutex_unlock(&pool->lock);
	return NULL;
}

static void stop_threads(struct vmt_work_pool *pool, unsigned int started)
{
	pthread_mutex_lock(&pool->lock);
	pool->stopping = true;
	pthread_cond_broadcast(&pool->work_ready);
	pthread_mutex_unlock(&pool->lock);
	for (unsigned int i = 0; i < started; i++)
		pthread_join(pool->threads[i], NULL);
}

static void pool_free(struct vmt_work_pool *pool)
{
	pthread_cond_destroy(&pool->room);
	pthread_cond_destroy(&pool->work_ready);
	pthread_mutex_destroy(&pool->lock);
	free(pool->threads);
	free(pool->finished);
	free(pool);
}

int vmt_work_pool_create(struct vmt_work_pool **poolp, unsigned int threads,
			 unsigned int max_in_flight, bool caller_runs, vmt_work_fn run,
			 vmt_work_fn done, void *ctx)
{
	struct vmt_work_pool *pool;
	int err;

	*poolp = NULL;
	if (!threads || !max_in_flight || !run || !done)
		return -EINVAL;
	pool = calloc(1, sizeof(*pool));
	if (!pool)
		return -ENOMEM;
	pool->finished = calloc(max_in_flight, sizeof(*pool->finished));
	pool->threads = calloc(threads, sizeof(*pool->threads));
	if (!pool->finished || !pool->threads) {
		free(pool->finished);
		free(pool->threads);
		free(pool);
		return -ENOMEM;
	}
	pthread_mutex_init(&pool->lock, NULL);
	pthread_cond_init(&pool->work_ready, NULL);
	pthread_cond_init(&pool->room, NULL);
	pool->window = max_in_flight;
	pool->caller_runs = caller_runs;
	pool->run = run;
	pool->done = done;
	pool->ctx = ctx;
	for (pool->nr_threads = 0; pool->nr_threads < threads; pool->nr_threads++) {
		err = pthread_create(&pool->threads[pool->nr_threads], NULL, worker, pool);
		if (err) {
			stop_threads(pool, pool->nr_threads);
			pool_free(pool);
			return -err;
		}
	}
	*poolp = pool;
	return 0;
}

uint64_t vmt_work_pool_submit(struct vmt_work_pool *pool, struct vmt_work *work)
{
	uint64_t sequence;

	pthread_mutex_lock(&pool->lock);
	if (pool->next_sequence - pool->next_done >= pool->window) {
		pool->stalls++;
		while (pool->next_sequence - pool->next_done >= pool->window) {
			if (pool->head && pool->caller_runs)
				run_queued(pool);
			else
				pthread_cond_wait(&pool->room, &pool->lock);
		}
	}
	sequence = work->sequence = pool->next_sequence++;
	work->next = NULL;
	if (pool->tail)
		pool->tail->next = work;
	else
		pool->head = work;
	pool->tail = work;
	pthread_cond_signal(&pool->work_ready);
	pthread_mutex_unlock(&pool->lock);
	return sequence;
}

void vmt_work_pool_wait(struct vmt_work_pool *pool)
{
	pthread_mutex_lock(&pool->lock);
	while (pool->next_done != pool->next_sequence) {
		if (pool->head && pool->caller_runs)
			run_queued(pool);
		else
			pthread_cond_wait(&pool->room, &pool->lock);
	}
	pthread_mutex_unlock(&pool->lock);
}

uint64_t vmt_work_pool_stalls(struct vmt_work_pool *pool)
{
	uint64_t stalls;

	pthread_mutex_lock(&pool->lock);
	stalls = pool->stalls;
	pthread_mutex_unlock(&pool->lock);
	return stalls;
}

void vmt_work_pool_destroy(struct vmt_work_pool *pool)
{
	if (!pool)
		return;
	vmt_work_pool_wait(pool);
	stop_threads(pool, pool->nr_threads);
	pool_free(pool);
}
