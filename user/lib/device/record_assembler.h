/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Reassembling records with data (record_assembler.c). In a ring, a record
 * with data (a path, a name, a marker's text) is followed on its CPU by the
 * VMT_REC_DATA records that carry the bytes (include/uapi/linux/vmtrace.h).
 * The assembler holds such a record, one per CPU, until its bytes are in or
 * another record on its CPU shows that no more will come, then hands it on
 * with them. The trace writer's record layer and `vmtrace dump-raw` share it.
 *
 * What becomes of the records that are no part of an assembly (no data, a
 * DATA record nothing waits for, a claim past VMT_MAX_DATA_LEN) is the
 * caller's: vmt_record_assembler_add() says which they are. Internal to
 * libvmtrace and its commands; not the trace file's data stream
 * (vmt_trace_record_data() reads that).
 */
#ifndef VMTRACE_INTERNAL_RECORD_ASSEMBLER_H
#define VMTRACE_INTERNAL_RECORD_ASSEMBLER_H

#include <stdbool.h>
#include <stdint.h>
#include <linux/vmtrace.h>

/* vmt_record_assembler_add()'s verdict on a record, when it is no error. */
enum vmt_record_assembly {
	VMT_ASSEMBLY_TAKEN = 0,	/* held, or it completed a record handed on */
	VMT_ASSEMBLY_NO_DATA,	/* a record without data: the caller's, as it is */
	VMT_ASSEMBLY_ORPHAN,	/* a DATA record no record on its CPU waits for */
	VMT_ASSEMBLY_TOO_LONG,	/* claims more than VMT_MAX_DATA_LEN bytes */
};

/*
 * Gets each record whose data is in, or is all there will be: its data_len
 * is the bytes at @data, fewer than it claimed when @cut. A nonzero return
 * is returned by the call that handed the record on.
 */
typedef int (*vmt_record_assembled_fn)(void *ctx, const struct vmt_record *record,
				       const uint8_t *data, bool cut);

struct vmt_record_assembly_slot;

struct vmt_record_assembler {
	vmt_record_assembled_fn assembled;
	void *ctx;
	struct vmt_record_assembly_slot **by_cpu;	/* made by a CPU's first record with data */
	uint32_t nr_cpus;
};

void vmt_record_assembler_init(struct vmt_record_assembler *a, vmt_record_assembled_fn assembled,
			       void *ctx);
/* A ring's next record: an enum vmt_record_assembly, or -errno (-ENOMEM, the callback's). */
int vmt_record_assembler_add(struct vmt_record_assembler *a, const struct vmt_record *record);
/* Hands on every record still waiting, in CPU order; stops at the first error. */
int vmt_record_assembler_flush(struct vmt_record_assembler *a);
void vmt_record_assembler_free(struct vmt_record_assembler *a);

#endif /* VMTRACE_INTERNAL_RECORD_ASSEMBLER_H */
