/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Loop compression of one thread's exact accesses (loop_codec.c), after
 * ScalaMemTrace's RSDs and PRSDs: an encoder that folds the accesses, in
 * program order, into loops online within a bounded window and writes the
 * descriptors as bytes, and a decoder that replays those bytes into the
 * same accesses, one at a time. The byte layout is docs/FORMAT.md's
 * "Loop descriptors". Internal to libvmtrace; the trace layer keeps one
 * encoder a thread (trace/loop_streams.c).
 */
#ifndef VMTRACE_INTERNAL_LOOP_CODEC_H
#define VMTRACE_INTERNAL_LOOP_CODEC_H

#include <stddef.h>
#include <stdint.h>

/*
 * One access, as a loop descriptor keeps it: everything of an exact record
 * but its thread (one encoder a thread), its time and its value. Two
 * accesses of the same instruction (ip, access, size, flags, kernel_mode
 * and cpu equal) differ in addr alone; a loop is found over those.
 */
struct vmt_loop_access {
	uint64_t addr;
	uint64_t ip;
	uint16_t size;
	uint16_t cpu;
	uint8_t access;
	uint8_t kernel_mode;
	uint8_t flags;
};

/* The default window S, in top-level elements (see loop_codec.c's top). */
#define VMT_LOOP_WINDOW_DEFAULT	256u
#define VMT_LOOP_WINDOW_MAX	65536u
/* An element a decoder accepts: at most this many leaves and loops, this deep. */
#define VMT_LOOP_MAX_NODES	(1u << 20)
#define VMT_LOOP_MAX_DEPTH	64u

/* Where an encoder's bytes go: 0 or -errno (which the encoder returns). */
typedef int (*vmt_loop_sink_fn)(void *arg, const uint8_t *bytes, size_t n);

struct vmt_loop_encoder;

struct vmt_loop_encoder_stats {
	uint64_t accesses;	/* added */
	uint64_t elements;	/* top-level elements written */
	uint64_t literals;	/* of them, single accesses (no loop) */
	uint64_t loops;		/* loop descriptors written, nested ones included */
	uint64_t keys;		/* distinct instructions */
	uint64_t bytes;		/* given to the sink */
};

/*
 * An encoder with a window of @window top-level elements (0: the default;
 * 1 finds no loop: every access is a literal), writing through @sink.
 * 0, -EINVAL (window past VMT_LOOP_WINDOW_MAX) or -ENOMEM.
 */
int vmt_loop_encoder_create(struct vmt_loop_encoder **encoder, uint32_t window,
			    vmt_loop_sink_fn sink, void *arg);
/* The next access in program order: 0 or -errno (-ENOMEM, or the sink's). */
int vmt_loop_encoder_add(struct vmt_loop_encoder *encoder, const struct vmt_loop_access *access);
/* Write every element still in the window, and the bytes held: 0 or -errno. */
int vmt_loop_encoder_finish(struct vmt_loop_encoder *encoder);
void vmt_loop_encoder_stats(const struct vmt_loop_encoder *encoder,
			    struct vmt_loop_encoder_stats *stats);
void vmt_loop_encoder_free(struct vmt_loop_encoder *encoder);

/*
 * Where a decoder's bytes come from: up to @max bytes into @buf; the count,
 * 0 at the end, or -errno.
 */
typedef int (*vmt_loop_source_fn)(void *arg, uint8_t *buf, size_t max);

struct vmt_loop_decoder;

/*
 * One top-level element as the decoder holds it, for a loop view
 * (vmtrace loops --show): @ops in execution order, each a leaf (an access
 * whose first address is its base) or a loop's begin or end.
 */
enum vmt_loop_op_type { VMT_LOOP_OP_LEAF, VMT_LOOP_OP_BEGIN, VMT_LOOP_OP_END };

struct vmt_loop_op {
	uint32_t type;		/* enum vmt_loop_op_type */
	uint32_t index;		/* into leaves or loops */
};

struct vmt_loop_leaf {
	struct vmt_loop_access access;	/* access.addr: the base, its first address */
	uint64_t cur;			/* the decoder's own */
};

struct vmt_loop_loop {
	uint64_t count;		/* iterations, 2 or more */
	uint64_t iter;		/* the decoder's own */
	uint32_t leaf_lo, leaf_hi;	/* the leaves of its body: [leaf_lo, leaf_hi) */
	uint32_t begin_op;	/* its VMT_LOOP_OP_BEGIN */
	uint32_t depth;		/* 0: outermost */
	uint64_t *stride;	/* per leaf of its body, leaf_lo first: added each iteration */
	uint64_t accesses;	/* accesses it replays, all iterations (saturated) */
};

struct vmt_loop_element {
	const struct vmt_loop_op *ops;
	uint32_t nr_ops;
	const struct vmt_loop_leaf *leaves;
	uint32_t nr_leaves;
	const struct vmt_loop_loop *loops;
	uint32_t nr_loops;
	uint64_t accesses;	/* the element's, all loops replayed (saturated) */
};

int vmt_loop_decoder_create(struct vmt_loop_decoder **decoder, vmt_loop_source_fn source,
			    void *arg);
/*
 * The next access: 1 with *@access set, 0 at the end of the bytes, or
 * -errno: -EBADMSG for bytes that are no loop descriptors (the message in
 * vmt_loop_decoder_error()), or the source's.
 */
int vmt_loop_decoder_next(struct vmt_loop_decoder *decoder, struct vmt_loop_access *access);
/*
 * The next top-level element whole, for a loop view; its accesses are
 * not replayed. 1 with *@element set (valid until the next call), 0 at
 * the end, or -errno as vmt_loop_decoder_next(). Not to be mixed with it.
 */
int vmt_loop_decoder_next_element(struct vmt_loop_decoder *decoder,
				  struct vmt_loop_element *element);
/*
 * Replay another thread of the same loops (a loop set's member,
 * loop_sets.h): instruction k's addresses start at @addr[k] more than the
 * bytes say, and it ran on @cpu[k]; the bytes may give no more than
 * @nr_keys instructions. The arrays are the caller's, kept until the
 * decoder is freed. Before the first access or element.
 */
void vmt_loop_decoder_rebase(struct vmt_loop_decoder *decoder, uint32_t nr_keys,
			     const uint64_t *addr, const uint16_t *cpu);
const char *vmt_loop_decoder_error(const struct vmt_loop_decoder *decoder);
void vmt_loop_decoder_free(struct vmt_loop_decoder *decoder);

#endif /* VMTRACE_INTERNAL_LOOP_CODEC_H */
