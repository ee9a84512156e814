// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * The generic frame codecs: none, zstd and xz, for any entries, and VPC's
 * second stage. VPC is codec_vpc.c; choosing a codec by a frame's codec
 * field is codec.c. Decoders never trust the payload: the output must come
 * to exactly the frame's raw size, and all input must be used.
 */
#include <errno.h>
#include <lzma.h>
#include <stdint.h>
#include <string.h>
#include <zstd.h>

#include "vmtrace/trace.h"
#include "codec/codec_generic.h"

#define ZSTD_DEFAULT_LEVEL	3
#define XZ_DEFAULT_LEVEL	6
/* xz's decoder may use this much memory; a frame needs far less. */
#define XZ_MEMLIMIT		(256u << 20)

static int zstd_compress(int level, const void *src, size_t n, struct vmt_buf *out)
{
	size_t bound = ZSTD_compressBound(n), got;
	int err = vmt_buf_reserve(out, bound);

	if (err)
		return err;
	got = ZSTD_compress(out->data, bound, src, n, level ? level : ZSTD_DEFAULT_LEVEL);
	if (ZSTD_isError(got))
		return -EINVAL;
	out->size = got;
	return 0;
}

static int zstd_decompress(const void *src, size_t n, void *dst, size_t dst_size)
{
	unsigned long long content = ZSTD_getFrameContentSize(src, n);
	size_t got;

	/* A payload claiming another size is rejected before any work. */
	if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != dst_size)
		return -EBADMSG;
	got = ZSTD_decompress(dst, dst_size, src, n);
	if (ZSTD_isError(got) || got != dst_size)
		return -EBADMSG;
	return 0;
}

static int xz_compress(int level, const void *src, size_t n, struct vmt_buf *out)
{
	lzma_options_lzma options;
	lzma_filter filters[2];
	size_t bound = lzma_stream_buffer_bound(n), pos = 0;
	uint32_t preset = (uint32_t)(level ? level : XZ_DEFAULT_LEVEL);
	int err;

	if (level < 0 || level > 9)
		return -EINVAL;
	if (lzma_lzma_preset(&options, preset))
		return -EINVAL;
	/* A dictionary larger than the frame only costs memory. */
	if (options.dict_size > n)
		options.dict_size = n < LZMA_DICT_SIZE_MIN ? LZMA_DICT_SIZE_MIN : (uint32_t)n;
	filters[0].id = LZMA_FILTER_LZMA2;
	filters[0].options = &options;
	filters[1].id = LZMA_VLI_UNKNOWN;
	err = vmt_buf_reserve(out, bound);
	if (err)
		return err;
	if (lzma_stream_buffer_encode(filters, LZMA_CHECK_NONE, NULL, src, n, out->data, &pos,
				      bound) != LZMA_OK)
		return -EINVAL;
	out->size = pos;
	return 0;
}

static int xz_decompress(const void *src, size_t n, void *dst, size_t dst_size)
{
	uint64_t memlimit = XZ_MEMLIMIT;
	size_t in_pos = 0, out_pos = 0;
	lzma_ret ret;

	ret = lzma_stream_buffer_decode(&memlimit, 0, NULL, src, &in_pos, n, dst, &out_pos,
					dst_size);
	if (ret != LZMA_OK || in_pos != n || out_pos != dst_size)
		return -EBADMSG;
	return 0;
}

int vmt_codec_generic_compress(unsigned int codec, int level, const void *src, size_t n,
			       struct vmt_buf *out)
{
	int err;

	switch (codec) {
	case VMT_CODEC_NONE:
		err = vmt_buf_reserve(out, n ? n : 1);
		if (err)
			return err;
		memcpy(out->data, src, n);
		out->size = n;
		return 0;
	case VMT_CODEC_ZSTD:
		return zstd_compress(level, src, n, out);
	case VMT_CODEC_XZ:
		return xz_compress(level, src, n, out);
	}
	return -EINVAL;
}

int vmt_codec_generic_decompress(unsigned int codec, const void *src, size_t n, void *dst,
				 size_t dst_size)
{
	switch (codec) {
	case VMT_CODEC_NONE:
		if (n != dst_size)
			return -EBADMSG;
		memcpy(dst, src, n);
		return 0;
	case VMT_CODEC_ZSTD:
		return zstd_decompress(src, n, dst, dst_size);
	case VMT_CODEC_XZ:
		return xz_decompress(src, n, dst, dst_size);
	}
	return -EBADMSG;
}
