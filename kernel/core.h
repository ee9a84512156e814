/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vmtrace's core, as the module's interfaces see it (module/: the device
 * and sysfs): the settings, the session's verbs, the rings' mmap space and
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

/* Load and unload: the probes attached, the buffers they need. */
int vmt_core_init(void);
void vmt_core_exit(void);

/* The session. */
int vmt_session_check(const struct vmt_settings *settings);
int vmt_session_configure(const struct vmt_settings *settings);
int vmt_session_start(void);
int vmt_session_stop(void);
bool vmt_session_on(void);
void vmt_session_status(struct vmt_status *status);
u32 vmt_session_lost_per_cpu(u64 *lost, u32 max);
__poll_t vmt_session_poll(struct file *file, poll_table *wait);

/* The rings' mmap space. */
int vmt_session_geometry(struct vmt_geometry *geometry);
int vmt_session_mmap(struct vm_area_struct *vma);

/* Exact mode's ranges and counters (VMT_IOC_EXACT). */
int vmt_session_exact(struct vmt_exact_arg *arg, const char *name);
ssize_t vmt_session_exact_show(char *buf);

/* A user marker. */
int vmt_session_marker(u32 id, const void *text, u32 len);

#endif /* _VMTRACE_CORE_H */
