/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session's settings: types only, for the state (session.h), what is
 * traced (protect/targets.h) and the lifecycle (core.h) alike.
 */
#ifndef _VMTRACE_SETTINGS_H
#define _VMTRACE_SETTINGS_H

#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

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

#endif /* _VMTRACE_SETTINGS_H */
