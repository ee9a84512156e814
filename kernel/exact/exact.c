// SPDX-License-Identifier: GPL-2.0
/*
 * Exact mode: every load and store of a traced process to chosen byte
 * ranges, with its size and value, by faulting and single-stepping, as
 * mmiotrace does for MMIO (arch/x86/mm/kmmio.c), but per task and for user
 * pages. This file is the stepping engine: the step slots, the fault, the
 * trap, the probes and the quiescing at stop; the ranges, their names and
 * counters, and their control are exact_ranges.c's.
 *
 * Outline, in order (about 1,080 lines):
 * - step slots: claimed by hashing the task, the pages a step holds, and
 *   protecting them again (vmt_step_protect()); a step that ends with a
 *   page left present (its lock busy) keeps its slot, pending
 *   (vmt_step_end());
 * - the fault: decoding the instruction, the accesses it will make, the
 *   trap flag set; kernel-mode faults, rseq's update of its own area
 *   (vmt_exact_rseq_fault()), vmt_exact_fault();
 * - the trap: each access logged with the bytes memory holds (through the
 *   frame when the page was protected again meanwhile), the fetch, pushf's
 *   trap flag hidden, vmt_exact_die();
 * - signals, switches and exits: a step cancelled, pages protected when
 *   the thread is switched out, or covered from an irq_work before another
 *   thread of the process runs user code (vmt_exact_cover()), system calls,
 *   exit, fork; attach, detach and vmt_exact_quiesce() at stop.
 *
 * The pages of an exact range are protnone, as every page of a target is
 * with protection, and never enter the enabled set. When a thread faults on
 * one (the fault probe, interrupts off, before the fault is handled), the
 * module decodes the instruction (exact_insn.c), notes the accesses it will
 * make (their addresses from the registers before it runs), and sets the
 * trap flag in the thread's user registers. The fault handler maps the page
 * back (the NUMA-hinting path), the instruction runs, and the CPU raises a
 * debug trap after it: the die notifier logs each access with the bytes
 * memory holds then, protects the page again and flushes this CPU's TLB
 * entry, and gives the thread its trap flag back as it was. A thread that
 * single-steps already (ptrace, its own TF) still gets its SIGTRAP.
 *
 * Per thread, a step slot holds what the trap needs, from the fault to the
 * trap: the slots are preallocated and found by hashing the task, as the
 * admission's task_works are (admit.c). Only the thread itself claims and
 * releases its slot; stop waits until none is in use.
 *
 * Other threads: while a page is present for one thread's step, the
 * process's other threads could reach it unseen. The process's threads are
 * kept on one CPU (vmtrace record --exact pins them), so none runs while
 * the stepping thread does; and when the stepping thread is switched out
 * between its fault and its trap, the scheduler probe protects its pages
 * again (the instruction then faults again when the thread comes back).
 *
 * A signal delivered between the fault and the trap means the instruction
 * has not run: the step is cancelled (the trap flag taken back, the pages
 * protected again) and the instruction faults anew after the handler.
 * Kernel-mode accesses (a system call copying into the page) cannot be
 * stepped: the first of a call is logged with size 0, and the page is
 * protected again when the call returns (protect/gup_calls.c).
 *
 * Locks: the range table's raw spinlock (exact_ranges.c's vmt_exact_lock),
 * taken with interrupts off. The trap and the scheduler's probe only try the
 * PTE table's lock (vmt_protect_page_atomic()): its holder may be waiting
 * for this CPU to answer a TLB-flush IPI. When the lock is busy, the page
 * is protected from a task_work before the thread returns to user space
 * (the trap, a signal), or else, in the scheduler, where nothing can wait,
 * left present until the trap, or until another thread of the process is
 * switched in: an irq_work then tries again before that thread runs user
 * code (vmt_exact_cover()). The step slots' lock, vmt_steps_lock, orders a
 * slot's release against stop's look at owners.
 */
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/kdebug.h>
#include <linux/mm.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/sched/task_stack.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <asm/debugreg.h>
#include <asm/msr.h>
#include <asm/ptrace.h>
#include <asm/syscall.h>
#include <asm/trap_pf.h>

#include "base/compat.h"
#include "base/hooks.h"
#include "base/session.h"
#include "exact/exact.h"
#include "exact/exact_insn.h"
#include "exact/exact_ranges.h"
#include "protect/admit.h"
#include "protect/evict.h"
#include "protect/protect.h"
#include "protect/targets.h"
#include "ring/emit.h"

/* ---- Step slots ------------------------------------------------------------ */

#define VMT_STEP_BITS		8
#define VMT_STEPS		BIT(VMT_STEP_BITS)
#define VMT_STEP_PROBES		8
#define VMT_STEP_ACCESSES	2	/* movs: a read and a write */
/*
 * The pages one step holds present: the instruction's (it may cross a page
 * end), each access's (each may too), and rseq's, which the kernel's update
 * may map back meanwhile (vmt_exact_rseq_fault()): 2 + 2 * 2 + 1.
 */
#define VMT_STEP_PAGES		8

struct vmt_step_access {
	unsigned long addr;
	u16 size;		/* 0: not decoded */
	u8 access;		/* VMT_ACCESS_* */
	u8 flags;		/* VMT_EXACT_STRING, VMT_EXACT_STACK */
};

