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

static inline void vmt_rc_decoder_normalize(struct vmt_rc_decoder *rc)
{
	while (rc->range < VMT_RC_TOP) {
		rc->range <<= 8;
		rc->code = rc->code << 8 | vmt_rc_next_byte(rc);
	}
}

/*
 * @one when @code >= @bound (a 1 bit), else @zero: with a conditional
 * move, as a compiler may make a branch of a ?: whose outcome is as good as
 * random to a branch predictor, a tree's bits.
 */
static inline uint32_t vmt_rc_pick(uint32_t code, uint32_t bound, uint32_t one, uint32_t zero)
{
#if defined(__x86_64__) || defined(__i386__)
	__asm__("cmpl %2, %1\n\tcmovael %3, %0" : "+r"(zero) : "r"(code), "r"(bound), "r"(one)
		: "cc");
	return zero;
#else
	return code >= bound ? one : zero;
#endif
}

/*
 * Decode a bit at probability @p (of a 0) without a branch on the bit.
 * Returns the bit; *@p is left to the caller (vmt_rc_adapt()), and so is
 * vmt_rc_decoder_normalize(). *@bound gets the bound, for vmt_rc_pick().
 */
static inline __attribute__((always_inline)) unsigned int
vmt_rc_decode_bit_at(struct vmt_rc_decoder *rc, uint32_t p, uint32_t *bound)
{
	uint32_t b = (rc->range >> VMT_RC_PROB_BITS) * p, code = rc->code;

	*bound = b;
	rc->range = vmt_rc_pick(code, b, rc->range - b, b);
	rc->code = vmt_rc_pick(code, b, code - b, code);
	return code >= b;
}

/* @p moved towards the bit (@code >= @bound), as vmt_rc_encode_bit() moves it. */
static inline uint16_t vmt_rc_adapt(uint32_t p, uint32_t code, uint32_t bound)
{
	return (uint16_t)vmt_rc_pick(code, bound, p - (p >> VMT_RC_ADAPT_SHIFT),
				     p + ((VMT_RC_PROB_ONE - p) >> VMT_RC_ADAPT_SHIFT));
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
	vmt_rc_decoder_normalize(rc);
	return bit;
}

/*
 * @nbits (1 or more) bits, most significant first, through a bit tree of
 * 2^@nbits probabilities (node 1 the root, node n's children 2n and 2n + 1):
 * for bits a branch predictor cannot guess (an offset, a number's top
 * bits). The coder's state stays in registers for the walk, and both
 * children's probabilities are loaded while the bit that picks one is
 * decoded.
 */
static inline unsigned int vmt_rc_decode_tree(struct vmt_rc_decoder *rc, uint16_t *probs,
					      unsigned int nbits)
{
	struct vmt_rc_decoder d = *rc;
	unsigned int node = 1, mask = (1u << nbits) - 1;	/* the leaves' children: none */
	uint32_t p = probs[1];

	for (unsigned int i = nbits; i--;) {
		uint32_t p0 = probs[(2 * node) & mask], p1 = probs[(2 * node + 1) & mask];
		uint32_t code = d.code, bound;
		unsigned int bit = vmt_rc_decode_bit_at(&d, p, &bound);

		probs[node] = vmt_rc_adapt(p, code, bound);
		p = vmt_rc_pick(code, bound, p1, p0);
		node = 2 * node + bit;
		vmt_rc_decoder_normalize(&d);
	}
	*rc = d;
	return node - (1u << nbits);
}

/*
 * The same with a branch a bit, for a tree whose bits mostly repeat (a
 * number's bit length): a branch predicted right costs less than the
 * conditional moves.
 */
static inline unsigned int vmt_rc_decode_tree_repeating(struct vmt_rc_decoder *rc,
							uint16_t *probs, unsigned int nbits)
{
	struct vmt_rc_decoder d = *rc;
	unsigned int node = 1;

	for (unsigned int i = nbits; i--;)
		node = 2 * node + vmt_rc_decode_bit(&d, &probs[node]);
	*rc = d;
	return node - (1u << nbits);
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
