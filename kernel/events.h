/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Introspection events: context switches, task lifecycle, address-space
 * changes, DMA mappings, user markers and the state dump at start.
 */
#ifndef _VMTRACE_EVENTS_H
#define _VMTRACE_EVENTS_H

#include <linux/mm_types.h>
#include <linux/sched.h>
#include <linux/types.h>

struct linux_binprm;
struct pt_regs;

/* events.c */
void vmt_probe_switch(void *data, bool preempt, struct task_struct *prev,
		      struct task_struct *next, unsigned int prev_state);
void vmt_probe_newtask(void *data, struct task_struct *task, unsigned long clone_flags);
void vmt_probe_exec_event(void *data, struct task_struct *p, pid_t old_pid,
			  struct linux_binprm *bprm);
void vmt_probe_exit(void *data, struct task_struct *p);
void vmt_probe_rename(void *data, struct task_struct *task, const char *comm);
int vmt_event_marker(u32 id, const void *text, u32 len);
bool vmt_events_on(u32 event);
void vmt_events_dump(void);

/* vma.c */
void vmt_probe_sys_exit(void *data, struct pt_regs *regs, long ret);
void vmt_probe_sys_exit_protect(void *data, struct pt_regs *regs, long ret);
void vmt_vma_emit_all(struct mm_struct *mm, pid_t pid, u8 cause);

/* dma.c */
int vmt_dma_register(void);
void vmt_dma_unregister(void);
u64 vmt_dma_missed(void);

#endif /* _VMTRACE_EVENTS_H */
