/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that differs between the kernels vmtrace supports, or that it
 * has to find at run time, is here and in compat.c: nowhere else.
 */
#ifndef _VMTRACE_COMPAT_H
#define _VMTRACE_COMPAT_H

#include <linux/mm.h>
#include <linux/tracepoint.h>
#include <linux/version.h>

/* Shadow-stack VMAs (6.6+): their PTEs' Dirty bit means something else. */
#ifndef VM_SHADOW_STACK
#define VM_SHADOW_STACK VM_NONE
#endif

/*
 * User workers (6.4+: vhost's) are threads of a user process that never
 * return to user space, as kernel threads.
 */
#ifndef PF_USER_WORKER
#define PF_USER_WORKER 0
#endif

/*
 * From 6.10 the NUMA-hinting fault maps back every protnone PTE of a large
 * folio mapped by PTEs (numa_rebuild_large_mapping()), not just the one
 * that faulted: the others must be protected again.
 */
#define VMT_NUMA_FAULT_MAPS_FOLIO	(LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0))

struct tracepoint *vmt_find_tracepoint(const char *name);
void vmt_compat_init(void);
void vmt_flush_tlb_range(struct mm_struct *mm, unsigned long start, unsigned long end);
void vmt_flush_tlb_all_cpus(void);
void vmt_flush_tlb_this_cpu(unsigned long addr);

/* vm_flags became read-only behind helpers in 6.3. */
static inline void vmt_vma_clear_flags(struct vm_area_struct *vma, vm_flags_t flags)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_clear(vma, flags);
#else
	vma->vm_flags &= ~flags;
#endif
}

#endif /* _VMTRACE_COMPAT_H */
