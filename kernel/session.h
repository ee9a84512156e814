/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing session: configuration, per-CPU rings, state. One per module.
 */
#ifndef _VMTRACE_SESSION_H
#define _VMTRACE_SESSION_H

#include <linux/atomic.h>
#include <linux/irq_work.h>
#include <linux/poll.h>
#include <linux/wait.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <uapi/linux/vmtrace.h>

#include "enabled.h"
#include "protect.h"
#include "ring.h"

/* One CPU's ring and the memory it lives in (mapped by readers). */
struct vmt_cpu_ring {
	struct vmt_ring ring;
	void *mem;
	u64 faults;		/* target faults the probes saw on this CPU */
	struct irq_work wakeup;	/* wakes the readers: see vmt_ring_wakeup() */
};

/* struct vmt_config, checked and copied into the kernel. */
struct vmt_settings {
	u32 ring_records;
	u32 flags;
	u32 nr_pids;
	u32 enabled_pages;
	u32 policy;
	u32 reprotect_ms;
	u32 events;
	pid_t pids[VMT_MAX_PIDS];
};

/*
 * struct vmt_session - the one tracing session
 * @lock:	serializes configure, start, stop and status; taken before a
 *		target's mmap_lock (protecting its pages)
 * @rings_lock:	publishes @rings and @ring_stride (see vmt_rings_publish()),
 *		for poll and mmap; mmap runs with the reader's mmap_lock held:
 *		it must not need @lock (lock order @lock -> mmap_lock ->
 *		@rings_lock)
 * @state:	VMT_STATE_*; written under @lock, read by sysfs without it
 * @tracing:	the probes act; set with release once everything they read
 *		is in place, read by them with acquire
 * @settings:	what the last configure set; immutable while tracing, so
 *		the probes read it without a lock
 * @rings:	nr_cpu_ids pointers, NULL for impossible CPUs; allocated by
 *		configure, freed by the next geometry change or unload
 * @ring_stride: bytes between two rings in the mmap space
 * @mappings:	live mappings of any ring; rings cannot be freed while > 0
 * @configured:	configure succeeded at least once
 * @tgids:	the traced processes: the configured pids, then the children
 *		followed; the first @nr_tgids are in use
 * @nr_tgids:	published with release once an entry is filled in, read by
 *		the probes with acquire
 * @tgids_lock:	serializes appends to @tgids; the fork probe takes it, with
 *		interrupts off
 * @targets:	with VMT_CONFIG_PROTECT, VMT_MAX_TARGETS slots for the
 *		address spaces of the traced processes, protected when added
 *		and restored at stop; a target whose address space is gone is
 *		dropped when another is added, and its slot taken again; the
 *		first @nr_targets slots are in use or free (their mm NULL)
 * @nr_targets:	published with release once a target is filled in, read by
 *		the probes with acquire; set to 0 only once they are detached
 * @targets_lock: serializes adding and dropping targets (start, and the
 *		task_work of a child or an exec'd process), @protect and the
 *		counts of dropped targets; stop takes it only once every
 *		task_work has run
 * @missed:	processes and address spaces left untraced for want of room
 * @exclude_mm:	system-wide, the address space of the process that started
 *		tracing (the collector), which is not traced; pinned with
 *		mmgrab() while tracing, so that the pointer is not reused
 * @exclude_tgid: that process, for tasks that have let go of their mm
 * @data_dropped: variable-size data left out because it did not fit
 * @events_missed: introspection events that could not be written whole
 * @dma_missed_base: vmt_dma_missed() at start
 * @protect:	what protecting them did
 * @restored:	PTEs mapped back at stop
 * @evictions:	and @overflows: of the targets dropped, and of the last
 *		session's once they are gone
 * @deferred:	evictions put off because no task_work slot was free
 * @reprotections: PTEs protected again by @reprotect_work, and in the
 *		stale ranges of the targets dropped or gone
 * @reprotect_work: the periodic re-protection, when asked for
 * @readers:	poll()ers of the device, woken when a ring reaches its
 *		watermark and when tracing stops
 */
struct vmt_session {
	struct mutex lock;	/* see above */
	struct mutex rings_lock;	/* see above */
	enum vmt_state state;
	bool tracing;
	struct vmt_settings settings;
	struct vmt_cpu_ring **rings;
	size_t ring_stride;
	atomic_t mappings;
	bool configured;
	pid_t tgids[VMT_MAX_TARGETS];
	u32 nr_tgids;
	raw_spinlock_t tgids_lock;
	struct vmt_target *targets;
	u32 nr_targets;
	struct mutex targets_lock;	/* see above */
	atomic64_t missed;
	struct mm_struct *exclude_mm;
	pid_t exclude_tgid;
	atomic64_t data_dropped;
	atomic64_t events_missed;
	u64 dma_missed_base;
	struct vmt_protect_counts protect;
	u64 restored;
	u64 evictions;
	u64 overflows;
	atomic64_t deferred;
	atomic64_t reprotections;
	struct delayed_work reprotect_work;
	wait_queue_head_t readers;
};

extern struct vmt_session vmt_session;

void vmt_session_exit(void);
int vmt_session_configure(const struct vmt_settings *settings);
int vmt_session_start(void);
int vmt_session_stop(void);
void vmt_session_status(struct vmt_status *status);
u32 vmt_session_lost_per_cpu(u64 *lost, u32 max);
int vmt_session_geometry(struct vmt_geometry *geometry);
int vmt_session_mmap(struct vm_area_struct *vma);
__poll_t vmt_session_poll(struct file *file, poll_table *wait);
void vmt_ring_wakeup(struct vmt_cpu_ring *cr);
int vmt_settings_check(const struct vmt_settings *settings);

struct vmt_target *vmt_session_target(struct mm_struct *mm);
bool vmt_session_traces(struct task_struct *task);
bool vmt_session_traces_tgid(struct task_struct *task);
void vmt_session_follow(struct task_struct *child);
void vmt_session_unfollow(pid_t tgid);
struct vmt_target *vmt_session_add_target(struct mm_struct *mm, pid_t tgid);

/* probe.c */
int vmt_probes_register(void);
void vmt_probes_unregister(void);
void vmt_log_evict(struct vmt_target *t, unsigned long addr, pte_t old, bool huge);

#endif /* _VMTRACE_SESSION_H */
