/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What is traced: the traced processes, by thread group id, and with page
 * protection the target table, one slot per traced address space, each
 * with its enabled set.
 */
#ifndef _VMTRACE_TARGETS_H
#define _VMTRACE_TARGETS_H

#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <uapi/linux/vmtrace.h>

#include "base/settings.h"
#include "protect/enabled_set.h"
#include "protect/protect.h"

struct vmt_notifier;
struct vmt_pagemap_table;

/*
 * struct vmt_target - one traced address space, in a slot of the table
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
 *		call's get_user_pages()), or by the stale work (evict.c;
 *		another process's, a kernel thread's or, with the calls' table
 *		full, any get_user_pages()); empty when @stale_start >=
 *		@stale_end; under @lock
 * @reprotected: PTEs and huge PMDs protected again in such ranges
 * @evict_pending: a fault from kernel mode admitted a page: the stale work
 *		evicts for it (vmt_target_admit()); under @lock
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

/* Start and stop, under the session's lock (core.c). */
int vmt_targets_prepare(const struct vmt_settings *settings);
int vmt_targets_protect(void);
void vmt_targets_release(void);
void vmt_targets_count(struct vmt_status *status);

/* The target table. */
struct vmt_target *vmt_target_lookup(struct mm_struct *mm);
struct vmt_target *vmt_target_slot(u32 i);
struct vmt_target *vmt_target_add(struct mm_struct *mm, pid_t tgid);

#endif /* _VMTRACE_TARGETS_H */
