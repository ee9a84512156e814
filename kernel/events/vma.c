// SPDX-License-Identifier: GPL-2.0
/*
 * Address-space events: what mmap, munmap, mremap, mprotect and brk did to a
 * traced process's map, and the whole map at exec and in the state dump.
 *
 * A system call is seen at raw_syscalls:sys_exit, once it has succeeded, in
 * the calling thread with preemption off. The ranges it changed are known
 * from its arguments and result; for each one an UNMAP record says the range
 * is empty now, and a MAP record follows for every mapping (VMA) that
 * overlaps it after the call, with its protection and its file's path. A
 * reader that replays them in order has the process's map at any point.
 *
 *   mmap(addr, len) = a         [a, a + len)
 *   munmap(addr, len)           [addr, addr + len)
 *   mprotect(addr, len, prot)   [addr, addr + len)
 *   mremap(old, olen, nlen) = a [old, old + olen) and [a, a + nlen)
 *   brk(b) = b'                 [start_brk, first mapping above b')
 *
 * Looking up the mappings needs mmap_lock, which this context may only try
 * for: when another thread holds it, the UNMAP records are written (and
 * exact mode's ranges trimmed) at once, and the lookup is redone by the
 * thread itself before it returns to user space, where it may wait for the
 * lock (a task_work: vmt_vma_redo_queue()). Only when no redo slot is free
 * is the event counted missed, and exact mode's ranges it would have made
 * counted left out.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/task_work.h>
#include <linux/wait.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "base/hooks.h"
#include "base/session.h"
#include "events/vma.h"
#include "exact/exact_ranges.h"
#include "protect/targets.h"
#include "ring/emit.h"

static u8 vmt_vma_prot(const struct vm_area_struct *vma)
{
	u8 prot = 0;

	if (vma->vm_flags & VM_READ)
		prot |= VMT_PROT_READ;
	if (vma->vm_flags & VM_WRITE)
		prot |= VMT_PROT_WRITE;
	if (vma->vm_flags & VM_EXEC)
		prot |= VMT_PROT_EXEC;
	if (vma->vm_flags & VM_MAYSHARE)
		prot |= VMT_PROT_SHARED;
	return prot;
}

/* What a mapping holds, named as /proc/PID/maps names it (show_map_vma()). */
static u8 vmt_vma_kind(const struct vm_area_struct *vma, const char **special)
{
	struct mm_struct *mm = vma->vm_mm;

	*special = NULL;
	if (vma->vm_file)
		return VMT_VMA_FILE;
	if (vma->vm_ops && vma->vm_ops->name) {
		*special = vma->vm_ops->name((struct vm_area_struct *)vma);
		if (*special)
			return VMT_VMA_SPECIAL;
	}
	if (vma->vm_start <= mm->brk && vma->vm_end >= mm->start_brk)
		return VMT_VMA_HEAP;
	if (vma->vm_start <= mm->start_stack && vma->vm_end >= mm->start_stack)
		return VMT_VMA_STACK;
	return VMT_VMA_ANON;
}

/* One MAP record for @vma in @s; the caller holds mmap_lock. */
static void vmt_vma_emit(struct vmt_session *s, struct vm_area_struct *vma, pid_t pid,
			 pid_t tid, u8 cause)
{
	const char *special, *name = NULL;
	struct vmt_record rec;
	unsigned long flags;
	u32 len = 0;

	memset(&rec, 0, sizeof(rec));
	rec.vma.start = vma->vm_start;
	rec.vma.end = vma->vm_end;
	rec.vma.op = VMT_VMA_MAP;
	rec.vma.cause = cause;
	rec.vma.prot = vmt_vma_prot(vma);
	rec.vma.kind = vmt_vma_kind(vma, &special);
	if (rec.vma.kind == VMT_VMA_FILE)
		rec.vma.offset = (u64)vma->vm_pgoff << PAGE_SHIFT;
	/* The path buffer is this CPU's while interrupts are off. */
	local_irq_save(flags);
	if (rec.vma.kind == VMT_VMA_FILE) {
		name = vmt_path_name(&vma->vm_file->f_path, &len);
		if (!name) {
			rec.vma.flags |= VMT_DATA_DROPPED;
			vmt_emit_count_dropped(s);
			len = 0;
		}
	} else if (special) {
		name = special;
		len = strnlen(special, VMT_MAX_DATA_LEN);
	}
	vmt_emit_as(s, &rec, VMT_REC_VMA, pid, tid, name, len);
	/* A mapping exact mode was given by its name becomes an exact range. */
	vmt_exact_mapping(pid, vma, rec.vma.kind, name, len);
	local_irq_restore(flags);
}

