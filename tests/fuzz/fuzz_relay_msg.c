// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes taken as the relay's input (docs/RELAY.md):
 * messages cut from them by their headers' lengths, each header checked,
 * a hello decoded, and each block offered to a writer of encoded blocks
 * without a file, as `vmtrace relay` offers them. Every bad message must
 * be refused without reading outside it, and the writer must take only
 * well-formed blocks (its block count grows by exactly one a block taken).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "format/relay_proto.h"
#include "vmtrace/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	size_t at = 0;

	if (vmt_trace_writer_open_blocks(&w, NULL, 0, &err))
		abort();
	while (size - at >= VMT_RELAY_HEADER_SIZE) {
		struct vmt_relay_header h;
		struct vmt_relay_hello hello;
		char why[200];
		uint8_t *msg;
		uint64_t before;
		int ret;

		if (vmt_relay_header_decode(data + at, &h, why, sizeof(why)))
			break;
		at += VMT_RELAY_HEADER_SIZE;
		if (h.length > size - at)
			break;
		/* An exact-size copy, so ASan sees any read past the message. */
		msg = malloc(h.length ? h.length : 1);
		if (!msg)
			break;
		memcpy(msg, data + at, h.length);
		at += h.length;
		if (h.type == VMT_RELAY_HELLO &&
		    vmt_relay_hello_decode(msg, &hello, why, sizeof(why)) == 0 &&
		    (vmt_relay_name_check(hello.host, why, sizeof(why)) ||
		     vmt_relay_name_check(hello.session, why, sizeof(why)) ||
		     strchr(hello.host, '/') || strstr(hello.session, "..") == hello.session))
			abort();
		if (h.type == VMT_RELAY_BLOCK) {
			before = vmt_trace_writer_blocks(w);
			ret = vmt_trace_writer_append_block(w, msg, h.length);
			if (vmt_trace_writer_blocks(w) != before + (ret == 0))
				abort();
		}
		free(msg);
	}
	vmt_trace_writer_abandon(w);
	return 0;
}
