// SPDX-License-Identifier: GPL-2.0
/*
 * Protecting and restoring a process's pages.
 *
 * A present user PTE is made protnone: _PAGE_PRESENT cleared, _PAGE_PROTNONE
 * set, every other bit kept (the write bit included), the PFN inverted as the
 * L1TF mitigation wants for non-present PTEs (flip_protnone_guard()). The
 * hardware then faults on the next access; the fault probe logs it, and
 * handle_pte_fault() sends protnone PTEs of accessible VMAs to do_numa_page(),
 * which maps the page back with the VMA's protection.
 *
 * Protecting a page also clears its Accessed bit and hands its Dirty bit to
 * the folio (as zapping a PTE does), so that an eviction can tell whether the
 * page was written while it was enabled. do_numa_page() keeps Dirty as it is
 * and sets Accessed.
 *
 * Locking: the caller holds mmap_read_lock, so VMAs do not change and page
 * tables are not freed; apply_to_existing_page_range() takes each PTE table's
 * lock around our callback. The PTE is swapped out atomically so that a
 * Dirty bit the hardware sets concurrently is not lost, as mprotect does.
 * The caller flushes the TLB before it counts a page as protected.
 */
#include <linux/lockdep.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/smp.h>
#include <asm/pgtable.h>

#include "compat.h"
#include "protect.h"

struct vmt_pte_walk {
	struct mm_struct *mm;
	u64 changed;
	pte_t last;		/* the last PTE changed, as it was before */
};

static pte_t vmt_pte_mkprotnone(pte_t pte)
{
	pteval_t old = pte_val(pte);
	pteval_t new = (old & ~_PAGE_PRESENT) | _PAGE_PROTNONE;

	return __pte(flip_protnone_guard(old, new, PTE_PFN_MASK));
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
pte_t vmt_pte_mkprotnone_for_test(pte_t pte)
{
	return vmt_pte_mkprotnone(pte);
}
#endif

static pte_t vmt_pte_mkpresent(pte_t pte)
{
	pteval_t old = pte_val(pte);
	pteval_t new = (old & ~_PAGE_PROTNONE) | _PAGE_PRESENT;

	return __pte(flip_protnone_guard(old, new, PTE_PFN_MASK));
}

/* Called with the PTE table's lock held. */
static int vmt_protect_pte(pte_t *ptep, unsigned long addr, void *data)
{
	struct vmt_pte_walk *walk = data;
	pte_t pte = ptep_get(ptep);

	/* The zero page and other special mappings stay as they are. */
	if (!pte_present(pte) || pte_protnone(pte) || pte_special(pte))
		return 0;
	pte = ptep_get_and_clear(walk->mm, addr, ptep);
	walk->last = pte;
	if (pte_dirty(pte)) {
		folio_mark_dirty(page_folio(pte_page(pte)));
		pte = pte_mkclean(pte);
	}
	set_pte_at(walk->mm, addr, ptep, vmt_pte_mkprotnone(pte_mkold(pte)));
	walk->changed++;
	return 0;
}

/* Called with the PTE table's lock held. */
static int vmt_unprotect_pte(pte_t *ptep, unsigned long addr, void *data)
{
	struct vmt_pte_walk *walk = data;
	pte_t pte = ptep_get(ptep);

	if (!pte_protnone(pte))
		return 0;
	set_pte_at(walk->mm, addr, ptep, vmt_pte_mkpresent(pte));
	walk->changed++;
	return 0;
}

/* VMAs whose pages are not ordinary, or that the program made inaccessible. */
static bool vmt_vma_skipped(struct vm_area_struct *vma)
{
	return vma->vm_flags & (VM_HUGETLB | VM_IO | VM_PFNMAP | VM_MIXEDMAP |
				VM_SHADOW_STACK);
}

static bool vmt_vma_accessible(struct vm_area_struct *vma)
{
	return vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

/*
 * The PMD entry covering @addr, read once, or a none PMD when an upper level
 * is empty or maps a huge page itself.
 */
static pmd_t vmt_pmd_read(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud, pudval;

	if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
		return __pmd(0);
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)) || p4d_bad(READ_ONCE(*p4d)))
		return __pmd(0);
	pud = pud_offset(p4d, addr);
	pudval = READ_ONCE(*pud);
	if (pud_none(pudval) || pud_leaf(pudval) || pud_bad(pudval))
		return __pmd(0);
	return READ_ONCE(*pmd_offset(pud, addr));
}

/*
 * Apply @fn to the PTEs of [start, end), one PMD's span at a time, passing
 * over empty and huge PMDs: apply_to_existing_page_range() warns on huge
 * ones. Under mmap_read_lock a PMD that points to a PTE table stays one.
 */
static void vmt_walk_range(struct mm_struct *mm, unsigned long start, unsigned long end,
			   pte_fn_t fn, struct vmt_pte_walk *walk, u64 *huge_pmds)
{
	unsigned long addr, next;
	pmd_t pmd;

	for (addr = start; addr < end; addr = next) {
		next = pmd_addr_end(addr, end);
		pmd = vmt_pmd_read(mm, addr);
		if (pmd_none(pmd))
			continue;
		if (pmd_leaf(pmd) || pmd_trans_huge(pmd)) {
			if (huge_pmds)
				(*huge_pmds)++;
			continue;
		}
		apply_to_existing_page_range(mm, addr, next - addr, fn, walk);
	}
}

