/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The trace file's on-disk layout (docs/FORMAT.md, version 1): its blocks,
 * their sizes and limits, and their encoders and decoders (trace_format.c).
 * Internal to libvmtrace. Byte order and checksums are util/bytes.h,
 * what is inside a frame's payload is the codecs' (codec/codec.h).
 *
 *   +-------------+  file header, 64 bytes
 *   | VMTRACE\0   |
 *   +-------------+  blocks, appended whole, in write order:
 *   | stream  S0  |    a stream block (64 bytes) before the stream's first frame
 *   | frame   F0  |    a frame: 64-byte header, then its compressed payload
 *   | frame   F1  |
 *   | ...         |
 *   +-------------+
 *   | directory   |  written by a writer that finishes: every stream, every frame
 *   | trailer     |  the last 32 bytes: where the directory is
 *   +-------------+
 *
 * A killed writer leaves the blocks it completed; scanning them rebuilds the
 * directory. Every integer is little-endian.
 */
#ifndef VMTRACE_INTERNAL_TRACE_FORMAT_H
#define VMTRACE_INTERNAL_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "vmtrace/trace.h"
#include "base/bytes.h"

#define VMT_FILE_MAGIC		"VMTRACE"	/* 8 bytes with its NUL */
#define VMT_FILE_HEADER_SIZE	64
#define VMT_STREAM_BLOCK_SIZE	64
#define VMT_FRAME_HEADER_SIZE	64
#define VMT_DIR_HEADER_SIZE	24
#define VMT_DIR_FRAME_SIZE	48
#define VMT_TRAILER_SIZE	32

/* Block magics, as the four bytes read in file order. */
#define VMT_MAGIC_STREAM	"VMTS"
#define VMT_MAGIC_FRAME		"VMTF"
#define VMT_MAGIC_DIRECTORY	"VMTD"
#define VMT_MAGIC_TRAILER	"VMTE"

/* Limits a reader enforces, so that no header can make it allocate wildly. */
#define VMT_MAX_ENTRY_SIZE	4096u
#define VMT_MAX_FRAME_RAW	(64u << 20)
#define VMT_MAX_STREAMS		65536u

/* struct frame_header.flags */
#define VMT_FRAME_TIME_SORTED	0x1	/* entry times never decrease in the frame */
/*
 * Version 3: the entries are not in time order, and the header's first and
 * last times are the least and the greatest of them (not the first and the
 * last entry's), so that a reader merging by time knows how early a frame
 * still to come can go. Never with VMT_FRAME_TIME_SORTED.
 */
#define VMT_FRAME_TIME_RANGE	0x2
#define VMT_FRAME_FLAGS		(VMT_FRAME_TIME_SORTED | VMT_FRAME_TIME_RANGE)

/* A frame's codec field: the codec in the low byte, VPC's second stage above. */
static inline uint16_t vmt_codec_field(unsigned int codec, unsigned int stage2)
{
	return (uint16_t)(codec | stage2 << 8);
}

struct vmt_frame_header {
	uint32_t stream_id;
	uint64_t sequence;
	uint64_t first_entry;
	uint32_t entry_count;
	uint16_t codec;		/* vmt_codec_field() */
	uint16_t flags;		/* VMT_FRAME_* */
	uint64_t first_time;
	uint64_t last_time;
	uint32_t raw_size;
	uint32_t comp_size;
	uint32_t payload_crc;
};

/* One frame as the directory lists it. */
struct vmt_frame_ref {
	uint64_t offset;	/* of the frame header */
	uint64_t first_entry;
	uint64_t first_time;
	uint64_t last_time;
	uint32_t stream_id;
	uint32_t entry_count;
	uint32_t flags;
};

/* ---- Blocks: encode and decode (trace_format.c) ------------------------- */

void vmt_file_header_encode(uint8_t out[VMT_FILE_HEADER_SIZE]);
/* 0, or -errno with @msg set: wrong magic, unknown version, bad checksum. */
int vmt_file_header_check(const uint8_t in[VMT_FILE_HEADER_SIZE], char *msg, size_t msg_size);

/* Checks a stream's description, all but its id. */
int vmt_stream_info_check(const struct vmt_trace_stream_info *info, char *msg, size_t msg_size);
void vmt_stream_block_encode(uint8_t out[VMT_STREAM_BLOCK_SIZE],
			     const struct vmt_trace_stream_info *info);
int vmt_stream_block_decode(const uint8_t in[VMT_STREAM_BLOCK_SIZE],
			    struct vmt_trace_stream_info *info, char *msg, size_t msg_size);

void vmt_frame_header_encode(uint8_t out[VMT_FRAME_HEADER_SIZE],
			     const struct vmt_frame_header *h);
/*
 * Checks the magic, the header checksum and that the sizes are consistent
 * with a stream of @entry_size-byte entries (pass 0 to skip that part).
 */
int vmt_frame_header_decode(const uint8_t in[VMT_FRAME_HEADER_SIZE],
			    struct vmt_frame_header *h, char *msg, size_t msg_size);
int vmt_frame_header_check_sizes(const struct vmt_frame_header *h, uint32_t entry_size,
				 char *msg, size_t msg_size);

/*
 * The directory and the trailer after it, for a directory written at
 * @dir_offset, into @out (replacing what it held).
 */
int vmt_directory_encode(const struct vmt_trace_stream_info *streams, uint32_t nr_streams,
			 const struct vmt_frame_ref *frames, uint64_t nr_frames,
			 uint64_t dir_offset, struct vmt_buf *out);
void vmt_frame_ref_decode(const uint8_t *p, struct vmt_frame_ref *f);
/* -ENODATA without a trailer magic, -EBADMSG for a bad checksum. */
int vmt_trailer_decode(const uint8_t in[VMT_TRAILER_SIZE], uint64_t *dir_offset,
		       uint64_t *dir_size, uint32_t *dir_crc, char *msg, size_t msg_size);

/*
 * The "loops" stream's entries (docs/FORMAT.md, "Loop descriptors"): one a
 * thread, struct vmt_trace_loops_thread in VMT_LOOPS_ENTRY_SIZE bytes; and
 * a loop stream's side entries, one an access, in VMT_LOOPS_SIDE_SIZE
 * bytes: u64 time, value[16], u32 data_len, u32 zero.
 */
#define VMT_LOOPS_ENTRY_SIZE	32
#define VMT_LOOPS_SIDE_SIZE	32
void vmt_loops_entry_encode(uint8_t out[VMT_LOOPS_ENTRY_SIZE],
			    const struct vmt_trace_loops_thread *thread);
void vmt_loops_entry_decode(const uint8_t in[VMT_LOOPS_ENTRY_SIZE],
			    struct vmt_trace_loops_thread *thread);

#endif /* VMTRACE_INTERNAL_TRACE_FORMAT_H */
