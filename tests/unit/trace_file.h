/* SPDX-License-Identifier: GPL-2.0 */
/*
 * For cmocka tests that write a trace and read it back: reference and
 * pagemap records made by hand, and @recs written to @file (temp_file.h's @path, mostly) in
 * frames of @frame_bytes (0: the writer's default), with the trace's
 * session settings when @session is not NULL, the writer's stats in
 * *@stats (may be NULL), and the trace opened.
 */
#ifndef VMTRACE_TESTS_TRACE_FILE_H
#define VMTRACE_TESTS_TRACE_FILE_H

#include <string.h>

#include "vmtrace/trace.h"

/* A record of @type by @pid (its own tid) at @time, on CPU 0, its payload zero. */
static inline struct vmt_record blank_record(uint64_t time, uint32_t pid, uint16_t type)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = pid;
	r.hdr.type = type;
	return r;
}

/* A read of @vaddr by @pid (its own tid) at @time, on CPU 0. */
static inline struct vmt_record reference_record(uint64_t time, uint32_t pid, uint64_t vaddr)
{
	struct vmt_record r = blank_record(time, pid, VMT_REC_REFERENCE);

	r.ref.vaddr = vaddr;
	r.ref.access = VMT_ACCESS_READ;
	return r;
}

/* The same, at frame @pfn. */
static inline struct vmt_record ref_rec(uint64_t time, uint32_t pid, uint64_t vaddr, uint64_t pfn)
{
	struct vmt_record r = reference_record(time, pid, vaddr);

	r.ref.pfn = pfn;
	return r;
}

/* A pagemap record (VMT_REC_PAGEMAP): @pid's @vaddr at frame @pfn, by @op. */
static inline struct vmt_record pagemap_rec(uint64_t time, uint32_t pid, uint64_t vaddr,
					    uint64_t pfn, uint8_t op)
{
	struct vmt_record r = blank_record(time, pid, VMT_REC_PAGEMAP);

	r.pagemap.vaddr = vaddr;
	r.pagemap.pfn = pfn;
	r.pagemap.op = op;
	return r;
}

static inline struct vmt_trace *
write_trace_with_session(const char *file, const struct vmt_record *recs, size_t n,
			 uint32_t frame_bytes, const struct vmt_trace_session *session,
			 struct vmt_trace_writer_stats *stats)
{
	struct vmt_trace_writer_options o = { .frame_bytes = frame_bytes,
					      .codec = VMT_CODEC_VPC };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	assert_int_equal(vmt_trace_writer_create(&w, file, &o, &err), 0);
	if (session)
		assert_true(vmt_trace_writer_add_session(w, session) >= 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vmt_trace_writer_append_record(w, &recs[i]), 0);
	if (stats)
		vmt_trace_writer_stats(w, stats);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_open(&t, file, 0, &err), 0);
	return t;
}

static inline struct vmt_trace *write_trace_and_open(const char *file,
						     const struct vmt_record *recs, size_t n,
						     uint32_t frame_bytes,
						     struct vmt_trace_writer_stats *stats)
{
	return write_trace_with_session(file, recs, n, frame_bytes, NULL, stats);
}

#endif
