// SPDX-License-Identifier: GPL-2.0
/*
 * The fault probes: exceptions:page_fault_user and page_fault_kernel, found
 * by name. Each fault of a target becomes one reference record in the ring of
 * the CPU it happened on; with protection, the faulting page is admitted to
 * its address space's enabled set (admit.c). A kprobe on handle_mm_fault()
 * sees the faults the kernel takes for itself (below).
 *
 * The probes run at the very start of the page-fault handler, with interrupts
 * off and before mmap_lock is taken: they only read the task and the
 * registers, build a record and write it to the ring. No locks, no
 * allocation, nothing that sleeps.
 */
#include <linux/hardirq.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include <asm/trap_pf.h>

#include "base/compat.h"
#include "base/hooks.h"
#include "base/session.h"
#include "exact/exact.h"
#include "fault.h"
#include "protect/admit.h"
#include "protect/pagemap.h"
#include "protect/protect.h"
#include "protect/targets.h"
#include "ring/emit.h"

static u8 vmt_access_type(unsigned long error_code)
{
	if (error_code & X86_PF_INSTR)
		return VMT_ACCESS_EXEC;
	if (error_code & X86_PF_WRITE)
		return VMT_ACCESS_WRITE;
	return VMT_ACCESS_READ;
}

/*
 * Why the access faulted, from the error code and the PTE as it is before
 * the fault is handled: protnone (ours), none (first touch), present and
 * written (copy-on-write), or anything else (swap, migration, uffd...).
 */
static u8 vmt_fault_cause(unsigned long error_code, pte_t pte)
{
	if (pte_protnone(pte))
		return VMT_CAUSE_PROTECTION;
	if (!(error_code & X86_PF_PROT))
		return pte_none(pte) ? VMT_CAUSE_DEMAND : VMT_CAUSE_OTHER;
	if (error_code & X86_PF_WRITE)
		return VMT_CAUSE_COW;
	return VMT_CAUSE_OTHER;
}

/*
 * The fault on a protnone PTE of a large folio mapped by PTEs maps all of
 * the folio's back (see VMT_NUMA_FAULT_MAPS_FOLIO): its span, clipped to
 * the 2 MiB around @address, is protected again before the thread returns
 * to user space (the admission's work), but for the enabled pages.
 * The folio is read without a reference: a stale answer only widens or
 * narrows what is protected again.
 *
 * The span goes to @start and @end; a small folio leaves them alone.
 */
static void vmt_folio_span(unsigned long address, u64 pfn, unsigned long *start,
			   unsigned long *end)
{
	unsigned long lo = address & HPAGE_PMD_MASK, first;
	struct folio *folio;

	if (!pfn || !pfn_valid(pfn))
		return;
	folio = page_folio(pfn_to_page(pfn));
	if (!folio_test_large(folio))
		return;
	first = (address & PAGE_MASK) - (pfn - folio_pfn(folio)) * PAGE_SIZE;
	*start = max(first, lo);
	*end = min(first + folio_nr_pages(folio) * PAGE_SIZE, lo + HPAGE_PMD_SIZE);
}

/*
 * A read fault on an empty entry of a file mapping maps the page cache's
 * neighbours of the page too, without faults of their own (fault-around:
 * fault_around_bytes, 64 KiB by default, at most the page table around
 * @address). The probe cannot look up the VMA (no mmap_lock here), so it
 * marks the whole page table's span for any read demand fault: the work
 * protects again what the fault mapped besides the page, finding nothing
 * to do after an anonymous one (the zero page, one entry).
 */
static void vmt_fault_around_span(unsigned long address, unsigned long *start,
				  unsigned long *end)
{
	*start = address & HPAGE_PMD_MASK;
	*end = *start + HPAGE_PMD_SIZE;
}

static void vmt_fault_log_and_admit(unsigned long address, struct pt_regs *regs,
				    unsigned long error_code, bool kernel_mode)
{
	unsigned long stale_start, stale_end;
	struct vmt_session *s;
	struct vmt_target *t;
	struct vmt_record rec;
	bool huge;
	pte_t pte;

	/*
	 * Faults taken in interrupt or NMI context (perf reading a user stack)
	 * are not the task's own references, and could interleave with a
	 * record being written on this CPU.
	 */
	if (!in_task())
		return;
	s = vmt_session_of(current);
	if (!s)
		return;

	pte = vmt_pte_lookup_lockless(current->mm, address, &huge);
	memset(&rec, 0, sizeof(rec));
	rec.ref.vaddr = address;
	/* A kernel-mode ip is a kernel address: never handed to readers. */
	rec.ref.ip = kernel_mode ? 0 : instruction_pointer(regs);
	rec.ref.error_code = error_code;
	rec.ref.access = vmt_access_type(error_code);
	rec.ref.kernel_mode = kernel_mode;
	rec.ref.cause = vmt_fault_cause(error_code, pte);
	/* pte_pfn() undoes the PFN inversion of protnone PTEs. */
	if (pte_present(pte))
		rec.ref.pfn = pte_pfn(pte);
	if (huge)
		rec.ref.flags |= VMT_REF_HUGE;
	if (!(s->settings.flags & VMT_CONFIG_PROTECT)) {
		vmt_emit(s, &rec, VMT_REC_REFERENCE);
		return;
	}
	/* What the fault maps besides the page, to protect again. */
	stale_start = 0;
	stale_end = 0;
	if (VMT_NUMA_FAULT_MAPS_FOLIO && !huge && rec.ref.cause == VMT_CAUSE_PROTECTION)
		vmt_folio_span(address, rec.ref.pfn, &stale_start, &stale_end);
	if (rec.ref.cause == VMT_CAUSE_DEMAND && !(error_code & X86_PF_WRITE))
		vmt_fault_around_span(address, &stale_start, &stale_end);
	/*
	 * An exact range's access: single-stepped and logged whole (exact.c),
	 * the stale span protected again before the thread runs user code.
	 */
	if (vmt_exact_fault(address, regs, error_code, kernel_mode, stale_start, stale_end))
		return;
	vmt_emit(s, &rec, VMT_REC_REFERENCE);

	t = vmt_target_lookup(current->mm);
	/*
	 * A THP's pair is its first page and first frame: the reference's pfn
	 * is the frame of the 4 KiB page that faulted, @address's offset into
	 * the THP from the first.
	 */
	if (t && t->pagemap && rec.ref.pfn && vmt_session_wants(s, VMT_EVENT_PAGEMAP))
		vmt_pagemap_log(t->pagemap, huge ? address & HPAGE_PMD_MASK : address & PAGE_MASK,
				huge ? rec.ref.pfn - ((address & ~HPAGE_PMD_MASK) >> PAGE_SHIFT) :
				rec.ref.pfn, huge);
	if (!t)
		return;
	/* A THP is one entry of the set, by its first page. */
	vmt_target_admit(t, huge ? address & HPAGE_PMD_MASK : address, instruction_pointer(regs),
			 kernel_mode, stale_start, stale_end);
}

