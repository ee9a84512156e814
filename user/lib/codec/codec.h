/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The frame codecs, as the writer and the reader call them: one dispatch
 * by a frame's codec field (codec.c), the generic codecs none, zstd and xz
 * (codec_generic.c), VPC (codec_vpc.c) and the model codec (codec_model.c,
 * over range_coder.c and model_replay.c). Internal to libvmtrace. Codec
 * names and numbers are public (vmtrace/trace.h); how a frame records its
 * codec is the file's layout (format/trace_format.h).
 */
#ifndef VMTRACE_INTERNAL_CODEC_H
#define VMTRACE_INTERNAL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "util/bytes.h"


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

/*
 * The model codec (codec_model.c), for whole struct vmt_record entries:
 * @n and @dst_size are multiples of 64.
 */
int vmt_model_compress(const void *src, size_t n, struct vmt_buf *out);
int vmt_model_decompress(const void *src, size_t n, void *dst, size_t dst_size);

#endif /* VMTRACE_INTERNAL_CODEC_H */
