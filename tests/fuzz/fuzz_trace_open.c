// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: any bytes taken as a trace file are refused with an
 * error or read to the end (directory and scan, every stream, both cursor
 * orders, through filters too, time seeks) without a crash, a hang or a
 * read out of bounds.
 * Built with FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION, which makes every
 * checksum match, so that mutations reach the parsers behind them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"

/* Enough to cross frames; a frame may decode to 64 MiB of 1-byte entries. */
#define MAX_READS 4096

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void read_cursors(struct vmt_trace *t)
{
	for (int order = VMT_ORDER_WRITTEN; order <= VMT_ORDER_TIME; order++) {
		struct vmt_trace_cursor *c;
		const struct vmt_record *rec;
		uint32_t stream;

		if (vmt_trace_cursor_create(t, (enum vmt_trace_order)order, &c))
			continue;
		for (int i = 0; i < MAX_READS && vmt_trace_cursor_next(c, &rec, &stream) > 0; i++)
			;
		vmt_trace_cursor_free(c);
	}
}

/*
 * Cursors through a filter: the middle half of the first stream's time
 * span (seeks bound the streams), references and evictions, pids 0 and 1.
 */
static void read_filtered(struct vmt_trace *t)
{
	static const uint32_t pids[] = { 0, 1 };
	struct vmt_trace_filter f = { .types = 1u << VMT_REC_REFERENCE | 1u << VMT_REC_EVICT,
				      .time_range = 1, .to_time = UINT64_MAX };
	struct vmt_trace_stream_stats st;

	if (vmt_trace_nr_streams(t) && vmt_trace_stream_stats(t, 0, &st) == 0 &&
	    st.last_time >= st.first_time) {
		f.from_time = st.first_time + (st.last_time - st.first_time) / 4;
		f.to_time = st.last_time - (st.last_time - st.first_time) / 4;
	}
	if (vmt_trace_set_filter(t, &f))
		abort();
	read_cursors(t);
	f.nr_pids = 2;
	f.pids = pids;
	if (vmt_trace_set_filter(t, &f))
		abort();
	read_cursors(t);
	vmt_trace_set_filter(t, NULL);
}

static void read_all(struct vmt_trace *t)
{
	uint8_t entry[4096];

	vmt_trace_check(t);
	for (uint32_t s = 0; s < vmt_trace_nr_streams(t); s++) {
		struct vmt_trace_stream_stats st;

		if (vmt_trace_stream_stats(t, s, &st))
			abort();
		for (uint64_t i = 0; i < st.entries && i < MAX_READS; i++)
			if (vmt_trace_read(t, s, i, entry))
				break;
		if (st.entries)
			vmt_trace_read(t, s, st.entries - 1, entry);
		if (vmt_trace_read(t, s, st.entries, entry) == 0)
			abort();
		vmt_trace_seek_time(t, s, 0);
		vmt_trace_seek_time(t, s, st.first_time + (st.last_time - st.first_time) / 2);
		vmt_trace_seek_time(t, s, UINT64_MAX);
	}
	read_cursors(t);
	read_filtered(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	void *mem;

	/* An exact-size copy, so ASan sees any read past the end. */
	mem = malloc(size ? size : 1);
	if (!mem)
		return 0;
	memcpy(mem, data, size);
	for (unsigned int flags = 0; flags <= VMT_TRACE_OPEN_SCAN; flags += VMT_TRACE_OPEN_SCAN) {
		err.message[0] = '\0';
		if (vmt_trace_open_memory(&t, mem, size, flags, &err) == 0) {
			read_all(t);
			vmt_trace_close(t);
		} else if (!err.message[0]) {
			abort();	/* every refusal says why */
		}
	}
	free(mem);
	return 0;
}
