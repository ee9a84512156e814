/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page protection, kVMTrace-style: present user PTEs become PROT_NONE
 * ("protnone") PTEs, so the next access faults; the kernel's NUMA-hinting
 * fault path (do_numa_page) restores them.
 */
#ifndef _VMTRACE_PROTECT_H
#define _VMTRACE_PROTECT_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct vmt_protect_counts {
	u64 ptes;		/* PTEs changed */
	u64 skipped_vmas;	/* hugetlb, VM_IO, VM_PFNMAP, VM_MIXEDMAP */
	u64 huge_pmds;		/* transparent huge pages (PMDs) */
	u64 migrating;		/* entries of pages under migration, passed over */
};

void vmt_protect_init(void);
void vmt_protect_exit(void);
void vmt_protect_mm(struct mm_struct *mm, struct vmt_protect_counts *counts);
void vmt_protect_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		       struct vmt_protect_counts *counts);
void vmt_unprotect_mm(struct mm_struct *mm, struct vmt_protect_counts *counts);
bool vmt_protect_page(struct mm_struct *mm, unsigned long addr, pte_t *old, bool *huge);
bool vmt_protect_page_atomic(struct mm_struct *mm, unsigned long addr);
bool vmt_protect_vma_traceable(struct vm_area_struct *vma);
bool vmt_pte_test_and_clear_young(struct mm_struct *mm, unsigned long addr);
pte_t vmt_pte_lookup_lockless(struct mm_struct *mm, unsigned long addr, bool *huge);
#ifdef CONFIG_VMTRACE_KUNIT_TEST
pte_t vmt_pte_mkprotnone_for_test(pte_t pte);
#endif

#endif /* _VMTRACE_PROTECT_H */