/*
 * struct vmt_step - one thread's instruction, from its fault to its trap
 * @owner:	the thread; NULL: free. Claimed and released by the thread
 *		itself (interrupts off), read by stop
 * @mm:		its address space
 * @ip:		the instruction
 * @tf:		the trap flag was set before the module set it
 * @pushf:	the instruction pushes the flags (pushf): the pushed word
 *		loses the module's trap flag
 * @popf:	it pops them: the program's flags stand after it
 * @fetch:	the first fault was the instruction's fetch from an exact
 *		page: it is decoded once its bytes can be read
 * @pending:	no instruction: pages the kernel's rseq update mapped back
 *		on the thread's way to user space, to protect before its
 *		next instruction runs (vmt_exact_rseq_fault()); no trap flag
 * @decoded:	@acc holds the decoder's accesses, and @len is known
 * @len:	the instruction's length
 * @acc:	the accesses to log, @nr_acc of them
 * @pages:	the exact pages mapped back for it, @nr_pages of them
 * @stale_start: what rseq's update mapped back besides its page (a large
 *		folio), to protect once the rseq page is (vmt_exact_rseq_fault())
 * @stale_end:	its end; empty when not above @stale_start
 * @exposed:	the thread was switched out with a page of the step still
 *		present (its PTE lock busy): another thread of @mm switched
 *		in has it covered first (vmt_exact_cover())
 * @gpr:	the registers before the instruction, in the decoder's order
 */
struct vmt_step {
	struct task_struct *owner;
	struct mm_struct *mm;
	unsigned long ip;
	bool tf, pushf, popf, fetch, pending, decoded, exposed;
	u8 len, nr_acc, nr_pages;
	struct vmt_step_access acc[VMT_STEP_ACCESSES];
	unsigned long pages[VMT_STEP_PAGES];
	unsigned long stale_start, stale_end;
	unsigned long gpr[16];
};

static struct vmt_step vmt_steps[VMT_STEPS];
static atomic_t vmt_steps_used = ATOMIC_INIT(0);
/* Slots with @exposed set: while there are any, each switch looks at them. */
static atomic_t vmt_steps_exposed = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(vmt_steps_idle);
/*
 * Taken when a slot is released and when stop looks at the owners: an
 * owner seen under it has not finished exiting (its exit probe releases
 * the slot first), so stop may wake it.
 */
static DEFINE_RAW_SPINLOCK(vmt_steps_lock);

static struct vmt_step *vmt_step_find(struct task_struct *task)
{
	u32 h = hash_ptr(task, VMT_STEP_BITS), i;
	struct vmt_step *s;

	if (!atomic_read(&vmt_steps_used))
		return NULL;
	for (i = 0; i < VMT_STEP_PROBES; i++) {
		s = &vmt_steps[(h + i) % VMT_STEPS];
		if (READ_ONCE(s->owner) == task)
			return s;
	}
	return NULL;
}

static struct vmt_step *vmt_step_claim(struct task_struct *task)
{
	u32 h = hash_ptr(task, VMT_STEP_BITS), i;
	struct vmt_step *s;

	for (i = 0; i < VMT_STEP_PROBES; i++) {
		s = &vmt_steps[(h + i) % VMT_STEPS];
		if (!READ_ONCE(s->owner) && !cmpxchg(&s->owner, NULL, task)) {
			atomic_inc(&vmt_steps_used);
			return s;
		}
	}
	return NULL;
}

/*
 * Mark @s exposed or not: by its owner (its switch, its claim), or by its
 * release under vmt_steps_lock. xchg(): stop may release a pending slot
 * while its owner's switch marks it; the next claim clears such a mark, and
 * the count stays that of the marks.
 */
static void vmt_step_expose(struct vmt_step *s, bool exposed)
{
	if (xchg(&s->exposed, exposed) == exposed)
		return;
	if (exposed)
		atomic_inc(&vmt_steps_exposed);
	else
		atomic_dec(&vmt_steps_exposed);
}

/* Release @task's slot @s; @task is current, or current's exiting self. */
static void vmt_step_release(struct vmt_step *s, struct task_struct *task)
{
	unsigned long flags;
	bool mine;

	/*
	 * A pending slot may be released by stop too (vmt_exact_quiesce()):
	 * whoever takes the owner out first counts it. Against @task, not
	 * whatever owner is there now: after stop took it, another thread
	 * may have claimed the slot, and it stays that thread's.
	 */
	raw_spin_lock_irqsave(&vmt_steps_lock, flags);
	/* The mark goes first: once the owner is out, the slot may be claimed. */
	if (READ_ONCE(s->owner) == task)
		vmt_step_expose(s, false);
	mine = cmpxchg(&s->owner, task, NULL) == task;
	raw_spin_unlock_irqrestore(&vmt_steps_lock, flags);
	if (mine && atomic_dec_and_test(&vmt_steps_used) && wq_has_sleeper(&vmt_steps_idle))
		wake_up_all(&vmt_steps_idle);
}

/* Return: false when @s holds VMT_STEP_PAGES other pages already. */
static bool vmt_step_add_page(struct vmt_step *s, unsigned long page)
{
	u8 i;

	for (i = 0; i < s->nr_pages; i++)
		if (s->pages[i] == page)
			return true;
	if (s->nr_pages == VMT_STEP_PAGES)
		return false;
	s->pages[s->nr_pages++] = page;
	return true;
}

/*
 * Put @page in @s, or else (more pages than a step can hold: not for an
 * instruction the decoder knows) have it protected before current runs
 * user code, and count the step as missed: its accesses there are seen
 * as faults again, not logged whole.
 */
