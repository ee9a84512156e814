// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for trace set files (user/lib/trace/trace_set.c, and
 * the set made of them in trace_reader.c): each input, after the set
 * file's first line, is written as set.vmts in a folder that holds two
 * small traces made at start, a.vmt and b.vmt (references, and exec
 * records whose paths are in the data stream), and opened with
 * vmt_trace_open(). It must open or fail with a message, never crash or
 * hang. When it opens, every record is read in written order and by time,
 * and each of the set's files counted: the records are as many as its
 * files hold, times never go back by time, and every record's data reads
 * back (the data offsets made the set's).
 *
 * Seeds (tests/fuzz/corpus/fuzz_trace_set/): the two traces in turn, three
 * with a comment and a blank line, a missing file, the set itself, a folder.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/trace.h"

#define A_RECORDS	300
#define B_RECORDS	200

static char dir[] = "/tmp/fuzz-trace-set-XXXXXX";	/* mkdtemp() fills in the Xs */
static char set_path[sizeof(dir) + 16];
static char a_path[PATH_MAX], b_path[PATH_MAX];	/* the two traces' real paths */

/* @name in the folder: @n references of pid @pid from time @t0, an exec each 50. */
static void make_trace(const char *name, uint32_t n, uint32_t pid, uint64_t t0)
{
	struct vmt_trace_writer_options o = { .codec = VMT_CODEC_ZSTD, .frame_bytes = 4096 };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	char path[sizeof(dir) + 16];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (vmt_trace_writer_create(&w, path, &o, &err))
		abort();
	for (uint32_t i = 0; i < n; i++) {
		char text[32];
		struct vmt_record r = { 0 };

		r.hdr.time_ns = t0 + 10 * i;
		r.hdr.pid = r.hdr.tid = pid;
		if (i % 50 == 0) {
			r.hdr.type = VMT_REC_EXEC;
			r.hdr.data_len = (uint32_t)snprintf(text, sizeof(text), "/bin/%s-%u", name, i);
		} else {
			r.hdr.type = VMT_REC_REFERENCE;
			r.ref.vaddr = 0x400000 + 4096 * (i % 17);
		}
		if (vmt_trace_writer_append_record_data(w, &r, text))
			abort();
	}
	if (vmt_trace_writer_close(w, &err))
		abort();
}

static void remove_all(void)
{
	static const char *const names[] = { "a.vmt", "b.vmt", "set.vmts" };
	char path[sizeof(dir) + 16];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!mkdtemp(dir))
		abort();
	atexit(remove_all);
	/* b's times overlap a's: a set of both moves b's later. */
	make_trace("a.vmt", A_RECORDS, 7, 1000);
	make_trace("b.vmt", B_RECORDS, 8, 1500);
	snprintf(set_path, sizeof(set_path), "%s/set.vmts", dir);
	{
		char a[sizeof(dir) + 16], b[sizeof(dir) + 16];

		snprintf(a, sizeof(a), "%s/a.vmt", dir);
		snprintf(b, sizeof(b), "%s/b.vmt", dir);
		if (!realpath(a, a_path) || !realpath(b, b_path))
			abort();
	}
	return 0;
}

/* Each record of @t in @order; its count, or -1 having found a wrong one. */
static int64_t read_all(struct vmt_trace *t, enum vmt_trace_order order)
{
	const struct vmt_record *r;
	struct vmt_trace_cursor *c;
	uint64_t count = 0, last = 0;
	uint32_t stream;
	char data[4096];
	int ret;

	if (vmt_trace_cursor_create(t, order, &c))
		abort();
	while ((ret = vmt_trace_cursor_next(c, &r, &stream)) == 1) {
		if (order == VMT_ORDER_TIME && r->hdr.time_ns < last)
			abort();
		last = r->hdr.time_ns;
		if (r->hdr.data_len &&
		    vmt_trace_record_data(t, r, data, sizeof(data)) != (int)r->hdr.data_len)
			abort();
		if (r->hdr.data_len && memcmp(data, "/bin/", 5))
			abort();
		count++;
	}
	vmt_trace_cursor_free(c);
	return ret ? -1 : (int64_t)count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_trace_error err;
	struct vmt_trace *t;
	uint64_t expected = 0;
	const char *file;
	FILE *f;

	f = fopen(set_path, "wb");
	if (!f || fputs("vmtrace trace set\n", f) < 0 || fwrite(data, 1, size, f) != size ||
	    fclose(f))
		abort();
	if (vmt_trace_open(&t, set_path, 0, &err)) {
		if (!err.message[0])
			abort();
		return 0;
	}
	for (unsigned int k = 0; (file = vmt_trace_set_file(t, k, NULL)); k++) {
		char real[PATH_MAX];

		/*
		 * The traces the folder holds, by their real path (a set naming
		 * /a.vmt, or ../x/a.vmt, names another file); another found
		 * elsewhere is not counted.
		 */
		if (realpath(file, real) && !strcmp(real, a_path)) {
			expected += A_RECORDS;
		} else if (realpath(file, real) && !strcmp(real, b_path)) {
			expected += B_RECORDS;
		} else {
			expected = 0;
			break;
		}
	}
	if (expected && (read_all(t, VMT_ORDER_WRITTEN) != (int64_t)expected ||
			 read_all(t, VMT_ORDER_TIME) != (int64_t)expected))
		abort();
	vmt_trace_close(t);
	return 0;
}