/**
 * vmt_protect_mm() - protect every present PTE of @mm's ordinary VMAs
 * @mm:		the address space; the caller holds mmap_read_lock
 * @counts:	PTEs protected, VMAs skipped and huge PMDs passed over are
 *		added here
 *
 * Flushes the TLB of every CPU before returning, so every access after it
 * faults.
 */
void vmt_protect_mm(struct mm_struct *mm, struct vmt_protect_counts *counts)
{
	struct vmt_pte_walk walk = { .mm = mm };
	struct vm_area_struct *vma;

	lockdep_assert_held(&mm->mmap_lock);
	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end)) {
		if (vmt_vma_skipped(vma)) {
			counts->skipped_vmas++;
			continue;
		}
		if (!vmt_vma_accessible(vma))
			continue;
		vmt_walk_range(mm, vma->vm_start, vma->vm_end, vmt_protect_pte, &walk,
			       &counts->huge_pmds);
	}
	counts->ptes += walk.changed;
	/* Stale TLB entries would let accesses through unseen. */
	if (walk.changed)
		vmt_flush_tlb_all_cpus();
}

/**
 * vmt_unprotect_mm() - map back every protnone PTE of @mm's accessible VMAs
 * @mm:		the address space; the caller holds mmap_read_lock
 * @counts:	PTEs restored are added to ->ptes
 *
 * Only the tracer makes protnone PTEs in accessible VMAs here: NUMA balancing
 * would too, but needs more than one node. Going from not present to
 * present needs no TLB flush.
 */
void vmt_unprotect_mm(struct mm_struct *mm, struct vmt_protect_counts *counts)
{
	struct vmt_pte_walk walk = { .mm = mm };
	struct vm_area_struct *vma;

	lockdep_assert_held(&mm->mmap_lock);
	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end)) {
		if (vmt_vma_skipped(vma) || !vmt_vma_accessible(vma))
			continue;
		vmt_walk_range(mm, vma->vm_start, vma->vm_end, vmt_unprotect_pte, &walk, NULL);
	}
	counts->ptes += walk.changed;
}

/**
 * vmt_protect_page() - protect one page again
 * @mm:		the address space; the caller holds mmap_read_lock
 * @addr:	the page's address
 * @old:	set to the PTE as it was, when one was protected
 *
 * Leaves alone a page that is no longer mapped, or whose VMA is one
 * vmt_protect_mm() passes over. The caller flushes the TLB.
 *
 * Return: true when a PTE was protected.
 */
bool vmt_protect_page(struct mm_struct *mm, unsigned long addr, pte_t *old)
{
	struct vmt_pte_walk walk = { .mm = mm };
	struct vm_area_struct *vma;

	lockdep_assert_held(&mm->mmap_lock);
	vma = vma_lookup(mm, addr);
	if (!vma || vmt_vma_skipped(vma) || !vmt_vma_accessible(vma))
		return false;
	vmt_walk_range(mm, addr, addr + PAGE_SIZE, vmt_protect_pte, &walk, NULL);
	*old = walk.last;
	return walk.changed;
}

/**
 * vmt_pte_test_and_clear_young() - whether a page was accessed; clears the bit
 * @mm:		the address space; the caller holds mmap_read_lock
 * @addr:	the page's address
 *
 * Context: interrupts off (the walk is lockless, as in GUP-fast). The bit
 * is cleared atomically, as the hardware sets it; the caller flushes the TLB
 * so that the next access sets it again.
 *
 * Return: true when a present PTE maps @addr with its Accessed bit set.
 */
bool vmt_pte_test_and_clear_young(struct mm_struct *mm, unsigned long addr)
{
	pmd_t pmd;
	pte_t *ptep;

	lockdep_assert_irqs_disabled();
	pmd = vmt_pmd_read(mm, addr);
	if (pmd_none(pmd) || pmd_leaf(pmd) || pmd_trans_huge(pmd) || pmd_bad(pmd))
		return false;
	ptep = pte_offset_kernel(&pmd, addr);
	if (!pte_present(ptep_get(ptep)) || pte_protnone(ptep_get(ptep)))
		return false;
	return test_and_clear_bit(_PAGE_BIT_ACCESSED, (unsigned long *)&ptep->pte);
}

/**
 * vmt_pte_lookup_lockless() - the PTE mapping @addr in @mm, read without locks
 * @mm:		the address space
 * @addr:	a user address
 *
 * For the fault probe. Interrupts are off while walking: page tables are
 * freed only after a grace period that waits for them (as in GUP-fast).
 *
 * Return: the PTE, or a none PTE when no PTE table covers @addr (a huge
 * mapping included).
 */
pte_t vmt_pte_lookup_lockless(struct mm_struct *mm, unsigned long addr)
{
	unsigned long flags;
	pte_t pte = __pte(0);
	pmd_t pmd;

	local_irq_save(flags);
	pmd = vmt_pmd_read(mm, addr);
	if (!pmd_none(pmd) && !pmd_leaf(pmd) && !pmd_trans_huge(pmd) && !pmd_bad(pmd))
		pte = ptep_get(pte_offset_kernel(&pmd, addr));
	local_irq_restore(flags);
	return pte;
}