static void vmt_step_hold_page(struct vmt_step *s, struct vmt_target *t, unsigned long page)
{
	if (vmt_step_add_page(s, page))
		return;
	atomic64_inc(&vmt_exact_counters.missed);
	if (t)
		vmt_target_stale_before_user(t, page, page + PAGE_SIZE);
}

/*
 * Protect @s's pages again, now if their PTE locks are free, or else before
 * the thread returns to user space (admit.c's work; @t must be current's
 * target then); and then what rseq's update mapped besides its page, before
 * the thread runs user code (without @later, the scheduler's, it waits in
 * the step). With @later (the thread itself: no fault of its own is under
 * way on these pages but the one it handles, whose page its step holds
 * again), the pages protected leave @s, the ones left present stay: a
 * pending slot holds no more than those. Without, the scheduler's, they all
 * stay: one may be protnone now and mapped back after, by a fault handler
 * under way (the thread switched out in it).
 * Return: whether all were protected now.
 */
static bool vmt_step_protect(struct vmt_step *s, struct vmt_target *t, bool later)
{
	bool all = true;
	u8 i, left = 0;

	for (i = 0; i < s->nr_pages; i++) {
		if (vmt_protect_page_atomic(s->mm, s->pages[i])) {
			if (!later)
				s->pages[left++] = s->pages[i];
			continue;
		}
		all = false;
		if (later && t)
			vmt_target_stale_before_user(t, s->pages[i], s->pages[i] + PAGE_SIZE);
		s->pages[left++] = s->pages[i];
	}
	/*
	 * The rseq page is protected by now (or its work is queued): the span
	 * may hold it, as the target's stale range is one span. rseq's update
	 * may fault on it again on this way back, but the page then waits in
	 * the thread's step again, not in this span: one round a step.
	 */
	if (later && t && s->stale_start < s->stale_end) {
		vmt_target_stale_before_user(t, s->stale_start, s->stale_end);
		s->stale_start = 0;
		s->stale_end = 0;
	}
	s->nr_pages = left;
	return all;
}

/*
 * The end of @s, current's, once its pages were protected (@all) or handed
 * to the task_work: the slot is released; or else kept, pending, with the
 * pages still present, until the thread's next exact fault protects them.
 * The work protects them before the thread runs user code, but the thread
 * may be switched out before it runs: the scheduler's probe finds them in
 * the slot then, as any step's.
 */
static void vmt_step_end(struct vmt_step *s, bool all)
{
	if (all) {
		vmt_step_release(s, current);
		return;
	}
	s->pending = true;
	s->nr_acc = 0;
}

/* ---- The fault --------------------------------------------------------------- */

static u8 vmt_exact_access_of(u8 insn_access)
{
	switch (insn_access) {
	case VMT_INSN_R:
		return VMT_ACCESS_READ;
	case VMT_INSN_W:
		return VMT_ACCESS_WRITE;
	default:
		return VMT_ACCESS_RMW;
	}
}

static void vmt_step_note(struct vmt_step *s, unsigned long addr, u16 size, u8 access,
			  u8 flags)
{
	if (s->nr_acc < VMT_STEP_ACCESSES)
		s->acc[s->nr_acc++] = (struct vmt_step_access){
			.addr = addr, .size = size, .access = access, .flags = flags };
}

/* The registers before the instruction, in the decoder's order (rax = 0 ... r15 = 15). */
static void vmt_step_save_regs(struct vmt_step *s, const struct pt_regs *regs)
{
	const unsigned long gpr[16] = {
		regs->ax, regs->cx, regs->dx, regs->bx, regs->sp, regs->bp, regs->si, regs->di,
		regs->r8, regs->r9, regs->r10, regs->r11, regs->r12, regs->r13, regs->r14,
		regs->r15,
	};

	memcpy(s->gpr, gpr, sizeof(gpr));
}

/* Read the instruction at @s->ip: how many of its bytes could be, 0 if none. */
static unsigned int vmt_step_code(const struct vmt_step *s, u8 *code)
{
	unsigned int avail = min_t(unsigned long, VMT_INSN_MAX_LEN,
				   PAGE_SIZE - offset_in_page(s->ip));

	/* The instruction may end on the next page: take what can be read. */
	if (!copy_from_user_nofault(code, (void __user *)s->ip, VMT_INSN_MAX_LEN))
		return VMT_INSN_MAX_LEN;
	return copy_from_user_nofault(code, (void __user *)s->ip, avail) ? 0 : avail;
}

/*
 * The accesses the instruction at @s->ip makes, from the registers before
 * it ran (@s->gpr). Return: false when it cannot be read or decoded.
 */
