/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The calls table (gup_calls.c): the ranges get_user_pages() faults in, in
 * a thread's system call, protected again when the call returns.
 */
#ifndef _VMTRACE_GUP_CALLS_H
#define _VMTRACE_GUP_CALLS_H

#include <linux/types.h>

struct mm_struct;
struct task_struct;
struct vmt_target;

int vmt_gup_call_add(struct vmt_target *t, struct mm_struct *mm,
		     unsigned long start, unsigned long end);
bool vmt_gup_calls_done(struct task_struct *task);
void vmt_gup_calls_clear(void);

#endif /* _VMTRACE_GUP_CALLS_H */
