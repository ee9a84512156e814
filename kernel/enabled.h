/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Traced address spaces and their enabled sets.
 */
#ifndef _VMTRACE_ENABLED_H
#define _VMTRACE_ENABLED_H

#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>

#include "eset.h"
#include "pagemap.h"

/*
 * struct vmt_target - one traced address space, in a slot of
 * vmt_session.targets
 * @mm:		mmgrab'ed from start until the target is dropped (the slot
 *		is free when NULL); published with release once the rest is
 *		filled in
 * @lock:	guards @set, @evictions, the stale range, @reprotected
 *		and @evict_pending; the fault probe takes it with
 *		interrupts off, so it is a raw spinlock taken with them off
 *		everywhere, and nothing that waits for another CPU is done
 *		under it
 * @set:	the pages left unprotected
 * @evictions:	pages protected again on leaving @set
 * @pagemap:	with page-mapping events, the pairs logged (its own lock)
 * @stale_start: and @stale_end: a range whose protnone PTEs the kernel may
 *		have mapped back present, to protect again: before the thread
 *		that changed it returns to user space (mprotect, its own
 *		call's get_user_pages()), or by the stale work (notify.c;
 *		another process's, a kernel thread's or, with the calls' table
 *		full, any get_user_pages()); empty when @stale_start >=
 *		@stale_end; under @lock
 * @reprotected: PTEs and huge PMDs protected again in such ranges
 * @evict_pending: a fault from kernel mode admitted a page: the stale work
 *		evicts for it (vmt_enabled_admit()); under @lock
 * @evict_lock:	serializes the evictions of the address space (a sleeping
 *		lock, taken before mmap_lock)
 * @tgid:	the process the address space belongs to (its first)
 * @released:	the address space was torn down (its notifier's release):
 *		the target can be dropped
 * @mn:		the address space's MMU notifier (notify.c), or NULL
 *
 * @lock and @evict_lock are initialized once with the slots: lockless
 * readers may take them while a slot is reused.
 */
struct vmt_notifier;

struct vmt_target {
	struct mm_struct *mm;
	raw_spinlock_t lock;
	struct vmt_eset set;
	u64 evictions;
	struct vmt_pagemap_table *pagemap;
	unsigned long stale_start, stale_end;
	u64 reprotected;
	bool evict_pending;
	struct mutex evict_lock;	/* see above */
	pid_t tgid;
	bool released;
	struct vmt_notifier *mn;
};

void vmt_enabled_admit(struct vmt_target *t, unsigned long addr, unsigned long ip,
		       bool kernel_mode, unsigned long stale_start, unsigned long stale_end);
void vmt_enabled_attach(struct task_struct *task);
void vmt_enabled_evict(struct vmt_target *t);
void vmt_enabled_sys_exit(void);
void vmt_enabled_evict_dropped(struct vmt_target *t);
struct mm_struct *vmt_target_get_mm(struct vmt_target *t);
void vmt_enabled_stale(struct vmt_target *t, unsigned long start, unsigned long end);
void vmt_enabled_mark_stale(struct vmt_target *t, unsigned long start, unsigned long end);
void vmt_enabled_stale_in_call(struct vmt_target *t, struct mm_struct *mm,
			       unsigned long start, unsigned long end);
bool vmt_enabled_calls_done(struct task_struct *task);
void vmt_enabled_stale_soon(struct vmt_target *t, unsigned long start, unsigned long end);
void vmt_enabled_queue_stale(void);
void vmt_enabled_flush_stale(void);
void vmt_enabled_quiesce(void);

#endif /* _VMTRACE_ENABLED_H */
