/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The frame codecs, as the writer and the reader call them: codec.c's table
 * of the codecs by a frame's codec field. The codecs themselves: the generic
 * ones none, zstd and xz (codec_generic.h), VPC (codec_vpc.h) and the model
 * codec (codec_model.h, over range_coder.h and model_replay.h). Internal to
 * libvmtrace. Codec names and numbers are public (vmtrace/trace.h); how a
 * frame records its codec is the file's layout (format/trace_format.h).
 */
#ifndef VMTRACE_INTERNAL_CODEC_H
#define VMTRACE_INTERNAL_CODEC_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

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
 * @flags: 0, or VMT_CODEC_NO_VALUES: the caller does not want exact records'
 * values, which a codec that keeps them apart (the model codec, from its
 * mode 4) then leaves zero rather than decode; other codecs decode them.
 */
#define VMT_CODEC_NO_VALUES	0x1u
int vmt_codec_decompress(unsigned int codec, unsigned int stage2, uint32_t entry_size,
			 const void *src, size_t n, void *dst, size_t dst_size,
			 unsigned int flags);

#endif /* VMTRACE_INTERNAL_CODEC_H */
