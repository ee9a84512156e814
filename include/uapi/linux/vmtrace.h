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
	VMT_REC_DATA		= 5,	/* variable-size data of the record before it */
	VMT_REC_SWITCH		= 6,	/* a context switch */
	VMT_REC_FORK		= 7,	/* a task created a process or a thread */
	VMT_REC_EXEC		= 8,	/* a task exec'd a program */
	VMT_REC_EXIT		= 9,	/* a task exited */
	VMT_REC_COMM		= 10,	/* a task changed its name */
	VMT_REC_VMA		= 11,	/* an address-space change, or a mapping present */
	VMT_REC_TASK		= 12,	/* a task present when tracing started */
	VMT_REC_DMA		= 13,	/* a DMA mapping made or removed */
	VMT_REC_PAGEMAP		= 14,	/* a virtual page's frame, logged or gone */
	VMT_REC_EXACT		= 15,	/* one access to an exact range (exact mode) */
	VMT_REC_TYPES		= 16,	/* one more than the highest type */
};

/* Common to all records: 24 bytes. */
struct vmt_record_header {
	__u64 time_ns;		/* ktime_get_mono_fast_ns(): ordered across CPUs */
	__u32 pid;		/* thread group id, in the initial pid namespace */
	__u32 tid;
	__u16 type;		/* enum vmt_record_type */
	__u16 cpu;
	__u32 data_len;		/* bytes of variable-size data: see VMT_REC_DATA */
};

/*
 * Variable-size data (paths, names, marker texts). A record that carries
 * some says how many bytes in hdr.data_len, at most VMT_MAX_DATA_LEN, and
 * its payload's last field, data_off, is where they are:
 *
 * - in a ring, data_off is 0 and the bytes follow the record in
 *   DIV_ROUND_UP(data_len, VMT_DATA_CHUNK) VMT_REC_DATA records of the same
 *   CPU, written with it or dropped with it, never apart. A DATA record's
 *   hdr.data_len is the bytes of its own chunk; its time, pid and tid are
 *   those of the record it belongs to.
 * - in a trace file, the collector moves the bytes to the trace's data
 *   stream and sets data_off to their offset there; no DATA record remains.
 *
 * The bytes are not NUL-terminated. Nothing is cut silently: a datum that
 * does not fit is left out (data_len 0), the record flagged and counted.
 */
#define VMT_DATA_CHUNK		40
#define VMT_MAX_DATA_LEN	4096

/* VMT_REC_LOST: the producer dropped @count records since the previous one. */
struct vmt_lost {
	__u64 count;
	__u64 reserved[4];
};

/* Access type bits of struct vmt_reference.access. */
#define VMT_ACCESS_READ		0x1
#define VMT_ACCESS_WRITE	0x2
#define VMT_ACCESS_EXEC		0x4
/* VMT_REC_EXACT only: a read-modify-write (locked or not) of one operand. */
#define VMT_ACCESS_RMW		(VMT_ACCESS_READ | VMT_ACCESS_WRITE)

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

/* VMT_REC_DATA: one chunk of the variable-size data of the record before it. */
struct vmt_data {
	__u8 bytes[VMT_DATA_CHUNK];
};

/*
 * VMT_REC_SWITCH: hdr.pid and hdr.tid are the task switched out (0 for
 * the idle task), hdr.cpu the CPU.
 */
struct vmt_switch {
	__u32 next_pid;		/* thread group id of the task switched in */
	__u32 next_tid;
	__u32 prev_state;	/* 0: runnable (preempted or yielded); else TASK_* bits */
	__u32 preempt;		/* 1: the previous task was preempted */
	__u64 reserved[3];
};

/* VMT_REC_FORK: hdr.pid and hdr.tid are the parent thread. */
struct vmt_fork {
	__u32 child_pid;	/* the child's thread group id: hdr.pid for a thread */
	__u32 child_tid;
	__u64 clone_flags;	/* CLONE_* */
	__u64 reserved[3];
};

/* VMT_REC_EXEC: data is the file name execve() was given. */
struct vmt_exec {
	__u32 old_tid;		/* the exec'ing thread's id before exec made it the leader */
	__u32 flags;		/* VMT_DATA_DROPPED when the name did not fit */
	__u64 reserved[3];
	__u64 data_off;
};

