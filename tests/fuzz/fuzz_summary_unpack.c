// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for a summary's packed part
 * (vmt_trace_summarizer_unpack_merge(), user/lib/analysis/trace_summary.c):
 * what one MPI process sends the one that merges. The input is unpacked
 * and merged into a summarizer of a small trace made at start (two
 * processes, a few pages, references and evictions, read once): refused
 * with -EBADMSG (or -ENOMEM), or merged, abort() otherwise. What merged
 * is packed again, and that must unpack and merge; then the summary is
 * finished, and no page of its top list may be more referenced than the
 * one before it. (Counts are not checked against each other: a part's are
 * taken as sent, and a made-up part may say anything.)
 *
 * Seeds (tests/fuzz/corpus/fuzz_summary_unpack/): parts packed from the
 * trace made here (made by this program when FUZZ_WRITE_SEEDS names a
 * folder).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/trace.h"

static struct vmt_trace *trace;

static void make_trace(void)
{
	char path[] = "/tmp/fuzz-summary-XXXXXX";
	struct vmt_trace_writer_options o = { .codec = VMT_CODEC_NONE };
	struct vmt_trace_writer *w;
	struct vmt_trace_error err;
	int fd = mkstemp(path);

	if (fd < 0 || vmt_trace_writer_create(&w, path, &o, &err))
		abort();
	close(fd);
	for (uint32_t i = 0; i < 400; i++) {
		struct vmt_record r = { 0 };

		r.hdr.time_ns = 1000 + 10 * i;
		r.hdr.pid = r.hdr.tid = 100 + i % 2;
		r.hdr.cpu = i % 3;
		r.hdr.type = i % 5 == 4 ? VMT_REC_EVICT : VMT_REC_REFERENCE;
		r.ref.vaddr = 0x400000 + 4096 * (i % 13);
		r.ref.access = i % 7 ? VMT_ACCESS_READ : VMT_ACCESS_WRITE;
		if (vmt_trace_writer_append_record(w, &r))
			abort();
	}
	if (vmt_trace_writer_close(w, &err) || vmt_trace_open(&trace, path, 0, &err))
		abort();
	unlink(path);
}

static struct vmt_trace_summarizer *read_part(void)
{
	struct vmt_trace_summarizer *z;

	if (vmt_trace_summarizer_create(trace, NULL, &z) || vmt_trace_summarizer_read(z))
		abort();
	return z;
}

static void write_seeds(const char *dir)
{
	struct vmt_trace_summarizer *z = read_part();
	char path[4096];
	void *data;
	size_t size;
	FILE *f;

	if (vmt_trace_summarizer_pack(z, &data, &size))
		abort();
	snprintf(path, sizeof(path), "%s/part.bin", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	free(data);
	vmt_trace_summarizer_free(z);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	make_trace();
	if (getenv("FUZZ_WRITE_SEEDS"))
		write_seeds(getenv("FUZZ_WRITE_SEEDS"));
	return 0;
}

static void check(const struct vmt_trace_summary *s)
{
	for (uint32_t i = 1; i < s->nr_top_pages; i++)
		if (s->top_pages[i].references > s->top_pages[i - 1].references)
			abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_trace_summarizer *z = read_part(), *again;
	struct vmt_trace_summary *s;
	void *packed;
	size_t packed_size;
	int err;

	err = vmt_trace_summarizer_unpack_merge(z, data, size);
	if (err) {
		if (err != -EBADMSG && err != -ENOMEM)
			abort();
		vmt_trace_summarizer_free(z);
		return 0;
	}
	/* What merged packs, and unpacks, again. */
	if (vmt_trace_summarizer_pack(z, &packed, &packed_size))
		abort();
	if (vmt_trace_summarizer_create(trace, NULL, &again))
		abort();
	err = vmt_trace_summarizer_unpack_merge(again, packed, packed_size);
	if (err && err != -ENOMEM) {
		fprintf(stderr, "a merged part packed does not unpack: %d\n", err);
		abort();
	}
	free(packed);
	vmt_trace_summarizer_free(again);
	if (vmt_trace_summarizer_finish(z, &s))
		return 0;
	check(s);
	vmt_trace_summary_free(s);
	return 0;
}
