/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Protecting pages again: the pages an enabled set displaces (evictions,
 * each with its EVICT record) and the stale ranges the kernel may have
 * mapped back behind the tracer's back.
 */
#ifndef _VMTRACE_EVICT_H
#define _VMTRACE_EVICT_H

#include <linux/minmax.h>
#include <linux/types.h>

struct vmt_target;

void vmt_target_evict(struct vmt_target *t);
void vmt_target_mark_stale(struct vmt_target *t, unsigned long start, unsigned long end);
void __vmt_target_want_evict(struct vmt_target *t);
void __vmt_target_evict_cancel(struct vmt_target *t);
bool vmt_evicts_pending(void);
void vmt_stale_work_queue(void);
void vmt_stale_work_flush(void);

/* Widen [*@lo, *@hi) (empty when *@lo >= *@hi) to cover [@start, @end). */
static inline void vmt_range_add(unsigned long *lo, unsigned long *hi, unsigned long start,
				 unsigned long end)
{
	if (*lo >= *hi) {
		*lo = start;
		*hi = end;
	} else {
		*lo = min(*lo, start);
		*hi = max(*hi, end);
	}
}

#endif /* _VMTRACE_EVICT_H */
