/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact mode: every access to chosen byte ranges, single-stepped (exact.c).
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
int vmt_exact_control(struct vmt_exact_arg *arg, const char *kname);
void vmt_exact_mapping(pid_t tgid, unsigned long start, unsigned long end, u8 kind,
		       const char *name, u32 len);
void vmt_exact_start(void);
void vmt_exact_quiesce(void);
ssize_t vmt_exact_show(char *buf);

#endif /* _VMTRACE_EXACT_H */
