// SPDX-License-Identifier: GPL-2.0
/*
 * `vmtrace dump --diff`: records as difference-encoded text, in the manner
 * of Laplace's reference traces. Each line holds the time since the
 * previous line's record and the address as its difference from the
 * previous address of the same process and kind (references apart from
 * evictions), so that a loop over an array reads as a column of equal
 * strides and the text compresses well:
 *
 *     # vmtrace diff 1: dt pid tid cpu kind delta
 *     DT PID TID CPU KIND DELTA
 *
 *   DT     nanoseconds since the previous line's record, signed (written
 *          order is the order the rings were drained, not always time's);
 *          the first line's is its time since 0
 *   KIND   a reference: its access, R, W or X, then k when it came from
 *          kernel mode and h for a huge page; an eviction: E, then d when
 *          the page was written while enabled; L: records lost (PID and TID
 *          are -, DELTA is the count); another record type: its name as
 *          dump prints it (switch, fork, vma, ...), or T<n>, and DELTA 0
 *   DELTA  a reference's address minus the same pid's previous reference's,
 *          an eviction's minus the same pid's previous eviction's; signed
 *          decimal; a pid's first of each: the address itself
 *
 * Decoding sums the columns: time = sum of DT, address = the sum of DELTA
 * over the pid's lines of the same kind.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>

#include "record_diff.h"
#include "vmtrace/trace.h"

struct pid_slot {
	uint32_t pid;
	bool used;
	uint64_t reference, eviction;	/* the last addresses */
};

struct record_diff {
	uint64_t time;
	struct pid_slot *slots;
	size_t mask, used;
};

struct record_diff *record_diff_new(void)
{
	struct record_diff *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->mask = 63;
	d->slots = calloc(d->mask + 1, sizeof(*d->slots));
	if (!d->slots) {
		free(d);
		return NULL;
	}
	return d;
}

void record_diff_free(struct record_diff *d)
{
	if (!d)
		return;
	free(d->slots);
	free(d);
}

static struct pid_slot *find_slot(struct pid_slot *slots, size_t mask, uint32_t pid)
{
	size_t i = (pid * 0x9e3779b1u) & mask;

	while (slots[i].used && slots[i].pid != pid)
		i = (i + 1) & mask;
	return &slots[i];
}

/* The pid's slot, made (addresses 0) on first use; NULL without memory. */
static struct pid_slot *pid_slot(struct record_diff *d, uint32_t pid)
{
	struct pid_slot *slot;

	if (2 * (d->used + 1) > d->mask + 1) {
		size_t mask = 2 * d->mask + 1;
		struct pid_slot *slots = calloc(mask + 1, sizeof(*slots));

		if (!slots)
			return NULL;
		for (size_t i = 0; i <= d->mask; i++)
			if (d->slots[i].used)
				*find_slot(slots, mask, d->slots[i].pid) = d->slots[i];
		free(d->slots);
		d->slots = slots;
		d->mask = mask;
	}
	slot = find_slot(d->slots, d->mask, pid);
	if (!slot->used) {
		*slot = (struct pid_slot){ .pid = pid, .used = true };
		d->used++;
	}
	return slot;
}

void record_diff_header(FILE *out)
{
	fputs("# vmtrace diff 1: dt pid tid cpu kind delta\n", out);
}

int record_diff_print(struct record_diff *d, FILE *out, const struct vmt_record *rec)
{
	const struct vmt_record_header *h = &rec->hdr;
	int64_t dt = (int64_t)(h->time_ns - d->time);
	struct pid_slot *slot;
	uint64_t *last;
	char kind[8];
	size_t k = 0;

	d->time = h->time_ns;
	if (h->type == VMT_REC_LOST) {
		fprintf(out, "%" PRId64 " - - %u L %llu\n", dt, h->cpu,
			(unsigned long long)rec->lost.count);
		return 0;
	}
	if (h->type != VMT_REC_REFERENCE && h->type != VMT_REC_EVICT) {
		const char *name = vmt_record_type_name(h->type);

		if (name)
			fprintf(out, "%" PRId64 " %u %u %u %s 0\n", dt, h->pid, h->tid, h->cpu, name);
		else
			fprintf(out, "%" PRId64 " %u %u %u T%u 0\n", dt, h->pid, h->tid, h->cpu,
				h->type);
		return 0;
	}
	slot = pid_slot(d, h->pid);
	if (!slot)
		return -ENOMEM;
	last = h->type == VMT_REC_EVICT ? &slot->eviction : &slot->reference;
	if (h->type == VMT_REC_EVICT) {
		kind[k++] = 'E';
		if (rec->ref.evict_flags & VMT_EVICT_DIRTY)
			kind[k++] = 'd';
	} else {
		kind[k++] = rec->ref.access & VMT_ACCESS_WRITE ? 'W' :
			    rec->ref.access & VMT_ACCESS_EXEC ? 'X' : 'R';
		if (rec->ref.kernel_mode)
			kind[k++] = 'k';
	}
	if (rec->ref.flags & VMT_REF_HUGE)
		kind[k++] = 'h';
	kind[k] = '\0';
	fprintf(out, "%" PRId64 " %u %u %u %s %" PRId64 "\n", dt, h->pid, h->tid, h->cpu, kind,
		(int64_t)(rec->ref.vaddr - *last));
	*last = rec->ref.vaddr;
	return 0;
}
