// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the model codec (user/lib/codec/codec_model.c), below the
 * container's checksums, which would otherwise refuse almost every mutated
 * payload before it reached the decoder:
 *
 *   - the input taken as a payload, decoded into 1 to 256 records (the
 *     first byte says how many; its top bit, without the values): it
 *     decodes or is refused with -EBADMSG, without a crash, a hang or a
 *     read out of bounds;
 *   - the input taken as records (its bytes after the first, whole records
 *     only): coded and decoded, they come back byte for byte, and every
 *     byte of the payload flipped in turn still decodes or is refused.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec.h"

#define MAX_RECORDS	256

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct vmt_record out[MAX_RECORDS], in[MAX_RECORDS];
	struct vmt_buf payload = { 0 };
	size_t n, bytes;
	int err;

	if (!size)
		return 0;
	n = (size_t)(data[0] & 0x7f) % MAX_RECORDS + 1;
	err = vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(struct vmt_record), data + 1,
				   size - 1, out, n * sizeof(out[0]),
				   data[0] & 0x80 ? VMT_CODEC_NO_VALUES : 0);
	if (err && err != -EBADMSG && err != -ENOMEM)
		abort();

	n = (size - 1) / sizeof(in[0]);
	if (!n)
		return 0;
	if (n > MAX_RECORDS)
		n = MAX_RECORDS;
	bytes = n * sizeof(in[0]);
	memcpy(in, data + 1, bytes);
	if (vmt_codec_compress(VMT_CODEC_MODEL, 0, 0, sizeof(in[0]), in, bytes, &payload))
		abort();
	if (vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(in[0]), payload.data, payload.size,
				 out, bytes, 0) || memcmp(in, out, bytes))
		abort();
	for (size_t i = 0; i < payload.size && i < 16; i++) {
		payload.data[i] ^= 0x5a;
		err = vmt_codec_decompress(VMT_CODEC_MODEL, 0, sizeof(in[0]), payload.data,
					   payload.size, out, bytes, i % 2 ? VMT_CODEC_NO_VALUES : 0);
		if (err && err != -EBADMSG)
			abort();
		payload.data[i] ^= 0x5a;
	}
	vmt_buf_free(&payload);
	return 0;
}
