// SPDX-License-Identifier: GPL-2.0
/*
 * The fault probes: exceptions:page_fault_user and page_fault_kernel, found
 * by name. Each fault of a target becomes one reference record in the ring of
 * the CPU it happened on.
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

#include "compat.h"
#include "emit.h"
#include "enabled.h"
#include "events.h"
#include "notify.h"
#include "protect.h"
#include "session.h"

struct linux_binprm;

static struct tracepoint *vmt_tp_fault_user;
static struct tracepoint *vmt_tp_fault_kernel;
static struct tracepoint *vmt_tp_fork;
static struct tracepoint *vmt_tp_exec;
static struct tracepoint *vmt_tp_exec_event;
static struct tracepoint *vmt_tp_switch;
static struct tracepoint *vmt_tp_newtask;
static struct tracepoint *vmt_tp_exit;
static struct tracepoint *vmt_tp_free;
static struct tracepoint *vmt_tp_rename;
static struct tracepoint *vmt_tp_sys_exit;
static struct tracepoint *vmt_tp_sys_exit_protect;
static struct tracepoint *vmt_tp_migration_pte;

static bool vmt_is_target(struct task_struct *task)
{
	return vmt_session_traces(task);
}

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

static void vmt_log_fault(unsigned long address, struct pt_regs *regs,
			  unsigned long error_code, bool kernel_mode)
{
	unsigned long stale_start, stale_end;
	struct vmt_target *t;
	struct vmt_record rec;
	bool huge;
	pte_t pte;

	/*
	 * Faults taken in interrupt or NMI context (perf reading a user stack)
	 * are not the task's own references, and could interleave with a
	 * record being written on this CPU.
	 */
	if (!smp_load_acquire(&vmt_session.tracing) || !in_task() || !vmt_is_target(current))
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
	vmt_emit(&rec, VMT_REC_REFERENCE);

	if (vmt_session.settings.flags & VMT_CONFIG_PROTECT) {
		t = vmt_session_target(current->mm);
		if (t && t->pagemap && rec.ref.pfn && vmt_events_on(VMT_EVENT_PAGEMAP))
			vmt_pagemap_log(t->pagemap, huge ? address & HPAGE_PMD_MASK :
					address & PAGE_MASK, rec.ref.pfn, huge);
		if (!t)
			return;
		stale_start = 0;
		stale_end = 0;
		if (VMT_NUMA_FAULT_MAPS_FOLIO && !huge && rec.ref.cause == VMT_CAUSE_PROTECTION)
			vmt_folio_span(address, rec.ref.pfn, &stale_start, &stale_end);
		if (rec.ref.cause == VMT_CAUSE_DEMAND && !(error_code & X86_PF_WRITE))
			vmt_fault_around_span(address, &stale_start, &stale_end);
		/* A THP is one entry of the set, by its first page. */
		vmt_enabled_admit(t, huge ? address & HPAGE_PMD_MASK : address,
				  instruction_pointer(regs), kernel_mode, stale_start, stale_end);
	}
}

/**
 * vmt_log_evict() - write the EVICT record of a page protected again
 * @t:		the target it was evicted from
 * @addr:	the page's address
 * @old:	its PTE before it was protected
 * @huge:	it was a THP, protected whole
 *
 * Context: process context, current is the evicting thread.
 */
void vmt_log_evict(struct vmt_target *t, unsigned long addr, pte_t old, bool huge)
{
	struct vmt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.ref.vaddr = addr;
	rec.ref.pfn = pte_pfn(old);
	if (pte_dirty(old))
		rec.ref.evict_flags |= VMT_EVICT_DIRTY;
	if (pte_young(old))
		rec.ref.evict_flags |= VMT_EVICT_ACCESSED;
	if (huge)
		rec.ref.flags |= VMT_REF_HUGE;
	/* From the stale work, no thread of the process evicts it. */
	vmt_emit_as(&rec, VMT_REC_EVICT, t->tgid,
		    current->mm == t->mm ? task_pid_nr(current) : 0, NULL, 0);
	if (t->pagemap && rec.ref.pfn && vmt_events_on(VMT_EVENT_PAGEMAP))
		vmt_pagemap_log(t->pagemap, addr, rec.ref.pfn, huge);
}

