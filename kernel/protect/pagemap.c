// SPDX-License-Identifier: GPL-2.0
/*
 * Page-mapping events (HMTT's page-table records): for each traced address
 * space, the (virtual page, frame) pairs the tracer has logged, so that a
 * pair is written once as a MAP record when a reference or an eviction
 * first carries it, and as an UNMAP record when the kernel takes the page
 * away. The kernel says so through an MMU notifier registered on the
 * address space: munmap and exit, MADV_DONTNEED, reclaim, migration and
 * compaction all invalidate the range first. A migrated page comes back
 * with its new frame at its next logged reference.
 *
 * The pairs live in a set-associative table of VMT_PAGEMAP_PAIRS entries,
 * buckets of VMT_PAGEMAP_WAYS: a full bucket gives up its oldest entry,
 * whose pair is then logged again when next seen (a repeat, not a loss).
 * The table's raw spinlock is taken with interrupts off by the fault probe
 * and by the notifier, which the kernel may call with other spinlocks held:
 * nothing under it sleeps or waits for another CPU.
 */
#include <linux/hash.h>
#include <linux/mm.h>
#include <linux/log2.h>
#include <linux/pid.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/spinlock.h>

#include "base/session.h"
#include "protect/pagemap.h"
#include "ring/emit.h"

#if IS_ENABLED(CONFIG_MMU_NOTIFIER)

#define VMT_PAGEMAP_WAYS	8
#define VMT_PAGEMAP_BUCKET_BITS	ilog2(VMT_PAGEMAP_PAIRS / VMT_PAGEMAP_WAYS)

struct vmt_pagemap_pair {
	unsigned long addr;	/* 0: a free entry (page 0 is never mapped) */
	u64 pfn;
	bool huge;
};

struct vmt_pagemap_bucket {
	struct vmt_pagemap_pair pairs[VMT_PAGEMAP_WAYS];
	u32 next;		/* the entry a full bucket gives up next */
};

struct vmt_pagemap_table {
	pid_t tgid;		/* the process the address space belongs to */
	raw_spinlock_t lock;	/* see above */
	struct vmt_pagemap_bucket buckets[VMT_PAGEMAP_PAIRS / VMT_PAGEMAP_WAYS];
};

/* Caller holds pm->lock, interrupts off. */
static void __vmt_pagemap_emit(struct vmt_pagemap_table *pm, struct mm_struct *mm,
			       const struct vmt_pagemap_pair *p, u8 op, u32 event)
{
	struct vmt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.pagemap.vaddr = p->addr;
	rec.pagemap.pfn = p->pfn;
	rec.pagemap.op = op;
	rec.pagemap.huge = p->huge;
	rec.pagemap.notify_event = event;
	vmt_emit_as(vmt_session_alone(), &rec, VMT_REC_PAGEMAP, pm->tgid,
		    current->mm == mm ? task_pid_nr(current) : 0, NULL, 0);
}

/**
 * vmt_pagemap_log() - log @addr's frame unless the same pair was logged last
 * @pm:		the address space's table
 * @addr:	a page address (a THP's first page, with @huge)
 * @pfn:	its frame, not 0
 * @huge:	a transparent huge page, mapped by one PMD
 *
 * Context: the fault probe or an eviction, current in the address space.
 */
void vmt_pagemap_log(struct vmt_pagemap_table *pm, unsigned long addr, u64 pfn, bool huge)
{
	struct vmt_pagemap_bucket *b = &pm->buckets[hash_long(addr >> PAGE_SHIFT,
							      VMT_PAGEMAP_BUCKET_BITS)];
	struct vmt_pagemap_pair *slot = NULL;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&pm->lock, flags);
	for (i = 0; i < VMT_PAGEMAP_WAYS; i++) {
		if (b->pairs[i].addr == addr) {
			slot = &b->pairs[i];
			break;
		}
		if (!b->pairs[i].addr && !slot)
			slot = &b->pairs[i];
	}
	if (!slot) {
		slot = &b->pairs[b->next];
		b->next = (b->next + 1) % VMT_PAGEMAP_WAYS;
	}
	if (slot->addr != addr || slot->pfn != pfn || slot->huge != huge) {
		slot->addr = addr;
		slot->pfn = pfn;
		slot->huge = huge;
		__vmt_pagemap_emit(pm, current->mm, slot, VMT_PAGEMAP_MAP, 0);
	}
	raw_spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * vmt_pagemap_forget() - UNMAP records for the pairs in [@start, @end),
 * which are forgotten
 * @pm:		the address space's table
 * @mm:		the address space
 * @start:	the range the kernel is unmapping
 * @end:	its end
 * @event:	the kernel's enum mmu_notifier_event, for the records
 *
 * Context: the address space's MMU notifier (kernel/protect/notify.c), in any
 * context but an interrupt; does not sleep.
 */
void vmt_pagemap_forget(struct vmt_pagemap_table *pm, struct mm_struct *mm,
			unsigned long start, unsigned long end, u32 event)
{
	struct vmt_pagemap_pair *p;
	unsigned long flags;
	unsigned long last;
	int b, i;

	raw_spin_lock_irqsave(&pm->lock, flags);
	for (b = 0; b < ARRAY_SIZE(pm->buckets); b++) {
		for (i = 0; i < VMT_PAGEMAP_WAYS; i++) {
			p = &pm->buckets[b].pairs[i];
			last = p->addr + (p->huge ? HPAGE_PMD_SIZE : PAGE_SIZE);
			if (!p->addr || p->addr >= end || last <= start)
				continue;
			__vmt_pagemap_emit(pm, mm, p, VMT_PAGEMAP_UNMAP, event);
			p->addr = 0;
		}
	}
	raw_spin_unlock_irqrestore(&pm->lock, flags);
}

/**
 * vmt_pagemap_new() - an empty table for the address space of @tgid
 * @tgid:	the process it belongs to
 *
 * Context: process context.
 * Return: the table, or NULL without memory.
 */
struct vmt_pagemap_table *vmt_pagemap_new(pid_t tgid)
{
	struct vmt_pagemap_table *pm = kvzalloc(sizeof(*pm), GFP_KERNEL);

	if (!pm)
		return NULL;
	raw_spin_lock_init(&pm->lock);
	pm->tgid = tgid;
	return pm;
}

/* Once no notifier callback can run any more. */
void vmt_pagemap_free(struct vmt_pagemap_table *pm)
{
	kvfree(pm);
}

#else /* !CONFIG_MMU_NOTIFIER: vmt_settings_check() refuses page-mapping events */

struct vmt_pagemap_table *vmt_pagemap_new(pid_t tgid)
{
	return NULL;
}

void vmt_pagemap_free(struct vmt_pagemap_table *pm)
{
}

void vmt_pagemap_forget(struct vmt_pagemap_table *pm, struct mm_struct *mm,
			unsigned long start, unsigned long end, u32 event)
{
}

void vmt_pagemap_log(struct vmt_pagemap_table *pm, unsigned long addr, u64 pfn, bool huge)
{
}

#endif
