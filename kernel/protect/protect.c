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
 * A transparent huge page mapped by a PMD is protected the same way at PMD
 * level: one fault for the 2 MiB, after which do_huge_pmd_numa_page() maps
 * it back whole, and the enabled set holds it as one entry.
 *
 * Some kernel paths build fresh entries from the VMA's protection, present,
 * where a protected one was: mprotect() (protected again before the thread
 * returns to user space: admit.c); THP split and collapse, page
 * migration (compaction) and KSM merging (protected again by the stale work
 * the address space's MMU notifier queues: notify.c); and, from 6.10, the
 * NUMA-hinting fault on a large folio mapped by PTEs, which maps back all
 * of it (protected again before the faulting thread returns). Swap-out and
 * reclaim unmap the page; the access that brings it back faults, and is
 * logged.
 *
 * Locking: the caller holds mmap_read_lock, so VMAs do not change and page
 * tables are not freed; apply_to_existing_page_range() takes each PTE table's
 * lock around our callback, and huge PMDs are changed under pmd_lock(). The
 * PTE is swapped out atomically, and a PMD changed with cmpxchg, so that a
 * Dirty bit the hardware sets concurrently is not lost, as mprotect does.
 * The caller flushes the TLB before it counts a page as protected.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>
#include <linux/fs.h>
#include <linux/lockdep.h>
#include <linux/magic.h>
#include <linux/mm.h>
#include <linux/pgtable.h>
#include <linux/smp.h>
#include <linux/swap.h>
#include <linux/swapops.h>
#include <asm/pgtable.h>

#include "base/compat.h"
#include "protect/protect.h"

struct vmt_pte_walk {
	struct mm_struct *mm;
	u64 changed;		/* PTEs changed */
	u64 huge_changed;	/* huge PMDs changed */
	u64 migrating;		/* entries of pages being migrated, passed over */
	pte_t last;		/* the last entry changed, as it was before, as a PTE */
	bool last_huge;		/* ... and it was a huge PMD */
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

/*
 * The PTE that would map @addr if the huge PMD @pmd were split: its flags
 * and the frame of the 4 KiB page, inverted when protnone as pte_pfn()
 * expects. For the fault probe's records and the evictions'.
 */
static pte_t vmt_huge_pte(pmd_t pmd, unsigned long addr)
{
	unsigned long pfn = pmd_pfn(pmd) + ((addr & ~HPAGE_PMD_MASK) >> PAGE_SHIFT);

	return pfn_pte(pfn, __pgprot(pmd_flags(pmd) & PTE_FLAGS_MASK & ~_PAGE_PSE));
}

/* A transparent huge page, mapped present or protnone; not DAX, not swap. */
static bool vmt_pmd_thp(pmd_t pmd)
{
	return pmd_trans_huge(pmd) && (pmd_flags(pmd) & (_PAGE_PRESENT | _PAGE_PROTNONE));
}

/*
 * Protect the huge PMD at @pmdp, if it maps a THP present. Takes its lock;
 * the cmpxchg keeps a Dirty or Accessed bit the hardware sets meanwhile.
 */
static void __vmt_protect_huge(pmd_t *pmdp, unsigned long addr, struct vmt_pte_walk *walk)
{
	pmdval_t old = pmd_val(READ_ONCE(*pmdp)), new;

	do {
		if (!vmt_pmd_thp(__pmd(old)) || pmd_protnone(__pmd(old)))
			return;
		new = (old & ~(_PAGE_PRESENT | _PAGE_DIRTY | _PAGE_ACCESSED)) | _PAGE_PROTNONE;
		new = flip_protnone_guard(old, new, PHYSICAL_PMD_PAGE_MASK);
	} while (!try_cmpxchg(&pmdp->pmd, &old, new));
	if (old & _PAGE_DIRTY)
		folio_mark_dirty(page_folio(pmd_page(__pmd(old))));
	walk->last = vmt_huge_pte(__pmd(old), addr & HPAGE_PMD_MASK);
	walk->last_huge = true;
	walk->huge_changed++;
}

static void vmt_protect_huge(pmd_t *pmdp, unsigned long addr, struct vmt_pte_walk *walk)
{
	spinlock_t *ptl = pmd_lock(walk->mm, pmdp);

	__vmt_protect_huge(pmdp, addr, walk);
	spin_unlock(ptl);
}

/* Map back the huge PMD at @pmdp, if it is protnone. */
static void vmt_unprotect_huge(pmd_t *pmdp, unsigned long addr, struct vmt_pte_walk *walk)
{
	spinlock_t *ptl = pmd_lock(walk->mm, pmdp);
	pmdval_t old = pmd_val(READ_ONCE(*pmdp)), new;

	do {
		if (!vmt_pmd_thp(__pmd(old)) || !pmd_protnone(__pmd(old)))
			goto out;
		new = (old & ~_PAGE_PROTNONE) | _PAGE_PRESENT;
		new = flip_protnone_guard(old, new, PHYSICAL_PMD_PAGE_MASK);
	} while (!try_cmpxchg(&pmdp->pmd, &old, new));
	walk->huge_changed++;
out:
	spin_unlock(ptl);
}

/* Called with the PTE table's lock held. */
static int vmt_protect_pte(pte_t *ptep, unsigned long addr, void *data)
{
	struct vmt_pte_walk *walk = data;
	pte_t pte = ptep_get(ptep);

	/* A page being migrated is mapped back present when it has moved. */
	if (is_swap_pte(pte) && is_migration_entry(pte_to_swp_entry(pte)))
		walk->migrating++;
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
	walk->last_huge = false;
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

/*
 * VMAs whose pages are not ordinary. memfd_secret()'s pages are not in the
 * kernel's direct map, through which exact mode may read a page's bytes
 * (vma_is_secretmem() needs secretmem_aops, which is not exported: the
 * file system's magic says the same).
 */
static bool vmt_vma_skipped(struct vm_area_struct *vma)
{
	if (vma->vm_file && file_inode(vma->vm_file)->i_sb->s_magic == SECRETMEM_MAGIC)
		return true;
	return vma->vm_flags & (VM_HUGETLB | VM_IO | VM_PFNMAP | VM_MIXEDMAP |
				VM_SHADOW_STACK);
}

static bool vmt_vma_accessible(struct vm_area_struct *vma)
{
	return vma->vm_flags & (VM_READ | VM_WRITE | VM_EXEC);
}

/**
 * vmt_protect_vma_traceable() - whether protection can trace @vma's pages:
 * ordinary pages, which the program did not make inaccessible
 * @vma:	the mapping; the caller holds its mmap_lock
 *
 * Exact mode takes this for "every mapping" ("all"): a [vvar] (VM_PFNMAP)
 * or a PROT_NONE reservation never faults as the engine needs.
 */
bool vmt_protect_vma_traceable(struct vm_area_struct *vma)
{
	return !vmt_vma_skipped(vma) && vmt_vma_accessible(vma);
}

/*
 * The PMD entry covering @addr, or NULL when an upper level is empty or maps
 * a huge page itself. The caller holds mmap_read_lock, or has interrupts
 * off, so that the page tables stay.
 */
static pmd_t *vmt_pmd_offset(struct mm_struct *mm, unsigned long addr)
{
	pgd_t *pgd = pgd_offset(mm, addr);
	p4d_t *p4d;
	pud_t *pud, pudval;

	if (pgd_none(READ_ONCE(*pgd)) || pgd_bad(READ_ONCE(*pgd)))
		return NULL;
	p4d = p4d_offset(pgd, addr);
	if (p4d_none(READ_ONCE(*p4d)) || p4d_bad(READ_ONCE(*p4d)))
		return NULL;
	pud = pud_offset(p4d, addr);
	pudval = READ_ONCE(*pud);
	if (pud_none(pudval) || pud_leaf(pudval) || pud_bad(pudval))
		return NULL;
	return pmd_offset(pud, addr);
}

/* Whether @pmd points to a PTE table. */
static bool vmt_pmd_table(pmd_t pmd)
{
	return !pmd_none(pmd) && !pmd_leaf(pmd) && !pmd_trans_huge(pmd) && !pmd_bad(pmd);
}

struct vmt_walk_ops {
	pte_fn_t pte;
	void (*huge)(pmd_t *pmdp, unsigned long addr, struct vmt_pte_walk *walk);
};

static const struct vmt_walk_ops vmt_protect_ops = {
	.pte = vmt_protect_pte,
	.huge = vmt_protect_huge,
};

static const struct vmt_walk_ops vmt_unprotect_ops = {
	.pte = vmt_unprotect_pte,
	.huge = vmt_unprotect_huge,
};

/*
 * Apply @ops to the entries mapping [start, end), one PMD's span at a time:
 * the PTEs of a PTE table, or a huge PMD (which a VMA always holds whole).
 * apply_to_existing_page_range() warns on huge PMDs, so it sees only tables.
 * Under mmap_read_lock a PMD that points to a PTE table stays one.
 */
static void vmt_walk_range(struct mm_struct *mm, unsigned long start, unsigned long end,
			   const struct vmt_walk_ops *ops, struct vmt_pte_walk *walk)
{
	unsigned long addr, next;
	pmd_t *pmdp, pmd;

	for (addr = start; addr < end; addr = next) {
		next = pmd_addr_end(addr, end);
		pmdp = vmt_pmd_offset(mm, addr);
		if (!pmdp)
			continue;
		pmd = READ_ONCE(*pmdp);
		if (is_pmd_migration_entry(pmd))
			walk->migrating++;
		else if (vmt_pmd_thp(pmd))
			ops->huge(pmdp, addr, walk);
		else if (vmt_pmd_table(pmd))
			apply_to_existing_page_range(mm, addr, next - addr, ops->pte, walk);
	}
}

/* Protect the present entries of @mm's ordinary VMAs in [start, end). */
static void vmt_protect_walk(struct mm_struct *mm, unsigned long start, unsigned long end,
			     struct vmt_protect_counts *counts, struct vmt_pte_walk *walk)
{
	struct vm_area_struct *vma;

	lockdep_assert_held(&mm->mmap_lock);
	for (vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = find_vma(mm, vma->vm_end)) {
		if (vmt_vma_skipped(vma)) {
			counts->skipped_vmas++;
			continue;
		}
		if (!vmt_vma_accessible(vma))
			continue;
		vmt_walk_range(mm, max(start, vma->vm_start), min(end, vma->vm_end),
			       &vmt_protect_ops, walk);
	}
	counts->ptes += walk->changed;
	counts->huge_pmds += walk->huge_changed;
	counts->migrating += walk->migrating;
}

/**
 * vmt_protect_mm() - protect every present PTE of @mm's ordinary VMAs
 * @mm:		the address space; the caller holds mmap_read_lock
 * @counts:	PTEs and huge PMDs protected, VMAs skipped are added here
 *
 * Flushes the TLB of every CPU before returning, so every access after it
 * faults.
 */
void vmt_protect_mm(struct mm_struct *mm, struct vmt_protect_counts *counts)
{
	struct vmt_pte_walk walk = { .mm = mm };

	vmt_protect_walk(mm, 0, TASK_SIZE, counts, &walk);
	/* Stale TLB entries would let accesses through unseen. */
	if (walk.changed || walk.huge_changed)
		vmt_flush_tlb_all_cpus();
}

/**
 * vmt_protect_range() - protect every present PTE in [@start, @end) of
 * @mm's ordinary VMAs
 * @mm:		the address space; the caller holds mmap_read_lock
 * @start:	page-aligned
 * @end:	page-aligned
 * @counts:	PTEs and huge PMDs protected are added here (not VMAs skipped),
 *		and the entries of pages under migration passed over
 *
 * The caller flushes the range's TLB entries before it counts the pages as
 * protected.
 */
void vmt_protect_range(struct mm_struct *mm, unsigned long start, unsigned long end,
		       struct vmt_protect_counts *counts)
{
	struct vmt_protect_counts walked = {};
	struct vmt_pte_walk walk = { .mm = mm };

	vmt_protect_walk(mm, start, end, &walked, &walk);
	counts->ptes += walked.ptes;
	counts->huge_pmds += walked.huge_pmds;
	counts->migrating += walked.migrating;
}

/**
 * vmt_unprotect_mm() - map back every protnone PTE of @mm's accessible VMAs
 * @mm:		the address space; the caller holds mmap_read_lock
 * @counts:	PTEs restored are added to ->ptes, huge PMDs to ->huge_pmds
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
		vmt_walk_range(mm, vma->vm_start, vma->vm_end, &vmt_unprotect_ops, &walk);
	}
	counts->ptes += walk.changed;
	counts->huge_pmds += walk.huge_changed;
}

/**
 * vmt_protect_page() - protect one page again
 * @mm:		the address space; the caller holds mmap_read_lock
 * @addr:	the page's address
 * @old:	set to the entry as it was, when one was protected; a huge
 *		PMD as the PTE of its first page (vmt_huge_pte())
 * @huge:	set when that was a huge PMD: the whole THP is protected
 *
 * Leaves alone a page that is no longer mapped, or whose VMA is one
 * vmt_protect_mm() passes over. The caller flushes the TLB.
 *
 * Return: true when an entry was protected.
 */
bool vmt_protect_page(struct mm_struct *mm, unsigned long addr, pte_t *old, bool *huge)
{
	struct vmt_pte_walk walk = { .mm = mm };
	struct vm_area_struct *vma;

	lockdep_assert_held(&mm->mmap_lock);
	vma = vma_lookup(mm, addr);
	if (!vma || vmt_vma_skipped(vma) || !vmt_vma_accessible(vma))
		return false;
	vmt_walk_range(mm, addr, addr + PAGE_SIZE, &vmt_protect_ops, &walk);
	*old = walk.last;
	*huge = walk.last_huge;
	return walk.changed || walk.huge_changed;
}

/*
 * With the kernel's fault injection (the debug kernel), vmt_protect_page_atomic()
 * finds a page table's lock busy as often as /sys/kernel/debug/fail_vmtrace_ptl
 * says (docs/fault-injection.rst): its callers' ways around a busy lock are
 * tested there, which real contention takes too rarely to test.
 */
#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static DECLARE_FAULT_ATTR(vmt_fail_ptl);
static struct dentry *vmt_fail_ptl_dir;

/**
 * vmt_protect_init() - at load: the fault-injection point, where the kernel has one
 */
void vmt_protect_init(void)
{
	vmt_fail_ptl_dir = fault_create_debugfs_attr("fail_vmtrace_ptl", NULL, &vmt_fail_ptl);
	if (IS_ERR(vmt_fail_ptl_dir))
		vmt_fail_ptl_dir = NULL;	/* no injection: nothing else depends on it */
}

/**
 * vmt_protect_exit() - at unload: the fault-injection point goes
 */
void vmt_protect_exit(void)
{
	debugfs_remove_recursive(vmt_fail_ptl_dir);
}

static bool vmt_ptl_trylock(spinlock_t *ptl)
{
	return !should_fail(&vmt_fail_ptl, 1) && spin_trylock(ptl);
}
#else
void vmt_protect_init(void)
{
}

void vmt_protect_exit(void)
{
}

static bool vmt_ptl_trylock(spinlock_t *ptl)
{
	return spin_trylock(ptl);
}
#endif

/**
 * vmt_protect_page_atomic() - protect one page again without sleeping, for
 * exact mode's debug trap and its scheduler probe
 * @mm:		the address space, current's (its page tables are loaded)
 * @addr:	an address in the page
 *
 * Context: interrupts off (the walk is lockless, as in GUP-fast). The page
 * table's lock is only tried: its holder may be waiting for this CPU to
 * answer a TLB-flush IPI. Flushes this CPU's TLB entry only: the caller
 * keeps the address space's threads on this CPU.
 *
 * Return: true when nothing maps the page present any more (protected now,
 * or already); false when the lock was busy (the caller protects it later).
 */
bool vmt_protect_page_atomic(struct mm_struct *mm, unsigned long addr)
{
	struct vmt_pte_walk walk = { .mm = mm };
	pmd_t *pmdp = vmt_pmd_offset(mm, addr), pmd;
	spinlock_t *ptl;	/* the PMD's or the PTE table's, only tried */
	bool locked;

	lockdep_assert_irqs_disabled();
	if (!pmdp)
		return true;
	pmd = READ_ONCE(*pmdp);
	if (vmt_pmd_thp(pmd)) {
		ptl = pmd_lockptr(mm, pmdp);
		if (!vmt_ptl_trylock(ptl))
			return false;
		__vmt_protect_huge(pmdp, addr, &walk);
		spin_unlock(ptl);
	} else if (vmt_pmd_table(pmd)) {
		/* Interrupts off: the table cannot be freed while it is looked at. */
		ptl = pte_lockptr(mm, &pmd);
		if (!vmt_ptl_trylock(ptl))
			return false;
		/* Under the lock, the PMD must still point to that table. */
		locked = pmd_same(READ_ONCE(*pmdp), pmd);
		if (locked)
			vmt_protect_pte(pte_offset_kernel(&pmd, addr), addr & PAGE_MASK, &walk);
		spin_unlock(ptl);
		if (!locked)
			return false;
	}
	if (walk.changed || walk.huge_changed)
		vmt_flush_tlb_this_cpu(addr);
	return true;
}

/**
 * vmt_pte_test_and_clear_young() - whether a page was accessed; clears the bit
 * @mm:		the address space; the caller holds mmap_read_lock
 * @addr:	the page's address
 *
 * Context: interrupts off (the walk is lockless, as in GUP-fast). The bit
 * is cleared atomically, as the hardware sets it; the caller flushes the TLB
 * so that the next access sets it again. A THP's PMD has one Accessed bit.
 *
 * Return: true when a present PTE or huge PMD maps @addr with its Accessed
 * bit set.
 */
bool vmt_pte_test_and_clear_young(struct mm_struct *mm, unsigned long addr)
{
	pmd_t *pmdp = vmt_pmd_offset(mm, addr), pmd;
	pte_t *ptep;

	lockdep_assert_irqs_disabled();
	if (!pmdp)
		return false;
	pmd = READ_ONCE(*pmdp);
	if (vmt_pmd_thp(pmd)) {
		if (pmd_protnone(pmd))
			return false;
		return test_and_clear_bit(_PAGE_BIT_ACCESSED, (unsigned long *)&pmdp->pmd);
	}
	if (!vmt_pmd_table(pmd))
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
 * @huge:	set when a huge PMD maps @addr
 *
 * For the fault probe. Interrupts are off while walking: page tables are
 * freed only after a grace period that waits for them (as in GUP-fast).
 *
 * Return: the PTE; for a huge PMD, the PTE that would map @addr were it
 * split (vmt_huge_pte()); a none PTE when nothing maps @addr.
 */
pte_t vmt_pte_lookup_lockless(struct mm_struct *mm, unsigned long addr, bool *huge)
{
	unsigned long flags;
	pte_t pte = __pte(0);
	pmd_t *pmdp, pmd;

	*huge = false;
	local_irq_save(flags);
	pmdp = vmt_pmd_offset(mm, addr);
	if (pmdp) {
		pmd = READ_ONCE(*pmdp);
		if (vmt_pmd_thp(pmd)) {
			pte = vmt_huge_pte(pmd, addr);
			*huge = true;
		} else if (vmt_pmd_table(pmd)) {
			pte = ptep_get(pte_offset_kernel(&pmd, addr));
		}
	}
	local_irq_restore(flags);
	return pte;
}