/**
 * vmt_vma_emit_all() - MAP records for every mapping of @mm
 * @s:		the session tracing it
 * @mm:		the address space; the caller holds its mmap_lock
 * @pid:	the process it belongs to
 * @cause:	VMT_VMA_DUMP or VMT_VMA_EXEC
 */
void vmt_vma_emit_all(struct vmt_session *s, struct mm_struct *mm, pid_t pid, u8 cause)
{
	struct vm_area_struct *vma;

	for (vma = find_vma(mm, 0); vma; vma = find_vma(mm, vma->vm_end))
		vmt_vma_emit(s, vma, pid, pid, cause);
}

static void vmt_vma_emit_unmap(struct vmt_session *s, unsigned long start, unsigned long end,
			       u8 cause)
{
	struct vmt_record rec;

	memset(&rec, 0, sizeof(rec));
	rec.vma.start = start;
	rec.vma.end = end;
	rec.vma.op = VMT_VMA_UNMAP;
	rec.vma.cause = cause;
	vmt_emit(s, &rec, VMT_REC_VMA);
}

/* MAP records for the mappings overlapping [start, end); mmap_lock held. */
static void vmt_vma_emit_range(struct vmt_session *s, struct mm_struct *mm,
			       unsigned long start, unsigned long end, u8 cause)
{
	struct vm_area_struct *vma;

	for (vma = find_vma(mm, start); vma && vma->vm_start < end;
	     vma = find_vma(mm, vma->vm_end))
		vmt_vma_emit(s, vma, task_tgid_nr(current), task_pid_nr(current), cause);
}

struct vmt_vma_range {
	unsigned long start, end;
};

/*
 * The ranges system call @nr changed, from its arguments and result @ret:
 * 0, 1 or 2 of them in @r. The brk range needs the lock (see above).
 */
static int vmt_vma_ranges(struct mm_struct *mm, long nr, const unsigned long *args,
			  long ret, struct vmt_vma_range *r, u8 *cause)
{
	struct vm_area_struct *vma;

	switch (nr) {
	case __NR_mmap:
		*cause = VMT_VMA_MMAP;
		r[0].start = ret;
		r[0].end = ret + PAGE_ALIGN(args[1]);
		return 1;
	case __NR_munmap:
	case __NR_mprotect:
		*cause = nr == __NR_munmap ? VMT_VMA_MUNMAP : VMT_VMA_MPROTECT;
		r[0].start = args[0];
		r[0].end = args[0] + PAGE_ALIGN(args[1]);
		return 1;
	case __NR_mremap:
		*cause = VMT_VMA_MREMAP;
		r[0].start = args[0];
		r[0].end = args[0] + PAGE_ALIGN(args[1]);
		r[1].start = ret;
		r[1].end = ret + PAGE_ALIGN(args[2]);
		return 2;
	case __NR_brk:
		*cause = VMT_VMA_BRK;
		r[0].start = mm->start_brk;
		vma = find_vma(mm, PAGE_ALIGN(mm->brk));
		r[0].end = vma ? vma->vm_start : TASK_SIZE;
		return 1;
	}
	return 0;
}

/*
 * Exact mode's ranges made of mappings follow them: what munmap unmapped,
 * what an mmap replaced and what mremap moved away go, and so does what
 * mremap replaced at its new place (MREMAP_FIXED unmaps what was there;
 * the new place is a mapping again, listed next), and the heap above the
 * break brk set (it needs the lock). mprotect leaves the mappings where
 * they were.
 */
