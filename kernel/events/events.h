/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Introspection events: context switches, task lifecycle, address-space
 * changes, DMA mappings, user markers and the state dump at start. Each
 * source attaches its own probes (hooks.h); these are what others call.
 */
#ifndef _VMTRACE_EVENTS_H
#define _VMTRACE_EVENTS_H

#include <linux/mm_types.h>
#include <linux/types.h>

/* events.c */
void vmt_events_dump(void);

/* vma.c */
void vmt_vma_emit_all(struct mm_struct *mm, pid_t pid, u8 cause);

/* dma.c */
u64 vmt_dma_missed(void);

#endif /* _VMTRACE_EVENTS_H */