/* VMT_REC_EXIT: a thread exited; the last one ends its process. */
struct vmt_exit {
	__u32 exit_code;	/* as wait() reports it: status << 8, or the signal */
	__u32 group_dead;	/* 1: it was the process's last thread */
	__u64 reserved[4];
};

/* VMT_REC_COMM and VMT_REC_TASK: a task's name (comm), NUL-padded. */
#define VMT_COMM_LEN		16

/* VMT_REC_COMM: the task's new name (prctl(PR_SET_NAME), exec). */
struct vmt_comm {
	char comm[VMT_COMM_LEN];
	__u64 reserved[3];
};

/*
 * VMT_REC_TASK: a task that existed when tracing started (the state dump),
 * one record a thread; data is the process's executable's path.
 */
struct vmt_task {
	char comm[VMT_COMM_LEN];
	__u32 ppid;		/* parent's thread group id */
	__u32 flags;		/* VMT_DATA_DROPPED */
	__u64 reserved;
	__u64 data_off;
};

/* Set in a record's flags when its variable-size data did not fit. */
#define VMT_DATA_DROPPED	0x80000000u

/* struct vmt_vma.op */
enum vmt_vma_op {
	/*
	 * [start, end) is unmapped now: the range a system call changed.
	 * VMT_VMA_MAP records for every mapping it now overlaps follow.
	 */
	VMT_VMA_UNMAP		= 0,
	VMT_VMA_MAP		= 1,	/* [start, end) is this mapping (a whole VMA) */
};

/* struct vmt_vma.cause: what the record follows */
enum vmt_vma_cause {
	VMT_VMA_DUMP		= 0,	/* the state dump at start */
	VMT_VMA_EXEC		= 1,	/* exec: the new address space, whole */
	VMT_VMA_MMAP		= 2,	/* the system calls, once they succeeded */
	VMT_VMA_MUNMAP		= 3,
	VMT_VMA_MREMAP		= 4,
	VMT_VMA_MPROTECT	= 5,
	VMT_VMA_BRK		= 6,
};

/* struct vmt_vma.prot */
#define VMT_PROT_READ		0x1
#define VMT_PROT_WRITE		0x2
#define VMT_PROT_EXEC		0x4
#define VMT_PROT_SHARED		0x8

/* struct vmt_vma.kind: what the mapping holds, as /proc/PID/maps names it */
enum vmt_vma_kind {
	VMT_VMA_ANON		= 0,	/* anonymous memory */
	VMT_VMA_FILE		= 1,	/* a file: data is its path */
	VMT_VMA_HEAP		= 2,	/* [heap]: the brk area */
	VMT_VMA_STACK		= 3,	/* [stack]: the main thread's */
	VMT_VMA_SPECIAL		= 4,	/* [vdso], [vvar]...: data is the name */
};

/*
 * VMT_REC_VMA: one change of a traced process's address space (hdr.pid).
 * A system call that succeeded gives one UNMAP record per range it changed
 * (mremap: the old and the new) and then one MAP record per mapping that
 * overlaps them now; exec and the state dump give the MAP records of the
 * whole address space. Replaying them in order gives the process's map at
 * any point of the trace; a fork starts from the parent's.
 */
struct vmt_vma {
	__u64 start;
	__u64 end;
	__u64 offset;		/* MAP of a file: the file offset of start, in bytes */
	__u8 op;		/* enum vmt_vma_op */
	__u8 cause;		/* enum vmt_vma_cause */
	__u8 prot;		/* MAP: VMT_PROT_* */
	__u8 kind;		/* MAP: enum vmt_vma_kind */
	__u32 flags;		/* VMT_DATA_DROPPED */
	__u64 data_off;		/* MAP of a file or special mapping: its path or name */
};

/* struct vmt_dma.op */
enum vmt_dma_op {
	VMT_DMA_MAP_PAGE	= 0,	/* dma_map_page_attrs() */
	VMT_DMA_UNMAP_PAGE	= 1,
	VMT_DMA_MAP_SG		= 2,	/* one record per mapped segment */
	VMT_DMA_UNMAP_SG	= 3,	/* one record per segment */
	VMT_DMA_ALLOC		= 4,	/* dma_alloc_attrs(): coherent memory */
	VMT_DMA_FREE		= 5,
};

