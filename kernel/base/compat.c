// SPDX-License-Identifier: GPL-2.0
/*
 * Run-time lookups of kernel facilities that are not exported by name.
 */
#include <linux/kprobes.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/tracepoint.h>
#include <asm/ibt.h>
#include <asm/tlbflush.h>

#include "base/compat.h"

struct vmt_tracepoint_lookup {
	const char *name;
	struct tracepoint *found;
};

static void vmt_match_tracepoint(struct tracepoint *tp, void *priv)
{
	struct vmt_tracepoint_lookup *lookup = priv;

	if (!strcmp(tp->name, lookup->name))
		lookup->found = tp;
}

/**
 * vmt_find_tracepoint() - a core-kernel tracepoint, by its event name
 * @name:	e.g. "page_fault_user"
 *
 * Tracepoints are not exported to modules by symbol; the kernel lists them
 * through for_each_kernel_tracepoint() (LTTng-modules finds them the same way).
 *
 * Return: the tracepoint, or NULL when this kernel has none of that name.
 */
struct tracepoint *vmt_find_tracepoint(const char *name)
{
	struct vmt_tracepoint_lookup lookup = { .name = name };

	for_each_kernel_tracepoint(vmt_match_tracepoint, &lookup);
	return lookup.found;
}

typedef void (*vmt_flush_tlb_mm_range_t)(struct mm_struct *mm, unsigned long start,
					 unsigned long end, unsigned int stride_shift,
					 bool freed_tables);

/* Set once at load, before any session can start; NULL: flush everything. */
static vmt_flush_tlb_mm_range_t vmt_flush_tlb_mm_range;

/**
 * vmt_compat_init() - look up what is not exported, once, at load
 *
 * flush_tlb_mm_range() flushes one address space's range on the CPUs that
 * may cache it; it is not exported, but a kprobe on it tells its address
 * (LTTng-modules finds kallsyms_lookup_name() the same way). With indirect
 * branch tracking the kernel seals functions it never calls through a
 * pointer, replacing their ENDBR: calling one of those would trap, so then
 * vmtrace flushes every CPU's whole TLB instead.
 */
void vmt_compat_init(void)
{
	/* Disabled: resolved, never armed, so nothing is patched. */
	struct kprobe kp = { .symbol_name = "flush_tlb_mm_range",
			     .flags = KPROBE_FLAG_DISABLED };
	void *addr;

	if (register_kprobe(&kp)) {
		pr_info("vmtrace: flush_tlb_mm_range not found: evictions flush every TLB\n");
		return;
	}
	addr = kp.addr;
	unregister_kprobe(&kp);
	if (IS_ENABLED(CONFIG_X86_KERNEL_IBT) && !is_endbr(*(u32 *)addr)) {
		pr_info("vmtrace: flush_tlb_mm_range is sealed: evictions flush every TLB\n");
		return;
	}
	vmt_flush_tlb_mm_range = addr;
}

static void vmt_flush_this_cpu(void *unused)
{
	__flush_tlb_all();
}

/**
 * vmt_flush_tlb_range() - no CPU may use a TLB entry of @mm in [start, end)
 * @mm:		the address space
 * @start:	first byte
 * @end:	byte after the last
 *
 * Context: process context, interrupts enabled (it waits for other CPUs).
 */
void vmt_flush_tlb_range(struct mm_struct *mm, unsigned long start, unsigned long end)
{
	if (vmt_flush_tlb_mm_range)
		vmt_flush_tlb_mm_range(mm, start, end, PAGE_SHIFT, false);
	else
		on_each_cpu(vmt_flush_this_cpu, NULL, 1);
}

/**
 * vmt_flush_tlb_all_cpus() - flush every CPU's whole TLB
 *
 * Context: process context, interrupts enabled.
 */
void vmt_flush_tlb_all_cpus(void)
{
	on_each_cpu(vmt_flush_this_cpu, NULL, 1);
}

/**
 * vmt_flush_tlb_this_cpu() - this CPU may not use its TLB entry of the user
 * page at @addr of the address space it runs
 * @addr:	an address in the page
 *
 * flush_tlb_one_user() is not exported. invlpg drops the entry of the
 * current PCID only: with page-table isolation the user's entries are kept
 * under another PCID, so the whole TLB is flushed then.
 *
 * Context: interrupts off.
 */
void vmt_flush_tlb_this_cpu(unsigned long addr)
{
	if (boot_cpu_has(X86_FEATURE_PTI))
		__flush_tlb_all();
	else
		asm volatile("invlpg (%0)" : : "r" (addr) : "memory");
}
