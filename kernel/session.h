/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tracing session: configuration, per-CPU rings, state. One per module.
 */
#ifndef _VMTRACE_SESSION_H
#define _VMTRACE_SESSION_H

#include <linux/atomic.h>
#include <linux/mm_types.h>
#include <linux/mutex.h>
#include <uapi/linux/vmtrace.h>

#include "protect.h"
#include "ring.h"

/* One CPU's ring and the memory it lives in (mapped by readers). */
struct vmt_cpu_ring {
	struct vmt_ring ring;
	void *mem;
	u64 faults;		/* target faults the probes saw on this CPU */
};

/* struct vmt_config, checked and copied into the kernel. */
struct vmt_settings {
	u32 ring_records;
	u32 flags;
	u32 nr_pids;
	pid_t pids[VMT_MAX_PIDS];
};

/*
 * struct vmt_session - the one tracing session
 * @lock:	serializes configure, start, stop and status; taken before a
 *		target's mmap_lock (protecting its pages)
 * @rings_lock:	guards @rings and @ring_stride for mmap, which runs with the
 *		reader's mmap_lock held: it must not need @lock (lock order
 *		@lock -> mmap_lock -> @rings_lock)
 * @state:	VMT_STATE_*; written under @lock, read by sysfs without it
 * @settings:	what the last configure set; immutable while tracing, so
 *		the probes read it without a lock
 * @rings:	nr_cpu_ids pointers, NULL for impossible CPUs; allocated by
 *		configure, freed by the next geometry change or unload
 * @ring_stride: bytes between two rings in the mmap space
 * @mappings:	live mappings of any ring; rings cannot be freed while > 0
 * @configured:	configure succeeded at least once
 * @mms:	with VMT_CONFIG_PROTECT, the targets' address spaces protected
 *		at start (mmgrab'ed), to restore at stop
 * @protect:	what protecting them did
 * @restored:	PTEs mapped back at stop
 */
struct vmt_session {
	struct mutex lock;	/* see above */
	struct mutex rings_lock;	/* see above */
	enum vmt_state state;
	struct vmt_settings settings;
	struct vmt_cpu_ring **rings;
	size_t ring_stride;
	atomic_t mappings;
	bool configured;
	struct mm_struct *mms[VMT_MAX_PIDS];
	struct vmt_protect_counts protect;
	u64 restored;
};

extern struct vmt_session vmt_session;

void vmt_session_exit(void);
int vmt_session_configure(const struct vmt_settings *settings);
int vmt_session_start(void);
int vmt_session_stop(void);
void vmt_session_status(struct vmt_status *status);
int vmt_session_geometry(struct vmt_geometry *geometry);
int vmt_session_mmap(struct vm_area_struct *vma);
int vmt_settings_check(const struct vmt_settings *settings);

/* probe.c */
int vmt_probes_register(void);
void vmt_probes_unregister(void);

#endif /* _VMTRACE_SESSION_H */
