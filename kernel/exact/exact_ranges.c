// SPDX-License-Identifier: GPL-2.0
/*
 * Exact mode's ranges: the byte ranges and mapping names whose accesses
 * the stepping engine (exact.c) logs, the cap on the pages they span, the
 * engine's counters, and the VMT_IOC_EXACT operations on them (add, remove
 * and clear ranges and names, read the counters), the sysfs listing, and
 * the zeroing at start.
 *
 * A range given by a mapping's name becomes a range of each mapping of that
 * name, as vma.c reports them (vmt_exact_mapping()), and follows it: it
 * grows and shrinks with it (brk), and goes, or loses the part that went,
 * when it is unmapped, moved or replaced (munmap, mremap, mmap over it,
 * exec: vmt_exact_unmapped()) and when the process exits. The name "all"
 * matches every mapping protection can trace. A range added while tracing
 * is protected at once in every target it concerns.
 */
#include <linux/mm.h>
#include <linux/resource.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "base/compat.h"
#include "base/session.h"
#include "exact/exact_ranges.h"
#include "protect/protect.h"
#include "protect/targets.h"

/* ---- The ranges ---------------------------------------------------------- */

/*
 * The ranges, sorted by (tgid, start) in one array, which the fault probe
 * and the debug trap search by bisection for every fault of a target and
 * every access they log:
 *
 *   tgid 0 (any process)   tgid 812                            tgid 907
 *   [a, b)  [c, d)         [e, f)  [g, h)  [i, j) ...  [y, z)  [k, l)
 *                          <- max_end: the greatest end so far ->
 *
 * Ranges may overlap (a range given by numbers over a named mapping, or
 * two given so). @max_end, the greatest end of the ranges of the same
 * process up to this one, makes one look enough: the last range of the
 * process that starts before an access ends meets the access when its
 * @max_end lies past the access's start.
 *
 * A whole program has 20 to 60 mappings (ld.so, libc, the program, heap,
 * stack, anonymous ones); the table holds VMT_EXACT_TABLE ranges, well
 * above VMT_EXACT_RANGES, which bounds the names (and the --exact options of
 * a command line). A mapping that finds the table full is counted in
 * left_out, as a range past the cap is.
 */
#define VMT_EXACT_TABLE		1024

struct vmt_exact_range {
	pid_t tgid;		/* 0: every traced process */
	bool by_name;		/* made of a mapping a name matched: follows it */
	u8 name;		/* by_name: the name's slot in vmt_exact_names */
	unsigned long start, end;	/* end > start */
	unsigned long asked_end;	/* the end given, before the cap cut it */
	unsigned long max_end;	/* see above */
};

static struct vmt_exact_range vmt_exact_ranges[VMT_EXACT_TABLE];
static u32 vmt_exact_nr_ranges;
/* The pages the ranges span, the cap on them, and the pages it cut off. */
static u64 vmt_exact_used_pages, vmt_exact_max_pages = VMT_EXACT_DEFAULT_MAX_PAGES;
static u64 vmt_exact_left_out;
/*
 * Guards the ranges, the names and the three counts above. A raw spinlock
 * taken with interrupts off: its readers are the fault probe and the debug
 * trap, which run with interrupts off and may not sleep (nor take a
 * sleeping lock, as a spinlock_t is under PREEMPT_RT). They hold it for a
 * bisection. Writers hold it for an insertion or a deletion each (a
 * memmove of the table's tail, up to 40 KiB, and a pass to recompute
 * @max_end): a VMA event makes one or two, or a few for a mapping that
 * merged with others. What drops many ranges at once (an exit, an exec, a
 * name removed, start) does it in one pass over the table
 * (__vmt_exact_drop()), never a deletion a range.
 */
static DEFINE_RAW_SPINLOCK(vmt_exact_lock);

static u64 vmt_range_pages(unsigned long start, unsigned long end)
{
	return (PAGE_ALIGN(end) - (start & PAGE_MASK)) >> PAGE_SHIFT;
}

