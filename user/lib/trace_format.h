/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The trace file's on-disk layout (docs/FORMAT.md, version 1) and the helpers
 * the writer, the reader and the codecs share. Internal to libvmtrace.
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
#ifndef VMTRACE_TRACE_FORMAT_H
#define VMTRACE_TRACE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "vmtrace/trace.h"

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

struct vmt_buf {
	uint8_t *data;
	size_t size;
	size_t capacity;
};

/* ---- Little-endian access ---------------------------------------------- */

static inline void vmt_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void vmt_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline void vmt_put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static inline uint16_t vmt_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t vmt_get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t vmt_get64(const uint8_t *p)
{
	return (uint64_t)vmt_get32(p) | (uint64_t)vmt_get32(p + 4) << 32;
}

/* zlib's CRC-32 of @len bytes. */
uint32_t vmt_crc32(const void *data, size_t len);

/*
 * Fuzzing builds accept any checksum, so that mutated inputs reach the
 * parsers behind the checks instead of stopping at the first one.
 */
static inline int vmt_checksum_matches(uint32_t stored, uint32_t computed)
{
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	(void)stored;
	(void)computed;
	return 1;
#else
	return stored == computed;
#endif
}

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
 * trace_reader.c, for vmt_trace_repair(): scan @path's blocks up to the first
 * incomplete or corrupt one, and hand over the streams and frames found.
 */
int vmt_trace_scan_for_repair(const char *path, struct vmt_trace_stream_info **streams,
			      uint32_t *nr_streams, struct vmt_frame_ref **frames,
			      uint64_t *nr_frames, struct vmt_trace_repair_report *report,
			      struct vmt_trace_error *err);

/*
 * trace_reader.c: keep the message as the trace's error (what
 * vmt_trace_error_message() returns) and return @err.
 */
int vmt_trace_fail(struct vmt_trace *t, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* trace_reader.c: the filter vmt_trace_set_filter() gave (a copy), or NULL. */
const struct vmt_trace_filter *vmt_trace_filter(const struct vmt_trace *t);

/* ---- Codecs (codec.c, codec_vpc.c) -------------------------------------- */

int vmt_buf_reserve(struct vmt_buf *b, size_t capacity);
void vmt_buf_free(struct vmt_buf *b);

/*
 * Compress @n bytes of @entry_size-byte entries with @codec (stage2: VPC's
 * second stage) at @level (0: the codec's default) into @out, replacing what
 * it held. Returns 0 or -errno.
 */
int vmt_codec_compress(unsigned int codec, unsigned int stage2, int level,
		       uint32_t entry_size, const void *src, size_t n, struct vmt_buf *out);
/*
 * Decompress @n bytes into exactly @dst_size bytes at @dst. -EBADMSG when the
 * payload is malformed or does not decode to exactly @dst_size bytes.
 */
int vmt_codec_decompress(unsigned int codec, unsigned int stage2, uint32_t entry_size,
			 const void *src, size_t n, void *dst, size_t dst_size);

/* The generic codecs, used by VPC as its second stage. */
int vmt_codec_generic_compress(unsigned int codec, int level, const void *src, size_t n,
			       struct vmt_buf *out);
int vmt_codec_generic_decompress(unsigned int codec, const void *src, size_t n,
				 void *dst, size_t dst_size);

int vmt_vpc_compress(unsigned int stage2, int level, const void *src, size_t n,
		     struct vmt_buf *out);
int vmt_vpc_decompress(unsigned int stage2, const void *src, size_t n, void *dst,
		       size_t dst_size);

#endif /* VMTRACE_TRACE_FORMAT_H */
