/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the kernel tells a traced address space's MMU notifier.
 */
#ifndef _VMTRACE_NOTIFY_H
#define _VMTRACE_NOTIFY_H

struct mm_struct;
struct vmt_hooks;
struct vmt_target;

extern struct vmt_hooks vmt_notify_hooks;

int vmt_notify_attach(struct vmt_target *t, struct mm_struct *mm);
void vmt_notify_detach(struct vmt_target *t);
void vmt_notify_quiesce(void);
void vmt_notify_synchronize(void);

#endif /* _VMTRACE_NOTIFY_H */
