/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * An ordered worker pool: jobs run on several threads at once, and each
 * job's completion runs afterwards in submission order, one at a time.
 * The trace writer compresses frames with it (the slow part, in parallel)
 * and appends them to the file (in sequence order).
 *
 *   submit 0 1 2 3 ...  ->  run() on any thread, any order
 *                       ->  done() in order 0 1 2 3 ..., never two at once
 *
 * At most @max_in_flight jobs are submitted and not yet done; submitting
 * one more waits until one is done (counted in vmt_work_pool_stalls()).
 * A pool made with @caller_runs has the waiter run jobs still queued
 * meanwhile, in vmt_work_pool_wait() too: run() may then be called on the
 * submitting thread.
 */
#ifndef VMTRACE_INTERNAL_WORK_POOL_H
#define VMTRACE_INTERNAL_WORK_POOL_H

#include <stdbool.h>
#include <stdint.h>

struct vmt_work {
	uint64_t sequence;		/* set by vmt_work_pool_submit() */
	struct vmt_work *next;		/* the pool's */
};

/* run(): the parallel part. done(): in sequence order; may free @work. */
typedef void (*vmt_work_fn)(struct vmt_work *work, void *ctx);

struct vmt_work_pool;

/* 0 or -errno. @threads and @max_in_flight are at least 1. */
int vmt_work_pool_create(struct vmt_work_pool **pool, unsigned int threads,
			 unsigned int max_in_flight, bool caller_runs, vmt_work_fn run,
			 vmt_work_fn done, void *ctx);
/* Queue @work; returns its sequence number (0, 1, 2, ...). */
uint64_t vmt_work_pool_submit(struct vmt_work_pool *pool, struct vmt_work *work);
/* Wait until every job submitted so far is done. */
void vmt_work_pool_wait(struct vmt_work_pool *pool);
/* Times vmt_work_pool_submit() had to wait for room. */
uint64_t vmt_work_pool_stalls(struct vmt_work_pool *pool);
/* Wait for every job, then stop the threads and free the pool. */
void vmt_work_pool_destroy(struct vmt_work_pool *pool);

#endif