static void vmt_vma_exact_unmapped(struct mm_struct *mm, long nr, const struct vmt_vma_range *r)
{
	pid_t tgid = task_tgid_nr(current);

	if (nr == __NR_brk)
		vmt_exact_unmapped(tgid, PAGE_ALIGN(mm->brk), r[0].end);
	else if (nr != __NR_mprotect)
		vmt_exact_unmapped(tgid, r[0].start, r[0].end);
	if (nr == __NR_mremap)
		vmt_exact_unmapped(tgid, r[1].start, r[1].end);
}

/*
 * A lookup the probes could not make, redone by the thread before it runs
 * user code again: the MAP records of @r (@n of them; with VMT_VMA_EXEC
 * the whole map, with VMT_VMA_BRK the heap's range, which needs the lock)
 * and the exact ranges they make. Preallocated: the probes may not
 * allocate. A slot belongs to its owner from the probe until its work
 * starts.
 */
struct vmt_vma_redo {
	struct callback_head cb;
	struct task_struct *owner;	/* NULL: free */
	struct vmt_vma_range r[2];
	u8 n, cause;
};

#define VMT_VMA_REDOS	64

static struct vmt_vma_redo vmt_vma_redos[VMT_VMA_REDOS];
/* Stop waits until no redo is queued or running (vmt_vma_quiesce()). */
static atomic_t vmt_vma_redos_pending = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(vmt_vma_redos_idle);

static void vmt_vma_redo_done(void)
{
	if (atomic_dec_and_test(&vmt_vma_redos_pending) && wq_has_sleeper(&vmt_vma_redos_idle))
		wake_up_all(&vmt_vma_redos_idle);
}

static void vmt_vma_redo_run(struct callback_head *cb)
{
	struct vmt_vma_redo *w = container_of(cb, struct vmt_vma_redo, cb);
	struct vmt_vma_range r[2] = { w->r[0], w->r[1] };
	struct mm_struct *mm = current->mm;
	u8 n = w->n, cause = w->cause;
	pid_t tgid = task_tgid_nr(current);
	struct vmt_session *s;
	int i;

	WRITE_ONCE(w->owner, NULL);
	if (!mm || (current->flags & PF_EXITING))
		goto out;
	s = vmt_session_of(current);
	if (!vmt_session_wants(s, VMT_EVENT_VMA))
		goto out;
	/* Process context, before user code: the lock may be waited for here. */
	mmap_read_lock(mm);
	if (cause == VMT_VMA_EXEC) {
		vmt_vma_emit_all(s, mm, tgid, cause);
	} else {
		if (cause == VMT_VMA_BRK) {
			n = vmt_vma_ranges(mm, __NR_brk, NULL, 0, r, &cause);
			vmt_vma_emit_unmap(s, r[0].start, r[0].end, cause);
			vmt_exact_unmapped(tgid, PAGE_ALIGN(mm->brk), r[0].end);
		}
		for (i = 0; i < n; i++)
			vmt_vma_emit_range(s, mm, r[i].start, r[i].end, cause);
	}
	mmap_read_unlock(mm);
out:
	/* Nothing of the module runs after this but the return. */
	vmt_vma_redo_done();
}

/*
 * Have current redo the lookup of @n ranges @r (see struct vmt_vma_redo)
 * before it returns to user space. With no slot free, the event is missed,
 * and so are exact mode's ranges it would have made: counted in left_out
 * by the pages of @r (the whole map's are unknown: one page), and in @s.
 * Context: the probes; may not sleep.
 */
static void vmt_vma_redo_queue(struct vmt_session *s, const struct vmt_vma_range *r, u8 n,
			       u8 cause)
{
	struct vmt_vma_redo *w;
	u32 i;

	for (i = 0; i < VMT_VMA_REDOS; i++) {
		w = &vmt_vma_redos[i];
		if (!READ_ONCE(w->owner) && !cmpxchg(&w->owner, NULL, current))
			break;
	}
	if (i < VMT_VMA_REDOS) {
		w->n = n;
		w->cause = cause;
		for (i = 0; i < n; i++)
			w->r[i] = r[i];
		atomic_inc(&vmt_vma_redos_pending);
		init_task_work(&w->cb, vmt_vma_redo_run);
		/* Fails only when current exits: it returns to no user code. */
		if (!task_work_add(current, &w->cb, TWA_RESUME))
			return;
		WRITE_ONCE(w->owner, NULL);
		vmt_vma_redo_done();
	}
	vmt_emit_count_missed(s);
	for (i = 0; i < n; i++)
		vmt_exact_left_out_add(task_tgid_nr(current), r[i].start, r[i].end);
	if (!n)
		vmt_exact_left_out_add(task_tgid_nr(current), 0, PAGE_SIZE);
}

