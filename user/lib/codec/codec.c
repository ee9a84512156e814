// SPDX-License-Identifier: LGPL-2.1 OR BSD-2-Clause
/*
 * A frame's codec, by number and by name: the dispatch to the generic codecs
 * (codec_generic.c), to VPC (codec_vpc.c) or to the model codec
 * (codec_model.c), and the codecs' names. The codecs themselves are in
 * those files.
 */
#include <errno.h>
#include <string.h>

#include "vmtrace/trace.h"
#include "codec/codec.h"

static const char *const codec_names[] = { "none", "zstd", "xz", "vpc", "model" };

const char *vmt_codec_name(unsigned int codec)
{
	return codec < sizeof(codec_names) / sizeof(codec_names[0]) ? codec_names[codec] : NULL;
}

int vmt_codec_from_name(const char *name)
{
	for (unsigned int i = 0; i < sizeof(codec_names) / sizeof(codec_names[0]); i++)
		if (!strcmp(name, codec_names[i]))
			return (int)i;
	return -EINVAL;
}

int vmt_codec_compress(unsigned int codec, unsigned int stage2, int level, uint32_t entry_size,
		       const void *src, size_t n, struct vmt_buf *out)
{
	if (codec == VMT_CODEC_VPC) {
		if (entry_size != sizeof(struct vmt_record) || n % entry_size)
			return -EINVAL;
		return vmt_vpc_compress(stage2, level, src, n, out);
	}
	if (codec == VMT_CODEC_MODEL) {
		if (entry_size != sizeof(struct vmt_record) || n % entry_size)
			return -EINVAL;
		return vmt_model_compress(src, n, out);
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
	if (codec == VMT_CODEC_MODEL) {
		if (entry_size != sizeof(struct vmt_record) || dst_size % entry_size)
			return -EBADMSG;
		return vmt_model_decompress(src, n, dst, dst_size);
	}
	return vmt_codec_generic_decompress(codec, src, n, dst, dst_size);
}
