// SPDX-License-Identifier: GPL-2.0
/*
 * The enabled set: which unprotected pages to protect again, and in which
 * order. Pure bookkeeping, no page tables: the fault probe admits each
 * faulting page, and the eviction path (enabled.c) asks for victims, protects
 * them and flushes their TLB entries.
 *
 * The set is a queue of entries, oldest at @tail. FIFO evicts the oldest
 * entry. CLOCK asks whether the oldest page was accessed since the hand last
 * passed; if so it clears the bit and moves the entry to the newest end (its
 * second chance), otherwise it evicts it. Entries of the current run (see
 * VMT_ESET_PIN_MAX) are passed over, whatever the policy, and keep their
 * place.
 *
 * A page admitted while it is in the set already (a copy-on-write fault on an
 * enabled page) is removed from its old place: an entry becomes 0 and its
 * slot is reclaimed when the tail passes it, or by compaction when the
 * queue is full.
 */
#include <linux/log2.h>
#include <linux/mm.h>

#include "eset.h"

/* Faults one thread may take in a system call before it can evict (read() into protected pages). */
#define VMT_ESET_BACKLOG	1024

/**
 * vmt_eset_slots() - entries a set of @capacity pages needs
 * @capacity:	N
 *
 * Return: a power of two with room for @capacity entries, a full run and a
 * backlog of admissions not yet evicted.
 */
u32 vmt_eset_slots(u32 capacity)
{
	return roundup_pow_of_two(capacity + VMT_ESET_PIN_MAX + VMT_ESET_BACKLOG);
}

/**
 * vmt_eset_init() - an empty set
 * @set:	the set
 * @entries:	@slots entries of storage
 * @slots:	from vmt_eset_slots()
 * @capacity:	N, 0 allowed
 * @clock:	CLOCK rather than FIFO
 */
void vmt_eset_init(struct vmt_eset *set, struct vmt_eset_entry *entries, u32 slots,
		   u32 capacity, bool clock)
{
	memset(set, 0, sizeof(*set));
	set->entries = entries;
	set->slots = slots;
	set->capacity = capacity;
	set->clock = clock;
}

static struct vmt_eset_entry *vmt_eset_at(struct vmt_eset *set, u64 n)
{
	return &set->entries[n & (set->slots - 1)];
}

static bool vmt_eset_pinned(const struct vmt_eset *set, const struct vmt_eset_entry *e)
{
	return e->run == set->run && e->run_pos + VMT_ESET_PIN_MAX >= set->run_len;
}

/* Squeeze removed entries out, keeping the order of the others. */
static void vmt_eset_compact(struct vmt_eset *set)
{
	u64 r, w = set->tail;

	for (r = set->tail; r != set->head; r++) {
		struct vmt_eset_entry *e = vmt_eset_at(set, r);

		if (e->addr)
			*vmt_eset_at(set, w++) = *e;
	}
	set->head = w;
}

/**
 * vmt_eset_admit() - a page faulted: it is enabled from now on
 * @set:	the set
 * @addr:	any address in the page
 * @tid:	the faulting thread
 * @ip:		the faulting instruction
 * @kernel_mode: the fault came from kernel mode: it joins the thread's run
 *
 * Page 0 is never admitted: 0 marks a removed entry, and mmap_min_addr
 * keeps it unmapped (a fault there is a NULL dereference).
 *
 * Return: true; false for page 0, or when the queue is full even after
 * compaction (the page is then left out of the set and counted in
 * ->overflows).
 */
bool vmt_eset_admit(struct vmt_eset *set, unsigned long addr, u32 tid, unsigned long ip,
		    bool kernel_mode)
{
	struct vmt_eset_entry *e;
	u64 n;

	addr &= PAGE_MASK;
	if (!addr)
		return false;
	for (n = set->tail; n != set->head; n++) {
		e = vmt_eset_at(set, n);
		if (e->addr == addr) {
			e->addr = 0;
			set->live--;
			break;
		}
	}
	if (set->head - set->tail == set->slots)
		vmt_eset_compact(set);
	if (set->head - set->tail == set->slots) {
		set->overflows++;
		return false;
	}

	if (set->run_len && tid == set->run_tid && (kernel_mode || ip == set->run_ip)) {
		set->run_len++;
	} else {
		set->run++;
		set->run_len = 1;
		set->run_tid = tid;
		set->run_ip = ip;
	}
	e = vmt_eset_at(set, set->head++);
	e->addr = addr;
	e->ip = ip;
	e->tid = tid;
	e->run = set->run;
	e->run_pos = set->run_len - 1;
	set->live++;
	return true;
}

/* Move the tail past removed entries. */
static void vmt_eset_trim(struct vmt_eset *set)
{
	while (set->tail != set->head && !vmt_eset_at(set, set->tail)->addr)
		set->tail++;
}

/**
 * vmt_eset_evict() - choose the pages to protect again
 * @set:	the set
 * @victims:	filled with up to @max page addresses, in eviction order
 * @max:	room in @victims
 * @young:	CLOCK only: tests and clears a page's Accessed bit
 * @ctx:	passed to @young
 *
 * Removes entries, oldest first, until the set holds no more than its
 * capacity (pinned entries apart) or @victims is full. Pinned entries stay
 * where they are; under CLOCK an accessed entry moves to the newest end,
 * its bit cleared, so a second pass evicts in the same order if every page
 * was accessed. The caller protects the victims; call again while it
 * returns @max.
 *
 * Return: the number of victims.
 */
u32 vmt_eset_evict(struct vmt_eset *set, unsigned long *victims, u32 max,
		   vmt_eset_young_fn young, void *ctx)
{
	u32 n = 0, pass;
	u64 i, end;

	for (pass = 0; pass < 2 && set->live > set->capacity && n < max; pass++) {
		end = set->head;
		for (i = set->tail; i != end && set->live > set->capacity && n < max; i++) {
			struct vmt_eset_entry *e = vmt_eset_at(set, i);

			if (!e->addr || vmt_eset_pinned(set, e))
				continue;
			if (set->clock && young(ctx, e->addr)) {
				/* With no free slot it keeps its place, bit cleared. */
				if (set->head - set->tail < set->slots) {
					*vmt_eset_at(set, set->head++) = *e;
					e->addr = 0;
				}
				continue;
			}
			victims[n++] = e->addr;
			e->addr = 0;
			set->live--;
		}
		vmt_eset_trim(set);
	}
	return n;
}

/**
 * vmt_eset_pages_in() - the set's pages in [@start, @end)
 * @set:	the set
 * @start:	page-aligned
 * @end:	page-aligned, above @start
 * @pages:	filled with them, in the set's order
 * @max:	room in @pages
 *
 * Return: how many there are (more than @max: only @max were written).
 */
u32 vmt_eset_pages_in(struct vmt_eset *set, unsigned long start, unsigned long end,
		      unsigned long *pages, u32 max)
{
	const struct vmt_eset_entry *e;
	u32 n = 0;
	u64 i;

	for (i = set->tail; i != set->head; i++) {
		e = vmt_eset_at(set, i);
		if (e->addr && e->addr >= start && e->addr < end) {
			if (n < max)
				pages[n] = e->addr;
			n++;
		}
	}
	return n;
}

/**
 * vmt_eset_clear() - forget every page: the caller protected them all
 * @set:	the set
 */
void vmt_eset_clear(struct vmt_eset *set)
{
	set->head = 0;
	set->tail = 0;
	set->live = 0;
	set->run_len = 0;
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/eset-kunit.h"
#endif
