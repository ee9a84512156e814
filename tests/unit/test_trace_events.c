// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the introspection records in trace files: variable-size
 * data moved from DATA records to the data stream (user/lib/device/record_assembler.c,
 * trace_writer.c, trace_data.c), and references attributed to mappings
 * by replaying the VMA, FORK and EXEC records (user/lib/analysis/trace_maps.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "vmtrace/trace.h"

#include "temp_file.h"
#include "trace_file.h"

static struct vmt_record rec(uint16_t type, uint64_t time, uint32_t pid, uint16_t cpu)
{
	struct vmt_record r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = type;
	r.hdr.time_ns = time;
	r.hdr.pid = r.hdr.tid = pid;
	r.hdr.cpu = cpu;
	return r;
}

/* A record and its DATA chunks as the kernel's ring holds them. */
static size_t with_data(struct vmt_record *out, struct vmt_record owner, const char *text)
{
	size_t len = strlen(text), n = 1;

	owner.hdr.data_len = (uint32_t)len;
	out[0] = owner;
	for (size_t off = 0; off < len; off += VMT_DATA_CHUNK, n++) {
		struct vmt_record d = owner;
		size_t k = len - off < VMT_DATA_CHUNK ? len - off : VMT_DATA_CHUNK;

		d.hdr.type = VMT_REC_DATA;
		d.hdr.data_len = (uint32_t)k;
		memset(&d.data, 0, sizeof(d.data));
		memcpy(d.data.bytes, text + off, k);
		out[n] = d;
	}
	return n;
}

static struct vmt_record vma(uint64_t time, uint32_t pid, uint8_t op, uint8_t kind,
			     uint64_t start, uint64_t end)
{
	struct vmt_record r = rec(VMT_REC_VMA, time, pid, 0);

	r.vma.op = op;
	r.vma.kind = kind;
	r.vma.start = start;
	r.vma.end = end;
	return r;
}

static struct vmt_record ref(uint64_t time, uint32_t pid, uint64_t addr)
{
	struct vmt_record r = rec(VMT_REC_REFERENCE, time, pid, 1);

	r.ref.vaddr = addr;
	return r;
}

/*
 * CPU 0: an EXEC with a 95-byte name (3 chunks); CPU 1 interleaves a
 * reference between its chunks; a DATA record with no owner (an overwritten
 * flight recorder) is dropped and counted; a marker's text comes back.
 */
static void test_data_moves_to_data_stream(void **state)
{
	char name[96];
	struct vmt_record recs[16], group[4], r;
	struct vmt_trace_writer_stats stats;
	const struct vmt_record *got;
	struct vmt_trace_cursor *c;
	struct vmt_trace *t;
	char buf[VMT_MAX_DATA_LEN];
	uint32_t stream;
	size_t n = 0, k;
	int types[8], nt = 0;

	(void)state;
	memset(name, 'a', 95);
	name[95] = 0;
	name[0] = '/';
	r = rec(VMT_REC_DATA, 5, 1, 2);
	r.hdr.data_len = 4;
	recs[n++] = r;				/* orphan */
	k = with_data(group, rec(VMT_REC_EXEC, 10, 7, 0), name);
	assert_int_equal(k, 4);
	/* owner, DATA, a reference on CPU 1, DATA, DATA */
	recs[n++] = group[0];
	recs[n++] = group[1];
	recs[n++] = ref(11, 8, 0x1000);
	recs[n++] = group[2];
	recs[n++] = group[3];
	r = rec(VMT_REC_MARKER, 20, 7, 0);
	r.marker.id = 42;
	n += with_data(&recs[n], r, "phase \"2\"");
	t = write_trace_and_open(path, recs, n, 256, &stats);
	assert_int_equal(stats.orphan_data, 1);
	assert_int_equal(stats.cut_data, 0);
	assert_int_equal(stats.data_bytes, 95 + 9);

	assert_int_equal(vmt_trace_cursor_create(t, VMT_ORDER_WRITTEN, &c), 0);
	while (vmt_trace_cursor_next(c, &got, &stream) > 0) {
		assert_true(nt < 8);
		types[nt++] = got->hdr.type;
		if (got->hdr.type == VMT_REC_EXEC) {
			assert_int_equal(got->hdr.data_len, 95);
			assert_int_equal(vmt_trace_record_data(t, got, buf, sizeof(buf)), 95);
			assert_memory_equal(buf, name, 95);
			assert_int_equal(vmt_trace_record_data(t, got, buf, 10), -ENOSPC);
		}
		if (got->hdr.type == VMT_REC_MARKER) {
			assert_int_equal(got->marker.id, 42);
			assert_int_equal(vmt_trace_record_data(t, got, buf, sizeof(buf)), 9);
			assert_memory_equal(buf, "phase \"2\"", 9);
		}
	}
	vmt_trace_cursor_free(c);
	/* No DATA record is kept; the EXEC is written once its data is in. */
	assert_int_equal(nt, 3);
	assert_int_equal(types[0], VMT_REC_REFERENCE);
	assert_int_equal(types[1], VMT_REC_EXEC);
	assert_int_equal(types[2], VMT_REC_MARKER);
	vmt_trace_close(t);
}

/* A record whose data never comes in full keeps what came, and is counted. */
static void test_cut_data_is_counted(void **state)
{
	struct vmt_record recs[8];
	struct vmt_trace_writer_stats stats;
	struct vmt_trace *t;
	size_t n;

	(void)state;
	n = with_data(recs, rec(VMT_REC_EXEC, 10, 7, 0),
		      "0123456789012345678901234567890123456789ABCD");
	assert_int_equal(n, 3);
	recs[2] = rec(VMT_REC_EXIT, 11, 7, 0);	/* the second chunk never came */
	t = write_trace_and_open(path, recs, 3, 256, &stats);
	assert_int_equal(stats.cut_data, 1);
	assert_int_equal(stats.data_bytes, 40);
	vmt_trace_close(t);
}

/*
 * pid 1: state dump of [heap] 0x1000-0x3000 and libc 0x10000-0x20000;
 * refs at 0x1800 (heap), 0x15000 (libc), 0x5000 (nothing);
 * munmap 0x10000-0x14000 -> ref at 0x12000 unattributed, 0x16000 libc;
 * fork -> pid 2 refs 0x2000 (heap, copied); pid 2 exec -> its map is empty
 * until a MAP of [stack] 0x7000-0x8000 -> ref 0x7100 stack, 0x2000 nothing.
 */
static void test_attribution_replays_maps(void **state)
{
	struct vmt_record recs[32], r;
	struct vmt_trace_writer_stats stats;
	struct vmt_trace_attribution *a;
	struct vmt_trace *t;
	size_t n = 0;

	(void)state;
	recs[n++] = vma(1, 1, VMT_VMA_MAP, VMT_VMA_HEAP, 0x1000, 0x3000);
	n += with_data(&recs[n], vma(2, 1, VMT_VMA_MAP, VMT_VMA_FILE, 0x10000, 0x20000),
		       "/usr/lib/libc.so.6");
	recs[n++] = ref(3, 1, 0x1800);
	recs[n++] = ref(4, 1, 0x15000);
	recs[n++] = ref(5, 1, 0x5000);
	recs[n++] = vma(6, 1, VMT_VMA_UNMAP, 0, 0x10000, 0x14000);
	recs[n++] = ref(7, 1, 0x12000);
	recs[n++] = ref(8, 1, 0x16000);
	r = rec(VMT_REC_FORK, 9, 1, 0);
	r.fork.child_pid = r.fork.child_tid = 2;
	recs[n++] = r;
	recs[n++] = ref(10, 2, 0x2000);
	recs[n++] = rec(VMT_REC_EXEC, 11, 2, 0);
	recs[n++] = vma(12, 2, VMT_VMA_MAP, VMT_VMA_STACK, 0x7000, 0x8000);
	recs[n++] = ref(13, 2, 0x7100);
	recs[n++] = ref(14, 2, 0x2000);
	t = write_trace_and_open(path, recs, n, 256, &stats);
	assert_int_equal(vmt_trace_attribute(t, &a), 0);
	assert_int_equal(a->references, 8);
	assert_int_equal(a->attributed, 5);
	assert_int_equal(a->nr_mappings, 3);
	assert_string_equal(a->mappings[0].name, "/usr/lib/libc.so.6");
	assert_int_equal(a->mappings[0].references, 2);
	assert_string_equal(a->mappings[1].name, "[heap]");
	assert_int_equal(a->mappings[1].references, 2);
	assert_string_equal(a->mappings[2].name, "[stack]");
	assert_int_equal(a->mappings[2].references, 1);
	vmt_trace_attribution_free(a);
	vmt_trace_close(t);
}

/*
 * Summaries name processes: pid 10 from its state dump's TASK record (the
 * leader's comm, the executable as data), renamed by a COMM record; pid 20
 * from an EXEC (its file name) and a thread's COMM, which is not the
 * process's name; pid 30 has no task record.
 */
static void test_summary_names_processes(void **state)
{
	struct vmt_record recs[16], r;
	struct vmt_trace_writer_stats stats;
	struct vmt_trace_summary *s;
	struct vmt_trace *t;
	size_t n = 0;

	(void)state;
	r = rec(VMT_REC_TASK, 100, 10, 0);
	memcpy(r.task.comm, "server", 6);
	n += with_data(&recs[n], r, "/usr/sbin/server");
	recs[n++] = ref(110, 10, 0x1000);
	r = rec(VMT_REC_COMM, 120, 10, 0);
	memcpy(r.comm.comm, "server-main", 11);
	recs[n++] = r;
	n += with_data(&recs[n], rec(VMT_REC_EXEC, 130, 20, 0), "/bin/true");
	r = rec(VMT_REC_COMM, 140, 20, 0);
	r.hdr.tid = 21;
	memcpy(r.comm.comm, "worker", 6);
	recs[n++] = r;
	recs[n++] = ref(150, 20, 0x2000);
	recs[n++] = ref(160, 30, 0x3000);
	t = write_trace_and_open(path, recs, n, 256, &stats);
	assert_int_equal(vmt_trace_summarize(t, NULL, &s), 0);
	assert_int_equal(s->nr_processes, 3);
	for (uint32_t i = 0; i < s->nr_processes; i++) {
		const struct vmt_trace_process *p = &s->processes[i];

		if (p->pid == 10) {
			assert_string_equal(p->comm, "server-main");
			assert_string_equal(p->exe, "/usr/sbin/server");
		} else if (p->pid == 20) {
			assert_string_equal(p->comm, "");
			assert_string_equal(p->exe, "/bin/true");
		} else {
			assert_int_equal(p->pid, 30);
			assert_string_equal(p->comm, "");
			assert_null(p->exe);
		}
	}
	vmt_trace_summary_free(s);
	vmt_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_data_moves_to_data_stream, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_data_is_counted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attribution_replays_maps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_names_processes, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
