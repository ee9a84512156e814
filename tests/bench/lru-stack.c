// SPDX-License-Identifier: GPL-2.0
/*
 * vmt-lru-stack < RAW: the exact LRU miss-ratio curve of raw records (as
 * `vmtrace export --format raw` writes them) by Mattson's stack algorithm
 * done plainly, the peer `scripts/bench-analyses` measures `vmtrace mrc`
 * against. The units (virtual pages of each process, 2 MiB where huge, as
 * `vmtrace mrc` counts them by default) are kept in an array in order of
 * their last reference, most recent first; a reference searches the array
 * from the top for its unit, and its depth there is its stack distance:
 *
 *   stack   c a d b      reference a: found at depth 1 (distance 1),
 *   after   a c d b      the units above it shifted down one
 *
 * O(distance) a reference, O(footprint) memory: what a simulator without a
 * tree pays. References are taken in time order (stable), as vmt_analyze()
 * takes them. Prints `pages,faults` at the sizes `vmtrace mrc` picks by
 * default (powers of two below the footprint, and the footprint) and the
 * references and footprint on stderr.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/vmtrace.h>

struct ref {
	uint64_t time, key, index;
};

static int by_time(const void *a, const void *b)
{
	const struct ref *x = a, *y = b;

	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

static void *grow(void *p, size_t *room, size_t size)
{
	*room = *room ? *room * 2 : 4096;
	p = realloc(p, *room * size);
	if (!p) {
		perror("vmt-lru-stack");
		exit(1);
	}
	return p;
}

int main(void)
{
	struct vmt_record rec;
	struct ref *refs = NULL;
	uint64_t *stack = NULL, *hist = NULL, n = 0, depth = 0;
	size_t room = 0, stack_room = 0, hist_room = 0;

	while (fread(&rec, sizeof(rec), 1, stdin) == 1) {
		unsigned int shift = rec.ref.flags & VMT_REF_HUGE ? 21 : 12;

		if (rec.hdr.type != VMT_REC_REFERENCE)
			continue;
		if (n == room)
			refs = grow(refs, &room, sizeof(*refs));
		/* vmt_ref_key(): pid << 42 | page number */
		refs[n].key = (uint64_t)rec.hdr.pid << 42 |
			      ((rec.ref.vaddr >> shift) & ((UINT64_C(1) << 42) - 1));
		refs[n].time = rec.hdr.time_ns;
		refs[n].index = n;
		n++;
	}
	qsort(refs, n, sizeof(*refs), by_time);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t key = refs[i].key, d = 0;

		while (d < depth && stack[d] != key)
			d++;
		if (d == depth) {
			/* cold: the stack grows by one */
			if (depth == stack_room)
				stack = grow(stack, &stack_room, sizeof(*stack));
			depth++;
		} else {
			while (d >= hist_room) {
				size_t old = hist_room;

				hist = grow(hist, &hist_room, sizeof(*hist));
				memset(hist + old, 0, (hist_room - old) * sizeof(*hist));
			}
			hist[d]++;
		}
		memmove(stack + 1, stack, d * sizeof(*stack));
		stack[0] = key;
	}
	/* A reference at distance d hits in every memory of more than d pages. */
	printf("pages,faults\n");
	for (uint64_t m = 1;; m *= 2) {
		uint64_t size = m < depth ? m : depth, hits = 0;

		if (!size)
			break;
		for (uint64_t d = 0; d < size && d < hist_room; d++)
			hits += hist[d];
		printf("%llu,%llu\n", (unsigned long long)size, (unsigned long long)(n - hits));
		if (size == depth)
			break;
	}
	fprintf(stderr, "vmt-lru-stack: %llu references, footprint %llu\n",
		(unsigned long long)n, (unsigned long long)depth);
	free(refs);
	free(stack);
	free(hist);
	return 0;
}
