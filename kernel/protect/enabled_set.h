/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The enabled set (kVMTrace's EVMS): the pages of one address space that are
 * left unprotected, so that references to them are not logged.
 */
#ifndef _VMTRACE_ENABLED_SET_H
#define _VMTRACE_ENABLED_SET_H

#include <linux/types.h>

/*
 * x86 instructions can need several pages at once (the instruction itself
 * across a page boundary, a string move's source and destination), and the
 * kernel touches user memory on the way back to user space (rseq's fields in
 * TLS, signal frames). The pages of one thread's current run, that is its
 * consecutive faults at one user instruction address and the kernel-mode
 * faults that follow them, stay enabled, up to this many, even beyond the
 * set's capacity: evicting one before the instruction completes would make
 * it fault forever.
 */
#define VMT_ESET_PIN_MAX	6

/*
 * A full set evicts its oldest pages in batches of N/32, up to this many
 * (16 for the default N of 512; one at a time below N = 64): it keeps
 * between N - batch + 1 and N pages. One eviction then protects and flushes
 * for that many faults, and the faults in between queue no work.
 */
#define VMT_ESET_BATCH_MAX	16

struct vmt_eset_entry {
	unsigned long addr;	/* page address; 0: removed */
	unsigned long ip;	/* instruction that admitted it */
	u64 run;		/* which run of same-thread, same-ip faults */
	u32 run_pos;		/* its place in that run */
	u32 tid;
};

/*
 * struct vmt_eset - a queue of enabled pages, oldest first
 * @entries:	@slots entries; entry n is at n & (@slots - 1)
 * @slots:	a power of two, > @capacity + VMT_ESET_PIN_MAX
 * @index:	2 * @slots cells: an open-addressing hash table (linear
 *		probing) from page address to entry, so that admitting a page
 *		finds its old entry without a walk of the queue. A cell holds
 *		the entry's slot + 1, 0 when empty; each live entry has one.
 * @capacity:	N, the pages the set may keep
 * @batch:	pages an eviction protects, when the set holds more than N
 * @clock:	evict with CLOCK (second chance for accessed pages), not FIFO
 * @head:	next entry to fill
 * @tail:	oldest entry
 * @live:	entries in [@tail, @head) not removed
 * @run:	the current run; @run_len its length, @run_tid and @run_ip
 *		its thread and instruction
 * @overflows:	admissions refused because every slot was in use: the page
 *		stays enabled until stop or the next re-protection
 *
 * The caller serializes every call on one set.
 */
struct vmt_eset {
	struct vmt_eset_entry *entries;
	u32 *index;
	u32 slots;
	u32 capacity;
	u32 batch;
	bool clock;
	u64 head;
	u64 tail;
	u32 live;
	u64 run;
	u32 run_len;
	u32 run_tid;
	unsigned long run_ip;
	u64 overflows;
};

/* Whether the page at @addr was accessed since last asked; clears the bit. */
typedef bool (*vmt_eset_young_fn)(void *ctx, unsigned long addr);

u32 vmt_eset_slots(u32 capacity);
size_t vmt_eset_storage(u32 slots);
void vmt_eset_init(struct vmt_eset *set, void *storage, u32 slots, u32 capacity, bool clock);
bool vmt_eset_admit(struct vmt_eset *set, unsigned long addr, u32 tid, unsigned long ip,
		    bool kernel_mode);
u32 vmt_eset_evict(struct vmt_eset *set, unsigned long *victims, u32 max,
		   vmt_eset_young_fn young, void *ctx);
u32 vmt_eset_pages_in(struct vmt_eset *set, unsigned long start, unsigned long end,
		      unsigned long *pages, u32 max);
void vmt_eset_clear(struct vmt_eset *set);

/* Whether the set holds more pages than it may: an eviction is due. */
static inline bool vmt_eset_over(const struct vmt_eset *set)
{
	return set->live > set->capacity;
}

#endif /* _VMTRACE_ENABLED_SET_H */