/**
 * vmt_vma_exec_missed() - sched_process_exec could not take the new
 * address space's mmap_lock: its map is listed before the program runs
 * @s:		the session tracing current
 * Context: the exec probe, current the exec'ing thread; may not sleep.
 */
void vmt_vma_exec_missed(struct vmt_session *s)
{
	vmt_vma_redo_queue(s, NULL, 0, VMT_VMA_EXEC);
}

/**
 * vmt_vma_quiesce() - wait until no redo is queued or running, at stop
 *
 * The works are queued on the way back to user space, so the wait is
 * short; a thread asleep meanwhile is woken as a signal would wake it.
 *
 * Context: process context; the probes act no more.
 */
void vmt_vma_quiesce(void)
{
	u32 i;

	while (!wait_event_timeout(vmt_vma_redos_idle, !atomic_read(&vmt_vma_redos_pending),
				   HZ / 10)) {
		for (i = 0; i < VMT_VMA_REDOS; i++) {
			struct task_struct *owner = READ_ONCE(vmt_vma_redos[i].owner);

			if (!owner)
				continue;
			set_tsk_thread_flag(owner, TIF_NOTIFY_SIGNAL);
			wake_up_process(owner);
		}
	}
}

/*
 * raw_syscalls:sys_exit: after every system call of every task whose
 * syscall tracepoints are on. Only the five above, when they succeeded,
 * in a traced process, from a 64-bit caller (ia32 numbers differ) matter.
 */
static void vmt_vma_probe_sys_exit(void *data, struct pt_regs *regs, long ret)
{
	struct vmt_vma_range r[2];
	struct mm_struct *mm = current->mm;
	struct vmt_session *s;
	unsigned long args[6];
	long nr = syscall_get_nr(current, regs);
	bool locked;
	u8 cause;
	int i, n;

	if (nr != __NR_mmap && nr != __NR_munmap && nr != __NR_mprotect &&
	    nr != __NR_mremap && nr != __NR_brk)
		return;
	if (in_ia32_syscall() || IS_ERR_VALUE(ret) || !vmt_session_event_on(VMT_EVENT_VMA))
		return;
	s = vmt_session_of(current);
	if (!vmt_session_wants(s, VMT_EVENT_VMA))
		return;
	syscall_get_arguments(current, regs, args);
	locked = mmap_read_trylock(mm);
	if (!locked && nr == __NR_brk) {
		vmt_vma_redo_queue(s, NULL, 0, VMT_VMA_BRK);
		return;
	}
	n = vmt_vma_ranges(mm, nr, args, ret, r, &cause);
	for (i = 0; i < n; i++)
		vmt_vma_emit_unmap(s, r[i].start, r[i].end, cause);
	vmt_vma_exact_unmapped(mm, nr, r);
	if (!locked) {
		/* munmap's range has no mapping left to list. */
		if (nr != __NR_munmap)
			vmt_vma_redo_queue(s, r, n, cause);
		return;
	}
	for (i = 0; i < n; i++)
		vmt_vma_emit_range(s, mm, r[i].start, r[i].end, cause);
	mmap_read_unlock(mm);
}

static struct vmt_tracepoint_probe vmt_vma_probes[] = {
	/*
	 * While a probe is attached here every task's system calls take the
	 * slow exit path; it returns at once for all but five of them.
	 */
	{ "sys_exit", vmt_vma_probe_sys_exit },
};

struct vmt_hooks vmt_vma_hooks = {
	.name = "vma",
	VMT_HOOKS_PROBES(vmt_vma_probes),
};
