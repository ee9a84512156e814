// SPDX-License-Identifier: GPL-2.0
/*
 * The enabled set: which unprotected pages to protect again, and in which
 * order. Pure bookkeeping, no page tables: the fault probe admits each
 * faulting page, and the eviction path (evict.c) asks for victims, protects
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
 * queue is full. The old place is found through the set's index, a hash
 * table of the live entries: the fault probe does not walk the queue.
 */
#include <linux/hash.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "protect/enabled_set.h"

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
 * vmt_eset_storage() - bytes of storage a set of @slots entries needs
 * @slots:	from vmt_eset_slots()
 *
 * Return: the size of the entries and of the index.
 */
size_t vmt_eset_storage(u32 slots)
{
	return (size_t)slots * (sizeof(struct vmt_eset_entry) + 2 * sizeof(u32));
}

/**
 * vmt_eset_init() - an empty set
 * @set:	the set
 * @storage:	vmt_eset_storage(@slots) bytes, suitably aligned (vmalloc)
 * @slots:	from vmt_eset_slots()
 * @capacity:	N, 0 allowed
 * @clock:	CLOCK rather than FIFO
 */
void vmt_eset_init(struct vmt_eset *set, void *storage, u32 slots, u32 capacity, bool clock)
{
	memset(set, 0, sizeof(*set));
	set->entries = storage;
	set->index = (u32 *)(set->entries + slots);
	memset(set->index, 0, 2 * sizeof(u32) * slots);
	set->slots = slots;
	set->capacity = capacity;
	set->batch = clamp_t(u32, capacity / 32, 1, VMT_ESET_BATCH_MAX);
	set->clock = clock;
}

static struct vmt_eset_entry *vmt_eset_at(struct vmt_eset *set, u64 n)
{
	return &set->entries[n & (set->slots - 1)];
}

/* The index cell where the search for @addr starts. */
static u32 vmt_eset_home(const struct vmt_eset *set, unsigned long addr)
{
	return hash_long(addr >> PAGE_SHIFT, ilog2(2 * set->slots));
}

/* The index cell of @addr's entry, or -1 if the page is not in the set. */
static s64 vmt_eset_find(const struct vmt_eset *set, unsigned long addr)
{
	u32 mask = 2 * set->slots - 1, i, slot;

	for (i = vmt_eset_home(set, addr); (slot = set->index[i]); i = (i + 1) & mask)
		if (set->entries[slot - 1].addr == addr)
			return i;
	return -1;
}

/* Index the entry of @addr, at @slot. */
static void vmt_eset_index_add(struct vmt_eset *set, unsigned long addr, u32 slot)
{
	u32 mask = 2 * set->slots - 1, i;

	/* At most @slots live entries in 2 * @slots cells: there is room. */
	for (i = vmt_eset_home(set, addr); set->index[i]; i = (i + 1) & mask)
		;
	set->index[i] = slot + 1;
}

/*
 * Empty index cell @i and move later cells of its probe sequence back, so
 * that every entry stays reachable from its home cell (the deletion of
 * linear probing, without tombstones). The entries the other cells name are
 * live, their addresses set.
 */
static void vmt_eset_index_del(struct vmt_eset *set, u32 i)
{
	u32 mask = 2 * set->slots - 1, j = i, home;

	for (;;) {
		set->index[i] = 0;
		for (;;) {
			j = (j + 1) & mask;
			if (!set->index[j])
				return;
			home = vmt_eset_home(set, set->entries[set->index[j] - 1].addr);
			/* Cell j may move to i if its home is not in (i, j]. */
			if (((j - home) & mask) >= ((j - i) & mask))
				break;
		}
		set->index[i] = set->index[j];
		i = j;
	}
}

/* The entry of @addr moved to @slot. */
static void vmt_eset_index_move(struct vmt_eset *set, unsigned long addr, u32 slot)
{
	s64 i = vmt_eset_find(set, addr);

	if (!WARN_ON_ONCE(i < 0))
		set->index[i] = slot + 1;
}

/* Take the live entry @e out of the set. */
static void vmt_eset_remove(struct vmt_eset *set, struct vmt_eset_entry *e)
{
	s64 i = vmt_eset_find(set, e->addr);

	if (!WARN_ON_ONCE(i < 0))
		vmt_eset_index_del(set, i);
	e->addr = 0;
	set->live--;
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

		if (!e->addr)
			continue;
		if (r != w) {
			*vmt_eset_at(set, w) = *e;
			vmt_eset_index_move(set, e->addr, w & (set->slots - 1));
		}
		w++;
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
	s64 i;

	addr &= PAGE_MASK;
	if (!addr)
		return false;
	i = vmt_eset_find(set, addr);
	if (i >= 0)
		vmt_eset_remove(set, &set->entries[set->index[i] - 1]);
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
	vmt_eset_index_add(set, addr, set->head & (set->slots - 1));
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
 * When the set holds more pages than its capacity, removes entries, oldest
 * first, until it holds its capacity less a batch, plus one (pinned entries
 * apart), or @victims is full. Pinned entries stay where they are; under
 * CLOCK an accessed entry moves to the newest end, its bit cleared, so a
 * second pass evicts in the same order if every page was accessed. The
 * caller protects the victims; call again while it returns @max.
 *
 * Return: the number of victims.
 */
u32 vmt_eset_evict(struct vmt_eset *set, unsigned long *victims, u32 max,
		   vmt_eset_young_fn young, void *ctx)
{
	u32 n = 0, pass, goal;
	u64 i, end;

	if (!vmt_eset_over(set))
		return 0;
	/* batch <= max(capacity, 1): the goal is at least 0. */
	goal = set->capacity + 1 - set->batch;
	for (pass = 0; pass < 2 && set->live > goal && n < max; pass++) {
		end = set->head;
		for (i = set->tail; i != end && set->live > goal && n < max; i++) {
			struct vmt_eset_entry *e = vmt_eset_at(set, i);

			if (!e->addr || vmt_eset_pinned(set, e))
				continue;
			if (set->clock && young(ctx, e->addr)) {
				/* With no free slot it keeps its place, bit cleared. */
				if (set->head - set->tail < set->slots) {
					vmt_eset_index_move(set, e->addr,
							    set->head & (set->slots - 1));
					*vmt_eset_at(set, set->head++) = *e;
					e->addr = 0;
				}
				continue;
			}
			victims[n++] = e->addr;
			vmt_eset_remove(set, e);
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
	/* 8 bytes a slot: 16 KiB for the default N. */
	memset(set->index, 0, 2 * sizeof(u32) * set->slots);
	set->head = 0;
	set->tail = 0;
	set->live = 0;
	set->run_len = 0;
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/enabled_set-kunit.h"
#endif
