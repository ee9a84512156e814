// SPDX-License-Identifier: GPL-2.0
/*
 * Counts the user page faults of each process (or of one) from the kernel's
 * exceptions:page_fault_user tracepoint (attached raw): an event source independent of the
 * module, used by `vmtrace faults` and to cross-check the tracer.
 */
#include "vmlinux.h"
#include <linux/vmtrace.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#define X86_PF_PRESENT	0x1
#define X86_PF_WRITE	0x2
#define X86_PF_INSTR	0x10

/* 0: every process; set through the skeleton's rodata before loading. */
const volatile __u32 target_tgid;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct vmt_bpf_fault_count);
} fault_counts SEC(".maps");

/* A raw tracepoint: no tracefs needed to attach, and no event record built. */
SEC("raw_tp/page_fault_user")
int BPF_PROG(count_user_fault, unsigned long address, struct pt_regs *regs,
	     unsigned long error_code)
{
	static const struct vmt_bpf_fault_count zero;
	struct vmt_bpf_fault_count *count;
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (target_tgid && tgid != target_tgid)
		return 0;
	count = bpf_map_lookup_elem(&fault_counts, &tgid);
	if (!count) {
		bpf_map_update_elem(&fault_counts, &tgid, &zero, BPF_NOEXIST);
		count = bpf_map_lookup_elem(&fault_counts, &tgid);
		if (!count)
			return 0;
	}
	__sync_fetch_and_add(&count->faults, 1);
	if (error_code & X86_PF_WRITE)
		__sync_fetch_and_add(&count->writes, 1);
	if (error_code & X86_PF_INSTR)
		__sync_fetch_and_add(&count->instruction, 1);
	if (!(error_code & X86_PF_PRESENT))
		__sync_fetch_and_add(&count->not_present, 1);
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