/*
 * struct vmt_exact_name - ranges given by a mapping's name (VMT_EXACT_ADD_NAME)
 * @tgid:	the process; 0: every traced process
 * @len:	of @name; 0: the slot is free
 * @by_addr:	@name is an address: the anonymous mapping holding @addr
 * @all:	@name is "all": every mapping protection can trace
 * @addr:	that address
 * @name:	as /proc/PID/maps names the mapping
 */
struct vmt_exact_name {
	pid_t tgid;
	u16 len;
	bool by_addr, all;
	unsigned long addr;
	char name[VMT_EXACT_NAME_MAX];
};

/* Under vmt_exact_lock. */
static struct vmt_exact_name vmt_exact_names[VMT_EXACT_RANGES];
static u32 vmt_exact_nr_names;

/* The index of the first range after (@tgid, @start) in the table's order. */
static u32 __vmt_exact_after(pid_t tgid, unsigned long start)
{
	u32 lo = 0, hi = vmt_exact_nr_ranges;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;
		const struct vmt_exact_range *r = &vmt_exact_ranges[mid];

		if (r->tgid < tgid || (r->tgid == tgid && r->start <= start))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether a range of @tgid itself meets [@addr, @end). Context: the lock. */
static bool __vmt_exact_meets(pid_t tgid, unsigned long addr, unsigned long end)
{
	u32 i = __vmt_exact_after(tgid, end - 1);

	return i && vmt_exact_ranges[i - 1].tgid == tgid &&
	       vmt_exact_ranges[i - 1].max_end > addr;
}

/* @max_end anew, after a change. Context: the lock. */
static void __vmt_exact_reindex(void)
{
	struct vmt_exact_range *r = vmt_exact_ranges;
	u32 i;

	for (i = 0; i < vmt_exact_nr_ranges; i++) {
		r[i].max_end = r[i].end;
		if (i && r[i - 1].tgid == r[i].tgid && r[i - 1].max_end > r[i].end)
			r[i].max_end = r[i - 1].max_end;
	}
}

/* Put @r in its place. Return: false when the table is full. Context: the lock. */
static bool __vmt_exact_insert(const struct vmt_exact_range *r)
{
	u32 n = vmt_exact_nr_ranges, i;

	if (n == VMT_EXACT_TABLE)
		return false;
	i = __vmt_exact_after(r->tgid, r->start);
	memmove(&vmt_exact_ranges[i + 1], &vmt_exact_ranges[i],
		(n - i) * sizeof(vmt_exact_ranges[0]));
	vmt_exact_ranges[i] = *r;
	vmt_exact_used_pages += vmt_range_pages(r->start, r->end);
	WRITE_ONCE(vmt_exact_nr_ranges, n + 1);
	__vmt_exact_reindex();
	return true;
}

/* Take range @i out. Context: the lock. */
static void __vmt_exact_delete(u32 i)
{
	u32 n = vmt_exact_nr_ranges;

	vmt_exact_used_pages -= vmt_range_pages(vmt_exact_ranges[i].start,
						vmt_exact_ranges[i].end);
	memmove(&vmt_exact_ranges[i], &vmt_exact_ranges[i + 1],
		(n - i - 1) * sizeof(vmt_exact_ranges[0]));
	WRITE_ONCE(vmt_exact_nr_ranges, n - 1);
	__vmt_exact_reindex();
}

/*
 * Drop, in one pass, the ranges made of mappings of @tgid (any process's
 * when @any) that lie within [@start, @end), of the name in slot @name
 * only when @name < VMT_EXACT_RANGES. Context: the lock.
 */
static void __vmt_exact_drop(pid_t tgid, bool any, unsigned long start, unsigned long end,
			     u32 name)
{
	struct vmt_exact_range *r = vmt_exact_ranges;
	u32 n = vmt_exact_nr_ranges, i, j;

	/* A process's ranges are one run of the table: start at its first. */
	i = any ? 0 : __vmt_exact_after(tgid - 1, ULONG_MAX);
	for (j = i; i < n && (any || r[i].tgid == tgid); i++) {
		if (r[i].by_name && r[i].start >= start && r[i].end <= end &&
		    (name >= VMT_EXACT_RANGES || r[i].name == name)) {
			vmt_exact_used_pages -= vmt_range_pages(r[i].start, r[i].end);
			continue;
		}
		if (j != i)
			r[j] = r[i];
		j++;
	}
	if (j == i)
		return;
	memmove(&r[j], &r[i], (n - i) * sizeof(r[0]));
	WRITE_ONCE(vmt_exact_nr_ranges, n - (i - j));
	__vmt_exact_reindex();
}

/**
 * vmt_exact_covers() - whether [@addr, @addr + @len) of process @tgid meets
 * an exact range
 * @tgid:	the process
 * @addr:	the first byte
 * @len:	bytes, at least 1
 *
 * Context: any; takes the table's raw spinlock with interrupts off.
 */
bool vmt_exact_covers(pid_t tgid, unsigned long addr, unsigned long len)
{
	unsigned long flags;
	bool hit;

	if (!READ_ONCE(vmt_exact_nr_ranges))
		return false;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	hit = __vmt_exact_meets(tgid, addr, addr + len) ||
	      (tgid && __vmt_exact_meets(0, addr, addr + len));
	raw_spin_unlock_irqrestore(&vmt_exact_lock, flags);
	return hit;
}

/* ---- Counters -------------------------------------------------------------- */

/* What the engine (exact.c) counts, read by VMT_IOC_EXACT, zeroed at start. */
struct vmt_exact_counters vmt_exact_counters;

/* ---- Control ------------------------------------------------------------------ */

/*
 * Protect a range added while tracing, in every target it may concern:
 * pages of the enabled set in it are protected too (they leave the set
 * when it evicts them, which then finds them protected).
 */
static void vmt_exact_protect_range(const struct vmt_exact_range *r)
{
	struct vmt_protect_counts counts = {};
	struct vmt_target *t;
	u32 i;

	for (i = 0; (t = vmt_target_slot(i)); i++) {
		struct mm_struct *mm;

		/* A reference on the mm is taken under the slot's lock, or none. */
		raw_spin_lock_irq(&t->lock);
		mm = READ_ONCE(t->mm);
		if (mm && ((r->tgid && t->tgid != r->tgid) || !mmget_not_zero(mm)))
			mm = NULL;
		raw_spin_unlock_irq(&t->lock);
		if (!mm)
			continue;
		mmap_read_lock(mm);
		vmt_protect_range(mm, r->start & PAGE_MASK, PAGE_ALIGN(r->end), &counts);
		mmap_read_unlock(mm);
		/* Until every CPU's TLB forgets them, accesses go unseen. */
		vmt_flush_tlb_range(mm, r->start & PAGE_MASK, PAGE_ALIGN(r->end));
		mmput(mm);
	}
}

static void vmt_exact_counts(struct vmt_exact_arg *arg)
{
	arg->accesses = atomic64_read(&vmt_exact_counters.accesses);
	arg->steps = atomic64_read(&vmt_exact_counters.steps);
	arg->undecoded = atomic64_read(&vmt_exact_counters.undecoded);
	arg->cancelled = atomic64_read(&vmt_exact_counters.cancelled);
	arg->kernel = atomic64_read(&vmt_exact_counters.kernel);
	arg->unsafe_switches = atomic64_read(&vmt_exact_counters.unsafe);
	arg->missed = atomic64_read(&vmt_exact_counters.missed);
	arg->unpinned = atomic64_read(&vmt_exact_counters.unpinned);
	arg->nr_ranges = READ_ONCE(vmt_exact_nr_ranges);
	arg->nr_names = READ_ONCE(vmt_exact_nr_names);
	arg->max_pages = READ_ONCE(vmt_exact_max_pages);
	arg->left_out = READ_ONCE(vmt_exact_left_out);
	arg->features = VMT_EXACT_FEATURE_ALL;
}

/*
 * Cut @r's end so that the pages of every range stay within the cap. The
 * pages cut off are counted, but for those before @counted: a mapping's
 * pages cut when it was smaller count once, not again as it grows.
 * Return: false when no page of it fits.
 * Context: the lock.
 */
static bool __vmt_exact_fit(struct vmt_exact_range *r, unsigned long counted)
{
	u64 used = vmt_exact_used_pages, max = vmt_exact_max_pages;
	u64 room = used < max ? max - used : 0;
	unsigned long end;

	if (vmt_range_pages(r->start, r->end) <= room)
		return true;
	end = (r->start & PAGE_MASK) + (room << PAGE_SHIFT);
	counted = max(end, PAGE_ALIGN(counted));
	if (PAGE_ALIGN(r->end) > counted)
		vmt_exact_left_out += (PAGE_ALIGN(r->end) - counted) >> PAGE_SHIFT;
	if (!room)
		return false;
	r->end = end;
	return true;
}

/* Add @r, cut to the cap; what finds no room is counted. Context: the lock. */
static void __vmt_exact_add(struct vmt_exact_range *r)
{
	if (!__vmt_exact_fit(r, 0))
		return;
	if (!__vmt_exact_insert(r))
		vmt_exact_left_out += vmt_range_pages(r->start, r->end);
}

/*
 * Range @i, made of a mapping, reaches @end now: a heap that brk grew, or
 * a mapping merged with the next. What it grew by joins it, under the cap,
 * up to the next range made of a mapping (a merged neighbour's, which
 * stays as it is: a page is never in two). Pages the cap cut off before
 * that fit now are no longer counted left out. (It shrinks by
 * vmt_exact_unmapped() only: a mapping that mprotect split is reported in
 * parts, the first at the same start.)
 * Return: where the part of the mapping past it and that neighbour begins,
 * for the caller to fill. Context: the lock.
 */
static unsigned long __vmt_exact_grow(u32 i, unsigned long end)
{
	struct vmt_exact_range *e = &vmt_exact_ranges[i];
	struct vmt_exact_range grow = { .start = e->end, .end = end };
	unsigned long was = e->end, counted = e->asked_end;
	u32 j;

	if (end <= e->asked_end && e->end == e->asked_end)
		return end;
	for (j = i + 1; end > e->end && j < vmt_exact_nr_ranges &&
	     vmt_exact_ranges[j].tgid == e->tgid; j++) {
		if (vmt_exact_ranges[j].by_name && vmt_exact_ranges[j].start > e->start) {
			grow.end = clamp(vmt_exact_ranges[j].start, e->end, end);
			break;
		}
	}
	if (grow.end > e->end && __vmt_exact_fit(&grow, e->asked_end)) {
		vmt_exact_used_pages += vmt_range_pages(grow.start, grow.end);
		e->end = grow.end;
	}
	if (e->end > was && counted > was) {
		u64 back = vmt_range_pages(was, min(e->end, counted));

		vmt_exact_left_out -= min(back, vmt_exact_left_out);
	}
	e->asked_end = max(e->asked_end, grow.end);
	__vmt_exact_reindex();
	return grow.end;
}

/*
 * A mapping [@start, @end) of @tgid that name slot @name matched: the
 * range made of it before at the same start grows with it (brk, a merge);
 * what of it no range made of a mapping covers becomes ranges (a new
 * mapping, one merged with its neighbour, or one whose protection
 * changed). Context: the lock.
 */
static void __vmt_exact_add_mapping(pid_t tgid, unsigned long start, unsigned long end,
				    u8 name)
{
	struct vmt_exact_range gap = { .tgid = tgid, .by_name = true, .name = name };
	unsigned long pos = start, next;
	u32 i = __vmt_exact_after(tgid, start);

	for (; i && vmt_exact_ranges[i - 1].tgid == tgid &&
	     vmt_exact_ranges[i - 1].start == start; i--) {
		if (vmt_exact_ranges[i - 1].by_name) {
			pos = __vmt_exact_grow(i - 1, end);
			break;
		}
	}
	while (pos < end) {
		/* The first of @tgid's ranges made of mappings that reaches past @pos. */
		next = end;
		for (i = __vmt_exact_after(tgid - 1, ULONG_MAX); i < vmt_exact_nr_ranges &&
		     vmt_exact_ranges[i].tgid == tgid && vmt_exact_ranges[i].start < end; i++) {
			const struct vmt_exact_range *r = &vmt_exact_ranges[i];

			if (r->by_name && r->end > pos) {
				next = r->start;
				break;
			}
		}
		if (next <= pos) {
			pos = vmt_exact_ranges[i].end;
			continue;
		}
		gap.start = pos;
		gap.end = next;
		gap.asked_end = next;
		__vmt_exact_add(&gap);
		pos = next;
	}
}

/*
 * [@start, @end) of @tgid holds no mapping any more: the ranges made of
 * mappings lose what they had there. Context: the lock.
 */
static void __vmt_exact_trim(pid_t tgid, unsigned long start, unsigned long end)
{
	struct vmt_exact_range r, after;
	u32 i;

	/* Those wholly inside in one pass; then the few that reach out of it. */
	__vmt_exact_drop(tgid, false, start, end, VMT_EXACT_RANGES);
	for (;;) {
		for (i = __vmt_exact_after(tgid - 1, ULONG_MAX); i < vmt_exact_nr_ranges &&
		     vmt_exact_ranges[i].tgid == tgid && vmt_exact_ranges[i].start < end; i++)
			if (vmt_exact_ranges[i].by_name && vmt_exact_ranges[i].end > start)
				break;
		if (i == vmt_exact_nr_ranges || vmt_exact_ranges[i].tgid != tgid ||
		    vmt_exact_ranges[i].start >= end)
			return;
		r = vmt_exact_ranges[i];
		__vmt_exact_delete(i);
		after = r;
		if (r.start < start) {
			r.end = start;
			r.asked_end = start;
			__vmt_exact_insert(&r);
		}
		if (after.end > end) {
			after.start = end;
			if (!__vmt_exact_insert(&after))
				vmt_exact_left_out += vmt_range_pages(after.start, after.end);
		}
	}
}

/**
 * vmt_exact_unmapped() - [@start, @end) of process @tgid holds no mapping
 * any more (munmap, the old place of an mremap, an mmap over it, the part
 * of the heap brk gave back, exec's old address space): the ranges made of
 * mappings there go; ranges given by numbers stay
 * @tgid:	the process
 * @start:	the first byte
 * @end:	one past the last
 *
 * Context: the VMA events' (vma.c): before the mappings there now are
 * reported to vmt_exact_mapping(); may not sleep.
 */
void vmt_exact_unmapped(pid_t tgid, unsigned long start, unsigned long end)
{
	unsigned long flags;

	if (!READ_ONCE(vmt_exact_nr_ranges) || start >= end)
		return;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	__vmt_exact_trim(tgid, start, end);
	raw_spin_unlock_irqrestore(&vmt_exact_lock, flags);
}

static bool vmt_exact_name_matches(const struct vmt_exact_name *n, pid_t tgid,
				   struct vm_area_struct *vma, u8 kind, const char *name,
				   u32 len)
{
	if (!n->len || (n->tgid && n->tgid != tgid))
		return false;
	if (n->all)
		return vmt_protect_vma_traceable(vma);
	if (n->by_addr)
		return kind == VMT_VMA_ANON && n->addr >= vma->vm_start && n->addr < vma->vm_end;
	if (kind == VMT_VMA_HEAP)
		return n->len == 6 && !memcmp(n->name, "[heap]", 6);
	if (kind == VMT_VMA_STACK)
		return n->len == 7 && !memcmp(n->name, "[stack]", 7);
	return name && len == n->len && !memcmp(name, n->name, len);
}

/**
 * vmt_exact_mapping() - a traced process's mapping, as the VMA events see it
 * at start, exec, mmap, mremap, mprotect and brk: if a name given to
 * VMT_EXACT_ADD_NAME matches it, it becomes an exact range
 * @tgid:	the process
 * @vma:	the mapping
 * @kind:	VMT_VMA_* (heap, stack, anonymous, file, special)
 * @name:	a file's path or a special mapping's name, or NULL
 * @len:	its length
 *
 * The stack's range reaches down to _STK_LIM (the default stack rlimit, 8
 * MiB) below its top: the stack grows by faults, which no event reports.
 *
 * Context: the VMA events' (vma.c, events.c): mmap_lock held, before the
 * process runs on; may not sleep. The mapping's pages are new, or were
 * protected at start: they fault, exact from here on.
 */
void vmt_exact_mapping(pid_t tgid, struct vm_area_struct *vma, u8 kind, const char *name,
		       u32 len)
{
	unsigned long start = vma->vm_start, flags;
	u32 i;

	if (!READ_ONCE(vmt_exact_nr_names))
		return;
	if (kind == VMT_VMA_STACK && vma->vm_end > _STK_LIM && vma->vm_end - _STK_LIM < start)
		start = vma->vm_end - _STK_LIM;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	for (i = 0; i < VMT_EXACT_RANGES; i++) {
		if (vmt_exact_name_matches(&vmt_exact_names[i], tgid, vma, kind, name, len)) {
			__vmt_exact_add_mapping(tgid, start, vma->vm_end, i);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&vmt_exact_lock, flags);
}

/**
 * vmt_exact_exited() - process @tgid is gone: the ranges made of its
 * mappings go too
 * @tgid:	the process
 *
 * Context: its last thread's exit; may not sleep.
 */
void vmt_exact_exited(pid_t tgid)
{
	unsigned long flags;

	if (!READ_ONCE(vmt_exact_nr_ranges))
		return;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	__vmt_exact_drop(tgid, false, 0, ULONG_MAX, VMT_EXACT_RANGES);
	raw_spin_unlock_irqrestore(&vmt_exact_lock, flags);
}

/**
 * vmt_exact_left_out_add() - mappings [@start, @end) of process @tgid were
 * not seen (vma.c could not look them up): if a name may match them, their
 * pages are counted left out
 * @tgid:	the process
 * @start:	the first byte
 * @end:	one past the last
 *
 * Context: may not sleep.
 */
void vmt_exact_left_out_add(pid_t tgid, unsigned long start, unsigned long end)
{
	unsigned long flags;
	u32 i;

	if (!READ_ONCE(vmt_exact_nr_names) || start >= end)
		return;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	for (i = 0; i < VMT_EXACT_RANGES; i++) {
		const struct vmt_exact_name *n = &vmt_exact_names[i];

		if (n->len && (!n->tgid || n->tgid == tgid)) {
			vmt_exact_left_out += vmt_range_pages(start, end);
			break;
		}
	}
	raw_spin_unlock_irqrestore(&vmt_exact_lock, flags);
}

/* VMT_EXACT_ADD_NAME and _REMOVE_NAME: @n from the caller. Context: process. */
static int vmt_exact_name_op(u32 op, struct vmt_exact_name *n)
{
	struct vmt_exact_name *slot = NULL;
	int err = 0;
	u32 i;

	raw_spin_lock_irq(&vmt_exact_lock);
	for (i = 0; i < VMT_EXACT_RANGES && !slot; i++) {
		struct vmt_exact_name *e = &vmt_exact_names[i];

		if (op == VMT_EXACT_ADD_NAME && !e->len)
			slot = e;
		else if (op == VMT_EXACT_REMOVE_NAME && e->len && e->tgid == n->tgid &&
			 e->len == n->len && !memcmp(e->name, n->name, n->len))
			slot = e;
	}
	if (!slot) {
		err = op == VMT_EXACT_ADD_NAME ? -ENOSPC : -EINVAL;
	} else if (op == VMT_EXACT_ADD_NAME) {
		*slot = *n;
		WRITE_ONCE(vmt_exact_nr_names, vmt_exact_nr_names + 1);
	} else {
		/* The ranges made of its mappings go with it. */
		__vmt_exact_drop(0, true, 0, ULONG_MAX, slot - vmt_exact_names);
		slot->len = 0;
		WRITE_ONCE(vmt_exact_nr_names, vmt_exact_nr_names - 1);
	}
	raw_spin_unlock_irq(&vmt_exact_lock);
	return err;
}

/*
 * A name, from user space (or @kname, sysfs's): its bytes, and whether it
 * is an address (hex) or "all".
 */
static int vmt_exact_name_get(const struct vmt_exact_arg *arg, const char *kname,
			      struct vmt_exact_name *n)
{
	char text[VMT_EXACT_NAME_MAX + 1];

	if (!arg->name_len || arg->name_len > VMT_EXACT_NAME_MAX)
		return -EINVAL;
	if (kname)
		memcpy(n->name, kname, arg->name_len);
	else if (copy_from_user(n->name, u64_to_user_ptr(arg->name_ptr), arg->name_len))
		return -EFAULT;
	n->tgid = arg->pid;
	n->len = arg->name_len;
	memcpy(text, n->name, n->len);
	text[n->len] = 0;
	n->by_addr = !kstrtoul(text, 16, &n->addr);
	n->all = !strcmp(text, VMT_EXACT_ALL);
	return 0;
}

/* VMT_EXACT_ADD, _REMOVE and _CLEAR, with @r as given. Context: the lock. */
static int __vmt_exact_range_op(u32 op, struct vmt_exact_range *r)
{
	u32 i;

	switch (op) {
	case VMT_EXACT_CLEAR:
		WRITE_ONCE(vmt_exact_nr_ranges, 0);
		vmt_exact_used_pages = 0;
		for (i = 0; i < VMT_EXACT_RANGES; i++)
			vmt_exact_names[i].len = 0;
		WRITE_ONCE(vmt_exact_nr_names, 0);
		return 0;
	case VMT_EXACT_ADD:
		if (vmt_exact_nr_ranges == VMT_EXACT_TABLE || !__vmt_exact_fit(r, 0))
			return -ENOSPC;
		__vmt_exact_insert(r);
		return 0;
	case VMT_EXACT_REMOVE:
		/* The ranges of the same process and start come just before. */
		for (i = __vmt_exact_after(r->tgid, r->start); i; i--) {
			const struct vmt_exact_range *e = &vmt_exact_ranges[i - 1];

			if (e->tgid != r->tgid || e->start != r->start)
				break;
			/* A range made of a mapping goes with its name or mapping only. */
			if (!e->by_name && e->asked_end == r->asked_end) {
				__vmt_exact_delete(i - 1);
				return 0;
			}
		}
		return -EINVAL;
	}
	return -EINVAL;
}

/**
 * vmt_exact_control() - VMT_IOC_EXACT: add or remove a range or a name, set
 * the cap, or read the counters
 * @arg:	checked for reserved fields by the caller; counters filled in
 * @kname:	for the _NAME ops, the name in the kernel (sysfs), or NULL
 *
 * Context: process context, under the session's lock (so start and stop
 * do not run meanwhile).
 * Return: 0, -EINVAL or -ENOSPC (see the uapi header).
 */
int vmt_exact_control(struct vmt_exact_arg *arg, const char *kname)
{
	struct vmt_exact_range r = { .tgid = arg->pid, .start = arg->start, .end = arg->end,
				     .asked_end = arg->end };
	struct vmt_exact_name *name;
	int err = 0;

	if (arg->op == VMT_EXACT_ADD_NAME || arg->op == VMT_EXACT_REMOVE_NAME) {
		/* Too big for the stack; this is process context. */
		name = kzalloc(sizeof(*name), GFP_KERNEL);
		if (!name)
			return -ENOMEM;
		err = vmt_exact_name_get(arg, kname, name);
		if (!err)
			err = vmt_exact_name_op(arg->op, name);
		kfree(name);
		vmt_exact_counts(arg);
		return err;
	}
	if (arg->op == VMT_EXACT_ADD || arg->op == VMT_EXACT_REMOVE) {
		if (arg->start >= arg->end || arg->end > TASK_SIZE_MAX)
			return -EINVAL;
	} else if (arg->op == VMT_EXACT_CAP) {
		if (!arg->max_pages)
			return -EINVAL;
		WRITE_ONCE(vmt_exact_max_pages, arg->max_pages);
	} else if (arg->op != VMT_EXACT_CLEAR && arg->op != VMT_EXACT_COUNTS) {
		return -EINVAL;
	}
	if (arg->op != VMT_EXACT_CAP && arg->op != VMT_EXACT_COUNTS) {
		raw_spin_lock_irq(&vmt_exact_lock);
		err = __vmt_exact_range_op(arg->op, &r);
		raw_spin_unlock_irq(&vmt_exact_lock);
	}
	if (!err && arg->op == VMT_EXACT_ADD && vmt_session_protecting())
		vmt_exact_protect_range(&r);
	vmt_exact_counts(arg);
	return err;
}

/**
 * vmt_exact_show() - the ranges and names for sysfs, a line each: "PID
 * START-END", "PID NAME"; past a page, a last line "+N ranges"
 * @buf:	a sysfs page
 *
 * Return: the bytes written.
 */
ssize_t vmt_exact_show(char *buf)
{
	/* The longest range's line, "-2147483648 %lx-%lx\n", and the "+N" line. */
	const ssize_t line = 48 + 16;
	struct vmt_exact_range *r = vmt_exact_ranges;
	struct vmt_exact_name *n = vmt_exact_names;
	ssize_t len = 0, names = 0;
	u32 i, nr;

	/* Formatting only, under the lock: a page's worth at most. */
	raw_spin_lock_irq(&vmt_exact_lock);
	for (i = 0; i < VMT_EXACT_RANGES; i++)
		if (n[i].len)
			names += 13 + n[i].len;
	/* Room for the names after the ranges, as far as half the page goes. */
	names = min_t(ssize_t, names, PAGE_SIZE / 2);
	nr = vmt_exact_nr_ranges;
	for (i = 0; i < nr; i++) {
		if (len + line + names > PAGE_SIZE) {
			len += sysfs_emit_at(buf, len, "+%u ranges\n", nr - i);
			break;
		}
		len += sysfs_emit_at(buf, len, "%d %lx-%lx\n", r[i].tgid, r[i].start, r[i].end);
	}
	for (i = 0; i < VMT_EXACT_RANGES; i++)
		if (n[i].len)
			len += sysfs_emit_at(buf, len, "%d %.*s\n", n[i].tgid, n[i].len, n[i].name);
	raw_spin_unlock_irq(&vmt_exact_lock);
	return len;
}

/**
 * vmt_exact_start() - zero the counters and drop the ranges made of
 * mappings, at start
 *
 * While tracing was off, no event followed the mappings: their ranges may
 * be stale, under process ids used again since. The state dump that start
 * makes next lists the targets' mappings, and the names make them anew.
 */
void vmt_exact_start(void)
{
	raw_spin_lock_irq(&vmt_exact_lock);
	__vmt_exact_drop(0, true, 0, ULONG_MAX, VMT_EXACT_RANGES);
	raw_spin_unlock_irq(&vmt_exact_lock);
	atomic64_set(&vmt_exact_counters.accesses, 0);
	atomic64_set(&vmt_exact_counters.steps, 0);
	atomic64_set(&vmt_exact_counters.undecoded, 0);
	atomic64_set(&vmt_exact_counters.cancelled, 0);
	atomic64_set(&vmt_exact_counters.kernel, 0);
	atomic64_set(&vmt_exact_counters.unsafe, 0);
	atomic64_set(&vmt_exact_counters.missed, 0);
	atomic64_set(&vmt_exact_counters.unpinned, 0);
}

#ifdef CONFIG_VMTRACE_KUNIT_TEST
#include "tests/exact_ranges-kunit.h"
#endif
