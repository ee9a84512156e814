/* SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause */
/*
 * An adaptive binary range coder after LZMA's (Igor Pavlov's rc): 32-bit
 * range, carry propagated through a cached byte, probabilities of a 0 bit
 * in 16 bits that move 1/16 of the way towards each bit coded, and
 * equiprobable "direct" bits. The model codec (codec_model.c) is its one
 * user. Internal to libvmtrace.
 *
 * The encoder writes into a struct vmt_buf; the decoder reads a buffer and,
 * past its end, zeros, counting them, so that a payload cut short never
 * reads out of bounds and is found out afterwards (vmt_rc_decoder_overrun()).
 */
#ifndef VMTRACE_INTERNAL_RANGE_CODER_H
#define VMTRACE_INTERNAL_RANGE_CODER_H

#include <stddef.h>
#include <stdint.h>

#include "base/bytes.h"

#define VMT_RC_PROB_BITS	16
#define VMT_RC_PROB_ONE		(1u << VMT_RC_PROB_BITS)
#define VMT_RC_PROB_INIT	(VMT_RC_PROB_ONE / 2)
#define VMT_RC_ADAPT_SHIFT	4
#define VMT_RC_TOP		(1u << 24)
/* Equiprobable bits coded at once: the range keeps 8 bits of precision. */
#define VMT_RC_DIRECT_MAX	16

struct vmt_rc_encoder {
	uint64_t low;
	uint32_t range;
	uint8_t cache;
	uint64_t cache_size;
	struct vmt_buf *out;
	int err;			/* -ENOMEM once the buffer could not grow */
};

struct vmt_rc_decoder {
	uint32_t range, code;
	const uint8_t *in;
	size_t size, pos;		/* pos may pass size: bytes read as zero */
};

/* Start encoding, appending to @out (which keeps what it held). */
void vmt_rc_encoder_init(struct vmt_rc_encoder *rc, struct vmt_buf *out);
/* Write what is pending. Returns 0 or -ENOMEM (from any earlier write). */
int vmt_rc_encoder_finish(struct vmt_rc_encoder *rc);
void vmt_rc_shift_low(struct vmt_rc_encoder *rc);

void vmt_rc_decoder_init(struct vmt_rc_decoder *rc, const void *in, size_t size);
/* Bytes read past the end of the input (as zeros); 0 for a whole payload. */
static inline size_t vmt_rc_decoder_overrun(const struct vmt_rc_decoder *rc)
{
	return rc->pos > rc->size ? rc->pos - rc->size : 0;
}
/* Bytes of input read, those past the end included. */
static inline size_t vmt_rc_decoder_consumed(const struct vmt_rc_decoder *rc)
{
	return rc->pos;
}

static inline void vmt_rc_encode_bit(struct vmt_rc_encoder *rc, uint16_t *prob, unsigned int bit)
{
	uint32_t bound = (rc->range >> VMT_RC_PROB_BITS) * *prob;

	if (!bit) {
		rc->range = bound;
		*prob = (uint16_t)(*prob + ((VMT_RC_PROB_ONE - *prob) >> VMT_RC_ADAPT_SHIFT));
	} else {
		rc->low += bound;
		rc->range -= bound;
		*prob = (uint16_t)(*prob - (*prob >> VMT_RC_ADAPT_SHIFT));
	}
	while (rc->range < VMT_RC_TOP) {
		rc->range <<= 8;
		vmt_rc_shift_low(rc);
	}
}

/*
 * The low @nbits bits of @value, most significant first, at probability 1/2
 * each: up to 16 at a time, the range divided into 2^16 equal parts.
 */
static inline void vmt_rc_encode_direct(struct vmt_rc_encoder *rc, uint64_t value,
					unsigned int nbits)
{
	while (nbits) {
		unsigned int n = nbits < VMT_RC_DIRECT_MAX ? nbits : VMT_RC_DIRECT_MAX;

		nbits -= n;
		rc->range >>= n;
		rc->low += ((value >> nbits) & ((1u << n) - 1)) * (uint64_t)rc->range;
		while (rc->range < VMT_RC_TOP) {
			rc->range <<= 8;
			vmt_rc_shift_low(rc);
		}
	}
}

static inline uint8_t vmt_rc_next_byte(struct vmt_rc_decoder *rc)
{
	uint8_t b = rc->pos < rc->size ? rc->in[rc->pos] : 0;

	rc->pos++;
	return b;
}

static inline unsigned int vmt_rc_decode_bit(struct vmt_rc_decoder *rc, uint16_t *prob)
{
	uint32_t bound = (rc->range >> VMT_RC_PROB_BITS) * *prob;
	unsigned int bit;

	if (rc->code < bound) {
		rc->range = bound;
		*prob = (uint16_t)(*prob + ((VMT_RC_PROB_ONE - *prob) >> VMT_RC_ADAPT_SHIFT));
		bit = 0;
	} else {
		rc->code -= bound;
		rc->range -= bound;
		*prob = (uint16_t)(*prob - (*prob >> VMT_RC_ADAPT_SHIFT));
		bit = 1;
	}
	while (rc->range < VMT_RC_TOP) {
		rc->range <<= 8;
		rc->code = rc->code << 8 | vmt_rc_next_byte(rc);
	}
	return bit;
}

static inline uint64_t vmt_rc_decode_direct(struct vmt_rc_decoder *rc, unsigned int nbits)
{
	uint64_t value = 0;

	while (nbits) {
		unsigned int n = nbits < VMT_RC_DIRECT_MAX ? nbits : VMT_RC_DIRECT_MAX;
		uint32_t part;

		nbits -= n;
		rc->range >>= n;
		part = rc->code / rc->range;
		/* Only a corrupt payload puts code beyond the 2^n parts: take the last. */
		if (part >> n)
			part = (1u << n) - 1;
		rc->code -= part * rc->range;
		value = value << n | part;
		while (rc->range < VMT_RC_TOP) {
			rc->range <<= 8;
			rc->code = rc->code << 8 | vmt_rc_next_byte(rc);
		}
	}
	return value;
}

#endif /* VMTRACE_INTERNAL_RANGE_CODER_H */