static bool vmt_step_decode(struct vmt_step *s)
{
	struct vmt_insn_access acc[2];
	struct vmt_insn insn;
	u8 code[VMT_INSN_MAX_LEN], flags;
	unsigned int avail = vmt_step_code(s, code);
	u64 fs = 0, gs = 0;
	int i, n;

	if (!avail || vmt_insn_decode(code, avail, &insn))
		return false;
	/* The user's FS and GS bases: the kernel runs on its own GS base. */
	if (insn.seg == VMT_INSN_SEG_FS)
		rdmsrl(MSR_FS_BASE, fs);
	else if (insn.seg == VMT_INSN_SEG_GS)
		rdmsrl(MSR_KERNEL_GS_BASE, gs);
	n = vmt_insn_accesses(&insn, s->gpr, s->ip + insn.len, fs, gs, acc);
	s->nr_acc = 0;
	flags = insn.kind == VMT_INSN_STRING ? VMT_EXACT_STRING : 0;
	for (i = 0; i < n; i++) {
		u8 f = flags;

		if (insn.kind == VMT_INSN_PUSH || insn.kind == VMT_INSN_POP ||
		    ((insn.flags & (VMT_INSN_STACK_PUSH | VMT_INSN_STACK_POP)) && i == n - 1))
			f |= VMT_EXACT_STACK;
		vmt_step_note(s, acc[i].addr, acc[i].size, vmt_exact_access_of(acc[i].access), f);
	}
	s->pushf = insn.flags & VMT_INSN_PUSHF;
	s->popf = insn.flags & VMT_INSN_POPF;
	s->len = insn.len;
	s->decoded = true;
	/* A fetch alone has no data access to log; a data fault with none is odd: logged as is. */
	return n > 0 || s->fetch;
}

/* An access the decoder could not describe: the faulting address, size 0. */
static void vmt_step_undecoded(struct vmt_step *s, unsigned long address,
			       unsigned long error_code)
{
	s->nr_acc = 0;
	vmt_step_note(s, address, 0, error_code & X86_PF_WRITE ? VMT_ACCESS_WRITE :
		      VMT_ACCESS_READ, 0);
}

/* The record of a kernel-mode access: no size, no instruction. */
static void vmt_exact_emit_kernel(unsigned long address, unsigned long error_code)
{
	struct vmt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.exact.addr = address;
	rec.exact.access = error_code & X86_PF_WRITE ? VMT_ACCESS_WRITE : VMT_ACCESS_READ;
	rec.exact.kernel_mode = 1;
	vmt_emit(vmt_session_alone(), &rec, VMT_REC_EXACT);
	atomic64_inc(&vmt_exact_counters.kernel);
	atomic64_inc(&vmt_exact_counters.accesses);
}

/*
 * A kernel-mode access: logged without a size; its page, and what the fault
 * maps besides it (@stale_start, @stale_end), protected when the call returns.
 */
static void vmt_exact_kernel_fault(unsigned long address, unsigned long error_code,
				   unsigned long stale_start, unsigned long stale_end)
{
	struct vmt_target *t = vmt_target_lookup(current->mm);
	unsigned long page = address & PAGE_MASK;

	vmt_exact_emit_kernel(address, error_code);
	if (stale_start < stale_end) {
		stale_start = min(stale_start, page);
		stale_end = max(stale_end, page + PAGE_SIZE);
	} else {
		stale_start = page;
		stale_end = page + PAGE_SIZE;
	}
	if (t)
		vmt_target_stale_in_call(t, current->mm, stale_start, stale_end);
}

/* Whether @address is on the page of current's rseq area (the TCB, in glibc). */
static bool vmt_exact_rseq_page(unsigned long address)
{
#ifdef CONFIG_RSEQ
	unsigned long rseq = (unsigned long)current->rseq;

	return rseq && !((rseq ^ address) & PAGE_MASK);
#else
	return false;
#endif
}

/*
 * A step of current, target @t's thread, for the instruction at @regs's
 * ip, about to run, with @page present: in @s, current's pending slot (the
 * pages it holds stay in it), or else in a slot claimed now; NULL (counted)
 * when none is free.
 */
static struct vmt_step *vmt_step_begin(struct vmt_step *s, struct vmt_target *t,
				       struct pt_regs *regs, unsigned long page, bool fetch)
{
	if (!s) {
		s = vmt_step_claim(current);
		if (!s) {
			atomic64_inc(&vmt_exact_counters.missed);
			return NULL;
		}
		vmt_step_expose(s, false);
		s->nr_pages = 0;
		s->stale_start = 0;
		s->stale_end = 0;
	}
	s->mm = current->mm;
	s->ip = instruction_pointer(regs);
	s->tf = regs->flags & X86_EFLAGS_TF;
	s->pushf = false;
	s->popf = false;
	s->fetch = fetch;
	s->pending = false;
	s->decoded = false;
	s->len = 0;
	s->nr_acc = 0;
	vmt_step_hold_page(s, t, page);
	vmt_step_save_regs(s, regs);
	return s;
}

/*
 * The kernel's access to the thread's rseq area on its way back to user
 * space (rseq_handle_notify_resume(), after every preemption and signal;
 * glibc keeps the area in the thread's TCB, beside the stack guard).
 * Protecting the page again from a task_work would loop without end: task
 * works run just before rseq's update on the same way back, and the update
 * faults again. Nor from the stale work: its worker, on this CPU, preempts
 * the thread, and rseq's update runs again on its way back. Instead the
 * page joins the step under way, protected at its trap; or else a pending
 * slot holds it, and the thread's next exact fault protects it before its
 * instruction runs (with "all", the very next instruction's fetch; with
 * ranges over data alone, whenever the thread next faults on one). No trap
 * flag is set here: on the way to a signal handler it would be saved in
 * the frame and come back, unexpected, at sigreturn.
 *
 * What the fault maps besides the page (@stale_start to @stale_end, a large
 * folio) waits in the step too, for the same reason: it holds the page, and
 * a target's stale range is one span, so marking its two sides would mark
 * the page again. It is protected once the page is (vmt_step_protect()).
 */
