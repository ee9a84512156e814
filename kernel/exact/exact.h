/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact mode: every access to chosen byte ranges, single-stepped: the
 * stepping engine (exact.c); the ranges are exact_ranges.c's.
 */
#ifndef _VMTRACE_EXACT_H
#define _VMTRACE_EXACT_H

#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

struct pt_regs;
struct vmt_hooks;

extern struct vmt_hooks vmt_exact_hooks;

bool vmt_exact_fault(unsigned long address, struct pt_regs *regs, unsigned long error_code,
		     bool kernel_mode, unsigned long stale_start, unsigned long stale_end);
void vmt_exact_quiesce(void);
void vmt_exact_init(void);
void vmt_exact_exit(void);

#endif /* _VMTRACE_EXACT_H */
