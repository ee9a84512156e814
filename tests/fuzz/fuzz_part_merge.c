// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the packed parts one MPI process sends the one
 * that merges (docs/analysis/parallel.md), each input merged three ways,
 * with no byte choosing among them:
 *   - as a summary's part (vmt_trace_summarizer_unpack_merge(),
 *     user/lib/analysis/trace_summary.c), into a summarizer of a small
 *     trace made at start (two processes, a few pages, references and
 *     evictions, read once);
 *   - as a reuse analysis's part (vmt_analysis_merge(): analysis_reuse.c,
 *     PARDA's merge in lru_merge.c), into one that read that trace;
 *   - as a per-process analysis's part (analysis.c), of reuse analyses;
 *   - as an exact LRU miss-ratio curve's part (analysis_mrc.c, the same
 *     merge).
 * Each refuses it with -EBADMSG (or -ENOMEM, -EOVERFLOW for a reuse part
 * whose counts overflow), or merges it, abort() otherwise; then it
 * finishes. A summary that merged packs again, and that must unpack and
 * merge; no page of its top list may be more referenced than the one
 * before it. (Counts are not checked against each other: a part's are
 * taken as sent, and a made-up part may say anything.)
 *
 * Seeds (tests/fuzz/corpus/fuzz_part_merge/): the parts of the trace made
 * here, packed (written by this program when FUZZ_WRITE_SEEDS names a
 * folder).
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vmtrace/analysis.h"
#include "vmtrace/trace.h"

static struct vmt_trace *trace;

static void make_trace(void)
{
	char path[] = "/tmp/fuzz-part-merge-XXXXXX";	/* mkstemp() fills in the Xs */
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

static int make_reuse(void *ctx, uint32_t pid, struct vmt_analysis **a)
{
	(void)ctx;
	(void)pid;
	return vmt_reuse_create(a, 5);
}

static int make_mrc(struct vmt_analysis **a)
{
	struct vmt_mrc_options o = { .policies = 1u << VMT_MRC_LRU };

	return vmt_mrc_create(a, &o);
}

/* A reuse analysis (or, @kind 1, one a process; 2, LRU's curve) that read the trace. */
static struct vmt_analysis *read_reuse(int kind)
{
	struct vmt_ref_options o = { .space = VMT_REF_VIRTUAL, .unit = VMT_REF_PAGE };
	struct vmt_analysis *a;

	if (kind == 2 ? make_mrc(&a) : kind ? vmt_per_process_create(&a, make_reuse, NULL) :
	    make_reuse(NULL, 0, &a))
		abort();
	if (vmt_analyze_part(trace, &o, &a, 1, NULL))
		abort();
	return a;
}

static void write_seed(const char *dir, const char *name, const void *data, size_t size)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
}

static void write_seeds(const char *dir)
{
	struct vmt_trace_summarizer *z = read_part();
	struct vmt_analysis *a;
	void *data;
	size_t size;

	if (vmt_trace_summarizer_pack(z, &data, &size))
		abort();
	write_seed(dir, "summary.bin", data, size);
	free(data);
	vmt_trace_summarizer_free(z);
	for (int kind = 0; kind < 3; kind++) {
		static const char *const names[] = { "reuse.bin", "per-process-reuse.bin", "mrc.bin" };

		a = read_reuse(kind);
		if (vmt_analysis_pack(a, &data, &size))
			abort();
		write_seed(dir, names[kind], data, size);
		free(data);
		vmt_analysis_destroy(a);
	}
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

static void merge_analysis(int kind, const uint8_t *data, size_t size)
{
	struct vmt_analysis *a = read_reuse(kind);
	int err = vmt_analysis_merge(a, data, size);

	if (err && err != -EBADMSG && err != -ENOMEM && err != -EOVERFLOW)
		abort();
	/* Merged or not, it finishes: what it holds is whole. */
	err = vmt_analysis_finish(a);
	if (err && err != -ENOMEM)
		abort();
	vmt_analysis_destroy(a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vmt_trace_summarizer *z = read_part(), *again;

	merge_analysis(0, data, size);
	merge_analysis(1, data, size);
	merge_analysis(2, data, size);
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
