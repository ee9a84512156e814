/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmtrace's core, as the module's interfaces see it (module/: the device
 * and sysfs): the settings, the session's verbs, the rings' mmap space and
 * markers. The one header of kernel/ that module/ includes.
 */
#ifndef _VMTRACE_CORE_H
#define _VMTRACE_CORE_H

#include <linux/poll.h>
#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

struct vm_area_struct;

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

/* Load and unload: the probes attached, the buffers they need; session.c. */
int vmt_core_init(void);
void vmt_core_exit(void);

/* The session: session.c. */
int vmt_settings_check(const struct vmt_settings *settings);
int vmt_session_configure(const struct vmt_settings *settings);
int vmt_session_start(void);
int vmt_session_stop(void);
bool vmt_session_on(void);
void vmt_session_status(struct vmt_status *status);
u32 vmt_session_lost_per_cpu(u64 *lost, u32 max);
__poll_t vmt_session_poll(struct file *file, poll_table *wait);

/* The rings' mmap space: rings.c. */
int vmt_rings_geometry(struct vmt_geometry *geometry);
int vmt_rings_mmap(struct vm_area_struct *vma);

/* Exact mode's ranges and counters (VMT_IOC_EXACT): session.c, exact.c. */
int vmt_session_exact(struct vmt_exact_arg *arg, const char *name);
ssize_t vmt_exact_show(char *buf);

/* A user marker: events.c. */
int vmt_marker_emit(u32 id, const void *text, u32 len);

#endif /* _VMTRACE_CORE_H */
