/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmtrace's core, as the module's interfaces see it (module/: the device
 * and sysfs): the settings, the sessions' verbs, the rings' mmap space and
 * markers; all implemented by core.c. The one header of kernel/ that
 * module/ includes.
 */
#ifndef _VMTRACE_CORE_H
#define _VMTRACE_CORE_H

#include <linux/poll.h>
#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

#include "base/settings.h"

struct vm_area_struct;
struct vmt_session;

/* Load and unload: the probes attached, the buffers they need. */
int vmt_core_init(void);
void vmt_core_exit(void);

/* The sessions: session 0 (sysfs's), or the one a device file claims. */
struct vmt_session *vmt_session_default(void);
int vmt_session_check(const struct vmt_settings *settings);
int vmt_session_configure(struct vmt_session *s, const struct vmt_settings *settings);
int vmt_session_claim(const void *owner, struct vmt_session **sp,
		      const struct vmt_settings *settings);
void vmt_session_disown(const void *owner, struct vmt_session *s);
int vmt_session_start(struct vmt_session *s);
int vmt_session_stop(struct vmt_session *s);
bool vmt_session_on(struct vmt_session *s);
ssize_t vmt_sessions_show(char *buf);
void vmt_session_status(struct vmt_session *s, struct vmt_status *status);
u32 vmt_session_lost_per_cpu(struct vmt_session *s, u64 *lost, u32 max);
__poll_t vmt_session_poll(struct vmt_session *s, struct file *file, poll_table *wait);

/* The rings' mmap space. */
int vmt_session_geometry(struct vmt_session *s, struct vmt_geometry *geometry);
int vmt_session_mmap(struct vmt_session *s, struct vm_area_struct *vma);

/* Exact mode's ranges and counters (VMT_IOC_EXACT): session 0's. */
int vmt_session_exact(struct vmt_session *s, struct vmt_exact_arg *arg, const char *name);
ssize_t vmt_session_exact_show(char *buf);

/* A user marker. */
int vmt_session_marker(struct vmt_session *s, u32 id, const void *text, u32 len);

#endif /* _VMTRACE_CORE_H */
