/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * vmtrace ABI: everything that crosses the kernel/user boundary.
 *
 * The kernel module, the collector and the BPF programs all include this file;
 * no layout here is written anywhere else. Every struct is made of __u8/__u16/
 * __u32/__u64 fields, naturally aligned, with no implicit padding, so the same
 * bytes mean the same thing to 32- and 64-bit readers, and carries reserved
 * space that must be zero.
 */
#ifndef _UAPI_LINUX_VMTRACE_H
#define _UAPI_LINUX_VMTRACE_H

/* A BPF program has these types from vmlinux.h already. */
#ifndef __VMLINUX_H__
#include <linux/types.h>
#include <linux/ioctl.h>
#endif

/* Bumped when a layout below changes incompatibly. */
#define VMT_ABI_VERSION		1

/* ---- Records ---------------------------------------------------------- */

/* Every record is this many bytes; a ring holds a power-of-two number of them. */
#define VMT_RECORD_SIZE		64

enum vmt_record_type {
	VMT_REC_NONE		= 0,
	VMT_REC_LOST		= 1,	/* records dropped before this point */
	VMT_REC_REFERENCE	= 2,	/* a traced memory reference */
	VMT_REC_EVICT		= 3,	/* a page left the enabled set */
	VMT_REC_MARKER		= 4,	/* a user marker */
};

/* Common to all records: 24 bytes. */
struct vmt_record_header {
	__u64 time_ns;		/* ktime_get_mono_fast_ns(): ordered across CPUs */
	__u32 pid;		/* thread group id, in the initial pid namespace */
	__u32 tid;
	__u16 type;		/* enum vmt_record_type */
	__u16 cpu;
	__u32 reserved;
};

/* VMT_REC_LOST: the producer dropped @count records since the previous one. */
struct vmt_lost {
	__u64 count;
	__u64 reserved[4];
};

/* Access type bits of struct vmt_reference.access. */
#define VMT_ACCESS_READ		0x1
#define VMT_ACCESS_WRITE	0x2
#define VMT_ACCESS_EXEC		0x4

enum vmt_fault_cause {
	VMT_CAUSE_PROTECTION	= 0,	/* a page vmtrace protected */
	VMT_CAUSE_DEMAND	= 1,	/* first touch of a not-present page */
	VMT_CAUSE_COW		= 2,	/* write to a copy-on-write page */
	VMT_CAUSE_OTHER		= 3,
};

/* VMT_REC_REFERENCE and VMT_REC_EVICT. */
struct vmt_reference {
	__u64 vaddr;		/* faulting byte address (page address for EVICT) */
	__u64 pfn;		/* physical frame, or 0 when not known */
	__u64 ip;		/* user instruction pointer; 0 for a kernel-mode access */
	__u32 error_code;	/* x86 page-fault error code */
	__u8 access;		/* VMT_ACCESS_* */
	__u8 kernel_mode;	/* 1 when the access came from kernel mode */
	__u8 cause;		/* enum vmt_fault_cause */
	__u8 evict_flags;	/* VMT_EVICT_*: EVICT records only */
	__u32 flags;		/* VMT_REF_* */
	__u32 reserved;
};

/*
 * VMT_REF_HUGE: a transparent huge page mapped by one PMD held the address.
 * Protected, enabled and evicted whole: an EVICT record's vaddr is the first
 * page's, and nothing is logged in the other 511 pages until it is evicted.
 */
#define VMT_REF_HUGE		0x1

/*
 * An EVICT record's vaddr is the page's address, pfn its frame, pid and tid
 * the thread whose fault displaced it. Protecting a page clears its Dirty
 * bit (handing it to the page cache) and its Accessed bit, so at eviction:
 */
/*
 * VMT_EVICT_ACCESSED: the Accessed bit was set. Always, under FIFO, since the
 * admitting access sets it; under CLOCK, the page was referenced since the
 * hand last cleared it.
 */
#define VMT_EVICT_DIRTY		0x1	/* written while enabled */
#define VMT_EVICT_ACCESSED	0x2

struct vmt_record {
	struct vmt_record_header hdr;
	union {
		struct vmt_lost lost;
		struct vmt_reference ref;
		__u64 raw[5];
	};
};

/* ---- Ring buffers ----------------------------------------------------- */

