/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * The model codec (codec_model.c), for whole struct vmt_record entries:
 * @n and @dst_size are multiples of 64. Internal to libvmtrace.
 */
#ifndef VMTRACE_INTERNAL_CODEC_MODEL_H
#define VMTRACE_INTERNAL_CODEC_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "base/bytes.h"

int vmt_model_compress(const void *src, size_t n, struct vmt_buf *out);
/*
 * @skip_values: exact records' values left zero where the payload keeps them
 * apart (mode 4), and not decoded.
 */
int vmt_model_decompress(const void *src, size_t n, void *dst, size_t dst_size,
			 bool skip_values);

#endif /* VMTRACE_INTERNAL_CODEC_MODEL_H */
