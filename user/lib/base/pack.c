// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/* Packing partial states into bytes and back (base/pack.h). */
#include <errno.h>
#include <string.h>

#include "base/pack.h"
#include "base/varint.h"

static int room(struct vmt_packer *p, size_t n)
{
	if (p->err)
		return p->err;
	if (p->buf.size + n < n || vmt_buf_reserve(&p->buf, p->buf.size + n))
		p->err = -ENOMEM;
	return p->err;
}

void vmt_pack_u64(struct vmt_packer *p, uint64_t v)
{
	if (room(p, 10))
		return;
	do {
		uint8_t byte = v & 0x7f;

		v >>= 7;
		p->buf.data[p->buf.size++] = byte | (v ? 0x80 : 0);
	} while (v);
}

void vmt_pack_bytes(struct vmt_packer *p, const void *data, size_t len)
{
	vmt_pack_u64(p, len);
	if (!len || room(p, len))
		return;
	memcpy(p->buf.data + p->buf.size, data, len);
	p->buf.size += len;
}

int vmt_pack_done(struct vmt_packer *p, void **data, size_t *size)
{
	if (p->err) {
		vmt_buf_free(&p->buf);
		return p->err;
	}
	*data = p->buf.data;
	*size = p->buf.size;
	return 0;
}

uint64_t vmt_unpack_u64(struct vmt_unpacker *u)
{
	uint64_t v = 0;

	if (!u->err && vmt_get_varint(&u->p, u->end, &v))
		u->err = -EBADMSG;
	return u->err ? 0 : v;
}

uint64_t vmt_unpack_max(struct vmt_unpacker *u, uint64_t max)
{
	uint64_t v = vmt_unpack_u64(u);

	if (v > max)
		u->err = -EBADMSG;
	return u->err ? 0 : v;
}

const void *vmt_unpack_span(struct vmt_unpacker *u, size_t *len)
{
	const uint8_t *at;
	uint64_t n = vmt_unpack_u64(u);

	if (u->err || n > (uint64_t)(u->end - u->p)) {
		u->err = -EBADMSG;
		return NULL;
	}
	at = u->p;
	u->p += n;
	*len = (size_t)n;
	return at;
}

void vmt_unpack_bytes(struct vmt_unpacker *u, void *out, size_t len)
{
	size_t n;
	const void *at = vmt_unpack_span(u, &n);

	if (at && n != len)
		u->err = -EBADMSG;
	if (!u->err)
		memcpy(out, at, len);
}