/*
 * Each CPU has one ring: a control page (struct vmt_ring_meta) followed by
 * nr_records records. The kernel is the only producer, one reader consumes.
 *
 * Memory ordering:
 *   producer: write records, then smp_store_release(&meta->head, new_head)
 *   reader:   head = smp_load_acquire(&meta->head); read records [tail, head);
 *             then smp_store_release(&meta->tail, new_tail)
 *   producer: tail = smp_load_acquire(&meta->tail) before reusing a slot.
 * head and tail count records since the ring was created and never wrap; the
 * slot of record n is n & (nr_records - 1).
 *
 * The kernel keeps its own copy of head: a reader that writes anything but
 * tail only confuses itself.
 */
#define VMT_RING_OVERWRITE	0x1	/* flight recorder: oldest records are overwritten */

struct vmt_ring_meta {
	__u32 meta_size;	/* sizeof(struct vmt_ring_meta), for growth */
	__u32 abi_version;	/* VMT_ABI_VERSION */
	__u32 record_size;	/* VMT_RECORD_SIZE */
	__u32 nr_records;	/* a power of two */
	__u32 cpu;
	__u32 flags;		/* VMT_RING_* */
	__u32 records_offset;	/* bytes from this struct to record 0: one page */
	__u32 reserved0;
	__u64 head;		/* written by the kernel: records produced, LOST records included */
	__u64 tail;		/* written by the reader: records consumed */
	__u64 lost;		/* records dropped because the ring was full */
	__u64 written;		/* records accepted, LOST records excluded */
	__u64 reserved[8];
};

/* ---- ioctl ------------------------------------------------------------ */

#define VMT_IOC_MAGIC		0xB7

struct vmt_version {
	__u32 abi_version;	/* out: VMT_ABI_VERSION */
	__u32 record_size;	/* out: VMT_RECORD_SIZE */
	__u32 meta_size;	/* out: sizeof(struct vmt_ring_meta) */
	__u32 nr_cpus;		/* out: possible CPUs, one ring each */
	__u64 reserved[4];
};

#define VMT_IOC_VERSION		_IOR(VMT_IOC_MAGIC, 0x00, struct vmt_version)

/* struct vmt_config.flags */
/*
 * Every user process but the one that starts tracing (every task sharing
 * its address space, that is), new ones as they start; nr_pids must be 0,
 * and FOLLOW is not taken (it is implied).
 */
#define VMT_CONFIG_SYSTEM_WIDE	0x1
#define VMT_CONFIG_OVERWRITE	0x2	/* rings are flight recorders */
/*
 * Protect the targets' present pages at start, so that each access to one
 * faults and is logged (cause VMT_CAUSE_PROTECTION). A faulting page joins
 * the target's enabled set of enabled_pages pages, which stay unprotected;
 * the page it displaces is protected again, its TLB entries flushed, and a
 * VMT_REC_EVICT record written. Stop maps back every page still protected.
 * With SYSTEM_WIDE, every traced address space is protected, up to
 * VMT_MAX_TARGETS (the rest are counted in vmt_status.missed).
 */
#define VMT_CONFIG_PROTECT	0x4
/*
 * Follow the targets' children: a process a target forks (not a thread,
 * which is traced anyway) becomes a target. Whatever the flag, a target
 * that execs stays one, in its new address space.
 */
#define VMT_CONFIG_FOLLOW	0x8
#define VMT_CONFIG_FLAGS	(VMT_CONFIG_SYSTEM_WIDE | VMT_CONFIG_OVERWRITE | \
				 VMT_CONFIG_PROTECT | VMT_CONFIG_FOLLOW)

#define VMT_DEFAULT_RING_RECORDS	65536	/* 4 MiB of records a CPU */
#define VMT_MAX_RING_RECORDS		(1U << 24)
#define VMT_MAX_PIDS			64
/* Processes and address spaces a session traces, children included. */
#define VMT_MAX_TARGETS			1024

/* struct vmt_config.policy: which enabled page to protect again. */
enum vmt_policy {
	VMT_POLICY_FIFO		= 0,	/* the oldest */
	VMT_POLICY_CLOCK	= 1,	/* the oldest not accessed since the hand passed */
};

