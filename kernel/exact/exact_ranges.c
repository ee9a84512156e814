// SPDX-License-Identifier: GPL-2.0
/*
 * Exact mode's ranges: the byte ranges and mapping names whose accesses
 * the stepping engine (exact.c) logs, the cap on the pages they span, the
 * engine's counters, and the VMT_IOC_EXACT operations on them (add, remove
 * and clear ranges and names, read the counters), the sysfs listing, and
 * the zeroing at start.
 *
 * A range given by a mapping's name becomes a range of each mapping of that
 * name, as vma.c reports them (vmt_exact_mapping()). A range added while
 * tracing is protected at once in every target it concerns.
 */
#include <linux/mm.h>
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

struct vmt_exact_range {
	pid_t tgid;		/* 0: every traced process */
	unsigned long start, end;	/* end > start when in use */
	unsigned long asked_end;	/* the end given, before the cap cut it */
};

static struct vmt_exact_range vmt_exact_ranges[VMT_EXACT_RANGES];
static u32 vmt_exact_nr_ranges;
/* The cap on the pages the ranges span, and the pages it cut off; under the lock. */
static u64 vmt_exact_max_pages = VMT_EXACT_DEFAULT_MAX_PAGES, vmt_exact_left_out;
/* Guards the table; the probes take it with interrupts off. */
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
 * @addr:	that address
 * @name:	as /proc/PID/maps names the mapping
 */
struct vmt_exact_name {
	pid_t tgid;
	u16 len;
	bool by_addr;
	unsigned long addr;
	char name[VMT_EXACT_NAME_MAX];
};

/* Under vmt_exact_lock. */
static struct vmt_exact_name vmt_exact_names[VMT_EXACT_RANGES];
static u32 vmt_exact_nr_names;

/**
 * vmt_exact_covers() - whether [@addr, @addr + @len) of process @tgid meets
 * an exact range
 * @tgid:	the process
 * @addr:	the first byte
 * @len:	bytes
 *
 * Context: any; takes the table's raw spinlock with interrupts off.
 */
bool vmt_exact_covers(pid_t tgid, unsigned long addr, unsigned long len)
{
	struct vmt_exact_range *r;
	bool hit = false;
	unsigned long flags;
	u32 i;

	if (!READ_ONCE(vmt_exact_nr_ranges))
		return false;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	for (i = 0; i < VMT_EXACT_RANGES && !hit; i++) {
		r = &vmt_exact_ranges[i];
		hit = r->end > r->start && (!r->tgid || r->tgid == tgid) &&
		      addr < r->end && addr + len > r->start;
	}
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
}

/*
 * Cut @r's end so that the pages of every range stay within the cap,
 * counting what is cut off. Return: false when no page of it fits.
 * Context: the table's lock held.
 */
static bool vmt_exact_fit(struct vmt_exact_range *r)
{
	u64 used = 0, room, want = vmt_range_pages(r->start, r->end);
	u32 i;

	for (i = 0; i < VMT_EXACT_RANGES; i++)
		if (vmt_exact_ranges[i].end > vmt_exact_ranges[i].start)
			used += vmt_range_pages(vmt_exact_ranges[i].start, vmt_exact_ranges[i].end);
	room = used < vmt_exact_max_pages ? vmt_exact_max_pages - used : 0;
	if (want <= room)
		return true;
	vmt_exact_left_out += want - room;
	if (!room)
		return false;
	r->end = (r->start & PAGE_MASK) + (room << PAGE_SHIFT);
	return true;
}

/*
 * Add @r, a mapping a name matched, or grow the range made of it before
 * (the same process and start: a heap that brk grew). Context: the lock.
 */
static void vmt_exact_add_mapping(struct vmt_exact_range *r)
{
	struct vmt_exact_range *e, *free = NULL;
	u32 i;

	for (i = 0; i < VMT_EXACT_RANGES; i++) {
		e = &vmt_exact_ranges[i];
		if (e->end <= e->start) {
			free = free ?: e;
			continue;
		}
		if (e->tgid != r->tgid || r->start < e->start || r->start >= e->end)
			continue;
		if (r->end <= e->end)
			return;
		/* What it grew by, under the cap, joins it. */
		r->start = e->end;
		if (!vmt_exact_fit(r))
			return;
		e->end = r->end;
		e->asked_end = r->end;
		return;
	}
	if (!free) {
		vmt_exact_left_out += vmt_range_pages(r->start, r->end);
		return;
	}
	if (!vmt_exact_fit(r))
		return;
	*free = *r;
	WRITE_ONCE(vmt_exact_nr_ranges, vmt_exact_nr_ranges + 1);
}