/*
 * VMT_REC_DMA: hdr.pid, hdr.tid and hdr.cpu are the task and CPU that
 * issued the call (in_task 0: an interrupt did, on that task's time); data
 * is the device's name.
 */
struct vmt_dma {
	__u64 dma_addr;
	__u64 phys_addr;	/* 0 where the kernel does not say (unmap, free) */
	__u32 size;		/* bytes */
	__u8 op;		/* enum vmt_dma_op */
	__u8 dir;		/* enum dma_data_direction: 0 bidirectional, 1 to device, 2 from */
	__u8 in_task;
	__u8 reserved0;
	__u16 index;		/* SG: this segment's index */
	__u16 count;		/* SG: the call's segments */
	__u32 flags;		/* VMT_DATA_DROPPED */
	__u64 data_off;
};

/* struct vmt_pagemap.op */
enum vmt_pagemap_op {
	/*
	 * The tracer logged this (page, frame) pair for the first time: a
	 * reference or an eviction record carries it.
	 */
	VMT_PAGEMAP_MAP		= 0,
	/*
	 * The kernel is unmapping the page (munmap, MADV_DONTNEED, reclaim,
	 * migration, exit...): the pair no longer holds. A migrated page is
	 * logged again with its new frame when it is next referenced.
	 */
	VMT_PAGEMAP_UNMAP	= 1,
};

/*
 * VMT_REC_PAGEMAP: a traced process's (hdr.pid) virtual page and the
 * physical frame behind it, HMTT's page-table records. A MAP record's tid
 * is the thread whose access was logged; an UNMAP record's is the thread
 * unmapping the page when it belongs to the process, else 0 (kswapd,
 * kcompactd...). Each traced address space remembers VMT_PAGEMAP_PAIRS
 * pairs: one pushed out by others may be logged again (never lost).
 */
#define VMT_PAGEMAP_PAIRS	4096

struct vmt_pagemap {
	__u64 vaddr;		/* the page's address (a THP's first page) */
	__u64 pfn;		/* its frame (a THP's first frame) */
	__u8 op;		/* enum vmt_pagemap_op */
	__u8 huge;		/* 1: a transparent huge page, mapped by one PMD */
	__u16 reserved0;
	__u32 notify_event;	/* UNMAP: the kernel's enum mmu_notifier_event */
	__u64 reserved[2];
};

/*
 * VMT_REC_MARKER: a marker a process wrote (VMT_IOC_MARKER or write());
 * data is its text.
 */
struct vmt_marker {
	__u32 id;
	__u32 reserved0;
	__u64 reserved[3];
	__u64 data_off;
};

/*
 * VMT_REC_EXACT: one access of one instruction to an exact range, logged
 * once the instruction has run (exact mode: the page is present for that
 * instruction alone, which runs single-stepped). @value is what the access
 * read or wrote, as the bytes in memory were after it (a load leaves them
 * as they were; a read-modify-write's is the value written), for sizes up
 * to 16; a wider access (AVX) has its value as the record's data instead.
 * A string instruction (rep movs...) gives a record per iteration and
 * operand; an access across a page end, one for each page's part
 * (VMT_EXACT_SPLIT). An instruction the module cannot decode is logged with
 * @size 0: the faulting address, and the access the fault's error code
 * says.
 */
struct vmt_exact {
	__u64 addr;		/* the access's first byte */
	__u64 ip;		/* the instruction; 0 for a kernel-mode access */
	__u16 size;		/* bytes accessed; 0: not decoded */
	__u8 access;		/* VMT_ACCESS_READ, _WRITE, _RMW or _EXEC */
	__u8 kernel_mode;	/* 1: the kernel's access (a system call's copy) */
	__u8 flags;		/* VMT_EXACT_* */
	__u8 reserved[3];
	/*
	 * Little-endian, zero past @size. Last, as a record with data keeps
	 * its data_off in the payload's last 8 bytes (VMT_DATA_OFF_WORD):
	 * those of a wide access's @value, which is in the data instead.
	 */
	__u8 value[16];
};

