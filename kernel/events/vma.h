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

extern struct vmt_hooks vmt_vma_hooks;

void vmt_vma_emit_all(struct mm_struct *mm, pid_t pid, u8 cause);
void vmt_vma_exec_missed(void);
void vmt_vma_quiesce(void);

#endif /* _VMTRACE_VMA_H */
