/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Frames decoded ahead of the reader on a pool of threads. The reader
 * queues the frames it expects to need next (vmt_readahead_queue()); a
 * worker decodes each into a slot's buffer; the reader takes a frame
 * (vmt_readahead_take()), waiting for it if a worker is on it, decoding it
 * itself if none has started it, and swaps buffers with the slot, so no
 * frame is copied. Which frames come next is the reader's business; the
 * pool knows frame numbers and a decode function only.
 *
 *   reader:  queue 5 6 7 ........ take 5 (done: swap) ... take 6 (running: wait)
 *   workers:          decode 5 | decode 6 | decode 7
 */
#ifndef VMTRACE_INTERNAL_FRAME_READAHEAD_H
#define VMTRACE_INTERNAL_FRAME_READAHEAD_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

/* A decoded frame: its entries, the compressed payload read for them, and why it failed. */
struct vmt_frame_buf {
	uint8_t *data;
	size_t capacity;
	struct vmt_buf payload;
	int err;
	char why[224];
};

/*
 * Decodes frame @frame_no into @buf (growing it); 0, or -errno with the
 * reason in buf->why. Called on any thread, several at once, so it may
 * only read what the trace keeps unchanged once opened.
 */
typedef int (*vmt_decode_fn)(void *ctx, uint64_t frame_no, struct vmt_frame_buf *buf);

struct vmt_readahead;

/* @threads workers (at least 1) and @slots frames decoded or queued at most. 0 or -errno. */
int vmt_readahead_create(struct vmt_readahead **ra, unsigned int threads, unsigned int slots,
			 vmt_decode_fn decode, void *ctx);
/* Queue @frame_no unless it is queued or decoded already, or no slot is free. */
void vmt_readahead_queue(struct vmt_readahead *ra, uint64_t frame_no);
/*
 * If @frame_no was queued: swap its decoded buffer into @buf (decoding it
 * here if no worker had begun) and return 1, the outcome in buf->err.
 * Otherwise 0, @buf untouched.
 */
int vmt_readahead_take(struct vmt_readahead *ra, uint64_t frame_no, struct vmt_frame_buf *buf);
/* Frames the workers (and takes of queued frames) have decoded. */
uint64_t vmt_readahead_decoded(struct vmt_readahead *ra);
/* Stop the workers (a frame being decoded is finished first) and free everything. */
void vmt_readahead_destroy(struct vmt_readahead *ra);
/* Free a buffer's memory. */
void vmt_frame_buf_free(struct vmt_frame_buf *buf);

#endif