#define VMT_EXACT_STRING	0x1	/* an iteration of a string instruction */
#define VMT_EXACT_SPLIT		0x2	/* one page's part of an access across a page end */
#define VMT_EXACT_STACK		0x4	/* an implicit stack access (push, pop, call, ret) */
/*
 * Not a program's access but a simulated cache hierarchy's traffic to
 * memory (vmtrace cachesim --emit, the "bus view": docs/analysis/cachesim.md),
 * a line a record, @addr its first byte and @size its bytes, @value zero;
 * the header's pid, tid, cpu and time and @ip are the program's access
 * that caused it:
 * - VMT_EXACT_BUS_FILL: a demand miss of the last level read the line
 *   (VMT_ACCESS_READ);
 * - VMT_EXACT_BUS_WRITEBACK: a line written to memory (VMT_ACCESS_WRITE):
 *   a dirty line the last level evicted or gave up, or, at a write-through
 *   last level, a write going on outward;
 * - VMT_EXACT_BUS_PREFETCH: the last level's prefetcher read the line
 *   (VMT_ACCESS_READ).
 */
#define VMT_EXACT_BUS_FILL	0x8
#define VMT_EXACT_BUS_WRITEBACK	0x10
#define VMT_EXACT_BUS_PREFETCH	0x20

struct vmt_record {
	struct vmt_record_header hdr;
	union {
		struct vmt_lost lost;
		struct vmt_reference ref;
		struct vmt_data data;
		struct vmt_switch sw;
		struct vmt_fork fork;
		struct vmt_exec exec;
		struct vmt_exit exit;
		struct vmt_comm comm;
		struct vmt_task task;
		struct vmt_vma vma;
		struct vmt_dma dma;
		struct vmt_marker marker;
		struct vmt_pagemap pagemap;
		struct vmt_exact exact;
		__u64 raw[5];
	};
};

/* Where a record's data_off is: its payload's last 8 bytes. */
#define VMT_DATA_OFF_WORD	4

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
 * VMT_MAX_TARGETS at once: the room of one whose process exited is taken
 * again (the rest are counted in vmt_status.missed).
 */
#define VMT_CONFIG_PROTECT	0x4
/*
 * Follow the targets' children: a process a target forks (not a thread,
 * which is traced anyway) becomes a target, up to VMT_MAX_TARGETS
 * processes at once (one that exits makes room). Whatever the flag, a
 * target that execs stays one, in its new address space.
 */
#define VMT_CONFIG_FOLLOW	0x8
#define VMT_CONFIG_FLAGS	(VMT_CONFIG_SYSTEM_WIDE | VMT_CONFIG_OVERWRITE | \
				 VMT_CONFIG_PROTECT | VMT_CONFIG_FOLLOW)

/*
 * struct vmt_config.events: the introspection events written beside the
 * references. With TASK and VMA, start also dumps the targets' tasks and
 * mappings (every process's, system-wide).
 */
#define VMT_EVENT_SWITCH	0x1	/* context switches into or out of a target */
#define VMT_EVENT_SWITCH_ALL	0x2	/* every context switch on every CPU */
#define VMT_EVENT_TASK		0x4	/* targets' fork, exec, exit, comm changes */
#define VMT_EVENT_VMA		0x8	/* targets' mmap, munmap, mremap, mprotect, brk */
#define VMT_EVENT_DMA		0x10	/* every DMA mapping, whoever makes it */
#define VMT_EVENT_MARKER	0x20	/* markers written to the device */
/* Virtual-to-physical page records; needs VMT_CONFIG_PROTECT. */
#define VMT_EVENT_PAGEMAP	0x40
#define VMT_EVENTS		(VMT_EVENT_SWITCH | VMT_EVENT_SWITCH_ALL | VMT_EVENT_TASK | \
				 VMT_EVENT_VMA | VMT_EVENT_DMA | VMT_EVENT_MARKER | \
				 VMT_EVENT_PAGEMAP)

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
	__u32 events;		/* VMT_EVENT_*: introspection events to write */
	__u64 reserved[4];	/* zero */
};

/*
 * A trace file's session settings: what the collector configured (struct
 * vmt_config) when tracing started, written once as the one entry of the
 * trace's opaque stream "session" (docs/FORMAT.md). A trace converted from
 * raw records, or written before this stream existed, has none. Readers
 * take the first @size bytes and treat the rest as zero.
 */
#define VMT_SESSION_TARGETS_COMMAND	0x1	/* a command vmtrace started */

