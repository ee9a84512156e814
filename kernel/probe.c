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
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/smp.h>
#include <linux/tracepoint.h>
#include <asm/ptrace.h>
#include <asm/trap_pf.h>

#include "compat.h"
#include "protect.h"
#include "session.h"

static struct tracepoint *vmt_tp_fault_user;
static struct tracepoint *vmt_tp_fault_kernel;

/* Targets are fixed while tracing: see struct vmt_session. */
static bool vmt_is_target(struct task_struct *task)
{
	const struct vmt_settings *s = &vmt_session.settings;
	pid_t tgid;
	u32 i;

	if (!task->mm || (task->flags & PF_KTHREAD))
		return false;
	if (s->flags & VMT_CONFIG_SYSTEM_WIDE)
		return true;
	tgid = task_tgid_nr(task);
	for (i = 0; i < s->nr_pids; i++)
		if (s->pids[i] == tgid)
			return true;
	return false;
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

static void vmt_log_fault(unsigned long address, struct pt_regs *regs,
			  unsigned long error_code, bool kernel_mode)
{
	struct vmt_cpu_ring *cr;
	struct vmt_record rec;
	pte_t pte;
	int cpu;

	/*
	 * Faults taken in interrupt or NMI context (perf reading a user stack)
	 * are not the task's own references, and could interleave with a
	 * record being written on this CPU.
	 */
	if (!in_task() || !vmt_is_target(current))
		return;

	pte = vmt_pte_lookup_lockless(current->mm, address);
	cpu = smp_processor_id();
	cr = vmt_session.rings[cpu];
	memset(&rec, 0, sizeof(rec));
	rec.hdr.time_ns = ktime_get_mono_fast_ns();
	rec.hdr.pid = task_tgid_nr(current);
	rec.hdr.tid = task_pid_nr(current);
	rec.hdr.type = VMT_REC_REFERENCE;
	rec.hdr.cpu = cpu;
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

	cr->faults++;
	vmt_ring_write(&cr->ring, &rec);
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
	vmt_log_fault(address, regs, error_code, true);
}

/**
 * vmt_probes_register() - attach the fault probes
 *
 * Return: 0, -ENOENT when this kernel lacks the tracepoints, or the error
 * tracepoint_probe_register() gave.
 */
int vmt_probes_register(void)
{
	int err;

	if (!vmt_tp_fault_user)
		vmt_tp_fault_user = vmt_find_tracepoint("page_fault_user");
	if (!vmt_tp_fault_kernel)
		vmt_tp_fault_kernel = vmt_find_tracepoint("page_fault_kernel");
	if (!vmt_tp_fault_user || !vmt_tp_fault_kernel)
		return -ENOENT;

	err = tracepoint_probe_register(vmt_tp_fault_user,
					vmt_probe_fault_user, NULL);
	if (err)
		return err;
	err = tracepoint_probe_register(vmt_tp_fault_kernel,
					vmt_probe_fault_kernel, NULL);
	if (err)
		goto out_unregister_user;
	return 0;

out_unregister_user:
	tracepoint_probe_unregister(vmt_tp_fault_user, vmt_probe_fault_user, NULL);
	tracepoint_synchronize_unregister();
	return err;
}

/**
 * vmt_probes_unregister() - detach the fault probes and wait until none runs
 */
void vmt_probes_unregister(void)
{
	tracepoint_probe_unregister(vmt_tp_fault_kernel, vmt_probe_fault_kernel, NULL);
	tracepoint_probe_unregister(vmt_tp_fault_user, vmt_probe_fault_user, NULL);
	/* After this no probe runs, so rings and settings may change. */
	tracepoint_synchronize_unregister();
}
