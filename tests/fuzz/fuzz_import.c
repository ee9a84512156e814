// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the importer of other tools' text traces
 * (user/lib/trace/trace_import.c). The first byte picks the format (bit 0:
 * lackey or din) and how the rest, the text, is cut into pieces; then:
 *
 *   - the text fed whole and fed in those pieces gives the same records,
 *     the same counts and the same result (the same message, for a bad
 *     line), without a crash, a hang or a read out of bounds: a line cut
 *     across pieces is read as if it were not;
 *   - every record is what the importer promises: an exact record of the
 *     options' pid, tid and CPU, its time its index, a size from 1 to
 *     VMT_IMPORT_MAX_SIZE, one of the four accesses, a fetch's ip its
 *     address, and zero where the text says nothing (value, flags, mode);
 *   - the counts add up: records = fetches + reads + writes + modifies,
 *     and records + skipped = lines (but after a bad line, which is neither);
 *   - an error is -EINVAL with "input:LINE: ..." or, at the end, -ENODATA
 *     exactly when no record was made.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vmtrace/trace.h"

#define PID	4242
#define CPU	3

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct run {
	uint64_t records;
	uint64_t hash;		/* FNV-1a over the records' bytes */
	int ret;
	struct vmt_import_stats stats;
	struct vmt_trace_error err;
};

static const uint8_t zero[16];

static int check_record(void *arg, const struct vmt_record *rec)
{
	struct run *r = arg;
	const struct vmt_exact *e = &rec->exact;
	const uint8_t *p = (const uint8_t *)rec;

	if (rec->hdr.type != VMT_REC_EXACT || rec->hdr.pid != PID || rec->hdr.tid != PID + 1 ||
	    rec->hdr.cpu != CPU || rec->hdr.data_len || rec->hdr.time_ns != r->records)
		abort();
	if (!e->size || e->size > VMT_IMPORT_MAX_SIZE || e->kernel_mode || e->flags ||
	    memcmp(e->value, zero, sizeof(e->value)) || memcmp(e->reserved, zero, sizeof(e->reserved)))
		abort();
	if (e->access != VMT_ACCESS_READ && e->access != VMT_ACCESS_WRITE &&
	    e->access != VMT_ACCESS_RMW && e->access != VMT_ACCESS_EXEC)
		abort();
	if (e->access == VMT_ACCESS_EXEC && e->ip != e->addr)
		abort();
	for (size_t i = 0; i < sizeof(*rec); i++)
		r->hash = (r->hash ^ p[i]) * 0x100000001b3ull;
	r->records++;
	return 0;
}

/* Import @text in pieces whose sizes come from @cuts (all of it at once when @ncuts is 0). */
static void import(unsigned int format, const uint8_t *text, size_t size, const uint8_t *cuts,
		   size_t ncuts, struct run *r)
{
	struct vmt_import_options o = { .pid = PID, .tid = PID + 1, .cpu = CPU };
	struct vmt_import *imp;
	size_t off = 0, piece;

	memset(r, 0, sizeof(*r));
	r->hash = 0xcbf29ce484222325ull;
	if (vmt_import_create(&imp, format, &o))
		abort();
	for (size_t i = 0; !r->ret && off < size; i++) {
		piece = ncuts ? (size_t)cuts[i % ncuts] * 37 % 4999 : size;
		if (!piece) {
			/* An empty piece changes nothing; then go on a byte. */
			r->ret = vmt_import_feed(imp, text + off, 0, check_record, r, &r->err);
			piece = 1;
		}
		if (r->ret)
			break;
		if (piece > size - off)
			piece = size - off;
		r->ret = vmt_import_feed(imp, text + off, piece, check_record, r, &r->err);
		off += piece;
	}
	if (!r->ret)
		r->ret = vmt_import_finish(imp, check_record, r, &r->err);
	vmt_import_stats(imp, &r->stats);
	vmt_import_free(imp);

	if (r->ret && r->ret != -EINVAL && r->ret != -ENODATA)
		abort();
	if ((r->ret == -ENODATA) != (!r->stats.records && r->ret != -EINVAL))
		abort();
	if (r->ret == -EINVAL && strncmp(r->err.message, "input:", 6))
		abort();
	if (r->stats.records != r->records ||
	    r->stats.records != r->stats.fetches + r->stats.reads + r->stats.writes +
				r->stats.modifies ||
	    r->stats.flushes > r->stats.skipped ||
	    r->stats.records + r->stats.skipped + (r->ret == -EINVAL) != r->stats.lines)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct run whole, pieces;
	unsigned int format;

	if (!size)
		return 0;
	format = data[0] & 1 ? VMT_IMPORT_DIN : VMT_IMPORT_LACKEY;
	import(format, data + 1, size - 1, NULL, 0, &whole);
	/* Cut where the text's own bytes say: sizes 0 to 4998, across long lines too. */
	import(format, data + 1, size - 1, data + 1, size - 1 < 64 ? size - 1 : 64, &pieces);
	if (whole.ret != pieces.ret || whole.records != pieces.records ||
	    whole.hash != pieces.hash || memcmp(&whole.stats, &pieces.stats, sizeof(whole.stats)))
		abort();
	if (whole.ret && strcmp(whole.err.message, pieces.err.message))
		abort();
	return 0;
}
