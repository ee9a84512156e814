/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * Packing an analysis's partial state into bytes and back (pack.c): what
 * one process of a parallel run sends the one that merges (the commands'
 * MPI runs). Numbers go as LEB128 varints, byte strings with their length
 * before them. Writing grows a buffer; reading checks every length against
 * the bytes left, and the first error sticks, so a caller reads a whole
 * structure and checks once.
 */
#ifndef VMTRACE_INTERNAL_PACK_H
#define VMTRACE_INTERNAL_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

struct vmt_packer {
	struct vmt_buf buf;
	int err;		/* -ENOMEM once a write failed */
};

void vmt_pack_u64(struct vmt_packer *p, uint64_t v);
void vmt_pack_bytes(struct vmt_packer *p, const void *data, size_t len);
/* The bytes written, as *@data (malloc()ed) and *@size: 0; or the packer's error, freed. */
int vmt_pack_done(struct vmt_packer *p, void **data, size_t *size);

struct vmt_unpacker {
	const uint8_t *p, *end;
	int err;		/* -EBADMSG once a read ran off the end or a number was bad */
};

uint64_t vmt_unpack_u64(struct vmt_unpacker *u);
/* A number at most @max; past it, the unpacker's error is set and 0 returned. */
uint64_t vmt_unpack_max(struct vmt_unpacker *u, uint64_t max);
/* @len bytes into @out: exactly @len stored (their stored length must be @len). */
void vmt_unpack_bytes(struct vmt_unpacker *u, void *out, size_t len);
/* A stored byte string's length and where it is; NULL when bad. */
const void *vmt_unpack_span(struct vmt_unpacker *u, size_t *len);

#endif
