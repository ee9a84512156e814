/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * VPC, the value-prediction codec (codec_vpc.c), for whole struct vmt_record
 * entries, with @stage2 (a generic codec) as its second stage. Internal to
 * libvmtrace.
 */
#ifndef VMTRACE_INTERNAL_CODEC_VPC_H
#define VMTRACE_INTERNAL_CODEC_VPC_H

#include <stddef.h>

#include "base/bytes.h"

int vmt_vpc_compress(unsigned int stage2, int level, const void *src, size_t n,
		     struct vmt_buf *out);
int vmt_vpc_decompress(unsigned int stage2, const void *src, size_t n, void *dst,
		       size_t dst_size);

#endif /* VMTRACE_INTERNAL_CODEC_VPC_H */