static void vmt_exact_rseq_fault(struct vmt_target *t, unsigned long address,
				 unsigned long error_code, unsigned long stale_start,
				 unsigned long stale_end)
{
	struct vmt_step *s = vmt_step_find(current);
	unsigned long page = address & PAGE_MASK;

	vmt_exact_emit_kernel(address, error_code);
	if (!s) {
		s = vmt_step_begin(NULL, t, task_pt_regs(current), page, false);
		if (!s) {
			/* No slot (counted as missed): the loop above it may be. */
			if (t)
				vmt_target_stale_soon(t, min(page, stale_start ?: page),
						      max(page + PAGE_SIZE, stale_end));
			return;
		}
		s->pending = true;
	}
	vmt_step_hold_page(s, t, page);
	if (stale_start < stale_end)
		vmt_range_add(&s->stale_start, &s->stale_end, stale_start, stale_end);
}

/**
 * vmt_exact_fault() - a target's thread faulted: step it if @address is exact
 * @address:	the faulting address
 * @regs:	the user registers (kernel mode: the kernel's)
 * @error_code:	the fault's error code
 * @kernel_mode: the fault came from kernel mode
 * @stale_start: the start of a range the fault will map present besides
 *		the page (fault-around, a large folio), to protect again before
 *		the thread returns to user space (empty when >= @stale_end)
 * @stale_end:	its end
 *
 * Context: the fault probes: interrupts off, before the fault is handled.
 * Return: true when the fault is exact mode's: no reference record, no
 * admission to the enabled set.
 */
bool vmt_exact_fault(unsigned long address, struct pt_regs *regs, unsigned long error_code,
		     bool kernel_mode, unsigned long stale_start, unsigned long stale_end)
{
	struct vmt_target *t;
	struct vmt_step *s;

	if (!vmt_session_protecting() ||
	    !vmt_exact_covers(task_tgid_nr(current), address, 1))
		return false;
	/*
	 * The neighbours the fault maps too would be reached unseen: protect
	 * them again before user code runs. That protects the page itself
	 * too, after the fault: the instruction faults again, and steps on.
	 */
	t = vmt_target_lookup(current->mm);
	if (t && stale_start < stale_end && !kernel_mode)
		vmt_target_stale_before_user(t, stale_start, stale_end);
	if (kernel_mode && vmt_exact_rseq_page(address) && current->mm) {
		vmt_exact_rseq_fault(t, address, error_code, stale_start, stale_end);
		return true;
	}
	if (kernel_mode) {
		vmt_exact_kernel_fault(address, error_code, stale_start, stale_end);
		return true;
	}
	s = vmt_step_find(current);
	if (s && s->pending) {
		/*
		 * What rseq's update or a busy lock left present: protected
		 * before this instruction, or else held by its step too.
		 */
		vmt_step_protect(s, t, true);
	} else if (s && s->ip == instruction_pointer(regs)) {
		/*
		 * The same instruction faults again: on another exact page it
		 * touches, or after its page was protected again when the
		 * thread was switched out. Step on. An instruction fetched
		 * from an exact page is read now that it was fetched.
		 */
		vmt_step_hold_page(s, t, address & PAGE_MASK);
		if (s->fetch && !s->decoded && !(error_code & X86_PF_INSTR) && !vmt_step_decode(s))
			vmt_step_undecoded(s, address, error_code);
		regs->flags |= X86_EFLAGS_TF;
		return true;
	} else if (s) {
		/* A step whose trap never came (the instruction faulted for good). */
		vmt_step_protect(s, t, true);
		atomic64_inc(&vmt_exact_counters.cancelled);
	}
	s = vmt_step_begin(s, t, regs, address & PAGE_MASK, error_code & X86_PF_INSTR);
	if (!s)
		return false;
	/* A fetch's bytes cannot be read yet: the trap decodes them. */
	if (!s->fetch && !vmt_step_decode(s))
		vmt_step_undecoded(s, address, error_code);
	regs->flags |= X86_EFLAGS_TF;
	atomic64_inc(&vmt_exact_counters.steps);
	if (current->nr_cpus_allowed > 1)
		atomic64_inc(&vmt_exact_counters.unpinned);
	return true;
}

/* ---- The trap ------------------------------------------------------------------ */

/*
 * Read @n bytes at @addr, in one page, through the page's frame: the stale
 * work (protect/evict.c), on another CPU, protects again what the kernel
 * mapped, a range that may hold a page present for this step, between the
 * instruction and its trap. The protnone PTE still names the frame.
 * Context: the trap, interrupts off: the page tables and the page stay
 * while the walk looks, as for GUP-fast.
 */
static bool vmt_exact_read_frame(struct mm_struct *mm, unsigned long addr, u8 *value, u16 n)
{
	bool huge;
	pte_t pte = vmt_pte_lookup_lockless(mm, addr, &huge);
	unsigned long pfn = pte_pfn(pte);

	if (!pte_present(pte) || !pfn_valid(pfn))
		return false;
	memcpy(value, (u8 *)pfn_to_kaddr(pfn) + offset_in_page(addr), n);
	return true;
}

