// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A frame's codec, by number and by name: the table of the codecs, which
 * names each one and its compress and decompress, the generic codecs
 * (codec_generic.c), VPC (codec_vpc.c) and the model codec (codec_model.c).
 * The codecs themselves are in those files and know nothing of this table.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec.h"
#include "codec/codec_generic.h"
#include "codec/codec_model.h"
#include "codec/codec_vpc.h"

/* One codec: vmt_codec_compress() and vmt_codec_decompress() for its number. */
struct vmt_codec_ops {
	const char *name;
	/* Whole struct vmt_record entries only (VPC and the model codec). */
	bool records_only;
	int (*compress)(unsigned int codec, unsigned int stage2, int level, const void *src,
			size_t n, struct vmt_buf *out);
	int (*decompress)(unsigned int codec, unsigned int stage2, const void *src, size_t n,
			  void *dst, size_t dst_size, unsigned int flags);
};

static int generic_compress(unsigned int codec, unsigned int stage2, int level,
			    const void *src, size_t n, struct vmt_buf *out)
{
	(void)stage2;
	return vmt_codec_generic_compress(codec, level, src, n, out);
}

static int generic_decompress(unsigned int codec, unsigned int stage2, const void *src,
			      size_t n, void *dst, size_t dst_size, unsigned int flags)
{
	(void)stage2;
	(void)flags;
	return vmt_codec_generic_decompress(codec, src, n, dst, dst_size);
}

static int vpc_compress(unsigned int codec, unsigned int stage2, int level, const void *src,
			size_t n, struct vmt_buf *out)
{
	(void)codec;
	return vmt_vpc_compress(stage2, level, src, n, out);
}

static int vpc_decompress(unsigned int codec, unsigned int stage2, const void *src, size_t n,
			  void *dst, size_t dst_size, unsigned int flags)
{
	(void)codec;
	(void)flags;
	return vmt_vpc_decompress(stage2, src, n, dst, dst_size);
}

static int model_compress(unsigned int codec, unsigned int stage2, int level, const void *src,
			  size_t n, struct vmt_buf *out)
{
	(void)codec;
	(void)stage2;
	(void)level;
	return vmt_model_compress(src, n, out);
}

static int model_decompress(unsigned int codec, unsigned int stage2, const void *src,
			    size_t n, void *dst, size_t dst_size, unsigned int flags)
{
	(void)codec;
	(void)stage2;
	return vmt_model_decompress(src, n, dst, dst_size, flags & VMT_CODEC_NO_VALUES);
}

static const struct vmt_codec_ops codecs[] = {
	[VMT_CODEC_NONE] = { "none", false, generic_compress, generic_decompress },
	[VMT_CODEC_ZSTD] = { "zstd", false, generic_compress, generic_decompress },
	[VMT_CODEC_XZ] = { "xz", false, generic_compress, generic_decompress },
	[VMT_CODEC_VPC] = { "vpc", true, vpc_compress, vpc_decompress },
	[VMT_CODEC_MODEL] = { "model", true, model_compress, model_decompress },
};

#define NR_CODECS (sizeof(codecs) / sizeof(codecs[0]))

const char *vmt_codec_name(unsigned int codec)
{
	return codec < NR_CODECS ? codecs[codec].name : NULL;
}

int vmt_codec_from_name(const char *name)
{
	for (unsigned int i = 0; i < NR_CODECS; i++)
		if (!strcmp(name, codecs[i].name))
			return (int)i;
	return -EINVAL;
}

/* The codec for @size bytes of @entry_size-byte entries; NULL when there is none. */
static const struct vmt_codec_ops *codec_for(unsigned int codec, uint32_t entry_size, size_t size)
{
	if (codec >= NR_CODECS)
		return NULL;
	if (codecs[codec].records_only &&
	    (entry_size != sizeof(struct vmt_record) || size % entry_size))
		return NULL;
	return &codecs[codec];
}

int vmt_codec_compress(unsigned int codec, unsigned int stage2, int level, uint32_t entry_size,
		       const void *src, size_t n, struct vmt_buf *out)
{
	const struct vmt_codec_ops *ops = codec_for(codec, entry_size, n);

	return ops ? ops->compress(codec, stage2, level, src, n, out) : -EINVAL;
}

int vmt_codec_decompress(unsigned int codec, unsigned int stage2, uint32_t entry_size,
			 const void *src, size_t n, void *dst, size_t dst_size, unsigned int flags)
{
	const struct vmt_codec_ops *ops = codec_for(codec, entry_size, dst_size);

	return ops ? ops->decompress(codec, stage2, src, n, dst, dst_size, flags) : -EBADMSG;
}
