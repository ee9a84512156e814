// SPDX-License-Identifier: GPL-2.0
/*
 * DMA mapping events: every map and unmap (single pages and scatter-gather
 * segments) and every coherent allocation and free, whoever makes them,
 * with the device's name as data.
 *
 * Kernels from 6.12 on have dma:* trace events; 6.1 has none, and kprobes
 * on the DMA API's exported functions stand in, kretprobes where the result
 * (the DMA address) is wanted. Which source is used is decided at load:
 * the trace events when the kernel has them. Both run in whatever context
 * the driver maps in (a task, or an interrupt completing an I/O), never
 * sleep, and are attached from load to unload.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/kprobes.h>
#include <linux/mm.h>
#include <linux/preempt.h>
#include <linux/scatterlist.h>
#include <linux/tracepoint.h>

#include "base/compat.h"
#include "base/hooks.h"
#include "base/session.h"
#include "events/dma.h"
#include "ring/emit.h"

static void vmt_dma_emit(struct device *dev, u8 op, int dir, u64 dma_addr, u64 phys_addr,
			 u64 size, u32 index, u32 count)
{
	struct vmt_record rec;
	const char *name = dev_name(dev);

	memset(&rec, 0, sizeof(rec));
	rec.dma.dma_addr = dma_addr;
	rec.dma.phys_addr = phys_addr;
	rec.dma.size = size;
	rec.dma.op = op;
	rec.dma.dir = dir;
	rec.dma.in_task = in_task();
	rec.dma.index = min_t(u32, index, U16_MAX);
	rec.dma.count = min_t(u32, count, U16_MAX);
	/* DMA events run alone, as session 0 (base/session.h). */
	vmt_emit_data(vmt_session_alone(), &rec, VMT_REC_DMA, name,
		      name ? strnlen(name, VMT_MAX_DATA_LEN) : 0);
}

/*
 * The DMA segments of a scatterlist once mapped: @ents of them. The CPU
 * side of segment i is the i-th entry's only where nothing merged entries
 * (no IOMMU): otherwise its physical address is not known here (0).
 */
static void vmt_dma_emit_sg(struct device *dev, u8 op, int dir, struct scatterlist *sgl,
			    int nents, int ents)
{
	struct scatterlist *sg;
	int i;

	for_each_sg(sgl, sg, ents, i) {
		if (op == VMT_DMA_UNMAP_SG && !sg_dma_len(sg))
			continue;
		vmt_dma_emit(dev, op, dir, sg_dma_address(sg),
			     ents == nents ? sg_phys(sg) : 0, sg_dma_len(sg), i, ents);
	}
}

/* ---- The dma:* trace events (6.12) ---------------------------------------- */

static void vmt_dma_probe_map_page(void *data, struct device *dev, phys_addr_t phys,
				   dma_addr_t dma, size_t size, enum dma_data_direction dir,
				   unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit(dev, VMT_DMA_MAP_PAGE, dir, dma, phys, size, 0, 1);
}

static void vmt_dma_probe_unmap_page(void *data, struct device *dev, dma_addr_t dma,
				     size_t size, enum dma_data_direction dir, unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit(dev, VMT_DMA_UNMAP_PAGE, dir, dma, 0, size, 0, 1);
}

static void vmt_dma_probe_map_sg(void *data, struct device *dev, struct scatterlist *sgl,
				 int nents, int ents, enum dma_data_direction dir,
				 unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA) && ents > 0)
		vmt_dma_emit_sg(dev, VMT_DMA_MAP_SG, dir, sgl, nents, ents);
}

static void vmt_dma_probe_unmap_sg(void *data, struct device *dev, struct scatterlist *sgl,
				   int nents, enum dma_data_direction dir, unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit_sg(dev, VMT_DMA_UNMAP_SG, dir, sgl, nents, nents);
}

static void vmt_dma_probe_alloc(void *data, struct device *dev, void *virt, dma_addr_t dma,
				size_t size, enum dma_data_direction dir, gfp_t flags,
				unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA) && virt)
		vmt_dma_emit(dev, VMT_DMA_ALLOC, dir, dma,
			     virt_addr_valid(virt) ? virt_to_phys(virt) : 0, size, 0, 1);
}

static void vmt_dma_probe_free(void *data, struct device *dev, void *virt, dma_addr_t dma,
			       size_t size, enum dma_data_direction dir, unsigned long attrs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit(dev, VMT_DMA_FREE, dir, dma, 0, size, 0, 1);
}

static struct vmt_tracepoint_probe vmt_dma_probes[] = {
	{ "dma_map_page", vmt_dma_probe_map_page },
	{ "dma_unmap_page", vmt_dma_probe_unmap_page },
	{ "dma_map_sg", vmt_dma_probe_map_sg },
	{ "dma_unmap_sg", vmt_dma_probe_unmap_sg },
	{ "dma_alloc", vmt_dma_probe_alloc },
	{ "dma_free", vmt_dma_probe_free },
};

