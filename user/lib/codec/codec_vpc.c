// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * VPC: a value-prediction codec for frames of struct vmt_record (after
 * Burtscher's VPC3/VPC4 and Simutrace's SVPC).
 *
 * A record is read as eight little-endian 64-bit words, "fields". For each
 * field, four predictors guess the next value:
 *
 *   0 last     the field's previous value
 *   1 stride   previous + (previous - the one before)
 *   2 FCM      the value this field had the last time this key was seen
 *   3 DFCM     that value plus the stride it had then
 *
 * The key is the record's instruction pointer (field 5, decoded first); for
 * the instruction pointer itself, the previous record's. FCM and DFCM keep
 * one table per field, indexed by a hash of the key; tables are as large
 * as a frame can use (twice its records, 16 to 4096 slots) so that a small
 * frame does not pay for a large table. The encoder writes
 * the first predictor that guessed right, or 4 (none) and the value as a
 * zig-zag varint of its difference from the field's previous value. The
 * predictor ids and the values are each laid out field by field, so that a
 * second stage (zstd or xz) finds long runs. All state starts at zero in
 * every frame: a frame decodes alone.
 *
 * Before the second stage ("body"):
 *
 *   ids      records * 8 bytes, field-major: every record's id for field 0, ...
 *   lengths  8 little-endian u32: bytes of values for each field
 *   values   the fields' varints, field 0 first
 *
 * The payload: the body's size (u32) and the body through the second stage.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec_generic.h"
#include "codec/codec_vpc.h"
#include "base/varint.h"

#define VPC_FIELDS		8
#define VPC_KEY_FIELD		5	/* struct vmt_record's ref.ip */
/* Table slots: the power of two at or above twice the frame's records, 16..4096. */
#define VPC_MIN_TABLE_BITS	4
#define VPC_MAX_TABLE_BITS	12
#define VPC_PREDICTORS		4
#define VPC_UNPREDICTED		VPC_PREDICTORS
#define VPC_MAX_VARINT		10
#define VPC_LENGTHS_SIZE	(VPC_FIELDS * 4)

_Static_assert(sizeof(struct vmt_record) == VPC_FIELDS * 8, "a record is eight words");

/* The key field goes first: the others are keyed by its value. */
static const int field_order[VPC_FIELDS] = { VPC_KEY_FIELD, 0, 1, 2, 3, 4, 6, 7 };

struct vpc_state {
	uint64_t last[VPC_FIELDS];
	uint64_t before_last[VPC_FIELDS];
	unsigned int table_bits;
	/*
	 * Per field, 1 << table_bits slots each. FCM's table is DFCM's last
	 * values: both remember the value the slot saw last.
	 */
	uint64_t *dfcm_last[VPC_FIELDS];
	uint64_t *dfcm_stride[VPC_FIELDS];
	uint64_t tables[];
};

static struct vpc_state *vpc_state_new(size_t records)
{
	unsigned int bits = VPC_MIN_TABLE_BITS;
	struct vpc_state *s;
	size_t slots;

	while (bits < VPC_MAX_TABLE_BITS && ((size_t)1 << bits) < 2 * records)
		bits++;
	slots = (size_t)1 << bits;
	s = calloc(1, sizeof(*s) + 2 * VPC_FIELDS * slots * sizeof(uint64_t));
	if (!s)
		return NULL;
	s->table_bits = bits;
	for (int f = 0; f < VPC_FIELDS; f++) {
		s->dfcm_last[f] = s->tables + (2 * (size_t)f) * slots;
		s->dfcm_stride[f] = s->dfcm_last[f] + slots;
	}
	return s;
}

/* The slot field @f uses: the current ip's, or for the ip, the previous one's. */
static uint32_t vpc_slot(const struct vpc_state *s, int f, uint64_t ip)
{
	uint64_t key = f == VPC_KEY_FIELD ? s->last[VPC_KEY_FIELD] : ip;

	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - s->table_bits));
}

static void vpc_predict(const struct vpc_state *s, int f, uint32_t slot,
			uint64_t guess[VPC_PREDICTORS])
{
	guess[0] = s->last[f];
	guess[1] = s->last[f] + (s->last[f] - s->before_last[f]);
	guess[2] = s->dfcm_last[f][slot];
	guess[3] = s->dfcm_last[f][slot] + s->dfcm_stride[f][slot];
}

static void vpc_update(struct vpc_state *s, int f, uint32_t slot, uint64_t value)
{
	s->before_last[f] = s->last[f];
	s->last[f] = value;
	s->dfcm_stride[f][slot] = value - s->dfcm_last[f][slot];
	s->dfcm_last[f][slot] = value;
}

static size_t put_varint(uint8_t *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (uint8_t)v;
	return n;
}

int vmt_vpc_compress(unsigned int stage2, int level, const void *src, size_t n,
		     struct vmt_buf *out)
{
	size_t records = n / sizeof(struct vmt_record), body_size, pos;
	uint8_t *values[VPC_FIELDS] = { NULL }, *body = NULL;
	size_t value_len[VPC_FIELDS] = { 0 };
	struct vmt_buf second = { 0 };
	const uint8_t *in = src;
	struct vpc_state *s;
	int err = -ENOMEM;