static void vmt_fault_probe_user(void *data, unsigned long address,
				 struct pt_regs *regs, unsigned long error_code)
{
	vmt_fault_log_and_admit(address, regs, error_code, false);
}

static void vmt_fault_probe_kernel(void *data, unsigned long address,
				   struct pt_regs *regs, unsigned long error_code)
{
	/* Only the kernel touching a target's user memory (copy_to_user...). */
	if (address >= TASK_SIZE_MAX)
		return;
	/*
	 * Nor a fault the kernel will not handle: with page faults disabled
	 * (perf or BPF reading a user stack, maybe under the scheduler's
	 * locks) the access fails and is not made. The admission would queue
	 * work, which may wake a worker: not under a run-queue lock. (Atomic
	 * user accesses disable page faults; in_atomic() is no test here, the
	 * tracepoint disables preemption itself.)
	 */
	if (pagefault_disabled())
		return;
	vmt_fault_log_and_admit(address, regs, error_code, true);
}

/*
 * Faults the kernel takes for itself, with no exception: get_user_pages()
 * and its kin fault pages in through handle_mm_fault() without pt_regs
 * (MAP_POPULATE, mlock(), madvise(MADV_POPULATE_*), O_DIRECT buffers, a
 * futex's fixup_user_fault(), madvise(MADV_SOFT_OFFLINE) looking a page
 * up). No fault tracepoint sees them, yet a protected page comes back
 * accessible and a new one present: the program's later accesses to it
 * would go unlogged. They are the kernel's accesses, not the program's:
 * nothing is logged, and the page (with the page table's span around it,
 * which fault-around or a large folio may map too) is protected again,
 * but for the enabled set's pages, as after the kernel's other changes:
 * - for a user thread of the address space, when its system call returns
 *   (vmt_target_stale_in_call()): before its user code runs, and after
 *   the fault has mapped the page;
 * - for a user thread of another process (process_vm_readv(),
 *   /proc/PID/mem), by the stale work, once the caller's system call has
 *   returned (vmt_target_stale_in_call() too), so after the fault has
 *   mapped the page: the program's accesses in between go unlogged (the
 *   stale window of notify.c);
 * - otherwise (an io_uring worker, a vhost worker, a kernel thread on the
 *   address space; a user thread when every slot of the calls' table is
 *   in use), by the stale work, soon: if it runs before the fault has
 *   mapped the page, the page stays unprotected.
 * Faults with pt_regs came through the exception handler, which the fault
 * tracepoints saw.
 *
 * Context: handle_mm_fault()'s caller, which may sleep; the kprobe runs
 * with preemption off.
 */
static int vmt_fault_kp_handle_mm_fault(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	unsigned long start = regs_get_kernel_argument(regs, 1) & HPAGE_PMD_MASK;
	struct vmt_target *t;

	if (regs_get_kernel_argument(regs, 3) || !vmt_session_protecting())
		return 0;
	t = vmt_target_lookup(vma->vm_mm);
	if (!t)
		return 0;
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER))
		vmt_target_stale_soon(t, start, start + HPAGE_PMD_SIZE);
	else
		vmt_target_stale_in_call(t, vma->vm_mm, start, start + HPAGE_PMD_SIZE);
	return 0;
}

static struct kprobe vmt_fault_kprobe_gup = {
	.symbol_name = "handle_mm_fault",
	.pre_handler = vmt_fault_kp_handle_mm_fault,
};

static struct vmt_tracepoint_probe vmt_fault_probes[] = {
	{ "page_fault_user", vmt_fault_probe_user },
	{ "page_fault_kernel", vmt_fault_probe_kernel },
};

static struct kprobe *vmt_fault_kprobes[] = { &vmt_fault_kprobe_gup };

struct vmt_hooks vmt_fault_hooks = {
	.name = "fault",
	VMT_HOOKS_PROBES(vmt_fault_probes),
	VMT_HOOKS_KPROBES(vmt_fault_kprobes),
};

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/fault-kunit.h"
#endif