/* Emit one record for [@addr, @addr + @size), which lies in one page. */
static void vmt_exact_emit(const struct vmt_step *s, const struct vmt_step_access *a,
			   unsigned long addr, u16 size, u8 flags)
{
	u8 value[64];
	struct vmt_record rec;
	u16 n = min_t(u16, size, sizeof(value));

	memset(&rec, 0, sizeof(rec));
	memset(value, 0, sizeof(value));
	rec.exact.addr = addr;
	rec.exact.ip = s->ip;
	rec.exact.size = size;
	rec.exact.access = a->access;
	rec.exact.flags = a->flags | flags;
	/* Through the frame if the page was protected meanwhile; else zero. */
	if (n && copy_from_user_nofault(value, (void __user *)addr, n) &&
	    !vmt_exact_read_frame(s->mm, addr, value, n))
		memset(value, 0, sizeof(value));
	if (size <= sizeof(rec.exact.value)) {
		memcpy(rec.exact.value, value, n);
		vmt_emit(vmt_session_alone(), &rec, VMT_REC_EXACT);
	} else {
		vmt_emit_data(vmt_session_alone(), &rec, VMT_REC_EXACT, value, n);
	}
	atomic64_inc(&vmt_exact_counters.accesses);
	if (!size)
		atomic64_inc(&vmt_exact_counters.undecoded);
}

/*
 * The instruction's fetch from an exact page: its bytes as the value, read
 * now, or else @known (@known_len bytes) when the caller knows them.
 */
static void vmt_exact_emit_fetch(const struct vmt_step *s, const u8 *known, u8 known_len)
{
	struct vmt_record rec;
	u8 code[VMT_INSN_MAX_LEN];

	memset(&rec, 0, sizeof(rec));
	rec.exact.addr = s->ip;
	rec.exact.ip = s->ip;
	rec.exact.access = VMT_ACCESS_EXEC;
	if (s->decoded && vmt_step_code(s, code) >= s->len) {
		rec.exact.size = s->len;
		memcpy(rec.exact.value, code, s->len);
	} else if (known_len) {
		rec.exact.size = known_len;
		memcpy(rec.exact.value, known, known_len);
	} else {
		atomic64_inc(&vmt_exact_counters.undecoded);
	}
	vmt_emit(vmt_session_alone(), &rec, VMT_REC_EXACT);
	atomic64_inc(&vmt_exact_counters.accesses);
}

/* Log @s's accesses that meet an exact range, split at page ends. */
static void vmt_step_log(const struct vmt_step *s)
{
	pid_t tgid = task_tgid_nr(current);
	const struct vmt_step_access *a;
	unsigned long first;
	u8 i;

	for (i = 0; i < s->nr_acc; i++) {
		a = &s->acc[i];
		if (!vmt_exact_covers(tgid, a->addr, max_t(u16, a->size, 1)))
			continue;
		first = PAGE_SIZE - offset_in_page(a->addr);
		if (a->size <= first) {
			vmt_exact_emit(s, a, a->addr, a->size, 0);
			continue;
		}
		if (vmt_exact_covers(tgid, a->addr, first))
			vmt_exact_emit(s, a, a->addr, first, VMT_EXACT_SPLIT);
		if (vmt_exact_covers(tgid, a->addr + first, a->size - first))
			vmt_exact_emit(s, a, a->addr + first, a->size - first, VMT_EXACT_SPLIT);
	}
}

/* pushf stored the module's trap flag with the program's flags: take it out. */
static void vmt_step_fix_pushf(const struct vmt_step *s)
{
	unsigned long addr = s->acc[0].addr, word;

	if (copy_from_user_nofault(&word, (void __user *)addr, sizeof(word)))
		return;
	word &= ~X86_EFLAGS_TF;
	copy_to_user_nofault((void __user *)addr, &word, sizeof(word));
}

/*
 * The debug trap from user mode, with interrupts off, before the kernel
 * sends SIGTRAP (exc_debug_user()): the instruction has run.
 */
static int vmt_exact_die(struct notifier_block *nb, unsigned long val, void *data)
{
	struct die_args *args = data;
	unsigned long *dr6 = (unsigned long *)args->err;
	struct pt_regs *regs = args->regs;
	struct vmt_step *s;
	bool all;

	if (val != DIE_DEBUG || !user_mode(regs) || !(*dr6 & DR_STEP))
		return NOTIFY_DONE;
	s = vmt_step_find(current);
	if (!s || s->pending)
		return NOTIFY_DONE;
	/* A fetched instruction's bytes are readable now: it ran. */
	if (s->fetch && !s->decoded)
		vmt_step_decode(s);
	if (s->pushf && !s->tf && s->nr_acc)
		vmt_step_fix_pushf(s);
	/* After stop, a step under way only gives its trap flag back. */
	if (vmt_session_is_tracing(vmt_session_alone())) {
		if (s->fetch)
			vmt_exact_emit_fetch(s, NULL, 0);
		vmt_step_log(s);
	}
	all = vmt_step_protect(s, vmt_target_lookup(current->mm), true);
	/* After popf the flags are the program's, its trap flag included. */
	if (!s->tf && !s->popf)
		regs->flags &= ~X86_EFLAGS_TF;
	if (s->tf) {
		vmt_step_end(s, all);
		return NOTIFY_DONE;
	}
	vmt_step_end(s, all);
	*dr6 &= ~DR_STEP;
	current->thread.virtual_dr6 &= ~DR_STEP;
	return *dr6 & DR_TRAP_BITS ? NOTIFY_DONE : NOTIFY_STOP;
}

static struct notifier_block vmt_exact_nb = {
	.notifier_call = vmt_exact_die,
	/* Before kprobes' and uprobes' handlers, which pass our trap over. */
	.priority = INT_MAX,
};

/* ---- Signals, switches, exits ---------------------------------------------- */

