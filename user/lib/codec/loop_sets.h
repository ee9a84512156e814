/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Loop sets (loop_sets.c), ScalaMemTrace's extended PRSDs: threads whose
 * loop descriptors (loop_codec.h) are the same bytes but for where each
 * instruction's addresses start and on which CPU it ran are kept as one
 * descriptor stream, the template (rank 0), and a set: for each
 * instruction a base that moves by a fixed step a rank, and for each other
 * thread (ranks 1, 2, ...) its stream, its CPUs and the instructions whose
 * base leaves that line. The bytes are docs/FORMAT.md's "Loop sets".
 * Internal to libvmtrace: the loop writer makes sets, the loop reader
 * replays a member through its template (vmt_loop_decoder_rebase()).
 */
#ifndef VMTRACE_INTERNAL_LOOP_SETS_H
#define VMTRACE_INTERNAL_LOOP_SETS_H

#include <stddef.h>
#include <stdint.h>

/* Where an instruction's addresses start in a thread, and its CPU. */
struct vmt_loop_key_base {
	uint64_t addr;
	uint16_t cpu;
};

/*
 * The canonical form of the descriptors @in (@n bytes): the same bytes with
 * each new instruction's CPU and first address 0, into @canon (room for @n
 * bytes; *@canon_n set), and those instructions' bases in *@keys (free()
 * it; *@nr_keys of them, in instruction order). Two threads whose
 * canonical forms are equal replay the same accesses but for those bases.
 * 0, -EBADMSG (bytes that are no descriptors) or -ENOMEM.
 */
int vmt_loop_canon(const uint8_t *in, size_t n, uint8_t *canon, size_t *canon_n,
		   struct vmt_loop_key_base **keys, uint32_t *nr_keys);

/* One thread of a set, as the writer gives it: ranks[0] is the template. */
struct vmt_loop_set_rank {
	uint32_t stream_id;			/* its loop stream */
	const struct vmt_loop_key_base *keys;	/* its bases, nr_keys of them */
};

/* The set of @nr_ranks (2 or more) threads into *@out (free() it): 0 or -ENOMEM. */
int vmt_loop_set_encode(const struct vmt_loop_set_rank *ranks, uint32_t nr_ranks,
			uint32_t nr_keys, uint8_t **out, size_t *out_n);

/* A member of a set (rank 1 or more), as a reader replays it. */
struct vmt_loop_set_member {
	uint32_t template_stream;	/* the loop stream of rank 0 */
	uint32_t rank, nr_ranks;
	uint32_t nr_keys;
	uint64_t *shift;		/* nr_keys: what each instruction's addresses move by */
	uint16_t *cpu;			/* nr_keys: each instruction's CPU */
};

/*
 * Is the thread of loop stream @stream_id a member of the set @in (@n
 * bytes)? 1 with *@m (free with vmt_loop_set_member_free()), 0 when not,
 * -EBADMSG with the reason in @msg, or -ENOMEM. The whole set is checked,
 * whoever is asked for.
 */
int vmt_loop_set_find(const uint8_t *in, size_t n, uint32_t stream_id,
		      struct vmt_loop_set_member *m, char *msg, size_t msg_size);
void vmt_loop_set_member_free(struct vmt_loop_set_member *m);

#endif /* VMTRACE_INTERNAL_LOOP_SETS_H */
