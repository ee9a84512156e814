/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Admitting pages to the enabled sets, and the work a fault or the kernel's
 * own faults leave to do before the thread runs user code again.
 */
#ifndef _VMTRACE_ADMIT_H
#define _VMTRACE_ADMIT_H

#include <linux/types.h>

struct mm_struct;
struct task_struct;
struct vmt_hooks;
struct vmt_status;
struct vmt_target;

extern struct vmt_hooks vmt_admit_sched_hooks;
extern struct vmt_hooks vmt_admit_hooks;

void vmt_admit_start(void);
void vmt_admit_count(struct vmt_status *status);

void vmt_target_admit(struct vmt_target *t, unsigned long addr, unsigned long ip,
		      bool kernel_mode, unsigned long stale_start, unsigned long stale_end);
void vmt_target_stale_in_call(struct vmt_target *t, struct mm_struct *mm,
			      unsigned long start, unsigned long end);
void vmt_target_stale_soon(struct vmt_target *t, unsigned long start, unsigned long end);
void vmt_target_stale_before_user(struct vmt_target *t, unsigned long start, unsigned long end);
void vmt_admit_quiesce(void);

#endif /* _VMTRACE_ADMIT_H */