/*
 * signal:signal_deliver, in get_signal() with the siglock held: a signal
 * reaches a thread between its fault and its trap, so the instruction has
 * not run. Cancel the step: the handler runs without the module's trap
 * flag (it is taken out before the signal frame saves the flags), and the
 * pages are protected before it runs. The instruction faults again after
 * the handler returns.
 */
static void vmt_exact_probe_signal(void *data, int sig, struct kernel_siginfo *info,
				   struct k_sigaction *ka)
{
	struct vmt_step *s = vmt_step_find(current);

	if (!s)
		return;
	if (!s->tf && !s->pending)
		task_pt_regs(current)->flags &= ~X86_EFLAGS_TF;
	if (!s->pending)
		atomic64_inc(&vmt_exact_counters.cancelled);
	vmt_step_end(s, s->mm != current->mm ||
		     vmt_step_protect(s, vmt_target_lookup(current->mm), true));
}

/*
 * The exposed steps of @mm's threads other than @task: with @protect, each
 * has its pages protected again (current runs @mm: this CPU's TLB entries
 * are the ones to flush) and is no longer exposed once they all are.
 * Return: whether one is left exposed.
 */
static bool vmt_steps_cover(struct mm_struct *mm, struct task_struct *task, bool protect)
{
	bool left = false;
	u32 i;

	for (i = 0; i < VMT_STEPS; i++) {
		struct vmt_step *s = &vmt_steps[i];
		struct task_struct *owner = READ_ONCE(s->owner);

		if (!owner || owner == task || !READ_ONCE(s->exposed) || READ_ONCE(s->mm) != mm)
			continue;
		if (protect && vmt_step_protect(s, NULL, false))
			vmt_step_expose(s, false);
		else
			left = true;
	}
	return left;
}

/*
 * Covering an exposed step when another thread of its process is switched
 * in: from an irq_work on this CPU, which runs as soon as the switch has
 * enabled interrupts, before the thread can run user code, with its address
 * space loaded. It tries the PTE locks again and, while one is still busy,
 * queues itself again: each round ends with interrupts enabled, so a TLB
 * flush IPI the lock's holder waits for (a higher vector) is answered in
 * between. After VMT_COVER_TRIES rounds (a lock held for that long, or a
 * page table being changed all along) it gives up: an unsafe switch.
 */
#define VMT_COVER_TRIES		1000

static DEFINE_PER_CPU(unsigned int, vmt_cover_tries);

static void vmt_exact_cover(struct irq_work *work)
{
	struct mm_struct *mm = current->mm;

	if (!mm || !vmt_steps_cover(mm, current, true))
		return;
	if (this_cpu_inc_return(vmt_cover_tries) < VMT_COVER_TRIES)
		irq_work_queue(work);
	else
		atomic64_inc(&vmt_exact_counters.unsafe);
}

static DEFINE_PER_CPU(struct irq_work, vmt_cover_work);

/*
 * sched:sched_switch, run-queue lock held: a thread switched out between
 * its fault and its trap has its pages protected again, so that no other
 * thread reaches them meanwhile. Its registers keep the trap flag; the
 * instruction faults again when it runs, and the step goes on.
 *
 * A page whose PTE lock is busy stays present, and the step is marked
 * exposed until its trap or until it is covered. That is harmless while no
 * other thread of the address space runs: when one is switched in, the
 * irq_work above covers the step before that thread runs user code.
 */
static void vmt_exact_probe_switch(void *data, bool preempt, struct task_struct *prev,
				   struct task_struct *next, unsigned int prev_state)
{
	struct vmt_step *s = vmt_step_find(prev);

	/* Not once exec has put a new address space in the old one's place. */
	if (s && s->mm == prev->mm)
		vmt_step_expose(s, !vmt_step_protect(s, NULL, false));
	if (atomic_read(&vmt_steps_exposed) && next->mm && vmt_steps_cover(next->mm, next, false)) {
		this_cpu_write(vmt_cover_tries, 0);
		irq_work_queue(this_cpu_ptr(&vmt_cover_work));
	}
}

/*
 * The instruction a system call's: the only way into one between a fault
 * and its trap is to step the instruction that makes it (a signal that
 * would end the step first cancels it). From user mode, a 64-bit call is
 * made by syscall (0f 05).
 */
static const u8 vmt_syscall_insn[] = { 0x0f, 0x05 };

static void vmt_step_log_syscall(struct vmt_step *s, bool same_mm)
{
	bool known = !in_ia32_syscall();

	if (same_mm && s->fetch && !s->decoded)
		vmt_step_decode(s);
	if (!vmt_session_is_tracing(vmt_session_alone()))
		return;
	if (s->fetch)
		vmt_exact_emit_fetch(s, vmt_syscall_insn, known ? sizeof(vmt_syscall_insn) : 0);
	if (same_mm)
		vmt_step_log(s);
}

/*
 * sched:sched_process_exit, in the exiting thread: a thread that dies in
 * the middle of a step (its exit's system call, the one instruction that
 * can end there: a fatal signal cancels the step before); and the
 * process's end, when its last thread exits.
 */
