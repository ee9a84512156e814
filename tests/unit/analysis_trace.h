/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the analyses' tests share: records made by hand, written to @path
 * (temp_file.h) with the trace writer and opened again.
 */
#ifndef VMTRACE_TESTS_ANALYSIS_TRACE_H
#define VMTRACE_TESTS_ANALYSIS_TRACE_H

#include <string.h>

#include "vmtrace/trace.h"
#include "temp_file.h"

static struct vmt_record ref_at(uint64_t time, uint32_t pid, uint64_t vaddr)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = pid;
	r.hdr.type = VMT_REC_REFERENCE;
	r.ref.vaddr = vaddr;
	r.ref.access = VMT_ACCESS_READ;
	return r;
}

static struct vmt_trace *write_and_open(const struct vmt_record *recs, size_t n)
{
	struct vmt_trace_writer_options o = { .frame_bytes = 64 * 64, .codec = VMT_CODEC_VPC };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	struct vmt_trace *t;

	assert_int_equal(vmt_trace_writer_create(&w, path, &o, &err), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(vmt_trace_writer_append_record(w, &recs[i]), 0);
	assert_int_equal(vmt_trace_writer_close(w, &err), 0);
	assert_int_equal(vmt_trace_open(&t, path, 0, &err), 0);
	return t;
}

#endif
