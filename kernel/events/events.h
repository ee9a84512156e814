/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Introspection events of tasks (events.c): context switches, task
 * lifecycle, user markers and the state dump at start. Address-space
 * changes are vma.c's, DMA mappings dma.c's.
 */
#ifndef _VMTRACE_EVENTS_H
#define _VMTRACE_EVENTS_H

#include <linux/types.h>

struct vmt_hooks;
struct vmt_session;

extern struct vmt_hooks vmt_events_hooks;

void vmt_events_dump(struct vmt_session *s);
int vmt_marker_emit(struct vmt_session *s, u32 id, const void *text, u32 len);

#endif /* _VMTRACE_EVENTS_H */