static struct vmt_hooks vmt_dma_event_hooks = {
	.name = "dma",
	VMT_HOOKS_PROBES(vmt_dma_probes),
};

/* ---- kprobes on the DMA API (6.1) ------------------------------------------ */

/* What a kretprobe's entry saw, for its return. */
struct vmt_dma_call {
	struct device *dev;
	void *arg;		/* page, scatterlist, sg_table or dma_handle */
	u64 offset;		/* map_page: the offset in the page */
	u64 size;
	int nents;
	int dir;
};

#define VMT_KARG(regs, n)	regs_get_kernel_argument(regs, n)

/* dma_map_page_attrs(dev, page, offset, size, dir, attrs) */
static int vmt_dma_kp_map_page_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;

	c->dev = (void *)VMT_KARG(regs, 0);
	c->arg = (void *)VMT_KARG(regs, 1);
	c->offset = VMT_KARG(regs, 2);
	c->size = VMT_KARG(regs, 3);
	c->dir = VMT_KARG(regs, 4);
	return vmt_session_event_on(VMT_EVENT_DMA) ? 0 : 1;	/* 1: no return probe */
}

static int vmt_dma_kp_map_page_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;
	dma_addr_t dma = regs_return_value(regs);

	if (dma != DMA_MAPPING_ERROR)
		vmt_dma_emit(c->dev, VMT_DMA_MAP_PAGE, c->dir, dma,
			     page_to_phys((struct page *)c->arg) + c->offset, c->size, 0, 1);
	return 0;
}

/* dma_map_sg_attrs(dev, sg, nents, dir, attrs): the mapped count */
static int vmt_dma_kp_map_sg_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;

	c->dev = (void *)VMT_KARG(regs, 0);
	c->arg = (void *)VMT_KARG(regs, 1);
	c->nents = VMT_KARG(regs, 2);
	c->dir = VMT_KARG(regs, 3);
	return vmt_session_event_on(VMT_EVENT_DMA) ? 0 : 1;
}

static int vmt_dma_kp_map_sg_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;
	int ents = (unsigned int)regs_return_value(regs);

	if (ents > 0)
		vmt_dma_emit_sg(c->dev, VMT_DMA_MAP_SG, c->dir, c->arg, c->nents, ents);
	return 0;
}

/* dma_map_sgtable(dev, sgt, dir, attrs): 0 with sgt->nents mapped */
static int vmt_dma_kp_map_sgtable_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;

	c->dev = (void *)VMT_KARG(regs, 0);
	c->arg = (void *)VMT_KARG(regs, 1);
	c->dir = VMT_KARG(regs, 2);
	return vmt_session_event_on(VMT_EVENT_DMA) ? 0 : 1;
}

static int vmt_dma_kp_map_sgtable_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;
	struct sg_table *sgt = c->arg;

	if (!regs_return_value(regs))
		vmt_dma_emit_sg(c->dev, VMT_DMA_MAP_SG, c->dir, sgt->sgl, sgt->orig_nents,
				sgt->nents);
	return 0;
}

/* dma_alloc_attrs(dev, size, dma_handle, gfp, attrs): the CPU address */
static int vmt_dma_kp_alloc_entry(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;

	c->dev = (void *)VMT_KARG(regs, 0);
	c->size = VMT_KARG(regs, 1);
	c->arg = (void *)VMT_KARG(regs, 2);
	return vmt_session_event_on(VMT_EVENT_DMA) ? 0 : 1;
}

static int vmt_dma_kp_alloc_ret(struct kretprobe_instance *ri, struct pt_regs *regs)
{
	struct vmt_dma_call *c = (void *)ri->data;
	void *virt = (void *)regs_return_value(regs);

	if (virt)
		vmt_dma_emit(c->dev, VMT_DMA_ALLOC, DMA_BIDIRECTIONAL, *(dma_addr_t *)c->arg,
			     virt_addr_valid(virt) ? virt_to_phys(virt) : 0, c->size, 0, 1);
	return 0;
}

/* dma_unmap_page_attrs(dev, addr, size, dir, attrs) */
static int vmt_dma_kp_unmap_page(struct kprobe *kp, struct pt_regs *regs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit((void *)VMT_KARG(regs, 0), VMT_DMA_UNMAP_PAGE, VMT_KARG(regs, 3),
			     VMT_KARG(regs, 1), 0, VMT_KARG(regs, 2), 0, 1);
	return 0;
}

/* dma_unmap_sg_attrs(dev, sg, nents, dir, attrs); dma_unmap_sgtable() too */
static int vmt_dma_kp_unmap_sg(struct kprobe *kp, struct pt_regs *regs)
{
	int nents = VMT_KARG(regs, 2);

	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit_sg((void *)VMT_KARG(regs, 0), VMT_DMA_UNMAP_SG, VMT_KARG(regs, 3),
				(void *)VMT_KARG(regs, 1), nents, nents);
	return 0;
}

