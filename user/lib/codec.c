// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * Frame codecs: none, zstd, xz, and the dispatch to VPC (codec_vpc.c).
 * Decoders never trust the payload: the output must come to exactly the
 * frame's raw size, and all input must be used.
 */
#include <errno.h>
#include <lzma.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "trace_format.h"

#define ZSTD_DEFAULT_LEVEL	3
#define XZ_DEFAULT_LEVEL	6
/* xz's decoder may use this much memory; a frame needs far less. */
#define XZ_MEMLIMIT		(256u << 20)

int vmt_buf_reserve(struct vmt_buf *b, size_t capacity)
{
	uint8_t *data;

	if (b->capacity >= capacity)
		return 0;
	data = realloc(b->data, capacity);
	if (!data)
		return -ENOMEM;
	b->data = data;
	b->capacity = capacity;
	return 0;
}

void vmt_buf_free(struct vmt_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

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

int vmt_codec_compress(unsigned int codec, unsigned int stage2, int level, uint32_t entry_size,
		       const void *src, size_t n, struct vmt_buf *out)
{
	if (codec == VMT_CODEC_VPC) {
		if (entry_size != sizeof(struct vmt_record) || n % entry_size)
			return -EINVAL;
		return vmt_vpc_compress(stage2, level, src, n, out);
	}
	return vmt_codec_generic_compress(codec, level, src, n, out);
}

int vmt_codec_decompress(unsigned int codec, unsigned int stage2, uint32_t entry_size,
			 const void *src, size_t n, void *dst, size_t dst_size)
{
	if (codec == VMT_CODEC_VPC) {
		if (entry_size != sizeof(struct vmt_record) || dst_size % entry_size)
			return -EBADMSG;
		return vmt_vpc_decompress(stage2, src, n, dst, dst_size);
	}
	return vmt_codec_generic_decompress(codec, src, n, dst, dst_size);
}
