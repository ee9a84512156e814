// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The range coder's out-of-line parts (codec/range_coder.h has the bit
 * coding, inline): starting, the byte output with its carry, and the end.
 */
#include <errno.h>

#include "codec/range_coder.h"

static void put_byte(struct vmt_rc_encoder *rc, uint8_t b)
{
	if (rc->err)
		return;
	if (rc->out->size == rc->out->capacity &&
	    vmt_buf_reserve(rc->out, rc->out->capacity * 2 + 64)) {
		rc->err = -ENOMEM;
		return;
	}
	rc->out->data[rc->out->size++] = b;
}

void vmt_rc_encoder_init(struct vmt_rc_encoder *rc, struct vmt_buf *out)
{
	rc->low = 0;
	rc->range = 0xffffffffu;
	rc->cache = 0;
	rc->cache_size = 1;
	rc->out = out;
	rc->err = 0;
}

/*
 * The top byte of low leaves, unless it may still receive a carry (0xff):
 * then it waits in cache_size, behind the byte in cache.
 */
void vmt_rc_shift_low(struct vmt_rc_encoder *rc)
{
	if ((uint32_t)rc->low < 0xff000000u || (rc->low >> 32) != 0) {
		uint8_t carry = (uint8_t)(rc->low >> 32), b = rc->cache;

		do {
			put_byte(rc, (uint8_t)(b + carry));
			b = 0xff;
		} while (--rc->cache_size);
		rc->cache = (uint8_t)((uint32_t)rc->low >> 24);
	}
	rc->cache_size++;
	rc->low = (uint32_t)rc->low << 8;
}

int vmt_rc_encoder_finish(struct vmt_rc_encoder *rc)
{
	for (int i = 0; i < 5; i++)
		vmt_rc_shift_low(rc);
	return rc->err;
}

void vmt_rc_decoder_init(struct vmt_rc_decoder *rc, const void *in, size_t size)
{
	rc->in = in;
	rc->size = size;
	rc->pos = 0;
	rc->range = 0xffffffffu;
	rc->code = 0;
	for (int i = 0; i < 5; i++)
		rc->code = rc->code << 8 | vmt_rc_next_byte(rc);
}