static void vmt_exact_probe_exit(void *data, struct task_struct *p)
{
	struct vmt_step *s = vmt_step_find(p);
	struct vmt_target *t;
	u8 i;

	if (atomic_read(&p->signal->live) == 0)
		vmt_exact_exited(task_tgid_nr(p));
	if (!s)
		return;
	if (p == current && !s->pending)
		vmt_step_log_syscall(s, false);
	t = vmt_target_lookup(s->mm);
	if (t && READ_ONCE(t->mm) == s->mm) {
		for (i = 0; i < s->nr_pages; i++)
			vmt_target_stale_soon(t, s->pages[i], s->pages[i] + PAGE_SIZE);
		if (s->stale_start < s->stale_end)
			vmt_target_stale_soon(t, s->stale_start, s->stale_end);
	}
	vmt_step_release(s, p);
}

/*
 * raw_syscalls:sys_exit, preemption off: the stepped instruction was this
 * system call. Its trap would come only after the next instruction, which
 * the return to user space runs unseen on the pages still present: the
 * step ends here instead (logged, its pages protected, the trap flag taken
 * back), and the next instruction faults as any other. Not for the trap
 * flag of a sigreturn (the saved frame's, the program's own) or an exec
 * (cleared, and the old address space gone with the pages).
 */
static void vmt_exact_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct vmt_step *s = vmt_step_find(current);
	bool same_mm;
	unsigned long flags;

	if (!s)
		return;
	/* As in the trap: the PTE walk is lockless, interrupts off. */
	local_irq_save(flags);
	same_mm = s->mm == current->mm;
	if (!s->pending)
		vmt_step_log_syscall(s, same_mm);
	if (!s->tf && !s->pending && regs->ip == s->ip + sizeof(vmt_syscall_insn))
		regs->flags &= ~X86_EFLAGS_TF;
	vmt_step_end(s, !same_mm || vmt_step_protect(s, vmt_target_lookup(current->mm), true));
	local_irq_restore(flags);
}

/*
 * sched:sched_process_fork, before the child first runs: the child of a
 * stepped fork or clone has copied its parent's registers, the module's
 * trap flag with them; its first instruction would raise a trap no step of
 * its own expects, a fatal SIGTRAP. Take the flag out.
 */
static void vmt_exact_probe_fork(void *data, struct task_struct *parent,
				 struct task_struct *child)
{
	struct vmt_step *s = vmt_step_find(parent);

	if (s && !s->tf && !s->pending)
		task_pt_regs(child)->flags &= ~X86_EFLAGS_TF;
}

static int vmt_exact_attach(void)
{
	return register_die_notifier(&vmt_exact_nb);
}

static void vmt_exact_detach(void)
{
	unregister_die_notifier(&vmt_exact_nb);
}

/**
 * vmt_exact_init() - at load: the covering irq_works
 */
void vmt_exact_init(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		per_cpu(vmt_cover_work, cpu) = IRQ_WORK_INIT_HARD(vmt_exact_cover);
}

/**
 * vmt_exact_exit() - at unload, once the probes are detached: no covering
 * irq_work left queued or running
 */
void vmt_exact_exit(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		irq_work_sync(per_cpu_ptr(&vmt_cover_work, cpu));
}

static struct vmt_tracepoint_probe vmt_exact_probes[] = {
	{ "signal_deliver", vmt_exact_probe_signal },
	{ "sched_switch", vmt_exact_probe_switch },
	{ "sched_process_exit", vmt_exact_probe_exit },
	{ "sys_exit", vmt_exact_probe_sys_exit },
	{ "sched_process_fork", vmt_exact_probe_fork },
};

struct vmt_hooks vmt_exact_hooks = {
	.name = "exact",
	VMT_HOOKS_PROBES(vmt_exact_probes),
	.attach = vmt_exact_attach,
	.detach = vmt_exact_detach,
};

/**
 * vmt_exact_quiesce() - wait until no thread is between its fault and its
 * trap, at stop
 *
 * A thread left with the module's trap flag would take a fatal SIGTRAP at
 * its next instruction once the module is gone. The probes no longer start
 * steps; each one under way ends at its trap (which only gives the trap
 * flag back), a signal or the thread's exit. A thread that sleeps in the
 * kernel meanwhile (in the fault, or stopped by a signal) is woken; one
 * still asleep after a second has the trap flag taken out of its saved
 * user registers, which no CPU uses while it sleeps, and its step ends
 * there.
 *
 * Context: process context; tracing is off.
 */
void vmt_exact_quiesce(void)
{
	struct vmt_step *s;
	u32 i, tries = 0;

	while (!wait_event_timeout(vmt_steps_idle, !atomic_read(&vmt_steps_used), HZ / 10)) {
		tries++;
		raw_spin_lock_irq(&vmt_steps_lock);
		for (i = 0; i < VMT_STEPS; i++) {
			struct task_struct *owner;

			s = &vmt_steps[i];
			owner = READ_ONCE(s->owner);
			if (!owner)
				continue;
			/* A pending slot has no trap flag to take back: it just goes. */
			if (READ_ONCE(s->pending)) {
				vmt_step_expose(s, false);
				if (cmpxchg(&s->owner, owner, NULL) == owner)
					atomic_dec(&vmt_steps_used);
				continue;
			}
			if (tries < 10 || READ_ONCE(owner->__state) == TASK_RUNNING) {
				wake_up_process(owner);
				continue;
			}
			if (!s->tf)
				task_pt_regs(owner)->flags &= ~X86_EFLAGS_TF;
			vmt_step_expose(s, false);
			WRITE_ONCE(s->owner, NULL);
			atomic_dec(&vmt_steps_used);
			atomic64_inc(&vmt_exact_counters.cancelled);
		}
		raw_spin_unlock_irq(&vmt_steps_lock);
	}
}
