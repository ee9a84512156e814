// SPDX-License-Identifier: GPL-2.0
/*
 * The trace writer's options (writer_options.h): the codec of the frames,
 * vpc's second stage, the compression level, and how large a frame grows.
 */
#include <stdio.h>

#include "cmd_util.h"
#include "writer_options.h"

const char writer_options_usage[] =
	"  --codec C        the frames' codec: model (the default), vpc, zstd, xz or\n"
	"                   none\n"
	"  --stage2 C       vpc's second stage, and model's for streams other than\n"
	"                   records: zstd (default) or xz\n"
	"  --level N        zstd 1..19 or xz 0..9 (default: zstd 3, xz 6)\n"
	"  --frame-bytes N  raw bytes a frame holds at most (default 1 MiB; 4 MiB with\n"
	"                   model)\n";

int parse_writer_option(const char *cmd, int opt, const char *arg,
			struct vmt_trace_writer_options *o)
{
	long long n;
	int codec;

	switch (opt) {
	case 'c':
	case 's':
		codec = vmt_codec_from_name(arg);
		if (codec < 0 || (opt == 's' && codec != VMT_CODEC_ZSTD && codec != VMT_CODEC_XZ)) {
			fprintf(stderr, "vmtrace %s: unknown %s '%s'\n", cmd,
				opt == 'c' ? "codec" : "second stage", arg);
			return -1;
		}
		if (opt == 'c')
			o->codec = (unsigned int)codec;
		else
			o->stage2 = (unsigned int)codec;
		return 1;
	case 'l':
		n = parse_number(cmd, "level", arg, 1, 19);
		if (n < 0)
			return -1;
		o->level = (int)n;
		return 1;
	case 'f':
		n = parse_number(cmd, "frame size", arg, 1, 64 << 20);
		if (n < 0)
			return -1;
		o->frame_bytes = (uint32_t)n;
		return 1;
	}
	return 0;
}