struct vmt_trace_session {
	__u32 size;		/* sizeof(struct vmt_trace_session), for growth */
	__u32 flags;		/* VMT_CONFIG_* as configured */
	__u32 enabled_pages;	/* VMT_CONFIG_PROTECT: the enabled set's pages (N) */
	__u32 policy;		/* VMT_CONFIG_PROTECT: enum vmt_policy */
	__u32 events;		/* VMT_EVENT_* */
	__u32 ring_records;	/* as configured; 0: the default */
	__u32 reprotect_ms;
	__u32 nr_pids;		/* the -p PIDs, or 1 for a command; 0 system-wide */
	__u64 start_time_ns;	/* CLOCK_MONOTONIC when tracing started (records' clock) */
	__u32 session_flags;	/* VMT_SESSION_* */
	__u32 reserved0;
	/*
	 * CLOCK_REALTIME less CLOCK_MONOTONIC when tracing started: a record's
	 * time plus it is nanoseconds since the Unix epoch (what LTTng calls
	 * the clock's offset). 0: not measured (older traces).
	 */
	__s64 realtime_offset_ns;
	__u64 reserved[5];	/* zero */
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
	__u64 reprotections;	/* PTEs and huge PMDs protected again: sweeps, after mprotect */
	__u64 missed;		/* processes or address spaces past VMT_MAX_TARGETS at once */
	__u64 data_dropped;	/* variable-size data left out (VMT_DATA_DROPPED) */
	/*
	 * Introspection events that could not be written whole: mappings a
	 * system call or an exec left that could not be looked up (another
	 * task held the address space's lock, and no slot was free to look
	 * again before the thread's return to user space), DMA calls a
	 * kretprobe missed.
	 */
	__u64 events_missed;
	__u64 reserved[1];
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

/*
 * VMT_IOC_MARKER: write a VMT_REC_MARKER record to the calling CPU's ring,
 * in order with the caller's references. -EINVAL for a text longer than
 * VMT_MAX_MARKER_LEN or nonzero reserved fields; -ENODATA when tracing is
 * off or markers are not enabled; -ENOSPC when the ring was full (the
 * marker is counted lost). write() on the device does the same with a
 * buffer holding the id (4 bytes, native byte order) and then the text.
 */
#define VMT_MAX_MARKER_LEN	256

struct vmt_marker_arg {
	__u32 id;
	__u32 len;		/* bytes at text_ptr, 0..VMT_MAX_MARKER_LEN */
	__u64 text_ptr;		/* user address of the text (no NUL needed) */
	__u64 reserved[2];
};

#define VMT_IOC_MARKER		_IOW(VMT_IOC_MAGIC, 0x06, struct vmt_marker_arg)

/*
 * VMT_IOC_EXACT: exact mode's ranges and counters. With page protection
 * (VMT_CONFIG_PROTECT) on, every load and store of a traced process to a
 * byte range added here is logged, with its size and value
 * (VMT_REC_EXACT); its pages are never in the enabled set. A range covers
 * whatever is mapped in it, pages mapped later included. Ranges may be
 * added and removed before start and while tracing; start keeps them, and
 * the module's unload forgets them.
 *
 * The accesses of other threads of the process to a page while it is
 * present for one thread's step would not be seen: the process's threads
 * must run on one CPU (vmtrace record --exact pins them: steps of threads
 * allowed on more CPUs are counted in @unpinned), and a thread switched out
 * in the middle of its step has the page protected again first (if the
 * page table's lock is held then, before another thread of the process
 * runs user code; a switch to one that finds the lock held for long counts
 * in @unsafe_switches).
 *
 * A range may also be given by a mapping's name, as /proc/PID/maps names
 * it (a file's path, "[heap]", "[stack]", "[vdso]"), or as the anonymous
 * mapping holding an address (the name is then that address in hex):
 * every mapping of the process so named, when tracing starts and whenever
 * one is mapped, moved or grown (exec, mmap, mremap, brk), becomes a range
 * of its own, before the process runs on; when it is unmapped, moved away
 * or replaced (munmap, mremap, mmap over it, exec, the process's exit), its
 * range goes. The stack's range reaches 8 MiB below its top, for its
 * growth. The name VMT_EXACT_ALL ("all") matches every mapping the module
 * can trace: code, data, heap, stack, anonymous, files, [vdso]; not
 * [vvar], nor I/O or PFN mappings, hugetlb, memfd_secret()'s memory, or
 * PROT_NONE reservations. Names
 * need the VMA events (VMT_EVENT_VMA), which tell the module of those
 * changes.
 *
 * The pages the ranges span together are capped (@max_pages): a range
 * added past the cap is cut at its end to what fits, and the pages cut
 * off are counted in @left_out.
 *
 * @op:		VMT_EXACT_ADD, VMT_EXACT_REMOVE (a range added before, the
 *		same @pid, @start and @end), VMT_EXACT_CLEAR (every range),
 *		VMT_EXACT_CAP (@max_pages, at least 1, is the cap from now on),
 *		VMT_EXACT_ADD_NAME or VMT_EXACT_REMOVE_NAME (by @name_ptr and
 *		@name_len; a name removed takes the ranges it made with it) or
 *		VMT_EXACT_COUNTS (fills in the counters only). VMT_EXACT_REMOVE
 *		leaves the ranges names made alone. Start drops the ranges names
 *		made, and makes them anew from the targets' mappings.
 * @pid:	the process (thread group id) whose accesses are exact; 0:
 *		every traced process
 * @start:	the range's first byte
 * @end:	one past its last byte
 * @name_ptr:	the mapping's name (not NUL-terminated), for the _NAME ops
 * @name_len:	its length, 1 to VMT_EXACT_NAME_MAX
 *
 * -EINVAL for an unknown @op, an empty range, nonzero reserved fields, a
 * range or name to remove that was not added, a name too long or a cap of
 * 0; -ENOSPC with VMT_EXACT_RANGES names set already, with the module's
 * table of ranges full (1024 ranges; a module before "all" held
 * VMT_EXACT_RANGES), or no page left under the cap. A mapping a name matches
 * that finds the table full is counted in @left_out (its pages).
 */
#define VMT_EXACT_ADD		1
#define VMT_EXACT_REMOVE	2
#define VMT_EXACT_CLEAR		3
#define VMT_EXACT_COUNTS	4
#define VMT_EXACT_CAP		5
#define VMT_EXACT_ADD_NAME	6
#define VMT_EXACT_REMOVE_NAME	7
/* Names the module holds; a command line's --exact options (not ranges: see above). */
#define VMT_EXACT_RANGES	16
#define VMT_EXACT_NAME_MAX	256
#define VMT_EXACT_ALL		"all"	/* the name of every mapping */
/*
 * In @features: what the module knows. A module before "all" leaves the
 * field (then reserved) as given, 0, and takes "all" for a file's path,
 * which no mapping has: a program that names "all" checks this first.
 */
#define VMT_EXACT_FEATURE_ALL	(1U << 0)
#define VMT_EXACT_DEFAULT_MAX_PAGES	65536	/* 256 MiB of 4 KiB pages */

struct vmt_exact_arg {
	__u32 op;
	__u32 pid;
	__u64 start;
	__u64 end;
	__u64 name_ptr;
	__u32 name_len;
	__u32 nr_names;		/* filled in: names set */
	/* Filled in by every op: the counters since the last start. */
	__u64 accesses;		/* VMT_REC_EXACT records written */
	__u64 steps;		/* instructions single-stepped */
	__u64 undecoded;	/* accesses of instructions not decoded (size 0) */
	__u64 cancelled;	/* steps a signal cancelled before the instruction ran */
	__u64 kernel;		/* kernel-mode accesses logged */
	__u64 unsafe_switches;	/* see above */
	__u64 missed;		/* faults with no step slot, or no room in it: not logged */
	__u64 unpinned;		/* steps of threads allowed on more than one CPU */
	__u32 nr_ranges;	/* ranges set */
	__u32 features;		/* filled in: VMT_EXACT_FEATURE_*; 0 before "all" */
	__u64 max_pages;	/* VMT_EXACT_CAP: the cap to set; filled in: the cap */
	__u64 left_out;		/* pages cut off ranges by the cap, since load */
	__u64 reserved[4];
};

#define VMT_IOC_EXACT		_IOWR(VMT_IOC_MAGIC, 0x07, struct vmt_exact_arg)

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
