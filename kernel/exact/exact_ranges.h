/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Exact mode's ranges, names and counters, and their control (exact_ranges.c).
 */
#ifndef _VMTRACE_EXACT_RANGES_H
#define _VMTRACE_EXACT_RANGES_H

#include <linux/atomic.h>
#include <linux/types.h>
#include <uapi/linux/vmtrace.h>

struct vm_area_struct;

/* The engine's counts (exact.c), since start. */
struct vmt_exact_counters {
	atomic64_t accesses;
	atomic64_t steps;
	atomic64_t undecoded;
	atomic64_t cancelled;
	atomic64_t kernel;
	atomic64_t unsafe;
	atomic64_t missed;
	atomic64_t unpinned;
};

extern struct vmt_exact_counters vmt_exact_counters;

bool vmt_exact_covers(pid_t tgid, unsigned long addr, unsigned long len);
int vmt_exact_control(struct vmt_exact_arg *arg, const char *kname);
void vmt_exact_mapping(pid_t tgid, struct vm_area_struct *vma, u8 kind, const char *name,
		       u32 len);
void vmt_exact_unmapped(pid_t tgid, unsigned long start, unsigned long end);
void vmt_exact_exited(pid_t tgid);
void vmt_exact_left_out_add(pid_t tgid, unsigned long start, unsigned long end);
ssize_t vmt_exact_show(char *buf);
void vmt_exact_start(void);

#endif /* _VMTRACE_EXACT_RANGES_H */