/* dma_free_attrs(dev, size, cpu_addr, dma_handle, attrs) */
static int vmt_dma_kp_free(struct kprobe *kp, struct pt_regs *regs)
{
	if (vmt_session_event_on(VMT_EVENT_DMA))
		vmt_dma_emit((void *)VMT_KARG(regs, 0), VMT_DMA_FREE, DMA_BIDIRECTIONAL,
			     VMT_KARG(regs, 3), 0, VMT_KARG(regs, 1), 0, 1);
	return 0;
}

/* Calls in flight a kretprobe keeps room for; beyond, it misses (counted). */
#define VMT_DMA_MAXACTIVE	128

#define VMT_KRETPROBE(sym, entry, ret) {				\
	.kp.symbol_name = sym, .entry_handler = entry, .handler = ret,	\
	.data_size = sizeof(struct vmt_dma_call), .maxactive = VMT_DMA_MAXACTIVE }

static struct kretprobe vmt_dma_krps[] = {
	VMT_KRETPROBE("dma_map_page_attrs", vmt_dma_kp_map_page_entry, vmt_dma_kp_map_page_ret),
	VMT_KRETPROBE("dma_map_sg_attrs", vmt_dma_kp_map_sg_entry, vmt_dma_kp_map_sg_ret),
	VMT_KRETPROBE("dma_map_sgtable", vmt_dma_kp_map_sgtable_entry, vmt_dma_kp_map_sgtable_ret),
	VMT_KRETPROBE("dma_alloc_attrs", vmt_dma_kp_alloc_entry, vmt_dma_kp_alloc_ret),
};

static struct kprobe vmt_dma_kps[] = {
	{ .symbol_name = "dma_unmap_page_attrs", .pre_handler = vmt_dma_kp_unmap_page },
	{ .symbol_name = "dma_unmap_sg_attrs", .pre_handler = vmt_dma_kp_unmap_sg },
	{ .symbol_name = "dma_free_attrs", .pre_handler = vmt_dma_kp_free },
};

static struct kretprobe *vmt_dma_krp_ptrs[ARRAY_SIZE(vmt_dma_krps)];
static struct kprobe *vmt_dma_kp_ptrs[ARRAY_SIZE(vmt_dma_kps)];
static bool vmt_dma_use_kprobes;

static int vmt_dma_register_kprobes(void)
{
	int i, err;

	for (i = 0; i < ARRAY_SIZE(vmt_dma_krps); i++)
		vmt_dma_krp_ptrs[i] = &vmt_dma_krps[i];
	for (i = 0; i < ARRAY_SIZE(vmt_dma_kps); i++)
		vmt_dma_kp_ptrs[i] = &vmt_dma_kps[i];
	err = register_kretprobes(vmt_dma_krp_ptrs, ARRAY_SIZE(vmt_dma_krp_ptrs));
	if (err)
		return err;
	err = register_kprobes(vmt_dma_kp_ptrs, ARRAY_SIZE(vmt_dma_kp_ptrs));
	if (err)
		unregister_kretprobes(vmt_dma_krp_ptrs, ARRAY_SIZE(vmt_dma_krp_ptrs));
	return err;
}

/* Attach to the dma:* trace events, or the kprobes when they are missing. */
static int vmt_dma_attach(void)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(vmt_dma_probes); i++)
		if (!vmt_find_tracepoint(vmt_dma_probes[i].name))
			break;
	vmt_dma_use_kprobes = i < ARRAY_SIZE(vmt_dma_probes);
	if (vmt_dma_use_kprobes)
		return vmt_dma_register_kprobes();
	return vmt_hooks_attach_one(&vmt_dma_event_hooks);
}

/* Detach; the kprobes wait for running handlers, kretprobe returns included. */
static void vmt_dma_detach(void)
{
	if (vmt_dma_use_kprobes) {
		unregister_kprobes(vmt_dma_kp_ptrs, ARRAY_SIZE(vmt_dma_kp_ptrs));
		unregister_kretprobes(vmt_dma_krp_ptrs, ARRAY_SIZE(vmt_dma_krp_ptrs));
		return;
	}
	vmt_hooks_detach_one(&vmt_dma_event_hooks);
}

struct vmt_hooks vmt_dma_hooks = {
	.name = "dma",
	.attach = vmt_dma_attach,
	.detach = vmt_dma_detach,
};

/* DMA calls the kretprobes could not follow, since load. */
static u64 vmt_dma_missed(void)
{
	u64 n = 0;
	int i;

	if (vmt_dma_use_kprobes)
		for (i = 0; i < ARRAY_SIZE(vmt_dma_krps); i++)
			n += vmt_dma_krps[i].nmissed;
	return n;
}

/* vmt_dma_missed() at start: the kretprobes count from load. */
static u64 vmt_dma_missed_base;

/* At start, before tracing is on. */
void vmt_dma_start(void)
{
	vmt_dma_missed_base = vmt_dma_missed();
}

/**
 * vmt_dma_count() - add the DMA calls missed since start to @status
 * @status:	its events_missed grows
 */
void vmt_dma_count(struct vmt_status *status)
{
	status->events_missed += vmt_dma_missed() - vmt_dma_missed_base;
}