#define VMT_DEFAULT_ENABLED_PAGES	512	/* 2 MiB with 4 KiB pages */
#define VMT_MAX_ENABLED_PAGES		65536
#define VMT_MAX_REPROTECT_MS		3600000

/*
 * VMT_IOC_CONFIGURE, while tracing is off and no ring is mapped. Replaces the
 * whole configuration; on -EINVAL nothing changes.
 */
struct vmt_config {
	__u32 ring_records;	/* a power of two, 2..VMT_MAX_RING_RECORDS; 0: default */
	__u32 flags;		/* VMT_CONFIG_* */
	__u32 nr_pids;		/* entries at pids_ptr, 1..VMT_MAX_PIDS unless system-wide */
	__u32 reserved0;
	__u64 pids_ptr;		/* user address of __u32 pids[nr_pids] (thread group ids) */
	/*
	 * With VMT_CONFIG_PROTECT: pages each target keeps unprotected,
	 * 0..VMT_MAX_ENABLED_PAGES (0 is allowed: see enabled.c for the pages
	 * an instruction in progress keeps); zero otherwise.
	 */
	__u32 enabled_pages;
	__u32 policy;		/* enum vmt_policy */
	__u32 reprotect_ms;	/* protect every page again this often; 0: never */
	__u32 reserved1;
	__u64 reserved[4];	/* zero */
};

enum vmt_state {
	VMT_STATE_OFF		= 0,
	VMT_STATE_ON		= 1,
};

/* VMT_IOC_STATUS: counters summed over CPUs, since the last start. */
struct vmt_status {
	__u32 state;		/* enum vmt_state */
	__u32 nr_rings;		/* possible CPUs */
	__u64 faults;		/* faults of targets seen by the probes */
	__u64 records;		/* records written to the rings */
	__u64 lost;		/* records dropped because a ring was full */
	__u64 protected;	/* PTEs protected at start */
	__u64 restored;		/* protnone PTEs and huge PMDs mapped back at stop */
	__u64 skipped_vmas;	/* hugetlb, VM_IO, VM_PFNMAP, VM_MIXEDMAP: not protected */
	__u64 huge_pmds;	/* transparent huge pages protected at start (PMDs) */
	__u64 evictions;	/* pages protected again on leaving an enabled set */
	__u64 overflows;	/* faulting pages an enabled set had no room for */
	__u64 deferred;		/* evictions put off to a thread's next fault */
	__u64 reprotections;	/* PTEs and huge PMDs protected again by the sweeps */
	__u64 missed;		/* children or address spaces past VMT_MAX_TARGETS: not traced */
	__u64 reserved[3];
};

/*
 * VMT_IOC_GEOMETRY: where the rings are in the device's mmap space. Ring c's
 * control page is at offset c * ring_stride, writable (the reader's tail);
 * its records follow at + records_offset, read-only. Map them adjacently to
 * see the layout struct vmt_ring_meta describes.
 */
struct vmt_geometry {
	__u32 nr_rings;
	__u32 ring_records;
	__u32 records_offset;	/* one page */
	__u32 reserved0;
	__u64 ring_stride;	/* bytes, a multiple of the page size */
	__u64 reserved[4];
};

#define VMT_IOC_CONFIGURE	_IOW(VMT_IOC_MAGIC, 0x01, struct vmt_config)
#define VMT_IOC_START		_IO(VMT_IOC_MAGIC, 0x02)
#define VMT_IOC_STOP		_IO(VMT_IOC_MAGIC, 0x03)
#define VMT_IOC_STATUS		_IOR(VMT_IOC_MAGIC, 0x04, struct vmt_status)
#define VMT_IOC_GEOMETRY	_IOR(VMT_IOC_MAGIC, 0x05, struct vmt_geometry)

/* ---- BPF maps ----------------------------------------------------------- */

/* bpf/faults.bpf.c: user page faults of one process, by kind (value of its map). */
struct vmt_bpf_fault_count {
	__u64 faults;		/* every exceptions:page_fault_user event */
	__u64 writes;		/* error code: write access */
	__u64 instruction;	/* error code: instruction fetch */
	__u64 not_present;	/* error code: the page was not present */
	__u64 reserved[4];
};

#endif /* _UAPI_LINUX_VMTRACE_H */
