/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address-space events (vma.c): what mmap, munmap, mremap, mprotect and brk
 * did to a traced process's map, and the whole map.
 */
#ifndef _VMTRACE_VMA_H
#define _VMTRACE_VMA_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct vmt_hooks;
struct vmt_session;

extern struct vmt_hooks vmt_vma_hooks;

void vmt_vma_emit_all(struct vmt_session *s, struct mm_struct *mm, pid_t pid, u8 cause);
void vmt_vma_exec_missed(struct vmt_session *s);
void vmt_vma_quiesce(void);

#endif /* _VMTRACE_VMA_H */