static bool vmt_exact_name_matches(const struct vmt_exact_name *n, pid_t tgid,
				   unsigned long start, unsigned long end, u8 kind,
				   const char *name, u32 len)
{
	if (!n->len || (n->tgid && n->tgid != tgid))
		return false;
	if (n->by_addr)
		return kind == VMT_VMA_ANON && n->addr >= start && n->addr < end;
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
 * @start:	the mapping's first byte
 * @end:	one past its last
 * @kind:	VMT_VMA_* (heap, stack, anonymous, file, special)
 * @name:	a file's path or a special mapping's name, or NULL
 * @len:	its length
 *
 * Context: the VMA events' (vma.c, events.c): mmap_lock held, before the
 * process runs on; may not sleep. The mapping's pages are new, or were
 * protected at start: they fault, exact from here on.
 */
void vmt_exact_mapping(pid_t tgid, unsigned long start, unsigned long end, u8 kind,
		       const char *name, u32 len)
{
	struct vmt_exact_range r = { .tgid = tgid, .start = start, .end = end, .asked_end = end };
	unsigned long flags;
	u32 i;

	if (!READ_ONCE(vmt_exact_nr_names))
		return;
	raw_spin_lock_irqsave(&vmt_exact_lock, flags);
	for (i = 0; i < VMT_EXACT_RANGES; i++) {
		struct vmt_exact_name *n = &vmt_exact_names[i];

		if (vmt_exact_name_matches(n, tgid, start, end, kind, name, len)) {
			vmt_exact_add_mapping(&r);
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
		slot->len = 0;
		WRITE_ONCE(vmt_exact_nr_names, vmt_exact_nr_names - 1);
	}
	raw_spin_unlock_irq(&vmt_exact_lock);
	return err;
}

/*
 * A name, from user space (or @kname, sysfs's): its bytes, and whether it
 * is an address (hex).
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
	return 0;
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
	struct vmt_exact_range *slot = NULL;
	struct vmt_exact_name *name;
	int err = 0;
	u32 i;

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
	raw_spin_lock_irq(&vmt_exact_lock);
	for (i = 0; i < VMT_EXACT_RANGES; i++) {
		struct vmt_exact_range *e = &vmt_exact_ranges[i];

		if (arg->op == VMT_EXACT_CLEAR) {
			e->start = 0;
			e->end = 0;
		} else if (arg->op == VMT_EXACT_ADD && !slot && e->end <= e->start) {
			slot = e;
		} else if (arg->op == VMT_EXACT_REMOVE && !slot && e->end > e->start &&
			   e->tgid == r.tgid && e->start == r.start && e->asked_end == r.end) {
			slot = e;
		}
	}
	if (arg->op == VMT_EXACT_CLEAR) {
		WRITE_ONCE(vmt_exact_nr_ranges, 0);
		for (i = 0; i < VMT_EXACT_RANGES; i++)
			vmt_exact_names[i].len = 0;
		WRITE_ONCE(vmt_exact_nr_names, 0);
	} else if (arg->op == VMT_EXACT_ADD && slot && !vmt_exact_fit(&r)) {
		err = -ENOSPC;
	} else if (arg->op == VMT_EXACT_ADD && slot) {
		*slot = r;
		WRITE_ONCE(vmt_exact_nr_ranges, vmt_exact_nr_ranges + 1);
	} else if (arg->op == VMT_EXACT_REMOVE && slot) {
		slot->start = 0;
		slot->end = 0;
		WRITE_ONCE(vmt_exact_nr_ranges, vmt_exact_nr_ranges - 1);
	} else if (arg->op == VMT_EXACT_ADD) {
		err = -ENOSPC;
	} else if (arg->op == VMT_EXACT_REMOVE) {
		err = -EINVAL;
	}
	raw_spin_unlock_irq(&vmt_exact_lock);
	if (!err && arg->op == VMT_EXACT_ADD && vmt_session_protecting())
		vmt_exact_protect_range(&r);
	vmt_exact_counts(arg);
	return err;
}

/**
 * vmt_exact_show() - the ranges and names for sysfs, a line each: "PID
 * START-END", "PID NAME"
 * @buf:	a sysfs page
 *
 * Return: the bytes written.
 */
ssize_t vmt_exact_show(char *buf)
{
	struct vmt_exact_range *r = vmt_exact_ranges;
	struct vmt_exact_name *n = vmt_exact_names;
	ssize_t len = 0;
	u32 i;

	/* Formatting only, under the lock: a page's worth at most. */
	raw_spin_lock_irq(&vmt_exact_lock);
	for (i = 0; i < VMT_EXACT_RANGES; i++)
		if (r[i].end > r[i].start)
			len += sysfs_emit_at(buf, len, "%d %lx-%lx\n", r[i].tgid, r[i].start,
					     r[i].end);
	for (i = 0; i < VMT_EXACT_RANGES; i++)
		if (n[i].len)
			len += sysfs_emit_at(buf, len, "%d %.*s\n", n[i].tgid, n[i].len, n[i].name);
	raw_spin_unlock_irq(&vmt_exact_lock);
	return len;
}

/**
 * vmt_exact_start() - zero the counters, at start
 */
void vmt_exact_start(void)
{
	atomic64_set(&vmt_exact_counters.accesses, 0);
	atomic64_set(&vmt_exact_counters.steps, 0);
	atomic64_set(&vmt_exact_counters.undecoded, 0);
	atomic64_set(&vmt_exact_counters.cancelled, 0);
	atomic64_set(&vmt_exact_counters.kernel, 0);
	atomic64_set(&vmt_exact_counters.unsafe, 0);
	atomic64_set(&vmt_exact_counters.missed, 0);
	atomic64_set(&vmt_exact_counters.unpinned, 0);
}
