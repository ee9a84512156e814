/* SPDX-License-Identifier: GPL-2.0 */
/*
 * DMA mapping events (dma.c): every map and unmap, every coherent
 * allocation and free.
 */
#ifndef _VMTRACE_DMA_H
#define _VMTRACE_DMA_H

struct vmt_hooks;
struct vmt_status;

extern struct vmt_hooks vmt_dma_hooks;

void vmt_dma_start(void);
void vmt_dma_count(struct vmt_status *status);

#endif /* _VMTRACE_DMA_H */