static void vmt_probe_fault_user(void *data, unsigned long address,
				 struct pt_regs *regs, unsigned long error_code)
{
	vmt_log_fault(address, regs, error_code, false);
}

static void vmt_probe_fault_kernel(void *data, unsigned long address,
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
	vmt_log_fault(address, regs, error_code, true);
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
 *   (vmt_enabled_stale_in_call()): before its user code runs, and after
 *   the fault has mapped the page;
 * - for a user thread of another process (process_vm_readv(),
 *   /proc/PID/mem), by the stale work, once the caller's system call has
 *   returned (vmt_enabled_stale_in_call() too), so after the fault has
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
static int vmt_kp_handle_mm_fault(struct kprobe *kp, struct pt_regs *regs)
{
	struct vm_area_struct *vma = (void *)regs_get_kernel_argument(regs, 0);
	unsigned long start = regs_get_kernel_argument(regs, 1) & HPAGE_PMD_MASK;
	struct vmt_target *t;

	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (regs_get_kernel_argument(regs, 3) || !smp_load_acquire(&vmt_session.tracing) ||
	    !(vmt_session.settings.flags & VMT_CONFIG_PROTECT))
		return 0;
	t = vmt_session_target(vma->vm_mm);
	if (!t)
		return 0;
	if (current->flags & (PF_KTHREAD | PF_IO_WORKER | PF_USER_WORKER))
		vmt_enabled_stale_soon(t, start, start + HPAGE_PMD_SIZE);
	else
		vmt_enabled_stale_in_call(t, vma->vm_mm, start, start + HPAGE_PMD_SIZE);
	return 0;
}

static struct kprobe vmt_kp_gup = {
	.symbol_name = "handle_mm_fault",
	.pre_handler = vmt_kp_handle_mm_fault,
};

/*
 * sched:sched_process_fork, in the parent before the child first runs. A
 * thread is its process's target already; a new process is followed when
 * asked (system-wide, always), and with protection its task_work protects
 * its address space before it runs user code.
 */
static void vmt_probe_fork(void *data, struct task_struct *parent, struct task_struct *child)
{
	const struct vmt_settings *s = &vmt_session.settings;

	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (!smp_load_acquire(&vmt_session.tracing))
		return;
	if (child->tgid == parent->tgid)
		return;
	if (s->flags & VMT_CONFIG_SYSTEM_WIDE) {
		if ((s->flags & VMT_CONFIG_PROTECT) && vmt_is_target(child))
			vmt_enabled_attach(child);
		return;
	}
	if (!(s->flags & VMT_CONFIG_FOLLOW) || !vmt_is_target(parent))
		return;
	vmt_session_follow(child);
	if (s->flags & VMT_CONFIG_PROTECT)
		vmt_enabled_attach(child);
}

/*
 * sched:sched_process_free, once a task is released, from RCU: when the
 * leader of a process is, every thread of the process has exited (and
 * had its exit event written), and a followed process is one no more. Its
 * pid (task_tgid_nr() is 0 by now) may be in use again already, by a
 * process followed since: one entry only goes.
 */
static void vmt_probe_free(void *data, struct task_struct *p)
{
	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (smp_load_acquire(&vmt_session.tracing) && p->pid == p->tgid)
		vmt_session_unfollow(p->tgid);
}

/* sched:sched_process_exec: a target's new address space is traced too. */
static void vmt_probe_exec(void *data, struct task_struct *p, pid_t old_pid,
			   struct linux_binprm *bprm)
{
	/* Pairs with the release in vmt_session_start(): settings are in place. */
	if (smp_load_acquire(&vmt_session.tracing) &&
	    (vmt_session.settings.flags & VMT_CONFIG_PROTECT) && vmt_is_target(p))
		vmt_enabled_attach(p);
}

struct vmt_probe {
	struct tracepoint **tp;
	const char *name;
	void *fn;
};

static const struct vmt_probe vmt_probes[] = {
	{ &vmt_tp_fault_user, "page_fault_user", vmt_probe_fault_user },
	{ &vmt_tp_fault_kernel, "page_fault_kernel", vmt_probe_fault_kernel },
	{ &vmt_tp_fork, "sched_process_fork", vmt_probe_fork },
	{ &vmt_tp_exec, "sched_process_exec", vmt_probe_exec },
	{ &vmt_tp_free, "sched_process_free", vmt_probe_free },
	/* events.c and vma.c */
	{ &vmt_tp_exec_event, "sched_process_exec", vmt_probe_exec_event },
	{ &vmt_tp_switch, "sched_switch", vmt_probe_switch },
	{ &vmt_tp_newtask, "task_newtask", vmt_probe_newtask },
	{ &vmt_tp_exit, "sched_process_exit", vmt_probe_exit },
	{ &vmt_tp_rename, "task_rename", vmt_probe_rename },
	/*
	 * While a probe is attached here every task's system calls take the
	 * slow exit path; it returns at once for all but five of them.
	 */
	{ &vmt_tp_sys_exit, "sys_exit", vmt_probe_sys_exit },
	{ &vmt_tp_sys_exit_protect, "sys_exit", vmt_probe_sys_exit_protect },
	/* notify.c */
	{ &vmt_tp_migration_pte, "remove_migration_pte", vmt_probe_migration_pte },
};

/**
 * vmt_probes_register() - attach the fault, fork and exec probes and the
 * event sources, at load
 *
 * They do nothing until vmt_session.tracing is set.
 *
 * Return: 0, -ENOENT when this kernel lacks one of the tracepoints, or the
 * error tracepoint_probe_register() or the DMA sources gave.
 */
int vmt_probes_register(void)
{
	int i, err = 0;

	for (i = 0; i < ARRAY_SIZE(vmt_probes); i++) {
		if (!*vmt_probes[i].tp)
			*vmt_probes[i].tp = vmt_find_tracepoint(vmt_probes[i].name);
		if (!*vmt_probes[i].tp)
			return -ENOENT;
	}
	for (i = 0; i < ARRAY_SIZE(vmt_probes) && !err; i++)
		err = tracepoint_probe_register(*vmt_probes[i].tp, vmt_probes[i].fn, NULL);
	if (!err) {
		err = register_kprobe(&vmt_kp_gup);
		if (err) {
			pr_err("vmtrace: cannot attach a kprobe to handle_mm_fault: %d\n", err);
			i = ARRAY_SIZE(vmt_probes) + 1;
		}
	}
	if (!err) {
		err = vmt_dma_register();
		if (!err)
			return 0;
		pr_err("vmtrace: cannot attach to the DMA API: %d\n", err);
		unregister_kprobe(&vmt_kp_gup);
		i = ARRAY_SIZE(vmt_probes) + 1;
	}
	for (i -= 2; i >= 0; i--)
		tracepoint_probe_unregister(*vmt_probes[i].tp, vmt_probes[i].fn, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

/**
 * vmt_probes_unregister() - detach the probes and wait until none runs, at unload
 */
void vmt_probes_unregister(void)
{
	int i;

	vmt_dma_unregister();
	unregister_kprobe(&vmt_kp_gup);
	for (i = ARRAY_SIZE(vmt_probes) - 1; i >= 0; i--)
		tracepoint_probe_unregister(*vmt_probes[i].tp, vmt_probes[i].fn, NULL);
	/* After this no probe runs, so rings and settings may change. */
	tracepoint_synchronize_unregister();
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/probe-kunit.h"
#endif