	if (stage2 == VMT_CODEC_VPC || stage2 > VMT_CODEC_XZ)
		return -EINVAL;
	s = vpc_state_new(records);
	body_size = records * VPC_FIELDS + VPC_LENGTHS_SIZE;
	body = malloc(body_size + records * VPC_FIELDS * VPC_MAX_VARINT);
	for (int f = 0; f < VPC_FIELDS; f++)
		values[f] = malloc(records * VPC_MAX_VARINT + 1);
	if (!s || !body)
		goto out;
	for (int f = 0; f < VPC_FIELDS; f++)
		if (!values[f])
			goto out;

	for (size_t r = 0; r < records; r++) {
		const uint8_t *rec = in + r * sizeof(struct vmt_record);
		uint64_t ip = vmt_get64(rec + 8 * VPC_KEY_FIELD);

		for (int i = 0; i < VPC_FIELDS; i++) {
			int f = field_order[i], id;
			uint64_t value = vmt_get64(rec + 8 * f), guess[VPC_PREDICTORS];
			uint32_t slot = vpc_slot(s, f, ip);

			vpc_predict(s, f, slot, guess);
			for (id = 0; id < VPC_PREDICTORS && guess[id] != value; id++)
				;
			body[(size_t)f * records + r] = (uint8_t)id;
			if (id == VPC_UNPREDICTED)
				value_len[f] += put_varint(values[f] + value_len[f],
							   vmt_zigzag(value - s->last[f]));
			vpc_update(s, f, slot, value);
		}
	}
	pos = records * VPC_FIELDS;
	for (int f = 0; f < VPC_FIELDS; f++)
		vmt_put32(body + pos + 4 * (size_t)f, (uint32_t)value_len[f]);
	pos += VPC_LENGTHS_SIZE;
	for (int f = 0; f < VPC_FIELDS; f++) {
		memcpy(body + pos, values[f], value_len[f]);
		pos += value_len[f];
	}
	body_size = pos;

	err = vmt_codec_generic_compress(stage2, level, body, body_size, &second);
	if (err)
		goto out;
	err = vmt_buf_reserve(out, second.size + 4);
	if (err)
		goto out;
	vmt_put32(out->data, (uint32_t)body_size);
	memcpy(out->data + 4, second.data, second.size);
	out->size = second.size + 4;
out:
	vmt_buf_free(&second);
	for (int f = 0; f < VPC_FIELDS; f++)
		free(values[f]);
	free(body);
	free(s);
	return err;
}

int vmt_vpc_decompress(unsigned int stage2, const void *src, size_t n, void *dst,
		       size_t dst_size)
{
	size_t records = dst_size / sizeof(struct vmt_record), ids_size, body_size, pos;
	const uint8_t *cursor[VPC_FIELDS], *end[VPC_FIELDS];
	uint8_t *body = NULL, *outp = dst;
	struct vpc_state *s = NULL;
	int err = -EBADMSG;

	if (stage2 == VMT_CODEC_VPC || stage2 > VMT_CODEC_XZ || n < 4)
		return -EBADMSG;
	ids_size = records * VPC_FIELDS;
	body_size = vmt_get32(src);
	if (body_size < ids_size + VPC_LENGTHS_SIZE ||
	    body_size > ids_size + VPC_LENGTHS_SIZE + ids_size * VPC_MAX_VARINT)
		return -EBADMSG;
	body = malloc(body_size);
	s = vpc_state_new(records);
	if (!body || !s) {
		err = -ENOMEM;
		goto out;
	}
	err = vmt_codec_generic_decompress(stage2, (const uint8_t *)src + 4, n - 4, body,
					   body_size);
	if (err)
		goto out;
	err = -EBADMSG;
	pos = ids_size + VPC_LENGTHS_SIZE;
	for (int f = 0; f < VPC_FIELDS; f++) {
		size_t len = vmt_get32(body + ids_size + 4 * (size_t)f);

		if (len > body_size - pos)
			goto out;
		cursor[f] = body + pos;
		end[f] = body + pos + len;
		pos += len;
	}
	if (pos != body_size)
		goto out;

	for (size_t r = 0; r < records; r++) {
		uint8_t *rec = outp + r * sizeof(struct vmt_record);
		uint64_t ip = 0;

		for (int i = 0; i < VPC_FIELDS; i++) {
			int f = field_order[i];
			uint8_t id = body[(size_t)f * records + r];
			uint32_t slot = vpc_slot(s, f, ip);
			uint64_t guess[VPC_PREDICTORS], value, z;

			if (id > VPC_UNPREDICTED)
				goto out;
			if (id == VPC_UNPREDICTED) {
				if (vmt_get_varint(&cursor[f], end[f], &z))
					goto out;
				value = s->last[f] + vmt_unzigzag(z);
			} else {
				vpc_predict(s, f, slot, guess);
				value = guess[id];
			}
			if (f == VPC_KEY_FIELD)
				ip = value;
			vmt_put64(rec + 8 * f, value);
			vpc_update(s, f, slot, value);
		}
	}
	for (int f = 0; f < VPC_FIELDS; f++)
		if (cursor[f] != end[f])
			goto out;
	err = 0;
out:
	free(body);
	free(s);
	return err;
}
