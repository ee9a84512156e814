/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The generic frame codecs (codec_generic.c): none, zstd and xz, for any
 * entries, and VPC's second stage. Internal to libvmtrace.
 */
#ifndef VMTRACE_INTERNAL_CODEC_GENERIC_H
#define VMTRACE_INTERNAL_CODEC_GENERIC_H

#include <stddef.h>

#include "base/bytes.h"

/* @codec is VMT_CODEC_NONE, _ZSTD or _XZ; the arguments as vmt_codec_compress()'s. */
int vmt_codec_generic_compress(unsigned int codec, int level, const void *src, size_t n,
			       struct vmt_buf *out);
int vmt_codec_generic_decompress(unsigned int codec, const void *src, size_t n,
				 void *dst, size_t dst_size);

#endif /* VMTRACE_INTERNAL_CODEC_GENERIC_H */
