/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Page-mapping events: the (virtual page, frame) pairs of a traced address
 * space, logged when first seen and again when the kernel unmaps them.
 */
#ifndef _VMTRACE_PAGEMAP_H
#define _VMTRACE_PAGEMAP_H

#include <linux/mm_types.h>
#include <linux/types.h>

struct vmt_pagemap_table;

struct vmt_pagemap_table *vmt_pagemap_new(pid_t tgid);
void vmt_pagemap_free(struct vmt_pagemap_table *pm);
void vmt_pagemap_forget(struct vmt_pagemap_table *pm, struct mm_struct *mm,
			unsigned long start, unsigned long end, u32 event);
void vmt_pagemap_log(struct vmt_pagemap_table *pm, unsigned long addr, u64 pfn, bool huge);

#endif /* _VMTRACE_PAGEMAP_H */
